/**
 * The once-per-event record on n8n's deduplication store. n8n's plug point is
 * DataDeduplicationService.init(deduplicator) in n8n-core: n8n itself (packages/cli) passes its
 * DeduplicationHelper, which keeps the entries in n8n's database; this test passes an in-memory
 * IDataDeduplicator that behaves as n8n 2.8.4's (hashed values, one list per node, maxEntries
 * trimming the front, read-modify-write of the whole list). Runs the node's real execute() in
 * n8n-core against the sandbox. The queue-mode end-to-end test runs the same code on n8n's real
 * store in PostgreSQL with two workers (scripts/e2e-queue/run.js, check 5c).
 */
import { DataDeduplicationService } from 'n8n-core';
import type { IDataObject } from 'n8n-workflow';

import { MARK_MS } from '../nodes/shared/money/onceState';
import { onceRecord, RECORD_CAPACITY, recordDigest } from '../nodes/shared/money/record';
import { useSandbox } from './support/fixtures';
import { runNodes } from './support/harness';
import { delivery, hintsOf, HOUR, gatedValue, MemoryDeduplicator, REFUND, staticDataContext, storeContext, TRIGGER, Workflow } from './support/once-record-support';

const f = useSandbox({ orders: 80 });
const store = new MemoryDeduplicator();
const completed = () => f.sb.state.orders.filter((o) => o.payment.status === 'COMPLETED');
const refundsOf = (orderId: string) => f.sb.ledger.filter((e) => e.kind === 'refund' && (e as IDataObject).orderId === orderId);
const refundRequests = () => f.requests().filter((q) => q.path.endsWith('/refund'));
let n = 0;
const workflow = () => new Workflow(f, `wf_store_${++n}`);
/** The key the refund of `r`'s first item carried, as the store holds it. */
const storedKey = (orderId: string) => {
	const key = f.requests().filter((q) => q.path.endsWith(`/orders/${orderId}/refund`)).map((q) => q.headers['idempotency-key'])[0] as string;
	return recordDigest(key);
};

beforeAll(async () => {
	await DataDeduplicationService.init(store);
});

/** The event delivered again 25 h later (the service's keys forgotten), to a process whose static data does not hold the details (queue mode: saved whole by whoever ended last). */
async function redeliverLater(wf: Workflow, messageId: string, orderId: string) {
	await f.sb.app.clock.advance(25 * HOUR);
	wf.staticData = {};
	f.sb.clearRequests();
	return await wf.run([delivery(messageId, orderId)]);
}

test('with the store there: the claim is in the store before the refund goes out; a re-delivery 25 h later on a process without the details is skipped (no refund)', async () => {
	const wf = workflow();
	const order = completed()[0];
	const before = refundsOf(order.id).length;
	store.calls = [];
	f.sb.clearRequests();
	const first = await wf.run([delivery('msg_store_1', order.id)]);
	expect(first.error('Refund')).toBeUndefined();
	// count once per run; the claim (with its time and deadline marks and a token), its token checked
	// after a pause; the done mark, checked after a pause; the claim's other marks taken back
	expect(store.calls).toEqual(['count', 'check', 'check', 'check', 'check', 'remove']);
	expect(store.has(wf.id, storedKey(order.id))).toBe(true);
	expect(Object.keys(wf.details())).toHaveLength(1);
	const late = await redeliverLater(wf, 'msg_store_1', order.id);
	expect(late.error('Refund')).toBeUndefined();
	expect(refundRequests()).toHaveLength(0);
	expect(refundsOf(order.id).length - before).toBe(1);
	expect(late.output('Refund')[0].json).toEqual({ writeSkipped: true, idempotencyKeySource: 'event' });
	expect(hintsOf(late).join(' ')).toMatch(/was not sent again.*check the write in the Vault Store dashboard/);
});

test('overlapping executions of one workflow (static data saved whole, last wins) keep both entries in the store: each event re-delivered 25 h later refunds nothing', async () => {
	const wf = workflow();
	const [a, b, c] = completed().slice(1, 4);
	const before = [a, b, c].map((o) => refundsOf(o.id).length);
	await wf.overlapping([[delivery('msg_store_ov_a', a.id)], [delivery('msg_store_ov_b', b.id)], [delivery('msg_store_ov_c', c.id)]]);
	expect([a, b, c].map((o, i) => refundsOf(o.id).length - before[i])).toEqual([1, 1, 1]);
	expect(Object.keys(wf.details())).toHaveLength(1); // the static data kept one execution's details
	expect(store.count(wf.id)).toBe(6); // the store kept all three, each with its done mark
	await f.sb.app.clock.advance(25 * HOUR);
	f.sb.clearRequests();
	for (const [o, id] of [[a, 'msg_store_ov_a'], [b, 'msg_store_ov_b'], [c, 'msg_store_ov_c']] as const) {
		const r = await wf.run([delivery(id, o.id)]);
		expect(r.output('Refund')[0].json.writeSkipped).toBe(true);
	}
	expect(refundRequests()).toHaveLength(0);
	expect([a, b, c].map((o, i) => refundsOf(o.id).length - before[i])).toEqual([1, 1, 1]);
});

test('a refund the service refused (503 on every attempt: it did nothing) is released from the store: the event re-delivered later is refunded then, once', async () => {
	const wf = workflow();
	const order = completed()[4];
	const before = refundsOf(order.id).length;
	f.sb.faults.add({ match: { method: 'POST', path: /\/refund$/ }, kind: 'reply', status: 503, count: 10, reply: { body: { ok: false, error: { code: 'unavailable', message: 'down (injected)' } } } });
	const outage = await wf.run([delivery('msg_store_outage', order.id)]);
	f.sb.faults.clear();
	expect(outage.error('Refund')).toBeDefined();
	expect(store.count(wf.id)).toBe(0);
	await f.sb.app.clock.advance(25 * HOUR);
	const retry = await wf.run([delivery('msg_store_outage', order.id)]);
	expect(retry.error('Refund')).toBeUndefined();
	expect(retry.output('Refund')[0].json.writeSkipped).toBeUndefined();
	expect(refundsOf(order.id).length - before).toBe(1);
	expect(store.count(wf.id)).toBe(2); // the claim and its done mark
});

test('a claim that a concurrent write to the same row dropped is put back by the confirm: the late re-delivery still refunds nothing', async () => {
	const wf = workflow();
	const order = completed()[5];
	const before = refundsOf(order.id).length;
	store.loseNextClaim = true;
	f.sb.clearRequests();
	await wf.run([delivery('msg_store_lost', order.id)]);
	expect(store.loseNextClaim).toBe(false); // the claim was dropped...
	expect(store.has(wf.id, storedKey(order.id))).toBe(true); // ...and put back
	await redeliverLater(wf, 'msg_store_lost', order.id);
	expect(refundsOf(order.id).length - before).toBe(1);
});

test('a time mark that a concurrent write put back after the confirm took it out is outranked by the done mark: the re-delivery on a process without the details sends nothing', async () => {
	const wf = workflow();
	const order = completed()[20];
	const before = refundsOf(order.id).length;
	store.undoRemoves = 1; // the confirm's removal of the claim's marks
	f.sb.clearRequests();
	const first = await wf.run([delivery('msg_store_mark_back', order.id)]);
	expect(first.error('Refund')).toBeUndefined();
	expect(store.undoRemoves).toBe(0);
	const mark = [...Array(12).keys()].some((i) => store.has(wf.id, `${storedKey(order.id)}@${Math.floor(Date.now() / (11 * HOUR)) - i}`));
	expect(mark).toBe(true); // the time mark is back in the store
	// This process's clock has not moved (a time mark of now would have the write sent again: the
	// service, its keys forgotten, would make a second refund).
	const again = await redeliverLater(wf, 'msg_store_mark_back', order.id);
	expect(again.error('Refund')).toBeUndefined();
	expect(refundRequests()).toHaveLength(0);
	expect(refundsOf(order.id).length - before).toBe(1);
	expect(again.output('Refund')[0].json).toEqual({ writeSkipped: true, idempotencyKeySource: 'event' });
});

test('a read-back mismatch is recorded: the first execution fails on it; the re-delivery sends nothing and goes on, naming the mismatch in a warning (no event is stuck failing for ever)', async () => {
	const wf = workflow();
	const order = completed()[6];
	f.sb.faults.add({ match: { method: 'POST', path: /\/refund$/ }, kind: 'reply', status: 200, reply: { body: { ok: true, data: { id: 'rfd_store_mismatch001', amount: 42.5, currency: 'USD' } } } });
	const first = await wf.run([delivery('msg_store_mismatch', order.id)]);
	f.sb.faults.clear();
	expect(first.error('Refund')?.message).toMatch(/The service recorded amount 42.5 where 0.01 was asked/);
	f.sb.clearRequests();
	const again = await wf.run([delivery('msg_store_mismatch', order.id)]);
	expect(again.error('Refund')).toBeUndefined();
	expect(again.output('Refund')[0].json).toMatchObject({ writeSkipped: true, id: 'rfd_store_mismatch001' });
	expect(hintsOf(again).join(' ')).toMatch(/failed on what the service recorded: The service recorded amount 42.5 where 0.01 was asked/);
	expect(refundRequests()).toHaveLength(0);
});

// Issue 52: the record kept the service's answer text as it came (static data, n8n's store) and a
// later execution's hint showed it. A service that echoes the store key in what it recorded: the
// mismatch is recorded and named, the key is in neither the record nor any hint.
test('a read-back mismatch quoting the store key: recorded and named on re-delivery, the key in neither the record, the static data nor the hint', async () => {
	const wf = workflow();
	const order = completed()[7];
	const key = f.sb.store.secretKey;
	f.sb.faults.add({ match: { method: 'POST', path: /\/refund$/ }, kind: 'reply', status: 200, reply: { body: { ok: true, data: { id: `rfd_echo ${key}`, amount: 42.5, currency: 'USD' } } } });
	const first = await wf.run([delivery('msg_store_echo', order.id)]);
	f.sb.faults.clear();
	expect(first.error('Refund')?.message).toMatch(/The service recorded amount 42.5 where 0.01 was asked \(refund rfd_echo \[redacted\]\)/);
	expect(JSON.stringify(wf.staticData)).not.toContain(key.slice(8));
	expect(JSON.stringify(wf.staticData)).toContain('rfd_echo [redacted]'); // control: the record holds the write, its id gated
	f.sb.clearRequests();
	const again = await wf.run([delivery('msg_store_echo', order.id)]);
	expect(again.error('Refund')).toBeUndefined();
	const hints = hintsOf(again).join(' ');
	expect(hints).toMatch(/failed on what the service recorded: The service recorded amount 42.5 where 0.01 was asked \(refund rfd_echo \[redacted\]\)/);
	expect(hints).not.toContain(key.slice(8));
	expect(refundRequests()).toHaveLength(0);
});


test('two processes reading the marks of a write that was never answered at the same moment: neither takes it for a confirmed write nor sends it while it may be in flight; in the next period exactly one of two sends it again', async () => {
	const key = 'n8n_evt_probe_race';
	// An hour into one of the record's 11-hour periods, so that 12 hours on is the next period (from
	// the last hour of a period it would be two periods on, past the resend window: not sent again).
	const at = Math.floor(Date.now() / MARK_MS) * MARK_MS + HOUR;
	const record = (now: number) => onceRecord(storeContext(store, 'wf_store_probe', 'node-probe', {}), () => now);
	// An execution claimed the write and stopped before the answer (its claim and marks in the store, no details anywhere).
	expect(await record(at).claim(key)).toEqual({ status: 'new' });
	// Two re-deliveries on two processes that cannot read details: their reads of the marks interleave.
	const [a, b] = await Promise.all([record(at).claim(key), record(at).claim(key)]);
	expect([a, b]).toEqual([0, 1].map(() => ({ status: 'unclear', kind: 'unanswered', resend: false, inflight: true })));
	// 12 hours on (its in-flight mark long gone, its claim from the period before): two at once, one sends it again.
	const later = await Promise.all([record(at + 12 * HOUR).claim(key), record(at + 12 * HOUR).claim(key)]);
	expect(later.map((c) => c.status === 'unclear' && c.resend).sort()).toEqual([false, true]);
	expect(later.find((c) => c.status === 'unclear' && !c.resend)).toMatchObject({ inflight: true });
});

test(`store full: ${RECORD_CAPACITY.toLocaleString('en')} claims within 84 h are all new; past that a claim is untracked (n8n would drop a live entry), never refused`, async () => {
	const details: IDataObject = {};
	const node = { id: 'node-full', name: 'Refund' };
	const ctx = storeContext(store, 'wf_store_full', node.id, details);
	const at = Date.now();
	const record = onceRecord(ctx, () => at);
	expect(record.backend).toBe('deduplication');
	// Filled as the record fills it (claim, confirm), without confirm's pause: the details through
	// the record on static data alone, the same digests into the store.
	const fill = onceRecord(staticDataContext(details), () => at);
	const digests: string[] = [];
	for (let i = 0; i < RECORD_CAPACITY - 1; i++) {
		const key = `n8n_evt_full_${i}`;
		expect((await fill.claim(key)).status).toBe('new');
		await fill.confirm({ key, recordId: gatedValue(`rfd_${i}`), at });
		digests.push(recordDigest(key), `${recordDigest(key)}=`);
	}
	await store.checkProcessedAndRecord(digests, 'node', { node, workflow: { id: 'wf_store_full' } } as never, { mode: 'entries', maxEntries: 2 * RECORD_CAPACITY });
	// The last one through the record on the store.
	expect(await record.claim('n8n_evt_full_last')).toEqual({ status: 'new' });
	await record.confirm({ key: 'n8n_evt_full_last', recordId: gatedValue('rfd_last'), at });
	expect(store.count('wf_store_full')).toBe(2 * RECORD_CAPACITY); // each claim with its done mark
	const next = onceRecord(ctx, () => at + HOUR);
	expect(await next.claim('n8n_evt_full_more')).toMatchObject({ status: 'untracked', reason: expect.stringMatching(/is full/) });
	expect(await next.claim('n8n_evt_full_0')).toMatchObject({ status: 'done', entry: { recordId: gatedValue('rfd_0') } });
	// 84 h later the old entries are removed from the store too, oldest first, and there is room again.
	const later = onceRecord(ctx, () => at + 85 * HOUR);
	expect(await later.claim('n8n_evt_full_more')).toEqual({ status: 'new' });
	expect(store.count('wf_store_full')).toBe(7); // the claim, its time mark, its three deadline marks, its probe and its token (taken back when the write is confirmed)
	await later.confirm({ key: 'n8n_evt_full_more', recordId: gatedValue('rfd_more'), at: at + 85 * HOUR });
	expect(store.count('wf_store_full')).toBe(2); // the claim and its done mark
}, 60_000);

// Issue 53, point 1: the three races the explorer finds on the protocol before the state machine
// (test/once-protocol.test.ts), each run here in n8n-core against the sandbox, which does not store
// a 500 under the key (a repeat after a 500 that committed is applied again), each with a control.
const refundOnly = (options: IDataObject = {}) => ({ ...REFUND, parameters: { ...REFUND.parameters, options } });

test('race (a): the failed mark of a 500 after commit, its first write lost to a concurrent read-modify-write, is written again: the re-delivery on a process without the details sends nothing (control: after a 503 it refunds)', async () => {
	const wf = workflow();
	const order = completed()[30];
	const before = refundsOf(order.id).length;
	f.sb.faults.add({ match: { method: 'POST', path: /\/refund$/ }, kind: 'commit-then-500' });
	store.loseAdd = (items) => items.some((v) => v.endsWith('!'));
	const first = await wf.run([delivery('msg_race_a', order.id)]);
	f.sb.faults.clear();
	expect(first.error('Refund')?.message).toMatch(/is unknown: the service may have applied it/);
	expect(store.lost).toBe(1); // the failed mark's first write was lost...
	wf.staticData = {};
	f.sb.clearRequests();
	const again = await wf.run([delivery('msg_race_a', order.id)]);
	expect(refundRequests()).toHaveLength(0); // ...and the mark was there all the same
	expect(again.error('Refund')?.description).toMatch(/answered with an error it does not remember/);
	expect(refundsOf(order.id).length - before).toBe(1);
	// Control: a refund the service provably did not make (503) is made by the re-delivery, once.
	const other = completed()[31];
	const was = refundsOf(other.id).length;
	f.sb.faults.add({ match: { method: 'POST', path: /\/refund$/ }, kind: 'reply', status: 503, count: 10, reply: { body: { ok: false, error: { code: 'unavailable', message: 'down (injected)' } } } });
	await wf.run([delivery('msg_race_a_control', other.id)]);
	f.sb.faults.clear();
	wf.staticData = {};
	const control = await wf.run([delivery('msg_race_a_control', other.id)]);
	expect(control.error('Refund')).toBeUndefined();
	expect(refundsOf(other.id).length - was).toBe(1);
});

test('race (b): an execution that overlaps another execution of the same event, while that one\'s refund is in flight, sends nothing and says so (control: an overlapping execution of another event refunds)', async () => {
	const wf = workflow();
	const [order, other] = completed().slice(32, 34);
	const before = [order, other].map((o) => refundsOf(o.id).length);
	// The service commits and holds its answer 1.5 s: the first execution is in flight meanwhile.
	f.sb.faults.add({ match: { method: 'POST', path: new RegExp(`/orders/${order.id}/refund$`) }, kind: 'slow', delayMs: 1500 });
	f.sb.clearRequests();
	const start = wf.staticData;
	const firstRun = runNodes([TRIGGER, REFUND], f.credentials, [delivery('msg_race_b', order.id)], { workflowId: wf.id, staticData: start });
	await new Promise((resolve) => setTimeout(resolve, 700));
	const [overlap, control] = await Promise.all([
		runNodes([TRIGGER, REFUND], f.credentials, [delivery('msg_race_b', order.id)], { workflowId: wf.id, staticData: start }),
		runNodes([TRIGGER, REFUND], f.credentials, [delivery('msg_race_b_control', other.id)], { workflowId: wf.id, staticData: start }),
	]);
	const first = await firstRun;
	f.sb.faults.clear();
	expect(first.error('Refund')).toBeUndefined();
	expect(overlap.error('Refund')?.description).toMatch(/another execution is sending it now/);
	expect(control.error('Refund')).toBeUndefined();
	expect(refundRequests().filter((q) => q.path.includes(order.id))).toHaveLength(1);
	expect([order, other].map((o, i) => refundsOf(o.id).length - before[i])).toEqual([1, 1]);
});

test('race (c): static data saved by an execution that read the write as unanswered does not outrank the failed mark a later resend left in the store: nothing sent (control: after a resend that succeeded, the same static data gives a skip)', async () => {
	const order = completed()[34];
	const other = completed()[35];
	const node = refundOnly({ maxRetries: 0 });
	for (const [o, resend, id] of [[order, 'commit-then-500', 'msg_race_c'], [other, undefined, 'msg_race_c_control']] as const) {
		const wf = workflow();
		const before = refundsOf(o.id).length;
		// First execution: the connection drops before the service handles it (unanswered, nothing made).
		f.sb.faults.add({ match: { method: 'POST', path: /\/refund$/ }, kind: 'drop' });
		const first = await wf.run([delivery(id, o.id)], [TRIGGER, node]);
		f.sb.faults.clear();
		expect(first.error('Refund')?.message).toMatch(/is unknown/);
		const unanswered = wf.staticData; // what an overlapping execution that ends last saves again
		// Second: sent again under the same key; answered 500 after commit (race) or made (control).
		if (resend) f.sb.faults.add({ match: { method: 'POST', path: /\/refund$/ }, kind: resend });
		await wf.run([delivery(id, o.id)], [TRIGGER, node]);
		f.sb.faults.clear();
		expect(refundsOf(o.id).length - before).toBe(1);
		// Third, on the first one's static data: the store's mark decides.
		wf.staticData = unanswered;
		f.sb.clearRequests();
		const third = await wf.run([delivery(id, o.id)], [TRIGGER, node]);
		expect(refundRequests()).toHaveLength(0);
		expect(refundsOf(o.id).length - before).toBe(1);
		if (resend) expect(third.error('Refund')?.description).toMatch(/answered with an error it does not remember/);
		else expect(third.output('Refund')[0].json).toMatchObject({ writeSkipped: true });
	}
});

// Issue 53.1, the deadline: a write whose process was killed mid-refund (queue mode: SIGKILL while
// the service held its answer) leaves its claim without an outcome. It is in flight until its
// write's deadline (the Timeout × attempts it was claimed with) has passed: a re-delivery meanwhile
// sends nothing and says so; after it, the claim counts as unanswered and the re-delivery sends the
// refund again under the SAME key, which the service answers with the refund it made (one refund).
test('killed mid-refund: a re-delivery before the write\'s deadline is refused as in flight; after it, sent again under the same key and answered with the one refund (control: within the deadline nothing is sent)', async () => {
	const wf = workflow();
	const order = completed()[36];
	const before = refundsOf(order.id).length;
	const realNow = Date.now.bind(Date);
	let shift = 0;
	const clock = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + shift);
	try {
		// The service commits and holds its answer; the worker is killed meanwhile: nothing it writes after reaches the store.
		f.sb.faults.add({ match: { method: 'POST', path: /\/refund$/ }, kind: 'slow', delayMs: 1500 });
		f.sb.clearRequests();
		const killed = wf.run([delivery('msg_killed', order.id)], [TRIGGER, refundOnly({ timeout: 5_000, maxRetries: 1 })]);
		while (refundRequests().length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
		store.down = true;
		await killed;
		store.down = false;
		f.sb.faults.clear();
		wf.staticData = {}; // never saved: the process was killed
		const key = refundRequests()[0]?.headers['idempotency-key'];
		expect(refundRequests()).toHaveLength(1);
		expect(refundsOf(order.id).length - before).toBe(1);
		// Its window: 20 s for the answer, one attempt's time before the write, two attempts of 5 s
		// (+2 s each) and a backoff of at most 0.25 s: 41.25 s. Its deadline marks are of one minute: the
		// minute it was claimed in and the next, in flight until 1 to 2 minutes after the claim.
		for (const [after, expected] of [[0, 'inflight'], [30_000, 'inflight'], [125_000, 'resent']] as const) {
			shift = after;
			f.sb.clearRequests();
			const again = await wf.run([delivery('msg_killed', order.id)], [TRIGGER, refundOnly({ timeout: 5_000, maxRetries: 1 })]);
			if (expected === 'inflight') {
				expect(refundRequests()).toHaveLength(0);
				expect(again.error('Refund')?.description).toMatch(/another execution is sending it now/);
				wf.staticData = {};
			} else {
				expect(again.error('Refund')).toBeUndefined();
				expect(refundRequests().map((q) => q.headers['idempotency-key'])).toEqual([key]);
				expect(again.output('Refund')[0].json).toMatchObject({ idempotentReplay: true, idempotencyKeySource: 'event' });
			}
		}
		expect(refundsOf(order.id).length - before).toBe(1);
		// And once answered, the next re-delivery (another process) skips it.
		wf.staticData = {};
		f.sb.clearRequests();
		const last = await wf.run([delivery('msg_killed', order.id)], [TRIGGER, refundOnly({ timeout: 5_000, maxRetries: 1 })]);
		expect(refundRequests()).toHaveLength(0);
		expect(last.output('Refund')[0].json).toMatchObject({ writeSkipped: true });
	} finally {
		clock.mockRestore();
		store.down = false;
	}
});

// The deadline's other half: the transport starts no attempt of a money write that could end after
// the deadline its claim was made with (ApiRequest.sendBy), so a claim is never past its deadline
// while an attempt may still reach the service.
test('a money write is not repeated past its deadline: the attempt is not started and the outcome is unknown (control: within it, repeated under the same key)', async () => {
	for (const late of [true, false]) {
		const wf = workflow();
		const order = completed()[late ? 37 : 38];
		const before = refundsOf(order.id).length;
		const realNow = Date.now.bind(Date);
		// Once the first attempt is out, the clock jumps 10 minutes (past the write's window of about a minute).
		const clock = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + (late && refundRequests().length > 0 ? 10 * 60_000 : 0));
		try {
			f.sb.faults.add({ match: { method: 'POST', path: /\/refund$/ }, kind: 'slow', delayMs: 400, count: 1 });
			f.sb.clearRequests();
			const r = await wf.run([delivery(`msg_deadline_${late}`, order.id)], [TRIGGER, refundOnly({ timeout: 200, maxRetries: 2 })]);
			f.sb.faults.clear();
			const keys = refundRequests().map((q) => q.headers['idempotency-key']);
			if (late) {
				expect(keys).toHaveLength(1);
				expect(r.error('Refund')?.message).toMatch(/is unknown/);
				expect(JSON.stringify([r.error('Refund')?.message, r.error('Refund')?.description])).toMatch(/ran out of time before it could be repeated/);
			} else {
				expect(keys.length).toBeGreaterThanOrEqual(2);
				expect(new Set(keys).size).toBe(1);
				expect(r.error('Refund')).toBeUndefined();
			}
			expect(refundsOf(order.id).length - before).toBe(1);
		} finally {
			clock.mockRestore();
			f.sb.faults.clear();
		}
	}
});

// Under load (queue check 5d: twelve events claimed at once on two workers), a claim is dropped by
// another worker's write of an older read and then put back by a third write of a read made while
// it was there. The claim's check finds its probe gone and claims again after a pause; finding the
// claim held then, it looks for its first token, which only its own claim ever wrote.
test('a claim lost to a concurrent write and put back by a write of an older read is this execution\'s own: the refund goes out once (control: put back as another execution\'s claim, nothing is sent)', async () => {
	for (const foreign of [false, true]) {
		const wf = workflow();
		const order = completed()[foreign ? 40 : 39];
		const before = refundsOf(order.id).length;
		store.stale = { capture: (items) => items.some((v) => v.includes('#')), foreign };
		f.sb.clearRequests();
		const r = await wf.run([delivery(`msg_put_back_${foreign}`, order.id)], [TRIGGER, refundOnly()]);
		expect(store.stale).toBeUndefined(); // the older write landed
		if (!foreign) {
			expect(r.error('Refund')).toBeUndefined();
			expect(refundRequests()).toHaveLength(1);
			expect(refundsOf(order.id).length - before).toBe(1);
			expect(r.output('Refund')[0].json.writeSkipped).toBeUndefined();
		} else {
			expect(refundRequests()).toHaveLength(0);
			expect(r.error('Refund')?.message).toMatch(/is unknown: an earlier execution sent it/);
			expect(refundsOf(order.id).length - before).toBe(0);
		}
	}
	store.stale = undefined;
});
