/**
 * The sandbox service itself, over real HTTP.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import axios, { AxiosRequestConfig } from 'axios';
import { Sandbox, startSandbox } from '../sandbox/server';
import { ok, Router } from '../sandbox/app';
import { useSandbox } from './support/fixtures';

const http = axios.create({ validateStatus: () => true });

let sb: Sandbox;
beforeAll(async () => {
	sb = await startSandbox({ allowHttpWebhooks: true, webhookTimeScale: 0.00001 });
});
afterAll(() => sb.close());
afterEach(() => sb.faults.clear());

const storeAuth = (key = sb.store.secretKey) => ({ headers: { Authorization: `Bearer ${key}` } });
const core = (sub = '') => `${sb.baseUrl}/v2/core/stores/${sb.store.storeId}${sub}`;
const stores = (sub = '') => `${sb.baseUrl}/v2/stores/${sb.store.storeId}${sub}`;
const vaultUrl = (sub = '') => `${sb.baseUrl}/v2/workspaces/${sb.vault.workspaceId}/vaults/${sb.vault.vaultId}${sub}`;
const get = (url: string, cfg: AxiosRequestConfig = storeAuth()) => http.get(url, cfg);
const post = (url: string, body: unknown, headers: Record<string, string> = {}, key = sb.store.secretKey) =>
	http.post(url, body, { headers: { Authorization: `Bearer ${key}`, ...headers } });
const completedOrder = (n = 0) => sb.state.orders.filter((o) => o.status === 'COMPLETED')[n];

describe('envelope, auth and routing', () => {
	it('wraps success in {ok, data} and returns the store', async () => {
		const res = await get(core());
		expect(res.status).toBe(200);
		expect(res.data).toEqual({ ok: true, data: expect.objectContaining({ id: sb.store.storeId, currency: 'USD', name: expect.any(String), handle: expect.any(String) }) });
	});

	it('401 without or with a wrong key, never echoing the key', async () => {
		const missing = await get(core('/customers'), {});
		expect(missing.status).toBe(401);
		expect(missing.data).toEqual({ ok: false, error: { code: 'unauthorized', message: expect.any(String) } });
		const wrong = await get(core('/customers'), storeAuth('sk_wrong_key_123456'));
		expect(wrong.status).toBe(401);
		expect(JSON.stringify(wrong.data)).not.toContain('sk_wrong_key_123456');
		const vaultKeyOnStore = await get(core('/customers'), storeAuth(sb.vault.secretKey));
		expect(vaultKeyOnStore.status).toBe(401);
	});

	it('404 for an unknown store, 400 naming a malformed id', async () => {
		const unknown = await get(`${sb.baseUrl}/v2/core/stores/shp_doesnotexist000/customers`);
		expect(unknown.status).toBe(404);
		const malformed = await get(core('/orders/ord_short'));
		expect(malformed.status).toBe(400);
		expect(malformed.data.error.message).toContain('orderId');
	});

	it('404 for unknown paths and ids, 405 for a wrong method on a known path', async () => {
		expect((await get(`${sb.baseUrl}/v2/nope`)).status).toBe(404);
		expect((await get(core('/orders/ord_000000000000000000000000'))).status).toBe(404);
		const res = await http.put(core('/customers'), {}, storeAuth());
		expect(res.status).toBe(405);
		expect(res.headers.allow).toBe('GET');
	});

	it('the stk_ token works for reads but lacks write scopes (403)', async () => {
		expect((await get(core('/orders'), storeAuth(sb.store.storeTokenKey))).status).toBe(200);
		const res = await post(stores(`/orders/${completedOrder().id}/refund`), { amount: 1 }, {}, sb.store.storeTokenKey);
		expect(res.status).toBe(403);
		expect(res.data.error.message).toContain('REFUNDS_WRITE');
	});

	it('is deterministic per seed', async () => {
		const other = await startSandbox({ seed: 1, orders: 250 });
		try {
			expect(other.store).toEqual(sb.store);
			expect(other.state.orders.map((o) => o.id)).toEqual(sb.state.orders.map((o) => o.id));
			const init = (rng: { id(p: string): string }) => [rng.id('prd_'), rng.id('prd_')];
			expect(other.app.collection('demo', init)).toEqual(sb.app.collection('demo', init));
			expect(sb.app.collection('demo')).toBe(sb.app.collection('demo'));
			const third = await startSandbox({ seed: 2, orders: 10 });
			expect(third.store.storeId).not.toBe(sb.store.storeId);
			expect(third.state.orders).toHaveLength(10);
			await third.close();
		} finally {
			await other.close();
		}
	});
});

describe('lists', () => {
	it('paginates with defaults and rejects out-of-range page/limit', async () => {
		const first = await get(core('/orders/'));
		expect(first.data.data.pagination).toEqual({ page: 1, limit: 25, total: 250, totalPages: 10 });
		expect(first.data.data.items).toHaveLength(25);
		const last = await get(core('/orders?page=3&limit=100'));
		expect(last.data.data.items).toHaveLength(50);
		expect(last.data.data.pagination).toEqual({ page: 3, limit: 100, total: 250, totalPages: 3 });
		for (const q of ['limit=0', 'limit=101', 'page=0', 'page=abc']) {
			const res = await get(core(`/orders?${q}`));
			expect(res.status).toBe(400);
			expect(res.data.error.field).toBe(q.split('=')[0]);
		}
	});

	it('orders: items carry the spec fields; detail adds the rest', async () => {
		const res = await get(core('/orders'));
		const item = res.data.data.items[0];
		expect(Object.keys(item).sort()).toEqual(['amount', 'createdAt', 'currency', 'customer', 'discountCode', 'discounted', 'id', 'orderNumber', 'payment', 'status'].sort());
		expect(item.id).toMatch(/^ord_/);
		expect(item.id.length).toBeGreaterThanOrEqual(12);
		const detail = (await get(core(`/orders/${completedOrder().id}`))).data.data;
		expect(detail).toEqual(expect.objectContaining({ items: expect.any(Array), billingAddress: expect.any(Object), licenses: expect.any(Array), gateway: expect.any(String) }));
		expect(detail.payment).toEqual(expect.objectContaining({ id: expect.any(String), taxAmount: expect.any(Number), settledAmount: expect.any(Number), status: 'COMPLETED' }));
		expect(detail.customer).toEqual(expect.objectContaining({ firstName: expect.any(String), guest: expect.any(Boolean) }));
		expect(detail.paymentMethod).toEqual(expect.objectContaining({ type: expect.any(String) }));
		const pending = sb.state.orders.find((o) => o.status === 'PENDING')!;
		expect((await get(core(`/orders/${pending.id}`))).data.data.paymentMethod).toEqual({ type: null, cardBrand: null, cardLastFour: null });
	});

	it('orders: status, search and sortDirection', async () => {
		const pending = await get(core('/orders?status=PENDING&limit=100'));
		expect(pending.data.data.items.every((o: { status: string }) => o.status === 'PENDING')).toBe(true);
		expect(pending.data.data.pagination.total).toBe(sb.state.orders.filter((o) => o.status === 'PENDING').length);
		// Order statuses are "seen" values in the spec, not a closed set: an unknown one matches nothing.
		const unknown = await get(core('/orders?status=NOPE'));
		expect([unknown.status, unknown.data.data.items]).toEqual([200, []]);
		const byNumber = await get(core('/orders?search=VS-10007'));
		expect(byNumber.data.data.items.map((o: { orderNumber: string }) => o.orderNumber)).toEqual(['VS-10007']);
		const asc = (await get(core('/orders?sortDirection=asc'))).data.data.items.map((o: { createdAt: string }) => o.createdAt);
		expect(asc).toEqual([...asc].sort());
		const desc = (await get(core('/orders'))).data.data.items.map((o: { createdAt: string }) => o.createdAt);
		expect(desc).toEqual([...desc].sort().reverse());
		// The first page is the oldest (asc) or newest (desc) of all orders, whatever order the state keeps them in.
		const all = sb.state.orders.map((o) => o.createdAt).sort();
		expect([asc[0], desc[0]]).toEqual([all[0], all[all.length - 1]]);
		sb.state.orders.reverse();
		try {
			const again = (await get(core('/orders'))).data.data.items.map((o: { createdAt: string }) => o.createdAt);
			expect(again).toEqual(desc);
		} finally {
			sb.state.orders.reverse();
		}
		expect((await get(core(`/orders?search=${'x'.repeat(129)}`))).status).toBe(400);
	});

	it('customers: search, sort and direction', async () => {
		const c = sb.state.customers[5];
		const found = await get(core(`/customers?search=${encodeURIComponent(c.email.toUpperCase())}`));
		expect(found.data.data.items.map((x: { id: string }) => x.id)).toEqual([c.id]);
		const byFirstName = await get(core(`/customers?search=${c.firstName}&limit=100`));
		expect(byFirstName.data.data.items.every((x: { firstName: string }) => x.firstName === c.firstName)).toBe(true);
		const spent = (await get(core('/customers?sort=totalSpent&direction=asc&limit=100'))).data.data.items.map((x: { totalSpent: number }) => x.totalSpent);
		expect(spent).toEqual([...spent].sort((a, b) => a - b));
		expect((await get(core('/customers?sort=name'))).status).toBe(400);
		expect((await get(core('/customers?direction=up'))).status).toBe(400);
	});
});

describe('refunds and idempotency', () => {
	const refundUrl = (n: number) => stores(`/orders/${completedOrder(n).id}/refund`);
	const ledgerFor = (key: string) => sb.ledger.filter((e) => e.key === key);

	it('records a refund and replays on the same key + body', async () => {
		const first = await post(refundUrl(0), { amount: 1.5, reason: 'test' }, { 'Idempotency-Key': 'rf-replay-1' });
		expect(first.status).toBe(201);
		expect(first.data.data.id).toMatch(/^rfd_/);
		expect(first.headers['idempotent-replay']).toBeUndefined();
		const again = await post(refundUrl(0), { reason: 'test', amount: 1.5 }, { 'Idempotency-Key': 'rf-replay-1' });
		expect(again.status).toBe(201);
		expect(again.headers['idempotent-replay']).toBe('true');
		expect(again.data).toEqual(first.data);
		expect(ledgerFor('rf-replay-1')).toHaveLength(1);
		expect(sb.state.refunds.filter((r) => r.id === first.data.data.id)).toHaveLength(1);
	});

	it('422 on the same key with a different body; 400 on a malformed key', async () => {
		await post(refundUrl(1), { amount: 1 }, { 'Idempotency-Key': 'rf-422' });
		const res = await post(refundUrl(1), { amount: 2 }, { 'Idempotency-Key': 'rf-422' });
		expect(res.status).toBe(422);
		expect((await post(refundUrl(1), { amount: 1 }, { 'Idempotency-Key': 'bad key!' })).status).toBe(400);
		expect((await post(refundUrl(1), { amount: 1 }, { 'Idempotency-Key': 'k'.repeat(256) })).status).toBe(400);
		expect(ledgerFor('rf-422')).toHaveLength(1);
	});

	it('validates the amount against the refundable remainder', async () => {
		const order = completedOrder(2);
		expect((await post(refundUrl(2), { amount: 0 })).status).toBe(400);
		expect((await post(refundUrl(2), { amount: '1' })).data.error.field).toBe('amount');
		const over = await post(refundUrl(2), { amount: order.payment.totalAmount + 1 });
		expect(over.status).toBe(400);
		expect(over.data.error.field).toBe('amount');
		const pending = sb.state.orders.find((o) => o.status === 'PENDING')!;
		expect((await post(stores(`/orders/${pending.id}/refund`), {})).status).toBe(422);
	});

	it('409 while the original is still running (slow), then a replay', async () => {
		sb.faults.add({ match: { method: 'POST', path: new URL(refundUrl(3)).pathname }, kind: 'slow', delayMs: 300 });
		const headers = { 'Idempotency-Key': 'rf-slow' };
		const original = post(refundUrl(3), { amount: 1 }, headers);
		await new Promise((r) => setTimeout(r, 100));
		const during = await post(refundUrl(3), { amount: 1 }, headers);
		expect(during.status).toBe(409);
		expect((await original).status).toBe(201);
		const after = await post(refundUrl(3), { amount: 1 }, headers);
		expect(after.headers['idempotent-replay']).toBe('true');
		expect(ledgerFor('rf-slow')).toHaveLength(1);
	});

	it('5xx is not stored: the next attempt executes', async () => {
		sb.faults.add({ match: { path: /\/refund$/ }, kind: '500' });
		const headers = { 'Idempotency-Key': 'rf-500' };
		const failed = await post(refundUrl(4), { amount: 1 }, headers);
		expect(failed.status).toBe(500);
		expect(failed.data.ok).toBe(false);
		expect(ledgerFor('rf-500')).toHaveLength(0);
		const retried = await post(refundUrl(4), { amount: 1 }, headers);
		expect(retried.status).toBe(201);
		expect(retried.headers['idempotent-replay']).toBeUndefined();
		expect(ledgerFor('rf-500')).toHaveLength(1);
	});

	it('drop-after-commit: the retry gets the replay, one effect in the ledger', async () => {
		sb.faults.add({ match: { path: /\/refund$/ }, kind: 'drop-after-commit' });
		const headers = { 'Idempotency-Key': 'rf-drop' };
		await expect(post(refundUrl(5), { amount: 1 }, headers)).rejects.toThrow();
		const retried = await post(refundUrl(5), { amount: 1 }, headers);
		expect(retried.status).toBe(201);
		expect(retried.headers['idempotent-replay']).toBe('true');
		expect(ledgerFor('rf-drop')).toHaveLength(1);
	});

	it('keys expire after 24 h', async () => {
		const headers = { 'Idempotency-Key': 'rf-expire' };
		await post(refundUrl(6), { amount: 1 }, headers);
		sb.clock.advance(24 * 3_600_000 + 1);
		const later = await post(refundUrl(6), { amount: 1 }, headers);
		expect(later.headers['idempotent-replay']).toBeUndefined();
		expect(ledgerFor('rf-expire')).toHaveLength(2);
	});
});

describe('faults, latency, rate limits and the request log', () => {
	it('429 with Retry-After, then normal service', async () => {
		sb.faults.add({ match: { method: 'GET' }, kind: '429', retryAfter: 2, count: 2 });
		const a = await get(core());
		const b = await get(core());
		expect([a.status, b.status]).toEqual([429, 429]);
		expect(a.headers['retry-after']).toBe('2');
		expect((await get(core())).status).toBe(200);
	});

	it('drop destroys the socket before handling', async () => {
		sb.faults.add({ kind: 'drop' });
		await expect(get(core())).rejects.toThrow();
		expect((await get(core())).status).toBe(200);
	});

	it('adds latency to every response', async () => {
		const slow = await startSandbox({ latencyMs: 150, orders: 5 });
		try {
			const t = Date.now();
			const res = await get(`${slow.baseUrl}/v2/core/stores/${slow.store.storeId}`, storeAuth(slow.store.secretKey));
			expect(res.status).toBe(200);
			expect(Date.now() - t).toBeGreaterThanOrEqual(140);
		} finally {
			await slow.close();
		}
	});

	it('app.rateLimit answers 429 with Retry-After past the limit', async () => {
		const limiter = sb.app.rateLimit('test', 3);
		sb.app.route('GET', '/__test/limited', () => ok({ fine: true }), { auth: 'none', rateLimit: limiter });
		const codes = [];
		for (let i = 0; i < 4; i++) codes.push((await get(`${sb.baseUrl}/__test/limited`, {})).status);
		expect(codes).toEqual([200, 200, 200, 429]);
		sb.clock.advance(61_000);
		expect((await get(`${sb.baseUrl}/__test/limited`, {})).status).toBe(200);
	});

	it('logs requests with parsed query and redacted authorization', async () => {
		sb.clearRequests();
		await http.get(vaultUrl('/tokens?metadata[team]=ops&type=card'), { headers: { Authorization: `Bearer ${sb.vault.secretKey}` } });
		expect(sb.requests).toHaveLength(1);
		const [r] = sb.requests;
		expect(r).toEqual(expect.objectContaining({ method: 'GET', status: 200, query: { metadata: { team: 'ops' }, type: 'card' }, body: undefined }));
		expect(r.headers.authorization).toBe('[redacted]');
		expect(JSON.stringify(sb.requests)).not.toContain(sb.vault.secretKey);
		await get(core('/orders/?page=2'));
		expect(sb.requests[1]).toEqual(expect.objectContaining({ path: `/v2/core/stores/${sb.store.storeId}/orders/`, query: { page: '2' }, status: 200 }));
	});
});

describe('robustness', () => {
	const raw = (body: string, contentType: string) =>
		http.post(core('/webhooks'), body, { headers: { Authorization: `Bearer ${sb.store.secretKey}`, 'Content-Type': contentType }, transformRequest: [(d) => d] });

	it('400 on malformed JSON or a non-object body, 415 on a wrong content type', async () => {
		expect((await raw('{"url": ', 'application/json')).data.error.code).toBe('invalid_json');
		expect((await raw('[1,2]', 'application/json')).status).toBe(400);
		expect((await raw('url=x', 'application/x-www-form-urlencoded')).status).toBe(415);
	});

	it('413 over 1 MiB', async () => {
		const res = await raw(JSON.stringify({ note: 'x'.repeat(1024 * 1024 + 10) }), 'application/json');
		expect(res.status).toBe(413);
		expect((await get(core())).status).toBe(200);
	});

	it('500 envelope when a handler throws', async () => {
		const spy = jest.spyOn(console, 'error').mockImplementation(() => {});
		sb.app.route('GET', '/__test/boom', () => {
			throw new Error('boom');
		}, { auth: 'none' });
		const res = await get(`${sb.baseUrl}/__test/boom`, {});
		spy.mockRestore();
		expect(res.status).toBe(500);
		expect(res.data).toEqual({ ok: false, error: { code: 'internal_error', message: expect.any(String) } });
	});
});

describe('vault tokens', () => {
	let n = 0;
	const vauth = (key = sb.vault.secretKey) => ({ Authorization: `Bearer ${key}` });
	const create = (body: unknown, key = `tok-${++n}`) => http.post(vaultUrl('/tokens'), body, { headers: { ...vauth(), 'Idempotency-Key': key } });
	const card = (number = '4242424242424242', extra = {}) => ({ type: 'card', data: { number, exp_month: 12, exp_year: 2030, cvc: '123', ...extra } });

	it('requires an Idempotency-Key and replays on it', async () => {
		const missing = await http.post(vaultUrl('/tokens'), card(), { headers: vauth() });
		expect(missing.status).toBe(400);
		expect(missing.data).toEqual({ error: expect.objectContaining({ code: 'idempotency_key_required' }) });
		const a = await create(card(), 'vault-same');
		const b = await create(card(), 'vault-same');
		expect(b.headers['idempotent-replay']).toBe('true');
		expect(b.data.id).toBe(a.data.id);
		expect(sb.ledger.filter((e) => e.kind === 'tokenCreate' && e.key === 'vault-same')).toHaveLength(1);
		// keys are scoped per credential: another key with the same Idempotency-Key runs anew
		const c = await http.post(vaultUrl('/tokens'), card(), { headers: { ...vauth(sb.vault.noRevealKey), 'Idempotency-Key': 'vault-same' } });
		expect(c.status).toBe(201);
		expect(c.headers['idempotent-replay']).toBeUndefined();
		expect(c.data.id).not.toBe(a.data.id);
	});

	it('creates a card token with a mask, same fingerprint for same data, dedupe returns 200', async () => {
		const a = await create(card('5555555555554444'));
		expect(a.status).toBe(201);
		expect(a.data).toEqual({
			object: 'token',
			id: expect.stringMatching(/^tok_/),
			type: 'card',
			fingerprint: expect.stringMatching(/^fp_/),
			mask: { brand: 'mastercard', last4: '4444', exp_month: 12, exp_year: 2030, funding: 'credit', country: 'US' },
			metadata: {},
			expires_at: null,
			created_at: expect.any(String),
			updated_at: expect.any(String),
		});
		const b = await create(card('5555555555554444', { cvc: '999' }));
		expect(b.status).toBe(201);
		expect(b.data.id).not.toBe(a.data.id);
		expect(b.data.fingerprint).toBe(a.data.fingerprint);
		const d = await create({ ...card('5555555555554444'), deduplicate: true });
		expect(d.status).toBe(200);
		expect([a.data.id, b.data.id]).toContain(d.data.id);
		const other = await create(card('4000056655665556'));
		expect(other.data.fingerprint).not.toBe(a.data.fingerprint);
	});

	it('detects brands and validates card data', async () => {
		const brand = async (num: string) => (await create(card(num))).data.mask?.brand;
		expect(await brand('378282246310005')).toBe('amex');
		expect(await brand('6011111111111117')).toBe('discover');
		expect(await brand('2223003122003222')).toBe('mastercard');
		const bad = await create(card('4242424242424241'));
		expect(bad.status).toBe(400);
		expect(bad.data.error.message).toContain('data.number');
		expect((await create(card('4242424242424242', { exp_month: 13 }))).data.error.field).toBe('data.exp_month');
		expect((await create({ type: 'cheque', data: {} })).data.error.field).toBe('type');
	});

	it('masks bank accounts and pii; custom has no mask and a 16 KiB cap', async () => {
		const bank = await create({ type: 'bank_account', data: { account_number: '000123456789', routing_number: '110000000', bank_name: 'Sandbox Bank' } });
		expect(bank.data.mask).toEqual({ bank_name: 'Sandbox Bank', last4: '6789', country: 'US' });
		const pii = await create({ type: 'pii', data: { value: '123-45-6789' } });
		expect(pii.data.mask).toEqual({ last4: '6789' });
		const custom = await create({ type: 'custom', data: { any: { nested: ['thing'] } } });
		expect(custom.status).toBe(201);
		expect(custom.data).not.toHaveProperty('mask');
		expect((await create({ type: 'custom', data: { blob: 'x'.repeat(16 * 1024) } })).status).toBe(413);
	});

	it('reveals data without cvc, logs access, and needs tokens:reveal', async () => {
		const t = await create(card('4242424242424242', { cvc: '321' }));
		const denied = await http.post(vaultUrl(`/tokens/${t.data.id}/reveal`), undefined, { headers: vauth(sb.vault.noRevealKey) });
		expect(denied.status).toBe(403);
		expect(denied.data.error.message).toContain('tokens:reveal');
		const before = sb.vault.accessLog.length;
		const r = await http.post(vaultUrl(`/tokens/${t.data.id}/reveal`), undefined, { headers: vauth() });
		expect(r.status).toBe(200);
		expect(r.data).toEqual({ object: 'token', id: t.data.id, type: 'card', data: { number: '4242424242424242', exp_month: 12, exp_year: 2030 }, mask: t.data.mask, created_at: t.data.created_at });
		expect(JSON.stringify(r.data)).not.toMatch(/(?<![\w.])321(?!\w)/); // the CVC as a value, not digits of a timestamp or id
		expect(sb.vault.accessLog.slice(before)).toEqual([expect.objectContaining({ tokenId: t.data.id, action: 'reveal' })]);
		const got = await http.get(vaultUrl(`/tokens/${t.data.id}`), { headers: vauth() });
		expect(got.data).not.toHaveProperty('data');
		// the CVC is there for one proxy use only
		expect(sb.vault.useCvc(t.data.id)).toBe('321');
		expect(sb.vault.useCvc(t.data.id)).toBeUndefined();
	});

	it('drops the CVC after one hour', async () => {
		const t = await create(card('4242424242424242', { cvc: '456' }));
		sb.clock.advance(3_600_000);
		expect(sb.vault.useCvc(t.data.id)).toBeUndefined();
	});

	it('lists newest first with type, fingerprint and metadata filters', async () => {
		const a = await create({ type: 'pii', data: { value: 'alpha-1' }, metadata: { team: 'list-test', n: 1 } });
		const b = await create({ type: 'pii', data: { value: 'beta-22' }, metadata: { team: 'list-test', n: '1' } });
		const byMeta = await http.get(vaultUrl('/tokens?metadata[team]=list-test'), { headers: vauth() });
		expect(byMeta.data).toEqual({ object: 'list', data: [expect.objectContaining({ id: b.data.id }), expect.objectContaining({ id: a.data.id })], has_more: false, next_cursor: null });
		const strOnly = await http.get(vaultUrl('/tokens?metadata[team]=list-test&metadata[n]=1'), { headers: vauth() });
		expect(strOnly.data.data.map((t: { id: string }) => t.id)).toEqual([b.data.id]);
		const byFp = await http.get(vaultUrl(`/tokens?fingerprint=${a.data.fingerprint}`), { headers: vauth() });
		expect(byFp.data.data.map((t: { id: string }) => t.id)).toEqual([a.data.id]);
		const limited = await http.get(vaultUrl('/tokens?type=pii&limit=1'), { headers: vauth() });
		expect(limited.data.data).toHaveLength(1);
		expect(limited.data.has_more).toBe(true);
		expect((await http.get(vaultUrl('/tokens?type=paper'), { headers: vauth() })).status).toBe(400);
	});

	it('patches metadata (null removes) and expires_at; refuses type/data', async () => {
		const t = await create({ type: 'pii', data: { value: 'patch-me' }, metadata: { a: '1', b: '2' } });
		const url = vaultUrl(`/tokens/${t.data.id}`);
		const p = await http.patch(url, { metadata: { b: null, c: '3' } }, { headers: vauth() });
		expect(p.data.metadata).toEqual({ a: '1', c: '3' });
		const exp = new Date(sb.clock.now() + 60_000).toISOString();
		expect((await http.patch(url, { expires_at: exp }, { headers: vauth() })).data.expires_at).toBe(exp);
		expect((await http.patch(url, { expires_at: null }, { headers: vauth() })).data.expires_at).toBeNull();
		const locked = await http.patch(url, { data: { value: 'x' } }, { headers: vauth() });
		expect(locked.status).toBe(400);
		expect(locked.data.error.field).toBe('data');
	});

	it('deleted and expired tokens are gone (404)', async () => {
		const t = await create({ type: 'pii', data: { value: 'delete-me' } });
		const url = vaultUrl(`/tokens/${t.data.id}`);
		expect((await http.delete(url, { headers: vauth() })).data).toEqual({ object: 'token', id: t.data.id, deleted: true });
		expect((await http.get(url, { headers: vauth() })).status).toBe(404);
		expect((await http.post(`${url}/reveal`, undefined, { headers: vauth() })).status).toBe(404);
		expect((await http.patch(url, { metadata: {} }, { headers: vauth() })).status).toBe(404);
		expect((await http.delete(url, { headers: vauth() })).status).toBe(404);

		const e = await create({ type: 'pii', data: { value: 'expire-me' }, expires_at: new Date(sb.clock.now() + 5_000).toISOString() });
		expect((await http.get(vaultUrl(`/tokens/${e.data.id}`), { headers: vauth() })).status).toBe(200);
		sb.clock.advance(5_001);
		const gone = await http.get(vaultUrl(`/tokens/${e.data.id}`), { headers: vauth() });
		expect(gone.status).toBe(404);
		expect(gone.data).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
		expect((await create({ type: 'pii', data: { value: 'x1' }, expires_at: '2001-01-01T00:00:00Z' })).status).toBe(400);
	});

	it('401 for a store key and 404 for another vault', async () => {
		expect((await http.get(vaultUrl('/tokens'), { headers: vauth(sb.store.secretKey) })).status).toBe(401);
		const other = `${sb.baseUrl}/v2/workspaces/${sb.vault.workspaceId}/vaults/vlt_000000000000000000/tokens`;
		expect((await http.get(other, { headers: vauth() })).status).toBe(404);
	});
});

describe('webhooks', () => {
	interface Received {
		headers: IncomingMessage['headers'];
		body: string;
	}
	let receiver: Server;
	let receiverUrl: string;
	let received: Received[] = [];
	let failNext = 0;

	beforeAll(async () => {
		receiver = createServer((req, res) => {
			const chunks: Buffer[] = [];
			req.on('data', (c) => chunks.push(c));
			req.on('end', () => {
				received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
				res.statusCode = failNext-- > 0 ? 500 : 204;
				res.end();
			});
		});
		await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
		receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
	});
	afterAll(() => new Promise<void>((r) => receiver.close(() => r())));
	beforeEach(() => {
		received = [];
		failNext = 0;
		sb.state.webhooks.splice(0);
		sb.deliveries.splice(0);
	});

	const createEndpoint = (body: Record<string, unknown>) => post(core('/webhooks'), { url: receiverUrl, eventTypes: ['PAYMENT_REFUNDED'], ...body });

	function verifyV2(secret: string, headers: IncomingMessage['headers'], body: string): boolean {
		const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
		const expected = createHmac('sha256', key).update(`${headers['webhook-id']}.${headers['webhook-timestamp']}.${body}`).digest();
		return String(headers['webhook-signature'])
			.split(' ')
			.some((entry) => {
				const [version, sig] = entry.split(',');
				const got = Buffer.from(sig ?? '', 'base64');
				return version === 'v1' && got.length === expected.length && timingSafeEqual(got, expected);
			});
	}

	it('creates, gets, lists and deletes endpoints without exposing a secret', async () => {
		const created = await createEndpoint({ note: 'n8n' });
		expect(created.status).toBe(201);
		const data = created.data.data;
		expect(data).toEqual({ id: expect.stringMatching(/^whk_/), url: receiverUrl, eventTypes: ['PAYMENT_REFUNDED'], note: 'n8n', signatureVersion: 'V2', createdAt: expect.any(String), updatedAt: expect.any(String) });
		expect(JSON.stringify(created.data)).not.toContain(sb.store.signingSecret);
		expect((await get(stores(`/webhooks/${data.id}`))).data.data.id).toBe(data.id);
		expect((await get(core('/webhooks'))).data.data.items).toHaveLength(1);
		expect((await http.delete(core(`/webhooks/${data.id}`), storeAuth())).data).toEqual({ ok: true, data: { id: data.id, deleted: true } });
		expect((await get(stores(`/webhooks/${data.id}`))).status).toBe(404);
	});

	it('validates url, eventTypes, note and signatureVersion', async () => {
		expect((await createEndpoint({ url: 'ftp://example.com' })).data.error.field).toBe('url');
		expect((await createEndpoint({ url: 'http://example.com/x' })).status).toBe(400);
		expect((await createEndpoint({ url: `https://example.com/${'x'.repeat(512)}` })).status).toBe(400);
		expect((await createEndpoint({ eventTypes: [] })).data.error.field).toBe('eventTypes');
		expect((await createEndpoint({ eventTypes: ['ORDER_CREATED'] })).data.error.field).toBe('eventTypes[0]');
		expect((await createEndpoint({ note: 'x'.repeat(257) })).data.error.field).toBe('note');
		expect((await createEndpoint({ signatureVersion: 'V3' })).data.error.field).toBe('signatureVersion');
		const strict = await startSandbox({ orders: 1 });
		try {
			const res = await post(`${strict.baseUrl}/v2/core/stores/${strict.store.storeId}/webhooks`, { url: receiverUrl, eventTypes: ['PAYMENT_FAILED'] }, {}, strict.store.secretKey);
			expect(res.status).toBe(400);
			expect(res.data.error.message).toContain('https://');
		} finally {
			await strict.close();
		}
	});

	it('PATCH updates url, eventTypes, note and signatureVersion in place with the create validation, and returns the endpoint', async () => {
		const { id } = (await createEndpoint({ note: 'before', signatureVersion: 'V1' })).data.data;
		const patch = (body: Record<string, unknown>) => http.patch(core(`/webhooks/${id}`), body, storeAuth());
		const updated = await patch({ url: 'https://hooks.example.com/new', eventTypes: ['PAYMENT_FAILED', 'PAYMENT_FAILED', 'SUBSCRIPTION_UPDATED'], note: '', signatureVersion: 'V2' });
		expect(updated.status).toBe(200);
		expect(updated.data.data).toEqual({ id, url: 'https://hooks.example.com/new', eventTypes: ['PAYMENT_FAILED', 'SUBSCRIPTION_UPDATED'], note: '', signatureVersion: 'V2', createdAt: expect.any(String), updatedAt: expect.any(String) });
		expect((await patch({ note: 'only the note' })).data.data).toMatchObject({ id, url: 'https://hooks.example.com/new', note: 'only the note', signatureVersion: 'V2' });
		expect((await patch({ url: 'http://example.com/x' })).status).toBe(400);
		expect((await patch({ eventTypes: [] })).data.error.field).toBe('eventTypes');
		expect((await patch({ eventTypes: ['ORDER_CREATED'] })).data.error.field).toBe('eventTypes[0]');
		expect((await patch({ note: 'x'.repeat(257) })).data.error.field).toBe('note');
		expect((await patch({ signatureVersion: 'V3' })).data.error.field).toBe('signatureVersion');
		expect((await patch({ secret: 'x' })).status).toBe(400);
		expect(sb.state.webhooks).toHaveLength(1);
		expect((await http.patch(core('/webhooks/whk_doesnotexist00001'), { note: 'x' }, storeAuth())).status).toBe(404);
	});

	it('a refund emits PAYMENT_REFUNDED, signed V2 (verified independently)', async () => {
		await createEndpoint({});
		const order = completedOrder(10);
		await post(stores(`/orders/${order.id}/refund`), { amount: 1 }, { 'Idempotency-Key': 'wh-refund' });
		await sb.waitForDeliveries(1);
		const [msg] = received;
		const body = JSON.parse(msg.body);
		expect(body).toEqual({ id: expect.stringMatching(/^msg_/), event: 'PAYMENT_REFUNDED', createdAt: expect.any(String), data: expect.objectContaining({ orderId: order.id, amount: 1 }) });
		expect(msg.headers['webhook-id']).toBe(body.id);
		expect(msg.headers['webhook-timestamp']).toMatch(/^\d{10}$/);
		expect(Math.abs(Number(msg.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(300);
		expect(verifyV2(sb.store.signingSecret, msg.headers, msg.body)).toBe(true);
		expect(verifyV2(sb.store.signingSecret, msg.headers, msg.body.replace('"amount":1', '"amount":2'))).toBe(false);
		expect(msg.headers['x-service-signature']).toBeUndefined();
	});

	it('signs V1 deliveries with hex HMACs and the legacy headers', async () => {
		const created = await createEndpoint({ signatureVersion: 'V1', eventTypes: ['PAYMENT_COMPLETED'] });
		const test = await post(stores(`/webhooks/${created.data.data.id}/test`), { eventType: 'PAYMENT_COMPLETED' });
		expect(test.status).toBe(200);
		await sb.waitForDeliveries(1);
		const [{ headers, body }] = received;
		const ts = String(headers['webhook-timestamp']);
		expect(ts).toMatch(/^\d{13}$/);
		expect(headers['webhook-id']).toMatch(new RegExp(`^${created.data.data.id}/job_`));
		const hex = (text: string) => createHmac('sha256', Buffer.from(sb.store.signingSecret, 'utf8')).update(text).digest('hex');
		expect(headers['webhook-signature']).toBe(hex(`${ts}.${body}`));
		expect(headers['x-service-signature']).toBe(hex(body));
		expect(headers['x-service-timestamp']).toBe(ts);
		expect(headers['x-service-idempotency']).toBe(headers['webhook-id']);
		expect(JSON.parse(body)).toEqual(expect.objectContaining({ event: 'PAYMENT_COMPLETED', data: expect.objectContaining({ test: true }) }));
	});

	it('retries non-2xx with the same message id and fresh signatures', async () => {
		await createEndpoint({ eventTypes: ['PAYMENT_FAILED'] });
		failNext = 2;
		const [messageId] = sb.emit('PAYMENT_FAILED', { orderId: 'ord_x' });
		const attempts = await sb.waitForDeliveries(3);
		expect(attempts.map((a) => [a.attempt, a.status, a.messageId])).toEqual([
			[1, 500, messageId],
			[2, 500, messageId],
			[3, 204, messageId],
		]);
		expect(received.every((r) => verifyV2(sb.store.signingSecret, r.headers, r.body))).toBe(true);
		expect(new Set(received.map((r) => r.body)).size).toBe(1);
		await new Promise((r) => setTimeout(r, 100));
		expect(sb.deliveries).toHaveLength(3);
	});

	it('gives up after 9 attempts; unsubscribed endpoints get nothing', async () => {
		await createEndpoint({ eventTypes: ['SUBSCRIPTION_RENEWING'] });
		failNext = 100;
		expect(sb.emit('PAYMENT_COMPLETED', {})).toEqual([]);
		sb.emit('SUBSCRIPTION_RENEWING', { subscriptionId: 'sub_1' });
		await sb.waitForDeliveries(9, 10_000);
		await new Promise((r) => setTimeout(r, 300));
		expect(sb.deliveries.map((d) => d.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
	});

	it('POST /__dev/events delivers to subscribers without auth', async () => {
		await createEndpoint({ eventTypes: ['PAYMENT_DISPUTE_PREVENTED'] });
		const res = await http.post(`${sb.baseUrl}/__dev/events`, { eventType: 'PAYMENT_DISPUTE_PREVENTED', data: { disputeId: 'dsp_1' } });
		expect(res.status).toBe(202);
		expect(res.data.data.messageIds).toHaveLength(1);
		await sb.waitForDeliveries(1);
		expect(JSON.parse(received[0].body).data).toEqual({ disputeId: 'dsp_1' });
	});
});

describe('credentials()', () => {
	it('returns the n8n credential objects', () => {
		expect(sb.credentials()).toEqual({
			vaultStoreStoreApi: { baseUrl: sb.baseUrl, storeId: sb.store.storeId, secretKey: sb.store.secretKey, signingSecret: expect.stringMatching(/^whsec_/) },
			vaultStoreVaultApi: { baseUrl: sb.baseUrl, workspaceId: sb.vault.workspaceId, vaultId: sb.vault.vaultId, secretKey: sb.vault.secretKey },
		});
		expect(Buffer.from(sb.store.signingSecret.slice(6), 'base64')).toHaveLength(24);
	});
});

describe('routes the spec names without a path (the sandbox choice, shared with the inferred rows)', () => {
	const sbx = useSandbox();
	const get = async (path: string) => {
		const res = await fetch(`${sbx.sb.baseUrl}/v2/core/stores/${sbx.sb.store.storeId}${path}`, { headers: { Authorization: `Bearer ${sbx.sb.store.secretKey}` } });
		return { status: res.status, body: (await res.json()) as { ok: boolean; data: Record<string, unknown> } };
	};

	test('vault token list pages with cursor / next_cursor', async () => {
		const base = `${sbx.sb.baseUrl}/v2/workspaces/${sbx.sb.vault.workspaceId}/vaults/${sbx.sb.vault.vaultId}/tokens`;
		const headers = { Authorization: `Bearer ${sbx.sb.vault.secretKey}`, 'content-type': 'application/json' };
		for (let i = 0; i < 5; i++) {
			await fetch(base, { method: 'POST', headers: { ...headers, 'Idempotency-Key': `cursor-${i}` }, body: JSON.stringify({ type: 'custom', data: { i } }) });
		}
		const first = (await (await fetch(`${base}?limit=2`, { headers })).json()) as { data: { id: string }[]; has_more: boolean; next_cursor: string };
		expect(first.data).toHaveLength(2);
		expect(first.has_more).toBe(true);
		const second = (await (await fetch(`${base}?limit=2&cursor=${first.next_cursor}`, { headers })).json()) as { data: { id: string }[] };
		expect(second.data[0].id).not.toBe(first.data[1].id);
	});

	test('tax details, monthly revenue, payout credits and debits answer in the store envelope', async () => {
		expect((await get('/tax-details')).body.data).toHaveProperty('country');
		const monthly = await get('/analytics/revenue/monthly?months=3');
		expect((monthly.body.data.months as unknown[]).length).toBe(3);
		expect((await get('/payouts/credits')).body.data).toHaveProperty('items');
		expect((await get('/payouts/debits')).body.data).toHaveProperty('pagination');
	});

	test('POST /v2/checkouts opens a session with the store key (no store id in the path)', async () => {
		const product = sbx.sb.state.products[0];
		const res = await fetch(`${sbx.sb.baseUrl}/v2/checkouts`, {
			method: 'POST',
			headers: { Authorization: `Bearer ${sbx.sb.store.secretKey}`, 'content-type': 'application/json' },
			body: JSON.stringify({ items: [{ product_id: product.id, quantity: 2 }] }),
		});
		expect(res.status).toBe(201);
		const session = ((await res.json()) as { data: { id: string; status: string; amount: number } }).data;
		expect(session).toMatchObject({ status: 'OPEN', amount: product.price * 2 });
		const anonymous = await fetch(`${sbx.sb.baseUrl}/v2/checkouts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
		expect(anonymous.status).toBe(401);
	});
});

describe('the disagreeing mode (sandbox/disagree.ts): every detail the spec does not show differs from the node\'s guess', () => {
	afterEach(() => {
		sb.disagree.on = false;
	});
	/** The same request in the default and in the disagreeing mode. */
	async function both<T>(request: () => Promise<T>): Promise<{ polite: T; disagreeing: T }> {
		const polite = await request();
		sb.disagree.on = true;
		try {
			return { polite, disagreeing: await request() };
		} finally {
			sb.disagree.on = false;
		}
	}
	const ids = (res: { data: { data: { items: { id: string }[] } } }) => res.data.data.items.map((i) => i.id);

	it('is off by default and switches at run time; startSandbox({ disagree: true }) starts in it', async () => {
		expect(sb.disagree.on).toBe(false);
		const other = await startSandbox({ orders: 1, disagree: true });
		try {
			expect(other.disagree.on).toBe(true);
		} finally {
			await other.close();
		}
	});

	it('list filters under other names: the node\'s names are ignored, the other ones filter', async () => {
		const customer = sb.state.customers[3];
		const { polite, disagreeing } = await both(() => get(core(`/customers?search=${encodeURIComponent(customer.email)}`)));
		expect(ids(polite)).toEqual([customer.id]);
		expect(ids(disagreeing).length).toBeGreaterThan(1);
		sb.disagree.on = true;
		expect(ids(await get(core(`/customers?q=${encodeURIComponent(customer.email)}`)))).toEqual([customer.id]);
		const byEmail = await get(core('/customers?sort_by=email&sort_order=asc&limit=5'));
		const emails = byEmail.data.data.items.map((c: { email: string }) => c.email);
		expect(emails).toEqual([...emails].sort());
		expect((await get(core('/customers?sort_by=nope'))).data.error.field).toBe('sort_by');
		const order = sb.state.orders[7];
		expect(ids(await get(core(`/orders/?q=${order.orderNumber}`)))).toEqual([order.id]);
		expect(ids(await get(core(`/orders/?search=${order.orderNumber}`)))).not.toEqual([order.id]);
		const disputes = (await get(core('/disputes?state=WON'))).data.data.items;
		expect(disputes.map((d: { status: string }) => d.status)).toEqual(['WON']);
		expect(new Set((await get(core('/disputes?status=WON'))).data.data.items.map((d: { status: string }) => d.status)).size).toBeGreaterThan(1);
		expect((await get(stores('/licenses?state=AVAILABLE'))).data.data.items.every((l: { status: string }) => l.status === 'AVAILABLE')).toBe(true);
		sb.disagree.on = false;
		const overview = await both(() => get(core('/analytics/overview?range=7d')));
		expect(overview.polite.data.data.range).toBe('7d');
		expect(overview.disagreeing.data.data.range).toBe('30d');
		sb.disagree.on = true;
		expect((await get(core('/analytics/overview?period=7d'))).data.data.range).toBe('7d');
	});

	it('refund and payout answers carry the order total and the net amount', async () => {
		const order = completedOrder(20);
		sb.disagree.on = true;
		const refund = await post(stores(`/orders/${order.id}/refund`), { amount: 1 }, { 'Idempotency-Key': 'disagree-refund' });
		expect(refund.status).toBe(201);
		expect(refund.data.data).toMatchObject({ amount: order.payment.totalAmount, refundedAmount: 1, orderId: order.id });
		expect(sb.state.refunds.find((r) => r.id === refund.data.data.id)?.amount).toBe(1);
		const payout = await post(stores('/payouts'), { amount: 100 }, { 'Idempotency-Key': 'disagree-payout' });
		expect(payout.status).toBe(201);
		expect(payout.data.data).toMatchObject({ amount: 100 - payout.data.data.fee, grossAmount: 100 });
	});

	it('masks of bank accounts and personal values under other names', async () => {
		const create = (key: string, body: unknown) =>
			http.post(vaultUrl('/tokens'), body, { headers: { Authorization: `Bearer ${sb.vault.secretKey}`, 'Idempotency-Key': key } });
		sb.disagree.on = true;
		const bank = await create('disagree-bank', { type: 'bank_account', data: { account_number: '000123456789', bank_name: 'Bank', country: 'DE' } });
		expect(bank.data.mask).toEqual({ bankName: 'Bank', lastFour: '6789', countryCode: 'DE' });
		const pii = await create('disagree-pii', { type: 'pii', data: { value: 'AB-123-987' } });
		expect(pii.data.mask).toEqual({ lastChars: '-987' });
		const card = await create('disagree-card', { type: 'card', data: { number: '4242424242424242', exp_month: 12, exp_year: 2040 } });
		expect(card.data.mask).toMatchObject({ brand: 'visa', last4: '4242' }); // the spec's names stay
	});

	it('no checkout read route; report files on another host; a short signing secret', async () => {
		const paylink = (sb.state.collections.checkoutPaylinks as { id: string; active: boolean }[]).find((p) => p.active)!;
		const session = (await http.post(`${sb.baseUrl}/v2/storefront/paylinks/${paylink.id}/checkout`)).data.data;
		const read = await both(() => get(stores(`/checkouts/${session.id}`)));
		expect(read.polite.status).toBe(200);
		expect(read.disagreeing.status).toBe(404);

		const to = new Date(sb.clock.now()).toISOString();
		const from = new Date(sb.clock.now() - 10 * 86_400_000).toISOString();
		const report = (await post(stores('/reports'), { type: 'PAYMENT_ACTIVITY', from, to })).data.data;
		sb.clock.advance(3 * 60_000);
		const link = await both(() => get(stores(`/reports/${report.id}/download/CSV`)));
		expect(new URL(link.polite.data.data.url).origin).toBe(sb.baseUrl);
		const elsewhere = new URL(link.disagreeing.data.data.url);
		expect(elsewhere.origin).not.toBe(sb.baseUrl);
		const file = await http.get(elsewhere.href);
		expect(file.status).toBe(200);
		expect(String(file.data)).toMatch(/^created_at,order_id/);

		const long = sb.store.signingSecret;
		sb.disagree.on = true;
		const short = sb.store.signingSecret;
		expect(short).toMatch(/^whsec_[A-Za-z0-9+/=]{12}$/);
		expect(Buffer.from(short.slice('whsec_'.length), 'base64')).toHaveLength(8);
		expect(sb.credentials().vaultStoreStoreApi.signingSecret).toBe(short);
		sb.disagree.on = false;
		expect(sb.store.signingSecret).toBe(long);
	});

	it('strict routing: the trailing slash as registered, one root per route', async () => {
		const order = completedOrder(21);
		const lenient = await both(() => get(core('/orders')));
		expect(lenient.polite.status).toBe(200);
		expect(lenient.disagreeing.status).toBe(404);
		sb.disagree.on = true;
		expect((await get(core('/orders/'))).status).toBe(200);
		expect((await get(core(`/orders/${order.id}/`))).status).toBe(404);
		expect((await get(core(`/orders/${order.id}`))).status).toBe(200);
		// The spec gives refunds under /v2/stores, deleting a webhook under /v2/core, reports under both.
		expect((await post(core(`/orders/${order.id}/refund`), { amount: 1 })).status).toBe(404);
		expect((await post(stores(`/orders/${order.id}/refund`), { amount: 1 })).status).toBe(201);
		expect((await http.delete(stores('/webhooks/whk_000000000000'), storeAuth())).status).toBe(405);
		expect((await http.delete(core('/webhooks/whk_000000000000'), storeAuth())).status).toBe(404);
		expect((await get(core('/reports'))).status).toBe(200);
		expect((await get(stores('/reports'))).status).toBe(200);
		expect((await get(core('/search?q=x'))).status).toBe(404);
		// A route the spec does not place answers under the other root than the node sends it to.
		expect((await get(stores('/refunds'))).status).toBe(404);
		expect((await get(core('/refunds'))).status).toBe(200);
		expect((await get(core('/tax-details'))).status).toBe(404);
		expect((await get(stores('/tax-details'))).status).toBe(200);
		expect((await http.patch(core('/webhooks/whk_000000000000'), { note: 'x' }, storeAuth())).status).toBe(405);
		// keepRoots: those routes answer under both roots again (the other differences stay).
		sb.disagree.keepRoots = true;
		try {
			expect((await get(stores('/refunds'))).status).toBe(200);
			expect((await get(core('/tax-details'))).status).toBe(200);
			expect((await get(core('/orders'))).status).toBe(404);
		} finally {
			sb.disagree.keepRoots = false;
		}
	});

	it('Idempotency-Keys judged by the body alone: another route with the same body replays, another body is 422', async () => {
		const [a, b] = [completedOrder(22), completedOrder(23)];
		const key = { 'Idempotency-Key': 'disagree-key' };
		sb.disagree.on = true;
		const first = await post(stores(`/orders/${a.id}/refund`), { amount: 1 }, key);
		expect(first.status).toBe(201);
		const other = await post(stores(`/orders/${b.id}/refund`), { amount: 1 }, key);
		expect(other.headers['idempotent-replay']).toBe('true');
		expect(other.data.data.orderId).toBe(a.id);
		expect(sb.state.refunds.filter((r) => r.orderId === b.id)).toHaveLength(0);
		expect((await post(stores('/payouts'), { amount: 5 }, key)).status).toBe(422);
		sb.disagree.on = false;
		// The default scopes a key to its route: the same key makes b's refund.
		const polite = await post(stores(`/orders/${b.id}/refund`), { amount: 1 }, { 'Idempotency-Key': 'polite-key' });
		expect((await post(stores(`/orders/${a.id}/refund`), { amount: 1 }, { 'Idempotency-Key': 'polite-key' })).headers['idempotent-replay']).toBeUndefined();
		expect(polite.status).toBe(201);
	});

	it('a route served under both roots must name its strict root', () => {
		const router = new Router();
		const handler = () => ok({});
		router.add('GET', '/v2/core/stores/:storeId/unplaced', handler, {});
		router.add('GET', '/v2/stores/:storeId/unplaced', handler, {});
		expect(() => router.checkStrictRoots()).toThrow(/STRICT_ROOTS or UNPLACED_ROOTS: name the one root of GET \/unplaced/);
	});
});
