/**
 * The rules of the adaptive concurrency pool (nodes/shared/transport/concurrency.ts),
 * on a fake clock: a simulated service answers after a simulated latency, and
 * every assertion is about simulated time, never wall time.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import type { AdaptiveConcurrencyOptions } from '../nodes/shared/transport/concurrency';
import { AdaptiveConcurrency, DEFAULT_MAX_CONCURRENCY, INITIAL_CONCURRENCY, mapLimit } from '../nodes/shared/transport/concurrency';
import { paginate } from '../nodes/shared/transport/paginate';
import { Transport } from '../nodes/shared/transport/request';
import { FakeClock } from './support/fake-clock';

interface Call {
	/** Which request (input index). */
	n: number;
	attempt: number;
	sentAt: number;
	doneAt: number;
	/** Requests in flight when this one went out, itself included. */
	inFlight: number;
	status: number;
	retryAfterMs?: number;
}

interface Answer {
	status?: number;
	latencyMs?: number;
	retryAfterMs?: number;
}

/** A pool on a fake clock and a simulated service behind it. */
function simulate(options: Partial<AdaptiveConcurrencyOptions> & { max: number }, service: (call: Call, calls: Call[]) => Answer = () => ({})) {
	const clock = new FakeClock();
	// The rules below are traced from a start of 5 growing by one per success, with no turns (the node's own start, its turns
	// and start growth are tested in test/pacing.test.ts).
	const pool = new AdaptiveConcurrency({ now: clock.now, sleep: clock.sleep, initial: 5, startGrowthFactor: 2, turnGrants: 0, ...options });
	const calls: Call[] = [];
	/** One request with up to `retries` retries after 429/503, as the transport does. */
	const request = async (n: number, retries = 3): Promise<Call> => {
		for (let attempt = 0; ; attempt++) {
			const call = await pool.run(
				async () => {
					const c: Call = { n, attempt, sentAt: clock.now(), doneAt: 0, inFlight: pool.inFlight, status: 200 };
					calls.push(c);
					const a = service(c, calls);
					c.status = a.status ?? 200;
					c.retryAfterMs = a.retryAfterMs;
					await clock.sleep(a.latencyMs ?? 20);
					c.doneAt = clock.now();
					return c;
				},
				(c) =>
					c.status === 429 || c.status === 503
						? { outcome: 'overload', pauseMs: c.retryAfterMs }
						: { outcome: c.status >= 500 ? 'neutral' : 'ok' },
				{ retry: attempt > 0 },
			);
			if ((call.status !== 429 && call.status !== 503) || attempt >= retries) return call;
		}
	};
	/** Runs `count` requests as the executor runs items: at most `max` in progress, results in input order. */
	const runAll = async (count: number, retries = 3): Promise<Call[]> =>
		await clock.run(mapLimit(Array.from({ length: count }, (_, n) => n), pool.max, async (n) => await request(n, retries)));
	return { clock, pool, calls, request, runAll };
}

/** How many requests went out at each instant, in time order. */
function sendsPerInstant(calls: Call[]): [number, number][] {
	const counts = new Map<number, number>();
	for (const c of calls) counts.set(c.sentAt, (counts.get(c.sentAt) ?? 0) + 1);
	return [...counts.entries()].sort((a, b) => a[0] - b[0]);
}

describe('adaptive concurrency: growth', () => {
	test('starts at 5 and doubles every round trip while latency holds, never past the ceiling', async () => {
		const { pool, calls, runAll } = simulate({ max: 40 });
		await runAll(300);
		expect(sendsPerInstant(calls).slice(0, 6)).toEqual([
			[0, 5],
			[20, 10],
			[40, 20],
			[60, 40],
			[80, 40],
			[100, 40],
		]);
		expect(Math.max(...calls.map((c) => c.inFlight))).toBe(40);
		expect(pool.peakInFlight).toBe(40);
		expect(pool.limit).toBe(40);
		expect(pool.backoffs).toBe(0);
	});

	test('a slower answer holds the limit: a service three times slower from t = 40 on keeps it at 20 below a ceiling of 50', async () => {
		const { pool, calls, runAll } = simulate({ max: 50 }, (c) => ({ latencyMs: c.sentAt >= 40 ? 60 : 20 }));
		await runAll(400);
		// 5, then 10 (fast answers), then 20 (answers of 60 ms: more than 2 × 20 ms + 5 ms): no further growth,
		// and no cut either (60 ms is below 4 × 20 ms + 5 ms).
		expect(pool.peakLimit).toBe(20);
		expect(Math.max(...calls.map((c) => c.inFlight))).toBe(20);
		expect(pool.limit).toBe(20);
		expect(pool.slowCuts).toBe(0);
	});

	test('answers that get much slower (rising latency) bring the limit back toward its start, never below it', async () => {
		const { pool, calls, runAll } = simulate({ max: 50 }, (c) => ({ latencyMs: c.sentAt >= 40 ? 100 : 20 }));
		await runAll(400);
		// 5, 10, 20; then answers of 100 ms (above 4 × 20 ms + 5 ms once the usual latency gets there):
		// a tenth off per round, down to the start (5) and no lower.
		expect(pool.peakLimit).toBe(20);
		expect(Math.max(...calls.map((c) => c.inFlight))).toBe(20);
		expect(pool.slowCuts).toBeGreaterThan(0);
		expect(pool.limit).toBe(5);
		expect(Math.max(...calls.filter((c) => c.sentAt >= 2000).map((c) => c.inFlight))).toBe(5);
		expect(pool.backoffs).toBe(0);
	});

	test('a service that slows down under load stops the growth where answers get slow', async () => {
		const { pool, calls, runAll } = simulate({ max: 50 }, (c) => ({ latencyMs: c.inFlight > 12 ? 60 : 20 }));
		await runAll(400);
		// Only answers to requests sent with at most 12 in flight are fast enough to add one.
		const before = Math.max(...calls.filter((c) => c.sentAt <= 100).map((c) => c.inFlight));
		expect(before).toBeLessThan(30);
		expect(Math.max(...calls.map((c) => c.inFlight))).toBe(before);
		expect(pool.peakLimit).toBe(before);
	});

	test('latency is measured from the fastest answer seen: a uniformly slow service still grows', async () => {
		const { pool, runAll } = simulate({ max: 30 }, () => ({ latencyMs: 400 }));
		await runAll(200);
		expect(pool.peakLimit).toBe(30);
	});
});

describe('adaptive concurrency: back-off', () => {
	test('a round of 429s halves the limit once, not once per answer', async () => {
		// Slow start to 40 (sent at t = 60), then every request sent at t = 80 gets a 429.
		const { pool, calls, runAll } = simulate({ max: 40, throughputWindowMs: 0 }, (c) => ({ status: c.sentAt === 80 ? 429 : 200 }));
		await runAll(200);
		expect(calls.filter((c) => c.status === 429)).toHaveLength(40);
		expect(pool.backoffs).toBe(1);
		// The retries and everything after go out 20 at a time.
		expect(sendsPerInstant(calls).find(([t]) => t === 100)).toEqual([100, 20]);
		expect(Math.max(...calls.filter((c) => c.sentAt > 80).map((c) => c.inFlight))).toBe(20);
		expect(calls.filter((c) => c.status === 200)).toHaveLength(200);
	});

	test('a 503 halves the limit too; other 5xx do not move it', async () => {
		const halved = simulate({ max: 40, throughputWindowMs: 0 }, (c) => ({ status: c.sentAt === 80 && c.n === 100 ? 503 : 200 }));
		await halved.runAll(160);
		expect(halved.pool.backoffs).toBe(1);
		expect(halved.pool.limit).toBe(20);

		const kept = simulate({ max: 40, throughputWindowMs: 0 }, (c) => ({ status: c.sentAt === 80 && c.n === 100 ? 500 : 200 }));
		await kept.runAll(160);
		expect(kept.pool.backoffs).toBe(0);
		expect(kept.pool.limit).toBe(40);
	});

	test('the limit never goes below 1', async () => {
		const { pool, calls, runAll } = simulate({ max: 8, throughputWindowMs: 0 }, (c) => ({ status: c.attempt < 3 ? 429 : 200 }));
		await runAll(10);
		expect(pool.limit).toBeGreaterThanOrEqual(1);
		expect(calls.filter((c) => c.status === 200)).toHaveLength(10);
	});

	test('a back-off also caps the limit at what the service let through (successes per second × latency)', async () => {
		// 40 in flight by t = 60; from t = 80 the service lets 10 requests a second through (429, Retry-After 1 s, otherwise).
		let allowed = 0;
		let windowStart = 80;
		const sim = simulate({ max: 40 }, (c) => {
			if (c.sentAt < 80) return {};
			if (c.sentAt - windowStart >= 1000) {
				windowStart = c.sentAt;
				allowed = 0;
			}
			return allowed++ < 10 ? {} : { status: 429, retryAfterMs: 1000 };
		});
		const { calls } = { calls: sim.calls };
		await sim.runAll(200);
		const sent = (from: number, to: number) => calls.filter((c) => c.sentAt >= from && c.sentAt < to);
		// First back-off when the 429s of t = 80 come back (t = 100): 85 successes in the 100 ms so far,
		// × 20 ms = 17 in flight (halving alone: 20). The 429s of requests sent at t = 100 extend the
		// pause to t = 1120 but do not cut again (they were sent before the back-off).
		expect(sent(101, 1120)).toHaveLength(0);
		expect(Math.max(...sent(1120, 1140).map((c) => c.inFlight))).toBe(17);
		// Second back-off at t = 1140: 10 successes in the last second × 20 ms is less than one: 1 (halving: 8).
		expect(sent(1141, 2160)).toHaveLength(0);
		expect(Math.max(...sent(2160, 3160).map((c) => c.inFlight))).toBe(1);
		expect(sim.calls.filter((c) => c.status === 200)).toHaveLength(200);
	});});

describe('adaptive concurrency: Retry-After', () => {
	test('a Retry-After pauses every request of the pool, also those already holding a slot, then sending resumes', async () => {
		// The first answer (sent at 0, back at 20) is a 429 asking for 1 s.
		const { calls, runAll } = simulate({ max: 10 }, (c) => (c.n === 0 && c.attempt === 0 ? { status: 429, retryAfterMs: 1000 } : {}));
		await runAll(30);
		const late = calls.filter((c) => c.sentAt > 0);
		expect(late.length).toBeGreaterThan(0);
		// Nothing went out between the 429 (t = 20) and the end of the pause (t = 1020).
		expect(late.every((c) => c.sentAt >= 1020)).toBe(true);
		// The refused request is sent again first, once the pause is over.
		expect(late[0]).toEqual(expect.objectContaining({ n: 0, attempt: 1, sentAt: 1020 }));
		expect(calls.filter((c) => c.status === 200).map((c) => c.n).sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i));
	});

	test('after a back-off the limit grows by one per second at most, counted from the end of the pause', async () => {
		const { calls, runAll } = simulate({ max: 40, throughputWindowMs: 0 }, (c) =>
			c.sentAt === 80 && c.attempt === 0 && c.n === 75 ? { status: 429, retryAfterMs: 1000 } : {},
		);
		await runAll(3000);
		// Back-off at t = 100 (40 → 20), pause until 1100; growth at 2100, 3100, ... (one step each).
		const peakBetween = (from: number, to: number) =>
			Math.max(...calls.filter((c) => c.sentAt >= from && c.sentAt < to).map((c) => c.inFlight));
		expect(peakBetween(1100, 2100)).toBe(20);
		expect(peakBetween(2100, 2120)).toBe(21);
		expect(peakBetween(2120, 3100)).toBe(21);
		expect(peakBetween(3100, 3200)).toBe(22);
	});
});

describe('adaptive concurrency: order and the ceiling', () => {
	test('concurrency 1 sends strictly one request at a time, also with retries and pauses', async () => {
		const { pool, calls, runAll } = simulate({ max: 1 }, (c) => ({
			latencyMs: 5 + ((c.n * 7) % 23),
			...(c.n % 9 === 4 && c.attempt === 0 ? { status: 429, retryAfterMs: 300 } : {}),
		}));
		const results = await runAll(40);
		expect(pool.peakInFlight).toBe(1);
		for (let i = 1; i < calls.length; i++) expect(calls[i].sentAt).toBeGreaterThanOrEqual(calls[i - 1].doneAt);
		expect(results.map((c) => c.n)).toEqual(Array.from({ length: 40 }, (_, i) => i));
		expect(results.every((c) => c.status === 200)).toBe(true);
	});

	test('results keep input order whatever the latencies, and the ceiling holds', async () => {
		const { pool, calls, runAll } = simulate({ max: 16 }, (c) => ({ latencyMs: 1 + ((c.n * 37) % 61) }));
		const results = await runAll(500);
		expect(results.map((c) => c.n)).toEqual(Array.from({ length: 500 }, (_, i) => i));
		expect(pool.peakInFlight).toBeLessThanOrEqual(16);
		expect(Math.max(...calls.map((c) => c.inFlight))).toBeLessThanOrEqual(16);
		// Requests left in input order.
		expect(calls.map((c) => c.n)).toEqual(Array.from({ length: 500 }, (_, i) => i));
	});

	test('slots go first come, first served; retries before requests not sent yet', async () => {
		const clock = new FakeClock();
		const pool = new AdaptiveConcurrency({ max: 1, now: clock.now, sleep: clock.sleep });
		const order: string[] = [];
		const first = await pool.acquire();
		const waiters = [
			pool.acquire().then((p) => (order.push('a'), p)),
			pool.acquire().then((p) => (order.push('b'), p)),
			pool.acquire(true).then((p) => (order.push('retry'), p)),
		];
		expect(pool.waiting).toBe(3);
		pool.release(first, 'ok');
		for (const w of [waiters[2], waiters[0], waiters[1]]) pool.release(await clock.run(w), 'ok');
		expect(order).toEqual(['retry', 'a', 'b']);
		expect(pool.inFlight).toBe(0);
	});
});

describe('adaptive concurrency: against a rate limit', () => {
	/** A token bucket like the sandbox's: `rate` a second, `burst` at once, Retry-After in whole seconds. */
	function tokenBucket(rate: number, burst: number, now: () => number) {
		let tokens = burst;
		let at = 0;
		return (): Answer => {
			tokens = Math.min(burst, tokens + ((now() - at) * rate) / 1000);
			at = now();
			if (tokens >= 1) {
				tokens -= 1;
				return {};
			}
			return { status: 429, retryAfterMs: 1000 * Math.max(1, Math.ceil((1 - tokens) / rate)) };
		};
	}

	test('1,000 requests against 50 requests/s (burst 50), default ceiling, a fixed start of 128: all succeed, few 429s, close to the ideal time', async () => {
		const clock = new FakeClock();
		const bucket = tokenBucket(50, 50, clock.now);
		// The window's rules alone (the open start needs the node's CPU in the model: test/pacing.test.ts).
		const pool = new AdaptiveConcurrency({ max: DEFAULT_MAX_CONCURRENCY, initial: INITIAL_CONCURRENCY, turnGrants: 0, now: clock.now, sleep: clock.sleep });
		let r429 = 0;
		const one = async (n: number): Promise<number> => {
			for (let attempt = 0; ; attempt++) {
				const a = await pool.run(
					async () => {
						const answer = bucket();
						await clock.sleep(20 + (n % 3));
						return answer;
					},
					(x) => (x.status === 429 ? { outcome: 'overload', pauseMs: x.retryAfterMs } : { outcome: 'ok' }),
					{ retry: attempt > 0 },
				);
				if (a.status !== 429) return n;
				r429++;
				if (attempt === 3) throw new Error(`request ${n} failed after 4 attempts`);
			}
		};
		const results = await clock.run(mapLimit(Array.from({ length: 1000 }, (_, n) => n), pool.max, one));
		expect(results).toEqual(Array.from({ length: 1000 }, (_, n) => n));
		const ideal = (1000 / 50) * 1000;
		expect(clock.now()).toBeLessThanOrEqual(1.3 * ideal);
		// The first window of 128 (INITIAL_CONCURRENCY) costs its share above the burst; test/pacing.test.ts traces it.
		expect(r429).toBeLessThanOrEqual(150);
	});
});

describe('the transport and Return All use the pool', () => {
	/** A fake n8n context whose HTTP helper answers from `reply` after 20 ms on the fake clock. */
	function fakeContext(clock: FakeClock, reply: (url: URL, sentAt: number) => { statusCode: number; body: unknown; headers?: Record<string, string> }) {
		const sent: { url: URL; at: number }[] = [];
		const http = async (_name: unknown, options: { url: string; qs?: Record<string, unknown> }) => {
			const url = new URL(options.url);
			for (const [k, v] of Object.entries(options.qs ?? {})) url.searchParams.set(k, String(v));
			const at = clock.now();
			sent.push({ url, at });
			const answer = reply(url, at);
			await clock.sleep(20);
			return { headers: {}, ...answer };
		};
		const ctx = {
			getNode: () => ({ name: 'Vault Store', type: 'vaultStore', typeVersion: 1, parameters: {} }),
			getCredentials: async () => ({
				baseUrl: 'http://127.0.0.1:9',
				storeId: 'shp_fakeclock01',
				secretKey: 'sk_fake_clock_key',
				signingSecret: '',
			}),
			helpers: { httpRequestWithAuthentication: http, httpRequest: async (o: never) => await http(undefined, o) },
		} as unknown as IExecuteFunctions;
		return { ctx, sent };
	}

	test('a 429 with Retry-After through the transport pauses every request of the pool; the request then succeeds', async () => {
		const clock = new FakeClock();
		const pool = new AdaptiveConcurrency({ max: 8, initial: 5, startGrowthFactor: 2, now: clock.now, sleep: clock.sleep });
		let refused = false;
		const { ctx, sent } = fakeContext(clock, (url) => {
			if (url.pathname.endsWith('/orders/ord_0000000003') && !refused) {
				refused = true;
				return { statusCode: 429, body: { ok: false }, headers: { 'retry-after': '2' } };
			}
			return { statusCode: 200, body: { ok: true, data: { id: url.pathname.split('/').pop() } } };
		});
		const transport = new Transport(ctx, 'vaultStoreStoreApi', undefined, pool);
		const ids = Array.from({ length: 24 }, (_, i) => `ord_${String(i).padStart(10, '0')}`);
		const out = await clock.run(
			mapLimit(ids, pool.max, async (id) => (await transport.request({ family: 'core', method: 'GET', path: `/orders/${id}` })).data),
		);
		expect(out).toEqual(ids.map((id) => ({ id })));
		// The 429 came back at t = 20, after the answers of ord_0..2 (each freed its slot and added
		// one: six more started). Nothing was sent from then until t = 2020; then the refused request went first.
		expect(sent.filter((s) => s.at === 20)).toHaveLength(6);
		expect(sent.filter((s) => s.at > 20 && s.at < 2020)).toHaveLength(0);
		expect(sent.find((s) => s.at === 2020)?.url.pathname).toMatch(/ord_0000000003$/);
		expect(pool.backoffs).toBe(1);
	});

	test('Return All fetches its pages through the same pool: never more in flight than its limit, every page once, in order', async () => {
		const clock = new FakeClock();
		const pool = new AdaptiveConcurrency({ max: 12, initial: 5, startGrowthFactor: 2, now: clock.now, sleep: clock.sleep });
		let inFlight = 0;
		let peak = 0;
		const { ctx, sent } = fakeContext(clock, (url) => {
			const page = Number(url.searchParams.get('page'));
			inFlight++;
			peak = Math.max(peak, inFlight);
			void clock.sleep(20).then(() => inFlight--);
			const items = Array.from({ length: 100 }, (_, i) => ({ id: `ord_${page}_${i}` }));
			return { statusCode: 200, body: { ok: true, data: { items, pagination: { page, totalPages: 40, total: 4000 } } } };
		});
		const transport = new Transport(ctx, 'vaultStoreStoreApi', undefined, pool);
		const records = await clock.run(
			paginate(transport, { family: 'core', method: 'GET', path: '/orders' }, { returnAll: true, limit: 0, concurrency: pool.max }),
		);
		expect(records).toHaveLength(4000);
		expect(records[0].id).toBe('ord_1_0');
		expect(records[3999].id).toBe('ord_40_99');
		expect(sent).toHaveLength(40);
		expect(peak).toBeLessThanOrEqual(12);
		expect(pool.peakInFlight).toBeLessThanOrEqual(12);
		// Slow start: page 1 alone (its answer adds one to the 5), then more as answers come back.
		expect(sent.filter((s) => s.at === 0)).toHaveLength(1);
		expect(sent.filter((s) => s.at === 20)).toHaveLength(6);
	});
});
