/**
 * The once-per-event record where n8n's deduplication store is not there: n8n-core alone (as here:
 * DataDeduplicationService was never given a store and throws "Instance needs to initialized"),
 * or an n8n older than the helpers. The record then lives in the node's static data alone.
 * Runs the node's real execute() in n8n-core against the sandbox; the record's clock is simulated
 * by writing entries at earlier times through the record itself.
 */
import { onceRecord, RECORD_CAPACITY, RECORD_FIELD, RECORD_HORIZON_MS, recordDigest } from '../nodes/shared/money/record';
import type { IDataObject } from 'n8n-workflow';

import { useSandbox } from './support/fixtures';
import { delivery, hintsOf, HOUR, gatedValue, staticDataContext, Workflow } from './support/once-record-support';

const f = useSandbox({ orders: 120 });
const completed = () => f.sb.state.orders.filter((o) => o.payment.status === 'COMPLETED');
const refundsOf = (orderId: string) => f.sb.ledger.filter((e) => e.kind === 'refund' && (e as IDataObject).orderId === orderId);
let n = 0;
const workflow = () => new Workflow(f, `wf_once_${++n}`);

/** Fills `count` entries written at `at` into the node's static data, through the record. */
async function fill(store: IDataObject, count: number, at: number, prefix: string): Promise<void> {
	const record = onceRecord(staticDataContext(store), () => at);
	for (let i = 0; i < count; i++) {
		const key = `n8n_evt_${prefix}${i}`;
		expect(await record.claim(key)).toEqual({ status: 'new' });
		await record.confirm({ key, recordId: gatedValue(`rfd_${prefix}${String(i).padStart(16, '0')}`), amount: 12.34, currency: gatedValue('USD'), at });
	}
}

test('n8n-core alone: the record falls back to static data; an entry is about 80 B (key digest, record id, amount, currency, time); a re-delivery 25 h later is skipped with what the entry holds', async () => {
	const wf = workflow();
	const order = completed()[0];
	const before = refundsOf(order.id).length;
	const first = await wf.run([delivery('msg_once_fallback_1', order.id)]);
	expect(first.error('Refund')).toBeUndefined();
	const details = wf.details();
	expect(Object.keys(details)).toHaveLength(1);
	const [digest, entry] = Object.entries(details)[0];
	expect(digest).toMatch(/^[A-Za-z0-9_-]{22}$/);
	const refund = first.output('Refund')[0].json;
	expect(entry.slice(0, 3)).toEqual([expect.any(Number), refund.id, 0.01]);
	const bytes = JSON.stringify({ [digest]: entry }).length;
	expect(bytes).toBeLessThanOrEqual(100);

	await f.sb.app.clock.advance(25 * HOUR);
	const late = await wf.run([delivery('msg_once_fallback_1', order.id)]);
	expect(late.error('Refund')).toBeUndefined();
	expect(late.output('Refund')[0].json).toMatchObject({ writeSkipped: true, idempotencyKeySource: 'event', id: refund.id, amount: 0.01 });
	expect(refundsOf(order.id).length - before).toBe(1);
});

test(`${RECORD_CAPACITY.toLocaleString('en')} entries within 84 h: none refused; when still full the write goes out under the event key with a hint (never refused); about 80 B per entry`, async () => {
	const wf = workflow();
	const store: IDataObject = {};
	await fill(store, RECORD_CAPACITY - 5, Date.now() - HOUR, 'full');
	wf.staticData = { 'node:Refund': store };
	const orders = completed().slice(1, 7);
	const before = orders.map((o) => refundsOf(o.id).length);
	// Five events fill it to the brim; the sixth finds it full.
	const r = await wf.run(orders.map((o, i) => delivery(`msg_once_full_${i}`, o.id)));
	expect(r.error('Refund')).toBeUndefined();
	expect(r.output('Refund').map((i) => i.json.writeSkipped)).toEqual([undefined, undefined, undefined, undefined, undefined, undefined]);
	expect(orders.map((o, i) => refundsOf(o.id).length - before[i])).toEqual([1, 1, 1, 1, 1, 1]);
	expect(Object.keys(wf.details())).toHaveLength(RECORD_CAPACITY);
	expect(hintsOf(r).join(' ')).toMatch(/once-per-event record holds 25000 writes of the last 84 hours and is full: the write went out under the event's Idempotency-Key alone/);
	const perEntry = JSON.stringify(wf.details()).length / RECORD_CAPACITY;
	expect(perEntry).toBeLessThanOrEqual(100);
	// The five recorded ones are skipped on re-delivery; the sixth (untracked) relies on the key: replayed within 24 h.
	const again = await wf.run(orders.map((o, i) => delivery(`msg_once_full_${i}`, o.id)));
	expect(again.output('Refund').map((i) => Boolean(i.json.writeSkipped || i.json.idempotentReplay))).toEqual([true, true, true, true, true, true]);
	expect(orders.map((o, i) => refundsOf(o.id).length - before[i])).toEqual([1, 1, 1, 1, 1, 1]);
});

test('entries past the 84 h horizon are pruned, oldest first: a full record of old and recent entries keeps the recent ones', async () => {
	const wf = workflow();
	const store: IDataObject = {};
	const now = Date.now();
	await fill(store, RECORD_CAPACITY / 2, now - RECORD_HORIZON_MS - HOUR, 'old');
	await fill(store, RECORD_CAPACITY / 2, now - HOUR, 'recent');
	expect(Object.keys(store[RECORD_FIELD] as object)).toHaveLength(RECORD_CAPACITY);
	wf.staticData = { 'node:Refund': store };
	const order = completed()[10];
	const r = await wf.run([delivery('msg_once_prune_1', order.id)]);
	expect(r.output('Refund')[0].json.writeSkipped).toBeUndefined();
	expect(hintsOf(r).join(' ')).not.toMatch(/is full/);
	const kept = wf.details();
	expect(Object.keys(kept)).toHaveLength(RECORD_CAPACITY / 2 + 1);
	expect(kept[recordDigest('n8n_evt_old0')]).toBeUndefined();
	expect(kept[recordDigest('n8n_evt_recent0')]).toBeDefined();
	// A recent one is still 'done'; an old one is new again (the service's retries are over by then).
	const record = onceRecord(staticDataContext(wf.staticData['node:Refund'] as IDataObject));
	expect(await record.claim('n8n_evt_recent7')).toMatchObject({ status: 'done', entry: { recordId: gatedValue('rfd_recent0000000000000007'), amount: 12.34, currency: 'USD' } });
	expect(await record.claim('n8n_evt_old7')).toEqual({ status: 'new' });
});

test('a simulated clock: an entry is done until 84 h after its write, new after; a write that did not happen is released', async () => {
	let now = 1_000_000_000;
	const store: IDataObject = {};
	const record = onceRecord(staticDataContext(store), () => now);
	expect(record.backend).toBe('staticData');
	expect(await record.claim('k1')).toEqual({ status: 'new' });
	expect(await record.claim('k1')).toEqual({ status: 'done' }); // claimed in this run, in flight
	await record.confirm({ key: 'k1', recordId: gatedValue('rfd_1'), amount: 5, currency: gatedValue('EUR'), at: now });
	expect(await record.claim('k2')).toEqual({ status: 'new' });
	await record.release('k2');
	now += RECORD_HORIZON_MS - 1;
	const later = onceRecord(staticDataContext(store), () => now);
	expect(await later.claim('k1')).toEqual({ status: 'done', entry: { key: 'k1', recordId: gatedValue('rfd_1'), amount: 5, currency: 'EUR', at: 1_000_000_000 } });
	expect(await later.claim('k2')).toEqual({ status: 'new' });
	now += 2;
	const past = onceRecord(staticDataContext(store), () => now);
	expect(await past.claim('k1')).toEqual({ status: 'new' });
	expect(Object.keys(store[RECORD_FIELD] as object)).toEqual([]);
});

test('static data alone loses entries of overlapping executions (saved whole at the end): a late re-delivery of the lost event refunds again', async () => {
	const wf = workflow();
	const [a, b] = completed().slice(20, 22);
	const before = [refundsOf(a.id).length, refundsOf(b.id).length];
	await wf.overlapping([[delivery('msg_once_overlap_a', a.id)], [delivery('msg_once_overlap_b', b.id)]]);
	// Both refunded; the static data saved last holds one entry: the other execution's was overwritten.
	expect([refundsOf(a.id).length - before[0], refundsOf(b.id).length - before[1]]).toEqual([1, 1]);
	expect(Object.keys(wf.details())).toHaveLength(1);
	await f.sb.app.clock.advance(25 * HOUR);
	await wf.run([delivery('msg_once_overlap_a', a.id)]);
	await wf.run([delivery('msg_once_overlap_b', b.id)]);
	// What n8n's deduplication store prevents (once-record-store.test.ts): here one event refunds twice.
	expect(refundsOf(a.id).length - before[0] + refundsOf(b.id).length - before[1]).toBe(3);
});
