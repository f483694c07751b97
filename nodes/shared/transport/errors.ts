import type { IDataObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { cutText } from '../redaction/secrets';
import type { ApiRequest } from './request';

/**
 * What the node says when a request fails: the wording of every transport error, from what
 * happened to the request (status, attempts, whether a write may have been applied). The
 * transport redacts secrets from what these return before it throws them.
 */

export const MAY_HAVE_APPLIED = 'the service may have applied it; check before running again';

/** A wait in words: seconds up to a day, then days, never a long bare number. */
export function formatWait(ms: number): string {
	const seconds = Math.ceil(ms / 1000);
	if (seconds <= 86400) return `${seconds} s`;
	if (seconds < 366 * 86400) return `about ${Math.round(seconds / 86400)} days`;
	return 'more than a year';
}

/** A service's message keeps this many characters in an error (cut before any scan, saying so). */
export const MAX_SERVICE_MESSAGE = 2000;

/** A service message from an error body whose shape the spec does not show, cut to MAX_SERVICE_MESSAGE. */
export function serviceMessage(body: unknown): string | undefined {
	const message = readServiceMessage(body);
	return message === undefined ? undefined : cutText(message, MAX_SERVICE_MESSAGE);
}

/** Reads a service message from an error body whose shape the spec does not show. */
function readServiceMessage(body: unknown): string | undefined {
	if (body === undefined || body === null || body === '') return undefined;
	if (typeof body === 'string') return body.slice(0, 300);
	if (Buffer.isBuffer(body)) return body.toString('utf8').slice(0, 300);
	if (typeof body !== 'object') return String(body);
	const record = body as IDataObject;
	const error = record.error;
	if (error && typeof error === 'object' && !Array.isArray(error)) {
		const inner = error as IDataObject;
		if (typeof inner.message === 'string') {
			return typeof inner.code === 'string' ? `${inner.message} [${inner.code}]` : inner.message;
		}
	}
	if (typeof record.message === 'string') return record.message;
	if (typeof error === 'string') return error;
	if (Array.isArray(record.errors)) {
		return record.errors
			.map((e) => (typeof e === 'string' ? e : ((e as IDataObject)?.message ?? JSON.stringify(e))))
			.join('; ');
	}
	return JSON.stringify(body).slice(0, 300);
}

const STATUS_TEXT: Record<number, string> = {
	400: 'The service rejected the request',
	401: 'Authentication failed: the secret key was not accepted',
	403: 'The key is not allowed to do this',
	404: 'Not found',
	405: 'The service does not allow this method on this route',
	409: 'The service reported a conflict',
	413: 'The request body is too large',
	415: 'The service did not accept the content type',
	422: 'The service could not process the request',
	429: 'Rate limit reached',
};

const STATUS_DESCRIPTION: Record<number, string> = {
	401: 'Check the Secret Key of the credential, and that it belongs to this store or vault.',
	403: 'The key lacks the permission or scope this operation needs (see the field hints and the README).',
};

/** What happened to one request, for an error message that says what actually happened. */
export interface Outcome {
	attempts: number;
	/** The longest wait a 429 asked for, when it was longer than the node waits. */
	refusedRetryAfterMs?: number;
	/** A write without Idempotency-Key that may have reached the service and was not repeated. */
	notRepeated?: boolean;
}

export function shapeError(node: INode, req: ApiRequest, status: number, detail: string): NodeApiError {
	return new NodeApiError(node, { message: 'unexpected answer', httpCode: String(status) } as JsonObject, {
			message: `The service's answer was not what the API returns (HTTP ${status})`,
			description: `${req.method} ${req.family}${req.path}: ${detail}. Check the Base URL of the credential: it must be the API address, not a web page.`,
			httpCode: String(status),
			itemIndex: req.itemIndex,
		});
}

export function redirectError(
	node: INode,
	req: ApiRequest,
	status: number,
	target: URL | undefined,
	origin: string,
): NodeApiError {
	const where = target === undefined ? 'an unreadable address' : target.origin === origin ? 'the same host' : `another host (${target.host})`;
	return new NodeApiError(node, { message: 'redirect not followed', httpCode: String(status) } as JsonObject, {
			message: `The service answered with a redirect (HTTP ${status}) to ${where}; the node did not follow it`,
			description:
				`The node follows redirects only within ${origin}, and never re-sends a write for a 301/302/303, so the secret key is never sent anywhere else. ` +
				'Check the Base URL of the credential.',
			httpCode: String(status),
			itemIndex: req.itemIndex,
		});
}

export function networkError(
	node: INode,
	req: ApiRequest,
	code: string | undefined,
	outcome: Outcome,
	ambiguousWrite: boolean,
	timeoutMs: number,
): NodeApiError {
	const what = `${req.method} ${req.family}${req.path}`;
	// No error code in the message: n8n replaces messages that contain one with its own wording.
	const message = ambiguousWrite
		? `The connection failed after the request was sent: ${MAY_HAVE_APPLIED}`
		: code === 'ETIMEDOUT'
			? 'The service did not answer in time'
			: 'Could not reach the service';
	const cause = code === 'ETIMEDOUT' ? ` (no complete answer within the Timeout of ${timeoutMs} ms)` : code ? ` (${code})` : '';
	const description = ambiguousWrite
		? `${what} was sent once${cause} and not repeated, because it carries no Idempotency-Key and repeating it could apply it twice.`
		: `${what} failed after ${outcome.attempts} attempt(s)${cause}. Check the Base URL and the network.`;
	return new NodeApiError(node, { message } as JsonObject, {
			message,
			description,
			itemIndex: req.itemIndex,
		});
}

/** A money write whose next attempt could not end by its deadline (the once record's): not started. */
export function pastDeadlineError(node: INode, req: ApiRequest, outcome: Outcome, timeoutMs: number): NodeApiError {
	const what = `${req.method} ${req.family}${req.path}`;
	const message = outcome.attempts > 0 ? 'The write ran out of time before it could be repeated' : 'The write was not sent: it ran out of time before it could start';
	const description =
		`${what}: an attempt (Timeout ${timeoutMs} ms) could not end within the time the once-per-event record gave the write when it was claimed ` +
		`(Timeout × attempts, at most 32 minutes), so no attempt was started after ${outcome.attempts}. Lower the Timeout or Max Retries, or the Concurrency when many items wait.`;
	return new NodeApiError(node, { message } as JsonObject, { message, description, itemIndex: req.itemIndex });
}

export function apiError(node: INode, req: ApiRequest, status: number, body: unknown, outcome: Outcome, maxRetryAfterMs: number): NodeApiError {
	const fromService = serviceMessage(body);
	const keyed = req.idempotencyKey !== undefined;
	let base = STATUS_TEXT[status] ?? (status >= 500 ? 'The service failed' : 'The request failed');
	if (status === 409 && keyed) base = 'A request with the same Idempotency-Key is still being processed';
	if (status === 422 && keyed) base = 'The Idempotency-Key was already used with a different request body, or the service could not process the request';
	const parts: string[] = [];
	if (req.hints?.[status]) parts.push(req.hints[status] as string);
	if (req.inferred && (status === 404 || status === 405)) {
		parts.push(
			`If your account answers ${status} here, use the Custom API Call resource with the route from your dashboard's API reference.`,
		);
		// The store API has two roots, and this route's is the node's guess: the other one is the first to try.
		const roots = { core: ['/v2/core/stores', '/v2/stores'], stores: ['/v2/stores', '/v2/core/stores'] } as const;
		if (req.family === 'core' || req.family === 'stores') {
			const [sent, other] = roots[req.family];
			parts.push(`Your account may serve it under ${other} instead of ${sent}: try the Custom API Call resource with Method ${req.method} and Path ${other}/{storeId}${req.path}.`);
		}
	}
	if (STATUS_DESCRIPTION[status]) parts.push(STATUS_DESCRIPTION[status]);
	const retried = outcome.attempts > 1 ? ` after ${outcome.attempts} attempts` : '';
	let message = `${base} (HTTP ${status})${retried}`;
	if (status === 429 && outcome.refusedRetryAfterMs !== undefined) {
		const asked = formatWait(outcome.refusedRetryAfterMs);
		const limit = formatWait(Math.min(maxRetryAfterMs, req.maxRetryAfterMs ?? Infinity));
		message = `Rate limit reached (HTTP 429): the service asked to wait ${asked}, longer than the node waits (${limit})`;
		parts.push('Try again later, or lower "Concurrency".');
	} else if (status === 429) {
		parts.push('Lower "Concurrency" or raise "Max Retries", or try again later.');
	} else if (status === 409 && keyed) {
		parts.push('Raise "Max Retries" or try again later; the same key will replay the original result.');
	} else if (status === 422 && keyed) {
		parts.push('Send a new Idempotency-Key for a different request, or the same body to replay the original result.');
	}
	if (outcome.notRepeated) {
		message = `${base} (HTTP ${status}): ${MAY_HAVE_APPLIED}`;
		parts.push('The request carries no Idempotency-Key, so the node did not repeat it: repeating it could apply it twice.');
	}
	if (fromService) parts.push(`Service said: ${fromService}`);
	return new NodeApiError(node, { message: fromService ?? base, httpCode: String(status) } as JsonObject, {
		message,
		description: parts.join(' '),
		httpCode: String(status),
		itemIndex: req.itemIndex,
	});
}
