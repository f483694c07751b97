/**
 * The rolling-hash search behind Pieces (pieces.ts): every window of PIECE characters of a text
 * (or of decoded bytes) hashed in one pass, as it is and without separators, and compared with a
 * set of pieces only where a bitmap of the set's hashes says it may be one. Linear in the text.
 */

/** A secret piece this long or longer is redacted wherever it appears (a power of two: rings index with PIECE - 1). */
export const PIECE = 8;
/** Characters a secret may be spread over in an echo: whitespace, list and quote punctuation. */
export const SEPARATOR = /[\s.;,|"'`\\[\]{}()<>/:-]/;

/** Separator characters by byte value (latin1), for scans that work on bytes. */
export const SEPARATOR_BYTE = (() => {
	const out = new Uint8Array(256);
	for (let b = 0; b < 256; b++) if (SEPARATOR.test(String.fromCharCode(b))) out[b] = 1;
	return out;
})();

/**
 * Math.imul, read once: a global read in a hot loop is slow where the code runs in a vm context
 * (a test runner's), so the loops below use module-level names only.
 */
const imul = Math.imul;

/** 32-bit polynomial hash base of the rolling window over PIECE characters. */
const HASH_BASE = 31;
/** HASH_BASE to the power PIECE - 1 (32-bit): what the character leaving the window weighed. */
const HASH_TOP = (() => {
	let top = 1;
	for (let i = 1; i < PIECE; i++) top = imul(top, HASH_BASE);
	return top;
})();

/**
 * The hashes of a set of pieces, as a bitmap of 2^16 bits: a window whose bit is clear holds no
 * piece (one typed-array read per position); one whose bit is set is compared with the set.
 */
export class HashBits {
	private readonly bits = new Uint32Array(2048);

	/** The whole hashes, for a window whose bit is set (a 16-bit slot is shared by many hashes). */
	private readonly whole = new Set<number>();

	private static slot(hash: number): number {
		return (hash ^ (hash >>> 16)) & 0xffff;
	}

	add(hash: number): void {
		const slot = HashBits.slot(hash);
		this.bits[slot >>> 5] |= 1 << (slot & 31);
		this.whole.add(hash);
	}

	has(hash: number): boolean {
		const slot = HashBits.slot(hash);
		return (this.bits[slot >>> 5] & (1 << (slot & 31))) !== 0 && this.whole.has(hash);
	}
}

export function pieceHash(piece: string): number {
	let h = 0;
	for (let i = 0; i < PIECE; i++) h = (imul(h, HASH_BASE) + piece.charCodeAt(i)) | 0;
	return h;
}

/** Marks the pieces of `set` found in `view` (a rolling hash, as holdsPiece); `index` maps view positions to `marked`. */
export function mark(view: string, set: Set<string>, hashes: HashBits, marked: Uint8Array, index?: number[]): boolean {
	if (view.length < PIECE) return false;
	let any = false;
	let h = 0;
	for (let i = 0; i < PIECE; i++) h = (imul(h, HASH_BASE) + view.charCodeAt(i)) | 0;
	for (let i = 0; ; i++) {
		if (hashes.has(h) && set.has(view.slice(i, i + PIECE))) {
			const from = index ? index[i] : i;
			const to = index ? index[i + PIECE - 1] + 1 : i + PIECE;
			marked.fill(1, from, to);
			any = true;
		}
		if (i + PIECE >= view.length) return any;
		h = (imul(h - imul(view.charCodeAt(i), HASH_TOP), HASH_BASE) + view.charCodeAt(i + PIECE)) | 0;
	}
}

/** Whether a character is a separator (SEPARATOR), by its code. */
function isSeparator(code: number): boolean {
	return code < 256 ? SEPARATOR_BYTE[code] === 1 : SEPARATOR.test(String.fromCharCode(code));
}

/**
 * Whether a text holds a direct piece (every window of PIECE characters) or a spread piece
 * (every window of PIECE characters that are not separators): one pass, two rolling hashes, no
 * string made per position; a window is compared with its set only where its hash's bit is set.
 * Decoded bytes are read as latin1 text (`rollBytes`, the same loop over a byte array).
 */
export function roll(text: string | Uint8Array, direct: Set<string>, directHashes: HashBits, spread: Set<string>, spreadHashes: HashBits): boolean {
	return typeof text === 'string' ? rollText(text, new Windows(direct, directHashes, spread, spreadHashes)) : rollCodes(text, new Windows(direct, directHashes, spread, spreadHashes));
}

/** The two windows of a roll: the last PIECE characters, and the last PIECE that are not separators. */
class Windows {
	readonly ring = new Uint16Array(PIECE);

	readonly spreadRing = new Uint16Array(PIECE);

	constructor(
		readonly direct: Set<string>,
		readonly directHashes: HashBits,
		readonly spread: Set<string>,
		readonly spreadHashes: HashBits,
	) {}
}

function rollText(text: string, w: Windows): boolean {
	let h = 0;
	let sh = 0;
	let spreadCount = 0;
	const { ring, spreadRing, direct, directHashes, spread, spreadHashes } = w;
	for (let i = 0; i < text.length; i++) {
		const code = text.charCodeAt(i);
		const slot = i & (PIECE - 1);
		if (i >= PIECE) h = (h - imul(ring[slot], HASH_TOP)) | 0;
		h = (imul(h, HASH_BASE) + code) | 0;
		ring[slot] = code;
		if (i >= PIECE - 1 && directHashes.has(h) && direct.has(ringText(ring, i + 1))) return true;
		if (code < 256 ? SEPARATOR_BYTE[code] === 1 : isSeparator(code)) continue;
		const spreadSlot = spreadCount & (PIECE - 1);
		if (spreadCount >= PIECE) sh = (sh - imul(spreadRing[spreadSlot], HASH_TOP)) | 0;
		sh = (imul(sh, HASH_BASE) + code) | 0;
		spreadRing[spreadSlot] = code;
		spreadCount++;
		if (spreadCount >= PIECE && spreadHashes.has(sh) && spread.has(ringText(spreadRing, spreadCount))) return true;
	}
	return false;
}

/**
 * rollText over decoded bytes (read as latin1 text, without making it): the same loop, bytes for
 * char codes. Kept as a second loop on purpose: making the latin1 text first (one loop) costs an
 * allocation per decoded word and measured 1.5x to 2x slower on answers full of base64 words
 * (bench section 6); a loop reading through a closure is slower on plain text.
 */
function rollCodes(bytes: Uint8Array, w: Windows): boolean {
	let h = 0;
	let sh = 0;
	let spreadCount = 0;
	const { ring, spreadRing, direct, directHashes, spread, spreadHashes } = w;
	for (let i = 0; i < bytes.length; i++) {
		const code = bytes[i];
		const slot = i & (PIECE - 1);
		if (i >= PIECE) h = (h - imul(ring[slot], HASH_TOP)) | 0;
		h = (imul(h, HASH_BASE) + code) | 0;
		ring[slot] = code;
		if (i >= PIECE - 1 && directHashes.has(h) && direct.has(ringText(ring, i + 1))) return true;
		if (SEPARATOR_BYTE[code] === 1) continue;
		const spreadSlot = spreadCount & (PIECE - 1);
		if (spreadCount >= PIECE) sh = (sh - imul(spreadRing[spreadSlot], HASH_TOP)) | 0;
		sh = (imul(sh, HASH_BASE) + code) | 0;
		spreadRing[spreadSlot] = code;
		spreadCount++;
		if (spreadCount >= PIECE && spreadHashes.has(sh) && spread.has(ringText(spreadRing, spreadCount))) return true;
	}
	return false;
}

const fromCharCode = String.fromCharCode;

/** The PIECE characters of a ring after `count` pushes, oldest first, as text. */
function ringText(ring: Uint16Array, count: number): string {
	let piece = '';
	for (let k = 0; k < PIECE; k++) piece += fromCharCode(ring[(count + k) & (PIECE - 1)]);
	return piece;
}
