import type { IDataObject } from 'n8n-workflow';

import type { BankAccount, PayoutRecord } from '../sandbox/resources/payouts';
import { jsonOf, useSandbox } from './support/fixtures';
import { runNodes } from './support/harness';

const f = useSandbox({ orders: 20 });

const core = (sub: string) => `/v2/core/stores/${f.sb.store.storeId}${sub}`;
const stores = (sub: string) => `/v2/stores/${f.sb.store.storeId}${sub}`;
const payouts = () => f.sb.app.collection<PayoutRecord>('payouts');
const accounts = () => f.sb.app.collection<BankAccount>('payoutBankAccounts');
const payoutLedger = () => f.sb.ledger.filter((e) => e.kind === 'payout');

describe('payout operations against the sandbox', () => {
	test('getAll with Return All reads every payout in one page of 100', async () => {
		const total = payouts().length;
		const r = await f.run({ resource: 'payout', operation: 'getAll', returnAll: true });
		expect(r.error()).toBeUndefined();
		const out = jsonOf(r);
		expect(out).toHaveLength(total);
		expect(out[0]).toEqual({
			id: expect.any(String),
			amount: expect.any(Number),
			fee: expect.any(Number),
			status: expect.any(String),
			referenceId: expect.any(String),
			payoutMethod: { id: expect.stringMatching(/^bnk_/), isPrimary: expect.any(Boolean), status: expect.any(String) },
			createdAt: expect.any(String),
			updatedAt: expect.any(String),
		});
		const reqs = f.requests();
		expect(reqs.map((q) => [q.method, q.path])).toEqual([['GET', core('/payouts')]]);
		expect(reqs[0].query).toEqual({ page: '1', limit: '100' });
	});

	test('getAll with Limit 15 walks no further than needed', async () => {
		const r = await f.run({ resource: 'payout', operation: 'getAll', returnAll: false, limit: 15 });
		expect(jsonOf(r).map((p) => p.id)).toEqual(payouts().slice(0, 15).map((p) => p.id));
		expect(f.requests().map((q) => q.query)).toEqual([{ page: '1', limit: '15' }]);
	});

	test('getBankAccounts gives one item per account from the plain array', async () => {
		const r = await f.run({ resource: 'payout', operation: 'getBankAccounts', returnAll: true });
		expect(r.error()).toBeUndefined();
		const out = jsonOf(r);
		expect(out.map((a) => a.id)).toEqual(accounts().map((a) => a.id));
		expect(out).toHaveLength(2);
		expect(out[0]).toMatchObject({ isPrimary: true, supportedCurrencies: ['usd'], availablePayoutSpeeds: ['standard', 'instant'] });
		const reqs = f.requests();
		expect(reqs.map((q) => [q.method, q.path, q.query])).toEqual([['GET', core('/payouts/bank-accounts'), {}]]);
	});

	test('getBankAccounts with Limit 1 returns the first account only', async () => {
		const r = await f.run({ resource: 'payout', operation: 'getBankAccounts', returnAll: false, limit: 1 });
		expect(jsonOf(r).map((a) => a.id)).toEqual([accounts()[0].id]);
		expect(f.requests()).toHaveLength(1);
	});

	test('create sends amount with an Idempotency-Key and outputs the fee quote', async () => {
		const before = payoutLedger().length;
		const r = await f.run({ resource: 'payout', operation: 'create', amount: 120.5 });
		expect(r.error()).toBeUndefined();
		const [req] = f.requests();
		expect([req.method, req.path]).toEqual(['POST', stores('/payouts')]);
		expect(req.body).toEqual({ amount: 120.5 });
		expect(req.headers['idempotency-key']).toMatch(/^[A-Za-z0-9_-]{1,255}$/);
		const [out] = jsonOf(r);
		expect(out).toMatchObject({ amount: 120.5, status: 'PENDING', payoutMethod: { id: accounts()[0].id, isPrimary: true } });
		expect(out.fee_quote).toMatchObject({ standard_payout_fee: 0.25, cross_border_payout_fee: 0, foreign_exchange_fee: 0 });
		expect(payoutLedger().length - before).toBe(1);
	});

	test('create to the second account in EUR sends bankAccountId and the currency as typed, with a warning when it is lower case; fees follow', async () => {
		const second = accounts()[1];
		const r = await f.run({
			resource: 'payout',
			operation: 'create',
			amount: 1000,
			additionalFields: { bankAccountId: second.id, currency: 'eur' },
		});
		expect(r.error()).toBeUndefined();
		expect(f.requests()[0].body).toEqual({ amount: 1000, bankAccountId: second.id, currency: 'eur' });
		expect(r.hints().map((h) => h.message)).toEqual([expect.stringMatching(/^"Currency" eur is a currency code \(ISO 4217, three letters\) written in lower case: the service shows these codes in upper case \(EUR\).*It was sent as typed \(eur\)/)]);
		const quote = jsonOf(r)[0].fee_quote as IDataObject;
		expect(quote.cross_border_payout_fee).toBeGreaterThan(0);
		expect(quote.foreign_exchange_fee).toBeGreaterThan(0);
	});

	test('a 503 twice (the service did nothing) is retried with the same key: one payout in the ledger; a 500 is not repeated', async () => {
		const before = payoutLedger().length;
		f.sb.faults.add({ kind: 'reply', status: 503, count: 2, reply: { body: { ok: false, error: { code: 'unavailable', message: 'down (injected)' } } } });
		const r = await f.run({ resource: 'payout', operation: 'create', amount: 5 });
		expect(r.error()).toBeUndefined();
		const reqs = f.requests();
		expect(reqs.map((q) => q.status)).toEqual([503, 503, 201]);
		expect(new Set(reqs.map((q) => q.headers['idempotency-key'])).size).toBe(1);
		expect(payoutLedger().length - before).toBe(1);
		// A 500 may follow a commit, and the service does not store a 5xx: the payout is not repeated.
		f.sb.clearRequests();
		f.sb.faults.add({ kind: '500', count: 2 });
		const again = await f.run({ resource: 'payout', operation: 'create', amount: 6 });
		expect(again.error()?.message).toMatch(/is unknown: the service may have applied it/);
		expect(f.requests().map((q) => q.status)).toEqual([500]);
	});

	test('the same Idempotency Key option in two executions of a workflow makes one payout; the second sends nothing and shows it', async () => {
		const before = payoutLedger().length;
		const params = { resource: 'payout', operation: 'create', amount: 7, options: { idempotencyKey: 'payout-test-key-1' } };
		let staticData: IDataObject = {};
		const execute = async () => {
			f.sb.clearRequests();
			const r = await runNodes([{ id: 'node-payout-key', parameters: params }], f.credentials, undefined, { workflowId: 'wf_payout_key', staticData });
			staticData = r.staticData;
			return r;
		};
		const first = await execute();
		expect(f.requests()[0].headers['idempotency-key']).toBe('payout-test-key-1');
		const second = await execute();
		expect(f.requests()).toHaveLength(0);
		expect(jsonOf(first)[0].idempotentReplay).toBeUndefined();
		expect(jsonOf(second)[0]).toMatchObject({ id: jsonOf(first)[0].id, amount: 7, writeSkipped: true });
		expect(payoutLedger().length - before).toBe(1);
	});

	test('the service rejecting an unsupported currency is a readable 422', async () => {
		const r = await f.run({ resource: 'payout', operation: 'create', amount: 3, additionalFields: { currency: 'GBP' } });
		expect(r.error()?.message).toMatch(/HTTP 422/);
		expect(r.error()?.description).toMatch(/does not support GBP/);
	});

	test('bad input fails before any request, naming the field', async () => {
		const cases: [IDataObject, RegExp][] = [
			[{ amount: 0 }, /"Amount" must be greater than 0/],
			[{ amount: -4 }, /"Amount" must be at least 0/],
			[{ amount: 10, additionalFields: { bankAccountId: 'acct_aaaaaaaaaaaa' } }, /"Bank Account ID" must start with "bnk_"/],
		];
		for (const [params, message] of cases) {
			const r = await f.run({ resource: 'payout', operation: 'create', ...params });
			expect(r.error()?.message).toMatch(message);
			expect(f.requests()).toHaveLength(0);
		}
	});
});
