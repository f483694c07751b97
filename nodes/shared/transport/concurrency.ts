/**
 * Runs `fn` over `inputs` with at most `limit` calls in flight and returns the
 * results in input order. After a failure no new call starts; the first error
 * is thrown once the calls in flight have settled.
 */
export async function mapLimit<T, R>(
	inputs: readonly T[],
	limit: number,
	fn: (input: T, index: number) => Promise<R>,
): Promise<R[]> {
	const results = new Array<R>(inputs.length);
	let next = 0;
	let failure: { error: unknown } | undefined;
	const worker = async (): Promise<void> => {
		while (next < inputs.length && !failure) {
			const index = next++;
			try {
				results[index] = await fn(inputs[index], index);
			} catch (error) {
				failure ??= { error };
			}
		}
	};
	const workers = [];
	for (let w = 0; w < Math.min(Math.max(1, limit), inputs.length); w++) workers.push(worker());
	await Promise.all(workers);
	if (failure) throw failure.error;
	return results;
}
