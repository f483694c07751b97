import type { IDataObject, IHttpRequestMethods } from 'n8n-workflow';

/**
 * What a request and its answer are, what the request gate is, and the transport's options: the
 * shapes `Transport.request` (request.ts) takes and gives, on their own so each side reads them
 * without the sending.
 */

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
	/** The request wants an Idempotency-Key: the request gate chooses it (option, event or execution). */
	idempotent?: boolean;
	/** Longest Retry-After this request waits for, when shorter than the transport's. */
	maxRetryAfterMs?: number;
	/** A bare JSON array is a valid answer (a vault list, whose wrapper is not shown). */
	acceptArray?: boolean;
	/**
	 * A money write (set by the request gate): repeated after answers that say the service did
	 * nothing (429, 503, a connection that failed before the request was written), and, under its
	 * Idempotency-Key, after no answer (a timeout, a connection dropped after the request was
	 * written, a gateway's 502 or 504, 409 "still running"): the service answers a repeat with
	 * what it did, or does it now, once. Never after a 500 or 408 (an error the service does not
	 * store: a repeat would run it again). What is left unknown when the repeats run out is
	 * `isUnknownOutcome`; a 2xx whose body cannot be read is a success.
	 */
	money?: boolean;
	/**
	 * A money write's deadline (ms since the epoch; set by the request gate from the once record's
	 * claim): no attempt starts that could end after it, so the claim is never past its deadline
	 * while an attempt may still reach the service.
	 */
	sendBy?: number;
	itemIndex?: number;
}

export interface ApiResponse {
	data: unknown;
	status: number;
	headers: Record<string, string>;
	/** The service answered from its idempotency store (`Idempotent-Replay: true`). */
	replay: boolean;
	/** A money write answered 2xx with a body that is not the API's (it was applied; what it made is not known). */
	unreadable?: string;
}

/**
 * The request gate (nodes/shared/money): every request passes `admit` as it will be sent, before
 * it is sent; a success is `settle`d, a failure `abandon`ed.
 */
export interface Gate<T = unknown> {
	/** `place`: the account the credential reaches (ResolvedCredential.place). */
	admit(req: ApiRequest, send: (req: ApiRequest) => Promise<ApiResponse>, place: () => Promise<string>): Promise<{ skip?: ApiResponse; ticket?: T }>;
	settle(ticket: T | undefined, res: ApiResponse): Promise<void>;
	/** The write failed: `error` is what the transport threw; returns what the item fails with. */
	abandon(ticket: T | undefined, error: unknown): Promise<unknown>;
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
