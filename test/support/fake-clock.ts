/**
 * A fake clock for code that takes `now` and `sleep`: time stands still while
 * anything can still run, and jumps to the next sleeper when everything waits.
 * Tests of timing rules use it instead of wall time.
 */
export class FakeClock {
	private time = 0;
	private seq = 0;
	private readonly sleepers: { at: number; seq: number; wake: () => void }[] = [];

	readonly now = (): number => this.time;

	readonly sleep = async (ms: number): Promise<void> =>
		await new Promise<void>((wake) => this.sleepers.push({ at: this.time + Math.max(0, ms), seq: this.seq++, wake }));

	/** Runs `work` to the end; fails if it waits on something that is not a sleeper of this clock. */
	async run<T>(work: Promise<T>): Promise<T> {
		let settled = false;
		work.then(
			() => (settled = true),
			() => (settled = true),
		);
		for (;;) {
			// Every promise continuation runs before the next macrotask.
			await new Promise((resolve) => setImmediate(resolve));
			if (settled) return await work;
			if (this.sleepers.length === 0) throw new Error('FakeClock: the work waits on something other than the clock');
			this.sleepers.sort((a, b) => a.at - b.at || a.seq - b.seq);
			const next = this.sleepers.shift()!;
			this.time = next.at;
			next.wake();
		}
	}
}
