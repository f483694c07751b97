import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { VaultStore } from '../nodes/VaultStore/VaultStore.node';
import { allLicenses } from '../sandbox/resources/licenses';
import type { Meter } from '../sandbox/resources/meters';
import { metersOf } from '../sandbox/resources/meters';
import { jsonOf, useSandbox } from './support/fixtures';

const f = useSandbox({ orders: 60 });

const core = (sub: string) => `/v2/core/stores/${f.sb.store.storeId}${sub}`;
const stores = (sub: string) => `/v2/stores/${f.sb.store.storeId}${sub}`;
const rl = (value: string) => ({ __rl: true, mode: 'id', value });
const completed = () => f.sb.state.orders.filter((o) => o.payment.status === 'COMPLETED');
const tokenCredentials = () => ({
	...f.credentials,
	vaultStoreStoreApi: { ...f.credentials.vaultStoreStoreApi, secretKey: f.sb.store.storeTokenKey },
});

function operationDescriptions(resource: string): Record<string, string> {
	const op = new VaultStore().description.properties.find(
		(p) => p.name === 'operation' && (p.displayOptions?.show?.resource as string[] | undefined)?.[0] === resource,
	) as INodeProperties;
	return Object.fromEntries((op.options as Array<{ value: string; description: string }>).map((o) => [o.value, o.description]));
}

describe('refund operations (inferred routes under /v2/stores)', () => {
	const order = () => completed()[2];
	let refundIds: string[] = [];

	beforeAll(async () => {
		// Two refunds made through the node (Order > Refund), as a user would.
		for (const amount of [1.5, 2]) {
			const r = await f.run({
				resource: 'order',
				operation: 'refund',
				orderId: rl(order().id),
				additionalFields: { amount, reason: `partial ${amount}` },
			});
			expect(r.error()).toBeUndefined();
		}
		refundIds = f.sb.state.refunds.filter((x) => x.orderId === order().id).map((x) => x.id);
		expect(refundIds).toHaveLength(2);
		// One refund of another order, which the filter must leave out.
		const other = await f.run({ resource: 'order', operation: 'refund', orderId: rl(completed()[3].id), additionalFields: { amount: 1 } });
		expect(other.error()).toBeUndefined();
	});

	test('getAll filtered by order sends orderId and returns that order\'s refunds (from the orders module state)', async () => {
		const r = await f.run({ resource: 'refund', operation: 'getAll', returnAll: true, filters: { orderId: order().id } });
		expect(r.error()).toBeUndefined();
		const reqs = f.requests();
		expect(reqs).toHaveLength(1);
		expect([reqs[0].method, reqs[0].path]).toEqual(['GET', stores('/refunds')]);
		expect(reqs[0].query).toEqual({ page: '1', limit: '100', orderId: order().id });
		const out = jsonOf(r);
		expect(out.map((x) => x.id).sort()).toEqual([...refundIds].sort());
		expect(out.map((x) => x.amount).sort()).toEqual([1.5, 2]);
		expect(out.every((x) => x.orderId === order().id && x.status === 'SUCCEEDED')).toBe(true);
	});

	test('getAll without a filter, Limit 2: one request for 2', async () => {
		const r = await f.run({ resource: 'refund', operation: 'getAll', returnAll: false, limit: 2 });
		expect(jsonOf(r)).toHaveLength(2);
		expect(f.requests().map((q) => q.query)).toEqual([{ page: '1', limit: '2' }]);
	});

	test('get fetches one refund', async () => {
		const r = await f.run({ resource: 'refund', operation: 'get', refundId: rl(refundIds[0]) });
		expect(r.error()).toBeUndefined();
		const [req] = f.requests();
		expect([req.method, req.path, req.query]).toEqual(['GET', stores(`/refunds/${refundIds[0]}`), {}]);
		expect(jsonOf(r)[0]).toMatchObject({ id: refundIds[0], orderId: order().id, currency: 'USD' });
	});

	test('a missing refund: 404 says the route is inferred', async () => {
		const r = await f.run({ resource: 'refund', operation: 'get', refundId: rl('rfd_nosuchrefund000000000') });
		expect(r.error()?.message).toMatch(/HTTP 404/);
		expect(r.error()?.description).toMatch(/answers 404 here, use the Custom API Call/);
	});

	test('input rules: a bad order filter and a short refund id, no request', async () => {
		const r = await f.run({ resource: 'refund', operation: 'getAll', returnAll: true, filters: { orderId: 'ord_1' } });
		expect(r.error()?.message).toBe('"Order ID" must start with "ord_" and be 12 to 48 characters long (got ord_1)');
		const r2 = await f.run({ resource: 'refund', operation: 'get', refundId: rl('={{ "rfd_1" }}') });
		expect(r2.error()?.message).toMatch(/"Refund ID" must be 12 to 48 characters long/);
		expect(f.requests()).toHaveLength(0);
	});

	test('descriptions name REFUNDS_READ', () => {
		const d = operationDescriptions('refund');
		expect(d.get).toMatch(/\(scope REFUNDS_READ\)$/);
		expect(d.getAll).toMatch(/\(scope REFUNDS_READ\)$/);
	});
});

describe('meter operations on a product (inferred routes under /v2/stores)', () => {
	const product = () => f.sb.state.products.find((p) => p.productType === 'SUBSCRIPTION')!;
	const meters = (): Meter[] => metersOf(f.sb.app);
	let createdId = '';

	test('create sends name, eventName, aggregation, unitLabel and pricePerUnit', async () => {
		const r = await f.run({
			resource: 'meter',
			operation: 'create',
			productId: rl(product().id),
			name: 'Seats used',
			eventName: 'seat_active',
			aggregation: 'MAX',
			additionalFields: { unitLabel: 'seat', pricePerUnit: 4.5 },
		});
		expect(r.error()).toBeUndefined();
		const reqs = f.requests();
		expect(reqs).toHaveLength(1);
		expect([reqs[0].method, reqs[0].path]).toEqual(['POST', stores(`/products/${product().id}/meters`)]);
		expect(reqs[0].body).toEqual({ name: 'Seats used', eventName: 'seat_active', aggregation: 'MAX', unitLabel: 'seat', pricePerUnit: 4.5 });
		expect(reqs[0].status).toBe(201);
		const [out] = jsonOf(r);
		expect(out).toMatchObject({ productId: product().id, name: 'Seats used', aggregation: 'MAX', pricePerUnit: 4.5 });
		expect(String(out.id)).toMatch(/^mtr_/);
		createdId = String(out.id);
	});

	test('create without optional fields sends only the required ones', async () => {
		const r = await f.run({
			resource: 'meter',
			operation: 'create',
			productId: rl(product().id),
			name: 'Calls',
			eventName: 'call',
			aggregation: 'COUNT',
			additionalFields: { unitLabel: '' },
		});
		expect(r.error()).toBeUndefined();
		expect(f.requests()[0].body).toEqual({ name: 'Calls', eventName: 'call', aggregation: 'COUNT' });
		expect(jsonOf(r)[0]).toMatchObject({ unitLabel: null, pricePerUnit: 0 });
	});

	test('getAll lists the meters of the product', async () => {
		const r = await f.run({ resource: 'meter', operation: 'getAll', productId: rl(product().id), returnAll: true });
		expect(r.error()).toBeUndefined();
		const [req] = f.requests();
		expect([req.method, req.path, req.query]).toEqual(['GET', stores(`/products/${product().id}/meters`), { page: '1', limit: '100' }]);
		const expected = meters().filter((m) => m.productId === product().id).map((m) => m.id);
		expect(expected.length).toBeGreaterThanOrEqual(3); // seeded + the two created above
		expect(jsonOf(r).map((m) => m.id)).toEqual(expected);
	});

	test('get fetches one meter', async () => {
		const r = await f.run({ resource: 'meter', operation: 'get', productId: rl(product().id), meterId: rl(createdId) });
		expect(r.error()).toBeUndefined();
		const [req] = f.requests();
		expect([req.method, req.path]).toEqual(['GET', stores(`/products/${product().id}/meters/${createdId}`)]);
		expect(jsonOf(r)[0]).toMatchObject({ id: createdId, eventName: 'seat_active' });
	});

	test('update PATCHes only the given fields', async () => {
		const r = await f.run({
			resource: 'meter',
			operation: 'update',
			productId: rl(product().id),
			meterId: rl(createdId),
			updateFields: { pricePerUnit: 0, name: 'Peak seats' },
		});
		expect(r.error()).toBeUndefined();
		const [req] = f.requests();
		expect([req.method, req.path]).toEqual(['PATCH', stores(`/products/${product().id}/meters/${createdId}`)]);
		expect(req.body).toEqual({ name: 'Peak seats', pricePerUnit: 0 });
		expect(jsonOf(r)[0]).toMatchObject({ id: createdId, name: 'Peak seats', pricePerUnit: 0, eventName: 'seat_active', aggregation: 'MAX' });
	});

	test('delete removes it; a later get is a 404 that says the route is inferred', async () => {
		const r = await f.run({ resource: 'meter', operation: 'delete', productId: rl(product().id), meterId: rl(createdId) });
		expect(r.error()).toBeUndefined();
		const [req] = f.requests();
		expect([req.method, req.path]).toEqual(['DELETE', stores(`/products/${product().id}/meters/${createdId}`)]);
		expect(jsonOf(r)).toEqual([{ id: createdId, deleted: true }]);
		expect(meters().some((m) => m.id === createdId)).toBe(false);

		const again = await f.run({ resource: 'meter', operation: 'get', productId: rl(product().id), meterId: rl(createdId) });
		expect(again.error()?.message).toMatch(/HTTP 404/);
		expect(again.error()?.description).toMatch(/answers 404 here, use the Custom API Call/);
	});

	test('a key without METERS_WRITE gets a 403 naming the scope; reads work with it', async () => {
		const r = await f.run(
			{ resource: 'meter', operation: 'create', productId: rl(product().id), name: 'x', eventName: 'x', aggregation: 'SUM' },
			undefined,
			{ credentials: tokenCredentials() },
		);
		expect(r.error()?.message).toMatch(/HTTP 403/);
		expect(r.error()?.description).toMatch(/METERS_WRITE/);
		const read = await f.run({ resource: 'meter', operation: 'getAll', productId: rl(product().id), returnAll: true }, undefined, {
			credentials: tokenCredentials(),
		});
		expect(read.error()).toBeUndefined();
	});

	describe('input rules (no request is sent)', () => {
		const create = (over: IDataObject) =>
			f.run({ resource: 'meter', operation: 'create', productId: rl(product().id), name: 'n', eventName: 'e', aggregation: 'SUM', ...over });

		// The 128/64 character limits of name, event name and unit label, and the closed aggregation list,
		// were not rules of the spec: they are gone (see "values the spec does not rule out" below).
		test.each([
			// Empty required values come from an expression (n8n itself refuses an empty literal).
			[{ name: '={{ "" }}' }, '"Name" must not be empty'],
			[{ eventName: '={{ "" }}' }, '"Event Name" must not be empty'],
			[{ aggregation: '={{ "" }}' }, '"Aggregation" must be a non-empty text (got )'],
			[{ productId: rl('={{ "ord_0123456789abc" }}') }, '"Product ID" must start with "prd_" and be 12 to 48 characters long (got ord_0123456789abc)'],
		])('create %j', async (over, message) => {
			const r = await create(over);
			expect(r.error()?.message).toBe(message);
			expect(f.requests()).toHaveLength(0);
		});

		test('update with no field to change', async () => {
			const meter = meters()[0];
			const r = await f.run({ resource: 'meter', operation: 'update', productId: rl(meter.productId), meterId: rl(meter.id), updateFields: {} });
			expect(r.error()?.message).toBe('"Update Fields": give at least one field to change');
			expect(f.requests()).toHaveLength(0);
		});
	});

	describe('values the spec does not rule out are sent', () => {
		test('create: an aggregation outside the listed ones (AVG) and long name, event name and unit label reach the service', async () => {
			const body = { name: 'n'.repeat(200), eventName: 'e'.repeat(200), aggregation: 'AVG', unitLabel: 'u'.repeat(100) };
			const r = await f.run({
				resource: 'meter',
				operation: 'create',
				productId: rl(product().id),
				name: body.name,
				eventName: body.eventName,
				aggregation: '={{ "AVG" }}',
				additionalFields: { unitLabel: body.unitLabel },
			});
			expect(r.error()).toBeUndefined();
			expect(f.requests()[0].body).toEqual(body);
			const [out] = jsonOf(r);
			expect(out).toMatchObject(body);
			expect(meters().find((m) => m.id === out.id)?.aggregation).toBe('AVG');
		});

		test('update: another aggregation value (UNIQUE_COUNT) is sent and stored', async () => {
			const meter = meters()[0];
			const r = await f.run({
				resource: 'meter',
				operation: 'update',
				productId: rl(meter.productId),
				meterId: rl(meter.id),
				updateFields: { aggregation: '={{ "UNIQUE_COUNT" }}' },
			});
			expect(r.error()).toBeUndefined();
			expect(f.requests()[0].body).toEqual({ aggregation: 'UNIQUE_COUNT' });
			expect(jsonOf(r)[0].aggregation).toBe('UNIQUE_COUNT');
		});
	});

	test('descriptions name METERS_READ / METERS_WRITE', () => {
		const d = operationDescriptions('meter');
		expect(d.getAll).toMatch(/\(scope METERS_READ\)$/);
		expect(d.get).toMatch(/\(scope METERS_READ\)$/);
		for (const op of ['create', 'update', 'delete']) expect(d[op]).toMatch(/\(scope METERS_WRITE\)$/);
	});
});

describe('license getAll (inferred GET {store_url}/licenses)', () => {
	const licenses = () => allLicenses(f.sb.app, f.sb.state);

	test('Return All with status AVAILABLE sends status and returns every available key', async () => {
		const available = licenses().filter((l) => l.status === 'AVAILABLE');
		expect(available.length).toBeGreaterThan(0);
		const r = await f.run({ resource: 'license', operation: 'getAll', returnAll: true, filters: { status: 'AVAILABLE' } });
		expect(r.error()).toBeUndefined();
		const reqs = f.requests();
		expect(reqs).toHaveLength(1);
		expect([reqs[0].method, reqs[0].path, reqs[0].query]).toEqual(['GET', core('/licenses'), { page: '1', limit: '100', status: 'AVAILABLE' }]);
		const out = jsonOf(r);
		expect(out.map((l) => l.id).sort()).toEqual(available.map((l) => l.id).sort());
		expect(Object.keys(out[0]).sort()).toEqual(['claimedAt', 'createdAt', 'customerId', 'id', 'key', 'orderId', 'productId', 'status', 'variantId']);
	});

	test('productId filter and Limit', async () => {
		const productId = licenses()[0].productId;
		const r = await f.run({ resource: 'license', operation: 'getAll', returnAll: false, limit: 3, filters: { productId } });
		expect(f.requests()[0].query).toEqual({ page: '1', limit: '3', productId });
		const out = jsonOf(r);
		expect(out.length).toBeLessThanOrEqual(3);
		expect(out.length).toBeGreaterThan(0);
		expect(out.every((l) => l.productId === productId)).toBe(true);
	});

	test('Return All without filters walks every page', async () => {
		const total = licenses().length;
		const r = await f.run({ resource: 'license', operation: 'getAll', returnAll: true });
		expect(jsonOf(r)).toHaveLength(total);
		expect(f.requests()).toHaveLength(Math.max(1, Math.ceil(total / 100)));
	});

	test('input rules: bad product id, no request', async () => {
		const r = await f.run({ resource: 'license', operation: 'getAll', returnAll: true, filters: { productId: 'prd_x' } });
		expect(r.error()?.message).toMatch(/"Product ID" must start with "prd_" and be 12 to 48 characters/);
		expect(f.requests()).toHaveLength(0);
	});

	test('a status outside the seen ones (REVOKED; the spec shows AVAILABLE and CLAIMED as seen) reaches the service', async () => {
		const r = await f.run({ resource: 'license', operation: 'getAll', returnAll: true, filters: { status: '={{ "REVOKED" }}' } });
		expect(r.error()).toBeUndefined();
		expect(f.requests()[0].query).toEqual({ page: '1', limit: '100', status: 'REVOKED' });
		expect(jsonOf(r)).toEqual([]);
	});
});
