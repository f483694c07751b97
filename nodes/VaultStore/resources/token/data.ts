import type { IDataObject } from 'n8n-workflow';

import type { Params } from '../../operation';
import { luhnValid } from '../../../shared/redaction/cardData';

/**
 * Token data rules checked on the node's side, before anything is sent. The
 * spec gives card data as number, exp_month (int), exp_year (int) and an
 * optional cvc, without rules: the card checks here (digits, checksum, month
 * range, four-digit year, expiry, CVC length) are the node's own and only
 * warn, so a legacy import of an expired card still goes through. Messages
 * name the field and the rule but never carry the value.
 */

export const TOKEN_TYPES = ['bank_account', 'card', 'custom', 'pii'] as const;
export type TokenType = (typeof TOKEN_TYPES)[number];

/** The spec's limit of `custom` token data: 16 KiB, measured as UTF-8 JSON. */
export const CUSTOM_DATA_MAX_BYTES = 16 * 1024;


/** A value of a password field as text; numbers (from expressions) are accepted too. */
function text(value: unknown): string {
	if (typeof value === 'number' && Number.isFinite(value)) return String(value);
	return typeof value === 'string' ? value.trim() : '';
}

export function cardNumber(p: Params, value: unknown): string {
	const raw = text(value);
	if (raw === '') p.v.fail('"Card Number" is required');
	const digits = raw.replace(/[\s-]/g, '');
	if (!/^\d{12,19}$/.test(digits)) {
		p.v.warn('"Card Number" is not 12 to 19 digits (spaces and dashes are removed)');
	} else if (!luhnValid(digits)) {
		p.v.warn('"Card Number" fails the Luhn check: check for a mistyped digit');
	}
	return digits;
}

export function expMonth(p: Params, value: unknown): number {
	const raw = text(value);
	// exp_month is an integer (the spec's mask); 1 to 12 is the node's own rule.
	if (!/^\d+$/.test(raw)) p.v.fail('"Expiry Month" must be a whole number, e.g. 12');
	if (Number(raw) < 1 || Number(raw) > 12) p.v.warn('"Expiry Month" is not from 1 to 12');
	return Number(raw);
}

/** A whole number (the spec's int); a four-digit year not in the past is the node's own rule (warnings). */
export function expYear(p: Params, value: unknown, month: number, now = new Date()): number {
	const raw = text(value);
	if (!/^\d+$/.test(raw)) p.v.fail('"Expiry Year" must be a whole number, e.g. 2031');
	const year = Number(raw);
	const thisYear = now.getUTCFullYear();
	if (!/^\d{4}$/.test(raw)) p.v.warn('"Expiry Year" is not a four-digit year (e.g. 2031); it is sent as given');
	else if (year < thisYear || (year === thisYear && month < now.getUTCMonth() + 1)) {
		p.v.warn('The card has expired ("Expiry Month" / "Expiry Year" are in the past)');
	}
	return year;
}

export function cvc(p: Params, value: unknown): string | undefined {
	const raw = text(value);
	if (raw === '') return undefined;
	if (!/^\d{3,4}$/.test(raw)) p.v.warn('"CVC" is not 3 or 4 digits');
	return raw;
}

/** `data` of a card token, from the card fields. */
export function cardData(p: Params): IDataObject {
	const number = cardNumber(p, p.get('cardNumber', ''));
	const month = expMonth(p, p.get('expMonth', ''));
	const year = expYear(p, p.get('expYear', ''), month);
	const code = cvc(p, p.get('cvc', ''));
	return { number, exp_month: month, exp_year: year, ...(code === undefined ? {} : { cvc: code }) };
}

/** `data` of a bank_account, pii or custom token, from the Data JSON field. */
export function jsonData(p: Params, type: Exclude<TokenType, 'card'>): IDataObject {
	const raw = p.get<unknown>('data', '');
	if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) {
		p.v.fail('"Data" is required: a JSON object');
	}
	const data = p.v.object('Data', raw);
	if (type === 'custom') {
		const bytes = Buffer.byteLength(JSON.stringify(data), 'utf8');
		if (bytes > CUSTOM_DATA_MAX_BYTES) {
			p.v.fail(
				`"Data" of a custom token must be at most 16 KiB (${CUSTOM_DATA_MAX_BYTES} bytes) as UTF-8 JSON (got ${bytes} bytes)`,
				'Store large documents elsewhere and keep only the sensitive part in the vault.',
			);
		}
		return data;
	}
	if (Object.keys(data).length === 0) {
		p.v.warn(`"Data" of a ${type === 'pii' ? 'PII' : 'bank account'} token is an empty object`);
	}
	return data;
}

/**
 * A token as create, get, getAll and update show it: never any data. What else a token may show
 * (never a security code, a mask without card data) is the output gate's token allow-list
 * (shared/redaction/gate.ts), on every path.
 */
export function publicToken(record: IDataObject): IDataObject {
	const rest = { ...record };
	delete rest.data;
	return rest;
}

/**
 * Metadata key/value pairs of a fixedCollection (`{entries: [{key, value}]}`).
 * With `typed` (metadata to store), a value keeps its JSON type: text typed in
 * the Value field stays text, a number, true/false, object or list from an
 * expression is sent as that (an empty value is empty text, as before).
 * Without it (the list filter, which matches top-level text values only)
 * every value is sent as text.
 */
export function metadataPairs(
	p: Params,
	label: string,
	collection: unknown,
	typed = false,
): IDataObject | undefined {
	const entries = ((collection as IDataObject | undefined)?.entries as IDataObject[] | undefined) ?? [];
	const out: IDataObject = {};
	for (const entry of entries) {
		const key = typeof entry.key === 'string' ? entry.key.trim() : '';
		const raw = entry.value;
		const empty = raw === undefined || raw === null || raw === '';
		if (key === '') {
			if (empty) continue;
			p.v.fail(`"${label}" has a value without a key`);
		}
		if (key in out) p.v.fail(`"${label}" names the key "${key.slice(0, 40)}" twice`);
		out[key] = empty ? '' : typed ? (raw as IDataObject[string]) : String(raw);
	}
	return Object.keys(out).length ? out : undefined;
}

/**
 * Metadata to store: the key/value pairs (typed) merged with a JSON object
 * field, whose values keep their JSON types. A key given in both is refused.
 */
export function metadataObject(
	p: Params,
	pairsLabel: string,
	pairs: unknown,
	jsonLabel: string,
	json: unknown,
): IDataObject | undefined {
	const fromPairs = metadataPairs(p, pairsLabel, pairs, true) ?? {};
	const empty = json === undefined || json === null || (typeof json === 'string' && json.trim() === '');
	const fromJson = empty ? {} : p.v.object(jsonLabel, json);
	const both = Object.keys(fromJson).find((key) => key in fromPairs);
	if (both !== undefined) p.v.fail(`"${pairsLabel}" and "${jsonLabel}" both name the key "${both.slice(0, 40)}"`);
	const out = { ...fromPairs, ...fromJson };
	return Object.keys(out).length ? out : undefined;
}

/** Keys given as a list or as comma-separated text. */
export function keyList(value: unknown): string[] {
	const parts = Array.isArray(value) ? value.map(String) : typeof value === 'string' ? value.split(',') : [];
	return [...new Set(parts.map((k) => k.trim()).filter((k) => k !== ''))];
}

/** An expiry timestamp; one not in the future warns (the node's own rule: the service decides). */
export function futureTimestamp(p: Params, label: string, value: unknown, nowMs = Date.now()): string {
	const iso = p.v.timestamp(label, value);
	if (Date.parse(iso) <= nowMs) p.v.warn(`"${label}" is not in the future (got ${iso})`);
	return iso;
}
