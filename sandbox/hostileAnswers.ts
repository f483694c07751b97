/**
 * Hostile success answers for the output gate's tests (faults 'digit-ids' and 'echo-secrets'):
 * legitimate records that look like card data to a careless filter, and echoes of the
 * credential's key in every form a careless service may use.
 */
import { createHash } from 'node:crypto';

import { isPlainObject } from './util';

/** Luhn check digit making `digits` + it valid. */
function luhnCheckDigit(digits: string): string {
	let sum = 0;
	for (let i = 0; i < digits.length; i++) {
		let d = digits.charCodeAt(digits.length - 1 - i) - 48;
		if (i % 2 === 0) {
			d *= 2;
			if (d > 9) d -= 9;
		}
		sum += d;
	}
	return String((10 - (sum % 10)) % 10);
}

/** A 16-digit, Luhn-valid run starting with 4 (shaped as a Visa number), derived from `seed`. */
export function luhnRun(seed: string): string {
	const hash = createHash('sha256').update(seed).digest();
	let body = '4';
	for (let i = 0; body.length < 15; i++) body += String(hash[i] % 10);
	return body + luhnCheckDigit(body);
}

/**
 * 'digit-ids': a record as a service whose ids are long numbers shows it. Token ids, fingerprints
 * and metadata order references hold a long Luhn-valid digit run; timestamps in milliseconds.
 * Deterministic: a test computes the same values with `digitIdRecord`.
 */
export function digitIdRecord(record: Record<string, unknown>): Record<string, unknown> {
	const id = typeof record.id === 'string' ? record.id : '';
	if (!id.startsWith('tok_')) return record;
	const run = luhnRun(id);
	const metadata = isPlainObject(record.metadata) ? record.metadata : {};
	return {
		...record,
		id: `tok_${run}${id.slice(4, 12)}`,
		fingerprint: `fp_${luhnRun(`fp${id}`)}${createHash('sha256').update(id).digest('hex').slice(0, 16)}`,
		metadata: { ...metadata, order: `ord_${luhnRun(`ord${id}`)}`, checksum: createHash('sha256').update(run).digest('hex'), seen_ms: 1764197095123 },
	};
}

/**
 * 'echo-secrets': the key of the request's Authorization header echoed into a record as an object
 * key, split across a list's entries, hex (also of "Bearer <key>"), base64url and %-escaped.
 */
export function secretEchoes(authorization: string | undefined): Record<string, unknown> {
	const key = (authorization ?? '').replace(/^Bearer\s+/i, '');
	const parts = key.match(/.{1,5}/g) ?? [];
	return {
		seen_keys: { [key]: 'active' },
		key_parts: parts,
		key_hex: Buffer.from(key).toString('hex'),
		auth_hex: Buffer.from(`Bearer ${key}`).toString('hex'),
		key_b64url: Buffer.from(key).toString('base64url'),
		key_percent: [...key].map((ch) => `%${ch.charCodeAt(0).toString(16).padStart(2, '0')}`).join(''),
	};
}

/** Applies `change` to every record of an answer (bare, a list, {data: [...]}, or the {ok, data} envelope). */
export function everyRecord(body: unknown, change: (record: Record<string, unknown>) => Record<string, unknown>): unknown {
	const one = (record: unknown): unknown => (isPlainObject(record) ? change(record) : record);
	const records = (value: unknown): unknown =>
		Array.isArray(value) ? value.map(one) : isPlainObject(value) && Array.isArray(value.data) ? { ...value, data: value.data.map(one) } : one(value);
	if (isPlainObject(body) && body.ok === true && 'data' in body) return { ...body, data: records(body.data) };
	return records(body);
}
