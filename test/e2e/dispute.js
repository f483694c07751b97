// @ts-check
/**
 * examples/dispute-evidence.json end to end in a running n8n (`n8n start`; 2.8.4, or the newest
 * line with --latest) against the in-process sandbox:
 *   - activating it over the public API registers one endpoint for PAYMENT_DISPUTED
 *   - the sandbox's dev route POST /__dev/disputes {orderId} opens a dispute on a paid order and
 *     sends a signed PAYMENT_DISPUTED delivery to that endpoint; n8n answers 2xx
 *   - exactly one execution runs, successfully, through all four nodes
 *   - the sandbox received, in order, the dispute get, the order get and the evidence POST for
 *     that dispute, whose body holds the evidence built from the order (number, customer,
 *     payment reference, items, licenses); the dispute is then UNDER_REVIEW with that evidence
 *   - deactivating deletes the endpoint
 */
'use strict';

const { PKG_NAME, log } = require('./runner/lib');
const { webhookUrl, routedStatus } = require('./trigger');

const { sleep, waitUntil } = require('./runner/wait');

/**
 * @param {{inst: any, sb: any, t: import('./runner/results').Results, rest: any, example: any}} ctx
 */
async function disputeChecks({ inst, sb, t, rest, example }) {
	const H = { 'X-N8N-API-KEY': rest.apiKey };
	const wf = example.workflow;
	const trigger = wf.nodes.find((/** @type {any} */ n) => n.type === `${PKG_NAME}.vaultStoreTrigger`);
	const url = webhookUrl(inst.url, trigger);
	const endpoints = () => sb.state.webhooks.filter((/** @type {any} */ w) => w.url === url);
	const { storeId, secretKey } = sb.credentials().vaultStoreStoreApi;

	// ---------------------------------------------------------------- publish
	const act = /** @type {any} */ (await rest.request('POST', `/api/v1/workflows/${example.id}/activate`, undefined, H));
	t.must('dispute: the example workflow activated over the public API', act.status === 200, JSON.stringify(act).slice(0, 300));
	await waitUntil(() => endpoints().length > 0, 30_000);
	// n8n 2.41 activates after the API call returns (publication outbox): the route too, before the event.
	t.equal('dispute: the workflow URL is routed to the node (401 to an unsigned POST)', await routedStatus(url, 401), 401);
	t.equal('dispute: one endpoint for PAYMENT_DISPUTED (V2) registered for its URL', endpoints().map((/** @type {any} */ w) => [w.eventTypes, w.signatureVersion]), [[['PAYMENT_DISPUTED'], 'V2']]);
	const listRuns = async () => (await rest.api(`/executions?workflowId=${example.id}&limit=50`)).data ?? [];
	const runsBefore = (await listRuns()).length;

	// ---------------------------------------------------------------- a paid order, as the API shows it
	const disputed = new Set((sb.state.collections.disputes ?? []).map((/** @type {any} */ d) => d.orderId));
	const paid = sb.state.orders.filter((/** @type {any} */ o) => o.payment?.status === 'COMPLETED' && !disputed.has(o.id));
	const withLicense = paid.find((/** @type {any} */ o) => sb.state.licenses.some((/** @type {any} */ l) => l.orderId === o.id));
	const orderId = (withLicense ?? paid[0])?.id;
	t.must('dispute: the sandbox has a paid, undisputed order', orderId, `${paid.length} paid orders`);
	const orderRes = await fetch(`${sb.baseUrl}/v2/core/stores/${storeId}/orders/${orderId}`, { headers: { authorization: `Bearer ${secretKey}` } });
	const order = /** @type {any} */ (await orderRes.json()).data;

	// ---------------------------------------------------------------- open the dispute
	const from = sb.requests.length;
	const opened = await fetch(`${sb.baseUrl}/__dev/disputes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ orderId }) });
	const openedBody = /** @type {any} */ (await opened.json());
	const dispute = openedBody.data?.dispute ?? openedBody.dispute;
	const messageIds = openedBody.data?.messageIds ?? openedBody.messageIds ?? [];
	t.must('dispute: POST /__dev/disputes opened an OPEN dispute (201)', opened.status === 201 && /^dsp_/.test(dispute?.id) && dispute.status === 'OPEN', JSON.stringify(openedBody).slice(0, 300));
	t.equal('dispute: PAYMENT_DISPUTED went to exactly one endpoint', messageIds.length, 1);
	const delivery = /** @type {any} */ (await waitUntil(() => sb.deliveries.find((/** @type {any} */ d) => d.messageId === messageIds[0] && d.url === url && (d.status !== 0 || d.error)), 20_000));
	t.check('dispute: n8n answered the signed PAYMENT_DISPUTED delivery with 2xx', delivery && delivery.status >= 200 && delivery.status < 300, JSON.stringify(delivery && { status: delivery.status, error: delivery.error }));

	// ---------------------------------------------------------------- the execution
	const runs = await waitUntil(async () => {
		const l = await listRuns();
		return l.length > runsBefore && l.every((/** @type {any} */ e) => e.finished || e.status === 'success' || e.status === 'error') ? l : undefined;
	}, 30_000);
	await sleep(1500);
	const all = await listRuns();
	t.equal('dispute: exactly one execution ran', all.length - runsBefore, 1);
	const run = all.sort((/** @type {any} */ a, /** @type {any} */ b) => Number(b.id) - Number(a.id))[0];
	t.equal('dispute: it succeeded', run?.status, 'success');
	void runs;
	if (run) {
		const full = await rest.api(`/executions/${run.id}?includeData=true`);
		const rd = full.data?.resultData?.runData ?? {};
		const out = (name) => (rd[name]?.[0]?.data?.main?.[0] ?? []).map((/** @type {any} */ i) => i.json);
		t.check('dispute: every node ran once', wf.nodes.every((/** @type {any} */ n) => rd[n.name]?.length === 1), JSON.stringify(Object.keys(rd)));
		t.check('dispute: the trigger output is the PAYMENT_DISPUTED event for the dispute', out(trigger.name)[0]?.event === 'PAYMENT_DISPUTED' && out(trigger.name)[0]?.data?.disputeId === dispute.id, JSON.stringify(out(trigger.name)).slice(0, 300));
		t.equal('dispute: Get the dispute -> the dispute; Get the order -> its order', [out('Get the dispute')[0]?.id, out('Get the order and its customer')[0]?.id], [dispute.id, orderId]);
		const submitted = out('Submit evidence')[0] ?? {};
		t.check('dispute: Submit evidence outputs the dispute UNDER_REVIEW', submitted.id === dispute.id && submitted.status === 'UNDER_REVIEW', JSON.stringify(submitted).slice(0, 300));
	}

	// ---------------------------------------------------------------- what the sandbox received
	const reqs = sb.requests.slice(from).filter((/** @type {any} */ r) => !r.path.startsWith('/__dev'));
	const p = (r) => `${r.method} ${r.path.replace(/^\/v2\/core\//, '/v2/')} ${r.status}`;
	t.equal('dispute: the sandbox saw get dispute, get order, POST evidence (in that order)', reqs.map(p), [
		`GET /v2/stores/${storeId}/disputes/${dispute.id} 200`,
		`GET /v2/stores/${storeId}/orders/${orderId} 200`,
		`POST /v2/stores/${storeId}/disputes/${dispute.id}/evidence 200`,
	]);
	const evidence = reqs.find((/** @type {any} */ r) => r.method === 'POST' && r.path.endsWith(`/disputes/${dispute.id}/evidence`));
	const body = evidence?.body ?? {};
	log(`dispute: evidence POST body ${JSON.stringify(body).slice(0, 600)}`);
	t.equal('dispute: the evidence body has the three fields of the example, nothing else', Object.keys(body).sort(), ['explanation', 'productDescription', 'uncategorizedText']);
	const c = order.customer ?? {};
	t.check('dispute: explanation names the order, the customer, the payment reference and method', [order.orderNumber, c.firstName, c.lastName, c.email, order.payment?.referenceId, order.paymentMethod?.type].every((s) => s && String(body.explanation).includes(s)), body.explanation);
	t.check('dispute: productDescription lists the order items with price and currency', (order.items ?? []).every((/** @type {any} */ i) => String(body.productDescription).includes(`${i.quantity} x ${i.name} at ${i.price} ${order.currency}`)), body.productDescription);
	const lic = order.licenses ?? [];
	t.check(`dispute: uncategorizedText ${lic.length ? `names the order's ${lic.length} license(s)` : 'says digital goods were delivered'}`, lic.length ? lic.every((/** @type {any} */ l) => String(body.uncategorizedText).includes(l.id)) : /Digital goods delivered/.test(body.uncategorizedText), body.uncategorizedText);
	t.check('dispute: the evidence POST carried the store key (redacted in the log)', evidence?.headers?.authorization === '[redacted]', JSON.stringify(evidence?.headers));
	const stored = (sb.state.collections.disputes ?? []).find((/** @type {any} */ d) => d.id === dispute.id);
	t.check('dispute: at the sandbox the dispute is UNDER_REVIEW with that evidence', stored?.status === 'UNDER_REVIEW' && stored.evidence?.explanation === body.explanation && stored.evidenceSubmittedAt, JSON.stringify(stored && { status: stored.status, evidence: Object.keys(stored.evidence ?? {}) }));

	// ---------------------------------------------------------------- unpublish
	const deact = /** @type {any} */ (await rest.request('POST', `/api/v1/workflows/${example.id}/deactivate`, undefined, H));
	t.check('dispute: workflow deactivated over the public API', deact.status === 200, JSON.stringify(deact).slice(0, 300));
	t.check('dispute: deactivating deleted its endpoint at the sandbox', await waitUntil(() => endpoints().length === 0, 15_000), JSON.stringify(endpoints()));
}

module.exports = { disputeChecks };
