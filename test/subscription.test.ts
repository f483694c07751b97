
import type { IDataObject, ILoadOptionsFunctions } from 'n8n-workflow';

import { listSearch } from '../nodes/VaultStore/listSearch';
import type { SubscriptionRecord } from '../sandbox/resources/subscriptions';
import { items, jsonOf, useSandbox, useWebhookReceiver } from './support/fixtures';

const f = useSandbox({ orders: 40 });

const subs = () => f.sb.app.collection<SubscriptionRecord>('subscriptions');
const core = (sub: string) => `/v2/core/stores/${f.sb.store.storeId}${sub}`;
const stores = (sub: string) => `/v2/stores/${f.sb.store.storeId}${sub}`;
const rl = (value: string) => ({ __rl: true, mode: 'id', value });
const pick = (test: (s: SubscriptionRecord) => boolean): SubscriptionRecord => {
	const found = subs().find(test);
	if (!found) throw new Error('no seeded subscription matches');
	return found;
};
const plainActive = (s: SubscriptionRecord) => s.status === 'ACTIVE' && !s.endsAt;
/** Each test that moves a subscription takes a fresh ACTIVE one. */
const used = new Set<string>();
const freshActive = (): SubscriptionRecord => {
	const s = pick((x) => plainActive(x) && !used.has(x.id));
	used.add(s.id);
	return s;
};

const receiver = useWebhookReceiver();

describe('subscription operations against the sandbox', () => {
	test('seed holds every status and both scheduled-cancellation cases', () => {
		const statuses = new Set(subs().map((s) => s.status));
		expect([...statuses].sort()).toEqual(['ACTIVE', 'CANCELLED', 'PAST_DUE', 'PAUSED', 'TRIALING']);
		const now = f.sb.clock.now();
		expect(subs().some((s) => s.status === 'ACTIVE' && s.endsAt && Date.parse(s.endsAt) > now)).toBe(true);
		expect(subs().some((s) => s.status === 'CANCELLED' && s.cancelledAt && s.cancelledAt < s.endsAt!)).toBe(true);
	});

	test('getAll with a status filter sends page, limit and status and returns only that status', async () => {
		const r = await f.run({ resource: 'subscription', operation: 'getAll', returnAll: true, filters: { status: 'PAUSED' } });
		expect(r.error()).toBeUndefined();
		const out = jsonOf(r);
		expect(out.length).toBe(subs().filter((s) => s.status === 'PAUSED').length);
		expect(out.length).toBeGreaterThan(0);
		expect(out.every((s) => s.status === 'PAUSED')).toBe(true);
		const reqs = f.requests();
		expect(reqs).toHaveLength(1);
		expect(reqs[0].method).toBe('GET');
		expect(reqs[0].path).toBe(core('/subscriptions'));
		expect(reqs[0].query).toEqual({ status: 'PAUSED', page: '1', limit: '100' });
	});

	test('getAll with Limit 7 asks for 7 and returns the list item shape', async () => {
		const r = await f.run({ resource: 'subscription', operation: 'getAll', returnAll: false, limit: 7 });
		const out = jsonOf(r);
		expect(out).toHaveLength(7);
		expect(f.requests()[0].query).toEqual({ page: '1', limit: '7' });
		expect(Object.keys(out[0]).sort()).toEqual(
			[
				'amount', 'billingInterval', 'cancelledAt', 'createdAt', 'currency', 'currentPeriodEnd', 'currentPeriodStart',
				'customer', 'endsAt', 'id', 'nextChargeAt', 'pausedAt', 'paymentMethod', 'product', 'quantity', 'retryCount',
				'status', 'trialEnd',
			].sort(),
		);
	});

	test('get returns one subscription per input item', async () => {
		const ids = subs().slice(0, 2).map((s) => s.id);
		const r = await f.run(
			{ resource: 'subscription', operation: 'get', subscriptionId: rl('={{ $json.id }}') },
			items(...ids.map((id) => ({ id }))),
		);
		expect(r.error()).toBeUndefined();
		expect(jsonOf(r).map((s) => s.id)).toEqual(ids);
		const reqs = f.requests();
		expect(reqs.map((q) => [q.method, q.path])).toEqual(ids.map((id) => ['GET', core(`/subscriptions/${id}`)]));
		expect(reqs[0].query).toEqual({});
	});

	test('cancel schedules the cancellation at the period end', async () => {
		const s = freshActive();
		const r = await f.run({ resource: 'subscription', operation: 'cancel', subscriptionId: rl(s.id) });
		expect(r.error()).toBeUndefined();
		const [out] = jsonOf(r);
		expect(out).toMatchObject({ id: s.id, status: 'ACTIVE', endsAt: s.currentPeriodEnd, nextChargeAt: null });
		expect(out.cancelledAt).toEqual(expect.any(String));
		const [req] = f.requests();
		expect(req.method).toBe('POST');
		expect(req.path).toBe(stores(`/subscriptions/${s.id}/cancel`));
		expect(req.body).toBeUndefined();
	});

	test('reactivate clears a cancellation scheduled inside the current period', async () => {
		const s = pick((x) => x.status === 'ACTIVE' && x.endsAt !== null);
		const r = await f.run({ resource: 'subscription', operation: 'reactivate', subscriptionId: rl(s.id) });
		expect(r.error()).toBeUndefined();
		expect(jsonOf(r)[0]).toMatchObject({ id: s.id, status: 'ACTIVE', endsAt: null, cancelledAt: null, nextChargeAt: s.currentPeriodEnd });
		const [req] = f.requests();
		expect([req.method, req.path]).toEqual(['POST', stores(`/subscriptions/${s.id}/reactivate`)]);
	});

	test('reactivate outside the current period is rejected by the service with a readable error', async () => {
		const s = pick((x) => x.status === 'CANCELLED' && x.cancelledAt !== null && x.cancelledAt < x.endsAt!);
		const r = await f.run({ resource: 'subscription', operation: 'reactivate', subscriptionId: rl(s.id) });
		const error = r.error();
		expect(error?.message).toMatch(/HTTP 422/);
		expect(error?.description).toMatch(/only be reactivated inside its current period/);
		expect(f.requests()).toHaveLength(1);
	});

	test('pause then resume move the status PAUSED -> ACTIVE', async () => {
		const s = freshActive();
		const paused = await f.run({ resource: 'subscription', operation: 'pause', subscriptionId: rl(s.id) });
		expect(jsonOf(paused)[0]).toMatchObject({ id: s.id, status: 'PAUSED', nextChargeAt: null });
		expect(f.requests().map((q) => [q.method, q.path])).toEqual([['POST', stores(`/subscriptions/${s.id}/pause`)]]);
		const resumed = await f.run({ resource: 'subscription', operation: 'resume', subscriptionId: rl(s.id) });
		expect(jsonOf(resumed)[0]).toMatchObject({ id: s.id, status: 'ACTIVE', pausedAt: null });
		expect(f.requests().map((q) => [q.method, q.path])).toEqual([['POST', stores(`/subscriptions/${s.id}/resume`)]]);
	});

	test('change sends the change fields and proration_behavior, and emits SUBSCRIPTION_UPDATED', async () => {
		const s = freshActive();
		f.sb.state.webhooks.push({
			id: 'whk_subscriptiontest0001',
			storeId: f.sb.store.storeId,
			url: receiver.url,
			eventTypes: ['SUBSCRIPTION_UPDATED'],
			note: null,
			signatureVersion: 'V2',
			createdAt: new Date().toISOString(),
			updatedAt: new Date().toISOString(),
		});
		const before = f.sb.deliveries.length;
		const r = await f.run({
			resource: 'subscription',
			operation: 'change',
			subscriptionId: rl(s.id),
			prorationBehavior: 'END_OF_PERIOD',
			updateFields: { quantity: 4, billingInterval: 'YEARLY' },
		});
		expect(r.error()).toBeUndefined();
		const [req] = f.requests();
		expect([req.method, req.path]).toEqual(['POST', stores(`/subscriptions/${s.id}/change`)]);
		expect(req.body).toEqual({ quantity: 4, billingInterval: 'YEARLY', proration_behavior: 'END_OF_PERIOD' });
		const [out] = jsonOf(r);
		expect(out.id).toBe(s.id);
		expect(out.change).toMatchObject({ prorationBehavior: 'END_OF_PERIOD', prorationSource: 'request', effectiveAt: s.currentPeriodEnd });
		const attempts = await f.sb.waitForDeliveries(before + 1);
		const event = JSON.parse(attempts[before].body) as IDataObject;
		expect(event.event).toBe('SUBSCRIPTION_UPDATED');
		expect((event.data as IDataObject).subscriptionId).toBe(s.id);
		f.sb.state.webhooks.splice(0);
	});

	test('change with Product Default sends no proration_behavior (the product anchor applies)', async () => {
		const s = freshActive();
		const product = f.sb.state.products.find((p) => p.id !== s.productId && p.productType === 'SUBSCRIPTION')!;
		const r = await f.run({
			resource: 'subscription',
			operation: 'change',
			subscriptionId: rl(s.id),
			updateFields: { productId: product.id },
		});
		expect(r.error()).toBeUndefined();
		expect(f.requests()[0].body).toEqual({ productId: product.id });
		const [out] = jsonOf(r);
		expect(out.change).toMatchObject({ prorationSource: 'product_billing_anchor' });
		expect((out.product as IDataObject).id).toBe(product.id);
	});

	test('change needs at least one change field and a prd_ product id, before any request (a quantity below 1 only warns: test/checks.test.ts)', async () => {
		const s = subs()[0];
		const cases: [IDataObject, RegExp][] = [
			[{}, /"Update Fields" must set at least one of Product ID, Variant ID, Billing Interval or Quantity/],
			[{ productId: 'ord_aaaaaaaaaaaaaaaa' }, /"Product ID" must start with "prd_"/],
			[{ billingInterval: 'DAILY' }, /"Billing Interval" must be one of WEEKLY, MONTHLY, YEARLY/],
		];
		for (const [updateFields, message] of cases) {
			const r = await f.run({ resource: 'subscription', operation: 'change', subscriptionId: rl(s.id), prorationBehavior: 'IMMEDIATELY', updateFields });
			expect(r.error()?.message).toMatch(message);
			expect(f.requests()).toHaveLength(0);
		}
	});

	test('change: a variant id of any length is sent (no prefix or length in the spec), short or 60 characters', async () => {
		for (const variantId of ['v1', `var_${'x'.repeat(56)}`]) {
			const s = freshActive();
			const r = await f.run({ resource: 'subscription', operation: 'change', subscriptionId: rl(s.id), updateFields: { variantId } });
			expect(r.error()).toBeUndefined();
			expect(f.requests().map((q) => [q.status, q.body])).toEqual([[200, { variantId }]]);
		}
	});

	test('getUpcomingInvoice returns base, usage, tax and total', async () => {
		const s = pick((x) => plainActive(x) && !used.has(x.id));
		const r = await f.run({ resource: 'subscription', operation: 'getUpcomingInvoice', subscriptionId: rl(s.id) });
		expect(r.error()).toBeUndefined();
		const [out] = jsonOf(r);
		expect(out).toMatchObject({ subscriptionId: s.id, base: s.amount, chargeAt: s.nextChargeAt });
		expect(out.total).toBeCloseTo(Number(out.base) + Number(out.usage) + Number(out.tax), 2);
		const [req] = f.requests();
		expect([req.method, req.path]).toEqual(['GET', stores(`/subscriptions/${s.id}/upcoming-invoice`)]);
	});

	test('getUsage returns the current-period projection and past periods', async () => {
		const s = subs().find((x) => x.pastUsage.length > 0)!;
		const r = await f.run({ resource: 'subscription', operation: 'getUsage', subscriptionId: rl(s.id) });
		expect(r.error()).toBeUndefined();
		const out = jsonOf(r);
		expect(out).toHaveLength(1);
		expect(out[0]).toMatchObject({ subscriptionId: s.id, currentPeriod: { start: s.currentPeriodStart, end: s.currentPeriodEnd } });
		expect(out[0].pastPeriods).toHaveLength(s.pastUsage.length);
		const [req] = f.requests();
		expect([req.method, req.path]).toEqual(['GET', core(`/subscriptions/${s.id}/usage`)]);
	});

	test('a write with a read-only store token fails with 403 naming the permission problem', async () => {
		const s = pick((x) => plainActive(x) && !used.has(x.id));
		const credentials = { ...f.credentials, vaultStoreStoreApi: { ...f.credentials.vaultStoreStoreApi, secretKey: f.sb.store.storeTokenKey } };
		const r = await f.run({ resource: 'subscription', operation: 'pause', subscriptionId: rl(s.id) }, undefined, { credentials });
		expect(r.error()?.message).toMatch(/not allowed.*403/);
		expect(r.error()?.description).toMatch(/SUBSCRIPTIONS_WRITE/);
		expect(JSON.stringify(r.error())).not.toContain(f.sb.store.storeTokenKey);
		expect(s.status).toBe('ACTIVE');
	});

	test('a subscription id without sub_ fails before any request', async () => {
		const r = await f.run({ resource: 'subscription', operation: 'cancel', subscriptionId: rl('={{ "cus_aaaaaaaaaaaaaaaa" }}') });
		expect(r.error()?.message).toMatch(/"Subscription ID" must start with "sub_" and be 12 to 48 characters/);
		expect(f.requests()).toHaveLength(0);
	});

	test('searchSubscriptions lists subscriptions for the resource locator and filters by text', async () => {
		const credentials = f.credentials.vaultStoreStoreApi;
		const ctx = {
			getNode: () => ({ name: 'Vault Store', type: 'vaultStore', typeVersion: 1, parameters: {} }),
			getCredentials: async () => credentials,
			helpers: {
				// The transport sets the Authorization header itself (the credential has no authenticate block).
				httpRequest: async (options: { method: string; url: string; qs?: IDataObject; headers?: Record<string, string> }) => {
					const url = new URL(options.url);
					for (const [k, v] of Object.entries(options.qs ?? {})) url.searchParams.set(k, String(v));
					const res = await fetch(url, { method: options.method, headers: options.headers, redirect: 'manual' });
					return { statusCode: res.status, headers: Object.fromEntries(res.headers), body: await res.json() };
				},
			},
		} as unknown as ILoadOptionsFunctions;
		const all = await listSearch.searchSubscriptions.call(ctx);
		expect(all.results).toHaveLength(subs().length);
		expect(all.results.every((x) => String(x.value).startsWith('sub_'))).toBe(true);
		const paused = await listSearch.searchSubscriptions.call(ctx, 'PAUSED');
		expect(paused.results.length).toBeGreaterThan(0);
		expect(paused.results.every((x) => x.name.includes('PAUSED'))).toBe(true);
		expect(f.requests().every((q) => q.path === core('/subscriptions'))).toBe(true);
	});
});
