// @ts-check
/**
 * The Vault Store node behind n8n's Human Review, offline, in a running n8n (`n8n start`):
 * Webhook -> AI Agent (3.1) <- OpenAI Chat Model (1.2, the scripted model of
 * test/e2e/runner/model-server.js), with two Vault Store refund tools (`vaultStoreTool`, On Error:
 * Continue, against the in-process sandbox):
 *   refund_order        Maximum Amount 20: the agent refunds on its own;
 *   refund_with_review  Maximum Amount 100, Maximum Total per Execution 150, connected into n8n's
 *                       Human Review tool for email (`n8n-nodes-base.emailSendHitlTool`, the Send
 *                       Email node's Send and Wait for Response, Approve and Decline), which is
 *                       connected to the agent as its tool: n8n asks a person before each call.
 * The email goes through an `smtp` credential to a local SMTP sink (test/e2e/runner/smtp-sink.js);
 * the test reads the approval message and clicks its Approve or Decline link (n8n's signed
 * /webhook-waiting/<execution>/<node> URL on WEBHOOK_URL, which points at this n8n) with fetch.
 * Each conversation is one execution, put to wait at each review and resumed by the click:
 *   - message: the email names what the agent asked (order id, amount, currency, reason: the refund
 *     tool's $fromAI keys and descriptions, and the review tool's own for the currency);
 *   - approve: one refund after the click, none before it (the execution waits);
 *   - decline: nothing sent for it; the model hears it was declined; a refund within 20 in the same
 *     conversation (the control) reaches the service;
 *   - approve twice at the same moment, then again and decline after it resumed: one refund;
 *   - above the cap, approved: still refused by the node after the wait, nothing sent; the control
 *     (within the cap, approved, same conversation) is sent;
 *   - the per-execution budget across two waits: 90 approved and sent, then 80 approved and refused
 *     (90 already spent in this execution: what was spent before the wait is still known after it);
 *   - examples/agent-refunds-with-review.json as shipped (its Chat Trigger swapped for a Webhook,
 *     credentials set): 25 refused by "Refund up to 20", then approved through "Refund above 20": one refund.
 * test/e2e/queue/run.js runs reviewWorkflow in queue mode (each approval resumed in one run on a worker).
 * Each case counts the requests the sandbox saw.
 */
'use strict';

const crypto = require('node:crypto');
const http = require('node:http');

const lib = require('./runner/lib');

const { PKG_NAME, CREDENTIALS, log } = lib;
const { startModelServer } = require('./runner/model-server');
const { startSmtpSink } = require('./runner/smtp-sink');
const wait = require('./runner/wait');

const TOOL_TYPE = `${PKG_NAME}.vaultStoreTool`;
const REVIEW_TYPE = 'n8n-nodes-base.emailSendHitlTool';
/** What the agent refunds on its own. */
const OWN_CAP = 20;
/** What a person may approve, per refund and per conversation. */
const REVIEW_CAP = 100;
const REVIEW_PER_EXECUTION = 150;
/** A browser's User-Agent: n8n ignores Approve/Decline clicks from bots and link previews. */
const BROWSER_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36';
const REVIEWER = 'refunds-lead@store.example';

/** The refund tool's $fromAI keys (the model fills them; the review email shows them). */
const fromAi = (/** @type {string} */ key, /** @type {string} */ description, type = 'string') => `={{ $fromAI('${key}', '${description}', '${type}') }}`;

/**
 * Webhook (answers at once) -> AI Agent, its chat model, refund_order (the agent alone, up to
 * OWN_CAP) and refund_with_review behind the email Human Review tool.
 * @param {{ webhookPath: string, openAi: { id: string, name: string }, smtp: { id: string, name: string }, name?: string }} o
 */
function reviewWorkflow({ webhookPath, openAi, smtp, name = 'e2e review: refunds above 20 approved by email' }) {
	const store = { vaultStoreStoreApi: { id: CREDENTIALS.store.id, name: CREDENTIALS.store.name } };
	const rl = (/** @type {string} */ value) => ({ __rl: true, mode: 'id', value });
	const refund = (/** @type {string} */ toolName, /** @type {string} */ description, /** @type {object} */ options, /** @type {[number, number]} */ position) => ({
		id: crypto.randomUUID(),
		name: toolName,
		type: TOOL_TYPE,
		typeVersion: 2,
		position,
		onError: 'continueRegularOutput',
		parameters: {
			descriptionType: 'manual',
			toolDescription: description,
			resource: 'order',
			operation: 'refund',
			orderId: rl(fromAi('orderId', 'The id of the order to refund (ord_...)')),
			additionalFields: {
				amount: fromAi('amount', 'The amount to refund, in the order currency', 'number'),
				reason: fromAi('reason', 'Why the order is refunded, in the words of the customer'),
			},
			options,
		},
		credentials: store,
	});
	const nodes = [
		{ id: crypto.randomUUID(), name: 'Webhook', type: 'n8n-nodes-base.webhook', typeVersion: 2, position: [0, 0], webhookId: crypto.randomUUID(), parameters: { httpMethod: 'POST', path: webhookPath, responseMode: 'onReceived', options: {} } },
		{
			id: crypto.randomUUID(),
			name: 'Support agent',
			type: '@n8n/n8n-nodes-langchain.agent',
			typeVersion: 3.1,
			position: [260, 0],
			parameters: { promptType: 'define', text: '={{ $json.body.prompt }}', options: { systemMessage: `You help the store's support team with refunds. Refund up to ${OWN_CAP} with refund_order; above that use refund_with_review, which asks a person first.` } },
		},
		{ id: crypto.randomUUID(), name: 'OpenAI Chat Model', type: '@n8n/n8n-nodes-langchain.lmChatOpenAi', typeVersion: 1.2, position: [100, 240], parameters: { model: { __rl: true, mode: 'id', value: 'gpt-4o-mini' }, options: {} }, credentials: { openAiApi: openAi } },
		refund('refund_order', `Refunds up to ${OWN_CAP} of an order. Give the order id (ord_...), the amount and the reason.`, { maxAmount: OWN_CAP, maxTotalPerExecution: 40, maxTotalPerDay: 1000 }, [300, 240]),
		{
			id: crypto.randomUUID(),
			name: 'Human review (email)',
			type: REVIEW_TYPE,
			typeVersion: 2.1,
			position: [520, 240],
			webhookId: crypto.randomUUID(),
			parameters: {
				operation: 'sendAndWait',
				fromEmail: 'n8n-agent@store.example',
				toEmail: REVIEWER,
				subject: "=Approve a refund of {{ $tool.parameters.amount }} {{ $fromAI('currency', 'The currency of the order (USD, EUR, ...), as the order shows it', 'string') }} for order {{ $tool.parameters.orderId }}?",
				message: "=The support agent asks to refund {{ $tool.parameters.amount }} {{ $fromAI('currency', 'The currency of the order (USD, EUR, ...), as the order shows it', 'string') }} of order {{ $tool.parameters.orderId }}.\nReason: {{ $tool.parameters.reason }}\nTool: {{ $tool.name }}",
				approvalOptions: { values: { approvalType: 'double', approveLabel: 'Approve the refund', disapproveLabel: 'Decline' } },
				options: { appendAttribution: false },
			},
			credentials: { smtp },
		},
		refund('refund_with_review', `Refunds more than ${OWN_CAP} of an order, after a person approves it. Give the order id (ord_...), the amount and the reason.`, { maxAmount: REVIEW_CAP, maxTotalPerExecution: REVIEW_PER_EXECUTION, maxTotalPerDay: 1000 }, [520, 440]),
	];
	return {
		name,
		nodes,
		connections: {
			Webhook: { main: [[{ node: 'Support agent', type: 'main', index: 0 }]] },
			'OpenAI Chat Model': { ai_languageModel: [[{ node: 'Support agent', type: 'ai_languageModel', index: 0 }]] },
			refund_order: { ai_tool: [[{ node: 'Support agent', type: 'ai_tool', index: 0 }]] },
			// The gated tool connects into the review tool, which connects to the agent.
			refund_with_review: { ai_tool: [[{ node: 'Human review (email)', type: 'ai_tool', index: 0 }]] },
			'Human review (email)': { ai_tool: [[{ node: 'Support agent', type: 'ai_tool', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
	};
}

/**
 * examples/agent-refunds-with-review.json as shipped, its Chat Trigger swapped for a Webhook that
 * answers at once (the prompt in the body), the chat model and the review tool given credentials.
 * @param {{ webhookPath: string, openAi: { id: string, name: string }, smtp: { id: string, name: string } }} o
 */
function exampleAsWebhook({ webhookPath, openAi, smtp }) {
	const example = lib.exampleWorkflows().find((e) => e.name === 'agent-refunds-with-review.json');
	if (!example) throw new Error('examples/agent-refunds-with-review.json is missing');
	const wf = JSON.parse(JSON.stringify(example.workflow));
	const chat = wf.nodes.find((/** @type {any} */ n) => n.type === '@n8n/n8n-nodes-langchain.chatTrigger');
	const hook = { id: crypto.randomUUID(), name: 'Webhook', type: 'n8n-nodes-base.webhook', typeVersion: 2, position: chat.position, webhookId: crypto.randomUUID(), parameters: { httpMethod: 'POST', path: webhookPath, responseMode: 'onReceived', options: {} } };
	wf.nodes = wf.nodes.map((/** @type {any} */ n) => {
		if (n === chat) return hook;
		if (n.type === '@n8n/n8n-nodes-langchain.agent') return { ...n, parameters: { ...n.parameters, promptType: 'define', text: '={{ $json.body.prompt }}' } };
		if (n.type === '@n8n/n8n-nodes-langchain.lmChatOpenAi') return { ...n, credentials: { openAiApi: openAi } };
		if (n.type === REVIEW_TYPE) return { ...n, credentials: { smtp } };
		return n;
	});
	wf.connections = { ...wf.connections, Webhook: wf.connections[chat.name] };
	delete wf.connections[chat.name];
	return { name: `e2e review: ${wf.name}`, nodes: wf.nodes, connections: wf.connections, settings: wf.settings };
}

/** A call of the gated tool as the model makes it: the tool's arguments and the review tool's. */
const reviewed = (/** @type {string} */ orderId, /** @type {number} */ amount, /** @type {string} */ reason, currency = 'USD') => ({
	tool: 'refund_with_review',
	args: { toolParameters: { orderId, amount, reason }, hitlParameters: { currency } },
});
const own = (/** @type {string} */ orderId, /** @type {number} */ amount, /** @type {string} */ reason) => ({ tool: 'refund_order', args: { orderId, amount, reason } });

/**
 * Clicks a link of the email as a person's browser would (GET). `via`: another process to send it
 * to (as a load balancer would), the Host header kept (n8n signs the link's host with its path).
 * @param {string} link @param {string} [via] a base URL (http://127.0.0.1:<port>)
 * @returns {Promise<{ status: number, text: string }>}
 */
function click(link, via) {
	const url = new URL(link);
	const to = new URL(via ?? link);
	return new Promise((resolve, reject) => {
		const req = http.request({ host: to.hostname, port: to.port, method: 'GET', path: `${url.pathname}${url.search}`, headers: { host: url.host, 'user-agent': BROWSER_UA, accept: 'text/html' }, timeout: 30_000 }, (res) => {
			/** @type {Buffer[]} */
			const chunks = [];
			res.on('data', (c) => chunks.push(c));
			res.on('end', () => {
				const text = Buffer.concat(chunks).toString('utf8');
				resolve({ status: res.statusCode ?? 0, text: text.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 200) });
			});
		});
		req.on('timeout', () => req.destroy(new Error(`GET ${link}: no answer in 30 s`)));
		req.on('error', reject);
		req.end();
	});
}

/** The Approve and Decline links of a review email (n8n's signed resume URLs). */
function linksOf(/** @type {{ links: string[] }} */ m) {
	return {
		approve: m.links.find((l) => /[?&]approved=true(&|$)/.test(l)),
		decline: m.links.find((l) => /[?&]approved=false(&|$)/.test(l)),
	};
}

/**
 * @param {{inst: any, sb: any, t: import('./runner/results').Results, rest: any}} ctx
 */
async function reviewChecks({ inst, sb, t, rest }) {
	const H = { 'X-N8N-API-KEY': rest.apiKey };
	const refundable = sb.state.orders.filter((/** @type {any} */ o) => o.payment?.status === 'COMPLETED' && o.payment.totalAmount >= 150 && !sb.state.refunds.some((/** @type {any} */ r) => r.orderId === o.id));
	t.must('review: six refundable orders of 150 or more in the sandbox', refundable.length >= 6, `${refundable.length} refundable`);
	const [approved, declined, twice, capped, budget, example] = refundable;
	const currencyOf = (/** @type {any} */ o) => String(o.currency ?? 'USD');
	const script = {
		approve: [{ calls: [reviewed(approved.id, 45, 'Parcel arrived damaged', currencyOf(approved))] }, { say: 'Refunded 45 after approval.' }],
		decline: [{ calls: [reviewed(declined.id, 40, 'Changed my mind', currencyOf(declined))] }, { calls: [own(declined.id, 5, 'Goodwill gesture')] }, { say: 'The 40 was declined; I refunded 5.' }],
		twice: [{ calls: [reviewed(twice.id, 35, 'Wrong size delivered', currencyOf(twice))] }, { say: 'Refunded 35 after approval.' }],
		cap: [{ calls: [reviewed(capped.id, 150, 'Whole order lost', currencyOf(capped))] }, { calls: [reviewed(capped.id, 60, 'Most of the order lost', currencyOf(capped))] }, { say: 'I could refund 60 of the 150 asked.' }],
		budget: [{ calls: [reviewed(budget.id, 90, 'Two items missing', currencyOf(budget))] }, { calls: [reviewed(budget.id, 80, 'A third item missing', currencyOf(budget))] }, { say: 'Refunded 90; the 80 passed the budget.' }],
		// The example as shipped: 25 asked of the tool without review (refused, Maximum Amount 20), then of the one behind it.
		example: [
			{ calls: [{ tool: 'up_to_20', args: { orderId: example.id, amount: 25, reason: 'Late delivery' } }] },
			{ calls: [{ tool: 'above_20', args: { toolParameters: { orderId: example.id, amount: 25, reason: 'Late delivery' }, hitlParameters: { currency: currencyOf(example) } } }] },
			{ say: 'Refunded 25 after approval.' },
		],
	};
	const model = await startModelServer({ scripts: script });
	const smtp = await startSmtpSink();
	log(`review: scripted model on ${model.baseUrl}, SMTP sink on ${smtp.host}:${smtp.port}`);
	/** @type {string[]} */
	const workflowIds = [];
	try {
		const openAi = /** @type {any} */ (await rest.request('POST', '/api/v1/credentials', { name: 'Scripted model (review e2e)', type: 'openAiApi', data: { apiKey: 'sk-e2e-scripted', url: model.baseUrl, header: false } }, H));
		t.must('review: the openAiApi credential with the scripted model\'s Base URL created', openAi.status === 200 && openAi.body?.id, JSON.stringify(openAi).slice(0, 400));
		const smtpCred = /** @type {any} */ (await rest.request('POST', '/api/v1/credentials', { name: 'Local SMTP sink (review e2e)', type: 'smtp', data: { user: '', password: '', host: smtp.host, port: smtp.port, secure: false, disableStartTls: true } }, H));
		t.must('review: the smtp credential pointing at the local SMTP sink created', smtpCred.status === 200 && smtpCred.body?.id, JSON.stringify(smtpCred).slice(0, 400));
		const webhookPath = `vault-store-review-${crypto.randomUUID().slice(0, 8)}`;
		const created = /** @type {any} */ (await rest.request('POST', '/api/v1/workflows', reviewWorkflow({ webhookPath, openAi: { id: openAi.body.id, name: openAi.body.name }, smtp: { id: smtpCred.body.id, name: smtpCred.body.name } }), H));
		t.must('review: the workflow (refund_with_review behind the email Human Review tool) created', created.status === 200 && created.body?.id, JSON.stringify(created).slice(0, 600));
		const workflowId = String(created.body.id);
		workflowIds.push(workflowId);
		const act = /** @type {any} */ (await rest.request('POST', `/api/v1/workflows/${workflowId}/activate`, undefined, H));
		t.must('review: the workflow activated', act.status === 200, JSON.stringify(act).slice(0, 600));
		const url = `${inst.url}/webhook/${webhookPath}`;
		/** The example's workflow, once created (its last case). */
		let exampleId = '';
		const registered = await wait.waitUntil(async () => {
			const r = await fetch(url, { method: 'GET', signal: AbortSignal.timeout(10_000) });
			const text = await r.text();
			return !/is not registered\./.test(text) || /registered for POST/i.test(text) ? `${r.status}` : undefined;
		}, 30_000, 250);
		t.must('review: the workflow\'s webhook is registered', registered, 'still "not registered" after 30 s');

		// n8n's public API does not list waiting executions (2.8.4): its internal list (the editor's) does.
		const executionsOf = async (wf = workflowId) => {
			const r = await rest.request('GET', `/rest/executions?filter=${encodeURIComponent(JSON.stringify({ workflowId: wf }))}&limit=100`);
			if (r.status !== 200) throw new Error(`GET /rest/executions: HTTP ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
			return /** @type {any[]} */ (r.body?.data?.results ?? []);
		};
		/** The execution's status (the internal list); with its data (public API) once it has ended. */
		const execution = async (/** @type {string} */ id) => {
			const listed = [...(await executionsOf()), ...(exampleId ? await executionsOf(exampleId) : [])].find((e) => String(e.id) === id);
			if (!listed || ['waiting', 'running', 'new'].includes(listed.status)) return listed;
			return /** @type {any} */ (await rest.api(`/executions/${id}?includeData=true`));
		};
		/** Starts a conversation; returns its execution id once n8n lists it. */
		const start = async (/** @type {keyof typeof script} */ name, /** @type {string} */ prompt, target = url, wf = workflowId) => {
			const known = new Set((await executionsOf(wf)).map((e) => String(e.id)));
			const res = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prompt: `[case:${name}] ${prompt}` }), signal: AbortSignal.timeout(30_000) });
			t.must(`review (${name}): the webhook took the conversation`, res.status === 200, `HTTP ${res.status} ${(await res.text()).slice(0, 200)}`);
			const id = await wait.waitUntil(async () => (await executionsOf(wf)).map((e) => String(e.id)).find((x) => !known.has(x)), 30_000, 250);
			t.must(`review (${name}): its execution is listed`, id, `no new execution in 30 s`);
			return String(id);
		};
		/** Waits until the execution's status is one of `statuses`; returns it (with its data). */
		const until = async (/** @type {string} */ id, /** @type {string[]} */ statuses, timeoutMs = 60_000) => {
			/** @type {any} */
			let last;
			await wait.waitUntil(async () => {
				last = await execution(id);
				return statuses.includes(last?.status);
			}, timeoutMs, 300);
			return last;
		};
		/** Waits for the next review email (the n-th of the sink). */
		const email = async (/** @type {number} */ n, timeoutMs = 60_000) => /** @type {(typeof smtp.messages)[number] | undefined} */ (await wait.waitUntil(() => smtp.messages[n], timeoutMs, 200));
		const refundPosts = (/** @type {any[]} */ requests, /** @type {string} */ orderId) => requests.filter((q) => q.method === 'POST' && q.path.endsWith(`/orders/${orderId}/refund`));
		const refundsOf = (/** @type {string} */ orderId) => sb.state.refunds.filter((/** @type {any} */ r) => r.orderId === orderId).map((/** @type {any} */ r) => r.amount);
		const agentOutput = (/** @type {any} */ e) => {
			const runs = e?.data?.resultData?.runData?.['Support agent'] ?? [];
			return runs[runs.length - 1]?.data?.main?.[0]?.[0]?.json?.output;
		};
		const describe = (/** @type {string} */ name, /** @type {number} */ from) => {
			const requests = sb.requests.slice(from);
			log(`review (${name}): sandbox saw ${requests.map((/** @type {any} */ q) => `${q.method} ${q.path} ${q.status}`).join(', ') || 'nothing'}; model asked ${model.of(name).length} time(s)`);
			for (const m of model.toolMessages(name)) log(`review (${name}):   tool ${m.name} answered ${m.content.slice(0, 300)}`);
			return requests;
		};

		// ------------------------------------------------------------ the message, approve: one refund after the click
		{
			const from = sb.requests.length;
			const mails = smtp.messages.length;
			const id = await start('approve', `Refund 45 of order ${approved.id}, the parcel arrived damaged.`);
			const m = await email(mails);
			t.must('review (approve): n8n sent the review email through the SMTP credential to the local sink', m, `no email in 60 s; execution ${JSON.stringify((await execution(id))?.status)}`);
			const msg = /** @type {NonNullable<typeof m>} */ (m);
			log(`review (approve): email to ${msg.to.join(', ')}, subject ${JSON.stringify(msg.subject)}; text ${JSON.stringify(msg.text.trim().slice(0, 400))}; links ${JSON.stringify(msg.links.map((l) => l.replace(/signature=[^&]+/, 'signature=…')))}`);
			const waiting = await until(id, ['waiting']);
			const links = linksOf(msg);
			t.equal('review (approve): the execution waits for the person; nothing was sent to the service before the click', [waiting?.status, refundPosts(sb.requests.slice(from), approved.id).length], ['waiting', 0]);
			t.equal('review (approve): the email goes to the reviewer and names what the agent asked: order id, amount, currency, reason (the tool\'s $fromAI keys)', {
				to: msg.to,
				order: msg.text.includes(approved.id) && msg.subject.includes(approved.id),
				amount: /\b45\b/.test(msg.text) && /\b45\b/.test(msg.subject),
				currency: msg.text.includes(currencyOf(approved)),
				reason: msg.text.includes('Parcel arrived damaged'),
			}, { to: [REVIEWER], order: true, amount: true, currency: true, reason: true });
			t.check(`review (approve): the Approve and Decline links are n8n's signed resume URLs for this execution, on this n8n (${inst.url}/webhook-waiting/${id}/…)`, [links.approve, links.decline].every((l) => l?.startsWith(`${inst.url}/webhook-waiting/${id}/`) && /[?&]signature=/.test(l)), JSON.stringify(msg.links));
			const clicked = await click(/** @type {string} */ (links.approve));
			log(`review (approve): Approve answered ${clicked.status} ${JSON.stringify(clicked.text)}`);
			const done = await until(id, ['success', 'error', 'crashed']);
			const requests = describe('approve', from);
			const posts = refundPosts(requests, approved.id);
			t.equal('review (approve): after the click the execution ended with the model\'s answer', [clicked.status, done?.status, agentOutput(done)], [200, 'success', 'Refunded 45 after approval.']);
			t.equal('review (approve): the sandbox saw ONE refund request, answered 201; one refund of 45', [posts.map((q) => q.status), refundsOf(approved.id)], [[201], [45]]);
			const tools = model.toolMessages('approve');
			t.check('review (approve): the model received the refund as the tool\'s answer', tools.length === 1 && /"amount":45\b/.test(tools[0].content) && /rfd_/.test(tools[0].content), JSON.stringify(tools));
		}

		/** One review of a conversation: the n-th email, its links, the execution waiting, nothing of `orderId` sent since `from`. */
		const review = async (/** @type {string} */ name, /** @type {string} */ id, /** @type {number} */ n, /** @type {string} */ orderId, /** @type {number} */ from, /** @type {string} */ what) => {
			const m = await email(n);
			t.must(`review (${name}): the review email for ${what} arrived`, m, `no email in 60 s; execution ${JSON.stringify((await execution(id))?.status)}`);
			const msg = /** @type {NonNullable<typeof m>} */ (m);
			const waiting = await until(id, ['waiting']);
			const posts = refundPosts(sb.requests.slice(from), orderId);
			log(`review (${name}): email ${JSON.stringify(msg.subject)}; execution ${waiting?.status}; refund requests so far ${posts.length}`);
			return { msg, links: linksOf(msg), waiting: waiting?.status, postsBefore: posts.length };
		};

		// ------------------------------------------------------------ decline: nothing sent for it; the control within 20 is
		{
			const from = sb.requests.length;
			const mails0 = smtp.messages.length;
			const id = await start('decline', `Refund 40 of order ${declined.id}.`);
			const r = await review('decline', id, mails0, declined.id, from, 'the 40');
			t.equal('review (decline): the execution waits; nothing sent before the click', [r.waiting, r.postsBefore], ['waiting', 0]);
			const clicked = await click(/** @type {string} */ (r.links.decline));
			const done = await until(id, ['success', 'error', 'crashed']);
			const requests = describe('decline', from);
			const posts = refundPosts(requests, declined.id);
			const bodies = posts.map((q) => (typeof q.body === 'string' ? JSON.parse(q.body) : q.body)?.amount);
			t.equal('review (decline): after Decline the execution ended with the model\'s answer', [clicked.status, done?.status, agentOutput(done)], [200, 'success', 'The 40 was declined; I refunded 5.']);
			t.equal('review (decline): the declined 40 was never sent (0 requests for it); the control (refund_order 5, no review) reached the service once (201)', [bodies, posts.map((q) => q.status), refundsOf(declined.id)], [[5], [201], [5]]);
			const tools = model.toolMessages('decline');
			t.check('review (decline): the model received n8n\'s "rejected" message as refund_with_review\'s answer, then the control\'s refund', /rejected the tool call to refund_with_review/i.test(tools[0]?.content ?? '') && /"amount":5\b/.test(tools[1]?.content ?? ''), JSON.stringify(tools));
		}

		// ------------------------------------------------------------ approve twice at once, then again and decline after it resumed: one refund
		{
			const from = sb.requests.length;
			const mails0 = smtp.messages.length;
			const id = await start('twice', `Refund 35 of order ${twice.id}.`);
			const r = await review('twice', id, mails0, twice.id, from, 'the 35');
			t.equal('review (twice): the execution waits; nothing sent before the clicks', [r.waiting, r.postsBefore], ['waiting', 0]);
			const approve = /** @type {string} */ (r.links.approve);
			const both = await Promise.all([click(approve), click(approve)]);
			const done = await until(id, ['success', 'error', 'crashed']);
			const afterBoth = refundPosts(sb.requests.slice(from), twice.id);
			const late = await click(approve);
			const lateDecline = await click(/** @type {string} */ (r.links.decline));
			await wait.sleep(1500);
			const after = await execution(id);
			const requests = describe('twice', from);
			const posts = refundPosts(requests, twice.id);
			log(`review (twice): two Approve clicks at once answered ${both.map((b) => `${b.status} ${JSON.stringify(b.text.slice(0, 120))}`).join('; ')}; late Approve ${late.status} ${JSON.stringify(late.text.slice(0, 80))}; late Decline ${lateDecline.status} ${JSON.stringify(lateDecline.text.slice(0, 80))}`);
			// n8n resumes a waiting execution only from "waiting" (a conditional update; the loser gets its
			// ExecutionAlreadyResumingError, answered 500 "There was a problem executing the workflow"; a
			// later one finds it running, 409, or ended, "No action required").
			t.equal('review (twice): two Approve clicks at the same moment: ONE is recorded ("Action recorded"), the other turned away by n8n (measured on both lines: 500 from its "already being resumed" guard); the execution resumed once (the model asked twice in all) and ended with its answer', [both.filter((b) => b.status === 200 && /Action recorded/.test(b.text)).length, done?.status, agentOutput(done), model.of('twice').length], [1, 'success', 'Refunded 35 after approval.', 2]);
			t.equal('review (twice): the service saw ONE refund request for it (201); one refund of 35 (the control: the approval reaches the service)', [afterBoth.map((q) => q.status), refundsOf(twice.id)], [[201], [35]]);
			t.check('review (twice): Approve and Decline clicked again after the execution ended are answered without running anything (n8n: no action required, or the execution "has finished already")', [late, lateDecline].every((c) => c.status < 500) && after?.status === 'success' && String(after?.stoppedAt) === String(done?.stoppedAt), JSON.stringify({ late, lateDecline, status: after?.status }));
			t.equal('review (twice): still ONE refund request and ONE refund after the late clicks', [posts.length, refundsOf(twice.id)], [1, [35]]);
		}

		// ------------------------------------------------------------ above the cap, approved: still refused after the wait
		{
			const from = sb.requests.length;
			const mails0 = smtp.messages.length;
			const id = await start('cap', `Refund 150 of order ${capped.id}.`);
			const first = await review('cap', id, mails0, capped.id, from, 'the 150');
			t.equal(`review (cap): the 150 (above refund_with_review's Maximum Amount of ${REVIEW_CAP}) waits for the person; nothing sent`, [first.waiting, first.postsBefore], ['waiting', 0]);
			t.check('review (cap): its email names the 150', /\b150\b/.test(first.msg.text) && first.msg.text.includes(capped.id), first.msg.text.slice(0, 300));
			const mails = mails0 + 1;
			await click(/** @type {string} */ (first.links.approve));
			// The node refuses the approved 150; the model then asks for 60: a second review, a second wait.
			const second = await review('cap', id, mails, capped.id, from, 'the 60 (the control)');
			t.equal('review (cap): the approved 150 was refused by the node after the wait, nothing sent; the execution waits again for the 60', [second.waiting, second.postsBefore], ['waiting', 0]);
			await click(/** @type {string} */ (second.links.approve));
			const done = await until(id, ['success', 'error', 'crashed']);
			const requests = describe('cap', from);
			const posts = refundPosts(requests, capped.id);
			const bodies = posts.map((q) => (typeof q.body === 'string' ? JSON.parse(q.body) : q.body)?.amount);
			const tools = model.toolMessages('cap');
			t.equal('review (cap): the conversation ended with the model\'s answer', [done?.status, agentOutput(done)], ['success', 'I could refund 60 of the 150 asked.']);
			t.equal('review (cap): the 150 approved by the person was never sent; the control (60, approved) was, once (201)', [bodies, posts.map((q) => q.status), refundsOf(capped.id)], [[60], [201], [60]]);
			t.check(`review (cap): the model received the node's refusal (Maximum Amount of ${REVIEW_CAP}, nothing sent) as the tool's answer, then the refund of 60`, /Refused: the amount 150 is above the maximum of 100/.test(tools[0]?.content ?? '') && /"amount":60\b/.test(tools[1]?.content ?? ''), JSON.stringify(tools));
		}

		// ------------------------------------------------------------ Maximum Total per Execution across two waits
		{
			const from = sb.requests.length;
			const mails0 = smtp.messages.length;
			const id = await start('budget', `Refund 90, then 80 of order ${budget.id}.`);
			const first = await review('budget', id, mails0, budget.id, from, 'the 90');
			t.equal('review (budget): the 90 waits for the person; nothing sent', [first.waiting, first.postsBefore], ['waiting', 0]);
			const mails = mails0 + 1;
			await click(/** @type {string} */ (first.links.approve));
			const second = await review('budget', id, mails, budget.id, from, 'the 80');
			t.equal('review (budget): the approved 90 was sent (the control, 201) before the execution waited again for the 80', [second.waiting, refundPosts(sb.requests.slice(from), budget.id).map((q) => q.status)], ['waiting', [201]]);
			await click(/** @type {string} */ (second.links.approve));
			const done = await until(id, ['success', 'error', 'crashed']);
			const requests = describe('budget', from);
			const posts = refundPosts(requests, budget.id);
			const tools = model.toolMessages('budget');
			t.equal('review (budget): the conversation ended with the model\'s answer', [done?.status, agentOutput(done)], ['success', 'Refunded 90; the 80 passed the budget.']);
			t.equal(`review (budget): the 80, approved after the second wait, was never sent (90 + 80 > ${REVIEW_PER_EXECUTION}); one refund of 90`, [posts.length, refundsOf(budget.id)], [1, [90]]);
			t.check(`review (budget): the model saw budgetLeft.thisExecution ${REVIEW_PER_EXECUTION - 90} after the first wait, then the refusal naming Maximum Total per Execution with the 90 spent before the second wait`, /"thisExecution":60\b/.test(tools[0]?.content ?? '') && /Maximum Total per Execution/.test(tools[1]?.content ?? '') && /\b90 already spent in this execution\b/.test(tools[1]?.content ?? ''), JSON.stringify(tools));
		}

		// ------------------------------------------------------------ the example as shipped (examples/agent-refunds-with-review.json)
		{
			const examplePath = `vault-store-review-example-${crypto.randomUUID().slice(0, 8)}`;
			const wf = exampleAsWebhook({ webhookPath: examplePath, openAi: { id: openAi.body.id, name: openAi.body.name }, smtp: { id: smtpCred.body.id, name: smtpCred.body.name } });
			const made = /** @type {any} */ (await rest.request('POST', '/api/v1/workflows', wf, H));
			t.must('review (example): the example workflow (its Chat Trigger swapped for a Webhook, the credentials set) created', made.status === 200 && made.body?.id, JSON.stringify(made).slice(0, 600));
			exampleId = String(made.body.id);
			workflowIds.push(exampleId);
			const on = /** @type {any} */ (await rest.request('POST', `/api/v1/workflows/${exampleId}/activate`, undefined, H));
			t.must('review (example): activated', on.status === 200, JSON.stringify(on).slice(0, 400));
			const exampleUrl = `${inst.url}/webhook/${examplePath}`;
			await wait.waitUntil(async () => {
				const r = await fetch(exampleUrl, { method: 'GET', signal: AbortSignal.timeout(10_000) });
				const text = await r.text();
				return !/is not registered\./.test(text) || /registered for POST/i.test(text);
			}, 30_000, 250);
			const from = sb.requests.length;
			const mails0 = smtp.messages.length;
			const id = await start('example', `Refund 25 of order ${example.id}, it arrived late.`, exampleUrl, exampleId);
			const r = await review('example', id, mails0, example.id, from, 'the 25 (above 20)');
			t.equal('review (example): "Refund up to 20" refused the 25 without sending it; the 25 through "Refund above 20" waits for the person, nothing sent', [r.waiting, r.postsBefore, /above the maximum of 20/.test(model.toolMessages('example')[0]?.content ?? '')], ['waiting', 0, true]);
			t.check('review (example): the example\'s email names the order, 25, the currency and the reason', r.msg.text.includes(example.id) && /\b25\b/.test(r.msg.text) && r.msg.text.includes(currencyOf(example)) && r.msg.text.includes('Late delivery') && r.msg.to.includes('refunds-lead@example.com'), JSON.stringify({ to: r.msg.to, text: r.msg.text.trim().slice(0, 400) }));
			await click(/** @type {string} */ (r.links.approve));
			const done = await until(id, ['success', 'error', 'crashed']);
			const requests = describe('example', from);
			const posts = refundPosts(requests, example.id);
			const tools = model.toolMessages('example');
			t.equal('review (example): after Approve, ONE refund of 25 (201); the conversation ended with the model\'s answer', [done?.status, agentOutput(done), posts.map((q) => q.status), refundsOf(example.id)], ['success', 'Refunded 25 after approval.', [201], [25]]);
			t.check('review (example): the model received the refusal of "Refund up to 20" (Maximum Amount 20), then the refund', /above the maximum of 20/.test(tools[0]?.content ?? '') && /"amount":25\b/.test(tools[1]?.content ?? ''), JSON.stringify(tools));
		}
	} finally {
		for (const id of workflowIds) await rest.request('POST', `/api/v1/workflows/${id}/deactivate`, undefined, H);
		await model.close();
		await smtp.close();
	}
}

module.exports = { reviewChecks, reviewWorkflow, reviewed, own, click, linksOf, REVIEWER, BROWSER_UA };
