/**
 * Pieces of known secrets, and how a text is searched for them: as it is, spread over separators,
 * and inside words that decode to one (base64, base64url, hex, `\u` and %-escapes). The Redactor
 * (secrets.ts) decides which secrets' pieces apply where; this file finds them, fast: a rolling
 * hash over the text, and decoding only where a word's bytes can spell a piece.
 */

import { REDACTED } from './cardData';
import { QuickScan, QuickTables } from './quick';
import { HashBits, mark, PIECE, pieceHash, roll, SEPARATOR, SEPARATOR_BYTE } from './rolling';

export { PIECE, SEPARATOR } from './rolling';

/** A word that may be an encoded echo: base64(url), hex, JSON \u escapes, %-escapes. */
export const ENCODED_WORD = /(?:[A-Za-z0-9+/=_-]|\\u[0-9a-fA-F]{4}|%[0-9a-fA-F]{2}){12,}/g;

/** The characters of an ENCODED_WORD besides its escapes, by code. */
const ENCODED_WORD_CHAR = (() => {
	const out = new Uint8Array(128);
	for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-') out[c.charCodeAt(0)] = 1;
	return out;
})();

const HEX_WORD = /^[0-9a-fA-F]+$/;

/** The 4-bit value of a hex digit, by code. */
const HEX_VALUE = (() => {
	const out = new Uint8Array(128);
	for (let i = 0; i < 16; i++) {
		out['0123456789abcdef'.charCodeAt(i)] = i;
		out['0123456789ABCDEF'.charCodeAt(i)] = i;
	}
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
const BASE64_WORD = /^[A-Za-z0-9+/_-]+={0,2}$/;

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
	private readonly directHashes = new HashBits();

	private readonly spreadHashes = new HashBits();

	constructor(private readonly keep: (piece: string) => boolean) {}

	get size(): number {
		return this.direct.size;
	}

	/** `skip`: pieces starting in the first `skip` characters (a readable prefix such as sk_live_) are not pieces. */
	add(secret: string, skip = 0): void {
		if (secret.length < PIECE) return;
		this.pieceBytes = undefined;
		this.quickScan = undefined;
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
		return roll(text, this.direct, this.directHashes, this.spread, this.spreadHashes);
	}

	/**
	 * True when one of the word's decoded forms holds a piece. Escaped words (`\\u`, `%`) are
	 * decoded and searched; hex and base64(url) words are decoded as a stream of bytes at every
	 * shift `decodings` tries, each byte rolled into the hash of the last PIECE bytes (and of the
	 * last PIECE bytes that are not separators): no string made per word, one pass per shift.
	 */
	private holdsDecoded(word: string): boolean {
		if (word.includes('\\u') || word.includes('%')) return decodings(word).some((plain) => this.holds(plain));
		const parts = equalsParts(word);
		if (parts.length > 1) return parts.some((part) => part.length >= 12 && this.holdsDecoded(part));
		if (HEX_WORD.test(word) && this.mayDecodeHex(word)) {
			for (let shift = 0; shift < 2; shift++) {
				const length = word.length - shift;
				if (this.holdsBytes(Buffer.from(word.slice(shift, shift + length - (length % 2)), 'hex'))) return true;
			}
		}
		if (!BASE64_WORD.test(word) || !this.mayDecodeBase64(word)) return false;
		let end = word.length;
		while (end > 0 && word.charCodeAt(end - 1) === 61 /* = */) end--;
		for (let shift = 0; shift < 4; shift++) {
			// As decodings: a slice of 4k+1 characters drops its last; fewer than 8 are not decoded.
			const length = end - shift;
			const usable = length % 4 === 1 ? length - 1 : length;
			if (usable < 8) continue;
			// Node's base64 decoder reads the base64url alphabet too.
			if (this.holdsBytes(Buffer.from(word.slice(shift, shift + usable), 'base64'))) return true;
		}
		return false;
	}

	/** Bytes that occur in a piece (direct or spread), by byte value: what a decoded echo is made of. */
	private pieceBytes?: Uint8Array;

	private bytesOfPieces(): Uint8Array {
		if (this.pieceBytes === undefined) {
			const bytes = new Uint8Array(256);
			for (const set of [this.direct, this.spread]) {
				for (const piece of set) for (let i = 0; i < piece.length; i++) if (piece.charCodeAt(i) < 256) bytes[piece.charCodeAt(i)] = 1;
			}
			this.pieceBytes = bytes;
		}
		return this.pieceBytes;
	}

	/**
	 * Pre-checks before decoding, without making anything: whether a hex or base64(url) word,
	 * decoded at any shift `holdsDecoded` tries, has PIECE bytes that occur in pieces with only
	 * separators between them (a necessary condition of holding a piece; a checksum or an id
	 * almost never passes, so most words cost one pass over their characters).
	 */
	private mayDecodeHex(word: string): boolean {
		const pieceBytes = this.bytesOfPieces();
		for (let shift = 0; shift < 2; shift++) {
			let run = 0;
			for (let i = shift; i + 1 < word.length; i += 2) {
				const byte = (HEX_VALUE[word.charCodeAt(i)] << 4) | HEX_VALUE[word.charCodeAt(i + 1)];
				if (pieceBytes[byte] === 1) {
					if (++run >= PIECE) return true;
				} else if (SEPARATOR_BYTE[byte] !== 1) run = 0;
			}
		}
		return false;
	}

	private mayDecodeBase64(word: string): boolean {
		const pieceBytes = this.bytesOfPieces();
		let end = word.length;
		while (end > 0 && word.charCodeAt(end - 1) === 61 /* = */) end--;
		for (let shift = 0; shift < 4; shift++) {
			let bits = 0;
			let count = 0;
			let run = 0;
			for (let i = shift; i < end; i++) {
				bits = ((bits << 6) | BASE64_VALUE[word.charCodeAt(i) & 0x7f]) & 0xffffff;
				count += 6;
				if (count < 8) continue;
				count -= 8;
				const byte = (bits >> count) & 0xff;
				if (pieceBytes[byte] === 1) {
					if (++run >= PIECE) return true;
				} else if (SEPARATOR_BYTE[byte] !== 1) run = 0;
			}
		}
		return false;
	}

	/** `holds` of decoded bytes (as their latin1 text), without making the text. */
	private holdsBytes(bytes: Uint8Array): boolean {
		return roll(bytes, this.direct, this.directHashes, this.spread, this.spreadHashes);
	}

	/** The quick test of these pieces (quick.ts), made at its first use, reset for each text. */
	private quickScan?: QuickScan;

	/**
	 * A scan of texts fed in order (read as one text): when its `end()` is false, `mentioned` of
	 * those texts joined is false. Undefined when there are no pieces (nothing is mentioned).
	 */
	quick(): QuickScan | undefined {
		if (this.direct.size === 0) return undefined;
		this.quickScan ??= new QuickScan(new QuickTables(this.direct, this.spread, this.bytesOfPieces()));
		return this.quickScan.reset();
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

	/**
	 * The positions of the text that belong to a piece (direct, or spread over separators) or to
	 * an encoded word that holds one, or undefined when none do.
	 */
	marks(text: string): Uint8Array | undefined {
		if (text.length < PIECE || this.direct.size === 0) return undefined;
		const marked = new Uint8Array(text.length);
		let any = mark(text, this.direct, this.directHashes, marked);
		const view = compact(text);
		any = mark(view.text, this.spread, this.spreadHashes, marked, view.index) || any;
		any = markEncodedWords(text, marked, (word) => this.holdsDecoded(word)) || any;
		return any ? marked : undefined;
	}

	/** The text with every piece (direct or spread) and every encoded word that holds one replaced. */
	replace(input: string): string {
		const out = input.replace(ENCODED_WORD, (word) => (this.holdsDecoded(word) ? REDACTED : word));
		const marked = this.marks(out);
		if (marked === undefined) return out;
		let rebuilt = '';
		for (let i = 0; i < out.length; i++) {
			if (marked[i] === 0) rebuilt += out[i];
			else if (i === 0 || marked[i - 1] === 0) rebuilt += REDACTED;
		}
		return rebuilt;
	}
}

/** Marks every encoded word (ENCODED_WORD) of the text for which `test` holds. */
export function markEncodedWords(text: string, marked: Uint8Array, test: (word: string) => boolean): boolean {
	let any = false;
	for (const match of text.matchAll(ENCODED_WORD)) {
		if (!test(match[0])) continue;
		marked.fill(1, match.index, match.index + match[0].length);
		any = true;
	}
	return any;
}
