import type { IDataObject, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { IDEMPOTENCY_KEY_PATTERN } from './money/keys';

/**
 * Input rules. A rule the spec states fails with an error that names the
 * field and what is allowed, before any request is sent; a rule of the node's
 * own only warns (`warn`: an execution hint), as the service may accept the
 * value. Values of secret fields are never echoed.
 */
export class InputError extends NodeOperationError {}

export interface IdRule {
	/** Field label used in messages. */
	label: string;
	/** Required prefix, e.g. `ord_`; none for ids the spec gives no prefix. */
	prefix?: string;
	/**
	 * The spec gives the prefix only (vault ids `wks_`, `vlt_`, `tok_`, and
	 * customer ids, which are never a path id): no 12 to 48 length rule, which
	 * belongs to the store path ids.
	 */
	anyLength?: boolean;
}

export function fail(node: INode, itemIndex: number, message: string, description?: string): never {
	throw new InputError(node, message, { itemIndex, description });
}

function show(value: unknown): string {
	const text = typeof value === 'string' ? value : JSON.stringify(value);
	return text === undefined ? String(value) : text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** Where the warnings of the node's own checks go (execution hints); none: they are not shown. */
export type WarningSink = (message: string) => void;

export class Validator {
	constructor(
		private readonly node: INode,
		private readonly itemIndex: number,
		private readonly warnings?: WarningSink,
	) {}

	fail(message: string, description?: string): never {
		fail(this.node, this.itemIndex, message, description);
	}

	/** A rule of the node's own that the value breaks: the value is sent, the user is told. */
	warn(message: string): void {
		this.warnings?.(message);
	}

	/**
	 * Ids: the spec's prefix, and 12 to 48 characters for store path ids (not
	 * `anyLength` ones). Letters, digits, _ and - only: a warning (the node's own
	 * rule; a path id is encoded as one segment, and only "." and ".." are refused there).
	 */
	id(rule: IdRule, value: unknown, place: 'path' | 'field' = 'field'): string {
		const text = typeof value === 'string' ? value.trim() : '';
		if (text === '') this.fail(`"${rule.label}" is required`);
		if (rule.anyLength) {
			if (rule.prefix && (!text.startsWith(rule.prefix) || text.length === rule.prefix.length)) {
				this.fail(`"${rule.label}" must start with "${rule.prefix}", followed by the ID (got ${show(text)})`);
			}
		} else {
			const prefixText = rule.prefix ? `start with "${rule.prefix}" and ` : '';
			if ((rule.prefix && !text.startsWith(rule.prefix)) || text.length < 12 || text.length > 48) {
				this.fail(`"${rule.label}" must ${prefixText}be 12 to 48 characters long (got ${show(text)})`);
			}
		}
		// In a path the id is encoded as one segment; "." and ".." would still name another route.
		if (place === 'path' && (text === '.' || text === '..')) this.fail(`"${rule.label}" cannot be "${text}"`);
		if (!/^[A-Za-z0-9_-]+$/.test(text)) {
			this.warn(`"${rule.label}" has characters other than letters, digits, "_" and "-" (got ${show(text)})`);
		}
		return text;
	}

	string(
		label: string,
		value: unknown,
		rule: { min?: number; max?: number; secret?: boolean } = {},
	): string {
		if (typeof value !== 'string') this.fail(`"${label}" must be text`);
		const { min = 0, max = Infinity } = rule;
		const length = [...value].length;
		if (length < min || length > max) {
			if (min === 1 && max === Infinity) this.fail(`"${label}" must not be empty`);
			const range = max === Infinity ? `at least ${min}` : min > 0 ? `${min} to ${max}` : `at most ${max}`;
			this.fail(
				`"${label}" must be ${range} characters long (got ${length})`,
				rule.secret ? undefined : `Value: ${show(value)}`,
			);
		}
		return value;
	}

	number(
		label: string,
		value: unknown,
		rule: { min?: number; max?: number; integer?: boolean } = {},
	): number {
		const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
		if (typeof n !== 'number' || !Number.isFinite(n)) this.fail(`"${label}" must be a number (got ${show(value)})`);
		if (rule.integer && !Number.isInteger(n)) this.fail(`"${label}" must be a whole number (got ${n})`);
		if (rule.min !== undefined && n < rule.min) {
			this.fail(`"${label}" must be at least ${rule.min}${rule.max !== undefined ? ` and at most ${rule.max}` : ''} (got ${n})`);
		}
		if (rule.max !== undefined && n > rule.max) {
			this.fail(`"${label}" must be at most ${rule.max}${rule.min !== undefined ? ` and at least ${rule.min}` : ''} (got ${n})`);
		}
		return n;
	}

	oneOf<T extends string>(label: string, value: unknown, allowed: readonly T[]): T {
		if (typeof value !== 'string' || !allowed.includes(value as T)) {
			this.fail(`"${label}" must be one of ${allowed.join(', ')} (got ${show(value)})`);
		}
		return value as T;
	}

	/**
	 * Any non-empty text, trimmed. For a dropdown whose known values are not
	 * the service's whole set (e.g. dispute statuses), so a value typed through
	 * an expression reaches the service, which decides; and for ids the spec
	 * gives no rule for (variant ids).
	 */
	nonEmpty(label: string, value: unknown): string {
		if (typeof value !== 'string' || value.trim() === '') this.fail(`"${label}" must be a non-empty text (got ${show(value)})`);
		return value.trim();
	}

	array<T>(label: string, value: unknown, rule: { min?: number; max?: number } = {}): T[] {
		if (!Array.isArray(value)) this.fail(`"${label}" must be a list`);
		const { min = 0, max = Infinity } = rule;
		if (value.length < min || value.length > max) {
			const range = max === Infinity ? `at least ${min}` : min > 0 ? `${min} to ${max}` : `at most ${max}`;
			this.fail(`"${label}" must have ${range} entries (got ${value.length})`);
		}
		return value as T[];
	}

	/** A URL: the length (and https:// where the spec says so) are errors; the http(s) form is the node's own rule. */
	url(label: string, value: unknown, rule: { max?: number; httpsOnly?: boolean } = {}): string {
		const text = this.string(label, value, { min: 1, max: rule.max ?? 2048 });
		if (rule.httpsOnly && !text.startsWith('https://')) {
			this.fail(`"${label}" must start with https:// (got ${show(text)})`);
		}
		if (!/^https?:\/\/\S+$/.test(text)) this.warn(`"${label}" does not look like an http(s) URL (got ${show(text)})`);
		return text;
	}

	timestamp(label: string, value: unknown): string {
		const text = typeof value === 'string' ? value.trim() : '';
		const ms = Date.parse(text);
		if (text === '' || Number.isNaN(ms)) {
			this.fail(`"${label}" must be a date and time (ISO 8601, e.g. 2026-01-31T12:00:00Z) (got ${show(value)})`);
		}
		return new Date(ms).toISOString();
	}

	idempotencyKey(value: unknown): string {
		if (typeof value !== 'string' || !IDEMPOTENCY_KEY_PATTERN.test(value)) {
			this.fail(
				'"Idempotency Key" must be 1 to 255 characters of A-Z, a-z, 0-9, "_" and "-"',
				`Got ${typeof value === 'string' ? `${value.length} characters` : typeof value}`,
			);
		}
		return value;
	}

	json(label: string, value: unknown): unknown {
		if (typeof value !== 'string') return value;
		if (value.trim() === '') return undefined;
		try {
			return JSON.parse(value) as unknown;
		} catch {
			this.fail(`"${label}" must be valid JSON`);
		}
	}

	object(label: string, value: unknown): IDataObject {
		const parsed = this.json(label, value);
		if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
			this.fail(`"${label}" must be a JSON object`);
		}
		return parsed as IDataObject;
	}
}

/**
 * Drops undefined, null and empty-string values: empty fields are not sent.
 * A key of `sendNull` keeps a null value (sent as JSON null, e.g. a category's parentId).
 */
export function withoutEmptyValues(values: IDataObject, sendNull: readonly string[] = []): IDataObject {
	const out: IDataObject = {};
	for (const [key, value] of Object.entries(values)) {
		if (value === null && sendNull.includes(key)) {
			out[key] = null;
			continue;
		}
		if (value === undefined || value === null || value === '') continue;
		out[key] = value;
	}
	return out;
}
