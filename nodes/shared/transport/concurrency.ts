import { sleep as waitMs } from 'n8n-workflow';

/**
 * Runs `fn` over `inputs` with at most `limit` calls in flight and returns the
 * results in input order. After a failure no new call starts; the first error
 * is thrown once the calls in flight have settled.
 */
export async function mapLimit<T, R>(
	inputs: readonly T[],
	limit: number,
	fn: (input: T, index: number) => Promise<R>,
): Promise<R[]> {
	const results = new Array<R>(inputs.length);
	let next = 0;
	let failure: { error: unknown } | undefined;
	const worker = async (): Promise<void> => {
		while (next < inputs.length && !failure) {
			const index = next++;
			try {
				results[index] = await fn(inputs[index], index);
			} catch (error) {
				failure ??= { error };
			}
		}
	};
	const workers = [];
	for (let w = 0; w < Math.min(Math.max(1, limit), inputs.length); w++) workers.push(worker());
	await Promise.all(workers);
	if (failure) throw failure.error;
	return results;
}

/** Highest value the "Concurrency" option accepts. */
export const MAX_CONCURRENCY = 1000;
/**
 * Ceiling of requests in flight when the node's "Concurrency" option is not set: the highest, so
 * that the window, not the ceiling, decides (a peer that sends every item at once is bound only by
 * CPU). The window stays below it unless the service keeps answering fast and without 429/503.
 */
export const DEFAULT_MAX_CONCURRENCY = MAX_CONCURRENCY;
/**
 * The window's floor when answers are slow, and the start of a pool given a fixed start
 * (`initial`) instead of the open start.
 */
export const INITIAL_CONCURRENCY = 128;
/**
 * Requests let out per turn: a turn starts with the first request it lets out and ends when a
 * timer of TURN_MS fires, after the event loop has taken in what arrived meanwhile. Requests
 * beyond it wait for the next turn, so a window that opens wide is sent in slices, each on the
 * wire (connected, written) before the next is built, and answers that arrive are seen between
 * slices instead of after the whole window.
 */
export const TURN_GRANTS = 32;
/** Shortest turn, in milliseconds (a timer of n8n's `sleep`). */
export const TURN_MS = 1;
/**
 * Until the first 429/503 or slow answer, the window is multiplied by this once per round trip
 * (when the last request of a round is answered in time): the first round, then ×8, up to the ceiling.
 */
export const START_GROWTH_FACTOR = 8;

/**
 * How a request ended, for the limit:
 * - `ok`: the service answered (2xx-4xx other than 429); counts for growth.
 * - `overload`: 429 or 503, the service asks for less; the limit shrinks.
 * - `neutral`: anything else (other 5xx, network errors); no change.
 */
export type RequestOutcome = 'ok' | 'overload' | 'neutral';

/** A slot held by one request attempt, from `acquire()` to `release()`. */
export interface Permit {
	/** When the request was sent (after any pause), on the controller's clock. */
	readonly sentAt: number;
	/** The limit's generation when it was sent: answers to older sends do not move the limit. */
	readonly generation: number;
	/** Its number among the pool's sends (0 first). */
	readonly seq?: number;
}

export interface AdaptiveConcurrencyOptions {
	/** Ceiling: never more requests in flight than this (the "Concurrency" option). 1 means one at a time. */
	max: number;
	/**
	 * A fixed start: the limit starts here (at most `max`). Unset: the open start (the ceiling,
	 * paced by the turns, until the first answer), and INITIAL_CONCURRENCY is the floor of slow cuts.
	 */
	initial?: number;
	/** A success grows the limit only while its latency is at most this many times the fastest answer seen... */
	latencyFactor?: number;
	/** ...plus this many milliseconds (so a 1 ms local service is not held by scheduling noise). */
	latencySlackMs?: number;
	/**
	 * Start: while no 429/503 has come and answers hold their latency, the limit is multiplied by
	 * this once per round (the last request sent in a round answered in time). 2 is the growth of
	 * one more per success; default START_GROWTH_FACTOR.
	 */
	startGrowthFactor?: number;
	/** Factor the limit is multiplied by on a 429 or 503. */
	backoffFactor?: number;
	/** Factor the limit is multiplied by, once per usual latency, while answers are slow (never below `initial`). */
	slowFactor?: number;
	/**
	 * Answers are slow when their usual (smoothed) latency is above this many times the fastest answer
	 * (+ `latencySlackMs`); between `latencyFactor` and this the limit holds, so scheduling noise on a
	 * busy machine neither grows nor cuts it.
	 */
	slowLatencyFactor?: number;
	/** After a back-off the limit grows by one at most this often, counted from the end of any pause. */
	probeIntervalMs?: number;
	/** How far back successes count when a back-off asks what the service let through; 0 turns that cap off. */
	throughputWindowMs?: number;
	/** Requests let out per turn (default TURN_GRANTS); 0: no turns. */
	turnGrants?: number;
	/** Clock in milliseconds; tests pass a fake one. */
	now?: () => number;
	/** Waits the given milliseconds; tests pass one that advances their fake clock. */
	sleep?: (ms: number) => Promise<void>;
}

/**
 * One per node run, shared by every item and every page of Return All: how
 * many requests may be in flight now (the limit), and until when nobody may
 * send (a Retry-After pause).
 *
 * Rules:
 * - Turns: at most `turnGrants` requests go out per turn (a turn ends when a
 *   timer of TURN_MS fires, so the event loop has connected and written what
 *   was sent, and taken in the answers that arrived); the rest wait for the
 *   next turn. A wide window is sent in slices instead of one burst whose
 *   first request reaches the wire only after the last is built.
 * - The open start (no `initial` given, ceiling above INITIAL_CONCURRENCY):
 *   until the first answer the limit is the ceiling and only the turns and the
 *   node's CPU pace the sends; the first answer (whatever it says) sets the
 *   limit to what is in flight, and those sends are the first round. A service
 *   far away gets a large first round, one nearby a small one, and a rate
 *   limit costs about one round trip of sends in 429s.
 * - With `initial`: start at `initial` requests in flight. Never more than `max`.
 * - Start: rounds. A round is the requests sent up to its last one, sent when
 *   the limit was last set; when that last one (or any later one) is answered
 *   in time (latency at most `slowLatencyFactor` × the fastest answer seen +
 *   `latencySlackMs`: the node's own sending of a big round delays answers
 *   too), and no 429/503 came, the limit is multiplied by
 *   `startGrowthFactor` and a new round begins. Until the round's last answer
 *   is in the limit holds, so a rate limit is found at the cost of one window
 *   of 429s, not of the growth the early answers of the round would allow.
 * - After the start (a slow answer ended it): a success whose latency holds
 *   adds one, so the limit doubles every round trip. A slower success holds the limit. When the usual (smoothed)
 *   latency rises above `slowLatencyFactor` × the fastest (requests queue
 *   somewhere), each slow answer multiplies the limit by `slowFactor`, at
 *   most once per usual latency and never below where it started: by
 *   Little's law fewer in flight at the same throughput means less queueing,
 *   and a service that is just slower keeps the starting window.
 * - Back-off: a 429 or 503 multiplies the limit by `backoffFactor`, and caps it
 *   at what the service let through, by Little's law: successes per second over
 *   the last `throughputWindowMs` × the usual latency (at least 1). Once per
 *   round: answers to requests sent before the last back-off do not count again.
 * - After a back-off, growth is one step per `probeIntervalMs` at most,
 *   counted from the end of the pause: a rate limit is measured in seconds, not
 *   in round trips.
 * - `pause(ms)` (a Retry-After) stops every request of the pool, including those
 *   already holding a slot, until it has passed.
 * - Slots are handed out first come, first served; retries of requests already
 *   sent come before requests not sent yet.
 */
export class AdaptiveConcurrency {
	readonly max: number;
	private value: number;
	private active = 0;
	private readonly queue: Array<() => void> = [];
	private readonly retryQueue: Array<() => void> = [];
	private pausedUntil = 0;
	private generation = 0;
	private backedOff = false;
	/** After a back-off: no growth before this time. */
	private growAfter = 0;
	private fastestMs = Infinity;
	private readonly initial: number;
	/** While answers are slow: no further cut before this time. */
	private slowCutAfter = 0;
	/** Smoothed latency of successes. */
	private usualMs: number | undefined;
	/** Completion times of recent successes, oldest first, from `successesFrom` on. */
	private successTimes: number[] = [];
	private successesFrom = 0;
	/** When the first request was sent. */
	private firstSentAt: number | undefined;
	/** Sends so far; a permit carries its number. */
	private sends = 0;
	/** Start phase: the round ends when the send with this number (or a later one) is answered in time. */
	private roundEndsAt: number;
	/** In the start phase: multiplying once per round. Ends for good at a 429/503 or a slow answer. */
	private starting = true;
	/** The open start: no answer yet; the window is the ceiling, the turns pace the sends. */
	private opening: boolean;
	/** Requests let out in this turn. */
	private turnGrants = 0;
	/** A turn is under way (its timer set). */
	private turnOpen = false;
	private readonly turnCap: number;
	/** The last send of the first round: a slow answer past it ends the start. */
	private firstRoundEnds: number;
	private readonly startGrowthFactor: number;
	private readonly latencyFactor: number;
	private readonly latencySlackMs: number;
	private readonly backoffFactor: number;
	private readonly slowFactor: number;
	private readonly slowLatencyFactor: number;
	private readonly probeIntervalMs: number;
	private readonly throughputWindowMs: number;
	private readonly now: () => number;
	private readonly wait: (ms: number) => Promise<void>;
	/** Most requests that were in flight at once. */
	peakInFlight = 0;
	/** Highest limit reached. */
	peakLimit: number;
	/** How many times the limit was cut for a 429 or 503. */
	backoffs = 0;
	/** How many times the limit was cut for slow answers. */
	slowCuts = 0;

	constructor(options: AdaptiveConcurrencyOptions) {
		this.max = Math.max(1, Math.floor(options.max));
		this.turnCap = options.turnGrants ?? TURN_GRANTS;
		this.opening = options.initial === undefined && this.max > INITIAL_CONCURRENCY;
		this.initial = Math.min(this.max, Math.max(1, Math.floor(options.initial ?? INITIAL_CONCURRENCY)));
		this.value = this.opening ? this.max : this.initial;
		this.peakLimit = this.opening ? 0 : this.value;
		this.roundEndsAt = this.value - 1;
		this.firstRoundEnds = this.value - 1;
		this.startGrowthFactor = options.startGrowthFactor ?? START_GROWTH_FACTOR;
		// Doubling per round trip is what one more per success already does.
		if (this.startGrowthFactor <= 2) this.starting = false;
		this.slowFactor = options.slowFactor ?? 0.9;
		this.slowLatencyFactor = options.slowLatencyFactor ?? 4;
		this.latencyFactor = options.latencyFactor ?? 2;
		this.latencySlackMs = options.latencySlackMs ?? 5;
		this.backoffFactor = options.backoffFactor ?? 0.5;
		this.probeIntervalMs = options.probeIntervalMs ?? 1000;
		this.throughputWindowMs = options.throughputWindowMs ?? 1000;
		this.now = options.now ?? (() => Date.now());
		this.wait = options.sleep ?? (async (ms) => await waitMs(ms));
	}

	/** Requests that may be in flight now. */
	get limit(): number {
		return Math.max(1, Math.floor(this.value));
	}

	/** Requests holding a slot now (sending, or waiting for a pause to end). */
	get inFlight(): number {
		return this.active;
	}

	/** Requests waiting for a slot. */
	get waiting(): number {
		return this.queue.length + this.retryQueue.length;
	}

	/** The fastest answer seen, in milliseconds (Infinity before the first). */
	get fastest(): number {
		return this.fastestMs;
	}

	/** Until when (on the controller's clock) nothing is sent. */
	get pauseEnds(): number {
		return this.pausedUntil;
	}

	/**
	 * Waits for a slot, then for any pause to end; the caller sends and then
	 * calls `release`. A `retry` goes before requests that have not been sent yet.
	 */
	async acquire(retry = false): Promise<Permit> {
		if (this.waiting === 0 && this.active < this.limit && this.turnAllows()) {
			this.take();
		} else {
			// The slot is taken for us in `dispatch`, in arrival order (retries first).
			await new Promise<void>((resolve) => (retry ? this.retryQueue : this.queue).push(resolve));
		}
		return await this.ready();
	}

	/**
	 * Gives the slot back with what the answer said. `pauseMs` (a Retry-After)
	 * is applied before the slot passes on, so the next request already waits.
	 */
	release(permit: Permit, outcome: RequestOutcome, pauseMs?: number): void {
		if (pauseMs !== undefined && pauseMs > 0) this.pause(pauseMs);
		const now = this.now();
		if (this.opening) this.endOpening();
		if (outcome === 'overload') {
			if (permit.generation === this.generation) this.backOff(now);
		} else if (outcome === 'ok') {
			this.succeeded(permit, now);
		}
		this.active--;
		this.dispatch();
	}

	/** Nobody sends for `ms` from now (a longer pause already set stays). */
	pause(ms: number): void {
		this.pausedUntil = Math.max(this.pausedUntil, this.now() + ms);
	}

	/**
	 * Sends `send` through a slot (`held`, or one it waits for) and releases it
	 * with `classify`'s verdict on the answer; a thrown error releases it as neutral.
	 */
	async run<R>(
		send: () => Promise<R>,
		classify: (result: R) => { outcome: RequestOutcome; pauseMs?: number },
		{ held, retry = false }: { held?: Permit; retry?: boolean } = {},
	): Promise<R> {
		// A slot held for a while may have run into a pause meanwhile.
		const permit = held ? await this.ready(held.seq) : await this.acquire(retry);
		let outcome: RequestOutcome = 'neutral';
		let pauseMs: number | undefined;
		try {
			const result = await send();
			({ outcome, pauseMs } = classify(result));
			return result;
		} finally {
			this.release(permit, outcome, pauseMs);
		}
	}

	/**
	 * Waits (holding the slot) until no pause is set; the permit says when the request went out.
	 * A slot taken earlier (`held`) keeps its number in the sends: it is the same request.
	 */
	private async ready(seq?: number): Promise<Permit> {
		for (;;) {
			const wait = this.pausedUntil - this.now();
			if (wait <= 0) break;
			await this.wait(wait);
		}
		const sentAt = this.now();
		this.firstSentAt ??= sentAt;
		return { sentAt, generation: this.generation, seq: seq ?? this.sends++ };
	}

	private succeeded(permit: Permit, now: number): void {
		const latency = now - permit.sentAt;
		this.fastestMs = Math.min(this.fastestMs, latency);
		this.usualMs = this.usualMs === undefined ? latency : this.usualMs + 0.2 * (latency - this.usualMs);
		this.successTimes.push(now);
		this.forgetSuccessesBefore(now - this.throughputWindowMs);
		// In the start, an answer is in time up to the slow mark: the node's own sending of a large
		// round delays its answers too, and a service that queues shows far more than that.
		const holds = latency <= this.fastestMs * (this.starting ? this.slowLatencyFactor : this.latencyFactor) + this.latencySlackMs;
		if (!holds) {
			// Past the first round, an answer out of time ends the start: growth is one per success from here.
			if (this.starting && (permit.seq ?? 0) > this.firstRoundEnds) this.starting = false;
			const slow = this.usualMs > this.fastestMs * this.slowLatencyFactor + this.latencySlackMs;
			if (slow && now >= this.slowCutAfter && this.limit > this.initial) {
				this.value = Math.max(this.initial, Math.floor(this.limit * this.slowFactor));
				this.slowCuts++;
				this.slowCutAfter = now + this.usualMs;
			}
			return;
		}
		if (permit.generation !== this.generation || this.value >= this.max) return;
		if (this.starting) {
			if ((permit.seq ?? 0) >= this.roundEndsAt) {
				this.value = Math.min(this.max, this.limit * this.startGrowthFactor);
				// The new round ends with the send that fills the new window.
				this.roundEndsAt = this.sends + this.limit - this.active;
			}
		} else if (!this.backedOff) {
			this.value += 1;
		} else if (now >= this.growAfter) {
			this.value += 1;
			this.growAfter = now + this.probeIntervalMs;
		}
		this.peakLimit = Math.max(this.peakLimit, this.limit);
	}

	private backOff(now: number): void {
		let next = Math.floor(this.limit * this.backoffFactor);
		// Early in the run the window is only as long as the run.
		const windowMs = Math.min(this.throughputWindowMs, now - (this.firstSentAt ?? now));
		if (this.usualMs !== undefined && windowMs > 0) {
			this.forgetSuccessesBefore(now - this.throughputWindowMs);
			const perMs = (this.successTimes.length - this.successesFrom) / windowMs;
			next = Math.min(next, Math.round(perMs * this.usualMs));
		}
		this.value = Math.max(1, next);
		this.backedOff = true;
		this.starting = false;
		this.generation++;
		this.backoffs++;
		this.growAfter = Math.max(now, this.pausedUntil) + this.probeIntervalMs;
	}

	private forgetSuccessesBefore(time: number): void {
		while (this.successesFrom < this.successTimes.length && this.successTimes[this.successesFrom] < time) {
			this.successesFrom++;
		}
		if (this.successesFrom > 1024) {
			this.successTimes = this.successTimes.slice(this.successesFrom);
			this.successesFrom = 0;
		}
	}

	private take(): void {
		this.active++;
		this.peakInFlight = Math.max(this.peakInFlight, this.active);
	}

	/**
	 * The first answer is in: the first round is everything sent so far, the limit what is in
	 * flight (this answer's slot included, so it refills); the start goes on from there by rounds.
	 */
	private endOpening(): void {
		this.opening = false;
		this.value = Math.max(1, this.active);
		this.peakLimit = Math.max(this.peakLimit, this.limit);
		this.roundEndsAt = this.sends - 1;
		this.firstRoundEnds = this.sends - 1;
	}

	/** Whether a request may go out in this turn (counting it); the first one starts the turn. */
	private turnAllows(): boolean {
		if (this.turnCap <= 0) return true;
		if (!this.turnOpen) {
			this.turnOpen = true;
			void this.endTurn();
		}
		if (this.turnGrants >= this.turnCap) return false;
		this.turnGrants++;
		return true;
	}

	/** Ends the turn when its timer fires (the event loop has taken in what arrived); waiting requests start the next. */
	private async endTurn(): Promise<void> {
		await this.wait(TURN_MS);
		this.turnOpen = false;
		this.turnGrants = 0;
		this.dispatch();
	}

	private dispatch(): void {
		while (this.waiting > 0 && this.active < this.limit && this.turnAllows()) {
			this.take();
			(this.retryQueue.shift() ?? this.queue.shift())!();
		}
	}
}
