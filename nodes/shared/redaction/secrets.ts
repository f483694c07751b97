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

export { REDACTED };

/** A secret piece this long or longer is redacted wherever it appears. */
const PIECE = 8;

const KEY_SHAPED = /\b(?:sk|stk|shk|psk|whsec)_[A-Za-z0-9+/=_-]{4,}/g;
const AUTH_FIELD = /^(?:proxy-)?authorization$/i;
const SECURITY_CODE_WORD = '[A-Za-z_-]*?(?:cvc|cvv|csc)2?|security[ _-]?code';
const SENSITIVE_IN_TEXT = new RegExp(
	`(["']?\\b(?:${SECURITY_CODE_WORD}|authorization)\\b["']?\\s*[:=]\\s*)("(?:[^"\\\\]|\\\\.)*"|'[^']*'|[^\\s,}&]+)`,
	'gi',
);
/** Characters a secret may be spread over in an echo: whitespace, list and quote punctuation. */
const SEPARATOR = /[\s.;,|"'`\\[\]{}()<>/:-]/;
/** A word that may be an encoded echo: base64(url), hex, JSON \u escapes, %-escapes. */
const ENCODED_WORD = /(?:[A-Za-z0-9+/=_-]|\\u[0-9a-fA-F]{4}|%[0-9a-fA-F]{2}){12,}/g;

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

const SEPARATORS = new RegExp(SEPARATOR.source, 'g');

/** Separator characters by byte value (latin1), for scans that work on bytes. */
const SEPARATOR_BYTE = (() => {
	const out = new Uint8Array(256);
	for (let b = 0; b < 256; b++) if (SEPARATOR.test(String.fromCharCode(b))) out[b] = 1;
	return out;
})();

/** The characters of an ENCODED_WORD besides its escapes, by code. */
const ENCODED_WORD_CHAR = (() => {
	const out = new Uint8Array(128);
	for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-') out[c.charCodeAt(0)] = 1;
	return out;
})();

/** The 6-bit value of a base64 or base64url character (both alphabets). */
const BASE64_VALUE = (() => {
	const out = new Uint8Array(128);
	const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
	for (let i = 0; i < 64; i++) out[alphabet.charCodeAt(i)] = i;
	out['-'.charCodeAt(0)] = 62;
	out['_'.charCodeAt(0)] = 63;
	return out;
})();

/** The text without separators (compact's text, without the index). */
function withoutSeparators(text: string): string {
	return text.replace(SEPARATORS, '');
}

/** 32-bit polynomial hash base of the rolling window over PIECE characters. */
const HASH_BASE = 31;
/** HASH_BASE to the power PIECE - 1 (32-bit): what the character leaving the window weighed. */
const HASH_TOP = (() => {
	let top = 1;
	for (let i = 1; i < PIECE; i++) top = Math.imul(top, HASH_BASE);
	return top;
})();

function pieceHash(piece: string): number {
	let h = 0;
	for (let i = 0; i < PIECE; i++) h = (Math.imul(h, HASH_BASE) + piece.charCodeAt(i)) | 0;
	return h;
}

/**
 * Whether `text` holds a piece of `set`: a rolling hash over every window of PIECE characters
 * (no string made per position), the window compared with the set only where its hash is one of
 * the pieces'.
 */
function holdsPiece(text: string, set: Set<string>, hashes: Set<number>): boolean {
	if (text.length < PIECE) return false;
	let h = 0;
	for (let i = 0; i < PIECE; i++) h = (Math.imul(h, HASH_BASE) + text.charCodeAt(i)) | 0;
	for (let i = 0; ; i++) {
		if (hashes.has(h) && set.has(text.slice(i, i + PIECE))) return true;
		if (i + PIECE >= text.length) return false;
		h = (Math.imul(h - Math.imul(text.charCodeAt(i), HASH_TOP), HASH_BASE) + text.charCodeAt(i + PIECE)) | 0;
	}
}

function compact(text: string): { text: string; index: number[] } {
	let out = '';
	const index: number[] = [];
	for (let i = 0; i < text.length; i++) {
		if (SEPARATOR.test(text[i])) continue;
		out += text[i];
		index.push(i);
	}
	return { text: out, index };
}

/** The parts of a word split after each run of `=` that is not at its end (base64 padding). */
function equalsParts(word: string): string[] {
	return /=[^=]/.test(word) ? word.split(/(?<==)(?=[^=])/) : [word];
}

/** What an encoded word may stand for: its JSON-unescaped, %-decoded, hex-decoded and base64-decoded forms. */
function decodings(word: string): string[] {
	const out: string[] = [];
	if (word.includes('\\u')) {
		out.push(word.replace(/\\u([0-9a-fA-F]{4})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))));
	}
	if (word.includes('%')) {
		try {
			out.push(decodeURIComponent(word));
		} catch {
			// not valid %-escapes
		}
	}
	// `key=<base64>` and the like: each part after an `=` that is not padding is a word of its own.
	const parts = equalsParts(word);
	if (parts.length > 1) {
		for (const part of parts) if (part.length >= 12) out.push(...decodings(part));
		return out;
	}
	if (/^[0-9a-fA-F]+$/.test(word)) {
		for (const shift of [0, 1]) {
			const slice = word.slice(shift);
			out.push(Buffer.from(slice.slice(0, slice.length - (slice.length % 2)), 'hex').toString('latin1'));
		}
	}
	if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(word)) {
		const normal = word.replace(/-/g, '+').replace(/_/g, '/');
		for (const shift of [0, 1, 2, 3]) {
			// An echo cut out of a longer base64 text may start off the 4-character grid.
			const slice = normal.slice(shift).replace(/=+$/, '');
			const usable = slice.slice(0, slice.length - (slice.length % 4 === 1 ? 1 : 0));
			if (usable.length >= 8) out.push(Buffer.from(usable, 'base64').toString('latin1'));
		}
	}
	return out;
}

/**
 * The encoded forms a service may echo a secret in: base64, base64url, hex (also of "Bearer
 * <secret>"). `hex`: a hex form, whose all-digit pieces are left out (a long number is not an echo).
 */
function encodings(secret: string): { text: string; hex: boolean }[] {
	const out: { text: string; hex: boolean }[] = [];
	for (const form of [secret, `Bearer ${secret}`]) {
		const bytes = Buffer.from(form, 'utf8');
		const base64 = bytes.toString('base64');
		out.push({ text: base64.replace(/=+$/, ''), hex: false });
		out.push({ text: base64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''), hex: false });
		const hex = bytes.toString('hex');
		out.push({ text: hex, hex: true }, { text: hex.toUpperCase(), hex: true });
	}
	return out;
}

/** Pieces of secrets, as they are and with separators removed, and a sparse set of anchors for a quick first test. */
class Pieces {
	readonly direct = new Set<string>();

	readonly spread = new Set<string>();

	/** Hashes of the direct and spread pieces (pieceHash), for the quick scan. */
	private readonly directHashes = new Set<number>();

	private readonly spreadHashes = new Set<number>();

	constructor(private readonly keep: (piece: string) => boolean) {}

	get size(): number {
		return this.direct.size;
	}

	/** `skip`: pieces starting in the first `skip` characters (a readable prefix such as sk_live_) are not pieces. */
	add(secret: string, skip = 0): void {
		if (secret.length < PIECE) return;
		this.addDirect(secret, false, skip);
		const bare = compact(secret).text;
		for (let i = skip; i + PIECE <= bare.length; i++) {
			const piece = bare.slice(i, i + PIECE);
			if (this.keep(piece)) {
				this.spread.add(piece);
				this.spreadHashes.add(pieceHash(piece));
			}
		}
		for (const form of encodings(secret)) this.addDirect(form.text, form.hex);
	}

	private addDirect(text: string, hex = false, skip = 0): void {
		for (let i = skip; i + PIECE <= text.length; i++) {
			const piece = text.slice(i, i + PIECE);
			if (hex && /^\d+$/.test(piece)) continue;
			if (this.keep(piece)) {
				this.direct.add(piece);
				this.directHashes.add(pieceHash(piece));
			}
		}
	}

	/** True when the text holds a piece, also spread over separators. */
	holds(text: string): boolean {
		if (this.direct.size === 0 || text.length < PIECE) return false;
		if (holdsPiece(text, this.direct, this.directHashes)) return true;
		return holdsPiece(withoutSeparators(text), this.spread, this.spreadHashes);
	}

	/** Bytes that occur in a piece (direct or spread), by byte value: what a decoded echo is made of. */
	private pieceBytes?: Uint8Array;

	/** True when one of the word's decoded forms holds a piece (decodings, then holds). */
	private holdsDecoded(word: string): boolean {
		const other = word.includes('\\u') || word.includes('%') || /^[0-9a-fA-F]+$/.test(word);
		if (!other && !this.mayDecodeToPiece(word)) return false;
		return decodings(word).some((plain) => this.holds(plain));
	}

	/**
	 * Whether a base64(url) word, decoded at any of the shifts `decodings` tries, could hold a
	 * piece: somewhere PIECE bytes that occur in pieces, with only separators between them. A
	 * necessary condition of `holds` on those forms, tested on the 6-bit groups without decoding
	 * (an id or a timestamp decodes to bytes that almost never pass).
	 */
	private mayDecodeToPiece(word: string): boolean {
		const parts = equalsParts(word);
		if (parts.length > 1) return parts.some((part) => part.length >= 12 && (/^[0-9a-fA-F]+$/.test(part) || this.mayDecodeToPiece(part)));
		if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(word)) return false;
		if (this.pieceBytes === undefined) {
			const bytes = new Uint8Array(256);
			for (const set of [this.direct, this.spread]) {
				for (const piece of set) for (let i = 0; i < piece.length; i++) if (piece.charCodeAt(i) < 256) bytes[piece.charCodeAt(i)] = 1;
			}
			this.pieceBytes = bytes;
		}
		const pieceBytes = this.pieceBytes;
		const end = word.replace(/=+$/, '').length;
		for (let shift = 0; shift < 4; shift++) {
			let bits = 0;
			let count = 0;
			let run = 0;
			for (let i = shift; i < end; i++) {
				bits = ((bits << 6) | BASE64_VALUE[word.charCodeAt(i)]) & 0xffffff;
				count += 6;
				if (count < 8) continue;
				count -= 8;
				const byte = (bits >> count) & 0xff;
				if (pieceBytes[byte] === 1) {
					if (++run >= PIECE) return true;
				} else if (!SEPARATOR_BYTE[byte]) run = 0;
			}
		}
		return false;
	}

	/** True when the text or one of its encoded words holds a piece. */
	mentioned(text: string): boolean {
		if (this.direct.size === 0) return false;
		if (this.holds(text)) return true;
		if (text.includes('\\u') || text.includes('%')) {
			for (const word of text.match(ENCODED_WORD) ?? []) if (this.holdsDecoded(word)) return true;
			return false;
		}
		// Without escapes, ENCODED_WORD's matches are the runs of 12 or more word characters: found by hand (faster).
		let start = -1;
		for (let i = 0; i <= text.length; i++) {
			const c = i < text.length ? text.charCodeAt(i) : 0;
			if (c < 128 && ENCODED_WORD_CHAR[c] === 1) {
				if (start < 0) start = i;
				continue;
			}
			if (start >= 0 && i - start >= 12 && this.holdsDecoded(text.slice(start, i))) return true;
			start = -1;
		}
		return false;
	}

	/** The text with every piece (direct or spread) and every encoded word that holds one replaced. */
	replace(input: string): string {
		const out = input.replace(ENCODED_WORD, (word) => (this.holdsDecoded(word) ? REDACTED : word));
		if (out.length < PIECE) return out;
		const marked = new Uint8Array(out.length);
		let any = mark(out, this.direct, marked);
		const view = compact(out);
		any = mark(view.text, this.spread, marked, view.index) || any;
		if (!any) return out;
		let rebuilt = '';
		for (let i = 0; i < out.length; i++) {
			if (marked[i] === 0) rebuilt += out[i];
			else if (i === 0 || marked[i - 1] === 0) rebuilt += REDACTED;
		}
		return rebuilt;
	}
}

/** Marks the pieces of `set` found in `view`; `index` maps view positions to `marked`. */
function mark(view: string, set: Set<string>, marked: Uint8Array, index?: number[]): boolean {
	let any = false;
	for (let i = 0; i + PIECE <= view.length; i++) {
		if (!set.has(view.slice(i, i + PIECE))) continue;
		const from = index ? index[i] : i;
		const to = index ? index[i + PIECE - 1] + 1 : i + PIECE;
		marked.fill(1, from, to);
		any = true;
	}
	return any;
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
