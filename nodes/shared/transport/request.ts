import type { IDataObject, IHttpRequestOptions } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import type { ApiRequest, ApiResponse, Family, Gate, TransportOptions } from './api';
import { DEFAULT_TRANSPORT_OPTIONS } from './api';
import type { CredentialName } from '../credentials';
import { STORE_CREDENTIAL } from '../credentials';
import type { Permit, RequestOutcome } from './concurrency';
import { AdaptiveConcurrency, DEFAULT_MAX_CONCURRENCY } from './concurrency';
import type { ResolvedCredential } from './credentialRoots';
import { loadCredential } from './credentialRoots';
import type { DownloadLimits } from './download';
import { downloadFile } from './download';
import type { Outcome } from './errors';
import { apiError, networkError, pastDeadlineError, redirectError, shapeError } from './errors';
import type { HttpContext, RawResponse } from './http';
import { readHeader } from '../headers';
import { moneyOutcomeOf } from './outcomes';
import {
	backoffMs,
	describeBody,
	lowerCaseHeaders,
	MAX_REDIRECTS,
	MAYBE_SENT_CODES,
	networkCode,
	NOT_SENT_CODES,
	parseRetryAfter,
	redirectTarget,
	SAFE_TO_REPEAT,
	unwrap,
} from './http';
import type { Deadline } from './deadlines';
import { Deadlines } from './deadlines';
import type { FileCardNumbers } from '../redaction/files';
import { gateFile } from '../redaction/files';
import { Redactor } from '../redaction/secrets';

/**
 * The request and its retries: every API call of both nodes goes through `Transport.request`,
 * which passes it through the request gate (when the run has one), sends it with the
 * credential's Authorization, retries what is safe to retry, follows same-origin redirects and
 * returns the unwrapped `{ok, data}`. Credentials and URL roots (credentialRoots.ts), error
 * wording (errors.ts), downloads (download.ts) and the HTTP helpers (http.ts) are their own files.
 */

export type { HttpContext } from './http';
export type { DownloadLimits } from './download';
export { DEFAULT_MAX_DOWNLOAD_BYTES, checkDownloadUrl } from './download';
export { checkBaseUrl } from './credentialRoots';
export { formatWait, serviceMessage } from './errors';
export { backoffMs, MIN_RETRY_PAUSE_MS, parseRetryAfter, unwrap } from './http';
export type { ApiRequest, ApiResponse, Family, Gate, TransportOptions } from './api';
export { DEFAULT_TRANSPORT_OPTIONS } from './api';

/**
 * An answer that says nothing of what the service did with a money write sent under its
 * Idempotency-Key (409 "still running", a gateway's 502 or 504: outcomes.ts). A repeat under the
 * same key is answered from the service's store (the spec stores every answer but a 5xx of its
 * own), so it is repeated within the request.
 */
function unanswered(status: number, req: ApiRequest): boolean {
	return req.idempotencyKey !== undefined && moneyOutcomeOf(status) === 'unanswered';
}

/** Errors after which a money write may or may not have been applied (see ApiRequest.money). */
const unknownOutcomes = new WeakSet<object>();

/** The request failed in a way that does not tell whether the service applied it. */
export function isUnknownOutcome(error: unknown): boolean {
	return typeof error === 'object' && error !== null && unknownOutcomes.has(error);
}

/** An attempt ends at most this long after its Timeout (the deadlines' look, DEADLINE ticks). */
export const ATTEMPT_SLACK_MS = 2_000;

/** A money write's next attempt could not end by its deadline (ApiRequest.sendBy): not started. */
class PastDeadline extends Error {}

function unknownOutcome<E extends Error>(error: E): E {
	unknownOutcomes.add(error);
	return error;
}

/**
 * One instance per node run: credentials are read once, and every request
 * goes through one adaptive concurrency pool shared by every item, so a 429
 * or 503 slows the whole node down and a Retry-After pauses all of it.
 */
export class Transport {
	private readonly credentials = new Map<CredentialName, Promise<ResolvedCredential>>();

	/** Secrets of every credential read, kept even when a credential fails its checks. */
	private readonly secrets = new Set<string>();

	/** The route families each item's requests went to (the output gate's policy is decided from them). */
	readonly familiesSent = new Map<number | undefined, Set<Family>>();

	/** The whole-request deadline of every attempt (and n8n's cancel of the execution). */
	private readonly deadlines: Deadlines;

	constructor(
		private readonly ctx: HttpContext,
		private readonly credentialName: CredentialName,
		readonly options: TransportOptions = DEFAULT_TRANSPORT_OPTIONS,
		/** How many requests may be in flight, and the Retry-After pause; one per node run. */
		readonly pool: AdaptiveConcurrency = new AdaptiveConcurrency({ max: DEFAULT_MAX_CONCURRENCY }),
		/** The request gate every request passes (node runs; the trigger's own calls have none). */
		private readonly gate?: Gate,
	) {
		this.deadlines = new Deadlines(ctx, options.timeoutMs);
	}

	private async resolve(name: CredentialName): Promise<ResolvedCredential> {
		let pending = this.credentials.get(name);
		if (!pending) {
			pending = loadCredential(this.ctx, name, this.secrets);
			this.credentials.set(name, pending);
		}
		return await pending;
	}

	/**
	 * A redactor that knows the credential's secrets (read if not read yet) and
	 * any extra secret values, e.g. the item's card data.
	 */
	async redactor(extra: Iterable<unknown> = []): Promise<Redactor> {
		await this.resolve(this.credentialName).catch(() => undefined);
		return Redactor.withValues(this.secrets, extra);
	}

	/** The redactor of the secrets read so far, without waiting (after a request, the credential's). */
	redactorNow(): Redactor {
		return Redactor.withValues(this.secrets);
	}

	/**
	 * What an answer tells the pool: 429 and 503 ask for less (and a Retry-After
	 * the node accepts pauses every request; a 429 without one pauses for the
	 * backoff), other 5xx say nothing, any other answer is a success.
	 */
	private verdict(response: RawResponse, attempt: number): { outcome: RequestOutcome; pauseMs?: number } {
		const status = response.statusCode;
		if (status === 429 || status === 503) {
			const after = parseRetryAfter(readHeader(response.headers ?? {}, 'retry-after'), Date.now());
			let pauseMs = after !== undefined && after <= this.options.maxRetryAfterMs ? after : undefined;
			if (status === 429 && after === undefined) pauseMs = backoffMs(attempt, 1000, 30_000);
			return { outcome: 'overload', pauseMs };
		}
		return { outcome: status >= 500 ? 'neutral' : 'ok' };
	}

	/** Where this transport's warnings go: the node run's hints, which pass the output gate (elsewhere they are dropped). */
	hints?: (message: string) => void;

	/** Shows a warning in the output pane of the run (node runs only; elsewhere it is dropped). */
	hint(message: string): void {
		this.hints?.(message);
	}

	async url(family: Family, path: string): Promise<string> {
		const cred = await this.resolve(this.credentialName);
		return `${cred.roots[family]}${path}`;
	}

	/**
	 * Sends one API request. Retries: a rate limit (429) always, since the
	 * service refused it; a failure before anything was sent always; a 5xx, a
	 * dropped connection or a timeout only for GET/HEAD/DELETE and requests that
	 * carry an Idempotency-Key. Redirects are followed only within the origin of
	 * the credential's Base URL, so the key never goes anywhere else.
	 *
	 * Every attempt holds a slot of the pool while it is sent; `permit` is a slot
	 * the caller already holds (Return All takes one before it picks a page).
	 */
	async request(req: ApiRequest, permit?: Permit): Promise<ApiResponse> {
		if (this.gate === undefined) return await this.send(req, permit);
		const gate = this.gate;
		let held = permit;
		let admission: Awaited<ReturnType<Gate['admit']>> | undefined;
		try {
			// The gate may read first (a session's total, a refund's currency) through this transport: the
			// caller's slot is given back for it (with one slot, the read would wait for it forever) and
			// the write then waits for one of its own.
			admission = await gate.admit(
				req,
				async (read) => {
					if (held) this.pool.release(held, 'neutral');
					held = undefined;
					return await this.send(read);
				},
				async () => (await this.resolve(this.credentialName)).place,
			);
		} finally {
			// Refused before sending: give back the slot the caller held.
			if (admission === undefined && held) this.pool.release(held, 'neutral');
		}
		if (admission.skip !== undefined) {
			if (held) this.pool.release(held, 'neutral');
			return admission.skip;
		}
		const ticket = admission.ticket;
		let res: ApiResponse;
		try {
			res = await this.send(req, held);
		} catch (error) {
			throw await gate.abandon(ticket, error);
		}
		await gate.settle(ticket, res);
		return res;
	}

	private async send(req: ApiRequest, permit?: Permit): Promise<ApiResponse> {
		this.familiesSent.set(req.itemIndex, (this.familiesSent.get(req.itemIndex) ?? new Set<Family>()).add(req.family));
		let cred: ResolvedCredential | undefined;
		try {
			cred = await this.resolve(this.credentialName);
		} finally {
			// The credential failed its checks: give back the slot the caller held.
			if (cred === undefined && permit) this.pool.release(permit, 'neutral');
		}
		const url = `${cred.roots[req.family]}${req.path}`;
		const parsed = new URL(url);
		const origin = parsed.origin;
		// Refused before sending: give back the slot the caller held.
		const refusal = this.storeRouteRefusal(req, cred, url);
		if (refusal !== undefined) {
			if (permit) this.pool.release(permit, 'neutral');
			throw refusal;
		}
		const headers: IDataObject = {};
		// The paylink checkout (storefront) needs no authentication and gets none.
		if (req.family !== 'storefront') headers.Authorization = cred.authorization;
		if (req.idempotencyKey !== undefined) headers['Idempotency-Key'] = req.idempotencyKey;
		const options: IHttpRequestOptions = {
			method: req.method,
			url,
			qs: req.query,
			headers,
			json: true,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			disableFollowRedirect: true,
			timeout: this.options.timeoutMs,
		};
		if (req.body !== undefined && req.method !== 'GET') options.body = req.body;
		const repeatable = SAFE_TO_REPEAT.has(req.method) || req.idempotencyKey !== undefined;
		const outcome: Outcome = { attempts: 0 };
		/** An earlier attempt may have reached the service (its answer was lost or a 5xx). */
		let mayHaveReached = false;
		let deadline: Deadline | undefined;
		const send = async (): Promise<RawResponse> => {
			// A money write's deadline: an attempt that could end after it is not started.
			if (req.sendBy !== undefined && Date.now() + this.options.timeoutMs + ATTEMPT_SLACK_MS > req.sendBy) throw new PastDeadline();
			// A whole-request deadline: a service that sends its answer a byte at a time cannot hold the node.
			deadline = this.deadlines.start();
			options.abortSignal = deadline.signal;
			try {
				return (await this.ctx.helpers.httpRequest(options)) as RawResponse;
			} finally {
				deadline.done();
			}
		};
		let held = permit;

		for (let attempt = 0, redirects = 0; ; attempt++) {
			const retriesLeft = attempt < this.options.maxRetries;
			outcome.attempts++;
			let response: RawResponse;
			const slot = held;
			held = undefined;
			try {
				response = await this.pool.run(send, (r) => this.verdict(r, attempt), { held: slot, retry: attempt > 0 });
			} catch (error) {
				if (error instanceof PastDeadline) {
					// Not sent: an earlier attempt's outcome stays unknown, or nothing reached the service.
					outcome.attempts--;
					const failure = await this.finish(pastDeadlineError(this.ctx.getNode(), req, outcome, this.options.timeoutMs));
					throw mayHaveReached ? unknownOutcome(failure) : failure;
				}
				const code = deadline?.timedOut === true ? 'ETIMEDOUT' : networkCode(error);
				const notSent = code !== undefined && NOT_SENT_CODES.has(code);
				const maybeSent = !notSent && (code === undefined || MAYBE_SENT_CODES.has(code));
				// A money write is repeated when it provably was not written, or (unanswered: a timeout,
				// a connection dropped after it was written) under its Idempotency-Key, which the
				// service answers with what it did (see ApiRequest.money).
				if (retriesLeft && code !== undefined && (notSent || (maybeSent && repeatable && (!req.money || req.idempotencyKey !== undefined)))) {
					mayHaveReached ||= maybeSent;
					await sleep(backoffMs(attempt));
					continue;
				}
				const failure = await this.finish(networkError(this.ctx.getNode(), req, code, outcome, maybeSent && !repeatable, this.options.timeoutMs));
				throw req.money && (!notSent || mayHaveReached) ? unknownOutcome(failure) : failure;
			}

			const status = response.statusCode;
			const resHeaders = lowerCaseHeaders(response.headers);
			const body = response.body;

			if (status >= 300 && status < 400) {
				const target = redirectTarget(readHeader(resHeaders, 'location'), String(options.url));
				const follow =
					target !== undefined &&
					target.origin === origin &&
					redirects < MAX_REDIRECTS &&
					(status === 307 || status === 308 || req.method === 'GET' || req.method === 'HEAD');
				if (follow) {
					redirects++;
					attempt--;
					options.url = target.href;
					delete options.qs;
					continue;
				}
				throw await this.finish(redirectError(this.ctx.getNode(), req, status, target, origin));
			}

			if (status >= 200 && status < 300) {
				const replay = readHeader(resHeaders, 'idempotent-replay') === 'true';
				if (req.money) {
					// Applied, whatever the body: what it made is not known when the body is not the API's.
					const kind = status === 204 ? undefined : describeBody(body, readHeader(resHeaders, 'content-type'));
					const envelope = req.family === 'vault' || (typeof body === 'object' && body !== null && (body as IDataObject).ok === true && 'data' in (body as IDataObject));
					if (kind !== undefined || !envelope) return { data: undefined, status, headers: resHeaders, replay, unreadable: kind ?? 'a body without {ok: true, data}' };
				}
				return { data: await this.successData(req, status, resHeaders, body), status, headers: resHeaders, replay };
			}

			if (status === 404 && req.method === 'DELETE' && mayHaveReached) {
				// The earlier attempt deleted it; its answer was lost on the way back.
				return { data: { deleted: true }, status, headers: resHeaders, replay: false };
			}

			if (status === 429) {
				const after = parseRetryAfter(readHeader(resHeaders, 'retry-after'), Date.now());
				const maxWait = Math.min(this.options.maxRetryAfterMs, req.maxRetryAfterMs ?? Infinity);
				if (after !== undefined && after > maxWait) {
					outcome.refusedRetryAfterMs = after;
				} else if (retriesLeft) {
					// The pool is paused already (see verdict); the next attempt waits for it.
					continue;
				}
			} else if (req.money && status >= 500 && moneyOutcomeOf(status) === 'notApplied') {
				// The service says it did nothing: repeated, as a 429.
				if (retriesLeft) {
					await sleep(backoffMs(attempt));
					continue;
				}
			} else if (status >= 500) {
				if (!repeatable) outcome.notRepeated = true;
				else if (retriesLeft && (!req.money || unanswered(status, req))) {
					mayHaveReached = true;
					await sleep(backoffMs(attempt));
					continue;
				}
			} else if (status === 409 && req.idempotencyKey !== undefined && retriesLeft) {
				await sleep(backoffMs(attempt));
				continue;
			}
			const failure = await this.finish(apiError(this.ctx.getNode(), req, status, body, outcome, this.options.maxRetryAfterMs));
			// Failed (the spec's service does not store a 5xx or 408: a repeat re-executes), or unanswered on every try (outcomes.ts).
			const unknown = req.money && (moneyOutcomeOf(status) === 'failed' || unanswered(status, req) || mayHaveReached);
			throw unknown ? unknownOutcome(failure) : failure;
		}
	}

	/**
	 * The data of a 2xx answer. Store routes answer `{ok: true, data}`, vault
	 * routes a JSON object; anything else (an HTML page, an empty or non-JSON
	 * body, `{ok: false}`) is not what the API returns and fails clearly.
	 */
	private async successData(
		req: ApiRequest,
		status: number,
		headers: Record<string, string>,
		body: unknown,
	): Promise<unknown> {
		if (status === 204) return undefined;
		const kind = describeBody(body, readHeader(headers, 'content-type'));
		if (kind !== undefined) throw await this.finish(shapeError(this.ctx.getNode(), req, status, `got ${kind}`));
		const record = body as IDataObject;
		const isObject = !Array.isArray(body);
		if (isObject && record.ok === false) {
			throw await this.finish(apiError(this.ctx.getNode(), req, status, body, { attempts: 1 }, this.options.maxRetryAfterMs));
		}
		const enveloped = req.family === 'core' || req.family === 'stores' || req.family === 'storefront';
		if (enveloped && !(isObject && record.ok === true && 'data' in record)) {
			throw await this.finish(shapeError(this.ctx.getNode(), req, status, 'expected a JSON body of the form {ok: true, data}'));
		}
		if (req.family === 'vault' && !isObject && !(req.acceptArray && Array.isArray(body))) {
			throw await this.finish(shapeError(this.ctx.getNode(), req, status, req.acceptArray ? 'expected a JSON object or array' : 'expected a JSON object'));
		}
		return unwrap(body);
	}

	private async finish<E extends Error>(error: E): Promise<E> {
		return (await this.redactor()).error(error);
	}

	/**
	 * GET of an absolute, pre-signed URL (report files), with no credential at all (download.ts).
	 * `cardNumbers`: a file holding card numbers is refused (the default), or delivered with them masked.
	 */
	async download(
		url: string,
		itemIndex?: number,
		limits: DownloadLimits = {},
		cardNumbers: FileCardNumbers = 'refuse',
	): Promise<{ body: Buffer; contentType?: string; cardNumbersMasked: number }> {
		const cred = await this.resolve(this.credentialName);
		const file = await downloadFile(
			this.ctx,
			this.options,
			() => this.deadlines.start(),
			cred.baseUrl,
			async (error) => await this.finish(error),
			url,
			itemIndex,
			limits,
		);
		// The output gate for files: a known secret, a full card number or a security code never reaches binary data as it is.
		const gated = gateFile(file.body, file.contentType, await this.redactor(), cardNumbers);
		if (!gated.ok) {
			throw new NodeOperationError(this.ctx.getNode(), `The downloaded file holds ${gated.findings.join(' and ')}: it was not stored`, {
				itemIndex,
				description:
					gated.notMasked !== undefined
						? `"Card Numbers in Files" is "Mask Them", but ${gated.notMasked}. Nothing was written to binary data.`
						: "The service's report files carry no keys, no full card numbers and no security codes, so this file came from a service that misbehaves. Nothing was written to binary data; contact the service's support with the report id." +
							(gated.findings.every((finding) => finding.startsWith('a full card number'))
								? ' If the numbers are expected in your data (a gift card number in order metadata), set "Card Numbers in Files" to "Mask Them" to receive the file with each one masked.'
								: ''),
			});
		}
		return { body: gated.body, contentType: file.contentType, cardNumbersMasked: gated.cardNumbersMasked };
	}

	/** The store key goes to this store's routes only (never a vault or platform route). */
	private storeRouteRefusal(req: ApiRequest, cred: ResolvedCredential, url: string): NodeOperationError | undefined {
		if (this.credentialName !== STORE_CREDENTIAL || req.family !== 'base') return undefined;
		const roots = [cred.roots.core, cred.roots.stores, cred.roots.storefront, `${cred.baseUrl}/v2/checkouts`];
		if (roots.some((root) => url === root || url.startsWith(`${root}/`))) return undefined;
		return new NodeOperationError(this.ctx.getNode(), 'The store credential only reaches this store\'s routes', {
			itemIndex: req.itemIndex,
			description:
				'Nothing was sent. Paths below /v2/core/stores/{storeId}/, /v2/stores/{storeId}/, /v2/storefront/ or /v2/checkouts are store routes; vault routes need the vault credential.',
		});
	}
}
