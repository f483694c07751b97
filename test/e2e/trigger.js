// @ts-check
/**
 * The Vault Store Trigger in a running n8n (`n8n start`; 2.8.4, or the newest line with
 * --latest), against the in-process sandbox:
 *   - publishing the example workflow registers exactly one endpoint at the sandbox for its
 *     production webhook URL, with its events, signature version and note
 *   - a V2-signed sandbox event starts exactly one execution, whose output is the event
 *   - an event the workflow did not subscribe to is not delivered
 *   - forged deliveries (bad signature, tampered body, no signature) and a stale one (timestamp
 *     10 minutes old, correctly signed) get 401 and start nothing
 *   - a replayed delivery (same message id, still fresh) starts nothing
 *   - a V1 variant of the workflow (created and activated over the public API) gets a V1
 *     endpoint and behaves the same, including 401 for forged and stale V1 deliveries
 *   - deactivating deletes the endpoint at the sandbox; the webhook URL is then gone in n8n
 *   - one event, two executions, one refund: a Vault Store Trigger -> Refund workflow gets an event
 *     from the sandbox; the service commits the refund but answers 500 to every attempt, so the
 *     execution fails. The event sent again (same id, signed afresh) is dropped by the trigger's
 *     duplicate memory (this process saw it, within twice the tolerance: 10 minutes), so the run
 *     that happens is n8n's Retry of the failed execution: a new execution id, the same event
 *     item, so the same key derived from the event; the service replays the original refund and
 *     the ledger keeps one
 *   - rotation on a live trigger: an endpoint whose registration returns a secret, then the README's
 *     rotation steps with the credential changed through n8n's REST API (no re-activation); once
 *     Previous Signing Secret is cleared, the returned secret gets 401
 *   - a rollback in the dashboard (V1 endpoint migrated to V2 at the service, then back to V1) with
 *     forged deliveries arriving throughout: every genuine delivery starts its workflow, every forged
 *     one gets 401, and the endpoint is read only for genuine deliveries, never for a forgery
 * Executions are read through n8n's public API with an API key.
 */
'use strict';

const crypto = require('node:crypto');
const path = require('node:path');

const { ROOT, PKG_NAME, log } = require('./runner/lib');
const { refundNode } = require('./runner/refund-node');

const { sleep, waitUntil } = require('./runner/wait');

/**
 * Polls an unsigned POST at a production webhook URL until n8n answers `status` (or the time is
 * up); returns the last status. 401: n8n routes the URL to the node, which refuses the unsigned
 * delivery (it starts nothing); 404: n8n has no webhook for the URL.
 * Activation over the public API is synchronous in n8n 2.8 (registered when the call returns);
 * n8n 2.41 records the publication in its outbox and activates right after answering (and
 * unpublishes the same way), so the checks wait for this state instead of assuming it.
 * @param {string} u @param {401 | 404} status
 */
async function routedStatus(u, status, timeoutMs = 30_000) {
	const end = Date.now() + timeoutMs;
	let last = 0;
	for (;;) {
		try {
			const res = await fetch(u, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}', signal: AbortSignal.timeout(10_000) });
			await res.text();
			last = res.status;
		} catch {
			last = 0;
		}
		if (last === status || Date.now() > end) return last;
		await sleep(250);
	}
}

/** The trigger's production webhook URL: WEBHOOK_URL + webhook/<webhookId>/<path of the description>. */
function webhookUrl(baseUrl, node) {
	const mod = require(path.join(ROOT, 'dist', 'nodes', 'VaultStoreTrigger', 'VaultStoreTrigger.node.js'));
	const description = new mod.VaultStoreTrigger().description;
	const p = String(description.webhooks?.[0]?.path ?? 'webhook').replace(/^\/+/, '');
	return `${baseUrl}/webhook/${node.webhookId}/${p}`;
}

/**
 * @param {{inst: any, sb: any, t: import('./runner/results').Results, rest: any, example: any}} ctx
 */
async function triggerChecks({ inst, sb, t, rest, example }) {
	const deliveriesMod = require(path.join(ROOT, 'out', 'sandbox', 'deliveries.js'));
	const secret = sb.store.signingSecret;
	const wf = example.workflow;
	const node = wf.nodes.find((/** @type {any} */ n) => n.type === `${PKG_NAME}.vaultStoreTrigger`);
	const url = webhookUrl(inst.url, node);
	const endpointsFor = (u) => sb.state.webhooks.filter((/** @type {any} */ w) => w.url === u);

	/** Executions of a workflow (public API), oldest first. */
	const executions = async (workflowId) => {
		const r = await rest.api(`/executions?workflowId=${encodeURIComponent(workflowId)}&limit=250`);
		return [...(r.data ?? [])].sort((a, b) => Number(a.id) - Number(b.id));
	};
	/** Waits for n executions, then a little longer to see that no more come. */
	const settle = async (workflowId, n, extraMs = 1500) => {
		await waitUntil(async () => (await executions(workflowId)).filter((e) => e.finished || e.status === 'success' || e.status === 'error').length >= n, 20_000);
		await sleep(extraMs);
		return await executions(workflowId);
	};
	/** POST a delivery to n8n ourselves. */
	const post = async (u, headers, body) => {
		const res = await fetch(u, { method: 'POST', headers, body, signal: AbortSignal.timeout(15_000) });
		const text = await res.text();
		return { status: res.status, text };
	};
	const emit = async (eventType, data) => {
		const res = await fetch(`${sb.baseUrl}/__dev/events`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ eventType, data }),
		});
		const body = /** @type {any} */ (await res.json());
		return /** @type {string[]} */ (body.data?.messageIds ?? body.messageIds ?? []);
	};
	/** The first attempt of a message to a URL, once it has a response. */
	const deliveryOf = (messageId, u) =>
		waitUntil(() => sb.deliveries.find((/** @type {any} */ d) => d.messageId === messageId && d.url === u && d.status !== undefined && d.attempt === 1 && (d.status !== 0 || d.error)), 20_000);

	// ---------------------------------------------------------------- activation
	// n8n 2.8 logs "Activated workflow ..." when `n8n start` activates a published workflow; n8n 2.41
	// activates through its publication outbox and logs that at debug level only. So, on every
	// line, what the log line stood for: the workflow is active (public API) and n8n routes its
	// production URL to the node.
	const startRouted = await routedStatus(url, 401);
	const wfState = /** @type {any} */ (await rest.api(`/workflows/${example.id}`));
	t.check('trigger: n8n activated the published workflow at start (active in the public API, its URL routed to the node: 401 to an unsigned POST)', wfState.active === true && startRouted === 401, JSON.stringify({ active: wfState.active, unsignedPost: startRouted }));
	const registered = await waitUntil(() => endpointsFor(url).length > 0, 30_000);
	t.must('trigger: publishing the workflow registered an endpoint at the sandbox', registered, `no endpoint for ${url}; endpoints: ${JSON.stringify(sb.state.webhooks.map((/** @type {any} */ w) => w.url))}`);
	const eps = endpointsFor(url);
	t.equal('trigger: exactly one sandbox endpoint for the workflow URL', eps.length, 1);
	const ep = eps[0];
	t.equal('trigger: endpoint events, signature version and note are the node parameters', { events: [...ep.eventTypes].sort(), v: ep.signatureVersion, note: ep.note }, { events: [...node.parameters.events].sort(), v: 'V2', note: node.parameters.note ?? null });
	t.equal('trigger: nothing has run yet', (await executions(example.id)).length, 0);

	// ---------------------------------------------------------------- a real V2 event
	const orderRef = `ord_e2e${crypto.randomBytes(6).toString('hex')}`;
	const [messageId, ...others] = await emit('PAYMENT_COMPLETED', { orderId: orderRef, amount: 12.5, currency: 'USD' });
	t.check('trigger: the sandbox sent PAYMENT_COMPLETED to one endpoint', messageId && others.length === 0, JSON.stringify([messageId, ...others]));
	const delivery = await deliveryOf(messageId, url);
	t.check('trigger: n8n answered the signed V2 delivery with 2xx', delivery && delivery.status >= 200 && delivery.status < 300, JSON.stringify(delivery && { status: delivery.status, error: delivery.error }));
	let runs = await settle(example.id, 1);
	t.equal('trigger: the V2 event started exactly one execution', runs.length, 1);
	t.check('trigger: that execution succeeded', runs[0]?.status === 'success' || runs[0]?.finished === true, JSON.stringify(runs[0]));
	if (runs[0]) {
		const full = await rest.api(`/executions/${runs[0].id}?includeData=true`);
		const out = full.data?.resultData?.runData?.[node.name]?.[0]?.data?.main?.[0] ?? [];
		const text = JSON.stringify(out.map((/** @type {any} */ i) => i.json));
		t.check('trigger: the execution output is the event (message id, type and data)', out.length === 1 && text.includes(messageId) && text.includes('PAYMENT_COMPLETED') && text.includes(orderRef), text.slice(0, 400));
		t.check('trigger: the signing secret is not in the execution data', !JSON.stringify(full).includes(secret), 'signing secret found');
		const handled = full.data?.resultData?.runData?.['Handle the event']?.[0]?.data?.main?.[0] ?? [];
		t.equal('trigger: the next node got the one event item', handled.length, 1);
	}

	// ---------------------------------------------------------------- not subscribed
	const before = sb.deliveries.length;
	await emit('SUBSCRIPTION_UPDATED', { subscriptionId: 'sub_e2e000000000' });
	await sleep(500);
	t.equal('trigger: an event the node did not subscribe to is not delivered', sb.deliveries.slice(before).filter((/** @type {any} */ d) => d.url === url).length, 0);

	// ---------------------------------------------------------------- forged, stale, replayed
	const good = /** @type {any} */ (delivery);
	const headers = { ...good.headers };
	const fresh = () => String(Math.floor(Date.now() / 1000));
	const signedV2 = (id, ts, body) => ({ ...headers, 'webhook-id': id, 'webhook-timestamp': ts, 'webhook-signature': deliveriesMod.signV2(secret, id, ts, body) });
	const newBody = (id) => JSON.stringify({ id, event: 'PAYMENT_COMPLETED', createdAt: new Date().toISOString(), data: { orderId: orderRef, amount: 99, currency: 'USD' } });
	const forgedId = `msg_e2eforged${crypto.randomBytes(4).toString('hex')}`;
	const forgedBody = newBody(forgedId);
	const wrongKey = `whsec_${crypto.randomBytes(24).toString('base64')}`;
	const cases = [
		['signed with another secret', { ...headers, 'webhook-id': forgedId, 'webhook-timestamp': fresh(), 'webhook-signature': deliveriesMod.signV2(wrongKey, forgedId, fresh(), forgedBody) }, forgedBody],
		['tampered body (valid signature of the original)', { ...signedV2(forgedId, fresh(), forgedBody) }, forgedBody.replace('"amount":99', '"amount":9999')],
		['no signature headers', { 'content-type': 'application/json' }, forgedBody],
		['stale: correctly signed, timestamp 10 minutes old', signedV2(forgedId, String(Math.floor(Date.now() / 1000) - 600), forgedBody), forgedBody],
		['from the future: correctly signed, timestamp 10 minutes ahead', signedV2(forgedId, String(Math.floor(Date.now() / 1000) + 600), forgedBody), forgedBody],
	];
	for (const [label, h, body] of cases) {
		const r = await post(url, h, body);
		t.equal(`trigger: V2 ${label} -> 401`, r.status, 401);
		t.check(`trigger: V2 ${label}: the answer does not echo the secret`, !r.text.includes(secret), r.text);
	}
	const replay = await post(url, good.headers, good.body);
	t.check('trigger: a replayed delivery (same message id, still fresh) is acknowledged with 2xx (so the sender stops)', replay.status >= 200 && replay.status < 300, `HTTP ${replay.status} ${replay.text.slice(0, 200)}`);
	const reSigned = await post(url, signedV2(good.headers['webhook-id'], fresh(), good.body), good.body);
	t.check('trigger: the same message re-signed with a fresh timestamp (a sender retry) is acknowledged with 2xx', reSigned.status >= 200 && reSigned.status < 300, `HTTP ${reSigned.status}`);
	runs = await settle(example.id, 1, 2000);
	t.equal('trigger: forged, stale and duplicate deliveries started no execution', runs.length, 1);

	// ---------------------------------------------------------------- a V1 endpoint
	const v1 = JSON.parse(JSON.stringify(wf));
	const v1Node = v1.nodes.find((/** @type {any} */ n) => n.name === node.name);
	v1Node.webhookId = crypto.randomUUID();
	v1Node.parameters.signatureVersion = 'V1';
	v1Node.parameters.note = 'e2e V1 endpoint';
	const createdV1 = /** @type {any} */ (await rest.request('POST', '/api/v1/workflows', { name: `${wf.name} (V1)`, nodes: v1.nodes, connections: v1.connections, settings: v1.settings }, { 'X-N8N-API-KEY': rest.apiKey }));
	t.must('trigger: V1 variant created over the public API', createdV1.status === 200 && createdV1.body?.id, JSON.stringify(createdV1).slice(0, 400));
	const v1Id = createdV1.body.id;
	const act = /** @type {any} */ (await rest.request('POST', `/api/v1/workflows/${v1Id}/activate`, undefined, { 'X-N8N-API-KEY': rest.apiKey }));
	t.must('trigger: V1 variant activated over the public API', act.status === 200, JSON.stringify(act).slice(0, 400));
	const v1Url = webhookUrl(inst.url, v1Node);
	await waitUntil(() => endpointsFor(v1Url).length > 0, 30_000);
	t.equal('trigger: the V1 workflow URL is routed to the node once activated (401 to an unsigned POST)', await routedStatus(v1Url, 401), 401);
	const v1Eps = endpointsFor(v1Url);
	t.equal('trigger: exactly one V1 endpoint for the V1 workflow URL', v1Eps.map((/** @type {any} */ w) => w.signatureVersion), ['V1']);
	t.equal('trigger: the V2 endpoint is still the only one for its URL', endpointsFor(url).length, 1);

	const v1Ref = `ord_e2ev1${crypto.randomBytes(6).toString('hex')}`;
	const ids = await emit('PAYMENT_FAILED', { orderId: v1Ref, reason: 'card_declined' });
	t.equal('trigger: PAYMENT_FAILED went to both endpoints', ids.length, 2);
	const v1Delivery = /** @type {any} */ (await waitUntil(() => sb.deliveries.find((/** @type {any} */ d) => ids.includes(d.messageId) && d.url === v1Url && (d.status !== 0 || d.error)), 20_000));
	t.check('trigger: the delivery to the V1 endpoint is V1-signed (bare hex, ms timestamp)', v1Delivery && /^[0-9a-f]{64}$/.test(v1Delivery.headers['webhook-signature']) && v1Delivery.headers['webhook-timestamp'].length >= 13, JSON.stringify(v1Delivery?.headers));
	t.check('trigger: n8n answered the V1 delivery with 2xx', v1Delivery && v1Delivery.status >= 200 && v1Delivery.status < 300, JSON.stringify(v1Delivery && { status: v1Delivery.status, error: v1Delivery.error }));
	const v1Runs = await settle(v1Id, 1);
	t.equal('trigger: the V1 event started exactly one execution of the V1 workflow', v1Runs.length, 1);
	runs = await settle(example.id, 2, 500);
	t.equal('trigger: and exactly one more of the V2 workflow', runs.length, 2);
	if (v1Runs[0]) {
		const full = await rest.api(`/executions/${v1Runs[0].id}?includeData=true`);
		const text = JSON.stringify(full.data?.resultData?.runData?.[node.name]?.[0]?.data?.main?.[0] ?? []);
		t.check('trigger: the V1 execution output is the event', text.includes(v1Ref) && text.includes('PAYMENT_FAILED'), text.slice(0, 300));
	}
	const v1Body = JSON.stringify({ id: 'msg_e2ev1forged00', event: 'PAYMENT_FAILED', createdAt: new Date().toISOString(), data: { orderId: v1Ref } });
	const v1Headers = (ts, sig) => ({ ...v1Delivery.headers, 'webhook-timestamp': ts, 'webhook-signature': sig, 'x-service-timestamp': ts, 'x-service-signature': deliveriesMod.hmacHex(secret, v1Body) });
	const nowMs = () => String(Date.now());
	const v1Cases = [
		['V1 signed with another secret', v1Headers(nowMs(), deliveriesMod.hmacHex('not-the-secret', `${nowMs()}.${v1Body}`)), v1Body],
		['V1 stale: correctly signed, timestamp 10 minutes old', (() => { const ts = String(Date.now() - 600_000); return v1Headers(ts, deliveriesMod.hmacHex(secret, `${ts}.${v1Body}`)); })(), v1Body],
		['V1 tampered body', (() => { const ts = nowMs(); return v1Headers(ts, deliveriesMod.hmacHex(secret, `${ts}.${v1Body}`)); })(), v1Body.replace('ord_', 'ord_x')],
		// A valid V2 delivery is accepted by a V1 trigger (a migrated endpoint); one signed with another secret is not.
		['V2 delivery signed with another secret to the V1 endpoint', (() => { const ts = fresh(); return { ...signedV2('msg_e2ev2tov1000', ts, v1Body), 'webhook-signature': deliveriesMod.signV2(wrongKey, 'msg_e2ev2tov1000', ts, v1Body) }; })(), v1Body],
	];
	for (const [label, h, body] of v1Cases) {
		const r = await post(v1Url, h, body);
		t.equal(`trigger: ${label} -> 401`, r.status, 401);
	}
	const v1Replay = await post(v1Url, v1Delivery.headers, v1Delivery.body);
	t.check('trigger: a replayed V1 delivery is acknowledged with 2xx', v1Replay.status >= 200 && v1Replay.status < 300, `HTTP ${v1Replay.status}`);
	t.equal('trigger: forged, stale and replayed V1 deliveries started nothing', (await settle(v1Id, 1, 2000)).length, 1);

	// ---------------------------------------------------------------- deactivation
	const deletesBefore = sb.requests.length;
	const deact1 = /** @type {any} */ (await rest.request('POST', `/api/v1/workflows/${v1Id}/deactivate`, undefined, { 'X-N8N-API-KEY': rest.apiKey }));
	t.check('trigger: V1 variant deactivated over the public API', deact1.status === 200, JSON.stringify(deact1).slice(0, 300));
	t.check('trigger: deactivating the V1 workflow deleted its endpoint at the sandbox', await waitUntil(() => endpointsFor(v1Url).length === 0, 15_000), JSON.stringify(endpointsFor(v1Url)));

	const deact = /** @type {any} */ (await rest.request('POST', `/api/v1/workflows/${example.id}/deactivate`, undefined, { 'X-N8N-API-KEY': rest.apiKey }));
	t.check('trigger: example workflow deactivated over the public API', deact.status === 200, JSON.stringify(deact).slice(0, 300));
	t.check('trigger: deactivating deleted the endpoint at the sandbox', await waitUntil(() => endpointsFor(url).length === 0, 15_000), JSON.stringify(endpointsFor(url)));
	const deletes = sb.requests.slice(deletesBefore).filter((/** @type {any} */ r) => r.method === 'DELETE' && /\/webhooks\/whk_/.test(r.path));
	t.equal('trigger: one DELETE per endpoint, both answered 200', deletes.map((/** @type {any} */ r) => r.status), [200, 200]);
	t.equal('trigger: no endpoint of this n8n is left at the sandbox', sb.state.webhooks.filter((/** @type {any} */ w) => w.url.startsWith(inst.url)).length, 0);
	await routedStatus(url, 404, 15_000);
	const after = await post(url, signedV2(`msg_e2eafter${crypto.randomBytes(4).toString('hex')}`, fresh(), forgedBody), forgedBody);
	t.equal('trigger: the webhook URL is gone from n8n after deactivation (404)', after.status, 404);
	t.equal('trigger: in all, the example workflow ran twice', (await executions(example.id)).length, 2);

	await eventKeyChecks({ inst, sb, t, rest, node, executions });
	await rotationChecks({ inst, sb, t, rest, node, executions });
	await foreignEndpointChecks({ inst, sb, t, rest, node });
	await rollbackChecks({ inst, sb, t, rest, node, executions });
}

/**
 * A dashboard rollback with forged requests arriving throughout, in real n8n (issue 54): a V1
 * trigger whose endpoint the service migrates to V2, then the merchant rolls back to V1, while a
 * sender without the secret posts forged deliveries (V2 and V1 signed with other secrets, and
 * none signed at all) several times a second. Every genuine delivery (signed by the sandbox as
 * the endpoint's version is at that moment) starts its workflow; every forged one gets 401 and
 * starts nothing; the node reads the endpoint only for the genuine deliveries signed in the other
 * version, never for a forgery.
 * @param {{inst: any, sb: any, t: import('./runner/results').Results, rest: any, node: any, executions: (id: string) => Promise<any[]>}} ctx
 */
async function rollbackChecks({ inst, sb, t, rest, node, executions }) {
	const H = { 'X-N8N-API-KEY': rest.apiKey };
	const deliveriesMod = require(path.join(ROOT, 'out', 'sandbox', 'deliveries.js'));
	const trigger = { ...JSON.parse(JSON.stringify(node)), id: crypto.randomUUID(), webhookId: crypto.randomUUID(), parameters: { events: ['PAYMENT_COMPLETED'], signatureVersion: 'V1', options: {} } };
	const created = /** @type {any} */ (await rest.request('POST', '/api/v1/workflows', { name: 'e2e: rollback in the dashboard under forged requests', nodes: [trigger], connections: {}, settings: { executionOrder: 'v1' } }, H));
	t.must('rollback: V1 trigger workflow created over the public API', created.status === 200 && created.body?.id, JSON.stringify(created).slice(0, 300));
	const wfId = created.body.id;
	const act = /** @type {any} */ (await rest.request('POST', `/api/v1/workflows/${wfId}/activate`, undefined, H));
	t.must('rollback: activated', act.status === 200, JSON.stringify(act).slice(0, 300));
	const url = webhookUrl(inst.url, trigger);
	const ep = /** @type {any} */ (await waitUntil(() => sb.state.webhooks.find((/** @type {any} */ w) => w.url === url), 30_000));
	t.must('rollback: its endpoint is registered as V1', ep?.signatureVersion === 'V1', JSON.stringify(ep && { id: ep.id, v: ep.signatureVersion }));
	await routedStatus(url, 401);
	const reads = () => sb.requests.filter((/** @type {any} */ r) => r.method === 'GET' && r.path.endsWith(`/webhooks/${ep.id}`)).length;
	const readsBefore = reads();

	// The forger: knows the URL, not the secret.
	const wrongKey = `whsec_${crypto.randomBytes(24).toString('base64')}`;
	/** @type {number[]} */
	const forged = [];
	let forging = true;
	const forger = (async () => {
		for (let i = 0; forging; i++) {
			const id = `msg_forged${crypto.randomBytes(6).toString('hex')}`;
			const body = JSON.stringify({ id, event: 'PAYMENT_COMPLETED', createdAt: new Date().toISOString(), data: { amount: 1000 } });
			const sec = String(Math.floor(Date.now() / 1000));
			const ms = String(Date.now());
			const headers = [
				{ 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': sec, 'webhook-signature': deliveriesMod.signV2(wrongKey, id, sec, body) },
				{ 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': ms, 'webhook-signature': deliveriesMod.hmacHex('not-the-secret', `${ms}.${body}`) },
				{ 'content-type': 'application/json' },
			][i % 3];
			try {
				const res = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(15_000) });
				await res.text();
				forged.push(res.status);
			} catch {
				forged.push(0);
			}
			await sleep(100);
		}
	})();

	/** One genuine delivery, signed by the sandbox as the endpoint is now; its first attempt's HTTP status. */
	const genuine = async () => {
		const messageId = sb.app.deliver(ep.id, 'PAYMENT_COMPLETED', { orderId: `ord_rb${crypto.randomBytes(5).toString('hex')}`, amount: 1 });
		const d = /** @type {any} */ (await waitUntil(() => sb.deliveries.find((/** @type {any} */ x) => x.messageId === messageId && x.attempt === 1 && (x.status !== 0 || x.error)), 20_000));
		return d?.status;
	};
	/** @type {Record<string, unknown>} */
	const seen = {};
	try {
		await sleep(1500);
		seen.v1 = await genuine();
		ep.signatureVersion = 'V2'; // the service migrates the endpoint
		await sleep(1500);
		seen.migrated = await genuine();
		ep.signatureVersion = 'V1'; // the merchant rolls back in the dashboard
		await sleep(1500);
		seen.rolledBack = await genuine();
		await sleep(1000);
		seen.again = await genuine();
		await sleep(1000);
	} finally {
		forging = false;
		await forger;
	}
	t.equal('rollback: under forged requests, each genuine delivery (V1, migrated V2, rolled-back V1, V1 again) answered 200', seen, { v1: 200, migrated: 200, rolledBack: 200, again: 200 });
	await sleep(1500);
	t.equal('rollback: the genuine deliveries started 4 executions, the forged ones none', (await executions(wfId)).length, 4);
	t.check(`rollback: every forged delivery (${forged.length}, in V2, V1 and unsigned) answered 401`, forged.length >= 30 && forged.every((status) => status === 401), JSON.stringify({ count: forged.length, other: forged.filter((status) => status !== 401).slice(0, 10) }));
	const spent = reads() - readsBefore;
	log(`rollback: ${forged.length} forged deliveries, 4 genuine, ${spent} reads of the endpoint`);
	t.check('rollback: the endpoint was read only for genuine deliveries signed in the other version (at most 4 reads, not one per forgery)', spent >= 1 && spent <= 4, `${spent} reads for ${forged.length} forged deliveries`);

	const deact = /** @type {any} */ (await rest.request('POST', `/api/v1/workflows/${wfId}/deactivate`, undefined, H));
	t.check('rollback: deactivated; its endpoint deleted at the sandbox', deact.status === 200 && (await waitUntil(() => !sb.state.webhooks.some((/** @type {any} */ w) => w.url === url), 45_000)), JSON.stringify(deact).slice(0, 200));
}

/**
 * The trigger acts only on endpoints it can prove are its own, in real n8n: the service answers
 * the registration with another integration's endpoint (its id and URL). Activation fails naming
 * this workflow's URL and keeps nothing; deactivating touches nothing; that endpoint still exists
 * and still points where it did. Control: the same workflow activates and deactivates normally once
 * the service answers truly.
 * @param {{inst: any, sb: any, t: import('./runner/results').Results, rest: any, node: any}} ctx
 */
async function foreignEndpointChecks({ inst, sb, t, rest, node }) {
	const H = { 'X-N8N-API-KEY': rest.apiKey };
	const now = new Date().toISOString();
	const foreign = { id: `whk_foreign${crypto.randomBytes(6).toString('hex')}`, storeId: sb.store.storeId, url: 'https://other-integration.example.test/hook', eventTypes: ['PAYMENT_COMPLETED'], signatureVersion: 'V2', note: 'another integration', createdAt: now, updatedAt: now };
	sb.state.webhooks.push({ ...foreign });
	const trigger = { ...JSON.parse(JSON.stringify(node)), id: crypto.randomUUID(), webhookId: crypto.randomUUID(), parameters: { events: ['PAYMENT_COMPLETED'], signatureVersion: 'V2', options: {} } };
	const url = webhookUrl(inst.url, trigger);
	const created = /** @type {any} */ (await rest.request('POST', '/api/v1/workflows', { name: 'e2e: registration answered with another endpoint', nodes: [trigger], connections: {}, settings: { executionOrder: 'v1' } }, H));
	t.must('foreign endpoint: workflow created over the public API', created.status === 200 && created.body?.id, JSON.stringify(created).slice(0, 300));
	const wfId = created.body.id;
	const writesTo = (/** @type {string} */ id) => sb.requests.filter((/** @type {any} */ r) => r.method !== 'GET' && r.path.endsWith(`/webhooks/${id}`)).length;
	sb.faults.add({ match: { method: 'POST', path: /\/webhooks\/?$/ }, kind: 'reply', status: 201, count: 5, reply: { body: { ok: true, data: foreign } } });
	const before = sb.requests.length;
	const act = /** @type {any} */ (await rest.request('POST', `/api/v1/workflows/${wfId}/activate`, undefined, H));
	// Newer n8n lines register after answering: the fault stays until the registration has come.
	await waitUntil(() => sb.requests.slice(before).some((/** @type {any} */ r) => r.method === 'POST' && /\/webhooks\/?$/.test(r.path) && r.status !== 0), 30_000);
	sb.faults.clear();
	// n8n 2.8 answers the activation with the error. Newer lines activate after answering and retry a
	// failed activation by themselves: the next registration (answered truly) keeps this URL's own endpoint.
	const needle = `points at ${foreign.url}, not at this workflow's webhook URL ${url}`;
	const said = JSON.stringify(act.body ?? '').slice(0, 400);
	const posts = sb.requests.slice(before).filter((/** @type {any} */ r) => r.method === 'POST' && /\/webhooks\/?$/.test(r.path)).length;
	log(`foreign endpoint: activation answered HTTP ${act.status}: ${said.slice(0, 200)}; ${posts} registration(s) so far`);
	if (act.status >= 400) {
		t.check('foreign endpoint: activation fails naming the foreign URL and this workflow\'s webhook URL; no endpoint kept for this URL', said.includes(needle) && !sb.state.webhooks.some((/** @type {any} */ w) => w.url === url), `${act.status} ${said}`);
	} else {
		await sleep(2000);
		t.check('foreign endpoint (n8n activating after its answer, retrying by itself): nothing of the foreign endpoint is kept; an endpoint for this URL comes only from a later, truthful registration', sb.state.webhooks.filter((/** @type {any} */ w) => w.url === url).every((/** @type {any} */ w) => w.id !== foreign.id), JSON.stringify(sb.state.webhooks.filter((/** @type {any} */ w) => w.url === url || w.id === foreign.id)));
	}
	await rest.request('POST', `/api/v1/workflows/${wfId}/deactivate`, undefined, H);
	await sleep(1000);
	const after = sb.state.webhooks.find((/** @type {any} */ w) => w.id === foreign.id);
	t.check('foreign endpoint: after activation and deactivation it still exists, pointing where it did, and got no update or delete', after?.url === foreign.url && writesTo(foreign.id) === 0, JSON.stringify({ after, writes: writesTo(foreign.id) }));
	// Control: the service answers truly; the same workflow registers and removes its own endpoint.
	const again = /** @type {any} */ (await rest.request('POST', `/api/v1/workflows/${wfId}/activate`, undefined, H));
	const own = /** @type {any} */ (await waitUntil(() => sb.state.webhooks.find((/** @type {any} */ w) => w.url === url), 30_000));
	t.check('foreign endpoint (control): activated again, its own endpoint is registered', again.status === 200 && own !== undefined, JSON.stringify(again).slice(0, 200));
	const deact = /** @type {any} */ (await rest.request('POST', `/api/v1/workflows/${wfId}/deactivate`, undefined, H));
	t.check('foreign endpoint (control): deactivated, its own endpoint deleted, the other one still there', deact.status === 200 && (await waitUntil(() => !sb.state.webhooks.some((/** @type {any} */ w) => w.url === url), 30_000)) && sb.state.webhooks.some((/** @type {any} */ w) => w.id === foreign.id && w.url === foreign.url), JSON.stringify(deact).slice(0, 200));
	// The other integration's endpoint is the test's own: removed, so later phases count only n8n's.
	sb.state.webhooks.splice(sb.state.webhooks.findIndex((/** @type {any} */ w) => w.id === foreign.id), 1);
}

/**
 * The README's rotation steps on one live trigger in real n8n, against a sandbox whose endpoint
 * registration returns a secret of its own (hostile mode `registrationSecret`): the credential
 * (changed through n8n's REST API while the workflow stays active) is the source of truth, and
 * once Previous Signing Secret is cleared the replaced secret starts nothing.
 * @param {{inst: any, sb: any, t: import('./runner/results').Results, rest: any, node: any, executions: (id: string) => Promise<any[]>}} ctx
 */
async function rotationChecks({ inst, sb, t, rest, node, executions }) {
	const H = { 'X-N8N-API-KEY': rest.apiKey };
	const deliveriesMod = require(path.join(ROOT, 'out', 'sandbox', 'deliveries.js'));
	const base = sb.credentials().vaultStoreStoreApi;
	const data = { ...base, signingSecret: '', previousSigningSecret: '' };
	const name = `e2e rotation ${crypto.randomBytes(3).toString('hex')}`;
	const cred = /** @type {any} */ (await rest.ok('POST', '/rest/credentials', { name, type: 'vaultStoreStoreApi', data }));
	t.must('rotation: a store credential without a signing secret created (REST)', cred?.id, JSON.stringify(cred).slice(0, 300));
	const setCredential = async (/** @type {Record<string, string>} */ changes) => {
		Object.assign(data, changes);
		await rest.ok('PATCH', `/rest/credentials/${cred.id}`, { name, type: 'vaultStoreStoreApi', data });
	};
	const trigger = { ...JSON.parse(JSON.stringify(node)), id: crypto.randomUUID(), webhookId: crypto.randomUUID(), parameters: { events: ['PAYMENT_COMPLETED'], signatureVersion: 'V2', options: {} }, credentials: { vaultStoreStoreApi: { id: cred.id, name } } };
	sb.hostile.registrationSecret = true;
	const created = /** @type {any} */ (await rest.request('POST', '/api/v1/workflows', { name: 'e2e: rotation on a live trigger', nodes: [trigger], connections: {}, settings: { executionOrder: 'v1' } }, H));
	t.must('rotation: workflow created over the public API', created.status === 200 && created.body?.id, JSON.stringify(created).slice(0, 300));
	const wfId = created.body.id;
	const act = /** @type {any} */ (await rest.request('POST', `/api/v1/workflows/${wfId}/activate`, undefined, H));
	t.must('rotation: activated', act.status === 200, JSON.stringify(act).slice(0, 300));
	const url = webhookUrl(inst.url, trigger);
	const ep = /** @type {any} */ (await waitUntil(() => sb.state.webhooks.find((/** @type {any} */ w) => w.url === url), 30_000));
	sb.hostile.registrationSecret = false;
	t.must('rotation: its endpoint is registered, with a secret returned at registration', ep && typeof ep.secret === 'string', JSON.stringify(ep && { id: ep.id, secret: typeof ep.secret }));
	await routedStatus(url, 401);
	const registered = ep.secret;

	/** One sandbox delivery of a fresh event (signed with the endpoint's current secret); its HTTP status. */
	const viaSandbox = async () => {
		const messageId = sb.app.deliver(ep.id, 'PAYMENT_COMPLETED', { orderId: `ord_rot${crypto.randomBytes(5).toString('hex')}`, amount: 1 });
		const d = /** @type {any} */ (await waitUntil(() => sb.deliveries.find((/** @type {any} */ x) => x.messageId === messageId && x.attempt === 1 && (x.status !== 0 || x.error)), 20_000));
		return d?.status;
	};
	/** A fresh event signed with `secret`, posted by us; its HTTP status. */
	const signedWith = async (/** @type {string} */ secret) => {
		const id = `msg_rot${crypto.randomBytes(8).toString('hex')}`;
		const body = JSON.stringify({ id, event: 'PAYMENT_COMPLETED', createdAt: new Date().toISOString(), data: { amount: 1 } });
		const ts = String(Math.floor(Date.now() / 1000));
		const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': ts, 'webhook-signature': deliveriesMod.signV2(secret, id, ts, body) }, body, signal: AbortSignal.timeout(15_000) });
		await res.text();
		return res.status;
	};

	t.equal('rotation: a delivery signed with the returned secret starts the workflow (credential field empty)', await viaSandbox(), 200);
	await setCredential({ signingSecret: registered, previousSigningSecret: registered });
	t.equal('rotation: step 1 (secret copied into both fields): still accepted', await viaSandbox(), 200);
	const next = sb.rotateEndpointSecret(ep.id);
	await setCredential({ signingSecret: next });
	t.equal('rotation: step 2 (rolled at the service, new secret in the credential, no re-activation): the new secret is accepted', await viaSandbox(), 200);
	t.equal('rotation: step 3: a delivery signed with the old secret is still accepted', await signedWith(registered), 200);
	await setCredential({ previousSigningSecret: '' });
	t.equal('rotation: step 4 (Previous Signing Secret cleared): the old, returned secret gets 401', await signedWith(registered), 401);
	t.equal('rotation: step 4: the new secret is accepted', await viaSandbox(), 200);
	await sleep(1500);
	t.equal('rotation: 5 executions in all (nothing from the refused delivery)', (await executions(wfId)).length, 5);

	const deact = /** @type {any} */ (await rest.request('POST', `/api/v1/workflows/${wfId}/deactivate`, undefined, H));
	t.check('rotation: deactivated; its endpoint deleted at the sandbox', deact.status === 200 && (await waitUntil(() => !sb.state.webhooks.some((/** @type {any} */ w) => w.url === url), 45_000)), JSON.stringify(deact).slice(0, 200));
}

/**
 * One event, two executions, one refund (see the header). The workflow's refund takes the order
 * from the event and has no Idempotency Key option: its key comes from the event.
 * @param {{inst: any, sb: any, t: import('./runner/results').Results, rest: any, node: any, executions: (id: string) => Promise<any[]>}} ctx
 */
async function eventKeyChecks({ inst, sb, t, rest, node, executions }) {
	const H = { 'X-N8N-API-KEY': rest.apiKey };
	const deliveriesMod = require(path.join(ROOT, 'out', 'sandbox', 'deliveries.js'));
	const secret = sb.store.signingSecret;
	const order = sb.state.orders.find((/** @type {any} */ o) => o.payment?.status === 'COMPLETED' && o.amount >= 5 && !sb.state.refunds.some((/** @type {any} */ r) => r.orderId === o.id));
	t.must('event key: a refundable order in the sandbox', order, 'none');
	const refunds = () => sb.ledger.filter((/** @type {any} */ e) => e.kind === 'refund' && e.orderId === order.id);
	const refundPosts = () => sb.requests.filter((/** @type {any} */ r) => r.method === 'POST' && r.path.endsWith(`/orders/${order.id}/refund`));
	const trigger = { ...JSON.parse(JSON.stringify(node)), id: crypto.randomUUID(), webhookId: crypto.randomUUID(), parameters: { events: ['PAYMENT_COMPLETED'], signatureVersion: 'V2', options: {} } };
	const refund = refundNode({ orderExpr: '={{ $json.data.orderId }}', reason: 'e2e: one event, one refund', credentials: trigger.credentials });
	const created = /** @type {any} */ (await rest.request('POST', '/api/v1/workflows', { name: 'e2e: 1.00 back on each completed payment (key from the event)', nodes: [trigger, refund], connections: { [trigger.name]: { main: [[{ node: refund.name, type: 'main', index: 0 }]] } }, settings: { executionOrder: 'v1' } }, H));
	t.must('event key: Vault Store Trigger -> Refund workflow created over the public API', created.status === 200 && created.body?.id, JSON.stringify(created).slice(0, 300));
	const wfId = created.body.id;
	const act = /** @type {any} */ (await rest.request('POST', `/api/v1/workflows/${wfId}/activate`, undefined, H));
	t.must('event key: activated', act.status === 200, JSON.stringify(act).slice(0, 300));
	const url = webhookUrl(inst.url, trigger);
	// Newer n8n lines finish activating after the API call returns: wait for the endpoint and the route.
	const ep = /** @type {any} */ (await waitUntil(() => sb.state.webhooks.find((/** @type {any} */ w) => w.url === url), 30_000));
	t.must('event key: its endpoint is registered at the sandbox', ep, JSON.stringify(sb.state.webhooks.map((/** @type {any} */ w) => w.url)));
	t.equal('event key: the workflow URL is routed to the node (401 to an unsigned POST)', await routedStatus(url, 401), 401);

	// The service commits the refund, then answers 500 (not stored under the key, as the spec says).
	const attempts = 1;
	sb.faults.add({ match: { method: 'POST', path: new RegExp(`/orders/${order.id}/refund$`) }, kind: 'commit-then-500', count: attempts });
	const messageId = sb.app.deliver(ep.id, 'PAYMENT_COMPLETED', { orderId: order.id, amount: 1, currency: 'USD' });
	const delivery = /** @type {any} */ (await waitUntil(() => sb.deliveries.find((/** @type {any} */ d) => d.messageId === messageId && (d.status !== 0 || d.error)), 20_000));
	t.check('event key: n8n answered the sandbox delivery with 2xx', delivery && delivery.status >= 200 && delivery.status < 300, JSON.stringify(delivery && { status: delivery.status, error: delivery.error }));
	const isDone = (/** @type {any} */ e) => ['success', 'error', 'crashed', 'canceled'].includes(e.status);
	const first = /** @type {any[]} */ (await waitUntil(async () => {
		const l = await executions(wfId);
		return l.length === 1 && isDone(l[0]) ? l : undefined;
	}, 30_000));
	const firstId = String(first?.[0]?.id);
	const keys = () => [...new Set(refundPosts().map((/** @type {any} */ r) => r.headers['idempotency-key']))];
	t.equal('event key: the refund committed once and answered 500: not repeated (a repeat would be applied again), the execution failed', { status: first?.[0]?.status, requests: refundPosts().length, keys: keys().length, ledger: refunds().length }, { status: 'error', requests: attempts, keys: 1, ledger: 1 });
	const firstError = String((await rest.api(`/executions/${firstId}?includeData=true`))?.data?.resultData?.error?.message ?? '');
	t.check('event key: its error says the outcome is unknown and the service may have applied it', /is unknown: the service may have applied it/.test(firstError), firstError.slice(0, 200));
	t.check('event key: the key is derived from the event (n8n_evt_…)', /^n8n_evt_/.test(keys()[0] ?? ''), JSON.stringify(keys()));

	// The event sent again (a resend: same id and body, fresh timestamp): this process saw the id.
	const ts = String(Math.floor(Date.now() / 1000));
	const resent = await fetch(url, { method: 'POST', headers: { ...delivery.headers, 'webhook-timestamp': ts, 'webhook-signature': deliveriesMod.signV2(secret, messageId, ts, delivery.body) }, body: delivery.body });
	const resentText = await resent.text();
	t.check('event key: the event sent again within the duplicate window is dropped (200 "duplicate delivery")', resent.status === 200 && /duplicate delivery/.test(resentText), `${resent.status} ${resentText.slice(0, 120)}`);
	await sleep(1500);
	t.equal('event key: and started no execution', (await executions(wfId)).length, 1);

	// n8n's Retry of the failed execution: a new execution that runs the refund again on the saved event item.
	const retried = /** @type {any} */ (await rest.request('POST', `/api/v1/executions/${firstId}/retry`, {}, H));
	t.must('event key: n8n Retry of the failed execution accepted (public API)', retried.status < 300 && retried.body?.id, JSON.stringify(retried).slice(0, 300));
	const retryId = String(retried.body.id);
	const second = /** @type {any} */ (await waitUntil(async () => {
		const r = await rest.api(`/executions/${retryId}?includeData=true`);
		return r && isDone(r) ? r : undefined;
	}, 30_000));
	const out = second?.data?.resultData?.runData?.['Refund 1.00']?.[0]?.data?.main?.[0]?.[0]?.json ?? {};
	const all = await executions(wfId);
	log(`one event (${messageId}): ${all.length} executions (${all.map((/** @type {any} */ e) => `${e.id} ${e.status}${e.retryOf ? ` retryOf ${e.retryOf}` : ''}`).join(', ')}), ${refundPosts().length} refund requests (HTTP ${refundPosts().map((/** @type {any} */ r) => r.status).join(', ')}), ${keys().length} key, ${refunds().length} refund in the ledger; the resend within the window: ${resent.status} ${resentText.slice(0, 60)}`);
	const retryError = String(second?.data?.resultData?.error?.message ?? '');
	t.check('event key: the Retry is a new execution (retryOf) that sends nothing: it reads the unknown outcome in n8n\'s store and fails naming the event', second?.status === 'error' && String(second?.retryOf) === firstId && retryId !== firstId && retryError.includes(`for event ${messageId} is unknown: an earlier execution sent it`), JSON.stringify({ status: second?.status, retryOf: second?.retryOf, error: retryError.slice(0, 200), out }));
	t.equal('event key: 2 executions of the event, ONE refund request, exactly ONE refund in the sandbox ledger', [all.length, refundPosts().length, refunds().length], [2, 1, 1]);

	const deact = /** @type {any} */ (await rest.request('POST', `/api/v1/workflows/${wfId}/deactivate`, undefined, H));
	t.check('event key: deactivated; its endpoint deleted at the sandbox', deact.status === 200 && (await waitUntil(() => !sb.state.webhooks.some((/** @type {any} */ w) => w.url === url), 45_000)), JSON.stringify(deact).slice(0, 200));
}

module.exports = { triggerChecks, webhookUrl, routedStatus };
