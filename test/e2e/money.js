// @ts-check
/**
 * Money moves once per event over the service's whole retry horizon, in a running n8n
 * (`n8n start`), against the in-process sandbox whose clock is moved forward to make the service
 * forget its idempotency results (it keeps them 24 hours; it retries a delivery for about 75):
 *   - late re-delivery: Vault Store Trigger -> Refund -> Stop and Error. The refund is made, then
 *     the execution fails (n8n saves the workflow's static data after failed executions too).
 *     25 hours later the same event is delivered again: the refund is NOT sent (the node's record,
 *     kept 84 hours, says it was made); the output says it was skipped.
 *   - timeout: a refund the service committed but answered only after the node's Timeout, with Max
 *     Retries 0 (no repeat within the request), fails (outcome unknown). Delivered again at once (control), it goes out under the same key and the
 *     service replays it; another such event, delivered again after a day on both clocks (the
 *     sandbox's moved, n8n restarted with its clock 25 h ahead: test/e2e/runner/clock-shift.js), is
 *     not sent again and fails naming the event.
 *   - outage: the first execution of another event meets a 500 on every attempt (nothing
 *     committed); 25 hours later the event is delivered again and refunded exactly once; a third
 *     delivery sends nothing.
 *   - migration: a V1 trigger whose endpoint the service migrated to V2 is kept at V2 when n8n
 *     restarts and activates the workflow again (no PATCH back), and a V2 delivery starts it.
 * Each delivery is signed afresh (the trigger's Reject Duplicates is off in these workflows, as the
 * days between real retries would have emptied its memory).
 */
'use strict';

const crypto = require('node:crypto');
const path = require('node:path');

const { ROOT, PKG_NAME, log, N8N_DEFAULT } = require('./runner/lib');
const lib = require('./runner/lib');
const { webhookUrl, routedStatus } = require('./trigger');
const { refundNode } = require('./runner/refund-node');

const wait = require('./runner/wait');

const { sleep } = wait;
/** @param {() => any} fn */
const waitUntil = (fn, timeoutMs = 30_000, intervalMs = 250) => wait.waitUntil(fn, timeoutMs, intervalMs);
const HOUR = 3_600_000;

/**
 * @param {{inst: any, sb: any, t: import('./runner/results').Results, rest: any, example: any}} ctx
 */
async function moneyChecks({ inst, sb, t, rest, example }) {
	const H = { 'X-N8N-API-KEY': rest.apiKey };
	const deliveriesMod = require(path.join(ROOT, 'out', 'sandbox', 'deliveries.js'));
	const exampleTrigger = example.workflow.nodes.find((/** @type {any} */ n) => n.type === `${PKG_NAME}.vaultStoreTrigger`);
	const secret = sb.store.signingSecret;
	const isDone = (/** @type {any} */ e) => ['success', 'error', 'crashed', 'canceled'].includes(e.status);
	const executions = async (/** @type {string} */ workflowId) => {
		const r = await rest.api(`/executions?workflowId=${encodeURIComponent(workflowId)}&limit=250`);
		return [...(r.data ?? [])].sort((a, b) => Number(a.id) - Number(b.id));
	};
	const finished = async (/** @type {string} */ workflowId, /** @type {number} */ n) => {
		const list = await waitUntil(async () => {
			const l = await executions(workflowId);
			return l.length >= n && l.slice(0, n).every(isDone) ? l : undefined;
		});
		return /** @type {any[]} */ (list ?? []);
	};
	const refundOutput = async (/** @type {string} */ executionId) => {
		const r = /** @type {any} */ (await rest.api(`/executions/${executionId}?includeData=true`));
		const task = r?.data?.resultData?.runData?.['Refund 1.00']?.[0];
		return { status: r?.status, json: task?.data?.main?.[0]?.[0]?.json ?? {}, error: r?.data?.resultData?.error?.message, hints: (task?.hints ?? []).map((/** @type {any} */ h) => h.message) };
	};

	/** Creates and activates Trigger -> Refund (-> Stop and Error); returns its id, URL and endpoint. */
	const workflow = async (/** @type {string} */ name, /** @type {{ fail?: boolean, version?: string, events?: string[], refund?: boolean, reason?: string, timeoutMs?: number, maxRetries?: number, graph?: (trigger: any) => { nodes: any[], connections: any } }} */ opts = {}) => {
		const trigger = {
			...JSON.parse(JSON.stringify(exampleTrigger)),
			id: crypto.randomUUID(),
			webhookId: crypto.randomUUID(),
			parameters: { events: opts.events ?? ['PAYMENT_COMPLETED'], signatureVersion: opts.version ?? 'V2', options: { rejectDuplicates: false } },
		};
		const refund = refundNode({ orderExpr: '={{ $json.data.orderId }}', reason: opts.reason ?? `e2e: ${name}`, timeoutMs: opts.timeoutMs, options: opts.maxRetries === undefined ? {} : { maxRetries: opts.maxRetries }, credentials: trigger.credentials });
		const graph = opts.graph?.(trigger);
		const nodes = graph?.nodes ?? (opts.refund === false ? [trigger] : [trigger, refund]);
		/** @type {any} */
		const connections = graph?.connections ?? (opts.refund === false ? {} : { [trigger.name]: { main: [[{ node: refund.name, type: 'main', index: 0 }]] } });
		if (opts.fail) {
			const stop = { id: crypto.randomUUID(), name: 'Fails after the refund', type: 'n8n-nodes-base.stopAndError', typeVersion: 1, position: [480, 0], parameters: { errorMessage: 'a later step failed' } };
			nodes.push(stop);
			connections[refund.name] = { main: [[{ node: stop.name, type: 'main', index: 0 }]] };
		}
		const created = /** @type {any} */ (await rest.request('POST', '/api/v1/workflows', { name: `e2e money: ${name}`, nodes, connections, settings: { executionOrder: 'v1' } }, H));
		t.must(`money: workflow "${name}" created`, created.status === 200 && created.body?.id, JSON.stringify(created).slice(0, 300));
		const id = created.body.id;
		const act = /** @type {any} */ (await rest.request('POST', `/api/v1/workflows/${id}/activate`, undefined, H));
		t.must(`money: workflow "${name}" activated`, act.status === 200, JSON.stringify(act).slice(0, 300));
		const url = webhookUrl(inst.url, trigger);
		const ep = /** @type {any} */ (await waitUntil(() => sb.state.webhooks.find((/** @type {any} */ w) => w.url === url)));
		t.must(`money: "${name}" has its endpoint at the sandbox`, ep, 'none');
		t.equal(`money: "${name}" URL routed to the node`, await routedStatus(url, 401), 401);
		return { id, url, ep };
	};
	/** Sends the event to n8n as the service's retry would: same id and body, signed now (`clockMs` ahead when n8n's clock runs ahead). */
	const redeliver = async (/** @type {any} */ delivery, /** @type {string} */ url, clockMs = 0) => {
		const ts = String(Math.floor((Date.now() + clockMs) / 1000));
		const res = await fetch(url, { method: 'POST', headers: { ...delivery.headers, 'webhook-timestamp': ts, 'webhook-signature': deliveriesMod.signV2(secret, delivery.messageId, ts, delivery.body) }, body: delivery.body });
		await res.text();
		return res.status;
	};
	const firstDelivery = async (/** @type {string} */ messageId) =>
		/** @type {any} */ (await waitUntil(() => sb.deliveries.find((/** @type {any} */ d) => d.messageId === messageId && (d.status !== 0 || d.error))));
	const refundable = () => sb.state.orders.filter((/** @type {any} */ o) => o.payment?.status === 'COMPLETED' && o.amount >= 5 && !sb.state.refunds.some((/** @type {any} */ r) => r.orderId === o.id));
	const ledgerFor = (/** @type {string} */ orderId) => sb.ledger.filter((/** @type {any} */ e) => e.kind === 'refund' && e.orderId === orderId).length;
	const postsFor = (/** @type {string} */ orderId) => sb.requests.filter((/** @type {any} */ r) => r.method === 'POST' && r.path.endsWith(`/orders/${orderId}/refund`)).length;

	/** The event for `orderId` delivered, then re-delivered 25 hours later (the service's keys forgotten). */
	const twiceAfterADay = async (/** @type {{ id: string, url: string, ep: any }} */ wf, /** @type {string} */ orderId) => {
		const messageId = sb.app.deliver(wf.ep.id, 'PAYMENT_COMPLETED', { orderId, amount: 1, currency: 'USD' });
		const delivery = await firstDelivery(messageId);
		const [first] = await finished(wf.id, 1);
		sb.app.clock.advance(25 * HOUR);
		await redeliver(delivery, wf.url);
		const [, second] = await finished(wf.id, 2);
		return { first, second, out2: await refundOutput(second?.id) };
	};

	// ------------------------------------------------------------ late re-delivery after 24 h
	{
		const [order] = refundable();
		t.must('money: a refundable order', order, 'none');
		const wf = await workflow('late re-delivery', { fail: true });
		const messageId = sb.app.deliver(wf.ep.id, 'PAYMENT_COMPLETED', { orderId: order.id, amount: 1, currency: 'USD' });
		const delivery = await firstDelivery(messageId);
		const [first] = await finished(wf.id, 1);
		const out1 = await refundOutput(first.id);
		t.equal('money (late): the first execution refunded, then failed at the later step', { status: first.status, ledger: ledgerFor(order.id), refunded: out1.json.orderId === order.id }, { status: 'error', ledger: 1, refunded: true });
		sb.app.clock.advance(25 * HOUR);
		const status = await redeliver(delivery, wf.url);
		const [, second] = await finished(wf.id, 2);
		const out2 = await refundOutput(second?.id);
		log(`money (late): event ${messageId} re-delivered 25 h later (HTTP ${status}): execution ${second?.id} ${second?.status}, refund output ${JSON.stringify(out2.json).slice(0, 160)}; ${postsFor(order.id)} refund request(s), ${ledgerFor(order.id)} refund(s) in the ledger`);
		t.equal('money (late): the re-delivery after the service forgot the key sent no refund; the ledger keeps ONE', { posts: postsFor(order.id), ledger: ledgerFor(order.id) }, { posts: 1, ledger: 1 });
		t.check('money (late): the second execution says it skipped the write (writeSkipped, the recorded refund id)', out2.json.writeSkipped === true && out2.json.id === out1.json.id, JSON.stringify(out2));
		await rest.request('POST', `/api/v1/workflows/${wf.id}/deactivate`, undefined, H);
	}

	// ------------------------------------------------------------ an unknown outcome (500 after commit), then re-deliveries
	{
		const [order] = refundable();
		const wf = await workflow('unknown outcome');
		// The service commits the refund and answers 500: the spec's service does not store a 5xx under the key.
		sb.faults.add({ match: { method: 'POST', path: new RegExp(`/orders/${order.id}/refund$`) }, kind: 'commit-then-500', count: 1 });
		const messageId = sb.app.deliver(wf.ep.id, 'PAYMENT_COMPLETED', { orderId: order.id, amount: 1, currency: 'USD' });
		const delivery = await firstDelivery(messageId);
		const [first] = await finished(wf.id, 1);
		const firstError = String((await rest.api(`/executions/${first.id}?includeData=true`))?.data?.resultData?.error?.message ?? '');
		t.equal('money (unknown): the refund committed and answered 500: sent once, not repeated, the execution failed', { status: first.status, posts: postsFor(order.id), ledger: ledgerFor(order.id) }, { status: 'error', posts: 1, ledger: 1 });
		t.check('money (unknown): the error says the outcome is unknown and the service may have applied it', /is unknown: the service may have applied it/.test(firstError), firstError.slice(0, 200));
		// The service re-delivers (at once, and after it forgot its keys): the node never writes blindly.
		await redeliver(delivery, wf.url);
		const [, second] = await finished(wf.id, 2);
		sb.app.clock.advance(25 * HOUR);
		await redeliver(delivery, wf.url);
		const [, , third] = await finished(wf.id, 3);
		const errors = [];
		for (const e of [second, third]) errors.push(String((await rest.api(`/executions/${e?.id}?includeData=true`))?.data?.resultData?.error?.message ?? ''));
		log(`money (unknown): event ${messageId}: ${postsFor(order.id)} refund request(s), ${ledgerFor(order.id)} refund(s) in the ledger; re-deliveries: ${[second, third].map((e) => e?.status).join(', ')}; ${errors[1].slice(0, 160)}`);
		t.equal('money (unknown): two re-deliveries (at once, 25 h later) sent no refund; the ledger keeps ONE', { posts: postsFor(order.id), ledger: ledgerFor(order.id), statuses: [second?.status, third?.status] }, { posts: 1, ledger: 1, statuses: ['error', 'error'] });
		t.check('money (unknown): each re-delivery fails naming the event and the unclear attempt', errors.every((m) => m.includes(`for event ${messageId} is unknown: an earlier execution sent it at `)), JSON.stringify(errors.map((m) => m.slice(0, 160))));
		await rest.request('POST', `/api/v1/workflows/${wf.id}/deactivate`, undefined, H);
	}

	// ------------------------------------------------------------ a refund answered by a timeout, executed again a day later on both clocks
	{
		const [order, control] = refundable();
		t.must('money (timeout): two refundable orders', order && control, `${refundable().length} refundable`);
		const TIMEOUT_MS = 1000;
		// Max Retries 0: the unanswered refund is not repeated within the request (with retries it is,
		// under the same key, and succeeds: test/money-outcomes.test.ts), so its outcome stays unknown.
		const wf = await workflow('refund timed out', { timeoutMs: TIMEOUT_MS, maxRetries: 0 });
		const refundPosts = (/** @type {string} */ orderId) => sb.requests.filter((/** @type {any} */ r) => r.method === 'POST' && r.path.endsWith(`/orders/${orderId}/refund`));
		const execError = async (/** @type {any} */ e) => {
			const error = (await rest.api(`/executions/${e?.id}?includeData=true`))?.data?.resultData?.error ?? {};
			return { message: String(error.message ?? ''), description: String(error.description ?? '') };
		};
		// The service commits the refund and holds its answer past the node's Timeout; the held
		// answer is then stored under the key (the sandbox's request log shows its status).
		const unanswered = async (/** @type {string} */ orderId, /** @type {number} */ n) => {
			sb.faults.add({ match: { method: 'POST', path: new RegExp(`/orders/${orderId}/refund$`) }, kind: 'slow', delayMs: 4 * TIMEOUT_MS, count: 1 });
			const messageId = sb.app.deliver(wf.ep.id, 'PAYMENT_COMPLETED', { orderId, amount: 1, currency: 'USD' });
			const delivery = await firstDelivery(messageId);
			const execution = (await finished(wf.id, n))[n - 1];
			await waitUntil(() => refundPosts(orderId).every((/** @type {any} */ r) => r.status !== 0), 15_000);
			return { messageId, delivery, execution, error: await execError(execution) };
		};
		const a = await unanswered(order.id, 1);
		t.equal('money (timeout): the refund committed, its answer held past the Timeout: sent once, the execution failed', { status: a.execution?.status, posts: postsFor(order.id), ledger: ledgerFor(order.id) }, { status: 'error', posts: 1, ledger: 1 });
		t.check('money (timeout): the error says the outcome is unknown (the service may have applied it) after the Timeout', /is unknown: the service may have applied it/.test(a.error.message) && a.error.description.includes(`Timeout of ${TIMEOUT_MS} ms`), JSON.stringify(a.error).slice(0, 400));

		// Control (< 22 h): another event whose refund also went unanswered, delivered again at once,
		// goes out under the same key; the service still remembers it and answers with the refund made.
		const b = await unanswered(control.id, 2);
		t.equal('money (timeout): the control event\'s refund went unanswered too: sent once, the execution failed', { status: b.execution?.status, posts: postsFor(control.id), ledger: ledgerFor(control.id) }, { status: 'error', posts: 1, ledger: 1 });
		await redeliver(b.delivery, wf.url);
		const [, , again] = await finished(wf.id, 3);
		const outAgain = await refundOutput(again?.id);
		const controlKeys = refundPosts(control.id).map((/** @type {any} */ r) => r.headers['idempotency-key']);
		log(`money (timeout): control event ${b.messageId} delivered again at once: ${again?.status}, ${controlKeys.length} refund request(s) (keys ${[...new Set(controlKeys)].length} distinct), ${ledgerFor(control.id)} refund(s) in the ledger, output ${JSON.stringify(outAgain.json).slice(0, 160)}`);
		t.equal('money (timeout): control: delivered again at once (< 22 h), the refund went out again under the SAME key and the service replayed it; the ledger keeps ONE', { status: again?.status, posts: controlKeys.length, sameKey: controlKeys.length === 2 && typeof controlKeys[0] === 'string' && controlKeys[0] === controlKeys[1], ledger: ledgerFor(control.id), replay: outAgain.json.idempotentReplay === true }, { status: 'success', posts: 2, sameKey: true, ledger: 1, replay: true });

		// A day passes for both: the service forgets its keys (24 h), n8n restarts with its clock 25 h ahead.
		const SHIFT_MS = 25 * HOUR;
		const port = inst.port;
		sb.app.clock.advance(SHIFT_MS);
		try {
			await inst.stop();
			await inst.start({ port, env: lib.clockShiftEnv(SHIFT_MS) });
			t.equal('money (timeout): n8n restarted with its clock 25 h ahead; the workflow URL is routed again', await routedStatus(wf.url, 401, 60_000), 401);
			await redeliver(a.delivery, wf.url, SHIFT_MS);
			const [, , , late] = await finished(wf.id, 4);
			const lateError = await execError(late);
			const hoursApart = (Date.parse(late?.startedAt) - Date.parse(a.execution?.startedAt)) / HOUR;
			log(`money (timeout): event ${a.messageId} delivered again 25 h later (n8n's clock ${hoursApart.toFixed(2)} h after the first execution): ${late?.status}; ${postsFor(order.id)} refund request(s), ${ledgerFor(order.id)} refund(s) in the ledger; ${lateError.message.slice(0, 200)}`);
			t.check('money (timeout): n8n\'s clock ran 25 h ahead (the executions\' start times are 25 h apart)', hoursApart > 24.9 && hoursApart < 25.5, `${hoursApart} h`);
			t.equal('money (timeout): the event executed again after the service forgot its key: no second refund request; the ledger keeps ONE', { status: late?.status, posts: postsFor(order.id), ledger: ledgerFor(order.id) }, { status: 'error', posts: 1, ledger: 1 });
			const sentAt = /an earlier execution sent it at (\S+) /.exec(lateError.message)?.[1];
			t.check('money (timeout): the execution fails naming the event and when the unclear attempt was sent', lateError.message.includes(`for event ${a.messageId} is unknown: an earlier execution sent it at `) && Math.abs(Date.parse(sentAt ?? '') - Date.parse(a.execution?.startedAt)) < 60_000, JSON.stringify({ sentAt, first: a.execution?.startedAt, message: lateError.message.slice(0, 300) }));
			await rest.request('POST', `/api/v1/workflows/${wf.id}/deactivate`, undefined, H);
		} finally {
			// Back to n8n's own clock for the scenarios after this one.
			await inst.stop();
			await inst.start({ port });
		}
	}

	// ------------------------------------------------------------ 503 outage (the service did nothing), then a later retry
	{
		const [order] = refundable();
		const wf = await workflow('outage');
		const { DEFAULT_TRANSPORT_OPTIONS } = require(path.join(ROOT, 'dist', 'nodes', 'shared', 'transport', 'request.js'));
		const attempts = 1 + DEFAULT_TRANSPORT_OPTIONS.maxRetries;
		sb.faults.add({ match: { method: 'POST', path: new RegExp(`/orders/${order.id}/refund$`) }, kind: 'reply', status: 503, count: attempts, reply: { body: { ok: false, error: { code: 'unavailable', message: 'down (e2e)' } } } });
		const messageId = sb.app.deliver(wf.ep.id, 'PAYMENT_COMPLETED', { orderId: order.id, amount: 1, currency: 'USD' });
		const delivery = await firstDelivery(messageId);
		const [first] = await finished(wf.id, 1);
		t.equal('money (outage): every attempt answered 503, nothing committed, the execution failed', { status: first.status, posts: postsFor(order.id), ledger: ledgerFor(order.id) }, { status: 'error', posts: attempts, ledger: 0 });
		sb.app.clock.advance(25 * HOUR);
		await redeliver(delivery, wf.url);
		const [, second] = await finished(wf.id, 2);
		const out2 = await refundOutput(second?.id);
		t.check('money (outage): the later retry refunded (not skipped)', second?.status === 'success' && out2.json.orderId === order.id && out2.json.writeSkipped === undefined, JSON.stringify(out2));
		await redeliver(delivery, wf.url);
		const [, , third] = await finished(wf.id, 3);
		const out3 = await refundOutput(third?.id);
		log(`money (outage): event ${messageId}: ${postsFor(order.id)} refund request(s), ${ledgerFor(order.id)} refund(s) in the ledger; third execution ${JSON.stringify(out3.json).slice(0, 120)}`);
		t.equal('money (outage): refunded exactly once over three executions', ledgerFor(order.id), 1);
		t.check('money (outage): the third execution skipped the write', out3.json.writeSkipped === true, JSON.stringify(out3));
		await rest.request('POST', `/api/v1/workflows/${wf.id}/deactivate`, undefined, H);
	}

	// ------------------------------------------------------------ a refund in a sub-workflow (Execute Workflow)
	{
		const [order] = refundable();
		t.must('money (sub-workflow): a refundable order', order, 'none');
		const credentials = JSON.parse(JSON.stringify(exampleTrigger)).credentials;
		const called = { id: crypto.randomUUID(), name: 'When called', type: 'n8n-nodes-base.executeWorkflowTrigger', typeVersion: 1.1, position: [0, 0], parameters: { inputSource: 'passthrough' } };
		const subRefund = refundNode({ orderExpr: '={{ $json.data.orderId }}', reason: 'e2e: sub-workflow', credentials });
		const sub = /** @type {any} */ (await rest.request('POST', '/api/v1/workflows', { name: 'e2e money: refund sub-workflow', nodes: [called, subRefund], connections: { [called.name]: { main: [[{ node: subRefund.name, type: 'main', index: 0 }]] } }, settings: { executionOrder: 'v1' } }, H));
		t.must('money (sub-workflow): the sub-workflow created', sub.status === 200 && sub.body?.id, JSON.stringify(sub).slice(0, 300));
		const subId = sub.body.id;
		// n8n 2.x publishes a workflow only when the sub-workflows it calls are published.
		const subAct = /** @type {any} */ (await rest.request('POST', `/api/v1/workflows/${subId}/activate`, undefined, H));
		t.must('money (sub-workflow): the sub-workflow published', subAct.status === 200, JSON.stringify(subAct).slice(0, 300));
		const wf = await workflow('sub-workflow', {
			graph: (trigger) => {
				const exec = { id: crypto.randomUUID(), name: 'Refund in a sub-workflow', type: 'n8n-nodes-base.executeWorkflow', typeVersion: 1.2, position: [240, 0], parameters: { source: 'database', workflowId: { __rl: true, value: subId, mode: 'id' }, options: { waitForSubWorkflow: true } } };
				return { nodes: [trigger, exec], connections: { [trigger.name]: { main: [[{ node: exec.name, type: 'main', index: 0 }]] } } };
			},
		});
		const messageId = sb.app.deliver(wf.ep.id, 'PAYMENT_COMPLETED', { orderId: order.id, amount: 1, currency: 'USD' });
		const delivery = await firstDelivery(messageId);
		const [first] = await finished(wf.id, 1);
		sb.app.clock.advance(25 * HOUR);
		await redeliver(delivery, wf.url);
		const [, second] = await finished(wf.id, 2);
		const subRuns = await finished(subId, 2);
		const outs = await Promise.all(subRuns.map(async (/** @type {any} */ e) => (await refundOutput(e?.id)).json));
		log(`money (sub-workflow): event ${messageId} delivered, then re-delivered 25 h later: main ${[first?.status, second?.status].join(', ')}; sub-workflow runs ${subRuns.length}; ${postsFor(order.id)} refund request(s), ${ledgerFor(order.id)} refund(s) in the ledger; outputs ${JSON.stringify(outs.map((o) => ({ src: o.idempotencyKeySource, skipped: o.writeSkipped })))}`);
		t.equal('money (sub-workflow): the same event handled twice by a refund in a sub-workflow: ONE refund request, ONE refund in the ledger', { statuses: [first?.status, second?.status], posts: postsFor(order.id), ledger: ledgerFor(order.id) }, { statuses: ['success', 'success'], posts: 1, ledger: 1 });
		t.check('money (sub-workflow): both refunds are keyed by the event; the second is skipped', outs.length === 2 && outs.every((o) => o.idempotencyKeySource === 'event') && outs.filter((o) => o.writeSkipped === true).length === 1, JSON.stringify(outs));
		await rest.request('POST', `/api/v1/workflows/${wf.id}/deactivate`, undefined, H);
		await rest.request('POST', `/api/v1/workflows/${subId}/deactivate`, undefined, H);
	}

	// ------------------------------------------------------------ a key names the write, not its place
	{
		// Trigger -> Code (the event's orders as items) -> Loop Over Items (1 per batch) -> Refund -> back to the loop.
		const [a, b, c] = refundable();
		t.must('money (keys): three refundable orders', a && b && c, `${refundable().length} refundable`);
		const loopGraph = (/** @type {any} */ trigger) => {
			const code = { id: crypto.randomUUID(), name: 'Orders of the event', type: 'n8n-nodes-base.code', typeVersion: 2, position: [200, 0], parameters: { jsCode: 'return $input.first().json.data.orderIds.map((orderId) => ({ json: { orderId }, pairedItem: { item: 0 } }));' } };
			const loop = { id: crypto.randomUUID(), name: 'Loop Over Items', type: 'n8n-nodes-base.splitInBatches', typeVersion: 3, position: [400, 0], parameters: { batchSize: 1, options: {} } };
			const refund = refundNode({ orderExpr: '={{ $json.orderId }}', reason: 'e2e: loop', position: [600, 0], credentials: trigger.credentials });
			const connections = {
				[trigger.name]: { main: [[{ node: code.name, type: 'main', index: 0 }]] },
				[code.name]: { main: [[{ node: loop.name, type: 'main', index: 0 }]] },
				[loop.name]: { main: [[], [{ node: refund.name, type: 'main', index: 0 }]] },
				[refund.name]: { main: [[{ node: loop.name, type: 'main', index: 0 }]] },
			};
			return { nodes: [trigger, code, loop, refund], connections };
		};
		const wf = await workflow('loop over items', { graph: loopGraph });
		const ep = wf.ep;
		const count = () => [a, b, c].map((o) => ledgerFor(o.id));
		const messageId = sb.app.deliver(ep.id, 'PAYMENT_COMPLETED', { orderIds: [a.id, b.id] });
		const delivery = await firstDelivery(messageId);
		const [first] = await finished(wf.id, 1);
		t.equal('money (keys): one event, the refund node run twice by Loop Over Items: two refunds (A and B)', { status: first?.status, ledger: count() }, { status: 'success', ledger: [1, 1, 0] });
		// The same event executed again after the upstream list changed order: C first, then A and B.
		const body = JSON.stringify({ ...JSON.parse(delivery.body), data: { orderIds: [c.id, a.id, b.id] } });
		await redeliver({ ...delivery, body }, wf.url);
		const [, second] = await finished(wf.id, 2);
		log(`money (keys): loop execution again with [C, A, B]: ${second?.status}; ledger A ${count()[0]}, B ${count()[1]}, C ${count()[2]}`);
		t.equal('money (keys): the same event again with [C, A, B]: C refunded, A and B not again', { status: second?.status, ledger: count() }, { status: 'success', ledger: [1, 1, 1] });
		await rest.request('POST', `/api/v1/workflows/${wf.id}/deactivate`, undefined, H);

		// Two workflows on the same event, both refund nodes with the default name: two refunds.
		const [d] = refundable();
		const one = await workflow('two workflows, first');
		const two = await workflow('two workflows, second');
		// The same event (same id and body) reaches both workflows.
		const shared = sb.app.deliver(one.ep.id, 'PAYMENT_COMPLETED', { orderId: d.id, amount: 1, currency: 'USD' });
		await redeliver(await firstDelivery(shared), two.url);
		await finished(one.id, 1);
		await finished(two.id, 1);
		await waitUntil(() => ledgerFor(d.id) >= 2, 10_000);
		t.equal('money (keys): two workflows on one event, same node name: each made its own refund', ledgerFor(d.id), 2);
		await rest.request('POST', `/api/v1/workflows/${one.id}/deactivate`, undefined, H);
		await rest.request('POST', `/api/v1/workflows/${two.id}/deactivate`, undefined, H);
	}

	// ------------------------------------------------------------ a reason that changes per execution
	{
		const [order] = refundable();
		const wf = await workflow('reason per execution', { reason: '=refund by execution {{ $execution.id }}' });
		const { first, second, out2 } = await twiceAfterADay(wf, order.id);
		log(`money (reason): first ${first?.status}, re-delivery 25 h later ${second?.status} (${out2.error ?? JSON.stringify(out2.json).slice(0, 120)}); ${ledgerFor(order.id)} refund(s) in the ledger`);
		t.equal('money (reason): a reason holding $execution.id, the event re-delivered after the service forgot its key: ONE refund', { first: first?.status, posts: postsFor(order.id), ledger: ledgerFor(order.id) }, { first: 'success', posts: 1, ledger: 1 });
		t.check('money (reason): the re-delivery names the field that changed ("reason") instead of refunding again', /other values of "reason"/.test(out2.error ?? ''), JSON.stringify(out2));
		await rest.request('POST', `/api/v1/workflows/${wf.id}/deactivate`, undefined, H);
	}

	// ------------------------------------------------------------ a Code node that drops the pairing
	{
		const [a, b] = refundable();
		const unpairedGraph = (/** @type {any} */ trigger) => {
			const list = { id: crypto.randomUUID(), name: 'Orders of the event', type: 'n8n-nodes-base.code', typeVersion: 2, position: [200, 0], parameters: { jsCode: 'return $input.first().json.data.orderIds.map((orderId) => ({ json: { orderId }, pairedItem: { item: 0 } }));' } };
			// Builds new items without pairing them: from two items in, one out, n8n cannot tell which.
			const pick = { id: crypto.randomUUID(), name: 'First order only', type: 'n8n-nodes-base.code', typeVersion: 2, position: [400, 0], parameters: { jsCode: 'return [{ json: { orderId: $input.all()[0].json.orderId } }];' } };
			const refund = refundNode({ orderExpr: '={{ $json.orderId }}', reason: 'e2e: unpaired', position: [600, 0], credentials: trigger.credentials });
			const connections = {
				[trigger.name]: { main: [[{ node: list.name, type: 'main', index: 0 }]] },
				[list.name]: { main: [[{ node: pick.name, type: 'main', index: 0 }]] },
				[pick.name]: { main: [[{ node: refund.name, type: 'main', index: 0 }]] },
			};
			return { nodes: [trigger, list, pick, refund], connections };
		};
		const wf = await workflow('pairing dropped', { graph: unpairedGraph });
		sb.app.deliver(wf.ep.id, 'PAYMENT_COMPLETED', { orderIds: [a.id, b.id] });
		const [first] = await finished(wf.id, 1);
		const out = await refundOutput(first?.id);
		log(`money (pairing): ${first?.status}; hints ${JSON.stringify(out.hints).slice(0, 300)}`);
		// One delivery starts one execution: an item whose pairing a node dropped still descends from it.
		t.check('money (pairing): a Code node that drops the pairing: the refund is still keyed by the event (no per-execution fallback)', out.json.idempotencyKeySource === 'event', JSON.stringify(out));
		await rest.request('POST', `/api/v1/workflows/${wf.id}/deactivate`, undefined, H);
	}

	// ------------------------------------------------------------ Custom API Call refund re-delivered
	{
		const [order] = refundable();
		const customGraph = (/** @type {any} */ trigger) => {
			const call = {
				id: crypto.randomUUID(),
				name: 'Refund 1.00',
				type: `${PKG_NAME}.vaultStore`,
				typeVersion: 2,
				position: [240, 0],
				parameters: { resource: 'custom', operation: 'request', method: 'POST', path: '=/v2/stores/{storeId}/orders/{{ $json.data.orderId }}/refund', body: '{"amount": 1}' },
				credentials: trigger.credentials,
			};
			return { nodes: [trigger, call], connections: { [trigger.name]: { main: [[{ node: call.name, type: 'main', index: 0 }]] } } };
		};
		const wf = await workflow('custom call refund', { graph: customGraph });
		const { first, second, out2 } = await twiceAfterADay(wf, order.id);
		log(`money (custom): first ${first?.status}, re-delivery ${second?.status} ${JSON.stringify(out2.json).slice(0, 120)}; ${ledgerFor(order.id)} refund(s)`);
		t.equal('money (custom): a Custom API Call refund, the event re-delivered 25 h later: ONE refund, the second skipped', { first: first?.status, ledger: ledgerFor(order.id), skipped: out2.json.writeSkipped === true }, { first: 'success', ledger: 1, skipped: true });
		await rest.request('POST', `/api/v1/workflows/${wf.id}/deactivate`, undefined, H);
	}

	// ------------------------------------------------------------ migrated endpoint kept at re-activation
	{
		const wf = await workflow('migrated V1 endpoint', { version: 'V1', events: ['PAYMENT_REFUNDED'], refund: false });
		t.equal('money (migration): the endpoint is registered as V1', wf.ep.signatureVersion, 'V1');
		wf.ep.signatureVersion = 'V2'; // the service's migration
		const before = sb.requests.length;
		const port = inst.port;
		await inst.stop();
		await inst.start({ port });
		t.equal('money (migration): after n8n restarted, the workflow URL is routed again', await routedStatus(wf.url, 401, 60_000), 401);
		// Activation reads the endpoint (GET) and says what it found; newer n8n lines activate after the
		// server is up. A GET alone is no sign of activation: the trigger also reads its endpoint when a
		// delivery comes signed in the other version (another scenario's PAYMENT_REFUNDED, now V2).
		const checked = await waitUntil(() => /is set to V2 at the service/.test(inst.server.stdout + inst.server.stderr), 60_000);
		if (!checked && lib.N8N_VERSION !== N8N_DEFAULT) {
			// Newer n8n lines keep published webhooks registered across a restart without calling the
			// node's activation again; there is nothing to re-check the endpoint on, so nothing to keep.
			log(`money (migration): n8n ${lib.N8N_VERSION} did not activate the trigger again at restart (no GET of the endpoint): the re-activation case applies to n8n ${N8N_DEFAULT}`);
		} else {
			t.check('money (migration): the restarted n8n activated the workflow (the node read its endpoint)', checked, 'no GET of the endpoint');
			await waitUntil(() => /is set to V2 at the service/.test(inst.server.stdout + inst.server.stderr), 10_000);
			await sleep(1000);
			const patches = sb.requests.slice(before).filter((/** @type {any} */ r) => r.method === 'PATCH' && r.path.includes(wf.ep.id));
			const now = sb.state.webhooks.find((/** @type {any} */ w) => w.id === wf.ep.id);
			const logText = inst.server.stdout + inst.server.stderr;
			t.check('money (migration): re-activation kept the migrated endpoint at V2 (no PATCH back) and told the user in the log', patches.length === 0 && now?.signatureVersion === 'V2' && /is set to V2 at the service .* kept at V2/.test(logText), JSON.stringify({ patches: patches.length, version: now?.signatureVersion }));
		}
		const messageId = sb.app.deliver(wf.ep.id, 'PAYMENT_REFUNDED', { refund: 'migrated' });
		const d = await firstDelivery(messageId);
		const started = await finished(wf.id, 1);
		t.check('money (migration): a V2-signed delivery to the migrated endpoint is accepted and starts the workflow', d?.status >= 200 && d?.status < 300 && started.length === 1, JSON.stringify({ status: d?.status, executions: started.length }));
		// The merchant rolls the endpoint back to V1 in the dashboard: the node (set to V1) still receives.
		wf.ep.signatureVersion = 'V1';
		const rolledBack = sb.app.deliver(wf.ep.id, 'PAYMENT_REFUNDED', { refund: 'rolled back' });
		const d2 = await firstDelivery(rolledBack);
		const startedAfter = await finished(wf.id, 2);
		t.check('money (rollback): after a V2 to V1 rollback in the merchant dashboard, a V1-signed delivery is accepted (no 401) and starts the workflow', d2?.status >= 200 && d2?.status < 300 && startedAfter.length === 2, JSON.stringify({ status: d2?.status, executions: startedAfter.length }));
		await rest.request('POST', `/api/v1/workflows/${wf.id}/deactivate`, undefined, H);
	}

	// ------------------------------------------------------------ the node-advised V2 switch, then a dashboard rollback to V1
	{
		const wf = await workflow('advised V2 switch', { version: 'V1', events: ['PAYMENT_REFUNDED'], refund: false });
		wf.ep.signatureVersion = 'V2'; // the service's migration
		const migrated = sb.app.deliver(wf.ep.id, 'PAYMENT_REFUNDED', { refund: 'migrated' });
		const d1 = await firstDelivery(migrated);
		await finished(wf.id, 1);
		// The user follows the node's advice: Signature Version set to V2, the workflow published again.
		const current = /** @type {any} */ (await rest.api(`/workflows/${wf.id}`));
		const nodes = current.nodes.map((/** @type {any} */ n) => (n.type === `${PKG_NAME}.vaultStoreTrigger` ? { ...n, parameters: { ...n.parameters, signatureVersion: 'V2' } } : n));
		const put = /** @type {any} */ (await rest.request('PUT', `/api/v1/workflows/${wf.id}`, { name: current.name, nodes, connections: current.connections, settings: { executionOrder: 'v1' } }, H));
		const republished = /** @type {any} */ (await rest.request('POST', `/api/v1/workflows/${wf.id}/activate`, undefined, H));
		t.check('money (advised switch): the V1 trigger accepted the migrated V2 delivery; the workflow set to V2 and published again', d1?.status >= 200 && d1?.status < 300 && put.status === 200 && republished.status === 200, JSON.stringify({ delivery: d1?.status, put: put.status, activate: republished.status, body: republished.body }).slice(0, 300));
		await routedStatus(wf.url, 401, 60_000);
		// Publishing again may register the endpoint anew and delete the old one, and newer n8n lines do
		// it after answering: wait until the endpoint calls have been quiet for 3 s, then read it afresh.
		const endpointCalls = () => sb.requests.filter((/** @type {any} */ r) => /\/webhooks/.test(r.path)).length;
		for (let seen = -1, i = 0; i < 20 && seen !== endpointCalls(); i++) {
			seen = endpointCalls();
			await sleep(3000);
		}
		const endpointNow = async () => /** @type {any} */ (await waitUntil(() => sb.state.webhooks.find((/** @type {any} */ w) => w.url === wf.url), 30_000));
		const ep = await endpointNow();
		t.must('money (advised switch): the workflow has its endpoint at the sandbox, in V2', ep?.signatureVersion === 'V2', JSON.stringify(ep));
		const v2 = sb.app.deliver(ep.id, 'PAYMENT_REFUNDED', { refund: 'after the switch' });
		const d2 = await firstDelivery(v2);
		await finished(wf.id, 2);
		// The merchant rolls the endpoint back to V1 in the dashboard; the trigger stays set to V2.
		const rolled = await endpointNow();
		rolled.signatureVersion = 'V1';
		const v1 = sb.app.deliver(rolled.id, 'PAYMENT_REFUNDED', { refund: 'rolled back after the switch' });
		const d3 = await firstDelivery(v1);
		const runs = await finished(wf.id, 3);
		log(`money (advised switch): deliveries ${[d1?.status, d2?.status, d3?.status].join(', ')}; executions ${runs.length}`);
		t.check('money (advised switch): after the switch to V2 and a dashboard rollback to V1, a V1-signed delivery is accepted (no 401) and starts the workflow', d2?.status >= 200 && d2?.status < 300 && d3?.status >= 200 && d3?.status < 300 && runs.length === 3, JSON.stringify({ v2: d2?.status, v1: d3?.status, executions: runs.length }));
		await rest.request('POST', `/api/v1/workflows/${wf.id}/deactivate`, undefined, H);
	}
}

module.exports = { moneyChecks };
