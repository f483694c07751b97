/**
 * Issue 34: what leaves the node is exact. Every success item passes one output gate
 * (nodes/shared/redaction/gate.ts) whose policy follows the routes the item's requests went to:
 * no secret or card data on any path, nothing legitimate changed or dropped. Each test runs the
 * node's real execute() inside n8n-core against the sandbox's hostile mode over real HTTP.
 */
import type { IDataObject } from 'n8n-workflow';

import { digitIdRecord, luhnRun } from '../sandbox/hostileAnswers';
import { AGENT_ROUTES, runAsAgentTool } from './support/agent-routes';
import { jsonOf, useSandbox } from './support/fixtures';

const f = useSandbox({ orders: 30 });

const CARD = '4242424242424242';
const CVC = '737';
const NEXT_YEAR = String(new Date().getUTCFullYear() + 2);
const rl = (value: string) => ({ __rl: true, mode: 'id', value });
const vaultOnly = () => ({ vaultStoreVaultApi: f.credentials.vaultStoreVaultApi });
const custom = (params: IDataObject, options: Parameters<typeof f.run>[2] = {}) =>
	f.run({ resource: 'custom', operation: 'request', ...params }, undefined, options);

/** Every form the sandbox's 'echo-secrets' answer echoes `key` in, and the key itself. */
function echoForms(key: string): string[] {
	return [
		key,
		Buffer.from(key).toString('hex'),
		Buffer.from(`Bearer ${key}`).toString('hex'),
		Buffer.from(key).toString('base64url'),
		[...key].map((ch) => `%${ch.charCodeAt(0).toString(16).padStart(2, '0')}`).join(''),
	];
}

/** What of `key` an output still shows: any echo form, or the key once list entries are joined. */
function keyLeaks(output: unknown, key: string): string[] {
	const text = JSON.stringify(output);
	const joined = JSON.stringify(output, (_k, value: unknown) => (Array.isArray(value) && value.every((v) => typeof v === 'string') ? value.join('') : value));
	return echoForms(key).filter((form) => text.includes(form) || joined.includes(form));
}

/** Card data in an output: the card number in any grouping, or a field named like a security code. */
function cardLeaks(output: unknown): string[] {
	const text = JSON.stringify(output);
	const found: string[] = [];
	if (text.replace(/[\s.-]/g, '').includes(CARD)) found.push('card number');
	if (/"[^"]*(?:cvc|cvv|csc|security_?code)[^"]*"\s*:/i.test(text)) found.push('security-code field');
	if (new RegExp(`\\b${CVC}\\b`).test(text)) found.push('security code value');
	return found;
}

describe('a vault Custom API Call gets the vault policy (decided from the request as sent)', () => {
	test('a create whose answer echoes the card and the CVC: no card data in the item; the token id and mask stay', async () => {
		f.sb.faults.add({ kind: 'echo-success', match: { method: 'POST', path: /\/tokens$/ } });
		const body = JSON.stringify({ type: 'card', data: { number: CARD, exp_month: 12, exp_year: Number(NEXT_YEAR), cvc: CVC }, metadata: { customer: 'Ada' } });
		const r = await custom({ api: 'vault', method: 'POST', path: '/tokens', body, sendIdempotencyKey: true }, { credentials: vaultOnly() });
		expect(r.error()).toBeUndefined();
		// The answer really echoed it (the fault fired), and none of it reached the item.
		expect(f.requests()[0].status).toBe(201);
		const [json] = jsonOf(r);
		expect(json.id).toMatch(/^tok_/);
		expect(json.mask).toMatchObject({ last4: '4242' });
		expect(json.metadata).toEqual({ customer: 'Ada' });
		expect(cardLeaks(jsonOf(r))).toEqual([]);
		expect(keyLeaks(jsonOf(r), f.sb.vault.secretKey)).toEqual([]);
	});

	test('a reveal through the Custom API Call shows no card data (Token → Reveal is the operation for it)', async () => {
		const created = await f.run({ resource: 'token', operation: 'create', tokenType: 'card', cardNumber: CARD, expMonth: '12', expYear: NEXT_YEAR, cvc: CVC });
		const tokenId = String(jsonOf(created)[0].id);
		const r = await custom({ api: 'vault', method: 'POST', path: `/tokens/${tokenId}/reveal` }, { credentials: vaultOnly() });
		expect(r.error()).toBeUndefined();
		expect(f.requests()[0].status).toBe(200);
		expect(jsonOf(r)[0].id).toBe(tokenId);
		expect(cardLeaks(jsonOf(r))).toEqual([]);
	});

	test('a free-form vault answer (not a token): card numbers standing alone and security codes go, ids and timestamps stay', async () => {
		const id = `evt_${luhnRun('evt')}`;
		f.sb.faults.add({
			kind: 'reply',
			status: 200,
			match: { method: 'GET', path: /\/proxy-log$/ },
			reply: {
				body: [
					{ id, at_ms: 1764197095123, message: `charged card ${CARD.replace(/(\d{4})(?=\d)/g, '$1 ')} (cvc: ${CVC})`, card: { number: CARD, card_cvc: CVC }, ref: `ord_${luhnRun('ref')}` },
				],
			},
		});
		const r = await custom({ api: 'vault', method: 'GET', path: '/proxy-log' }, { credentials: vaultOnly() });
		expect(r.error()).toBeUndefined();
		const [json] = jsonOf(r);
		expect(cardLeaks(json)).toEqual([]);
		expect(json).toMatchObject({ id, at_ms: 1764197095123, ref: `ord_${luhnRun('ref')}` });
		expect(json.message).toBe('charged card [redacted] (cvc: [redacted])');
		expect(json.card).toEqual({ number: '[redacted]' });
	});
});

/** Token → Reveal of a new card token, the service answering the reveal with `answer(tokenId)`. */
async function revealAnswering(answer: (tokenId: string) => IDataObject) {
	const created = await f.run({ resource: 'token', operation: 'create', tokenType: 'card', cardNumber: CARD, expMonth: '12', expYear: NEXT_YEAR, cvc: CVC });
	const tokenId = String(jsonOf(created)[0].id);
	f.sb.faults.add({ kind: 'reply', status: 200, match: { method: 'POST', path: /\/reveal$/ }, reply: { body: answer(tokenId) } });
	return { tokenId, r: await f.run({ resource: 'token', operation: 'reveal', tokenId: rl(tokenId) }) };
}

describe('Token → Reveal keeps the data asked for and never a security code, under any name', () => {
	test('an answer with card_cvc, securityCode and CVV2 beside the number: the number stays, none of the codes', async () => {
		const { tokenId, r } = await revealAnswering((id) => ({ object: 'token', id, type: 'card', data: { number: CARD, exp_month: 12, card_cvc: CVC, securityCode: CVC, details: { CVV2: CVC } } }));
		expect(r.error()).toBeUndefined();
		// A card's data is what the spec defines for it (number, exp_month, exp_year): nothing else comes out.
		expect(jsonOf(r)[0]).toEqual({ object: 'token', id: tokenId, type: 'card', data: { number: CARD, exp_month: 12 } });
	});

	test.each(['cvn', 'CVN2', 'cid', 'cvd', 'card_verification_value', 'cardVerificationCode', 'spc', 'csc', 'x_security_number', 'unheard_of_field'])(
		'a card reveal whose data carries "%s": only number and expiry come out (an allow-list, not a list of names)',
		async (name) => {
			const { tokenId, r } = await revealAnswering((id) => ({
				object: 'token',
				id,
				type: 'card',
				data: { number: CARD, exp_month: 12, exp_year: Number(NEXT_YEAR), [name]: CVC },
				mask: { brand: 'visa', last4: '4242' },
				created_at: '2026-11-27T10:00:00Z',
			}));
			expect(r.error()).toBeUndefined();
			expect(jsonOf(r)[0]).toEqual({
				object: 'token',
				id: tokenId,
				type: 'card',
				data: { number: CARD, exp_month: 12, exp_year: Number(NEXT_YEAR) },
				mask: { brand: 'visa', last4: '4242' },
				created_at: '2026-11-27T10:00:00Z',
			});
		},
	);

	test('control: a custom token reveal keeps the user\'s own data, flags that name a code included', async () => {
		// A gift card number (Luhn-valid, not one of the payment test cards the suite's secret scan looks for).
		const data = { plan: 'gold', requireCvc: true, cvcCheck: 'pass', giftCardNumber: '4000000000000002' };
		const created = await f.run({ resource: 'token', operation: 'create', tokenType: 'custom', data: JSON.stringify(data) });
		const tokenId = String(jsonOf(created)[0].id);
		const r = await f.run({ resource: 'token', operation: 'reveal', tokenId: rl(tokenId) });
		expect(r.error()).toBeUndefined();
		expect(jsonOf(r)[0].data).toEqual(data);
	});
});

describe('token masks keep every field the service sends, after the card-data scan', () => {
	test('a PII mask with names the spec does not show comes out whole; a card number in a mask does not', async () => {
		const created = await f.run({ resource: 'token', operation: 'create', tokenType: 'pii', data: '{"value":"AB123456C"}' });
		const tokenId = String(jsonOf(created)[0].id);
		f.sb.faults.add({
			kind: 'reply',
			status: 200,
			match: { method: 'GET', path: /\/tokens\/tok_/ },
			reply: { body: { object: 'token', id: tokenId, type: 'pii', mask: { last_chars: '56C', format: 'national_id', hint: `was ${CARD}` }, metadata: {} } },
		});
		const r = await f.run({ resource: 'token', operation: 'get', tokenId: rl(tokenId) });
		expect(r.error()).toBeUndefined();
		expect(jsonOf(r)[0].mask).toEqual({ last_chars: '56C', format: 'national_id', hint: 'was [redacted]' });
	});
});

describe('store answers an AI agent reads get the free-form card scan (they go to a model provider)', () => {
	test.each(AGENT_ROUTES)('%s: a case message holding a card number and CVC reaches the agent without them; the same read by a workflow is unchanged', async (route) => {
		// A card the suite's secret scan does not list (the workflow's own read shows it, as it should).
		const card = '5454545454545454';
		const message = `Please charge my card ${card.replace(/(\d{4})(?=\d)/g, '$1 ')} security code 737 again, order ord_${luhnRun('ord')}`;
		const answer = { ok: true, data: { id: 'cs_000000000001', messages: [{ id: 'msg_000000000001', senderType: 'CUSTOMER', body: message, createdAt: '2026-11-27T10:00:00Z' }] } };
		f.sb.faults.add({ kind: 'reply', status: 200, match: { method: 'GET', path: /\/cases\/cs_000000000001$/ }, count: 2, reply: { body: answer } });
		const params = { resource: 'case', operation: 'get', caseId: rl('cs_000000000001') };
		const agent = await runAsAgentTool(route, params, {}, f.credentials);
		expect(agent.text).not.toContain('5454 5454');
		expect(agent.text).not.toMatch(/security code 737/);
		expect(agent.text).toMatch(/security code \[redacted\]/);
		expect(agent.text).toContain(`ord_${luhnRun('ord')}`);
		const plainRun = await f.run(params);
		expect((jsonOf(plainRun)[0].messages as IDataObject[])[0].body).toBe(message);
	});
});

describe('legitimate data passes unchanged', () => {
	test("a bank token's metadata is the same from Create as from Get, though it repeats the account data the user gave as secret", async () => {
		const iban = 'DE89370400440532013000';
		const metadata = { iban, phone: '+49 30 1234567', parcel: '00340434161094042557', note: `account ${iban} of Ada` };
		const created = await f.run({
			resource: 'token',
			operation: 'create',
			tokenType: 'bank_account',
			data: JSON.stringify({ account_number: iban, routing_number: '37040044', bank_name: 'Commerzbank' }),
			additionalFields: { metadata: { entries: Object.entries(metadata).map(([key, value]) => ({ key, value })) } },
		});
		expect(created.error()).toBeUndefined();
		const fromCreate = jsonOf(created)[0];
		const got = await f.run({ resource: 'token', operation: 'get', tokenId: rl(String(fromCreate.id)) });
		expect(jsonOf(got)[0].metadata).toEqual(metadata);
		expect(fromCreate.metadata).toEqual(metadata);
	});

	test('a token list whose ids, fingerprints and references hold long Luhn-valid digit runs comes back whole', async () => {
		for (let i = 0; i < 5; i++) {
			await f.run({ resource: 'token', operation: 'create', tokenType: 'pii', data: `{"value":"v${i}"}` });
		}
		f.sb.faults.add({ kind: 'digit-ids', match: { method: 'GET', path: /\/tokens$/ }, count: 20 });
		const r = await f.run({ resource: 'token', operation: 'getAll', returnAll: true });
		expect(r.error()).toBeUndefined();
		const out = jsonOf(r);
		expect(out.length).toBeGreaterThanOrEqual(5);
		const tokens = f.sb.state.tokens;
		for (const json of out) {
			expect(String(json.id)).toMatch(/^tok_4\d{15}/);
			const original = [...tokens.keys()].find((id) => digitIdRecord({ id }).id === json.id);
			expect(original).toBeDefined();
			const expected = digitIdRecord({ id: original!, metadata: tokens.get(original!)!.metadata });
			expect(json.fingerprint).toBe(expected.fingerprint);
			expect(json.metadata).toEqual(expected.metadata);
		}
	});

	test("a PII token whose metadata shares words with its data: the metadata comes back as the user gave it", async () => {
		const r = await f.run({
			resource: 'token',
			operation: 'create',
			tokenType: 'pii',
			data: JSON.stringify({ value: 'Margaret Hamilton, 42 Elmwood Street, Springfield, AB123456C' }),
			additionalFields: { metadata: { entries: [{ key: 'customer', value: 'Margaret Hamilton' }, { key: 'note', value: 'moved to 42 Elmwood Street, Springfield' }] } },
		});
		expect(r.error()).toBeUndefined();
		expect(jsonOf(r)[0].metadata).toEqual({ customer: 'Margaret Hamilton', note: 'moved to 42 Elmwood Street, Springfield' });
		expect(JSON.stringify(jsonOf(r))).not.toContain('AB123456C');
	});
});

describe('known secrets echoed in a success answer never pass, in any form', () => {
	test.each([
		['a store operation (Order → Get)', 'store'],
		['a vault operation (Token → Get)', 'vault'],
		['a store Custom API Call', 'custom-store'],
		['a vault Custom API Call', 'custom-vault'],
	])('%s: the key as an object key, split across a list, hex, hex of "Bearer <key>", base64url, %%-escaped', async (_label, path) => {
		let run: () => Promise<Awaited<ReturnType<typeof f.run>>>;
		let key: string;
		if (path === 'store' || path === 'custom-store') {
			const order = f.sb.state.orders[0];
			key = f.sb.store.secretKey;
			f.sb.faults.add({ kind: 'echo-secrets', match: { path: /\/orders\/[^/]+$/ } });
			run = path === 'store' ? () => f.run({ resource: 'order', operation: 'get', orderId: rl(order.id) }) : () => custom({ method: 'GET', path: `/v2/core/stores/{storeId}/orders/${order.id}` });
		} else {
			const created = await f.run({ resource: 'token', operation: 'create', tokenType: 'pii', data: '{"value":"echo"}' });
			const tokenId = String(jsonOf(created)[0].id);
			key = f.sb.vault.secretKey;
			f.sb.faults.add({ kind: 'echo-secrets', match: { method: 'GET', path: /\/tokens\/[^/]+$/ } });
			run = path === 'vault' ? () => f.run({ resource: 'token', operation: 'get', tokenId: rl(tokenId) }) : () => custom({ api: 'vault', method: 'GET', path: `/tokens/${tokenId}` }, { credentials: vaultOnly() });
		}
		const r = await run();
		expect(r.error()).toBeUndefined();
		expect(f.requests()[0].status).toBe(200);
		const [json] = jsonOf(r);
		expect(String(json.id)).toMatch(/^(ord|tok)_/);
		expect(keyLeaks(jsonOf(r), key)).toEqual([]);
		// The whole run's data, as n8n stores it, too.
		expect(keyLeaks(r.run.data.resultData, key)).toEqual([]);
	});

	test('an error echoing the hex of "Bearer <key>" and the key as an object key: neither in the error nor a continue-on-fail item', async () => {
		const key = f.sb.vault.secretKey;
		const body = { error: { message: `unauthorized ${Buffer.from(`Bearer ${key}`).toString('hex')}`, seen: { [key]: true }, parts: key.match(/.{1,5}/g) } };
		f.sb.faults.add({ kind: 'reply', status: 400, match: { method: 'GET', path: /\/tokens$/ }, reply: { body }, count: 2 });
		const failed = await f.run({ resource: 'token', operation: 'getAll', returnAll: false, limit: 5 });
		expect(failed.error()).toBeDefined();
		expect(keyLeaks(failed.run.data.resultData, key)).toEqual([]);
		const continued = await f.run({ resource: 'token', operation: 'getAll', returnAll: false, limit: 5 }, undefined, { continueOnFail: true });
		expect(continued.output()[0].json.error).toBeDefined();
		expect(keyLeaks(continued.output(), key)).toEqual([]);
	});
});

describe('Return All de-duplicates only against earlier pages', () => {
	const dispute = (id: string, extra: IDataObject = {}): IDataObject => ({ id, object: 'dispute', amount: 10, status: 'OPEN', ...extra });

	test('a dispute and its fee debit sharing an id on one page: both kept, no warning', async () => {
		const page = [dispute('dsp_000000000001'), dispute('dsp_000000000001', { object: 'fee_debit', amount: 30 }), dispute('dsp_000000000002')];
		f.sb.faults.add({
			kind: 'reply',
			status: 200,
			match: { method: 'GET', path: /\/disputes$/ },
			reply: { body: { ok: true, data: { items: page, pagination: { page: 1, limit: 100, total: 3, totalPages: 1 } } } },
		});
		const r = await f.run({ resource: 'dispute', operation: 'getAll', returnAll: true });
		expect(r.error()).toBeUndefined();
		expect(jsonOf(r)).toEqual(page);
	});

	test('a record a shifting list repeats on a later page is output once, with the warning; a same-id record of another kind is kept', async () => {
		const first = Array.from({ length: 100 }, (_, i) => dispute(`dsp_${String(i).padStart(12, '0')}`));
		// The list shifted by one: page 2 starts with the last record of page 1 again; then a fee debit sharing the first dispute's id.
		const second = [dispute(`dsp_${String(99).padStart(12, '0')}`), dispute(`dsp_${String(0).padStart(12, '0')}`, { object: 'fee_debit', amount: 30 })];
		f.sb.faults.add({
			kind: 'reply',
			status: 200,
			count: 2,
			match: { method: 'GET', path: /\/disputes$/ },
			reply: {
				body: (q: Record<string, unknown>) => {
					const n = Number(q.page ?? 1);
					const items = n === 1 ? first : second;
					return { ok: true, data: { items: items.map((x) => ({ ...x })), pagination: { page: n, limit: 100, total: 102, totalPages: 2 } } };
				},
			},
		});
		const r = await f.run({ resource: 'dispute', operation: 'getAll', returnAll: true });
		expect(r.error()).toBeUndefined();
		const out = jsonOf(r);
		expect(out.map((x) => `${x.id} ${x.object}`)).toEqual([...first.map((x) => `${x.id} dispute`), `dsp_${String(0).padStart(12, '0')} fee_debit`]);
		expect(out[out.length - 1].listWarning).toMatch(/1 record\(s\) came twice/);
		expect(out.slice(0, -1).every((x) => x.listWarning === undefined)).toBe(true);
	});
});
