/**
 * The table of write operations (test/support/write-operations.ts): it covers exactly
 * the writes the operation rows define, and every case's parameters make a
 * write that succeeds again and again against a sandbox without faults.
 */
import { resources } from '../nodes/VaultStore/resources';
import { useSandbox } from './support/fixtures';
import { writeCases, writeOperationKeys } from './support/write-operations';

const f = useSandbox();

const keyOf = (c: { resource: string; operation: string }) => `${c.resource}:${c.operation}`;
const RUNS = 3;

describe('write operations table', () => {
	test('covers every write operation of the rows exactly once, and nothing else', () => {
		const keys = writeCases.map(keyOf);
		const expected = writeOperationKeys();
		expect(new Set(keys).size).toBe(keys.length);
		expect(keys.filter((k) => !expected.includes(k))).toEqual([]);
		expect(expected.filter((k) => !keys.includes(k))).toEqual([]);
		expect(expected).toContain('custom:request');
	});

	test("each case's effect method is its row's method (the Custom API Call's is chosen by the user)", () => {
		for (const c of writeCases) {
			const row = resources.find((r) => r.value === c.resource)?.operations.find((o) => o.value === c.operation);
			expect(row).toBeDefined();
			if (c.resource !== 'custom') expect([keyOf(c), c.method]).toEqual([keyOf(c), row!.method]);
			expect(['POST', 'PATCH', 'PUT', 'DELETE']).toContain(c.method);
		}
	});
});

describe.each(writeCases.map((c) => ({ key: keyOf(c), c })))('$key', ({ c }) => {
	test(`succeeds ${RUNS} times, each run with one ${c.method} effect request answered 2xx`, async () => {
		for (let n = 0; n < RUNS; n++) {
			const run = await f.run(await c.parameters(f.sb, n));
			const error = run.error();
			expect([n, error ? `${error.message} ${error.description ?? ''}` : undefined]).toEqual([n, undefined]);
			const effects = f.requests().filter((r) => r.method === c.method && c.pathPattern.test(r.path));
			expect([n, effects.length]).toEqual([n, 1]);
			expect(effects[0].status).toBeGreaterThanOrEqual(200);
			expect(effects[0].status).toBeLessThan(300);
		}
	});
});
