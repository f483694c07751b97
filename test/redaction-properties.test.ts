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

const SEED = Number(process.env.PROPERTY_SEED ?? 340034);
const RUNS = 2500;

function check<T>(name: string, arbitrary: fc.Arbitrary<T>, predicate: (value: T) => void): void {
	try {
		fc.assert(fc.property(arbitrary, predicate), { numRuns: RUNS, seed: SEED });
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
