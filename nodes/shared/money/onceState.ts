/**
 * The once record's protocol on n8n's deduplication store, as a pure state machine.
 *
 * A write's record is in one of these states, and its marks only move forward:
 *
 *   (none) ──claim──▶ in flight (attempt k) ──answer──▶ done | failed | unanswered (attempt k)
 *                         │                                          │
 *                         └──not applied (attempt 1 only)──▶ (none)  └──resend──▶ in flight (attempt k+1)
 *
 * done outranks failed, failed outranks every attempt, a later attempt outranks an earlier one, and
 * within an attempt its outcome outranks its being in flight. An in-flight attempt is never sent again
 * while its outcome may still come (its in-flight mark is live); a failed one never. The static data's
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
 *   d^2         the claim of attempt 2 (the one resend)   d^1@<f>      the same, in FLIGHT_MS periods (in flight)
 *   d~<k>       attempt k went unanswered                 d!  failed   d=  done
 *   d#<nonce>   one claimant's token, to tell which of two claimants that both found the claim new won
 *
 * A read adds the marks and takes back the ones that were absent. Claims are never read that way (a
 * read's claim would be taken for a real one): a claim is learnt by making it. An attempt without an
 * outcome is in flight while it is from this 11-hour period or the last FLIGHT_MS; a process that
 * stopped while sending is found so in the next period, and its write sent again once.
 */

/** Width of a claim's time marks (two of them span at most the 22-hour resend window). */
export const MARK_MS = 11 * 3_600_000;
/** Time marks a read looks at: they cover the record's 84-hour horizon. */
export const TIME_MARKS = 9;
/** Width of a claim's fine time marks: a claim marked in this period or the one before is in flight (a request ends well within it). */
export const FLIGHT_MS = 30 * 60_000;
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

export type Decision =
	| { status: 'new'; token?: string } // attempt 1 claimed for this process: send, then record the answer
	| { status: 'resend'; attempt: number; newest?: number; token?: string } // attempt `attempt` claimed: send again under the same key
	| { status: 'done' }
	| { status: 'failed' }
	| { status: 'unanswered'; newest?: number } // not sent again: too old, or already sent again once
	| { status: 'inflight' } // another execution is sending it now (or stopped less than FLIGHT_MS ago)
	| { status: 'unreadable' }; // the marks could not be read (other processes reading them all along)

export interface ClaimInput {
	digest: string;
	/** Unique to this claim (an execution and item). */
	nonce: string;
	now: number;
	/** This process's static data detail of the write. */
	known?: Known;
	/** The detail says unanswered within the resend window. */
	knownFresh?: boolean;
}

export interface MachineState {
	d: string;
	nonce: string;
	period: number;
	flight: number;
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
}

export type Step = { state: MachineState; op: StoreOp; result?: undefined } | { state: MachineState; op?: undefined; result: Decision };

export const doneMark = (d: string) => `${d}=`;
export const failedMark = (d: string) => `${d}!`;
export const timeMark = (d: string, period: number) => `${d}@${period}`;
export const claimOf = (d: string, k: number) => (k === 1 ? d : `${d}^${k}`);
export const flightMark = (d: string, k: number, flight: number) => `${d}^${k}@${flight}`;
export const unansweredMark = (d: string, k: number) => `${d}~${k}`;
/** A claim's token: new at every claim (a token of an earlier one that a stale write puts back wins nothing). */
const tokenOf = (s: MachineState) => `${s.d}#${s.nonce}.${s.tries}`;

/** Every mark a read adds (and takes back when absent): outcomes, time marks, never a claim. */
export function readValues(d: string, period: number, flight: number): string[] {
	const v = [doneMark(d), failedMark(d), unansweredMark(d, 1), unansweredMark(d, 2), flightMark(d, 1, flight), flightMark(d, 1, flight - 1)];
	for (let i = 0; i < TIME_MARKS; i++) v.push(timeMark(d, period - i));
	return v;
}

/**
 * Marks taken out once an outcome is in (it outranks them; one a concurrent write puts back is
 * harmless): in-flight marks and the claim's token, and after done or a release the time marks.
 */
function staleValues(s: MachineState): string[] {
	const { d, period, flight } = s;
	const v: string[] = s.token !== undefined ? [s.token] : [];
	v.push(flightMark(d, 1, flight), flightMark(d, 1, flight - 1));
	if (s.mark === undefined || s.mark === doneMark(d)) for (let i = 0; i < TIME_MARKS; i++) v.push(timeMark(d, period - i));
	return v;
}

function base(d: string, nonce: string, now: number): MachineState {
	return { d, nonce, period: Math.floor(now / MARK_MS), flight: Math.floor(now / FLIGHT_MS), at: '', attempt: 1, held: false, reads: 0, rounds: 0, present: 0, tries: 0 };
}

const op = (state: MachineState, at: string, o: StoreOp): Step => ({ state: { ...state, at }, op: o });
const end = (state: MachineState, result: Decision): Step => ({ state: { ...state, at: 'end' }, result });

/** What a claim of attempt k adds: the claim, (attempt 1) its time marks, the token. */
function claimValues(s: MachineState, k: number): string[] {
	return [claimOf(s.d, k), ...(k === 1 ? [timeMark(s.d, s.period), flightMark(s.d, 1, s.flight)] : []), tokenOf(s)];
}

export function startClaim(input: ClaimInput): Step {
	const s = { ...base(input.digest, input.nonce, input.now), known: input.known, knownFresh: input.knownFresh };
	// Static data that says done or failed outranks anything the store could say: nothing to race.
	if (input.known === 'done' || input.known === 'failed') return end(s, { status: input.known });
	return claim(s, 1);
}

function claim(s: MachineState, k: number): Step {
	const next = { ...s, attempt: k, rounds: 0, tries: s.tries + 1 };
	return op(next, 'claim', { op: 'add', values: claimValues(next, k), hold: true });
}

/**
 * The outcome of attempt `attempt` (held by this process, `token` its claim's) written; 'released'
 * gives the first attempt's claim back.
 */
export function startAnswer(digest: string, token: string | undefined, now: number, attempt: number, answer: Answer): Step {
	const s = { ...base(digest, '', now), attempt, held: true, token };
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
	return op({ ...s, reads: s.reads + 1 }, 'read', { op: 'add', values: readValues(s.d, s.period, s.flight), hold: true });
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
	if (store.status === 'new' && s.known === 'unanswered') return s.knownFresh ? end(s, { status: 'resend', attempt: 1, token: s.token }) : settle(s, { status: 'unanswered' });
	return end(s, store);
}

export function stepClaim(s: MachineState, reply: string[] = []): Step {
	const fresh = new Set(reply);
	switch (s.at) {
		case 'claim': {
			if (fresh.has(claimOf(s.d, s.attempt))) return op(s, 'claimed', { op: 'sleep' });
			// Held by another: this add's token and the time marks it put in go back out.
			const back = claimValues(s, s.attempt).slice(1).filter((v) => fresh.has(v));
			return back.length > 0 ? op(s, 'dropped', { op: 'remove', values: back }) : read(s);
		}
		case 'dropped':
		case 'lost':
		case 'pause':
			return read(s);
		case 'claimed':
			// Claimants that both found the claim new wrote the row from reads without it: the last
			// write holds one token. The time mark goes in again (a claimant that found the claim held
			// takes out the one it put in, maybe this one's).
			return op({ ...s, rounds: s.rounds + 1 }, 'verify', { op: 'add', values: claimValues(s, s.attempt).slice(1).reverse() });
		case 'verify': {
			// Lost: the token goes, and the time mark when this add put it in.
			if (fresh.has(tokenOf(s))) return op(s, 'lost', { op: 'remove', values: reply });
			if (fresh.size > 0 && s.rounds < VERIFY_ROUNDS) return op(s, 'claimed', { op: 'sleep' });
			const token = tokenOf(s);
			const held = { ...s, held: true, token };
			return s.attempt === 1 ? decide(held, { status: 'new', token }) : end(held, { status: 'resend', attempt: s.attempt, newest: s.newest, token });
		}
		case 'read': {
			const absent = readValues(s.d, s.period, s.flight).filter((v) => fresh.has(v));
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
			// Found on two checks in a row: a read that added it for a moment is over by the second.
			const present = fresh.has(s.mark as string) ? 0 : s.present + 1;
			if (present < 2 && s.rounds < VERIFY_ROUNDS + 2) return op({ ...s, present }, 'markPause', { op: 'sleep' });
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
	// Claimed in the last half hour or so (its fine time mark).
	const recent = has(flightMark(d, 1, s.flight)) || has(flightMark(d, 1, s.flight - 1));
	const newest = Array.from({ length: TIME_MARKS }, (_, i) => i).find((i) => has(timeMark(d, s.period - i)));
	// Attempt 2: its unanswered mark, or its claim, found held when this process tried to make it.
	const k = has(unansweredMark(d, 2)) || s.attempt === 2 ? 2 : 1;
	const unanswered = has(unansweredMark(d, k));
	if (k === 1 && !unanswered && !recent && newest === undefined) {
		// No marks: the claim was given back (claimed again now). Still none: the store holds the claim
		// without its state (lost by concurrent writes, or kept by a build before the marks); nothing is sent.
		if (!s.retried) return claim({ ...s, retried: true }, 1);
		return decide(s, { status: 'unreadable' });
	}
	// In flight: claimed in this period or recently, or the resend's claim (its answer may still come).
	if (!unanswered && (k === 2 || recent || newest === undefined || newest === 0)) return decide(s, { status: 'inflight' });
	// Unanswered, or its process stopped (claimed in the period before, not recently): sent again once.
	if (k >= MAX_ATTEMPTS || newest === undefined || newest > 1) return decide(s, { status: 'unanswered', newest });
	return claim({ ...s, newest }, 2);
}

/** Runs a machine to its decision with `run` doing each operation (record.ts: n8n's store). */
export async function drive(first: Step, run: (o: StoreOp) => Promise<string[] | void>): Promise<Decision> {
	let step = first;
	while (step.op !== undefined) step = stepClaim(step.state, (await run(step.op)) || []);
	return step.result;
}
