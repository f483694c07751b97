/**
 * Known secrets: the credentials' keys and signing secrets, and the values the user gave as
 * secret parameters (card data, token data). Two uses:
 *
 * - errors (`text`, `value`, `error`): every known secret and any 8+ character piece of one,
 *   also spread over separators, across the entries of a list, in an object key, and inside
 *   words that decode to one (base64, base64url, hex, `\u` and %-escapes); key-shaped strings
 *   (sk_, stk_, shk_, psk_, whsec_); card numbers standing alone; security codes after their
 *   name and fields named like one or like an Authorization header; a known security code (3 or
 *   4 digits given as a secret value) wherever it stands alone.
 * - success answers (`secrets`): only what is certainly a secret, so the user's own data is never
 *   rewritten. Pieces come from the credentials' secrets and from secret values shaped like a
 *   key (16+ characters without spaces, letters and digits), never from the user's names, notes
 *   or metadata; a readable piece (a word such as "_sandbox" or "sk_live_") is not one. Found
 *   verbatim, split by separators, across list entries (joined), as object keys, and encoded
 *   (base64, base64url, hex, %-escapes), also of "Bearer <key>".
 */

import { isSecurityCodeName, luhnValid, REDACTED, redactSecurityCodeText } from './cardData';
import { decodings, ENCODED_WORD, PIECE, Pieces } from './pieces';

export { REDACTED };


const KEY_SHAPED = /\b(?:sk|stk|shk|psk|whsec)_[A-Za-z0-9+/=_-]{4,}/g;
const AUTH_FIELD = /^(?:proxy-)?authorization$/i;
const SECURITY_CODE_WORD = '[A-Za-z_-]*?(?:cvc|cvv|csc)2?|security[ _-]?code';
const SENSITIVE_IN_TEXT = new RegExp(
	`(["']?\\b(?:${SECURITY_CODE_WORD}|authorization)\\b["']?\\s*[:=]\\s*)("(?:[^"\\\\]|\\\\.)*"|'[^']*'|[^\\s,}&]+)`,
	'gi',
);

/**
 * In an error, where a false alarm costs little, a card number is read broadly: 12 to 19 digits
 * passing the Luhn check, with up to three of space, dot, dash, underscore or slash between
 * digits (a number the service cut up). Other long numbers (amounts, seconds) stay readable.
 */
const CARD_NUMBER = /(?<![\d])\d(?:[ .\-_/]{0,3}\d){11,18}(?![\d])/g;

function hasCardNumber(text: string): boolean {
	for (const match of text.matchAll(CARD_NUMBER)) if (luhnValid(match[0].replace(/\D/g, ''))) return true;
	return false;
}

function redactCardNumbers(text: string): string {
	return text.replace(CARD_NUMBER, (match) => (luhnValid(match.replace(/\D/g, '')) ? REDACTED : match));
}

/** True when a field of this name holds a credential (redacted whole). */
function isSensitiveName(name: string): boolean {
	return AUTH_FIELD.test(name) || isSecurityCodeName(name);
}

/** A piece made of one readable word or two (letters, _ or -, no inner capital): not secret on its own. */
function readable(piece: string): boolean {
	if (!/^[A-Za-z_-]+$/.test(piece)) return false;
	return piece.split(/[_-]+/).every((word) => /^[A-Z]?[a-z]*$|^[A-Z]*$/.test(word));
}

/** Length of a key's readable prefix (sk_live_, sk_vault_, whsec_): its pieces are not secret on their own. */
function readablePrefix(secret: string): number {
	return /^[a-z]{2,8}_(?:[a-z]{2,8}_)?/.exec(secret)?.[0].length ?? 0;
}

/** A value the user gave as secret that is shaped like a key: a source of pieces for success answers. */
function keyShaped(value: string): boolean {
	return value.length >= 16 && !/\s/.test(value) && /[0-9]/.test(value) && /[A-Za-z]/.test(value);
}

/** The string leaves of a value, in order (bounded). */
function leaves(value: unknown, out: string[] = [], depth = 0): string[] {
	if (depth > 10 || out.length > 1000) return out;
	if (typeof value === 'string') out.push(value);
	else if (typeof value === 'number') out.push(String(value));
	else if (value !== null && typeof value === 'object') for (const inner of Object.values(value)) leaves(inner, out, depth + 1);
	return out;
}

/** A copy with every string or number leaf replaced by REDACTED. */
function blank(value: unknown, depth = 0): unknown {
	if (typeof value === 'string' || typeof value === 'number') return REDACTED;
	if (value === null || typeof value !== 'object' || depth > 10) return value;
	if (Array.isArray(value)) return value.map((entry) => blank(entry, depth + 1));
	const out: Record<string, unknown> = {};
	for (const [key, inner] of Object.entries(value)) out[key] = blank(inner, depth + 1);
	return out;
}

export class Redactor {
	/** Every piece of every known secret: for errors. */
	private readonly all = new Pieces(() => true);

	/** Pieces certainly secret: for success answers (credential secrets without their readable prefix). */
	private readonly certain = new Pieces(() => true);

	/** The credentials' secrets whole, prefix included: what is replaced in a text that holds a certain piece. */
	private readonly credentialsWhole = new Pieces(() => true);

	/** Pieces of key-shaped values the user gave as secret, without readable words. */
	private readonly userKeys = new Pieces((piece) => !readable(piece));

	/** Short secrets (a security code given by value): redacted in errors where they stand alone. */
	private readonly shortSecrets = new Set<string>();

	/** `secrets`: the credentials' secrets (certain); values the user gave as secret go through addValue. */
	constructor(secrets: Iterable<string> = []) {
		for (const secret of secrets) this.add(secret, true);
	}

	/** Adds a secret. `certain`: a credential's secret, whose pieces are redacted from success answers too. */
	add(secret: string, certain = true): void {
		if (typeof secret !== 'string' || secret.length < PIECE) return;
		this.all.add(secret);
		if (certain) {
			this.certain.add(secret, readablePrefix(secret));
			this.credentialsWhole.add(secret);
		}
		else if (keyShaped(secret)) this.userKeys.add(secret);
	}

	/** Adds every string leaf of a value the user gave as secret (e.g. token data as an object or JSON text). */
	addValue(value: unknown, depth = 0): void {
		if (depth > 10 || value === null || value === undefined) return;
		if (typeof value === 'string') {
			const trimmed = value.trim();
			// A 3 or 4 digit secret value is a security code: matched where it stands alone.
			if (/^\d{3,4}$/.test(trimmed)) this.shortSecrets.add(trimmed);
			this.add(value, false);
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
			this.addValue(String(value), depth);
			return;
		}
		if (typeof value === 'object') {
			for (const inner of Object.values(value as Record<string, unknown>)) this.addValue(inner, depth + 1);
		}
	}

	/** True when the text holds a secret piece or a card number, as it is or in an encoded word. */
	private mentions(text: string): boolean {
		if (this.all.mentioned(text) || hasCardNumber(text)) return true;
		for (const word of text.match(ENCODED_WORD) ?? []) if (decodings(word).some((plain) => hasCardNumber(plain))) return true;
		return false;
	}

	/** An error text with every secret, card number and security code replaced. */
	text(input: string): string {
		// Encoded echoes first, before a literal part of them is cut out.
		let out = input.replace(ENCODED_WORD, (word) =>
			decodings(word).some((plain) => this.all.holds(plain) || hasCardNumber(plain)) ? REDACTED : word,
		);
		out = this.all.replace(out);
		out = redactCardNumbers(
			redactSecurityCodeText(out.replace(SENSITIVE_IN_TEXT, (_, name: string) => `${name}"${REDACTED}"`)).replace(KEY_SHAPED, REDACTED),
		);
		for (const code of this.shortSecrets) {
			out = out.replace(new RegExp(`(?<![\\d])${code}(?![\\d])`, 'g'), REDACTED);
		}
		return out;
	}

	/**
	 * A copy of a success answer with every certain secret redacted, wherever the service echoed
	 * it: in a value, an object key, spread over a list's entries, or encoded. Nothing else
	 * changes. A quick test on the serialised value comes first, so a clean answer costs one pass.
	 */
	secrets<T>(value: T): T {
		if (this.certain.size === 0 && this.userKeys.size === 0) return value;
		const text = JSON.stringify(value) ?? '';
		if (!this.mentionsCertain(text)) return value;
		return this.walkSecrets(value, 0) as T;
	}

	private mentionsCertain(text: string): boolean {
		return this.certain.mentioned(text) || this.userKeys.mentioned(text);
	}

	private walkSecrets(input: unknown, depth: number): unknown {
		if (typeof input === 'string') return this.mentionsCertain(input) ? this.userKeys.replace(this.credentialsWhole.replace(input)) : input;
		if (input === null || typeof input !== 'object' || depth > 20) return input;
		if (Array.isArray(input)) {
			const out = input.map((entry) => this.walkSecrets(entry, depth + 1));
			// A secret cut into entries is read joined up: then every text of the list goes.
			const joined = leaves(out).join('');
			return joined !== '' && this.mentionsCertain(joined) ? blank(out) : out;
		}
		const out: Record<string, unknown> = {};
		let n = 0;
		for (const [key, inner] of Object.entries(input as Record<string, unknown>)) {
			const name = this.mentionsCertain(key) ? `${REDACTED}${n++ === 0 ? '' : n}` : key;
			out[name] = this.walkSecrets(inner, depth + 1);
		}
		return out;
	}

	/** A redacted copy of a JSON-like value: strings and keys redacted, sensitive fields blanked. */
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
			// A secret or card number cut into entries (e.g. an errors[] list) is read joined up: then
			// every text of the list goes, since any of them may hold a part of it.
			const joined = leaves(input).join('');
			const spread = joined !== '' && this.mentions(joined);
			for (const entry of input) out.push(spread ? blank(entry) : this.walk(entry, depth + 1, seen));
			return out;
		}
		const out: Record<string, unknown> = {};
		seen.set(input, out);
		let n = 0;
		for (const [key, inner] of Object.entries(input as Record<string, unknown>)) {
			const name = this.all.mentioned(key) ? `${REDACTED}${n++ === 0 ? '' : n}` : key;
			out[name] = isSensitiveName(key) && inner !== null && inner !== undefined ? REDACTED : this.walk(inner, depth + 1, seen);
		}
		return out;
	}

	/**
	 * Redacts an error in place: every own property (message, stack, description,
	 * errorResponse, messages, context, cause, the node copy), and its causes.
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
