/**
 * Card data in records (nodes/shared/redaction/cardData.ts), rule by rule and both ways: what goes
 * (security-code fields, card-number fields, card numbers in free-form text and JSON numbers) and
 * what stays byte for byte (flags, look-alike values, ids, numbers under other names, the policy
 * that reads no free-form text, Token → Reveal's card numbers). Unit cases of the function every
 * success item passes (the output gate's withoutCardData): the mutation run's redaction group
 * (stryker.conf.mjs) runs them against each mutant of the rules (docs/reliability.md, "Mutation
 * testing").
 */
import { CUT_TOO_DEEP, isSecurityCodeField, MAX_DEPTH, REDACTED, withoutCardData } from '../nodes/shared/redaction/cardData';

const STORE = { freeForm: false } as const;
const FREE = { freeForm: true } as const;
/** Token → Reveal: card numbers stay, a field named as a code goes whatever its value but a flag. */
const REVEAL = { freeForm: false, keepCardNumbers: true, anyCodeName: true } as const;

const CARD = '4242424242424242';
/** Luhn-invalid, no issuer's prefix: a card number only by its field's name. */
const NOT_LUHN = '1234567890123456';

/** A value whose innermost object (or list) sits at `depth`, holding `leaf`. */
function nested(depth: number, list: boolean, leaf: unknown = 'ok'): unknown {
	let value: unknown = list ? [leaf] : { leaf };
	for (let i = 0; i < depth; i++) value = list ? [value] : { d: value };
	return value;
}
/** What sits `depth` levels down a value made by nested(). */
function at(value: unknown, depth: number, list: boolean): unknown {
	let v = value;
	for (let i = 0; i < depth; i++) v = list ? (v as unknown[])[0] : (v as { d: unknown }).d;
	return v;
}

describe('security-code fields: the value shaped as a code (3 or 4 digits, text or number, or a container holding one) goes', () => {
	const CODES: Array<[string, unknown]> = [
		['3 digits', '123'],
		['4 digits', '1234'],
		['digits with spaces around', ' 737 '],
		['a number', 123],
		['the smallest number', 0],
		['the largest number', 9999],
		['a container holding one among other fields', { value: '737', status: 'provided' }],
		['a list holding one', ['737']],
		['a container holding one four levels down', { a: { b: { c: { d: { e: '737' } } } } }],
	];
	test.each(CODES)('goes: %s', (_name, value) => {
		const record = { card_cvc: value, plan: 'gold' };
		for (const policy of [STORE, FREE, REVEAL]) expect(withoutCardData(record, policy)).toStrictEqual({ plan: 'gold' });
		// The record given is not changed.
		expect(record).toStrictEqual({ card_cvc: value, plan: 'gold' });
		expect(isSecurityCodeField('card_cvc', value)).toBe(true);
	});

	const NOT_CODES: Array<[string, unknown]> = [
		['2 digits', '12'],
		['5 digits', '12345'],
		['a letter before the digits', 'a123'],
		['a letter after the digits', '123a'],
		['digits and letters', '12ab'],
		['a word', 'pass'],
		['empty text', ''],
		['a number above 9999', 10000],
		['a negative number', -123],
		['-1', -1],
		['a fraction', 12.5],
		['a flag', true],
		['null', null],
		['no value', undefined],
		['a container without a code', { status: 'pass', checked: true }],
		['a container whose code sits five levels down', { a: { b: { c: { d: { e: { f: '737' } } } } } }],
	];
	test.each(NOT_CODES)('stays: %s (the same record comes back)', (_name, value) => {
		const record = { card_cvc: value, cvc_check: value, plan: 'gold' };
		expect(withoutCardData(record, STORE)).toBe(record);
		expect(withoutCardData(record, FREE)).toBe(record);
		expect(isSecurityCodeField('card_cvc', value)).toBe(false);
	});

	test('a code-shaped value under a name that is not a code\'s stays (amounts, quantities, ids)', () => {
		const record = { amount: 123, qty: '1234', pin_hint: 737, zip: '1010' };
		expect(withoutCardData(record, STORE)).toBe(record);
		expect(withoutCardData(record, FREE)).toBe(record);
		expect(isSecurityCodeField('amount', 123)).toBe(false);
	});
});

describe('Token → Reveal: a field named as a code goes whatever its value, but a flag; card numbers stay', () => {
	test('codes of any shape go, flags and card numbers stay', () => {
		const record = {
			number: CARD,
			card_number: Number(CARD),
			pan: NOT_LUHN,
			note: `card ${CARD}`,
			cvc: 'xyz',
			securityCode: { encrypted: 'abc' },
			cvv2: 12345,
			requireCvc: true,
			card_cvc: false,
			cvc_check: 'pass',
		};
		expect(withoutCardData(record, REVEAL)).toStrictEqual({
			number: CARD,
			card_number: Number(CARD),
			pan: NOT_LUHN,
			note: `card ${CARD}`,
			requireCvc: true,
			card_cvc: false,
			cvc_check: 'pass',
		});
	});

	test('control: without Reveal the same names keep a value not shaped as a code, and the card numbers go', () => {
		const record = { cvc: 'xyz', securityCode: { encrypted: 'abc' }, cvv2: 12345, requireCvc: 'always' };
		expect(withoutCardData(record, STORE)).toBe(record);
		expect(withoutCardData(record, FREE)).toBe(record);
		expect(withoutCardData({ number: CARD, card_number: Number(CARD), pan: NOT_LUHN }, STORE)).toStrictEqual({ number: REDACTED, card_number: REDACTED, pan: REDACTED });
	});
});

describe('card-number fields: 12 to 19 digits under a card-number name go; under `number` only when Luhn-valid', () => {
	const SURE = ['card_number', 'cardNumber', 'pan', 'cc_number'];
	const GO: Array<[string, string | number]> = [
		['Luhn-valid', CARD],
		['not Luhn-valid', NOT_LUHN],
		['12 digits', '123456789012'],
		['19 digits', '1234567890123456789'],
		['grouped', '1234 5678 9012 3456'],
		['a number', Number(CARD)],
		['a 12-digit number', 123456789012],
	];
	test.each(GO)('goes under card_number, cardNumber, pan, cc_number: %s', (_name, value) => {
		for (const name of SURE) expect(withoutCardData({ [name]: value, plan: 'gold' }, STORE)).toStrictEqual({ [name]: REDACTED, plan: 'gold' });
	});

	const STAY: Array<[string, unknown]> = [
		['a word', 'n/a'],
		['empty text', ''],
		['11 digits', '12345678901'],
		['20 digits', '12345678901234567890'],
		['a short number', 12345],
		['an 11-digit number', 12345678901],
		['a number past the safe integers', 1e20],
		['a fraction', 4242.42],
		['null', null],
		['a flag', true],
	];
	test.each(STAY)('stays under card_number, cardNumber, pan, cc_number: %s', (_name, value) => {
		for (const name of SURE) {
			const record = { [name]: value, plan: 'gold' };
			expect(withoutCardData(record, STORE)).toBe(record);
		}
	});

	test('`number` and `account_number`: a Luhn-valid value goes; another stays', () => {
		for (const name of ['number', 'account_number']) {
			expect(withoutCardData({ [name]: CARD }, STORE)).toStrictEqual({ [name]: REDACTED });
			expect(withoutCardData({ [name]: Number(CARD) }, STORE)).toStrictEqual({ [name]: REDACTED });
			const other = { [name]: NOT_LUHN, n: Number(NOT_LUHN) };
			expect(withoutCardData(other, STORE)).toBe(other);
		}
	});

	test('a list under a card-number name: each entry is read as that field', () => {
		const record = { card_number: [NOT_LUHN, CARD, 'n/a'] };
		expect(withoutCardData(record, STORE)).toStrictEqual({ card_number: [REDACTED, REDACTED, 'n/a'] });
	});
});

describe('free-form text and JSON numbers (free-form answers only), never under an id\'s name', () => {
	test('free-form: a card number standing alone in text and as a JSON number goes, a code after its name goes; the rest of the text stays', () => {
		const record = { message: `paid with 4242 4242 4242 4242 today`, note: 'my cvc: 123', raw: Number(CARD), n: Number(NOT_LUHN), plan: 'gold' };
		expect(withoutCardData(record, FREE)).toStrictEqual({ message: `paid with ${REDACTED} today`, note: `my cvc: ${REDACTED}`, raw: REDACTED, n: Number(NOT_LUHN), plan: 'gold' });
	});

	test('free-form: under an id\'s name (order_number, tracking_id, sku, reference) a card-shaped value stays, text or number', () => {
		const record = { order_number: CARD, tracking_id: Number(CARD), sku: '4242 4242 4242 4242', reference: `x ${CARD}` };
		expect(withoutCardData(record, FREE)).toBe(record);
	});

	test('the store policy reads no free-form text: a card number in text or as a JSON number under another name stays', () => {
		const record = { message: 'paid with 4242 4242 4242 4242', note: 'my cvc: 123', raw: Number(CARD), reference: CARD };
		expect(withoutCardData(record, STORE)).toBe(record);
	});

	test('a value without a field name (an error\'s name, a bare answer): read as free-form text or number', () => {
		expect(withoutCardData(`card ${CARD}`, FREE)).toBe(`card ${REDACTED}`);
		expect(withoutCardData(Number(CARD), FREE)).toBe(REDACTED);
		expect(withoutCardData('plain text 12345', FREE)).toBe('plain text 12345');
		expect(withoutCardData(42, FREE)).toBe(42);
		expect(withoutCardData(`card ${CARD}`, STORE)).toBe(`card ${CARD}`);
		expect(withoutCardData(Number(CARD), STORE)).toBe(Number(CARD));
		expect(withoutCardData(null, FREE)).toBe(null);
		expect(withoutCardData(true, FREE)).toBe(true);
	});
});

describe('the walk: nested records and lists, copies only where something went', () => {
	test('a code and a card number deep in records and lists go; the input is not changed', () => {
		const record = { a: { b: [{ cvc: '123', x: 1 }, { y: [CARD, 'plain'] }] }, keep: { z: 2 } };
		const before = JSON.stringify(record);
		const out = withoutCardData(record, FREE) as typeof record;
		expect(out).toStrictEqual({ a: { b: [{ x: 1 }, { y: [REDACTED, 'plain'] }] }, keep: { z: 2 } });
		expect(JSON.stringify(record)).toBe(before);
		// What had nothing to take out is the same object.
		expect(out.keep).toBe(record.keep);
	});

	test.each([
		['the first entry', [CARD, 'plain', 'more'], [REDACTED, 'plain', 'more']],
		['the last entry', ['plain', 'more', CARD], ['plain', 'more', REDACTED]],
		['two entries', [CARD, 'plain', CARD, 'more'], [REDACTED, 'plain', REDACTED, 'more']],
		['the only entry', [CARD], [REDACTED]],
		['a list in a list', [['plain', CARD]], [['plain', REDACTED]]],
	])('a list: %s taken out, the others kept in order, the length kept, the input list unchanged', (_name, list, expected) => {
		const input = JSON.parse(JSON.stringify(list)) as unknown[];
		expect(withoutCardData(input, FREE)).toStrictEqual(expected);
		expect(input).toStrictEqual(list);
	});

	test('a record or list with nothing to take out comes back as the same object (no copy)', () => {
		const list = ['a', 1, { x: 'y' }, [2, 3], null, true];
		expect(withoutCardData(list, FREE)).toBe(list);
		expect(withoutCardData(list, STORE)).toBe(list);
		const record = { list, inner: { order_number: CARD, requireCvc: true }, empty: [], none: {} };
		expect(withoutCardData(record, FREE)).toBe(record);
		expect(withoutCardData(record, STORE)).toBe(record);
		expect(withoutCardData([], FREE)).toStrictEqual([]);
	});

	test('a record whose only change is a code field left out is a copy without it', () => {
		const record = { cvc: '123', plan: 'gold' };
		const out = withoutCardData(record, STORE);
		expect(out).toStrictEqual({ plan: 'gold' });
		expect(out).not.toBe(record);
		expect(record).toStrictEqual({ cvc: '123', plan: 'gold' });
	});

	test.each([
		['records', false],
		['lists', true],
	])(`%s nested deeper than ${MAX_DEPTH} levels are cut there, saying so; ${MAX_DEPTH - 1} levels are read whole`, (_name, list) => {
		const within = nested(MAX_DEPTH - 1, list as boolean);
		expect(withoutCardData(within, FREE)).toBe(within);
		expect(withoutCardData(within, STORE)).toBe(within);
		const deep = nested(MAX_DEPTH, list as boolean);
		const out = withoutCardData(deep, FREE);
		expect(at(out, MAX_DEPTH, list as boolean)).toBe(CUT_TOO_DEEP);
		expect(at(out, MAX_DEPTH - 1, list as boolean)).not.toBe(CUT_TOO_DEEP);
		// A card number in the deepest level read still goes.
		const card = nested(MAX_DEPTH - 1, list as boolean, CARD);
		const cardOut = at(withoutCardData(card, FREE), MAX_DEPTH - 1, list as boolean);
		expect(cardOut).toStrictEqual(list ? [REDACTED] : { leaf: REDACTED });
	});
});
