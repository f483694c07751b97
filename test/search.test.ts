import { RequestWindow } from '../nodes/VaultStore/resources/search/window';
import { jsonOf, items, useSandbox } from './support/fixtures';

const f = useSandbox({ orders: 250 });

const RESULT_KEYS = ['createdAt', 'id', 'kind', 'label', 'link', 'sublabel'];

describe('search resolve against the sandbox', () => {
	// The sandbox allows 30 searches a minute per key: start every test with a fresh window.
	beforeEach(() => f.sb.clock.advance(61_000));

	test('one request GET /v2/stores/{storeId}/search?q=a,b,c; one item per result with the spec fields', async () => {
		const order = f.sb.state.orders[0];
		const customer = f.sb.state.customers[1];
		const product = f.sb.state.products[2];
		const r = await f.run({
			resource: 'search',
			operation: 'resolve',
			inputs: ` ${order.id}, ${customer.email.toUpperCase()} ,${product.id}`,
		});
		expect(r.error()).toBeUndefined();
		const reqs = f.requests();
		expect(reqs).toHaveLength(1);
		expect(reqs[0].method).toBe('GET');
		expect(reqs[0].path).toBe(`/v2/stores/${f.sb.store.storeId}/search`);
		expect(reqs[0].query).toEqual({ q: `${order.id},${customer.email.toUpperCase()},${product.id}` });
		const out = jsonOf(r);
		expect(out.map((x) => [x.kind, x.id])).toEqual([
			['order', order.id],
			['customer', customer.id],
			['product', product.id],
		]);
		for (const x of out) expect(Object.keys(x).sort()).toEqual(RESULT_KEYS);
		expect(out[0].createdAt).toBe(order.createdAt);
		expect(r.output().every((i) => (i.pairedItem as { item: number }).item === 0)).toBe(true);
	});

	test('order numbers, customer ids and subscription ids resolve; unknown inputs give no item', async () => {
		const order = f.sb.state.orders[5];
		const customer = f.sb.state.customers[3];
		const subs = (f.sb.state.collections.subscriptions ??= []) as { id: string; status: string; createdAt: string }[];
		subs.push({ id: 'sub_searchtest000000000001', status: 'ACTIVE', createdAt: '2026-01-01T00:00:00.000Z' });
		const r = await f.run({
			resource: 'search',
			operation: 'resolve',
			inputs: `${order.orderNumber},nobody@example.com,${customer.id},sub_searchtest000000000001,VS-99999`,
		});
		expect(r.error()).toBeUndefined();
		expect(jsonOf(r).map((x) => [x.kind, x.id])).toEqual([
			['order', order.id],
			['customer', customer.id],
			['subscription', 'sub_searchtest000000000001'],
		]);
	});

	test('25 inputs are sent as 3 requests of 10, 10 and 5, in order', async () => {
		const orders = f.sb.state.orders.slice(0, 25);
		const r = await f.run({ resource: 'search', operation: 'resolve', inputs: orders.map((o) => o.orderNumber).join(',') });
		expect(r.error()).toBeUndefined();
		const qs = f.requests().map((q) => String(q.query.q).split(','));
		expect(qs.map((q) => q.length)).toEqual([10, 10, 5]);
		expect(qs.flat()).toEqual(orders.map((o) => o.orderNumber));
		expect(jsonOf(r).map((x) => x.id)).toEqual(orders.map((o) => o.id));
	});

	test('an input list from an expression (array) is accepted', async () => {
		const ids = f.sb.state.customers.slice(0, 2).map((c) => c.id);
		const r = await f.run({ resource: 'search', operation: 'resolve', inputs: '={{ $json.ids }}' }, items({ ids }));
		expect(r.error()).toBeUndefined();
		expect(f.requests()[0].query).toEqual({ q: ids.join(',') });
		expect(jsonOf(r).map((x) => x.id)).toEqual(ids);
	});

	test('3 items of 100 inputs use 30 requests (the minute budget) without any 429', async () => {
		const numbers = f.sb.state.orders.slice(0, 100).map((o) => o.orderNumber).join(',');
		const r = await f.run(
			{ resource: 'search', operation: 'resolve', inputs: '={{ $json.q }}' },
			items({ q: numbers }, { q: numbers }, { q: numbers }),
		);
		expect(r.error()).toBeUndefined();
		expect(f.requests()).toHaveLength(30);
		expect(f.requests().every((q) => q.status === 200)).toBe(true);
		const out = r.output();
		expect(out).toHaveLength(300);
		expect(out.map((i) => (i.pairedItem as { item: number }).item)).toEqual([
			...Array(100).fill(0),
			...Array(100).fill(1),
			...Array(100).fill(2),
		]);
	});

	test('the sandbox answers the 31st search of a minute with 429 and Retry-After', async () => {
		const url = `${f.sb.baseUrl}/v2/stores/${f.sb.store.storeId}/search?q=VS-10001`;
		const headers = { authorization: `Bearer ${f.sb.store.secretKey}` };
		for (let i = 0; i < 30; i++) expect((await fetch(url, { headers })).status).toBe(200);
		const limited = await fetch(url, { headers });
		expect(limited.status).toBe(429);
		expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
	});

	test('a 429 is retried after Retry-After and the search succeeds', async () => {
		f.sb.faults.add({ kind: '429', count: 1, retryAfter: 0, match: { path: /\/search$/ } });
		const order = f.sb.state.orders[0];
		const r = await f.run({ resource: 'search', operation: 'resolve', inputs: order.id });
		expect(r.error()).toBeUndefined();
		expect(f.requests().map((q) => q.status)).toEqual([429, 200]);
		expect(jsonOf(r).map((x) => x.id)).toEqual([order.id]);
	});

	describe('validation before any request', () => {
		test.each([
			['={{ "  " }}', /"Inputs" is required/],
			['a,,b', /"Inputs" must not contain empty entries \(entry 2 of 3 is empty\)/],
			['a,b,', /"Inputs" must not contain empty entries \(entry 3 of 3 is empty\)/],
		])('%s', async (inputs, message) => {
			const r = await f.run({ resource: 'search', operation: 'resolve', inputs });
			expect(r.error()?.message).toMatch(message);
			expect(f.requests()).toHaveLength(0);
		});

		test('101 entries in one item are sent in 11 requests, with a warning (the service limits a request, not an item)', async () => {
			const inputs = Array.from({ length: 101 }, (_, i) => `VS-${i}`).join(',');
			const r = await f.run({ resource: 'search', operation: 'resolve', inputs }, undefined, { continueOnFail: true });
			expect(f.requests().filter((q) => q.status === 200)).toHaveLength(11);
			expect(f.requests().map((q) => String(q.query.q).split(',').length).filter((n, i) => f.requests()[i].status === 200)).toEqual([...Array(10).fill(10), 1]);
			expect(r.hints()).toEqual([expect.objectContaining({ type: 'warning', message: expect.stringMatching(/"Inputs" has more than 100 entries in one item \(got 101: 11 requests/) })]);
		});

		test('256 characters and 100 entries are accepted', async () => {
			const inputs = ['y'.repeat(256), ...Array.from({ length: 99 }, (_, i) => `VS-${i}`)].join(',');
			const r = await f.run({ resource: 'search', operation: 'resolve', inputs });
			expect(r.error()).toBeUndefined();
			expect(f.requests()).toHaveLength(10);
		});
	});
});

describe('RequestWindow (the node-side 30 a minute budget)', () => {
	function fakeClock() {
		let now = 1_000_000;
		const waits: number[] = [];
		return {
			now: () => now,
			wait: async (ms: number) => {
				waits.push(ms);
				now += ms;
			},
			advance: (ms: number) => (now += ms),
			waits,
		};
	}

	test('30 requests pass at once, the 31st waits until the first leaves the window', async () => {
		const c = fakeClock();
		const w = new RequestWindow(30, 60_000, 250, c.now, c.wait);
		for (let i = 0; i < 30; i++) {
			expect(await w.acquire()).toBe(0);
			c.advance(100);
		}
		// The first request was booked at t0; now is t0 + 3000.
		expect(await w.acquire()).toBe(60_000 + 250 - 3000);
		expect(c.waits).toEqual([57_250]);
		expect(w.used).toBe(30);
	});

	test('concurrent callers never book more than 30 in any window', async () => {
		// A virtual timer queue: sleeping callers wake in time order, time moves only between wake-ups.
		let now = 0;
		const sleepers: { at: number; wake: () => void }[] = [];
		const w = new RequestWindow(30, 60_000, 0, () => now, async (ms) => {
			await new Promise<void>((wake) => sleepers.push({ at: now + ms, wake }));
		});
		const booked: number[] = [];
		const all = Promise.all(
			Array.from({ length: 75 }, async () => {
				await w.acquire();
				booked.push(now);
			}),
		);
		const flush = async () => {
			for (let i = 0; i < 20; i++) await Promise.resolve();
		};
		await flush();
		while (sleepers.length > 0) {
			sleepers.sort((a, b) => a.at - b.at);
			const next = sleepers.shift()!;
			now = Math.max(now, next.at);
			next.wake();
			await flush();
		}
		await all;
		expect(booked).toHaveLength(75);
		expect(booked.filter((t) => t === 0)).toHaveLength(30);
		for (let i = 30; i < booked.length; i++) expect(booked[i] - booked[i - 30]).toBeGreaterThanOrEqual(60_000);
	});

	test('requests older than the window no longer count', async () => {
		const c = fakeClock();
		const w = new RequestWindow(2, 1000, 0, c.now, c.wait);
		await w.acquire();
		await w.acquire();
		c.advance(1000);
		expect(await w.acquire()).toBe(0);
		expect(c.waits).toEqual([]);
	});
});
