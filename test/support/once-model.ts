/**
 * An exhaustive explorer of the once record's protocol: every interleaving of a few executions of
 * one event (claim, send, each answer kind, record the answer, save static data), over a model of
 * n8n's deduplication row as n8n 2.8.4 keeps it: each call reads the row, then writes the whole row
 * back, with nothing in between held, so a write made from an older read drops what others added
 * meanwhile (a lost read-modify-write) or puts back what they took out.
 *
 * The one timing assumption, the record's own: a pause (sleep) is longer than any read-modify-write,
 * so it ends only after every section open when it began has written (a section: one call, or a call
 * and the one that follows it at once, `hold`). Static data: each execution starts from the copy last
 * saved and saves its own whole when it ends (last wins). The service stores a key's 2xx (a repeat
 * gets it back) and not a 5xx (a repeat after a 500 that committed is applied again).
 *
 * Time: a clock that ticks (TICK, one minute) and a write's window of one tick. A live process's
 * claim, send and answer end before the clock's second tick after its claim started (the transport
 * starts no attempt past the write's deadline: ApiRequest.sendBy); the clock ticks only then. A
 * process may be killed at any step of a claim, a send (before or after the service applied it) or
 * an answer, and then does nothing more: its claim stays, and the clock may pass its deadline.
 *
 * Checked in every state: never two effects; and when every execution has ended, no write reported
 * made (sent and answered, or skipped as made) that was never made. Each step is a move; states
 * already seen are not explored again (their row, static data, service and every execution's place).
 */
import { createHash } from 'node:crypto';

import type { Answer, Decision, Held, Known, StoreOp } from '../../nodes/shared/money/onceState';
import { doneMark, failedMark, FLIGHT_UNIT_MS } from '../../nodes/shared/money/onceState';

export interface ProtocolModel {
	name: string;
	/** `now`: the clock when the claim starts; the write's window is one TICK (it ends before the clock's second tick). */
	claim(d: string, nonce: string, known: Known | undefined, now: number): MStep;
	next(state: unknown, reply: string[]): MStep;
	answer(d: string, held: Held, answer: Answer, now: number): MStep;
}
export type MStep = { state: unknown; op?: StoreOp; result?: Decision };

/** What the service may do with a send it has no stored answer for. */
export type ServiceAnswer = 'ok' | 'failed' | 'timeoutApplied' | 'timeoutNot' | 'notApplied';
export const SERVICE_ANSWERS: ServiceAnswer[] = ['ok', 'failed', 'timeoutApplied', 'timeoutNot', 'notApplied'];

interface Proc {
	pc: 'idle' | 'claim' | 'send' | 'answer' | 'save' | 'end';
	m?: unknown;
	op?: StoreOp;
	/** For add/remove: 'read' (next: read the row) or 'write' (next: write it). */
	phase?: 'read' | 'write';
	snap?: string[];
	/** Sections this process opened (the number of the open one when `open`). */
	sections: number;
	open: boolean;
	/** A sleep waits for these sections ([process, section]) to close. */
	wait?: Array<[number, number]>;
	known?: Known;
	attempt: number;
	/** The claim was a resend of an earlier unanswered attempt. */
	resend?: boolean;
	/** The claim held (its token, attempt and deadline marks). */
	held?: Held;
	/** The clock's reading when the process's claim started. */
	startClock: number;
	/** Killed (SIGKILL): it does nothing more, saves nothing. */
	dead?: boolean;
	result?: 'ok' | 'skipped' | 'error';
	why?: string;
}
interface World {
	/** Ticks of the clock so far (each TICK long). */
	clock: number;
	/** Processes killed so far. */
	deaths: number;
	row: string[];
	saved?: Known;
	stored: boolean;
	effects: number;
	procs: Proc[];
	/**
	 * Which races the path shows: 1 a failed mark that was in the row is gone; 2 a send decided while
	 * another execution's attempt is in flight; 4 a send decided from static data (unanswered) while
	 * the row says failed or done; 8 any other send decided while the row says failed or done (its
	 * claim dropped by a lost read-modify-write).
	 */
	flags: number;
	/** A failed mark has been in the row. */
	failedIn: boolean;
}

export interface Options {
	executions: number;
	/** Other calls to the same row (another event's claim): each a read-modify-write of a value of its own. */
	noise?: number;
	answers?: ServiceAnswer[];
	/** Ticks the clock may make (default 3: past the deadline of a claim made after the first tick). */
	ticks?: number;
	/** Control: the clock ticks at any time (a live process's write outlasts its window). */
	clockAnyTime?: boolean;
	/** Processes that may be killed (default 1). */
	deaths?: number;
	/** Stop at this many states (the result says so). */
	maxStates?: number;
	/** Stop once this holds of the violations found (the result is then not complete). */
	until?: (found: Map<number, Violation>) => boolean;
}
export interface Violation {
	kind: 'two effects' | 'lost write';
	flags: number;
	trace: string[];
}
export interface Exploration {
	protocol: string;
	executions: number;
	noise: number;
	states: number;
	transitions: number;
	/** Complete schedules (paths from the start to an end or a violation) the states cover. */
	schedules: number;
	longest: number;
	violations: number;
	/** Sends of a second attempt after a process was killed while sending its first (the deadline rule at work). */
	resentAfterKill: number;
	/** The first violation found for each combination of race flags. */
	byFlags: Map<number, Violation>;
	complete: boolean;
}

const D = 'd';
export const NOW = 1_000 * 3_600_000;
/** One tick of the model's clock: the shortest period of the deadline marks, and a write's window. */
export const TICK = FLIGHT_UNIT_MS;
const nowOf = (w: World) => NOW + w.clock * TICK;

const clone = (w: World): World => ({ ...w, row: [...w.row], procs: w.procs.map((p) => ({ ...p })) });

function issue(w: World, i: number, step: MStep, proto: ProtocolModel): void {
	const p = w.procs[i];
	p.m = step.state;
	if (step.op === undefined) {
		p.op = undefined;
		decided(w, i, step.result as Decision);
		return;
	}
	p.op = step.op;
	if (step.op.op === 'sleep') {
		p.phase = undefined;
		p.wait = w.procs.flatMap((q, j) => (j !== i && q.open ? [[j, q.sections] as [number, number]] : []));
	} else p.phase = 'read';
	void proto;
}

function decided(w: World, i: number, result: Decision): void {
	const p = w.procs[i];
	if (p.pc === 'claim') {
		if (result.status === 'new' || result.status === 'resend') {
			p.attempt = result.status === 'resend' ? result.attempt : 1;
			if (w.procs.some((q, j) => j !== i && (q.pc === 'send' || q.pc === 'answer'))) w.flags |= 2;
			if (w.row.includes(failedMark(D)) || w.row.includes(doneMark(D))) w.flags |= p.known === 'unanswered' ? 4 : 8;
			p.pc = 'send';
			p.resend = result.status === 'resend';
			p.held = { token: result.token, attempt: p.attempt, flights: result.flights ?? [] };
			return;
		}
		p.pc = 'save';
		p.result = result.status === 'done' ? 'skipped' : 'error';
		p.why = result.status;
		return;
	}
	// The answer is in the store: the process goes on to save its static data.
	p.pc = 'save';
}

interface Move {
	label: string;
	apply: (w: World) => void;
}

/** A process between its claim's start and its answer in the store (its write's window is running). */
const working = (p: Proc) => !p.dead && p.why !== 'noise' && (p.pc === 'claim' || p.pc === 'send' || p.pc === 'answer');

function moves(w: World, proto: ProtocolModel, answers: ServiceAnswer[], options: Options): Move[] {
	const out: Move[] = [];
	const kills: Move[] = [];
	w.procs.forEach((p, i) => {
		// A kill (SIGKILL) at any step of a claim, a send or an answer; not between a 500 the service
		// did not store and its failed mark (docs/money-safety.md, "Not covered").
		if (w.deaths < (options.deaths ?? 1) && working(p) && !(p.pc === 'answer' && p.known === 'failed')) {
			if (p.pc === 'send') {
				kills.push({ label: `P${i} killed before its request reached the service`, apply: (x) => kill(x, i) });
				kills.push({ label: `P${i} killed after the service applied its request (and stored its 2xx)`, apply: (x) => (x.stored || ((x.effects += 1), (x.stored = true)), kill(x, i)) });
			} else kills.push({ label: `P${i} killed`, apply: (x) => kill(x, i) });
		}
		if (p.pc === 'end') return;
		if (p.pc === 'idle') {
			out.push({ label: `P${i} starts`, apply: (x) => start(x, i, proto) });
			return;
		}
		if (p.pc === 'save') {
			out.push({ label: `P${i} saves its static data (${p.known ?? 'none'})`, apply: (x) => ((x.saved = x.procs[i].known), (x.procs[i].pc = 'end')) });
			return;
		}
		if (p.pc === 'send') {
			if (w.stored) out.push({ label: `P${i} sends attempt ${p.attempt}: the service replays its stored 2xx`, apply: (x) => answered(x, i, 'done', proto) });
			else for (const a of answers) out.push({ label: `P${i} sends attempt ${p.attempt}: ${a}`, apply: (x) => sent(x, i, a, proto) });
			return;
		}
		const o = p.op as StoreOp;
		if (o.op === 'sleep') {
			const waiting = (p.wait ?? []).some(([j, n]) => w.procs[j].open && w.procs[j].sections === n);
			// The pause's end shows nothing to others: it is taken together with the step after it.
			if (!waiting) out.push({ label: `P${i} pause ends`, apply: (x) => wake(x, i, proto) });
			return;
		}
		if (p.phase === 'read') out.push({ label: `P${i} ${o.op} [${o.values.join(' ')}]: reads the row`, apply: (x) => readRow(x, i) });
		else out.push({ label: `P${i} ${o.op}: writes the row`, apply: (x) => writeRow(x, i, proto) });
	});
	// The clock ticks while every live process is in the window of its claim after the tick: a live
	// process's claim, send and answer end before the second tick after its claim started.
	if (w.clock < (options.ticks ?? 3) && (options.clockAnyTime || w.procs.every((p) => !working(p) || p.startClock === w.clock))) {
		out.push({ label: `the clock ticks (${w.clock + 1} min)`, apply: (x) => (x.clock += 1) });
	}
	return [...out, ...kills];
}

function kill(w: World, i: number): void {
	const p = w.procs[i];
	w.deaths++;
	Object.assign(p, { pc: 'end', dead: true, op: undefined, phase: undefined, snap: undefined, open: false, wait: undefined, result: undefined, why: p.pc === 'send' ? 'killed sending' : 'killed' });
}

function start(w: World, i: number, proto: ProtocolModel): void {
	const p = w.procs[i];
	p.known = w.saved;
	p.pc = 'claim';
	p.startClock = w.clock;
	issue(w, i, proto.claim(D, `p${i}`, p.known, nowOf(w)), proto);
}

function readRow(w: World, i: number): void {
	const p = w.procs[i];
	p.snap = [...w.row];
	if (!p.open) {
		p.open = true;
		p.sections++;
	}
	p.phase = 'write';
}

function writeRow(w: World, i: number, proto: ProtocolModel): void {
	const p = w.procs[i];
	const o = p.op as Exclude<StoreOp, { op: 'sleep' }>;
	const snap = new Set(p.snap);
	let reply: string[] = [];
	const next = new Set(snap);
	if (o.op === 'add') {
		reply = o.values.filter((v) => !snap.has(v));
		for (const v of o.values) next.add(v);
	} else for (const v of o.values) next.delete(v);
	// A failed mark an answer put in, gone (no step of the record takes one out on purpose).
	const f = failedMark(D);
	if (p.pc === 'answer' && p.known === 'failed' && next.has(f)) w.failedIn = true;
	if (w.failedIn && !next.has(f)) w.flags |= 1;
	w.row = [...next].sort();
	p.snap = undefined;
	if (!o.hold) p.open = false;
	if (p.why === 'noise') {
		p.pc = 'end';
		return;
	}
	feed(w, i, reply, proto);
}

function wake(w: World, i: number, proto: ProtocolModel): void {
	feed(w, i, [], proto);
	const p = w.procs[i];
	if (p.op !== undefined && p.op.op !== 'sleep' && p.phase === 'read') readRow(w, i);
}

function feed(w: World, i: number, reply: string[], proto: ProtocolModel): void {
	issue(w, i, proto.next(w.procs[i].m, reply), proto);
}

function sent(w: World, i: number, a: ServiceAnswer, proto: ProtocolModel): void {
	if (a === 'ok' || a === 'failed' || a === 'timeoutApplied') w.effects++;
	if (a === 'ok' || a === 'timeoutApplied') w.stored = true;
	const resend = w.procs[i].resend === true;
	// The gate's mapping (gate.ts abandon()): a resend that fails in any way stays unknown; a 5xx other than 502/504 is failed.
	const answer: Answer = a === 'ok' ? 'done' : a === 'failed' ? 'failed' : a === 'notApplied' ? (resend ? 'failed' : 'released') : 'unanswered';
	answered(w, i, answer, proto);
}

function answered(w: World, i: number, answer: Answer, proto: ProtocolModel): void {
	const p = w.procs[i];
	p.pc = 'answer';
	p.result = answer === 'done' ? 'ok' : 'error';
	// record.ts keeps the detail in static data first (a failed one stays failed).
	if (answer === 'done') p.known = 'done';
	else if (answer === 'failed') p.known = 'failed';
	else if (answer === 'unanswered') p.known = p.known === 'failed' ? 'failed' : 'unanswered';
	issue(w, i, proto.answer(D, p.held ?? { attempt: p.attempt, flights: [] }, answer, nowOf(w)), proto);
}

function violation(w: World): Violation['kind'] | undefined {
	if (w.effects > 1) return 'two effects';
	if (w.procs.every((p) => p.pc === 'end') && w.effects === 0 && w.procs.some((p) => p.result === 'ok' || p.result === 'skipped')) return 'lost write';
	return undefined;
}

function key(w: World): string {
	const text = JSON.stringify([w.clock, w.deaths, w.row, w.saved, w.stored, w.effects, w.flags, w.failedIn, w.procs]);
	// A digest of the state's text (its text would not fit in memory for millions of states).
	return createHash('sha1').update(text).digest('base64');
}

export function explore(proto: ProtocolModel, options: Options): Exploration {
	const answers = options.answers ?? SERVICE_ANSWERS;
	const init: World = {
		clock: 0,
		deaths: 0,
		row: [],
		stored: false,
		effects: 0,
		flags: 0,
		failedIn: false,
		procs: [
			...Array.from({ length: options.executions }, (): Proc => ({ pc: 'idle', sections: 0, open: false, attempt: 1, startClock: 0 })),
			...Array.from({ length: options.noise ?? 0 }, (_, n): Proc => ({ pc: 'claim', sections: 0, open: false, attempt: 1, startClock: 0, why: 'noise', op: { op: 'add', values: [`other${n}`] }, phase: 'read' })),
		],
	};
	const res: Exploration = { protocol: proto.name, executions: options.executions, noise: options.noise ?? 0, states: 0, transitions: 0, schedules: 0, longest: 0, violations: 0, resentAfterKill: 0, byFlags: new Map(), complete: true };
	const paths = new Map<string, number>();
	const trace: string[] = [];
	const max = options.maxStates ?? 2_000_000;
	let stopped = false;
	const visit = (w: World): number => {
		const k = key(w);
		const seen = paths.get(k);
		if (seen !== undefined) return seen;
		if (paths.size >= max || stopped) {
			res.complete = false;
			return 0;
		}
		paths.set(k, 0);
		res.states++;
		res.longest = Math.max(res.longest, trace.length);
		const bad = violation(w);
		if (bad !== undefined) {
			res.violations++;
			if (!res.byFlags.has(w.flags)) res.byFlags.set(w.flags, { kind: bad, flags: w.flags, trace: [...trace] });
			if (options.until?.(res.byFlags)) stopped = true;
			paths.set(k, 1);
			return 1;
		}
		const next = moves(w, proto, answers, options);
		if (next.length === 0) {
			paths.set(k, 1);
			return 1;
		}
		let total = 0;
		for (const m of next) {
			const x = clone(w);
			m.apply(x);
			res.transitions++;
			if (m.label.includes('sends attempt 2') && x.procs.some((p) => p.why === 'killed sending')) res.resentAfterKill++;
			trace.push(m.label);
			total += visit(x);
			trace.pop();
		}
		paths.set(k, total);
		return total;
	};
	res.schedules = visit(init);
	return res;
}

/** The races a violation's path shows, by name. */
export function racesOf(flags: number): string[] {
	return [flags & 1 ? 'failed mark lost' : '', flags & 2 ? 'sent while another is in flight' : '', flags & 4 ? 'static data outranked the store' : '', flags & 8 ? 'claim dropped' : ''].filter(Boolean);
}
