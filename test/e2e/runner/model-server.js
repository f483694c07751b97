// @ts-check
/**
 * A scripted OpenAI-compatible chat model for the AI-agent phase (test/e2e/agent.js): plain
 * node:http on 127.0.0.1, no network, deterministic. n8n's OpenAI Chat Model node reaches it
 * through the openAiApi credential's Base URL (`<url>/v1`).
 *
 * A conversation is picked by a marker in its first user message (`[case:<name>]`); its script is a
 * list of turns, and the turn answered is the number of assistant messages the request already
 * carries (so the script is stateless and a retried request gets the same answer). A turn is
 *   { calls: [{ tool, args }] }   the model calls tools (`tool` is matched against the names of the
 *                                 tools the request offers: exact, else the one that contains it)
 *   { say: 'text' }               the model answers and the agent ends
 * and may carry `delayMs`: the model takes that long to answer (time for the service to finish).
 * Answers POST /v1/chat/completions (non-streaming JSON, or server-sent events when the request
 * asks `stream: true`) and GET /v1/models. Every request is recorded with the messages and tools it
 * carried, so a test reads what the model received: `toolMessages(caseName)` lists the tool
 * answers in order ({ name, content }).
 */
'use strict';

const http = require('node:http');

/**
 * @typedef {{ tool: string, args: Record<string, unknown> }} Call
 * @typedef {({ calls: Call[] } | { say: string }) & { delayMs?: number }} Turn
 * @typedef {{ at: number, path: string, caseName: string | undefined, turn: number, stream: boolean, body: any, answered: any }} Recorded
 */

const MARKER = /\[case:([\w-]+)\]/;

/** The text of a message's content (a string, or parts with text). */
function textOf(/** @type {any} */ content) {
	if (typeof content === 'string') return content;
	if (Array.isArray(content)) return content.map((p) => (typeof p === 'string' ? p : (p?.text ?? ''))).join('');
	return content === undefined || content === null ? '' : JSON.stringify(content);
}

/**
 * @param {{ scripts: Record<string, Turn[]>, model?: string }} o
 */
async function startModelServer({ scripts, model = 'gpt-4o-mini' }) {
	/** @type {Recorded[]} */
	const requests = [];
	let serial = 0;

	/** The tool the request offers under `wanted` (exact, else the single one containing it). */
	const toolName = (/** @type {any[]} */ tools, /** @type {string} */ wanted) => {
		const names = (tools ?? []).map((t) => t?.function?.name ?? t?.name).filter(Boolean);
		if (names.includes(wanted)) return wanted;
		const like = names.filter((n) => n.toLowerCase().includes(wanted.toLowerCase()));
		if (like.length === 1) return like[0];
		throw new Error(`the request offers no single tool named like "${wanted}" (offered: ${names.join(', ') || 'none'})`);
	};

	/** The assistant message of the request's turn. */
	const answer = (/** @type {any} */ body) => {
		const messages = /** @type {any[]} */ (body?.messages ?? []);
		const firstUser = messages.find((m) => m.role === 'user' || m.role === 'human');
		const caseName = MARKER.exec(textOf(firstUser?.content))?.[1];
		const turn = messages.filter((m) => m.role === 'assistant').length;
		const script = caseName === undefined ? undefined : scripts[caseName];
		/** @type {Turn} */
		const step = script?.[turn] ?? { say: script ? 'Done.' : `No script for this conversation (${caseName ?? 'no [case:…] marker'}).` };
		const message =
			'calls' in step
				? {
						role: 'assistant',
						content: null,
						tool_calls: step.calls.map((c, i) => ({ id: `call_${caseName}_${turn}_${i}`, type: 'function', function: { name: toolName(body.tools, c.tool), arguments: JSON.stringify(c.args) } })),
					}
				: { role: 'assistant', content: step.say };
		return { caseName, turn, message, finish: 'calls' in step ? 'tool_calls' : 'stop', delayMs: step.delayMs ?? 0 };
	};

	const server = http.createServer((req, res) => {
		/** @type {Buffer[]} */
		const chunks = [];
		req.on('data', (c) => chunks.push(c));
		req.on('end', async () => {
			const url = new URL(req.url ?? '/', 'http://127.0.0.1');
			const send = (/** @type {number} */ status, /** @type {any} */ json) => {
				res.writeHead(status, { 'content-type': 'application/json' });
				res.end(JSON.stringify(json));
			};
			if (req.method === 'GET' && /\/models\/?$/.test(url.pathname)) {
				send(200, { object: 'list', data: [{ id: model, object: 'model', created: 1700000000, owned_by: 'vault-store-e2e' }] });
				return;
			}
			if (req.method !== 'POST' || !/\/chat\/completions\/?$/.test(url.pathname)) {
				send(404, { error: { message: `not served here: ${req.method} ${url.pathname}`, type: 'invalid_request_error' } });
				return;
			}
			/** @type {any} */
			let body;
			try {
				body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
			} catch {
				send(400, { error: { message: 'the body is not JSON', type: 'invalid_request_error' } });
				return;
			}
			/** @type {ReturnType<typeof answer>} */
			let a;
			try {
				a = answer(body);
			} catch (err) {
				send(400, { error: { message: String(/** @type {Error} */ (err).message), type: 'invalid_request_error' } });
				return;
			}
			if (a.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, a.delayMs));
			const id = `chatcmpl-e2e-${++serial}`;
			const created = Math.floor(Date.now() / 1000);
			const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
			requests.push({ at: Date.now(), path: url.pathname, caseName: a.caseName, turn: a.turn, stream: body.stream === true, body, answered: a.message });
			if (body.stream !== true) {
				send(200, { id, object: 'chat.completion', created, model: body.model ?? model, choices: [{ index: 0, message: a.message, logprobs: null, finish_reason: a.finish }], usage });
				return;
			}
			res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
			const chunk = (/** @type {any} */ delta, /** @type {string | null} */ finish, extra = {}) =>
				res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model ?? model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...extra })}\n\n`);
			const m = /** @type {any} */ (a.message);
			if (m.tool_calls) {
				chunk({ role: 'assistant', content: null }, null);
				m.tool_calls.forEach((/** @type {any} */ c, /** @type {number} */ index) => chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.function.name, arguments: c.function.arguments } }] }, null));
			} else {
				chunk({ role: 'assistant', content: m.content }, null);
			}
			chunk({}, a.finish, body.stream_options?.include_usage ? {} : { usage });
			if (body.stream_options?.include_usage) res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model ?? model, choices: [], usage })}\n\n`);
			res.end('data: [DONE]\n\n');
		});
	});
	await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
	const address = /** @type {import('node:net').AddressInfo} */ (server.address());
	const baseUrl = `http://127.0.0.1:${address.port}/v1`;

	/** The requests of a conversation, in order. */
	const of = (/** @type {string} */ caseName) => requests.filter((r) => r.caseName === caseName);
	/** The tool answers the model received in a conversation, each once, in order: { name, content }. */
	const toolMessages = (/** @type {string} */ caseName) => {
		const list = of(caseName);
		const last = list[list.length - 1];
		if (!last) return [];
		const messages = /** @type {any[]} */ (last.body.messages ?? []);
		/** @type {Map<string, string>} */
		const names = new Map();
		for (const m of messages) for (const c of m.tool_calls ?? []) names.set(c.id, c.function?.name);
		return messages.filter((m) => m.role === 'tool').map((m) => ({ name: names.get(m.tool_call_id) ?? '', content: textOf(m.content) }));
	};
	/** Everything the model received in a conversation (every request's messages), as one text. */
	const received = (/** @type {string} */ caseName) => of(caseName).map((r) => JSON.stringify(r.body.messages ?? [])).join('\n');

	return {
		baseUrl,
		requests,
		of,
		toolMessages,
		received,
		close: () => new Promise((resolve) => server.close(() => resolve(undefined))),
	};
}

module.exports = { startModelServer };
