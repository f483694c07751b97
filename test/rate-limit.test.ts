/**
 * The sandbox's service-wide rate limit (a token bucket per API key, 429 with
 * Retry-After), and the node against it in n8n: every item succeeds with the
 * default settings. No timing assertions: the checks are on outcomes.
 */
import axios from 'axios';

import { parseArgs } from '../sandbox/cli';
import { startSandbox } from '../sandbox/server';
import { items, useSandbox } from './support/fixtures';

const http = axios.create({ validateStatus: () => true });

describe('sandbox rate limit', () => {
	test('a bucket per key: the burst at once, then 429 with Retry-After in whole seconds; it refills with time', async () => {
		const sb = await startSandbox({ rateLimit: 5, rateBurst: 3 });
		// Refills follow the sandbox clock: frozen, a slow machine cannot refill the bucket between requests.
		sb.clock.freeze();
		try {
			const url = `${sb.baseUrl}/v2/core/stores/${sb.store.storeId}`;
			const as = (key: string) => ({ headers: { Authorization: `Bearer ${key}` } });
			const codes: number[] = [];
			for (let i = 0; i < 4; i++) codes.push((await http.get(url, as(sb.store.secretKey))).status);
			expect(codes).toEqual([200, 200, 200, 429]);
			const refused = await http.get(url, as(sb.store.secretKey));
			expect(refused.status).toBe(429);
			expect(refused.headers['retry-after']).toMatch(/^[1-9]\d*$/);
			expect(refused.data).toEqual({ ok: false, error: { code: 'rate_limited', message: expect.stringMatching(/5 requests per second/) } });
			// Another key has its own bucket.
			expect((await http.get(url, as(sb.store.storeTokenKey))).status).toBe(200);
			sb.clock.advance(1000);
			const after: number[] = [];
			for (let i = 0; i < 4; i++) after.push((await http.get(url, as(sb.store.secretKey))).status);
			expect(after).toEqual([200, 200, 200, 429]);
		} finally {
			await sb.close();
		}
	});

	test('off unless asked for', async () => {
		const sb = await startSandbox();
		try {
			const url = `${sb.baseUrl}/v2/core/stores/${sb.store.storeId}`;
			const codes = await Promise.all(
				Array.from({ length: 30 }, async () => (await http.get(url, { headers: { Authorization: `Bearer ${sb.store.secretKey}` } })).status),
			);
			expect(new Set(codes)).toEqual(new Set([200]));
			expect(sb.app.options.rateLimit).toBe(0);
		} finally {
			await sb.close();
		}
	});

	test('npm run sandbox takes --rate-limit and --rate-burst', () => {
		expect(parseArgs(['--rate-limit', '50'])).toEqual({ port: 5858, rateLimit: 50 });
		expect(parseArgs(['--rate-limit=50', '--rate-burst=100'])).toEqual({ port: 5858, rateLimit: 50, rateBurst: 100 });
		expect(() => parseArgs(['--rate-limit', 'fast'])).toThrow(/--rate-limit needs a non-negative number/);
	});
});

describe('the node against a rate-limited sandbox (10 requests/s, burst 10), default settings', () => {
	const f = useSandbox({ orders: 2500, rateLimit: 10, rateBurst: 10 });
	// A fresh bucket for each test.
	beforeEach(() => f.sb.clock.advance(60_000));

	test('40 items × order get: 0 failed items, input order and pairedItem kept, and the sandbox did refuse some requests', async () => {
		const ids = f.sb.state.orders.slice(0, 40).map((o) => o.id);
		const run = await f.run(
			{ resource: 'order', operation: 'get', orderId: { __rl: true, mode: 'id', value: '={{ $json.id }}' } },
			items(...ids.map((id) => ({ id }))),
		);
		expect(run.error()).toBeUndefined();
		const out = run.output();
		expect(out.map((i) => i.json.id)).toEqual(ids);
		expect(out.map((i) => (i.pairedItem as { item: number }).item)).toEqual(ids.map((_, i) => i));
		const statuses = f.requests().map((r) => r.status);
		expect(statuses.filter((s) => s === 200)).toHaveLength(40);
		expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
		expect(statuses.every((s) => s === 200 || s === 429)).toBe(true);
	});

	test('Return All over 2,500 orders (25 pages): 0 failures, every order once, each page answered once', async () => {
		const run = await f.run({ resource: 'order', operation: 'getAll', returnAll: true });
		expect(run.error()).toBeUndefined();
		const out = run.output();
		expect(out).toHaveLength(2500);
		expect(new Set(out.map((i) => i.json.id)).size).toBe(2500);
		const ok = f.requests().filter((r) => r.status === 200);
		expect(ok.map((r) => Number(r.query.page)).sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
		expect(f.requests().filter((r) => r.status === 429).length).toBeGreaterThan(0);
	});
});
