/**
 * Issue 55.3: an agent whose tool is a sub-workflow (n8n's Call n8n Workflow Tool) running the
 * Vault Store node starts a new execution per call, so "Maximum Total per Execution" (and the
 * execution's memory of writes) would start empty at every call. n8n passes the calling execution
 * to the sub-workflow; under a per-execution budget the node refuses the money write there, nothing
 * sent, saying why. Both agent routes, with a stand-in for the workflow tool (support/agent-routes)
 * that runs the sub-workflow as its own execution with the agent's as its parent. Controls: the
 * same sub-workflow without the per-execution budget (Maximum Total per Day counts across
 * executions) refunds; the same node as the agent's own tool holds the per-execution budget.
 */
import type { IDataObject } from 'n8n-workflow';

import { AGENT_ROUTES, runAsAgentTool, runSubWorkflowAsAgentTool } from './support/agent-routes';
import { useSandbox } from './support/fixtures';

const f = useSandbox({ orders: 100 });
const rl = (value: string) => ({ __rl: true, mode: 'id', value });
const refunds = () => f.requests().filter((q) => q.method === 'POST' && /\/orders\/[^/]+\/refund$/.test(q.path));

let serial = 0;
function twoOrders(): [string, string] {
	const all = f.sb.state.orders.filter((o) => o.payment.status === 'COMPLETED' && o.amount >= 10);
	serial++;
	return [all[(serial * 2) % all.length].id, all[(serial * 2 + 1) % all.length].id];
}

/** The sub-workflow's Vault Store node: a refund of the item's order and amount. */
const subRefund = (options: IDataObject) => ({
	name: 'Refund',
	parameters: { resource: 'order', operation: 'refund', orderId: rl('={{ $json.order }}'), additionalFields: { amount: '={{ $json.amount }}' }, options },
});

describe('an agent whose tool is a sub-workflow running the node', () => {
	test.each(AGENT_ROUTES)('%s: under "Maximum Total per Execution" the money write is refused in the sub-workflow, saying why; nothing sent', async (route) => {
		const [a, b] = twoOrders();
		f.sb.clearRequests();
		const r = await runSubWorkflowAsAgentTool(route, subRefund({ maxAmount: 5, maxTotalPerExecution: 5 }), [{ order: a, amount: 2 }, { order: b, amount: 2 }], f.credentials);
		// One sub-workflow execution per call, each started by the agent's execution.
		expect(r.calls.map((c) => c.parent)).toEqual([r.executionId, r.executionId]);
		for (const call of r.calls) {
			const error = call.run.output()[0]?.json.error ?? call.run.error()?.message;
			expect(String(error)).toMatch(new RegExp(`^Refused: "Maximum Total per Execution" cannot hold here: this execution was started by another one \\(execution ${r.executionId}\\).*nothing was sent$`));
		}
		expect(r.texts.join('\n')).toMatch(/cannot hold here: this execution was started by another one/);
		expect(refunds()).toHaveLength(0);
	});

	test.each(AGENT_ROUTES)('%s: control: without the per-execution budget (Maximum Amount and Maximum Total per Day), each call refunds', async (route) => {
		const [a, b] = twoOrders();
		f.sb.clearRequests();
		const r = await runSubWorkflowAsAgentTool(route, subRefund({ maxAmount: 5, maxTotalPerDay: 1000 }), [{ order: a, amount: 2 }, { order: b, amount: 2 }], f.credentials);
		expect(r.calls).toHaveLength(2);
		expect(r.texts.join('\n')).not.toMatch(/Refused/);
		expect(refunds().map((q) => q.path.split('/')[5])).toEqual([a, b]);
	});

	test.each(AGENT_ROUTES)('%s: control: the node as the agent\'s own tool (one execution) holds the per-execution budget and refunds within it', async (route) => {
		const [a, b] = twoOrders();
		f.sb.clearRequests();
		const parameters = { resource: 'order', operation: 'refund', orderId: rl("={{ $fromAI('order', 'the order', 'string') }}"), additionalFields: { amount: "={{ $fromAI('amount', 'the amount', 'number') }}" }, options: { maxAmount: 5, maxTotalPerExecution: 5 } };
		const r = await runAsAgentTool(route, parameters, [{ order: a, amount: 2 }, { order: b, amount: 2 }], f.credentials, { continueOnFail: true });
		expect(r.texts.join('\n')).not.toMatch(/Refused/);
		expect(refunds()).toHaveLength(2);
	});
});
