/**
 * The node against a service that misbehaves on purpose (the sandbox's hostile
 * faults) and against a second loopback server playing another origin. Each
 * test names the guarantee it checks: no key leaves its origin, no write is
 * sent twice, no secret survives in what n8n stores, no list runs forever,
 * junk is never a success, and every message says what actually happened.
 * Endpoint clean-up (item 5) and the replay window (item 9) are in
 * trigger-lifecycle.test.ts and trigger.test.ts; the write fault matrix (item
 * 2, every write operation) is write-faults.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { LoadOptionsContext } from 'n8n-core';
import type { IDataObject, INode } from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import { listSearch } from '../nodes/VaultStore/listSearch';
import { testCredential } from './support/credential-tester';
import { useSandbox } from './support/fixtures';
import { pieceLeaks, serialiseAll } from './support/secret-scan';
import type { CredentialSet } from './support/harness';
import {
	credentialRefs,
	ensureBinaryData,
	loadPackage,
	logLines,
	makeAdditionalData,
	NODE_TYPE,
	PackageNodeTypes,
	TestCredentialsHelper,
} from './support/harness';
import { createTrigger } from './support/trigger-harness';

const f = useSandbox();

const rl = (value: string) => ({ __rl: true, mode: 'id', value });
const CARD = '4242424242424242';
const CVC = '737';

/** A loopback server on another port: another origin. It records what reaches it. */
interface OtherOrigin {
	url: string;
	hits: { method: string; path: string; headers: IncomingHttpHeaders }[];
}

function useOtherOrigin(): OtherOrigin {
	let server: Server | undefined;
	const state: OtherOrigin = { url: '', hits: [] };
	beforeAll(async () => {
		server = createServer((req, res) => {
			state.hits.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers });
			req.resume();
			req.on('end', () => {
				res.writeHead(200, { 'content-type': 'application/json' });
				res.end(JSON.stringify({ ok: true, data: { stolen: true } }));
			});
		});
		await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
		state.url = `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
	});
	afterAll(async () => {
		server?.closeAllConnections();
		await new Promise<void>((resolve) => server?.close(() => resolve()));
	});
	beforeEach(() => void (state.hits.length = 0));
	return state;
}

const other = useOtherOrigin();

/** The secret material of this sandbox plus the card data the tests send. */
function secrets(): string[] {
	const { store, vault } = f.sb;
	return [store.secretKey, store.storeTokenKey, store.signingSecret, vault.secretKey, vault.noRevealKey];
}

/** Names what leaked (never the secret): whole secrets, 8+ character pieces of them, card number, CVC. */
function leaks(text: string): string[] {
	return pieceLeaks(text, secrets(), [CARD], [CVC]);
}

const serialise = serialiseAll;

describe('1. no credential is sent to another origin', () => {
	const redirectTo = (status: number) => ({ kind: 'redirect' as const, status, location: `${other.url}/steal` });

	test.each([301, 302, 303, 307, 308])('an action answered %s to another host fails naming the host; nothing reaches it', async (status) => {
		const orderId = f.sb.state.orders[0].id;
		f.sb.faults.add({ ...redirectTo(status), match: { path: /\/orders\// } });
		const r = await f.run({ resource: 'order', operation: 'get', orderId: rl(orderId) });
		expect(r.error()?.message).toMatch(new RegExp(`redirect \\(HTTP ${status}\\) to another host \\(127\\.0\\.0\\.1:\\d+\\)`));
		expect(other.hits).toHaveLength(0);
	});

	test('a keyed write (refund) redirected with 307 is not re-sent to the other host', async () => {
		const order = f.sb.state.orders.find((o) => o.payment.status === 'COMPLETED')!;
		f.sb.faults.add({ ...redirectTo(307), match: { path: /\/refund$/ } });
		const r = await f.run({ resource: 'order', operation: 'refund', orderId: rl(order.id), additionalFields: { amount: 0.01 } });
		expect(r.error()?.message).toMatch(/redirect \(HTTP 307\) to another host/);
		expect(other.hits).toHaveLength(0);
	});

	test('token reveal redirected: the vault key stays home', async () => {
		const created = await f.run({ resource: 'token', operation: 'create', tokenType: 'custom', data: JSON.stringify({ ref: randomUUID() }) });
		const token = { id: created.output()[0].json.id as string };
		f.sb.faults.add({ ...redirectTo(302), match: { path: /\/reveal$/ } });
		const r = await f.run({ resource: 'token', operation: 'reveal', tokenId: rl(token.id) });
		expect(r.error()?.message).toMatch(/redirect \(HTTP 302\) to another host/);
		expect(other.hits).toHaveLength(0);
	});

	test('Custom API Call redirected: refused, nothing reaches the other host', async () => {
		f.sb.faults.add({ ...redirectTo(302), match: { path: /\/payouts$/ } });
		const r = await f.run({ resource: 'custom', operation: 'request', method: 'GET', path: '/v2/core/stores/{storeId}/payouts' });
		expect(r.error()?.message).toMatch(/redirect \(HTTP 302\) to another host/);
		expect(other.hits).toHaveLength(0);
	});

	test('a same-origin redirect of a read is followed (and still authenticated)', async () => {
		const order = f.sb.state.orders[1];
		const path = `/v2/core/stores/${f.sb.store.storeId}/orders/${order.id}`;
		f.sb.faults.add({ kind: 'redirect', status: 302, location: `${path}?via=redirect`, match: { path: /\/orders\/[^/]+$/ } });
		const r = await f.run({ resource: 'order', operation: 'get', orderId: rl(order.id) });
		expect(r.error()).toBeUndefined();
		expect(r.output()[0].json.id).toBe(order.id);
		expect(f.requests().map((q) => `${q.status} ${q.query.via ?? ''}`)).toEqual(['302 ', '200 redirect']);
	});

	/** The Order field's resource locator as n8n-core runs its search (a LoadOptionsContext of a real workflow). */
	async function orderLocatorContext(): Promise<LoadOptionsContext> {
		await ensureBinaryData();
		const loader = await loadPackage();
		const node: INode = {
			id: randomUUID(),
			name: 'Vault Store',
			type: NODE_TYPE,
			typeVersion: 1,
			position: [0, 0],
			parameters: { resource: 'order', operation: 'get' },
			credentials: credentialRefs(),
		};
		const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes: new PackageNodeTypes(loader) });
		const additional = makeAdditionalData(new TestCredentialsHelper(loader, f.credentials), undefined as never, 'ls');
		return new LoadOptionsContext(workflow, node, additional, 'orderId');
	}

	test('list search (resource locator) inside n8n-core: redirect refused, nothing reaches the other host', async () => {
		const ctx = await orderLocatorContext();
		f.sb.faults.add({ ...redirectTo(302), match: { path: /\/orders\/?$/ } });
		await expect(listSearch.searchOrders.call(ctx)).rejects.toThrow(/redirect \(HTTP 302\) to another host/);
		expect(other.hits).toHaveLength(0);
	});

	test('list search (resource locator) labels pass the output gate: no store key and no card number in the dropdown; ids and names unchanged', async () => {
		const ctx = await orderLocatorContext();
		const key = String(f.credentials.vaultStoreStoreApi.secretKey);
		const orders = [
			{ id: 'ord_000000000001', orderNumber: 1001, amount: 10, currency: 'EUR', customer: { id: 'cus_000000000001', email: `leak ${key}`, firstName: 'Card', lastName: '4242 4242 4242 4242' } },
			{ id: 'ord_000000000002', orderNumber: 1002, amount: 20, currency: 'EUR', customer: { id: 'cus_000000000002', email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace' } },
		];
		f.sb.faults.add({ kind: 'reply', status: 200, match: { path: /\/orders\/?$/ }, reply: { body: { ok: true, data: { items: orders, pagination: { page: 1, limit: 50, total: 2, totalPages: 1 } } } } });
		const { results } = await listSearch.searchOrders.call(ctx);
		const text = JSON.stringify(results);
		expect(text).not.toContain(key.slice(8));
		expect(text.replace(/\s/g, '')).not.toContain('4242424242424242');
		expect(results.map((r) => r.value)).toEqual(['ord_000000000001', 'ord_000000000002']);
		expect(results[1].name).toBe('#1002 · 20 EUR · Ada Lovelace <ada@example.com>');
	});

	test('trigger lifecycle (endpoint check at activation): redirect refused, nothing reaches the other host', async () => {
		const t = await createTrigger({ parameters: { events: ['PAYMENT_COMPLETED'], signatureVersion: 'V2', options: {} }, credentials: f.credentials });
		await t.create();
		f.sb.faults.add({ ...redirectTo(302), match: { method: 'GET', path: /\/webhooks\// } });
		await expect(t.checkExists()).rejects.toThrow(/redirect \(HTTP 302\) to another host/);
		expect(other.hits).toHaveLength(0);
		await t.delete();
	});

	test.each([
		['a 500', { kind: '500' as const }],
		['an error that echoes the request (key included)', { kind: 'echo' as const, status: 400 }],
		['a redirect to another host', { kind: 'redirect' as const, status: 307, location: '' }],
	])('trigger listening in the editor: the test-event request answered with %s still registers, logs one warning without secrets, sends nothing elsewhere', async (_label, fault) => {
		const t = await createTrigger({
			parameters: { events: ['PAYMENT_COMPLETED'], signatureVersion: 'V2', options: {} },
			credentials: f.credentials,
			webhookBaseUrl: 'https://n8n.example.test/webhook-test',
		});
		f.sb.faults.add({ ...fault, ...(fault.kind === 'redirect' ? { location: `${other.url}/steal` } : {}), count: 10, match: { method: 'POST', path: /\/webhooks\/[^/]+\/test$/ } });
		const start = logLines.length;
		expect(await t.create()).toBe(true);
		const id = t.staticData().webhookId as string;
		expect(f.sb.state.webhooks.some((w) => w.id === id)).toBe(true);
		const warnings = logLines.slice(start).filter((l) => l.startsWith('warn '));
		expect(warnings).toHaveLength(1);
		expect(warnings[0]).toContain('did not send a test event');
		expect(leaks(warnings[0])).toEqual([]);
		expect(other.hits).toHaveLength(0);
		f.sb.faults.clear();
		await t.delete();
	});

	test('report download: the pre-signed URL (another origin, allowed in "Allowed Download Hosts") gets no Authorization header', async () => {
		const report = f.sb.state.collections.reports as { id: string; status: string }[] | undefined;
		const done = report?.find((x) => x.status === 'SUCCEEDED');
		let reportId = done?.id;
		if (!reportId) {
			const created = await f.run({ resource: 'report', operation: 'create', type: 'PAYMENT_ACTIVITY', from: '2025-11-01T00:00:00.000Z', to: '2026-01-15T00:00:00.000Z' });
			reportId = created.output()[0].json.id as string;
			f.sb.clock.advance(10 * 60_000);
		}
		f.sb.faults.add({
			kind: 'reply',
			match: { path: /\/download\/CSV$/ },
			reply: { body: { ok: true, data: { reportId, format: 'CSV', url: `${other.url}/files/report.csv`, expiresAt: new Date(Date.now() + 300_000).toISOString() } } },
		});
		const r = await f.run({ resource: 'report', operation: 'download', reportId: rl(reportId), format: 'CSV', allowedDownloadHosts: new URL(other.url).host });
		expect(r.error()).toBeUndefined();
		expect(other.hits.map((h) => h.path)).toEqual(['/files/report.csv']);
		expect(other.hits[0].headers.authorization).toBeUndefined();
	});

	test('credential tests: a redirect to another host is not followed, and a Base URL that is not https (or loopback), or has a query, fragment, user or encoded character, is refused naming the field with nothing sent', async () => {
		const tests = [
			['vaultStoreStoreApi', f.credentials.vaultStoreStoreApi, /\/v2\/core\/stores\//],
			['vaultStoreVaultApi', f.credentials.vaultStoreVaultApi, /\/tokens$/],
		] as const;
		for (const [type, values, path] of tests) {
			f.sb.faults.add({ ...redirectTo(302), match: { path } });
			expect((await testCredential(type, values)).status).toBe('Error');
			expect(other.hits).toHaveLength(0);
			f.sb.clearRequests();
			for (const [bad, reason] of [
				['http://api.example.com', /must start with https:\/\//],
				['https://u:p@api.example.com', /must not contain a user name or password/],
				['https://api.example.com?x=1', /without a query or fragment/],
				['https://api.example.com/gw#x', /without a query or fragment/],
				['https://api.example.com/gw%2Fadmin', /has an encoded character \(%\)/],
				[`${other.url.replace('http://', 'ftp://')}`, /must start with https:\/\//],
			] as const) {
				expect(await testCredential(type, { ...values, baseUrl: bad })).toEqual({ status: 'Error', message: expect.stringMatching(/^Base URL: the address .*Nothing was sent\.$/) });
				expect((await testCredential(type, { ...values, baseUrl: bad })).message).toMatch(reason);
			}
			expect([f.requests().length, other.hits.length]).toEqual([0, 0]);
		}
	});
});

describe('2. no write is sent twice', () => {
	test('a connection refused before anything was sent is retried, even for a write without a key', async () => {
		// Nothing listens on the port at first; the sandbox's own port is used on the retry through a same-host credential.
		const closed = createServer();
		await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
		const port = (closed.address() as AddressInfo).port;
		await new Promise<void>((resolve) => closed.close(() => resolve()));
		const credentials = { ...f.credentials, vaultStoreStoreApi: { ...f.credentials.vaultStoreStoreApi, baseUrl: `http://127.0.0.1:${port}` } };
		const r = await f.run({ resource: 'category', operation: 'create', name: 'Refused', slug: `refused-${Date.now()}` }, undefined, { credentials: credentials as CredentialSet, continueOnFail: false });
		expect(r.error()?.message).toMatch(/Could not reach the service/);
		expect(r.error()?.description).toMatch(/ECONNREFUSED/);
		expect(r.error()?.description).toMatch(/failed after 4 attempt\(s\)/);
	});

	test('a 5xx after commit on a write without a key: one effect, and the error says it may have been applied', async () => {
		f.sb.faults.add({ kind: 'commit-then-500', match: { method: 'POST', path: /\/categories$/ } });
		const r = await f.run({ resource: 'category', operation: 'create', name: 'Once', slug: `once-${Date.now()}` });
		expect(r.error()?.message).toMatch(/may have applied it; check before running again/);
		expect(f.requests().filter((q) => q.method === 'POST' && q.effect)).toHaveLength(1);
		expect(f.requests().filter((q) => q.method === 'POST')).toHaveLength(1);
	});

	test('a DELETE whose answer was lost is retried; the 404 that follows counts as deleted', async () => {
		const created = await f.run({ resource: 'token', operation: 'create', tokenType: 'custom', data: JSON.stringify({ ref: randomUUID() }) });
		const tokenId = created.output()[0].json.id as string;
		f.sb.faults.add({ kind: 'drop-after-commit', match: { method: 'DELETE' } });
		const r = await f.run({ resource: 'token', operation: 'delete', tokenId: rl(tokenId) });
		expect(r.error()).toBeUndefined();
		expect(r.output()[0].json).toMatchObject({ deleted: true });
		expect(f.requests().filter((q) => q.method === 'DELETE' && q.effect)).toHaveLength(1);
	});
});

describe('3. no secret survives in an error, for every status class, with the service echoing the request', () => {
	const cases: { name: string; parameters: () => IDataObject; path: RegExp; credentials?: () => CredentialSet }[] = [
		{
			name: 'token create with card data (vault key, card number, CVC)',
			parameters: () => ({
				resource: 'token',
				operation: 'create',
				tokenType: 'card',
				cardNumber: CARD,
				expMonth: '12',
				expYear: String(new Date().getUTCFullYear() + 3),
				cvc: CVC,
			}),
			path: /\/tokens$/,
		},
		{
			name: 'refund (store secret key, Idempotency-Key)',
			parameters: () => ({
				resource: 'order',
				operation: 'refund',
				orderId: rl(f.sb.state.orders.find((o) => o.payment.status === 'COMPLETED')!.id),
				additionalFields: { amount: 0.01 },
			}),
			path: /\/refund$/,
		},
		{
			name: 'custom call with card data in the body',
			parameters: () => ({
				resource: 'custom',
				operation: 'request',
				method: 'POST',
				path: '/v2/core/stores/{storeId}/categories',
				body: JSON.stringify({ name: 'x', slug: 'echo-case', note: `card ${CARD.replace(/(\d{4})/g, '$1 ').trim()} cvc ${CVC}` }),
			}),
			path: /\/categories$/,
		},
	];
	const statuses = [400, 401, 403, 404, 409, 422, 429, 500, 503];

	describe.each(cases)('$name', (c) => {
		test.each(statuses)('HTTP %s echoing headers and body: the whole error and the continue-on-fail item are clean', async (status) => {
			const fault = { kind: 'echo' as const, status, match: { path: c.path }, count: 20, retryAfter: 0 };
			f.sb.faults.add(fault);
			const failed = await f.run({ ...c.parameters(), options: { maxRetries: 1 } });
			const error = failed.error();
			expect(error).toBeDefined();
			expect(leaks(serialise(error))).toEqual([]);
			// What n8n stores of the run (the workflow's own parameters in the execution stack are the user's input, not output).
			expect(leaks(serialise(failed.run.data.resultData))).toEqual([]);
			f.sb.faults.clear();
			f.sb.faults.add(fault);
			const continued = await f.run({ ...c.parameters(), options: { maxRetries: 1 } }, undefined, { continueOnFail: true });
			const items = continued.output();
			expect(items).toHaveLength(1);
			expect(items[0].json.error).toBeDefined();
			expect(leaks(serialise(items))).toEqual([]);
			expect(leaks(serialise(continued.run.data.resultData))).toEqual([]);
		});
	});

	test('a 300-character cut of the echo leaves no partial key (8+ characters of it)', async () => {
		const key = f.sb.store.secretKey;
		f.sb.faults.add({ kind: 'reply', status: 400, match: { path: /\/orders\// }, reply: { body: `${'x'.repeat(300 - 12)}Bearer ${key}` } });
		const r = await f.run({ resource: 'order', operation: 'get', orderId: rl(f.sb.state.orders[0].id) });
		expect(r.error()).toBeDefined();
		expect(leaks(serialise(r.error()))).toEqual([]);
	});
});

describe('4. Return All always ends', () => {
	const page = (query: Record<string, unknown>, size = 100) =>
		Array.from({ length: size }, (_, i) => ({ id: `ord_endless_${String(query.page)}_${i}`, status: 'PENDING' }));

	test('the same page forever (totalPages 1e9): stops with an error on the repeated page, after a bounded number of requests', async () => {
		f.sb.faults.add({
			kind: 'reply',
			match: { path: /\/orders\/?$/ },
			count: 100_000,
			reply: { body: { ok: true, data: { items: page({ page: 1 }), pagination: { page: 1, limit: 100, total: 1e11, totalPages: 1e9 } } } },
		});
		const r = await f.run({ resource: 'order', operation: 'getAll', returnAll: true, options: { maxItems: 100_000 } });
		expect(r.error()?.message).toMatch(/the list has more than 100000 items|same items as an earlier page/);
		expect(f.requests().length).toBeLessThanOrEqual(1);
	});

	test('the same page forever with a plausible total: stops at the first repeat', async () => {
		f.sb.faults.add({
			kind: 'reply',
			match: { path: /\/orders\/?$/ },
			count: 100_000,
			reply: { body: { ok: true, data: { items: page({ page: 1 }), pagination: { page: 1, limit: 100, total: 5000, totalPages: 50 } } } },
		});
		const r = await f.run({ resource: 'order', operation: 'getAll', returnAll: true });
		expect(r.error()?.message).toMatch(/same items as an earlier page/);
		expect(f.requests().length).toBeLessThanOrEqual(50);
	});

	test('always more pages, no totalPages: stops at the "Return All Maximum" ceiling with an error naming it', async () => {
		f.sb.faults.add({
			kind: 'reply',
			match: { path: /\/orders\/?$/ },
			count: 100_000,
			reply: { body: (q: Record<string, unknown>) => ({ ok: true, data: { items: page(q) } }) },
		});
		const r = await f.run({ resource: 'order', operation: 'getAll', returnAll: true, options: { maxItems: 1000 } });
		expect(r.error()?.message).toMatch(/more than 1000 items \(option "Return All Maximum"\)/);
		expect(f.requests().length).toBe(11);
	});

	test('totalPages 1e9 with fresh pages: concurrent fetching schedules no more pages than the ceiling allows', async () => {
		f.sb.faults.add({
			kind: 'reply',
			match: { path: /\/orders\/?$/ },
			count: 100_000,
			reply: { body: (q: Record<string, unknown>) => ({ ok: true, data: { items: page(q), pagination: { page: Number(q.page), limit: 100, totalPages: 1e9 } } }) },
		});
		const r = await f.run({ resource: 'order', operation: 'getAll', returnAll: true, options: { maxItems: 2000, concurrency: 10 } });
		expect(r.error()?.message).toMatch(/more than 2000 items/);
		expect(f.requests().length).toBe(21);
	});

	test('an empty page ends the list; items beyond the promised total end it too', async () => {
		f.sb.faults.add({
			kind: 'reply',
			match: { path: /\/orders\/?$/ },
			count: 100,
			reply: { body: (q: Record<string, unknown>) => ({ ok: true, data: { items: Number(q.page) <= 3 ? page(q) : [] } }) },
		});
		const empty = await f.run({ resource: 'order', operation: 'getAll', returnAll: true });
		expect(empty.error()).toBeUndefined();
		expect(empty.output()).toHaveLength(300);
		expect(f.requests()).toHaveLength(4);
		f.sb.faults.clear();
		f.sb.faults.add({
			kind: 'reply',
			match: { path: /\/orders\/?$/ },
			count: 100,
			reply: { body: (q: Record<string, unknown>) => ({ ok: true, data: { items: page(q), pagination: { total: 250 } } }) },
		});
		const total = await f.run({ resource: 'order', operation: 'getAll', returnAll: true });
		expect(total.error()).toBeUndefined();
		expect(f.requests()).toHaveLength(3);
	});
});

describe('6. the Base URL and keys are checked before anything is sent', () => {
	const withStore = (patch: Record<string, string>): CredentialSet => ({
		...f.credentials,
		vaultStoreStoreApi: { ...f.credentials.vaultStoreStoreApi, ...patch },
	});
	test.each([
		['http://api.example.invalid', /"Base URL" must start with https:\/\//],
		['https://api.example.invalid?x=1', /without a query or fragment/],
		['https://api.example.invalid#top', /without a query or fragment/],
		['https://api.example.invalid/gw%2Fadmin', /has an encoded character \(%\), a backslash/],
		['https://api.example.invalid/gw//x', /has a doubled slash in its path/],
		['https://user:pw@api.example.invalid', /must not contain a user name or password/],
		['https://api.example.invalid\n', /./],
		['ftp://api.example.invalid', /must start with https:\/\//],
	])('Base URL %j is refused with a message naming the field', async (baseUrl, message) => {
		const r = await f.run({ resource: 'order', operation: 'get', orderId: rl(f.sb.state.orders[0].id) }, undefined, { credentials: withStore({ baseUrl }) });
		if (baseUrl.endsWith('\n')) {
			// Trailing whitespace is trimmed; the host is still not loopback over plain https: it is only unreachable.
			expect(r.error()?.message).toBeDefined();
			return;
		}
		expect(r.error()?.message).toMatch(/Credential field "Base URL"/);
		expect(r.error()?.message).toMatch(message);
		expect(f.requests()).toHaveLength(0);
	});

	test.each(['http://localhost:1', 'http://127.0.0.2:1', 'http://[::1]:1'])('plain http on loopback (%s) is allowed', async (baseUrl) => {
		const r = await f.run({ resource: 'order', operation: 'get', orderId: rl(f.sb.state.orders[0].id) }, undefined, { credentials: withStore({ baseUrl }) });
		expect(r.error()?.message).toMatch(/Could not reach the service/);
		expect(r.error()?.message).not.toMatch(/Base URL/);
	});

	test('a Base URL with the path of a gateway in front of the service: every request goes below it, the key nowhere else', async () => {
		// A gateway on another port that serves the sandbox under /gw/vault-store and nothing else.
		const PREFIX = '/gw/vault-store';
		const seen: string[] = [];
		const gateway = createServer((req, res) => {
			seen.push(req.url ?? '');
			if (!(req.url ?? '').startsWith(`${PREFIX}/`)) {
				res.writeHead(404).end();
				return;
			}
			const target = new URL(f.sb.baseUrl);
			const upstream = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: (req.url ?? '').slice(PREFIX.length), headers: req.headers }, (answer) => {
				res.writeHead(answer.statusCode ?? 502, answer.headers);
				answer.pipe(res);
			});
			req.pipe(upstream);
		});
		await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
		try {
			const baseUrl = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}${PREFIX}/`;
			const order = f.sb.state.orders[0].id;
			const r = await f.run({ resource: 'order', operation: 'get', orderId: rl(order) }, undefined, { credentials: withStore({ baseUrl }) });
			expect(r.error()).toBeUndefined();
			expect(r.output()[0].json.id).toBe(order);
			const custom = await f.run({ resource: 'custom', operation: 'request', method: 'GET', path: '/v2/core/stores/{storeId}/customers' }, undefined, { credentials: withStore({ baseUrl }) });
			expect(custom.error()).toBeUndefined();
			expect(seen.length).toBeGreaterThanOrEqual(2);
			expect(seen.every((url) => url.startsWith(`${PREFIX}/v2/`))).toBe(true);
			// The store key still reaches the store's routes only.
			const vault = await f.run({ resource: 'custom', operation: 'request', method: 'GET', path: '/v2/workspaces/wks_x/vaults/vlt_x/tokens' }, undefined, { credentials: withStore({ baseUrl }) });
			expect(vault.error()?.message).toMatch(/only reaches this store's routes/);
		} finally {
			await new Promise((resolve) => gateway.close(resolve));
		}
	});

	test('a secret key with a line break is reported as such, not as a network problem', async () => {
		const r = await f.run({ resource: 'order', operation: 'get', orderId: rl(f.sb.state.orders[0].id) }, undefined, {
			credentials: withStore({ secretKey: `${f.sb.store.secretKey}\n` }),
		});
		expect(r.error()?.message).toBe('Credential field "Secret Key" contains spaces or line breaks');
		expect(f.requests()).toHaveLength(0);
	});
});

describe('7. Custom API Call paths cannot step out of /v2/', () => {
	test.each([
		'/v2/%2e%2e/%2e%2e/admin',
		'/v2/.%2e/admin',
		'/v2/%2E%2E/admin',
		'/v2/%252e%252e/admin',
		'/v2/core\\..\\..\\admin',
		'/v2/core/%2f../admin',
		'/v2/core%5c..%5cadmin',
		'/v2/../admin',
	])('%s is refused before any request', async (path) => {
		const r = await f.run({ resource: 'custom', operation: 'request', method: 'GET', path });
		expect(r.error()?.message).toMatch(/"Path"/);
		expect(f.requests()).toHaveLength(0);
	});
});

describe('8. junk answered with 200 is an error, never a success item', () => {
	const order = () => ({ resource: 'order', operation: 'get', orderId: rl(f.sb.state.orders[0].id) });
	test.each([
		['an HTML page', { kind: 'html' as const }, /an HTML page/],
		['an empty body', { kind: 'empty' as const }, /an empty body/],
		['a JSON body without the envelope', { kind: 'reply' as const, reply: { body: { id: 'ord_x' } } }, /\{ok: true, data\}/],
		['data that is a string', { kind: 'reply' as const, reply: { body: { ok: true, data: 'hello' } } }, /expected an object, got string/],
		['data that is a number', { kind: 'reply' as const, reply: { body: { ok: true, data: 42 } } }, /expected an object, got number/],
	])('%s', async (_name, fault, detail) => {
		f.sb.faults.add({ ...fault, match: { path: /\/orders\// } });
		const r = await f.run(order());
		expect(r.error()?.message).toMatch(/The service's answer was not what the API returns/);
		expect(`${r.error()?.message} ${r.error()?.description ?? ''}`).toMatch(detail);
		f.sb.faults.add({ ...fault, match: { path: /\/orders\// } });
		const continued = await f.run(order(), undefined, { continueOnFail: true });
		expect(continued.output()[0].json.error).toMatch(/not what the API returns/);
	});

	test('a list with null entries is a clear error, not a TypeError', async () => {
		f.sb.faults.add({ kind: 'reply', match: { path: /\/orders\/?$/ }, reply: { body: { ok: true, data: { items: [{ id: 'ord_a' }, null], pagination: { totalPages: 1 } } } } });
		const r = await f.run({ resource: 'order', operation: 'getAll', returnAll: true });
		expect(r.error()?.message).toMatch(/entry 2 of the list is null, not an object/);
	});
});

describe('10. messages say what actually happened', () => {
	test('a 422 without an Idempotency-Key does not mention one', async () => {
		f.sb.faults.add({ kind: 'reply', status: 422, match: { path: /\/categories$/ }, reply: { body: { ok: false, error: { code: 'invalid', message: 'slug is taken' } } } });
		const r = await f.run({ resource: 'category', operation: 'create', name: 'X', slug: `x-${Date.now()}` });
		expect(r.error()?.message).toBe('The service could not process the request (HTTP 422)');
		expect(`${r.error()?.message} ${r.error()?.description}`).not.toMatch(/Idempotency/);
	});

	test('a Retry-After longer than the node waits is reported as such, not as "retried with backoff"', async () => {
		f.sb.faults.add({ kind: '429', retryAfter: 3600, match: { path: /\/orders\// } });
		const r = await f.run({ resource: 'order', operation: 'get', orderId: rl(f.sb.state.orders[0].id) });
		expect(r.error()?.message).toBe('Rate limit reached (HTTP 429): the service asked to wait 3600 s, longer than the node waits (120 s)');
		expect(f.requests()).toHaveLength(1);
	});

	test('a 409 without a key is a conflict, not "the same Idempotency-Key is still being processed"', async () => {
		f.sb.faults.add({ kind: 'reply', status: 409, match: { path: /\/categories$/ }, reply: { body: { ok: false, error: { code: 'conflict', message: 'slug exists' } } } });
		const r = await f.run({ resource: 'category', operation: 'create', name: 'X', slug: `y-${Date.now()}` });
		expect(r.error()?.message).toBe('The service reported a conflict (HTTP 409)');
	});
});
