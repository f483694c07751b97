import type { IDataObject } from 'n8n-workflow';

import { jsonOf, useSandbox } from './support/fixtures';
import { runNodes } from './support/harness';

const f = useSandbox({ orders: 30 });

const core = (sub: string) => `/v2/core/stores/${f.sb.store.storeId}${sub}`;
const stores = (sub: string) => `/v2/stores/${f.sb.store.storeId}${sub}`;
const call = (params: IDataObject, options: Parameters<typeof f.run>[2] = {}) =>
	f.run({ resource: 'custom', operation: 'request', ...params }, undefined, options);

describe('custom API call against the sandbox', () => {
	test('GET with {storeId} replaced: a plain array becomes one item per element', async () => {
		const r = await call({ method: 'GET', path: '/v2/core/stores/{storeId}/payouts/bank-accounts' });
		expect(r.error()).toBeUndefined();
		const out = jsonOf(r);
		expect(out).toHaveLength(2);
		expect(out.every((a) => String(a.id).startsWith('bnk_'))).toBe(true);
		const reqs = f.requests();
		expect(reqs.map((q) => [q.method, q.path, q.query])).toEqual([['GET', core('/payouts/bank-accounts'), {}]]);
		expect(reqs[0].headers.authorization).toBe('[redacted]');
		expect(reqs[0].headers['idempotency-key']).toBeUndefined();
	});

	test('query parameters are sent; empty ones are not; the envelope is unwrapped', async () => {
		const r = await call({
			method: 'GET',
			path: '/v2/core/stores/{storeId}/orders/',
			queryParameters: { parameters: [{ name: 'page', value: '2' }, { name: 'limit', value: '5' }, { name: 'status', value: '' }] },
		});
		expect(r.error()).toBeUndefined();
		expect(f.requests()[0].query).toEqual({ page: '2', limit: '5' });
		const [out] = jsonOf(r);
		expect(out.ok).toBeUndefined();
		expect(out.pagination).toMatchObject({ page: 2, limit: 5, total: 30 });
		expect(out.items).toHaveLength(5);
	});

	test('POST sends the JSON body and, when asked, an Idempotency-Key stable over retries (a 503: the service did nothing)', async () => {
		const before = f.sb.ledger.filter((e) => e.kind === 'payout').length;
		f.sb.faults.add({ kind: 'reply', status: 503, count: 1, reply: { body: { ok: false, error: { code: 'unavailable', message: 'down (injected)' } } } });
		const r = await call({
			method: 'POST',
			path: '/v2/stores/{storeId}/payouts',
			body: '{"amount": 12.5}',
			sendIdempotencyKey: true,
		});
		expect(r.error()).toBeUndefined();
		const reqs = f.requests();
		expect(reqs.map((q) => [q.method, q.path, q.status])).toEqual([
			['POST', stores('/payouts'), 503],
			['POST', stores('/payouts'), 201],
		]);
		expect(reqs[1].body).toEqual({ amount: 12.5 });
		const keys = new Set(reqs.map((q) => q.headers['idempotency-key']));
		expect(keys.size).toBe(1);
		expect([...keys][0]).toMatch(/^[A-Za-z0-9_-]{1,255}$/);
		expect(jsonOf(r)[0]).toMatchObject({ amount: 12.5, fee_quote: expect.any(Object) });
		expect(f.sb.ledger.filter((e) => e.kind === 'payout').length - before).toBe(1);
	});

	test('Send Idempotency-Key: a node saved with version 1 keeps it under Additional Fields; version 2 has it among the call\'s fields', async () => {
		let n = 0;
		const parameters = (send: IDataObject) => ({ resource: 'custom', operation: 'request', method: 'POST', path: '/v2/core/stores/{storeId}/categories', body: `{"name": "Keyed", "slug": "keyed-v${++n}-${Date.now()}"}`, ...send });
		for (const [typeVersion, send] of [
			[1, { additionalFields: { sendIdempotencyKey: true } }],
			[2, { sendIdempotencyKey: true }],
		] as const) {
			f.sb.clearRequests();
			const r = await runNodes([{ parameters: parameters(send), typeVersion }], f.credentials);
			expect(r.error()).toBeUndefined();
			expect([typeVersion, f.requests()[0].headers['idempotency-key']]).toEqual([typeVersion, expect.stringMatching(/^n8n_/)]);
		}
		// Control: without it, a write to a route that moves no money carries no key.
		f.sb.clearRequests();
		const plain = await runNodes([{ parameters: parameters({}), typeVersion: 2 }], f.credentials);
		expect(plain.error()).toBeUndefined();
		expect(f.requests()[0].headers['idempotency-key']).toBeUndefined();
	});

	test('the Idempotency Key option is used when sending a key, and a replay is marked', async () => {
		const params = {
			api: 'vault',
			method: 'POST',
			path: '/tokens',
			body: JSON.stringify({ type: 'pii', data: { value: 'AB-123-987' } }),
			sendIdempotencyKey: true,
			options: { idempotencyKey: 'custom-call-key-1' },
		};
		const first = await call(params);
		expect(f.requests()[0].headers['idempotency-key']).toBe('custom-call-key-1');
		const second = await call(params);
		expect(jsonOf(second)[0]).toMatchObject({ id: jsonOf(first)[0].id, idempotentReplay: true });
	});

	test('a money write\'s replay under the Idempotency Key option that nothing explains fails the item (another workflow used the key)', async () => {
		const params = { method: 'POST', path: '/v2/stores/{storeId}/payouts', body: '{"amount": 3}', sendIdempotencyKey: true, options: { idempotencyKey: 'custom-call-key-2' } };
		const before = f.sb.ledger.filter((e) => e.kind === 'payout').length;
		expect((await call(params)).error()).toBeUndefined();
		const second = await call(params);
		expect(f.requests()[0].headers['idempotency-key']).toBe('custom-call-key-2');
		expect(second.error()?.message).toMatch(/a replay\), and neither this execution nor this node's record of earlier executions sent "Create a payout" with that key/);
		expect(f.sb.ledger.filter((e) => e.kind === 'payout').length - before).toBe(1);
	});

	test('PATCH to a route with an empty body object sends no body; DELETE result is one item', async () => {
		const now = new Date().toISOString();
		f.sb.state.webhooks.push({ id: 'whk_customcall0000001', storeId: f.sb.store.storeId, url: 'https://example.com/h', eventTypes: ['PAYMENT_FAILED'], note: null, signatureVersion: 'V2', createdAt: now, updatedAt: now });
		const patch = await call({ method: 'PATCH', path: '/v2/core/stores/{storeId}/webhooks/whk_customcall0000001', body: '{}' });
		expect(patch.error()).toBeUndefined();
		expect(f.requests()[0].body).toBeUndefined();
		const del = await call({ method: 'DELETE', path: '/v2/core/stores/{storeId}/webhooks/whk_customcall0000001' });
		expect(jsonOf(del)).toEqual([{ id: 'whk_customcall0000001', deleted: true }]);
		expect(f.requests().map((q) => [q.method, q.path])).toEqual([['DELETE', core('/webhooks/whk_customcall0000001')]]);
	});

	test('an unknown route is a readable 404', async () => {
		const r = await call({ method: 'GET', path: '/v2/core/stores/{storeId}/meters' });
		expect(r.error()?.message).toMatch(/Not found \(HTTP 404\)/);
		expect(f.requests()).toHaveLength(1);
	});

	test('path, query and body rules fail before any request, naming the field', async () => {
		const cases: [IDataObject, RegExp][] = [
			[{ path: '/v1/stores' }, /"Path" must start with \/v2\//],
			[{ path: 'https://evil.example/v2/x' }, /"Path" must start with \/v2\//],
			[{ path: '/v2/core/stores/{storeId}/orders?page=2' }, /"Path" must not contain spaces, "\?" or "#"/],
			[{ path: '/v2/core/stores/{storeId}/../../admin' }, /"Path" must not contain empty, "\." or "\.\." segments/],
			[{ path: '/v2//x' }, /"Path" must not contain empty/],
			[{ path: '/v2/core/stores/{storeId}/orders/{orderId}' }, /unknown placeholder \{orderId\}/],
			[{ path: '/v2/x', queryParameters: { parameters: [{ name: 'a', value: '1' }, { name: 'a', value: '2' }] } }, /"Query Parameters" names "a" twice/],
			[{ method: 'POST', path: '/v2/x', body: '{"amount": ' }, /"Body" must be valid JSON/],
			[{ method: 'POST', path: '/v2/x', body: '"text"' }, /"Body" must be a JSON object or array/],
			[{ path: '/v2/x', sendIdempotencyKey: true, options: { idempotencyKey: 'bad key!' } }, /"Idempotency Key" must be 1 to 255 characters/],
		];
		for (const [params, message] of cases) {
			const r = await call({ method: 'GET', ...params });
			expect(r.error()?.message).toMatch(message);
			expect(f.requests()).toHaveLength(0);
		}
	});
});

describe('custom API call with the vault credential', () => {
	const vaultRoot = () => `/v2/workspaces/${f.sb.vault.workspaceId}/vaults/${f.sb.vault.vaultId}`;
	const vaultOnly = () => ({ vaultStoreVaultApi: f.credentials.vaultStoreVaultApi });
	const storeOnly = () => ({ vaultStoreStoreApi: f.credentials.vaultStoreStoreApi });

	test('a path below the vault (/tokens) goes to the vault URL with the vault key; no store credential needed', async () => {
		const created = await f.run({ resource: 'token', operation: 'create', tokenType: 'pii', data: '{"value":"custom-call"}' });
		const tokenId = String(jsonOf(created)[0].id);
		const r = await call({ api: 'vault', method: 'GET', path: `/tokens/${tokenId}` }, { credentials: vaultOnly() });
		expect(r.error()).toBeUndefined();
		expect(f.requests().map((q) => [q.method, q.path, q.status])).toEqual([['GET', `${vaultRoot()}/tokens/${tokenId}`, 200]]);
		expect(f.requests()[0].headers.authorization).toBe('[redacted]');
		expect(jsonOf(r)).toEqual([expect.objectContaining({ id: tokenId, type: 'pii' })]);
		// The vault key was used: the store key would have been refused on a vault route.
		expect(f.sb.requests.every((q) => !q.path.startsWith('/v2/core'))).toBe(true);
	});

	test('a route with no operation (the token access log, a bare list) gives one item per entry; POST sends the body', async () => {
		const created = await f.run({ resource: 'token', operation: 'create', tokenType: 'pii', data: '{"value":"logged"}' });
		const tokenId = String(jsonOf(created)[0].id);
		const reveal = await call({ api: 'vault', method: 'POST', path: `/tokens/${tokenId}/reveal` }, { credentials: vaultOnly() });
		expect(reveal.error()).toBeUndefined();
		const log = await call({ api: 'vault', method: 'GET', path: `/tokens/${tokenId}/access-log` }, { credentials: vaultOnly() });
		expect(log.error()).toBeUndefined();
		expect(jsonOf(log)).toEqual([expect.objectContaining({ token_id: tokenId, action: 'reveal' })]);

		const patched = await call(
			{ api: 'vault', method: 'PATCH', path: `/tokens/${tokenId}`, body: '{"metadata": {"via": "custom"}}' },
			{ credentials: vaultOnly() },
		);
		expect(patched.error()).toBeUndefined();
		expect(f.requests()[0].body).toEqual({ metadata: { via: 'custom' } });
		expect(jsonOf(patched)[0].metadata).toEqual({ via: 'custom' });
	});

	test('the store API still needs only the store credential', async () => {
		const r = await call({ api: 'store', method: 'GET', path: '/v2/core/stores/{storeId}/payouts/bank-accounts' }, { credentials: storeOnly() });
		expect(r.error()).toBeUndefined();
		expect(f.requests()[0].path).toBe(core('/payouts/bank-accounts'));
	});

	test('vault path rules fail before any request: below the vault, no traversal, no placeholder', async () => {
		const cases: [string, RegExp][] = [
			['tokens', /"Path" must start with \//],
			[`/v2/workspaces/wks_x/vaults/vlt_x/tokens`, /leave out \/v2\/workspaces/],
			['/tokens/../../../../v2/core/stores/x/orders', /must not contain empty, "\." or "\.\." segments/],
			['/tokens/%2e%2e/%2e%2e', /must not contain empty, "\." or "\.\." segments/],
			['/tokens/%2F..', /encoded slashes/],
			['/', /"Path" must stay below \//],
			['/tokens/{storeId}', /unknown placeholder \{storeId\}: a vault path has none/],
			['/tokens?limit=1', /must not contain spaces, "\?" or "#"/],
		];
		for (const [path, message] of cases) {
			const r = await call({ api: 'vault', method: 'GET', path }, { credentials: vaultOnly() });
			expect([path, r.error()?.message]).toEqual([path, expect.stringMatching(message)]);
			expect(f.requests()).toHaveLength(0);
		}
	});

	test('same safety as the store calls: a redirect elsewhere is not followed, the key never appears in the error', async () => {
		f.sb.faults.add({ kind: 'redirect', status: 307, location: 'http://127.0.0.1:9/steal', match: { path: /\/tokens$/ } });
		const r = await call({ api: 'vault', method: 'GET', path: '/tokens' }, { credentials: vaultOnly() });
		expect(r.error()?.message).toMatch(/redirect \(HTTP 307\) to another host/);
		expect(f.requests()).toHaveLength(1);
		const key = String(f.credentials.vaultStoreVaultApi.secretKey);
		expect(JSON.stringify({ m: r.error()?.message, d: r.error()?.description })).not.toContain(key);
	});
});


describe('routes as the service reads them: any case, a format suffix or trailing dots reach the same route', () => {
	const refundable = () => f.sb.state.orders.find((o) => o.payment.status === 'COMPLETED')!.id;
	test.each(['/Refund', '/REFUND', '/refund.json', '/Refund.JSON', '/refund.', '/refund..'])(
		'a Custom API Call to …/orders/{id}%s above the Maximum Amount is refused before anything is sent',
		async (suffix) => {
			const r = await call({ api: 'store', method: 'POST', path: stores(`/orders/${refundable()}${suffix}`), body: '{"amount": 50}', options: { maxAmount: 5 } });
			expect(r.error()?.message).toMatch(/Refused: the amount 50 is above the maximum of 5/);
			expect(f.requests()).toHaveLength(0);
		},
	);

	test('control: within the Maximum Amount the same call goes out once', async () => {
		const r = await call({ api: 'store', method: 'POST', path: stores(`/orders/${refundable()}/refund`), body: '{"amount": 1}', options: { maxAmount: 5 } });
		expect(r.error()).toBeUndefined();
		expect(f.requests().filter((q) => q.method === 'POST')).toHaveLength(1);
	});
});

describe('amount names as the service reads them: bracket forms and lists count', () => {
	const refundable = () => f.sb.state.orders.find((o) => o.payment.status === 'COMPLETED')!.id;
	test.each([
		['a query name order[amount]', { queryParameters: { parameters: [{ name: 'order[amount]', value: '50' }] }, body: '{"amount": 1}' }],
		['a query name amount[]', { queryParameters: { parameters: [{ name: 'amount[]', value: '50' }] }, body: '{"amount": 1}' }],
		['a body amount given as a list', { body: '{"amount": [50]}' }],
		['an amount nested deeper than the gate reads', { body: `{"amount": 1, "x": ${'{"y": '.repeat(25)}{"amount": 50}${'}'.repeat(25)}}` }],
	])('%s above the Maximum Amount is refused before anything is sent', async (_name, params) => {
		const r = await call({ api: 'store', method: 'POST', path: stores(`/orders/${refundable()}/refund`), ...params, options: { maxAmount: 5 } });
		expect(r.error()?.message).toMatch(/^Refused: /);
		expect(f.requests()).toHaveLength(0);
	});
});
