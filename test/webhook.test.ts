import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { IDataObject } from 'n8n-workflow';

import { jsonOf, useSandbox } from './support/fixtures';

const f = useSandbox({ orders: 20 });

const core = (sub: string) => `/v2/core/stores/${f.sb.store.storeId}${sub}`;
const stores = (sub: string) => `/v2/stores/${f.sb.store.storeId}${sub}`;
const rl = (value: string) => ({ __rl: true, mode: 'id', value });

let receiver: Server;
let receiverUrl: string;
const received: { headers: IDataObject; body: IDataObject }[] = [];

beforeAll(async () => {
	receiver = createServer((req, res) => {
		let body = '';
		req.on('data', (c: Buffer) => (body += c.toString('utf8')));
		req.on('end', () => {
			received.push({ headers: req.headers as IDataObject, body: JSON.parse(body) as IDataObject });
			res.writeHead(200).end('ok');
		});
	});
	await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
	receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

/** An endpoint pointing at the local receiver (the node itself only accepts https://). */
function localEndpoint(id: string, signatureVersion: 'V1' | 'V2' = 'V2') {
	const now = new Date().toISOString();
	f.sb.state.webhooks.push({ id, storeId: f.sb.store.storeId, url: receiverUrl, eventTypes: ['PAYMENT_COMPLETED'], note: null, signatureVersion, createdAt: now, updatedAt: now });
	return id;
}

describe('webhook operations against the sandbox', () => {
	test('create sends url, eventTypes, note and signatureVersion and returns the endpoint', async () => {
		const r = await f.run({
			resource: 'webhook',
			operation: 'create',
			url: 'https://hooks.example.com/vault-store',
			eventTypes: ['PAYMENT_COMPLETED', 'SUBSCRIPTION_UPDATED', 'PAYMENT_DISPUTE_PREVENTED'],
			additionalFields: { note: 'from n8n', signatureVersion: 'V1' },
		});
		expect(r.error()).toBeUndefined();
		const [req] = f.requests();
		expect([req.method, req.path]).toEqual(['POST', core('/webhooks')]);
		expect(req.body).toEqual({
			url: 'https://hooks.example.com/vault-store',
			eventTypes: ['PAYMENT_COMPLETED', 'SUBSCRIPTION_UPDATED', 'PAYMENT_DISPUTE_PREVENTED'],
			note: 'from n8n',
			signatureVersion: 'V1',
		});
		const [out] = jsonOf(r);
		expect(out).toMatchObject({ id: expect.stringMatching(/^whk_/), signatureVersion: 'V1', note: 'from n8n' });
		expect(f.sb.state.webhooks.some((w) => w.id === out.id)).toBe(true);
	});

	test('update sets a note, and an empty Note clears it (sent as null)', async () => {
		const now = new Date().toISOString();
		const id = 'whk_clearnote000001';
		f.sb.state.webhooks.push({ id, storeId: f.sb.store.storeId, url: 'https://hooks.example.com/n', eventTypes: ['PAYMENT_COMPLETED'], note: 'old note', signatureVersion: 'V2', createdAt: now, updatedAt: now });
		const set = await f.run({ resource: 'webhook', operation: 'update', webhookId: rl(id), updateFields: { note: 'new note' } });
		expect(set.error()).toBeUndefined();
		expect(f.requests()[0].body).toEqual({ note: 'new note' });
		expect(jsonOf(set)[0].note).toBe('new note');

		const cleared = await f.run({ resource: 'webhook', operation: 'update', webhookId: rl(id), updateFields: { note: '' } });
		expect(cleared.error()).toBeUndefined();
		expect([f.requests()[0].method, f.requests()[0].path, f.requests()[0].body]).toEqual(['PATCH', core(`/webhooks/${id}`), { note: null }]);
		expect(jsonOf(cleared)[0].note).toBeNull();
		expect(f.sb.state.webhooks.find((w) => w.id === id)?.note).toBeNull();
	});

	test('create without optional fields sends only url and eventTypes (service default V2)', async () => {
		const r = await f.run({ resource: 'webhook', operation: 'create', url: 'https://hooks.example.com/a', eventTypes: ['PAYMENT_FAILED'] });
		expect(f.requests()[0].body).toEqual({ url: 'https://hooks.example.com/a', eventTypes: ['PAYMENT_FAILED'] });
		expect(jsonOf(r)[0].signatureVersion).toBe('V2');
	});

	test('create refuses http:// even though this sandbox would accept it, before any request', async () => {
		const r = await f.run({ resource: 'webhook', operation: 'create', url: receiverUrl, eventTypes: ['PAYMENT_FAILED'] });
		expect(r.error()?.message).toMatch(/"URL" must start with https:\/\//);
		expect(f.requests()).toHaveLength(0);
	});

	test('create checks URL length, at least one event type and the note length before any request', async () => {
		const cases: [IDataObject, RegExp][] = [
			[{ url: `https://example.com/${'a'.repeat(500)}`, eventTypes: ['PAYMENT_FAILED'] }, /"URL" must be 1 to 512 characters long \(got 520\)/],
			[{ url: 'https://example.com/h', eventTypes: '={{ [] }}' }, /"Event Types" must have at least 1 entries \(got 0\)/],
			[{ url: 'https://example.com/h', eventTypes: ['PAYMENT_FAILED'], additionalFields: { note: 'n'.repeat(257) } }, /"Note" must be at most 256 characters long \(got 257\)/],
			[{ url: '={{ "" }}', eventTypes: ['PAYMENT_FAILED'] }, /"URL" must be 1 to 512 characters long/],
		];
		// Empty required values come from expressions (n8n refuses literal empty required fields itself).
		for (const [params, message] of cases) {
			const r = await f.run({ resource: 'webhook', operation: 'create', ...params });
			expect(r.error()?.message).toMatch(message);
			expect(f.requests()).toHaveLength(0);
		}
	});

	test('get reads the endpoint under /v2/stores including signatureVersion', async () => {
		const id = localEndpoint('whk_gettest0000000001', 'V1');
		const r = await f.run({ resource: 'webhook', operation: 'get', webhookId: rl(id) });
		expect(r.error()).toBeUndefined();
		expect(jsonOf(r)[0]).toMatchObject({ id, url: receiverUrl, signatureVersion: 'V1' });
		const [req] = f.requests();
		expect([req.method, req.path]).toEqual(['GET', stores(`/webhooks/${id}`)]);
	});

	test('sendTest posts the event type and the endpoint receives a signed test delivery', async () => {
		const id = localEndpoint('whk_sendtest000000001');
		const before = received.length;
		const attemptsBefore = f.sb.deliveries.length;
		const r = await f.run({ resource: 'webhook', operation: 'sendTest', webhookId: rl(id), eventType: 'SUBSCRIPTION_RENEWING' });
		expect(r.error()).toBeUndefined();
		const [req] = f.requests();
		expect([req.method, req.path]).toEqual(['POST', stores(`/webhooks/${id}/test`)]);
		expect(req.body).toEqual({ eventType: 'SUBSCRIPTION_RENEWING' });
		expect(jsonOf(r)[0]).toMatchObject({ webhookId: id, eventType: 'SUBSCRIPTION_RENEWING', test: true });
		const attempts = await f.sb.waitForDeliveries(attemptsBefore + 1);
		expect(attempts[attemptsBefore]).toMatchObject({ endpointId: id, status: 200 });
		expect(received).toHaveLength(before + 1);
		const delivery = received[before];
		expect(delivery.body.event).toBe('SUBSCRIPTION_RENEWING');
		expect(String(delivery.headers['webhook-signature'])).toMatch(/^v1,/);
	});

	test('sendTest only accepts an event of the list', async () => {
		const r = await f.run({ resource: 'webhook', operation: 'sendTest', webhookId: rl('whk_sendtest000000001'), eventType: 'INTENT_CREATED' });
		expect(r.error()?.message).toMatch(/"Event Type" must be one of PAYMENT_PENDING, .*SUBSCRIPTION_RENEWING/);
		expect(f.requests()).toHaveLength(0);
	});

	test('delete removes the endpoint', async () => {
		const id = localEndpoint('whk_deletetest0000001');
		const r = await f.run({ resource: 'webhook', operation: 'delete', webhookId: rl(id) });
		expect(r.error()).toBeUndefined();
		expect(jsonOf(r)).toEqual([{ id, deleted: true }]);
		const [req] = f.requests();
		expect([req.method, req.path]).toEqual(['DELETE', core(`/webhooks/${id}`)]);
		expect(f.sb.state.webhooks.some((w) => w.id === id)).toBe(false);
	});

	test('a webhook id without whk_ fails before any request; an unknown one is a readable 404', async () => {
		const bad = await f.run({ resource: 'webhook', operation: 'get', webhookId: rl('={{ "sub_aaaaaaaaaaaaaaaa" }}') });
		expect(bad.error()?.message).toMatch(/"Webhook ID" must start with "whk_" and be 12 to 48 characters/);
		expect(f.requests()).toHaveLength(0);
		const missing = await f.run({ resource: 'webhook', operation: 'delete', webhookId: rl('whk_doesnotexist00001') });
		expect(missing.error()?.message).toMatch(/Not found \(HTTP 404\)/);
	});
});
