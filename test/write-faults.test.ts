/**
 * Fault matrix over every write operation (the table in write-operations.ts,
 * generated from the rows): the service commits the write and then answers
 * 500, drops the connection, or answers after the node's timeout. Whatever
 * the operation, the sandbox must see exactly one effect.
 *
 * Writes that carry an Idempotency-Key (and DELETEs) are retried and end in
 * success. Money writes (rows that declare `money`) too after a dropped
 * connection or a timeout (unanswered: the service answers a repeat under the
 * key with what it did), but not after a 5xx of the service's own: a repeat
 * would be applied again (the service does not store a 5xx), so they are sent
 * once and fail saying their outcome is unknown. Every other write is sent
 * once and fails with an error that says the service may have applied it.
 */
import type { FaultSpec } from '../sandbox/faults';
import { useSandbox } from './support/fixtures';
import { pieceLeaks, serialiseAll, TEST_CARD_NUMBERS } from './support/secret-scan';
import { movesMoney, writeCases } from './support/write-operations';

const f = useSandbox({ orders: 300 });

const faults: { name: string; fault: Omit<FaultSpec, 'match'>; options: Record<string, number> }[] = [
	{ name: '5xx after commit', fault: { kind: 'commit-then-500' }, options: {} },
	{ name: 'drop after commit', fault: { kind: 'drop-after-commit' }, options: {} },
	{ name: 'timeout after commit', fault: { kind: 'slow', delayMs: 350 }, options: { timeout: 200, maxRetries: 6 } },
];

const rows: string[] = [];
afterAll(() => {
	// eslint-disable-next-line no-console
	console.log(`Write fault matrix (effects at the sandbox per run):\n${rows.join('\n')}`);
});

const matrix = writeCases.flatMap((c) => faults.map((fc) => ({ key: `${c.resource}:${c.operation}`, c, fc })));

test.each(matrix)('$key × $fc.name: exactly one effect', async ({ key, c, fc }) => {
	const parameters = await c.parameters(f.sb, 100);
	f.sb.faults.add({ ...fc.fault, match: { method: c.method, path: c.pathPattern } });
	const existing = (parameters.options ?? {}) as Record<string, unknown>;
	const r = await f.run({ ...parameters, options: { ...existing, ...fc.options } });
	// Let a held response finish before counting.
	await new Promise((resolve) => setTimeout(resolve, fc.fault.kind === 'slow' ? 400 : 0));
	const sent = f.requests().filter((q) => q.method === c.method && c.pathPattern.test(q.path));
	const effects = sent.filter((q) => q.effect).length;
	const error = r.error();
	const outcome = error ? 'error' : 'success';
	rows.push(`  ${key.padEnd(28)} ${fc.name.padEnd(22)} requests ${sent.length}, effects ${effects}, ${outcome}`);
	const repeatable = c.method === 'DELETE' || sent.some((q) => q.headers['idempotency-key'] !== undefined);
	if (movesMoney(key) && fc.fault.kind === 'commit-then-500') {
		expect(effects).toBe(1);
		expect(sent).toHaveLength(1);
		expect(error?.message).toMatch(/^The outcome of ".+" is unknown: the service may have applied it/);
		return;
	}
	if (movesMoney(key)) {
		// Unanswered: repeated under the same key, answered with what the service did: one effect, success.
		expect(effects).toBe(1);
		expect(sent.length).toBeGreaterThan(1);
		expect(new Set(sent.map((q) => q.headers['idempotency-key'])).size).toBe(1);
		expect(error).toBeUndefined();
		return;
	}
	if (c.method !== 'DELETE' && repeatable && fc.fault.kind === 'commit-then-500') {
		// A keyed write that is not a money write is repeated after a 5xx, as the spec says a 5xx was not
		// applied; a service that committed before answering 500 applies it again (docs/money-safety.md).
		expect(effects).toBe(2);
		expect(error).toBeUndefined();
		return;
	}
	expect(effects).toBe(1);
	if (repeatable) {
		expect(error).toBeUndefined();
	} else {
		expect(sent).toHaveLength(1);
		expect(error?.message).toMatch(/may have applied it; check before running again/);
	}
});

describe('every write operation, with the service echoing the request (headers and body) in its error', () => {
	test.each(writeCases.map((c) => ({ key: `${c.resource}:${c.operation}`, c })))(
		'$key: no secret in the whole error or the continue-on-fail item',
		async ({ c }) => {
			const { store, vault } = f.sb;
			const secrets = [store.secretKey, store.storeTokenKey, store.signingSecret, vault.secretKey, vault.noRevealKey];
			for (const continueOnFail of [false, true]) {
				f.sb.faults.add({ kind: 'echo', status: 400, match: { method: c.method, path: c.pathPattern } });
				const r = await f.run(await c.parameters(f.sb, 200), undefined, { continueOnFail });
				const shown = continueOnFail ? r.output() : r.error();
				expect(shown).toBeDefined();
				const text = `${serialiseAll(shown)} ${serialiseAll(r.run.data.resultData)}`;
				expect(pieceLeaks(text, secrets, TEST_CARD_NUMBERS, [])).toEqual([]);
				f.sb.faults.clear();
			}
		},
	);
});
