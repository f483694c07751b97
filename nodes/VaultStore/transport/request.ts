import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IWebhookFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

/**
 * The one module that talks HTTP. It owns: credentials and URL families, the
 * `{ok, data}` envelope, error mapping (without secrets), retries with shared
 * backoff, idempotency keys on the wire, and downloads of pre-signed URLs.
 */

export type HttpContext = IExecuteFunctions | ILoadOptionsFunctions | IHookFunctions | IWebhookFunctions;

export const STORE_CREDENTIAL = 'vaultStoreStoreApi';
export const VAULT_CREDENTIAL = 'vaultStoreVaultApi';
export type CredentialName = typeof STORE_CREDENTIAL | typeof VAULT_CREDENTIAL;

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
	/** Per-attempt timeout. */
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
}

const RETRYABLE_NETWORK_CODES = new Set([
	'ECONNRESET',
	'ECONNABORTED',
	'ETIMEDOUT',
	'ESOCKETTIMEDOUT',
	'EPIPE',
	'ECONNREFUSED',
	'EAI_AGAIN',
	'ERR_SOCKET_CONNECTION_TIMEOUT',
]);

function trimSlash(url: string): string {
	return url.replace(/\/+$/, '');
}

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
	if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
	const date = Date.parse(trimmed);
	return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
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
	409: 'A request with the same Idempotency-Key is still being processed',
	413: 'The request body is too large',
	415: 'The service did not accept the content type',
	422: 'The Idempotency-Key was already used with a different request body',
	429: 'Rate limit reached',
};

const STATUS_DESCRIPTION: Record<number, string> = {
	401: 'Check the Secret Key of the credential, and that it belongs to this store or vault.',
	403: 'The key lacks the permission or scope this operation needs (see the field hints and the README).',
	409: 'The node waited and retried with the same key; raise "Max Retries" or try again later.',
	422: 'Send a new Idempotency-Key for a different request, or the same body to replay the original result.',
	429: 'The node retried with backoff; lower "Concurrency" or try again later.',
};

/**
 * One instance per node run: credentials are read once, the backoff gate is
 * shared by every item so a 429 slows the whole node down.
 */
export class Transport {
	private readonly credentials = new Map<CredentialName, Promise<ResolvedCredential>>();

	private pauseUntil = 0;

	constructor(
		private readonly ctx: HttpContext,
		private readonly credentialName: CredentialName,
		readonly options: TransportOptions = DEFAULT_TRANSPORT_OPTIONS,
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
		const baseUrl = trimSlash(String(c.baseUrl ?? ''));
		const node = this.ctx.getNode();
		if (!/^https?:\/\/[^\s/]+/.test(baseUrl)) {
			throw new NodeOperationError(node, 'Credential field "Base URL" must be an http(s) address', {
				description: 'Example: https://api.example.com (for the sandbox, the URL `npm run sandbox` prints)',
			});
		}
		const secretKey = String(c.secretKey ?? '');
		const secrets = [secretKey, String(c.signingSecret ?? '')].filter((s) => s.length >= 6);
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
				secrets,
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
		checkCredentialId(this.ctx, 'Workspace ID', workspaceId, 'wks_');
		checkCredentialId(this.ctx, 'Vault ID', vaultId, 'vlt_');
		if (secretKey === '') {
			throw new NodeOperationError(node, 'Credential field "Secret Key" is empty');
		}
		const vault = `${baseUrl}/v2/workspaces/${enc(workspaceId)}/vaults/${enc(vaultId)}`;
		return {
			baseUrl,
			secrets,
			roots: { core: vault, stores: vault, storefront: `${baseUrl}/v2/storefront`, vault, base: baseUrl },
		};
	}

	/** Replaces every known secret in a text, so error texts can never carry one. */
	private async redact(text: string): Promise<string> {
		const cred = await this.resolve(this.credentialName).catch(() => undefined);
		let out = text;
		for (const secret of cred?.secrets ?? []) out = out.split(secret).join('[redacted]');
		return out.replace(/\b(sk|stk|shk|psk)_[A-Za-z0-9]{6,}/g, '[redacted]');
	}

	private async waitForGate(): Promise<void> {
		for (;;) {
			const wait = this.pauseUntil - Date.now();
			if (wait <= 0) return;
			await sleep(wait);
		}
	}

	private slowDown(ms: number): void {
		this.pauseUntil = Math.max(this.pauseUntil, Date.now() + ms);
	}

	async url(family: Family, path: string): Promise<string> {
		const cred = await this.resolve(this.credentialName);
		return `${cred.roots[family]}${path}`;
	}

	async request(req: ApiRequest): Promise<ApiResponse> {
		const url = await this.url(req.family, req.path);
		const headers: IDataObject = {};
		if (req.idempotencyKey !== undefined) headers['Idempotency-Key'] = req.idempotencyKey;
		const options: IHttpRequestOptions = {
			method: req.method,
			url,
			qs: req.query,
			headers,
			json: true,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			timeout: this.options.timeoutMs,
		};
		if (req.body !== undefined && req.method !== 'GET') options.body = req.body;
		const authenticated = req.family !== 'storefront';

		for (let attempt = 0; ; attempt++) {
			await this.waitForGate();
			const retriesLeft = attempt < this.options.maxRetries;
			let response: { body: unknown; headers: Record<string, unknown>; statusCode: number };
			try {
				response = authenticated
					? await this.ctx.helpers.httpRequestWithAuthentication.call(
							this.ctx,
							this.credentialName,
							options,
						)
					: await this.ctx.helpers.httpRequest(options);
			} catch (error) {
				const code = networkCode(error);
				if (code && RETRYABLE_NETWORK_CODES.has(code) && retriesLeft) {
					await sleep(backoffMs(attempt));
					continue;
				}
				throw new NodeApiError(
					this.ctx.getNode(),
					{ message: code ?? 'request failed' } as JsonObject,
					{
						message: `Could not reach the service${code ? ` (${code})` : ''}`,
						description: await this.redact(
							`${req.method} ${req.family}${req.path} failed after ${attempt + 1} attempt(s). Check the Base URL and the network.`,
						),
						itemIndex: req.itemIndex,
					},
				);
			}

			const status = response.statusCode;
			const resHeaders = lowerCaseHeaders(response.headers);
			const body = response.body;
			const envelopeFailed =
				status < 300 && body !== null && typeof body === 'object' && (body as IDataObject).ok === false;

			if (status >= 200 && status < 300 && !envelopeFailed) {
				return {
					data: unwrap(body),
					status,
					headers: resHeaders,
					replay: headerValue(resHeaders, 'idempotent-replay') === 'true',
				};
			}

			if (retriesLeft) {
				if (status === 429) {
					const after = parseRetryAfter(headerValue(resHeaders, 'retry-after'), Date.now());
					const maxWait = Math.min(this.options.maxRetryAfterMs, req.maxRetryAfterMs ?? Infinity);
					if (after === undefined || after <= maxWait) {
						this.slowDown(after ?? backoffMs(attempt, 1000, 30_000));
						continue;
					}
				} else if (status >= 500 || (status === 409 && req.idempotencyKey !== undefined)) {
					await sleep(backoffMs(attempt));
					continue;
				}
			}
			throw await this.apiError(req, status, body);
		}
	}

	private async apiError(req: ApiRequest, status: number, body: unknown): Promise<NodeApiError> {
		const fromService = serviceMessage(body);
		const base = STATUS_TEXT[status] ?? (status >= 500 ? 'The service failed' : 'The request failed');
		const parts: string[] = [];
		if (req.hints?.[status]) parts.push(req.hints[status] as string);
		if (req.inferred && (status === 404 || status === 405)) {
			parts.push(
				'This route is inferred from the spec, which names the operation but does not show its path. ' +
					'The service may use another path: use the "Custom API Call" operation with the same credential.',
			);
		}
		if (status === 422 && req.idempotencyKey === undefined) parts.length = 0;
		const description = STATUS_DESCRIPTION[status];
		if (description && !(status === 422 && req.idempotencyKey === undefined)) parts.push(description);
		if (fromService) parts.push(`Service said: ${fromService}`);
		const message = await this.redact(`${base} (HTTP ${status})`);
		return new NodeApiError(
			this.ctx.getNode(),
			{ message: fromService ?? base, httpCode: String(status) } as JsonObject,
			{
				message,
				description: await this.redact(parts.join(' ')),
				httpCode: String(status),
				itemIndex: req.itemIndex,
			},
		);
	}

	/** GET of an absolute, pre-signed URL (report files): no credential is sent. */
	async download(url: string, itemIndex?: number): Promise<{ body: Buffer; contentType?: string }> {
		for (let attempt = 0; ; attempt++) {
			let response: { body: unknown; headers: Record<string, unknown>; statusCode: number };
			try {
				response = await this.ctx.helpers.httpRequest({
					method: 'GET',
					url,
					encoding: 'arraybuffer',
					returnFullResponse: true,
					ignoreHttpStatusErrors: true,
					timeout: this.options.timeoutMs,
				});
			} catch (error) {
				if (attempt < this.options.maxRetries) {
					await sleep(backoffMs(attempt));
					continue;
				}
				throw new NodeOperationError(this.ctx.getNode(), 'Could not download the file', {
					description: networkCode(error) ?? 'network error',
					itemIndex,
				});
			}
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
			const headers = lowerCaseHeaders(response.headers);
			const body = response.body;
			return {
				body: Buffer.isBuffer(body) ? body : Buffer.from(body as ArrayBuffer),
				contentType: headerValue(headers, 'content-type'),
			};
		}
	}
}

function checkCredentialId(ctx: HttpContext, field: string, value: string, prefix: string): void {
	if (!value.startsWith(prefix) || value.length < 12 || value.length > 48) {
		throw new NodeOperationError(
			ctx.getNode(),
			`Credential field "${field}" must start with ${prefix} and be 12 to 48 characters long`,
		);
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
