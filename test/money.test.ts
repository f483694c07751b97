/**
 * Money moves as asked, never past the Maximum Amount, on every path: the
 * cap reads the request as it will be sent (Additional Body Fields,
 * expressions, custom calls), for both of n8n's agent routes and in normal
 * runs; what the service recorded is read back; writes an agent could turn
 * against the store are refused to agents unless the node allows them.
 * The node runs in n8n-core against the sandbox (some answers from its
 * hostile mode); the record module also runs on a fake clock.
 */
import type { IDataObject } from 'n8n-workflow';

import { AGENT_ROUTES, runAsAgentTool } from './support/agent-routes';
import { useSandbox } from './support/fixtures';

const f = useSandbox({ orders: 150 });
const rl = (value: string) => ({ __rl: true, mode: 'id', value });
const orderId = (n = 0) => f.sb.state.orders.filter((o) => o.payment.status === 'COMPLETED')[n].id;
const writes = () => f.requests().filter((q) => q.method !== 'GET');
const hints = (r: { run: { data: { resultData: { runData: Record<string, Array<{ hints?: Array<{ message: string }> }>> } } } }) =>
	Object.values(r.run.data.resultData.runData).flatMap((tasks) => tasks.flatMap((t) => t.hints ?? []).map((h) => h.message));

const extraBody = (name: string, value: string) => ({ additionalBodyFields: { pair: [{ name, value }] } });

/** Every money-moving operation, with parameters that ask for `amount` (where it has one) through the agent's arguments. */
const MONEY_OPERATIONS: Array<{ name: string; parameters: (amount: string) => IDataObject; extra: (amount: string) => IDataObject }> = [
	{
		name: 'Order → Refund',
		parameters: (amount) => ({ resource: 'order', operation: 'refund', orderId: rl(orderId(1)), additionalFields: { amount } }),
		extra: (amount) => ({ resource: 'order', operation: 'refund', orderId: rl(orderId(1)), additionalFields: { amount: 1 }, ...extraBody('amount', amount) }),
	},
	{
		name: 'Payout → Create',
		parameters: (amount) => ({ resource: 'payout', operation: 'create', amount }),
		extra: (amount) => ({ resource: 'payout', operation: 'create', amount: 1, ...extraBody('amount', amount) }),
	},
	{
		name: 'Checkout → Pay',
		parameters: () => ({ resource: 'checkout', operation: 'pay', sessionId: rl('cks_aaaaaaaaaaaaaaaa') }),
		extra: (amount) => ({ resource: 'checkout', operation: 'pay', sessionId: rl('cks_aaaaaaaaaaaaaaaa'), ...extraBody('amount', amount) }),
	},
];

describe.each(AGENT_ROUTES)('through the agent route "%s"', (route) => {
	test.each(MONEY_OPERATIONS)('$name above the Maximum Amount (Amount field from $fromAI, or an extra body field) is refused with nothing sent', async (op) => {
		const forms: Array<[IDataObject, IDataObject]> = [
			[op.parameters("={{ $fromAI('amount', 'amount', 'number') }}"), { amount: 5000 }],
			[op.extra("={{ $fromAI('amount', 'amount', 'string') }}"), { amount: '5000' }],
		];
		for (const [parameters, args] of forms) {
			f.sb.clearRequests();
			const r = await runAsAgentTool(route, { ...parameters, options: { maxAmount: 20 } }, args, f.credentials);
			expect(r.text).toMatch(/Refused: the amount (5000 is above the maximum of 20|of ".*" is not known before it is sent)/);
			expect(writes()).toHaveLength(0);
		}
	});

	test('a refund within the maximum goes through; without a Maximum Amount the agent is refused', async () => {
		f.sb.clearRequests();
		const within = await runAsAgentTool(route, { ...MONEY_OPERATIONS[0].parameters("={{ $fromAI('amount', 'amount', 'number') }}"), options: { maxAmount: 20 } }, { amount: 0.5 }, f.credentials);
		expect(within.text).not.toMatch(/Refused|rror/);
		expect(writes()).toHaveLength(1);
		f.sb.clearRequests();
		const noCap = await runAsAgentTool(route, MONEY_OPERATIONS[1].parameters("={{ $fromAI('amount', 'amount', 'number') }}"), { amount: 1 }, f.credentials);
		expect(noCap.text).toMatch(/Set "Maximum Amount" in the node's Options before giving "Create" to an AI agent/);
		expect(writes()).toHaveLength(0);
	});

	test('Custom API Call is refused to an agent unless the node allows it; allowed, a refund or payout above the cap, or with no amount, is still refused', async () => {
		const call = (body: IDataObject, path = '/v2/stores/{storeId}/payouts', options: IDataObject = {}) =>
			runAsAgentTool(route, { resource: 'custom', operation: 'request', method: 'POST', path, body: "={{ $fromAI('body', 'JSON body', 'string') }}", options: { maxAmount: 20, ...options } }, { body: JSON.stringify(body) }, f.credentials);
		f.sb.clearRequests();
		expect((await call({ amount: 1 })).text).toMatch(/Make a Request is not available to AI agents unless this node allows it/);
		const allow = { allowAgentWrites: true };
		expect((await call({ amount: 5000, bankAccountId: 'bnk_attacker000001' }, undefined, allow)).text).toMatch(/Refused: the amount 5000 is above the maximum of 20/);
		expect((await call({ amount: '5000' }, `/v2/stores/{storeId}/orders/${orderId(2)}/refund`, allow)).text).toMatch(/Refused: the amount 5000 is above/);
		expect((await call({}, `/v2/stores/{storeId}/orders/${orderId(2)}/refund`, allow)).text).toMatch(/is not known before it is sent/);
		expect((await call({ nested: { amount_cents: 900000 } }, undefined, allow)).text).toMatch(/Refused: the amount 900000 is above/);
		expect(writes()).toHaveLength(0);
		expect((await call({ amount: 2 }, undefined, allow)).text).not.toMatch(/Refused/);
		expect(writes()).toHaveLength(1);
	});

	test('writes an agent could turn against the store are refused by default and allowed per node', async () => {
		const subscriptionId = f.sb.app.collection<{ id: string }>('subscriptions')[0].id;
		const productId = f.sb.state.products[0].id;
		const cases: IDataObject[] = [
			{ resource: 'subscription', operation: 'change', subscriptionId: rl(subscriptionId), updateFields: { quantity: 2, prorationBehavior: 'IMMEDIATELY' } },
			{ resource: 'product', operation: 'update', productId: rl(productId), updateFields: { price: 0 } },
			{ resource: 'webhook', operation: 'update', webhookId: rl('whk_victim00000001'), updateFields: { url: 'https://attacker.example/hook' } },
		];
		for (const parameters of cases) {
			f.sb.clearRequests();
			const r = await runAsAgentTool(route, parameters, {}, f.credentials);
			expect(r.text).toMatch(/is not available to AI agents unless this node allows it: /);
			expect(writes()).toHaveLength(0);
		}
		f.sb.clearRequests();
		const allowed = await runAsAgentTool(route, { ...cases[1], options: { allowAgentWrites: true } }, {}, f.credentials);
		expect(allowed.text).not.toMatch(/not available/);
		expect(writes()).toHaveLength(1);
	});
});

describe('normal runs', () => {
	test('the cap reads the request as sent: an amount in Additional Body Fields above it is refused, nothing sent', async () => {
		const r = await f.run({ resource: 'payout', operation: 'create', amount: 10, ...extraBody('amount', '5000'), options: { maxAmount: 20 } });
		expect(r.error()?.message).toBe('Refused: the amount 5000 is above the maximum of 20 set for this node ("Maximum Amount")');
		expect(writes()).toHaveLength(0);
	});

	test('an Amount expression that resolves to nothing is an error, never a full refund; with a cap, a refund with no amount is refused', async () => {
		const order = f.sb.state.orders.find((o) => o.id === orderId(3))!;
		const r = await f.run({ resource: 'order', operation: 'refund', orderId: rl(order.id), additionalFields: { amount: '={{ $json.refundAmount }}' } }, [{ json: { amount: 5 } }]);
		expect(r.error()?.message).toBe('"Amount" is set but has no value for this item, so nothing was sent');
		expect(writes()).toHaveLength(0);
		const capped = await f.run({ resource: 'order', operation: 'refund', orderId: rl(order.id), options: { maxAmount: 5 } });
		expect(capped.error()?.message).toMatch(/^Refused: the amount of "Refund an order" is not known before it is sent \(without an amount it is a full refund\)/);
		expect(writes()).toHaveLength(0);
	});

	test('the store credential reaches store routes only: a vault reveal route through Custom API Call is refused, nothing sent', async () => {
		const { workspaceId, vaultId } = f.credentials.vaultStoreVaultApi as IDataObject;
		const r = await f.run({ resource: 'custom', operation: 'request', method: 'POST', path: `/v2/workspaces/${String(workspaceId)}/vaults/${String(vaultId)}/tokens/tok_aaaaaaaaaaaa/reveal` });
		expect(r.error()?.message).toBe("The store credential only reaches this store's routes");
		expect(f.requests()).toHaveLength(0);
	});

	test('read-back: a refund the service recorded with another amount fails the item naming both values and the id; not retried', async () => {
		f.sb.faults.add({ match: { method: 'POST', path: /\/refund$/ }, kind: 'reply', status: 200, reply: { body: { ok: true, data: { id: 'rfd_readback000000001', amount: 42.5, currency: 'USD' } } } });
		const r = await f.run({ resource: 'order', operation: 'refund', orderId: rl(orderId(4)), additionalFields: { amount: 5 } });
		expect(r.error()?.message).toBe(
			'The service recorded amount 42.5 where 5 was asked (refund rfd_readback000000001). The write was made and is not repeated: check it in the Vault Store dashboard.',
		);
		expect(writes()).toHaveLength(1);
		f.sb.faults.add({ match: { method: 'POST', path: /\/payouts$/ }, kind: 'reply', status: 201, reply: { body: { ok: true, data: { id: 'po_readback01', amount: 7, currency: 'eur' } } } });
		const cof = await f.run({ resource: 'payout', operation: 'create', amount: 7, additionalFields: { currency: 'USD' } }, undefined, { continueOnFail: true });
		expect(cof.output()[0].json.error).toMatch(/recorded currency eur where USD was asked \(payout po_readback01\)/);
	});

	test('read-back: the same currency in another case matches; an answer without amount passes with a hint that it could not be checked', async () => {
		f.sb.faults.add({ match: { method: 'POST', path: /\/payouts$/ }, kind: 'reply', status: 201, reply: { body: { ok: true, data: { id: 'po_readback02', amount: 7, currency: 'usd' } } } });
		const same = await f.run({ resource: 'payout', operation: 'create', amount: 7, additionalFields: { currency: 'USD' } });
		expect(same.error()).toBeUndefined();
		f.sb.faults.add({ match: { method: 'POST', path: /\/refund$/ }, kind: 'reply', status: 200, reply: { body: { ok: true, data: { id: 'rfd_readback000000002', status: 'SUCCEEDED' } } } });
		const r = await f.run({ resource: 'order', operation: 'refund', orderId: rl(orderId(5)), additionalFields: { amount: 5 } });
		expect(r.error()).toBeUndefined();
		expect(hints(r).join(' ')).toMatch(/does not show the amount the service recorded, so it could not be compared/);
	});
});
