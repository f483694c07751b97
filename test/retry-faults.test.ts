/**
 * Fault matrix: every idempotent operation × every fault the sandbox injects.
 * Each cell runs RUNS separate workflow executions (one item each, so one
 * Idempotency-Key each); the fault hits the first request of every key. The
 * sandbox's ledger must show exactly one effect per execution, and the node
 * must output the original result (marked when it is a replay).
 *
 * Money writes (rows that declare `money`) are repeated only where the service
 * says it did nothing (429, 503): after a 500, a dropped connection or a
 * timeout each run sends once and fails saying the outcome is unknown (a repeat
 * after a committed 5xx would be applied again: the service does not store a 5xx).
 */
import type { IDataObject } from 'n8n-workflow';

import type { FaultSpec } from '../sandbox/faults';
import { mapLimit } from '../nodes/shared/transport/concurrency';
import { runNode } from './support/harness';
import { useSandbox } from './support/fixtures';
import { movesMoney } from './support/write-operations';
import { runSize } from './support/run-size';

const RUNS = Number(process.env.VS_FAULT_RUNS ?? runSize(30, 200));
const PARALLEL_RUNS = 20;

const f = useSandbox({ orders: 400 });

interface IdempotentOperation {
	name: string;
	/** resource:operation, to read the row's declarations. */
	key: string;
	ledgerKind: string;
	pathPattern: RegExp;
	/** Node parameters for run number n (may prepare state at the sandbox first). */
	parameters(n: number): IDataObject | Promise<IDataObject>;
	/** The id the output carries, to compare with the ledger. */
	resultId(json: IDataObject): unknown;
	ledgerId(entry: IDataObject): unknown;
}

function completedOrders(): string[] {
	return f.sb.state.orders.filter((o) => o.payment.status === 'COMPLETED').map((o) => o.id);
}

const operations: IdempotentOperation[] = [
	{
		name: 'order refund',
		key: 'order:refund',
		ledgerKind: 'refund',
		pathPattern: /\/orders\/[^/]+\/refund$/,
		parameters: (n) => {
			const orders = completedOrders();
			return {
				resource: 'order',
				operation: 'refund',
				orderId: { __rl: true, mode: 'id', value: orders[n % orders.length] },
				additionalFields: { amount: 0.01, reason: `fault matrix ${n}` },
			};
		},
		resultId: (json) => json.id,
		ledgerId: (entry) => entry.refundId,
	},
	{
		name: 'token create',
		key: 'token:create',
		ledgerKind: 'tokenCreate',
		pathPattern: /\/vaults\/[^/]+\/tokens$/,
		parameters: (n) => ({
			resource: 'token',
			operation: 'create',
			tokenType: 'custom',
			data: JSON.stringify({ reference: `fault-matrix-${n}-${Math.random()}` }),
		}),
		resultId: (json) => json.id,
		ledgerId: (entry) => entry.tokenId,
	},
	{
		name: 'payout create',
		key: 'payout:create',
		ledgerKind: 'payout',
		pathPattern: /\/payouts$/,
		parameters: () => ({ resource: 'payout', operation: 'create', amount: 0.01 }),
		resultId: (json) => json.id,
		ledgerId: (entry) => entry.payoutId,
	},
	{
		name: 'checkout pay',
		key: 'checkout:pay',
		ledgerKind: 'checkoutPay',
		pathPattern: /\/checkouts\/[^/]+\/pay$/,
		parameters: async () => {
			// A fresh checkout session per run, opened from an active paylink (no authentication).
			const paylinks = f.sb.state.collections.checkoutPaylinks as { id: string; active: boolean }[];
			const paylink = paylinks.find((p) => p.active)!;
			const res = await fetch(`${f.sb.baseUrl}/v2/storefront/paylinks/${paylink.id}/checkout`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: '{}',
			});
			const session = ((await res.json()) as { data: { id: string } }).data;
			return { resource: 'checkout', operation: 'pay', sessionId: { __rl: true, mode: 'id', value: session.id } };
		},
		resultId: (json) => json.id,
		ledgerId: (entry) => entry.sessionId,
	},
];

interface FaultCell {
	name: string;
	fault: Omit<FaultSpec, 'match' | 'count' | 'oncePerKey'>;
	options: IDataObject;
	/** Whether the node's answer must be a replay of the committed original. */
	replay: boolean;
	/** A status the sandbox must have answered at least once in this cell. */
	seenStatus?: number;
	/** For a money write: the service may have applied it and the node does not repeat it (effects per run: 0 or 1). */
	/** `effects` per run: 0, 1, or 'at most 1' (a timeout may end a run before the service ran it). */
	unknownForMoney?: { effects: 0 | 1 | 'at most 1'; seenStatus?: number };
}

const cells: FaultCell[] = [
	{ name: '500 before commit', fault: { kind: '500' }, options: {}, replay: false, seenStatus: 500, unknownForMoney: { effects: 0, seenStatus: 500 } },
	// Unanswered money writes too are repeated under their key within the request (issue 53.4): a replay.
	{ name: 'connection dropped after commit', fault: { kind: 'drop-after-commit' }, options: {}, replay: true },
	{ name: '429 with Retry-After', fault: { kind: '429', retryAfter: 0 }, options: {}, replay: false, seenStatus: 429 },
	{
		name: '503 (the service did nothing)',
		fault: { kind: 'reply', status: 503, reply: { body: { ok: false, error: { code: 'unavailable', message: 'Service unavailable (injected)' } } } },
		options: {},
		replay: false,
		seenStatus: 503,
	},
	{
		name: '409 while the original runs',
		fault: { kind: 'slow', delayMs: 400 },
		options: { timeout: 100, maxRetries: 8 },
		replay: true,
		seenStatus: 409,
	},
	{
		name: 'slow response past the timeout',
		fault: { kind: 'slow', delayMs: 250 },
		options: { timeout: 100, maxRetries: 8 },
		replay: true,
	},
];

const summary: string[] = [];
afterAll(() => {
	// eslint-disable-next-line no-console
	console.log(`Fault matrix (${RUNS} runs per cell):\n${summary.join('\n')}`);
});

describe.each(operations)('$name', (op) => {
	test.each(cells)('$name: exactly one effect per run, original result returned', async (cell) => {
		const unknown = movesMoney(op.key) ? cell.unknownForMoney : undefined;
		f.sb.faults.add({ ...cell.fault, match: { path: op.pathPattern }, count: RUNS, oncePerKey: true });
		const ledgerBefore = f.sb.ledger.length;
		const requestsBefore = f.sb.requests.length;

		const results = await mapLimit(
			Array.from({ length: RUNS }, (_, n) => n),
			PARALLEL_RUNS,
			async (n) => {
				const parameters = await op.parameters(n);
				const run = await runNode({ ...parameters, options: cell.options }, f.credentials);
				const error = run.error();
				if (unknown) {
					// Sent once, not repeated: the item says the service may have applied it.
					expect(error?.message).toMatch(/^The outcome of ".+" is unknown: the service may have applied it/);
					return {};
				}
				if (error) throw new Error(`run ${n}: ${error.message} ${error.description ?? ''}`);
				const out = run.output();
				expect(out).toHaveLength(1);
				return out[0].json;
			},
		);
		// Let held answers finish before counting.
		if (unknown && cell.fault.kind === 'slow') await new Promise((resolve) => setTimeout(resolve, (cell.fault.delayMs ?? 0) + 200));

		const effects = f.sb.ledger.slice(ledgerBefore).filter((e) => e.kind === op.ledgerKind);
		const requests = f.sb.requests.slice(requestsBefore).filter((r) => op.pathPattern.test(r.path));
		const keys = new Set(effects.map((e) => e.key));
		if (unknown) {
			if (unknown.effects === 'at most 1') expect(effects.length).toBeLessThanOrEqual(RUNS);
			else expect(effects).toHaveLength(RUNS * unknown.effects);
			expect(keys.size).toBe(effects.length); // never two effects under one key
			// One request per run, never a second: a run whose timeout ended it before the service read it shows none.
			if (unknown.effects === 'at most 1') expect(requests.length).toBeLessThanOrEqual(RUNS);
			else expect(requests).toHaveLength(RUNS);
			expect(new Set(requests.map((r) => r.headers['idempotency-key'])).size).toBe(requests.length);
			if (unknown.seenStatus) expect(requests.some((r) => r.status === unknown.seenStatus)).toBe(true);
			summary.push(`  ${op.name} × ${cell.name}: ${RUNS} runs, ${requests.length} requests, ${effects.length} effects, each run failed: outcome unknown (money write, not repeated)`);
			return;
		}
		expect(effects).toHaveLength(RUNS);
		expect(keys.size).toBe(RUNS);
		// Each run's output is the effect the sandbox committed for it.
		const committed = new Set(effects.map((e) => op.ledgerId(e as IDataObject)));
		for (const json of results) expect(committed.has(op.resultId(json))).toBe(true);
		expect(new Set(results.map(op.resultId)).size).toBe(RUNS);
		if (cell.replay) expect(results.every((json) => json.idempotentReplay === true)).toBe(true);
		else expect(results.some((json) => json.idempotentReplay === true)).toBe(false);
		if (cell.seenStatus) expect(requests.some((r) => r.status === cell.seenStatus)).toBe(true);
		// Every request of one run carried the same key: the keys seen equal the effects' keys.
		expect(new Set(requests.map((r) => r.headers['idempotency-key']))).toEqual(keys);
		expect(f.sb.faults.pending).toBe(0);
		summary.push(
			`  ${op.name} × ${cell.name}: ${RUNS} runs, ${requests.length} requests, ${effects.length} effects, ${results.filter((r) => r.idempotentReplay).length} replays`,
		);
	});
});

test('422: the same custom key with another body is a clear error, never a new key', async () => {
	const [orderId] = completedOrders();
	const base = { resource: 'order', operation: 'refund', orderId: { __rl: true, mode: 'id', value: orderId } };
	const options = { idempotencyKey: 'fault-matrix-fixed-key-1' };
	const first = await runNode({ ...base, additionalFields: { amount: 0.01 }, options }, f.credentials);
	expect(first.error()).toBeUndefined();
	const ledgerBefore = f.sb.ledger.length;
	f.sb.clearRequests();
	const second = await runNode({ ...base, additionalFields: { amount: 0.02 }, options }, f.credentials);
	const error = second.error();
	expect(error?.message).toMatch(/Idempotency-Key was already used with a different request body, or the service could not process the request \(HTTP 422\)/);
	const sent = f.sb.requests.filter((r) => r.path.endsWith('/refund'));
	expect(sent).toHaveLength(1);
	expect(sent[0].headers['idempotency-key']).toBe('fault-matrix-fixed-key-1');
	expect(f.sb.ledger.length).toBe(ledgerBefore);
});
