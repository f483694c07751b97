/**
 * Endpoint lifecycle of the Vault Store Trigger against the sandbox, through n8n-core's
 * HookContext: activation registers exactly one endpoint, checkExists verifies it,
 * deactivation deletes it, and the https requirement reaches the user as a WEBHOOK_URL hint.
 */
import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { TOLERANCE_FIELD, triggerProperties } from '../nodes/VaultStoreTrigger/properties';
import { WEBHOOK_EVENT_TYPES } from '../nodes/shared/events';

import type { SandboxFixture } from './support/fixtures';
import { useSandbox } from './support/fixtures';
import type { CredentialSet } from './support/harness';
import { logLines } from './support/harness';
import type { TriggerInstance } from './support/trigger-harness';
import { createTrigger } from './support/trigger-harness';

const f = useSandbox();

const PARAMS = {
	events: ['PAYMENT_COMPLETED', 'PAYMENT_DISPUTE_PREVENTED', 'SUBSCRIPTION_RENEWING'],
	signatureVersion: 'V2',
	note: 'lifecycle test',
	options: {},
};

function endpointsFor(fx: SandboxFixture, url: string) {
	return fx.sb.state.webhooks.filter((w) => w.url === url);
}

function webhookRequests(fx: SandboxFixture) {
	return fx.requests().filter((r) => /\/webhooks/.test(r.path));
}

/** Ids of all endpoints at the sandbox, in creation order. */
function liveIds(): string[] {
	return f.sb.state.webhooks.map((w) => w.id);
}

/** Every PATCH of an endpoint answers 405 (a service without the update route) until the faults are cleared. */
function refuseUpdates(): void {
	f.sb.faults.add({ match: { method: 'PATCH', path: /\/webhooks\// }, kind: 'reply', status: 405, reply: { body: { ok: false, error: { message: 'Method not allowed' } } }, count: 1000 });
}

/** Every DELETE of an endpoint answers 500 until the faults are cleared. */
function failDeletes(): void {
	f.sb.faults.add({ match: { method: 'DELETE', path: /\/webhooks\// }, kind: '500', count: 1000 });
}

async function trigger(parameters: IDataObject = PARAMS, extra: { credentials?: CredentialSet; webhookBaseUrl?: string } = {}) {
	return await createTrigger({ parameters, credentials: extra.credentials ?? f.credentials, webhookBaseUrl: extra.webhookBaseUrl });
}

/** What an activation remembers of the signature version: the node's choice and the endpoint's. */
const VERSIONS_V2 = { chosenVersion: 'V2', signatureVersion: 'V2' };

describe('trigger lifecycle against the sandbox', () => {
	let t: TriggerInstance;

	beforeEach(async () => {
		t = await trigger();
		f.sb.clearRequests();
	});

	afterEach(async () => {
		f.sb.faults.clear();
		await t.delete().catch(() => undefined);
	});

	test('activation registers exactly one endpoint with the chosen events, version and note', async () => {
		expect(await t.checkExists()).toBe(false); // nothing in static data yet: no request needed
		expect(webhookRequests(f)).toHaveLength(0);
		expect(await t.create()).toBe(true);

		const url = t.webhookUrl();
		expect(url).toMatch(/^https:\/\/n8n\.example\.test\/webhook\/[0-9a-f-]{36}\/webhook$/);
		const endpoints = endpointsFor(f, url);
		expect(endpoints).toHaveLength(1);
		expect(endpoints[0]).toMatchObject({ signatureVersion: 'V2', note: 'lifecycle test' });
		expect([...endpoints[0].eventTypes].sort()).toEqual([...PARAMS.events].sort());

		const posts = webhookRequests(f).filter((r) => r.method === 'POST');
		expect(posts).toHaveLength(1);
		expect(posts[0].path).toBe(`/v2/core/stores/${f.sb.store.storeId}/webhooks`);
		expect(posts[0].body).toEqual({ url, eventTypes: PARAMS.events, signatureVersion: 'V2', note: 'lifecycle test' });
		expect(t.staticData()).toEqual({ ...VERSIONS_V2, webhookId: endpoints[0].id });
	});

	test('V1 is sent as chosen; an empty note is not sent', async () => {
		t.setParameters({ events: ['PAYMENT_FAILED'], signatureVersion: 'V1', note: '', options: {} });
		await t.activate();
		const [endpoint] = endpointsFor(f, t.webhookUrl());
		expect(endpoint).toMatchObject({ signatureVersion: 'V1', eventTypes: ['PAYMENT_FAILED'], note: null });
		const post = webhookRequests(f).find((r) => r.method === 'POST');
		expect(post?.body).toEqual({ url: t.webhookUrl(), eventTypes: ['PAYMENT_FAILED'], signatureVersion: 'V1' });
	});

	test('checkExists is true after activation (GET /v2/stores/{storeId}/webhooks/{id}); re-activation adds nothing', async () => {
		await t.activate();
		const id = t.staticData().webhookId as string;
		f.sb.clearRequests();
		expect(await t.checkExists()).toBe(true);
		const [get] = webhookRequests(f);
		expect(get.method).toBe('GET');
		expect(get.path).toBe(`/v2/stores/${f.sb.store.storeId}/webhooks/${id}`);
		await t.activate();
		expect(endpointsFor(f, t.webhookUrl())).toHaveLength(1);
		expect(webhookRequests(f).filter((r) => r.method === 'POST')).toHaveLength(0);
	});

	test('events compare as a set: another order still exists', async () => {
		await t.activate();
		t.setParameters({ ...PARAMS, events: [...PARAMS.events].reverse() });
		expect(await t.checkExists()).toBe(true);
	});

	test('after remote deletion checkExists is false, static data is cleared and create registers again', async () => {
		await t.activate();
		const oldId = t.staticData().webhookId as string;
		const index = f.sb.state.webhooks.findIndex((w) => w.id === oldId);
		f.sb.state.webhooks.splice(index, 1);

		expect(await t.checkExists()).toBe(false);
		expect(t.staticData()).toEqual({});
		expect(await t.create()).toBe(true);
		const endpoints = endpointsFor(f, t.webhookUrl());
		expect(endpoints).toHaveLength(1);
		expect(endpoints[0].id).not.toBe(oldId);
		expect(t.staticData().webhookId).toBe(endpoints[0].id);
	});

	test('changed events: the endpoint is updated in place (PATCH), keeps its whk_ id, and the sandbox ends with one endpoint', async () => {
		const before = liveIds();
		await t.activate();
		const id = t.staticData().webhookId as string;
		t.setParameters({ ...PARAMS, events: ['PAYMENT_COMPLETED'] });
		f.sb.clearRequests();
		expect(await t.checkExists()).toBe(true);
		expect(t.staticData()).toEqual({ ...VERSIONS_V2, webhookId: id });
		const requests = webhookRequests(f).map((r) => `${r.method} ${r.path}`);
		expect(requests).toEqual([
			`GET /v2/stores/${f.sb.store.storeId}/webhooks/${id}`,
			`PATCH /v2/core/stores/${f.sb.store.storeId}/webhooks/${id}`,
		]);
		const [patch] = webhookRequests(f).filter((r) => r.method === 'PATCH');
		expect(patch.body).toEqual({ url: t.webhookUrl(), eventTypes: ['PAYMENT_COMPLETED'], note: 'lifecycle test', signatureVersion: 'V2' });
		expect(patch.headers['idempotency-key']).toBeUndefined();
		await t.activate(); // now it matches: nothing more is sent
		expect(webhookRequests(f).filter((r) => r.method !== 'GET')).toHaveLength(1);
		expect(liveIds()).toEqual([...before, id]);
		expect(endpointsFor(f, t.webhookUrl())[0].eventTypes).toEqual(['PAYMENT_COMPLETED']);
	});

	test('changed signature version or note: the endpoint is updated in place and keeps its id; one repointed elsewhere is left as it is and forgotten', async () => {
		const before = liveIds();
		await t.activate();
		const id = t.staticData().webhookId as string;
		t.setParameters({ ...PARAMS, signatureVersion: 'V1', note: 'renamed' });
		expect(await t.checkExists()).toBe(true);
		expect(endpointsFor(f, t.webhookUrl())[0]).toMatchObject({ id, signatureVersion: 'V1', note: 'renamed' });

		t.setParameters({ ...PARAMS, note: '' });
		expect(await t.checkExists()).toBe(true);
		expect(endpointsFor(f, t.webhookUrl())[0]).toMatchObject({ id, signatureVersion: 'V2', note: '' });

		const endpoint = f.sb.state.webhooks.find((w) => w.id === id)!;
		endpoint.url = 'https://elsewhere.example.test/hook';
		f.sb.clearRequests();
		// Not provably this workflow's any more: never updated or deleted; forgotten, so create() registers anew.
		expect(await t.checkExists()).toBe(false);
		expect(endpoint.url).toBe('https://elsewhere.example.test/hook');
		expect(webhookRequests(f).map((r) => r.method)).toEqual(['GET']);
		expect(t.staticData().webhookId).toBeUndefined();
		expect(liveIds()).toEqual([...before, id]);
	});

	test('checkExists throws errors other than 404 and keeps the static data', async () => {
		await t.activate();
		const id = t.staticData().webhookId;
		f.sb.faults.add({ match: { method: 'GET', path: /\/webhooks\// }, kind: '500', count: 10 });
		await expect(t.checkExists()).rejects.toThrow(/HTTP 500/);
		expect(t.staticData().webhookId).toBe(id);

		f.sb.faults.clear();
		const wrongKey = { ...f.credentials, vaultStoreStoreApi: { ...f.credentials.vaultStoreStoreApi, secretKey: 'sk_wrong_key_123456' } };
		const other = await trigger(PARAMS, { credentials: wrongKey });
		other.staticData().webhookId = id;
		await expect(other.checkExists()).rejects.toThrow(/HTTP 401/);
		expect(other.staticData().webhookId).toBe(id);
	});

	test('deactivation deletes the endpoint and clears static data; a second delete is a no-op', async () => {
		await t.activate();
		const id = t.staticData().webhookId as string;
		f.sb.clearRequests();
		expect(await t.delete()).toBe(true);
		// Read first (is it still this workflow's?), then deleted.
		const [read, del] = webhookRequests(f);
		expect([read.method, del.method]).toEqual(['GET', 'DELETE']);
		expect(del.path).toBe(`/v2/core/stores/${f.sb.store.storeId}/webhooks/${id}`);
		expect(f.sb.state.webhooks.some((w) => w.id === id)).toBe(false);
		expect(t.staticData()).toEqual({});
		f.sb.clearRequests();
		expect(await t.delete()).toBe(true);
		expect(webhookRequests(f)).toHaveLength(0);
	});

	test('delete: a 404 counts as deleted', async () => {
		await t.activate();
		const id = t.staticData().webhookId as string;
		f.sb.state.webhooks.splice(f.sb.state.webhooks.findIndex((w) => w.id === id), 1);
		expect(await t.delete()).toBe(true);
		expect(t.staticData()).toEqual({});
	});

	test('delete: other failures are logged with warn (no secrets), reported as false, and the id is kept as stale', async () => {
		await t.activate();
		const id = t.staticData().webhookId as string;
		f.sb.faults.add({ match: { method: 'DELETE', path: /\/webhooks\// }, kind: '500', count: 10 });
		const start = logLines.length;
		expect(await t.delete()).toBe(false);
		const lines = logLines.slice(start).filter((l) => l.startsWith('warn '));
		expect(lines).toHaveLength(1);
		expect(lines[0]).toContain(id);
		expect(lines[0]).toContain('HTTP 500');
		const creds = f.credentials.vaultStoreStoreApi;
		for (const secret of [creds.secretKey, creds.signingSecret]) expect(lines[0]).not.toContain(String(secret));
		expect(t.staticData()).toEqual({ staleWebhookIds: [id] });
		f.sb.faults.clear();
		expect(await t.delete()).toBe(true);
		expect(t.staticData()).toEqual({});
		expect(f.sb.state.webhooks.some((w) => w.id === id)).toBe(false);
	});

	test('a DELETE that fails at deactivation keeps the id; the next activation deletes it and forgets it', async () => {
		const before = liveIds();
		await t.activate();
		const oldId = t.staticData().webhookId as string;
		failDeletes();
		expect(await t.delete()).toBe(false);
		expect(t.staticData()).toEqual({ staleWebhookIds: [oldId] });
		expect(liveIds()).toEqual([...before, oldId]); // still live at the service, and still known

		f.sb.faults.clear();
		f.sb.clearRequests();
		await t.activate();
		const newId = t.staticData().webhookId as string;
		expect(newId).not.toBe(oldId);
		expect(t.staticData()).toEqual({ ...VERSIONS_V2, webhookId: newId });
		const deletes = webhookRequests(f).filter((r) => r.method === 'DELETE');
		expect(deletes.map((r) => r.path)).toEqual([`/v2/core/stores/${f.sb.store.storeId}/webhooks/${oldId}`]);
		expect(liveIds()).toEqual([...before, newId]);
	});

	test('a DELETE that fails at deactivation keeps the id; the next deactivation deletes it and forgets it', async () => {
		const before = liveIds();
		await t.activate();
		const id = t.staticData().webhookId as string;
		failDeletes();
		expect(await t.delete()).toBe(false);
		expect(await t.delete()).toBe(false); // still failing: still kept, once
		expect(t.staticData()).toEqual({ staleWebhookIds: [id] });

		f.sb.faults.clear();
		expect(await t.delete()).toBe(true);
		expect(t.staticData()).toEqual({});
		expect(liveIds()).toEqual(before);
	});

	test('a stale id that answers 404 on retry is forgotten (deleted elsewhere counts as deleted)', async () => {
		await t.activate();
		const id = t.staticData().webhookId as string;
		failDeletes();
		expect(await t.delete()).toBe(false);
		f.sb.faults.clear();
		f.sb.state.webhooks.splice(f.sb.state.webhooks.findIndex((w) => w.id === id), 1);
		expect(await t.delete()).toBe(true);
		expect(t.staticData()).toEqual({});
	});

	test('changed events, a service that refuses the update (405) and a failing DELETE: the replaced endpoint is kept as stale, deleted by a later activation, and the sandbox ends with exactly the new endpoint', async () => {
		const before = liveIds();
		await t.activate();
		const oldId = t.staticData().webhookId as string;
		t.setParameters({ ...PARAMS, events: ['PAYMENT_COMPLETED'] });
		refuseUpdates();
		failDeletes();
		await t.activate(); // checkExists: mismatch, DELETE fails; create: registers the new one, retries the old one
		const newId = t.staticData().webhookId as string;
		expect(newId).not.toBe(oldId);
		expect(t.staticData()).toEqual({ ...VERSIONS_V2, webhookId: newId, staleWebhookIds: [oldId] });
		expect(liveIds()).toEqual([...before, oldId, newId]);

		f.sb.faults.clear();
		await t.activate(); // checkExists: the current endpoint matches; the stale one is deleted now
		expect(t.staticData()).toEqual({ ...VERSIONS_V2, webhookId: newId });
		expect(liveIds()).toEqual([...before, newId]);
		const [endpoint] = endpointsFor(f, t.webhookUrl());
		expect(endpoint.eventTypes).toEqual(['PAYMENT_COMPLETED']);
	});

	test('changed version, a service that refuses the update (405) and a failing DELETE: deactivation deletes both the stale and the current endpoint once the service answers', async () => {
		const before = liveIds();
		await t.activate();
		const oldId = t.staticData().webhookId as string;
		t.setParameters({ ...PARAMS, signatureVersion: 'V1' });
		refuseUpdates();
		failDeletes();
		await t.activate();
		const newId = t.staticData().webhookId as string;
		expect(await t.delete()).toBe(false);
		expect(t.staticData()).toEqual({ staleWebhookIds: [oldId, newId] });
		expect(liveIds()).toEqual([...before, oldId, newId]);

		f.sb.faults.clear();
		expect(await t.delete()).toBe(true);
		expect(t.staticData()).toEqual({});
		expect(liveIds()).toEqual(before);
	});

	test('static data holding more stale ids than the bound: trimmed to the bound before any request (the ones beyond are never tried)', async () => {
		const stale = Array.from({ length: 30 }, (_, i) => `whk_stale${String(i).padStart(8, '0')}`);
		t.staticData().staleWebhookIds = [...stale];
		f.sb.clearRequests();
		await t.delete();
		const tried = [...new Set(webhookRequests(f).map((r) => r.path.split('/').pop()))];
		expect(tried).toEqual(stale.slice(10));
	});

	test('an endpoint repointed in the dashboard after activation (another URL) is never deleted: deactivation forgets it, with a warning; control: this workflow\'s own endpoint is deleted', async () => {
		await t.activate();
		const id = t.staticData().webhookId as string;
		const endpoint = f.sb.state.webhooks.find((w) => w.id === id)!;
		endpoint.url = 'https://other-integration.example.test/repointed';
		f.sb.clearRequests();
		expect(await t.delete()).toBe(true);
		expect(webhookRequests(f).filter((r) => r.method !== 'GET')).toHaveLength(0);
		expect(f.sb.state.webhooks.find((w) => w.id === id)).toMatchObject({ url: 'https://other-integration.example.test/repointed' });
		expect(t.staticData()).toEqual({});
		// Control: activated again, its own endpoint is deleted at deactivation.
		await t.activate();
		const own = t.staticData().webhookId as string;
		expect(own).not.toBe(id);
		expect(await t.delete()).toBe(true);
		expect(f.sb.state.webhooks.some((w) => w.id === own)).toBe(false);
	});

	test('a registration answered with another endpoint (another id and URL): activation fails naming this workflow\'s URL, nothing is kept; that endpoint is never changed or deleted', async () => {
		await t.activate();
		const foreignId = t.staticData().webhookId as string;
		const foreign = f.sb.state.webhooks.find((w) => w.id === foreignId)!;
		foreign.url = 'https://other-integration.example.test/hook';
		const other = await trigger({ ...PARAMS, note: 'second workflow' }, { webhookBaseUrl: 'https://n8n.example.test/webhook-other' });
		f.sb.faults.add({ match: { method: 'POST', path: /\/webhooks$/ }, kind: 'reply', status: 201, reply: { body: { ok: true, data: { id: foreignId, url: foreign.url, eventTypes: PARAMS.events, signatureVersion: 'V2' } } } });
		await expect(other.create()).rejects.toThrow(/points at https:\/\/other-integration\.example\.test\/hook, not at this workflow's webhook URL/);
		expect(other.staticData().webhookId).toBeUndefined();
		f.sb.faults.clear();
		// Deactivating the second workflow touches nothing of it.
		f.sb.clearRequests();
		await other.delete();
		expect(webhookRequests(f).filter((r) => r.method !== 'GET')).toHaveLength(0);
		expect(f.sb.state.webhooks.find((w) => w.id === foreignId)).toMatchObject({ url: 'https://other-integration.example.test/hook' });
		// Control: the normal lifecycle of a workflow is unchanged.
		const third = await trigger(PARAMS, { webhookBaseUrl: 'https://n8n.example.test/webhook-third' });
		await third.activate();
		expect(f.sb.state.webhooks.find((w) => w.id === third.staticData().webhookId)).toMatchObject({ url: third.webhookUrl() });
		expect(await third.delete()).toBe(true);
	});

	test('a registration answered 200 without an id: the error names this workflow\'s URL, and the next activation does not register blindly again', async () => {
		const other = await trigger(PARAMS, { webhookBaseUrl: 'https://n8n.example.test/webhook-noid' });
		f.sb.faults.add({ match: { method: 'POST', path: /\/webhooks$/ }, kind: 'reply', status: 200, reply: { body: { ok: true, data: { url: other.webhookUrl() } } } });
		await expect(other.create()).rejects.toThrow(/without returning its ID/);
		await expect(other.create()).rejects.toThrow(/does not register it again blindly/);
		f.sb.faults.clear();
		const posts = f.requests().filter((r) => r.method === 'POST' && /\/webhooks$/.test(r.path));
		expect(posts).toHaveLength(1);
		let description = '';
		try {
			await other.create();
		} catch (error) {
			description = String((error as { description?: string }).description);
		}
		expect(description).toContain(other.webhookUrl());
	});

	test('a registration answered in another version than asked: set back and read again; when the service does not set it back, the endpoint is removed and activation fails (never a silent downgrade)', async () => {
		await t.activate();
		const id = t.staticData().webhookId as string;
		const endpoint = f.sb.state.webhooks.find((w) => w.id === id)!;
		const answerV1 = () =>
			f.sb.faults.add({ match: { method: 'POST', path: /\/webhooks$/ }, kind: 'reply', status: 201, reply: { body: { ok: true, data: { id, url: t.webhookUrl(), eventTypes: PARAMS.events, signatureVersion: 'V1' } } } });
		// The service answers V1 (and has it as V1): the node sets it to V2 and confirms it.
		for (const key of Object.keys(t.staticData())) delete t.staticData()[key];
		endpoint.signatureVersion = 'V1';
		answerV1();
		expect(await t.create()).toBe(true);
		f.sb.faults.clear();
		expect(endpoint.signatureVersion).toBe('V2');
		expect(t.staticData()).toMatchObject({ webhookId: id, chosenVersion: 'V2', signatureVersion: 'V2' });
		// The service answers V1 and refuses to change it: removed, activation fails.
		for (const key of Object.keys(t.staticData())) delete t.staticData()[key];
		endpoint.signatureVersion = 'V1';
		answerV1();
		refuseUpdates();
		await expect(t.create()).rejects.toThrow(/registered the webhook endpoint as V1 although Signature Version is V2/);
		f.sb.faults.clear();
		expect(f.sb.state.webhooks.some((w) => w.id === id)).toBe(false);
		expect(t.staticData().webhookId).toBeUndefined();
	});

	test('at most 20 undeletable ids are kept: the oldest beyond that is dropped with a warning naming it (no secrets)', async () => {
		const wrongKey = { ...f.credentials, vaultStoreStoreApi: { ...f.credentials.vaultStoreStoreApi, secretKey: 'sk_wrong_key_123456' } };
		const other = await trigger(PARAMS, { credentials: wrongKey }); // every DELETE answers 401
		const stale = Array.from({ length: 20 }, (_, i) => `whk_stale${String(i).padStart(8, '0')}`);
		other.staticData().staleWebhookIds = [...stale];
		other.staticData().webhookId = 'whk_current0000001';
		const start = logLines.length;
		expect(await other.delete()).toBe(false);
		expect(other.staticData()).toEqual({ staleWebhookIds: [...stale.slice(1), 'whk_current0000001'] });
		const lines = logLines.slice(start).filter((l) => l.startsWith('warn '));
		const dropped = lines.filter((l) => l.includes('no longer retried'));
		expect(dropped).toHaveLength(1);
		expect(dropped[0]).toContain(stale[0]);
		for (const line of lines) expect(line).not.toContain('sk_wrong_key_123456');
	});

	test('a 5xx on endpoint creation fails activation telling the user to check the webhook endpoints in the dashboard (no secrets)', async () => {
		f.sb.faults.add({ match: { method: 'POST', path: /\/webhooks$/ }, kind: '500', count: 10 });
		const error = await t.create().then(
			() => undefined,
			(e: Error & { description?: string }) => e,
		);
		expect(error?.message).toMatch(/may have registered it anyway/);
		expect(error?.message).toContain("check the store's webhook endpoints in the merchant dashboard");
		expect(error?.message).toMatch(/HTTP 500/);
		expect(error?.description).toContain(t.webhookUrl());
		const creds = f.credentials.vaultStoreStoreApi;
		for (const secret of [creds.secretKey, creds.signingSecret]) {
			expect(`${error?.message} ${error?.description}`).not.toContain(String(secret));
		}
		expect(t.staticData()).toEqual({});
	});

	test('a connection dropped after the service registered the endpoint fails activation with the same dashboard guidance', async () => {
		f.sb.faults.add({ match: { method: 'POST', path: /\/webhooks$/ }, kind: 'drop-after-commit', count: 10 });
		const error = await t.create().then(
			() => undefined,
			(e: Error & { description?: string }) => e,
		);
		expect(error?.message).toMatch(/may have registered it anyway/);
		expect(error?.message).toContain("check the store's webhook endpoints in the merchant dashboard");
		// The service did register it: exactly what the guidance is about. The id is unknown to the node,
		// and the POST was sent once: one endpoint at the service, not one per retry.
		const left = endpointsFor(f, t.webhookUrl());
		expect(left).toHaveLength(1);
		expect(webhookRequests(f).filter((r) => r.method === 'POST')).toHaveLength(1);
		expect(t.staticData()).toEqual({});
		for (const endpoint of left) f.sb.state.webhooks.splice(f.sb.state.webhooks.indexOf(endpoint), 1);
	});

	test('Timestamp Tolerance 301 stops activation with an error naming the option; 300 activates; deactivation works whatever the option', async () => {
		t.setParameters({ ...PARAMS, options: { toleranceSeconds: 301 } });
		await expect(t.checkExists()).rejects.toThrow(/"Timestamp Tolerance \(Seconds\)" must be a number from 1 to 300/);
		await expect(t.create()).rejects.toThrow(/"Timestamp Tolerance \(Seconds\)"/);
		expect(webhookRequests(f)).toHaveLength(0);
		expect(endpointsFor(f, t.webhookUrl())).toHaveLength(0);

		t.setParameters({ ...PARAMS, options: { toleranceSeconds: 300 } });
		await t.activate();
		expect(endpointsFor(f, t.webhookUrl())).toHaveLength(1);
		// A workflow saved with the old limit (up to 3600) can still be deactivated.
		t.setParameters({ ...PARAMS, options: { toleranceSeconds: 3600 } });
		expect(await t.delete()).toBe(true);
		expect(endpointsFor(f, t.webhookUrl())).toHaveLength(0);
	});

	test('the Timestamp Tolerance option allows 1 to 300 in the editor', () => {
		const options = triggerProperties.find((p) => p.name === 'options')?.options as INodeProperties[];
		const tolerance = options.find((o) => o.name === 'toleranceSeconds');
		expect(tolerance?.displayName).toBe(TOLERANCE_FIELD);
		expect(tolerance?.typeOptions).toEqual({ minValue: 1, maxValue: 300 });
		expect(tolerance?.default).toBe(300);
	});

	test('Manage Endpoint off: checkExists, create and delete do nothing and succeed', async () => {
		t.setParameters({ ...PARAMS, options: { manageEndpoint: false } });
		expect(await t.checkExists()).toBe(true);
		expect(await t.create()).toBe(true);
		expect(await t.delete()).toBe(true);
		expect(f.requests()).toHaveLength(0);
		expect(endpointsFor(f, t.webhookUrl())).toHaveLength(0);
		expect(t.staticData()).toEqual({});
	});

	test('an invalid V2 signing secret stops activation before anything is registered, naming the credential field', async () => {
		const secret = 'not-base64-at-all!-not-base64-at-all!';
		const creds = { ...f.credentials, vaultStoreStoreApi: { ...f.credentials.vaultStoreStoreApi, signingSecret: secret } };
		const bad = await trigger(PARAMS, { credentials: creds });
		const error = await bad.create().then(
			() => undefined,
			(e: Error & { description?: string }) => e,
		);
		expect(error?.message).toContain('"Webhook Signing Secret"');
		expect(`${error?.message} ${error?.description}`).not.toContain(secret);
		expect(webhookRequests(f)).toHaveLength(0);
		expect(endpointsFor(f, bad.webhookUrl())).toHaveLength(0);

		// V1 uses the secret's bytes as they are: any secret of the stated shape (24+ characters, no spaces) is accepted.
		bad.setParameters({ ...PARAMS, signatureVersion: 'V1' });
		expect(await bad.create()).toBe(true);
		expect(await bad.delete()).toBe(true);
	});

	test('an empty signing secret: the endpoint is removed again and the error names the field', async () => {
		const creds = { ...f.credentials, vaultStoreStoreApi: { ...f.credentials.vaultStoreStoreApi, signingSecret: '' } };
		const bad = await trigger(PARAMS, { credentials: creds });
		await expect(bad.create()).rejects.toThrow(/"Webhook Signing Secret" is empty/);
		expect(endpointsFor(f, bad.webhookUrl())).toHaveLength(0);
		expect(bad.staticData()).toEqual({});
	});

	test('an endpoint the service migrated to V2 is kept at re-activation: no PATCH back, logged once, verification follows the endpoint', async () => {
		t.setParameters({ ...PARAMS, signatureVersion: 'V1' });
		await t.activate();
		const id = t.staticData().webhookId as string;
		expect(t.staticData()).toMatchObject({ chosenVersion: 'V1', signatureVersion: 'V1' });
		f.sb.state.webhooks.find((w) => w.id === id)!.signatureVersion = 'V2'; // migrated by the service
		f.sb.clearRequests();
		const start = logLines.length;
		expect(await t.checkExists()).toBe(true);
		expect(webhookRequests(f).map((r) => r.method)).toEqual(['GET']);
		const warnings = logLines.slice(start).filter((l) => l.startsWith('warn '));
		expect(warnings.filter((l) => l.includes(`webhook endpoint ${id} is set to V2 at the service`))).toHaveLength(1);
		expect(warnings[0]).toContain('kept at V2, and deliveries are verified as V2');
		expect(endpointsFor(f, t.webhookUrl())).toEqual([expect.objectContaining({ id, signatureVersion: 'V2' })]);
		expect(t.staticData()).toMatchObject({ chosenVersion: 'V1', signatureVersion: 'V2' });
		// Every later activation keeps it too.
		expect(await t.checkExists()).toBe(true);
		expect(webhookRequests(f).filter((r) => r.method === 'PATCH')).toHaveLength(0);
	});

	test('a change of Signature Version made in the node since the last activation is sent (the rollback), once', async () => {
		t.setParameters({ ...PARAMS, signatureVersion: 'V1' });
		await t.activate();
		const id = t.staticData().webhookId as string;
		f.sb.state.webhooks.find((w) => w.id === id)!.signatureVersion = 'V2';
		expect(await t.checkExists()).toBe(true); // kept at V2
		t.setParameters({ ...PARAMS, signatureVersion: 'V2' });
		f.sb.clearRequests();
		expect(await t.checkExists()).toBe(true); // the node now says what the endpoint is: nothing to send
		expect(webhookRequests(f).filter((r) => r.method === 'PATCH')).toHaveLength(0);
		t.setParameters({ ...PARAMS, signatureVersion: 'V1' });
		expect(await t.checkExists()).toBe(true); // the user selects the previous version: sent
		const patches = webhookRequests(f).filter((r) => r.method === 'PATCH');
		expect(patches).toHaveLength(1);
		expect(patches[0].body).toMatchObject({ signatureVersion: 'V1' });
		expect(endpointsFor(f, t.webhookUrl())).toEqual([expect.objectContaining({ id, signatureVersion: 'V1' })]);
		expect(t.staticData()).toMatchObject({ chosenVersion: 'V1', signatureVersion: 'V1' });
	});

	test('an endpoint update whose answer is lost is sent once; activation fails saying it may have been applied and that activating again is safe', async () => {
		await t.activate();
		const id = t.staticData().webhookId as string;
		t.setParameters({ ...PARAMS, events: ['PAYMENT_FAILED'] });
		f.sb.faults.add({ match: { method: 'PATCH', path: /\/webhooks\// }, kind: 'drop-after-commit', count: 10 });
		f.sb.clearRequests();
		const error = await t.checkExists().then(
			() => undefined,
			(e: Error & { description?: string }) => e,
		);
		expect(error?.message).toContain(`Updating webhook endpoint ${id} failed, and the service may have applied the update anyway`);
		expect(error?.description).toMatch(/no Idempotency-Key, so it was sent once and not repeated\. Activating the workflow again is safe/);
		const creds = f.credentials.vaultStoreStoreApi;
		for (const secret of [creds.secretKey, creds.signingSecret]) expect(`${error?.message} ${error?.description}`).not.toContain(String(secret));
		expect(webhookRequests(f).filter((r) => r.method === 'PATCH')).toHaveLength(1);
		expect(t.staticData()).toEqual({ ...VERSIONS_V2, webhookId: id });
		// It was applied: the next activation finds the endpoint up to date and sends nothing more.
		f.sb.faults.clear();
		f.sb.clearRequests();
		await t.activate();
		expect(webhookRequests(f).map((r) => r.method)).toEqual(['GET']);
		expect(endpointsFor(f, t.webhookUrl())).toEqual([expect.objectContaining({ id, eventTypes: ['PAYMENT_FAILED'] })]);
	});

	test('an endpoint update refused with 500 before it ran is reported the same way; the next activation updates it', async () => {
		await t.activate();
		const id = t.staticData().webhookId as string;
		t.setParameters({ ...PARAMS, note: 'after a 500' });
		f.sb.faults.add({ match: { method: 'PATCH', path: /\/webhooks\// }, kind: '500', count: 1 });
		await expect(t.checkExists()).rejects.toThrow(/may have applied the update anyway \(.*HTTP 500/);
		expect(await t.checkExists()).toBe(true);
		expect(endpointsFor(f, t.webhookUrl())).toEqual([expect.objectContaining({ id, note: 'after a 500' })]);
	});

	test('an update answered 404 (endpoint deleted meanwhile, or no update route): the endpoint is deleted if still there and registered again', async () => {
		const before = liveIds();
		await t.activate();
		const oldId = t.staticData().webhookId as string;
		t.setParameters({ ...PARAMS, events: ['PAYMENT_REFUNDED'] });
		f.sb.faults.add({ match: { method: 'PATCH', path: /\/webhooks\// }, kind: 'reply', status: 404, reply: { body: { ok: false, error: { message: 'Not found' } } }, count: 1 });
		await t.activate();
		const newId = t.staticData().webhookId as string;
		expect(newId).not.toBe(oldId);
		expect(liveIds()).toEqual([...before, newId]);
		expect(endpointsFor(f, t.webhookUrl())[0].eventTypes).toEqual(['PAYMENT_REFUNDED']);
	});

	test('a note longer than 256 characters is refused before any request, naming the field; deactivation still works', async () => {
		t.setParameters({ ...PARAMS, note: 'n'.repeat(257) });
		await expect(t.checkExists()).rejects.toThrow('"Note" must be at most 256 characters long (got 257)');
		await expect(t.create()).rejects.toThrow('"Note" must be at most 256 characters long (got 257)');
		expect(f.requests()).toHaveLength(0);
		t.setParameters({ ...PARAMS, note: 'n'.repeat(256) });
		await t.activate();
		expect(endpointsFor(f, t.webhookUrl())[0].note).toHaveLength(256);
		t.setParameters({ ...PARAMS, note: 'n'.repeat(300) });
		expect(await t.delete()).toBe(true);
		expect(endpointsFor(f, t.webhookUrl())).toHaveLength(0);
	});

	test('All Events registers every payment and subscription event by name, without Payment Dispute Prevented unless it is selected too', async () => {
		const every = WEBHOOK_EVENT_TYPES.filter((e) => e !== 'PAYMENT_DISPUTE_PREVENTED');
		expect(every).toHaveLength(11);
		t.setParameters({ ...PARAMS, events: ['*'] });
		await t.activate();
		const post = webhookRequests(f).find((r) => r.method === 'POST');
		expect((post?.body as IDataObject).eventTypes).toEqual(every);
		expect(endpointsFor(f, t.webhookUrl())[0].eventTypes).toEqual(every);
		// Adding the opt-in event updates the endpoint in place with all twelve.
		t.setParameters({ ...PARAMS, events: ['*', 'PAYMENT_DISPUTE_PREVENTED'] });
		expect(await t.checkExists()).toBe(true);
		expect([...endpointsFor(f, t.webhookUrl())[0].eventTypes].sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
		// Explicit events next to All Events add nothing twice.
		t.setParameters({ ...PARAMS, events: ['PAYMENT_COMPLETED', '*'] });
		expect(await t.checkExists()).toBe(true);
		expect(endpointsFor(f, t.webhookUrl())[0].eventTypes).toHaveLength(11);
	});

	test('the Events option offers All Events, described as leaving Payment Dispute Prevented opt-in', () => {
		const events = triggerProperties.find((p) => p.name === 'events');
		const all = (events?.options as Array<{ name: string; value: string; description?: string }>).find((o) => o.value === '*');
		expect(all?.name).toBe('All Events');
		expect(all?.description).toMatch(/Payment Dispute Prevented is opt-in/);
	});

	test('while a Previous Signing Secret is set, activation logs it once (no secret in the line); one that cannot verify V2 is refused, naming the field', async () => {
		const previous = 'whsec_' + Buffer.alloc(24, 5).toString('base64');
		const creds = { ...f.credentials, vaultStoreStoreApi: { ...f.credentials.vaultStoreStoreApi, previousSigningSecret: previous } };
		const rotating = await trigger(PARAMS, { credentials: creds });
		let start = logLines.length;
		await rotating.activate();
		let lines = logLines.slice(start).filter((l) => l.includes('Previous Signing Secret'));
		expect(lines).toHaveLength(1);
		expect(lines[0]).toMatch(/^warn .*Clear it once the service signs with the new secret/);
		for (const line of logLines.slice(start)) expect(line).not.toContain(previous.slice(6));
		expect(await rotating.delete()).toBe(true);

		const bad = 'not-base64-at-all!-not-base64-at-all!';
		const badCreds = { ...f.credentials, vaultStoreStoreApi: { ...f.credentials.vaultStoreStoreApi, previousSigningSecret: bad } };
		const badTrigger = await trigger(PARAMS, { credentials: badCreds });
		const refused = await badTrigger.activate().then(
			() => undefined,
			(e: Error & { description?: string }) => e,
		);
		expect(refused?.message).toMatch(/^Credential field "Previous Signing Secret" is not a valid V2 signing secret/);
		expect(`${refused?.message} ${refused?.description}`).not.toContain(bad);
		expect(await badTrigger.delete()).toBe(true);

		start = logLines.length;
		await t.activate(); // no previous secret: nothing said
		expect(logLines.slice(start).filter((l) => l.includes('Previous Signing Secret'))).toHaveLength(0);
	});

	test('with a sandbox that allows loopback http, an http://127.0.0.1 webhook URL is registered (loopback to loopback: sent, the service decides)', async () => {
		const local = await trigger(PARAMS, { webhookBaseUrl: 'http://127.0.0.1:5678/webhook' });
		expect(await local.create()).toBe(true);
		expect(endpointsFor(f, local.webhookUrl())).toHaveLength(1);
		expect(await local.delete()).toBe(true);
	});
});

describe('trigger lifecycle against a sandbox that requires https', () => {
	const strict = useSandbox({ allowHttpWebhooks: false });

	test('an http webhook URL refused by the service gives the WEBHOOK_URL message', async () => {
		const t = await createTrigger({
			parameters: PARAMS,
			credentials: strict.credentials,
			webhookBaseUrl: 'http://localhost:5678/webhook',
		});
		strict.sb.clearRequests();
		const error = await t.create().then(
			() => undefined,
			(e: Error & { description?: string }) => e,
		);
		expect(error).toBeDefined();
		expect(error!.message).toBe(
			`n8n's webhook URL is ${t.webhookUrl()}; the service only accepts https:// endpoints. Set WEBHOOK_URL to a public https address (e.g. through a tunnel)`,
		);
		expect(error!.description).toContain('https://');
		// Loopback n8n, loopback service: it was sent, and refused by the service (400), not checked beforehand.
		const posts = strict.requests().filter((r) => r.method === 'POST');
		expect(posts).toHaveLength(1);
		expect(posts[0].status).toBe(400);
		expect(strict.sb.state.webhooks).toHaveLength(0);
		expect(t.staticData()).toEqual({});
	});

	test('an https URL is accepted by the same sandbox; other 400s pass through unchanged', async () => {
		const t = await createTrigger({ parameters: PARAMS, credentials: strict.credentials });
		expect(await t.create()).toBe(true);
		expect(await t.delete()).toBe(true);

		const unknownEvent = await createTrigger({ parameters: { ...PARAMS, events: ['PAYMENT_COMPLETED', 'NOT_AN_EVENT'] }, credentials: strict.credentials });
		const error = await unknownEvent.create().then(
			() => undefined,
			(e: Error) => e,
		);
		expect(error?.message).toMatch(/HTTP 400/);
		expect(error?.message).not.toContain('WEBHOOK_URL');
		expect(error?.message).not.toMatch(/may have registered it anyway/); // a 4xx: the service did not register it
	});
});

describe('listening for a test event in the editor', () => {
	const testUrlBase = 'https://n8n.example.test/webhook-test';

	test('registering the test URL asks the service for one signed test delivery of the first selected event', async () => {
		const t = await createTrigger({ parameters: { events: ['SUBSCRIPTION_RENEWING', 'PAYMENT_COMPLETED'], signatureVersion: 'V2', options: {} }, credentials: f.credentials, webhookBaseUrl: testUrlBase });
		f.sb.clearRequests();
		await t.create();
		const id = t.staticData().webhookId as string;
		const tests = f.requests().filter((r) => r.method === 'POST' && r.path.endsWith(`/webhooks/${id}/test`));
		expect(tests).toHaveLength(1);
		expect(tests[0].body).toEqual({ eventType: 'SUBSCRIPTION_RENEWING' });
		await t.delete();
	});

	test('no test delivery for the active workflow, nor when the option is off', async () => {
		const live = await createTrigger({ parameters: { events: ['PAYMENT_COMPLETED'], signatureVersion: 'V2', options: {} }, credentials: f.credentials });
		const off = await createTrigger({ parameters: { events: ['PAYMENT_COMPLETED'], signatureVersion: 'V2', options: { sendTestEvent: false } }, credentials: f.credentials, webhookBaseUrl: testUrlBase });
		f.sb.clearRequests();
		await live.create();
		await off.create();
		expect(f.requests().filter((r) => r.path.endsWith('/test'))).toHaveLength(0);
		await live.delete();
		await off.delete();
	});
});
