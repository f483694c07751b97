/**
 * The one dot-path walker: the value at `a.b.c` below `root`, or undefined as soon as a step is
 * not an object. With `ownOnly`, a step must be an own property of a plain (non-array) object:
 * what n8n's `$json.a.b` gives for item data, without reaching prototypes.
 */
export function valueAt(root: unknown, path: string, ownOnly = false): unknown {
	let cur: unknown = root;
	for (const part of path.split('.')) {
		if (cur === null || typeof cur !== 'object') return undefined;
		if (ownOnly && (Array.isArray(cur) || !Object.prototype.hasOwnProperty.call(cur, part))) return undefined;
		cur = (cur as Record<string, unknown>)[part];
	}
	return cur;
}
