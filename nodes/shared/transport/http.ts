import type { IDataObject, IExecuteFunctions, IHookFunctions, ILoadOptionsFunctions, IWebhookFunctions } from 'n8n-workflow';

/** What the transport's HTTP helpers share: answers, headers, network codes, retry timing. */

export type HttpContext = IExecuteFunctions | ILoadOptionsFunctions | IHookFunctions | IWebhookFunctions;

export type RawResponse = { body: unknown; headers: Record<string, unknown>; statusCode: number };

/** Failures where the request cannot have reached the service: safe to retry for any method. */
export const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/** Failures after which the service may have received (and applied) the request. */
export const MAYBE_SENT_CODES = new Set([
	'ECONNRESET',
	'ECONNABORTED',
	'ETIMEDOUT',
	'ESOCKETTIMEDOUT',
	'EPIPE',
	'ERR_SOCKET_CONNECTION_TIMEOUT',
]);

/** Methods whose repetition has no further effect. */
export const SAFE_TO_REPEAT = new Set(['GET', 'HEAD', 'DELETE']);

/** Same-origin redirects the node follows for one request, at most. */
export const MAX_REDIRECTS = 3;

/** Seconds or an HTTP date, in milliseconds; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
	if (value === undefined || value.trim() === '') return undefined;
	const trimmed = value.trim();
	if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.max(MIN_RETRY_PAUSE_MS, Math.round(Number(trimmed) * 1000));
	// Only an HTTP date (it names a weekday or month); "-5" and other numbers are unreadable, so the
	// node's own backoff applies instead of none.
	if (!/[a-z]{3}/i.test(trimmed)) return undefined;
	const date = Date.parse(trimmed);
	return Number.isNaN(date) ? undefined : Math.max(MIN_RETRY_PAUSE_MS, date - nowMs);
}

/** The shortest pause before a retry the service asked for with Retry-After (also for 0). */
export const MIN_RETRY_PAUSE_MS = 50;

/** Exponential backoff with full jitter between half and all of the step. */
export function backoffMs(attempt: number, baseMs = 250, capMs = 8_000): number {
	const step = Math.min(capMs, baseMs * 2 ** attempt);
	return Math.round(step / 2 + Math.random() * (step / 2));
}

export function redirectTarget(location: string | undefined, from: string): URL | undefined {
	if (location === undefined || location === '') return undefined;
	try {
		return new URL(location, from);
	} catch {
		return undefined;
	}
}

/** Why a 2xx body is not JSON, or undefined when it is a JSON object or array. */
export function describeBody(body: unknown, contentType: string | undefined): string | undefined {
	if (body !== null && typeof body === 'object' && !Buffer.isBuffer(body)) return undefined;
	const text = Buffer.isBuffer(body) ? body.toString('utf8') : typeof body === 'string' ? body : '';
	if (body === undefined || body === null || text.trim() === '') return 'an empty body';
	if (/html/i.test(contentType ?? '') || /^\s*</.test(text)) return 'an HTML page';
	return `a body that is not a JSON object${contentType ? ` (${contentType.split(';')[0]})` : ''}`;
}

export function lowerCaseHeaders(headers: Record<string, unknown> | undefined): Record<string, string> {
	const out: Record<string, string> = {};
	for (const [key, value] of Object.entries(headers ?? {})) {
		out[key.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
	}
	return out;
}

export function networkCode(error: unknown): string | undefined {
	const seen = new Set<unknown>();
	let current: unknown = error;
	while (current && typeof current === 'object' && !seen.has(current)) {
		seen.add(current);
		const record = current as { code?: unknown; httpCode?: unknown; cause?: unknown; message?: unknown };
		for (const code of [record.code, record.httpCode]) {
			if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
		}
		if (typeof record.message === 'string') {
			if (/socket hang up/i.test(record.message)) return 'ECONNRESET';
			if (/timeout of \d+ms exceeded/i.test(record.message)) return 'ETIMEDOUT';
		}
		current = record.cause;
	}
	return undefined;
}

/** `{ok: true, data}` becomes data; bodies without the envelope (vault) pass as they are. */
export function unwrap(body: unknown): unknown {
	if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
		const record = body as IDataObject;
		if (record.ok === true && 'data' in record) return record.data;
	}
	return body;
}
