import { sleep } from 'n8n-workflow';

/**
 * A sliding-window request budget: at most `max` requests in any `windowMs`.
 * `acquire()` returns at once while the budget allows, else waits until the
 * oldest request leaves the window. Safe for concurrent callers: the check
 * and the booking happen without an await in between.
 */
export class RequestWindow {
	private readonly times: number[] = [];

	constructor(
		readonly max: number,
		readonly windowMs: number,
		/** Extra wait past the window edge, for clock differences with the service. */
		readonly marginMs = 250,
		private readonly now: () => number = () => Date.now(),
		private readonly wait: (ms: number) => Promise<void> = async (ms) => await sleep(ms),
	) {}

	/** Books one request; resolves with the milliseconds it waited. */
	async acquire(): Promise<number> {
		let waited = 0;
		for (;;) {
			const t = this.now();
			while (this.times.length > 0 && t - this.times[0] >= this.windowMs + this.marginMs) this.times.shift();
			if (this.times.length < this.max) {
				this.times.push(t);
				return waited;
			}
			const ms = Math.max(1, this.times[0] + this.windowMs + this.marginMs - t);
			waited += ms;
			await this.wait(ms);
		}
	}

	/** Requests booked in the current window. */
	get used(): number {
		return this.times.length;
	}
}
