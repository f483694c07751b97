// @ts-check
/**
 * n8n's real AI Agent node with the Vault Store node as its tools, offline, in a running n8n
 * (`n8n start`): Webhook -> AI Agent (@n8n/n8n-nodes-langchain.agent) <- OpenAI Chat Model
 * (lmChatOpenAi 1.2, Chat Completions) whose openAiApi credential's Base URL is a scripted model on
 * 127.0.0.1 (test/e2e/runner/model-server.js), and Vault Store tools (type
 * `n8n-nodes-vault-store.vaultStoreTool`, arguments through $fromAI, On Error: Continue) against the
 * in-process sandbox: refund_order (Maximum Amount 20, Maximum Total per Execution 30), the same as
 * refund_once (Idempotency Key: the execution id), refund_timeout (Timeout 0.5 s, Max Retries 0) and
 * refund_default (n8n's default On Error), get_order, get_token, reveal_token.
 * One POST to the webhook is one conversation (one execution); the model's turns call the tools,
 * and the model server records what each tool answered (the tool messages of the next request):
 *   - a refund within the cap: made once, the refund reaches the model;
 *   - above the cap: refused, nothing sent, the refusal is the tool's answer; then one within it goes out;
 *   - the same refund asked twice in one conversation: made once (the second call is answered with the
 *     first's refund, nothing sent); another amount in the same conversation is another refund (control);
 *   - the same, with the tool's Options → Idempotency Key set to the execution id: made once; another
 *     refund in that conversation refused under that key;
 *   - a refund whose answer is held past the tool's Timeout, asked again: sent again under the first
 *     call's Idempotency-Key, made once (the execution's memory of unanswered writes);
 *   - three refunds against Maximum Total per Execution: the third refused, `budgetLeft` seen by the model;
 *   - a refund through a sub-workflow (n8n's Call n8n Workflow Tool, one execution per call) under
 *     Maximum Total per Execution: refused there, saying why; the same without it (control): refunded;
 *   - Token → Reveal: refused, nothing sent; Token → Get of the same token (control) is answered;
 *   - above the cap again through a Webhook that responds by streaming (the agent streams the model);
 *   - Order → Get of an order holding card data in a custom field: answered, the card number and
 *     security code never in what the model receives.
 * Each case counts the requests the sandbox saw.
 */
'use strict';

const crypto = require('node:crypto');

const lib = require('./runner/lib');

const { PKG_NAME, CREDENTIALS, log } = lib;
const { startModelServer } = require('./runner/model-server');
const wait = require('./runner/wait');

const TOOL_TYPE = `${PKG_NAME}.vaultStoreTool`;
const CAP = 20;
const PER_EXECUTION = 30;
const CARD = '4242424242424242';
const CARD_SHOWN = '4242 4242 4242 4242';
const CVC = '737';

/**
 * @param {{inst: any, sb: any, t: import('./runner/results').Results, rest: any}} ctx
 */
async function agentChecks({ inst, sb, t, rest }) {
	const H = { 'X-N8N-API-KEY': rest.apiKey };

	// Orders and a token of the sandbox's seed, one order per case.
	const refundable = sb.state.orders.filter((/** @type {any} */ o) => o.payment?.status === 'COMPLETED' && o.payment.totalAmount >= 60 && !sb.state.refunds.some((/** @type {any} */ r) => r.orderId === o.id));
	t.must('agent: ten refundable orders of 60 or more in the sandbox', refundable.length >= 10, `${refundable.length} refundable`);
	const [within, above, twice, budget, read, stopping, unanswered, keyed, streamed, viaWorkflow] = refundable;
	// A card token in the vault (the agent may read it, never reveal it).
	const v = sb.credentials().vaultStoreVaultApi;
	const made = await fetch(`${v.baseUrl}/v2/workspaces/${v.workspaceId}/vaults/${v.vaultId}/tokens`, {
		method: 'POST',
		headers: { authorization: `Bearer ${v.secretKey}`, 'content-type': 'application/json', 'idempotency-key': `e2e-agent-${crypto.randomUUID()}` },
		body: JSON.stringify({ type: 'card', data: { number: CARD, exp_month: 12, exp_year: new Date().getUTCFullYear() + 2, cvc: CVC }, metadata: { source: 'e2e-agent' } }),
	});
	const tokenId = /** @type {any} */ (await made.json())?.id;
	t.must('agent: a card token created in the vault', made.status === 201 && /^tok_/.test(String(tokenId)), `HTTP ${made.status} ${tokenId}`);
	// Card data in the order the agent reads, as a free-form note a customer typed.
	read.customFields = { ...read.customFields, note: `Customer wrote: my card is ${CARD_SHOWN}, security code ${CVC}, please refund` };

	/** One turn per amount, each a call of `tool` for `order` (with its delay, if any), then what the model says. */
	const turns = (/** @type {string} */ tool, /** @type {any} */ order, /** @type {Array<number | [number, number]>} */ amounts, /** @type {string} */ say) => [
		...amounts.map((a) => {
			const [amount, delayMs] = Array.isArray(a) ? a : [a, 0];
			return { calls: [{ tool, args: { orderId: order.id, amount } }], ...(delayMs ? { delayMs } : {}) };
		}),
		{ say },
	];
	const script = {
		within: turns('refund_order', within, [5], 'Refunded 5.'),
		above: turns('refund_order', above, [25, 15], 'I could refund 15 of the 25 asked.'),
		// The same refund twice, then another amount (the control: another refund).
		twice: turns('refund_order', twice, [7, 7, 3], 'Refunded 7, then 3.'),
		// The tool whose Idempotency Key is the execution's: one refund per conversation.
		keyed: turns('refund_once', keyed, [7, 7, 9], 'Refunded 7 once.'),
		// The first call's answer is held past the tool's Timeout; the model asks again 2.5 s later.
		unanswered: turns('refund_timeout', unanswered, [8, [8, 2500]], 'Refunded 8.'),
		// Three different refunds (12, 11, 10: the same refund twice is one, above).
		budget: turns('refund_order', budget, [12, 11, 10], 'Two refunds were made; the third passed the budget.'),
		// The tool on n8n's default On Error (Stop Workflow).
		stopping: turns('refund_default', stopping, [25, 15], 'I could refund 15 of the 25 asked.'),
		// The same as `above`, through the Webhook that streams.
		streamed: turns('refund_order', streamed, [25, 15], 'I could refund 15 of the 25 asked.'),
		// The refund through a sub-workflow (Call n8n Workflow Tool): under Maximum Total per Execution
		// refused there; the same sub-workflow without it (the control) refunds.
		subworkflow: [
			{ calls: [{ tool: 'refund_via_workflow', args: { orderId: viaWorkflow.id, amount: 6 } }] },
			{ calls: [{ tool: 'refund_via_workflow_day', args: { orderId: viaWorkflow.id, amount: 6 } }] },
			{ say: 'Refunded 6 through the day-capped workflow.' },
		],
		reveal: [{ calls: [{ tool: 'reveal_token', args: { tokenId } }] }, { calls: [{ tool: 'get_token', args: { tokenId } }] }, { say: 'I cannot show the card.' }],
		read: [{ calls: [{ tool: 'get_order', args: { orderId: read.id } }] }, { say: 'Here is the order.' }],
	};
	const model = await startModelServer({ scripts: script });
	log(`agent: scripted model on ${model.baseUrl}`);
	/** @type {string[]} */
	const workflowIds = [];
	try {
		// ------------------------------------------------------------ the OpenAI credential and the workflow
		const cred = /** @type {any} */ (await rest.request('POST', '/api/v1/credentials', { name: 'Scripted model (e2e)', type: 'openAiApi', data: { apiKey: 'sk-e2e-scripted', url: model.baseUrl, header: false } }, H));
		t.must('agent: the openAiApi credential with the scripted model\'s Base URL created', cred.status === 200 && cred.body?.id, JSON.stringify(cred).slice(0, 400));
		/** Creates and publishes the workflow; waits until its webhook is registered. */
		const publish = async (/** @type {boolean} */ streaming) => {
			const webhookPath = `vault-store-agent-${crypto.randomUUID().slice(0, 8)}`;
			const what = streaming ? 'the streaming workflow' : 'the workflow';
			const created = /** @type {any} */ (await rest.request('POST', '/api/v1/workflows', agentWorkflow({ webhookPath, streaming, openAi: { id: cred.body.id, name: cred.body.name }, subWorkflows }), H));
			t.must(`agent: ${what} created`, created.status === 200 && created.body?.id, JSON.stringify(created).slice(0, 400));
			workflowIds.push(created.body.id);
			const act = /** @type {any} */ (await rest.request('POST', `/api/v1/workflows/${created.body.id}/activate`, undefined, H));
			t.must(`agent: ${what} activated`, act.status === 200, JSON.stringify(act).slice(0, 400));
			const url = `${inst.url}/webhook/${webhookPath}`;
			// Newer lines register a published workflow's webhooks a moment after the activation answers;
			// a GET (the webhook takes POST) says "not registered" until then, and runs nothing.
			const registered = await wait.waitUntil(async () => {
				const r = await fetch(url, { method: 'GET', signal: AbortSignal.timeout(10_000) });
				const text = await r.text();
				return !/is not registered\./.test(text) || /registered for POST/i.test(text) ? `${r.status} ${text.slice(0, 120)}` : undefined;
			}, 30_000, 250);
			t.must(`agent: ${what}'s webhook is registered`, registered, 'still "not registered" after 30 s');
			return { id: String(created.body.id), url };
		};
		// The refund sub-workflows the Call n8n Workflow Tools run (one with the per-execution budget, one without).
		/** @type {{ budget: string, day: string }} */
		const subWorkflows = { budget: '', day: '' };
		for (const kind of /** @type {const} */ (['budget', 'day'])) {
			const sub = /** @type {any} */ (await rest.request('POST', '/api/v1/workflows', refundSubWorkflow(kind), H));
			t.must(`agent: the refund sub-workflow (${kind}) created`, sub.status === 200 && sub.body?.id, JSON.stringify(sub).slice(0, 400));
			subWorkflows[kind] = String(sub.body.id);
			workflowIds.push(sub.body.id);
			// Newer lines call a sub-workflow's published version: publish it (older lines may refuse a workflow without a trigger; then it runs as saved).
			const act = /** @type {any} */ (await rest.request('POST', `/api/v1/workflows/${sub.body.id}/activate`, undefined, H));
			log(`agent: the refund sub-workflow (${kind}) ${sub.body.id}: activate answered ${act.status}`);
		}
		const { id: workflowId, url } = await publish(false);

		/** One conversation: POST the prompt; returns the webhook's answer, the execution, what the sandbox saw. */
		const converse = async (/** @type {keyof typeof script} */ name, /** @type {string} */ prompt, target = url) => {
			const from = sb.requests.length;
			const res = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prompt: `[case:${name}] ${prompt}` }), signal: AbortSignal.timeout(60_000) });
			const text = await res.text();
			/** @type {any} */
			let body;
			try {
				body = JSON.parse(text);
			} catch {
				// A streamed answer: one JSON object a line ({ type: 'begin' | 'item' | 'end', content }).
				const parts = text.split('\n').filter((l) => l.trim()).map((l) => {
					try {
						return JSON.parse(l);
					} catch {
						return undefined;
					}
				});
				body = parts.every(Boolean) && parts.length ? { output: parts.filter((p) => p.type === 'item').map((p) => p.content ?? '').join(''), streamed: parts.map((p) => p.type) } : text;
			}
			const requests = sb.requests.slice(from);
			const tools = model.toolMessages(name);
			log(`agent (${name}): HTTP ${res.status} ${JSON.stringify(body).slice(0, 200)}; model asked ${model.of(name).length} time(s) (${model.of(name).some((r) => r.stream) ? 'streaming' : 'not streaming'}); sandbox saw ${requests.map((/** @type {any} */ q) => `${q.method} ${q.path} ${q.status}`).join(', ') || 'nothing'}`);
			for (const m of tools) log(`agent (${name}):   tool ${m.name} answered ${m.content.slice(0, 300)}`);
			return { status: res.status, body, requests, tools };
		};
		const refundPosts = (/** @type {any[]} */ requests, /** @type {string} */ orderId) => requests.filter((q) => q.method === 'POST' && q.path.endsWith(`/orders/${orderId}/refund`));
		const refundsOf = (/** @type {string} */ orderId) => sb.state.refunds.filter((/** @type {any} */ r) => r.orderId === orderId).map((/** @type {any} */ r) => r.amount);

		// ------------------------------------------------------------ a refund within the cap
		{
			const c = await converse('within', `Refund 5 of order ${within.id}.`);
			t.equal('agent (within the cap): the conversation ended with the model\'s answer', [c.status, c.body?.output], [200, 'Refunded 5.']);
			t.equal('agent (within the cap): the sandbox saw ONE refund request, answered 201; one refund of 5', [refundPosts(c.requests, within.id).map((q) => q.status), refundsOf(within.id)], [[201], [5]]);
			t.check('agent (within the cap): the model received the refund as the tool\'s answer (the refund id, amount 5)', c.tools.length === 1 && /"id":"rfd_/.test(c.tools[0].content) && /"amount":5\b/.test(c.tools[0].content), JSON.stringify(c.tools));
		}

		// ------------------------------------------------------------ above the cap
		{
			const c = await converse('above', `Refund 25 of order ${above.id}.`);
			t.equal('agent (above the cap): the conversation ended with the model\'s answer', [c.status, c.body?.output], [200, 'I could refund 15 of the 25 asked.']);
			const posts = refundPosts(c.requests, above.id);
			t.equal('agent (above the cap): the refund of 25 was never sent; the control of 15 in the same conversation was, once (201)', [posts.map((q) => q.status), posts.map((q) => (typeof q.body === 'string' ? JSON.parse(q.body) : q.body)?.amount), refundsOf(above.id)], [[201], [15], [15]]);
			t.check(`agent (above the cap): the model received the refusal as the tool's answer (Maximum Amount of ${CAP}, nothing sent)`, c.tools.length === 2 && /Maximum Amount/.test(c.tools[0].content) && /\b25\b/.test(c.tools[0].content) && new RegExp(`\\b${CAP}\\b`).test(c.tools[0].content), JSON.stringify(c.tools[0] ?? null));
			t.check('agent (above the cap): the control\'s refund of 15 reached the model', /"amount":15\b/.test(c.tools[1]?.content ?? ''), JSON.stringify(c.tools[1] ?? null));
		}

		// ------------------------------------------------------------ above the cap, the tool on n8n's default On Error
		{
			const c = await converse('stopping', `Refund 25 of order ${stopping.id}.`);
			const posts = refundPosts(c.requests, stopping.id);
			const last = /** @type {any[]} */ ((await rest.api(`/executions?workflowId=${encodeURIComponent(workflowId)}&limit=1`)).data ?? [])[0];
			const full = last ? /** @type {any} */ (await rest.api(`/executions/${last.id}?includeData=true`)) : undefined;
			const error = String(full?.data?.resultData?.error?.message ?? '');
			log(`agent (stopping): execution ${last?.id} ${last?.status}: ${error.slice(0, 200)}`);
			t.check('agent (default On Error): the refund of 25 was never sent', !posts.some((q) => (typeof q.body === 'string' ? JSON.parse(q.body) : q.body)?.amount === 25), JSON.stringify(posts.map((q) => q.body)));
			if (lib.N8N_VERSION === '2.8.4') {
				// n8n 2.8's engine stops the workflow on a tool's error: the refusal ends the execution, the model never hears of it.
				t.equal('agent (default On Error, n8n 2.8): the refusal fails the execution (webhook 500, the execution\'s error is the refusal); nothing sent, the model asked once', [c.status, /^Refused: the amount 25 is above the maximum of 20/.test(error), posts.length, model.of('stopping').length], [500, true, 0, 1]);
			} else {
				// Newer lines hand a tool's error to the agent ({ error }) unless the tool's On Error is Stop Workflow explicitly.
				t.equal('agent (default On Error, newer n8n): the refusal is the tool\'s answer; the control of 15 goes out once (201)', [c.status, c.body?.output, /Maximum Amount/.test(c.tools[0]?.content ?? ''), posts.map((q) => q.status)], [200, 'I could refund 15 of the 25 asked.', true, [201]]);
			}
		}

		// ------------------------------------------------------------ the same refund twice in one conversation
		{
			const c = await converse('twice', `Refund 7 of order ${twice.id}, twice to be sure, then 3 more.`);
			t.equal('agent (twice): the conversation ended with the model\'s answer', [c.status, c.body?.output], [200, 'Refunded 7, then 3.']);
			const posts = refundPosts(c.requests, twice.id);
			const amounts = posts.map((q) => (typeof q.body === 'string' ? JSON.parse(q.body) : q.body)?.amount);
			log(`agent (twice): ${posts.length} refund request(s) (${JSON.stringify(amounts)}, keys ${new Set(posts.map((q) => q.headers['idempotency-key'])).size} distinct), refunds ${JSON.stringify(refundsOf(twice.id))}`);
			t.check('agent (twice): the first call reached the service (201) and the model received its refund', posts[0]?.status === 201 && /"amount":7\b/.test(c.tools[0]?.content ?? ''), JSON.stringify({ posts: posts.map((q) => q.status), tools: c.tools }));
			t.equal('agent (twice): the same refund asked twice in one conversation is made ONCE: the sandbox saw one refund request of 7 (201) and the control of 3 (201); refunds 7 and 3', [posts.map((q) => q.status), amounts, refundsOf(twice.id)], [[201, 201], [7, 3], [7, 3]]);
			const first = /"id":"(rfd_[^"]+)"/.exec(c.tools[0]?.content ?? '')?.[1];
			t.check('agent (twice): the second call\'s answer to the model is the first call\'s refund (its id), alreadyMadeInThisExecution: true', c.tools.length === 3 && first !== undefined && (c.tools[1]?.content ?? '').includes(first) && /"alreadyMadeInThisExecution":true/.test(c.tools[1]?.content ?? ''), JSON.stringify(c.tools.slice(0, 2)));
			t.check('agent (twice): the control (3, another amount) reached the model as another refund', /"amount":3\b/.test(c.tools[2]?.content ?? '') && !(c.tools[2]?.content ?? '').includes(String(first)) && !/alreadyMadeInThisExecution/.test(c.tools[2]?.content ?? ''), JSON.stringify(c.tools[2] ?? null));
		}

		// ------------------------------------------------------------ the same refund twice, the tool keyed by the execution
		{
			const c = await converse('keyed', `Refund 7 of order ${keyed.id}, twice to be sure, then 9 more.`);
			t.equal('agent (keyed): the conversation ended with the model\'s answer', [c.status, c.body?.output], [200, 'Refunded 7 once.']);
			const posts = refundPosts(c.requests, keyed.id);
			const amounts = posts.map((q) => (typeof q.body === 'string' ? JSON.parse(q.body) : q.body)?.amount);
			log(`agent (keyed): ${posts.length} refund request(s) (${JSON.stringify(amounts)}, keys ${new Set(posts.map((q) => q.headers['idempotency-key'])).size} distinct), refunds ${JSON.stringify(refundsOf(keyed.id))}`);
			t.equal('agent (keyed): with Options → Idempotency Key = the execution id, the same refund asked twice is made ONCE (the first call reached the service, 201; one refund of 7)', [posts[0]?.status, refundsOf(keyed.id)], [201, [7]]);
			t.check('agent (keyed): the second call\'s answer to the model is the same refund (its id), its key source "option" (the key is the user\'s, not an event\'s)', c.tools.length === 3 && /"id":"rfd_/.test(c.tools[1].content) && c.tools[1].content.includes(String(/"id":"(rfd_[^"]+)"/.exec(c.tools[0].content)?.[1])) && /"idempotencyKeySource":"option"/.test(c.tools[1].content), JSON.stringify(c.tools.slice(0, 2)));
			t.check('agent (keyed): another refund in the same conversation (9) is refused under that key, nothing sent', !amounts.includes(9) && /already sent in this execution with another write/.test(c.tools[2]?.content ?? ''), JSON.stringify(c.tools[2] ?? null));
		}

		// ------------------------------------------------------------ the same refund again after an unanswered call
		{
			// The service makes the refund and answers after 1.5 s; the tool's Timeout is 0.5 s, Max Retries 0.
			sb.faults.add({ match: { method: 'POST', path: new RegExp(`/orders/${unanswered.id}/refund$`) }, kind: 'slow', delayMs: 1500, count: 1 });
			const c = await converse('unanswered', `Refund 8 of order ${unanswered.id}.`);
			sb.faults.clear();
			const posts = refundPosts(c.requests, unanswered.id);
			const keys = posts.map((q) => q.headers['idempotency-key']);
			t.equal('agent (unanswered): the conversation ended with the model\'s answer', [c.status, c.body?.output], [200, 'Refunded 8.']);
			t.check('agent (unanswered): the first call\'s answer to the model says the outcome is unknown (the service may have applied it)', /is unknown: the service may have applied it/.test(c.tools[0]?.content ?? ''), JSON.stringify(c.tools[0] ?? null));
			t.equal('agent (unanswered): the repeat went out under the FIRST call\'s Idempotency-Key (two requests, one key); the service made ONE refund of 8', [posts.length, new Set(keys).size, refundsOf(unanswered.id)], [2, 1, [8]]);
			t.check('agent (unanswered): the model received the refund (the service\'s answer to the repeat)', /"amount":8\b/.test(c.tools[1]?.content ?? '') && /"id":"rfd_/.test(c.tools[1]?.content ?? ''), JSON.stringify(c.tools[1] ?? null));
		}

		// ------------------------------------------------------------ three refunds against Maximum Total per Execution
		{
			const c = await converse('budget', `Refund 12, then 11, then 10 of order ${budget.id}.`);
			t.equal('agent (budget): the conversation ended with the model\'s answer', [c.status, c.body?.output], [200, 'Two refunds were made; the third passed the budget.']);
			const posts = refundPosts(c.requests, budget.id);
			t.equal(`agent (budget): the sandbox saw two refund requests (201, 201), the third (23 + 10 > ${PER_EXECUTION}) never sent`, [posts.map((q) => q.status), refundsOf(budget.id)], [[201, 201], [12, 11]]);
			const budgetLeft = c.tools.map((m) => /"budgetLeft":\{[^}]*"thisExecution":([\d.]+)/.exec(m.content)?.[1]);
			t.equal(`agent (budget): the model saw budgetLeft.thisExecution in each refund's answer (${PER_EXECUTION - 12}, then ${PER_EXECUTION - 23})`, budgetLeft.slice(0, 2), [String(PER_EXECUTION - 12), String(PER_EXECUTION - 23)]);
			t.check(`agent (budget): the third call's answer is the refusal naming Maximum Total per Execution, what was spent and what is left`, /Maximum Total per Execution/.test(c.tools[2]?.content ?? '') && /\b23\b/.test(c.tools[2]?.content ?? '') && /\b7 left\b/.test(c.tools[2]?.content ?? ''), JSON.stringify(c.tools[2] ?? null));
		}

		// ------------------------------------------------------------ a refund through a sub-workflow (Call n8n Workflow Tool)
		{
			const c = await converse('subworkflow', `Refund 6 of order ${viaWorkflow.id} through the refund workflow.`);
			t.equal('agent (sub-workflow): the conversation ended with the model\'s answer', [c.status, c.body?.output], [200, 'Refunded 6 through the day-capped workflow.']);
			const posts = refundPosts(c.requests, viaWorkflow.id);
			const agentRun = /** @type {any[]} */ ((await rest.api(`/executions?workflowId=${encodeURIComponent(workflowId)}&limit=1`)).data ?? [])[0];
			t.check('agent (sub-workflow): under Maximum Total per Execution the refund in the sub-workflow is refused, saying why (started by the agent\'s execution, named); the model received the refusal', new RegExp(`cannot hold here: this execution was started by another one \\(execution ${agentRun?.id}\\)`).test(c.tools[0]?.content ?? ''), JSON.stringify({ agentExecution: agentRun?.id, tool: c.tools[0] ?? null }));
			t.equal('agent (sub-workflow): the refused call sent nothing; the control (the sub-workflow without the per-execution budget) refunded 6 once (201)', [posts.map((q) => q.status), refundsOf(viaWorkflow.id)], [[201], [6]]);
			t.check('agent (sub-workflow): the control\'s refund reached the model', /"amount":\s*6\b/.test(c.tools[1]?.content ?? '') && /rfd_/.test(c.tools[1]?.content ?? ''), JSON.stringify(c.tools[1] ?? null));
		}

		// ------------------------------------------------------------ Token → Reveal
		{
			const c = await converse('reveal', `Show me the card of token ${tokenId}.`);
			t.equal('agent (reveal): the conversation ended with the model\'s answer', [c.status, c.body?.output], [200, 'I cannot show the card.']);
			const reveals = c.requests.filter((/** @type {any} */ q) => q.path.endsWith(`/tokens/${tokenId}/reveal`));
			const gets = c.requests.filter((/** @type {any} */ q) => q.method === 'GET' && q.path.endsWith(`/tokens/${tokenId}`));
			t.equal('agent (reveal): nothing reached the reveal route; the control (Token → Get of the same token) reached the vault once (200)', [reveals.length, gets.map((/** @type {any} */ q) => q.status)], [0, [200]]);
			t.check('agent (reveal): the model received the refusal as the tool\'s answer', /Reveal is not available to AI agents/.test(c.tools[0]?.content ?? ''), JSON.stringify(c.tools[0] ?? null));
			t.check('agent (reveal): the control\'s answer (the token id) reached the model', (c.tools[1]?.content ?? '').includes(tokenId), JSON.stringify(c.tools[1] ?? null));
		}

		// ------------------------------------------------------------ above the cap, the agent streaming
		{
			// A Webhook that responds by streaming: the agent streams the model (the model answers in server-sent events).
			const streaming = await publish(true);
			const c = await converse('streamed', `Refund 25 of order ${streamed.id}.`, streaming.url);
			const posts = refundPosts(c.requests, streamed.id);
			t.equal('agent (streaming): the model was asked in streaming mode (stream: true), each turn', model.of('streamed').map((r) => r.stream), [true, true, true]);
			t.equal('agent (streaming): the streamed answer ends with the model\'s text', [c.status, c.body?.output], [200, 'I could refund 15 of the 25 asked.']);
			t.equal('agent (streaming): the refund of 25 was never sent; the control of 15 was, once (201)', [posts.map((q) => q.status), refundsOf(streamed.id)], [[201], [15]]);
			t.check('agent (streaming): the model received the refusal as the tool\'s answer', /Refused: the amount 25 is above the maximum of 20/.test(c.tools[0]?.content ?? ''), JSON.stringify(c.tools[0] ?? null));
		}

		// ------------------------------------------------------------ a read holding card data
		{
			const c = await converse('read', `What does order ${read.id} say?`);
			t.equal('agent (read): the conversation ended with the model\'s answer', [c.status, c.body?.output], [200, 'Here is the order.']);
			const gets = c.requests.filter((/** @type {any} */ q) => q.method === 'GET' && q.path.endsWith(`/orders/${read.id}`));
			t.equal('agent (read): the sandbox saw one read of the order (200)', gets.map((/** @type {any} */ q) => q.status), [200]);
			const answer = c.tools[0]?.content ?? '';
			t.check('agent (read): the order reached the model (its id and the note around the card)', answer.includes(read.id) && answer.includes('please refund'), answer.slice(0, 400));
			log(`agent (read): the note as the model received it: ${JSON.stringify(/"note\\*":\\*"([^"\\]*)/.exec(answer)?.[1] ?? answer.slice(0, 200))}`);
			const seen = model.received('read');
			const digits = seen.replace(/[\s.-]/g, '');
			t.equal('agent (read): the card number and the security code are in nothing the model received (every request of the conversation)', { requests: model.of('read').length, card: digits.includes(CARD), cvc: new RegExp(`\\b${CVC}\\b`).test(seen) }, { requests: 2, card: false, cvc: false });
		}
	} finally {
		for (const id of workflowIds) await rest.request('POST', `/api/v1/workflows/${id}/deactivate`, undefined, H);
		await model.close();
	}
}

/**
 * Webhook -> AI Agent, with the OpenAI Chat Model and the Vault Store tools.
 * `streaming`: the Webhook node responds by streaming (2.1), and the agent streams the model.
 * @param {{ webhookPath: string, openAi: { id: string, name: string }, streaming?: boolean }} o
 */
function agentWorkflow({ webhookPath, openAi, streaming = false, subWorkflows }) {
	const store = { vaultStoreStoreApi: { id: CREDENTIALS.store.id, name: CREDENTIALS.store.name } };
	const vault = { vaultStoreVaultApi: { id: CREDENTIALS.vault.id, name: CREDENTIALS.vault.name } };
	const fromAi = (/** @type {string} */ key, /** @type {string} */ description, type = 'string') => `={{ $fromAI('${key}', '${description}', '${type}') }}`;
	const rl = (/** @type {string} */ value) => ({ __rl: true, mode: 'id', value });
	/** @type {[number, number]} */
	let at = [200, 240];
	// n8n's Call n8n Workflow Tool (2.2: the tool's name is the node's), the agent's arguments as the sub-workflow's inputs.
	const workflowTool = (/** @type {string} */ name, /** @type {string} */ description, /** @type {string} */ workflowId) => {
		at = [at[0] + 180, at[1]];
		const column = (/** @type {string} */ id, /** @type {string} */ type) => ({ id, displayName: id, required: false, defaultMatch: false, display: true, canBeUsedToMatch: true, type, removed: false });
		return {
			id: crypto.randomUUID(),
			name,
			type: '@n8n/n8n-nodes-langchain.toolWorkflow',
			typeVersion: 2.2,
			position: at,
			parameters: {
				description,
				workflowId: { __rl: true, mode: 'id', value: workflowId },
				workflowInputs: {
					mappingMode: 'defineBelow',
					value: { orderId: fromAi('orderId', 'The id of the order to refund (ord_...)'), amount: fromAi('amount', 'The amount to refund, in the order currency', 'number') },
					matchingColumns: [],
					schema: [column('orderId', 'string'), column('amount', 'number')],
					attemptToConvertTypes: false,
					convertFieldsToString: false,
				},
			},
		};
	};
	// Settings → On Error → Continue: a refusal is the tool's answer to the model on every n8n line
	// (without it, n8n 2.8's engine fails the execution on a tool's error; newer lines continue).
	const tool = (/** @type {string} */ name, /** @type {string} */ description, /** @type {object} */ credentials, /** @type {object} */ parameters, onError = 'continueRegularOutput') => {
		at = [at[0] + 180, at[1]];
		return { id: crypto.randomUUID(), name, type: TOOL_TYPE, typeVersion: 2, position: at, parameters: { descriptionType: 'manual', toolDescription: description, ...parameters }, credentials, ...(onError ? { onError } : {}) };
	};
	const refund = {
		resource: 'order',
		operation: 'refund',
		orderId: rl(fromAi('orderId', 'The id of the order to refund (ord_...)')),
		additionalFields: { amount: fromAi('amount', 'The amount to refund, in the order currency', 'number'), reason: 'Refunded by the support agent (e2e)' },
		options: { maxAmount: CAP, maxTotalPerExecution: PER_EXECUTION, maxTotalPerDay: 1000 },
	};
	const nodes = [
		{ id: crypto.randomUUID(), name: 'Webhook', type: 'n8n-nodes-base.webhook', typeVersion: streaming ? 2.1 : 2, position: [0, 0], webhookId: crypto.randomUUID(), parameters: { httpMethod: 'POST', path: webhookPath, responseMode: streaming ? 'streaming' : 'lastNode', options: {} } },
		{
			id: crypto.randomUUID(),
			name: 'Support agent',
			type: '@n8n/n8n-nodes-langchain.agent',
			typeVersion: 3.1,
			position: [260, 0],
			parameters: { promptType: 'define', text: '={{ $json.body.prompt }}', options: { systemMessage: 'You help the store\'s support team with refunds and order questions.' } },
		},
		{ id: crypto.randomUUID(), name: 'OpenAI Chat Model', type: '@n8n/n8n-nodes-langchain.lmChatOpenAi', typeVersion: 1.2, position: [100, 240], parameters: { model: { __rl: true, mode: 'id', value: 'gpt-4o-mini' }, options: {} }, credentials: { openAiApi: openAi } },
		tool('refund_order', 'Refunds part of an order. Give the order id (ord_...) and the amount to refund.', store, refund),
		// The same refund keyed by the execution (Options → Idempotency Key): one refund per conversation.
		tool('refund_once', 'Refunds part of an order, once per conversation. Give the order id (ord_...) and the amount to refund.', store, { ...refund, options: { ...refund.options, idempotencyKey: '={{ "conversation-" + $execution.id }}' } }),
		// The same refund with a Timeout of 0.5 s and no retries (its answer can go missing).
		tool('refund_timeout', 'Refunds part of an order (third tool). Give the order id (ord_...) and the amount to refund.', store, { ...refund, options: { ...refund.options, timeout: 500, maxRetries: 0 } }),
		// The same tool on n8n's default On Error setting (Stop Workflow).
		tool('refund_default', 'Refunds part of an order (second tool). Give the order id (ord_...) and the amount to refund.', store, refund, ''),
		tool('get_order', 'Reads an order by its id (ord_...).', store, { resource: 'order', operation: 'get', orderId: rl(fromAi('orderId', 'The id of the order (ord_...)')) }),
		tool('get_token', 'Reads a vault token by its id (tok_...): its type and mask.', vault, { resource: 'token', operation: 'get', tokenId: rl(fromAi('tokenId', 'The id of the token (tok_...)')) }),
		tool('reveal_token', 'Reveals the data a vault token holds.', vault, { resource: 'token', operation: 'reveal', tokenId: rl(fromAi('tokenId', 'The id of the token (tok_...)')) }),
		workflowTool('refund_via_workflow', 'Refunds part of an order through the refund workflow. Give the order id (ord_...) and the amount to refund.', subWorkflows.budget),
		workflowTool('refund_via_workflow_day', 'Refunds part of an order through the day-capped refund workflow. Give the order id (ord_...) and the amount to refund.', subWorkflows.day),
	];
	/** @type {Record<string, any>} */
	const connections = {
		Webhook: { main: [[{ node: 'Support agent', type: 'main', index: 0 }]] },
		'OpenAI Chat Model': { ai_languageModel: [[{ node: 'Support agent', type: 'ai_languageModel', index: 0 }]] },
	};
	for (const n of nodes) if (n.type === TOOL_TYPE || n.type.endsWith('.toolWorkflow')) connections[n.name] = { ai_tool: [[{ node: 'Support agent', type: 'ai_tool', index: 0 }]] };
	return { name: `e2e agent: a real AI Agent with Vault Store tools${streaming ? ' (streaming)' : ''}`, nodes, connections, settings: { executionOrder: 'v1' } };
}

/**
 * The sub-workflow a Call n8n Workflow Tool runs: Execute Workflow Trigger (inputs orderId, amount)
 * -> the Vault Store node (Order -> Refund, a normal step, On Error: Continue), Maximum Amount 20 and
 * Maximum Total per Day 1000, and for `budget` Maximum Total per Execution 30 too.
 * @param {'budget' | 'day'} kind
 */
function refundSubWorkflow(kind) {
	const rl = (/** @type {string} */ value) => ({ __rl: true, mode: 'id', value });
	return {
		name: `e2e agent: the refund sub-workflow (${kind === 'budget' ? 'Maximum Total per Execution' : 'Maximum Total per Day only'})`,
		nodes: [
			{ id: crypto.randomUUID(), name: 'When called by the agent', type: 'n8n-nodes-base.executeWorkflowTrigger', typeVersion: 1.1, position: [0, 0], parameters: { workflowInputs: { values: [{ name: 'orderId' }, { name: 'amount', type: 'number' }] } } },
			{
				id: crypto.randomUUID(),
				name: 'Refund',
				type: `${PKG_NAME}.vaultStore`,
				typeVersion: 2,
				position: [240, 0],
				parameters: {
					resource: 'order',
					operation: 'refund',
					orderId: rl('={{ $json.orderId }}'),
					additionalFields: { amount: '={{ $json.amount }}', reason: 'Refunded through the sub-workflow (e2e)' },
					options: { maxAmount: CAP, maxTotalPerDay: 1000, ...(kind === 'budget' ? { maxTotalPerExecution: PER_EXECUTION } : {}) },
				},
				credentials: { vaultStoreStoreApi: { id: CREDENTIALS.store.id, name: CREDENTIALS.store.name } },
				onError: 'continueRegularOutput',
			},
		],
		connections: { 'When called by the agent': { main: [[{ node: 'Refund', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	};
}

module.exports = { agentChecks, agentWorkflow };
