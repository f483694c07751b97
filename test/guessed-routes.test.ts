/**
 * Operations the spec names without a path (inferred rows, reachable through the
 * sandbox), the webhook endpoint update, token lists longer than one page, and
 * the Additional Query Parameters / Body Fields that let a user send the
 * service's own names where the node's are a guess. Runs the node in n8n-core
 * against the sandbox.
 */
import type { IDataObject } from 'n8n-workflow';

import { jsonOf, useSandbox } from './support/fixtures';

const f = useSandbox({ orders: 120 });
const rl = (value: string) => ({ __rl: true, mode: 'id', value });

describe('webhook endpoints', () => {
	test('Update changes events, note and version in place: same whk_ id, one endpoint', async () => {
		const created = await f.run({ resource: 'webhook', operation: 'create', url: 'https://hooks.example.com/update', eventTypes: ['PAYMENT_FAILED'] });
		const id = jsonOf(created)[0].id as string;
		const r = await f.run({
			resource: 'webhook',
			operation: 'update',
			webhookId: rl(id),
			updateFields: { eventTypes: ['PAYMENT_COMPLETED', 'PAYMENT_REFUNDED'], note: 'moved', signatureVersion: 'V1' },
		});
		expect(r.error()).toBeUndefined();
		expect(f.requests().map((q) => `${q.method} ${q.path}`)).toEqual([`PATCH /v2/core/stores/${f.sb.store.storeId}/webhooks/${id}`]);
		const endpoints = f.sb.state.webhooks.filter((w) => w.url === 'https://hooks.example.com/update');
		expect(endpoints).toHaveLength(1);
		expect(endpoints[0]).toMatchObject({ id, eventTypes: ['PAYMENT_COMPLETED', 'PAYMENT_REFUNDED'], note: 'moved', signatureVersion: 'V1' });
	});

	test('Update with nothing to change is refused before any request', async () => {
		const r = await f.run({ resource: 'webhook', operation: 'update', webhookId: rl('whk_aaaaaaaaaaaa'), updateFields: {} });
		expect(r.error()?.message).toBe('Choose at least one field to update in "Update Fields"');
		expect(f.requests()).toHaveLength(0);
	});
});

describe('operations named without a path', () => {
	test('Checkout → Create Session: POST /v2/checkouts with the items; the session can be paid', async () => {
		const product = f.sb.state.products[0];
		const r = await f.run({
			resource: 'checkout',
			operation: 'createSession',
			items: { item: [{ productId: product.id, quantity: 2 }] },
			sessionFields: { successUrl: 'https://shop.example.com/thanks' },
		});
		expect(r.error()).toBeUndefined();
		const [request] = f.requests();
		expect(`${request.method} ${request.path}`).toBe('POST /v2/checkouts');
		expect(request.body).toEqual({ items: [{ product_id: product.id, quantity: 2 }], success_url: 'https://shop.example.com/thanks' });
		const session = jsonOf(r)[0];
		expect(session).toMatchObject({ status: 'OPEN', amount: product.price * 2 });
		const paid = await f.run({ resource: 'checkout', operation: 'pay', sessionId: rl(session.id as string) });
		expect(jsonOf(paid)[0]).toMatchObject({ status: 'PAID' });
	});

	test('Store → Get Tax Details, Analytics → Get Monthly Revenue, Payout → Get Many Credits / Debits', async () => {
		const tax = await f.run({ resource: 'store', operation: 'getTaxDetails' });
		expect(jsonOf(tax)[0]).toHaveProperty('country');
		const monthly = await f.run({ resource: 'analytics', operation: 'getMonthlyRevenue', months: 3 });
		expect(f.requests()[0].query).toEqual({ months: '3' });
		expect((jsonOf(monthly)[0].months as IDataObject[]).length).toBe(3);
		const credits = await f.run({ resource: 'payout', operation: 'getCredits', returnAll: true });
		expect(jsonOf(credits).length).toBeGreaterThan(0);
		expect(jsonOf(credits).every((c) => c.type === 'credit')).toBe(true);
		const debits = await f.run({ resource: 'payout', operation: 'getDebits', returnAll: false, limit: 2 });
		expect(jsonOf(debits)).toHaveLength(2);
	});
});

describe('token lists longer than one page', () => {
	test('Return All follows the vault\'s cursor over more tokens than one page', async () => {
		const base = `${f.sb.baseUrl}/v2/workspaces/${f.sb.vault.workspaceId}/vaults/${f.sb.vault.vaultId}/tokens`;
		const headers = { Authorization: `Bearer ${f.sb.vault.secretKey}`, 'content-type': 'application/json' };
		for (let i = 0; i < 130; i++) {
			await fetch(base, { method: 'POST', headers: { ...headers, 'Idempotency-Key': `many-${i}` }, body: JSON.stringify({ type: 'custom', data: { i } }) });
		}
		const total = f.sb.state.tokens.size;
		expect(total).toBeGreaterThan(100);
		const r = await f.run({ resource: 'token', operation: 'getAll', returnAll: true });
		expect(r.error()).toBeUndefined();
		expect(jsonOf(r)).toHaveLength(total);
		expect(new Set(jsonOf(r).map((t) => t.id)).size).toBe(total);
		expect(f.requests().length).toBe(Math.ceil(total / 100));
		expect(f.requests()[1].query).toHaveProperty('cursor');
	});

	test('the cursor parameter name can be changed', async () => {
		const r = await f.run({ resource: 'token', operation: 'getAll', returnAll: false, limit: 150, cursorParameter: 'starting_after' });
		// The sandbox knows only "cursor": it answers 400 to another name, which proves the name is sent as set.
		expect(f.requests()[1]?.query).toHaveProperty('starting_after');
		expect(r.error()?.message).toBeDefined();
	});

	test('an answer that says there is more but gives no cursor: the last item and the output say so, not a silent short list', async () => {
		f.sb.faults.add({
			kind: 'reply',
			match: { method: 'GET', path: /\/vaults\/[^/]+\/tokens$/ },
			reply: { body: { object: 'list', data: [{ id: 'tok_aaaaaaaaaaaaaaaa', object: 'token', type: 'custom' }], has_more: true } },
		});
		const r = await f.run({ resource: 'token', operation: 'getAll', returnAll: true });
		expect(r.error()).toBeUndefined();
		const out = jsonOf(r);
		expect(out).toHaveLength(1);
		expect(out[0].listWarning).toMatch(/more than these 1 records but gave no way to fetch the rest/);
	});
});

describe('names the node guesses can be replaced', () => {
	test('Analytics overview: Additional Query Parameters reach the service', async () => {
		const r = await f.run({
			resource: 'analytics',
			operation: 'getOverview',
			range: '30d',
			additionalQueryParameters: { pair: [{ name: 'range', value: '7d' }] },
		});
		expect(r.error()).toBeUndefined();
		expect(f.requests()[0].query).toMatchObject({ range: '7d' });
	});

	test('Payout create and checkout pay: Additional Body Fields reach the service, JSON values as JSON', async () => {
		const r = await f.run({ resource: 'payout', operation: 'create', amount: 1, additionalBodyFields: { pair: [{ name: 'currency', value: '"USD"' }] } });
		expect(r.error()).toBeUndefined();
		expect(f.requests()[0].body).toMatchObject({ amount: 1, currency: 'USD' });
		const session = await f.run({ resource: 'checkout', operation: 'createSession', items: { item: [{ productId: f.sb.state.products[1].id, quantity: 1 }] } });
		const paid = await f.run({
			resource: 'checkout',
			operation: 'pay',
			sessionId: rl(jsonOf(session)[0].id as string),
			additionalBodyFields: { pair: [{ name: 'paymentMethod', value: 'IDEAL' }] },
		});
		expect(paid.error()).toBeUndefined();
		expect(f.requests()[0].body).toEqual({ paymentMethod: 'IDEAL' });
	});

	test('Subscription change: an Additional Body Field reaches the service', async () => {
		const sub = (f.sb.state.collections.subscriptions as { id: string; status: string }[] | undefined)?.find((s) => s.status === 'ACTIVE');
		expect(sub).toBeDefined();
		const r = await f.run({
			resource: 'subscription',
			operation: 'change',
			subscriptionId: rl(sub!.id),
			updateFields: { quantity: 2 },
			additionalBodyFields: { pair: [{ name: 'quantity', value: '3' }] },
		});
		expect(f.requests()[0]?.body).toMatchObject({ quantity: 3 });
		expect(r.error()?.message ?? '').not.toMatch(/Additional Body Fields/);
	});
});
