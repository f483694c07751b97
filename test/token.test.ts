import type { IDataObject } from 'n8n-workflow';

import { items, jsonOf, useSandbox } from './support/fixtures';
import type { RunResult } from './support/harness';

const f = useSandbox({ orders: 5 });

const CARD = '4242424242424242';
const CARD_2 = '5555555555554444';
const CVC = '987';
/** The CVC as a value of its own, not digits inside a timestamp or an id (e.g. "04:18:14.987Z"). */
const CVC_IN_TEXT = new RegExp(`(?<![\\w.])${CVC}(?!\\w)`);
const NEXT_YEARS = String(new Date().getUTCFullYear() + 3);
const IN_30_DAYS = () => new Date(Date.now() + 30 * 86_400_000).toISOString();

const vaultRoot = () => `/v2/workspaces/${f.sb.vault.workspaceId}/vaults/${f.sb.vault.vaultId}`;
const byId = (value: string) => ({ __rl: true, mode: 'id', value });
const byExpression = (value: string) => ({ __rl: true, mode: 'id', value: `={{ ${JSON.stringify(value)} }}` });

function card(extra: IDataObject = {}): IDataObject {
	return {
		resource: 'token',
		operation: 'create',
		tokenType: 'card',
		cardNumber: CARD,
		expMonth: '12',
		expYear: NEXT_YEARS,
		...extra,
	};
}

async function createCard(extra: IDataObject = {}): Promise<IDataObject> {
	const r = await f.run(card(extra));
	expect(r.error()).toBeUndefined();
	return jsonOf(r)[0];
}

function errorText(r: RunResult): string {
	const e = r.error();
	return `${e?.message ?? ''} ${e?.description ?? ''}`;
}

/** The error of a run, with zero requests at the sandbox. */
function refusedLocally(r: RunResult): string {
	expect(r.error()).toBeDefined();
	expect(f.requests()).toHaveLength(0);
	return errorText(r);
}

/** No run of 6+ digits (a card number or a part of one), and not the given values. */
function expectNoCardData(text: string, ...values: string[]): void {
	expect(text).not.toMatch(/\d[\d -]{5,}\d/);
	for (const value of values) expect(text).not.toContain(value);
}

describe('token create', () => {
	test('card: POST /tokens with the digits, the mask in the output, never the number', async () => {
		const r = await f.run(card({ cardNumber: '4242 4242-4242 4242', cvc: CVC }));
		expect(r.error()).toBeUndefined();
		const [req] = f.requests();
		expect(req.method).toBe('POST');
		expect(req.path).toBe(`${vaultRoot()}/tokens`);
		expect(req.body).toEqual({
			type: 'card',
			data: { number: CARD, exp_month: 12, exp_year: Number(NEXT_YEARS), cvc: CVC },
		});
		expect(req.status).toBe(201);
		expect(String(req.headers['idempotency-key'])).toMatch(/^[A-Za-z0-9_-]{1,255}$/);
		const [out] = jsonOf(r);
		expect(out).toMatchObject({ object: 'token', type: 'card', mask: { last4: '4242', brand: 'visa', exp_month: 12 } });
		expect(String(out.id)).toMatch(/^tok_/);
		expect(String(out.fingerprint)).toMatch(/^fp_/);
		expect(out).not.toHaveProperty('data');
		expect(JSON.stringify(out)).not.toContain(CARD);
		expect(JSON.stringify(out)).not.toMatch(CVC_IN_TEXT);
	});

	test('identical data gives identical fingerprints across two separate tokens', async () => {
		const a = await createCard({ cardNumber: CARD_2 });
		const b = await createCard({ cardNumber: CARD_2 });
		expect(a.id).not.toBe(b.id);
		expect(a.fingerprint).toBe(b.fingerprint);
		const c = await createCard({ cardNumber: CARD_2, expMonth: '11' });
		expect(c.fingerprint).not.toBe(a.fingerprint);
	});

	test('deduplicate returns the existing token instead of creating one', async () => {
		const first = await createCard({ cardNumber: '4000056655665556' });
		const before = f.sb.state.tokens.size;
		const r = await f.run(card({ cardNumber: '4000056655665556', additionalFields: { deduplicate: true } }));
		expect(r.error()).toBeUndefined();
		expect(jsonOf(r)[0].id).toBe(first.id);
		expect(f.requests()[0].body).toMatchObject({ deduplicate: true });
		expect(f.sb.state.tokens.size).toBe(before);
	});

	test('deduplicate off (default) is not sent, expiry and metadata are', async () => {
		const expires = IN_30_DAYS();
		const r = await f.run(
			card({
				additionalFields: {
					deduplicate: false,
					expiresAt: expires,
					metadata: { entries: [{ key: 'customer', value: 'cus_1' }, { key: 'source', value: 'n8n' }] },
				},
			}),
		);
		expect(r.error()).toBeUndefined();
		const body = f.requests()[0].body as IDataObject;
		expect(body).not.toHaveProperty('deduplicate');
		expect(body.expires_at).toBe(expires);
		expect(body.metadata).toEqual({ customer: 'cus_1', source: 'n8n' });
		expect(jsonOf(r)[0]).toMatchObject({ expires_at: expires, metadata: { customer: 'cus_1', source: 'n8n' } });
	});

	test('bank account and pii tokens send their data object and show only the mask', async () => {
		const bank = await f.run({
			resource: 'token',
			operation: 'create',
			tokenType: 'bank_account',
			data: JSON.stringify({ account_number: '000123456789', routing_number: '110000000', bank_name: 'Test Bank' }),
		});
		expect(bank.error()).toBeUndefined();
		expect(f.requests()[0].body).toEqual({
			type: 'bank_account',
			data: { account_number: '000123456789', routing_number: '110000000', bank_name: 'Test Bank' },
		});
		const [b] = jsonOf(bank);
		expect(b).toMatchObject({ type: 'bank_account', mask: { last4: '6789' } });
		expect(JSON.stringify(b)).not.toContain('000123456789');

		const pii = await f.run({ resource: 'token', operation: 'create', tokenType: 'pii', data: '{"value": "AB123456C"}' });
		expect(pii.error()).toBeUndefined();
		expect(f.requests()[0].body).toEqual({ type: 'pii', data: { value: 'AB123456C' } });
		expect(jsonOf(pii)[0]).not.toHaveProperty('data');
		expect(JSON.stringify(jsonOf(pii))).not.toContain('AB123456C');
	});

	test('pii and bank account data must be a JSON object, checked before sending (an empty one only warns)', async () => {
		for (const data of ['[1, 2]', '"text"', '{not json']) {
			const r = await f.run({ resource: 'token', operation: 'create', tokenType: 'pii', data });
			expect(refusedLocally(r)).toMatch(/"Data"/);
		}
		const empty = await f.run({ resource: 'token', operation: 'create', tokenType: 'pii', data: '{}' }, undefined, { continueOnFail: true });
		expect(empty.hints().map((h) => h.message)).toEqual([expect.stringMatching(/"Data" of a PII token is an empty object/)]);
		expect(f.requests()).toHaveLength(1);
		const r = await f.run({ resource: 'token', operation: 'create', tokenType: 'bank_account', data: '' });
		expect(refusedLocally(r)).toMatch(/"Data" is required/);
	});

	test('custom data: 16384 bytes of UTF-8 JSON is accepted, 16385 refused with zero requests', async () => {
		const ofBytes = (n: number) => ({ x: 'a'.repeat(n - '{"x":""}'.length) });
		expect(Buffer.byteLength(JSON.stringify(ofBytes(16384)))).toBe(16384);

		const ok = await f.run({ resource: 'token', operation: 'create', tokenType: 'custom', data: JSON.stringify(ofBytes(16384)) });
		expect(ok.error()).toBeUndefined();
		expect(f.requests()).toHaveLength(1);
		expect(f.requests()[0].status).toBe(201);
		expect(jsonOf(ok)[0]).toMatchObject({ type: 'custom' });
		expect(jsonOf(ok)[0]).not.toHaveProperty('data');

		const tooBig = await f.run({ resource: 'token', operation: 'create', tokenType: 'custom', data: JSON.stringify(ofBytes(16385)) });
		expect(refusedLocally(tooBig)).toMatch(/"Data" of a custom token must be at most 16 KiB \(16384 bytes\).*got 16385 bytes/);
	});

	test('custom data size counts UTF-8 bytes, not characters', async () => {
		const data = { x: 'é'.repeat(8189) }; // 8197 characters, 16386 bytes
		expect(JSON.stringify(data).length).toBeLessThan(16384);
		const r = await f.run({ resource: 'token', operation: 'create', tokenType: 'custom', data: JSON.stringify(data) });
		expect(refusedLocally(r)).toMatch(/got 16386 bytes/);
	});

	const now = new Date();
	const thisYear = now.getUTCFullYear();
	const thisMonth = now.getUTCMonth() + 1;
	// The spec gives card data without rules (exp_month and exp_year are integers): the node's own checks warn.
	const cardErrors: [string, IDataObject, RegExp][] = [
		['empty number (from an expression)', { cardNumber: '={{ "" }}' }, /"Card Number" is required/],
		['month 1.5', { expMonth: '1.5' }, /"Expiry Month" must be a whole number/],
		['year "next"', { expYear: 'next' }, /"Expiry Year" must be a whole number/],
	];
	const cardWarnings: [string, IDataObject, RegExp][] = [
		['Luhn failure', { cardNumber: '4242424242424241' }, /"Card Number" fails the Luhn check/],
		['too short', { cardNumber: '42424242424' }, /"Card Number" is not 12 to 19 digits/],
		['too long', { cardNumber: '42424242424242424242' }, /"Card Number" is not 12 to 19 digits/],
		['letters', { cardNumber: '4242 4242 4242 424x' }, /"Card Number" is not 12 to 19 digits/],
		['month 13', { expMonth: '13' }, /"Expiry Month" is not from 1 to 12/],
		['month 0', { expMonth: '0' }, /"Expiry Month" is not from 1 to 12/],
		['two-digit year', { expYear: '31' }, /"Expiry Year" is not a four-digit year/],
		['past year (a legacy import)', { expYear: String(thisYear - 1) }, /The card has expired/],
		['cvc of 2 digits', { cvc: '12' }, /"CVC" is not 3 or 4 digits/],
		['cvc of 5 digits', { cvc: '12345' }, /"CVC" is not 3 or 4 digits/],
		['cvc with letters', { cvc: '12a' }, /"CVC" is not 3 or 4 digits/],
	];
	if (thisMonth > 1) {
		cardWarnings.push(['past month of this year', { expYear: String(thisYear), expMonth: String(thisMonth - 1) }, /The card has expired/]);
	}

	test.each(cardErrors)('card check: %s is refused before sending, without the value', async (_, fields, message) => {
		const r = await f.run(card({ cvc: '4321', ...fields }));
		const text = refusedLocally(r);
		expect(text).toMatch(message);
		expectNoCardData(text, CARD, '4321');
	});

	test.each(cardWarnings)('card check: %s is sent with a warning that does not hold the value', async (_, fields, message) => {
		const r = await f.run(card({ cvc: '4321', ...fields }), undefined, { continueOnFail: true });
		expect(f.requests()).toHaveLength(1);
		const hints = r.hints().map((h) => h.message);
		expect(hints).toEqual([expect.stringMatching(message)]);
		expect(r.hints()[0].type).toBe('warning');
		expectNoCardData(hints.join(' '), CARD, '4242424242424241', '4321', ...Object.values(fields).map(String).filter((v) => v.length >= 3 && !/^\d{4}$/.test(v)));
		// Skip Local Checks silences it; the request is the same.
		const quiet = await f.run(card({ cvc: '4321', ...fields, options: { skipLocalChecks: true } }), undefined, { continueOnFail: true });
		expect(quiet.hints()).toEqual([]);
		expect(f.requests()).toHaveLength(1);
	});

	test('a card expiring this month is accepted', async () => {
		const r = await f.run(card({ expYear: String(thisYear), expMonth: String(thisMonth) }));
		expect(r.error()).toBeUndefined();
		expect(f.requests()[0].body).toMatchObject({ data: { exp_month: thisMonth, exp_year: thisYear } });
	});

	test('an expiry (expires_at) in the past is sent with a warning', async () => {
		const r = await f.run(card({ additionalFields: { expiresAt: '2020-01-01T00:00:00Z' } }), undefined, { continueOnFail: true });
		expect(r.hints().map((h) => h.message)).toEqual([expect.stringMatching(/"Expires At" is not in the future/)]);
		expect((f.requests()[0].body as IDataObject).expires_at).toBe('2020-01-01T00:00:00.000Z');
	});

	test('a 500 is retried with the same Idempotency-Key: one token is created', async () => {
		const before = f.sb.ledger.filter((e) => e.kind === 'tokenCreate').length;
		f.sb.faults.add({ kind: '500', count: 1, match: { method: 'POST', path: `${vaultRoot()}/tokens` } });
		const r = await f.run(card({ cardNumber: '6011111111111117' }));
		expect(r.error()).toBeUndefined();
		const reqs = f.requests();
		expect(reqs.map((q) => q.status)).toEqual([500, 201]);
		const keys = reqs.map((q) => q.headers['idempotency-key']);
		expect(keys[0]).toBeTruthy();
		expect(keys[1]).toBe(keys[0]);
		expect(f.sb.ledger.filter((e) => e.kind === 'tokenCreate').length - before).toBe(1);
		expect(jsonOf(r)).toHaveLength(1);
	});

	test('each item gets its own Idempotency-Key; the Options override is sent as given', async () => {
		const r = await f.run(
			{ ...card(), cardNumber: '={{ $json.n }}' },
			items({ n: '378282246310005' }, { n: '371449635398431' }),
		);
		expect(r.error()).toBeUndefined();
		const keys = f.requests().map((q) => q.headers['idempotency-key']);
		expect(keys).toHaveLength(2);
		expect(keys[0]).not.toBe(keys[1]);
		expect(jsonOf(r).map((t) => (t.mask as IDataObject).last4)).toEqual(['0005', '8431']);

		const own = await f.run(card({ cardNumber: '5105105105105100' }), undefined);
		expect(own.error()).toBeUndefined();
		const r2 = await f.run({ ...card({ cardNumber: '5105105105105100' }), options: { idempotencyKey: 'my-key_1' } });
		expect(r2.error()).toBeUndefined();
		expect(f.requests()[0].headers['idempotency-key']).toBe('my-key_1');
		// The same key again replays the first result instead of creating a second token.
		const r3 = await f.run({ ...card({ cardNumber: '5105105105105100' }), options: { idempotencyKey: 'my-key_1' } });
		expect(jsonOf(r3)[0].id).toBe(jsonOf(r2)[0].id);
		expect(jsonOf(r3)[0].idempotentReplay).toBe(true);
	});
});

describe('token get, reveal, delete', () => {
	test('get returns the token without data', async () => {
		const token = await createCard({ cvc: CVC });
		const r = await f.run({ resource: 'token', operation: 'get', tokenId: byId(String(token.id)) });
		expect(r.error()).toBeUndefined();
		const [req] = f.requests();
		expect(req.method).toBe('GET');
		expect(req.path).toBe(`${vaultRoot()}/tokens/${token.id}`);
		const [out] = jsonOf(r);
		expect(out).toMatchObject({ id: token.id, type: 'card', fingerprint: token.fingerprint, mask: { last4: '4242' } });
		expect(out).not.toHaveProperty('data');
	});

	test('a bad token id is refused before sending', async () => {
		const r = await f.run({ resource: 'token', operation: 'get', tokenId: byExpression('ord_123456789012') });
		expect(refusedLocally(r)).toMatch(/"Token ID" must start with "tok_"/);
	});

	test('reveal returns the data without the CVC that was stored, and writes the access log', async () => {
		const token = await createCard({ cvc: CVC });
		const logBefore = f.sb.vault.accessLog.length;
		const r = await f.run({ resource: 'token', operation: 'reveal', tokenId: byId(String(token.id)) });
		expect(r.error()).toBeUndefined();
		const [req] = f.requests();
		expect(req.method).toBe('POST');
		expect(req.path).toBe(`${vaultRoot()}/tokens/${token.id}/reveal`);
		const [out] = jsonOf(r);
		expect(out).toMatchObject({ object: 'token', id: token.id, type: 'card' });
		expect(out.data).toEqual({ number: CARD, exp_month: 12, exp_year: Number(NEXT_YEARS) });
		expect(JSON.stringify(out)).not.toMatch(/cvc/i);
		expect(JSON.stringify(out)).not.toMatch(CVC_IN_TEXT);
		expect(f.sb.vault.accessLog.length - logBefore).toBe(1);
		expect(f.sb.vault.accessLog[f.sb.vault.accessLog.length - 1]).toMatchObject({ tokenId: token.id, action: 'reveal' });
		// The CVC was stored (for one proxy use), it just never comes back from reveal.
		expect(f.sb.vault.useCvc(String(token.id))).toBe(CVC);
	});

	test('reveal strips a CVC even when the server sends one, in any case and at any depth', async () => {
		const token = await createCard();
		const record = f.sb.state.tokens.get(String(token.id))!;
		record.data = { ...record.data, CVC: '555', extra: { cvc: '556', Cvv: '557' } };
		const r = await f.run({ resource: 'token', operation: 'reveal', tokenId: byId(String(token.id)) });
		expect(r.error()).toBeUndefined();
		const sent = JSON.stringify(f.requests()).length; // the sandbox did answer
		expect(sent).toBeGreaterThan(0);
		const [out] = jsonOf(r);
		// A card's data is the fields the spec defines for it, nothing else (output-gate.test.ts has every spelling).
		expect(out.data).toEqual({ number: CARD, exp_month: 12, exp_year: Number(NEXT_YEARS) });
		// The codes, as values (a timestamp's milliseconds may hold the same digits).
		expect(JSON.stringify(out)).not.toMatch(/"55[567]"/);
		delete (record.data as IDataObject).CVC;
		delete (record.data as IDataObject).extra;
	});

	test('reveal with a key lacking tokens:reveal fails with a 403 that names the permission', async () => {
		const token = await createCard();
		const logBefore = f.sb.vault.accessLog.length;
		const credentials = {
			...f.credentials,
			vaultStoreVaultApi: { ...f.credentials.vaultStoreVaultApi, secretKey: f.sb.vault.noRevealKey },
		};
		const r = await f.run({ resource: 'token', operation: 'reveal', tokenId: byId(String(token.id)) }, undefined, { credentials });
		const error = r.error();
		expect(error?.message).toMatch(/not allowed.*403/);
		expect(errorText(r)).toMatch(/tokens:reveal/);
		expect(errorText(r)).not.toContain(f.sb.vault.noRevealKey);
		expect(f.requests().map((q) => q.status)).toEqual([403]);
		expect(f.sb.vault.accessLog.length).toBe(logBefore);
		// The same key may still read the token.
		const get = await f.run({ resource: 'token', operation: 'get', tokenId: byId(String(token.id)) }, undefined, { credentials });
		expect(get.error()).toBeUndefined();
	});

	test('delete outputs {object, id, deleted}; a deleted token can no longer be read or revealed', async () => {
		const token = await createCard({ cvc: CVC });
		const r = await f.run({ resource: 'token', operation: 'delete', tokenId: byId(String(token.id)) });
		expect(r.error()).toBeUndefined();
		const [req] = f.requests();
		expect(req.method).toBe('DELETE');
		expect(req.path).toBe(`${vaultRoot()}/tokens/${token.id}`);
		expect(jsonOf(r)).toEqual([{ object: 'token', id: token.id, deleted: true }]);

		for (const operation of ['get', 'reveal', 'update', 'delete']) {
			const again = await f.run({
				resource: 'token',
				operation,
				tokenId: byId(String(token.id)),
				updateFields: { setMetadata: { entries: [{ key: 'a', value: 'b' }] } },
			});
			expect(again.error()?.message).toMatch(/Not found.*404/);
			expect(errorText(again)).toMatch(/deleted/);
			expect(f.requests().map((q) => q.status)).toEqual([404]);
		}
		expect(f.sb.vault.useCvc(String(token.id))).toBeUndefined();
	});

	test('continueOnFail: an error item for the missing token, the next item goes on', async () => {
		const token = await createCard();
		const r = await f.run(
			{ resource: 'token', operation: 'get', tokenId: { __rl: true, mode: 'id', value: '={{ $json.id }}' } },
			items({ id: 'tok_doesnotexist0' }, { id: String(token.id) }),
			{ continueOnFail: true },
		);
		const out = jsonOf(r);
		expect(out).toHaveLength(2);
		expect(String(out[0].error)).toMatch(/404/);
		expect(out[1].id).toBe(token.id);
	});
});

describe('token update', () => {
	test('sets and removes metadata keys (removed keys sent as null)', async () => {
		const token = await createCard({ additionalFields: { metadata: { entries: [{ key: 'a', value: '1' }, { key: 'b', value: '2' }, { key: 'c', value: '3' }] } } });
		const r = await f.run({
			resource: 'token',
			operation: 'update',
			tokenId: byId(String(token.id)),
			updateFields: {
				setMetadata: { entries: [{ key: 'a', value: '9' }, { key: 'd', value: '4' }] },
				removeMetadataKeys: 'b, c',
			},
		});
		expect(r.error()).toBeUndefined();
		const [req] = f.requests();
		expect(req.method).toBe('PATCH');
		expect(req.path).toBe(`${vaultRoot()}/tokens/${token.id}`);
		expect(req.body).toEqual({ metadata: { a: '9', d: '4', b: null, c: null } });
		const [out] = jsonOf(r);
		expect(out.metadata).toEqual({ a: '9', d: '4' });
		expect(out).not.toHaveProperty('data');
	});

	test('sets the expiry, then clears it with expires_at: null', async () => {
		const token = await createCard();
		const expires = IN_30_DAYS();
		const set = await f.run({ resource: 'token', operation: 'update', tokenId: byId(String(token.id)), updateFields: { expiresAt: expires } });
		expect(set.error()).toBeUndefined();
		expect(f.requests()[0].body).toEqual({ expires_at: expires });
		expect(jsonOf(set)[0].expires_at).toBe(expires);

		const clear = await f.run({ resource: 'token', operation: 'update', tokenId: byId(String(token.id)), updateFields: { clearExpiry: true } });
		expect(clear.error()).toBeUndefined();
		expect(f.requests()[0].body).toEqual({ expires_at: null });
		expect(jsonOf(clear)[0].expires_at).toBeNull();
		expect(f.sb.state.tokens.get(String(token.id))!.expiresAt).toBeNull();
	});

	test('nothing to update, or clear and set expiry together, or a key both set and removed: refused before sending', async () => {
		const token = await createCard();
		const base = { resource: 'token', operation: 'update', tokenId: byId(String(token.id)) };
		expect(refusedLocally(await f.run({ ...base, updateFields: {} }))).toMatch(/Nothing to update.*Type and data of a token cannot be changed/s);
		expect(refusedLocally(await f.run({ ...base, updateFields: { clearExpiry: true, expiresAt: IN_30_DAYS() } }))).toMatch(
			/"Clear Expiry" and "Expires At" cannot be used together/,
		);
		expect(
			refusedLocally(
				await f.run({ ...base, updateFields: { setMetadata: { entries: [{ key: 'a', value: '1' }] }, removeMetadataKeys: 'a' } }),
			),
		).toMatch(/both name the key "a"/);
	});
});

describe('token getAll', () => {
	test('filters by type, fingerprint and metadata[key]=value; newest first; Limit applied by the node', async () => {
		const batch = `b${Date.now()}`;
		const meta = (i: number) => ({ metadata: { entries: [{ key: 'batch', value: batch }, { key: 'n', value: String(i) }] } });
		const created: IDataObject[] = [];
		for (let i = 0; i < 3; i++) created.push(await createCard({ cardNumber: '4111111111111111', additionalFields: meta(i) }));
		await f.run({ resource: 'token', operation: 'create', tokenType: 'pii', data: '{"value":"x1"}', additionalFields: meta(9) });

		const all = await f.run({
			resource: 'token',
			operation: 'getAll',
			returnAll: true,
			filters: { type: 'card', metadata: { entries: [{ key: 'batch', value: batch }] } },
		});
		expect(all.error()).toBeUndefined();
		const [req] = f.requests();
		expect(req.method).toBe('GET');
		expect(req.path).toBe(`${vaultRoot()}/tokens`);
		expect(req.query).toEqual({ type: 'card', metadata: { batch } });
		const out = jsonOf(all);
		expect(out.map((t) => t.id)).toEqual(created.map((t) => t.id).reverse());
		expect(out.every((t) => !('data' in t))).toBe(true);

		const two = await f.run({
			resource: 'token',
			operation: 'getAll',
			returnAll: false,
			limit: 2,
			filters: { metadata: { entries: [{ key: 'batch', value: batch }, { key: 'n', value: '1' }] } },
		});
		expect(jsonOf(two).map((t) => t.id)).toEqual([created[1].id]);
		expect(f.requests()[0].query).toEqual({ metadata: { batch, n: '1' } });

		const limited = await f.run({
			resource: 'token',
			operation: 'getAll',
			returnAll: false,
			limit: 2,
			filters: { fingerprint: String(created[0].fingerprint) },
		});
		expect(limited.error()).toBeUndefined();
		const q = f.requests()[0].query;
		expect(q).toEqual({ fingerprint: created[0].fingerprint });
		expect(q).not.toHaveProperty('limit');
		const got = jsonOf(limited);
		expect(got).toHaveLength(2);
		expect(got.every((t) => t.fingerprint === created[0].fingerprint)).toBe(true);
		expect(got.map((t) => t.id)).toEqual([created[2].id, created[1].id]);
	});

	test('the list wrapper is not shown: a bare array, {data: [...]} and {results: [...]} are all read; Limit applies', async () => {
		const tokens = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `tok_list${i}`, type: 'pii', fingerprint: `fp_${i}` }));
		const path = /\/tokens$/;
		for (const body of [tokens(3), { data: tokens(3) }, { results: tokens(3) }, { object: 'list', data: tokens(3), has_more: false }]) {
			f.sb.faults.add({ kind: 'reply', status: 200, match: { method: 'GET', path }, reply: { body } });
			const all = await f.run({ resource: 'token', operation: 'getAll', returnAll: true });
			expect([body, all.error()?.message]).toEqual([body, undefined]);
			expect(jsonOf(all).map((t) => t.id)).toEqual(['tok_list0', 'tok_list1', 'tok_list2']);
			expect(f.requests()).toHaveLength(1);
		}
		f.sb.faults.add({ kind: 'reply', status: 200, match: { method: 'GET', path }, reply: { body: tokens(5) } });
		const two = await f.run({ resource: 'token', operation: 'getAll', returnAll: false, limit: 2 });
		expect(jsonOf(two).map((t) => t.id)).toEqual(['tok_list0', 'tok_list1']);
		// A bare array of something else than records is still refused, clearly.
		f.sb.faults.add({ kind: 'reply', status: 200, match: { method: 'GET', path }, reply: { body: ['tok_1', 'tok_2'] } });
		const bad = await f.run({ resource: 'token', operation: 'getAll', returnAll: true });
		expect(bad.error()?.message).toMatch(/not what the API returns/);
		// A single token is still a JSON object: an array there is refused.
		f.sb.faults.add({ kind: 'reply', status: 200, match: { method: 'GET', path: /\/tokens\/tok_/ }, reply: { body: tokens(1) } });
		const one = await f.run({ resource: 'token', operation: 'get', tokenId: byId('tok_aaaaaaaaaaaa') });
		expect(one.error()?.description).toMatch(/expected a JSON object/);
	});

	test('a fingerprint without fp_ is refused before sending', async () => {
		const r = await f.run({ resource: 'token', operation: 'getAll', returnAll: true, filters: { fingerprint: 'abc_123' } });
		expect(refusedLocally(r)).toMatch(/"Fingerprint" must start with "fp_"/);
	});
});

describe('token metadata keeps its JSON types', () => {
	test('create: Metadata (JSON) {"n": 1, "b": true, "o": {"x": 1}} reaches the vault with its types', async () => {
		const metadata = { n: 1, b: true, o: { x: 1 } };
		const token = await createCard({ additionalFields: { metadataJson: JSON.stringify(metadata) } });
		expect((f.requests()[0].body as IDataObject).metadata).toEqual(metadata);
		expect(token.metadata).toEqual(metadata);
		expect(f.sb.state.tokens.get(String(token.id))!.metadata).toStrictEqual(metadata);
	});

	test('create: a pair value from an expression keeps its type, a typed-in value stays text; both fields merge', async () => {
		const token = await createCard({
			additionalFields: {
				metadata: { entries: [{ key: 'count', value: '={{ 5 }}' }, { key: 'flag', value: '={{ false }}' }, { key: 'zip', value: '01234' }] },
				metadataJson: '{"tags": ["a", "b"]}',
			},
		});
		const sent = (f.requests()[0].body as IDataObject).metadata;
		expect(sent).toStrictEqual({ count: 5, flag: false, zip: '01234', tags: ['a', 'b'] });
		expect(f.sb.state.tokens.get(String(token.id))!.metadata).toStrictEqual(sent);
	});

	test('create: a key in both Metadata and Metadata (JSON), or JSON that is not an object, is refused before sending', async () => {
		const both = await f.run(card({ additionalFields: { metadata: { entries: [{ key: 'n', value: '1' }] }, metadataJson: '{"n": 1}' } }));
		expect(refusedLocally(both)).toMatch(/"Metadata" and "Metadata \(JSON\)" both name the key "n"/);
		const list = await f.run(card({ additionalFields: { metadataJson: '[1, 2]' } }));
		expect(refusedLocally(list)).toMatch(/"Metadata \(JSON\)" must be a JSON object/);
	});

	test('update: Set Metadata (JSON) sends numbers, booleans and objects as they are; null removes a key', async () => {
		const token = await createCard({ additionalFields: { metadata: { entries: [{ key: 'old', value: 'x' }] } } });
		const r = await f.run({
			resource: 'token',
			operation: 'update',
			tokenId: byId(String(token.id)),
			updateFields: { setMetadataJson: '{"n": 2.5, "b": false, "o": {"y": [1]}, "old": null}' },
		});
		expect(r.error()).toBeUndefined();
		expect(f.requests()[0].body).toEqual({ metadata: { n: 2.5, b: false, o: { y: [1] }, old: null } });
		expect(jsonOf(r)[0].metadata).toStrictEqual({ n: 2.5, b: false, o: { y: [1] } });
	});

	test('getAll: the metadata filter still sends text (it matches top-level text values only)', async () => {
		const batch = `typed${Date.now()}`;
		const text = await createCard({ additionalFields: { metadata: { entries: [{ key: 'batch', value: batch }, { key: 'n', value: '7' }] } } });
		await createCard({ additionalFields: { metadataJson: JSON.stringify({ batch, n: 7 }) } });
		const r = await f.run({
			resource: 'token',
			operation: 'getAll',
			returnAll: true,
			filters: { metadata: { entries: [{ key: 'batch', value: batch }, { key: 'n', value: '={{ 7 }}' }] } },
		});
		expect(r.error()).toBeUndefined();
		expect(f.requests()[0].query).toEqual({ metadata: { batch, n: '7' } });
		expect(jsonOf(r).map((t) => t.id)).toEqual([text.id]);
	});
});

describe('vault ids: the prefix is the only rule (12 to 48 is for store path ids)', () => {
	test('a token id of tok_ + 60 characters is sent; the vault answers 404 for an unknown one', async () => {
		const id = `tok_${'a'.repeat(60)}`;
		const r = await f.run({ resource: 'token', operation: 'get', tokenId: byExpression(id) });
		const reqs = f.requests();
		expect(reqs.map((q) => [q.method, q.path, q.status])).toEqual([['GET', `${vaultRoot()}/tokens/${id}`, 404]]);
		expect(r.error()?.message).toMatch(/HTTP 404/);
	});

	test('credentials with workspace wks_abc and vault vlt_x are used as they are', async () => {
		const credentials = {
			...f.credentials,
			vaultStoreVaultApi: { ...f.credentials.vaultStoreVaultApi, workspaceId: 'wks_abc', vaultId: 'vlt_x' },
		};
		const r = await f.run({ resource: 'token', operation: 'get', tokenId: byExpression('tok_abc') }, undefined, { credentials });
		expect(f.requests().map((q) => [q.path, q.status])).toEqual([['/v2/workspaces/wks_abc/vaults/vlt_x/tokens/tok_abc', 404]]);
		expect(r.error()?.message).toMatch(/HTTP 404/);
	});

	test('a workspace id without wks_ is still refused before sending', async () => {
		const credentials = { ...f.credentials, vaultStoreVaultApi: { ...f.credentials.vaultStoreVaultApi, workspaceId: 'abc' } };
		const r = await f.run({ resource: 'token', operation: 'get', tokenId: byExpression('tok_abc') }, undefined, { credentials });
		expect(refusedLocally(r)).toMatch(/"Workspace ID" must start with wks_/);
	});

	test('a fingerprint filter of fp_ + 200 characters is sent (only the fp_ prefix is checked)', async () => {
		const fingerprint = `fp_${'f'.repeat(200)}`;
		const r = await f.run({ resource: 'token', operation: 'getAll', returnAll: true, filters: { fingerprint } });
		expect(r.error()).toBeUndefined();
		expect(f.requests()[0].query).toEqual({ fingerprint });
		expect(jsonOf(r)).toEqual([]);
	});
});

describe('token expiry (moves the sandbox clock; runs last)', () => {
	test('a token is gone once its expiry passes', async () => {
		const token = await createCard({ additionalFields: { expiresAt: new Date(Date.now() + 3_600_000).toISOString() } });
		const ok = await f.run({ resource: 'token', operation: 'get', tokenId: byId(String(token.id)) });
		expect(ok.error()).toBeUndefined();
		f.sb.clock.advance(2 * 3_600_000);
		const gone = await f.run({ resource: 'token', operation: 'reveal', tokenId: byId(String(token.id)) });
		expect(gone.error()?.message).toMatch(/404/);
		expect(errorText(gone)).toMatch(/expiry time passed/);
	});
});
