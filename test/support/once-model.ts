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
 * Checked in every state: never two effects; and when every execution has ended, no write reported
 * made (sent and answered, or skipped as made) that was never made. Each step is a move; states
 * already seen are not explored again (their row, static data, service and every execution's place).
 */
import { createHash } from 'node:crypto';

import type { Answer, Decision, Known, StoreOp } from '../../nodes/shared/money/onceState';
import { doneMark, failedMark } from '../../nodes/shared/money/onceState';

export interface ProtocolModel {
	name: string;
	claim(d: string, nonce: string, known: Known | undefined): MStep;
	next(state: unknown, reply: string[]): MStep;
	answer(d: string, token: string | undefined, attempt: number, answer: Answer): MStep;
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
	/** The token of the claim held. */
	token?: string;
	result?: 'ok' | 'skipped' | 'error';
	why?: string;
}
interface World {
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
	/** The first violation found for each combination of race flags. */
	byFlags: Map<number, Violation>;
	complete: boolean;
}

const D = 'd';
export const NOW = 1_000 * 3_600_000;

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
			p.token = result.token;
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

function moves(w: World, proto: ProtocolModel, answers: ServiceAnswer[]): Move[] {
	const out: Move[] = [];
	w.procs.forEach((p, i) => {
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
	return out;
}

function start(w: World, i: number, proto: ProtocolModel): void {
	const p = w.procs[i];
	p.known = w.saved;
	p.pc = 'claim';
	issue(w, i, proto.claim(D, `p${i}`, p.known), proto);
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
	issue(w, i, proto.answer(D, p.token, p.attempt, answer), proto);
}

function violation(w: World): Violation['kind'] | undefined {
	if (w.effects > 1) return 'two effects';
	if (w.procs.every((p) => p.pc === 'end') && w.effects === 0 && w.procs.some((p) => p.result === 'ok' || p.result === 'skipped')) return 'lost write';
	return undefined;
}

function key(w: World): string {
	const text = JSON.stringify([w.row, w.saved, w.stored, w.effects, w.flags, w.failedIn, w.procs]);
	// A digest of the state's text (its text would not fit in memory for millions of states).
	return createHash('sha1').update(text).digest('base64');
}

export function explore(proto: ProtocolModel, options: Options): Exploration {
	const answers = options.answers ?? SERVICE_ANSWERS;
	const init: World = {
		row: [],
		stored: false,
		effects: 0,
		flags: 0,
		failedIn: false,
		procs: [
			...Array.from({ length: options.executions }, (): Proc => ({ pc: 'idle', sections: 0, open: false, attempt: 1 })),
			...Array.from({ length: options.noise ?? 0 }, (_, n): Proc => ({ pc: 'claim', sections: 0, open: false, attempt: 1, why: 'noise', op: { op: 'add', values: [`other${n}`] }, phase: 'read' })),
		],
	};
	const res: Exploration = { protocol: proto.name, executions: options.executions, noise: options.noise ?? 0, states: 0, transitions: 0, schedules: 0, longest: 0, violations: 0, byFlags: new Map(), complete: true };
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
		const next = moves(w, proto, answers);
		if (next.length === 0) {
			paths.set(k, 1);
			return 1;
		}
		let total = 0;
		for (const m of next) {
			const x = clone(w);
			m.apply(x);
			res.transitions++;
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
