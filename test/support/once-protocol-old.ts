/**
 * Today's once-record protocol (record.ts at a575221, before the state machine), encoded step by
 * step as the same kind of machine as nodes/shared/money/onceState.ts, for the explorer to show the
 * races it has (test/once-protocol.test.ts). What each step does, in record.ts's words:
 * - claim: static data's detail first (found(): done, or unclear: sent again when unanswered);
 *   else add [d, d@p]: d new → 'new'; else the time mark taken back when this add put it in, and
 *   readMarks: add [d=, d!, d@p…], the absent ones taken back; done without failed → done (its
 *   time marks removed); failed → read again after a pause (3 reads), then failed; else the newest
 *   time mark: resend when within two periods, none → done;
 * - confirm: up to 4 rounds of add [d, d=], remove [d!, d@p…], stop after a round > 0 that added
 *   nothing, a pause between rounds;
 * - unclear: static data; a failed write adds [d!] once;
 * - release: remove [d, d=, d!, d@p…].
 */
import type { Answer, Decision, Known, StoreOp } from '../../nodes/shared/money/onceState';
import { doneMark, failedMark, MARK_MS, timeMark, TIME_MARKS } from '../../nodes/shared/money/onceState';

export interface OldState {
	d: string;
	at: string;
	period: number;
	round: number;
	mark?: string;
	absent?: string[];
}
export type OldStep = { state: OldState; op: StoreOp; result?: undefined } | { state: OldState; op?: undefined; result: Decision };

const marksOf = (d: string, period: number) => [failedMark(d), ...Array.from({ length: TIME_MARKS }, (_, i) => timeMark(d, period - i))];
const op = (state: OldState, at: string, o: StoreOp): OldStep => ({ state: { ...state, at }, op: o });
const end = (state: OldState, result: Decision): OldStep => ({ state: { ...state, at: 'end' }, result });

export function oldClaim(d: string, now: number, known?: Known): OldStep {
	const s: OldState = { d, at: '', period: Math.floor(now / MARK_MS), round: 1 };
	// found(): the detail this process's static data holds decides, the store is not asked.
	if (known === 'done') return end(s, { status: 'done' });
	if (known === 'failed') return end(s, { status: 'failed' });
	if (known === 'unanswered') return end(s, { status: 'resend', attempt: 1 });
	const mark = timeMark(d, s.period);
	return op({ ...s, mark }, 'claim', { op: 'add', values: [d, mark], hold: true });
}

function readMarks(s: OldState): OldStep {
	return op(s, 'probe', { op: 'add', values: [doneMark(s.d), ...marksOf(s.d, s.period)], hold: true });
}

export function oldStep(s: OldState, reply: string[] = []): OldStep {
	const fresh = new Set(reply);
	switch (s.at) {
		case 'claim':
			if (fresh.has(s.d)) return end(s, { status: 'new' });
			return fresh.has(s.mark as string) ? op(s, 'unmarked', { op: 'remove', values: [s.mark as string] }) : readMarks(s);
		case 'unmarked':
			return readMarks(s);
		case 'probe': {
			const marks = marksOf(s.d, s.period);
			const failed = !fresh.has(marks[0]);
			if (!fresh.has(doneMark(s.d)) && !failed) return op(s, 'doneRead', { op: 'remove', values: marks });
			const absent = [doneMark(s.d), ...marks].filter((v) => fresh.has(v));
			if (absent.length > 0) return op({ ...s, absent }, 'probeBack', { op: 'remove', values: absent });
			return afterProbe({ ...s, absent });
		}
		case 'probeBack':
			return afterProbe(s);
		case 'doneRead':
			return end(s, { status: 'done' });
		case 'pause':
			return readMarks({ ...s, round: s.round + 1 });
		case 'confirm':
			return op({ ...s, absent: reply }, 'cleared', { op: 'remove', values: marksOf(s.d, s.period) });
		case 'cleared':
			if ((s.round > 0 && (s.absent ?? []).length === 0) || s.round >= 3) return end(s, { status: 'done' });
			return op(s, 'confirmPause', { op: 'sleep' });
		case 'confirmPause':
			return op({ ...s, round: s.round + 1 }, 'confirm', { op: 'add', values: [s.d, doneMark(s.d)] });
		case 'answered':
			return end(s, { status: 'done' });
		default:
			throw new Error(`old protocol: no step from "${s.at}"`);
	}
}

function afterProbe(s: OldState): OldStep {
	const absent = new Set(s.absent ?? []);
	const marks = marksOf(s.d, s.period);
	if (!absent.has(marks[0])) return s.round < 3 ? op(s, 'pause', { op: 'sleep' }) : end(s, { status: 'failed' });
	const newest = marks.slice(1).findIndex((m) => !absent.has(m));
	if (newest < 0) return end(s, { status: 'done' });
	return end(s, newest <= 1 ? { status: 'resend', attempt: 1, newest } : { status: 'unanswered', newest });
}

/** confirm(), unclear() and release() of the old record, on the store (their static data part is the model's). */
export function oldAnswer(d: string, now: number, answer: Answer): OldStep {
	const s: OldState = { d, at: '', period: Math.floor(now / MARK_MS), round: 0 };
	if (answer === 'done') return op(s, 'confirm', { op: 'add', values: [d, doneMark(d)] });
	if (answer === 'failed') return op(s, 'answered', { op: 'add', values: [failedMark(d)] });
	if (answer === 'released') return op(s, 'answered', { op: 'remove', values: [d, doneMark(d), ...marksOf(d, s.period)] });
	return end(s, { status: 'unanswered' });
}
