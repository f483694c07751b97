/**
 * Safe as an AI-agent tool. n8n runs a node an agent uses as `<type>Tool`;
 * here the package's node class is registered under that name and run in
 * n8n-core, as the agent's tool call would run it. Reveal is refused to agents
 * (card data must not reach a model provider) and allowed otherwise;
 * money-moving operations need a Maximum Amount and stay under it, with zero
 * requests when refused.
 */
import type { IDataObject } from 'n8n-workflow';

import { AGENT_ROUTES, runAsAgentTool } from './support/agent-routes';
import { useSandbox } from './support/fixtures';
import { loadPackage, runNodes } from './support/harness';

const f = useSandbox({ orders: 100 });
const TOOL_TYPE = 'n8n-nodes-vault-store.vaultStoreTool';

async function runAsTool(parameters: IDataObject) {
	const loader = await loadPackage();
	f.sb.clearRequests();
	return await runNodes([{ type: TOOL_TYPE, parameters }], f.credentials, undefined, {
		extraNodeTypes: { [TOOL_TYPE]: loader.nodeTypes.vaultStore.type },
	});
}

const orderId = () => f.sb.state.orders.find((o) => o.payment.status === 'COMPLETED')!.id;
const rl = (value: string) => ({ __rl: true, mode: 'id', value });

async function cardToken(): Promise<string> {
	const r = await f.run({ resource: 'token', operation: 'create', tokenType: 'card', cardNumber: '4242424242424242', expMonth: '12', expYear: String(new Date().getUTCFullYear() + 2) });
	return r.output()[0].json.id as string;
}

test('Token → Reveal is refused to an AI agent with a reason it can read; nothing is sent', async () => {
	const tokenId = await cardToken();
	const r = await runAsTool({ resource: 'token', operation: 'reveal', tokenId: rl(tokenId) });
	expect(r.error()?.message).toBe('Reveal is not available to AI agents: it returns raw card or personal data, which must not be sent to an AI model');
	expect(f.requests()).toHaveLength(0);
});

test('Token → Reveal still works in a normal workflow run', async () => {
	const tokenId = await cardToken();
	const r = await f.run({ resource: 'token', operation: 'reveal', tokenId: rl(tokenId) });
	expect(r.error()).toBeUndefined();
	expect(r.output()[0].json.id).toBe(tokenId);
});

test('a refund tool without Maximum Amount is a configuration error; nothing is sent', async () => {
	const r = await runAsTool({ resource: 'order', operation: 'refund', orderId: rl(orderId()), additionalFields: { amount: 1 } });
	expect(r.error()?.message).toBe('Set "Maximum Amount" in the node\'s Options before giving "Refund" to an AI agent');
	expect(f.requests()).toHaveLength(0);
});

test('a refund above the Maximum Amount is refused before any request; at or below it goes through', async () => {
	const above = await runAsTool({ resource: 'order', operation: 'refund', orderId: rl(orderId()), additionalFields: { amount: 50 }, options: { maxAmount: 5 } });
	expect(above.error()?.message).toBe('Refused: the amount 50 is above the maximum of 5 set for this node ("Maximum Amount")');
	expect(f.requests()).toHaveLength(0);
	const within = await runAsTool({ resource: 'order', operation: 'refund', orderId: rl(orderId()), additionalFields: { amount: 0.5 }, options: { maxAmount: 5 } });
	expect(within.error()).toBeUndefined();
	expect(f.requests().filter((q) => q.path.endsWith('/refund'))).toHaveLength(1);
});

describe('the limits on an agent are the user\'s: Maximum Amount or Allow Agent Writes filled in by the agent ($fromAI) are refused', () => {
	test.each(AGENT_ROUTES)('%s: a refund whose Maximum Amount is $fromAI is refused, nothing sent; the same refund under a typed cap goes out', async (route) => {
		const id = orderId();
		const refund = (options: IDataObject) => ({ resource: 'order', operation: 'refund', orderId: rl(id), additionalFields: { amount: 1 }, options });
		f.sb.clearRequests();
		const agent = await runAsAgentTool(route, refund({ maxAmount: "={{ $fromAI('max', 'the most to refund', 'number') }}" }), { max: 1_000_000 }, f.credentials);
		expect(agent.text).toMatch(/"Maximum Amount" is filled in by the AI agent/);
		expect(f.requests().filter((q) => q.path.endsWith('/refund'))).toHaveLength(0);
		// Allow Agent Writes acts on Custom API Call (a refund route here) and the operations it unlocks.
		const customRefund = { resource: 'custom', operation: 'request', method: 'POST', path: `/v2/stores/{storeId}/orders/${id}/refund`, body: '{"amount": 1}', options: { maxAmount: 5, allowAgentWrites: "={{ $fromAI('allow', 'allow writes', 'boolean') }}" } };
		const writes = await runAsAgentTool(route, customRefund, { allow: true }, f.credentials);
		expect(writes.text).toMatch(/"Allow Agent Writes" is filled in by the AI agent/);
		expect(f.requests().filter((q) => q.path.endsWith('/refund'))).toHaveLength(0);
		// Control: a cap the user typed lets the refund within it go out.
		const typed = await runAsAgentTool(route, refund({ maxAmount: 5 }), {}, f.credentials);
		expect(typed.text).not.toMatch(/Refused|filled in by the AI agent/);
		expect(f.requests().filter((q) => q.path.endsWith('/refund'))).toHaveLength(1);
	});
});

describe('issue 53.5: an agent\'s Custom API Call to a money route needs a Maximum Amount (the gate\'s agent rule, not the operation\'s setup check)', () => {
	test.each(AGENT_ROUTES)('%s: a refund route called with Allow Agent Writes and no Maximum Amount is refused, nothing sent; control: the same call under a Maximum Amount goes out', async (route) => {
		const id = orderId();
		const call = (options: IDataObject) => ({ resource: 'custom', operation: 'request', method: 'POST', path: `/v2/stores/{storeId}/orders/${id}/refund`, body: '{"amount": 1}', options });
		f.sb.clearRequests();
		const uncapped = await runAsAgentTool(route, call({ allowAgentWrites: true }), {}, f.credentials);
		expect(uncapped.text).toMatch(/Refused: this call moves money and the node has no "Maximum Amount" for AI agents/);
		expect(f.requests().filter((q) => q.path.endsWith('/refund'))).toHaveLength(0);
		const capped = await runAsAgentTool(route, call({ allowAgentWrites: true, maxAmount: 5 }), {}, f.credentials);
		expect(capped.text).not.toMatch(/Refused/);
		expect(f.requests().filter((q) => q.path.endsWith('/refund'))).toHaveLength(1);
	});
});

test('a full refund (no amount) and a checkout payment whose session total cannot be read first are refused to an agent; nothing is written', async () => {
	const full = await runAsTool({ resource: 'order', operation: 'refund', orderId: rl(orderId()), options: { maxAmount: 5 } });
	expect(full.error()?.message).toMatch(/^Refused: the amount of "Refund an order" is not known before it is sent/);
	const pay = await runAsTool({ resource: 'checkout', operation: 'pay', sessionId: rl('cks_aaaaaaaaaaaaaaaa'), options: { maxAmount: 5 } });
	expect(pay.error()?.message).toMatch(/^Refused: the amount of "Pay a checkout session" is not known before it is sent/);
	expect(f.requests().filter((q) => q.method !== 'GET')).toHaveLength(0);
});

test('payout create: the cap also applies to normal runs when it is set', async () => {
	const r = await f.run({ resource: 'payout', operation: 'create', amount: 20, options: { maxAmount: 10 } });
	expect(r.error()?.message).toBe('Refused: the amount 20 is above the maximum of 10 set for this node ("Maximum Amount")');
	expect(f.requests()).toHaveLength(0);
});

test('what an agent reads: n8n describes each operation tool as "<action> in Vault Store", one distinct sentence per operation', async () => {
	const { NodeHelpers } = await import('n8n-workflow');
	const { VaultStore } = await import('../nodes/VaultStore/VaultStore.node');
	const { resources } = await import('../nodes/VaultStore/resources');
	const description = new VaultStore().description;
	const seen = new Set<string>();
	for (const resource of resources) {
		for (const op of resource.operations) {
			const text = NodeHelpers.getToolDescriptionForNode(
				{ parameters: { resource: resource.value, operation: op.value } } as never,
				{ description } as never,
			);
			expect([resource.value, op.value, text]).toEqual([resource.value, op.value, `${op.action} in Vault Store`]);
			expect(text).toMatch(/^[A-Z][a-z]+ /);
			seen.add(text);
		}
	}
	expect(seen.size).toBe(resources.reduce((n, r) => n + r.operations.length, 0));
});
