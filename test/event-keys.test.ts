/**
 * Exactly one effect per event. An item that descends from a Vault Store
 * Trigger delivery gets an Idempotency-Key that names the write (event,
 * workflow, node, method, route and body, and how many identical writes came
 * before in the execution), and a money-moving write is remembered in the
 * workflow's static data for 84 hours, longer than the service retries a
 * delivery (about 75 hours) and far longer than it keeps a key's result
 * (24 hours). Runs in n8n-core against the sandbox; the sandbox clock is moved
 * forward to make the service forget its keys. Static data is handed from one
 * run to the next as n8n saves it after every production execution,
 * successful or failed (its hook saves before it looks at the status).
 */
import type { IConnections, IDataObject, IExecuteFunctions, INodeExecutionData, INodeType, WorkflowExecuteMode } from 'n8n-workflow';

import { useSandbox } from './support/fixtures';
import type { NodeSpec, RunResult } from './support/harness';
import { runNodes, TRIGGER_TYPE } from './support/harness';

const f = useSandbox({ orders: 200 });
const DAY = 24 * 3_600_000;

const completed = () => f.sb.state.orders.filter((o) => o.payment.status === 'COMPLETED');

function delivery(eventId: string, orderId: string): INodeExecutionData {
	return { json: { event: 'PAYMENT_COMPLETED', id: eventId, data: { orderId }, meta: { deliveryId: eventId, signatureVersion: 'V2' } } };
}

const TRIGGER: NodeSpec = { name: 'Vault Store Trigger', type: TRIGGER_TYPE, parameters: { events: ['PAYMENT_COMPLETED'], signatureVersion: 'V2', options: {} } };

function refundNode(name = 'Refund', extra: IDataObject = {}): NodeSpec {
	return {
		name,
		parameters: {
			resource: 'order',
			operation: 'refund',
			orderId: { __rl: true, mode: 'id', value: '={{ $json.data.orderId }}' },
			additionalFields: { amount: 0.01 },
			...extra,
		},
	};
}

/** One workflow: its id and static data stay the same from execution to execution, as in n8n. */
class Workflow {
	staticData: IDataObject = {};

	constructor(readonly id: string) {}

	async run(items: INodeExecutionData[], nodes: NodeSpec[] = [TRIGGER, refundNode()], connections?: IConnections, mode?: WorkflowExecuteMode): Promise<RunResult> {
		f.sb.clearRequests();
		const r = await runNodes(nodes, f.credentials, items, { workflowId: this.id, staticData: this.staticData, connections, mode, extraNodeTypes: { 'test.fork': FORK } });
		this.staticData = r.staticData;
		return r;
	}
}

let workflows = 0;
const workflow = () => new Workflow(`wf_keys_${++workflows}`);

const refundsOf = (orderId: string) => f.sb.ledger.filter((e) => e.kind === 'refund' && (e as IDataObject).orderId === orderId);
const refundRequests = () => f.requests().filter((q) => q.path.endsWith('/refund'));
const hintsOf = (r: RunResult, node: string) => (r.run.data.resultData.runData[node] ?? []).flatMap((t) => t.hints ?? []).map((h) => h.message);

/** Passes its input on through two outputs: the node after it, fed by both, runs twice. */
const FORK: INodeType = {
	description: {
		displayName: 'Fork',
		name: 'fork',
		group: ['transform'],
		version: 1,
		description: 'two branches',
		defaults: { name: 'Fork' },
		inputs: ['main'],
		outputs: ['main', 'main'],
		properties: [],
	} as INodeType['description'],
	async execute(this: IExecuteFunctions) {
		const items = this.getInputData().map((item, i) => ({ ...item, pairedItem: { item: i } }));
		return [items, items];
	},
};

test('the same delivery executed twice within 24 h refunds once; the second answer is the recorded one, key source "event"', async () => {
	const wf = workflow();
	const order = completed()[0];
	const before = refundsOf(order.id).length;
	const first = await wf.run([delivery('msg_evt_same_1', order.id)]);
	const second = await wf.run([delivery('msg_evt_same_1', order.id)]);
	expect(first.error('Refund')).toBeUndefined();
	expect(second.error('Refund')).toBeUndefined();
	expect(refundsOf(order.id).length - before).toBe(1);
	expect(first.output('Refund')[0].json).toMatchObject({ idempotencyKeySource: 'event' });
	expect(second.output('Refund')[0].json).toMatchObject({ idempotencyKeySource: 'event', writeSkipped: true, id: first.output('Refund')[0].json.id });
	expect(refundRequests()).toHaveLength(0);
});

test('without the record, the Idempotency-Key alone replays within 24 h (a second process with no saved static data)', async () => {
	const wf = workflow();
	const order = completed()[1];
	const before = refundsOf(order.id).length;
	await wf.run([delivery('msg_evt_replay_2', order.id)]);
	wf.staticData = {};
	const again = await wf.run([delivery('msg_evt_replay_2', order.id)]);
	expect(again.output('Refund')[0].json).toMatchObject({ idempotentReplay: true, idempotencyKeySource: 'event' });
	expect(refundsOf(order.id).length - before).toBe(1);
});

test('a re-delivery after the service forgot the key (25 h later) refunds nothing: the output says the write was skipped, with a hint', async () => {
	const wf = workflow();
	const order = completed()[2];
	const before = refundsOf(order.id).length;
	// The run fails after the refund (a later node errors): n8n still saves the static data.
	const failing = await wf.run([delivery('msg_evt_late_1', order.id)], [TRIGGER, refundNode(), { name: 'Breaks', parameters: { resource: 'order', operation: 'get', orderId: { __rl: true, mode: 'id', value: '={{ "bad" }}' } } }]);
	expect(failing.error('Breaks')).toBeDefined();
	expect(refundsOf(order.id).length - before).toBe(1);
	await f.sb.app.clock.advance(25 * 3_600_000);
	const late = await wf.run([delivery('msg_evt_late_1', order.id)]);
	expect(late.error('Refund')).toBeUndefined();
	expect(refundRequests()).toHaveLength(0);
	expect(refundsOf(order.id).length - before).toBe(1);
	expect(late.output('Refund')[0].json).toMatchObject({ writeSkipped: true, idempotencyKeySource: 'event' });
	expect(hintsOf(late, 'Refund').join(' ')).toMatch(/already made was not sent again/);

	// The same late re-delivery where the record was lost: the service refunds again. (What the record prevents.)
	wf.staticData = {};
	await wf.run([delivery('msg_evt_late_1', order.id)]);
	expect(refundsOf(order.id).length - before).toBe(2);
});

test('a delivery whose first execution met a 503 outage on every attempt (the service did nothing) is refunded once on its later retry, also past 24 h', async () => {
	const wf = workflow();
	const order = completed()[3];
	const before = refundsOf(order.id).length;
	f.sb.faults.add({ match: { method: 'POST', path: /\/refund$/ }, kind: 'reply', status: 503, count: 10, reply: { body: { ok: false, error: { code: 'unavailable', message: 'down (injected)' } } } });
	const outage = await wf.run([delivery('msg_evt_outage_1', order.id)]);
	expect(outage.error('Refund')).toBeDefined();
	f.sb.faults.clear();
	expect(refundsOf(order.id).length - before).toBe(0);
	await f.sb.app.clock.advance(DAY + 3_600_000);
	const retry = await wf.run([delivery('msg_evt_outage_1', order.id)]);
	expect(retry.error('Refund')).toBeUndefined();
	expect(retry.output('Refund')[0].json.writeSkipped).toBeUndefined();
	expect(refundsOf(order.id).length - before).toBe(1);
	const third = await wf.run([delivery('msg_evt_outage_1', order.id)]);
	expect(third.output('Refund')[0].json).toMatchObject({ writeSkipped: true });
	expect(refundsOf(order.id).length - before).toBe(1);
});

test('two different deliveries refund twice', async () => {
	const wf = workflow();
	const order = completed()[4];
	const before = refundsOf(order.id).length;
	await wf.run([delivery('msg_evt_a', order.id)]);
	await wf.run([delivery('msg_evt_b', order.id)]);
	expect(refundsOf(order.id).length - before).toBe(2);
});

test('a node that runs twice for one event (fed by two branches) makes both writes: two refunds, two keys', async () => {
	const wf = workflow();
	const order = completed()[5];
	const before = refundsOf(order.id).length;
	const nodes = [TRIGGER, { name: 'Fork', type: 'test.fork', parameters: {} }, refundNode()];
	const connections: IConnections = {
		'Vault Store Trigger': { main: [[{ node: 'Fork', type: 'main', index: 0 }]] },
		Fork: { main: [[{ node: 'Refund', type: 'main', index: 0 }], [{ node: 'Refund', type: 'main', index: 0 }]] },
	};
	const r = await wf.run([delivery('msg_evt_twice_1', order.id)], nodes, connections);
	expect(r.run.data.resultData.runData.Refund).toHaveLength(2);
	const keys = refundRequests().map((q) => q.headers['idempotency-key']);
	expect(new Set(keys).size).toBe(2);
	expect(refundsOf(order.id).length - before).toBe(2);
	// The whole execution again (a re-delivery): both writes are recognised, none sent.
	await wf.run([delivery('msg_evt_twice_1', order.id)], nodes, connections);
	expect(refundRequests()).toHaveLength(0);
	expect(refundsOf(order.id).length - before).toBe(2);
});

test('two workflows on the same event, both with the default node name, each make their own refund', async () => {
	const order = completed()[6];
	const before = refundsOf(order.id).length;
	const one = await workflow().run([delivery('msg_evt_two_wf', order.id)]);
	const two = await workflow().run([delivery('msg_evt_two_wf', order.id)]);
	expect(refundsOf(order.id).length - before).toBe(2);
	expect(one.output('Refund')[0].json.id).not.toBe(two.output('Refund')[0].json.id);
	expect(two.output('Refund')[0].json.idempotentReplay).toBeUndefined();
});

test('the same event executed again after the upstream list changed order ([A, B], then [C, A, B]) refunds A and B once and C once', async () => {
	const wf = workflow();
	const [a, b, c] = completed().slice(7, 10);
	const count = () => [a, b, c].map((o) => refundsOf(o.id).length);
	const before = count();
	await wf.run([delivery('msg_evt_order_1', a.id), delivery('msg_evt_order_1', b.id)]);
	const firstKeys = refundRequests().map((q) => q.headers['idempotency-key']);
	wf.staticData = {}; // a second webhook process: only the Idempotency-Key protects
	await wf.run([delivery('msg_evt_order_1', c.id), delivery('msg_evt_order_1', a.id), delivery('msg_evt_order_1', b.id)]);
	const secondKeys = refundRequests().map((q) => q.headers['idempotency-key']);
	expect(secondKeys.slice(1)).toEqual(firstKeys);
	expect(count().map((n, i) => n - before[i])).toEqual([1, 1, 1]);
});

test('items of one execution from different deliveries get different keys; the same run repeated adds nothing', async () => {
	const wf = workflow();
	const [a, b] = completed().slice(10, 12);
	const items = [delivery('msg_evt_multi_1', a.id), delivery('msg_evt_multi_2', b.id)];
	const first = await wf.run(items);
	const keys = refundRequests().map((q) => q.headers['idempotency-key']);
	expect(new Set(keys).size).toBe(2);
	const ledger = f.sb.ledger.length;
	await wf.run(items);
	expect(f.sb.ledger.length).toBe(ledger);
	expect(first.output('Refund').map((i) => i.json.idempotencyKeySource)).toEqual(['event', 'event']);
});

test('an item that does not descend from a delivery keeps the per-execution key (source "execution"); the option wins (source "option")', async () => {
	const order = completed()[12];
	const plain = await f.run({ resource: 'order', operation: 'refund', orderId: { __rl: true, mode: 'id', value: order.id }, additionalFields: { amount: 0.01 } });
	expect(plain.output()[0].json.idempotencyKeySource).toBe('execution');
	const own = await workflow().run([delivery('msg_evt_opt', order.id)], [TRIGGER, refundNode('Refund', { options: { idempotencyKey: 'my-own-key-1' } })]);
	expect(own.output('Refund')[0].json.idempotencyKeySource).toBe('option');
	expect(f.requests().find((q) => q.path.endsWith('/refund'))?.headers['idempotency-key']).toBe('my-own-key-1');
});

// A write the record holds under an Idempotency Key of the user's is skipped as one under the
// event's key is; its output and hints name the key, not an event (a finding of issue 55's round:
// the skip said idempotencyKeySource "event" and "this event"). Control: the event's own skip.
describe('a write skipped under an Idempotency Key of the user\'s names the key, not the event', () => {
	test.each([
		{ label: 'under the Options key: source "option", the hint names the key', key: 'my-own-key-skip' as string | undefined, source: 'option', hint: /A write already made under the Idempotency Key "my-own-key-skip-\d+" was not sent again/ },
		{ label: 'control: under the event\'s key: source "event", the hint names the event', key: undefined, source: 'event', hint: /A write this event already made was not sent again/ },
	])('$label', async ({ key, source, hint }) => {
		const wf = workflow();
		const order = completed()[13 + workflows];
		const before = refundsOf(order.id).length;
		const node = () => refundNode('Refund', key !== undefined ? { options: { idempotencyKey: `${key}-${workflows}` } } : {});
		const first = await wf.run([delivery(`msg_evt_skipsrc_${workflows}`, order.id)], [TRIGGER, node()]);
		const again = await wf.run([delivery(`msg_evt_skipsrc_${workflows}`, order.id)], [TRIGGER, node()]);
		expect(first.output('Refund')[0].json.idempotencyKeySource).toBe(source);
		expect(refundRequests()).toHaveLength(0);
		expect(refundsOf(order.id).length - before).toBe(1);
		expect(again.output('Refund')[0].json).toMatchObject({ writeSkipped: true, idempotencyKeySource: source, id: first.output('Refund')[0].json.id });
		const hints = hintsOf(again, 'Refund').join(' ');
		expect(hints).toMatch(hint);
		if (key !== undefined) expect(hints).not.toMatch(/this event|of the event/);
	});

	test('under the Options key, another value of a field: refused naming the key, not an event; nothing sent', async () => {
		const wf = workflow();
		const order = completed()[13 + workflows];
		const node = (reason: string) => refundNode('Refund', { additionalFields: { amount: 0.01, reason }, options: { idempotencyKey: `my-own-key-fields-${workflows}` } });
		const first = await wf.run([delivery(`msg_evt_skipfields_${workflows}`, order.id)], [TRIGGER, node('first')]);
		expect(first.error('Refund')).toBeUndefined();
		const changed = await wf.run([delivery(`msg_evt_skipfields_${workflows}`, order.id)], [TRIGGER, node('second')], undefined);
		expect(changed.error('Refund')?.message).toMatch(/^A write was already made under the Idempotency Key "my-own-key-fields-\d+" \(Refund an order\) with other values of "reason"; nothing was sent/);
		expect(changed.error('Refund')?.message).not.toMatch(/event/);
		expect(refundRequests()).toHaveLength(0);
	});
});

test('the record kept with the workflow holds no secret the service echoed in its answer', async () => {
	const wf = workflow();
	const order = completed()[13];
	const key = String((f.credentials.vaultStoreStoreApi as IDataObject).secretKey);
	f.sb.faults.add({ match: { method: 'POST', path: /\/refund$/ }, kind: 'reply', status: 200, reply: { body: { ok: true, data: { id: 'rfd_echo00000000000001', orderId: order.id, amount: 0.01, note: `received with Bearer ${key}` } } } });
	const r = await wf.run([delivery('msg_evt_echo_1', order.id)]);
	expect(r.error('Refund')).toBeUndefined();
	const saved = JSON.stringify(wf.staticData);
	expect(saved).toContain('rfd_echo00000000000001');
	expect(saved).not.toContain(key);
	const again = await wf.run([delivery('msg_evt_echo_1', order.id)]);
	expect(again.output('Refund')[0].json).toMatchObject({ writeSkipped: true, id: 'rfd_echo00000000000001' });
	expect(JSON.stringify(again.output('Refund')[0].json)).not.toContain(key);
});

test("n8n's Retry (mode retry) runs on the workflow as the execution stored it: the record is neither read nor written, the key still replays", async () => {
	const wf = workflow();
	const order = completed()[14];
	const before = refundsOf(order.id).length;
	wf.staticData = { 'node:Vault Store Trigger': { webhookId: 'whk_kept0000000001' } };
	// The stored execution's workflow may carry no static data: what the retry saves must not replace the workflow's.
	const kept = JSON.stringify(wf.staticData);
	const retry = await wf.run([delivery('msg_evt_retry_1', order.id)], undefined, undefined, 'retry');
	expect(retry.error('Refund')).toBeUndefined();
	expect(JSON.stringify(wf.staticData)).toBe(kept);
	expect(hintsOf(retry, 'Refund').join(' ')).toMatch(/Retry does not read or keep this node's once-per-event record/);
	const again = await wf.run([delivery('msg_evt_retry_1', order.id)], undefined, undefined, 'retry');
	expect(again.output('Refund')[0].json.idempotentReplay).toBe(true);
	expect(refundsOf(order.id).length - before).toBe(1);
});

describe('an item that carries its delivery (the trigger\'s own shape) keeps its event identity where no Vault Store Trigger is upstream', () => {
	/** The item a Vault Store Trigger emits, as an Execute Workflow call hands it to a sub-workflow. */
	const carried = (eventId: string, orderId: string, meta: IDataObject = { deliveryId: eventId, timestamp: 1795800000, signatureVersion: 'V2', legacy: false }) => ({
		json: { event: 'PAYMENT_COMPLETED', id: eventId, data: { orderId }, meta },
	});
	const subWorkflow = (staticData: IDataObject, items: INodeExecutionData[]) => runNodes([refundNode()], f.credentials, items, { workflowId: 'wf_sub_refund', staticData });

	test('a sub-workflow run twice for one event refunds once; the second run is skipped with the recorded refund', async () => {
		const order = completed()[40];
		const before = refundsOf(order.id).length;
		const first = await subWorkflow({}, [carried('msg_sub_1', order.id)]);
		expect(first.error('Refund')).toBeUndefined();
		expect(first.output('Refund')[0].json.idempotencyKeySource).toBe('event');
		// The same event handled again (a re-delivery of the parent's trigger), after the service forgot its key.
		await f.sb.app.clock.advance(DAY + 3_600_000);
		const again = await subWorkflow(first.staticData, [carried('msg_sub_1', order.id)]);
		expect(again.output('Refund')[0].json).toMatchObject({ writeSkipped: true, idempotencyKeySource: 'event', id: first.output('Refund')[0].json.id });
		expect(refundsOf(order.id).length - before).toBe(1);
	});

	test('control: another event carried the same way refunds again; an item whose meta is not a delivery keeps the per-execution key', async () => {
		const order = completed()[41];
		const before = refundsOf(order.id).length;
		const a = await subWorkflow({}, [carried('msg_sub_a', order.id)]);
		const b = await subWorkflow(a.staticData, [carried('msg_sub_b', order.id)]);
		expect([a, b].map((r) => r.output('Refund')[0].json.idempotencyKeySource)).toEqual(['event', 'event']);
		expect(refundsOf(order.id).length - before).toBe(2);
		// A user's own `id` and `meta` (no delivery id, signature version and timestamp) are not a delivery.
		const own = await subWorkflow({}, [carried('user_record_1', order.id, { deliveryId: 'x', source: 'crm' })]);
		expect(own.output('Refund')[0].json.idempotencyKeySource).toBe('execution');
	});
});
