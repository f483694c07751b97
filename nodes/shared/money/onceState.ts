/**
 * The once record's protocol on n8n's deduplication store, as a pure state machine.
 *
 * A write's record is in one of these states, and its marks only move forward:
 *
 *   (none) ──claim──▶ in flight (attempt k) ──answer──▶ done | failed | unanswered (attempt k)
 *                         │      └──its deadline passed, no answer──────────────▶ │
 *                         └──not applied (attempt 1 only)──▶ (none)  └──resend──▶ in flight (attempt k+1)
 *
 * done outranks failed, failed outranks every attempt, a later attempt outranks an earlier one, and
 * within an attempt its outcome outranks its being in flight. An in-flight attempt is never sent again
 * while its outcome may still come (before its deadline); a failed one never. The static data's
 * detail (one process's, saved whole) joins by the same ranks, so it never moves a record backwards.
 *
 * n8n's store (one row per node, every call a read then a write of the whole row, no lock) is driven
 * through three operations: add (values; answers which were new), remove, and sleep (a pause longer
 * than any read-modify-write of the row, VERIFY_DELAY_MS in record.ts). `hold` asks that the next
 * operation follow at once: the two make one short section, as a read-modify-write is. The machine is
 * plain data, so record.ts drives it against n8n and test/once-protocol.test.ts drives it against a
 * model of the row over every interleaving of several processes (lost read-modify-writes included).
 *
 * Values in the row for a key's digest d:
 *   d           the claim of attempt 1 (as before)        d@<p>        when it was claimed (11-hour periods)
 *   d^2         the claim of attempt 2 (the one resend)   d^k@<l>.<q>  attempt k's deadline marks (below)
 *   d~<k>       attempt k went unanswered                 d!  failed   d=  done
 *   d#<nonce>   one claimant's token, to tell which of two claimants that both found the claim new won
 *   d?<nonce>   its probe: written with the token, and what the claim's check adds (never the token)
 *
 * A claim dropped by a concurrent write is made again after a pause, with a new token. Found held
 * then, it may be this process's own first claim that a write from an older read put back: its
 * token is there exactly then (the token is only ever written by its claim, and looked for once),
 * and the process goes on with it rather than refuse its own write as in flight.
 *
 * A read adds the marks and takes back the ones that were absent. Claims are never read that way (a
 * read's claim would be taken for a real one): a claim is learnt by making it.
 *
 * Deadline: an attempt's claim carries its write's window (the transport's Timeout × attempts and
 * the pauses between them, capped at MAX_WINDOW_MS, with ANSWER_MS for its answer to reach the
 * store: the gate's writeWindow()); the transport starts no attempt that could end after it. The
 * window is rounded up to a level l (its periods are FLIGHT_UNIT_MS × 2^l long) and the claim marks
 * the period it is made in and the next one, q and q+1, so it is in flight at least until its
 * deadline and at most two periods after its claim; and q-1, for a process whose clock reading is
 * from just before the period began. A read looks at the current period of every level. An attempt without an outcome is in flight while one of its marks is there; once they are
 * past (its process stopped, or its answer was lost), it counts as unanswered: sent again once under
 * the same key (the service answers it with what it did), never while its outcome may still come.
 */

/** Width of a claim's time marks (two of them span at most the 22-hour resend window). */
export const MARK_MS = 11 * 3_600_000;
/** Time marks a read looks at: they cover the record's 84-hour horizon. */
export const TIME_MARKS = 9;
/** The shortest period of the deadline marks; level l's are FLIGHT_UNIT_MS × 2^l long. */
export const FLIGHT_UNIT_MS = 60_000;
/** Levels of the deadline marks: 1, 2, 4, 8, 16 and 32 minutes. */
export const FLIGHT_LEVELS = 6;
/** The longest window a write may claim (its transport starts no attempt past it). */
export const MAX_WINDOW_MS = FLIGHT_UNIT_MS * 2 ** (FLIGHT_LEVELS - 1);
/** Attempts of one write: the first, and one resend by a later execution after it went unanswered. */
export const MAX_ATTEMPTS = 2;
/** Reads of the marks while other processes may be reading them too. */
const READ_ROUNDS = 3;
/** Add-wait-check rounds of a claim's or a mark's verification. */
const VERIFY_ROUNDS = 4;

export type StoreOp =
	| { op: 'add'; values: string[]; hold?: boolean }
	| { op: 'remove'; values: string[]; hold?: boolean }
	| { op: 'sleep' };

/** What a process's own static data says of the write (its detail), when it holds one. */
export type Known = 'done' | 'failed' | 'unanswered';
/** How an attempt ended, as the gate learnt it. */
export type Answer = 'done' | 'failed' | 'unanswered' | 'released';

/** A claim this process holds: what its answer needs (startAnswer). */
export interface Held {
	token?: string;
	attempt: number;
	/** The claim's deadline marks, taken out once its outcome is in. */
	flights: string[];
}

export type Decision =
	| ({ status: 'new' } & Partial<Held>) // attempt 1 claimed for this process: send, then record the answer
	| ({ status: 'resend'; attempt: number; newest?: number } & Partial<Held>) // attempt `attempt` claimed: send again under the same key
	| { status: 'done' }
	| { status: 'failed' }
	| { status: 'unanswered'; newest?: number } // not sent again: too old, or already sent again once
	| { status: 'inflight' } // another execution is sending it now (or stopped, and its write's deadline has not passed)
	| { status: 'unreadable' }; // the marks could not be read (other processes reading them all along)

export interface ClaimInput {
	digest: string;
	/** Unique to this claim (an execution and item). */
	nonce: string;
	now: number;
	/** The write's window (ms from now): its deadline, its answer in the store included (at most MAX_WINDOW_MS). */
	window: number;
	/** This process's static data detail of the write. */
	known?: Known;
	/** The detail says unanswered within the resend window. */
	knownFresh?: boolean;
}

export interface MachineState {
	d: string;
	nonce: string;
	period: number;
	now: number;
	/** The level of this claim's deadline marks. */
	level: number;
	known?: Known;
	knownFresh?: boolean;
	/** What the last operation was, so its reply can be read. */
	at: string;
	/** The attempt being claimed or marked. */
	attempt: number;
	/** Whether this process holds the claim of `attempt`. */
	held: boolean;
	reads: number;
	rounds: number;
	present: number;
	/** A claim without marks was tried again. */
	retried?: boolean;
	/** Claims made (each with a token of its own). */
	tries: number;
	newest?: number;
	/** The mark being written and what the machine answers once it is in. */
	mark?: string;
	then?: Decision;
	/** Values the last read put in that were absent. */
	added?: string[];
	/** The token of the claim this process holds. */
	token?: string;
	/** The deadline marks of the claim this process holds. */
	flights?: string[];
	/** Tokens of this process's claims of this attempt that a concurrent write dropped, not looked for yet. */
	lost?: string[];
	/** Every such token (taken out with the claim's other values). */
	gone?: string[];
	/** What the last claim's add put in that goes back out if the claim is another's. */
	back?: string[];
}

export type Step = { state: MachineState; op: StoreOp; result?: undefined } | { state: MachineState; op?: undefined; result: Decision };

export const doneMark = (d: string) => `${d}=`;
export const failedMark = (d: string) => `${d}!`;
export const timeMark = (d: string, period: number) => `${d}@${period}`;
export const claimOf = (d: string, k: number) => (k === 1 ? d : `${d}^${k}`);
export const flightMark = (d: string, k: number, level: number, q: number) => `${d}^${k}@${level}.${q}`;
/** The period of level `level` that `now` is in. */
const periodOf = (now: number, level: number) => Math.floor(now / (FLIGHT_UNIT_MS * 2 ** level));
/** The level whose periods are at least `window` long. */
export function levelOf(window: number): number {
	let level = 0;
	while (level < FLIGHT_LEVELS - 1 && FLIGHT_UNIT_MS * 2 ** level < window) level++;
	return level;
}
/**
 * The deadline marks of attempt k claimed at `now`: its period and the next, and the one before (a
 * process that read the clock just before it turned reads that one).
 */
function ownFlights(d: string, k: number, level: number, now: number): string[] {
	const q = periodOf(now, level);
	return [flightMark(d, k, level, q - 1), flightMark(d, k, level, q), flightMark(d, k, level, q + 1)];
}
/** The deadline marks a read at `now` looks at: attempt k's current period of every level. */
function liveFlights(d: string, k: number, now: number): string[] {
	return Array.from({ length: FLIGHT_LEVELS }, (_, level) => flightMark(d, k, level, periodOf(now, level)));
}
export const unansweredMark = (d: string, k: number) => `${d}~${k}`;
/** A claim's token: new at every claim (a token of an earlier one that a stale write puts back wins nothing). */
const tokenOf = (s: MachineState) => `${s.d}#${s.nonce}.${s.tries}`;
/**
 * What the claim's check adds to learn whether its write stayed: written with the claim, never the
 * token itself, so a token in the row is only ever there from its claim's own write.
 */
const probeOf = (s: MachineState) => `${s.d}?${s.nonce}.${s.tries}`;
/** Claims of one attempt a process makes at most (each lost to a concurrent write tries again). */
const MAX_TRIES = 4;

/** Every mark a read adds (and takes back when absent): outcomes, time marks, never a claim. */
export function readValues(d: string, period: number, now: number): string[] {
	const v = [doneMark(d), failedMark(d), unansweredMark(d, 1), unansweredMark(d, 2), ...liveFlights(d, 1, now), ...liveFlights(d, 2, now)];
	for (let i = 0; i < TIME_MARKS; i++) v.push(timeMark(d, period - i));
	return v;
}

/**
 * Marks taken out once an outcome is in (it outranks them; one a concurrent write puts back is
 * harmless): the claim's deadline marks and token, and after done or a release the time marks.
 */
function staleValues(s: MachineState): string[] {
	const { d, period } = s;
	const v: string[] = s.token !== undefined ? [s.token] : [];
	v.push(...(s.flights ?? []));
	if (s.mark === undefined || s.mark === doneMark(d)) for (let i = 0; i < TIME_MARKS; i++) v.push(timeMark(d, period - i));
	return v;
}

function base(d: string, nonce: string, now: number, window = 0): MachineState {
	return { d, nonce, period: Math.floor(now / MARK_MS), now, level: levelOf(window), at: '', attempt: 1, held: false, reads: 0, rounds: 0, present: 0, tries: 0 };
}

const op = (state: MachineState, at: string, o: StoreOp): Step => ({ state: { ...state, at }, op: o });
const end = (state: MachineState, result: Decision): Step => ({ state: { ...state, at: 'end' }, result });

/** What a claim of attempt k adds: the claim, (attempt 1) its time mark, its deadline marks, the probe, the token. */
function claimValues(s: MachineState, k: number): string[] {
	return [claimOf(s.d, k), ...(k === 1 ? [timeMark(s.d, s.period)] : []), ...ownFlights(s.d, k, s.level, s.now), probeOf(s), tokenOf(s)];
}
/** What this process takes out once it holds the claim and its outcome is in: deadline marks, probe, its tokens of lost claims. */
const heldValues = (s: MachineState) => [...ownFlights(s.d, s.attempt, s.level, s.now), probeOf(s), ...(s.gone ?? [])];

export function startClaim(input: ClaimInput): Step {
	const s = { ...base(input.digest, input.nonce, input.now, input.window), known: input.known, knownFresh: input.knownFresh };
	// Static data that says done or failed outranks anything the store could say: nothing to race.
	if (input.known === 'done' || input.known === 'failed') return end(s, { status: input.known });
	return claim(s, 1);
}

function claim(s: MachineState, k: number): Step {
	const next = { ...s, attempt: k, rounds: 0, tries: s.tries + 1 };
	return op(next, 'claim', { op: 'add', values: claimValues(next, k), hold: true });
}

/**
 * The outcome of the attempt this process holds (`held`, from its claim's decision) written;
 * 'released' gives the first attempt's claim back.
 */
export function startAnswer(digest: string, held: Held, now: number, answer: Answer): Step {
	const { attempt, token, flights } = held;
	const s = { ...base(digest, '', now), attempt, held: true, token, flights };
	if (answer === 'released' && attempt === 1) {
		return op({ ...s, then: { status: 'new' } }, 'stale', { op: 'remove', values: [s.d, ...staleValues(s)] });
	}
	const outcome = answer === 'released' ? 'unanswered' : answer;
	return startMark(s, outcome, { status: outcome });
}

function startMark(s: MachineState, outcome: Exclude<Answer, 'released'>, then: Decision): Step {
	const mark = outcome === 'done' ? doneMark(s.d) : outcome === 'failed' ? failedMark(s.d) : unansweredMark(s.d, s.attempt);
	return op({ ...s, mark, then, rounds: 0, present: 0 }, 'mark', { op: 'add', values: [mark] });
}

function read(s: MachineState): Step {
	return op({ ...s, reads: s.reads + 1 }, 'read', { op: 'add', values: readValues(s.d, s.period, s.now), hold: true });
}

/** A claim this process holds but will not send on (its static data outranks the store): the store learns it. */
function settle(s: MachineState, result: Decision): Step {
	if (!s.held) return end(s, result);
	if (result.status === 'done' || result.status === 'failed') return startMark(s, result.status, result);
	return startMark(s, 'unanswered', result);
}

/** The store's word joined with this process's static data, by rank. */
function decide(s: MachineState, store: Decision): Step {
	if (store.status === 'done' || store.status === 'failed') return settle(s, store);
	if (store.status === 'new' && s.known === 'unanswered') return s.knownFresh ? end(s, { status: 'resend', attempt: 1, token: s.token, flights: s.flights }) : settle(s, { status: 'unanswered' });
	return end(s, store);
}

export function stepClaim(s: MachineState, reply: string[] = []): Step {
	const fresh = new Set(reply);
	switch (s.at) {
		case 'claim': {
			if (fresh.has(claimOf(s.d, s.attempt))) return op(s, 'claimed', { op: 'sleep' });
			// Held by another: this add's token and the time marks it put in go back out.
			const back = claimValues(s, s.attempt).slice(1).filter((v) => fresh.has(v));
			// Or this process's own lost claim, which a write of an older read put back: one of its tokens
			// is there. Each token is looked for once (the look puts it in for a moment).
			if (s.lost !== undefined && s.lost.length > 0) return op({ ...s, back }, 'mine', { op: 'add', values: s.lost, hold: true });
			return back.length > 0 ? op(s, 'dropped', { op: 'remove', values: back }) : read(s);
		}
		case 'mine': {
			const found = (s.lost ?? []).some((v) => !fresh.has(v));
			const added = (s.lost ?? []).filter((v) => fresh.has(v));
			const next = { ...s, lost: [] };
			// A token not looked for before is only ever in the row from its own claim's write: the claim there is this process's.
			if (found) return added.length > 0 ? op(next, 'adopted', { op: 'remove', values: added }) : op(next, 'claimed', { op: 'sleep' });
			const back = [...(s.back ?? []), ...added];
			return back.length > 0 ? op(next, 'dropped', { op: 'remove', values: back }) : read(next);
		}
		case 'adopted':
			return op(s, 'claimed', { op: 'sleep' });
		case 'lost':
			// After a pause (every write of a read from before it is in), claimed again, with a new token.
			return op(s, 'lostPause', { op: 'sleep' });
		case 'lostPause':
			return s.tries < MAX_TRIES ? claim({ ...s, lost: [...(s.lost ?? []), tokenOf(s)], gone: [...(s.gone ?? []), tokenOf(s)] }, s.attempt) : read(s);
		case 'dropped':
		case 'pause':
			return read(s);
		case 'claimed':
			// Claimants that both found the claim new wrote the row from reads without it: the last
			// write holds one token. The time mark goes in again (a claimant that found the claim held
			// takes out the one it put in, maybe this one's).
			return op({ ...s, rounds: s.rounds + 1 }, 'verify', { op: 'add', values: claimValues(s, s.attempt).slice(1, -1).reverse() });
		case 'verify': {
			// Lost: the probe goes, and the time mark when this add put it in.
			if (fresh.has(probeOf(s))) return op(s, 'lost', { op: 'remove', values: reply });
			if (fresh.size > 0 && s.rounds < VERIFY_ROUNDS) return op(s, 'claimed', { op: 'sleep' });
			const token = tokenOf(s);
			const flights = heldValues(s);
			const held = { ...s, held: true, token, flights };
			return s.attempt === 1 ? decide(held, { status: 'new', token, attempt: 1, flights }) : end(held, { status: 'resend', attempt: s.attempt, newest: s.newest, token, flights });
		}
		case 'read': {
			const absent = readValues(s.d, s.period, s.now).filter((v) => fresh.has(v));
			if (absent.length > 0) return op({ ...s, added: absent }, 'readBack', { op: 'remove', values: absent });
			return interpret({ ...s, added: undefined }, new Set(absent));
		}
		case 'readBack':
			return interpret({ ...s, added: undefined }, new Set(s.added ?? []));
		case 'mark':
			return op(s, 'markPause', { op: 'sleep' });
		case 'markPause':
			return op({ ...s, rounds: s.rounds + 1 }, 'check', { op: 'add', values: [s.mark as string] });
		case 'check': {
			// A failed mark is found on two checks in a row: a read that added it for a moment is over by
			// the second. Any other mark on one: lost after all (a read's moment at that check), its write
			// reads as unanswered once its deadline passes and is sent again under its key, which the
			// service answers with what it did (a done or unanswered write was stored or not applied).
			const present = fresh.has(s.mark as string) ? 0 : s.present + 1;
			const needed = s.mark === failedMark(s.d) ? 2 : 1;
			if (present < needed && s.rounds < VERIFY_ROUNDS + 2) return op({ ...s, present }, 'markPause', { op: 'sleep' });
			return op({ ...s, present }, 'stale', { op: 'remove', values: staleValues(s) });
		}
		case 'stale':
			return end(s, s.then ?? { status: 'new' });
		default:
			throw new Error(`once record: no step from "${s.at}"`);
	}
}

/** What the marks found in the row say (`absent`: the ones that were not there). */
function interpret(s: MachineState, absent: Set<string>): Step {
	const { d } = s;
	const has = (v: string) => !absent.has(v);
	const done = has(doneMark(d));
	const failed = has(failedMark(d));
	// A read adds every absent mark in one write: done beside failed is another process reading.
	if (done && failed) return s.reads < READ_ROUNDS ? op(s, 'pause', { op: 'sleep' }) : decide(s, { status: 'unreadable' });
	if (done) return decide(s, { status: 'done' });
	if (failed) return decide(s, { status: 'failed' });
	const newest = Array.from({ length: TIME_MARKS }, (_, i) => i).find((i) => has(timeMark(d, s.period - i)));
	// Attempt 2: its unanswered mark, or its claim, found held when this process tried to make it.
	const k = has(unansweredMark(d, 2)) || s.attempt === 2 ? 2 : 1;
	const unanswered = has(unansweredMark(d, k));
	// Its write's deadline has not passed (one of its deadline marks).
	const live = liveFlights(d, k, s.now).some(has);
	if (k === 1 && !unanswered && !live && newest === undefined) {
		// No marks: the claim was given back (claimed again now). Still none: the store holds the claim
		// without its state (lost by concurrent writes, or kept by a build before the marks); nothing is sent.
		if (!s.retried) return claim({ ...s, retried: true }, 1);
		return decide(s, { status: 'unreadable' });
	}
	// In flight: its deadline has not passed, so its answer may still come.
	if (!unanswered && live) return decide(s, { status: 'inflight' });
	// Unanswered, or past its deadline without an outcome (its process stopped): sent again once, within the window.
	if (k >= MAX_ATTEMPTS || newest === undefined || newest > 1) return decide(s, { status: 'unanswered', newest });
	return claim({ ...s, newest }, 2);
}

/** Runs a machine to its decision with `run` doing each operation (record.ts: n8n's store). */
export async function drive(first: Step, run: (o: StoreOp) => Promise<string[] | void>): Promise<Decision> {
	let step = first;
	while (step.op !== undefined) step = stepClaim(step.state, (await run(step.op)) || []);
	return step.result;
}
