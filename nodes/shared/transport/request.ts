import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestMethods,
	INode,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IWebhookFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import type { CredentialName } from '../credentials';
import { STORE_CREDENTIAL } from '../credentials';
import type { Permit, RequestOutcome } from './concurrency';
import { AdaptiveConcurrency, DEFAULT_MAX_CONCURRENCY } from './concurrency';
import { Redactor } from '../redaction/secrets';

/**
 * The one module that talks HTTP. It owns: credentials and URL families, the
 * `{ok, data}` envelope, error mapping (without secrets), retries with shared
 * backoff, idempotency keys on the wire, and downloads of pre-signed URLs.
 */

export type HttpContext = IExecuteFunctions | ILoadOptionsFunctions | IHookFunctions | IWebhookFunctions;


/**
 * Path families of the spec:
 * - core:       {base}/v2/core/stores/{storeId}
 * - stores:     {base}/v2/stores/{storeId}
 * - storefront: {base}/v2/storefront (no authentication)
 * - vault:      {base}/v2/workspaces/{workspaceId}/vaults/{vaultId}
 * - base:       {base} (Custom API Call)
 */
export type Family = 'core' | 'stores' | 'storefront' | 'vault' | 'base';

export interface ApiRequest {
	family: Family;
	method: IHttpRequestMethods;
	/** Path below the family root, ids already substituted. */
	path: string;
	query?: IDataObject;
	body?: IDataObject | IDataObject[];
	idempotencyKey?: string;
	/** The route is inferred from the spec: a 404/405 says so. */
	inferred?: boolean;
	/** Extra words for a status code, e.g. which permission a 403 means. */
	hints?: Partial<Record<number, string>>;
	/** Longest Retry-After this request waits for, when shorter than the transport's. */
	maxRetryAfterMs?: number;
	/** A bare JSON array is a valid answer (a vault list, whose wrapper is not shown). */
	acceptArray?: boolean;
	itemIndex?: number;
}

export interface ApiResponse {
	data: unknown;
	status: number;
	headers: Record<string, string>;
	/** The service answered from its idempotency store (`Idempotent-Replay: true`). */
	replay: boolean;
}

export interface TransportOptions {
	/** Retries after the first attempt for 429, 5xx, 409 (idempotent) and dropped connections. */
	maxRetries: number;
	/** Deadline of each attempt, for the whole answer (headers and body), downloads included. */
	timeoutMs: number;
	/** Longest wait the node accepts from a Retry-After header before giving up. */
	maxRetryAfterMs: number;
}

export const DEFAULT_TRANSPORT_OPTIONS: TransportOptions = {
	maxRetries: 3,
	timeoutMs: 30_000,
	maxRetryAfterMs: 120_000,
};

interface ResolvedCredential {
	baseUrl: string;
	roots: Record<Family, string>;
	secrets: string[];
	/** The Authorization header value; set here, so the credential types need no `authenticate`. */
	authorization: string;
}

/** Failures where the request cannot have reached the service: safe to retry for any method. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/** Failures after which the service may have received (and applied) the request. */
const MAYBE_SENT_CODES = new Set([
	'ECONNRESET',
	'ECONNABORTED',
	'ETIMEDOUT',
	'ESOCKETTIMEDOUT',
	'EPIPE',
	'ERR_SOCKET_CONNECTION_TIMEOUT',
]);

/** Methods whose repetition has no further effect. */
const SAFE_TO_REPEAT = new Set(['GET', 'HEAD', 'DELETE']);

/** Same-origin redirects the node follows for one request, at most. */
const MAX_REDIRECTS = 3;

const MAY_HAVE_APPLIED = 'the service may have applied it; check before running again';

function enc(value: string): string {
	return encodeURIComponent(value);
}

function headerValue(headers: Record<string, unknown>, name: string): string | undefined {
	const value = headers[name] ?? headers[name.toLowerCase()];
	if (Array.isArray(value)) return String(value[0]);
	return value === undefined || value === null ? undefined : String(value);
}

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

/** A wait in words: seconds up to a day, then days, never a long bare number. */
export function formatWait(ms: number): string {
	const seconds = Math.ceil(ms / 1000);
	if (seconds <= 86400) return `${seconds} s`;
	if (seconds < 366 * 86400) return `about ${Math.round(seconds / 86400)} days`;
	return 'more than a year';
}

/** Exponential backoff with full jitter between half and all of the step. */
export function backoffMs(attempt: number, baseMs = 250, capMs = 8_000): number {
	const step = Math.min(capMs, baseMs * 2 ** attempt);
	return Math.round(step / 2 + Math.random() * (step / 2));
}

/** Reads a service message from an error body whose shape the spec does not show. */
export function serviceMessage(body: unknown): string | undefined {
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

type RawResponse = { body: unknown; headers: Record<string, unknown>; statusCode: number };

/** What happened to one request, for an error message that says what actually happened. */
interface Outcome {
	attempts: number;
	/** The longest wait a 429 asked for, when it was longer than the node waits. */
	refusedRetryAfterMs?: number;
	/** A write without Idempotency-Key that may have reached the service and was not repeated. */
	notRepeated?: boolean;
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

	/**
	 * Checked for every request as it will be sent, before it is sent (the
	 * run's money cap): an error returned refuses the request.
	 */
	guard?: (req: ApiRequest, url: URL) => NodeOperationError | undefined;

	constructor(
		private readonly ctx: HttpContext,
		private readonly credentialName: CredentialName,
		readonly options: TransportOptions = DEFAULT_TRANSPORT_OPTIONS,
		/** How many requests may be in flight, and the Retry-After pause; one per node run. */
		readonly pool: AdaptiveConcurrency = new AdaptiveConcurrency({ max: DEFAULT_MAX_CONCURRENCY }),
	) {}

	private async resolve(name: CredentialName): Promise<ResolvedCredential> {
		let pending = this.credentials.get(name);
		if (!pending) {
			pending = this.loadCredential(name);
			this.credentials.set(name, pending);
		}
		return await pending;
	}

	private async loadCredential(name: CredentialName): Promise<ResolvedCredential> {
		const c = (await this.ctx.getCredentials(name)) as IDataObject;
		const secretKey = String(c.secretKey ?? '');
		for (const secret of [secretKey, String(c.signingSecret ?? ''), String(c.previousSigningSecret ?? '')]) {
			if (secret !== '') this.secrets.add(secret);
		}
		const node = this.ctx.getNode();
		const baseUrl = checkBaseUrl(node, c.baseUrl);
		if (secretKey.trim() === '') {
			throw new NodeOperationError(node, 'Credential field "Secret Key" is empty');
		}
		if (/\s/.test(secretKey)) {
			throw new NodeOperationError(node, 'Credential field "Secret Key" contains spaces or line breaks', {
				description: 'Paste the key again without spaces, tabs or line breaks around or inside it.',
			});
		}
		if (name === STORE_CREDENTIAL) {
			const storeId = String(c.storeId ?? '');
			checkCredentialId(this.ctx, 'Store ID', storeId, 'shp_');
			if (!/^(sk|stk)_/.test(secretKey)) {
				throw new NodeOperationError(
					node,
					'Credential field "Secret Key" must start with sk_ (secret key) or stk_ (store token)',
				);
			}
			const noVault = `${baseUrl}/v2/workspaces/-/vaults/-`;
			return {
				baseUrl,
				secrets: [...this.secrets],
				authorization: `Bearer ${secretKey}`,
				roots: {
					core: `${baseUrl}/v2/core/stores/${enc(storeId)}`,
					stores: `${baseUrl}/v2/stores/${enc(storeId)}`,
					storefront: `${baseUrl}/v2/storefront`,
					vault: noVault,
					base: baseUrl,
				},
			};
		}
		const workspaceId = String(c.workspaceId ?? '');
		const vaultId = String(c.vaultId ?? '');
		// The spec gives these two the prefix only: the 12 to 48 length rule is the store path ids'.
		checkCredentialId(this.ctx, 'Workspace ID', workspaceId, 'wks_', false);
		checkCredentialId(this.ctx, 'Vault ID', vaultId, 'vlt_', false);
		const vault = `${baseUrl}/v2/workspaces/${enc(workspaceId)}/vaults/${enc(vaultId)}`;
		return {
			baseUrl,
			secrets: [...this.secrets],
			authorization: `Bearer ${secretKey}`,
			roots: { core: vault, stores: vault, storefront: `${baseUrl}/v2/storefront`, vault, base: baseUrl },
		};
	}

	/**
	 * A redactor that knows the credential's secrets (read if not read yet) and
	 * any extra secret values, e.g. the item's card data.
	 */
	async redactor(extra: Iterable<unknown> = []): Promise<Redactor> {
		await this.resolve(this.credentialName).catch(() => undefined);
		const redactor = new Redactor(this.secrets);
		for (const value of extra) redactor.addValue(value);
		return redactor;
	}

	/**
	 * What an answer tells the pool: 429 and 503 ask for less (and a Retry-After
	 * the node accepts pauses every request; a 429 without one pauses for the
	 * backoff), other 5xx say nothing, any other answer is a success.
	 */
	private verdict(response: RawResponse, attempt: number): { outcome: RequestOutcome; pauseMs?: number } {
		const status = response.statusCode;
		if (status === 429 || status === 503) {
			const after = parseRetryAfter(headerValue(response.headers ?? {}, 'retry-after'), Date.now());
			let pauseMs = after !== undefined && after <= this.options.maxRetryAfterMs ? after : undefined;
			if (status === 429 && after === undefined) pauseMs = backoffMs(attempt, 1000, 30_000);
			return { outcome: 'overload', pauseMs };
		}
		return { outcome: status >= 500 ? 'neutral' : 'ok' };
	}

	/** Shows a warning in the output pane of the run (node runs only; elsewhere it is dropped). */
	hint(message: string): void {
		const ctx = this.ctx as Partial<IExecuteFunctions>;
		ctx.addExecutionHints?.({ message, type: 'warning', location: 'outputPane' });
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
		const refusal = this.storeRouteRefusal(req, cred, url) ?? this.guard?.(req, parsed);
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
		let deadline: AbortSignal | undefined;
		const send = async (): Promise<RawResponse> => {
			// A whole-request deadline: a service that sends its answer a byte at a time cannot hold the node.
			deadline = AbortSignal.timeout(this.options.timeoutMs);
			options.abortSignal = this.withCancel(deadline);
			return (await this.ctx.helpers.httpRequest(options)) as RawResponse;
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
				const code = deadline?.aborted === true ? 'ETIMEDOUT' : networkCode(error);
				const notSent = code !== undefined && NOT_SENT_CODES.has(code);
				const maybeSent = !notSent && (code === undefined || MAYBE_SENT_CODES.has(code));
				if (retriesLeft && code !== undefined && (notSent || (maybeSent && repeatable))) {
					mayHaveReached ||= maybeSent;
					await sleep(backoffMs(attempt));
					continue;
				}
				throw await this.networkError(req, code, outcome, maybeSent && !repeatable);
			}

			const status = response.statusCode;
			const resHeaders = lowerCaseHeaders(response.headers);
			const body = response.body;

			if (status >= 300 && status < 400) {
				const target = redirectTarget(headerValue(resHeaders, 'location'), String(options.url));
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
				throw await this.redirectError(req, status, target, origin);
			}

			if (status >= 200 && status < 300) {
				return {
					data: await this.successData(req, status, resHeaders, body),
					status,
					headers: resHeaders,
					replay: headerValue(resHeaders, 'idempotent-replay') === 'true',
				};
			}

			if (status === 404 && req.method === 'DELETE' && mayHaveReached) {
				// The earlier attempt deleted it; its answer was lost on the way back.
				return { data: { deleted: true }, status, headers: resHeaders, replay: false };
			}

			if (status === 429) {
				const after = parseRetryAfter(headerValue(resHeaders, 'retry-after'), Date.now());
				const maxWait = Math.min(this.options.maxRetryAfterMs, req.maxRetryAfterMs ?? Infinity);
				if (after !== undefined && after > maxWait) {
					outcome.refusedRetryAfterMs = after;
				} else if (retriesLeft) {
					// The pool is paused already (see verdict); the next attempt waits for it.
					continue;
				}
			} else if (status >= 500) {
				if (!repeatable) outcome.notRepeated = true;
				else if (retriesLeft) {
					mayHaveReached = true;
					await sleep(backoffMs(attempt));
					continue;
				}
			} else if (status === 409 && req.idempotencyKey !== undefined && retriesLeft) {
				await sleep(backoffMs(attempt));
				continue;
			}
			throw await this.apiError(req, status, body, outcome);
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
		const kind = describeBody(body, headerValue(headers, 'content-type'));
		if (kind !== undefined) throw await this.shapeError(req, status, `got ${kind}`);
		const record = body as IDataObject;
		const isObject = !Array.isArray(body);
		if (isObject && record.ok === false) {
			throw await this.apiError(req, status, body, { attempts: 1 });
		}
		const enveloped = req.family === 'core' || req.family === 'stores' || req.family === 'storefront';
		if (enveloped && !(isObject && record.ok === true && 'data' in record)) {
			throw await this.shapeError(req, status, 'expected a JSON body of the form {ok: true, data}');
		}
		if (req.family === 'vault' && !isObject && !(req.acceptArray && Array.isArray(body))) {
			throw await this.shapeError(req, status, req.acceptArray ? 'expected a JSON object or array' : 'expected a JSON object');
		}
		return unwrap(body);
	}

	private async finish<E extends Error>(error: E): Promise<E> {
		return (await this.redactor()).error(error);
	}

	private async shapeError(req: ApiRequest, status: number, detail: string): Promise<NodeApiError> {
		return await this.finish(
			new NodeApiError(this.ctx.getNode(), { message: 'unexpected answer', httpCode: String(status) } as JsonObject, {
				message: `The service's answer was not what the API returns (HTTP ${status})`,
				description: `${req.method} ${req.family}${req.path}: ${detail}. Check the Base URL of the credential: it must be the API address, not a web page.`,
				httpCode: String(status),
				itemIndex: req.itemIndex,
			}),
		);
	}

	private async redirectError(
		req: ApiRequest,
		status: number,
		target: URL | undefined,
		origin: string,
	): Promise<NodeApiError> {
		const where = target === undefined ? 'an unreadable address' : target.origin === origin ? 'the same host' : `another host (${target.host})`;
		return await this.finish(
			new NodeApiError(this.ctx.getNode(), { message: 'redirect not followed', httpCode: String(status) } as JsonObject, {
				message: `The service answered with a redirect (HTTP ${status}) to ${where}; the node did not follow it`,
				description:
					`The node follows redirects only within ${origin}, and never re-sends a write for a 301/302/303, so the secret key is never sent anywhere else. ` +
					'Check the Base URL of the credential.',
				httpCode: String(status),
				itemIndex: req.itemIndex,
			}),
		);
	}

	private async networkError(
		req: ApiRequest,
		code: string | undefined,
		outcome: Outcome,
		ambiguousWrite: boolean,
	): Promise<NodeApiError> {
		const what = `${req.method} ${req.family}${req.path}`;
		// No error code in the message: n8n replaces messages that contain one with its own wording.
		const message = ambiguousWrite
			? `The connection failed after the request was sent: ${MAY_HAVE_APPLIED}`
			: 'Could not reach the service';
		const cause = code === 'ETIMEDOUT' ? ` (no complete answer within the Timeout of ${this.options.timeoutMs} ms)` : code ? ` (${code})` : '';
		const description = ambiguousWrite
			? `${what} was sent once${cause} and not repeated, because it carries no Idempotency-Key and repeating it could apply it twice.`
			: `${what} failed after ${outcome.attempts} attempt(s)${cause}. Check the Base URL and the network.`;
		return await this.finish(
			new NodeApiError(this.ctx.getNode(), { message } as JsonObject, {
				message,
				description,
				itemIndex: req.itemIndex,
			}),
		);
	}

	private async apiError(req: ApiRequest, status: number, body: unknown, outcome: Outcome): Promise<NodeApiError> {
		const fromService = serviceMessage(body);
		const keyed = req.idempotencyKey !== undefined;
		let base = STATUS_TEXT[status] ?? (status >= 500 ? 'The service failed' : 'The request failed');
		if (status === 409 && keyed) base = 'A request with the same Idempotency-Key is still being processed';
		if (status === 422 && keyed) base = 'The Idempotency-Key was already used with a different request body, or the service could not process the request';
		const parts: string[] = [];
		if (req.hints?.[status]) parts.push(req.hints[status] as string);
		if (req.inferred && (status === 404 || status === 405)) {
			parts.push(
				'If your account answers 404 here, use the Custom API Call resource with the route from your dashboard\'s API reference.',
			);
		}
		if (STATUS_DESCRIPTION[status]) parts.push(STATUS_DESCRIPTION[status]);
		const retried = outcome.attempts > 1 ? ` after ${outcome.attempts} attempts` : '';
		let message = `${base} (HTTP ${status})${retried}`;
		if (status === 429 && outcome.refusedRetryAfterMs !== undefined) {
			const asked = formatWait(outcome.refusedRetryAfterMs);
			const limit = formatWait(Math.min(this.options.maxRetryAfterMs, req.maxRetryAfterMs ?? Infinity));
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
		return await this.finish(
			new NodeApiError(
				this.ctx.getNode(),
				{ message: fromService ?? base, httpCode: String(status) } as JsonObject,
				{ message, description: parts.join(' '), httpCode: String(status), itemIndex: req.itemIndex },
			),
		);
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

	/** The deadline signal joined with n8n's cancel signal of the execution, when there is one. */
	private withCancel(deadline: AbortSignal): AbortSignal {
		const ctx = this.ctx as Partial<IExecuteFunctions>;
		let cancel: AbortSignal | undefined;
		try {
			cancel = ctx.getExecutionCancelSignal?.();
		} catch {
			cancel = undefined;
		}
		return cancel === undefined ? deadline : AbortSignal.any([deadline, cancel]);
	}

	/**
	 * GET of an absolute, pre-signed URL (report files): it is another origin by
	 * design, so it is sent through the plain helper, with no credential at all.
	 *
	 * Only https URLs on the Base URL's host or a host the user allows are fetched
	 * (redirects too, each checked again); plain http only to the Base URL's own
	 * loopback origin (the local sandbox). The Timeout is a deadline for the whole
	 * file, and a file larger than `maxBytes` is refused while it arrives.
	 */
	async download(url: string, itemIndex?: number, limits: DownloadLimits = {}): Promise<{ body: Buffer; contentType?: string }> {
		const cred = await this.resolve(this.credentialName);
		const maxBytes = limits.maxBytes ?? DEFAULT_MAX_DOWNLOAD_BYTES;
		let target = checkDownloadUrl(this.ctx.getNode(), url, cred.baseUrl, limits.allowedHosts ?? [], itemIndex);
		for (let attempt = 0, redirects = 0; ; attempt++) {
			const deadline = AbortSignal.timeout(this.options.timeoutMs);
			let response: RawResponse | undefined;
			let body = Buffer.alloc(0);
			let failure: unknown;
			try {
				response = (await this.ctx.helpers.httpRequest({
					method: 'GET',
					url: target.href,
					encoding: 'stream',
					returnFullResponse: true,
					ignoreHttpStatusErrors: true,
					disableFollowRedirect: true,
					timeout: this.options.timeoutMs,
					abortSignal: this.withCancel(deadline),
				})) as RawResponse;
				const status = response.statusCode;
				if (status >= 300 && status < 400) {
					discard(response.body);
					const location = headerValue(lowerCaseHeaders(response.headers), 'location');
					const next = redirectTarget(location, target.href);
					if (next === undefined || redirects >= MAX_REDIRECTS) {
						throw new NodeOperationError(this.ctx.getNode(), `Could not download the file (HTTP ${status} redirect not followed)`, { itemIndex });
					}
					redirects++;
					attempt--;
					target = checkDownloadUrl(this.ctx.getNode(), next.href, cred.baseUrl, limits.allowedHosts ?? [], itemIndex);
					continue;
				}
				if (status >= 300) {
					discard(response.body);
					body = Buffer.alloc(0);
				} else {
					body = await readCapped(this.ctx.getNode(), response, deadline, maxBytes, itemIndex);
				}
			} catch (error) {
				failure = error;
			}
			if (failure !== undefined) {
				// The node's own refusals (host rule, size, redirect) are final; network failures are retried.
				if (failure instanceof NodeOperationError) throw failure;
				const code = deadline.aborted ? 'ETIMEDOUT' : networkCode(failure);
				if (attempt < this.options.maxRetries) {
					await sleep(backoffMs(attempt));
					continue;
				}
				throw await this.finish(
					new NodeOperationError(this.ctx.getNode(), 'Could not download the file', {
						description:
							code === 'ETIMEDOUT'
								? `The file did not arrive completely within the Timeout of ${this.options.timeoutMs} ms.`
								: (code ?? 'network error'),
						itemIndex,
					}),
				);
			}
			if (response === undefined) continue;
			if (response.statusCode >= 500 && attempt < this.options.maxRetries) {
				await sleep(backoffMs(attempt));
				continue;
			}
			if (response.statusCode >= 300) {
				throw new NodeOperationError(
					this.ctx.getNode(),
					`Could not download the file (HTTP ${response.statusCode})`,
					{ description: 'Download URLs are valid for 5 minutes; run the operation again.', itemIndex },
				);
			}
			return { body, contentType: headerValue(lowerCaseHeaders(response.headers), 'content-type') };
		}
	}
}

export interface DownloadLimits {
	/** Hosts (besides the Base URL's) a download may come from: `host`, `host:port` or `*.domain`. */
	allowedHosts?: string[];
	/** Largest file accepted, in bytes. */
	maxBytes?: number;
}

export const DEFAULT_MAX_DOWNLOAD_BYTES = 100 * 1024 * 1024;

/** Ends a response body the node does not read. */
function discard(body: unknown): void {
	const stream = body as { destroy?: () => void } | null;
	if (stream !== null && typeof stream === 'object' && typeof stream.destroy === 'function') stream.destroy();
}

/** Reads a streamed body, refusing it once it grows past `maxBytes`, and ending it at the deadline. */
async function readCapped(
	node: INode,
	response: RawResponse,
	deadline: AbortSignal,
	maxBytes: number,
	itemIndex: number | undefined,
): Promise<Buffer> {
	const tooLarge = (): NodeOperationError =>
		new NodeOperationError(node, `The file is larger than the maximum of ${maxBytes} bytes ("Max File Size")`, {
			description: 'Raise "Max File Size (MB)" of the operation if the file is expected to be this large.',
			itemIndex,
		});
	const declared = Number(headerValue(lowerCaseHeaders(response.headers), 'content-length'));
	const body = response.body;
	if (Buffer.isBuffer(body)) {
		if (body.length > maxBytes) throw tooLarge();
		return body;
	}
	const stream = body as (AsyncIterable<Buffer | string> & { destroy?: (error?: Error) => void }) | undefined;
	if (stream === undefined || stream === null || typeof (stream as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] !== 'function') {
		const rest = body as ArrayBuffer | string | undefined;
		const buffer = rest instanceof ArrayBuffer ? Buffer.from(new Uint8Array(rest)) : Buffer.from(rest ?? '');
		if (buffer.length > maxBytes) throw tooLarge();
		return buffer;
	}
	if (Number.isFinite(declared) && declared > maxBytes) {
		stream.destroy?.();
		throw tooLarge();
	}
	const stop = (): void => stream.destroy?.(new Error('deadline'));
	deadline.addEventListener('abort', stop, { once: true });
	try {
		const chunks: Buffer[] = [];
		let size = 0;
		for await (const chunk of stream) {
			const piece = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
			size += piece.length;
			if (size > maxBytes) {
				stream.destroy?.();
				throw tooLarge();
			}
			chunks.push(piece);
		}
		if (deadline.aborted) throw new Error('deadline');
		return Buffer.concat(chunks);
	} finally {
		deadline.removeEventListener('abort', stop);
	}
}

/**
 * The download URL as the node may fetch it, or a clear error: https only (plain http only
 * on a local setup: a loopback http Base URL and a loopback file host), no user or password,
 * and a host that is the Base URL's or in `allowed` (`host` means the scheme's default port,
 * `host:port`, `*.domain` any subdomain).
 */
export function checkDownloadUrl(node: INode, raw: string, baseUrl: string, allowed: string[], itemIndex?: number): URL {
	let url: URL;
	try {
		url = new URL(raw);
	} catch {
		throw new NodeOperationError(node, 'The service returned a download URL that is not a valid address', { itemIndex });
	}
	const base = new URL(baseUrl);
	const refuse = (why: string): NodeOperationError =>
		new NodeOperationError(node, `The download URL the service returned is not allowed: ${why}`, {
			description: `Report files are fetched only over https from the Base URL's host (${base.host}) and from the hosts in "Allowed Download Hosts". Add the host there if you trust it; internal addresses are never needed.`,
			itemIndex,
		});
	if (url.username !== '' || url.password !== '') throw refuse('it carries a user name or password');
	const sameOrigin = url.origin === base.origin;
	// Plain http only on a local setup: the Base URL itself is loopback http, and so is the file's host.
	const local = base.protocol === 'http:' && LOOPBACK_HOST.test(base.hostname) && LOOPBACK_HOST.test(url.hostname);
	if (url.protocol === 'http:' && !local) throw refuse(`it is not https (${url.protocol}//${url.host})`);
	if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refuse(`it is not https (${url.protocol})`);
	if (sameOrigin || url.host === base.host) return url;
	const host = url.hostname.toLowerCase();
	const port = url.port;
	for (const entry of allowed) {
		const rule = entry.trim().toLowerCase();
		if (rule === '') continue;
		const [ruleHost, rulePort] = rule.startsWith('[') ? [rule.slice(0, rule.indexOf(']') + 1), rule.slice(rule.indexOf(']') + 2)] : rule.split(':');
		const portOk = rulePort === undefined || rulePort === '' ? port === '' : rulePort === port;
		if (!portOk) continue;
		if (ruleHost.startsWith('*.') ? host.endsWith(ruleHost.slice(1)) && host.length > ruleHost.length - 1 : host === ruleHost) return url;
	}
	throw refuse(`its host ${url.host} is neither the Base URL's host nor in "Allowed Download Hosts"`);
}

const LOOPBACK_HOST = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/**
 * The credential's Base URL: https://host[:port] (plain http only for
 * loopback hosts), without user, path, query or fragment. Returns the origin.
 */
export function checkBaseUrl(node: INode, raw: unknown): string {
	const field = 'Credential field "Base URL"';
	const text = typeof raw === 'string' ? raw.trim() : '';
	const example = 'Example: https://api.example.com (for the local sandbox, the URL `npm run sandbox` prints)';
	if (text === '') throw new NodeOperationError(node, `${field} is empty`, { description: example });
	if (/\s/.test(text)) {
		throw new NodeOperationError(node, `${field} contains spaces or line breaks`, { description: example });
	}
	let url: URL;
	try {
		url = new URL(text);
	} catch {
		throw new NodeOperationError(node, `${field} is not a valid address`, { description: example });
	}
	const loopback = LOOPBACK_HOST.test(url.hostname);
	if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
		throw new NodeOperationError(node, `${field} must start with https://`, {
			description: `Plain http:// would send the secret key unencrypted; it is allowed only for localhost, 127.x.x.x and [::1]. ${example}`,
		});
	}
	if (url.username !== '' || url.password !== '') {
		throw new NodeOperationError(node, `${field} must not contain a user name or password`, { description: example });
	}
	if (url.pathname !== '/' || url.search !== '' || url.hash !== '' || /[?#]/.test(text)) {
		throw new NodeOperationError(node, `${field} must be only the address (scheme, host and port), without a path, query or fragment`, {
			description: example,
		});
	}
	return url.origin;
}

function redirectTarget(location: string | undefined, from: string): URL | undefined {
	if (location === undefined || location === '') return undefined;
	try {
		return new URL(location, from);
	} catch {
		return undefined;
	}
}

/** Why a 2xx body is not JSON, or undefined when it is a JSON object or array. */
function describeBody(body: unknown, contentType: string | undefined): string | undefined {
	if (body !== null && typeof body === 'object' && !Buffer.isBuffer(body)) return undefined;
	const text = Buffer.isBuffer(body) ? body.toString('utf8') : typeof body === 'string' ? body : '';
	if (body === undefined || body === null || text.trim() === '') return 'an empty body';
	if (/html/i.test(contentType ?? '') || /^\s*</.test(text)) return 'an HTML page';
	return `a body that is not a JSON object${contentType ? ` (${contentType.split(';')[0]})` : ''}`;
}

/** A credential id: its prefix, and with `pathLength` (the store id) 12 to 48 characters. */
function checkCredentialId(ctx: HttpContext, field: string, value: string, prefix: string, pathLength = true): void {
	if (pathLength && (!value.startsWith(prefix) || value.length < 12 || value.length > 48)) {
		throw new NodeOperationError(
			ctx.getNode(),
			`Credential field "${field}" must start with ${prefix} and be 12 to 48 characters long`,
		);
	}
	if (!pathLength && (!value.startsWith(prefix) || value.length === prefix.length)) {
		throw new NodeOperationError(ctx.getNode(), `Credential field "${field}" must start with ${prefix}, followed by the ID`);
	}
}

function lowerCaseHeaders(headers: Record<string, unknown> | undefined): Record<string, string> {
	const out: Record<string, string> = {};
	for (const [key, value] of Object.entries(headers ?? {})) {
		out[key.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
	}
	return out;
}

function networkCode(error: unknown): string | undefined {
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
