/**
 * Spending budgets as a matrix: rule (Maximum Total per Execution, Maximum Total per Day) × path
 * (the operation's Amount field, an expression per item, Custom API Call with the store credential,
 * Checkout → Pay through its `run` hatch (the total read first), both of n8n's agent routes).
 * Every cell makes three writes of 2 (to three orders) against a budget of 5: the first two go out (the control:
 * spending within the budget is never refused), the third would pass it and is refused naming the
 * budget, with nothing sent. Per execution: three items of one run, or three tool calls of one agent
 * run. Per day: three executions, the day's total kept in n8n's deduplication store (an in-memory
 * one that behaves as n8n 2.8.4's). The same write asked twice by an agent in one execution is
 * one write: made once, counted once (issue 55). Then the outcome rules: an unknown outcome counts as spent, a
 * write that provably did not happen gives its amount back; and units another worker's call dropped
 * from the store are not handed out twice by one process.
 */
import { DataDeduplicationService } from 'n8n-core';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { CheckoutSession } from '../sandbox/resources/checkout';
import { openSession } from '../sandbox/resources/checkout';
import type { AgentRoute } from './support/agent-routes';
import { AGENT_ROUTES, runAsAgentTool } from './support/agent-routes';
import { optionsFor } from '../nodes/VaultStore/options';
import { resources } from '../nodes/VaultStore/resources';
import { USERS_OPTIONS } from '../nodes/VaultStore/runOptions';
import { useSandbox } from './support/fixtures';
import { runNodes } from './support/harness';
import { MemoryDeduplicator } from './support/once-record-support';

const f = useSandbox({ orders: 200 });
const store = new MemoryDeduplicator();
beforeAll(async () => {
	await DataDeduplicationService.init(store);
});

const rl = (value: string) => ({ __rl: true, mode: 'id', value });
const MONEY = /\/(orders\/[^/]+\/refund|checkouts\/[^/]+\/pay)$/;
const moneyWrites = () => f.requests().filter((q) => q.method === 'POST' && MONEY.test(q.path));
const BUDGET = 5;
const EACH = 2;

let serial = 0;
function orders(n: number): string[] {
	const all = f.sb.state.orders.filter((o) => o.payment.status === 'COMPLETED' && o.amount >= 10);
	return Array.from({ length: n }, (_, i) => all[(serial * 3 + i) % all.length].id);
}

function session(): string {
	const id = `cks_budget${String(serial).padStart(4, '0')}${Math.random().toString(36).slice(2, 8)}`;
	f.sb.app.collection<CheckoutSession>('checkoutSessions').push(
		openSession({ id, paylinkId: null, amount: EACH, currency: 'USD', items: [], expiresAt: '2099-01-01T00:00:00.000Z', createdAt: new Date().toISOString() }),
	);
	return id;
}

type Rule = 'per execution' | 'per day';
const RULES: Rule[] = ['per execution', 'per day'];
const budgetOption = (rule: Rule): IDataObject => (rule === 'per execution' ? { maxTotalPerExecution: BUDGET } : { maxTotalPerDay: BUDGET });

interface Path {
	name: string;
	agent?: AgentRoute;
	/** The node's parameters; each write's order, session and amount come from its item (or the agent's arguments). */
	parameters: (options: IDataObject) => IDataObject;
	/** One item (or one set of agent arguments) per write: the `i`th of an execution (another order, or session, for each). */
	write: (i: number) => IDataObject;
}

const refundOf = (amount: unknown, order: string, options: IDataObject) => ({ resource: 'order', operation: 'refund', orderId: rl(order), additionalFields: { amount }, options });

const PATHS: Path[] = [
	{ name: 'Amount field (an expression per item)', parameters: (o) => refundOf('={{ $json.amount }}', '={{ $json.order }}', o), write: (i) => ({ order: orders(3)[i], amount: EACH }) },
	{
		name: 'Custom API Call (store)',
		parameters: (options) => ({ resource: 'custom', operation: 'request', method: 'POST', path: '=/v2/stores/{storeId}/orders/{{ $json.order }}/refund', body: '={{ JSON.stringify({ amount: $json.amount }) }}', options }),
		write: (i) => ({ order: orders(3)[i], amount: EACH }),
	},
	{ name: 'Checkout → Pay (run hatch, the total read first)', parameters: (options) => ({ resource: 'checkout', operation: 'pay', sessionId: rl('={{ $json.session }}'), options }), write: () => ({ session: session() }) },
	...AGENT_ROUTES.map(
		(agent): Path => ({
			name: `agent (${agent})`,
			agent,
			parameters: (o) => refundOf("={{ $fromAI('amount', 'amount', 'number') }}", "={{ $fromAI('order', 'the order', 'string') }}", { ...o, maxAmount: 10 }),
			write: (i) => ({ order: orders(3)[i], amount: EACH }),
		}),
	),
];

interface Run {
	/** Per write: its error (undefined when it went out). */
	errors: Array<string | undefined>;
	outputs: IDataObject[];
}

/** Runs `writes` as one execution (items, or one agent's tool calls). */
async function oneExecution(path: Path, options: IDataObject, writes: IDataObject[], workflow: { id: string; staticData: IDataObject }): Promise<Run> {
	const parameters = path.parameters(options);
	if (path.agent) {
		const r = await runAsAgentTool(path.agent, parameters, writes, f.credentials, { continueOnFail: true, workflowId: workflow.id, staticData: workflow.staticData, toolId: `tool-${workflow.id}` });
		workflow.staticData = r.run.staticData;
		return { errors: r.texts.map((t) => (/Refused|error/.test(t) ? t : undefined)), outputs: r.texts.map((t) => ({ text: t })) };
	}
	const input: INodeExecutionData[] = writes.map((json) => ({ json }));
	const r = await runNodes([{ name: 'Vault Store', id: `node-${workflow.id}`, parameters, continueOnFail: true }], f.credentials, input, { workflowId: workflow.id, staticData: workflow.staticData });
	workflow.staticData = r.staticData;
	const out = r.output().map((i) => i.json);
	return { errors: out.map((o) => (o.error !== undefined ? String(o.error) : undefined)), outputs: out };
}

const CELLS = RULES.flatMap((rule) => PATHS.map((path) => ({ rule, path, label: `${rule} × ${path.name}` })));

describe('a budget lets the writes within it go out and refuses the one that would pass it, nothing sent', () => {
	test.each(CELLS)('$label', async ({ rule, path }) => {
		serial++;
		f.sb.clearRequests();
		const workflow = { id: `wf_budget_${serial}`, staticData: {} as IDataObject };
		// Three different writes (another order each): the same write asked twice by an agent is one (below).
		const writes = [path.write(0), path.write(1), path.write(2)];
		const options = budgetOption(rule);
		const runs: Run[] = [];
		if (rule === 'per execution') runs.push(await oneExecution(path, options, writes, workflow));
		else for (const w of writes) runs.push(await oneExecution(path, options, [w], workflow));
		const errors = runs.flatMap((r) => r.errors);
		const outputs = runs.flatMap((r) => r.outputs);
		// Control: the two writes within the budget went out.
		expect(errors.slice(0, 2)).toEqual([undefined, undefined]);
		expect(moneyWrites()).toHaveLength(2);
		const name = rule === 'per execution' ? 'Maximum Total per Execution' : 'Maximum Total per Day';
		expect(errors[2]).toMatch(new RegExp(`Refused: this write of 2 .* would pass the \\\\?"${name}\\\\?" of 5: 4 already spent .*, 1 left; nothing was sent`));
		// What is left is in each write's output.
		if (!path.agent) {
			const left = outputs.slice(0, 2).map((o) => (o.budgetLeft as IDataObject)[rule === 'per execution' ? 'thisExecution' : 'today']);
			expect(left).toEqual([3, 1]);
			// Only the budget set is reported: a day budget alone says nothing of the execution's, and the other way round.
			for (const o of outputs.slice(0, 2)) expect(Object.keys(o.budgetLeft as IDataObject).sort()).toEqual(['currency', rule === 'per execution' ? 'thisExecution' : 'today'].sort());
		} else {
			expect(outputs[1].text).toMatch(rule === 'per execution' ? /"thisExecution":1/ : /"today":1/);
		}
		// A new execution (per execution) or another node (per day) starts afresh: its write goes out.
		f.sb.clearRequests();
		const fresh = await oneExecution(path, options, [path.write(0)], rule === 'per execution' ? workflow : { id: `wf_budget_other_${serial}`, staticData: {} });
		expect(fresh.errors).toEqual([undefined]);
		expect(moneyWrites()).toHaveLength(1);
	});
});

// Issue 55: the model asks twice for the same refund in one conversation (one execution). Each tool
// call is its own run of the node; for an agent the key is the execution's for that write (route
// with its ids, amount, currency), and the execution remembers the write once made: the second call
// is answered with the first's refund, nothing sent, nothing counted against the budget. Controls:
// another order, another amount (two writes each); two identical items of a normal run (two writes,
// as before: items are separate writes).
describe('the same money write asked twice by an AI agent in one execution is made once', () => {
	const refundsTo = (order: string) => moneyWrites().filter((q) => q.path.endsWith(`/orders/${order}/refund`));
	const agentPath = (route: AgentRoute) => PATHS.find((p) => p.agent === route)!;
	const ledgerOf = (order: string) => f.sb.ledger.filter((e) => e.kind === 'refund' && (e as IDataObject).orderId === order).length;

	test.each(AGENT_ROUTES)('%s: the same refund twice, then another order: one refund of the first, the repeat answered with it, counted once', async (route) => {
		serial++;
		f.sb.clearRequests();
		const [a, b] = orders(2);
		const before = ledgerOf(a);
		const workflow = { id: `wf_budget_twice_${serial}`, staticData: {} as IDataObject };
		const r = await oneExecution(agentPath(route), { maxTotalPerExecution: BUDGET }, [{ order: a, amount: EACH }, { order: a, amount: EACH }, { order: b, amount: EACH }], workflow);
		expect(r.errors).toEqual([undefined, undefined, undefined]);
		// One request for the first order, one refund in the service's ledger.
		expect(refundsTo(a)).toHaveLength(1);
		expect(ledgerOf(a) - before).toBe(1);
		// What the model reads for the repeat: the first call's refund (its id), made earlier in this execution.
		const id = /"id":"(rfd_[^"]+)"/.exec(String(r.outputs[0].text))?.[1];
		expect(id).toBeDefined();
		expect(r.outputs[1].text).toContain(`"id":"${id}"`);
		expect(r.outputs[1].text).toMatch(/"alreadyMadeInThisExecution":true/);
		expect(r.outputs[0].text).not.toMatch(/alreadyMadeInThisExecution/);
		// Control: another order in the same conversation goes out, and the repeat was not counted (5 - 2 - 2).
		expect(refundsTo(b)).toHaveLength(1);
		expect(r.outputs[2].text).toMatch(/"thisExecution":1\b/);
	});

	// Two calls of the same refund in one turn, at once: neither is made when the other is admitted, so
	// the execution's memory cannot answer; they go out under one Idempotency-Key (the execution's for
	// that write), and the service makes one refund (the second waits out the first's 409, then gets
	// its answer replayed). The first call's answer is held 300 ms so the two overlap.
	test('tool call: the same refund twice at once (one turn): two requests under ONE key, one refund; control: another amount at once, two keys, two refunds', async () => {
		serial++;
		const [a, b] = orders(2);
		const parameters = agentPath('tool call').parameters({ maxRetries: 5 });
		const atOnce = async (args: IDataObject[]) => {
			f.sb.clearRequests();
			f.sb.faults.add({ kind: 'slow', delayMs: 300, count: 1, match: { method: 'POST', path: MONEY } });
			const r = await runAsAgentTool('tool call', parameters, args, f.credentials, { continueOnFail: true, atOnce: true });
			f.sb.faults.clear();
			expect(r.texts).toHaveLength(2);
			expect(r.texts.join('\n')).not.toMatch(/Refused|error|unknown/);
			return { requests: moneyWrites().length, keys: new Set(moneyWrites().map((q) => q.headers['idempotency-key'])).size };
		};
		const same = ledgerOf(a);
		// Both calls reached the service (they overlapped: the memory could not answer), under one key.
		const twice = await atOnce([{ order: a, amount: EACH }, { order: a, amount: EACH }]);
		expect(twice.requests).toBeGreaterThanOrEqual(2);
		expect(twice.keys).toBe(1);
		expect(ledgerOf(a) - same).toBe(1);
		// Control: another amount at once is another write.
		const other = ledgerOf(b);
		expect(await atOnce([{ order: b, amount: EACH }, { order: b, amount: EACH + 1 }])).toEqual({ requests: 2, keys: 2 });
		expect(ledgerOf(b) - other).toBe(2);
	});

	test.each(AGENT_ROUTES)('%s: control: the same order with another amount is another refund (two sent, under two keys)', async (route) => {
		serial++;
		f.sb.clearRequests();
		const [a] = orders(1);
		const workflow = { id: `wf_budget_twice_other_${serial}`, staticData: {} as IDataObject };
		const r = await oneExecution(agentPath(route), {}, [{ order: a, amount: EACH }, { order: a, amount: EACH + 1 }], workflow);
		expect(r.errors).toEqual([undefined, undefined]);
		expect(refundsTo(a)).toHaveLength(2);
		expect(new Set(refundsTo(a).map((q) => q.headers['idempotency-key'])).size).toBe(2);
		expect(JSON.stringify(r.outputs)).not.toMatch(/alreadyMadeInThisExecution/);
	});

	test.each(AGENT_ROUTES)('%s: a new execution (another conversation) makes the same refund again', async (route) => {
		serial++;
		f.sb.clearRequests();
		const [a] = orders(1);
		const workflow = { id: `wf_budget_twice_new_${serial}`, staticData: {} as IDataObject };
		for (let i = 0; i < 2; i++) expect((await oneExecution(agentPath(route), {}, [{ order: a, amount: EACH }], workflow)).errors).toEqual([undefined]);
		expect(refundsTo(a)).toHaveLength(2);
	});

	test('control: two identical items of a normal run are two writes, as before (no agent)', async () => {
		serial++;
		f.sb.clearRequests();
		const [a] = orders(1);
		const workflow = { id: `wf_budget_twice_items_${serial}`, staticData: {} as IDataObject };
		const r = await oneExecution(PATHS[0], {}, [{ order: a, amount: EACH }, { order: a, amount: EACH }], workflow);
		expect(r.errors).toEqual([undefined, undefined]);
		expect(refundsTo(a)).toHaveLength(2);
		expect(new Set(refundsTo(a).map((q) => q.headers['idempotency-key'])).size).toBe(2);
		expect(r.outputs.map((o) => o.alreadyMadeInThisExecution)).toEqual([undefined, undefined]);
	});
});

// Issue 53.5: with both budgets set, a write the day budget refuses gives back what it held of the
// per-execution budget (a mutant that kept it survived every test). Execution budget 6, day budget 5:
// 3 goes out, the next 3 passes the day's (refused), then 2 fits both (5 of 6 in the execution, 5 of
// 5 today); held back wrongly, the execution would count 8 of 6 and refuse it.
describe('both budgets: a write one budget refuses holds nothing of the other', () => {
	// Every path whose write states its amount per item (Pay's is the session's total, the same for each).
	test.each(PATHS.filter((path) => !path.name.startsWith('Checkout')).map((path) => [path.name, path] as const))('%s', async (_name, path) => {
		serial++;
		f.sb.clearRequests();
		const workflow = { id: `wf_budget_both_${serial}`, staticData: {} as IDataObject };
		const write = (i: number, amount: number) => ({ ...path.write(i), amount });
		const r = await oneExecution(path, { maxTotalPerExecution: 6, maxTotalPerDay: 5, concurrency: 1 }, [write(0, 3), write(1, 3), write(2, 2)], workflow);
		expect(r.errors[0]).toBeUndefined();
		expect(r.errors[1]).toMatch(/would pass the \\?"Maximum Total per Day\\?" of 5: 3 already spent/);
		expect(r.errors[2]).toBeUndefined();
		expect(moneyWrites()).toHaveLength(2);
	});
});

describe('both budgets: a write both let through is held by both (issue 53.5, the mutation run)', () => {
	// A write the day budget admits keeps what it holds of the per-execution budget; control: a per-execution budget that fits the three lets them all out.
	test.each(PATHS.filter((path) => !path.name.startsWith('Checkout')).map((path) => [path.name, path] as const))('%s', async (_name, path) => {
		const write = (i: number, amount: number) => ({ ...path.write(i), amount });
		const three = async (perExecution: number) => {
			serial++;
			f.sb.clearRequests();
			const workflow = { id: `wf_budget_both_held_${serial}`, staticData: {} as IDataObject };
			const r = await oneExecution(path, { maxTotalPerExecution: perExecution, maxTotalPerDay: 100, concurrency: 1 }, [write(0, 3), write(1, 3), write(2, 2)], workflow);
			return { errors: r.errors, sent: moneyWrites().length };
		};
		const tight = await three(7);
		expect(tight.errors.slice(0, 2)).toEqual([undefined, undefined]);
		expect(tight.errors[2]).toMatch(/would pass the \\?"Maximum Total per Execution\\?" of 7: 6 already spent/);
		expect(tight.sent).toBe(2);
		const roomy = await three(8);
		expect(roomy.errors).toEqual([undefined, undefined, undefined]);
		expect(roomy.sent).toBe(3);
	});
});

describe('what counts: an unknown outcome is spent, a write that provably did not happen is not', () => {
	const KINDS = [
		{ name: '500 after commit (unknown)', fault: { kind: 'commit-then-500' as const }, counts: true },
		{ name: 'timeout (unknown)', fault: { kind: 'slow' as const, delayMs: 700 }, options: { timeout: 200, maxRetries: 0 }, counts: true },
		{ name: '400 (provably not applied)', fault: { kind: 'reply' as const, status: 400, reply: { body: { ok: false, error: { code: 'bad_request', message: 'no (injected)' } } } }, counts: false },
		{ name: '503 on every attempt (provably not applied)', fault: { kind: 'reply' as const, status: 503, count: 10, reply: { body: { ok: false, error: { code: 'unavailable', message: 'down (injected)' } } } }, options: { maxRetries: 1 }, counts: false },
	];
	const OUTCOME_CELLS = KINDS.flatMap((kind) => RULES.map((rule) => ({ kind, rule, label: `${kind.name} × ${rule}` })));
	test.each(OUTCOME_CELLS)('$label', async ({ kind, rule }) => {
		serial++;
		const workflow = { id: `wf_budget_outcome_${serial}`, staticData: {} as IDataObject };
		const [a, b] = orders(2);
		const options = { ...budgetOption(rule), ...(kind.options ?? {}) };
		const path = PATHS[0];
		// The first write of 3 meets the fault; the second write of 3 fits only if the first gave its amount back.
		f.sb.faults.add({ ...kind.fault, match: { method: 'POST', path: MONEY } });
		f.sb.clearRequests();
		const first = await oneExecution(path, options, [{ order: a, amount: 3 }], workflow);
		f.sb.faults.clear();
		await new Promise((resolve) => setTimeout(resolve, kind.fault.kind === 'slow' ? 800 : 0));
		expect(first.errors[0]).toBeDefined();
		f.sb.clearRequests();
		const second = rule === 'per execution'
			? await oneExecution(path, options, [{ order: a, amount: 0.5 }, { order: b, amount: 3 }], workflow) // one execution: a write of 0.5 first, then 3
			: await oneExecution(path, options, [{ order: b, amount: 3 }], workflow);
		if (rule === 'per execution') {
			// Per execution, a new execution starts afresh: both go out whatever the first execution met.
			expect(second.errors).toEqual([undefined, undefined]);
			return;
		}
		if (kind.counts) {
			expect(second.errors[0]).toMatch(/would pass the "Maximum Total per Day" of 5: 3 already spent/);
			expect(moneyWrites()).toHaveLength(0);
		} else {
			expect(second.errors[0]).toBeUndefined();
			expect(moneyWrites()).toHaveLength(1);
		}
	});

	test.each(KINDS)('$name, in one execution: the next item is counted after it', async (kind) => {
		serial++;
		const workflow = { id: `wf_budget_items_${serial}`, staticData: {} as IDataObject };
		const [a, b] = orders(2);
		f.sb.faults.add({ ...kind.fault, count: kind.fault.kind === 'reply' && kind.fault.status === 503 ? 2 : 1, match: { method: 'POST', path: new RegExp(`/orders/${a}/refund$`) } });
		f.sb.clearRequests();
		// Concurrency 1: the first item is settled before the second is admitted.
		const r = await oneExecution(PATHS[0], { maxTotalPerExecution: BUDGET, concurrency: 1, ...(kind.options ?? {}) }, [{ order: a, amount: 3 }, { order: b, amount: 3 }], workflow);
		f.sb.faults.clear();
		await new Promise((resolve) => setTimeout(resolve, kind.fault.kind === 'slow' ? 800 : 0));
		expect(r.errors[0]).toBeDefined();
		if (kind.counts) {
			expect(r.errors[1]).toMatch(/would pass the "Maximum Total per Execution" of 5: 3 already spent in this execution, 2 left/);
			expect(moneyWrites().filter((q) => q.path.includes(b))).toHaveLength(0);
		} else {
			expect(r.errors[1]).toBeUndefined();
			expect(moneyWrites().filter((q) => q.path.includes(b))).toHaveLength(1);
		}
	});
});

describe('budgets that differ per item (an expression per item): a write refused by a budget only it has gives back nothing it did not hold', () => {
	// Item 1 under Maximum Total per Execution 5 spends 3; item 2, under a day budget of 1 only, is
	// refused by it (it held nothing of the execution's total, so it gives nothing back); item 3 under
	// 5 again would make 6: refused. (Before the mutation run's open case was tested, a refused
	// write giving back what it never held went unnoticed.) Control: item 3 of 2 goes out.
	test.each([3, 2])('item 3 of %d', async (third) => {
		serial++;
		const [a, b, c] = orders(3);
		f.sb.clearRequests();
		const path: Path = { name: 'per item', parameters: (o) => refundOf('={{ $json.amount }}', '={{ $json.order }}', o), write: () => ({}) };
		const r = await oneExecution(path, { maxTotalPerExecution: '={{ $json.pe }}', maxTotalPerDay: '={{ $json.pd }}', concurrency: 1 }, [
			{ order: a, amount: 3, pe: 5 },
			{ order: b, amount: 2, pd: 1 },
			{ order: c, amount: third, pe: 5 },
		], { id: `wf_budget_peritem_${serial}`, staticData: {} });
		expect(r.errors[0]).toBeUndefined();
		expect(r.errors[1]).toMatch(/Refused: this write of 2 .* would pass the "Maximum Total per Day" of 1/);
		if (third === 3) {
			expect(r.errors[2]).toMatch(/Refused: this write of 3 .* would pass the "Maximum Total per Execution" of 5: 3 already spent/);
			expect(moneyWrites()).toHaveLength(1);
		} else {
			expect(r.errors[2]).toBeUndefined();
			expect(moneyWrites()).toHaveLength(2);
		}
	});
});

describe('an item under no budget beside items under one: its 400 fails it with the service\'s answer, nothing to give back', () => {
	test('item 1 under Maximum Total per Execution 5 spends 3; item 2, under none, answered 400; item 3 of 2 under 5 goes out, of 3 is refused', async () => {
		for (const third of [2, 3]) {
			serial++;
			const [a, b, c] = orders(3);
			f.sb.faults.add({ kind: 'reply', status: 400, match: { method: 'POST', path: new RegExp(`/orders/${b}/refund$`) }, reply: { body: { ok: false, error: { code: 'bad_request', message: 'no (injected)' } } } });
			f.sb.clearRequests();
			const path: Path = { name: 'per item', parameters: (o) => refundOf('={{ $json.amount }}', '={{ $json.order }}', o), write: () => ({}) };
			const r = await oneExecution(path, { maxTotalPerExecution: '={{ $json.pe }}', concurrency: 1 }, [
				{ order: a, amount: 3, pe: 5 },
				{ order: b, amount: 2 },
				{ order: c, amount: third, pe: 5 },
			], { id: `wf_budget_nobudget_${serial}`, staticData: {} });
			f.sb.faults.clear();
			expect(r.errors[0]).toBeUndefined();
			expect(r.errors[1]).toMatch(/The service rejected the request \(HTTP 400\)/);
			if (third === 2) expect(r.errors[2]).toBeUndefined();
			else expect(r.errors[2]).toMatch(/would pass the "Maximum Total per Execution" of 5: 3 already spent/);
		}
	});
});

describe('a write given back gives back its own amount only (issue 53.5, the mutation run)', () => {
	test('per execution: 3 out, 2 answered 400 (given back), then 4: refused under 6 (3 still spent); control: under 7 it goes out', async () => {
		for (const budget of [6, 7]) {
			serial++;
			const [a, b, c] = orders(3);
			f.sb.faults.add({ kind: 'reply', status: 400, match: { method: 'POST', path: new RegExp(`/orders/${b}/refund$`) }, reply: { body: { ok: false, error: { code: 'bad_request', message: 'no (injected)' } } } });
			f.sb.clearRequests();
			const r = await oneExecution(PATHS[0], { maxTotalPerExecution: budget, concurrency: 1 }, [{ order: a, amount: 3 }, { order: b, amount: 2 }, { order: c, amount: 4 }], { id: `wf_budget_giveback_${serial}`, staticData: {} });
			f.sb.faults.clear();
			expect(r.errors[0]).toBeUndefined();
			// The item fails with the service's own answer (giving back what it held raises nothing of its own).
			expect(r.errors[1]).toMatch(/The service rejected the request \(HTTP 400\)/);
			if (budget === 6) {
				expect(r.errors[2]).toMatch(/would pass the "Maximum Total per Execution" of 6: 3 already spent in this execution, 3 left/);
				expect(moneyWrites().filter((q) => q.path.includes(c))).toHaveLength(0);
			} else {
				expect(r.errors[2]).toBeUndefined();
				expect(moneyWrites().filter((q) => q.path.includes(c))).toHaveLength(1);
			}
		}
	});
});

describe('per day across workers: units another worker\'s call dropped from n8n\'s store', () => {
	test('are not handed out again by the process that claimed them, and are put back in the store', async () => {
		serial++;
		const id = `wf_budget_dropped_${serial}`;
		const path = PATHS[0];
		// Executions that start together, as on queue-mode workers: each loads the static data saved
		// before any of them ended (none), so none reads where the others left off.
		const startedTogether = () => ({ id, staticData: {} as IDataObject });
		f.sb.clearRequests();
		// The first write's units are recorded, then dropped: another worker's read-modify-write of the
		// row read it before they were added and wrote it back after.
		store.loseNextClaim = true;
		const runs: Run[] = [];
		for (let i = 0; i < 3; i++) runs.push(await oneExecution(path, { maxTotalPerDay: BUDGET }, [path.write(i)], startedTogether()));
		expect(store.loseNextClaim).toBe(false);
		// The second write skips the dropped units (this process handed them out) and puts them back.
		expect(runs.map((r) => r.errors[0])).toEqual([undefined, undefined, expect.stringMatching(/would pass the "Maximum Total per Day" of 5: 4 already spent today/)]);
		expect(moneyWrites()).toHaveLength(2);
		// Two writes of 2 at units of 0.01: 400 units, the dropped 200 among them.
		expect(store.count(id)).toBe(400);
	});
});

describe('a budget is the user\'s', () => {
	test.each(AGENT_ROUTES)('%s: a budget filled in by the agent ($fromAI) is refused, nothing sent; a typed one lets the call go out', async (route) => {
		serial++;
		const [order] = orders(1);
		f.sb.clearRequests();
		for (const name of ['maxTotalPerExecution', 'maxTotalPerDay']) {
			const r = await runAsAgentTool(route, refundOf(1, order, { maxAmount: 5, [name]: "={{ $fromAI('budget', 'the budget', 'number') }}" }), { budget: 1_000_000 }, f.credentials);
			expect(r.text).toMatch(/is filled in by the AI agent \(\$fromAI\)/);
		}
		expect(moneyWrites()).toHaveLength(0);
		const typed = await runAsAgentTool(route, refundOf(1, order, { maxAmount: 5, maxTotalPerExecution: 5, maxTotalPerDay: 5 }), {}, f.credentials);
		expect(typed.text).not.toMatch(/Refused|filled in/);
		expect(moneyWrites()).toHaveLength(1);
	});

	// Issue 53.3: every option that tells the gate where to read or what to send under is the user's
	// too. Rows by data: each such option, on every path that shows it (the refund row, Checkout →
	// Pay, the Custom API Call), on both agent routes.
	const steering = USERS_OPTIONS.filter(([name]) => !['maxAmount', 'maxTotalPerExecution', 'maxTotalPerDay', 'allowAgentWrites'].includes(name));
	const steeringPaths: Array<{ name: string; resource: string; operation: string; parameters: (options: IDataObject) => IDataObject }> = [
		{ name: 'Order → Refund', resource: 'order', operation: 'refund', parameters: (options) => refundOf(1, orders(1)[0], options) },
		{ name: 'Checkout → Pay', resource: 'checkout', operation: 'pay', parameters: (options) => ({ resource: 'checkout', operation: 'pay', sessionId: rl(session()), options }) },
		{
			name: 'Custom API Call',
			resource: 'custom',
			operation: 'request',
			parameters: (options) => ({ resource: 'custom', operation: 'request', method: 'POST', path: `/v2/stores/{storeId}/orders/${orders(1)[0]}/refund`, body: '{"amount": 1}', options }),
		},
	];
	const shows = (path: (typeof steeringPaths)[number], option: string): boolean => {
		const resource = resources.find((r) => r.value === path.resource)!;
		const op = resource.operations.find((o) => o.value === path.operation)!;
		return (optionsFor(op, resource).options ?? []).some((o) => 'name' in o && o.name === option);
	};
	const steeringRows = AGENT_ROUTES.flatMap((route) => steering.flatMap(([name, label]) => steeringPaths.filter((path) => shows(path, name)).map((path) => [route, label, path.name, name, path] as const)));
	test('control: every steering option is shown on at least one path of the matrix', () => {
		for (const [name] of steering) expect(steeringRows.some((row) => row[3] === name)).toBe(true);
	});
	test.each(steeringRows)(
		'%s: "%s" filled in by the agent ($fromAI) on %s is refused, nothing sent; typed, the call goes out (control)',
		async (route, label, _path, name, path) => {
			serial++;
			const typed = name === 'idempotencyKey' ? `key-${serial}-${route.length}` : name === 'totalReadRoute' ? '/checkouts/{sessionId}' : name === 'recordedCurrencyFields' || name === 'totalCurrencyFields' ? 'currency' : 'amount';
			const build = (value: unknown) => path.parameters({ maxAmount: 5, maxTotalPerExecution: 5, maxTotalPerDay: 5, allowAgentWrites: true, [name]: value } as IDataObject);
			f.sb.clearRequests();
			const r = await runAsAgentTool(route, build("={{ $fromAI('steer', 'a value', 'string') }}"), { steer: 'amount' }, f.credentials);
			expect(r.text).toContain(`"${label}" is filled in by the AI agent ($fromAI)`);
			expect(moneyWrites()).toHaveLength(0);
			const control = await runAsAgentTool(route, build(typed), {}, f.credentials);
			expect(control.text).not.toMatch(/filled in by the AI agent/);
			expect(moneyWrites()).toHaveLength(1);
		},
	);

	test('an agent tool that moves money without both budgets runs with a warning naming them', async () => {
		serial++;
		const [order] = orders(1);
		const r = await runAsAgentTool('engine request', refundOf(1, order, { maxAmount: 5 }), {}, f.credentials);
		const hints = r.run.hints('Vault Store Tool').map((h) => h.message);
		expect(hints.join('\n')).toMatch(/Set "Maximum Total per Execution" and "Maximum Total per Day"/);
	});

	test('a write whose amount the request does not state (a full refund) is refused under a budget; with the amount it goes out', async () => {
		serial++;
		const [order] = orders(1);
		f.sb.clearRequests();
		const r = await f.run({ resource: 'order', operation: 'refund', orderId: rl(order), options: { maxTotalPerDay: 100 } });
		expect(r.error()?.message).toMatch(/is not known before it is sent, so it cannot be counted against "Maximum Total per Day"/);
		expect(moneyWrites()).toHaveLength(0);
		const ok = await f.run(refundOf(1, order, { maxTotalPerDay: 100 }));
		expect(ok.error()).toBeUndefined();
		expect(moneyWrites()).toHaveLength(1);
	});
});

// Issue 53.2: a budget counts what the service can move. Rows by data: each rule × each path.
describe('what a budget counts: the currency the write moves, the largest amount the cap reads, what the service recorded', () => {
	const PAYOUT = /\/payouts$/;
	const payoutWrites = () => f.requests().filter((q) => q.method === 'POST' && PAYOUT.test(q.path));
	const payoutOf = (amount: string, currency: string, options: IDataObject): IDataObject => ({ resource: 'payout', operation: 'create', amount, additionalFields: { currency }, options });
	// Payout → Create whose Currency is left empty ("the store currency") or stated, on every path.
	const CURRENCY_PATHS: Array<{ name: string; agent?: AgentRoute; parameters: (o: IDataObject) => IDataObject }> = [
		{ name: 'Payout → Create (Currency per item)', parameters: (o) => payoutOf('={{ $json.amount }}', '={{ $json.currency }}', o) },
		{
			name: 'Custom API Call (store)',
			parameters: (options) => ({ resource: 'custom', operation: 'request', method: 'POST', path: '/v2/stores/{storeId}/payouts', body: '={{ JSON.stringify($json.currency ? { amount: $json.amount, currency: $json.currency } : { amount: $json.amount }) }}', options }),
		},
		...AGENT_ROUTES.map((agent) => ({
			name: `agent (${agent})`,
			agent,
			parameters: (o: IDataObject) => payoutOf("={{ $fromAI('amount', 'amount', 'number') }}", "={{ $fromAI('currency', 'currency, empty for the store currency', 'string') }}", { ...o, maxAmount: 10 }),
		})),
	];
	const run = async (path: { name: string; agent?: AgentRoute; parameters: (o: IDataObject) => IDataObject }, options: IDataObject, writes: IDataObject[]) => {
		serial++;
		return await oneExecution({ ...path, write: () => ({}) }, { ...options, concurrency: 1 }, writes, { id: `wf_budget_counts_${serial}`, staticData: {} });
	};
	const cells = <T extends { name: string }>(paths: T[]) => RULES.flatMap((rule) => paths.map((path) => ({ rule, path, label: `${rule} × ${path.name}` })));

	test.each(cells(CURRENCY_PATHS))('currency left empty counts as the store currency beside it stated: $label', async ({ rule, path }) => {
		const store = f.sb.state.store.currency;
		f.sb.clearRequests();
		const over = await run(path, budgetOption(rule), [{ amount: 3, currency: '' }, { amount: 3, currency: store }]);
		expect(over.errors[0]).toBeUndefined();
		expect(over.errors[1]).toMatch(new RegExp(`Refused: this write of 3 ${store} would pass the .*of 5: 3 already spent`));
		expect(payoutWrites()).toHaveLength(1);
		// The store is read once for its currency (GET of the store itself).
		expect(f.requests().filter((q) => q.method === 'GET' && /\/v2\/core\/stores\/[^/]+\/?$/.test(q.path))).toHaveLength(1);
		// Control: what fits the budget goes out, counted in the store currency.
		f.sb.clearRequests();
		const within = await run(path, budgetOption(rule), [{ amount: 3, currency: '' }, { amount: 2, currency: store }]);
		expect(within.errors).toEqual([undefined, undefined]);
		expect(payoutWrites()).toHaveLength(2);
		if (!path.agent) expect(within.outputs.map((o) => (o.budgetLeft as IDataObject).currency)).toEqual([store, store]);
	});

	test('a refund is counted in its order\'s currency: read from the order, once per order', async () => {
		const [a] = orders(1);
		const order = f.sb.state.orders.find((o) => o.id === a)!;
		f.sb.clearRequests();
		const r = await run(PATHS[0], { maxTotalPerExecution: 5 }, [{ order: a, amount: 2 }, { order: a, amount: 2 }]);
		expect(r.errors).toEqual([undefined, undefined]);
		expect(r.outputs.map((o) => (o.budgetLeft as IDataObject).currency)).toEqual([order.currency, order.currency]);
		expect(f.requests().filter((q) => q.method === 'GET' && q.path.endsWith(`/orders/${a}`))).toHaveLength(1);
	});

	test('the currency cannot be read: refused under a budget, naming why; nothing sent (control: without a budget it goes out)', async () => {
		const [a] = orders(1);
		f.sb.faults.add({ kind: 'reply', status: 500, count: 10, match: { method: 'GET', path: new RegExp(`/orders/${a}$`) }, reply: { body: { ok: false, error: { code: 'down', message: 'down (injected)' } } } });
		f.sb.clearRequests();
		const r = await run(PATHS[0], { maxTotalPerExecution: 5, maxRetries: 0 }, [{ order: a, amount: 2 }]);
		expect(r.errors[0]).toMatch(/Refused: the currency of "Refund an order" is not known before it is sent, so it cannot be counted against "Maximum Total per Execution"/);
		expect(moneyWrites()).toHaveLength(0);
		const control = await run(PATHS[0], { maxRetries: 0 }, [{ order: a, amount: 2 }]);
		f.sb.faults.clear();
		expect(control.errors).toEqual([undefined]);
		expect(moneyWrites()).toHaveLength(1);
	});

	// Hostile: the service's order answer names another currency than the refund moves (a lie, or a
	// wrong record). The first refund is counted in what the service recorded; the run then trusts no
	// currency read, so a budget is passed by at most that one write. Control: honest answers, both go out.
	test.each(cells(PATHS.filter((path) => !path.name.startsWith('Checkout'))))('an order answer that lies about its currency: counted in what was recorded, later reads refused: $label', async ({ rule, path }) => {
		const [a, b, c] = orders(3);
		const lies = ['JPY', 'EUR', 'GBP'];
		[a, b, c].forEach((id, i) => f.sb.faults.add({ kind: 'reply', status: 200, count: 10, match: { method: 'GET', path: new RegExp(`/orders/${id}$`) }, reply: { body: { ok: true, data: { id, currency: lies[i] } } } }));
		f.sb.clearRequests();
		const r = await run(path, budgetOption(rule), [{ order: a, amount: 3 }, { order: b, amount: 3 }, { order: c, amount: 3 }]);
		f.sb.faults.clear();
		expect(r.errors[0]).toBeUndefined();
		expect(r.errors[1]).toMatch(/Refused: the currency of .{1,3}Refund an order.{1,3} cannot be read reliably before it is sent/);
		expect(r.errors[2]).toMatch(/Refused: the currency of .{1,3}Refund an order.{1,3} cannot be read reliably before it is sent/);
		expect(moneyWrites()).toHaveLength(1);
		f.sb.clearRequests();
		const [d, e] = orders(2);
		const honest = await run(path, budgetOption(rule), [{ order: d, amount: 2 }, { order: e, amount: 2 }]);
		expect(honest.errors).toEqual([undefined, undefined]);
		expect(moneyWrites()).toHaveLength(2);
	});

	// The count made in the recorded currency is asserted where it stays within the budget too (the
	// mutation run's open case: counted in the currency read instead, the next write of the recorded
	// one went out past the budget). Per day: a later execution, with honest reads, refunds in the
	// recorded currency; per execution: a payout in it, stated (no read), in the same run.
	test.each(PATHS.filter((path) => !path.name.startsWith('Checkout')))('per day: a refund an order answer lied about counts in the currency recorded, for the next execution too: $name', async (path) => {
		const [a, b] = orders(2);
		const recordedIn = f.sb.state.orders.find((o) => o.id === a)!.currency;
		const options = { ...budgetOption('per day'), maxTotalPerDay: 5 };
		for (const next of [3, 2]) {
			serial++;
			const workflow = { id: `wf_budget_recordedin_${serial}`, staticData: {} };
			f.sb.faults.add({ kind: 'reply', status: 200, count: 10, match: { method: 'GET', path: new RegExp(`/orders/${a}$`) }, reply: { body: { ok: true, data: { id: a, currency: 'JPY' } } } });
			f.sb.clearRequests();
			const first = await oneExecution(path, { ...options, concurrency: 1 }, [{ order: a, amount: 3 }], workflow);
			f.sb.faults.clear();
			expect(first.errors).toEqual([undefined]);
			// The next execution reads honestly: the order is in the currency the service recorded.
			expect(f.sb.state.orders.find((o) => o.id === b)!.currency).toBe(recordedIn);
			const second = await oneExecution(path, { ...options, concurrency: 1 }, [{ order: b, amount: next }], workflow);
			if (next === 3) {
				expect(second.errors[0]).toMatch(new RegExp(`Refused: this write of 3 ${recordedIn} would pass the .*of 5: 3 already spent`));
				expect(moneyWrites()).toHaveLength(1);
			} else {
				// Control: what fits beside the 3 recorded goes out.
				expect(second.errors).toEqual([undefined]);
				expect(moneyWrites()).toHaveLength(2);
			}
		}
	});

	test('per execution: a refund an order answer lied about counts in the currency recorded: a payout in it, stated, is held against it (Custom API Call)', async () => {
		const [a] = orders(1);
		const recordedIn = f.sb.state.orders.find((o) => o.id === a)!.currency;
		const custom: Path = {
			name: 'Custom API Call (store)',
			parameters: (options) => ({ resource: 'custom', operation: 'request', method: 'POST', path: '={{ $json.path }}', body: '={{ JSON.stringify($json.body) }}', options }),
			write: () => ({}),
		};
		for (const payout of [3, 2]) {
			serial++;
			f.sb.faults.add({ kind: 'reply', status: 200, count: 10, match: { method: 'GET', path: new RegExp(`/orders/${a}$`) }, reply: { body: { ok: true, data: { id: a, currency: 'JPY' } } } });
			f.sb.clearRequests();
			const r = await oneExecution(custom, { maxTotalPerExecution: 5, concurrency: 1 }, [
				{ path: `/v2/stores/{storeId}/orders/${a}/refund`, body: { amount: 3 } },
				{ path: '/v2/stores/{storeId}/payouts', body: { amount: payout, currency: recordedIn } },
			], { id: `wf_budget_recordedin_exec_${serial}`, staticData: {} });
			f.sb.faults.clear();
			expect(r.errors[0]).toBeUndefined();
			const payouts = f.requests().filter((q) => q.method === 'POST' && /\/payouts$/.test(q.path));
			if (payout === 3) {
				expect(r.errors[1]).toMatch(new RegExp(`Refused: this write of 3 ${recordedIn} would pass the .*of 5: 3 already spent`));
				expect(payouts).toHaveLength(0);
			} else {
				// Control: the payout that fits beside the 3 recorded goes out.
				expect(r.errors[1]).toBeUndefined();
				expect(payouts).toHaveLength(1);
			}
		}
	});

	// The largest amount the cap reads: another amount-like name in the query string counts, on every path.
	const QUERY_PATHS: Path[] = [
		{ name: 'Amount field + Additional Query Parameters', parameters: (o) => ({ ...refundOf('={{ $json.amount }}', '={{ $json.order }}', o), additionalQueryParameters: { pair: [{ name: 'total', value: '={{ $json.total }}' }] } }), write: () => ({}) },
		{ name: 'Custom API Call (store)', parameters: (options) => ({ resource: 'custom', operation: 'request', method: 'POST', path: '=/v2/stores/{storeId}/orders/{{ $json.order }}/refund', queryParameters: { parameters: [{ name: 'total', value: '={{ $json.total }}' }] }, body: '={{ JSON.stringify({ amount: $json.amount }) }}', options }), write: () => ({}) },
		...AGENT_ROUTES.map((agent): Path => ({
			name: `agent (${agent})`,
			agent,
			parameters: (o) => ({ ...refundOf("={{ $fromAI('amount', 'amount', 'number') }}", "={{ $fromAI('order', 'the order', 'string') }}", { ...o, maxAmount: 10 }), additionalQueryParameters: { pair: [{ name: 'total', value: "={{ $fromAI('total', 'total', 'number') }}" }] } }),
			write: () => ({}),
		})),
	];
	test.each(cells(QUERY_PATHS))('the largest amount the cap reads is counted: $label', async ({ rule, path }) => {
		const [a, b] = orders(2);
		f.sb.clearRequests();
		const over = await run(path, budgetOption(rule), [{ order: a, amount: 1, total: 4 }, { order: b, amount: 1, total: 4 }]);
		expect(over.errors[0]).toBeUndefined();
		expect(over.errors[1]).toMatch(/Refused: this write of 4 .* would pass the .*of 5: 4 already spent/);
		expect(moneyWrites()).toHaveLength(1);
		// Control: amounts within the budget go out.
		f.sb.clearRequests();
		const within = await run(path, budgetOption(rule), [{ order: a, amount: 1, total: 2 }, { order: b, amount: 1, total: 2 }]);
		expect(within.errors).toEqual([undefined, undefined]);
		expect(moneyWrites()).toHaveLength(2);
	});

	// What the service recorded: a service that records more than asked (the disagreeing sandbox answers
	// a refund with the order's total) has the budget count that, so the next write is refused.
	test.each(cells(PATHS.filter((path) => !path.name.startsWith('Checkout'))))('what the service recorded replaces what was asked: $label', async ({ rule, path }) => {
		const [a, b] = orders(2);
		const total = f.sb.state.orders.find((o) => o.id === a)!.payment.totalAmount;
		const budget = total + 0.5;
		const options = rule === 'per execution' ? { maxTotalPerExecution: budget } : { maxTotalPerDay: budget };
		for (const disagree of [true, false]) {
			f.sb.disagree.on = disagree;
			f.sb.clearRequests();
			const r = await run(path, options, [{ order: a, amount: 1 }, { order: b, amount: 1 }]);
			if (disagree) {
				// (An agent's Maximum Amount is below the order's total: the message says that instead.)
				expect(r.errors[0]).toMatch(new RegExp(`The service recorded amount ${total}( where 1 was asked|, above the maximum)`));
				expect(r.errors[1]).toMatch(/Refused: this write of 1 .* would pass the/);
				expect(moneyWrites()).toHaveLength(1);
			} else {
				// Control: the service records what was asked; both go out.
				expect(r.errors).toEqual([undefined, undefined]);
				expect(moneyWrites()).toHaveLength(2);
			}
		}
		f.sb.disagree.on = false;
	});
});

describe('what the service recorded, without a currency in its answer, counts in the write\'s currency (issue 53.5, the mutation run)', () => {
	test.each(RULES)('%s: a refund of 1 recorded as 4 leaves no room for another of 1 under a budget of 4.5; control: recorded as 1, both go out', async (rule) => {
		const path = PATHS[0];
		const options = rule === 'per execution' ? { maxTotalPerExecution: 4.5 } : { maxTotalPerDay: 4.5 };
		for (const recorded of [4, 1]) {
			serial++;
			f.sb.clearRequests();
			f.sb.faults.add({ kind: 'reply', status: 200, match: { method: 'POST', path: MONEY }, reply: { body: { ok: true, data: { id: `rf_nocurrency${String(serial).padStart(8, '0')}`, amount: recorded } } } });
			const r = await oneExecution(path, { ...options, concurrency: 1 }, [{ ...path.write(0), amount: 1 }, { ...path.write(1), amount: 1 }], { id: `wf_budget_nocurrency_${serial}`, staticData: {} });
			f.sb.faults.clear();
			if (recorded === 4) {
				expect(r.errors[0]).toMatch(/The service recorded amount 4 where 1 was asked/);
				expect(r.errors[1]).toMatch(/Refused: this write of 1 .* would pass the/);
				expect(moneyWrites()).toHaveLength(1);
			} else {
				expect(r.errors).toEqual([undefined, undefined]);
				expect(moneyWrites()).toHaveLength(2);
			}
		}
	});
});

describe('a read the gate makes before a write never waits for the slot its own item holds', () => {
	// With Concurrency 1 a single-request item holds the only slot of the pool before it is admitted;
	// a read the gate makes for it (a refund's currency; Pay's total, whose run hatch holds none) must
	// not wait for that slot (the refund row hangs when the transport keeps it).
	test.each([
		['Checkout → Pay under a Maximum Amount (the total read first)', () => ({ resource: 'checkout', operation: 'pay', sessionId: rl(session()), options: { maxAmount: 100, concurrency: 1 } })],
		['Order → Refund under a budget (its currency read from the order)', () => refundOf(1, orders(1)[0], { maxTotalPerExecution: 100, concurrency: 1 })],
	])('%s, Concurrency 1: it finishes', async (_name, parameters) => {
		serial++;
		f.sb.clearRequests();
		const r = await f.run(parameters() as IDataObject);
		expect(r.error()).toBeUndefined();
		expect(moneyWrites()).toHaveLength(1);
	}, 20_000);
});
