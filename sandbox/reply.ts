/**
 * Replies and errors. A handler returns a Reply (usually via ok() or plain()) or throws an
 * HttpError; the server renders the error in the envelope of the API family:
 *   store API:  {ok: false, error: {code, message, field?}}
 *   vault API:  {error: {code, message, field?}}
 */

export interface Reply {
	status: number;
	body: unknown;
	headers?: Record<string, string>;
}

/** Store API success: `{ok: true, data}`. */
export function ok(data: unknown, status = 200): Reply {
	return { status, body: { ok: true, data } };
}

/** A body without envelope (vault API, dev routes). */
export function plain(body: unknown, status = 200): Reply {
	return { status, body };
}

export class HttpError extends Error {
	constructor(
		readonly status: number,
		readonly code: string,
		message: string,
		readonly field?: string,
		readonly headers?: Record<string, string>,
	) {
		super(message);
	}
}

/** 400 naming the offending field. */
export const badRequest = (field: string, message: string) =>
	new HttpError(400, 'validation_error', `${field}: ${message}`, field);
export const notFound = (what: string) => new HttpError(404, 'not_found', `${what} not found`);
export const unauthorized = (message = 'Missing or invalid API key') =>
	new HttpError(401, 'unauthorized', message);
export const forbidden = (code: string, message: string) => new HttpError(403, code, message);
export const conflict = (code: string, message: string) => new HttpError(409, code, message);
export const unprocessable = (code: string, message: string) => new HttpError(422, code, message);
export const tooLarge = (message = 'Request body too large') => new HttpError(413, 'payload_too_large', message);
export const rateLimited = (retryAfterSeconds: number) =>
	new HttpError(429, 'rate_limited', 'Too many requests', undefined, {
		'Retry-After': String(Math.max(0, Math.ceil(retryAfterSeconds))),
	});

export type ErrorStyle = 'store' | 'vault';

export function errorReply(err: HttpError, style: ErrorStyle): Reply {
	const error: Record<string, string> = { code: err.code, message: err.message };
	if (err.field) error.field = err.field;
	return {
		status: err.status,
		body: style === 'vault' ? { error } : { ok: false, error },
		headers: err.headers,
	};
}

export function internalError(): HttpError {
	return new HttpError(500, 'internal_error', 'Internal server error');
}
