// @ts-check
/**
 * What leaves the node is exact, in a running n8n (`n8n start`), read back through n8n's REST API
 * (the execution data n8n stores), against the in-process sandbox's hostile mode:
 *   - a vault Custom API Call whose answer echoes the card number and the CVC: none of it is in
 *     the execution data; the token id is;
 *   - a token list whose ids, fingerprints and references hold long Luhn-valid digit runs comes
 *     back whole (every id, fingerprint and metadata value as the service sent it).
 * Each workflow is Vault Store Trigger -> Vault Store, started by a sandbox event.
 */
'use strict';

const crypto = require('node:crypto');
const path = require('node:path');

const { ROOT, PKG_NAME, CREDENTIALS, log } = require('./runner/lib');
const { webhookUrl, routedStatus } = require('./trigger');
const wait = require('./runner/wait');

/** @param {() => any} fn */
const waitUntil = (fn, timeoutMs = 30_000, intervalMs = 250) => wait.waitUntil(fn, timeoutMs, intervalMs);

const CARD = '4242424242424242';
const CVC = '737';

/**
 * @param {{inst: any, sb: any, t: import('./runner/results').Results, rest: any, example: any}} ctx
 */
async function outputGateChecks({ inst, sb, t, rest, example }) {
	const H = { 'X-N8N-API-KEY': rest.apiKey };
	const hostile = require(path.join(ROOT, 'out', 'sandbox', 'hostileAnswers.js'));
	const exampleTrigger = example.workflow.nodes.find((/** @type {any} */ n) => n.type === `${PKG_NAME}.vaultStoreTrigger`);
	const isDone = (/** @type {any} */ e) => ['success', 'error', 'crashed', 'canceled'].includes(e.status);

	/** Creates and activates Trigger -> `action`; delivers one event; returns the stored execution (with data). */
	const runOnce = async (/** @type {string} */ name, /** @type {any} */ parameters) => {
		const trigger = {
			...JSON.parse(JSON.stringify(exampleTrigger)),
			id: crypto.randomUUID(),
			webhookId: crypto.randomUUID(),
			parameters: { events: ['PAYMENT_COMPLETED'], signatureVersion: 'V2', options: { rejectDuplicates: false } },
		};
		const action = {
			id: crypto.randomUUID(),
			name: 'Vault',
			type: `${PKG_NAME}.vaultStore`,
			typeVersion: 2,
			position: [240, 0],
			parameters,
			credentials: { vaultStoreVaultApi: { id: CREDENTIALS.vault.id, name: CREDENTIALS.vault.name } },
		};
		const connections = { [trigger.name]: { main: [[{ node: action.name, type: 'main', index: 0 }]] } };
		const created = /** @type {any} */ (await rest.request('POST', '/api/v1/workflows', { name: `e2e output gate: ${name}`, nodes: [trigger, action], connections, settings: { executionOrder: 'v1' } }, H));
		t.must(`output gate: workflow "${name}" created`, created.status === 200 && created.body?.id, JSON.stringify(created).slice(0, 300));
		const id = created.body.id;
		const act = /** @type {any} */ (await rest.request('POST', `/api/v1/workflows/${id}/activate`, undefined, H));
		t.must(`output gate: workflow "${name}" activated`, act.status === 200, JSON.stringify(act).slice(0, 300));
		const url = webhookUrl(inst.url, trigger);
		const ep = /** @type {any} */ (await waitUntil(() => sb.state.webhooks.find((/** @type {any} */ w) => w.url === url)));
		t.must(`output gate: "${name}" has its endpoint at the sandbox`, ep, 'none');
		t.equal(`output gate: "${name}" URL routed to the node`, await routedStatus(url, 401), 401);
		sb.app.deliver(ep.id, 'PAYMENT_COMPLETED', { orderId: 'ord_e2e', amount: 1, currency: 'USD' });
		const list = /** @type {any[]} */ (
			await waitUntil(async () => {
				const r = await rest.api(`/executions?workflowId=${encodeURIComponent(id)}&limit=10`);
				const l = r.data ?? [];
				return l.length >= 1 && l.every(isDone) ? l : undefined;
			})
		);
		t.must(`output gate: "${name}" ran once`, list && list.length === 1, JSON.stringify(list ?? []).slice(0, 300));
		const full = /** @type {any} */ (await rest.api(`/executions/${list[0].id}?includeData=true`));
		await rest.request('POST', `/api/v1/workflows/${id}/deactivate`, undefined, H);
		const items = full?.data?.resultData?.runData?.Vault?.[0]?.data?.main?.[0] ?? [];
		return { full, status: full?.status, error: full?.data?.resultData?.error?.message, json: items.map((/** @type {any} */ i) => i.json) };
	};

	// ------------------------------------------------------------ vault Custom API Call echoing the card
	{
		sb.faults.add({ kind: 'echo-success', match: { method: 'POST', path: /\/tokens$/ } });
		const body = JSON.stringify({ type: 'card', data: { number: CARD, exp_month: 12, exp_year: new Date().getUTCFullYear() + 2, cvc: CVC }, metadata: { source: 'e2e' } });
		const from = sb.requests.length;
		const r = await runOnce('vault custom create', {
			resource: 'custom',
			operation: 'request',
			api: 'vault',
			method: 'POST',
			path: '/tokens',
			body,
			sendIdempotencyKey: true,
		});
		const sent = sb.requests.slice(from).filter((/** @type {any} */ q) => q.method === 'POST' && q.path.endsWith('/tokens'));
		t.check('output gate (custom): the vault create was sent and answered 201 (the answer echoed the card and the CVC)', sent.length === 1 && sent[0].status === 201, JSON.stringify(sent.map((/** @type {any} */ q) => [q.path, q.status])));
		t.equal('output gate (custom): the execution succeeded', { status: r.status, error: r.error ?? null }, { status: 'success', error: null });
		t.check('output gate (custom): the item keeps the token id and mask', /^tok_/.test(String(r.json[0]?.id)) && r.json[0]?.mask?.last4 === '4242', JSON.stringify(r.json).slice(0, 300));
		// What the workflow's steps produced, as n8n stores it (the node's own Body parameter, which the user typed, aside).
		const stored = JSON.stringify(r.full?.data?.resultData ?? {});
		const leaks = [];
		if (stored.replace(/[\s.-]/g, '').includes(CARD)) leaks.push('card number');
		if (/\\?"(?:[^"\\]*[_-])?(?:cvc|cvv|csc)2?\\?"\s*:/i.test(stored)) leaks.push('security-code field');
		log(`output gate (custom): stored execution data ${stored.length} characters; leaks: ${leaks.join(', ') || 'none'}`);
		t.equal('output gate (custom): the execution data read back through the REST API holds no card number and no security code', leaks, []);
	}

	// ------------------------------------------------------------ token ids with long digit runs
	{
		const before = [...sb.state.tokens.keys()];
		t.must('output gate (ids): the vault holds tokens', before.length >= 1, String(before.length));
		sb.faults.add({ kind: 'digit-ids', match: { method: 'GET', path: /\/tokens$/ }, count: 50 });
		const r = await runOnce('token list with digit-run ids', { resource: 'token', operation: 'getAll', returnAll: true });
		sb.faults.clear();
		t.equal('output gate (ids): the execution succeeded', { status: r.status, error: r.error ?? null }, { status: 'success', error: null });
		const expected = before.map((/** @type {string} */ id) => hostile.digitIdRecord({ id, metadata: sb.state.tokens.get(id).metadata }));
		const byId = new Map(expected.map((/** @type {any} */ e) => [e.id, e]));
		const whole = r.json.filter((/** @type {any} */ j) => {
			const e = byId.get(j.id);
			return e && j.fingerprint === e.fingerprint && JSON.stringify(j.metadata) === JSON.stringify(e.metadata);
		});
		log(`output gate (ids): ${r.json.length} tokens listed, ${whole.length} with id, fingerprint and metadata as sent; e.g. ${r.json[0]?.id}`);
		t.check('output gate (ids): every token comes back whole: ids, fingerprints and references holding long Luhn-valid digit runs', r.json.length === before.length && whole.length === before.length && r.json.every((/** @type {any} */ j) => /^tok_4\d{15}/.test(String(j.id))), JSON.stringify(r.json.slice(0, 3)).slice(0, 400));
	}
}

module.exports = { outputGateChecks };
