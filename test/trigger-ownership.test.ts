/**
 * Issue 54, points 2 to 4: the trigger proves what it acts on. Before it keeps, updates (PATCH) or
 * deletes an endpoint, it reads it (GET) and compares the URL the service stores with this
 * workflow's webhook URL, as URLs (WHATWG normal form). The URL in a registration answer is no
 * proof, nor is a read without a URL; a read answered 404 is not a deletion. Each test counts the
 * requests the service saw and has a control.
 */
import type { IDataObject } from 'n8n-workflow';

import { sameUrl } from '../nodes/VaultStoreTrigger/ownership';

import { useSandbox } from './support/fixtures';
import { logLines } from './support/harness';
import type { TriggerInstance } from './support/trigger-harness';
import { createTrigger } from './support/trigger-harness';

const f = useSandbox();

const PARAMS = {
	events: ['PAYMENT_COMPLETED', 'SUBSCRIPTION_RENEWING'],
	signatureVersion: 'V2',
	note: 'ownership test',
	options: {},
};

const OTHER_INTEGRATION = 'https://other-integration.example.test/hook';

async function trigger(webhookBaseUrl: string, parameters: IDataObject = PARAMS): Promise<TriggerInstance> {
	return await createTrigger({ parameters, credentials: f.credentials, webhookBaseUrl });
}

/** The methods of the requests the service saw for endpoint `id` (GET, PATCH, DELETE), in order. */
function methodsFor(id: string): string[] {
	return f.requests().filter((r) => r.path.endsWith(`/webhooks/${id}`)).map((r) => r.method);
}

function registrations(): number {
	return f.requests().filter((r) => r.method === 'POST' && /\/webhooks$/.test(r.path)).length;
}

function endpoint(id: string) {
	return f.sb.state.webhooks.find((w) => w.id === id);
}

/** The next reads (GET) of endpoint `id` answer as given, without the handler running. */
function answerReads(id: string, status: number, body: unknown, count = 100): void {
	f.sb.faults.add({ match: { method: 'GET', path: new RegExp(`/webhooks/${id}$`) }, kind: 'reply', status, reply: { body }, count });
}

function readsAnswer404(id: string, count = 100): void {
	answerReads(id, 404, { ok: false, error: { message: 'Webhook endpoint not found' } }, count);
}

/** Every DELETE of an endpoint answers 500 until the faults are cleared. */
function failDeletes(): void {
	f.sb.faults.add({ match: { method: 'DELETE', path: /\/webhooks\// }, kind: '500', count: 1000 });
}

function warningsSince(start: number): string[] {
	return logLines.slice(start).filter((l) => l.startsWith('warn '));
}

const started: TriggerInstance[] = [];

async function activated(webhookBaseUrl: string, parameters: IDataObject = PARAMS): Promise<{ t: TriggerInstance; id: string }> {
	const t = await trigger(webhookBaseUrl, parameters);
	started.push(t);
	await t.activate();
	return { t, id: t.staticData().webhookId as string };
}

afterEach(async () => {
	f.sb.faults.clear();
	f.sb.hostile.normaliseWebhookUrls = false;
	for (const t of started.splice(0)) await t.delete().catch(() => undefined);
});

describe('ownership is read, never echoed', () => {
	test('a registration answer naming another integration\'s endpoint with this workflow\'s URL and another version: read, refused; no PATCH and no DELETE of it; control: an answer naming this workflow\'s own endpoint is set back and kept', async () => {
		const { t: integration, id: otherId } = await activated('https://n8n.example.test/webhook-integration', { ...PARAMS, signatureVersion: 'V1' });
		endpoint(otherId)!.url = OTHER_INTEGRATION;
		integration.staticData().webhookId = undefined; // that endpoint belongs to another integration now
		const t = await trigger('https://n8n.example.test/webhook-echo');
		started.push(t);
		f.sb.clearRequests();
		f.sb.faults.add({
			match: { method: 'POST', path: /\/webhooks$/ },
			kind: 'reply',
			status: 201,
			reply: { body: { ok: true, data: { id: otherId, url: t.webhookUrl(), eventTypes: PARAMS.events, signatureVersion: 'V1' } } },
		});
		await expect(t.create()).rejects.toThrow(/points at https:\/\/other-integration\.example\.test\/hook, not at this workflow's webhook URL/);
		expect(methodsFor(otherId)).toEqual(['GET']); // no PATCH, no DELETE
		expect(endpoint(otherId)).toMatchObject({ url: OTHER_INTEGRATION, signatureVersion: 'V1' });
		expect(t.staticData().webhookId).toBeUndefined();
		f.sb.clearRequests();
		await t.delete();
		expect(methodsFor(otherId)).toEqual([]);

		// Control: the same answer naming an endpoint the service stores with this workflow's URL.
		const { t: own, id: ownId } = await activated('https://n8n.example.test/webhook-own');
		for (const key of Object.keys(own.staticData())) delete own.staticData()[key];
		endpoint(ownId)!.signatureVersion = 'V1';
		f.sb.clearRequests();
		f.sb.faults.add({
			match: { method: 'POST', path: /\/webhooks$/ },
			kind: 'reply',
			status: 201,
			reply: { body: { ok: true, data: { id: ownId, url: own.webhookUrl(), eventTypes: PARAMS.events, signatureVersion: 'V1' } } },
		});
		expect(await own.create()).toBe(true);
		expect(methodsFor(ownId)).toEqual(['GET', 'PATCH', 'GET']);
		expect(endpoint(ownId)).toMatchObject({ url: own.webhookUrl(), signatureVersion: 'V2' });
		expect(own.staticData().webhookId).toBe(ownId);
	});

	test('a registration answer whose URL is this workflow\'s, for an endpoint whose read shows no URL: not kept, not changed', async () => {
		const { id: otherId } = await activated('https://n8n.example.test/webhook-hidden');
		const t = await trigger('https://n8n.example.test/webhook-echo2');
		started.push(t);
		answerReads(otherId, 200, { ok: true, data: { id: otherId, eventTypes: PARAMS.events, signatureVersion: 'V1' } });
		f.sb.faults.add({
			match: { method: 'POST', path: /\/webhooks$/ },
			kind: 'reply',
			status: 201,
			reply: { body: { ok: true, data: { id: otherId, url: t.webhookUrl(), eventTypes: PARAMS.events, signatureVersion: 'V1' } } },
		});
		f.sb.clearRequests();
		await expect(t.create()).rejects.toThrow(/whose URL could not be read \(the read shows none\)/);
		expect(methodsFor(otherId)).toEqual(['GET']);
		expect(endpoint(otherId)).toMatchObject({ signatureVersion: 'V2' });
		expect(t.staticData().webhookId).toBeUndefined();
	});

	test('a read without a URL proves nothing: re-activation forgets the endpoint with a warning (no PATCH, no DELETE) and registers anew; control: the same read with the URL updates it in place', async () => {
		const { t, id } = await activated('https://n8n.example.test/webhook-nourl');
		t.setParameters({ ...PARAMS, events: ['PAYMENT_COMPLETED'] }); // it differs now: a proven endpoint would be PATCHed
		answerReads(id, 200, { ok: true, data: { id, eventTypes: PARAMS.events, note: PARAMS.note, signatureVersion: 'V2' } });
		f.sb.clearRequests();
		const start = logLines.length;
		expect(await t.checkExists()).toBe(false);
		expect(methodsFor(id)).toEqual(['GET']);
		expect(t.staticData().webhookId).toBeUndefined();
		expect(warningsSince(start).join('\n')).toMatch(new RegExp(`${id} shows no URL when read, so it cannot be proven this workflow's`));
		expect(endpoint(id)!.eventTypes).toEqual(PARAMS.events);

		// Control: the read shows the URL; the endpoint is updated in place and kept.
		f.sb.faults.clear();
		t.staticData().webhookId = id;
		f.sb.clearRequests();
		expect(await t.checkExists()).toBe(true);
		expect(methodsFor(id)).toEqual(['GET', 'PATCH']);
		expect(t.staticData().webhookId).toBe(id);
		expect(endpoint(id)!.eventTypes).toEqual(['PAYMENT_COMPLETED']);
	});

	test('a copy of the workflow imported elsewhere with its static data, on a service whose read shows no URL: it neither updates nor deletes the original\'s endpoint; control: the original deletes it', async () => {
		const { t: original, id } = await activated('https://n8n.example.test/webhook-original');
		const copy = await trigger('https://copy.example.test/webhook', { ...PARAMS, note: 'the copy' });
		started.push(copy);
		Object.assign(copy.staticData(), JSON.parse(JSON.stringify(original.staticData())) as IDataObject);
		answerReads(id, 200, { ok: true, data: { id, eventTypes: PARAMS.events, note: PARAMS.note, signatureVersion: 'V2' } });
		f.sb.clearRequests();
		await copy.activate(); // forgets it, registers its own
		expect(methodsFor(id)).toEqual(['GET']);
		const copyId = copy.staticData().webhookId as string;
		expect(copyId).not.toBe(id);
		Object.assign(copy.staticData(), { staleWebhookIds: [id] }); // also when held as a stale id
		f.sb.clearRequests();
		expect(await copy.delete()).toBe(true);
		expect(methodsFor(id)).toEqual(['GET']); // read, not deleted
		expect(copy.staticData()).toEqual({});
		expect(endpoint(id)).toMatchObject({ url: original.webhookUrl(), note: PARAMS.note });
		expect(endpoint(copyId)).toBeUndefined(); // its own endpoint: read with its URL, deleted

		// Control: the original reads its URL and deletes its endpoint.
		f.sb.faults.clear();
		f.sb.clearRequests();
		expect(await original.delete()).toBe(true);
		expect(methodsFor(id)).toEqual(['GET', 'DELETE']);
		expect(endpoint(id)).toBeUndefined();
	});
});

describe('a failed read is not a deletion', () => {
	test('deactivation after a read answered 404 sends exactly one DELETE, and the endpoint is gone; control: a proven endpoint gets one DELETE too, and one deleted meanwhile reports success', async () => {
		const { t, id } = await activated('https://n8n.example.test/webhook-404');
		readsAnswer404(id);
		f.sb.clearRequests();
		expect(await t.delete()).toBe(true);
		expect(methodsFor(id)).toEqual(['GET', 'DELETE']);
		expect(endpoint(id)).toBeUndefined();
		expect(t.staticData()).toEqual({});

		// Control: truly gone (the DELETE answers 404 as well): success, one DELETE.
		f.sb.faults.clear();
		await t.activate();
		const gone = t.staticData().webhookId as string;
		f.sb.state.webhooks.splice(f.sb.state.webhooks.findIndex((w) => w.id === gone), 1);
		f.sb.clearRequests();
		expect(await t.delete()).toBe(true);
		expect(f.requests().filter((r) => r.path.endsWith(`/webhooks/${gone}`)).map((r) => `${r.method} ${r.status}`)).toEqual(['GET 404', 'DELETE 404']);
		expect(t.staticData()).toEqual({});
	});

	test('a read answered 404 and a DELETE that fails: the id is kept as stale and deleted by the next deactivation', async () => {
		const { t, id } = await activated('https://n8n.example.test/webhook-404-500');
		readsAnswer404(id);
		failDeletes();
		expect(await t.delete()).toBe(false);
		expect(t.staticData()).toEqual({ staleWebhookIds: [id] });
		expect(endpoint(id)).toBeDefined();

		f.sb.faults.clear();
		f.sb.clearRequests();
		expect(await t.delete()).toBe(true);
		expect(methodsFor(id)).toEqual(['GET', 'DELETE']);
		expect(endpoint(id)).toBeUndefined();
		expect(t.staticData()).toEqual({});
	});

	test('a service whose read says 404 for an endpoint that still exists: after three activations one endpoint is left, each old one deleted once before the next registration; control: a service that reads it activates three times with no DELETE', async () => {
		const base = 'https://n8n.example.test/webhook-piles';
		const { t, id: first } = await activated(base);
		const url = t.webhookUrl();
		const ids = [first];
		for (let i = 0; i < 3; i++) {
			const old = ids[ids.length - 1];
			readsAnswer404(old);
			f.sb.clearRequests();
			await t.activate();
			const now = t.staticData().webhookId as string;
			expect(now).not.toBe(old);
			ids.push(now);
			const seen = f.requests().filter((r) => /\/webhooks/.test(r.path)).map((r) => `${r.method} ${r.path.split('/').pop()}`);
			expect(seen).toEqual([`GET ${old}`, `DELETE ${old}`, 'POST webhooks', `GET ${now}`]);
		}
		expect(f.sb.state.webhooks.filter((w) => w.url === url).map((w) => w.id)).toEqual([ids[3]]);

		// Control: a service that reads the endpoint: three activations, no DELETE, no POST.
		f.sb.faults.clear();
		f.sb.clearRequests();
		for (let i = 0; i < 3; i++) await t.activate();
		expect(f.requests().filter((r) => r.method !== 'GET')).toEqual([]);
		expect(f.sb.state.webhooks.filter((w) => w.url === url).map((w) => w.id)).toEqual([ids[3]]);
	});

	test('re-activation after a read answered 404 and a DELETE that fails keeps the old id as stale; the next activation deletes it', async () => {
		const { t, id } = await activated('https://n8n.example.test/webhook-404-stale');
		readsAnswer404(id);
		failDeletes();
		await t.activate();
		const now = t.staticData().webhookId as string;
		expect(now).not.toBe(id);
		expect(t.staticData().staleWebhookIds).toEqual([id]);

		f.sb.faults.clear();
		f.sb.clearRequests();
		await t.activate();
		expect(methodsFor(id)).toEqual(['GET', 'DELETE']);
		expect(t.staticData().staleWebhookIds).toBeUndefined();
		expect(f.sb.state.webhooks.filter((w) => w.url === t.webhookUrl()).map((w) => w.id)).toEqual([now]);
	});
});

describe('URLs compare as URLs', () => {
	const SPELLED = 'https://N8N.Example.test:443/webhook';

	test('a service that stores URLs in normal form: one endpoint at the service after three activations, no PATCH; deactivation deletes it; control: without normalisation the same', async () => {
		for (const normalise of [true, false]) {
			f.sb.hostile.normaliseWebhookUrls = normalise;
			const t = await trigger(SPELLED);
			started.push(t);
			const url = t.webhookUrl();
			expect(url.startsWith('https://N8N.Example.test:443/')).toBe(true);
			const stored = normalise ? new URL(url).href : url;
			expect(stored === url).toBe(!normalise);
			f.sb.clearRequests();
			for (let i = 0; i < 3; i++) await t.activate();
			expect(f.sb.state.webhooks.filter((w) => w.url === stored)).toHaveLength(1);
			expect(registrations()).toBe(1);
			expect(f.requests().filter((r) => r.method === 'PATCH' || r.method === 'DELETE')).toEqual([]);
			const id = t.staticData().webhookId as string;
			expect(await t.delete()).toBe(true);
			expect(methodsFor(id).slice(-2)).toEqual(['GET', 'DELETE']);
			expect(endpoint(id)).toBeUndefined();
		}
	});

	test('control: an endpoint the normalising service stores with another path (case differs) is still another URL: not updated, not deleted', async () => {
		f.sb.hostile.normaliseWebhookUrls = true;
		const t = await trigger(SPELLED);
		started.push(t);
		await t.activate();
		const id = t.staticData().webhookId as string;
		const repointed = new URL(t.webhookUrl()).href.replace('/webhook/', '/WEBHOOK/');
		endpoint(id)!.url = repointed;
		f.sb.clearRequests();
		expect(await t.checkExists()).toBe(false);
		t.staticData().staleWebhookIds = [id];
		expect(await t.delete()).toBe(true);
		expect(methodsFor(id)).toEqual(['GET', 'GET']);
		expect(endpoint(id)).toMatchObject({ url: repointed });
		f.sb.state.webhooks.splice(f.sb.state.webhooks.findIndex((w) => w.id === id), 1);
	});

	test('sameUrl: equal after WHATWG normalisation; otherwise exact strings', () => {
		expect(sameUrl('https://N8N.Example.com:443/webhook/x', 'https://n8n.example.com/webhook/x')).toBe(true);
		expect(sameUrl('https://n8n.example.com/webhook/x', 'https://n8n.example.com:443/webhook/x')).toBe(true);
		expect(sameUrl('https://n8n.example.com/webhook/x', 'https://n8n.example.com/Webhook/x')).toBe(false);
		expect(sameUrl('https://n8n.example.com:8443/webhook/x', 'https://n8n.example.com/webhook/x')).toBe(false);
		expect(sameUrl('http://n8n.example.com/webhook/x', 'https://n8n.example.com/webhook/x')).toBe(false);
		expect(sameUrl('not a url', 'not a url')).toBe(true);
		expect(sameUrl('not a url', 'Not a URL')).toBe(false);
		expect(sameUrl('', 'https://n8n.example.com/')).toBe(false);
	});
});
