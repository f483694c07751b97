/**
 * Issue 53.6, the outcome table lives once: `nodes/shared/transport/outcomes.ts` classifies what
 * an answer tells of a money write, and the transport (repeat or not, outcome known or not) and
 * the once record read that one function. Shown here:
 *  - docs/money-safety.md's statuses are the ones the code classifies (`scripts/outcome-table.js`);
 *  - the node behaves as the class says, for the first and last status of every range of the
 *    table (added by data: a new range is a new row): a Refund whose service answers that status
 *    every time, with Max Retries 2, is repeated only where the table says (unanswered, and 503),
 *    and fails saying the outcome is unknown only where it is (unanswered, failed); control: the
 *    same refund without the fault is made once.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import { useSandbox } from './support/fixtures';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const table = require('../scripts/outcome-table.js') as {
	statusesByOutcome: () => Record<string, Array<[number, number]>>;
	block: () => string;
	current: (text: string) => string | undefined;
};

const f = useSandbox({ orders: 120 });
const rl = (value: string) => ({ __rl: true, mode: 'id', value });
let serial = 0;
const nextOrder = () => f.sb.state.orders.filter((o) => o.payment.status === 'COMPLETED' && o.amount >= 10)[serial++].id;
const refunds = () => f.requests().filter((q) => q.method === 'POST' && /\/refund$/.test(q.path));

test('docs/money-safety.md shows the statuses of each outcome as the code classifies them', () => {
	const doc = fs.readFileSync(path.join(__dirname, '..', 'docs', 'money-safety.md'), 'utf8');
	expect(table.current(doc)).toBe(table.block());
});

const ROWS = Object.entries(table.statusesByOutcome())
	.filter(([outcome]) => outcome !== 'applied')
	.flatMap(([outcome, ranges]) => ranges.flatMap(([a, b]) => [...new Set([a, b])].map((status) => ({ outcome, status }))))
	// A 429 without Retry-After pauses the node for seconds between repeats; rate-limit.test.ts covers it.
	.filter(({ status }) => status !== 429);

test.each(ROWS)('a refund answered $status on every try ($outcome): repeated and reported as the table says', async ({ outcome, status }) => {
	f.sb.faults.add({ match: { method: 'POST', path: /\/refund$/ }, kind: 'reply', status, count: 10, reply: { body: { ok: false, error: { code: 'injected', message: `status ${status} (injected)` } } } });
	const r = await f.run({ resource: 'order', operation: 'refund', orderId: rl(nextOrder()), additionalFields: { amount: 1 }, options: { maxRetries: 2 } });
	const error = r.error() as { message?: string } | undefined;
	expect(error).toBeDefined();
	const repeated = outcome === 'unanswered' || status === 503;
	expect(refunds()).toHaveLength(repeated ? 3 : 1);
	const unknown = /^The outcome of "Refund an order" is unknown/.test(error?.message ?? '');
	expect(unknown).toBe(outcome === 'unanswered' || outcome === 'failed');
});

test('control: the same refund without a fault is made once', async () => {
	const r = await f.run({ resource: 'order', operation: 'refund', orderId: rl(nextOrder()), additionalFields: { amount: 1 }, options: { maxRetries: 2 } });
	expect(r.error()).toBeUndefined();
	expect(refunds()).toHaveLength(1);
	expect(f.sb.state.refunds.filter((x) => x.amount === 1).length).toBeGreaterThan(0);
});
