/**
 * Route API of the sandbox: what a resource module sees.
 *
 * Adding a resource = adding a file `sandbox/resources/<name>.ts` that exports
 * `register(app: SandboxApp)`. The server loads every module in that folder at start.
 *
 *   import { SandboxApp, ok, paginate, core, stores, both, notFound, v } from '../app';
 *
 *   export function register(app: SandboxApp) {
 *     app.route('GET', core('/orders/:orderId'), (ctx) => {
 *       const order = ctx.state.orders.find((o) => o.id === ctx.params.orderId);
 *       if (!order) throw notFound('Order');
 *       return ok(order);
 *     });
 *     app.route('POST', both('/payouts'), handler, { idempotency: 'honoured', scope: 'PAYOUTS_WRITE' });
 *   }
 *
 * Paths: `core(sub)` = /v2/core/stores/:storeId + sub, `stores(sub)` = /v2/stores/:storeId + sub,
 * `both(sub)` = both of them, `vaultPath(sub)` = /v2/workspaces/:workspaceId/vaults/:vaultId + sub.
 * A path may be a string or an array of strings. `:name` segments become ctx.params.name.
 * Trailing slashes are ignored on both sides (`/orders/` and `/orders` are the same route), except
 * in the disagreeing mode (disagree.ts), whose routing is strict: the trailing slash as registered,
 * and a route registered under both roots answers under the one disagree.STRICT_ROOTS names (a
 * route the spec does not place: the one disagree.UNPLACED_ROOTS names, the other than the node's).
 *
 * Route options (all optional):
 *   auth        'store' (default) | 'vault' | 'none'. 'store' needs `Authorization: Bearer sk_/stk_`
 *               bound to :storeId (401 bad key, 404 unknown store); 'vault' needs a vault key bound
 *               to :workspaceId and :vaultId.
 *   scope       store scope the key must hold (403 `missing_scope` otherwise).
 *   permission  vault permission the key must hold, e.g. 'tokens:reveal' (403 otherwise).
 *   idempotency 'required' (400 without Idempotency-Key) | 'honoured' (used when sent).
 *               Replays, 409 while running, 422 on a different body, 24 h retention, 5xx not stored.
 *               Record committed effects with ctx.commit(kind, fields) -> sandbox.ledger.
 *   rateLimit   a limiter from app.rateLimit(name, perMinute): 429 + Retry-After when exceeded.
 *   loopbackOnly  reject callers not on 127.0.0.1/::1 (403).
 *
 * Params whose names appear in validate.ID_PREFIXES (storeId, orderId, webhookId, ...) and every
 * other param ending in `Id` are checked before the handler: 400 naming the param when the
 * prefix or the length 12..48 is wrong (for the ids of validate.PREFIX_ONLY: the prefix only).
 *
 * Handlers return a Reply — ok(data, status?) for the store envelope, plain(body, status?) for
 * vault/dev bodies — or throw an HttpError (badRequest(field, msg), notFound(what), conflict(),
 * unprocessable(), forbidden(), rateLimited(), new HttpError(status, code, msg)). Any other
 * exception becomes a 500 envelope. The error envelope follows the path family (vault paths get
 * `{error}`, everything else `{ok: false, error}`).
 *
 * The body is parsed JSON (`{}` when empty); non-JSON content types get 415, malformed JSON 400,
 * bodies over 1 MiB 413, a JSON body that is not an object 400.
 *
 * Helpers: paginate(items, ctx.query) -> {items, pagination}; v.* validators (validate.ts);
 * app.emit(eventType, data) delivers webhooks; app.collection(name, init) for new seeded data;
 * app.newId(prefix); ctx.now()/ctx.iso() read the sandbox clock.
 */
import type { DisagreeMode } from './disagree';
import { STRICT_ROOTS, UNPLACED_ROOTS } from './disagree';
import { HttpError, Reply, badRequest } from './reply';
import type { SandboxState } from './state';
import type { Clock, Rng } from './util';
import type { Vault } from './vault';
import * as v from './validate';

export * from './reply';
export { v };

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface StoreAuth {
	kind: 'store';
	storeId: string;
	keyType: 'secret' | 'token';
	scopes: ReadonlySet<string>;
	/** Stable non-secret id of the credential (for logs, idempotency and rate-limit buckets). */
	keyId: string;
}
export interface VaultAuth {
	kind: 'vault';
	workspaceId: string;
	vaultId: string;
	permissions: ReadonlySet<string>;
	keyId: string;
}
export type Auth = StoreAuth | VaultAuth;

export interface Ctx {
	method: Method;
	/** Request path without query string (trailing slash removed). */
	path: string;
	params: Record<string, string>;
	query: Record<string, unknown>;
	body: Record<string, unknown>;
	headers: Record<string, string | string[] | undefined>;
	/** Set for routes with auth 'store' or 'vault'. */
	auth?: Auth;
	idempotencyKey?: string;
	state: SandboxState;
	app: SandboxApp;
	now(): number;
	iso(ms?: number): string;
	/** Appends an effect to sandbox.ledger ({kind, key: Idempotency-Key, ...fields}). */
	commit(kind: LedgerKind, fields: Record<string, unknown>): void;
}

export type Handler = (ctx: Ctx) => Reply | Promise<Reply>;

export interface RouteOptions {
	auth?: 'store' | 'vault' | 'none';
	scope?: string;
	permission?: string;
	idempotency?: 'required' | 'honoured';
	rateLimit?: RateLimiter;
	loopbackOnly?: boolean;
}

export type LedgerKind = 'refund' | 'payout' | 'checkoutPay' | 'tokenCreate' | (string & {});
export interface LedgerEntry {
	kind: LedgerKind;
	key: string | undefined;
	at: string;
	[field: string]: unknown;
}

export interface SandboxApp {
	route(method: Method, path: string | string[], handler: Handler, options?: RouteOptions): void;
	rateLimit(name: string, perMinute: number): RateLimiter;
	/** Delivers an event to every webhook endpoint subscribed to it; returns the message ids. */
	emit(eventType: string, data: unknown): string[];
	/** Delivers one event to one endpoint regardless of its subscription (test deliveries). */
	deliver(endpointId: string, eventType: string, data: unknown): string;
	/** A named collection kept in state.collections, created by `init` on first use (seeded rng). */
	collection<T>(name: string, init?: (rng: Rng) => T[]): T[];
	newId(prefix: string): string;
	readonly state: SandboxState;
	readonly clock: Clock;
	readonly vault: Vault;
	readonly ledger: LedgerEntry[];
	readonly options: Readonly<ResolvedOptions>;
	/** Hostile switches a test may turn on and off at run time (see HostileMode). */
	readonly hostile: HostileMode;
	/** The disagreeing mode (disagree.ts): on, the details the spec does not show differ from the node's guesses. */
	readonly disagree: DisagreeMode;
	/**
	 * The origin (`http://127.0.0.1:<port>`) of a second listener of this sandbox, another host
	 * for the same service (disagreeing report file URLs); started on first use.
	 */
	otherOrigin(): Promise<string>;
}

/** Misbehaviour that is a mode of the whole service rather than a per-request fault. */
export interface HostileMode {
	/** POST /webhooks answers with a `secret` of the new endpoint's own, and signs its deliveries with it. */
	registrationSecret: boolean;
	/** Checkout pay charges this amount, whatever the session's total says (a service that charges more than stated). */
	payCharges?: number;
	/**
	 * A subscription embeds its whole product (as GET /products/{id} answers it, webhookSecret
	 * included) under `product`, in reads, lists, write answers and SUBSCRIPTION_UPDATED events:
	 * a service that echoes an embedded record in full.
	 */
	embedProducts?: boolean;
	/**
	 * POST and PATCH /webhooks store the endpoint's URL in WHATWG normal form (host lower-cased,
	 * default port dropped) and answer and read it so: a service that normalises what it is sent.
	 */
	normaliseWebhookUrls?: boolean;
}

export interface ResolvedOptions {
	seed: number;
	orders: number;
	latencyMs: number;
	allowHttpWebhooks: boolean;
	webhookTimeScale: number;
	/** Requests per second per API key; 0 when off. */
	rateLimit: number;
	/** Requests a key may send at once after a quiet spell. */
	rateBurst: number;
}

export const CORE = '/v2/core/stores/:storeId';
export const STORES = '/v2/stores/:storeId';
export const VAULT = '/v2/workspaces/:workspaceId/vaults/:vaultId';
export const core = (sub = '') => CORE + sub;
export const stores = (sub = '') => STORES + sub;
export const both = (sub = '') => [core(sub), stores(sub)];
export const vaultPath = (sub = '') => VAULT + sub;

export const normalizePath = (p: string) => (p.length > 1 ? p.replace(/\/+$/, '') || '/' : p);

// ---------------------------------------------------------------- routing

interface Route {
	method: Method;
	pattern: string;
	segments: string[];
	handler: Handler;
	options: RouteOptions;
	/** Registered with a trailing slash (`/orders/`): strict routing asks for it. */
	slash: boolean;
	/** The root the pattern starts with, and the path below it. */
	root?: 'core' | 'stores';
	sub?: string;
}

/** Which root a pattern starts with, and the path below it. */
function rootOf(pattern: string): { root?: 'core' | 'stores'; sub?: string } {
	if (pattern === CORE || pattern.startsWith(`${CORE}/`)) return { root: 'core', sub: pattern.slice(CORE.length) };
	if (pattern === STORES || pattern.startsWith(`${STORES}/`)) return { root: 'stores', sub: pattern.slice(STORES.length) };
	return {};
}

export class Router {
	private routes: Route[] = [];

	add(method: Method, pattern: string, handler: Handler, options: RouteOptions): void {
		const p = normalizePath(pattern);
		if (this.routes.some((r) => r.method === method && r.pattern === p)) throw new Error(`Duplicate route ${method} ${p}`);
		this.routes.push({ method, pattern: p, segments: p.split('/'), handler, options, slash: pattern.length > 1 && pattern.endsWith('/'), ...rootOf(p) });
	}

	/**
	 * The route for method+path; or `allowed` methods when only the method is wrong; or nothing.
	 * `strict` (the disagreeing mode): the trailing slash as registered, and a route registered
	 * under both roots only under the root STRICT_ROOTS (or UNPLACED_ROOTS) names; `keepRoots`:
	 * the routes of UNPLACED_ROOTS under both.
	 */
	match(method: string, path: string, strict = false, keepRoots = false): { route: Route; params: Record<string, string> } | { allowed: string[] } | undefined {
		const parts = normalizePath(path).split('/');
		const slash = path.length > 1 && path.endsWith('/');
		const allowed: string[] = [];
		// Literal segments win over params: try routes with fewer params first.
		const candidates = [...this.routes].sort((a, b) => paramCount(a) - paramCount(b));
		for (const route of candidates) {
			if (strict && !this.strictlyAt(route, slash, keepRoots)) continue;
			const params = matchSegments(route.segments, parts);
			if (!params) continue;
			if (route.method === method) return { route, params };
			allowed.push(route.method);
		}
		return allowed.length ? { allowed: [...new Set(allowed)] } : undefined;
	}

	private strictlyAt(route: Route, slash: boolean, keepRoots: boolean): boolean {
		if (route.slash !== slash) return false;
		if (route.root === undefined || !this.bothRoots(route)) return true;
		const key = `${route.method} ${route.sub}`;
		const unplaced = UNPLACED_ROOTS[key];
		if (unplaced !== undefined) return keepRoots || unplaced === route.root;
		const one = STRICT_ROOTS[key];
		return one === 'both' || one === route.root;
	}

	/** The route is also registered under the other root. */
	private bothRoots(route: Route): boolean {
		const other = route.root === 'core' ? STORES : CORE;
		return this.routes.some((r) => r.method === route.method && r.pattern === other + route.sub);
	}

	/** Throws when a route served under both roots has no entry in STRICT_ROOTS (the list must stay complete). */
	checkStrictRoots(): void {
		for (const route of this.routes) {
			const key = `${route.method} ${route.sub}`;
			if (route.root !== undefined && this.bothRoots(route) && STRICT_ROOTS[key] === undefined && UNPLACED_ROOTS[key] === undefined) {
				throw new Error(`sandbox/disagree.ts STRICT_ROOTS or UNPLACED_ROOTS: name the one root of ${key} (served under both roots)`);
			}
		}
	}
}

function safeDecode(part: string): string | undefined {
	try {
		return decodeURIComponent(part);
	} catch {
		return undefined;
	}
}

const paramCount = (r: Route) => r.segments.filter((s) => s.startsWith(':')).length;

function matchSegments(pattern: string[], parts: string[]): Record<string, string> | undefined {
	if (pattern.length !== parts.length) return undefined;
	const params: Record<string, string> = {};
	for (let i = 0; i < pattern.length; i++) {
		if (pattern[i].startsWith(':')) {
			if (!parts[i]) return undefined;
			try {
				params[pattern[i].slice(1)] = decodeURIComponent(parts[i]);
			} catch {
				return undefined;
			}
		} else if (pattern[i] !== parts[i] && pattern[i] !== safeDecode(parts[i])) return undefined; // a service that decodes %66 as f
	}
	return params;
}

/** 400 when an id-like path parameter has the wrong prefix or length. */
export function checkParams(params: Record<string, string>): void {
	for (const [name, value] of Object.entries(params)) {
		if (name in v.ID_PREFIXES || name.endsWith('Id')) v.id(value, name);
	}
}

// ---------------------------------------------------------------- helpers

export interface Page<T> {
	items: T[];
	pagination: { page: number; limit: number; total: number; totalPages: number };
}

/**
 * Store list wrapper. `page` >= 1 (default 1), `limit` 1..100 (default 25); 400 otherwise.
 * `view` shapes the records of the page only, so a page costs its own size, not the list's.
 */
export function paginate<T, V = T>(items: readonly T[], query: Record<string, unknown>, view?: (item: T) => V): Page<V> {
	const page = v.queryInt(query.page, 'page', { min: 1 }) ?? 1;
	const limit = v.queryInt(query.limit, 'limit', { min: 1, max: 100 }) ?? 25;
	const start = (page - 1) * limit;
	const slice = items.slice(start, start + limit);
	return {
		items: view ? slice.map(view) : (slice as unknown as V[]),
		pagination: { page, limit, total: items.length, totalPages: Math.ceil(items.length / limit) },
	};
}

/** Case-insensitive substring match over some fields; `search` validated to max 128 chars. */
export function textFilter<T>(items: readonly T[], raw: unknown, field: string, fields: (item: T) => (string | null | undefined)[]): T[] {
	const q = v.str(raw, field, { max: 128 })?.trim().toLowerCase();
	if (!q) return [...items];
	return items.filter((it) => fields(it).some((f) => f?.toLowerCase().includes(q)));
}

/** Sliding one-minute window per credential. */
export class RateLimiter {
	private hits = new Map<string, number[]>();
	constructor(
		readonly name: string,
		readonly perMinute: number,
		private readonly clock: Clock,
	) {}

	/** Counts one request of `bucket`; throws 429 with Retry-After when over the limit. */
	hit(bucket: string): void {
		const now = this.clock.now();
		const recent = (this.hits.get(bucket) ?? []).filter((t) => now - t < 60_000);
		if (recent.length >= this.perMinute) {
			this.hits.set(bucket, recent);
			throw new HttpError(429, 'rate_limited', `Rate limit of ${this.perMinute} requests per minute exceeded (${this.name})`, undefined, {
				'Retry-After': String(Math.max(1, Math.ceil((recent[0] + 60_000 - now) / 1000))),
			});
		}
		recent.push(now);
		this.hits.set(bucket, recent);
	}
}

/** Reads a query/body value that must be a string; arrays (repeated keys) are a 400. */
export function single(value: unknown, field: string): string | undefined {
	if (value === undefined) return undefined;
	if (typeof value !== 'string') throw badRequest(field, 'must be given once');
	return value;
}
