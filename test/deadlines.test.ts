/**
 * Whole-request deadlines (nodes/shared/transport/deadlines.ts) on a fake clock: one timer for
 * every live attempt of a node run, n8n's cancel signal read once, nothing left running after.
 */
import { Deadlines } from '../nodes/shared/transport/deadlines';
import type { HttpContext } from '../nodes/shared/transport/http';
import { FakeClock } from './support/fake-clock';

function context(cancel?: AbortSignal): HttpContext {
	return { getExecutionCancelSignal: () => cancel } as unknown as HttpContext;
}

describe('deadlines', () => {
	test('an attempt still open at its deadline is aborted as timed out; one done before it is not', async () => {
		const clock = new FakeClock();
		const deadlines = new Deadlines(context(), 1000, clock.now, clock.sleep);
		const slow = deadlines.start();
		const quick = deadlines.start();
		await clock.run(
			(async () => {
				await clock.sleep(300);
				quick.done();
				await clock.sleep(800);
			})(),
		);
		expect(slow.signal.aborted).toBe(true);
		expect(slow.timedOut).toBe(true);
		expect(quick.signal.aborted).toBe(false);
		expect(quick.timedOut).toBe(false);
	});

	test('attempts started later expire later: each at its own deadline, within a second of it', async () => {
		const clock = new FakeClock();
		const deadlines = new Deadlines(context(), 2000, clock.now, clock.sleep);
		const abortedAt = new Map<string, number>();
		const first = deadlines.start();
		first.signal.addEventListener('abort', () => abortedAt.set('first', clock.now()));
		await clock.run(
			(async () => {
				await clock.sleep(1500);
				const second = deadlines.start();
				second.signal.addEventListener('abort', () => abortedAt.set('second', clock.now()));
				await clock.sleep(3000);
			})(),
		);
		expect(abortedAt.get('first')).toBeGreaterThanOrEqual(2000);
		expect(abortedAt.get('first')).toBeLessThanOrEqual(3000);
		expect(abortedAt.get('second')).toBeGreaterThanOrEqual(3500);
		expect(abortedAt.get('second')).toBeLessThanOrEqual(4500);
	});

	test("n8n's cancel ends every live attempt (not as a timeout), and an attempt started after it is aborted at once", async () => {
		const clock = new FakeClock();
		const cancel = new AbortController();
		const deadlines = new Deadlines(context(cancel.signal), 30_000, clock.now, clock.sleep);
		const a = deadlines.start();
		const b = deadlines.start();
		cancel.abort(new Error('cancelled'));
		expect(a.signal.aborted && b.signal.aborted).toBe(true);
		expect(a.timedOut || b.timedOut).toBe(false);
		const late = deadlines.start();
		expect(late.signal.aborted).toBe(true);
	});

	test('one timer for any number of attempts, and none left once every attempt is done', async () => {
		const clock = new FakeClock();
		let pending = 0;
		let timers = 0;
		const sleep = async (ms: number) => {
			pending++;
			timers++;
			await clock.sleep(ms);
			pending--;
		};
		const deadlines = new Deadlines(context(), 30_000, clock.now, sleep);
		const attempts = Array.from({ length: 1000 }, () => deadlines.start());
		expect(pending).toBe(1);
		for (const attempt of attempts) attempt.done();
		// The timer wakes at most a second later, finds nothing live and stops.
		await clock.run(clock.sleep(5000));
		expect(pending).toBe(0);
		expect(timers).toBe(1);
		expect(attempts.some((a) => a.signal.aborted)).toBe(false);
	});
});
