/**
 * A function that remembers its last call: called again with the same arguments (each compared
 * with ===), it answers what it answered then without making it again. One entry: bounded. For
 * what a trigger derives from its credential on every delivery (signing keys, the output gate's
 * redactor), which is the same from one delivery to the next until the credential changes.
 */
export function rememberLast<A extends readonly unknown[], R>(make: (...args: A) => R): (...args: A) => R {
	let last: { args: A; result: R } | undefined;
	return (...args: A): R => {
		if (last !== undefined && last.args.length === args.length && last.args.every((arg, i) => arg === args[i])) return last.result;
		const result = make(...args);
		last = { args, result };
		return result;
	};
}
