/**
 * Declared secret fields: fields of the service's records that are secrets of the merchant (a
 * product's webhookSecret, which the spec lists as a plain readable Product field). Declared once,
 * here: the action node's product rows name them as their `hides`, the trigger reads
 * DECLARED_SECRET_FIELDS. A declared field is matched by its whole name, never by a fragment
 * (`webhookSecretHint`, `secret`, `webhook_url` are other fields), and removed at any depth: a
 * record of that shape may come embedded (a subscription's `product`), in a list or a list
 * envelope, or in an event. In error text the value after the name is redacted (scan.ts).
 */

import { CUT_TOO_DEEP, MAX_DEPTH } from './cardData';

/** A product's webhookSecret: the product rows' `hides` (nodes/VaultStore/resources/product). */
export const PRODUCT_SECRET_FIELDS = ['webhookSecret'] as const;

/** Every declared secret field of every record the service sends: what the trigger hides. */
export const DECLARED_SECRET_FIELDS: ReadonlySet<string> = new Set<string>([...PRODUCT_SECRET_FIELDS]);

/**
 * The value without any field named as a declared secret, at any depth (objects, lists, list
 * envelopes). Copy on write: a value without one is returned as it is (the same object), and
 * nothing else changes. A value nested deeper than MAX_DEPTH is cut, as the other gates do.
 */
export function withoutHidden<T>(value: T, hidden: ReadonlySet<string>): T {
	if (hidden.size === 0) return value;
	return strip(value, hidden, 0) as T;
}

function strip(value: unknown, hidden: ReadonlySet<string>, depth: number): unknown {
	if (value === null || typeof value !== 'object') return value;
	if (depth >= MAX_DEPTH) return CUT_TOO_DEEP;
	if (Array.isArray(value)) {
		let out: unknown[] | undefined;
		for (let i = 0; i < value.length; i++) {
			const inner: unknown = value[i];
			const kept = strip(inner, hidden, depth + 1);
			if (kept !== inner) {
				out ??= value.slice();
				out[i] = kept;
			}
		}
		return out ?? value;
	}
	// A Date, a Buffer: no record of the service's (answers are parsed JSON).
	const proto = Object.getPrototypeOf(value) as unknown;
	if (proto !== Object.prototype && proto !== null) return value;
	let out: Record<string, unknown> | undefined;
	const record = value as Record<string, unknown>;
	for (const key of Object.keys(record)) {
		if (hidden.has(key)) {
			out ??= { ...record };
			delete out[key];
			continue;
		}
		const inner = record[key];
		const kept = strip(inner, hidden, depth + 1);
		if (kept !== inner) {
			out ??= { ...record };
			// Defined, not assigned: a parsed "__proto__" key stays a plain field.
			Object.defineProperty(out, key, { value: kept, writable: true, enumerable: true, configurable: true });
		}
	}
	return out ?? value;
}
