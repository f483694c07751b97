/**
 * One redaction pass for everything that leaves the node: error messages,
 * descriptions, the service's echoed answer (errorResponse, messages, cause),
 * continue-on-fail items, log lines, and (for the known secrets) success items.
 *
 * Removed, by meaning rather than only by literal:
 * - every known secret and any 8+ character piece of one (a cut can leave part
 *   of a key), also when the piece is spread over separators (a key split
 *   across an `errors[]` list the service joins, or spaced out);
 * - words that decode to such a piece or to a card number: base64 / base64url
 *   (an echoed Authorization header), `\u` JSON escapes and %-escapes;
 * - key-shaped strings (sk_, stk_, shk_, psk_, whsec_);
 * - card numbers: 12 to 19 digits that pass the Luhn check, with any of
 *   space, dot, dash, underscore or slash (up to three) between digits. Other
 *   long numbers (amounts, seconds, ids) stay readable;
 * - values of fields named like a card security code in any casing and with
 *   prefixes or suffixes (cvc, CVV2, card_cvc, securityCode), or an
 *   authorization header; a known security code (3 or 4 digits given as a
 *   secret value) wherever it stands alone.
 */

export const REDACTED = '[redacted]';

/** A secret piece this long or longer is redacted wherever it appears. */
const PIECE = 8;

const KEY_SHAPED = /\b(?:sk|stk|shk|psk|whsec)_[A-Za-z0-9+/=_-]{4,}/g;
/** Digits with up to three separators between each: checked with Luhn before redacting. */
const CARD_NUMBER = /(?<![\d])\d(?:[ .\-_/]{0,3}\d){11,18}(?![\d])/g;
const AUTH_FIELD = /^(?:proxy-)?authorization$/i;
/** Names of a card security code, compared without case and separators: ends in cvc, cvv, csc (optionally 2). */
const SECURITY_CODE_NAME = /(?:cvc|cvv|csc)2?$|securitycode|cardcode|cardverification(?:value|code)?/;
const SECURITY_CODE_WORD = '[A-Za-z_-]*?(?:cvc|cvv|csc)2?|security[ _-]?code';
const SECURITY_CODE_NEAR = new RegExp(`(\\b(?:${SECURITY_CODE_WORD})\\b["']?\\W{0,8})\\d{3,4}\\b`, 'gi');
const SENSITIVE_IN_TEXT = new RegExp(
	`(["']?\\b(?:${SECURITY_CODE_WORD}|authorization)\\b["']?\\s*[:=]\\s*)("(?:[^"\\\\]|\\\\.)*"|'[^']*'|[^\\s,}&]+)`,
	'gi',
);
/** Characters a secret may be spread over in an echo: whitespace, list and quote punctuation. */
const SEPARATOR = /[\s.;,|"'`\\[\]{}()<>]/;
/** A word that may be an encoded echo: base64(url), JSON \u escapes, %-escapes. */
const ENCODED_WORD = /(?:\\u[0-9a-fA-F]{4}|%[0-9a-fA-F]{2}|[A-Za-z0-9+/=_-]){12,}/g;

/** True when a field of this name holds a card security code. */
export function isSecurityCodeName(name: string): boolean {
	return SECURITY_CODE_NAME.test(name.toLowerCase().replace(/[^a-z0-9]/g, ''));
}

/** True when a field of this name holds a credential (redacted whole). */
function isSensitiveName(name: string): boolean {
	return AUTH_FIELD.test(name) || isSecurityCodeName(name);
}

/** Luhn check of a digit string. */
export function luhnValid(digits: string): boolean {
	let sum = 0;
	for (let i = 0; i < digits.length; i++) {
		let d = digits.charCodeAt(digits.length - 1 - i) - 48;
		if (i % 2 === 1) {
			d *= 2;
			if (d > 9) d -= 9;
		}
		sum += d;
	}
	return sum % 10 === 0;
}

/** True when the text holds a card number (12 to 19 digits with separators, Luhn-valid). */
export function hasCardNumber(text: string): boolean {
	for (const match of text.matchAll(CARD_NUMBER)) {
		if (luhnValid(match[0].replace(/\D/g, ''))) return true;
	}
	return false;
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

/** What an encoded word may stand for: its JSON-unescaped, %-decoded and base64-decoded forms. */
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

export class Redactor {
	private readonly pieces = new Set<string>();

	/** Pieces of the secrets with separators removed, for echoes spread over separators. */
	private readonly compactPieces = new Set<string>();

	/** Short secrets (a security code given by value): redacted where they stand alone. */
	private readonly shortSecrets = new Set<string>();

	constructor(secrets: Iterable<string> = []) {
		for (const secret of secrets) this.add(secret);
	}

	/** Pieces at every fourth offset of each secret and its encodings: a quick first test for success items. */
	private readonly anchors = new Set<string>();

	/** Adds a secret; values shorter than the piece length are covered by the patterns only. */
	add(secret: string): void {
		if (typeof secret !== 'string' || secret.length < PIECE) return;
		this.addPieces(secret);
		const bare = compact(secret).text;
		for (let i = 0; i + PIECE <= bare.length; i++) this.compactPieces.add(bare.slice(i, i + PIECE));
		// As the service may echo an Authorization header: base64 and base64url, with and without "Bearer ".
		for (const form of [secret, `Bearer ${secret}`]) {
			const encoded = Buffer.from(form, 'utf8').toString('base64');
			this.addPieces(encoded.replace(/=+$/, ''));
			this.addPieces(encoded.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''));
		}
	}

	private addPieces(secret: string): void {
		for (let i = 0; i + PIECE <= secret.length; i++) {
			const piece = secret.slice(i, i + PIECE);
			this.pieces.add(piece);
			if (i % 4 === 0 || i + PIECE === secret.length) this.anchors.add(piece);
		}
	}

	/** Adds every string leaf of a value (e.g. token data given as an object or JSON text). */
	addValue(value: unknown, depth = 0): void {
		if (depth > 10 || value === null || value === undefined) return;
		if (typeof value === 'string') {
			const trimmed = value.trim();
			// A 3 or 4 digit secret value is a security code: matched where it stands alone.
			if (/^\d{3,4}$/.test(trimmed)) this.shortSecrets.add(trimmed);
			this.add(value);
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

	/** True when the text holds a known secret's piece, also spread over separators. */
	private holdsPiece(text: string): boolean {
		if (this.pieces.size === 0) return false;
		for (const [set, view] of [
			[this.pieces, text],
			[this.compactPieces, compact(text).text],
		] as const) {
			for (let i = 0; i + PIECE <= view.length; i++) if (set.has(view.slice(i, i + PIECE))) return true;
		}
		return false;
	}

	/** True when the text holds a secret piece or a card number, as it is or in an encoded word. */
	private mentions(text: string): boolean {
		if (this.holdsPiece(text) || hasCardNumber(text)) return true;
		for (const word of text.match(ENCODED_WORD) ?? []) {
			if (decodings(word).some((plain) => this.holdsPiece(plain) || hasCardNumber(plain))) return true;
		}
		return false;
	}

	/** Marks the pieces of `set` found in `view`; `index` maps view positions to `marked`. */
	private mark(view: string, set: Set<string>, marked: Uint8Array, index?: number[]): boolean {
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

	text(input: string): string {
		// Encoded echoes first, before a literal part of them is cut out: a word whose decoding
		// holds a secret piece or a card number goes whole.
		let out = input.replace(ENCODED_WORD, (word) =>
			decodings(word).some((plain) => this.holdsPiece(plain) || hasCardNumber(plain)) ? REDACTED : word,
		);
		if (this.pieces.size > 0 && out.length >= PIECE) {
			const marked = new Uint8Array(out.length);
			const spread = compact(out);
			const direct = this.mark(out, this.pieces, marked);
			const joined = this.mark(spread.text, this.compactPieces, marked, spread.index);
			if (direct || joined) {
				let rebuilt = '';
				for (let i = 0; i < out.length; i++) {
					if (marked[i] === 0) rebuilt += out[i];
					else if (i === 0 || marked[i - 1] === 0) rebuilt += REDACTED;
				}
				out = rebuilt;
			}
		}
		out = out
			.replace(SENSITIVE_IN_TEXT, (_, name: string) => `${name}"${REDACTED}"`)
			.replace(SECURITY_CODE_NEAR, (_, name: string) => `${name}${REDACTED}`)
			.replace(KEY_SHAPED, REDACTED)
			.replace(CARD_NUMBER, (match) => (luhnValid(match.replace(/\D/g, '')) ? REDACTED : match));
		for (const code of this.shortSecrets) {
			out = out.replace(new RegExp(`(?<![\\d])${code}(?![\\d])`, 'g'), REDACTED);
		}
		return out;
	}

	/**
	 * A copy of a success answer with every known secret (and its base64 forms) redacted and
	 * nothing else changed: what the user asked for stays, card data of a Reveal included. A
	 * quick test on the serialised value comes first, so a clean answer costs one pass: an echo
	 * of 11 or more characters of a secret always holds one of its anchors.
	 */
	secrets<T>(value: T): T {
		if (this.anchors.size === 0) return value;
		const text = JSON.stringify(value) ?? '';
		let found = false;
		for (const anchor of this.anchors) {
			if (text.includes(anchor)) {
				found = true;
				break;
			}
		}
		return found ? (this.walkSecrets(value, 0) as T) : value;
	}

	private walkSecrets(input: unknown, depth: number): unknown {
		if (typeof input === 'string') return this.holdsPiece(input) ? this.piecesOnly(input) : input;
		if (input === null || typeof input !== 'object' || depth > 20) return input;
		if (Array.isArray(input)) return input.map((entry) => this.walkSecrets(entry, depth + 1));
		const out: Record<string, unknown> = {};
		for (const [key, inner] of Object.entries(input as Record<string, unknown>)) out[key] = this.walkSecrets(inner, depth + 1);
		return out;
	}

	/** The text with the known secrets' pieces (direct or spread over separators) replaced. */
	private piecesOnly(input: string): string {
		const marked = new Uint8Array(input.length);
		const spread = compact(input);
		this.mark(input, this.pieces, marked);
		this.mark(spread.text, this.compactPieces, marked, spread.index);
		let rebuilt = '';
		for (let i = 0; i < input.length; i++) {
			if (marked[i] === 0) rebuilt += input[i];
			else if (i === 0 || marked[i - 1] === 0) rebuilt += REDACTED;
		}
		return rebuilt;
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
			// A secret or card number cut into entries (e.g. an errors[] list) is read joined up: then
			// every text of the list goes, since any of them may hold a part of it.
			const joined = leaves(input).join('');
			const spread = joined !== '' && this.mentions(joined);
			for (const entry of input) out.push(spread ? blank(entry) : this.walk(entry, depth + 1, seen));
			return out;
		}
		const out: Record<string, unknown> = {};
		seen.set(input, out);
		for (const [key, inner] of Object.entries(input as Record<string, unknown>)) {
			out[key] = isSensitiveName(key) && inner !== null && inner !== undefined ? REDACTED : this.walk(inner, depth + 1, seen);
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
