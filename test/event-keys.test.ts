/**
 * Exactly one effect per event: an item that descends from a Vault Store
 * Trigger delivery gets an Idempotency-Key derived from the delivery's event id
 * (plus node, operation and the item's position within that delivery), so
 * running the same event again (a re-delivery, n8n's Retry, a second webhook
 * process) refunds once. Items without a delivery keep the per-execution key;
 * the Idempotency Key option still wins. Runs in n8n-core: the trigger node
 * passes the delivery items on, the action node resolves paired items.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { useSandbox } from './fixtures';
import { runNodes, TRIGGER_TYPE } from './harness';

const f = useSandbox({ orders: 200 });

const completed = () => f.sb.state.orders.filter((o) => o.payment.status === 'COMPLETED');

function delivery(eventId: string, orderId: string): INodeExecutionData {
	return { json: { event: 'PAYMENT_COMPLETED', id: eventId, data: { orderId }, meta: { deliveryId: eventId, signatureVersion: 'V2' } } };
}

async function runFromTrigger(items: INodeExecutionData[], refund: IDataObject = {}) {
	f.sb.clearRequests();
	return await runNodes(
		[
			{ name: 'Vault Store Trigger', type: TRIGGER_TYPE, parameters: { events: ['PAYMENT_COMPLETED'], signatureVersion: 'V2', options: {} } },
			{
				name: 'Refund',
				parameters: {
					resource: 'order',
					operation: 'refund',
					orderId: { __rl: true, mode: 'id', value: '={{ $json.data.orderId }}' },
					additionalFields: { amount: 0.01 },
					...refund,
				},
			},
		],
		f.credentials,
		items,
	);
}

const refundsOf = (orderId: string) => f.sb.ledger.filter((e) => e.kind === 'refund' && (e as IDataObject).orderId === orderId);

test('the same delivery executed twice refunds once; the second answer is the replay, key source "event"', async () => {
	const order = completed()[0];
	const before = refundsOf(order.id).length;
	const first = await runFromTrigger([delivery('msg_evt_same_1', order.id)]);
	const second = await runFromTrigger([delivery('msg_evt_same_1', order.id)]);
	expect(first.error('Refund')).toBeUndefined();
	expect(second.error('Refund')).toBeUndefined();
	expect(refundsOf(order.id).length - before).toBe(1);
	expect(first.output('Refund')[0].json).toMatchObject({ idempotencyKeySource: 'event' });
	expect(second.output('Refund')[0].json).toMatchObject({ idempotencyKeySource: 'event', idempotentReplay: true });
});

test('two different deliveries refund twice', async () => {
	const order = completed()[1];
	const before = refundsOf(order.id).length;
	await runFromTrigger([delivery('msg_evt_a', order.id)]);
	await runFromTrigger([delivery('msg_evt_b', order.id)]);
	expect(refundsOf(order.id).length - before).toBe(2);
});

test('items of one execution from different deliveries get different keys; the same run repeated adds nothing', async () => {
	const [a, b] = completed().slice(2, 4);
	const items = [delivery('msg_evt_multi_1', a.id), delivery('msg_evt_multi_2', b.id)];
	const first = await runFromTrigger(items);
	const keys = f.requests().filter((q) => q.path.endsWith('/refund')).map((q) => q.headers['idempotency-key']);
	expect(new Set(keys).size).toBe(2);
	const ledger = f.sb.ledger.length;
	await runFromTrigger(items);
	expect(f.sb.ledger.length).toBe(ledger);
	expect(first.output('Refund').map((i) => i.json.idempotencyKeySource)).toEqual(['event', 'event']);
});

test('an item that does not descend from a delivery keeps the per-execution key (source "execution"); the option wins (source "option")', async () => {
	const order = completed()[4];
	const plain = await f.run({ resource: 'order', operation: 'refund', orderId: { __rl: true, mode: 'id', value: order.id }, additionalFields: { amount: 0.01 } });
	expect(plain.output()[0].json.idempotencyKeySource).toBe('execution');
	const own = await runFromTrigger([delivery('msg_evt_opt', order.id)], { options: { idempotencyKey: 'my-own-key-1' } });
	expect(own.output('Refund')[0].json.idempotencyKeySource).toBe('option');
	expect(f.requests().find((q) => q.path.endsWith('/refund'))?.headers['idempotency-key']).toBe('my-own-key-1');
});
