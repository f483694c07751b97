/**
 * Vault tokens under /v2/workspaces/:workspaceId/vaults/:vaultId. Bodies have no envelope;
 * errors are {error: {code, message}}. Storage, masks and fingerprints: ../vault.ts.
 *   POST   /tokens              Idempotency-Key required; 201 token (200 + existing token on deduplicate)
 *   GET    /tokens              type, fingerprint, metadata[key]=value, limit (1..100, default 100),
 *                               cursor (the next_cursor of the previous page);
 *                               {object: 'list', data, has_more, next_cursor}, newest first
 *                               (the vault's pagination is not shown by the spec: cursor and
 *                               next_cursor are this sandbox's choice, as is the node's reading of them)
 *   GET    /tokens/:tokenId     token without data
 *   PATCH  /tokens/:tokenId     metadata (merge; null removes a key), expires_at (timestamp or null)
 *   POST   /tokens/:tokenId/reveal   permission tokens:reveal; data without cvc; access-logged
 *   DELETE /tokens/:tokenId     {object: 'token', id, deleted: true}
 *   GET    /tokens/:tokenId/access-log   a bare array of {token_id, action, at, key_id}, oldest first; kept after
 *                               deletion (the access-log route is not shown by the spec: route and shape are this
 *                               sandbox's choice; the node reaches it with the Custom API Call's Vault API)
 */
import { badRequest, Ctx, notFound, plain, SandboxApp, single, v, vaultPath } from '../app';
import { parseMetadata, parseTokenData, TOKEN_TYPES, TokenRecord, tokenView } from '../vault';

const opts = { auth: 'vault' } as const;

export function register(app: SandboxApp): void {
	const vault = app.vault;

	app.route('POST', vaultPath('/tokens'), (ctx) => {
		v.onlyFields(ctx.body, ['type', 'data', 'deduplicate', 'expires_at', 'metadata']);
		const type = v.oneOf(ctx.body.type, 'type', TOKEN_TYPES, { required: true })!;
		const parsed = parseTokenData(type, ctx.body.data, app.disagree.on);
		const deduplicate = v.bool(ctx.body.deduplicate, 'deduplicate') ?? false;
		const expiresAt = futureTimestamp(ctx, ctx.body.expires_at);
		const metadata = parseMetadata(ctx.body.metadata) ?? {};
		const fingerprint = vault.fingerprint(type, parsed.data);
		if (deduplicate) {
			const existing = vault.list().find((t) => t.fingerprint === fingerprint);
			if (existing) return plain(tokenView(existing), 200);
		}
		const now = ctx.now();
		const token: TokenRecord = { id: app.newId('tok_'), type, data: parsed.data, mask: parsed.mask, fingerprint, metadata, expiresAt: expiresAt ?? null, createdAt: now, updatedAt: now };
		vault.tokens.set(token.id, token);
		if (parsed.cvc) vault.storeCvc(token.id, parsed.cvc);
		ctx.commit('tokenCreate', { tokenId: token.id, type });
		return plain(tokenView(token), 201);
	}, { ...opts, idempotency: 'required' });

	app.route('GET', vaultPath('/tokens'), (ctx) => {
		const q = ctx.query;
		const type = v.oneOf(single(q.type, 'type'), 'type', TOKEN_TYPES);
		const fingerprint = v.str(single(q.fingerprint, 'fingerprint'), 'fingerprint');
		const limit = v.queryInt(q.limit, 'limit', { min: 1, max: 100 }) ?? 100;
		const meta = v.obj(q.metadata, 'metadata') ?? {};
		const wanted = Object.entries(meta).map(([k, val]) => [k, single(val, `metadata[${k}]`)] as const);
		const found = vault
			.list()
			.filter((t) => (!type || t.type === type) && (!fingerprint || t.fingerprint === fingerprint))
			.filter((t) => wanted.every(([k, val]) => typeof t.metadata[k] === 'string' && t.metadata[k] === val));
		const cursor = v.str(single(q.cursor, 'cursor'), 'cursor', { max: 64 });
		let start = 0;
		if (cursor !== undefined) {
			const at = found.findIndex((t) => t.id === cursor);
			if (at < 0) throw badRequest('cursor', 'does not match a token of this list');
			start = at + 1;
		}
		const page = found.slice(start, start + limit);
		const hasMore = found.length > start + limit;
		return plain({ object: 'list', data: page.map(tokenView), has_more: hasMore, next_cursor: hasMore ? page[page.length - 1].id : null });
	}, opts);

	app.route('GET', vaultPath('/tokens/:tokenId'), (ctx) => plain(tokenView(findToken(ctx))), opts);

	app.route('PATCH', vaultPath('/tokens/:tokenId'), (ctx) => {
		const token = findToken(ctx);
		for (const locked of ['type', 'data']) if (locked in ctx.body) throw badRequest(locked, 'cannot be changed; create a new token instead');
		v.onlyFields(ctx.body, ['metadata', 'expires_at']);
		const patch = parseMetadata(ctx.body.metadata);
		if (patch) {
			for (const [k, val] of Object.entries(patch)) {
				if (val === null) delete token.metadata[k];
				else token.metadata[k] = val;
			}
		}
		if ('expires_at' in ctx.body) token.expiresAt = ctx.body.expires_at === null ? null : futureTimestamp(ctx, ctx.body.expires_at)!;
		token.updatedAt = ctx.now();
		return plain(tokenView(token));
	}, opts);

	app.route('POST', vaultPath('/tokens/:tokenId/reveal'), (ctx) => {
		const token = findToken(ctx);
		vault.accessLog.push({ tokenId: token.id, action: 'reveal', at: ctx.iso(), keyId: ctx.auth!.keyId });
		return plain({ object: 'token', id: token.id, type: token.type, data: token.data, ...(token.mask ? { mask: token.mask } : {}), created_at: ctx.iso(token.createdAt) });
	}, { ...opts, permission: 'tokens:reveal' });

	app.route('GET', vaultPath('/tokens/:tokenId/access-log'), (ctx) =>
		plain(
			vault.accessLog
				.filter((e) => e.tokenId === ctx.params.tokenId)
				.map((e) => ({ token_id: e.tokenId, action: e.action, at: e.at, key_id: e.keyId })),
		),
	opts);

	app.route('DELETE', vaultPath('/tokens/:tokenId'), (ctx) => {
		const token = findToken(ctx);
		vault.delete(token.id);
		return plain({ object: 'token', id: token.id, deleted: true });
	}, opts);

	function findToken(ctx: Ctx): TokenRecord {
		const token = vault.get(ctx.params.tokenId);
		if (!token) throw notFound('Token');
		return token;
	}
}

function futureTimestamp(ctx: Ctx, raw: unknown): number | undefined {
	const ms = v.timestamp(raw, 'expires_at');
	if (ms !== undefined && ms <= ctx.now()) throw badRequest('expires_at', 'must be in the future');
	return ms;
}
