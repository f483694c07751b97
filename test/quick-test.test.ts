/**
 * The output gate's quick test (nodes/shared/redaction/quick.ts) never clears what the exact test
 * finds: over generated texts and values (secrets whole, in pieces, spread over separators and
 * leaves, encoded in base64, base64url and hex at every shift, escaped), whenever Pieces.mentioned
 * says a text mentions a piece, the quick scan says it may; and Redactor.secrets gives the same
 * answer as the exact path for every value. Controls: clean texts are cleared by the quick scan.
 */
import { Pieces } from '../nodes/shared/redaction/pieces';
import { isWideSeparator } from '../nodes/shared/redaction/quick';
import { SEPARATOR } from '../nodes/shared/redaction/rolling';
import { Redactor } from '../nodes/shared/redaction/secrets';
import { eachLeafText, leafTexts } from '../nodes/shared/redaction/leaves';

const SECRETS = ['sk_live_51Hq8ZkLmN0pQrStUvWx', `whsec_${Buffer.from('bench-signing-secret-0123').toString('base64')}`, 'psk_a1b2-c3d4.e5f6/g7h8'];

/** A small deterministic generator (mulberry32). */
function rng(seed: number): () => number {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

const FILLERS = ['Jane Doe', 'PAYMENT_COMPLETED', '2026-11-29T03:10:46.123Z', 'msg_2f1c0a8e9b7d4c3aa1b2c3d4e5f60718', 'x'.repeat(300), '10% off', 'caf\u00e9 \u3000 na\u00efve', '1764000000', 'deadbeefcafebabe0011', 'a-b.c d,e', 'YWJjZGVmZ2hpamtsbW5vcA==', '\\u0041', 'price: 12.50 EUR'];

function encodedForms(secret: string, random: () => number): string[] {
	const piece = secret.slice(Math.floor(random() * (secret.length - 8)));
	const bytes = Buffer.from((random() < 0.5 ? '' : 'xy'.slice(0, Math.floor(random() * 3))) + piece, 'utf8');
	const base64 = bytes.toString('base64');
	return [
		piece,
		piece.split('').join(random() < 0.5 ? ' ' : '-'),
		base64,
		base64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''),
		bytes.toString('hex'),
		`q${base64}`,
		`zz${bytes.toString('hex')}`,
		encodeURIComponent(piece).replace(/[A-Za-z]/g, (c) => `%${c.charCodeAt(0).toString(16)}`),
		piece.replace(/[a-z]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`),
	];
}

/** Cuts a text into 1 to 4 leaves. */
function cut(text: string, random: () => number): string[] {
	const parts: string[] = [];
	let rest = text;
	while (rest.length > 0 && parts.length < 3 && random() < 0.6) {
		const at = 1 + Math.floor(random() * Math.max(1, rest.length - 1));
		parts.push(rest.slice(0, at));
		rest = rest.slice(at);
	}
	parts.push(rest);
	return parts;
}

function generated(seed: number, count: number): string[][] {
	const random = rng(seed);
	const out: string[][] = [];
	for (let i = 0; i < count; i++) {
		const leaves: string[] = [];
		const n = 1 + Math.floor(random() * 5);
		for (let j = 0; j < n; j++) {
			const filler = FILLERS[Math.floor(random() * FILLERS.length)];
			if (random() < 0.35) {
				const forms = encodedForms(SECRETS[Math.floor(random() * SECRETS.length)], random);
				leaves.push(...cut(`${filler.slice(0, 20)}${forms[Math.floor(random() * forms.length)]}`, random));
			} else leaves.push(...cut(filler, random));
		}
		out.push(leaves);
	}
	return out;
}

function piecesOf(secrets: string[]): Pieces {
	const pieces = new Pieces(() => true);
	for (const secret of secrets) pieces.add(secret, /^[a-z]{2,8}_/.exec(secret)?.[0].length ?? 0);
	return pieces;
}

describe('the quick test of the output gate', () => {
	test('separators above latin1 are those of SEPARATOR, for every code', () => {
		const differ: number[] = [];
		for (let c = 256; c < 0x10000; c++) if (isWideSeparator(c) !== SEPARATOR.test(String.fromCharCode(c))) differ.push(c);
		expect(differ).toEqual([]);
	});

	test('never clears a text the exact test finds a piece in (generated texts, leaves read as one)', () => {
		const pieces = piecesOf(SECRETS);
		let found = 0;
		let cleared = 0;
		for (const leaves of generated(52, 4000)) {
			const scan = pieces.quick()!;
			for (const leaf of leaves) scan.feed(leaf);
			const maybe = scan.end();
			const exact = pieces.mentioned(leaves.join(''));
			if (exact) found++;
			if (!maybe) cleared++;
			if (exact && !maybe) throw new Error(`quick test cleared a mention: ${JSON.stringify(leaves)}`);
		}
		// Both kinds occur: the corpus has mentions, and the quick test clears clean texts.
		expect(found).toBeGreaterThan(500);
		expect(cleared).toBeGreaterThan(500);
	});

	test('clears plain text with no piece (control): a 4 KiB delivery and common fields', () => {
		const pieces = piecesOf(['sk_bench_key_0001', SECRETS[1]]);
		for (const text of [`{"id":"msg_2f1c0a8e9b7d4c3aa1b2c3d4e5f60718"}${'x'.repeat(4000)}`, 'PAYMENT_COMPLETED2026-11-29T03:10:46.123ZJane Doe', 'order 12345 for 12.50 EUR']) {
			const scan = pieces.quick()!;
			scan.feed(text);
			expect(pieces.mentioned(text)).toBe(false);
			expect(scan.end()).toBe(false);
		}
	});

	test('Redactor.secrets answers as the exact path does, for generated values', () => {
		const redactor = new Redactor(SECRETS);
		const random = rng(7);
		for (const leaves of generated(53, 1500)) {
			const value: Record<string, unknown> = {};
			leaves.forEach((leaf, i) => {
				if (random() < 0.3) value[`k${i}`] = [leaf];
				else value[random() < 0.1 ? leaf.slice(0, 40) || `k${i}` : `k${i}`] = leaf;
			});
			const out = redactor.secrets(value);
			const joined = leafTexts(value).join('');
			const keys = Object.keys(value).join(' ');
			const mentions = redactor.holdsKnownSecret(joined) || redactor.holdsKnownSecret(keys);
			// Unchanged (the same object) exactly when nothing is mentioned.
			expect(out === value).toBe(!mentions);
			if (mentions) {
				const texts: string[] = [];
				eachLeafText(out, (text) => texts.push(text));
				for (const secret of SECRETS) expect(texts.join('')).not.toContain(secret);
			}
		}
	});
});
