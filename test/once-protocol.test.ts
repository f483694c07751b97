/**
 * The once record's protocol, checked over every interleaving (issue 53, point 1). The explorer
 * (test/support/once-model.ts) runs two or three executions of one event against a model of n8n's
 * lock-free deduplication row, lost read-modify-writes included, and a service that stores a 2xx
 * and not a 5xx. It drives the record's real state machine (nodes/shared/money/onceState.ts, the
 * code record.ts runs) and, as the control, today's protocol before it (test/support/once-protocol-old.ts),
 * where it must find each of the three races the issue reports.
 */
import type { Known } from '../nodes/shared/money/onceState';
import { startAnswer, startClaim, stepClaim } from '../nodes/shared/money/onceState';
import type { MachineState } from '../nodes/shared/money/onceState';
import type { Exploration, ProtocolModel, ServiceAnswer } from './support/once-model';
import { explore, racesOf, TICK } from './support/once-model';
import { LONG } from './support/run-size';
import type { OldState } from './support/once-protocol-old';
import { oldAnswer, oldClaim, oldStep } from './support/once-protocol-old';

const machine: ProtocolModel = {
	name: 'state machine (onceState.ts)',
	claim: (d, nonce, known: Known | undefined, now) => startClaim({ digest: d, nonce, now, window: TICK, known, knownFresh: known === 'unanswered' }),
	next: (state, reply) => stepClaim(state as MachineState, reply),
	answer: (d, held, answer, now) => startAnswer(d, held, now, answer),
};
const today: ProtocolModel = {
	name: "today's protocol (record.ts at a575221)",
	claim: (d, _nonce, known, now) => oldClaim(d, now, known),
	next: (state, reply) => oldStep(state as OldState, reply),
	answer: (d, _held, answer, now) => oldAnswer(d, now, answer),
};

const RACE_A = 1; // a failed mark dropped by a concurrent read-modify-write
const RACE_B = 2; // sent again while another execution's attempt is in flight
const RACE_C = 4; // sent although the store's marks say failed (static data outranked them)
/** The unclear answers first: a depth-first search then meets the races early. */
const UNCLEAR_FIRST: ServiceAnswer[] = ['timeoutNot', 'failed', 'ok', 'timeoutApplied', 'notApplied'];

function report(r: Exploration): string {
	const found = [...r.byFlags.values()].map((v) => `  ${v.kind} [${racesOf(v.flags).join(', ') || 'no race flag'}]`);
	const size = `${r.states} states, ${r.transitions} steps, ${r.schedules.toExponential(2)} schedules, longest ${r.longest} steps`;
	return `${r.protocol}, ${r.executions} executions${r.noise ? ' + another event' : ''}: ${size}${r.complete ? '' : ' (stopped there)'}; ${r.violations} violating states${found.length ? `\n${found.join('\n')}` : ''}`;
}

const sizes: string[] = [];
afterAll(() => {
	// The explored size, printed with the run.
	console.log(`once-record protocol exploration:\n${sizes.join('\n')}`);
});

describe("today's protocol: the explorer finds each race of issue 53", () => {
	let two: Exploration;
	let three: Exploration;
	beforeAll(() => {
		// Stopped once each race has shown (with no other race flag on its path).
		two = explore(today, { executions: 2, noise: 1, until: (found) => found.has(RACE_A) && found.has(RACE_B) });
		three = explore(today, { executions: 3, answers: UNCLEAR_FIRST, until: (found) => found.has(RACE_C) });
		sizes.push(report(two), report(three));
	});

	test("(a) a 5xx's failed mark, added once and unchecked, dropped by a concurrent read-modify-write: a second refund", () => {
		const v = two.byFlags.get(RACE_A);
		expect(v?.kind).toBe('two effects');
		expect(v?.trace.join('\n')).toMatch(/sends attempt 1: failed/);
	});

	test('(b) an execution overlapping another reads its in-flight claim as unanswered and sends again under the same key: a second refund', () => {
		const v = two.byFlags.get(RACE_B);
		expect(v?.kind).toBe('two effects');
	});

	test('(c) static data (saved whole, last wins) outranks the failed mark in the store: a second refund', () => {
		const v = three.byFlags.get(RACE_C);
		expect(v?.kind).toBe('two effects');
		expect(v?.trace.join('\n')).toMatch(/saves its static data \(unanswered\)[^]*sends attempt 1: failed[^]*P2 sends/);
	});
});

describe('the state machine (onceState.ts): no interleaving gives two effects or a lost write', () => {
	test('two executions, every answer kind, every interleaving, a kill and the clock past its deadline', () => {
		const r = explore(machine, { executions: 2 });
		sizes.push(`${report(r)}; ${r.resentAfterKill} sends of attempt 2 after a kill`);
		expect([...r.byFlags.values()].map((v) => `${v.kind}: ${v.trace.join(' | ')}`)).toEqual([]);
		expect(r.complete).toBe(true);
		expect(r.states).toBeGreaterThan(1_000_000);
		expect(r.longest).toBeGreaterThan(40);
		// A killed write is sent again (under its key) once its deadline has passed.
		expect(r.resentAfterKill).toBeGreaterThan(0);
	});

	test('control: without the deadline (the clock ticks while a write is still running), a claim is sent again while in flight', () => {
		const r = explore(machine, { executions: 2, clockAnyTime: true, until: (found) => found.size > 0 });
		sizes.push(report(r));
		expect([...r.byFlags.values()].map((v) => v.kind)).toContain('two effects');
	});

	test('control: a kill while sending and no clock: the killed claim stays in flight and is not sent again', () => {
		const r = explore(machine, { executions: 2, ticks: 0, maxStates: 200_000 });
		expect(r.violations).toBe(0);
		expect(r.resentAfterKill).toBe(0);
	});

	test('two executions and another event\'s write to the same row (a third party to every lost read-modify-write)', () => {
		// Its first 400,000 states in npm test, 8 million under VS_LONG=1 (about 10 minutes on a loaded
		// 2-core machine). With the clock and the kill the whole space is larger than that: before them
		// it was 6,031,555 states, explored completely.
		const r = explore(machine, { executions: 2, noise: 1, answers: UNCLEAR_FIRST, maxStates: LONG ? 8_000_000 : 400_000 });
		sizes.push(report(r));
		expect([...r.byFlags.values()].map((v) => `${v.kind}: ${v.trace.join(' | ')}`)).toEqual([]);
		expect(r.states).toBe(LONG ? 8_000_000 : 400_000);
	}, 900_000);

	test('three executions (the first states of a depth-first search; far more under VS_LONG=1)', () => {
		const r = explore(machine, { executions: 3, answers: UNCLEAR_FIRST, maxStates: LONG ? 6_000_000 : 400_000 });
		sizes.push(report(r));
		expect([...r.byFlags.values()].map((v) => `${v.kind}: ${v.trace.join(' | ')}`)).toEqual([]);
		expect(r.states).toBeGreaterThan(100_000);
	}, 600_000);
});
