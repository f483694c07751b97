/**
 * The request gate as a matrix: rule × path. Every money rule (the cap, amounts above 0, once
 * per event, the read-back, the agent refusals) is checked on every path a money write can take
 * (the operation's Amount field, Additional Body Fields, Additional Query Parameters, per-item
 * and per-execution expressions, Custom API Call with the store credential (plain, percent-encoded,
 * core root) and the vault credential, the Pay `run` hatch, both of n8n's agent routes), over
 * every money-moving operation (Order → Refund, Payout → Create, Checkout → Pay). A new path or
 * operation is a row of PATHS or OPS, not new test code. The node runs in n8n-core against the
 * sandbox; answers that lie come from its hostile mode.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { CheckoutSession } from '../sandbox/resources/checkout';
import { openSession } from '../sandbox/resources/checkout';
import type { AgentRoute } from './support/agent-routes';
import { runAsAgentTool } from './support/agent-routes';
import { useSandbox } from './support/fixtures';
import type { NodeSpec, RunResult } from './support/harness';
import { runNodes, TRIGGER_TYPE } from './support/harness';
import { runInLoop } from './support/loop';

const f = useSandbox({ orders: 300 });
const CAP = 20;
const ABOVE = 5000;
const WITHIN = 2;
const rl = (value: string) => ({ __rl: true, mode: 'id', value });

type Op = 'refund' | 'payout' | 'pay';
const OPS: Op[] = ['refund', 'payout', 'pay'];

/** The record a cell writes to: a fresh order, or a fresh checkout session whose total is the amount. */
interface Target {
	orderId: string;
	sessionId: string;
}

let nextOrder = 0;
let nextSession = 0;
function target(op: Op, amount: number): Target {
	const orders = f.sb.state.orders.filter((o) => o.payment.status === 'COMPLETED' && o.amount >= 10);
	const orderId = op === 'refund' ? orders[nextOrder++ % orders.length].id : '';
	let sessionId = '';
	if (op === 'pay') {
		sessionId = `cks_matrix${String(++nextSession).padStart(10, '0')}`;
		const session = openSession({ id: sessionId, paylinkId: null, amount, currency: 'USD', items: [], expiresAt: '2099-01-01T00:00:00.000Z', createdAt: new Date().toISOString() });
		f.sb.app.collection<CheckoutSession>('checkoutSessions').push(session);
	}
	return { orderId, sessionId };
}

const pair = (name: string, value: unknown) => ({ pair: [{ name, value: String(value) }] });

/** The operation's own parameters with its amount `amount` (Pay: the session's total, set by `target`). */
function own(op: Op, t: Target, amount: number | string): IDataObject {
	if (op === 'refund') return { resource: 'order', operation: 'refund', orderId: rl(t.orderId), additionalFields: { amount } };
	if (op === 'payout') return { resource: 'payout', operation: 'create', amount };
	return { resource: 'checkout', operation: 'pay', sessionId: rl(t.sessionId) };
}

/** The route of each operation, as a Custom API Call path (`{storeId}` is the credential's). */
function customPath(op: Op, t: Target, encoded: boolean): string {
	if (op === 'refund') return `/v2/stores/{storeId}/orders/${t.orderId}/${encoded ? 're%66und' : 'refund'}`;
	if (op === 'payout') return `/v2/core/stores/{storeId}/${encoded ? 'p%61youts' : 'payouts'}`;
	return `/v2/stores/{storeId}/checkouts/${t.sessionId}/${encoded ? 'p%61y' : 'pay'}`;
}

function custom(op: Op, t: Target, amount: number, encoded: boolean): IDataObject {
	const body = op === 'pay' ? {} : { amount };
	return { resource: 'custom', operation: 'request', method: 'POST', path: customPath(op, t, encoded), body: JSON.stringify(body) };
}

interface Cell {
	parameters: IDataObject;
	/** Input items (the json of each); default one empty item. */
	input?: IDataObject[];
	/** Arguments the agent passes (agent paths). */
	args?: IDataObject;
}

interface Path {
	name: string;
	ops: Op[];
	/** Runs through this agent route. */
	agent?: AgentRoute;
	/** The path reaches the sandbox's route (a vault route that moves money is only refused). */
	reaches: boolean;
	/** Parameters that send `amount` by this path (Pay: the session's total is `amount`). */
	build: (op: Op, t: Target, amount: number) => Cell;
}

const PATHS: Path[] = [
	{ name: 'Amount field', ops: OPS, reaches: true, build: (op, t, amount) => ({ parameters: own(op, t, amount) }) },
	{
		name: 'Additional Body Fields',
		ops: OPS,
		reaches: true,
		// The operation's own amount is a small one; the extra field carries the amount (Pay: the service ignores it).
		build: (op, t, amount) => ({ parameters: { ...own(op, t, 1), additionalBodyFields: pair('amount', op === 'pay' ? 1 : amount) } }),
	},
	{
		name: 'Additional Query Parameters',
		ops: OPS,
		reaches: true,
		build: (op, t, amount) => ({ parameters: { ...own(op, t, op === 'pay' ? 1 : WITHIN), additionalQueryParameters: pair('amount', op === 'pay' ? 1 : amount) } }),
	},
	{
		name: 'expression per item',
		ops: OPS,
		reaches: true,
		build: (op, t, amount) => ({
			parameters: op === 'pay' ? { ...own(op, t, 0), sessionId: rl('={{ $json.session }}') } : own(op, t, '={{ $json.amount }}'),
			input: [{ amount, session: t.sessionId }],
		}),
	},
	{
		name: 'expression per execution (a reason with $execution.id)',
		ops: ['refund'],
		reaches: true,
		build: (op, t, amount) => ({ parameters: { ...own(op, t, amount), additionalFields: { amount, reason: '=run {{ $execution.id }} {{ $now.toMillis() }}' } } }),
	},
	{ name: 'Custom API Call (store)', ops: OPS, reaches: true, build: (op, t, amount) => ({ parameters: custom(op, t, amount, false) }) },
	{ name: 'Custom API Call (store, percent-encoded route)', ops: OPS, reaches: true, build: (op, t, amount) => ({ parameters: custom(op, t, amount, true) }) },
	{
		name: 'Custom API Call (vault)',
		ops: ['payout'],
		reaches: false,
		build: (_op, _t, amount) => ({ parameters: { resource: 'custom', operation: 'request', api: 'vault', method: 'POST', path: '/proxy/charges', body: JSON.stringify({ amount }) } }),
	},
	...(['tool call', 'engine request'] as AgentRoute[]).map(
		(agent): Path => ({
			name: `agent (${agent})`,
			ops: OPS,
			agent,
			reaches: true,
			build: (op, t, amount) => ({
				parameters: op === 'pay' ? own(op, t, 0) : own(op, t, "={{ $fromAI('amount', 'amount', 'number') }}"),
				args: { amount },
			}),
		}),
	),
];

const CELLS = PATHS.flatMap((path) => path.ops.map((op) => ({ path, op, label: `${path.name} × ${op}` })));

interface Outcome {
	error?: string;
	/** Writes the sandbox received on the operation's route (any write method). */
	writes: number;
	output: IDataObject[];
	run?: RunResult;
}

const MONEY_ROUTE = /\/(refund|re%66und|payouts|p%61youts|pay|p%61y|charges)$/;
const writes = () => f.requests().filter((q) => q.method !== 'GET' && MONEY_ROUTE.test(q.path)).length;

async function run(path: Path, op: Op, amount: number, options: IDataObject, input?: INodeExecutionData[]): Promise<Outcome> {
	const t = target(op, amount);
	const cell = path.build(op, t, amount);
	const parameters = { ...cell.parameters, options: { ...(cell.parameters.options as IDataObject), ...options } };
	if (path.agent) {
		f.sb.clearRequests();
		const r = await runAsAgentTool(path.agent, parameters, cell.args ?? {}, f.credentials);
		const failed = /Refused|not available|rror|recorded|Maximum Amount|must be|at least/.test(r.text);
		return { error: failed ? r.text : undefined, writes: writes(), output: [] };
	}
	const r = await f.run(parameters, input ?? (cell.input ?? [{}]).map((json) => ({ json })));
	return { error: r.error()?.message, writes: writes(), output: r.output().map((i) => i.json), run: r };
}

describe('cap: an amount above the Maximum Amount is refused before anything is written', () => {
	test.each(CELLS)('$label', async ({ path, op }) => {
		const o = await run(path, op, ABOVE, { maxAmount: CAP, allowAgentWrites: true });
		expect(o.error).toMatch(/Refused: the amount 5000 is above the maximum of 20/);
		expect(o.writes).toBe(0);
	});
});

describe('cap: an amount within the Maximum Amount is written once', () => {
	test.each(CELLS.filter((c) => c.path.reaches))('$label', async ({ path, op }) => {
		const o = await run(path, op, WITHIN, { maxAmount: CAP, allowAgentWrites: true });
		expect(o.error).toBeUndefined();
		expect(o.writes).toBe(1);
	});
});

/**
 * The spending budgets on every path: a write of WITHIN against a budget just below it is refused
 * naming the budget, nothing sent; the control, the same write against a budget equal to it, goes
 * out once. (Totals over many writes, outcomes and agents' tool calls: test/budget.test.ts.)
 */
describe('budgets: a write that would pass Maximum Total per Execution or per Day is refused; within it, it goes out', () => {
	const BUDGETS = [
		{ rule: 'Maximum Total per Execution', option: 'maxTotalPerExecution' },
		{ rule: 'Maximum Total per Day', option: 'maxTotalPerDay' },
	];
	const BUDGET_CELLS = BUDGETS.flatMap((b) => CELLS.filter((c) => c.path.reaches).map((c) => ({ ...c, ...b, label: `${b.rule} × ${c.label}` })));
	test.each(BUDGET_CELLS)('$label', async ({ path, op, rule, option }) => {
		const agent = path.agent ? { maxAmount: CAP } : {};
		const above = await run(path, op, WITHIN, { ...agent, allowAgentWrites: true, [option]: WITHIN - 0.5 });
		expect(above.error).toMatch(new RegExp(`Refused: this write of ${WITHIN} .* would pass the \\\\?"${rule}\\\\?" of ${WITHIN - 0.5}: 0 already spent`));
		expect(above.writes).toBe(0);
		const within = await run(path, op, WITHIN, { ...agent, allowAgentWrites: true, [option]: WITHIN });
		expect(within.error).toBeUndefined();
		expect(within.writes).toBe(1);
	});
});

test('budgets: without n8n\'s deduplication store (n8n-core alone, as here), the day\'s total is kept in static data across executions', async () => {
	const workflow = { id: 'wf_budget_static', staticData: {} as IDataObject };
	const results: Array<string | undefined> = [];
	for (let i = 0; i < 3; i++) {
		const t = target('refund', WITHIN);
		f.sb.clearRequests();
		const r = await runNodes([{ name: 'Vault Store', id: 'node-budget-static', parameters: { ...own('refund', t, WITHIN), options: { maxTotalPerDay: 5 } } }], f.credentials, undefined, { workflowId: workflow.id, staticData: workflow.staticData });
		workflow.staticData = r.staticData;
		results.push(r.error()?.message);
		expect(writes()).toBe(i < 2 ? 1 : 0);
	}
	expect(results.slice(0, 2)).toEqual([undefined, undefined]);
	expect(results[2]).toMatch(/would pass the "Maximum Total per Day" of 5: 4 already spent today \(\d{4}-\d\d-\d\d\), 1 left/);
	// What is left goes out: the day's total exactly at the budget (1 more), then nothing more (0.01).
	for (const [amount, sent] of [[1, 1], [0.01, 0]] as const) {
		const t = target('refund', amount);
		f.sb.clearRequests();
		const r = await runNodes([{ name: 'Vault Store', id: 'node-budget-static', parameters: { ...own('refund', t, amount), options: { maxTotalPerDay: 5 } } }], f.credentials, undefined, { workflowId: workflow.id, staticData: workflow.staticData });
		workflow.staticData = r.staticData;
		expect(writes()).toBe(sent);
		if (sent === 0) expect(r.error()?.message).toMatch(/would pass the "Maximum Total per Day" of 5: 5 already spent today/);
		else expect(r.error()).toBeUndefined();
	}
});

describe('an amount at or below 0 is refused before anything is written (with or without a cap)', () => {
	// Pay's amount is the session's total, which cannot be below 0. A route no operation declares
	// (the vault row) is the user's own call outside a cap (see the debit test below).
	test.each(CELLS.filter((c) => c.op !== 'pay' && c.path.name !== 'Custom API Call (vault)'))('$label', async ({ path, op }) => {
		for (const amount of [0, -5]) {
			const o = await run(path, op, amount, path.agent ? { maxAmount: CAP } : {});
			expect(o.error).toMatch(/Refused: .* is (0|-5); an amount must be more than 0|Amount|must be/);
			expect(o.writes).toBe(0);
		}
	});
});

describe('read-back: a service that records more than the Maximum Amount fails the item; written once, never repeated', () => {
	test.each(CELLS.filter((c) => c.path.reaches))('$label', async ({ path, op }) => {
		if (op === 'pay') f.sb.app.hostile.payCharges = 9999;
		else f.sb.faults.add({ match: { method: 'POST', path: MONEY_ROUTE }, kind: 'reply', status: 200, reply: { body: { ok: true, data: { id: 'rec_hostile0000000001', amount: 9999, currency: 'USD' } } } });
		try {
			const o = await run(path, op, WITHIN, { maxAmount: CAP, allowAgentWrites: true });
			expect(o.error).toMatch(/recorded amount 9999, above the maximum of 20/);
			expect(o.writes).toBe(1);
		} finally {
			f.sb.app.hostile.payCharges = undefined;
		}
	});
});

describe('agents: a money write without a Maximum Amount is refused on both agent routes', () => {
	test.each(CELLS.filter((c) => c.path.agent))('$label', async ({ path, op }) => {
		const o = await run(path, op, WITHIN, {});
		expect(o.error).toMatch(/Maximum Amount/);
		expect(o.writes).toBe(0);
	});
});

const TRIGGER: NodeSpec = { name: 'Vault Store Trigger', type: TRIGGER_TYPE, parameters: { events: ['PAYMENT_COMPLETED'], signatureVersion: 'V2', options: {} } };
let events = 0;

describe('once per event: the same event executed again after the service forgot its keys (25 h) writes nothing more', () => {
	test.each(CELLS.filter((c) => c.path.reaches && !c.path.agent))('$label', async ({ path, op }) => {
		const t = target(op, WITHIN);
		const cell = path.build(op, t, WITHIN);
		const eventId = `msg_matrix${String(++events).padStart(8, '0')}`;
		const delivery = { json: { event: 'PAYMENT_COMPLETED', id: eventId, ...(cell.input?.[0] ?? {}), meta: { deliveryId: eventId, signatureVersion: 'V2' } } };
		const workflow = { id: `wf_matrix_${events}`, staticData: {} as IDataObject };
		const execute = async () => {
			f.sb.clearRequests();
			const r = await runNodes([TRIGGER, { name: 'Vault Store', parameters: cell.parameters }], f.credentials, [delivery], { workflowId: workflow.id, staticData: workflow.staticData });
			workflow.staticData = r.staticData;
			return r;
		};
		const first = await execute();
		expect(first.error()).toBeUndefined();
		expect(writes()).toBe(1);
		await f.sb.app.clock.advance(25 * 3_600_000);
		const again = await execute();
		expect(writes()).toBe(0);
		const out = again.output()[0]?.json;
		const error = again.error()?.message;
		// Skipped with the recorded result, or (a field that changes per execution) failed naming it.
		if (error !== undefined) expect(error).toMatch(/already made this write .* other values of "reason"/);
		else expect(out?.writeSkipped).toBe(true);
	});
});

describe('single rules beside the matrix', () => {
	test('Maximum Amount given as an expression is read for every item', async () => {
		const orders = f.sb.state.orders.filter((o) => o.payment.status === 'COMPLETED' && o.amount >= 10);
		const input = [
			{ json: { cap: 1000, amount: 5, orderId: orders[0].id } },
			{ json: { cap: 1, amount: 5, orderId: orders[1].id } },
		];
		const r = await runNodes(
			[{ name: 'Vault Store', continueOnFail: true, parameters: { resource: 'order', operation: 'refund', orderId: rl('={{ $json.orderId }}'), additionalFields: { amount: '={{ $json.amount }}' }, options: { maxAmount: '={{ $json.cap }}' } } }],
			f.credentials,
			input,
		);
		const out = r.output().map((i) => i.json);
		expect(out[0].error).toBeUndefined();
		expect(out[1].error).toMatch(/Refused: the amount 5 is above the maximum of 1/);
	});

	test('amount names are whole names: coffee, summary and restocking_fee are not amounts; a full refund under a cap stays refused', async () => {
		const orderId = f.sb.state.orders.filter((o) => o.payment.status === 'COMPLETED')[5].id;
		for (const name of ['coffee', 'restocking_fee', 'summary']) {
			f.sb.clearRequests();
			const r = await f.run({ resource: 'order', operation: 'refund', orderId: rl(orderId), additionalBodyFields: pair(name, 0), options: { maxAmount: 5 } });
			expect(r.error()?.message).toMatch(/not known before it is sent \(without an amount it is a full refund\)/);
			expect(writes()).toBe(0);
		}
		// Not an amount: the payout goes out (the sandbox then refuses a field it does not know).
		const sent = await f.run({ resource: 'payout', operation: 'create', amount: 3, additionalBodyFields: pair('summary', 'weekly'), options: { maxAmount: 5 } });
		expect(sent.error()?.message ?? '').not.toMatch(/Refused/);
		expect(writes()).toBe(1);
	});

	test('Custom API Call: dot segments and encoded slashes are refused', async () => {
		const dots = await f.run({ resource: 'custom', operation: 'request', method: 'POST', path: '/v2/stores/{storeId}/orders/%2e%2e/refund', body: '{"amount":1}' });
		expect(dots.error()?.message).toMatch(/\.\.|segments/);
		expect(writes()).toBe(0);
	});

	test.each(['tool call', 'engine request'] as AgentRoute[])('agents (%s): a reveal route through a vault Custom API Call is refused whatever Allow Agent Writes says', async (route) => {
		f.sb.clearRequests();
		const r = await runAsAgentTool(route, { resource: 'custom', operation: 'request', api: 'vault', method: 'POST', path: '/tokens/tok_aaaaaaaaaaaaaaaa/reveal', options: { allowAgentWrites: true } }, {}, f.credentials);
		expect(r.text).toMatch(/reveals card data, which is never given to AI agents/);
		expect(f.requests()).toHaveLength(0);
	});

	test('a Trigger upstream whose pairing a node lost: the money write adds a hint naming the cause and the fix', async () => {
		const orderId = f.sb.state.orders.filter((o) => o.payment.status === 'COMPLETED' && o.amount >= 10)[7].id;
		// Two deliveries in, three new items out: n8n cannot pair them (with as many items out as in, or one in, it would).
		const delivery = (id: string) => ({ json: { event: 'PAYMENT_COMPLETED', id, meta: { deliveryId: id } } });
		const r = await runNodes(
			[TRIGGER, { name: 'New Items', type: 'test.newItems', parameters: {} }, { name: 'Vault Store', parameters: { resource: 'order', operation: 'refund', orderId: rl(orderId), additionalFields: { amount: 1 } } }],
			f.credentials,
			[delivery('msg_unpaired000001'), delivery('msg_unpaired000002')],
			{ extraNodeTypes: { 'test.newItems': NEW_ITEMS } },
		);
		expect(r.error('Vault Store')).toBeUndefined();
		expect(r.hints('Vault Store').map((h) => h.message).join(' ')).toMatch(/cannot be traced to the "Vault Store Trigger" event .* Keep the item pairing .* Idempotency Key/);
	});
});

test('one delivery, its pairing dropped by a node on the way: the write is still keyed by the event (the execution has one delivery)', async () => {
	const orderId = f.sb.state.orders.filter((o) => o.payment.status === 'COMPLETED' && o.amount >= 10)[8].id;
	const delivery = { json: { event: 'PAYMENT_COMPLETED', id: 'msg_single00000001', meta: { deliveryId: 'msg_single00000001' } } };
	const r = await runNodes(
		[TRIGGER, { name: 'Two', type: 'test.two', parameters: {} }, { name: 'New Items', type: 'test.newItems', parameters: {} }, { name: 'Vault Store', parameters: { resource: 'order', operation: 'refund', orderId: rl(orderId), additionalFields: { amount: 1 } } }],
		f.credentials,
		[delivery],
		{ extraNodeTypes: { 'test.newItems': NEW_ITEMS, 'test.two': TWO } },
	);
	expect(r.error('Vault Store')).toBeUndefined();
	expect(r.output('Vault Store').map((i) => i.json.idempotencyKeySource)).toEqual(['event', 'event', 'event']);
	expect(r.hints('Vault Store').map((h) => h.message).join(' ')).not.toMatch(/cannot be traced/);
});

test('update from an unreleased build with the first record (0.1.0 had none): a refund it holds for the event is not made again (its key was derived from the whole request)', async () => {
	const { IdempotencyKeys, writeFingerprint } = await import('../nodes/shared/money/keys');
	const orderId = f.sb.state.orders.filter((o) => o.payment.status === 'COMPLETED' && o.amount >= 10)[9].id;
	const eventId = 'msg_upgrade0000001';
	const oldKey = new IdempotencyKeys({ workflowId: 'wf_upgrade', nodeName: 'Vault Store', runIndex: 0 }).forEvent(
		{ eventId },
		writeFingerprint({ method: 'POST', route: `stores/orders/${orderId}/refund`, body: { amount: 1 } }),
		0,
	);
	const staticData = { 'node:Vault Store': { vaultStoreWrites: { [oldKey]: { at: Date.now(), result: { id: 'rfd_before_upgrade01', amount: 1, currency: 'USD' } } } } };
	const delivery = { json: { event: 'PAYMENT_COMPLETED', id: eventId, meta: { deliveryId: eventId } } };
	f.sb.clearRequests();
	const r = await runNodes([TRIGGER, { name: 'Vault Store', parameters: { resource: 'order', operation: 'refund', orderId: rl(orderId), additionalFields: { amount: 1 } } }], f.credentials, [delivery], { workflowId: 'wf_upgrade', staticData });
	expect(r.error()).toBeUndefined();
	expect(r.output()[0].json).toMatchObject({ id: 'rfd_before_upgrade01', writeSkipped: true });
	expect(writes()).toBe(0);
});

test('update from an unreleased build with the first record: two same-amount refunds of one order in one event (different reasons) are looked up by the rule they were written with: neither is made again', async () => {
	const { IdempotencyKeys, writeFingerprint } = await import('../nodes/shared/money/keys');
	const orderId = f.sb.state.orders.filter((o) => o.payment.status === 'COMPLETED' && o.amount >= 10)[10].id;
	const eventId = 'msg_upgrade0000002';
	const keys = new IdempotencyKeys({ workflowId: 'wf_upgrade2', nodeName: 'Vault Store', runIndex: 0 });
	const oldKey = (reason: string) => keys.forEvent({ eventId }, writeFingerprint({ method: 'POST', route: `stores/orders/${orderId}/refund`, body: { amount: 1, reason } }), 0);
	const staticData = {
		'node:Vault Store': {
			vaultStoreWrites: {
				[oldKey('first')]: { at: Date.now(), result: { id: 'rfd_before_upgradeA1', amount: 1, currency: 'USD' } },
				[oldKey('second')]: { at: Date.now(), result: { id: 'rfd_before_upgradeB1', amount: 1, currency: 'USD' } },
			},
		},
	};
	const delivery = { json: { event: 'PAYMENT_COMPLETED', id: eventId, meta: { deliveryId: eventId } } };
	f.sb.clearRequests();
	const r = await runNodes(
		[TRIGGER, { name: 'Two', type: 'two', parameters: {} }, { name: 'Vault Store', parameters: { resource: 'order', operation: 'refund', orderId: rl(orderId), additionalFields: { amount: 1, reason: "={{ $json.n === 1 ? 'first' : 'second' }}" } } }],
		f.credentials,
		[delivery],
		{ workflowId: 'wf_upgrade2', staticData, extraNodeTypes: { two: TWO } },
	);
	expect(r.error()).toBeUndefined();
	expect(r.output().map((i) => i.json.id)).toEqual(['rfd_before_upgradeA1', 'rfd_before_upgradeB1']);
	expect(writes()).toBe(0);
});

test('a negative amount on a route that names money but no operation declares (a debit) goes out outside a cap (the service may accept it); under a cap the route is refused', async () => {
	const body = JSON.stringify({ amount: -5 });
	f.sb.clearRequests();
	const free = await f.run({ resource: 'custom', operation: 'request', method: 'POST', path: '/v2/stores/{storeId}/payouts/debits', body });
	expect(free.error()?.message ?? '').not.toMatch(/Refused/);
	expect(f.requests().filter((q) => q.method === 'POST')).toHaveLength(1);
	f.sb.clearRequests();
	const capped = await f.run({ resource: 'custom', operation: 'request', method: 'POST', path: '/v2/stores/{storeId}/payouts/debits', body, options: { maxAmount: 20 } });
	expect(capped.error()?.message).toMatch(/Refused/);
	expect(f.requests().filter((q) => q.method === 'POST')).toHaveLength(0);
});

/** Two items, both paired to the first input item. */
const TWO = {
	description: { displayName: 'Two', name: 'two', group: ['transform'], version: 1, description: 'two items', defaults: { name: 'Two' }, inputs: ['main'], outputs: ['main'], properties: [] },
	async execute() {
		return [[{ json: { n: 1 }, pairedItem: { item: 0 } }, { json: { n: 2 }, pairedItem: { item: 0 } }]];
	},
} as never;

/** A node that returns new items without pairing them to its input (as a Code node can). */
const NEW_ITEMS = {
	description: {
		displayName: 'New Items',
		name: 'newItems',
		group: ['transform'],
		version: 1,
		description: 'makes new items',
		defaults: { name: 'New Items' },
		inputs: ['main'],
		outputs: ['main'],
		properties: [],
	},
	async execute() {
		return [[{ json: { made: 1 } }, { json: { made: 2 } }, { json: { made: 3 } }]];
	},
} as never;

/**
 * Fail closed: under a Maximum Amount or for an AI agent, a write to a route no operation declares
 * is refused (the node cannot tell whether it moves money), and an operation whose charge the
 * request does not state (Subscription → Change Plan, Reactivate, Resume) is refused under a Maximum Amount. Each
 * row has its control: the same call outside the rule, or a declared route that moves no money,
 * reaches the service. Rows are data.
 */
describe('fail closed: what the declarations cannot classify is refused under a cap and for agents', () => {
	const activeSubscription = () => f.sb.app.collection<{ id: string; status: string; endsAt?: string | null }>('subscriptions').filter((s) => s.status === 'ACTIVE' && !s.endsAt)[nextOrder++ % 5].id;
	const category = () => ({ name: `Fail closed ${++nextSession}`, slug: `fail-closed-${nextSession}-${Date.now()}` });
	/** An active subscription put in the state the operation needs: a scheduled cancellation, or paused. */
	const subscriptionIn = (state: 'scheduled' | 'paused'): string => {
		const s = f.sb.app.collection<{ id: string; status: string; endsAt?: string | null; cancelledAt?: string | null }>('subscriptions').filter((x) => x.status === 'ACTIVE' && !x.endsAt)[nextOrder++ % 5];
		if (state === 'paused') s.status = 'PAUSED';
		else {
			s.endsAt = '2099-01-01T00:00:00.000Z';
			s.cancelledAt = new Date().toISOString();
		}
		return s.id;
	};
	interface Row {
		name: string;
		parameters: () => IDataObject;
		agent?: AgentRoute;
		refused: RegExp;
		/** The same call where the rule does not apply (no cap, or a declared route). */
		control: () => IDataObject;
	}
	const custom = (api: 'store' | 'vault', method: string, path: string, body: IDataObject, options: IDataObject): IDataObject => ({
		resource: 'custom',
		operation: 'request',
		...(api === 'vault' ? { api: 'vault' } : {}),
		method,
		path,
		body: JSON.stringify(body),
		sendIdempotencyKey: true,
		options,
	});
	const UNKNOWN = /is not a route of this node's operations, so it cannot tell whether it moves money/;
	const ROWS: Row[] = [
		{
			name: 'Custom API Call (store) to an undeclared route, under a cap',
			parameters: () => custom('store', 'PATCH', '/v2/stores/{storeId}/paylinks/pl_aaaaaaaaaaaa', { title: 'x' }, { maxAmount: 5 }),
			refused: UNKNOWN,
			control: () => custom('store', 'POST', '/v2/core/stores/{storeId}/categories', category(), { maxAmount: 5 }),
		},
		{
			name: 'Custom API Call (vault) to a proxy route, under a cap',
			parameters: () => custom('vault', 'POST', '/proxy', { url: 'https://payments.example/charge', token: 'tok_aaaaaaaaaaaaaaaa' }, { maxAmount: 5 }),
			refused: UNKNOWN,
			control: () => custom('vault', 'POST', '/tokens', { type: 'custom', data: { reference: `fc-${Date.now()}` } }, { maxAmount: 5 }),
		},
		{
			name: 'Custom API Call (store) to a route that names money but no operation declares, within the cap',
			parameters: () => custom('store', 'POST', '/v2/stores/{storeId}/charges', { amount: 1 }, { maxAmount: 5 }),
			refused: UNKNOWN,
			control: () => custom('store', 'POST', `/v2/stores/{storeId}/orders/${target('refund', 1).orderId}/refund`, { amount: 1 }, { maxAmount: 5 }),
		},
		{
			name: 'Subscription → Change (charge not stated), under a cap',
			parameters: () => ({ resource: 'subscription', operation: 'change', subscriptionId: rl(activeSubscription()), prorationBehavior: 'END_OF_PERIOD', updateFields: { quantity: 2 }, options: { maxAmount: 5 } }),
			refused: /"Change the plan of a subscription" may charge the customer a prorated difference now, an amount the request does not state/,
			control: () => ({ resource: 'subscription', operation: 'change', subscriptionId: rl(activeSubscription()), prorationBehavior: 'END_OF_PERIOD', updateFields: { quantity: 2 } }),
		},
		{
			name: 'Subscription → Reactivate (charge not stated), under a cap',
			parameters: () => ({ resource: 'subscription', operation: 'reactivate', subscriptionId: rl(subscriptionIn('scheduled')), options: { maxAmount: 5 } }),
			refused: /"Reactivate a subscription" restarts billing the customer, an amount the request does not state/,
			control: () => ({ resource: 'subscription', operation: 'reactivate', subscriptionId: rl(subscriptionIn('scheduled')) }),
		},
		{
			name: 'Subscription → Resume (charge not stated), under a cap',
			parameters: () => ({ resource: 'subscription', operation: 'resume', subscriptionId: rl(subscriptionIn('paused')), options: { maxAmount: 5 } }),
			refused: /"Resume a subscription" restarts billing the customer, an amount the request does not state/,
			control: () => ({ resource: 'subscription', operation: 'resume', subscriptionId: rl(subscriptionIn('paused')) }),
		},
		{
			name: 'Subscription → Resume (charge not stated), under a day budget only: the refusal names the budget',
			parameters: () => ({ resource: 'subscription', operation: 'resume', subscriptionId: rl(subscriptionIn('paused')), options: { maxTotalPerDay: 50 } }),
			refused: /"Resume a subscription" restarts billing the customer, an amount the request does not state, so it cannot be held to "Maximum Total per Day"$/,
			control: () => ({ resource: 'subscription', operation: 'resume', subscriptionId: rl(subscriptionIn('paused')) }),
		},
		...(['tool call', 'engine request'] as AgentRoute[]).flatMap((agent): Row[] => [
			{
				name: `agent (${agent}): Custom API Call (store) to an undeclared route, writes allowed`,
				agent,
				parameters: () => custom('store', 'PATCH', '/v2/stores/{storeId}/paylinks/pl_aaaaaaaaaaaa', { title: 'x' }, { allowAgentWrites: true }),
				refused: UNKNOWN,
				control: () => custom('store', 'POST', '/v2/core/stores/{storeId}/categories', category(), { allowAgentWrites: true }),
			},
			{
				name: `agent (${agent}): Custom API Call (vault) to a proxy route, writes allowed`,
				agent,
				parameters: () => custom('vault', 'POST', '/proxy', { url: 'https://payments.example/charge', token: 'tok_aaaaaaaaaaaaaaaa' }, { allowAgentWrites: true }),
				refused: UNKNOWN,
				control: () => custom('vault', 'POST', '/tokens', { type: 'custom', data: { reference: `fc-${Date.now()}` } }, { allowAgentWrites: true }),
			},
		]),
	];
	const run = async (row: Row, parameters: IDataObject): Promise<{ error?: string; sent: number }> => {
		f.sb.clearRequests();
		if (row.agent) {
			const r = await runAsAgentTool(row.agent, parameters, {}, f.credentials);
			return { error: /Refused|not available/.test(r.text) ? r.text : undefined, sent: f.requests().filter((q) => q.method !== 'GET').length };
		}
		const r = await f.run(parameters);
		return { error: r.error()?.message, sent: f.requests().filter((q) => q.method !== 'GET').length };
	};
	test.each(ROWS)('$name', async (row) => {
		const refused = await run(row, row.parameters());
		expect(refused.error).toMatch(row.refused);
		expect(refused.sent).toBe(0);
		const control = await run(row, row.control());
		expect(control.error).toBeUndefined();
		expect(control.sent).toBe(1);
	});
});

describe('Total Read Route: the route Pay reads its total from, when the user sets it, passes the request gate: a plain read below the store\'s root, never a write', () => {
	const REFUSED: [string, RegExp][] = [
		['/checkouts/{sessionId}/pay', /is a route that moves money when written to \(POST \/checkouts\/cks_\w+\/pay\)/],
		['/checkouts/{sessionId}/PAY.json', /is a route that moves money when written to/],
		['/orders/{sessionId}/refunds', /is a route that moves money when written to/],
		['/checkouts/{sessionId}/../../payouts', /is not a plain route: the path has a "\." or "\.\." segment/],
		['/checkouts/%2e%2e/%2e%2e/x', /is not a plain route: the path has a "\." or "\.\." segment/],
		['/checkouts/{sessionId}%2Fpay', /is not a plain route: the path has an encoded slash/],
		['/checkouts/{sessionId}?total=1', /is not a plain route: the path has a ";", "\?", "#" or space/],
		['//evil.example/checkouts/{sessionId}', /is not a plain route: the path has a doubled slash/],
		['https://evil.example/checkouts/{sessionId}', /does not start with "\/"/],
		['/checkouts/{orderId}', /names \{orderId\}, which this operation's route does not have/],
		['/checkouts/{session-id}', /names \{session-id\}, which this operation's route does not have/],
	];

	test.each(REFUSED)('%s is refused naming the option; nothing is sent', async (route, why) => {
		const t = target('pay', 5);
		f.sb.clearRequests();
		const r = await f.run({ resource: 'checkout', operation: 'pay', sessionId: rl(t.sessionId), options: { maxAmount: CAP, totalReadRoute: route } });
		expect(r.error()?.message).toMatch(/^Refused: the route the total of "Pay a checkout session" is read from first \(".*", Options → "Total Read Route"\) /);
		expect(r.error()?.message).toMatch(why);
		expect(f.requests()).toHaveLength(0);
	});

	test('control: the default route typed in (also with a trailing slash) is read (GET) and the session is paid', async () => {
		for (const route of ['/checkouts/{sessionId}', '/checkouts/{sessionId}/']) {
			const t = target('pay', 5);
			f.sb.clearRequests();
			const r = await f.run({ resource: 'checkout', operation: 'pay', sessionId: rl(t.sessionId), options: { maxAmount: CAP, totalReadRoute: route } });
			expect([route, r.error()?.message]).toEqual([route, undefined]);
			expect(f.requests().map((q) => q.method)).toEqual(['GET', 'POST']);
		}
	});

	test.each([['Total Amount Fields', 'totalAmountFields'], ['Recorded Amount Fields', 'recordedAmountFields'], ['Total Currency Fields', 'totalCurrencyFields']])('%s: a name that is not a field name (a prototype\'s, a space, an empty list) is refused before anything is sent', async (label, option) => {
		for (const value of ['__proto__', 'total amount', 'a.constructor', ' , ']) {
			const t = target('pay', 5);
			f.sb.clearRequests();
			const r = await f.run({ resource: 'checkout', operation: 'pay', sessionId: rl(t.sessionId), options: { maxAmount: CAP, [option]: value } });
			expect([value, r.error()?.message]).toEqual([value, expect.stringContaining(`"${label}"`)]);
			expect(f.requests()).toHaveLength(0);
		}
	});
});

describe('amounts as the service states them', () => {
	const session = (fields: IDataObject) => {
		const id = `cks_stated${String(++nextSession).padStart(9, '0')}`;
		f.sb.faults.add({ kind: 'reply', match: { method: 'GET', path: new RegExp(`/checkouts/${id}$`) }, reply: { body: { ok: true, data: { id, object: 'checkout_session', status: 'OPEN', currency: 'USD', ...fields } } } });
		return id;
	};
	const pay = async (id: string, max: number) => {
		f.sb.clearRequests();
		const r = await f.run({ resource: 'checkout', operation: 'pay', sessionId: rl(id), options: { maxAmount: max } });
		f.sb.faults.clear();
		return { error: r.error()?.message, posts: f.requests().filter((q) => q.method === 'POST').length };
	};

	test('Pay holds the largest amount the session states (a total with tax over its amount) to the cap; control: both within it go out', async () => {
		expect(await pay(session({ amount: 10, total: 30 }), 20)).toEqual({ error: expect.stringMatching(/Refused: the amount 30 is above the maximum of 20/), posts: 0 });
		const within = await pay(session({ amount: 10, total: 12 }), 20);
		expect(within.error ?? '').not.toMatch(/Refused/);
		expect(within.posts).toBe(1);
	});

	test('Pay: a session that states an amount of 0 is refused under a cap (what would it charge?)', async () => {
		expect(await pay(session({ amount: 0 }), 20)).toEqual({ error: expect.stringMatching(/states an amount of 0/), posts: 0 });
	});

	test('Refund: an answer that is the order (ord_…), not the refund, is not compared (a warning says so); control: a refund record above the cap fails', async () => {
		const [order, other] = f.sb.state.orders.filter((o) => o.payment.status === 'COMPLETED' && o.amount >= 10).slice(60, 62);
		f.sb.faults.add({ kind: 'reply', status: 200, match: { method: 'POST', path: /\/refund$/ }, reply: { body: { ok: true, data: { id: order.id, amount: 999, amountRefunded: 999, currency: 'USD' } } } });
		const r = await f.run({ resource: 'order', operation: 'refund', orderId: rl(order.id), additionalFields: { amount: 2 }, options: { maxAmount: 20 } });
		f.sb.faults.clear();
		expect(r.error()).toBeUndefined();
		expect(r.hints('Vault Store').map((h) => h.message).join(' ')).toMatch(new RegExp(`is the order ${order.id}, not the write's own record`));
		f.sb.faults.add({ kind: 'reply', status: 200, match: { method: 'POST', path: /\/refund$/ }, reply: { body: { ok: true, data: { id: 'rfd_stated0000000001', amount: 999, currency: 'USD' } } } });
		const control = await f.run({ resource: 'order', operation: 'refund', orderId: rl(other.id), additionalFields: { amount: 2 }, options: { maxAmount: 20 } });
		f.sb.faults.clear();
		expect(control.error()?.message).toMatch(/recorded amount 999, above the maximum of 20/);
	});
});

/**
 * n8n's Retry, where the once record cannot be read (no deduplication store here, and a Retry must
 * not write static data): a write under a key of the user's goes out again, and a replay of it is
 * explained only by what this execution remembers of the key. The same payout under one key in two
 * runs of a loop (Loop Over Items, batch size 1) is the same write: the second run sends it again
 * and reports the service's replay as that payout; a payout of another amount under the key is
 * refused before it is sent. A service that judges a reused key by its body (sandbox/disagree.ts),
 * which answers a payout with the amount asked here (`keepAnswers`).
 */
test("n8n's Retry: the same payout under one key in two runs of a loop is reported as the service's replay of it; another payout under that key is refused before sending", async () => {
	f.sb.disagree.on = true;
	f.sb.disagree.keepAnswers = true;
	const ledger = () => f.sb.ledger.filter((e) => e.kind === 'payout').length;
	const before = ledger();
	f.sb.clearRequests();
	const r = await runInLoop(
		{ resource: 'payout', operation: 'create', amount: '={{ $json.amount }}', options: { idempotencyKey: 'retry-loop-payout' } },
		[{ amount: 5 }, { amount: 5 }, { amount: 6 }],
		f.credentials,
		{ continueOnFail: true, mode: 'retry' },
	);
	const [first, again, other] = r.runs.map((run) => run.items[0]);
	expect(first.error).toBeUndefined();
	expect(again).toMatchObject({ id: first.id, amount: 5, idempotentReplay: true });
	expect(again.error).toBeUndefined();
	expect(String(other.error)).toMatch(/^The Idempotency Key "retry-loop-payout" was already sent in this execution with another write \("Create a payout", 5\b.*\); nothing was sent for this one$/);
	expect(f.requests().filter((q) => q.method === 'POST' && q.path.endsWith('/payouts'))).toHaveLength(2);
	expect(ledger() - before).toBe(1);
});

test("n8n's Retry: one key typed as a constant for two orders' refunds in two runs of a loop: the second is refused before it is sent (the once record cannot catch it here)", async () => {
	f.sb.disagree.on = true;
	f.sb.disagree.keepAnswers = true;
	const [a, b] = f.sb.state.orders.filter((o) => o.payment.status === 'COMPLETED' && o.amount >= 10).slice(-2);
	const refunds = (order: string) => f.sb.state.refunds.filter((r) => r.orderId === order).length;
	const before = { a: refunds(a.id), b: refunds(b.id) };
	f.sb.clearRequests();
	const r = await runInLoop(
		{ resource: 'order', operation: 'refund', orderId: rl('={{ $json.order }}'), additionalFields: { amount: 1 }, options: { idempotencyKey: 'retry-loop-refund' } },
		[{ order: a.id }, { order: b.id }],
		f.credentials,
		{ continueOnFail: true, mode: 'retry' },
	);
	const [first, second] = r.runs.map((run) => run.items[0]);
	expect(first).toMatchObject({ orderId: a.id });
	expect(String(second.error)).toMatch(/^The Idempotency Key "retry-loop-refund" was already sent in this execution with another write \("Refund an order", orderId ord_\w+, 1\); nothing was sent for this one$/);
	expect(f.requests().filter((q) => q.path.includes(b.id))).toHaveLength(0);
	expect([refunds(a.id) - before.a, refunds(b.id) - before.b]).toEqual([1, 0]);
});

/**
 * Issue 53.5, the mutation run (docs/reliability.md "Mutation testing"): the cap's and the
 * read-back's rules at their edges, each with a control, so a broken comparison or a dropped
 * condition fails a test.
 */
describe('the cap and the read-back at their edges', () => {
	const refundOrder = () => f.sb.state.orders.filter((o) => o.payment.status === 'COMPLETED' && o.amount >= 30)[nextOrder++ % 50].id;
	const customRefund = (body: IDataObject, options: IDataObject) => ({ resource: 'custom', operation: 'request', method: 'POST', path: `/v2/stores/{storeId}/orders/${refundOrder()}/refund`, body: JSON.stringify(body), options });
	const answerWith = (data: IDataObject) => f.sb.faults.add({ kind: 'reply', status: 200, match: { method: 'POST', path: MONEY_ROUTE }, reply: { body: { ok: true, data } } });

	test('an amount at the Maximum Amount goes out and its read-back at the maximum is a match; control: a cent above is refused', async () => {
		f.sb.clearRequests();
		const at = await f.run({ resource: 'payout', operation: 'create', amount: CAP, options: { maxAmount: CAP } });
		expect(at.error()).toBeUndefined();
		expect(at.output()[0].json).toMatchObject({ amount: CAP });
		expect(writes()).toBe(1);
		f.sb.clearRequests();
		const above = await f.run({ resource: 'payout', operation: 'create', amount: CAP + 0.01, options: { maxAmount: CAP } });
		expect(above.error()?.message).toBe(`Refused: the amount ${CAP + 0.01} is above the maximum of ${CAP} set for this node ("Maximum Amount")`);
		expect(writes()).toBe(0);
	});

	test('Pay: a session total at the Maximum Amount goes out; control: above it is refused', async () => {
		const at = target('pay', CAP);
		f.sb.clearRequests();
		const r = await f.run({ ...own('pay', at, CAP), options: { maxAmount: CAP } });
		expect(r.error()).toBeUndefined();
		expect(writes()).toBe(1);
		const above = target('pay', CAP + 1);
		f.sb.clearRequests();
		const refused = await f.run({ ...own('pay', above, CAP + 1), options: { maxAmount: CAP } });
		expect(refused.error()?.message).toBe(`Refused: the amount ${CAP + 1} is above the maximum of ${CAP} set for this node ("Maximum Amount")`);
		expect(writes()).toBe(0);
	});

	test('other amount-like values of 0 (a fee, a nested line\'s amount) do not stand for the own amount: the refund goes out under a cap; control: its own amount 0 is refused', async () => {
		f.sb.clearRequests();
		const sent = await f.run(customRefund({ amount: 2, fee: 0, lines: [{ amount: 0 }] }, { maxAmount: CAP }));
		expect(sent.error()?.message ?? '').not.toMatch(/Refused/);
		expect(writes()).toBe(1);
		f.sb.clearRequests();
		const zero = await f.run(customRefund({ amount: 0, fee: 2 }, { maxAmount: CAP }));
		expect(zero.error()?.message).toBe('Refused: "amount" of "Refund an order" is 0; an amount must be more than 0');
		expect(writes()).toBe(0);
	});

	test('a budget counts the largest amount the request carries wherever it stands (a fee above the amount, before a smaller nested one); control: a smaller fee goes out', async () => {
		f.sb.clearRequests();
		const refused = await f.run(customRefund({ amount: 2, fee: 7, lines: [{ amount: 1 }] }, { maxTotalPerExecution: 5 }));
		expect(refused.error()?.message).toMatch(/^Refused: this write of 7 \S+ would pass the "Maximum Total per Execution" of 5: 0 already spent/);
		expect(writes()).toBe(0);
		const within = await f.run(customRefund({ amount: 2, fee: 3, lines: [{ amount: 1 }] }, { maxTotalPerExecution: 5 }));
		expect(within.error()?.message ?? '').not.toMatch(/Refused/);
		expect(writes()).toBe(1);
	});

	test('under a Maximum Amount an amount-like value that is not a number is refused (its amount is not known); control: without a cap it goes out', async () => {
		f.sb.clearRequests();
		const capped = await f.run(customRefund({ amount: 2, fee: 'two' }, { maxAmount: CAP }));
		expect(capped.error()?.message).toBe(`Refused: "fee" of "Refund an order" is not a number, so the amount is not known before it is sent; it must be at most ${CAP} ("Maximum Amount")`);
		expect(writes()).toBe(0);
		const uncapped = await f.run(customRefund({ amount: 2, fee: 'two' }, {}));
		expect(uncapped.error()?.message ?? '').not.toMatch(/Refused/);
		expect(writes()).toBe(1);
	});

	test('another amount-like value never stands for the own amount: a refund with a fee and no amount is refused under a cap (a full refund); control: with its amount it goes out', async () => {
		f.sb.clearRequests();
		const full = await f.run(customRefund({ fee: 2 }, { maxAmount: CAP }));
		expect(full.error()?.message).toMatch(/^Refused: the amount of "Refund an order" is not known before it is sent \(without an amount it is a full refund\)/);
		expect(writes()).toBe(0);
		const sent = await f.run(customRefund({ amount: 2, fee: 2 }, { maxAmount: CAP }));
		expect(sent.error()?.message ?? '').not.toMatch(/Refused/);
		expect(writes()).toBe(1);
	});

	test('Pay: a budget counts an amount-like value the request carries above the session\'s total; control: one below it counts the total', async () => {
		const t = target('pay', 2);
		f.sb.clearRequests();
		const refused = await f.run({ ...own('pay', t, 2), additionalBodyFields: pair('amount', 7), options: { maxTotalPerExecution: 5 } });
		expect(refused.error()?.message).toMatch(/^Refused: this write of 7 \S+ would pass the "Maximum Total per Execution" of 5: 0 already spent/);
		expect(writes()).toBe(0);
		const within = await f.run({ ...own('pay', t, 2), additionalBodyFields: pair('amount', 1), options: { maxTotalPerExecution: 5 } });
		expect(within.error()?.message ?? '').not.toMatch(/Refused/);
		expect(writes()).toBe(1);
	});

	test('a refund answer without an id is still compared (an amount above the cap fails the item); control: one within it passes', async () => {
		answerWith({ amount: 999, currency: 'USD' });
		const above = await f.run({ resource: 'order', operation: 'refund', orderId: rl(refundOrder()), additionalFields: { amount: 2 }, options: { maxAmount: CAP } });
		f.sb.faults.clear();
		expect(above.error()?.message).toMatch(/recorded amount 999, above the maximum of 20/);
		answerWith({ amount: 2, currency: 'USD' });
		const within = await f.run({ resource: 'order', operation: 'refund', orderId: rl(refundOrder()), additionalFields: { amount: 2 }, options: { maxAmount: CAP } });
		f.sb.faults.clear();
		expect(within.error()).toBeUndefined();
	});

	test('a payout answer without a currency is not compared, never a failure; control: another currency fails the item', async () => {
		answerWith({ id: 'po_edge000000000001', amount: 3 });
		const missing = await f.run({ resource: 'payout', operation: 'create', amount: 3, additionalFields: { currency: 'USD' }, options: { maxAmount: CAP } });
		f.sb.faults.clear();
		expect(missing.error()).toBeUndefined();
		expect(missing.output()[0].json).toMatchObject({ id: 'po_edge000000000001', amount: 3 });
		answerWith({ id: 'po_edge000000000002', amount: 3, currency: 'EUR' });
		const other = await f.run({ resource: 'payout', operation: 'create', amount: 3, additionalFields: { currency: 'USD' }, options: { maxAmount: CAP } });
		f.sb.faults.clear();
		expect(other.error()?.message).toMatch(/recorded currency EUR where USD was asked/);
	});
});
