/**
 * How the node's pool opens its window (nodes/shared/transport/concurrency.ts), with its
 * default settings, on a fake clock: the start (INITIAL_CONCURRENCY), the growth by
 * START_GROWTH_FACTOR once per round trip while answers hold their latency, and what that
 * start costs against a rate limit like the sandbox's (sandbox/ratelimit.ts: 50 requests/s,
 * burst 50, 429 with Retry-After). Every assertion is about simulated time.
 */
import {
	AdaptiveConcurrency,
	DEFAULT_MAX_CONCURRENCY,
	INITIAL_CONCURRENCY,
	START_GROWTH_FACTOR,
	mapLimit,
} from '../nodes/shared/transport/concurrency';
import { FakeClock } from './support/fake-clock';

interface Answer {
	status: number;
	retryAfterMs?: number;
}

/** A token bucket like the sandbox's: `rate` a second, `burst` at once, Retry-After in whole seconds. */
function tokenBucket(rate: number, burst: number, now: () => number): () => Answer {
	let tokens = burst;
	let at = 0;
	return () => {
		tokens = Math.min(burst, tokens + ((now() - at) * rate) / 1000);
		at = now();
		if (tokens >= 1) {
			tokens -= 1;
			return { status: 200 };
		}
		return { status: 429, retryAfterMs: 1000 * Math.max(1, Math.ceil((1 - tokens) / rate)) };
	};
}

/**
 * `count` requests through a default pool as the node sends items (every item asks for a slot at
 * once), each retried after a 429 up to 3 times as the transport does. `latency(n, sentAt)` is
 * the service's answer time; `service()` its verdict at the moment a request arrives.
 */
async function drive(
	count: number,
	options: { max?: number; initial?: number; latency?: (n: number, sentAt: number) => number; service?: () => Answer; clock?: FakeClock } = {},
) {
	const clock = options.clock ?? new FakeClock();
	const pool = new AdaptiveConcurrency({ max: options.max ?? DEFAULT_MAX_CONCURRENCY, initial: options.initial, now: clock.now, sleep: clock.sleep });
	const sends: { n: number; at: number; status: number }[] = [];
	let failed = 0;
	const one = async (n: number): Promise<void> => {
		for (let attempt = 0; ; attempt++) {
			const a = await pool.run(
				async () => {
					const at = clock.now();
					const answer = options.service?.() ?? { status: 200 };
					sends.push({ n, at, status: answer.status });
					await clock.sleep(options.latency?.(n, at) ?? 20);
					return answer;
				},
				(x) => (x.status === 429 ? { outcome: 'overload', pauseMs: x.retryAfterMs } : { outcome: 'ok' }),
				{ retry: attempt > 0 },
			);
			if (a.status !== 429) return;
			if (attempt === 3) {
				failed++;
				return;
			}
		}
	};
	await clock.run(mapLimit(Array.from({ length: count }, (_, n) => n), pool.max, one));
	const perInstant = [...sends.reduce((m, s) => m.set(s.at, (m.get(s.at) ?? 0) + 1), new Map<number, number>())];
	return { clock, pool, sends, failed, perInstant, r429: sends.filter((s) => s.status === 429).length };
}

describe('pacing: the start', () => {
	test('the node starts at 128 and multiplies by 8 per round trip on a healthy service: 128, then the ceiling of 1000', async () => {
		expect(INITIAL_CONCURRENCY).toBe(128);
		expect(START_GROWTH_FACTOR).toBe(8);
		const { perInstant, pool } = await drive(5000);
		// Sends at each instant: the first round, then the ceiling (128 x 8 is past it).
		expect(perInstant.slice(0, 3)).toEqual([
			[0, 128],
			[20, 1000],
			[40, 1000],
		]);
		expect(pool.peakInFlight).toBe(1000);
		expect(pool.peakLimit).toBe(1000);
	});

	test('1,000 items at 20 ms are all sent within one round trip (the old start of 32 doubling per round trip took five)', async () => {
		const { sends } = await drive(1000);
		expect(Math.max(...sends.map((s) => s.at))).toBe(20);
		const old = new FakeClock();
		const pool = new AdaptiveConcurrency({ max: 1000, initial: 32, startGrowthFactor: 2, now: old.now, sleep: old.sleep });
		const at: number[] = [];
		await old.run(mapLimit(Array.from({ length: 1000 }, (_, n) => n), 1000, async () => await pool.run(async () => (at.push(old.now()), await old.sleep(20)), () => ({ outcome: 'ok' }))));
		expect(Math.max(...at)).toBe(100);
	});

	test('at 100 ms the window reaches the ceiling after one round trip', async () => {
		const { perInstant } = await drive(3000, { latency: () => 100 });
		expect(perInstant.slice(0, 3)).toEqual([
			[0, 128],
			[100, 1000],
			[200, 1000],
		]);
	});

	test('a round grows the window only once its last request is answered: early answers of the round only refill their slots', async () => {
		// The last request of the first round (the 128th) is slow; the others answer at 20 ms.
		const { perInstant, pool } = await drive(2000, { latency: (n) => (n === 127 ? 30 : 20) });
		// At 20 the 127 answers each free one slot (127 sends, no growth); at 30 the round's last answer opens the window to the ceiling.
		expect(perInstant.slice(0, 3)).toEqual([
			[0, 128],
			[20, 127],
			[30, 1000 - 127],
		]);
		expect(pool.backoffs).toBe(0);
	});

	test('the ceiling holds: with Concurrency 500 the window goes 128, then 500; with Concurrency 50 it starts at 50', async () => {
		const { perInstant, pool } = await drive(2000, { max: 500 });
		expect(perInstant.slice(0, 2)).toEqual([
			[0, 128],
			[20, 500],
		]);
		expect(pool.peakInFlight).toBe(500);
		const small = await drive(500, { max: 50 });
		expect(small.perInstant[0]).toEqual([0, 50]);
		expect(small.pool.peakInFlight).toBe(50);
	});

	test('an answer out of time after the first round ends the fast start: from there one more per success, as before', async () => {
		// Traced from a start of 8: round 1 answers in 20 ms; from t = 20 on every answer takes 100 ms (more than 4x the fastest + 5 ms).
		const { pool, perInstant } = await drive(3000, { initial: 8, latency: (_n, sentAt) => (sentAt >= 20 ? 100 : 20) });
		expect(perInstant.slice(0, 2)).toEqual([
			[0, 8],
			[20, 64],
		]);
		// The answers of round two came slow: no multiplication by 8 again, and none holds its latency for one more each.
		expect(pool.peakLimit).toBe(64);
		expect(pool.peakInFlight).toBe(64);
	});

	test('in the start, answers delayed up to 4x the fastest (the node busy sending a big round) still count as in time', async () => {
		// Round 1 answers in 20 ms; answers to later sends take 60 ms: within 4x 20 + 5, so the start goes on to the ceiling.
		const { pool } = await drive(5000, { initial: 8, latency: (_n, sentAt) => (sentAt >= 20 ? 60 : 20) });
		expect(pool.peakLimit).toBe(1000);
	});

	test('a service that answers in 1 ms still gets the fast start (scheduling slack of 5 ms)', async () => {
		const { perInstant } = await drive(2000, { latency: (n) => 1 + (n % 3) });
		expect(perInstant[0]).toEqual([0, 128]);
		expect(Math.max(...perInstant.map(([, c]) => c))).toBeGreaterThanOrEqual(400);
	});

	test('a slot taken before the item is read (as the node takes it) and then used counts once in the round', async () => {
		const clock = new FakeClock();
		const pool = new AdaptiveConcurrency({ max: DEFAULT_MAX_CONCURRENCY, now: clock.now, sleep: clock.sleep });
		const bucket = tokenBucket(50, 50, clock.now);
		const sends: { at: number; status: number }[] = [];
		await clock.run(
			mapLimit(Array.from({ length: 300 }, (_, n) => n), pool.max, async () => {
				const held = await pool.acquire();
				for (let attempt = 0; attempt < 4; attempt++) {
					const a = await pool.run(
						async () => {
							const answer = bucket();
							sends.push({ at: clock.now(), status: answer.status });
							await clock.sleep(20);
							return answer;
						},
						(x) => (x.status === 429 ? { outcome: 'overload', pauseMs: x.retryAfterMs } : { outcome: 'ok' }),
						attempt === 0 ? { held } : { retry: true },
					);
					if (a.status !== 429) return;
				}
				throw new Error('failed');
			}),
		);
		// The first round's 50 successes did not end the round (its 64th request got a 429): no growth to 512.
		expect(pool.peakLimit).toBe(INITIAL_CONCURRENCY);
		expect(sends.filter((s) => s.at <= 20).length).toBeLessThanOrEqual(INITIAL_CONCURRENCY + 50);
	});
});

describe('pacing: the start against a rate limit (50 requests/s, burst 50)', () => {
	const RATE = 50;
	const BURST = 50;

	test('1,000 items: none fails, within 1.3x of the ideal time, and at most 150 429s (the HTTP Request node draws ~950)', async () => {
		const clock = new FakeClock();
		const { failed, r429, sends, pool } = await drive(1000, { clock, service: tokenBucket(RATE, BURST, clock.now), latency: (n) => 20 + (n % 3) });
		const ideal = (1000 / RATE) * 1000;
		expect(failed).toBe(0);
		expect(sends.filter((s) => s.status === 200)).toHaveLength(1000);
		expect(clock.now()).toBeLessThanOrEqual(1.3 * ideal);
		expect(r429).toBeLessThanOrEqual(150);
		// The fast start never happened: the first round's 429s ended it.
		expect(pool.peakLimit).toBe(INITIAL_CONCURRENCY);
	});

	test('before the first 429 comes back, only the first window and one refill of the burst go out', async () => {
		const clock = new FakeClock();
		const { sends } = await drive(1000, { clock, service: tokenBucket(RATE, BURST, clock.now) });
		const first429Back = 20;
		const before = sends.filter((s) => s.at <= first429Back);
		// 64 at t = 0, then one send per answer of the first 50 (the round has not ended: no growth).
		expect(before.length).toBeLessThanOrEqual(INITIAL_CONCURRENCY + BURST);
		// Then the Retry-After pause: nothing until a second has passed.
		expect(sends.filter((s) => s.at > first429Back && s.at < 1000)).toHaveLength(0);
	});

	test('10,000 items: none fails, within 1.3x of the ideal time, 429s a small share of the requests', async () => {
		const clock = new FakeClock();
		const { failed, r429 } = await drive(10_000, { clock, service: tokenBucket(RATE, BURST, clock.now) });
		const ideal = (10_000 / RATE) * 1000;
		expect(failed).toBe(0);
		expect(clock.now()).toBeLessThanOrEqual(1.3 * ideal);
		expect(r429).toBeLessThanOrEqual(0.25 * 10_000 * 0.95);
	});

	test('a burst larger than the first window (200/s, burst 600): the start grows fast, no item fails, fewer 429s than sending every item at once', async () => {
		const clock = new FakeClock();
		const { failed, r429, perInstant } = await drive(2000, { clock, service: tokenBucket(200, 600, clock.now) });
		expect(perInstant.slice(0, 2)).toEqual([
			[0, 128],
			[20, 1000],
		]);
		expect(failed).toBe(0);
		// Sending all 2,000 at once draws 2,000 - 600 = 1,400; the ceiling round of 1,000 overshoots, the back-off then holds.
		expect(r429).toBeLessThan(2000 - 600);
	});
});
