/**
 * The cost matrix of the output gate (issue 42, issue 52): every kind of adversarial text through
 * every scan it meets on its way out, at two sizes, in two halves (HALVES) run by
 * test/gate-cost.test.ts and test/gate-cost-files.test.ts, so that the test workers share it.
 */
import type { IDataObject } from 'n8n-workflow';

import { withoutCardData } from '../../nodes/shared/redaction/cardData';
import { fileFindings, gateFile } from '../../nodes/shared/redaction/files';
import { gateOutput } from '../../nodes/shared/redaction/gate';
import { Redactor } from '../../nodes/shared/redaction/secrets';
import { redactCardNumberSpans, redactSensitiveText } from '../../nodes/shared/redaction/scan';

export const SECRETS = ['sk_live_Q8fJ2kLmN4pR7sT1vW3xY5zA', 'whsec_c2VjcmV0LXNpZ25pbmcta2V5LTEyMzQ1Njc4'];

/** Text of `size` characters made of one repeated unit. */
export const fill = (unit: string, size: number): string => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);

/** Every kind of text that made a scanner slow, or could: each a function of the size. */
export const HOSTILE: Record<string, (size: number) => unknown> = {
	'hyphenated words': (n) => fill('abc-', n),
	'kebab words': (n) => fill('a-b-c-d-', n),
	'security-code words': (n) => fill('cvc-', n),
	'security code pairs': (n) => fill('security code ', n),
	'names then separators': (n) => fill('card_cvc:"', n),
	'hex runs': (n) => fill('deadbeef0123', n),
	'base64 words': (n) => fill('QUJDREVGR0hJSktMTU5PUA== ', n),
	'long digit runs': (n) => fill('4242424242424241', n),
	'digit groups': (n) => fill('4242 ', n),
	// The card-data detector's own paths (detector.ts): Unicode spaces, zero-width characters
	// inside digit runs, line breaks between groups, security codes after filler words.
	'digit groups with Unicode spaces': (n) => fill('4242\u202f4242\u00a0', n),
	'digits joined by zero-width characters': (n) => fill('4\u200b2\u2060', n),
	'digit groups over lines': (n) => fill('4242 4242\n', n),
	'security codes after filler words': (n) => fill('my cvc is code ', n),
	'deep nesting': (n) => {
		let value: unknown = 'x';
		for (let depth = 0; depth < n / 64; depth++) value = [value, 'abc-abc-abc-abc-abc-abc-abc-abc-abc-abc-abc-abc'];
		return value;
	},
	'many short list entries': (n) => Array.from({ length: n / 4 }, (_, i) => String(i % 97)),
	'long keys': (n) => Object.fromEntries(Array.from({ length: n / 1024 }, (_, i) => [`${fill('k-', 1000)}${i}`, i])),
	// A name read once where it stands, not once per entry of the list under it (a 74 KB answer of
	// this shape blocked n8n's event loop 6 to 9 s).
	'long names over long lists': (n) => ({ [fill('cardNumberAb', n / 2)]: Array.from({ length: n / 8 }, (_, i) => `v${i % 97}`) }),
	'long names over lists of records': (n) => ({ [fill('ab-', n / 2)]: Array.from({ length: n / 32 }, (_, i) => ({ [fill('cd', 64)]: [String(i % 9), 'x'] })) }),
	// A report file's header of long column names over many rows: each column name read once.
	'long CSV column names': (n) => `${fill('card_number_', n / 4)},${fill('note_', n / 4)}\n${'4242,ok\n'.repeat(n / 16)}`,
	// Report files with a card number in every cell (each one found, and masked with "Mask Them"), and one quoted
	// cell of doubled quotes between card numbers (each masked where it stands in the text).
	'CSV card numbers in every cell': (n) => `card,note\n${fill('4242424242424242,"card 5555 5555 5555 4444"\n', n)}`,
	'a quoted cell of doubled quotes and card numbers': (n) => `note\n"${fill('""a"" 4242 4242 4242 4242 ', n)}"\n`,
};
/**
 * Plain text as a record's text reads: words with a few numbers in them, so that every scan reads
 * it (the card-data detector passes over a text with fewer digits than a card number has).
 */
export const plain = (n: number): unknown => fill('Order 1042 was shipped to the north warehouse on 29 Nov 2026, 3 items. ', n);

/** Every scan a text meets on its way out: success answers (each policy) and errors. */
export const SCANS: Record<string, (value: unknown) => unknown> = {
	'store answer': (value) => gateOutput([{ json: { data: value } as IDataObject }], 'store', new Redactor(SECRETS)),
	'free-form vault answer': (value) => gateOutput([{ json: { data: value } as IDataObject }], 'vault-custom', new Redactor(SECRETS)),
	'card data pass': (value) => withoutCardData({ data: value }, { freeForm: true }),
	'error value': (value) => new Redactor(SECRETS).value({ description: value }),
	'security-code text scan': (value) => (typeof value === 'string' ? redactSensitiveText(value, { values: true }) : undefined),
	'card-number text scan': (value) => (typeof value === 'string' ? redactCardNumberSpans(value, { mode: 'error' }) : undefined),
	'report file': (value) => (typeof value === 'string' ? fileFindings(Buffer.from(value), 'text/csv', new Redactor(SECRETS)) : jsonFile(value)),
	'report file in UTF-16': (value) => (typeof value === 'string' ? fileFindings(Buffer.from(value, 'utf16le'), 'text/csv', new Redactor(SECRETS)) : undefined),
	'report file, card numbers masked': (value) => (typeof value === 'string' ? gateFile(Buffer.from(value), 'text/csv', new Redactor(SECRETS), 'mask') : jsonFile(value, 'mask')),
};

/** A report file in JSON, read by the file gate; a value JSON cannot write (nested deeper than the engine's stack) is no file. */
function jsonFile(value: unknown, cardNumbers?: 'mask'): unknown {
	let text: string;
	try {
		text = JSON.stringify(value);
	} catch {
		return undefined;
	}
	if (cardNumbers === 'mask') return gateFile(Buffer.from(text), 'application/json', new Redactor(SECRETS), cardNumbers);
	return fileFindings(Buffer.from(text), 'application/json', new Redactor(SECRETS));
}

/**
 * The garbage collector, where the test process exposes it (`npm test` runs jest with
 * --expose-gc): each row starts from a collected heap, so that what earlier rows left behind is
 * not charged to its larger input.
 */
const collect = (globalThis as { gc?: () => void }).gc;

/**
 * The CPU time a run takes (user and system, in ms): the process's own work. Wall time also counts
 * the time other processes of a busy machine hold both cores (a clean-clone CI run beside other
 * jobs saw a 1 MB scan take 1.1 s of wall time for 0.3 s of work); CPU time grows with the work
 * alone, so a scanner that is not linear still shows it, and a busy machine does not fail a row.
 */
function time(run: () => void): number {
	const start = process.cpuUsage();
	run();
	const used = process.cpuUsage(start);
	return (used.user + used.system) / 1000;
}

/**
 * The best time of each run over `rounds` rounds, the runs interleaved within a round: a machine
 * busy with other work (parallel test workers) slows every run of a round alike, and the best of
 * several rounds is the run's own cost.
 */
export function bestOf(runs: Array<() => void>, rounds = 5): number[] {
	const best = runs.map(() => Infinity);
	for (let round = 0; round < rounds; round++) runs.forEach((run, i) => (best[i] = Math.min(best[i], time(run))));
	return best;
}

export function best(run: () => void, times = 3): number {
	return bestOf([run], times)[0];
}

/** Interleaved rounds per row (the best of them counts): fewer let a busy moment pass for superlinear cost. */
const ROUNDS = 5;

export const SMALL = 256 * 1024;
export const LARGE = 1024 * 1024;
export const perMb = (ms: number, size: number) => (ms * 1024 * 1024) / size;


/**
 * The two halves of the matrix, of about the same time: gate-cost.test.ts runs the first (the
 * answer and error scans, and the masking file gate), gate-cost-files.test.ts the second (the text
 * scans and the file gate on CSV, JSON and UTF-16).
 */
export const HALVES: readonly [readonly string[], readonly string[]] = [
	['store answer', 'free-form vault answer', 'card data pass', 'error value', 'report file, card numbers masked'],
	['security-code text scan', 'card-number text scan', 'report file', 'report file in UTF-16'],
];

/** Every scan of `scans` × every kind of text: linear, within 20x of plain text, 1 MB under 1 s. */
export function describeLinear(scans: readonly string[]): void {
	describe('the output gate costs time in proportion to the text, whatever the text', () => {
		test('control: every scan named here is in the table', () => {
			for (const scan of scans) expect(SCANS[scan]).toBeDefined();
		});
	const rows = scans.flatMap((scan) => Object.keys(HOSTILE).map((kind) => [scan, kind] as const));

		test.each(rows)('%s, %s: linear (per MB at 1 MB within 3x of 256 KB), within 20x of plain text, 1 MB under 1 s', (scan, kind) => {
			const fn = SCANS[scan];
			// Warm the code so that the first size does not pay for compiling it.
			fn(HOSTILE[kind](SMALL));
			fn(plain(SMALL));
			const inputs = [HOSTILE[kind](SMALL), HOSTILE[kind](LARGE), plain(LARGE)];
			const measure = () => {
				collect?.();
				return bestOf(inputs.map((input) => () => fn(input)), ROUNDS);
			};
			// A floor of 2 ms per MB, so that timer noise on a scan that costs nothing is not a ratio.
			const floor = (ms: number) => Math.max(ms, 2);
			// Per MB at 1 MB within 3x of 256 KB's (plus 10 ms per MB of slack).
			const linearBound = (small: number) => 3 * perMb(floor(small), SMALL) + 10;
			let [small, large, plainLarge] = measure();
			if (perMb(floor(large), LARGE) >= linearBound(small)) {
				// Measured once more, the best of both kept: a machine busy with other work for a whole
				// row (a clean-clone run beside a profile: 38.8 ms for 1 MB that costs 9) passes then, a
				// scanner that is not linear fails again.
				const again = measure();
				[small, large, plainLarge] = [Math.min(small, again[0]), Math.min(large, again[1]), Math.min(plainLarge, again[2])];
			}
			expect(perMb(floor(large), LARGE)).toBeLessThan(linearBound(small));
			expect(floor(large)).toBeLessThan(20 * floor(plainLarge) + 100);
			// Wide: this runs beside the other test workers; a quadratic scanner takes minutes here.
			expect(large).toBeLessThan(1000);
		});

	});
}
