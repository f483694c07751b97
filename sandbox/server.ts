/**
 * The sandbox server: HTTP plumbing (body limits, JSON, auth, faults, idempotency, latency,
 * request log) around the routes that the modules in ./resources register. See app.ts for the
 * route API and the Sandbox interface below for what tests get.
 */
import { readdirSync } from 'node:fs';
import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import {
	HostileMode,
	Auth,
	checkParams,
	Ctx,
	LedgerEntry,
	Method,
	normalizePath,
	RateLimiter,
	ResolvedOptions,
	Router,
	SandboxApp,
} from './app';
import { DeliveryAttempt, Deliveries } from './deliveries';
import type { DisagreeMode } from './disagree';
import { FaultSpec, Faults } from './faults';
import { digitIdRecord, everyRecord, secretEchoes } from './hostileAnswers';
import { IdempotencyStore } from './idempotency';
import { TokenBucketLimiter } from './ratelimit';
import { ErrorStyle, errorReply, forbidden, HttpError, internalError, notFound, Reply, tooLarge, unauthorized } from './reply';
import { SandboxState, seedState } from './state';
import { Clock, isPlainObject, parseQuery, Rng, sha256, Timers } from './util';
import { newEndpointSecret } from './resources/webhooks';
import { AccessLogEntry, Vault } from './vault';

export interface SandboxOptions {
	/** Default 0 (a free port). */
	port?: number;
	/** Default 1. */
	seed?: number;
	/** Seeded order count, default 250. */
	orders?: number;
	/** Fixed delay added to every response. */
	latencyMs?: number;
	/** Accept http://127.0.0.1 and http://localhost webhook URLs. */
	allowHttpWebhooks?: boolean;
	/** Multiplies webhook retry delays (e.g. 0.001 in tests). Default 1. */
	webhookTimeScale?: number;
	/**
	 * Requests per second each API key may send to /v2 routes (a token bucket); above it the
	 * answer is 429 with Retry-After in whole seconds. Default 0: no limit.
	 */
	rateLimit?: number;
	/** Bucket size of `rateLimit`: requests a key may send at once. Default one second's worth. */
	rateBurst?: number;
	/**
	 * Start in the disagreeing mode (disagree.ts): every detail the spec does not show differs
	 * from the node's guess. A test switches it with `sandbox.disagree.on`. Default false.
	 */
	disagree?: boolean;
}

export interface RequestLogEntry {
	method: string;
	/** As sent (a trailing slash is kept; routing ignores it). */
	path: string;
	query: Record<string, unknown>;
	headers: Record<string, string | string[] | undefined>;
	body: unknown;
	/** When it arrived, on the sandbox clock (ms). */
	at: number;
	/** Response status; 0 while running or when the socket was dropped. */
	status: number;
	dropped?: boolean;
	/** The route's handler ran and succeeded (not a replay, not refused): the request had its effect. */
	effect?: boolean;
	/** 'trickle': the client closed the connection before the whole answer was sent. */
	clientClosed?: boolean;
}

export interface Sandbox {
	baseUrl: string;
	store: { storeId: string; secretKey: string; storeTokenKey: string; signingSecret: string };
	vault: {
		workspaceId: string;
		vaultId: string;
		secretKey: string;
		noRevealKey: string;
		accessLog: AccessLogEntry[];
		useCvc(tokenId: string): string | undefined;
	};
	credentials(): {
		vaultStoreStoreApi: { baseUrl: string; storeId: string; secretKey: string; signingSecret: string };
		vaultStoreVaultApi: { baseUrl: string; workspaceId: string; vaultId: string; secretKey: string };
	};
	requests: RequestLogEntry[];
	clearRequests(): void;
	faults: Faults;
	ledger: LedgerEntry[];
	deliveries: DeliveryAttempt[];
	waitForDeliveries(n: number, timeoutMs?: number): Promise<DeliveryAttempt[]>;
	emit(eventType: string, data: unknown): string[];
	clock: Clock;
	state: SandboxState;
	app: SandboxApp;
	/** Service-wide hostile switches (off by default). */
	hostile: HostileMode;
	/**
	 * The disagreeing mode (disagree.ts), switched at run time: `sandbox.disagree.on = true`. The
	 * signing secret (store.signingSecret, credentials()) follows it.
	 */
	disagree: DisagreeMode;
	/** Gives endpoint `webhookId` a new signing secret of its own (a dashboard rotation); returns it. */
	rotateEndpointSecret(webhookId: string): string;
	close(): Promise<void>;
}

export const REDACTED = '[redacted]';
const MAX_BODY = 1024 * 1024;
const STORE_SCOPES = [
	'CASES_WRITE', 'SUBSCRIPTIONS_READ', 'SUBSCRIPTIONS_WRITE', 'USAGE_READ', 'METERS_READ', 'METERS_WRITE',
	'REPORTS_READ', 'REPORTS_WRITE', 'REFUNDS_READ', 'REFUNDS_WRITE', 'DISPUTES_READ', 'DISPUTES_WRITE',
];

export async function startSandbox(opts: SandboxOptions = {}): Promise<Sandbox> {
	const options: ResolvedOptions = {
		seed: opts.seed ?? 1,
		orders: opts.orders ?? 250,
		latencyMs: opts.latencyMs ?? 0,
		allowHttpWebhooks: opts.allowHttpWebhooks ?? false,
		webhookTimeScale: opts.webhookTimeScale ?? 1,
		rateLimit: opts.rateLimit ?? 0,
		rateBurst: opts.rateBurst ?? Math.max(1, Math.ceil(opts.rateLimit ?? 0)),
	};
	const { state, secrets } = seedState(options.seed, options.orders);
	const clock = new Clock();
	const timers = new Timers();
	const rng = new Rng(options.seed * 7919 + 17); // runtime ids: deterministic per seed, distinct from seeded ones
	const vault = new Vault(state.tokens, clock, secrets.fingerprintKey);
	const ledger: LedgerEntry[] = [];
	const requests: RequestLogEntry[] = [];
	const faults = new Faults();
	const idempotency = new IdempotencyStore(clock);
	const router = new Router();
	const rateLimiter = options.rateLimit > 0 ? new TokenBucketLimiter(options.rateLimit, options.rateBurst, clock) : undefined;

	// Credentials: key -> what it may do. Only hashes of keys ever leave this map (keyId).
	const keys = new Map<string, Auth>([
		[secrets.storeSecretKey, { kind: 'store', storeId: state.store.id, keyType: 'secret', scopes: new Set(STORE_SCOPES), keyId: 'key_store_secret' }],
		[secrets.storeTokenKey, { kind: 'store', storeId: state.store.id, keyType: 'token', scopes: new Set(STORE_SCOPES.filter((s) => s.endsWith('_READ'))), keyId: 'key_store_token' }],
		[secrets.vaultKey, { kind: 'vault', workspaceId: secrets.workspaceId, vaultId: secrets.vaultId, permissions: new Set(['tokens:read', 'tokens:write', 'tokens:reveal']), keyId: 'key_vault_full' }],
		[secrets.vaultNoRevealKey, { kind: 'vault', workspaceId: secrets.workspaceId, vaultId: secrets.vaultId, permissions: new Set(['tokens:read', 'tokens:write']), keyId: 'key_vault_noreveal' }],
	]);

	const hostile: HostileMode = { registrationSecret: false };
	const disagree: DisagreeMode = { on: opts.disagree ?? false };
	// Disagreeing, the store's signing secret is short (an 8-byte key), derived from the seeded one.
	const shortSigningSecret = `whsec_${Buffer.from(sha256(`short ${secrets.signingSecret}`), 'hex').subarray(0, 8).toString('base64')}`;
	const signingSecret = () => (disagree.on ? shortSigningSecret : secrets.signingSecret);
	// A second listener of the same service: another host (disagreeing report file URLs).
	let other: { server: ReturnType<typeof createServer>; origin: Promise<string> } | undefined;
	const deliveries = new Deliveries({
		// Read at every delivery: the secret follows the disagreeing switch.
		get secret() {
			return signingSecret();
		},
		clock,
		timers,
		rng,
		timeScale: options.webhookTimeScale,
		isActive: (id) => state.webhooks.some((w) => w.id === id),
	});

	const app: SandboxApp = {
		route(method, path, handler, routeOptions = {}) {
			for (const p of Array.isArray(path) ? path : [path]) router.add(method, p, handler, routeOptions);
		},
		rateLimit: (name, perMinute) => new RateLimiter(name, perMinute, clock),
		emit(eventType, data) {
			return state.webhooks.filter((w) => w.eventTypes.includes(eventType)).map((w) => deliveries.send(w, eventType, data));
		},
		deliver(endpointId, eventType, data) {
			const endpoint = state.webhooks.find((w) => w.id === endpointId);
			if (!endpoint) throw notFound('Webhook endpoint');
			return deliveries.send(endpoint, eventType, data);
		},
		collection<T>(name: string, init?: (r: Rng) => T[]): T[] {
			// Each collection gets its own generator, so results do not depend on module load order.
			const collectionRng = () => new Rng(options.seed * 104729 + parseInt(sha256(name).slice(0, 8), 16));
			if (!state.collections[name]) state.collections[name] = init ? init(collectionRng()) : [];
			return state.collections[name] as T[];
		},
		newId: (prefix) => rng.id(prefix),
		hostile,
		disagree,
		otherOrigin() {
			if (other === undefined) {
				const second = createServer((req, res) => serve(req, res));
				second.on('clientError', (_err, socket) => socket.destroy());
				const origin = new Promise<string>((resolve, reject) => {
					second.once('error', reject);
					second.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(second.address() as AddressInfo).port}`));
				});
				other = { server: second, origin };
			}
			return other.origin;
		},
		state,
		clock,
		vault,
		ledger,
		options,
	};

	loadResources(app);
	router.checkStrictRoots();

	// ------------------------------------------------------------ request pipeline

	const authenticate = (req: IncomingMessage, kind: 'store' | 'vault', params: Record<string, string>): Auth => {
		const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
		const auth = m ? keys.get(m[1]) : undefined;
		if (!auth || auth.kind !== kind) throw unauthorized(m ? 'Invalid API key' : 'Missing bearer token in Authorization header');
		checkParams(params);
		// A store route without :storeId in its path (POST /v2/checkouts) acts on the key's own store.
		if (auth.kind === 'store' && 'storeId' in params && (params.storeId !== state.store.id || auth.storeId !== params.storeId)) throw notFound('Store');
		if (auth.kind === 'vault' && (params.workspaceId !== auth.workspaceId || params.vaultId !== auth.vaultId)) throw notFound('Vault');
		return auth;
	};

	/** The service-wide rate limit, per API key (unknown or missing keys share one bucket). */
	const checkRateLimit = (req: IncomingMessage, path: string): void => {
		if (!rateLimiter || !path.startsWith('/v2/')) return;
		const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
		rateLimiter.take((m && keys.get(m[1])?.keyId) || 'anonymous');
	};

	/** Everything after the body is read: routing, auth, JSON, idempotency, handler. */
	const dispatch = async (req: IncomingMessage, entry: RequestLogEntry, raw: Buffer, fault: FaultSpec | undefined): Promise<Reply> => {
		// Held with nothing done; then handled as usual, for a client that may have given up meanwhile.
		if (fault?.kind === 'hang-then-commit') await timers.sleep(fault.delayMs ?? 1000);
		const method = entry.method as Method;
		const path = normalizePath(entry.path);
		const style = errorStyle(path);
		const found = router.match(method, entry.path, disagree.on, disagree.keepRoots === true);
		if (!found) throw notFound(`Route ${entry.method} ${path}`);
		if ('allowed' in found) {
			throw new HttpError(405, 'method_not_allowed', `Method ${entry.method} not allowed on ${path}`, undefined, { Allow: found.allowed.join(', ') });
		}
		const { route, params } = found;
		const o = route.options;
		if (o.loopbackOnly && !isLoopback(req.socket.remoteAddress)) throw forbidden('loopback_only', 'This route is only available from localhost');
		const authKind = o.auth ?? 'store';
		const auth = authKind === 'none' ? undefined : authenticate(req, authKind, params);
		if (authKind === 'none') checkParams(params);
		if (auth?.kind === 'store' && o.scope && !auth.scopes.has(o.scope)) {
			throw forbidden('missing_scope', `This operation requires the ${o.scope} scope`);
		}
		if (auth?.kind === 'vault' && o.permission && !auth.permissions.has(o.permission)) {
			throw forbidden('permission_denied', `This API key lacks the ${o.permission} permission`);
		}
		const body = parseJsonBody(req, raw);
		o.rateLimit?.hit(auth?.keyId ?? req.socket.remoteAddress ?? 'anonymous');

		const idemKey = o.idempotency ? IdempotencyStore.parseKey(req.headers['idempotency-key'], o.idempotency === 'required') : undefined;
		const ctx: Ctx = {
			method,
			path,
			params,
			query: entry.query,
			body: body ?? {},
			headers: req.headers,
			auth,
			idempotencyKey: idemKey,
			state,
			app,
			now: () => clock.now(),
			iso: (ms) => clock.iso(ms),
			commit: (kind, fields) => ledger.push({ kind, key: idemKey, at: clock.iso(), ...fields }),
		};
		const slow = fault?.kind === 'slow' ? () => timers.sleep(fault.delayMs ?? 1000) : async () => {};
		// Committed, then answered 500: as the spec says, a 5xx is not stored under the key (a repeat runs again).
		// Committed and answered, then a gateway in front lost the answer and says 502 or 504: the
		// service stored its own answer under the key (a repeat is answered with it, a replay).
		const after = (reply: Reply): Reply =>
			fault?.kind === 'commit-then-500'
				? errorReply(new HttpError(500, 'internal_error', 'Internal server error (injected after commit)'), style)
				: fault?.kind === 'commit-then-gateway'
					? errorReply(new HttpError(fault.status ?? 502, fault.status === 504 ? 'gateway_timeout' : 'bad_gateway', 'The gateway lost the answer (injected after commit)'), style)
					: reply;
		if (!idemKey) {
			const reply = await runHandler(route.handler, ctx, style);
			entry.effect = reply.status < 300;
			await slow();
			return after(reply);
		}
		// Disagreeing, a key is the credential's alone, judged by the body (the spec's rule) whatever the route.
		const scope = disagree.on ? (auth?.keyId ?? 'anonymous') : `${auth?.keyId ?? 'anonymous'} ${method} ${path}`;
		const begun = idempotency.begin(scope, idemKey, body);
		if (!begun.run) return begun.reply;
		let reply: Reply = errorReply(internalError(), style);
		let stored: Reply | undefined;
		try {
			reply = await runHandler(route.handler, ctx, style);
			entry.effect = reply.status < 300;
			await slow();
			if (fault?.kind === 'commit-then-gateway') stored = reply;
			reply = after(reply);
		} finally {
			begun.finish(stored ?? reply);
		}
		return reply;
	};

	const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
		const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
		const entry: RequestLogEntry = {
			method: (req.method ?? 'GET').toUpperCase(),
			path: url.pathname,
			query: parseQuery(url.search),
			headers: redactHeaders(req.headers),
			body: undefined,
			at: clock.now(),
			status: 0,
		};
		requests.push(entry);
		const style = errorStyle(entry.path);
		let reply: Reply;
		const keyHeader = req.headers['idempotency-key'];
		const fault = faults.take(entry.method, entry.path, Array.isArray(keyHeader) ? keyHeader[0] : keyHeader);
		try {
			const raw = await readBody(req);
			entry.body = tryJson(raw);
			if (fault?.kind === 'drop') return drop(res, entry);
			if (fault?.kind === '429') throw new HttpError(429, 'rate_limited', 'Too many requests (injected)', undefined, { 'Retry-After': String(fault.retryAfter ?? 0) });
			if (fault?.kind === '500') throw new HttpError(500, 'internal_error', 'Internal server error (injected)');
			checkRateLimit(req, entry.path);
			const hostile = fault ? hostileReply(fault, req, raw, entry) : undefined;
			reply = hostile ?? (await dispatch(req, entry, raw, fault));
			if (fault?.kind === 'echo-success' && reply.status >= 200 && reply.status < 300) reply = { ...reply, body: echoIntoSuccess(reply.body, entry.body, req) };
			if (fault?.kind === 'digit-ids' && reply.status >= 200 && reply.status < 300) reply = { ...reply, body: everyRecord(reply.body, digitIdRecord) };
			if (fault?.kind === 'echo-secrets' && reply.status >= 200 && reply.status < 300) {
				const echoes = secretEchoes(req.headers.authorization);
				reply = { ...reply, body: everyRecord(reply.body, (record) => ({ ...record, ...echoes })) };
			}
		} catch (err) {
			reply = errorReply(err instanceof HttpError ? err : internalError(), style);
			if (!(err instanceof HttpError)) console.error('[sandbox] handler error', err);
		}
		if (fault?.kind === 'drop-after-commit') return drop(res, entry);
		await timers.sleep(options.latencyMs);
		entry.status = reply.status;
		if (fault?.kind === 'trickle') return void (await trickle(res, reply, fault, entry, timers));
		send(res, reply);
	};

	const serve = (req: IncomingMessage, res: ServerResponse): void => {
		handle(req, res).catch((err) => {
			console.error('[sandbox] unexpected error', err);
			if (!res.headersSent) send(res, errorReply(internalError(), 'store'));
		});
	};
	const server = createServer(serve);
	server.on('clientError', (_err, socket) => socket.destroy());
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
	});
	const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

	return {
		baseUrl,
		store: {
			storeId: state.store.id,
			secretKey: secrets.storeSecretKey,
			storeTokenKey: secrets.storeTokenKey,
			get signingSecret() {
				return signingSecret();
			},
		},
		vault: {
			workspaceId: secrets.workspaceId,
			vaultId: secrets.vaultId,
			secretKey: secrets.vaultKey,
			noRevealKey: secrets.vaultNoRevealKey,
			accessLog: vault.accessLog,
			useCvc: vault.useCvc,
		},
		credentials: () => ({
			vaultStoreStoreApi: { baseUrl, storeId: state.store.id, secretKey: secrets.storeSecretKey, signingSecret: signingSecret() },
			vaultStoreVaultApi: { baseUrl, workspaceId: secrets.workspaceId, vaultId: secrets.vaultId, secretKey: secrets.vaultKey },
		}),
		requests,
		clearRequests: () => void (requests.length = 0),
		faults,
		ledger,
		deliveries: deliveries.attempts,
		waitForDeliveries: (n, timeoutMs) => deliveries.waitFor(n, timeoutMs),
		emit: app.emit,
		clock,
		state,
		app,
		hostile,
		disagree,
		rotateEndpointSecret: (webhookId) => {
			const endpoint = state.webhooks.find((w) => w.id === webhookId);
			if (!endpoint) throw new Error(`no webhook endpoint ${webhookId}`);
			endpoint.secret = newEndpointSecret();
			return endpoint.secret;
		},
		close: async () => {
			timers.clear();
			deliveries.close();
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
			if (other !== undefined) {
				const second = other.server;
				second.closeAllConnections();
				if (second.listening) await new Promise<void>((resolve) => second.close(() => resolve()));
			}
		},
	};
}

// ---------------------------------------------------------------- helpers

/** Loads every module in ./resources (.ts under ts-jest, .js when compiled; never .d.ts). */
function loadResources(app: SandboxApp): void {
	const dir = join(__dirname, 'resources');
	const files = readdirSync(dir)
		.filter((f) => /\.(ts|js)$/.test(f) && !f.endsWith('.d.ts') && !/\.(test|spec)\./.test(f))
		.sort();
	const seen = new Set<string>();
	for (const file of files) {
		const name = file.replace(/\.(ts|js)$/, '');
		if (seen.has(name)) continue; // x.ts and x.js side by side: load once
		seen.add(name);
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const mod = require(join(dir, file)) as { register?: (a: SandboxApp) => void };
		if (typeof mod.register !== 'function') throw new Error(`sandbox/resources/${file} does not export register(app)`);
		mod.register(app);
	}
}

async function runHandler(handler: (ctx: Ctx) => Reply | Promise<Reply>, ctx: Ctx, style: ErrorStyle): Promise<Reply> {
	try {
		return await handler(ctx);
	} catch (err) {
		if (err instanceof HttpError) return errorReply(err, style);
		console.error('[sandbox] handler error', err);
		return errorReply(internalError(), style);
	}
}

const errorStyle = (path: string): ErrorStyle => (path.startsWith('/v2/workspaces/') ? 'vault' : 'store');

const isLoopback = (addr: string | undefined) => addr === '127.0.0.1' || addr === '::1' || addr === '::ffff:127.0.0.1';

/** Reads the body; past 1 MiB it keeps draining (so the client sees the answer) and then 413s. */
function readBody(req: IncomingMessage): Promise<Buffer> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		req.on('data', (c: Buffer) => {
			size += c.length;
			if (size <= MAX_BODY) chunks.push(c);
			else if (size > 16 * MAX_BODY) req.destroy();
		});
		req.on('end', () => (size > MAX_BODY ? reject(tooLarge('Request body exceeds 1 MiB')) : resolve(Buffer.concat(chunks))));
		req.on('error', reject);
	});
}

function tryJson(raw: Buffer): unknown {
	if (!raw.length) return undefined;
	try {
		return JSON.parse(raw.toString('utf8'));
	} catch {
		return raw.toString('utf8');
	}
}

function parseJsonBody(req: IncomingMessage, raw: Buffer): Record<string, unknown> | undefined {
	if (!raw.length) return undefined;
	const type = req.headers['content-type'] ?? '';
	if (!/^application\/([\w.+-]+\+)?json\s*(;|$)/i.test(type)) {
		throw new HttpError(415, 'unsupported_media_type', 'Content-Type must be application/json');
	}
	let parsed: unknown;
	try {
		parsed = JSON.parse(raw.toString('utf8'));
	} catch {
		throw new HttpError(400, 'invalid_json', 'Request body is not valid JSON');
	}
	if (!isPlainObject(parsed)) throw new HttpError(400, 'invalid_body', 'Request body must be a JSON object');
	return parsed;
}

function redactHeaders(h: IncomingMessage['headers']): Record<string, string | string[] | undefined> {
	const out: Record<string, string | string[] | undefined> = { ...h };
	if (out.authorization !== undefined) out.authorization = REDACTED;
	return out;
}

/**
 * 'echo-success': the handler's success answer with the request echoed into every record, the
 * way a careless service leaks: the card number top-level (`card_number`), in the mask
 * (`mask.number`), the CVC nested (`source.card_cvc`), the request body and the Authorization
 * header as given.
 */
function echoIntoSuccess(body: unknown, requestBody: unknown, req: IncomingMessage): unknown {
	const sent = isPlainObject(requestBody) ? requestBody : {};
	const data = isPlainObject(sent.data) ? sent.data : {};
	const leak = (record: unknown): unknown => {
		if (!isPlainObject(record)) return record;
		const mask = isPlainObject(record.mask) ? record.mask : {};
		return {
			...record,
			card_number: data.number ?? null,
			mask: { ...mask, number: data.number ?? null },
			source: { card_cvc: data.cvc ?? null, request: sent },
			authorization: req.headers.authorization ?? null,
		};
	};
	const records = (value: unknown): unknown =>
		Array.isArray(value) ? value.map(leak) : isPlainObject(value) && Array.isArray(value.data) ? { ...value, data: value.data.map(leak) } : leak(value);
	if (isPlainObject(body) && body.ok === true && 'data' in body) return { ...body, data: records(body.data) };
	return records(body);
}

/** The answer of a hostile fault that replaces the handler, if this fault is one. */
function hostileReply(fault: FaultSpec, req: IncomingMessage, raw: Buffer, entry: RequestLogEntry): Reply | undefined {
	switch (fault.kind) {
		case 'redirect':
			return { status: fault.status ?? 302, body: undefined, headers: { Location: fault.location ?? '/' } };
		case 'echo': {
			// Deliberately careless: the request as received, credentials and card data included.
			const request = { method: entry.method, path: entry.path, headers: req.headers, body: raw.toString('utf8') };
			return {
				status: fault.status ?? 400,
				body: { ok: false, error: { code: 'echo', message: `Rejected: ${JSON.stringify(request)}`, request } },
			};
		}
		case 'html':
			return {
				status: 200,
				body: Buffer.from('<!doctype html><html><body><h1>Welcome</h1></body></html>'),
				headers: { 'content-type': 'text/html; charset=utf-8' },
			};
		case 'empty':
			return { status: 200, body: Buffer.alloc(0), headers: { 'content-type': 'application/json' } };
		case 'trickle':
			if (!fault.reply) return undefined;
		// falls through: a trickle with `reply` answers that
		case 'reply': {
			const spec = fault.reply ?? { body: undefined };
			const body = typeof spec.body === 'function' ? (spec.body as (q: Record<string, unknown>) => unknown)(entry.query) : spec.body;
			return { status: fault.status ?? 200, body, headers: spec.headers };
		}
		default:
			return undefined;
	}
}

function drop(res: ServerResponse, entry: RequestLogEntry): void {
	entry.dropped = true;
	res.socket?.destroy();
}

/**
 * 'trickle': the answer (the handler's, or `reply` when given) with its headers at once and its
 * body one byte every `delayMs` (default 400); with `forever` it never ends. Notes in the log
 * entry whether the client gave up first (`clientClosed`).
 */
async function trickle(res: ServerResponse, reply: Reply, fault: FaultSpec, entry: RequestLogEntry, timers: Timers): Promise<void> {
	const raw = Buffer.isBuffer(reply.body);
	const bytes = raw ? (reply.body as Buffer) : Buffer.from(reply.body === undefined ? '' : JSON.stringify(reply.body));
	res.writeHead(reply.status, {
		'content-type': raw ? 'application/octet-stream' : 'application/json; charset=utf-8',
		...(fault.forever ? {} : { 'content-length': bytes.length }),
		...reply.headers,
	});
	let closed = false;
	res.on('close', () => {
		closed = true;
		if (!res.writableFinished) entry.clientClosed = true;
	});
	for (let i = 0; fault.forever || i < bytes.length; i++) {
		if (closed) return;
		res.write(fault.forever ? ' ' : bytes.subarray(i, i + 1));
		await timers.sleep(fault.delayMs ?? 400);
	}
	if (!closed) res.end();
}

function send(res: ServerResponse, reply: Reply): void {
	if (res.writableEnded || res.destroyed) return;
	// A Buffer body is sent as it is (files such as report downloads; set content-type in headers).
	const raw = Buffer.isBuffer(reply.body);
	const text = raw ? (reply.body as Buffer) : reply.body === undefined ? '' : JSON.stringify(reply.body);
	res.writeHead(reply.status, {
		'content-type': raw ? 'application/octet-stream' : 'application/json; charset=utf-8',
		'content-length': Buffer.byteLength(text),
		...reply.headers,
	});
	res.end(text);
}
