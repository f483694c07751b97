/**
 * One redaction pass for everything that leaves the node: error messages,
 * descriptions, the service's echoed answer (errorResponse, messages, cause),
 * continue-on-fail items and log lines.
 *
 * Removed: every known secret and any 8+ character piece of one (a cut can
 * leave part of a key), key-shaped strings (sk_, stk_, shk_, psk_, whsec_),
 * card numbers (12 to 19 digits, spaces or dashes allowed between them), and
 * values of fields named like a card security code or an authorization header.
 */

export const REDACTED = '[redacted]';

/** A secret piece this long or longer is redacted wherever it appears. */
const PIECE = 8;

const KEY_SHAPED = /\b(?:sk|stk|shk|psk|whsec)_[A-Za-z0-9+/=_-]{4,}/g;
const CARD_NUMBER = /(?<![\d])\d(?:[ -]?\d){11,18}(?![\d])/g;
const SENSITIVE_FIELD = /^(?:cvc|cvv|cvc2|cvv2|securitycode|security_code|authorization|proxy-authorization)$/i;
const SECURITY_CODE_NEAR = /(\b(?:cvc2?|cvv2?|securityCode|security[ _]code)\b\W{0,8})\d{3,4}\b/gi;
const SENSITIVE_IN_TEXT =
	/(["']?\b(?:cvc|cvv|cvc2|cvv2|securityCode|security_code|authorization)\b["']?\s*[:=]\s*)("(?:[^"\\]|\\.)*"|'[^']*'|[^\s,}&]+)/gi;

export class Redactor {
	private readonly pieces = new Set<string>();

	constructor(secrets: Iterable<string> = []) {
		for (const secret of secrets) this.add(secret);
	}

	/** Adds a secret; values shorter than the piece length are covered by the patterns only. */
	add(secret: string): void {
		if (typeof secret !== 'string' || secret.length < PIECE) return;
		for (let i = 0; i + PIECE <= secret.length; i++) this.pieces.add(secret.slice(i, i + PIECE));
	}

	/** Adds every string leaf of a value (e.g. token data given as an object or JSON text). */
	addValue(value: unknown, depth = 0): void {
		if (depth > 10 || value === null || value === undefined) return;
		if (typeof value === 'string') {
			this.add(value);
			const trimmed = value.trim();
			if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
				try {
					this.addValue(JSON.parse(trimmed), depth + 1);
				} catch {
					// not JSON: the string itself is covered
				}
			}
			return;
		}
		if (typeof value === 'number') {
			this.add(String(value));
			return;
		}
		if (typeof value === 'object') {
			for (const inner of Object.values(value as Record<string, unknown>)) this.addValue(inner, depth + 1);
		}
	}

	text(input: string): string {
		let out = input;
		if (this.pieces.size > 0 && out.length >= PIECE) {
			const marked = new Uint8Array(out.length);
			let any = false;
			for (let i = 0; i + PIECE <= out.length; i++) {
				if (this.pieces.has(out.slice(i, i + PIECE))) {
					marked.fill(1, i, i + PIECE);
					any = true;
				}
			}
			if (any) {
				let rebuilt = '';
				for (let i = 0; i < out.length; i++) {
					if (marked[i] === 0) rebuilt += out[i];
					else if (i === 0 || marked[i - 1] === 0) rebuilt += REDACTED;
				}
				out = rebuilt;
			}
		}
		return out
			.replace(SENSITIVE_IN_TEXT, (_, name: string) => `${name}"${REDACTED}"`)
			.replace(SECURITY_CODE_NEAR, (_, name: string) => `${name}${REDACTED}`)
			.replace(KEY_SHAPED, REDACTED)
			.replace(CARD_NUMBER, REDACTED);
	}

	/** A redacted copy of a JSON-like value: strings redacted, sensitive fields blanked. */
	value<T>(input: T): T {
		return this.walk(input, 0, new WeakMap()) as T;
	}

	private walk(input: unknown, depth: number, seen: WeakMap<object, unknown>): unknown {
		if (typeof input === 'string') return this.text(input);
		if (input === null || typeof input !== 'object') return input;
		if (Buffer.isBuffer(input)) return REDACTED;
		if (seen.has(input)) return seen.get(input);
		if (depth > 20) return REDACTED;
		if (Array.isArray(input)) {
			const out: unknown[] = [];
			seen.set(input, out);
			for (const entry of input) out.push(this.walk(entry, depth + 1, seen));
			return out;
		}
		const out: Record<string, unknown> = {};
		seen.set(input, out);
		for (const [key, inner] of Object.entries(input as Record<string, unknown>)) {
			out[key] = SENSITIVE_FIELD.test(key) && inner !== null && inner !== undefined ? REDACTED : this.walk(inner, depth + 1, seen);
		}
		return out;
	}

	/**
	 * Redacts an error in place: every own property (message, stack, description,
	 * errorResponse, messages, context, cause, the node copy), and its causes.
	 * `withRedactedNode` also drops the node's secret parameters from that copy.
	 */
	error<E>(error: E): E {
		const seen = new Set<unknown>();
		let current: unknown = error;
		while (current !== null && typeof current === 'object' && !seen.has(current) && seen.size < 10) {
			seen.add(current);
			const record = current as Record<string, unknown>;
			for (const name of Object.getOwnPropertyNames(record)) {
				if (name === 'cause') continue;
				const value = record[name];
				if (value === null || (typeof value !== 'string' && typeof value !== 'object')) continue;
				try {
					Object.defineProperty(record, name, {
						value: this.value(value),
						writable: true,
						enumerable: Object.prototype.propertyIsEnumerable.call(record, name),
						configurable: true,
					});
				} catch {
					// a frozen property keeps its value
				}
			}
			const cause = record.cause;
			if (cause !== null && typeof cause === 'object' && !(cause instanceof Error)) {
				try {
					record.cause = this.value(cause);
				} catch {
					// read-only cause
				}
				break;
			}
			current = cause;
		}
		return error;
	}
}
