/**
 * Input validation helpers. Each takes the raw value and the field name, returns the typed
 * value (or undefined when optional and absent) and throws a 400 naming the field otherwise.
 * Query values arrive as strings: use `queryInt` for them (body numbers must be JSON numbers).
 */
import { badRequest } from './reply';
import { isPlainObject } from './util';

interface Opt {
	required?: boolean;
}

const absent = (v: unknown) => v === undefined || v === null || v === '';

function need(field: string, o: Opt | undefined): undefined {
	if (o?.required) throw badRequest(field, 'is required');
	return undefined;
}

/** Known id prefixes by parameter/field name; route params with these names are checked automatically. */
export const ID_PREFIXES: Record<string, string> = {
	storeId: 'shp_',
	productId: 'prd_',
	orderId: 'ord_',
	customerId: 'cus_',
	subscriptionId: 'sub_',
	caseId: 'cs_',
	webhookId: 'whk_',
	categoryId: 'ctg_',
	licenseId: '',
	workspaceId: 'wks_',
	vaultId: 'vlt_',
	tokenId: 'tok_',
};

/**
 * Ids whose only rule in the spec is their prefix: the vault ids (workspace, vault, token) and the
 * customer id, which is never a path id. The length 12..48 belongs to the store path ids.
 */
export const PREFIX_ONLY: ReadonlySet<string> = new Set(['workspaceId', 'vaultId', 'tokenId', 'customerId']);

/**
 * An id: optional prefix, total length 12..48 (not with `anyLength`, the default for PREFIX_ONLY
 * fields), characters [A-Za-z0-9_-].
 */
export function id(value: unknown, field: string, prefix = ID_PREFIXES[field] ?? '', o?: Opt & { anyLength?: boolean }): string | undefined {
	if (absent(value)) return need(field, o);
	if (typeof value !== 'string') throw badRequest(field, 'must be a string');
	const anyLength = o?.anyLength ?? PREFIX_ONLY.has(field);
	if (anyLength ? value.length <= prefix.length : value.length < 12 || value.length > 48) {
		throw badRequest(field, anyLength ? 'must not be empty after its prefix' : 'must be 12 to 48 characters long');
	}
	if (prefix && !value.startsWith(prefix)) throw badRequest(field, `must start with "${prefix}"`);
	if (!/^[A-Za-z0-9_-]+$/.test(value)) throw badRequest(field, 'contains invalid characters');
	return value;
}

export function str(value: unknown, field: string, o?: Opt & { min?: number; max?: number; pattern?: RegExp }): string | undefined {
	if (value === undefined || value === null) return need(field, o);
	if (typeof value !== 'string') throw badRequest(field, 'must be a string');
	const min = o?.min ?? (o?.required ? 1 : 0);
	if (value.length < min) throw badRequest(field, min === 1 ? 'must not be empty' : `must be at least ${min} characters`);
	if (o?.max !== undefined && value.length > o.max) throw badRequest(field, `must be at most ${o.max} characters`);
	if (o?.pattern && !o.pattern.test(value)) throw badRequest(field, 'has an invalid format');
	return value;
}

export function oneOf<T extends string>(value: unknown, field: string, allowed: readonly T[], o?: Opt): T | undefined {
	if (absent(value)) return need(field, o);
	if (typeof value !== 'string' || !allowed.includes(value as T)) {
		throw badRequest(field, `must be one of ${allowed.join(', ')}`);
	}
	return value as T;
}

type NumOpt = Opt & { min?: number; max?: number; integer?: boolean; gt?: number; coerce?: boolean };

/** A JSON number; with `coerce` also a numeric string (query parameters). */
export function num(value: unknown, field: string, o?: NumOpt): number | undefined {
	if (absent(value)) return need(field, o);
	const n = o?.coerce && typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : value;
	if (typeof n !== 'number' || !Number.isFinite(n)) throw badRequest(field, 'must be a number');
	if (o?.integer && !Number.isInteger(n)) throw badRequest(field, 'must be an integer');
	if (o?.min !== undefined && n < o.min) throw badRequest(field, `must be >= ${o.min}`);
	if (o?.max !== undefined && n > o.max) throw badRequest(field, `must be <= ${o.max}`);
	if (o?.gt !== undefined && n <= o.gt) throw badRequest(field, `must be > ${o.gt}`);
	return n;
}

export function int(value: unknown, field: string, o?: Omit<NumOpt, 'integer'>): number | undefined {
	return num(value, field, { ...o, integer: true });
}

/** An integer query parameter (given once, as a string). */
export function queryInt(value: unknown, field: string, o?: Omit<NumOpt, 'integer' | 'coerce'>): number | undefined {
	if (Array.isArray(value)) throw badRequest(field, 'must be given once');
	return num(value, field, { ...o, integer: true, coerce: true });
}

export function bool(value: unknown, field: string, o?: Opt): boolean | undefined {
	if (value === undefined || value === null) return need(field, o);
	if (typeof value === 'boolean') return value;
	throw badRequest(field, 'must be a boolean');
}

export function obj(value: unknown, field: string, o?: Opt): Record<string, unknown> | undefined {
	if (value === undefined || value === null) return need(field, o);
	if (!isPlainObject(value)) throw badRequest(field, 'must be an object');
	return value;
}

export function arr(value: unknown, field: string, o?: Opt & { min?: number; max?: number }): unknown[] | undefined {
	if (value === undefined || value === null) return need(field, o);
	if (!Array.isArray(value)) throw badRequest(field, 'must be an array');
	if (o?.min !== undefined && value.length < o.min) throw badRequest(field, `must have at least ${o.min} element(s)`);
	if (o?.max !== undefined && value.length > o.max) throw badRequest(field, `must have at most ${o.max} elements`);
	return value;
}

/** ISO 8601 timestamp -> epoch ms. */
export function timestamp(value: unknown, field: string, o?: Opt): number | undefined {
	if (value === undefined || value === null) return need(field, o);
	const ms = typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value) ? Date.parse(value) : NaN;
	if (!Number.isFinite(ms)) throw badRequest(field, 'must be an ISO 8601 timestamp');
	return ms;
}

/** Rejects body fields not in `allowed` (names the first unknown one). */
export function onlyFields(body: Record<string, unknown>, allowed: readonly string[], what = 'body'): void {
	const extra = Object.keys(body).find((k) => !allowed.includes(k));
	if (extra) throw badRequest(extra, `is not accepted in ${what}`);
}
