import type { IDataObject } from 'n8n-workflow';

/**
 * Names whose values are money amounts, matched as whole names (never as a part of another
 * word: `coffee`, `summary` and `restocking_fee` are not amounts). The README lists them.
 */
export const AMOUNT_NAME_RULES = ['amount', 'total', 'price', 'fee', '…Amount', '…_amount', '…Cents', '…_cents'] as const;

const WHOLE = /^(amount|total|price|fee)$/i;
const CAMEL_SUFFIX = /^[a-z][A-Za-z0-9]*(Amount|Cents)$/;
const SNAKE_SUFFIX = /^[A-Za-z0-9]+(?:_[A-Za-z0-9]+)*_(amount|cents)$/i;

export function isAmountName(name: string): boolean {
	return WHOLE.test(name) || CAMEL_SUFFIX.test(name) || SNAKE_SUFFIX.test(name);
}

/** A number, or a string that is one; undefined otherwise. */
export function numberOf(value: unknown): number | undefined {
	const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
}

export interface FoundAmount {
	/** Where it sits: `amount`, `items.0.price`, `query.amount`. */
	path: string;
	/** The name it sits under. */
	name: string;
	value: unknown;
	/** A top-level field of the body or the query (where an operation's own amount sits). */
	topLevel: boolean;
}

/** How deep amounts are looked for; a value nested deeper is reported as unread (refused under a cap). */
const MAX_AMOUNT_DEPTH = 20;

/**
 * The name a key gives its value as a service reads form and query names: `order[amount]` is
 * `amount`, `amount[]` and `amount[0]` are `amount`.
 */
export function amountKey(key: string): string {
	const bracket = /^([^[\]]*)((?:\[[^[\]]*\])+)$/.exec(key);
	if (bracket === null) return key;
	const parts = bracket[2].slice(1, -1).split('][').filter((part) => part !== '' && !/^\d+$/.test(part));
	return parts.length > 0 ? parts[parts.length - 1] : bracket[1];
}

function walk(value: unknown, prefix: string, out: FoundAmount[], depth: number, listName?: string): void {
	if (value === null || typeof value !== 'object') return;
	if (depth > MAX_AMOUNT_DEPTH) {
		// Never passed unread: under a Maximum Amount an unread value is refused (not a number).
		out.push({ path: `${prefix} (nested deeper than ${MAX_AMOUNT_DEPTH} levels)`, name: '', value: undefined, topLevel: false });
		return;
	}
	const isList = Array.isArray(value);
	const entries = isList ? (value as unknown[]).map((v, i) => [String(i), v] as const) : Object.entries(value as IDataObject);
	for (const [key, inner] of entries) {
		const path = prefix === '' ? key : `${prefix}.${key}`;
		// A list's entries are under the list's name (`amount: [50]`, a query's `amount[]=50`).
		const name = isList ? listName : amountKey(key);
		if (inner !== null && typeof inner === 'object') walk(inner, path, out, depth + 1, name);
		else if (name !== undefined && isAmountName(name)) out.push({ path, name, value: inner, topLevel: depth === 0 });
	}
}

/** Every value under an amount-like name in the body (any depth) and the query, with its path. */
export function amountsIn(body: unknown, query?: unknown): FoundAmount[] {
	const out: FoundAmount[] = [];
	walk(body, '', out, 0);
	const fromQuery: FoundAmount[] = [];
	walk(query, '', fromQuery, 0);
	for (const found of fromQuery) out.push({ ...found, path: `query.${found.path}` });
	return out;
}
