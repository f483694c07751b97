/**
 * The quick test of a success answer (Redactor.secrets): whether a text may mention a piece of a
 * Pieces set (pieces.ts `mentioned`). It never says no where `mentioned` says yes; where it says
 * yes, the exact search runs. One pass over the text, each character read once, without making a
 * copy of it or a string per position (a string only where a piece may start, to compare it):
 *
 * - a direct piece (PIECE characters in a row) holds a 4-gram starting at a position that is a
 *   multiple of 4 (its first 4 positions hold one), so only those 4-grams are looked up, in a
 *   bitmap of the pieces' 4-grams; a hit compares the windows around it with the pieces;
 * - a spread piece (PIECE characters that are not separators, separators between them) is the
 *   same in the text without separators, counted there;
 * - an encoded word (base64, base64url, hex) holds a piece only if, decoded at some shift, it has
 *   PIECE bytes in a row that occur in pieces or are separators (what Pieces.mayDecode* ask):
 *   such a run covers two aligned groups of 4 characters and the pair joining them, which are
 *   checked with tables of what each pair of characters decodes to. A hit runs the exact test.
 *   So does an escape (`%41`, `\u0041`), which `mentioned` decodes.
 *
 * Texts fed one after another are read as one text (the leaves of a value joined).
 */

import { PIECE, SEPARATOR_BYTE } from './rolling';

const fromCharCode = String.fromCharCode;

/** Separators above latin1 (what rolling.ts SEPARATOR's `\s` adds there); test/quick-test.test.ts compares with SEPARATOR for every code. */
export function isWideSeparator(c: number): boolean {
	return c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/** 6-bit value of a base64 or base64url character plus one (0: not one; `=` is not: it ends a part). */
const B64 = (() => {
	const out = new Uint8Array(128);
	const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
	for (let i = 0; i < 64; i++) out[alphabet.charCodeAt(i)] = i + 1;
	out['-'.charCodeAt(0)] = 63;
	out['_'.charCodeAt(0)] = 64;
	return out;
})();

/** 4-bit value of a hex digit plus one (0: not one). */
const HEX = (() => {
	const out = new Uint8Array(128);
	for (let i = 0; i < 16; i++) {
		out['0123456789abcdef'.charCodeAt(i)] = i + 1;
		out['0123456789ABCDEF'.charCodeAt(i)] = i + 1;
	}
	return out;
})();

/**
 * `table` (B64, HEX) for every UTF-16 code, 0 above 127: one read per character, no range test.
 * These and CLASS are module constants made at load (about 0.3 ms): read through an object made at
 * first use instead, the loop below measured 7% slower.
 */
function widened(table: Uint8Array): Uint8Array {
	const out = new Uint8Array(0x10000);
	out.set(table);
	return out;
}

const B64_ANY = widened(B64);
const HEX_ANY = widened(HEX);

/** CLASS bits: a separator (SEPARATOR_BYTE below 256, isWideSeparator above), and `%` or `\` (an escape may start). */
const IS_SEPARATOR = 1;
const ESCAPE_START = 2;
const CLASS = (() => {
	const out = new Uint8Array(0x10000);
	for (let c = 0; c < 0x10000; c++) if (c < 256 ? SEPARATOR_BYTE[c] === 1 : isWideSeparator(c)) out[c] = IS_SEPARATOR;
	out[37] |= ESCAPE_START;
	out[92] |= ESCAPE_START;
	return out;
})();

/** ROT[k][m]: the 4-bit mask m turned so that its bit (φ + k) mod 4 is bit φ. */
const ROT = [0, 1, 2, 3].map((k) => Uint8Array.from({ length: 16 }, (_, m) => ((m >> k) | (m << (4 - k))) & 15));

const RING = 16;

/** A 4-gram's hash: exact for 7-bit characters (shifts, no multiplications); a collision only costs a compare. */
function gramHash(a: number, b: number, c: number, d: number): number {
	return ((a << 21) ^ (b << 14) ^ (c << 7) ^ d) | 0;
}

/**
 * The 4-grams of a set of pieces: a bitmap of 2^16 bits over their hashes, and the whole hashes.
 * rolling.ts HashBits is the same structure; filled with these hashes in place of this class, the
 * loop below measured 3% slower, so the test is written here where the loop reads it.
 */
class Grams {
	readonly bits = new Uint32Array(2048);

	readonly whole = new Set<number>();

	constructor(pieces: Iterable<string>) {
		for (const piece of pieces) {
			for (let i = 0; i + 4 <= piece.length; i++) {
				const h = gramHash(piece.charCodeAt(i), piece.charCodeAt(i + 1), piece.charCodeAt(i + 2), piece.charCodeAt(i + 3));
				const slot = (h ^ (h >>> 16)) & 0xffff;
				this.bits[slot >>> 5] |= 1 << (slot & 31);
				this.whole.add(h);
			}
		}
	}

	has(h: number): boolean {
		const slot = (h ^ (h >>> 16)) & 0xffff;
		return (this.bits[slot >>> 5] & (1 << (slot & 31))) !== 0 && this.whole.has(h);
	}
}

/** What a set of pieces is tested with: made once per Pieces. */
export class QuickTables {
	readonly directGrams: Grams;

	readonly spreadGrams: Grams;

	/**
	 * PAIR[(a << 6) | b], a and b 6-bit values: bit t (1..3) set when the byte the pair makes, b
	 * at grid index t, may be in a run (a piece's byte or a separator); bit 0 always (no byte).
	 */
	readonly pair = new Uint8Array(4096);

	/** PAIR turned as a group's first, second and third pair are (ROT[1], ROT[2], ROT[3]): one read each. */
	readonly pairTurned1 = new Uint8Array(4096);

	readonly pairTurned2 = new Uint8Array(4096);

	readonly pairTurned3 = new Uint8Array(4096);

	/** HEXPAIR[(a << 4) | b]: what the byte of two hex digits does to a run: 2 adds (a piece's byte), 1 keeps (a separator), 0 ends it. */
	readonly hexPair = new Uint8Array(256);

	constructor(
		readonly direct: ReadonlySet<string>,
		readonly spread: ReadonlySet<string>,
		readonly pieceBytes: Uint8Array,
	) {
		this.directGrams = new Grams(direct);
		this.spreadGrams = new Grams(spread);
		const step = (byte: number): number => (pieceBytes[byte & 255] === 1 ? 2 : SEPARATOR_BYTE[byte & 255] === 1 ? 1 : 0);
		for (let a = 0; a < 64; a++) {
			for (let b = 0; b < 64; b++) {
				const bytes = [(a << 2) | (b >> 4), ((a & 15) << 4) | (b >> 2), ((a & 3) << 6) | b];
				this.pair[(a << 6) | b] = bytes.reduce((mask, byte, i) => (step(byte) !== 0 ? mask | (2 << i) : mask), 1);
			}
		}
		for (let b = 0; b < 256; b++) this.hexPair[b] = step(b);
		for (let i = 0; i < 4096; i++) {
			this.pairTurned1[i] = ROT[1][this.pair[i]];
			this.pairTurned2[i] = ROT[2][this.pair[i]];
			this.pairTurned3[i] = ROT[3][this.pair[i]];
		}
	}
}

/** A run after a byte that `step` (HEXPAIR) says adds to it, keeps it or ends it. */
function run(length: number, step: number): number {
	return step === 2 ? length + 1 : step === 1 ? length : 0;
}

/** Windows to compare at most; past them (a text made to hit grams) the exact search runs. */
const MAX_CHECKS = 256;

/**
 * One quick test over texts fed in order. `maybe` is set (and stays) once the texts may hold a
 * piece; what is fed after that is not read.
 */
export class QuickScan {
	maybe = false;

	/** Characters fed, and characters fed that are not separators. */
	private n = 0;

	private m = 0;

	/** The last RING characters, and the last RING that are not separators. */
	private readonly ring = new Uint16Array(RING);

	private readonly compact = new Uint16Array(RING);

	/**
	 * Starts of the windows still to compare with the pieces (a 4-gram hit at s: windows from s - 3
	 * to s), each compared when its last character is read; -1: none. Direct in the text, spread in
	 * the text without separators.
	 */
	private directLo = -1;

	private directHi = -1;

	private spreadLo = -1;

	private spreadHi = -1;

	private checks = 0;

	/** Phases at which the last group's pairs may all be in a base64 run (bit φ). */
	private b64Ok = 0;

	/** Where the run of base64 characters the last group ends in starts, and the texts fed since (with where each starts). */
	private b64Start = 0;

	private texts: string[] = [];

	private starts: number[] = [];

	/** A run of base64 characters being decoded (startDecoding): per phase its bits, their count and its run of bytes. */
	private decoding = false;

	private readonly decoder = new Int32Array(12);

	/** Runs of hex-decoded bytes at the even and odd parity (group), in bytes. */
	private hexEven = 0;

	private hexOdd = 0;

	/** An escape being read (escapeStep). */
	private escape = 0;

	constructor(private readonly t: QuickTables) {}

	/** Ready for a new text (a scan is reused: nothing is made per answer). */
	reset(): this {
		this.maybe = false;
		this.n = 0;
		this.m = 0;
		this.directLo = -1;
		this.directHi = -1;
		this.spreadLo = -1;
		this.spreadHi = -1;
		this.checks = 0;
		this.b64Ok = 0;
		this.b64Start = 0;
		this.texts.length = 0;
		this.starts.length = 0;
		this.decoding = false;
		this.hexEven = 0;
		this.hexOdd = 0;
		this.escape = 0;
		return this;
	}

	/**
	 * Reads a text. The state read per character is kept in locals and written back at the end;
	 * what the rare paths (compare, startDecoding, decode) read is kept in fields. Every 4 characters
	 * read (a group, counted over the texts as one), the group's 4-gram and what it decodes to.
	 */
	feed(text: string): void {
		if (this.maybe) return;
		const { ring, compact, t } = this;
		const { spreadGrams, directGrams } = t;
		const { pair, pairTurned1, pairTurned2, pairTurned3, hexPair } = t;
		let n = this.n;
		let m = this.m;
		let escape = this.escape;
		let b64Ok = this.b64Ok;
		let hexEven = this.hexEven;
		let hexOdd = this.hexOdd;
		// The texts the current run of base64 characters is in (one, unless it runs over texts).
		if (this.b64Start >= n) {
			this.texts.length = 0;
			this.starts.length = 0;
		}
		this.texts.push(text);
		this.starts.push(n);
		const len = text.length;
		let decoding = this.decoding;
		let directPending = this.directHi >= 0;
		let spreadPending = this.spreadHi >= 0;
		for (let k = 0; k < len; k++) {
			const c = text.charCodeAt(k);
			ring[n & (RING - 1)] = c;
			if (decoding) {
				if (B64_ANY[c] !== 0) {
					if (!this.decode(c, n)) return void this.fail();
				} else decoding = this.decoding = false;
			}
			n++;
			const cls = CLASS[c];
			if (escape !== 0 || (cls & ESCAPE_START) !== 0) {
				escape = escapeStep(escape, c);
				if (escape === ESCAPE_READ) return void this.fail();
			}
			if ((cls & IS_SEPARATOR) === 0) {
				compact[m & (RING - 1)] = c;
				m++;
				if ((m & 3) === 0) {
					if (spreadGrams.has(gramHash(compact[(m - 4) & 15], compact[(m - 3) & 15], compact[(m - 2) & 15], c))) {
						if (this.spreadHi < 0) this.spreadLo = m - 7;
						this.spreadHi = m - 4;
						spreadPending = true;
					}
				}
				if (spreadPending) {
					if (!this.compare(compact, m, true)) return;
					spreadPending = this.spreadHi >= 0;
				}
			}
			if ((n & 3) === 0) {
				// A group of 4 characters ends at n.
				const a = ring[(n - 4) & 15];
				const b = ring[(n - 3) & 15];
				const g = ring[(n - 2) & 15];
				if (directGrams.has(gramHash(a, b, g, c))) {
					if (this.directHi < 0) this.directLo = n - 7;
					this.directHi = n - 4;
					directPending = true;
				}
				// Base64: a word holds a piece only if, decoded at one of the 4 phases its decoding may
				// start at, it has PIECE bytes in a row that are a piece's or separators
				// (Pieces.mayDecodeBase64). Such a run covers two whole groups and the pair joining
				// them: those pairs are checked at every phase with bit masks; where they all may be in
				// one, the run of base64 characters they are in is decoded as mayDecodeBase64 does (once
				// per run).
				const va = B64_ANY[a];
				const vb = B64_ANY[b];
				const vc = B64_ANY[g];
				const vd = B64_ANY[c];
				let own = 0;
				if (va !== 0 && vb !== 0 && vc !== 0 && vd !== 0) {
					own = pairTurned1[((va - 1) << 6) | (vb - 1)] & pairTurned2[((vb - 1) << 6) | (vc - 1)] & pairTurned3[((vc - 1) << 6) | (vd - 1)];
					if (!decoding && (b64Ok & own) !== 0 && n > 4) {
						const vp = B64_ANY[ring[(n - 5) & 15]];
						if (vp !== 0 && (b64Ok & own & pair[((vp - 1) << 6) | (va - 1)]) !== 0) {
							if (!this.startDecoding(n)) return void this.fail();
							decoding = true;
						}
					}
				} else this.b64Start = vd === 0 ? n : vc === 0 ? n - 1 : vb === 0 ? n - 2 : n - 3;
				b64Ok = own;
				// Hex, at both parities: runs of decoded bytes counted as Pieces.mayDecodeHex counts them
				// (a piece's byte adds one, a separator keeps the run, any other byte ends it). Where a
				// character is no hex digit, a run restarts at most one pair before the group's end,
				// counted as one (more than it can be: never less).
				const ha = HEX_ANY[a];
				const hb = HEX_ANY[b];
				const hc = HEX_ANY[g];
				const hd = HEX_ANY[c];
				if (ha !== 0 && hb !== 0 && hc !== 0 && hd !== 0) {
					const hq = n > 4 ? HEX_ANY[ring[(n - 5) & 15]] : 0;
					const even = run(run(hexEven, hexPair[((ha - 1) << 4) | (hb - 1)]), hexPair[((hc - 1) << 4) | (hd - 1)]);
					let odd = hq !== 0 ? run(hexOdd, hexPair[((hq - 1) << 4) | (ha - 1)]) : hexOdd;
					odd = run(odd, hexPair[((hb - 1) << 4) | (hc - 1)]);
					if (even >= PIECE || odd >= PIECE) return void this.fail();
					hexEven = even;
					hexOdd = odd;
				} else {
					hexEven = 1;
					hexOdd = 1;
				}
			}
			if (directPending) {
				if (!this.compare(ring, n, false)) return;
				directPending = this.directHi >= 0;
			}
		}
		this.n = n;
		this.m = m;
		this.escape = escape;
		this.b64Ok = b64Ok;
		this.hexEven = hexEven;
		this.hexOdd = hexOdd;
	}

	/** At the end of the texts: true when they may hold a piece (every window was compared as it ended). */
	end(): boolean {
		return this.maybe;
	}

	/**
	 * Starts decoding the run of base64 characters the group ending at n is in, as
	 * Pieces.mayDecodeBase64 decodes a word, at the 4 phases: what was read of it so far (the texts
	 * it is in are kept, not copied), then each character as it is read, until the run ends. False
	 * when a run of bytes reaches PIECE.
	 */
	private startDecoding(n: number): boolean {
		this.decoding = true;
		this.decoder.fill(0);
		const { texts, starts } = this;
		for (let i = 0; i < texts.length; i++) {
			const text = texts[i];
			const from = Math.max(0, this.b64Start - starts[i]);
			const to = Math.min(text.length, n - starts[i]);
			for (let k = from; k < to; k++) if (!this.decode(text.charCodeAt(k), starts[i] + k)) return false;
		}
		return true;
	}

	/** One base64 character of the run being decoded, at `at`: each phase's bits and run of bytes. False when a run reaches PIECE. */
	private decode(c: number, at: number): boolean {
		const d = this.decoder;
		const { pieceBytes } = this.t;
		for (let shift = 0; shift < 4; shift++) {
			if (at - this.b64Start < shift) continue;
			const bits = ((d[shift] << 6) | (B64[c] - 1)) & 0xffffff;
			d[shift] = bits;
			let count = d[4 + shift] + 6;
			if (count >= 8) {
				count -= 8;
				const byte = (bits >> count) & 0xff;
				if (pieceBytes[byte] === 1) {
					if (++d[8 + shift] >= PIECE) return false;
				} else if (SEPARATOR_BYTE[byte] !== 1) d[8 + shift] = 0;
			}
			d[4 + shift] = count;
		}
		return true;
	}

	private fail(): false {
		this.maybe = true;
		return false;
	}

	/** The window that ends at `end` (in the ring), when it is one to compare. False when it is a piece. */
	private compare(ring: Uint16Array, end: number, spread: boolean): boolean {
		const from = end - PIECE;
		const lo = spread ? this.spreadLo : this.directLo;
		const hi = spread ? this.spreadHi : this.directHi;
		if (from >= hi) {
			if (spread) this.spreadHi = -1;
			else this.directHi = -1;
		}
		if (from < lo || from > hi || from < 0) return true;
		if (++this.checks > MAX_CHECKS) return this.fail();
		let piece = '';
		for (let k = from; k < end; k++) piece += fromCharCode(ring[k & (RING - 1)]);
		return (spread ? this.t.spread : this.t.direct).has(piece) ? this.fail() : true;
	}
}

/** escapeStep's state once an escape has been read. */
const ESCAPE_READ = 99;

/**
 * One step of reading an escape `mentioned` decodes: `%` and 2 hex digits, `\u` and 4. Returns
 * the state after `c` (0: none being read; 2, 1: `%` read; -1: `\\` read; -2 to -5: `\\u` read), ESCAPE_READ once one is read.
 */
function escapeStep(state: number, c: number): number {
	const hex = c < 128 && HEX[c] !== 0;
	if (state === 0 || (state > 0 && !hex) || (state === -1 && c !== 117) || (state < -1 && !hex)) {
		if (c === 37) return 2;
		if (c === 92) return -1;
		return 0;
	}
	if (state > 0) return state === 1 ? ESCAPE_READ : state - 1;
	if (state === -1) return -2;
	return state === -5 ? ESCAPE_READ : state - 1;
}

