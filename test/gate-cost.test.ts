/**
 * Issue 42, bounded cost: every scanner of the output gate (nodes/shared/redaction/) is linear
 * in its input, whatever the text. For each kind of adversarial text the time per MB stays
 * within a small factor of plain text of the same size, at two sizes (a quadratic scanner's time
 * per MB grows with the size, so it fails), and a 1 MB hostile text costs tens of milliseconds.
 *
 * Times are the CPU time of the process (not wall time: other jobs on a busy machine do not count), the best of five interleaved rounds, after a run that compiles the code. The bounds are wide
 * on purpose (the code measured here is 10 to 100 times inside them) and a quadratic scanner is
 * hundreds of times outside them at 1 MB.
 */
import { Redactor } from '../nodes/shared/redaction/secrets';
import { useSandbox } from './support/fixtures';
import { best, describeLinear, fill, HALVES, LARGE, SECRETS } from './support/gate-cost';

// The first half of the matrix here, the second in gate-cost-files.test.ts.
describeLinear(HALVES[0]);

describe('errors are cut before they are scanned', () => {
	test('an error message of 2 MB is cut before it is scanned: its description keeps kilobytes, saying so', () => {
		const redactor = new Redactor(SECRETS);
		const huge = fill('abc-', 2 * LARGE);
		const ms = best(() => redactor.text(huge), 2);
		const out = redactor.text(huge);
		expect(out.length).toBeLessThan(10_000);
		expect(out).toMatch(/\[cut: \d+ more characters\]$/);
		expect(ms).toBeLessThan(500);
	});

	test('control: the text scans still find what they look for in a hostile text', () => {
		// Within what an error keeps (MAX_ERROR_TEXT), so that the cut does not hide them.
		const text = `${fill('abc-', 2_000)} cvc: 737 ${fill('a-b-', 2_000)} 4242 4242 4242 4242 ${SECRETS[0]}`;
		const out = new Redactor(SECRETS).value({ description: text }).description;
		expect(out).not.toContain('737');
		expect(out).not.toContain('4242 4242 4242 4242');
		expect(out).not.toContain(SECRETS[0].slice(8));
	});
});

describe('through the node: a hostile error message does not stall n8n', () => {
	const f = useSandbox({ orders: 3 });

	test.each([
		['88 KB of hyphenated words', fill('abc-def-', 88 * 1024)],
		['2 MB of hyphenated words with a security code and the key in it', `cvc: 737 ${fill('a-b-c-', 2 * LARGE)}`],
	])('an error answer of %s: the item fails in bounded time, the event loop keeps turning, the description is cut', async (_name, message) => {
		f.sb.faults.add({ kind: 'reply', status: 400, match: { path: /\/orders\// }, reply: { body: { ok: false, error: { message: `key ${f.sb.store.secretKey} ${message}` } } } });
		let longestGap = 0;
		let last = performance.now();
		const ticker = setInterval(() => {
			const now = performance.now();
			longestGap = Math.max(longestGap, now - last);
			last = now;
		}, 5);
		const started = performance.now();
		const r = await f.run({ resource: 'order', operation: 'get', orderId: { __rl: true, mode: 'id', value: f.sb.state.orders[0].id } });
		const took = performance.now() - started;
		clearInterval(ticker);
		const error = r.error() as { message?: string; description?: string } | undefined;
		expect(error).toBeDefined();
		expect(f.requests().length).toBeGreaterThan(0);
		// Wide bounds (other test workers share the machine); before the fix the 88 KB case took ~40 s.
		expect(took).toBeLessThan(5000);
		expect(longestGap).toBeLessThan(2000);
		const text = JSON.stringify(error);
		expect(text.length).toBeLessThan(200_000);
		expect(error?.description ?? '').toMatch(/\[cut: \d+ more characters\]/);
		expect(text).not.toContain(f.sb.store.secretKey);
		expect(text).not.toMatch(/cvc: 737/);
	});
});
