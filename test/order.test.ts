import { jsonOf, items, useSandbox } from './support/fixtures';

const f = useSandbox({ orders: 250 });

describe('store and order operations against the sandbox', () => {
	test('store get unwraps the envelope', async () => {
		const r = await f.run({ resource: 'store', operation: 'get' });
		expect(r.error()).toBeUndefined();
		const [store] = jsonOf(r);
		expect(store.id).toBe(f.sb.store.storeId);
		const [req] = f.requests();
		expect(req.method).toBe('GET');
		expect(req.path.replace(/\/$/, '')).toBe(`/v2/core/stores/${f.sb.store.storeId}`);
	});

	test('order getAll with Return All walks 250 orders in 3 requests of 100', async () => {
		const r = await f.run({ resource: 'order', operation: 'getAll', returnAll: true });
		expect(r.error()).toBeUndefined();
		const out = r.output();
		expect(out).toHaveLength(250);
		expect(new Set(out.map((i) => i.json.id)).size).toBe(250);
		expect(out.every((i) => (i.pairedItem as { item: number }).item === 0)).toBe(true);
		const reqs = f.requests();
		expect(reqs).toHaveLength(3);
		expect(reqs.map((q) => q.query.page).sort()).toEqual(['1', '2', '3']);
		expect(reqs.every((q) => q.query.limit === '100')).toBe(true);
	});

	test('Limit 30 is one request asking for 30', async () => {
		const r = await f.run({ resource: 'order', operation: 'getAll', returnAll: false, limit: 30 });
		expect(r.output()).toHaveLength(30);
		const reqs = f.requests();
		expect(reqs).toHaveLength(1);
		expect(reqs[0].query).toMatchObject({ page: '1', limit: '30' });
	});

	test('filters are sent with their query names and honoured', async () => {
		const r = await f.run({
			resource: 'order',
			operation: 'getAll',
			returnAll: true,
			filters: { status: 'PENDING', sortDirection: 'asc' },
		});
		const out = jsonOf(r);
		expect(out.length).toBeGreaterThan(0);
		expect(out.every((o) => o.status === 'PENDING')).toBe(true);
		const dates = out.map((o) => String(o.createdAt));
		expect([...dates].sort()).toEqual(dates);
		expect(f.requests()[0].query).toMatchObject({ status: 'PENDING', sortDirection: 'asc' });
	});

	test('order get returns the detail for each input item with pairedItem', async () => {
		const ids = f.sb.state.orders.slice(0, 3).map((o) => o.id);
		const r = await f.run(
			{ resource: 'order', operation: 'get', orderId: { __rl: true, mode: 'id', value: '={{ $json.id }}' } },
			items(...ids.map((id) => ({ id }))),
		);
		expect(r.error()).toBeUndefined();
		const out = r.output();
		expect(out.map((i) => i.json.id)).toEqual(ids);
		expect(out.map((i) => (i.pairedItem as { item: number }).item)).toEqual([0, 1, 2]);
		expect(out[0].json).toHaveProperty('items');
		expect(out[0].json).toHaveProperty('billingAddress');
	});

	test('a 429 with Retry-After is retried and then succeeds', async () => {
		f.sb.faults.add({ kind: '429', count: 1, retryAfter: 0 });
		const r = await f.run({ resource: 'store', operation: 'get' });
		expect(r.error()).toBeUndefined();
		expect(jsonOf(r)[0].id).toBe(f.sb.store.storeId);
		expect(f.requests().map((q) => q.status)).toEqual([429, 200]);
	});

	test('a 503 on refund (the service did nothing) is retried with the same Idempotency-Key, one refund is made; a 500 is not repeated', async () => {
		const order = f.sb.state.orders.find((o) => o.status === 'COMPLETED')!;
		const before = f.sb.ledger.length;
		f.sb.faults.add({ kind: 'reply', status: 503, count: 2, reply: { body: { ok: false, error: { code: 'unavailable', message: 'down (injected)' } } } });
		const r = await f.run({
			resource: 'order',
			operation: 'refund',
			orderId: { __rl: true, mode: 'id', value: order.id },
			additionalFields: { amount: 1, reason: 'test' },
		});
		expect(r.error()).toBeUndefined();
		const reqs = f.requests();
		expect(reqs.map((q) => q.status)).toEqual([503, 503, 201]);
		const keys = new Set(reqs.map((q) => q.headers['idempotency-key']));
		expect(keys.size).toBe(1);
		expect([...keys][0]).toMatch(/^[A-Za-z0-9_-]{1,255}$/);
		expect(f.sb.ledger.length - before).toBe(1);
		expect(reqs[2].body).toEqual({ amount: 1, reason: 'test' });
		// A 500 may follow a commit, and the service does not store a 5xx: the refund is not repeated.
		f.sb.clearRequests();
		f.sb.faults.add({ kind: '500', count: 2 });
		const again = await f.run({ resource: 'order', operation: 'refund', orderId: { __rl: true, mode: 'id', value: order.id }, additionalFields: { amount: 1, reason: 'test 500' } });
		expect(again.error()?.message).toMatch(/^The outcome of "Refund an order" is unknown: the service may have applied it \(The service failed \(HTTP 500\)\)/);
		expect(f.requests().map((q) => q.status)).toEqual([500]);
	});

	test('refund: a reason of 2000 characters is sent and kept (the spec gives no reason length)', async () => {
		const order = f.sb.state.orders.filter((o) => o.status === 'COMPLETED')[1];
		const reason = 'r'.repeat(2000);
		const r = await f.run({
			resource: 'order',
			operation: 'refund',
			orderId: { __rl: true, mode: 'id', value: order.id },
			additionalFields: { amount: 1, reason },
		});
		expect(r.error()).toBeUndefined();
		expect(f.requests()[0].body).toEqual({ amount: 1, reason });
		expect(jsonOf(r)[0]).toMatchObject({ orderId: order.id, reason });
	});

	test('Get Many: a status outside the seen ones (REFUNDED) and a sort direction other than asc/desc reach the service', async () => {
		const r = await f.run({
			resource: 'order',
			operation: 'getAll',
			returnAll: false,
			limit: 5,
			filters: { status: '={{ "REFUNDED" }}', sortDirection: '={{ "DESC" }}' },
		});
		expect(r.error()).toBeUndefined();
		expect(f.requests()[0].query).toMatchObject({ status: 'REFUNDED', sortDirection: 'DESC' });
		expect(jsonOf(r)).toEqual([]);
	});

	test('a bad order id fails before any request, naming the field and the rule', async () => {
		// An expression, so that the value reaches the node (n8n itself already refuses a
		// literal that fails the ID mode's regex).
		const r = await f.run({ resource: 'order', operation: 'get', orderId: { __rl: true, mode: 'id', value: '={{ "xyz_1" }}' } });
		const error = r.error();
		expect(error?.message).toMatch(/"Order ID" must start with "ord_" and be 12 to 48 characters/);
		expect(f.requests()).toHaveLength(0);
	});

	test('n8n refuses a literal id that fails the ID mode pattern before the node runs', async () => {
		await expect(
			f.run({ resource: 'order', operation: 'get', orderId: { __rl: true, mode: 'id', value: 'xyz_1' } }),
		).rejects.toMatchObject({ name: 'WorkflowHasIssuesError' });
		expect(f.requests()).toHaveLength(0);
	});

	test('a wrong key gives a readable 401 that does not contain the key', async () => {
		const wrongKey = 'sk_wrong_key_0123456789abcdef';
		const credentials = { ...f.credentials, vaultStoreStoreApi: { ...f.credentials.vaultStoreStoreApi, secretKey: wrongKey } };
		const r = await f.run({ resource: 'store', operation: 'get' }, undefined, { credentials });
		const error = r.error();
		expect(error?.message).toMatch(/Authentication failed.*401/);
		const text = JSON.stringify({ m: error?.message, d: error?.description, e: error });
		expect(text).not.toContain(wrongKey);
		expect(text).not.toContain('wrong_key_0123');
	});

	test('continueOnFail gives an error item for the bad input and goes on', async () => {
		const good = f.sb.state.orders[0].id;
		const r = await f.run(
			{ resource: 'order', operation: 'get', orderId: { __rl: true, mode: 'id', value: '={{ $json.id }}' } },
			items({ id: 'bad' }, { id: good }),
			{ continueOnFail: true },
		);
		const out = r.output();
		expect(out).toHaveLength(2);
		expect(String(out[0].json.error)).toMatch(/Order ID/);
		expect(out[1].json.id).toBe(good);
		expect(out.map((i) => (i.pairedItem as { item: number }).item)).toEqual([0, 1]);
	});
});

describe('query names that may differ on an account can be sent as the service names them', () => {
	test('order Get Many: Additional Query Parameters reach the service, and replace the node\'s own name', async () => {
		const r = await f.run({
			resource: 'order',
			operation: 'getAll',
			returnAll: false,
			limit: 5,
			filters: { search: 'from-node' },
			additionalQueryParameters: { pair: [{ name: 'q', value: 'ada@example.com' }, { name: 'search', value: 'from-user' }] },
		});
		expect(r.error()).toBeUndefined();
		expect(f.requests()[0].query).toMatchObject({ q: 'ada@example.com', search: 'from-user', limit: '5' });
	});

	test('customer Get Many: a pair without a name is refused before any request', async () => {
		const r = await f.run({ resource: 'customer', operation: 'getAll', additionalQueryParameters: { pair: [{ name: ' ', value: 'x' }] } });
		expect(r.error()?.message).toBe('"Additional Query Parameters" has a value without a name');
		expect(f.requests()).toHaveLength(0);
	});
});
