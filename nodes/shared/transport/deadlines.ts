import type { IExecuteFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import type { HttpContext } from './http';

/** One request attempt's abort signal: aborted at its deadline or when n8n cancels the execution. */
export interface Deadline {
	readonly signal: AbortSignal;
	/** Whether the deadline (not a cancel) ended it. */
	readonly timedOut: boolean;
	/** The attempt is over: its deadline no longer applies. */
	done(): void;
}

interface Entry extends Deadline {
	readonly controller: AbortController;
	readonly until: number;
	timedOut: boolean;
}

/** Longest time between two looks at the deadlines of live attempts. */
const MAX_TICK_MS = 1000;

/**
 * Whole-request deadlines for every attempt of one transport (one per node run): a service that
 * sends its answer a byte at a time cannot hold the node past the Timeout. One AbortController per
 * attempt, one timer while attempts are live, one listener on n8n's cancel signal of the
 * execution. (A timer signal and a signal joined with the cancel signal per attempt did the same
 * with two signals, a 30 s timer and a dependant of the cancel signal per request, all kept until
 * the run ended: measurable CPU and memory per item over 10,000 items.)
 *
 * Attempts share one timeout, so the oldest live attempt is the first to expire: the timer sleeps
 * until then (at most a second) and aborts what is due.
 */
export class Deadlines {
	private readonly live = new Set<Entry>();
	private ticking = false;
	private cancel: AbortSignal | undefined | null = null;

	constructor(
		private readonly ctx: HttpContext,
		private readonly timeoutMs: number,
		private readonly now: () => number = () => Date.now(),
		private readonly wait: (ms: number) => Promise<void> = async (ms) => await sleep(ms),
	) {}

	/** A deadline for an attempt starting now. */
	start(): Deadline {
		const controller = new AbortController();
		const live = this.live;
		const entry: Entry = {
			controller,
			signal: controller.signal,
			until: this.now() + this.timeoutMs,
			timedOut: false,
			done: () => live.delete(entry),
		};
		const cancel = this.cancelSignal();
		if (cancel?.aborted) {
			controller.abort(cancel.reason);
			return entry;
		}
		live.add(entry);
		if (!this.ticking) void this.tick();
		return entry;
	}

	/** n8n's cancel signal of the execution, looked up once; every live attempt ends with it. */
	private cancelSignal(): AbortSignal | undefined {
		if (this.cancel !== null) return this.cancel;
		try {
			this.cancel = (this.ctx as Partial<IExecuteFunctions>).getExecutionCancelSignal?.();
		} catch {
			this.cancel = undefined;
		}
		this.cancel?.addEventListener(
			'abort',
			() => {
				for (const entry of this.live) entry.controller.abort(this.cancel?.reason);
				this.live.clear();
			},
			{ once: true },
		);
		return this.cancel;
	}

	private async tick(): Promise<void> {
		this.ticking = true;
		try {
			while (this.live.size > 0) {
				const oldest = this.live.values().next().value as Entry;
				await this.wait(Math.max(1, Math.min(MAX_TICK_MS, oldest.until - this.now())));
				const now = this.now();
				for (const entry of this.live) {
					// Insertion order is deadline order: the first one not due ends the look.
					if (entry.until > now) break;
					this.live.delete(entry);
					entry.timedOut = true;
					entry.controller.abort(new Error('deadline'));
				}
			}
		} finally {
			this.ticking = false;
		}
	}
}
