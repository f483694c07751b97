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

import { createHash } from 'node:crypto';

import { CUT_TOO_DEEP, isSecurityCodeName, MAX_DEPTH, REDACTED } from './cardData';
import { rememberLast } from '../lastCall';
import { DECLARED_SECRET_FIELDS } from './hidden';
import { blankSpreadLeaves, eachKey, eachLeafText, keysOf, leafTexts } from './leaves';
import { decodings, ENCODED_WORD, markEncodedWords, PIECE, Pieces } from './pieces';
import { cardNumberSpans, redactCardNumberSpans, redactSensitiveText } from './scan';

export { REDACTED };

/**
 * An error keeps this much of any one text (a message, a description, a service's body): what a
 * person reads. The rest is cut before any scan, saying so, so that a megabyte error message
 * costs what a short one does.
 */
export const MAX_ERROR_TEXT = 8000;

/** An error keeps this many entries of a list and fields of an object; the rest is cut, saying so. */
export const MAX_ERROR_ENTRIES = 200;

/** The text cut to `max` characters, saying how much was cut. */
export function cutText(text: string, max: number): string {
	if (text.length <= max) return text;
	return `${text.slice(0, max)} … [cut: ${text.length - max} more characters]`;
}

const KEY_SHAPED = /\b(?:sk|stk|shk|psk|whsec)_[A-Za-z0-9+/=_-]{4,}/g;
const AUTH_FIELD = /^(?:proxy-)?authorization$/i;

/**
 * In an error, where a false alarm costs little, a card number is read broadly: 12 to 19 digits
 * passing the Luhn check, with up to three of space, dot, dash, underscore, slash, bar or comma
 * between digit groups (a number the service cut up). Other long numbers stay readable.
 */
function hasCardNumber(text: string): boolean {
	return text.length >= 12 && cardNumberSpans(text, { mode: 'error' }).length > 0;
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

/** Marks the card numbers of a text (error mode), also inside encoded words. */
function cardMarks(text: string, marked?: Uint8Array): Uint8Array | undefined {
	const out = marked ?? new Uint8Array(text.length);
	let any = marked !== undefined;
	for (const span of cardNumberSpans(text, { mode: 'error' })) {
		out.fill(1, span.from, span.to);
		any = true;
	}
	any = markEncodedWords(text, out, (word) => decodings(word).some((plain) => hasCardNumber(plain))) || any;
	return any ? out : undefined;
}

/** Both marks joined (either may be undefined). */
function union(a: Uint8Array | undefined, b: Uint8Array | undefined): Uint8Array | undefined {
	if (a === undefined) return b;
	if (b !== undefined) for (let i = 0; i < a.length; i++) a[i] |= b[i];
	return a;
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

	/** Declared secret fields (hidden.ts): left out of an error at any depth, their values redacted in its text. Every redactor knows the declared ones. */
	private readonly hidden = new Set<string>(DECLARED_SECRET_FIELDS);

	/** `secrets`: the credentials' secrets (certain); values the user gave as secret go through addValue. */
	constructor(secrets: Iterable<string> = []) {
		for (const secret of secrets) this.add(secret, true);
	}

	/**
	 * Declared secret fields (the rows' `hides`, DECLARED_SECRET_FIELDS): `value` and `error` leave
	 * a field of that name out at any depth and redact the value after the name in text
	 * (`"webhookSecret":"…"`). The name is matched whole. Success answers drop them in the output
	 * gate (hidden.ts withoutHidden).
	 */
	hide(names: Iterable<string>): this {
		for (const name of names) {
			if (typeof name !== 'string' || name === '' || this.hidden.has(name)) continue;
			if (this.sealed) throw new Error('a shared redactor of a credential cannot learn more hidden fields: declare them in hidden.ts');
			this.hidden.add(name);
		}
		return this;
	}

	/**
	 * The same redactor without the values the user gave as secret: for the user's own data in an
	 * answer (a token's metadata), which changes only for the credentials' secrets, so that a
	 * token's metadata is the same from Create (where the token data is known) as from Get.
	 */
	private get credentialsOnly(): Redactor {
		return this.sealed ? this : credentialRedactor(this.credentialSecrets);
	}

	private readonly credentialSecrets: string[] = [];

	/** Set on a redactor shared by every run and delivery of one credential (credentialRedactor): it never changes. */
	private sealed = false;

	/** Marks this redactor as shared: adding to it afterwards is a programming error (it would change what others redact). */
	seal(): this {
		this.sealed = true;
		return this;
	}

	/** Adds a secret. `certain`: a credential's secret, whose pieces are redacted from success answers too. */
	add(secret: string, certain = true): void {
		if (this.sealed) throw new Error('a shared redactor of a credential cannot learn more secrets: make one with Redactor.withValues');
		if (typeof secret !== 'string' || secret.length < PIECE) return;
		this.all.add(secret);
		if (certain) {
			this.credentialSecrets.push(secret);
			this.certain.add(secret, readablePrefix(secret));
			this.credentialsWhole.add(secret);
		}
		else if (keyShaped(secret)) this.userKeys.add(secret);
	}

	/**
	 * A redactor of the credentials' secrets and of the values the user gave as secret (an item's
	 * card data): the credentials' own redactor (made once, shared) when there are no such values.
	 */
	static withValues(secrets: Iterable<string>, values: Iterable<unknown> = []): Redactor {
		const given = [...values].filter(hasValue);
		if (given.length === 0) return credentialRedactor(secrets);
		const redactor = new Redactor(secrets);
		for (const value of given) redactor.addValue(value);
		return redactor;
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

	/**
	 * An error text with every secret, card number and security code replaced. The text is cut
	 * to MAX_ERROR_TEXT first (saying so); every scan after is linear in what is left.
	 */
	text(input: string): string {
		// Encoded echoes first, before a literal part of them is cut out.
		let out = cutText(input, MAX_ERROR_TEXT).replace(ENCODED_WORD, (word) =>
			decodings(word).some((plain) => this.all.holds(plain) || hasCardNumber(plain)) ? REDACTED : word,
		);
		out = this.all.replace(out);
		out = redactSensitiveText(out, { values: true, names: this.hidden }).replace(KEY_SHAPED, REDACTED);
		out = redactCardNumberSpans(out, { mode: 'error' });
		for (const code of this.shortSecrets) {
			out = out.replace(new RegExp(`(?<![\\d])${code}(?![\\d])`, 'g'), REDACTED);
		}
		return out;
	}

	/**
	 * A copy of a success answer with every certain secret redacted, wherever the service echoed
	 * it: in a value, an object key, spread over a list's entries or an object's values, or
	 * encoded. Nothing else changes. The quick test (quick.ts) reads the leaves as one text and the
	 * keys as another, each character once, making no copy: a clean answer is returned as it is
	 * after that one pass. Where it cannot rule a piece out, the exact test decides, on the leaves
	 * joined and the keys joined.
	 */
	secrets<T>(value: T, only: 'all' | 'credentials' = 'all'): T {
		if (only === 'credentials') return this.credentialsOnly.secrets(value);
		if (this.certain.size === 0 && this.userKeys.size === 0) return value;
		if (typeof value === 'string') return (this.mayMention(value) && this.mentionsCertain(value) ? this.replaceCertain(value) : value) as T;
		if (value === null || typeof value !== 'object') return value;
		if (!this.mayMention(value)) return value;
		// Every leaf joined (an echo within one leaf, or spread over several), and every key.
		const joined = leafTexts(value).join('');
		if (!this.mentionsCertain(joined) && !this.mentionsCertain(keysOf(value).join(' '))) return value;
		const out = this.walkSecrets(value, 0);
		blankSpreadLeaves(out, (all) => union(this.certain.marks(all), this.userKeys.marks(all)));
		return out as T;
	}

	/**
	 * False when neither the value's leaves read as one text nor its keys joined by spaces (a text:
	 * the text) can mention a certain piece (quick.ts): then mentionsCertain is false for both.
	 */
	private mayMention(value: unknown): boolean {
		for (const pieces of [this.certain, this.userKeys]) {
			const scan = pieces.quick();
			if (scan === undefined) continue;
			if (typeof value === 'string') {
				scan.feed(value);
				if (scan.end()) return true;
				continue;
			}
			eachLeafText(value, (text) => scan.feed(text));
			if (scan.end()) return true;
			// The keys, read as another text by the same scan made ready again.
			scan.reset();
			let first = true;
			eachKey(value, (key) => {
				if (!first) scan.feed(' ');
				first = false;
				scan.feed(key);
			});
			if (scan.end()) return true;
		}
		return false;
	}

	/** True when the text holds a piece of a credential's secret or of a key-shaped secret value, as it is or encoded. */
	holdsKnownSecret(text: string): boolean {
		return this.mentionsCertain(text);
	}

	private mentionsCertain(text: string): boolean {
		return this.certain.mentioned(text) || this.userKeys.mentioned(text);
	}

	private replaceCertain(text: string): string {
		return this.userKeys.replace(this.credentialsWhole.replace(text));
	}

	private walkSecrets(input: unknown, depth: number): unknown {
		if (typeof input === 'string') return this.mentionsCertain(input) ? this.replaceCertain(input) : input;
		if (input === null || typeof input !== 'object') return input;
		if (depth >= MAX_DEPTH) return CUT_TOO_DEEP;
		if (Array.isArray(input)) return input.map((entry) => this.walkSecrets(entry, depth + 1));
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
		const out = this.walk(input, 0, new WeakMap());
		// A secret or card number cut into entries (e.g. an errors[] list) is read joined up.
		blankSpreadLeaves(out, (joined) => cardMarks(joined, this.all.marks(joined)));
		return out as T;
	}

	private walk(input: unknown, depth: number, seen: WeakMap<object, unknown>): unknown {
		if (typeof input === 'string') return this.text(input);
		if (input === null || typeof input !== 'object') return input;
		if (Buffer.isBuffer(input)) return REDACTED;
		if (seen.has(input)) return seen.get(input);
		if (depth >= MAX_DEPTH) return CUT_TOO_DEEP;
		if (Array.isArray(input)) {
			const out: unknown[] = [];
			seen.set(input, out);
			// An error keeps the first MAX_ERROR_ENTRIES entries of a list, saying how many were cut.
			for (let i = 0; i < Math.min(input.length, MAX_ERROR_ENTRIES); i++) out.push(this.walk(input[i], depth + 1, seen));
			if (input.length > MAX_ERROR_ENTRIES) out.push(`[cut: ${input.length - MAX_ERROR_ENTRIES} more entries]`);
			return out;
		}
		const out: Record<string, unknown> = {};
		seen.set(input, out);
		let n = 0;
		const entries = Object.entries(input as Record<string, unknown>);
		if (entries.length > MAX_ERROR_ENTRIES) {
			out['[cut]'] = `${entries.length - MAX_ERROR_ENTRIES} more fields`;
			entries.length = MAX_ERROR_ENTRIES;
		}
		for (const [key, inner] of entries) {
			if (this.hidden.has(key)) continue;
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
				if (this.hidden.has(name)) {
					try {
						delete record[name];
					} catch {
						// not configurable: blanked instead, if writable
						try {
							record[name] = REDACTED;
						} catch {
							// frozen
						}
					}
					continue;
				}
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

/** True when a value the user gave as secret has something in it (a blank field adds nothing). */
function hasValue(value: unknown): boolean {
	if (value === undefined || value === null || value === '') return false;
	if (typeof value === 'object') return Object.values(value as Record<string, unknown>).some(hasValue);
	return true;
}

/**
 * The redactors of credentials' secrets, each made once per set of secrets and shared (sealed) by
 * every run and delivery that has those secrets: making one indexes every piece of every secret
 * and of its encodings, which cost a trigger more than verifying a delivery did. Keyed by a
 * digest of the secrets (the map's keys hold no secret); a changed credential is a new entry,
 * the least recently used is dropped past MAX_CREDENTIAL_REDACTORS.
 */
const credentialRedactors = new Map<string, Redactor>();
const MAX_CREDENTIAL_REDACTORS = 64;

/** The shared redactor of these credential secrets (their order does not matter). */
export function credentialRedactor(secrets: Iterable<string>): Redactor {
	// The same secrets as the last call (every delivery of one trigger): its redactor, without hashing them again.
	return lastCredentialRedactor(...[...new Set(secrets)].sort());
}

const lastCredentialRedactor = rememberLast((...list: string[]): Redactor => {
	const hash = createHash('sha256');
	for (const secret of list) hash.update(secret).update('\u0000');
	const key = hash.digest('base64');
	let redactor = credentialRedactors.get(key);
	if (redactor !== undefined) {
		credentialRedactors.delete(key);
	} else {
		redactor = new Redactor(list).seal();
		if (credentialRedactors.size >= MAX_CREDENTIAL_REDACTORS) {
			const oldest = credentialRedactors.keys().next().value;
			if (oldest !== undefined) credentialRedactors.delete(oldest);
		}
	}
	credentialRedactors.set(key, redactor);
	return redactor;
});
