import type { IDataObject } from 'n8n-workflow';

import { casesOf } from '../sandbox/resources/cases';
import { catalogOf, licensePool } from '../sandbox/resources/products';
import { items, jsonOf, useSandbox } from './support/fixtures';

const f = useSandbox({ orders: 120 });

const byId = (value: string) => ({ __rl: true, mode: 'id', value });
const byExpression = (value: string) => ({ __rl: true, mode: 'id', value: `={{ ${JSON.stringify(value)} }}` });
const core = (sub: string) => `/v2/core/stores/${f.sb.store.storeId}${sub}`;
const productId = (title: string) => catalogOf(f.sb.app).find((p) => p.title === title)!.id;
/** A claimed key of the Pro License product, whose licenses never expire. */
const claimedPro = () => f.sb.state.licenses.find((l) => l.productId === productId('Pro License'))!;

describe('license', () => {
	test('verify: POST /licenses/verify with the key; a claimed lifetime key is valid', async () => {
		const lic = claimedPro();
		const r = await f.run({ resource: 'license', operation: 'verify', key: lic.key });
		expect(r.error()).toBeUndefined();
		const reqs = f.requests();
		expect(reqs).toHaveLength(1);
		expect(reqs[0].method).toBe('POST');
		expect(reqs[0].path).toBe(core('/licenses/verify'));
		expect(reqs[0].body).toEqual({ key: lic.key });
		expect(jsonOf(r)).toEqual([
			{ valid: true, status: 'CLAIMED', productId: lic.productId, customerId: lic.customerId, expiresAt: null },
		]);
	});

	test('verify: with the Product ID of another product the key is not valid', async () => {
		const lic = claimedPro();
		const other = productId('Starter License');
		const r = await f.run({ resource: 'license', operation: 'verify', key: lic.key, additionalFields: { productId: other } });
		expect(r.error()).toBeUndefined();
		expect(f.requests()[0].body).toEqual({ key: lic.key, productId: other });
		expect(jsonOf(r)[0]).toMatchObject({ valid: false, status: 'CLAIMED', productId: lic.productId });
	});

	test('verify: an AVAILABLE (unsold) key and an unknown key are not valid', async () => {
		const pooled = licensePool(f.sb.app)[0];
		const r = await f.run(
			{ resource: 'license', operation: 'verify', key: '={{ $json.key }}' },
			items({ key: pooled.key }, { key: 'NOPE-NOPE-NOPE-NOPE' }),
		);
		expect(r.error()).toBeUndefined();
		expect(jsonOf(r)).toEqual([
			{ valid: false, status: 'AVAILABLE', productId: pooled.productId, customerId: null, expiresAt: null },
			{ valid: false, status: null, productId: null, customerId: null, expiresAt: null },
		]);
		expect(f.requests().map((q) => (q.body as IDataObject).key)).toEqual([pooled.key, 'NOPE-NOPE-NOPE-NOPE']);
	});

	test.each<[string, IDataObject, RegExp]>([
		['an empty key', { key: '={{ "" }}' }, /"License Key" must be 1 to 512 characters long \(got 0\)/],
		['a key over 512 characters', { key: 'K'.repeat(513) }, /"License Key" must be 1 to 512 characters long \(got 513\)/],
		['a product id without prd_', { key: 'ABCD', additionalFields: { productId: 'ord_abcdefghijkl' } }, /"Product ID" must start with "prd_" and be 12 to 48 characters/],
		['a product id too short', { key: 'ABCD', additionalFields: { productId: 'prd_1' } }, /"Product ID" must start with "prd_" and be 12 to 48 characters/],
	])('verify refuses %s before any request, without echoing the key', async (_name, params, message) => {
		const r = await f.run({ resource: 'license', operation: 'verify', ...params });
		const error = r.error();
		expect(error?.message).toMatch(message);
		expect(JSON.stringify({ m: error?.message, d: error?.description })).not.toContain('KKKKKKKK');
		expect(f.requests()).toHaveLength(0);
	});

	test('get: GET /licenses/{id} returns the license', async () => {
		const lic = claimedPro();
		const r = await f.run({ resource: 'license', operation: 'get', licenseId: byId(lic.id) });
		expect(r.error()).toBeUndefined();
		expect(f.requests().map((q) => [q.method, q.path])).toEqual([['GET', core(`/licenses/${lic.id}`)]]);
		expect(jsonOf(r)).toEqual([
			{
				id: lic.id,
				key: lic.key,
				status: 'CLAIMED',
				productId: lic.productId,
				variantId: null,
				orderId: lic.orderId,
				customerId: lic.customerId,
				claimedAt: lic.claimedAt,
				createdAt: lic.createdAt,
			},
		]);
	});

	test('get: a license id under 12 characters fails before any request', async () => {
		const r = await f.run({ resource: 'license', operation: 'get', licenseId: byExpression('lic_short') });
		expect(r.error()?.message).toMatch(/"License ID" must start with "lic_" and be 12 to 48 characters long/);
		expect(f.requests()).toHaveLength(0);
	});
});

describe('case', () => {
	const openCase = () => casesOf(f.sb.app).find((c) => c.status === 'OPEN' && c.unreadCount > 0)!;

	test('addMessage: POST /cases/{id}/messages with the body only; the message comes back', async () => {
		const c = openCase();
		const r = await f.run({ resource: 'case', operation: 'addMessage', caseId: byId(c.id), body: 'We sent you a new key.' });
		expect(r.error()).toBeUndefined();
		const [req] = f.requests();
		expect(req.method).toBe('POST');
		expect(req.path).toBe(core(`/cases/${c.id}/messages`));
		expect(req.body).toEqual({ body: 'We sent you a new key.' });
		const [out] = jsonOf(r);
		expect(out).toMatchObject({ senderType: 'MERCHANT', body: 'We sent you a new key.', attachments: [] });
		expect(String(out.id)).toMatch(/^msg_/);
		expect(casesOf(f.sb.app).find((x) => x.id === c.id)!.messages.at(-1)!.id).toBe(out.id);
	});

	test.each<[string, string, RegExp]>([
		['an empty message', '={{ "" }}', /"Message" must be 1 to 4000 characters long \(got 0\)/],
		['a message over 4000 characters', 'm'.repeat(4001), /"Message" must be 1 to 4000 characters long \(got 4001\)/],
	])('addMessage refuses %s before any request', async (_name, body, message) => {
		const r = await f.run({ resource: 'case', operation: 'addMessage', caseId: byId(openCase().id), body });
		expect(r.error()?.message).toMatch(message);
		expect(f.requests()).toHaveLength(0);
	});

	test('addMessage: a case id without cs_ fails before any request', async () => {
		const r = await f.run({ resource: 'case', operation: 'addMessage', caseId: byExpression('ord_abcdefghijkl'), body: 'hi' });
		expect(r.error()?.message).toMatch(/"Case ID" must start with "cs_" and be 12 to 48 characters/);
		expect(f.requests()).toHaveLength(0);
	});

	test('markRead: POST /cases/{id}/read without a body; {read: true} and the unread counter is 0', async () => {
		const c = casesOf(f.sb.app).find((x) => x.unreadCount > 0)!;
		const r = await f.run({ resource: 'case', operation: 'markRead', caseId: byId(c.id) });
		expect(r.error()).toBeUndefined();
		const [req] = f.requests();
		expect(req.method).toBe('POST');
		expect(req.path).toBe(core(`/cases/${c.id}/read`));
		expect(req.query).toEqual({});
		expect(req.body === undefined || JSON.stringify(req.body) === '{}').toBe(true);
		expect(jsonOf(r)).toEqual([{ read: true }]);
		expect(casesOf(f.sb.app).find((x) => x.id === c.id)!.unreadCount).toBe(0);
	});

	test('markRead: a store token without CASES_WRITE gets a 403 that names the scope', async () => {
		const c = openCase();
		const credentials = {
			...f.credentials,
			vaultStoreStoreApi: { ...f.credentials.vaultStoreStoreApi, secretKey: f.sb.store.storeTokenKey },
		};
		const r = await f.run({ resource: 'case', operation: 'markRead', caseId: byId(c.id) }, undefined, { credentials });
		const error = r.error();
		expect(error?.message).toMatch(/not allowed.*HTTP 403/);
		expect(error?.description).toMatch(/CASES_WRITE/);
		expect(JSON.stringify({ m: error?.message, d: error?.description })).not.toContain(f.sb.store.storeTokenKey);
		expect(f.requests()).toHaveLength(1);
	});

	test('get (inferred route): GET /cases/{id} with its messages', async () => {
		const c = casesOf(f.sb.app)[0];
		const r = await f.run({ resource: 'case', operation: 'get', caseId: byId(c.id) });
		expect(r.error()).toBeUndefined();
		expect(f.requests().map((q) => [q.method, q.path])).toEqual([['GET', core(`/cases/${c.id}`)]]);
		const [out] = jsonOf(r);
		expect(out.id).toBe(c.id);
		expect((out.messages as IDataObject[]).length).toBe(c.messages.length);
		expect((out.messages as IDataObject[])[0]).toHaveProperty('senderType');
	});

	test('getAll (inferred route): GET /cases paged, status filter sent as given', async () => {
		const r = await f.run({ resource: 'case', operation: 'getAll', returnAll: true, filters: { status: 'CLOSED' } });
		expect(r.error()).toBeUndefined();
		expect(r.hints()).toEqual([]);
		const [req] = f.requests();
		expect(req.method).toBe('GET');
		expect(req.path).toBe(core('/cases'));
		expect(req.query).toEqual({ page: '1', limit: '100', status: 'CLOSED' });
		const out = jsonOf(r);
		const closed = casesOf(f.sb.app).filter((c) => c.status === 'CLOSED');
		expect(out.map((c) => c.id)).toEqual(closed.map((c) => c.id));
		expect(out.every((c) => c.status === 'CLOSED' && !('messages' in c))).toBe(true);
	});

	test('getAll: Limit 2 asks for 2', async () => {
		const r = await f.run({ resource: 'case', operation: 'getAll', returnAll: false, limit: 2 });
		expect(jsonOf(r)).toHaveLength(2);
		expect(f.requests()[0].query).toEqual({ page: '1', limit: '2' });
	});

	// Case statuses are not in the spec: the former 32-character, letters-and-"_" rule is gone, and the
	// text is no longer upper-cased: a lower-case letter only warns, suggesting the upper-case form.
	test('getAll: any status text is sent as given (a lower-case one with a warning), one the cases do not have matches nothing', async () => {
		const parameters = { resource: 'case', operation: 'getAll', returnAll: true, filters: { status: 'waiting-on-customer' } };
		const r = await f.run(parameters);
		expect(r.error()).toBeUndefined();
		expect(f.requests()[0].query).toEqual({ page: '1', limit: '100', status: 'waiting-on-customer' });
		expect(jsonOf(r)).toEqual([]);
		expect(r.hints()).toEqual([expect.objectContaining({ type: 'warning', message: expect.stringMatching(/"Status" has lower-case letters.*e\.g\. WAITING-ON-CUSTOMER/) })]);
		const quiet = await f.run({ ...parameters, options: { skipLocalChecks: true } });
		expect(quiet.hints()).toEqual([]);
		expect(f.requests()[0].query).toMatchObject({ status: 'waiting-on-customer' });
	});
});

describe('mandate', () => {
	test('create: POST /mandates with customerId, description and frequency; REQUIRES_ACTION and agreementUrl come back', async () => {
		const customer = f.sb.state.customers[5];
		const r = await f.run({
			resource: 'mandate',
			operation: 'create',
			customerId: { __rl: true, mode: 'list', value: customer.id },
			description: 'Monthly hosting fee',
			frequency: 'MONTHLY',
		});
		expect(r.error()).toBeUndefined();
		const [req] = f.requests();
		expect(req.method).toBe('POST');
		expect(req.path).toBe(core('/mandates'));
		expect(req.body).toEqual({ customerId: customer.id, description: 'Monthly hosting fee', frequency: 'MONTHLY' });
		const [out] = jsonOf(r);
		expect(Object.keys(out).sort()).toEqual(['agreementUrl', 'id', 'status']);
		expect(out.status).toBe('REQUIRES_ACTION');
		expect(String(out.agreementUrl)).toMatch(/^https:\/\/.+\/mandates\/.+\/authorize$/);
	});

	test.each<[string, IDataObject, RegExp]>([
		['a customer id without cus_', { customerId: byExpression('ord_abcdefghijkl') }, /"Customer ID" must start with "cus_"/],
		// The spec lists the frequency values; it does not give required fields or a description length.
		['an unknown frequency', { frequency: '={{ "DAILY" }}' }, /"Frequency" must be one of ONE_OFF, WEEKLY, MONTHLY, QUARTERLY, YEARLY, AD_HOC/],
	])('create refuses %s before any request', async (_name, params, message) => {
		const r = await f.run({
			resource: 'mandate',
			operation: 'create',
			customerId: byId(f.sb.state.customers[0].id),
			description: 'Fee',
			frequency: 'ONE_OFF',
			...params,
		});
		expect(r.error()?.message).toMatch(message);
		expect(f.requests()).toHaveLength(0);
	});

	test('create: without a description (the spec does not say it is required) nothing is sent for it', async () => {
		const customer = f.sb.state.customers[6];
		const r = await f.run({ resource: 'mandate', operation: 'create', customerId: byId(customer.id), description: '', frequency: 'ONE_OFF' });
		expect(r.error()).toBeUndefined();
		expect(f.requests()[0].body).toEqual({ customerId: customer.id, frequency: 'ONE_OFF' });
		expect(jsonOf(r)[0].status).toBe('REQUIRES_ACTION');
	});

	test('create: a description of 3000 characters is sent (the spec gives no length)', async () => {
		const customer = f.sb.state.customers[7];
		const description = 'd'.repeat(3000);
		const r = await f.run({ resource: 'mandate', operation: 'create', customerId: byId(customer.id), description, frequency: 'AD_HOC' });
		expect(r.error()).toBeUndefined();
		expect(f.requests()[0].body).toEqual({ customerId: customer.id, description, frequency: 'AD_HOC' });
	});

	test('create: a customer id is checked for cus_ only (no 12 to 48 length): a short one reaches the service', async () => {
		const r = await f.run({ resource: 'mandate', operation: 'create', customerId: byExpression('cus_abc'), description: 'Fee', frequency: 'WEEKLY' });
		expect(f.requests().map((q) => [q.status, (q.body as IDataObject).customerId])).toEqual([[404, 'cus_abc']]);
		expect(r.error()?.description).toMatch(/Customer not found/);
	});

	test('create: an empty Frequency (the spec does not say it is required) is not sent, with a warning', async () => {
		const customer = f.sb.state.customers[6];
		const parameters = { resource: 'mandate', operation: 'create', customerId: byId(customer.id), description: 'Fee', frequency: '={{ "" }}' };
		const r = await f.run(parameters, undefined, { continueOnFail: true });
		expect(f.requests()).toHaveLength(1);
		expect(f.requests()[0].body).toEqual({ customerId: customer.id, description: 'Fee' });
		expect(r.hints()).toEqual([expect.objectContaining({ type: 'warning', message: expect.stringMatching(/"Frequency" is empty, so it is not sent/) })]);
		const quiet = await f.run({ ...parameters, options: { skipLocalChecks: true } }, undefined, { continueOnFail: true });
		expect(quiet.hints()).toEqual([]);
	});

	test('create: a customer that does not exist is a readable 404', async () => {
		const r = await f.run({
			resource: 'mandate',
			operation: 'create',
			customerId: byId('cus_doesnotexist0000000000'),
			description: 'Fee',
			frequency: 'AD_HOC',
		});
		expect(r.error()?.message).toMatch(/Not found \(HTTP 404\)/);
		expect(r.error()?.description).toMatch(/Customer not found/);
		expect(f.requests()).toHaveLength(1);
	});
});

describe('analytics', () => {
	test('getOverview: GET /analytics/overview?range=all covers every seeded order', async () => {
		const r = await f.run({ resource: 'analytics', operation: 'getOverview', range: 'all' });
		expect(r.error()).toBeUndefined();
		const [req] = f.requests();
		expect(req.method).toBe('GET');
		expect(req.path).toBe(core('/analytics/overview'));
		expect(req.query).toEqual({ range: 'all' });
		const [out] = jsonOf(r);
		expect(out).toMatchObject({ range: 'all', currency: 'USD', orders: f.sb.state.orders.length });
		const completed = f.sb.state.orders.filter((o) => o.status === 'COMPLETED');
		expect(out.completedOrders).toBe(completed.length);
		expect(out.revenue).toBeCloseTo(completed.reduce((s, o) => s + o.payment.totalAmount, 0), 2);
	});

	test('getOverview: the default range is 30d and no from/to is sent', async () => {
		const r = await f.run({ resource: 'analytics', operation: 'getOverview' });
		expect(r.error()).toBeUndefined();
		expect(f.requests()[0].query).toEqual({ range: '30d' });
		expect(jsonOf(r)[0].range).toBe('30d');
	});

	test('getOverview: custom sends from and to as ISO timestamps', async () => {
		const r = await f.run({
			resource: 'analytics',
			operation: 'getOverview',
			range: 'custom',
			from: '2025-12-01T00:00:00Z',
			to: '2026-01-01T00:00:00Z',
		});
		expect(r.error()).toBeUndefined();
		expect(f.requests()[0].query).toEqual({ range: 'custom', from: '2025-12-01T00:00:00.000Z', to: '2026-01-01T00:00:00.000Z' });
		const inside = f.sb.state.orders.filter((o) => o.createdAt >= '2025-12-01T00:00:00.000Z' && o.createdAt <= '2026-01-01T00:00:00.000Z');
		expect(jsonOf(r)[0]).toMatchObject({ range: 'custom', from: '2025-12-01T00:00:00.000Z', to: '2026-01-01T00:00:00.000Z', orders: inside.length });
	});

	test.each<[string, IDataObject, RegExp]>([
		['no to', { from: '2026-02-01T00:00:00Z', to: '={{ "" }}' }, /"To" must be a date and time/],
		['a from that is no date', { from: '={{ "soon" }}', to: '2026-01-01T00:00:00Z' }, /"From" must be a date and time/],
	])('getOverview custom refuses %s before any request', async (_name, params, message) => {
		const r = await f.run({ resource: 'analytics', operation: 'getOverview', range: 'custom', ...params });
		expect(r.error()?.message).toMatch(message);
		expect(f.requests()).toHaveLength(0);
	});

	test('getSubscriptionOverview: GET /analytics/subscriptions/overview', async () => {
		const r = await f.run({ resource: 'analytics', operation: 'getSubscriptionOverview' });
		expect(r.error()).toBeUndefined();
		const [req] = f.requests();
		expect([req.method, req.path, req.query]).toEqual(['GET', core('/analytics/subscriptions/overview'), {}]);
		const [out] = jsonOf(r);
		const byStatus = out.byStatus as Record<string, number>;
		expect(Object.keys(byStatus).sort()).toEqual(['ACTIVE', 'CANCELLED', 'PAST_DUE', 'PAUSED', 'TRIALING']);
		expect(Object.values(byStatus).reduce((a, b) => a + b, 0)).toBe(out.total);
		expect(Number(out.total)).toBeGreaterThan(0);
	});

	test('getMrr: GET /analytics/subscriptions/mrr; MRR by interval adds up and ARR is 12 x MRR', async () => {
		const r = await f.run({ resource: 'analytics', operation: 'getMrr' });
		expect(r.error()).toBeUndefined();
		const [req] = f.requests();
		expect([req.method, req.path, req.query]).toEqual(['GET', core('/analytics/subscriptions/mrr'), {}]);
		const [out] = jsonOf(r);
		const parts = Object.values(out.byInterval as Record<string, number>).reduce((a, b) => a + b, 0);
		expect(Number(out.mrr)).toBeGreaterThan(0);
		expect(parts).toBeCloseTo(Number(out.mrr), 1);
		expect(out.arr).toBeCloseTo(Number(out.mrr) * 12, 1);
	});
});
