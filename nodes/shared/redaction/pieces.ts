/**
 * Pieces of known secrets, and how a text is searched for them: as it is, spread over separators,
 * and inside words that decode to one (base64, base64url, hex, `\u` and %-escapes). The Redactor
 * (secrets.ts) decides which secrets' pieces apply where; this file finds them, fast: a rolling
 * hash over the text, and decoding only where a word's bytes can spell a piece.
 */

import { REDACTED } from './cardData';

/** A secret piece this long or longer is redacted wherever it appears. */
export const PIECE = 8;
/** Characters a secret may be spread over in an echo: whitespace, list and quote punctuation. */
export const SEPARATOR = /[\s.;,|"'`\\[\]{}()<>/:-]/;
/** A word that may be an encoded echo: base64(url), hex, JSON \u escapes, %-escapes. */
export const ENCODED_WORD = /(?:[A-Za-z0-9+/=_-]|\\u[0-9a-fA-F]{4}|%[0-9a-fA-F]{2}){12,}/g;

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
export function withoutSeparators(text: string): string {
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
export function decodings(word: string): string[] {
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
export class Pieces {
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
