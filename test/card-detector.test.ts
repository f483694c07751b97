/**
 * Issue 52, part 3: the card-data detector (nodes/shared/redaction/detector.ts), tested both ways
 * from generated corpora.
 *
 * - (a) A grammar of card and code presentations: every issuer and length of the table, every
 *   grouping the networks print, every separator (Unicode spaces and dashes included), zero-width
 *   characters between digits, an expiry or code after the number, two numbers joined, a number
 *   split over two lines, a label touching the digits; security codes in prose and under field
 *   names. Every one must be found.
 * - (b) A corpus of legitimate numbers: dates and date ranges, invoice and size lists, phone
 *   numbers, IBANs, ids with digits, timestamps, epoch milliseconds, prices, order numbers,
 *   Luhn-valid numbers no issuer gives out. Every text must come out byte for byte.
 *
 * The figures (recall on (a), false-positive rate on (b)) are printed for the detector and for
 * the Guardrails-style rule (16 digits in four groups of four, space or dash, no Luhn) and
 * quoted in docs/security.md, "Card-data detector" (from `npm run test:long`).
 *
 * Seeded: PROPERTY_SEED=<n> repeats a run; the seed is printed on failure.
 */
import fc from 'fast-check';

import { atLeastDigits, CARD_NUMBER_MIN_DIGITS, hasCardNumber, redactCardNumbers, redactSecurityCodeText, SECURITY_CODE_MIN_DIGITS, withoutCardData } from '../nodes/shared/redaction/cardData';
import { cardSpans, ISSUERS, issuerOf, luhnValid, redactCards } from '../nodes/shared/redaction/detector';
import { redactCardNumberSpans, redactSensitiveText } from '../nodes/shared/redaction/scan';
import { runSize } from './support/run-size';

const SEED = Number(process.env.PROPERTY_SEED ?? 520003);
const RUNS = runSize(600, 6000);

function check<T>(name: string, arbitrary: fc.Arbitrary<T>, predicate: (value: T) => void): void {
	try {
		fc.assert(fc.property(arbitrary, predicate), { numRuns: RUNS, seed: SEED });
	} catch (error) {
		throw new Error(`${name} failed with PROPERTY_SEED=${SEED}\n${error instanceof Error ? error.message : String(error)}`);
	}
}

// ---------------------------------------------------------------------------------------------
// (a) The presentation grammar.

/** Every (issuer, prefix range, length) of the table. */
const KINDS = ISSUERS.flatMap((issuer) => issuer.prefixes.flatMap(([low, high]) => issuer.lengths.map((length) => ({ issuer: issuer.name, low, high, length }))));

/** A Luhn-valid number of the kind: a prefix in the range, random digits, the check digit. */
const cardArb = fc.tuple(fc.constantFrom(...KINDS), fc.nat(), fc.array(fc.nat(9), { minLength: 19, maxLength: 19 })).map(([kind, pick, digits]) => {
	const span = Number(kind.high) - Number(kind.low) + 1;
	const prefix = String(Number(kind.low) + (pick % span)).padStart(kind.low.length, '0');
	const body = (prefix + digits.join('')).slice(0, kind.length - 1);
	for (let d = 0; d < 10; d++) if (luhnValid(body + d)) return { ...kind, number: body + d };
	throw new Error('no check digit');
});

/** The groupings a number of this length is printed in (sizes of its groups; [] is no separator). */
function groupings(length: number): number[][] {
	const out: number[][] = [[]];
	const fours: number[] = [];
	for (let left = length; left > 0; left -= 4) fours.push(Math.min(4, left));
	if (fours.length >= 3) out.push(fours);
	if (length === 15) out.push([4, 6, 5]);
	if (length === 14) out.push([4, 6, 4]);
	return out;
}

/** Separators between groups: ASCII, Unicode spaces (NBSP, narrow NBSP, thin, figure, en, ideographic), dashes. */
const SEPARATORS = [' ', '-', '.', '  ', ' - ', '\t', '\u00a0', '\u202f', '\u2009', '\u2007', '\u2002', '\u3000', '\u2013', '\u2011', '\u205f'];
/** Read as absent: zero-width space, non-joiner, joiner, word joiner, byte-order mark, soft hyphen. */
const ZERO_WIDTH = ['\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad'];
const LINE_BREAKS = ['\n', '\r\n', ' \n', '\n  ', '\u2028'];

interface Written {
	text: string;
	/** Where each card number stands in the text: all of it must be covered by one found span. */
	at: Array<[number, number]>;
	/** Digits of each security code that must be gone. */
	codes: string[];
	/** A 16-digit number, grouped in fours by an ASCII space or dash or not at all, no zero-width character, no line break. */
	plain?: boolean;
}

const presentationArb = fc
	.record({
		cards: fc.tuple(cardArb, cardArb),
		grouping: fc.nat(),
		sep: fc.constantFrom(...SEPARATORS),
		zeroWidth: fc.option(fc.tuple(fc.constantFrom(...ZERO_WIDTH), fc.nat(), fc.boolean()), { freq: 3 }),
		lineAt: fc.option(fc.tuple(fc.nat(), fc.constantFrom(...LINE_BREAKS)), { freq: 4 }),
		form: fc.constantFrom('alone', 'sentence', 'label', 'expiry', 'code-after', 'expiry-and-code', 'two', 'two-comma', 'json'),
		label: fc.constantFrom('card:', 'PAN', 'Card ', 'cc:', 'VISA', 'card#', 'Kartennummer ', 'CardNumber:'),
		month: fc.integer({ min: 1, max: 12 }),
		year: fc.integer({ min: 25, max: 39 }),
		code: fc.integer({ min: 100, max: 9999 }),
	})
	.map((p): Written => {
		// An unseparated number is split over two lines only where a long line was wrapped: the line holding its first part is long.
		let wrapped = false;
		const write = (number: string): string => {
			const sizes = groupings(number.length)[p.grouping % groupings(number.length).length];
			let parts: string[] = [];
			if (sizes.length === 0) parts = [number];
			else {
				let at = 0;
				for (const size of sizes) parts.push(number.slice(at, (at += size)));
			}
			// Zero-width characters: one after a chosen digit, or one after every digit.
			if (p.zeroWidth !== null) {
				const [zw, where, every] = p.zeroWidth;
				let seen = 0;
				const target = 1 + (where % (number.length - 1));
				parts = parts.map((part) =>
					[...part].map((d) => (++seen < number.length && (every || seen === target) ? d + zw : d)).join(''),
				);
			}
			let joined: string;
			if (p.lineAt !== null && parts.length >= 2) {
				// One separator is a line break.
				const [where, br] = p.lineAt;
				const k = where % (parts.length - 1);
				// A break after the first group only where a long line was wrapped.
				if (k === 0) wrapped = true;
				joined = parts.map((part, i) => (i === 0 ? part : (i - 1 === k ? br : p.sep) + part)).join('');
			} else if (p.lineAt !== null && parts.length === 1 && p.zeroWidth === null) {
				// An unseparated number split once, four digits or more on each line.
				const [where, br] = p.lineAt;
				const cut = 4 + (where % (number.length - 7));
				joined = number.slice(0, cut) + br + number.slice(cut);
				wrapped = true;
			} else joined = parts.join(p.sep);
			return joined;
		};
		const [a, b] = p.cards.map((c) => write(c.number));
		const plain = p.cards[0].length === 16 && p.zeroWidth === null && p.lineAt === null && (p.sep === ' ' || p.sep === '-' || groupings(16)[p.grouping % 2].length === 0);
		const exp = `${String(p.month).padStart(2, '0')}/${p.year}`;
		const code = String(p.code).slice(0, p.cards[0].issuer === 'American Express' ? 4 : 3);
		const around = (before: string, inner: string[], between: string, after: string): Written => {
			const at: Array<[number, number]> = [];
			if (wrapped) {
				before = `Please charge the card on file for this order, its number is ${before}`;
				if (inner.length > 1) between = ' and if that one fails, the other card I have is ';
			}
			let text = before;
			inner.forEach((part, i) => {
				if (i > 0) text += between;
				at.push([text.length, text.length + part.length]);
				text += part;
			});
			return { text: text + after, at, codes: [], plain: plain && (inner.length === 1 || p.cards[1].length === 16) };
		};
		switch (p.form) {
			case 'alone': return around('', [a], '', '');
			case 'sentence': return around('Please charge ', [a], '', ' again today.');
			case 'label': return around(`${p.label}`, [a], '', ' (expired)');
			case 'expiry': return around('paid with ', [a], '', ` ${exp}`);
			case 'code-after': return around('', [a], '', `${p.sep}${code}`);
			case 'expiry-and-code': return around('', [a], '', ` ${exp} ${code}`);
			case 'two': return around('cards ', [a, b], p.lineAt === null ? p.sep : ' ', ' were declined');
			case 'two-comma': return around('', [a, b], ', ', '');
			case 'json': return around('{"message":"my card is ', [a], '', ` exp ${exp}"}`);
			default: throw new Error(`no form ${String(p.form)}`);
		}
	});

/** Security codes in text and under field names, as people and services write them. */
const CODE_TEXTS = [
	(c: string) => `my CVC is ${c}`,
	(c: string) => `CVV code: ${c}`,
	(c: string) => `cvv2=${c}`,
	(c: string) => `the security code is ${c}, thanks`,
	(c: string) => `Card verification value: ${c}`,
	(c: string) => `card verification code - ${c}`,
	(c: string) => `verification code ${c}`,
	(c: string) => `CID #${c}`,
	(c: string) => `csc = ${c}`,
	(c: string) => `{"cvv_code":"${c}"}`,
	(c: string) => `cvcValue=${c}&amount=5`,
	(c: string) => `card_cvc_number: ${c}`,
	(c: string) => `CVC number is ${c}`,
	(c: string) => `cvv (${c})`,
];
const codeTextArb = fc.tuple(fc.nat(CODE_TEXTS.length - 1), fc.integer({ min: 100, max: 9999 }), fc.boolean(), fc.constantFrom('', 'Hello, ', 'Note: ')).map(([k, n, four, before]): Written => {
	const c = String(n).slice(0, four ? 4 : 3);
	return { text: before + CODE_TEXTS[k](c), at: [], codes: [c] };
});

// ---------------------------------------------------------------------------------------------
// (b) The legitimate corpus.

const digitsOf = (min: number, max: number) => fc.stringMatching(new RegExp(`^[0-9]{${min},${max}}$`));
const pad = (n: number, width = 2) => String(n).padStart(width, '0');
const dateArb = fc.record({ y: fc.integer({ min: 1990, max: 2099 }), m: fc.integer({ min: 1, max: 12 }), d: fc.integer({ min: 1, max: 28 }) });
const dateText = fc.tuple(dateArb, fc.nat(5)).map(([{ y, m, d }, form]) => [`${y}-${pad(m)}-${pad(d)}`, `${pad(d)}.${pad(m)}.${y}`, `${pad(m)}/${pad(d)}/${y}`, `${y}${pad(m)}${pad(d)}`, `${y} ${pad(m)}${pad(d)}`, `${pad(d)} ${pad(m)} ${y}`][form]);
/** Luhn-valid numbers of 12 to 19 digits that no issuer of the table gives out (prefix or length). */
const notIssuerArb = fc.tuple(digitsOf(11, 18), fc.boolean()).map(([body, grouped]) => {
	let n = '';
	for (let d = 0; d < 10; d++) if (luhnValid(body + d)) n = body + d;
	if (issuerOf(n) !== undefined) n = `1${n.slice(1)}`;
	for (let d = 0; d < 10 && !luhnValid(n); d++) n = n.slice(0, -1) + d;
	return grouped ? n.replace(/(\d{4})(?=\d)/g, '$1 ') : n;
})
	// Deliberately matched (docs/security.md): a run of fours whose first 12 or 16 digits are a card
	// number (issuer, length, Luhn) is read as that card number followed by its code or expiry.
	.filter((n) => {
		const d = n.replace(/ /g, '');
		return n === d || ![12, 16].some((k) => d.length > k && issuerOf(d.slice(0, k)) !== undefined && luhnValid(d.slice(0, k)));
	});

const LEGIT_ITEMS: Array<fc.Arbitrary<string>> = [
	// Dates and date ranges.
	dateText,
	fc.tuple(dateText, dateText, fc.constantFrom(' - ', ' – ', '-', ' to ', '..')).map(([a, b, s]) => `${a}${s}${b}`),
	fc.tuple(dateArb, dateArb).map(([a, b]) => `${a.y} ${pad(a.m)}${pad(a.d)} - ${b.y} ${pad(b.m)}${pad(b.d)}`),
	// Invoice and size lists.
	fc.array(digitsOf(5, 8), { minLength: 2, maxLength: 6 }).map((l) => `invoices ${l.join(' ')}`),
	fc.array(digitsOf(4, 8), { minLength: 2, maxLength: 6 }).map((l) => `invoices ${l.join(', ')}`),
	fc.array(digitsOf(4, 8), { minLength: 2, maxLength: 6 }).map((l) => l.map((n) => `INV-${n}`).join(', ')),
	fc.array(digitsOf(4, 7), { minLength: 2, maxLength: 5 }).map((l) => l.map((n) => `#${n}`).join(' ')),
	fc.array(fc.integer({ min: 28, max: 52 }), { minLength: 3, maxLength: 10 }).map((l) => `sizes ${l.join(' ')}`),
	fc.array(fc.integer({ min: 80, max: 190 }), { minLength: 3, maxLength: 10 }).map((l) => `heights ${l.join(' ')} cm`),
	fc.array(fc.tuple(fc.integer({ min: 26, max: 40 }), fc.integer({ min: 28, max: 36 })), { minLength: 1, maxLength: 4 }).map((l) => l.map(([w, h]) => `${w}x${h}`).join(' ')),
	// Phone numbers.
	fc.tuple(digitsOf(2, 3), digitsOf(6, 8)).map(([a, b]) => `+49 ${a} ${b}`),
	fc.tuple(digitsOf(3, 3), digitsOf(3, 3), digitsOf(4, 4)).map(([a, b, c]) => `+1 (${a}) ${b}-${c}`),
	fc.tuple(digitsOf(3, 3), digitsOf(3, 3), digitsOf(4, 4)).map(([a, b, c]) => `+1-${a}-${b}-${c}`),
	fc.tuple(digitsOf(2, 2), digitsOf(4, 4), digitsOf(4, 4)).map(([a, b, c]) => `+44 ${a} ${b} ${c}`),
	fc.array(digitsOf(2, 2), { minLength: 4, maxLength: 4 }).map((l) => `+33 6 ${l.join(' ')}`),
	fc.tuple(digitsOf(3, 4), digitsOf(7, 8)).map(([a, b]) => `(0${a}) ${b}`),
	digitsOf(10, 13).map((n) => `+${n}`),
	fc.tuple(digitsOf(2, 2), digitsOf(8, 9)).map(([a, b]) => `0049 ${a} ${b}`),
	// IBANs, plain and grouped, with letters in the bank code too.
	fc.tuple(fc.constantFrom('DE', 'FR', 'NL', 'IT', 'ES', 'AT', 'CH', 'BE'), digitsOf(2, 2), digitsOf(16, 22)).map(([c, k, n]) => `${c}${k}${n}`),
	fc.tuple(fc.constantFrom('DE', 'FR', 'ES', 'AT', 'PL'), digitsOf(2, 2), digitsOf(16, 24)).map(([c, k, n]) => `${c}${k} ${n.match(/.{1,4}/g)!.join(' ')}`),
	fc.tuple(fc.constantFrom('GB', 'NL', 'IE'), digitsOf(2, 2), fc.constantFrom('NWBK', 'ABNA', 'AIBK', 'BARC', 'RABO'), digitsOf(10, 14)).map(([c, k, b, n]) => `${c}${k} ${b} ${n.match(/.{1,4}/g)!.join(' ')}`),
	// Ids with digit runs (Luhn-valid card-shaped runs included).
	fc.tuple(fc.constantFrom('tok_', 'ord_', 'prd_', 'cus_', 'fp_', 'ord-', 'INV-', 'sku:', 'evt_', 'pi_'), fc.oneof(digitsOf(12, 19), cardArb.map((c) => c.number)), fc.constantFrom('', 'a', 'X9')).map(([p, n, t]) => `${p}${n}${t}`),
	fc.uuid(),
	fc.tuple(digitsOf(8, 8), digitsOf(4, 4), digitsOf(4, 4), digitsOf(4, 4), digitsOf(12, 12)).map((p) => p.join('-')),
	fc.uint8Array({ minLength: 16, maxLength: 32 }).map((b) => Buffer.from(b).toString('hex')),
	// Timestamps.
	fc.date({ min: new Date('2001-01-01'), max: new Date('2099-01-01'), noInvalidDate: true }).map((d) => d.toISOString()),
	fc.date({ min: new Date('2001-01-01'), max: new Date('2099-01-01'), noInvalidDate: true }).map((d) => d.toISOString().replace('T', ' ').replace('Z', '+02:00')),
	fc.integer({ min: 978307200000, max: 1999999999999 }).map(String),
	fc.tuple(fc.integer({ min: 978307200, max: 1999999999 }), digitsOf(6, 6)).map(([s, us]) => `${s}${us}`),
	// Prices.
	fc.tuple(fc.integer({ min: 0, max: 99_999_999 }), fc.integer({ min: 0, max: 99 })).map(([a, c]) => `$${a.toLocaleString('en-US')}.${pad(c)}`),
	fc.tuple(fc.integer({ min: 0, max: 99_999_999 }), fc.integer({ min: 0, max: 99 })).map(([a, c]) => `${a.toLocaleString('de-DE')},${pad(c)} €`),
	fc.tuple(fc.integer({ min: 0, max: 999_999_999 }), fc.integer({ min: 0, max: 99 })).map(([a, c]) => `${a.toLocaleString('fr-FR')},${pad(c)}\u00a0€`),
	fc.tuple(digitsOf(5, 12), digitsOf(2, 2)).map(([a, c]) => `USD ${a}.${c}`),
	// Order and tracking numbers.
	digitsOf(5, 10).map((n) => `Order #${n}`),
	fc.tuple(digitsOf(4, 4), digitsOf(4, 4)).map(([a, b]) => `order A-${a}-${b}`),
	digitsOf(20, 22).map((n) => `parcel ${n}`),
	fc.stringMatching(/^[0-9A-Z]{16}$/).map((s) => `1Z${s}`),
	// Luhn-valid numbers no issuer gives out.
	notIssuerArb,
];

const legitArb = fc
	.tuple(fc.array(fc.oneof(...LEGIT_ITEMS), { minLength: 1, maxLength: 5 }), fc.constantFrom('. ', '; ', ' | ', '\n', ', ', ' / '), fc.constantFrom('', 'Customer wrote: ', 'metadata: '))
	.map(([items, sep, before]) => before + items.join(sep));

// ---------------------------------------------------------------------------------------------
// The baseline: the Guardrails-style rule, 16 digits in four groups of four, no Luhn.

const BASELINE = /\b\d{4}[\s-]?\d{4}[\s-]?\d{4}[\s-]?\d{4}\b/g;
const baselineSpans = (text: string) => [...text.matchAll(BASELINE)].map((m) => ({ from: m.index, to: m.index + m[0].length }));

/** Whether every card of a presentation is covered by a found span, and its codes gone. */
function found(w: Written, spans: Array<{ from: number; to: number }>, codeOut?: string): boolean {
	const cards = w.at.every(([from, to]) => spans.some((s) => s.from <= from && s.to >= to));
	const codes = codeOut === undefined || w.codes.every((c) => !new RegExp(`(?<!\\d)${c}(?!\\d)`).test(codeOut));
	return cards && codes;
}

describe('(a) every card and code presentation of the grammar is found', () => {
	test(`${RUNS} generated card presentations (every issuer, length, printed grouping, separator, zero-width characters, line splits, labels, expiry and code after, two numbers)`, () => {
		check('card presentations', presentationArb, (w) => {
			expect({ text: w.text, found: found(w, cardSpans(w.text)) }).toEqual({ text: w.text, found: true });
			// Through the call sites: the free-form card-data pass and an error's reading.
			const out = withoutCardData({ message: w.text }, { freeForm: true }) as { message: string };
			expect(hasCardNumber(w.text)).toBe(true);
			for (const [from, to] of w.at) expect(out.message).not.toContain(w.text.slice(from, to));
			expect(redactCardNumberSpans(w.text, { mode: 'error' })).not.toContain(w.text.slice(w.at[0][0], w.at[0][1]));
		});
	});

	test(`${RUNS} generated security codes in prose and under field names`, () => {
		check('code presentations', codeTextArb, (w) => {
			const out = redactSecurityCodeText(w.text);
			expect({ text: w.text, found: found(w, [], out) }).toEqual({ text: w.text, found: true });
		});
	});

	test('every issuer and length of the table is in the grammar', () => {
		const seen = new Set(fc.sample(cardArb, { numRuns: 20_000, seed: SEED }).map((c) => `${c.issuer}/${c.length}`));
		expect(seen.size).toBe(new Set(KINDS.map((k) => `${k.issuer}/${k.length}`)).size);
	});
});

describe('(b) every legitimate text comes out byte for byte', () => {
	test(`${RUNS} generated texts of dates, date ranges, invoice and size lists, phone numbers, IBANs, ids, timestamps, prices, order numbers, Luhn-valid non-issuer numbers`, () => {
		check('legitimate corpus', legitArb, (text) => {
			expect({ text, spans: cardSpans(text) }).toEqual({ text, spans: [] });
			expect(redactCardNumbers(text)).toBe(text);
			const record = { message: text, metadata: { note: text } };
			expect(withoutCardData(record, { freeForm: true })).toBe(record);
		});
	});
});

describe('the digit count read before the detector (cardData.ts atLeastDigits)', () => {
	/** The text with its ASCII digits after the first `keep` left out: texts around both counts. */
	const keepDigits = (text: string, keep: number): string => {
		let seen = 0;
		return text.replace(/[0-9]/g, (d) => (++seen <= keep ? d : ''));
	};
	const around = fc
		.tuple(fc.oneof(presentationArb.map((w) => w.text), codeTextArb.map((w) => w.text), legitArb), fc.nat(20))
		.map(([text, keep]) => keepDigits(text, keep));

	test(`${RUNS} generated texts cut to 0 to 20 digits (presentations, codes, the legitimate corpus): the counted calls answer as the detector alone, and the count is exact`, () => {
		let below = 0;
		let found = 0;
		check('digit counts', around, (text) => {
			const digits = text.replace(/[^0-9]/g, '').length;
			expect(atLeastDigits(text, CARD_NUMBER_MIN_DIGITS)).toBe(digits >= CARD_NUMBER_MIN_DIGITS);
			expect(atLeastDigits(text, SECURITY_CODE_MIN_DIGITS)).toBe(digits >= SECURITY_CODE_MIN_DIGITS);
			const cards = redactCardNumberSpans(text, { mode: 'text' });
			const codes = redactSensitiveText(text, { values: false });
			expect(redactCardNumbers(text)).toBe(cards);
			expect(redactSecurityCodeText(text)).toBe(codes);
			if (digits < CARD_NUMBER_MIN_DIGITS) below++;
			if (cards !== text || codes !== text) found++;
		});
		// Both kinds occur: texts below the card count, and texts the detector changes.
		expect(below).toBeGreaterThan(RUNS / 10);
		expect(found).toBeGreaterThan(RUNS / 10);
	});
});

describe('every name the security-code scan reads, in both cases (its word-ending test before the expression)', () => {
	const NAMES = ['cvc', 'cvv2', 'cvc3', 'csc', 'cvn', 'cvd', 'cid', 'cav', 'cve', 'spc', 'card code', 'security code', 'verification value', 'card verification number', 'card verification', 'cvv_code', 'cvcValue', 'card_cvc_number'];
	test.each(NAMES.flatMap((name) => (name === name.toLowerCase() ? [name, name.toUpperCase()] : [name])))('"%s: 737" loses its code, in text and in an error', (name) => {
		expect(redactSecurityCodeText(`${name}: 737`)).toBe(`${name}: [redacted]`);
		expect(redactSensitiveText(`${name}: 737`, { values: true })).not.toContain('737');
	});
	test('an error loses the value after "authorization" in both cases; a text keeps it (control: not a code name)', () => {
		for (const name of ['authorization', 'Authorization', 'AUTHORIZATION']) {
			expect(redactSensitiveText(`${name}: Bearer abc123`, { values: true })).toBe(`${name}: "[redacted]"`);
			expect(redactSecurityCodeText(`${name}: 737`)).toBe(`${name}: 737`);
		}
	});
});

describe('the review\'s cases', () => {
	test.each([
		['a number followed by its expiry and code', '4242 4242 4242 4242 12/27 123', '4242 4242 4242 4242'],
		['two numbers joined by a separator', '4242 4242 4242 4242 5555 5555 5555 4444', '5555 5555 5555 4444'],
		['French grouping with U+00A0', 'carte 4242\u00a04242\u00a04242\u00a04242', '4242\u00a04242'],
		['grouping with U+202F', '4242\u202f4242\u202f4242\u202f4242', '4242\u202f4242'],
		['grouping with U+2009', '4242\u20094242\u20094242\u20094242', '4242\u20094242'],
		['zero-width characters between digits', '4\u200b2\u200c4\u200d2\u20604\ufeff242424242424', '424242424242'],
		['a number split over two lines', 'card 4242 4242\n4242 4242 thanks', '4242 4242\n4242'],
		['a number split over two lines after its first group at a wrapped line', 'Please charge the card on file for this order, its number is 4242\n4242 4242 4242', '4242\n4242'],
		['an unseparated number split over two lines at a wrapped line', 'Please charge the card on file for this order, its number is 42424242\n42424242', '42424242\n4242'],
		['a label stuck to the digits', 'PAN4242424242424242', '4242424242424242'],
		['card: stuck to the digits', 'card:4242424242424242', '4242424242424242'],
	])('found: %s', (_name, text, gone) => {
		expect(redactCardNumbers(text)).not.toContain(gone);
	});

	test.each([
		// Each of these four was redacted before: the old scanner chained the numbers into one Luhn-valid run.
		['a date range', '2024 0106 - 2024 0108'],
		['a date range of unseparated dates', '20240101 - 20240131'],
		['a list of invoice numbers', 'invoices 400117 400151 400219'],
		['a list of sizes', 'sizes 38 38 42 42 44 46 48'],
		['another list of sizes', 'sizes 41 40 40 50 51 51'],
		['a grouped IBAN with a bank code of letters', 'GB29 NWBK 6016 1331 9268 19'],
		['a grouped IBAN', 'DE89 3704 0044 0532 0130 00'],
		['an id with a card-shaped run', 'tok_4242424242424242'],
		['an order id', 'ord-4242424242424242'],
		['a Luhn-valid number no issuer gives out', '1234 5678 9012 3452'],
		['a Visa prefix with a length Visa does not give out', '42424242424242'],
		['a card-shaped run inside a longer run of groups', '1234 4242 4242 4242 4242'],
	])('unchanged: %s', (_name, text) => {
		expect(redactCardNumbers(text)).toBe(text);
		const record = { metadata: { note: text } };
		expect(withoutCardData(record, { freeForm: true })).toBe(record);
	});

	// The standing-alone rules at the edges of a chain of digit groups (findCards), each both ways:
	// the text comes out exactly as written here, the card number replaced or not at all.
	test.each([
		['after a shorter group joined by another separator', 'room 12 4242-4242-4242-4242', 'room 12 <card>'],
		['after a group of 12 digits or more and a dash (not an id\'s part)', '123456789012-4242424242424242', '123456789012-<card>'],
		['after a group of 13 digits and a dash', '1234567890123-4242424242424242', '1234567890123-<card>'],
		['with a 3-digit code after a dash', '4242424242424242-123', '<card>-123'],
		['with a 4-digit code after a dash', '4242424242424242-1234', '<card>-1234'],
		['with a code after a dash, then a space and more', '4242424242424242-123 4567', '<card>-123 4567'],
		['with a group of 12 digits or more after a dash', '4242424242424242-123456789012', '<card>-123456789012'],
		['two numbers joined by a dash, the second grouped by dashes', '4242424242424242-5555-5555-5555-4444', '<card>-<card>'],
		['before a space and letters', '4242424242424242 ab', '<card> ab'],
	])('a chain\'s edge, found: %s', (_name, text, out) => {
		expect(redactCards(text, '<card>')).toBe(out);
	});

	test.each([
		['after an id\'s part of fewer than 12 digits and a dash', '12345678901-4242424242424242'],
		['followed by a dash and 2 digits', '4242424242424242-12'],
		['followed by a dash and 1 digit', 'ref 4242424242424242-7'],
		['followed by a dot and 2 digits (a decimal)', 'paid 4242424242424242.12'],
		['followed by a dot and 5 digits (a decimal)', '4242424242424242.12345'],
		['followed by a dash and 11 digits', '4242424242424242-12345678901'],
		['followed by a code-sized group and another dash-joined group (an id)', '4242424242424242-123-4567'],
		['glued to letters after it', '4242424242424242ab'],
		['grouped, glued to a letter after it', 'x 4242 4242 4242 4242x'],
	])('a chain\'s edge, unchanged: %s', (_name, text) => {
		expect(redactCards(text, '<card>')).toBe(text);
		expect(cardSpans(text)).toEqual([]);
	});

	test.each([
		['my CVC is 123'],
		['CVV code: 1234'],
		['the card verification value is 123'],
	])('a security code in prose goes: %s', (text) => {
		expect(redactSecurityCodeText(text)).toMatch(/\[redacted\]$/);
	});

	test('fields whose name holds a security-code word go when shaped as a code; flags stay', () => {
		const record = { cvv_code: '123', cvcValue: 1234, card_cvc_number: '737', requireCvc: true, cvcCheck: 'pass', cvc_status: 'ok', plan: 'gold' };
		expect(withoutCardData(record, { freeForm: false })).toEqual({ requireCvc: true, cvcCheck: 'pass', cvc_status: 'ok', plan: 'gold' });
		expect(withoutCardData(record, { freeForm: false, keepCardNumbers: true, anyCodeName: true })).toEqual({ requireCvc: true, cvcCheck: 'pass', cvc_status: 'ok', plan: 'gold' });
	});
});

describe('figures: recall on the presentation grammar, false-positive rate on the legitimate corpus', () => {
	test('the detector against the Guardrails-style rule (printed; quoted in docs/security.md)', () => {
		const size = runSize(2000, 20_000);
		const cards = fc.sample(presentationArb, { numRuns: size, seed: SEED });
		const codes = fc.sample(codeTextArb, { numRuns: size, seed: SEED });
		const legit = fc.sample(legitArb, { numRuns: size, seed: SEED });
		const rate = (hits: number, of: number) => `${((100 * hits) / of).toFixed(2)} % (${hits} of ${of})`;
		const ours = {
			cards: cards.filter((w) => found(w, cardSpans(w.text))).length,
			codes: codes.filter((w) => found(w, [], redactSecurityCodeText(w.text))).length,
			falsePositives: legit.filter((t) => cardSpans(t).length > 0).length,
		};
		const baseline = {
			cards: cards.filter((w) => found(w, baselineSpans(w.text))).length,
			// The rule has no security-code check: a code is found only where a card-number match covers it.
			codes: codes.filter((w) => found(w, [], w.text.replace(BASELINE, '[redacted]'))).length,
			falsePositives: legit.filter((t) => baselineSpans(t).length > 0).length,
		};
		const plain = cards.filter((w) => w.plain === true);
		const plainFound = { ours: plain.filter((w) => found(w, cardSpans(w.text))).length, baseline: plain.filter((w) => found(w, baselineSpans(w.text))).length };
		const lines = [
			`card-data detector figures (seed ${SEED}, ${size} texts per corpus):`,
			`  detector:        card recall ${rate(ours.cards, size)}, code recall ${rate(ours.codes, size)}, false positives ${rate(ours.falsePositives, size)}`,
			`  Guardrails rule: card recall ${rate(baseline.cards, size)}, code recall ${rate(baseline.codes, size)}, false positives ${rate(baseline.falsePositives, size)}`,
			`  plain 16-digit presentations (fours with an ASCII space or dash, or none; no zero-width character or line break): detector ${rate(plainFound.ours, plain.length)}, Guardrails rule ${rate(plainFound.baseline, plain.length)}`,
		];
		// eslint-disable-next-line no-console
		console.log(lines.join('\n'));
		expect(ours.cards).toBe(size);
		expect(ours.codes).toBe(size);
		expect(ours.falsePositives).toBe(0);
	});
});
