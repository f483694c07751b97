/**
 * Deliveries into the Vault Store Trigger: real signed deliveries from the sandbox
 * (captured byte for byte by a local HTTP receiver that stands in for n8n's webhook
 * server), fed to webhook() through n8n-core's WebhookContext. Every rejection case
 * has an accepted counterpart, so a verifier that accepted everything (or nothing)
 * fails here.
 */
import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { IDataObject } from 'n8n-workflow';

import { bindingOf } from '../nodes/VaultStoreTrigger/secrets';
import { decodeSigningSecret } from '../nodes/VaultStoreTrigger/verify';
import { hmacHex, signV2 } from '../sandbox/deliveries';
import { useSandbox } from './support/fixtures';
import type { CredentialSet } from './support/harness';
import { logLines } from './support/harness';
import type { DeliveryRequest, DeliveryResult, TriggerInstance } from './support/trigger-harness';
import { createTrigger } from './support/trigger-harness';

const f = useSandbox({ allowHttpWebhooks: true, webhookTimeScale: 0.001 });

interface Captured {
	path: string;
	rawBody: Buffer;
	headers: Record<string, string>;
	/** 1-based count of requests to this path. */
	n: number;
}

type Handler = (c: Captured) => Promise<{ status: number; body: unknown }>;

/** A tiny HTTP server in place of n8n's webhook server: records the exact bytes and headers. */
class Receiver {
	readonly captured: Captured[] = [];

	readonly handlers = new Map<string, Handler>();

	private server?: Server;

	private waiters: Array<() => void> = [];

	baseUrl = '';

	async start(): Promise<void> {
		this.server = createServer((req, res) => void this.onRequest(req, res));
		await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
		this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
	}

	async stop(): Promise<void> {
		await new Promise<void>((resolve) => this.server?.close(() => resolve()));
	}

	private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const chunks: Buffer[] = [];
		for await (const chunk of req) chunks.push(chunk as Buffer);
		const headers: Record<string, string> = {};
		for (const [name, value] of Object.entries(req.headers)) {
			if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
		}
		const path = (req.url ?? '').split('?')[0];
		const c: Captured = {
			path,
			rawBody: Buffer.concat(chunks),
			headers,
			n: this.captured.filter((x) => x.path === path).length + 1,
		};
		const handler = this.handlers.get(path);
		let reply = { status: 200, body: {} as unknown };
		try {
			if (handler) reply = await handler(c);
		} catch (error) {
			reply = { status: 599, body: { error: String(error) } };
		}
		this.captured.push(c);
		res.writeHead(reply.status, { 'content-type': 'application/json' });
		res.end(JSON.stringify(reply.body ?? {}));
		for (const w of this.waiters.splice(0)) w();
	}

	/** Resolves with the requests to `path` once there are at least n. */
	async waitFor(path: string, n: number, timeoutMs = 5000): Promise<Captured[]> {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const got = this.captured.filter((c) => c.path === path);
			if (got.length >= n) return got;
			if (Date.now() > deadline) throw new Error(`timed out waiting for ${n} deliveries to ${path} (have ${got.length})`);
			await new Promise<void>((resolve) => {
				this.waiters.push(resolve);
				setTimeout(resolve, 50);
			});
		}
	}
}

const receiver = new Receiver();
beforeAll(async () => await receiver.start());
afterAll(async () => await receiver.stop());

const active: TriggerInstance[] = [];
afterEach(async () => {
	for (const t of active.splice(0)) await t.delete();
	receiver.handlers.clear();
});

const secret = () => f.sb.store.signingSecret;

async function activeTrigger(parameters: IDataObject, credentials: CredentialSet = f.credentials): Promise<TriggerInstance> {
	const t = await createTrigger({
		parameters: { note: 'delivery test', options: {}, ...parameters },
		credentials,
		webhookBaseUrl: `${receiver.baseUrl}/webhook`,
	});
	await t.activate();
	expect(t.staticData().webhookId).toMatch(/^whk_/);
	active.push(t);
	return t;
}

function pathOf(t: TriggerInstance): string {
	return new URL(t.webhookUrl()).pathname;
}

/** Emits one event at the sandbox and returns what the receiver got for this trigger. */
async function emitFor(t: TriggerInstance, event: string, data: IDataObject = { orderId: 'ord_test00000001', amount: 12.5 }): Promise<Captured> {
	const before = receiver.captured.filter((c) => c.path === pathOf(t)).length;
	f.sb.emit(event, data);
	const got = await receiver.waitFor(pathOf(t), before + 1);
	return got[before];
}

async function deliverTo(t: TriggerInstance, c: Pick<Captured, 'rawBody' | 'headers'>, changes: Partial<DeliveryRequest> = {}): Promise<DeliveryResult> {
	return await t.deliver({ rawBody: c.rawBody, headers: { ...c.headers }, ...changes });
}

function expectRejected(r: DeliveryResult, reason?: RegExp): void {
	expect(r.status).toBe(401);
	expect(r.started).toBe(false);
	expect(r.items).toHaveLength(0);
	expect(r.response.noWebhookResponse).toBe(true);
	const body = r.body as { error: string };
	expect(typeof body.error).toBe('string');
	expect(JSON.stringify(body)).not.toContain(secret());
	expect(JSON.stringify(body)).not.toContain(secret().replace(/^whsec_/, ''));
	if (reason) expect(body.error).toMatch(reason);
}

function expectIgnored(r: DeliveryResult, reason: string): void {
	expect(r.status).toBe(200);
	expect(r.started).toBe(false);
	expect(r.items).toHaveLength(0);
	expect(r.body).toEqual({ received: true, ignored: reason });
}

/** The same bytes with one bit of the last value character changed. */
function flipped(raw: Buffer): Buffer {
	const out = Buffer.from(raw);
	out[out.length - 2] ^= 1;
	return out;
}

/**
 * A V2 timestamp (whole seconds) `seconds` old when the node checks it moments later (the node
 * compares in milliseconds): 'at least' rounds the clock down, 'at most' rounds it up, so the
 * second ticking over between here and the check cannot move it across the tolerance's edge.
 * A negative age is a timestamp ahead of the clock.
 */
function secondsOld(seconds: number, bound: 'at least' | 'at most'): number {
	return (bound === 'at least' ? Math.floor : Math.ceil)(Date.now() / 1000) - seconds;
}

function resignV2(c: Captured, id: string, timestampSeconds: number): Record<string, string> {
	const ts = String(timestampSeconds);
	return {
		...c.headers,
		'webhook-id': id,
		'webhook-timestamp': ts,
		'webhook-signature': signV2(secret(), id, ts, c.rawBody.toString('utf8')),
	};
}

function resignV1(c: Captured, timestampMs: number): Record<string, string> {
	const ts = String(timestampMs);
	return {
		...c.headers,
		'webhook-timestamp': ts,
		'webhook-signature': hmacHex(secret(), `${ts}.${c.rawBody.toString('utf8')}`),
	};
}

/** A V1 delivery signed here (the sandbox's scheme): body with or without an `id`, any Webhook-Id. */
function v1Delivery(body: string, timestampMs: number, webhookId: string): Pick<Captured, 'rawBody' | 'headers'> {
	const ts = String(timestampMs);
	return {
		rawBody: Buffer.from(body),
		headers: {
			'content-type': 'application/json',
			'webhook-id': webhookId,
			'webhook-timestamp': ts,
			'webhook-signature': hmacHex(secret(), `${ts}.${body}`),
		},
	};
}

/** Only the legacy headers: X-Service-Signature signs the body alone; timestamp and ids are unsigned. */
function legacyDelivery(body: string, timestampMs: number, idempotency: string, webhookId?: string): Pick<Captured, 'rawBody' | 'headers'> {
	const headers: Record<string, string> = {
		'content-type': 'application/json',
		'x-service-signature': hmacHex(secret(), body),
		'x-service-timestamp': String(timestampMs),
		'x-service-idempotency': idempotency,
	};
	if (webhookId !== undefined) headers['webhook-id'] = webhookId;
	return { rawBody: Buffer.from(body), headers };
}

describe('V2 deliveries', () => {
	test('a real sandbox delivery produces one item with the body and meta', async () => {
		const t = await activeTrigger({ events: ['PAYMENT_COMPLETED'], signatureVersion: 'V2' });
		const c = await emitFor(t, 'PAYMENT_COMPLETED');
		expect(c.headers['webhook-signature']).toMatch(/^v1,/);
		const r = await deliverTo(t, c);
		expect(r.status).toBe(200);
		expect(r.items).toHaveLength(1);
		const body = JSON.parse(c.rawBody.toString('utf8'));
		const json = r.items[0].json;
		expect(json).toMatchObject({ event: 'PAYMENT_COMPLETED', id: body.id, data: { orderId: 'ord_test00000001', amount: 12.5 } });
		expect(json.meta).toEqual({
			deliveryId: c.headers['webhook-id'],
			timestamp: Number(c.headers['webhook-timestamp']),
			signatureVersion: 'V2',
			legacy: false,
		});
		expect(c.headers['webhook-id']).toBe(body.id);
	});

	test('a signed delivery that carries the store key or the signing secret: the item shows them redacted, the rest of the event unchanged', async () => {
		const t = await activeTrigger({ events: ['PAYMENT_COMPLETED'], signatureVersion: 'V2' });
		const key = String(f.credentials.vaultStoreStoreApi.secretKey);
		const data = { orderId: 'ord_test00000001', amount: 12.5, note: `key ${key}`, echo: Buffer.from(secret()).toString('base64'), parts: [key.slice(0, 12), key.slice(12)] };
		const c = await emitFor(t, 'PAYMENT_COMPLETED', data);
		const r = await deliverTo(t, c);
		expect(r.status).toBe(200);
		const json = r.items[0].json;
		const text = JSON.stringify(json);
		expect(text).not.toContain(key.slice(8));
		expect(text).not.toContain(Buffer.from(secret()).toString('base64').slice(4, 28));
		expect(((json.data as IDataObject).parts as string[]).join('')).not.toContain(key.slice(8, 20));
		expect(json).toMatchObject({ event: 'PAYMENT_COMPLETED', data: { orderId: 'ord_test00000001', amount: 12.5, note: 'key [redacted]' } });
		expect((json.meta as IDataObject).deliveryId).toBe(c.headers['webhook-id']);
	});

	test("an event that carries a meta field of its own keeps it; the delivery details go beside it under vaultStoreDelivery", async () => {
		const t = await activeTrigger({ events: ['PAYMENT_COMPLETED'], signatureVersion: 'V2' });
		const c = await emitFor(t, 'PAYMENT_COMPLETED', { orderId: 'ord_test00000001' });
		const body = JSON.parse(c.rawBody.toString('utf8'));
		const withMeta = Buffer.from(JSON.stringify({ ...body, meta: { source: 'checkout', attempt: 2 } }));
		const ts = Math.floor(Date.now() / 1000);
		const r = await deliverTo(t, { rawBody: withMeta, headers: resignV2({ ...c, rawBody: withMeta }, c.headers['webhook-id'], ts) });
		expect(r.status).toBe(200);
		const json = r.items[0].json;
		expect(json.meta).toEqual({ source: 'checkout', attempt: 2 });
		expect(json.vaultStoreDelivery).toMatchObject({ deliveryId: c.headers['webhook-id'], signatureVersion: 'V2' });
	});

	test('the raw bytes are hashed, not the parsed body: a different parsed body does not matter, a different byte does', async () => {
		const t = await activeTrigger({ events: ['PAYMENT_COMPLETED'], signatureVersion: 'V2' });
		const c = await emitFor(t, 'PAYMENT_COMPLETED');
		// The body as re-serialised with other spacing: the same JSON, other bytes.
		const reserialised = Buffer.from(JSON.stringify(JSON.parse(c.rawBody.toString('utf8')), null, 2));
		expectRejected(await deliverTo(t, c, { rawBody: reserialised }), /no signature entry matched/);
		const ok = await deliverTo(t, c, { body: { something: 'else' } });
		expect(ok.items).toHaveLength(1);
		expect(ok.items[0].json.event).toBe('PAYMENT_COMPLETED');
	});

	test('a reused webhook-id with a different, validly signed body is a conflict: 409 and a warning, nothing started, never dropped as a repeat; an exact repeat stays a duplicate', async () => {
		const t = await activeTrigger({ events: ['PAYMENT_COMPLETED'], signatureVersion: 'V2' });
		const c = await emitFor(t, 'PAYMENT_COMPLETED');
		expect((await deliverTo(t, c)).items).toHaveLength(1);
		const body = JSON.parse(c.rawBody.toString('utf8'));
		const other = Buffer.from(JSON.stringify({ ...body, data: { orderId: 'ord_test00000002', amount: 99 } }));
		const start = logLines.length;
		const r = await deliverTo(t, { rawBody: other, headers: resignV2({ ...c, rawBody: other }, c.headers['webhook-id'], Math.floor(Date.now() / 1000)) });
		expect(r.status).toBe(409);
		expect(r.items).toHaveLength(0);
		expect(logLines.slice(start).some((l) => l.startsWith('warn ') && l.includes('reuses the id of an earlier delivery'))).toBe(true);
		// Control: the exact repeat of the first delivery is still a duplicate (200, nothing started).
		expectIgnored(await deliverTo(t, c), 'duplicate delivery');
	});

	test.each([
		['the valid signature in the first copy', (valid: string) => `${valid}, v1,${Buffer.alloc(32).toString('base64')}`],
		['the valid signature in the second copy', (valid: string) => `v1,${Buffer.alloc(32).toString('base64')}, ${valid}`],
		['two copies, each with two entries', (valid: string) => `v1,${Buffer.alloc(32, 1).toString('base64')} v1,${Buffer.alloc(32, 2).toString('base64')}, v1,${Buffer.alloc(32, 3).toString('base64')} ${valid}`],
	])('a proxy that repeats the webhook-signature header (Node joins the copies with ", "): %s is accepted', async (_name, header) => {
		const t = await activeTrigger({ events: ['PAYMENT_COMPLETED'], signatureVersion: 'V2' });
		const c = await emitFor(t, 'PAYMENT_COMPLETED');
		const r = await deliverTo(t, c, { headers: { ...c.headers, 'webhook-signature': header(c.headers['webhook-signature']) } });
		expect(r.status).toBe(200);
		expect(r.items).toHaveLength(1);
	});

	test('control: repeated signature headers with no valid entry are still refused', async () => {
		const t = await activeTrigger({ events: ['PAYMENT_COMPLETED'], signatureVersion: 'V2' });
		const c = await emitFor(t, 'PAYMENT_COMPLETED');
		expectRejected(await deliverTo(t, c, { headers: { ...c.headers, 'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')}, v1,${Buffer.alloc(32, 7).toString('base64')}` } }));
	});

	test('a replayed delivery answers 200 and starts nothing; with Reject Duplicates off it starts again', async () => {
		const t = await activeTrigger({ events: ['PAYMENT_COMPLETED'], signatureVersion: 'V2' });
		const c = await emitFor(t, 'PAYMENT_COMPLETED');
		expectRejected(await deliverTo(t, c, { rawBody: flipped(c.rawBody) }));
		expect((await deliverTo(t, c)).items).toHaveLength(1);
		expectIgnored(await deliverTo(t, c), 'duplicate delivery');
		expectIgnored(await deliverTo(t, c), 'duplicate delivery');
		// A forged copy of an accepted delivery is still a 401, not a duplicate.
		expectRejected(await deliverTo(t, c, { rawBody: flipped(c.rawBody) }));
		t.setParameters({ ...t.node.parameters, options: { rejectDuplicates: false } });
		expect((await deliverTo(t, c)).items).toHaveLength(1);
	});

	test('duplicates are remembered per workflow node: another trigger accepts the same delivery', async () => {
		const a = await activeTrigger({ events: ['PAYMENT_COMPLETED'], signatureVersion: 'V2' });
		const b = await createTrigger({ parameters: a.node.parameters, credentials: f.credentials });
		const c = await emitFor(a, 'PAYMENT_COMPLETED');
		expect((await deliverTo(a, c)).items).toHaveLength(1);
		expect((await deliverTo(b, c)).items).toHaveLength(1);
		expectRejected(await deliverTo(b, c, { headers: resignV2(c, c.headers['webhook-id'], Math.floor(Date.now() / 1000) - 400) }));
	});

	test('a forged delivery (one changed byte, or changed id or timestamp header) answers 401 and starts nothing', async () => {
		const t = await activeTrigger({ events: ['PAYMENT_COMPLETED'], signatureVersion: 'V2' });
		const c = await emitFor(t, 'PAYMENT_COMPLETED', { orderId: 'ord_test00000001', amount: 12.5 });
		const forged = Buffer.from(c.rawBody);
		const at = forged.indexOf('12.5');
		forged[at] = '9'.charCodeAt(0);
		expectRejected(await deliverTo(t, c, { rawBody: forged }), /no signature entry matched/);
		expectRejected(await deliverTo(t, c, { headers: { ...c.headers, 'webhook-id': 'msg_other0000000' } }));
		expectRejected(
			await deliverTo(t, c, { headers: { ...c.headers, 'webhook-timestamp': String(Number(c.headers['webhook-timestamp']) - 1) } }),
		);
		expectRejected(await deliverTo(t, c, { headers: { ...c.headers, 'webhook-signature': 'v1,' + Buffer.alloc(32).toString('base64') } }));
		const { ['webhook-signature']: _dropped, ...unsigned } = c.headers;
		expectRejected(await deliverTo(t, c, { headers: unsigned }), /missing webhook-signature/);
		// The untouched delivery is still accepted: the rejections recorded nothing.
		expect((await deliverTo(t, c)).items).toHaveLength(1);
	});

	test('a stale or future timestamp (301 s) answers 401; 299 s is accepted; a smaller tolerance narrows the window', async () => {
		const t = await activeTrigger({ events: ['PAYMENT_COMPLETED'], signatureVersion: 'V2' });
		const c = await emitFor(t, 'PAYMENT_COMPLETED');
		expectRejected(await deliverTo(t, c, { headers: resignV2(c, 'msg_stale000000001', secondsOld(301, 'at least')) }), /tolerance/);
		expectRejected(await deliverTo(t, c, { headers: resignV2(c, 'msg_future00000001', secondsOld(-301, 'at most')) }), /tolerance/);
		expect((await deliverTo(t, c, { headers: resignV2(c, 'msg_fresh000000001', secondsOld(299, 'at most')) })).items).toHaveLength(1);
		t.setParameters({ ...t.node.parameters, options: { toleranceSeconds: 200 } });
		expectRejected(await deliverTo(t, c, { headers: resignV2(c, 'msg_older000000001', secondsOld(250, 'at least')) }), /tolerance/);
		expect((await deliverTo(t, c, { headers: resignV2(c, 'msg_recent00000001', secondsOld(150, 'at most')) })).items).toHaveLength(1);
	});

	test('Timestamp Tolerance 301 rejects every delivery with 401 naming the option (logged as an error); 300 accepts', async () => {
		const t = await activeTrigger({ events: ['PAYMENT_COMPLETED'], signatureVersion: 'V2', options: { toleranceSeconds: 300 } });
		const c = await emitFor(t, 'PAYMENT_COMPLETED');
		const now = Math.floor(Date.now() / 1000);
		expect((await deliverTo(t, c, { headers: resignV2(c, 'msg_tol300a0000001', secondsOld(299, 'at most')) })).items).toHaveLength(1);

		t.setParameters({ ...t.node.parameters, options: { toleranceSeconds: 301 } });
		const start = logLines.length;
		const r = await deliverTo(t, c, { headers: resignV2(c, 'msg_tol301a0000001', now) });
		expectRejected(r, /"Timestamp Tolerance \(Seconds\)" must be a number from 1 to 300/);
		expect(logLines.slice(start).some((l) => l.startsWith('error ') && l.includes('"Timestamp Tolerance (Seconds)"'))).toBe(true);

		t.setParameters({ ...t.node.parameters, options: { toleranceSeconds: 300 } });
		expect((await deliverTo(t, c, { headers: resignV2(c, 'msg_tol301a0000001', now) })).items).toHaveLength(1);
	});

	test('a V2 endpoint receiving a V1 delivery answers 401 with a version hint; a V1 endpoint accepts a V2 delivery (migrated)', async () => {
		const v2 = await activeTrigger({ events: ['PAYMENT_REFUNDED'], signatureVersion: 'V2' });
		const v1 = await activeTrigger({ events: ['PAYMENT_REFUNDED'], signatureVersion: 'V1' });
		f.sb.emit('PAYMENT_REFUNDED', { refund: 1 });
		const [toV2] = await receiver.waitFor(pathOf(v2), 1);
		const [toV1] = await receiver.waitFor(pathOf(v1), 1);
		expectRejected(await deliverTo(v2, toV1), /V1 format.*set to V2|signature version/);
		// A V2 delivery to a V1 endpoint counts only once the endpoint is V2 at the service (migrated).
		expectRejected(await deliverTo(v1, toV2), /endpoint is V1 at the service/);
		const v1Endpoint = f.sb.state.webhooks.find((w) => w.id === v1.staticData().webhookId)!;
		v1Endpoint.signatureVersion = 'V2';
		const again = await activeTrigger({ events: ['PAYMENT_REFUNDED'], signatureVersion: 'V1' });
		again.staticData().webhookId = v1.staticData().webhookId;
		const migrated = await deliverTo(again, { ...toV2 });
		expect(migrated.items).toHaveLength(1);
		expect(migrated.items[0].json.meta).toMatchObject({ signatureVersion: 'V2' });
		expect((await deliverTo(v2, toV2)).items).toHaveLength(1);
		v1Endpoint.signatureVersion = 'V1';
		expect((await deliverTo(v1, toV1)).items).toHaveLength(1);
	});

	test('after the service migrated a V1 endpoint to V2 and the node kept it at re-activation, deliveries are verified as V2; after a rollback at the service, as V1 (the endpoint is read again)', async () => {
		const t = await activeTrigger({ events: ['PAYMENT_REFUNDED'], signatureVersion: 'V1' });
		const endpoint = f.sb.state.webhooks.find((w) => w.id === t.staticData().webhookId)!;
		endpoint.signatureVersion = 'V2';
		await t.activate(); // unchanged node: the endpoint stays V2
		expect(endpoint.signatureVersion).toBe('V2');
		f.sb.emit('PAYMENT_REFUNDED', { refund: 3 });
		const [asV2] = await receiver.waitFor(pathOf(t), 1);
		expect(JSON.parse(asV2.rawBody.toString('utf8'))).toMatchObject({ event: 'PAYMENT_REFUNDED' });
		expect((await deliverTo(t, asV2)).items).toHaveLength(1);
		endpoint.signatureVersion = 'V1'; // rolled back in the merchant dashboard
		f.sb.emit('PAYMENT_REFUNDED', { refund: 4 });
		const [, asV1] = await receiver.waitFor(pathOf(t), 2);
		expect(asV1.headers['webhook-signature']).toMatch(/^[0-9a-f]{64}$/);
		expect((await deliverTo(t, asV1)).items).toHaveLength(1);
	});

	test('an event that is not selected answers 200 and starts nothing', async () => {
		const t = await activeTrigger({ events: ['PAYMENT_COMPLETED'], signatureVersion: 'V2' });
		const before = receiver.captured.length;
		// A test delivery goes to the endpoint whatever its subscription.
		f.sb.app.deliver(t.staticData().webhookId as string, 'SUBSCRIPTION_UPDATED', { subscriptionId: 'sub_test00000001' });
		const [c] = (await receiver.waitFor(pathOf(t), 1)).filter((x) => receiver.captured.indexOf(x) >= before);
		expect(JSON.parse(c.rawBody.toString('utf8')).event).toBe('SUBSCRIPTION_UPDATED');
		expectIgnored(await deliverTo(t, c), 'event not selected');
		// A forged unselected event is still a 401, not a 200.
		expectRejected(await deliverTo(t, c, { rawBody: Buffer.concat([c.rawBody, Buffer.from(' ')]) }));
	});

	test('a request without a raw body answers 401 even when a parsed body is there', async () => {
		const t = await activeTrigger({ events: ['PAYMENT_COMPLETED'], signatureVersion: 'V2' });
		const c = await emitFor(t, 'PAYMENT_COMPLETED');
		const parsed = JSON.parse(c.rawBody.toString('utf8'));
		expectRejected(await t.deliver({ headers: c.headers, body: parsed }), /raw body/);
		expect((await deliverTo(t, c)).items).toHaveLength(1);
	});

	test('Include Delivery Headers adds headers without signature values', async () => {
		const t = await activeTrigger({ events: ['PAYMENT_COMPLETED'], signatureVersion: 'V2', options: { includeHeaders: true } });
		const c = await emitFor(t, 'PAYMENT_COMPLETED');
		expectRejected(await deliverTo(t, c, { rawBody: flipped(c.rawBody) }));
		const [item] = (await deliverTo(t, c)).items;
		const headers = (item.json.meta as IDataObject).headers as IDataObject;
		expect(headers['webhook-id']).toBe(c.headers['webhook-id']);
		expect(headers['webhook-timestamp']).toBe(c.headers['webhook-timestamp']);
		expect(headers['content-type']).toBe('application/json');
		expect(headers).not.toHaveProperty('webhook-signature');
		expect(JSON.stringify(item.json)).not.toContain(c.headers['webhook-signature']);
	});

	// Issue 52: the headers were added to the item after the output gate. Headers are not signed, so a
	// verified delivery may carry any of them (a proxy on the way, a sender holding the secret).
	test.each([
		['the store key', () => f.sb.store.secretKey],
		['the signing secret', () => f.sb.store.signingSecret],
		['the store key as a bearer token', () => `Bearer ${f.sb.store.secretKey}`],
	])('Include Delivery Headers: a header holding %s reaches the item redacted; the other headers as sent (control)', async (_what, value) => {
		const t = await activeTrigger({ events: ['PAYMENT_COMPLETED'], signatureVersion: 'V2', options: { includeHeaders: true } });
		const c = await emitFor(t, 'PAYMENT_COMPLETED');
		const secretValue = value();
		const [item] = (await deliverTo(t, c, { headers: { ...c.headers, 'x-forwarded-note': secretValue, 'x-plain-note': 'order shipped' } })).items;
		const headers = (item.json.meta as IDataObject).headers as IDataObject;
		expect(headers['x-forwarded-note']).toContain('[redacted]');
		expect(JSON.stringify(item.json)).not.toContain(secretValue.replace(/^Bearer /, '').slice(-12));
		// Control: the header was there, and nothing legitimate changed.
		expect(headers['x-plain-note']).toBe('order shipped');
		expect(headers['webhook-id']).toBe(c.headers['webhook-id']);
		expect(item.json).toMatchObject(JSON.parse(c.rawBody.toString('utf8')));
	});

	// Issue 52: card data in a delivery (a service that sends what it should not) is read by the
	// card-data detector on the trigger item, as in an answer an AI agent reads: a trigger item goes
	// on to whatever the workflow does next. Each row: the sandbox sent it (control), it does not
	// reach the item, and the rest of the delivery is as sent.
	const CARD = '4242424242424242';
	test.each([
		{ what: 'a field named as a card number', data: { card_number: CARD }, gone: [CARD] },
		{ what: 'security-code fields (cvc, cvv_code, cvcValue) at depth', data: { payment: { cvc: '737', cvv_code: '4567', cvcValue: 9876 } }, gone: ['737', '4567', '9876'] },
		{ what: 'a card number in prose, grouped with no-break spaces, with its expiry', data: { note: 'card 4242\u00a04242\u00a04242\u00a04242 exp 12/29' }, gone: ['4242\u00a04242\u00a04242\u00a04242'] },
		{ what: 'a security code in prose', data: { note: 'my CVC is 737, thanks' }, gone: ['737'] },
		{ what: 'a card number in a list of records', data: { lines: [{ memo: `pan ${CARD}` }, { memo: 'gift wrap' }] }, gone: [CARD] },
	])('a delivery carrying $what: the trigger item shows it redacted, the rest as sent', async ({ data, gone }) => {
		const t = await activeTrigger({ events: ['PAYMENT_COMPLETED'], signatureVersion: 'V2' });
		const c = await emitFor(t, 'PAYMENT_COMPLETED', { orderId: 'ord_test00000002', amount: 12.5, ...data });
		const sent = JSON.parse(c.rawBody.toString('utf8')) as IDataObject;
		for (const value of gone) expect(JSON.stringify(sent)).toContain(value);
		const [item] = (await deliverTo(t, c)).items;
		// The delivery's data (the item's meta holds ids and timestamps of its own).
		const out = JSON.stringify(item.json.data);
		for (const value of gone) expect(out).not.toMatch(new RegExp(`(?<![0-9])${value}(?![0-9])`));
		expect(item.json).toMatchObject({ id: sent.id, event: 'PAYMENT_COMPLETED', data: { orderId: 'ord_test00000002', amount: 12.5 } });
	});

	test('a delivery carrying legitimate look-alikes (a last4, a CVC check, dates, invoice and size lists, a phone, an order reference) reaches the item byte for byte', async () => {
		const t = await activeTrigger({ events: ['PAYMENT_COMPLETED'], signatureVersion: 'V2', options: { includeHeaders: true } });
		const data = {
			orderId: 'ord_4000000000000002',
			last4: '4242',
			cvcCheck: 'pass',
			requireCvc: true,
			period: '2026-01-01 to 2026-12-31',
			invoices: 'INV 1001, 1002, 1003, 1004, 1005',
			sizes: '38 40 42 44 46',
			phone: '+1 415 555 0100',
			price: '12.50',
			amount: 1250,
			note: 'Leave at the door, the code word is blue; call 0800 123 456',
		};
		const c = await emitFor(t, 'PAYMENT_COMPLETED', data);
		const [item] = (await deliverTo(t, c, { headers: { ...c.headers, 'x-note': 'ticket 2026-11-29 1001 1002' } })).items;
		expect(item.json.data).toEqual(data);
		expect((item.json.meta as IDataObject).headers).toMatchObject({ 'x-note': 'ticket 2026-11-29 1001 1002' });
		// Control: the same header holding a card number is redacted.
		const again = await emitFor(t, 'PAYMENT_COMPLETED', data);
		const [carded] = (await deliverTo(t, again, { headers: { ...again.headers, 'x-note': `card ${CARD}` } })).items;
		expect((carded.json.meta as IDataObject).headers).toMatchObject({ 'x-note': 'card [redacted]' });
	});

	test('a wrong or missing signing secret rejects; a missing one is logged naming the credential field', async () => {
		const t = await activeTrigger({ events: ['PAYMENT_COMPLETED'], signatureVersion: 'V2' });
		const c = await emitFor(t, 'PAYMENT_COMPLETED');
		const other = 'whsec_' + Buffer.alloc(24, 7).toString('base64');
		const wrong = await createTrigger({
			parameters: t.node.parameters,
			credentials: { ...f.credentials, vaultStoreStoreApi: { ...f.credentials.vaultStoreStoreApi, signingSecret: other } },
		});
		expectRejected(await deliverTo(wrong, c), /no signature entry matched/);
		const none = await createTrigger({
			parameters: t.node.parameters,
			credentials: { ...f.credentials, vaultStoreStoreApi: { ...f.credentials.vaultStoreStoreApi, signingSecret: '' } },
		});
		const start = logLines.length;
		expectRejected(await deliverTo(none, c), /no signing secret/);
		expect(logLines.slice(start).some((l) => l.startsWith('error ') && l.includes('"Webhook Signing Secret"'))).toBe(true);
	});

	test('a signing secret kept in static data (returned at creation) is used only while the credential still has the secret it was bound to', async () => {
		const t = await activeTrigger({ events: ['PAYMENT_COMPLETED'], signatureVersion: 'V2' });
		const c = await emitFor(t, 'PAYMENT_COMPLETED');
		const returned = 'whsec_' + Buffer.alloc(24, 9).toString('base64');
		// Bound to the credential as it is: the returned secret verifies, the credential's does not.
		t.staticData().signingSecret = returned;
		t.staticData().signingSecretFor = bindingOf(returned, secret());
		expectRejected(await deliverTo(t, c), /no signature entry matched/);
		// Bound to another credential secret (the credential changed since): the credential wins.
		t.staticData().signingSecretFor = bindingOf(returned, 'whsec_' + Buffer.alloc(24, 8).toString('base64'));
		expect((await deliverTo(t, c)).items).toHaveLength(1);
		// Without a binding (older static data) a credential secret wins too.
		delete t.staticData().signingSecretFor;
		expect((await deliverTo(t, c, { headers: { ...c.headers } })).status).not.toBe(401);
		delete t.staticData().signingSecret;
	});
});

describe('V1 deliveries (deprecated)', () => {
	test('a real V1 delivery produces one item; replays (also with another webhook-id header) start nothing', async () => {
		const t = await activeTrigger({ events: ['SUBSCRIPTION_RENEWING'], signatureVersion: 'V1' });
		const c = await emitFor(t, 'SUBSCRIPTION_RENEWING', { subscriptionId: 'sub_test00000001' });
		expect(c.headers['webhook-signature']).toMatch(/^[0-9a-f]{64}$/);
		const r = await deliverTo(t, c);
		expect(r.items).toHaveLength(1);
		expect(r.items[0].json).toMatchObject({ event: 'SUBSCRIPTION_RENEWING', data: { subscriptionId: 'sub_test00000001' } });
		expect(r.items[0].json.meta).toEqual({
			deliveryId: c.headers['webhook-id'],
			timestamp: Math.floor(Number(c.headers['webhook-timestamp']) / 1000),
			signatureVersion: 'V1',
			legacy: false,
			signingKey: 'secret-text',
		});
		expect(c.headers['webhook-id']).toMatch(new RegExp(`^${t.staticData().webhookId}/`));
		expectIgnored(await deliverTo(t, c), 'duplicate delivery');
		// V1 does not sign webhook-id; the signed body's message id still identifies the replay.
		expectIgnored(await deliverTo(t, c, { headers: { ...c.headers, 'webhook-id': 'whk_x/job_forged' } }), 'duplicate delivery');
	});

	test('a V1 delivery without a body id, replayed with a fresh Webhook-Id, starts one execution only', async () => {
		const t = await activeTrigger({ events: ['SUBSCRIPTION_RENEWING'], signatureVersion: 'V1' });
		const body = JSON.stringify({ event: 'SUBSCRIPTION_RENEWING', data: { subscriptionId: 'sub_noid00000001' } });
		const d = v1Delivery(body, Date.now(), `${t.staticData().webhookId}/job_first`);
		expect((await deliverTo(t, d)).items).toHaveLength(1);
		// Webhook-Id is not covered by a V1 signature: a fresh one does not make a new delivery.
		expectIgnored(await deliverTo(t, d, { headers: { ...d.headers, 'webhook-id': `${t.staticData().webhookId}/job_fresh` } }), 'duplicate delivery');
		expectIgnored(await deliverTo(t, d, { headers: { ...d.headers, 'webhook-id': 'whk_other0000001/job_other' } }), 'duplicate delivery');
		const { ['webhook-id']: _id, ...withoutId } = d.headers;
		expectRejected(await deliverTo(t, d, { headers: withoutId }), /missing webhook-id/);
	});

	test('two different valid V1 deliveries both run: the V1 duplicate key is a hash of the signed timestamp and body', async () => {
		const t = await activeTrigger({ events: ['SUBSCRIPTION_RENEWING'], signatureVersion: 'V1' });
		const now = Date.now();
		const first = JSON.stringify({ event: 'SUBSCRIPTION_RENEWING', data: { subscriptionId: 'sub_first0000001' } });
		const second = JSON.stringify({ event: 'SUBSCRIPTION_RENEWING', data: { subscriptionId: 'sub_second000001' } });
		// The same Webhook-Id on both: V1 ids are unsigned and not used as the key.
		const a = v1Delivery(first, now, 'whk_same00000001/job_1');
		const b = v1Delivery(second, now, 'whk_same00000001/job_1');
		expect((await deliverTo(t, a)).items).toHaveLength(1);
		const rb = await deliverTo(t, b);
		expect(rb.items).toHaveLength(1);
		expect(rb.items[0].json.data).toEqual({ subscriptionId: 'sub_second000001' });
		// The same body signed at another time is another signed content, hence another delivery.
		expect((await deliverTo(t, v1Delivery(first, now - 1000, 'whk_same00000001/job_1'))).items).toHaveLength(1);
		expectIgnored(await deliverTo(t, a), 'duplicate delivery');
		expectIgnored(await deliverTo(t, b), 'duplicate delivery');
	});

	test('legacy body-only deliveries are duplicates by their body whatever the id headers; a V1 delivery stripped to its legacy header is a duplicate too', async () => {
		const t = await activeTrigger({
			events: ['SUBSCRIPTION_RENEWING'],
			signatureVersion: 'V1',
			options: { acceptBodyOnlySignature: true },
		});
		const body = JSON.stringify({ event: 'SUBSCRIPTION_RENEWING', data: { subscriptionId: 'sub_legacy000001' } });
		const legacy = legacyDelivery(body, Date.now(), 'whk_legacy000001/job_1');
		const r = await deliverTo(t, legacy);
		expect(r.items).toHaveLength(1);
		expect(r.items[0].json.meta).toMatchObject({ legacy: true });
		// The timestamp and ids of a legacy delivery are not signed: new values do not make it new.
		expectIgnored(
			await deliverTo(t, legacyDelivery(body, Date.now() + 1000, 'whk_legacy000001/job_2', 'whk_legacy000001/job_3')),
			'duplicate delivery',
		);
		const other = JSON.stringify({ event: 'SUBSCRIPTION_RENEWING', data: { subscriptionId: 'sub_legacy000002' } });
		expect((await deliverTo(t, legacyDelivery(other, Date.now(), 'whk_legacy000001/job_1'))).items).toHaveLength(1);

		// A full V1 delivery, then the same bytes sent again with only the legacy headers.
		const full = JSON.stringify({ event: 'SUBSCRIPTION_RENEWING', data: { subscriptionId: 'sub_legacy000003' } });
		const now = Date.now();
		const v1 = v1Delivery(full, now, 'whk_legacy000001/job_9');
		expect((await deliverTo(t, v1)).items).toHaveLength(1);
		expectIgnored(await deliverTo(t, legacyDelivery(full, now, 'whk_legacy000001/job_10')), 'duplicate delivery');
	});

	test('forged and stale V1 deliveries answer 401', async () => {
		const t = await activeTrigger({ events: ['SUBSCRIPTION_RENEWING'], signatureVersion: 'V1' });
		const c = await emitFor(t, 'SUBSCRIPTION_RENEWING');
		const forged = Buffer.from(c.rawBody);
		forged[forged.length - 2] ^= 1;
		expectRejected(await deliverTo(t, c, { rawBody: forged }), /did not match/);
		const now = Date.now();
		expectRejected(await deliverTo(t, c, { headers: resignV1(c, now - 301_000) }), /tolerance/);
		expectRejected(await deliverTo(t, c, { headers: resignV1(c, now + 301_000) }), /tolerance/);
		expect((await deliverTo(t, c, { headers: resignV1(c, now - 299_000) })).items).toHaveLength(1);
	});

	test('the legacy body-only X-Service-Signature is accepted only with the option, and is marked legacy', async () => {
		const t = await activeTrigger({ events: ['SUBSCRIPTION_RENEWING'], signatureVersion: 'V1' });
		const c = await emitFor(t, 'SUBSCRIPTION_RENEWING');
		const { ['webhook-signature']: _s, ['webhook-timestamp']: _t, ...legacyOnly } = c.headers;
		expect(legacyOnly['x-service-signature']).toMatch(/^[0-9a-f]{64}$/);
		expectRejected(await deliverTo(t, c, { headers: legacyOnly }), /legacy|webhook-signature/);

		t.setParameters({ ...t.node.parameters, options: { acceptBodyOnlySignature: true } });
		const forged = Buffer.from(c.rawBody);
		forged[forged.length - 2] ^= 1;
		expectRejected(await deliverTo(t, c, { headers: legacyOnly, rawBody: forged }), /body-only signature did not match/);
		const r = await deliverTo(t, c, { headers: legacyOnly });
		expect(r.items).toHaveLength(1);
		expect(r.items[0].json.meta).toMatchObject({ signatureVersion: 'V1', legacy: true });
	});
});

describe('V1 to V2 migration, V1 key forms, secret rotation and All Events', () => {
	function endpointOf(t: TriggerInstance) {
		const endpoint = f.sb.state.webhooks.find((w) => w.id === t.staticData().webhookId);
		if (!endpoint) throw new Error('endpoint not registered');
		return endpoint;
	}
	function withStoreCredential(fields: IDataObject): CredentialSet {
		return { ...f.credentials, vaultStoreStoreApi: { ...f.credentials.vaultStoreStoreApi, ...fields } } as CredentialSet;
	}
	/** A delivery test-sent to the trigger's endpoint whatever its subscription. */
	async function testDelivery(t: TriggerInstance, event: string, data: IDataObject): Promise<Captured> {
		const before = receiver.captured.filter((c) => c.path === pathOf(t)).length;
		f.sb.app.deliver(t.staticData().webhookId as string, event, data);
		return (await receiver.waitFor(pathOf(t), before + 1))[before];
	}
	const whsec = (fill: number, length = 24): string => `whsec_${Buffer.alloc(length, fill).toString('base64')}`;

	test('a V1-configured trigger accepts a valid V2 delivery (endpoint migrated by the service), marks it V2 and warns once; forged V2 deliveries are refused', async () => {
		const t = await activeTrigger({ events: ['PAYMENT_COMPLETED'], signatureVersion: 'V1' });
		endpointOf(t).signatureVersion = 'V2';
		const c = await emitFor(t, 'PAYMENT_COMPLETED');
		expect(c.headers['webhook-signature']).toMatch(/^v1,/);
		const start = logLines.length;
		const r = await deliverTo(t, c);
		expect(r.items).toHaveLength(1);
		expect(r.items[0].json.meta).toEqual({
			deliveryId: c.headers['webhook-id'],
			timestamp: Number(c.headers['webhook-timestamp']),
			signatureVersion: 'V2',
			legacy: false,
		});
		expect((await deliverTo(t, await emitFor(t, 'PAYMENT_COMPLETED'))).items).toHaveLength(1);
		const warnings = logLines.slice(start).filter((l) => l.startsWith('warn ') && l.includes('seems to have been migrated to V2'));
		expect(warnings).toHaveLength(1);
		expect(warnings[0]).toContain('Set Signature Version to V2');

		// The endpoint is known to be V2 now: forged deliveries fail V2 verification.
		expectRejected(await deliverTo(t, c, { rawBody: flipped(c.rawBody) }), /no signature entry matched/);
		expectRejected(await deliverTo(t, c, { headers: { ...c.headers, 'webhook-id': 'msg_forged000001' } }), /no signature entry matched/);
		const ts = c.headers['webhook-timestamp'];
		const wrongKey = signV2(whsec(3), c.headers['webhook-id'], ts, c.rawBody.toString('utf8'));
		expectRejected(await deliverTo(t, c, { headers: { ...c.headers, 'webhook-signature': wrongKey } }), /no signature entry matched/);
	});

	test('a V2-configured trigger refuses valid V1 and legacy deliveries (no downgrade), also with Accept Body-Only Signature on', async () => {
		const t = await activeTrigger({ events: ['PAYMENT_COMPLETED'], signatureVersion: 'V2', options: { acceptBodyOnlySignature: true } });
		// A V1-signed delivery (the sandbox signs it while the endpoint is V1 for a moment); at the
		// service the endpoint is V2, which the trigger reads again before any V1 delivery counts.
		endpointOf(t).signatureVersion = 'V1';
		const c = await emitFor(t, 'PAYMENT_COMPLETED');
		endpointOf(t).signatureVersion = 'V2';
		expect(c.headers['webhook-signature']).toMatch(/^[0-9a-f]{64}$/);
		expect(c.headers['x-service-signature']).toMatch(/^[0-9a-f]{64}$/);
		expectRejected(await deliverTo(t, c), /bare hex \(V1 format\) but this endpoint is set to V2/);
		const { ['webhook-signature']: _s, ['webhook-timestamp']: _t, ['webhook-id']: _i, ...legacyOnly } = c.headers;
		expectRejected(await deliverTo(t, c, { headers: legacyOnly }), /missing webhook-id/);
		expectRejected(await deliverTo(t, c, { headers: { ...legacyOnly, 'webhook-id': c.headers['webhook-id'] } }), /missing webhook-timestamp/);
		// The same trigger takes the V2 delivery of the same event.
		expect((await deliverTo(t, await emitFor(t, 'PAYMENT_COMPLETED'))).items).toHaveLength(1);
	});

	test('a legacy V1 delivery (only the X-Service-* headers) to a V2 trigger gets 401 with the hint to check the signature version', async () => {
		const t = await activeTrigger({ events: ['PAYMENT_COMPLETED'], signatureVersion: 'V2' });
		endpointOf(t).signatureVersion = 'V1';
		const c = await emitFor(t, 'PAYMENT_COMPLETED');
		endpointOf(t).signatureVersion = 'V2';
		const { ['webhook-signature']: _s, ['webhook-timestamp']: _t, ['webhook-id']: _i, ...legacyOnly } = c.headers;
		expect(Object.keys(legacyOnly).filter((h) => h.startsWith('x-service-')).sort()).toEqual(['x-service-idempotency', 'x-service-signature', 'x-service-timestamp']);
		const hint = /^missing webhook-id header: the delivery looks like V1 \(legacy X-Service-Signature headers\) but this endpoint is set to V2: check its signature version$/;
		expectRejected(await deliverTo(t, c, { headers: legacyOnly }), hint);
		// A V1 signature without its webhook-id (bare hex) gets the hint too.
		const { ['webhook-id']: _id, ...v1WithoutId } = c.headers;
		const { ['x-service-signature']: _x, ['x-service-timestamp']: _y, ['x-service-idempotency']: _z, ...bareHexOnly } = v1WithoutId;
		expectRejected(await deliverTo(t, c, { headers: bareHexOnly }), /^missing webhook-id header: the delivery looks like V1 \(a bare hex signature\) but this endpoint is set to V2: check its signature version$/);
		// Control: a V2 delivery that only lacks its webhook-id has no V1 mark and gets no such hint.
		const v2 = await emitFor(t, 'PAYMENT_COMPLETED');
		const { ['webhook-id']: _v2id, ...v2WithoutId } = v2.headers;
		expectRejected(await deliverTo(t, v2, { headers: v2WithoutId }), /^missing webhook-id header$/);
	});

	test('V1 accepts a signature keyed with the secret text or with the decoded whsec_ key, and reports which in meta.signingKey', async () => {
		const t = await activeTrigger({ events: ['SUBSCRIPTION_RENEWING'], signatureVersion: 'V1', options: { rejectDuplicates: false } });
		const c = await emitFor(t, 'SUBSCRIPTION_RENEWING');
		expect((await deliverTo(t, c)).items[0].json.meta).toMatchObject({ signatureVersion: 'V1', signingKey: 'secret-text' });
		const ts = c.headers['webhook-timestamp'];
		const decodedKey = createHmac('sha256', decodeSigningSecret(secret())).update(`${ts}.`).update(c.rawBody).digest('hex');
		const r = await deliverTo(t, c, { headers: { ...c.headers, 'webhook-signature': decodedKey } });
		expect(r.items).toHaveLength(1);
		expect(r.items[0].json.meta).toMatchObject({ signatureVersion: 'V1', signingKey: 'decoded-key' });
		// Neither form of another secret.
		const other = whsec(4);
		expectRejected(await deliverTo(t, c, { headers: { ...c.headers, 'webhook-signature': hmacHex(other, `${ts}.${c.rawBody.toString('utf8')}`) } }), /did not match/);
		const otherDecoded = createHmac('sha256', decodeSigningSecret(other)).update(`${ts}.`).update(c.rawBody).digest('hex');
		expectRejected(await deliverTo(t, c, { headers: { ...c.headers, 'webhook-signature': otherDecoded } }), /did not match/);
	});

	test('V1 accepts an upper-case hex signature (either key form)', async () => {
		const t = await activeTrigger({ events: ['SUBSCRIPTION_RENEWING'], signatureVersion: 'V1', options: { rejectDuplicates: false } });
		const c = await emitFor(t, 'SUBSCRIPTION_RENEWING');
		const upper = await deliverTo(t, c, { headers: { ...c.headers, 'webhook-signature': c.headers['webhook-signature'].toUpperCase() } });
		expect(upper.items).toHaveLength(1);
		expect(upper.items[0].json.meta).toMatchObject({ signingKey: 'secret-text' });
		const ts = c.headers['webhook-timestamp'];
		const decodedKey = createHmac('sha256', decodeSigningSecret(secret())).update(`${ts}.`).update(c.rawBody).digest('hex');
		const r = await deliverTo(t, c, { headers: { ...c.headers, 'webhook-signature': decodedKey.toUpperCase() } });
		expect(r.items[0].json.meta).toMatchObject({ signingKey: 'decoded-key' });
		expectRejected(await deliverTo(t, c, { rawBody: flipped(c.rawBody), headers: { ...c.headers, 'webhook-signature': c.headers['webhook-signature'].toUpperCase() } }), /did not match/);
	});

	test('an unpadded whsec_ signing secret in the credential activates and verifies deliveries', async () => {
		const key = Buffer.from(Array.from({ length: 32 }, (_, i) => (i * 29 + 3) & 0xff));
		const padded = `whsec_${key.toString('base64')}`;
		const unpadded = padded.replace(/=+$/, '');
		expect(unpadded).not.toBe(padded);
		const t = await activeTrigger({ events: ['PAYMENT_COMPLETED'], signatureVersion: 'V2' }, withStoreCredential({ signingSecret: unpadded }));
		const body = JSON.stringify({ id: 'msg_unpadded00001', event: 'PAYMENT_COMPLETED', data: {} });
		const ts = String(Math.floor(Date.now() / 1000));
		const headers = { 'content-type': 'application/json', 'webhook-id': 'msg_unpadded00001', 'webhook-timestamp': ts, 'webhook-signature': signV2(padded, 'msg_unpadded00001', ts, body) };
		expect((await t.deliver({ rawBody: Buffer.from(body), headers })).items).toHaveLength(1);
		expectRejected(await t.deliver({ rawBody: flipped(Buffer.from(body)), headers }), /no signature entry matched/);
	});

	test('with a Previous Signing Secret, deliveries signed with either secret start the workflow and meta.signingSecret says which; a third secret is refused', async () => {
		// Rotation step 2: the credential holds the new secret, the service still signs with the old one.
		const next = whsec(0x33);
		const rotating = withStoreCredential({ signingSecret: next, previousSigningSecret: secret() });
		const t = await activeTrigger({ events: ['PAYMENT_COMPLETED'], signatureVersion: 'V2' }, rotating);
		const c = await emitFor(t, 'PAYMENT_COMPLETED');
		const old = await deliverTo(t, c);
		expect(old.items).toHaveLength(1);
		expect(old.items[0].json.meta).toMatchObject({ signatureVersion: 'V2', signingSecret: 'previous' });

		const ts = String(Math.floor(Date.now() / 1000));
		const resigned = (key: string, id: string): Record<string, string> => ({
			...c.headers,
			'webhook-id': id,
			'webhook-timestamp': ts,
			'webhook-signature': signV2(key, id, ts, c.rawBody.toString('utf8')),
		});
		const current = await deliverTo(t, c, { headers: resigned(next, 'msg_rotatednew001') });
		expect(current.items).toHaveLength(1);
		expect(current.items[0].json.meta).toMatchObject({ signingSecret: 'current' });
		expectRejected(await deliverTo(t, c, { headers: resigned(whsec(0x44), 'msg_rotatedthird1') }), /no signature entry matched/);

		// Rotation step 4: the previous secret cleared, the old secret's deliveries are refused.
		const done = await createTrigger({ parameters: t.node.parameters, credentials: withStoreCredential({ signingSecret: next }) });
		expectRejected(await deliverTo(done, c, { headers: resigned(secret(), 'msg_rotatedold001') }), /no signature entry matched/);
		const after = await deliverTo(done, c, { headers: resigned(next, 'msg_rotatedafter1') });
		expect(after.items[0].json.meta).not.toHaveProperty('signingSecret');
	});

	test('All Events: every payment and subscription event starts the workflow; Payment Dispute Prevented only when selected too', async () => {
		const t = await activeTrigger({ events: ['*'], signatureVersion: 'V2' });
		expect(endpointOf(t).eventTypes).toHaveLength(11);
		expect(endpointOf(t).eventTypes).not.toContain('PAYMENT_DISPUTE_PREVENTED');
		for (const event of ['PAYMENT_PENDING', 'SUBSCRIPTION_TRIAL_ENDING']) {
			const r = await deliverTo(t, await emitFor(t, event));
			expect(r.items).toHaveLength(1);
			expect(r.items[0].json.event).toBe(event);
		}
		const prevented = await testDelivery(t, 'PAYMENT_DISPUTE_PREVENTED', { disputeId: 'dsp_test00000001' });
		expectIgnored(await deliverTo(t, prevented), 'event not selected');
		t.setParameters({ ...t.node.parameters, events: ['*', 'PAYMENT_DISPUTE_PREVENTED'] });
		const resigned = resignV2(prevented, 'msg_preventedopt1', Math.floor(Date.now() / 1000));
		const r = await deliverTo(t, prevented, { headers: resigned });
		expect(r.items).toHaveLength(1);
		expect(r.items[0].json.event).toBe('PAYMENT_DISPUTE_PREVENTED');
	});
});

describe('through the sandbox retry machinery', () => {
	/** The receiver hands every attempt to webhook() and answers with its status; the first attempt is corrupted on the way. */
	function forward(t: TriggerInstance, results: DeliveryResult[]): void {
		receiver.handlers.set(pathOf(t), async (c) => {
			const rawBody = Buffer.from(c.rawBody);
			if (c.n === 1) rawBody[rawBody.length - 2] ^= 1;
			const r = await t.deliver({ rawBody, headers: c.headers });
			results.push(r);
			return { status: r.status, body: r.body ?? { message: 'Workflow was started' } };
		});
	}

	test.each(['V2', 'V1'] as const)(
		'%s: a first attempt rejected with 401 is retried, re-signed with the same id, and the retry is accepted once',
		async (version) => {
			const t = await activeTrigger({ events: ['PAYMENT_FAILED'], signatureVersion: version });
			const results: DeliveryResult[] = [];
			forward(t, results);
			const attemptsBefore = f.sb.deliveries.length;
			const [messageId] = f.sb.emit('PAYMENT_FAILED', { orderId: 'ord_test00000001' });
			const got = await receiver.waitFor(pathOf(t), 2);
			await f.sb.waitForDeliveries(attemptsBefore + 2);
			const attempts = f.sb.deliveries.filter((a) => a.messageId === messageId);
			expect(attempts.map((a) => a.status)).toEqual([401, 200]);
			expect(results.map((r) => r.status)).toEqual([401, 200]);
			expect(results.map((r) => r.items.length)).toEqual([0, 1]);
			expect(got[0].headers['webhook-id']).toBe(got[1].headers['webhook-id']);
			const [ts1, ts2] = got.map((g) => Number(g.headers['webhook-timestamp']));
			expect(ts2).toBeGreaterThanOrEqual(ts1);
			if (version === 'V1') expect(ts2).toBeGreaterThan(ts1); // milliseconds: a fresh stamp
			expect(results[1].items[0].json).toMatchObject({ id: messageId, event: 'PAYMENT_FAILED' });
			// No further attempts after the success, and the same delivery again is a duplicate.
			expectIgnored(await deliverTo(t, got[1]), 'duplicate delivery');
		},
	);
});
