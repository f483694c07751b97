/**
 * Issue 34, property tests of the output gate (nodes/shared/redaction/): precise both ways.
 *
 * - Generated legitimate records (ids with long digit runs, Luhn-valid ones included, names,
 *   addresses, metadata sharing words with the token data the user gave as secret, hex
 *   checksums, timestamps) pass every policy unchanged.
 * - Generated echoes of every credential secret in every encoding (verbatim, split by
 *   separators, percent-encoded, base64, base64url, hex, hex and base64 of "Bearer <key>", as an
 *   object key, across list entries) never pass.
 *
 * Thousands of cases per run, seeded: PROPERTY_SEED=<n> repeats a run; the seed is printed on failure.
 * The node-level tests (output-gate.test.ts) run the same gate through execute() in n8n-core.
 */
import fc from 'fast-check';
import type { IDataObject } from 'n8n-workflow';

import { luhnValid } from '../nodes/shared/redaction/cardData';
import type { OutputPolicy } from '../nodes/shared/redaction/gate';
import { gateOutput } from '../nodes/shared/redaction/gate';
import { Redactor } from '../nodes/shared/redaction/secrets';
import { runSize } from './support/run-size';

const SEED = Number(process.env.PROPERTY_SEED ?? 340034);
const RUNS = runSize(400, 2500);

function check<T>(name: string, arbitrary: fc.Arbitrary<T>, predicate: (value: T) => void, runs = RUNS): void {
	try {
		fc.assert(fc.property(arbitrary, predicate), { numRuns: runs, seed: SEED });
	} catch (error) {
		// The seed repeats the run: PROPERTY_SEED=<seed> npx jest test/redaction-properties.test.ts
		throw new Error(`${name} failed with PROPERTY_SEED=${SEED}\n${error instanceof Error ? error.message : String(error)}`);
	}
}

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'.split('');
const base62 = (min: number, max: number) => fc.array(fc.constantFrom(...BASE62), { minLength: min, maxLength: max }).map((chars) => chars.join(''));

/** Credential secrets shaped as the service issues them. */
const secretArb = fc.oneof(
	base62(24, 40).map((s) => `sk_live_${s}`),
	base62(24, 40).map((s) => `sk_vault_${s}`),
	base62(24, 40).map((s) => `stk_${s}`),
	fc.uint8Array({ minLength: 24, maxLength: 32 }).map((bytes) => `whsec_${Buffer.from(bytes).toString('base64')}`),
);

/** A Luhn-valid digit run of `length` starting with 4 (shaped as a card number). */
function luhnDigits(seed: number[], length: number): string {
	let body = '4' + seed.slice(0, length - 2).map((d) => String(d % 10)).join('');
	while (body.length < length - 1) body += '7';
	for (let check = 0; check < 10; check++) if (luhnValid(body + check)) return body + check;
	return body + '0';
}
const digits = fc.array(fc.nat(9), { minLength: 20, maxLength: 20 });
const luhnRunArb = fc.tuple(digits, fc.integer({ min: 12, max: 19 })).map(([seed, length]) => luhnDigits(seed, length));
const digitRunArb = fc.oneof(luhnRunArb, fc.stringMatching(/^[0-9]{12,24}$/));

const WORDS = ['Margaret', 'Hamilton', 'Elmwood', 'Street', 'Springfield', 'customer', 'priority', 'Avenue', 'Berlin', 'Müller', 'order', 'gift', 'wrap', 'north', 'warehouse', 'Ada', 'Lovelace', 'Sandbox', 'vault', 'live', 'test', 'store'];
const wordsArb = fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 5 }).map((w) => w.join(' '));
const addressArb = fc.tuple(fc.integer({ min: 1, max: 9999 }), wordsArb, fc.stringMatching(/^[0-9]{5}$/)).map(([n, w, zip]) => `${n} ${w}, ${zip}`);
const hexArb = fc.uint8Array({ minLength: 16, maxLength: 32 }).map((b) => Buffer.from(b).toString('hex'));
const prefixArb = fc.constantFrom('tok_', 'fp_', 'ord_', 'cus_', 'evt_', 'dsp_', 'pay_', 'ord-', 'INV-', 'sku:');
const idArb = fc.tuple(prefixArb, digitRunArb, fc.oneof(fc.constant(''), base62(0, 8))).map(([p, run, tail]) => `${p}${run}${tail}`);
const isoArb = fc.date({ min: new Date('2001-01-01'), max: new Date('2099-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
const msArb = fc.integer({ min: 978307200000, max: 1999999999999 });

/** A legitimate record: what a store or vault answer holds, nothing secret in it. */
const recordArb = fc.record({
	object: fc.constantFrom('token', 'order', 'dispute', 'event'),
	id: idArb,
	fingerprint: fc.tuple(digitRunArb, hexArb).map(([run, hex]) => `fp_${run}${hex}`),
	created_at: isoArb,
	metadata: fc.record({
		customer: wordsArb,
		address: addressArb,
		order: idArb,
		checksum: hexArb,
		sha: hexArb.map((h) => h.toUpperCase()),
		seen_ms: msArb,
		seen_text: msArb.map(String),
		refs: fc.array(idArb, { maxLength: 4 }),
		amount: fc.integer({ min: 0, max: 10_000_000 }),
		note: fc.tuple(wordsArb, idArb).map(([w, id]) => `${w} (${id})`),
		// Shares the readable part of a key (its prefix): not a secret.
		slug: fc.tuple(fc.constantFrom('sk_live_', 'sk_vault_', 'whsec_', 'live_', 'vault-'), wordsArb).map(([p, w]) => `${p}${w.replace(/ /g, '_')}`),
	}),
});

/** Token data the user gave as secret: shares words with the metadata. */
const userSecretArb = fc.tuple(wordsArb, addressArb).map(([name, address]) => ({ value: `${name}, ${address}` }));

describe('legitimate records pass every policy unchanged', () => {
	const policies: OutputPolicy[] = ['store', 'vault', 'vault-custom'];
	test.each(policies)(`%s policy: ${RUNS} generated records, credential secrets and token data known to the redactor`, (policy) => {
		let cases = 0;
		check(`legitimate records (${policy})`, fc.tuple(recordArb, fc.array(secretArb, { minLength: 1, maxLength: 4 }), userSecretArb), ([record, secrets, userData]) => {
			cases++;
			const redactor = new Redactor(secrets);
			redactor.addValue(userData);
			redactor.addValue(JSON.stringify(userData));
			const [out] = gateOutput([{ json: record as unknown as IDataObject }], policy, redactor);
			expect(out.json).toEqual(record);
		});
		expect(cases).toBe(RUNS);
	});
});

type Form = 'verbatim' | 'split' | 'percent' | 'base64' | 'base64url' | 'base64-shifted' | 'base64-split' | 'hex' | 'HEX' | 'bearer-hex' | 'bearer-base64' | 'bearer-base64url' | 'key' | 'list';
const FORMS: Form[] = ['verbatim', 'split', 'percent', 'base64', 'base64url', 'base64-shifted', 'base64-split', 'hex', 'HEX', 'bearer-hex', 'bearer-base64', 'bearer-base64url', 'key', 'list'];
const SEPARATORS = [' ', '  ', ', ', '; ', ' | ', '\n', '.', '-', '/', '", "'];

const chunks = (text: string, size: number): string[] => text.match(new RegExp(`[\\s\\S]{1,${size}}`, 'g')) ?? [];
const percent = (text: string): string => [...Buffer.from(text)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');

/** The record with `secret` echoed in `form`, at a generated place. */
function echo(record: IDataObject, secret: string, form: Form, size: number, sep: string, before: string, after: string): IDataObject {
	const text = (inner: string) => `${before}${inner}${after}`;
	const metadata = { ...(record.metadata as IDataObject) };
	switch (form) {
		case 'verbatim': metadata.echo = text(secret); break;
		case 'split': metadata.echo = text(chunks(secret, size).join(sep)); break;
		case 'percent': metadata.echo = text(percent(secret)); break;
		case 'base64': metadata.echo = text(Buffer.from(secret).toString('base64')); break;
		case 'base64url': metadata.echo = text(Buffer.from(secret).toString('base64url')); break;
		// Encoded inside a longer text, off the 3-byte grid (the secret starts 1 or 2 bytes in).
		case 'base64-shifted': metadata.echo = text(Buffer.from(`${'x'.repeat(1 + (size % 2))}${secret}${after}`).toString('base64')); break;
		// Spread over separators, then encoded.
		case 'base64-split': metadata.echo = text(Buffer.from(`${sep}${chunks(secret, size).join(sep)}`).toString('base64url')); break;
		case 'hex': metadata.echo = text(Buffer.from(secret).toString('hex')); break;
		case 'HEX': metadata.echo = text(Buffer.from(secret).toString('hex').toUpperCase()); break;
		case 'bearer-hex': metadata.echo = text(Buffer.from(`Bearer ${secret}`).toString('hex')); break;
		case 'bearer-base64': metadata.echo = text(Buffer.from(`Bearer ${secret}`).toString('base64')); break;
		case 'bearer-base64url': metadata.echo = text(Buffer.from(`Bearer ${secret}`).toString('base64url')); break;
		case 'key': metadata[secret] = 'active'; break;
		case 'list': metadata.echo = chunks(secret, size); break;
	}
	return { ...record, metadata };
}

/** The forms a reader could recover `secret` from in `output`. */
function leaks(output: unknown, secret: string): string[] {
	const text = JSON.stringify(output);
	const joined = JSON.stringify(output, (_k, value: unknown) => (Array.isArray(value) && value.every((v) => typeof v === 'string') ? value.join('') : value));
	const bare = (s: string) => s.replace(/[\s.;,|"'`\\[\]{}()<>/:-]/g, '');
	const found: string[] = [];
	const encoded = [
		Buffer.from(secret).toString('base64').replace(/=+$/, ''),
		Buffer.from(secret).toString('base64url'),
		Buffer.from(secret).toString('hex'),
		Buffer.from(`Bearer ${secret}`).toString('hex'),
		Buffer.from(`Bearer ${secret}`).toString('base64').replace(/=+$/, ''),
		Buffer.from(`Bearer ${secret}`).toString('base64url'),
		percent(secret),
	];
	// The random part of the secret, 12 characters of it, as it is or with separators removed.
	const random = bare(secret.replace(/^[a-z]+_(?:[a-z]+_)?/, ''));
	for (let i = 0; i + 12 <= random.length; i += 4) {
		const piece = random.slice(i, i + 12);
		if (bare(text).includes(piece) || bare(joined).includes(piece)) found.push(`piece ${i}`);
	}
	// Any base64(url) word of the output, decoded at every shift: no 12 characters of the secret in it.
	for (const word of text.match(/[A-Za-z0-9+/_-]{12,}/g) ?? []) {
		const normal = word.replace(/-/g, '+').replace(/_/g, '/');
		for (let shift = 0; shift < 4; shift++) {
			const plain = bare(Buffer.from(normal.slice(shift), 'base64').toString('latin1'));
			for (let i = 0; i + 12 <= random.length; i += 4) if (plain.includes(random.slice(i, i + 12))) found.push(`base64 word at shift ${shift}`);
		}
	}
	for (const form of encoded) {
		for (const view of [text, joined]) {
			if (view.toLowerCase().includes(form.toLowerCase().slice(4, 28))) found.push(`encoded ${form.slice(0, 6)}`);
		}
	}
	return [...new Set(found)];
}

describe('echoes of every secret in every encoding never pass', () => {
	const policies: OutputPolicy[] = ['store', 'vault-custom', 'reveal'];
	test.each(policies)(`%s policy: ${RUNS} generated echoes of generated secrets in every form`, (policy) => {
		let cases = 0;
		const arb = fc.record({
			record: recordArb,
			secrets: fc.array(secretArb, { minLength: 1, maxLength: 3 }),
			which: fc.nat(),
			form: fc.constantFrom(...FORMS),
			size: fc.integer({ min: 2, max: 7 }),
			sep: fc.constantFrom(...SEPARATORS),
			before: fc.constantFrom('', ' ', 'key=', 'Authorization: Bearer ', '"', 'seen '),
			after: fc.constantFrom('', ' ', '"', ' was refused', ';'),
		});
		check(`secret echoes (${policy})`, arb, ({ record, secrets, which, form, size, sep, before, after }) => {
			cases++;
			const secret = secrets[which % secrets.length];
			const redactor = new Redactor(secrets);
			const input = echo(record as unknown as IDataObject, secret, form, size, sep, before, after);
			const [out] = gateOutput([{ json: input }], policy, redactor);
			expect(leaks(out.json, secret)).toEqual([]);
			// The record's own fields stay.
			expect(out.json.id).toBe(record.id);
			expect(out.json.created_at).toBe(record.created_at);
		});
		expect(cases).toBe(RUNS);
	});
});

/**
 * Nested inputs are large (lists of up to 1,500 entries, 12 levels): fewer cases per run than the
 * flat properties above; PROPERTY_RUNS=<n> sets the number (`npm run test:long` runs 500).
 */
const NESTED_RUNS = Number(process.env.PROPERTY_RUNS ?? runSize(150, 500));

/** `value` placed `depth` levels down, each level an object or a list of `width` entries. */
function nest(value: unknown, shape: Array<{ list: boolean; width: number; at: number }>): unknown {
	let out = value;
	for (const level of shape) {
		if (level.list) {
			const entries: unknown[] = Array.from({ length: level.width }, (_, i) => `entry ${i}`);
			entries[level.at % level.width] = out;
			out = entries;
		} else {
			out = { note: 'level', [`k${level.at}`]: out };
		}
	}
	return out;
}
const shapeArb = fc.array(fc.record({ list: fc.boolean(), width: fc.integer({ min: 1, max: 1500 }), at: fc.nat() }), { maxLength: 12 });

/** Legitimate values the gate must never change: names that hold a card word, flags, IBANs, phone and parcel numbers. */
const userDataArb = fc.record({
	giftCardNumber: luhnRunArb,
	requireCvc: fc.boolean(),
	cvcCheck: fc.constantFrom('pass', 'fail', 'unavailable'),
	iban: fc.tuple(fc.constantFrom('DE', 'FR', 'NL', 'GB'), fc.stringMatching(/^[0-9]{2}$/), fc.stringMatching(/^[0-9]{16,20}$/)).map(([c, k, n]) => `${c}${k}${n}`),
	ibanGrouped: fc.stringMatching(/^[0-9]{20}$/).map((n) => `DE89 ${n.match(/.{1,4}/g)!.join(' ')}`),
	phone: fc.stringMatching(/^[0-9]{9,13}$/).map((n) => `+${n}`),
	parcel: fc.stringMatching(/^[0-9]{20,22}$/),
	ups: fc.stringMatching(/^[0-9A-Z]{16}$/).map((s) => `1Z${s}`),
	note: fc.tuple(wordsArb, luhnRunArb).map(([w, run]) => `${w} ref-${run}`),
});

describe('at any depth and list length: legitimate user data passes byte for byte, echoes never pass', () => {
	test.each(['store', 'vault-custom'] as OutputPolicy[])(`%s policy: ${NESTED_RUNS} generated user records, nested up to 12 levels in lists of up to 1,500 entries, unchanged`, (policy) => {
		let cases = 0;
		check(`nested user data (${policy})`, fc.tuple(userDataArb, shapeArb, fc.array(secretArb, { minLength: 1, maxLength: 3 })), ([data, shape, secrets]) => {
			cases++;
			const input = { id: 'evt_000000000001', data: nest(data, shape) } as IDataObject;
			const copy = JSON.parse(JSON.stringify(input));
			const [out] = gateOutput([{ json: input }], policy, new Redactor(secrets));
			expect(JSON.stringify(out.json)).toBe(JSON.stringify(copy));
		}, NESTED_RUNS);
		expect(cases).toBe(NESTED_RUNS);
	});

	test.each(['store', 'vault-custom', 'store-agent'] as OutputPolicy[])(`%s policy: ${NESTED_RUNS} generated echoes of a key, verbatim, split across a list's entries or an object's values, nested anywhere`, (policy) => {
		let cases = 0;
		const arb = fc.record({ secret: secretArb, shape: shapeArb, form: fc.constantFrom('verbatim', 'list', 'object', 'base64'), size: fc.integer({ min: 2, max: 7 }) });
		check(`nested echoes (${policy})`, arb, ({ secret, shape, form, size }) => {
			cases++;
			const parts = chunks(secret, size);
			const echoed =
				form === 'verbatim' ? `seen ${secret}` : form === 'base64' ? Buffer.from(secret).toString('base64') : form === 'list' ? parts : Object.fromEntries(parts.map((part, i) => [`p${i}`, part]));
			const input = { id: 'evt_000000000001', data: nest(echoed, shape) } as IDataObject;
			const [out] = gateOutput([{ json: input }], policy, new Redactor([secret]));
			// Every leaf joined, object values included: no 12 characters of the key's random part.
			const leaves: string[] = [];
			const walk = (v: unknown): void => {
				if (typeof v === 'string') leaves.push(v);
				else if (v !== null && typeof v === 'object') Object.values(v).forEach(walk);
			};
			walk(out.json);
			const joined = leaves.join('');
			const random = secret.replace(/^[a-z]+_(?:[a-z]+_)?/, '');
			for (let i = 0; i + 12 <= random.length; i += 4) expect(joined).not.toContain(random.slice(i, i + 12));
			expect(leaks(out.json, secret)).toEqual([]);
			expect(out.json.id).toBe('evt_000000000001');
		}, NESTED_RUNS);
		expect(cases).toBe(NESTED_RUNS);
	});

	test.each(['vault-custom', 'store-agent'] as OutputPolicy[])(`%s policy: ${NESTED_RUNS} generated card numbers in text, in fours or unseparated, any separator and with a label, nested anywhere, never pass`, (policy) => {
		let cases = 0;
		// Card numbers as the detector's specification reads them (detector.ts): a Visa length, in fours
		// or unseparated, one kind of separator.
		const arb = fc.record({
			card: fc.tuple(digits, fc.constantFrom(13, 16, 19)).map(([seed, length]) => luhnDigits(seed, length)),
			shape: shapeArb,
			sep: fc.constantFrom('', ' ', '-', '.', '  ', ' - ', '\t', '\u00a0', '\u202f', '\u2009'),
			size: fc.constantFrom(4, 19),
			label: fc.constantFrom('', 'card ', 'PAN:', 'card:', 'number ', 'PAN', 'paid with '),
			asNumber: fc.boolean(),
		});
		check(`nested card numbers (${policy})`, arb, ({ card, shape, sep, size, label, asNumber }) => {
			cases++;
			const value = asNumber && Number.isSafeInteger(Number(card)) ? Number(card) : `${label}${chunks(card, size).join(sep)} was used`;
			const input = { id: 'evt_000000000001', data: nest({ message: value }, shape) } as IDataObject;
			const [out] = gateOutput([{ json: input }], policy, new Redactor([]));
			expect(JSON.stringify(out.json).replace(/[\s.\-/|\u00a0\u202f\u2009]/g, '')).not.toContain(card);
		}, NESTED_RUNS);
		expect(cases).toBe(NESTED_RUNS);
	});
});
