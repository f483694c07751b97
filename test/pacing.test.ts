/**
 * How the node's pool opens its window (nodes/shared/transport/concurrency.ts), with its
 * default settings, on a fake clock: the open start (the window is the ceiling until the first
 * answer, the sends go out TURN_GRANTS per turn), the growth by START_GROWTH_FACTOR once per round
 * trip while answers hold their latency, and what that start costs against a rate limit like
 * the sandbox's (sandbox/ratelimit.ts: 50 requests/s, burst 50, 429 with Retry-After).
 *
 * The node's own CPU is part of the model: one core sends a request in SEND_CPU_MS and reads an
 * answer in ANSWER_CPU_MS (about what `npm run bench` measures per item, 0.24 ms), one thing at a
 * time. Without it the open start would send thousands of requests in the first round trip on the
 * fake clock, which no real node can. Every assertion is about simulated time.
 */
import {
	AdaptiveConcurrency,
	DEFAULT_MAX_CONCURRENCY,
	INITIAL_CONCURRENCY,
	START_GROWTH_FACTOR,
	TURN_GRANTS,
	TURN_MS,
	mapLimit,
} from '../nodes/shared/transport/concurrency';
import { FakeClock } from './support/fake-clock';

interface Answer {
	status: number;
	retryAfterMs?: number;
}

const SEND_CPU_MS = 0.15;
const ANSWER_CPU_MS = 0.1;

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
 * One core on the fake clock: work waits for the core, then takes `ms` of it (`use`); a timer
 * fires only once the core is free (`idle`), as the event loop runs timers between callbacks.
 */
function core(clock: FakeClock) {
	let freeAt = 0;
	return {
		use: async (ms: number) => {
			freeAt = Math.max(clock.now(), freeAt) + ms;
			await clock.sleep(freeAt - clock.now());
		},
		idle: async () => {
			while (freeAt > clock.now()) await clock.sleep(freeAt - clock.now());
		},
	};
}

/**
 * `count` requests through a default pool as the node sends items (every item asks for a slot at
 * once), each retried after a 429 up to 3 times as the transport does. `latency(n, sentAt)` is
 * the service's answer time; `service()` its verdict at the moment a request arrives. `cpu: false`
 * leaves the node's CPU out (sends cost no time: only the turns pace them).
 */
async function drive(
	count: number,
	options: {
		max?: number;
		initial?: number;
		latency?: (n: number, sentAt: number) => number;
		service?: () => Answer;
		clock?: FakeClock;
		cpu?: boolean;
	} = {},
) {
	const clock = options.clock ?? new FakeClock();
	const node = options.cpu === false ? undefined : core(clock);
	const cpu = async (ms: number) => await node?.use(ms);
	// The pool's timers (its turns, Retry-After pauses) wait for the core too.
	const sleep = async (ms: number) => {
		await clock.sleep(ms);
		await node?.idle();
	};
	const pool = new AdaptiveConcurrency({ max: options.max ?? DEFAULT_MAX_CONCURRENCY, initial: options.initial, now: clock.now, sleep });
	const sends: { n: number; at: number; status: number }[] = [];
	let failed = 0;
	const one = async (n: number): Promise<void> => {
		for (let attempt = 0; ; attempt++) {
			const a = await pool.run(
				async () => {
					await cpu(SEND_CPU_MS);
					const at = clock.now();
					const answer = options.service?.() ?? { status: 200 };
					sends.push({ n, at, status: answer.status });
					await clock.sleep(options.latency?.(n, at) ?? 20);
					await cpu(ANSWER_CPU_MS);
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
	return { clock, pool, sends, failed, perInstant, r429: sends.filter((s) => s.status === 429).length, end: clock.now() };
}

/** The longest time between two consecutive sends up to the last one. */
function longestGap(sends: { at: number }[]): number {
	const at = sends.map((s) => s.at).sort((a, b) => a - b);
	return Math.max(0, ...at.slice(1).map((t, i) => t - at[i]));
}

describe('pacing: the open start and the turns', () => {
	test('constants: turns of 32 requests of at least 1 ms, growth by 8 per round trip after the first answer', () => {
		expect(TURN_GRANTS).toBe(32);
		expect(TURN_MS).toBe(1);
		expect(START_GROWTH_FACTOR).toBe(8);
	});

	test('the sends go out in turns: never more than 32 at one instant, even with the window at the ceiling and sends that cost no CPU', async () => {
		const { perInstant, pool } = await drive(3000, { cpu: false });
		expect(Math.max(...perInstant.map(([, c]) => c))).toBe(TURN_GRANTS);
		// Until the first answer (20 ms) the window is the ceiling: 32 a turn, one turn a ms.
		expect(perInstant.filter(([t]) => t < 20).map(([, c]) => c)).toEqual(Array.from({ length: 20 }, () => TURN_GRANTS));
		expect(pool.peakInFlight).toBeLessThanOrEqual(DEFAULT_MAX_CONCURRENCY);
	});

	test('until the first answer comes back the node sends as fast as its CPU goes: a service 20 ms away gets what it sends in 20 ms', async () => {
		const { sends } = await drive(1000);
		const firstRound = sends.filter((s) => s.at < 20 + SEND_CPU_MS).length;
		// 20 ms / 0.15 ms a send: about 133.
		expect(firstRound).toBeGreaterThanOrEqual(120);
		expect(firstRound).toBeLessThanOrEqual(140);
	});

	test('at 100 ms the node never waits a round trip: it sends without a pause until every item is out, as fast as its CPU allows', async () => {
		const { sends, end } = await drive(1000, { latency: () => 100 });
		// No wait of a round trip: the first round is every send of the first 100 ms, the answers refill and grow it
		// (the longest gap is a stretch where the core only reads answers).
		expect(longestGap(sends)).toBeLessThan(15);
		// All sent within the CPU's time for 1,000 sends and the answers that arrive meanwhile, plus one round trip:
		// the old start (128, then a round trip's wait) ended after two.
		const cpuBound = 1000 * (SEND_CPU_MS + ANSWER_CPU_MS);
		expect(end).toBeLessThanOrEqual(cpuBound + 100 + 10);
		const old = await drive(1000, { latency: () => 100, initial: INITIAL_CONCURRENCY });
		expect(old.end).toBeGreaterThan(end + 50);
		expect(longestGap(old.sends)).toBeGreaterThan(60);
	});

	test('after the first answer the window is the first round; it multiplies by 8 when the round is answered in time', async () => {
		const { pool } = await drive(5000);
		// The first round (about 133) x 8, past the ceiling: 1000.
		expect(pool.peakLimit).toBe(DEFAULT_MAX_CONCURRENCY);
		expect(pool.backoffs).toBe(0);
	});

	test('a round grows the window only once its last request is answered: early answers of the round only refill their slots', async () => {
		// The first round's last request is slow (40 ms instead of 20): until it is in, the window holds at the first round.
		const clock = new FakeClock();
		const first = await drive(2000, { clock, latency: (n, at) => (at < 20 && n > 100 && n < 140 ? 40 : 20) });
		expect(first.pool.backoffs).toBe(0);
		const before = first.sends.filter((s) => s.at >= 20 && s.at < 40);
		const firstRound = first.sends.filter((s) => s.at < 20).length;
		// Between the first answer and the slow one, in flight never passes the first round.
		expect(before.length).toBeLessThanOrEqual(firstRound);
	});

	test('the ceiling holds: Concurrency 500 never has more than 500 in flight; a ceiling at or below 128 starts there (no open start)', async () => {
		const { pool } = await drive(3000, { max: 500 });
		expect(pool.peakInFlight).toBeLessThanOrEqual(500);
		expect(pool.peakLimit).toBe(500);
		const small = await drive(500, { max: 50, cpu: false });
		expect(small.pool.peakInFlight).toBe(50);
		// 50 at once are more than a turn: 32, then 18 a turn later.
		expect(small.perInstant.slice(0, 2)).toEqual([
			[0, 32],
			[1, 18],
		]);
	});

	test('an answer out of time after the first round ends the fast start: from there one more per success, as before', async () => {
		// Traced from a fixed start of 8: round 1 answers in 20 ms; from t = 20 on every answer takes 100 ms (more than 4x the fastest + 5 ms).
		const { pool, perInstant } = await drive(3000, { initial: 8, cpu: false, latency: (_n, sentAt) => (sentAt >= 20 ? 100 : 20) });
		expect(perInstant.slice(0, 3)).toEqual([
			[0, 8],
			[20, 32],
			[21, 32],
		]);
		// The answers of round two came slow: no multiplication by 8 again, and none holds its latency for one more each.
		expect(pool.peakLimit).toBe(64);
		expect(pool.peakInFlight).toBe(64);
	});

	test('in the start, answers delayed up to 4x the fastest (the node busy sending a big round) still count as in time', async () => {
		const { pool } = await drive(5000, { latency: (_n, sentAt) => (sentAt >= 20 ? 60 : 20) });
		expect(pool.peakLimit).toBe(1000);
	});

	test('a service that answers in 1 ms still gets the fast start (scheduling slack of 5 ms)', async () => {
		const { pool } = await drive(3000, { latency: (n) => 1 + (n % 3) });
		expect(pool.backoffs).toBe(0);
		expect(pool.peakLimit).toBeGreaterThanOrEqual(64);
	});
});

describe('pacing: the start against a rate limit (50 requests/s, burst 50)', () => {
	const RATE = 50;
	const BURST = 50;

	test('1,000 items: none fails, within 1.3x of the ideal time, and at most 237 429s (a quarter of the ~950 the HTTP Request node draws)', async () => {
		const clock = new FakeClock();
		const { failed, r429, sends, pool } = await drive(1000, { clock, service: tokenBucket(RATE, BURST, clock.now), latency: (n) => 20 + (n % 3) });
		const ideal = (1000 / RATE) * 1000;
		expect(failed).toBe(0);
		expect(sends.filter((s) => s.status === 200)).toHaveLength(1000);
		expect(clock.now()).toBeLessThanOrEqual(1.3 * ideal);
		expect(r429).toBeLessThanOrEqual(237);
		// The fast start never happened: the first round's 429s ended it.
		expect(pool.peakLimit).toBeLessThan(2 * 140);
	});

	test('before the first 429 comes back, only the first round and one refill of the burst go out; then the Retry-After pause holds', async () => {
		const clock = new FakeClock();
		const { sends } = await drive(1000, { clock, service: tokenBucket(RATE, BURST, clock.now) });
		const first429 = sends.find((s) => s.status === 429)!;
		const answeredBy = first429.at + 20 + 1;
		const before = sends.filter((s) => s.at <= answeredBy);
		expect(before.length).toBeLessThanOrEqual(140 + BURST + 10);
		expect(sends.filter((s) => s.at > answeredBy + 1 && s.at < 1000)).toHaveLength(0);
	});

	test('10,000 items: none fails, within 1.3x of the ideal time, 429s a small share of the requests', async () => {
		const clock = new FakeClock();
		const { failed, r429 } = await drive(10_000, { clock, service: tokenBucket(RATE, BURST, clock.now) });
		const ideal = (10_000 / RATE) * 1000;
		expect(failed).toBe(0);
		expect(clock.now()).toBeLessThanOrEqual(1.3 * ideal);
		expect(r429).toBeLessThanOrEqual(0.25 * 10_000 * 0.95);
	});

	test('a burst larger than the first round (200/s, burst 600): no item fails, fewer 429s than sending every item at once', async () => {
		const clock = new FakeClock();
		const { failed, r429 } = await drive(2000, { clock, service: tokenBucket(200, 600, clock.now) });
		expect(failed).toBe(0);
		// Sending all 2,000 at once draws 2,000 - 600 = 1,400.
		expect(r429).toBeLessThan(2000 - 600);
	});
});
