/**
 * Unclear outcomes of money writes, as a matrix: outcome kind × re-execution × key source × path.
 * The first execution's money write meets one outcome at the sandbox; the same write is then
 * executed again at once (within the service's 24 h key memory) or after both clocks moved 25 h
 * (the service forgot its keys, and the node knows it). Each row states what the second execution
 * must do: nothing sent (skipped or refused naming the event or key), sent again under the same
 * key, or sent as a new write. The record runs on n8n's deduplication store (an in-memory one that
 * behaves as n8n 2.8.4's), so a process that died between claim and answer (its static data never
 * saved) is a row too. Key sources: the event (a Vault Store Trigger upstream), a sub-workflow (the
 * trigger's item handed on, no trigger upstream), the Idempotency Key option. Every row has its
 * control: the legitimate write reaches the service once.
 */
import { DataDeduplicationService } from 'n8n-core';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { FaultSpec } from '../sandbox/faults';
import type { CheckoutSession } from '../sandbox/resources/checkout';
import { openSession } from '../sandbox/resources/checkout';
import { useSandbox } from './support/fixtures';
import type { NodeSpec, RunResult } from './support/harness';
import { runNodes, TRIGGER_TYPE } from './support/harness';
import { AGENT_ROUTES, runAsAgentTool } from './support/agent-routes';
import { runInLoop } from './support/loop';
import { HOUR, MemoryDeduplicator } from './support/once-record-support';

const f = useSandbox({ orders: 200 });
const store = new MemoryDeduplicator();
beforeAll(async () => {
	await DataDeduplicationService.init(store);
});

const rl = (value: string) => ({ __rl: true, mode: 'id', value });
const TRIGGER: NodeSpec = { name: 'Vault Store Trigger', type: TRIGGER_TYPE, parameters: { events: ['PAYMENT_COMPLETED'], signatureVersion: 'V2', options: {} } };
const MONEY = /\/(orders\/[^/]+\/refund|checkouts\/[^/]+\/pay)$/;

/** What the first execution meets. */
interface Kind {
	name: string;
	fault?: Omit<FaultSpec, 'match'>;
	options?: IDataObject;
	/** The first execution: succeeds, or fails saying the outcome is unknown, or fails plainly (provably not applied). */
	first: 'success' | 'unknown' | 'failed';
	/** The process stopped before it saved its static data (a worker killed between claim and answer). */
	crash?: boolean;
	/** Requests the first execution sends (default 1: a money write is repeated where the service did nothing, or under its key where it did not answer). */
	attempts?: number | { min: number; max: number };
	/** Refunds the service made in the first execution, when the row says (one, for a write repeated under its key). */
	effects?: number;
	/** What the second execution does, at once and after 25 h. */
	again: Record<'at once' | 'after 25 h', 'skipped' | 'refused' | 'resent' | 'sent'>;
}

const KINDS: Kind[] = [
	{ name: '2xx with an unreadable body', fault: { kind: 'empty' }, first: 'success', again: { 'at once': 'skipped', 'after 25 h': 'skipped' } },
	{ name: 'timeout on the only attempt', fault: { kind: 'slow', delayMs: 350 }, options: { timeout: 200, maxRetries: 0 }, first: 'unknown', again: { 'at once': 'resent', 'after 25 h': 'refused' } },
	// Issue 53.4: unanswered writes heal themselves within the request, under the same key (the
	// service stores a 2xx, not a 5xx of its own): one refund, the item succeeds.
	{ name: 'timeout, repeated under the same key', fault: { kind: 'slow', delayMs: 350 }, options: { timeout: 200 }, attempts: { min: 2, max: 4 }, effects: 1, first: 'success', again: { 'at once': 'skipped', 'after 25 h': 'skipped' } },
	{ name: 'connection dropped after the write, repeated under the same key', fault: { kind: 'drop-after-commit' }, attempts: 2, effects: 1, first: 'success', again: { 'at once': 'skipped', 'after 25 h': 'skipped' } },
	{ name: "a gateway's 502 after the write, repeated under the same key", fault: { kind: 'commit-then-gateway', status: 502 }, attempts: 2, effects: 1, first: 'success', again: { 'at once': 'skipped', 'after 25 h': 'skipped' } },
	{ name: "a gateway's 504 after the write, repeated under the same key", fault: { kind: 'commit-then-gateway', status: 504 }, attempts: 2, effects: 1, first: 'success', again: { 'at once': 'skipped', 'after 25 h': 'skipped' } },
	{ name: "a gateway's 502 before the write, repeated under the same key", fault: { kind: 'reply', status: 502, reply: { body: '<html>bad gateway</html>' } }, attempts: 2, effects: 1, first: 'success', again: { 'at once': 'skipped', 'after 25 h': 'skipped' } },
	{ name: '409 on every retry', fault: { kind: 'reply', status: 409, count: 10, reply: { body: { ok: false, error: { code: 'idempotency_conflict', message: 'still running (injected)' } } } }, options: { maxRetries: 2 }, attempts: 3, first: 'unknown', again: { 'at once': 'resent', 'after 25 h': 'refused' } },
	{ name: '500 after commit', fault: { kind: 'commit-then-500' }, first: 'unknown', again: { 'at once': 'refused', 'after 25 h': 'refused' } },
	{ name: '500 echoing the request, Authorization included (hostile)', fault: { kind: 'echo', status: 500 }, first: 'unknown', again: { 'at once': 'refused', 'after 25 h': 'refused' } },
	{ name: '502 before anything', fault: { kind: 'reply', status: 502, reply: { body: '<html>bad gateway</html>' } }, options: { maxRetries: 0 }, first: 'unknown', again: { 'at once': 'resent', 'after 25 h': 'refused' } },
	{ name: '400 (provably not applied)', fault: { kind: 'reply', status: 400, reply: { body: { ok: false, error: { code: 'bad_request', message: 'no (injected)' } } } }, first: 'failed', again: { 'at once': 'sent', 'after 25 h': 'sent' } },
	{ name: '503 on every attempt (provably not applied)', fault: { kind: 'reply', status: 503, count: 10, reply: { body: { ok: false, error: { code: 'unavailable', message: 'down (injected)' } } } }, options: { maxRetries: 1 }, attempts: 2, first: 'failed', again: { 'at once': 'sent', 'after 25 h': 'sent' } },
	{ name: 'process killed between claim and answer', fault: { kind: 'drop-after-commit' }, options: { maxRetries: 0 }, crash: true, first: 'unknown', again: { 'at once': 'resent', 'after 25 h': 'refused' } },
];

type Source = 'event' | 'sub-workflow' | 'option';
type PathName = 'row' | 'Custom API Call (store)' | 'Pay (run hatch)';
const SOURCES: Source[] = ['event', 'sub-workflow', 'option'];
const PATHS: PathName[] = ['row', 'Custom API Call (store)', 'Pay (run hatch)'];

let serial = 0;
function completedOrder(): string {
	const orders = f.sb.state.orders.filter((o) => o.payment.status === 'COMPLETED' && o.amount >= 10);
	return orders[serial % orders.length].id;
}

function payableSession(): string {
	const id = `cks_outcome${String(serial).padStart(9, '0')}`;
	const session = openSession({ id, paylinkId: null, amount: 2, currency: 'USD', items: [], expiresAt: '2099-01-01T00:00:00.000Z', createdAt: new Date().toISOString() });
	f.sb.app.collection<CheckoutSession>('checkoutSessions').push(session);
	return id;
}

function parameters(path: PathName, source: Source, kind: Kind): IDataObject {
	const options = { ...(kind.options ?? {}), ...(source === 'option' ? { idempotencyKey: `outcome-${serial}` } : {}) };
	if (path === 'Pay (run hatch)') return { resource: 'checkout', operation: 'pay', sessionId: rl(payableSession()), options };
	const order = completedOrder();
	if (path === 'row') return { resource: 'order', operation: 'refund', orderId: rl(order), additionalFields: { amount: 1 }, options };
	return { resource: 'custom', operation: 'request', method: 'POST', path: `/v2/stores/{storeId}/orders/${order}/refund`, body: JSON.stringify({ amount: 1 }), options };
}

/** The first execution's requests: as many as the row says (a range where a timeout races the held answer). */
function expectAttempts(kind: Kind, sent: number): void {
	const attempts = kind.attempts ?? 1;
	if (typeof attempts === 'number') expect(sent).toBe(attempts);
	else {
		expect(sent).toBeGreaterThanOrEqual(attempts.min);
		expect(sent).toBeLessThanOrEqual(attempts.max);
	}
}

/** The most requests the row's first execution sends. */
function mostAttempts(kind: Kind): number {
	return typeof kind.attempts === 'object' ? kind.attempts.max : (kind.attempts ?? 1);
}

/** Shifts the node's clock (Date.now) and with it the sandbox's, which reads it too. */
let shift = 0;
const realNow = Date.now.bind(Date);
beforeAll(() => {
	jest.spyOn(Date, 'now').mockImplementation(() => realNow() + shift);
});
afterAll(() => {
	jest.restoreAllMocks();
});

const moneyWrites = () => f.requests().filter((q) => q.method === 'POST' && MONEY.test(q.path));

const CELLS = KINDS.flatMap((kind) =>
	(['at once', 'after 25 h'] as const).flatMap((when) => SOURCES.flatMap((source) => PATHS.map((path) => ({ kind, when, source, path, label: `${kind.name} × ${when} × key from ${source} × ${path}` })))),
);

test.each(CELLS)('$label', async ({ kind, when, source, path }) => {
	serial++;
	const params = parameters(path, source, kind);
	const eventId = `msg_outcome_${serial}`;
	// A sub-workflow gets the trigger's item as Execute Workflow hands it on (no trigger upstream).
	const carried = { event: 'PAYMENT_COMPLETED', id: eventId, meta: { deliveryId: eventId, timestamp: 1795800000, signatureVersion: 'V2', legacy: false } };
	const input: INodeExecutionData[] = [{ json: source === 'event' ? { event: 'PAYMENT_COMPLETED', id: eventId, meta: { deliveryId: eventId, signatureVersion: 'V2' } } : source === 'sub-workflow' ? carried : {} }];
	const nodes: NodeSpec[] = source === 'event' ? [TRIGGER, { name: 'Vault Store', id: `node-${serial}`, parameters: params }] : [{ name: 'Vault Store', id: `node-${serial}`, parameters: params }];
	const workflow = { id: `wf_outcome_${serial}`, staticData: {} as IDataObject };
	const execute = async (): Promise<RunResult> => {
		f.sb.clearRequests();
		const r = await runNodes(nodes, f.credentials, input, { workflowId: workflow.id, staticData: workflow.staticData });
		workflow.staticData = r.staticData;
		return r;
	};

	if (kind.fault) f.sb.faults.add({ ...kind.fault, match: { method: 'POST', path: MONEY } });
	const saved = workflow.staticData;
	const first = await execute();
	f.sb.faults.clear();
	await new Promise((resolve) => setTimeout(resolve, kind.fault?.kind === 'slow' ? 400 : 0));
	if (kind.crash) workflow.staticData = saved; // never saved: the process died
	const firstError = first.error()?.message;
	// The unknown-outcome error wraps the transport's: never a secret, whatever the service echoed.
	const shown = JSON.stringify({ message: first.error()?.message, description: first.error()?.description });
	for (const secret of [f.sb.store.secretKey, f.sb.store.signingSecret]) expect(shown).not.toContain(secret);
	if (kind.first === 'success') expect(firstError).toBeUndefined();
	else if (kind.first === 'unknown') {
		if (!kind.crash) expect(firstError).toMatch(/^The outcome of ".+" is unknown: the service may have applied it/);
	} else {
		expect(firstError).toBeDefined();
		expect(firstError).not.toMatch(/is unknown/);
	}
	const firstKey = moneyWrites()[0]?.headers['idempotency-key'];
	expectAttempts(kind, moneyWrites().length);
	// Every attempt under the one key: a repeat is the same write, answered by the service's store.
	expect(new Set(moneyWrites().map((q) => q.headers['idempotency-key']))).toEqual(new Set([firstKey]));
	if (kind.effects !== undefined) expect(f.sb.ledger.filter((e) => e.key === firstKey)).toHaveLength(kind.effects);
	const effectsBefore = f.sb.ledger.length;

	if (when === 'after 25 h') shift += 25 * HOUR;
	try {
		const again = await execute();
		const sent = moneyWrites();
		const error = again.error()?.message;
		const expected = kind.again[when];
		if (expected === 'skipped') {
			expect(sent).toHaveLength(0);
			expect(error).toBeUndefined();
			expect(again.output()[0].json.writeSkipped).toBe(true);
		} else if (expected === 'refused') {
			expect(sent).toHaveLength(0);
			expect(error).toMatch(new RegExp(`^The outcome of ".+" for ${source === 'option' ? 'Idempotency Key "outcome-\\d+"' : `event ${eventId}`} is unknown: an earlier execution sent it`));
			expect(again.error()?.description).toMatch(/set Options → Idempotency Key to a new value/);
		} else {
			// Sent once: under the same key when resent (the service answers with what it did), else as a new write.
			expect(error).toBeUndefined();
			expect(sent).toHaveLength(1);
			expect(sent[0].headers['idempotency-key']).toBe(firstKey);
			expect(f.sb.ledger.length - effectsBefore).toBeLessThanOrEqual(1);
		}
		// Control: whatever happened, a third execution never makes a second write.
		const third = await execute();
		expect(moneyWrites()).toHaveLength(0);
		if (expected !== 'refused') expect(third.error()).toBeUndefined();
	} finally {
		shift = 0;
	}
});

test('the way out that the refusal names: a new Idempotency Key makes the write once', async () => {
	serial++;
	const order = completedOrder();
	const eventId = `msg_outcome_way_out_${serial}`;
	const input = [{ json: { event: 'PAYMENT_COMPLETED', id: eventId, meta: { deliveryId: eventId, signatureVersion: 'V2' } } }];
	const refund = (options: IDataObject): NodeSpec => ({ name: 'Vault Store', id: 'node-way-out', parameters: { resource: 'order', operation: 'refund', orderId: rl(order), additionalFields: { amount: 1 }, options } });
	let staticData: IDataObject = {};
	const run = async (options: IDataObject) => {
		f.sb.clearRequests();
		const r = await runNodes([TRIGGER, refund(options)], f.credentials, input, { workflowId: 'wf_way_out', staticData });
		staticData = r.staticData;
		return r;
	};
	f.sb.faults.add({ kind: 'reply', status: 500, match: { method: 'POST', path: MONEY }, reply: { body: { ok: false, error: { code: 'internal', message: 'failed (injected)' } } } });
	expect((await run({})).error()?.message).toMatch(/is unknown: the service may have applied it/);
	f.sb.faults.clear();
	expect((await run({})).error()?.message).toMatch(/is unknown: an earlier execution sent it/);
	expect(moneyWrites()).toHaveLength(0);
	// Checked in the dashboard: not made. A new key for it.
	const fixed = await run({ idempotencyKey: `${eventId}-2` });
	expect(fixed.error()).toBeUndefined();
	expect(moneyWrites()).toHaveLength(1);
	expect((await run({ idempotencyKey: `${eventId}-2` })).output()[0].json.writeSkipped).toBe(true);
	expect(moneyWrites()).toHaveLength(0);
});

/**
 * One Idempotency Key typed as a constant for two refunds, against a service that judges a reused
 * key by its body (the disagreeing sandbox, as the spec describes the service): the second order's
 * refund under the first's key is answered with the first's stored result, that order is never
 * refunded, and the item would report success. The node remembers each key of the user's and the
 * write it was sent with for the whole execution: another order under the same key is refused
 * before anything is sent, whether the two refunds are two items of one run, two runs of a loop
 * (Loop Over Items, batch size 1) or two tool calls of an AI agent (both routes). Control: a key
 * per order (an expression) refunds each order once, in every way. The disagreeing sandbox answers
 * a refund with its own amount here (`keepAnswers`): its other answer is a failure of its own.
 */
/** The service judges a reused key by its body alone, whatever the route (sandbox/disagree.ts). */
function judgingKeysByBody(): void {
	f.sb.disagree.on = true;
	f.sb.disagree.keepAnswers = true;
}

describe('one Idempotency Key typed as a constant for two refunds, against a service that judges a reused key by its body', () => {
	type Way = 'two items in one run' | 'Loop Over Items, batch size 1' | 'agent (tool call)' | 'agent (engine request)' | 'two Vault Store nodes' | 'a row, then Custom API Call';
	const WAYS: Way[] = ['two items in one run', 'Loop Over Items, batch size 1', 'agent (tool call)', 'agent (engine request)', 'two Vault Store nodes', 'a row, then Custom API Call'];
	const KEYS = ['typed as a constant', 'one per order (control)'] as const;
	const ROWS = WAYS.flatMap((way) => KEYS.map((key) => ({ way, key, label: `${way} × key ${key}` })));
	let next = 0;
	/** Two completed orders this block has not used. */
	const twoOrders = () => {
		const pool = f.sb.state.orders.filter((o) => o.payment.status === 'COMPLETED' && o.amount >= 10).slice(-40);
		return [pool[next++ % pool.length], pool[next++ % pool.length]];
	};

	/** Refunds of 1 to `orders` in this way under this key; what each refund answered (its items, or its error). */
	async function refund(way: Way, key: string, orders: string[]): Promise<string[]> {
		if (way === 'agent (tool call)' || way === 'agent (engine request)') {
			const parameters = {
				resource: 'order',
				operation: 'refund',
				orderId: rl("={{ $fromAI('order', 'the order to refund', 'string') }}"),
				additionalFields: { amount: 1 },
				// An agent may not fill in the key ($fromAI is refused there): the control leaves it empty, and
				// the node derives one per call.
				options: { maxAmount: 5, ...(key.includes('$json.order') ? {} : { idempotencyKey: key }) },
			};
			const r = await runAsAgentTool(way === 'agent (tool call)' ? 'tool call' : 'engine request', parameters, orders.map((order) => ({ order })), f.credentials, { continueOnFail: true });
			return r.texts;
		}
		const parameters = { resource: 'order', operation: 'refund', orderId: rl('={{ $json.order }}'), additionalFields: { amount: 1 }, options: { idempotencyKey: key } };
		const input = orders.map((order) => ({ order }));
		if (way === 'two Vault Store nodes' || way === 'a row, then Custom API Call') {
			// The first node refunds the first order; the next node, fed its output, the second.
			const secondKey = key.replace('$json.order', `'${orders[1]}'`);
			const second =
				way === 'two Vault Store nodes'
					? { ...parameters, orderId: rl(orders[1]), options: { idempotencyKey: secondKey } }
					: { resource: 'custom', operation: 'request', method: 'POST', path: `/v2/stores/{storeId}/orders/${orders[1]}/refund`, body: '{"amount": 1}', options: { idempotencyKey: secondKey } };
			const r = await runNodes([{ parameters, continueOnFail: true }, { name: 'Second', parameters: second, continueOnFail: true }], f.credentials, [{ json: input[0] }]);
			return [JSON.stringify(r.output('Vault Store')[0]?.json), r.error('Second')?.message ?? JSON.stringify(r.output('Second')[0]?.json)];
		}
		if (way === 'Loop Over Items, batch size 1') {
			const r = await runInLoop(parameters, input, f.credentials, { continueOnFail: true });
			expect(r.runs).toHaveLength(orders.length);
			return r.runs.map((run) => run.error ?? JSON.stringify(run.items));
		}
		const r = await f.run(parameters, input.map((json) => ({ json })), { continueOnFail: true });
		return r.output().map((item) => JSON.stringify(item.json));
	}

	test.each(ROWS)('$label', async ({ way, key }) => {
		serial++;
		judgingKeysByBody();
		const [a, b] = twoOrders();
		const refunds = (order: string) => f.sb.state.refunds.filter((r) => r.orderId === order).length;
		const before = { a: refunds(a.id), b: refunds(b.id) };
		f.sb.clearRequests();
		const answers = await refund(way, key === 'typed as a constant' ? `constant-${serial}` : `={{ 'refund-${serial}-' + $json.order }}`, [a.id, b.id]);
		const sent = moneyWrites();
		expect(answers).toHaveLength(2);
		// The first order is refunded once, its call reports it.
		expect(refunds(a.id) - before.a).toBe(1);
		expect(answers[0]).toContain(a.id);
		expect(answers[0]).not.toMatch(/error|Refused/i);
		if (key === 'typed as a constant') {
			// The second is refused before anything is sent for it, naming the way out.
			expect(answers[1]).toMatch(/Item 1 has the same Idempotency Key as item 0|The Idempotency Key \\?"constant-\d+\\?" was already sent in this execution with another write \(\\?"Refund an order\\?", orderId ord_\w+, 1\); nothing was sent for this one/);
			expect(sent.filter((q) => q.path.includes(b.id))).toHaveLength(0);
			expect(refunds(b.id) - before.b).toBe(0);
			expect(answers[1]).not.toMatch(/idempotentReplay/);
		} else {
			expect(answers[1]).toContain(b.id);
			expect(answers[1]).not.toMatch(/error|Refused/i);
			expect(refunds(b.id) - before.b).toBe(1);
		}
		expect(sent.filter((q) => q.path.includes(a.id))).toHaveLength(1);
	});

	test('the same key in a second node with another store\'s credential on the same host is not refused by the node: the memory of keys is per store; with the same credential it is', async () => {
		serial++;
		const [a, b] = twoOrders();
		const key = `constant-${serial}`;
		const store = 'vaultStoreStoreApi';
		const own = f.credentials[store];
		// Another store on the same host (the sandbox holds none: it answers 404, after the node sent it).
		const other = { ...own, storeId: 'shp_anotherstore00000000000' };
		expect(other.storeId).not.toBe(own.storeId);
		const refund = (order: string) => ({ resource: 'order', operation: 'refund', orderId: rl(order), additionalFields: { amount: 1 }, options: { idempotencyKey: key } });
		for (const [place, credentialIds] of [['another place', { [store]: '3' }], ['the same place', undefined]] as const) {
			f.sb.clearRequests();
			const r = await runNodes(
				[{ parameters: refund(a.id), continueOnFail: true }, { name: 'Second', parameters: refund(b.id), continueOnFail: true, credentialIds }],
				{ ...f.credentials, [`${store}#3`]: other },
			);
			const answer = r.error('Second')?.message ?? JSON.stringify(r.output('Second')[0]?.json);
			const sentForB = f.requests().filter((q) => q.path.includes(b.id));
			if (place === 'another place') {
				expect(answer).not.toMatch(/already sent in this execution/);
				expect(sentForB).toHaveLength(1);
				expect(sentForB[0].path).toContain('shp_anotherstore00000000000');
			} else {
				expect(answer).toMatch(/already sent in this execution with another write/);
				expect(sentForB).toHaveLength(0);
			}
		}
	});

	test('the same key for the same refund in two runs of a loop is the same write: made once, the second run reports it', async () => {
		serial++;
		judgingKeysByBody();
		const [a] = twoOrders();
		const before = f.sb.state.refunds.filter((r) => r.orderId === a.id).length;
		f.sb.clearRequests();
		const parameters = { resource: 'order', operation: 'refund', orderId: rl('={{ $json.order }}'), additionalFields: { amount: 1 }, options: { idempotencyKey: `same-${serial}` } };
		const r = await runInLoop(parameters, [{ order: a.id }, { order: a.id }], f.credentials, { continueOnFail: true });
		expect(r.runs.map((run) => run.error ?? run.items[0].error)).toEqual([undefined, undefined]);
		expect(f.sb.state.refunds.filter((x) => x.orderId === a.id).length - before).toBe(1);
		// Not refused: the once record holds the write under that key and gives its answer (n8n's Retry, where it
		// cannot be read, sends it again and the service replays it: test/money-gate.test.ts).
		expect(moneyWrites()).toHaveLength(1);
		const [first, again] = r.runs.map((run) => run.items[0]);
		expect(again).toMatchObject({ id: first.id, writeSkipped: true });
	});
});

/**
 * A replayed answer (Idempotent-Replay: true) to a write under a key of the user's that nothing
 * explains: no earlier run of this execution sent that key with this write, the node's once record
 * holds no earlier execution's, and the answer does not name the record written to (a payout's
 * route has no id; an answer may carry only its own id). It is another write's answer as far as
 * the node can tell: the item fails naming the key, never reports it as its own success. A payout
 * under one key in two workflows (two once records): the second is the service's replay of the
 * first. Control: a key per workflow makes both payouts. (The same key sent again by the same
 * execution is its own replay: test/money-gate.test.ts, n8n's Retry.) Against the service that
 * judges a reused key by its body.
 */
describe('a replayed answer that neither this execution nor the once record explains', () => {
	const payout = (key: string) => ({ resource: 'payout', operation: 'create', amount: 5, options: { idempotencyKey: key } });
	const payouts = () => f.sb.ledger.filter((e) => e.kind === 'payout').length;

	test.each([
		{ label: 'the same key in two workflows: the second fails, one payout', keys: ['shared', 'shared'] },
		{ label: 'control: a key per workflow, two payouts', keys: ['one', 'two'] },
	])('$label', async ({ keys }) => {
		serial++;
		judgingKeysByBody();
		const before = payouts();
		const runs: RunResult[] = [];
		for (const [i, key] of keys.entries()) {
			f.sb.clearRequests();
			runs.push(await runNodes([{ name: 'Vault Store', id: `node-replay-${serial}-${i}`, parameters: payout(`${key}-${serial}`) }], f.credentials, undefined, { workflowId: `wf_replay_${serial}_${i}` }));
		}
		expect(runs[0].error()).toBeUndefined();
		if (keys[0] === keys[1]) {
			expect(runs[1].error()?.message).toMatch(/^The service answered with the stored result of an earlier request with the Idempotency Key "shared-\d+" \(a replay\), and neither this execution nor this node's record of earlier executions sent "Create a payout" with that key: the answer may be another write's, and this one may not have been made/);
			expect(runs[1].error()?.description).toMatch(/Options → Idempotency Key/);
			expect(runs[1].output()).toEqual([]);
			expect(payouts() - before).toBe(1);
		} else {
			expect(runs[1].error()).toBeUndefined();
			expect(payouts() - before).toBe(2);
		}
	});

	test('an answer carrying only an id, replayed to a refund under a key nothing in this execution sent, fails the item; under a derived key it is the write\'s own', async () => {
		serial++;
		const order = completedOrder();
		const replay = { kind: 'reply' as const, match: { method: 'POST', path: MONEY }, reply: { status: 201, headers: { 'Idempotent-Replay': 'true' }, body: { ok: true, data: { id: `rfd_onlyanid${String(serial).padStart(14, '0')}`, amount: 1, currency: 'USD' } } } };
		const params = (options: IDataObject) => ({ resource: 'order', operation: 'refund', orderId: rl(order), additionalFields: { amount: 1 }, options });
		f.sb.faults.add(replay);
		const keyed = await f.run(params({ idempotencyKey: `only-id-${serial}` }), undefined, { continueOnFail: false });
		expect(keyed.error()?.message).toMatch(/a replay\), and neither this execution nor this node's record of earlier executions sent "Refund an order" with that key/);
		f.sb.faults.add(replay);
		const derived = await f.run(params({}), undefined, { continueOnFail: false });
		expect(derived.error()).toBeUndefined();
		expect(derived.output()[0].json).toMatchObject({ idempotentReplay: true });
	});
});

/**
 * An AI agent calls the tool again after a call whose outcome is unknown (the same order and
 * amount, in the same execution): its calls have no event; each call is its own run of the node,
 * keyed by the execution and what it moves (issue 55). The node remembers the unclear write for the execution:
 * the repeat goes out under the first call's key when that call went unanswered (the service
 * answers with what it did), and is refused when the service failed on it. Both agent routes;
 * the control is a call for another order in the same conversation, which goes out once.
 */
/** The outcomes a repeat in the same execution is tested against (by an agent, by a second node). */
// Unanswered (502, Max Retries 0: sent again under the same key), failed (500: refused), not applied
// (400: sent as new). A timeout with Max Retries 0 is not among them: its repeat meets the held
// original's 409 and, with no retries, goes unanswered again.
const REPEAT_KINDS = KINDS.filter((k) => ['500 after commit', '502 before anything', '400 (provably not applied)'].includes(k.name));

/**
 * A refund of `order` met `kind`, the same refund was made again in the same execution, then a
 * refund of `other` (the control); `texts` are what each of the three answered.
 */
function expectRepeat(kind: Kind, texts: string[], order: string, other: string, effects: number): void {
	const [first, again, control] = texts;
	const sent = moneyWrites();
	for (const secret of [f.sb.store.secretKey, f.sb.store.signingSecret]) expect(texts.join('\n')).not.toContain(secret);
	if (kind.first === 'unknown') expect(first).toMatch(/The outcome of \\?".+\\?" is unknown: the service may have applied it/);
	else expect(first).not.toMatch(/is unknown/);
	const toOrder = sent.filter((q) => q.path.includes(order));
	const firstKey = toOrder[0].headers['idempotency-key'];
	if (kind.again['at once'] === 'refused') {
		expect(again).toMatch(/The outcome of \\?".+\\?" for this execution is unknown: an earlier call sent it/);
		expectAttempts(kind, toOrder.length);
	} else if (kind.again['at once'] === 'resent') {
		expect(again).not.toMatch(/Refused|is unknown/);
		// Under the first call's key (a 409 "still running" while the first is held is retried under it too).
		expect(toOrder.length).toBeGreaterThan(mostAttempts(kind));
		expect(new Set(toOrder.map((q) => q.headers['idempotency-key']))).toEqual(new Set([firstKey]));
	} else {
		// Provably not applied: the repeat is a new write.
		expect(again).not.toMatch(/Refused|is unknown/);
		expect(toOrder).toHaveLength(mostAttempts(kind) + 1);
	}
	// At most one refund of the order reached the ledger, whatever the outcome.
	expect(f.sb.ledger.slice(effects).filter((e) => JSON.stringify(e).includes(order)).length).toBeLessThanOrEqual(1);
	// Control: another order in the same execution is refunded once.
	expect(control).not.toMatch(/Refused|is unknown/);
	expect(sent.filter((q) => q.path.includes(other))).toHaveLength(1);
}

describe('a second Vault Store node repeats a money write whose outcome is unknown, in the same execution', () => {
	// The first node's refund meets the fault; the next node (say on its error branch) makes the same refund.
	const SECOND = ['row', 'Custom API Call (store)'] as const;
	const CELLS = REPEAT_KINDS.flatMap((kind) => SECOND.map((second) => ({ kind, second, label: `${kind.name} × second node: ${second}` })));
	test.each(CELLS)('$label', async ({ kind, second }) => {
		serial++;
		const [order, other] = f.sb.state.orders.filter((o) => o.payment.status === 'COMPLETED' && o.amount >= 10).slice(100 + (serial % 40), 102 + (serial % 40));
		const options = { ...(kind.options ?? {}) };
		const first = { resource: 'order', operation: 'refund', orderId: rl(order.id), additionalFields: { amount: 1 }, options };
		const again =
			second === 'row'
				? first
				: { resource: 'custom', operation: 'request', method: 'POST', path: `/v2/stores/{storeId}/orders/${order.id}/refund`, body: '{"amount": 1}', options };
		const control = { ...first, orderId: rl(other.id) };
		f.sb.clearRequests();
		if (kind.fault) f.sb.faults.add({ ...kind.fault, count: mostAttempts(kind), match: { method: 'POST', path: MONEY } });
		const effects = f.sb.ledger.length;
		const r = await runNodes(
			[
				{ name: 'First', parameters: first, continueOnFail: true },
				{ name: 'Again', parameters: again, continueOnFail: true },
				{ name: 'Control', parameters: control, continueOnFail: true },
			],
			f.credentials,
		);
		f.sb.faults.clear();
		const text = (node: string) => r.error(node)?.message ?? JSON.stringify(r.output(node)[0]?.json);
		expectRepeat(kind, ['First', 'Again', 'Control'].map(text), order.id, other.id, effects);
	});
});

describe('an agent repeats a money write whose outcome is unknown, in the same execution', () => {
	const AGENT_CELLS = REPEAT_KINDS.flatMap((kind) => AGENT_ROUTES.map((route) => ({ kind, route, label: `${kind.name} × agent (${route})` })));
	test.each(AGENT_CELLS)('$label', async ({ kind, route }) => {
		serial++;
		const [order, other] = f.sb.state.orders.filter((o) => o.payment.status === 'COMPLETED' && o.amount >= 10).slice(60 + (serial % 40), 62 + (serial % 40));
		const parameters = {
			resource: 'order',
			operation: 'refund',
			orderId: rl("={{ $fromAI('order', 'the order to refund', 'string') }}"),
			additionalFields: { amount: 1 },
			options: { ...(kind.options ?? {}), maxAmount: 5 },
		};
		f.sb.clearRequests();
		// Only the first call meets the fault.
		if (kind.fault) f.sb.faults.add({ ...kind.fault, count: mostAttempts(kind), match: { method: 'POST', path: MONEY } });
		const effects = f.sb.ledger.length;
		const r = await runAsAgentTool(route, parameters, [{ order: order.id }, { order: order.id }, { order: other.id }], f.credentials, { continueOnFail: true });
		f.sb.faults.clear();
		expectRepeat(kind, r.texts, order.id, other.id, effects);
	});
});
