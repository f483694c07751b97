/**
 * The node against the disagreeing sandbox (sandbox/disagree.ts): a service that answers every
 * detail the spec does not show otherwise than the node guesses it. One row per guess, run as a
 * user runs the node (a workflow in n8n-core, over HTTP), first against the default sandbox (the
 * control: no hint, no error, the data as asked) and then with the same call against the
 * disagreeing one, where the user must see a clear hint or error, or the service's data as it
 * sent it, never wrong data presented as right:
 *
 *   hint   an execution hint names the guess and where to correct it; the data passes unchanged
 *   error  the item fails saying what differs (and, for a money write, that it was made)
 *   as sent  the node makes no guess here: the service's data reaches the user as it sent it
 */
import { randomUUID } from 'node:crypto';

import { Container } from '@n8n/di';
import { BinaryDataService } from 'n8n-core';
import type { IDataObject } from 'n8n-workflow';

import type { CredentialSet, RunResult } from './support/harness';
import { logLines, runNodes } from './support/harness';
import { jsonOf, useSandbox } from './support/fixtures';
import { createTrigger, registeredEndpoint, withStoreFields } from './support/trigger-harness';
import { resources } from '../nodes/VaultStore/resources';
import { UNPLACED_ROOTS } from '../sandbox/disagree';
import { casesOf } from '../sandbox/resources/cases';
import type { Dispute } from '../sandbox/resources/disputes';
import { disputesOf } from '../sandbox/resources/disputes';
import type { SubscriptionRecord } from '../sandbox/resources/subscriptions';

const f = useSandbox();

const rl = (value: string) => ({ __rl: true, mode: 'id', value });

/** What a user sees of one call: the error, the execution hints, the items, the log lines it wrote. */
interface Seen {
	error?: string;
	hints: string[];
	items: IDataObject[];
	binary: boolean;
	logs: string[];
	/** The run, for row checks (undefined for the trigger row). */
	run?: RunResult;
}

function seen(run: RunResult, logStart: number): Seen {
	const error = run.error();
	return {
		error: error === undefined ? undefined : `${error.message} ${error.description ?? ''}`,
		hints: run.hints().map((h) => h.message),
		items: jsonOf(run),
		binary: run.output().some((item) => item.binary !== undefined),
		logs: logLines.slice(logStart),
		run,
	};
}

/** Runs the node (one Vault Store node with these parameters) and what the user sees of it. */
async function call(parameters: IDataObject): Promise<Seen> {
	const start = logLines.length;
	return seen(await f.run(parameters, undefined, { continueOnFail: false }), start);
}

type Mode = 'control' | 'disagreeing';

interface Row {
	/** The node's guess, where the spec shows nothing. */
	guess: string;
	/** What the disagreeing sandbox does instead. */
	service: string;
	/** What the user sees against it. */
	sees: 'hint' | 'error' | 'as sent';
	/** The user's call (a fresh one per mode: a money write gets its own order). */
	call: (mode: Mode) => Promise<Seen>;
	/** The hint, error or log line the disagreeing run must show. */
	expect?: RegExp;
	/** Row checks in both modes: the data, the requests. */
	check?: (s: Seen, mode: Mode) => void | Promise<void>;
	/**
	 * The route's root is a guess too, and the service answers it under the other root when
	 * disagreeing: this row shows its other guess alone, with the route where the node sends it
	 * (`sb.disagree.keepRoots`); the root has rows of its own (rootRow).
	 */
	keepRoots?: boolean;
}

// ------------------------------------------------------------------ helpers

const storePath = (root: 'core' | 'stores', sub: string) => `/v2/${root === 'core' ? 'core/' : ''}stores/${f.sb.store.storeId}${sub}`;

/** A store request straight to the sandbox (setup, and replaying what the node sent). */
async function service(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; data: IDataObject }> {
	const res = await fetch(`${f.sb.baseUrl}${path}`, {
		method,
		headers: { Authorization: `Bearer ${f.sb.store.secretKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	return { status: res.status, data: ((await res.json()) as { data: IDataObject }).data };
}

/** The ids the sandbox answers to the node's (first) request, sent again as it was: the list the node must pass on unchanged. */
async function answeredIds(): Promise<string[]> {
	const [req] = f.requests();
	const query = new URLSearchParams(Object.entries(req.query).map(([k, v]): [string, string] => [k, String(v)]));
	const res = await service('GET', `${req.path}?${query.toString()}`);
	return ((res.data.items ?? []) as IDataObject[]).map((r) => String(r.id));
}

/** Completed orders with nothing refunded yet, one per call. */
let nextOrder = 40;
function freshOrder() {
	for (;;) {
		const order = f.sb.state.orders.filter((o) => o.payment.status === 'COMPLETED')[nextOrder++];
		if (!f.sb.state.refunds.some((r) => r.orderId === order.id)) return order;
	}
}

const listed = (s: Seen) => s.items.map((i) => String(i.id));

/** The records the sandbox answers to the node's (first) request, sent again as it was. */
async function answeredRecords(): Promise<IDataObject[]> {
	const [req] = f.requests();
	const query = new URLSearchParams(Object.entries(req.query).map(([k, v]): [string, string] => [k, String(v)]));
	return ((await service('GET', `${req.path}?${query.toString()}`)).data.items ?? []) as IDataObject[];
}

/**
 * A list row: the filter is honoured in the control (no item carries a warning); disagreeing, the
 * hint names it, every item carries it as `listWarning`, and the records pass otherwise unchanged.
 */
function listRow(row: Omit<Row, 'call' | 'sees'> & { parameters: () => IDataObject; honoured: (items: IDataObject[]) => boolean }): Row {
	return {
		...row,
		sees: 'hint',
		call: async () => await call(row.parameters()),
		check: async (s, mode) => {
			expect(s.items.length).toBeGreaterThan(0);
			if (mode === 'control') {
				expect(row.honoured(s.items)).toBe(true);
				expect(s.items.filter((item) => 'listWarning' in item)).toEqual([]);
			} else {
				expect(row.honoured(s.items)).toBe(false);
				expect(listed(s)).toEqual(await answeredIds());
				// Every item of the unfiltered list says so, in the words of the hint; its own fields are the service's.
				for (const item of s.items) expect(String(item.listWarning)).toMatch(row.expect!);
				expect(s.items.map(({ listWarning: _warning, ...record }) => record)).toEqual(await answeredRecords());
			}
		},
	};
}

/**
 * An operation the spec names without a path: the node sends it under the root it guesses (its row's
 * family), and the disagreeing service serves it under the other root only (UNPLACED_ROOTS). The
 * control succeeds; disagreeing, the item fails (404, or 405 where another method has the path
 * there) and the error names the correction: a Custom API Call with the same method and the path
 * under the other root, which the row then runs and which succeeds.
 */
function rootRow(label: string, parameters: (mode: Mode) => IDataObject | Promise<IDataObject>, answered?: (out: IDataObject[]) => void): Row {
	return {
		guess: `${label}: sent under the root the node chooses for it`,
		service: 'serves it under the other root only',
		sees: 'error',
		call: async (mode) => await call(await parameters(mode)),
		expect: /\(HTTP 40[45]\).*If your account answers 40[45] here, use the Custom API Call resource.*Your account may serve it under \/v2\/(core\/)?stores instead of \/v2\/(core\/)?stores: try the Custom API Call resource with Method [A-Z]+ and Path \/v2\/(core\/)?stores\/\{storeId\}\//,
		check: async (s, mode) => {
			const sent = f.requests().filter((q) => q.path.startsWith('/v2/'));
			const req = sent[sent.length - 1];
			const id = f.sb.store.storeId;
			if (mode === 'control') {
				expect(req.status).toBeLessThan(300);
				answered?.(s.items);
				return;
			}
			// The correction the error names, exactly: the same method, the path under the other root.
			const other = req.path.startsWith(`/v2/core/stores/${id}/`) ? req.path.replace(`/v2/core/stores/${id}/`, '/v2/stores/{storeId}/') : req.path.replace(`/v2/stores/${id}/`, '/v2/core/stores/{storeId}/');
			expect(s.error).toContain(`Method ${req.method} and Path ${other}.`);
			const body = req.method === 'GET' || req.method === 'DELETE' ? {} : { body: JSON.stringify(req.body ?? {}) };
			const fixed = await call({ resource: 'custom', operation: 'request', method: req.method, path: other, ...body });
			expect(fixed.error).toBeUndefined();
			expect(f.requests().map((q) => `${q.method} ${q.path} ${q.status}`)).toEqual([`${req.method} ${other.replace('{storeId}', id)} ${req.method === 'POST' && /\/meters$/.test(other) ? 201 : 200}`]);
			answered?.(fixed.items);
		},
	};
}

const meterProduct = () => f.sb.state.products.find((p) => p.productType === 'SUBSCRIPTION')!;
/** A meter of the product, made at the root the service serves in this mode. */
async function newMeter(mode: Mode): Promise<string> {
	const res = await service('POST', storePath(mode === 'control' ? 'stores' : 'core', `/products/${meterProduct().id}/meters`), { name: 'Seats', eventName: 'seat', aggregation: 'SUM' });
	expect(res.status).toBe(201);
	return String(res.data.id);
}
const subscriptions = () => f.sb.app.collection<SubscriptionRecord>('subscriptions');
const usedSubscriptions = new Set<string>();
/** A subscription of this status no row has used yet (the control changes it). */
function freshSubscription(test: (s: SubscriptionRecord) => boolean): string {
	const found = subscriptions().find((s) => test(s) && !usedSubscriptions.has(s.id));
	if (found === undefined) throw new Error('no seeded subscription left');
	usedSubscriptions.add(found.id);
	return found.id;
}
const openDisputes = (): Dispute[] => disputesOf(f.sb.app).filter((d) => d.status === 'OPEN');
async function newEndpoint(): Promise<string> {
	const res = await service('POST', storePath('core', '/webhooks'), { url: `https://hooks.example.com/${randomUUID()}`, eventTypes: ['PAYMENT_FAILED'] });
	expect(res.status).toBe(201);
	return String(res.data.id);
}

const customer = () => f.sb.state.customers[5];
const sortedBy = (field: string) => (items: IDataObject[]) => items.every((r, i) => i === 0 || String(items[i - 1][field]) <= String(r[field]));

// ------------------------------------------------------------------ the matrix

const ROWS: Row[] = [
	listRow({
		guess: 'Customer → Get Many: the text filter is sent as "search"',
		service: 'reads q; search is ignored',
		parameters: () => ({ resource: 'customer', operation: 'getAll', filters: { search: customer().email } }),
		honoured: (items) => items.every((c) => c.email === customer().email),
		expect: /ignore the text filter sent as "search": \d+ of \d+ records match .* The list may not be filtered.*Additional Query Parameters/,
	}),
	listRow({
		guess: 'Customer → Get Many: the sort is sent as "sort" and "direction"',
		service: 'reads sort_by and sort_order; sort and direction are ignored',
		parameters: () => ({ resource: 'customer', operation: 'getAll', limit: 20, filters: { sort: 'email', direction: 'asc' } }),
		honoured: sortedBy('email'),
		expect: /ignore the sort sent as "sort=email&direction=asc": the records are not in ascending order of email.*Additional Query Parameters/,
	}),
	listRow({
		guess: 'Order → Get Many: the text filter is sent as "search"',
		service: 'reads q; search is ignored',
		parameters: () => ({ resource: 'order', operation: 'getAll', filters: { search: f.sb.state.orders[9].orderNumber } }),
		honoured: (items) => items.every((o) => o.orderNumber === f.sb.state.orders[9].orderNumber),
		expect: /ignore the text filter sent as "search": \d+ of \d+ records match .* in none of orderNumber, customer\.email/,
	}),
	listRow({
		guess: 'Order → Get Many: the sort direction is sent as "sortDirection"',
		service: 'reads sort_order; sortDirection is ignored',
		parameters: () => ({ resource: 'order', operation: 'getAll', limit: 20, filters: { sortDirection: 'asc' } }),
		honoured: sortedBy('createdAt'),
		expect: /ignore the sort sent as "sortDirection=asc": the records are not in ascending order of createdAt/,
	}),
	listRow({
		guess: 'Refund → Get Many: the order filter is sent as "orderId"',
		keepRoots: true,
		service: 'reads order_id; orderId is ignored',
		parameters: () => ({ resource: 'refund', operation: 'getAll', filters: { orderId: f.sb.state.refunds[0].orderId } }),
		honoured: (items) => items.every((r) => r.orderId === f.sb.state.refunds[0].orderId),
		expect: /seems to ignore "orderId" \(sent orderId=ord_\w+\): \d+ of \d+ records have another orderId.*"Additional Query Parameters"/,
	}),
	listRow({
		guess: 'Dispute → Get Many: the status filter is sent as "status"',
		keepRoots: true,
		service: 'reads state; status is ignored',
		parameters: () => ({ resource: 'dispute', operation: 'getAll', filters: { status: 'WON' } }),
		honoured: (items) => items.every((d) => d.status === 'WON'),
		expect: /seems to ignore "status" \(sent status=WON\): \d+ of \d+ records have another status/,
	}),
	listRow({
		guess: 'Dispute → Get Many: the order filter is sent as "orderId"',
		keepRoots: true,
		service: 'reads order_id; orderId is ignored',
		parameters: () => ({ resource: 'dispute', operation: 'getAll', filters: { orderId: disputedOrder() } }),
		honoured: (items) => items.every((d) => d.orderId === disputedOrder()),
		expect: /seems to ignore "orderId" \(sent orderId=ord_\w+\): \d+ of \d+ records have another orderId/,
	}),
	listRow({
		guess: 'License → Get Many: the status filter is sent as "status"',
		keepRoots: true,
		service: 'reads state; status is ignored',
		parameters: () => ({ resource: 'license', operation: 'getAll', limit: 100, filters: { status: 'CLAIMED' } }),
		honoured: (items) => items.every((l) => l.status === 'CLAIMED'),
		expect: /seems to ignore "status" \(sent status=CLAIMED\): \d+ of \d+ records have another status/,
	}),
	listRow({
		guess: 'License → Get Many: the product filter is sent as "productId"',
		keepRoots: true,
		service: 'reads product_id; productId is ignored',
		parameters: () => ({ resource: 'license', operation: 'getAll', limit: 100, filters: { productId: licensedProduct() } }),
		honoured: (items) => items.every((l) => l.productId === licensedProduct()),
		expect: /seems to ignore "productId" \(sent productId=prd_\w+\): \d+ of \d+ records have another productId/,
	}),
	{
		guess: 'Analytics → Get Overview: the range is sent as "range"',
		service: 'reads period; range is ignored (the answer covers its default, 30 days, and says so in its range)',
		sees: 'hint',
		call: async () => await call({ resource: 'analytics', operation: 'getOverview', range: '7d' }),
		expect: /seems to ignore "range" \(sent range=7d\): 1 of 1 records have another range.*"Additional Query Parameters"/,
		check: (s, mode) => {
			// The figures reach the user as the service sent them, with the range they cover.
			expect(s.items).toEqual([expect.objectContaining({ range: mode === 'control' ? '7d' : '30d' })]);
		},
	},
	{
		guess: 'Token → Create (bank account): the mask is whatever the service names it',
		service: 'names the mask bankName, lastFour, countryCode',
		sees: 'as sent',
		call: async () =>
			await call({ resource: 'token', operation: 'create', tokenType: 'bank_account', data: JSON.stringify({ account_number: '000123456789', bank_name: 'Sandbox Bank', country: 'DE' }) }),
		check: (s, mode) => {
			expect(s.items).toHaveLength(1);
			// Every mask field as the service sent it: nothing dropped, renamed or made up, no data.
			const stored = f.sb.state.tokens.get(String(s.items[0].id));
			expect(s.items[0].mask).toEqual(stored?.mask);
			expect(s.items[0].mask).toEqual(mode === 'control' ? { bank_name: 'Sandbox Bank', last4: '6789', country: 'DE' } : { bankName: 'Sandbox Bank', lastFour: '6789', countryCode: 'DE' });
			expect(s.items[0]).not.toHaveProperty('data');
		},
	},
	{
		guess: 'Token → Create (PII): the mask is whatever the service names it',
		service: 'names the mask lastChars',
		sees: 'as sent',
		call: async () => await call({ resource: 'token', operation: 'create', tokenType: 'pii', data: JSON.stringify({ value: 'AB-123-987' }) }),
		check: (s, mode) => {
			expect(s.items[0].mask).toEqual(mode === 'control' ? { last4: '-987' } : { lastChars: '-987' });
		},
	},
	{
		guess: 'Order → Refund: the answer\'s amount is the refund\'s',
		service: 'answers with the order\'s total as amount (the refund\'s own under refundedAmount)',
		sees: 'error',
		call: async () => await call({ resource: 'order', operation: 'refund', orderId: rl(freshOrder().id), additionalFields: { amount: 1 } }),
		expect: /The service recorded amount [\d.]+ where 1 was asked \(refund rfd_\w+\)\. The write was made and is not repeated.*read from "amount" of the answer.*set Options → "Recorded Amount Fields" to that name/,
		check: (s, mode) => {
			const [req] = f.requests();
			const orderId = req.path.split('/')[5];
			// The refund was made once, of 1, in both modes.
			expect(f.sb.state.refunds.filter((r) => r.orderId === orderId).map((r) => r.amount)).toEqual([1]);
			if (mode === 'control') expect(s.items).toEqual([expect.objectContaining({ amount: 1, orderId })]);
			else expect(s.items).toEqual([]);
		},
	},
	{
		guess: 'Payout → Create: the answer\'s amount is the amount asked',
		service: 'answers with the net amount (after the fee) as amount (the asked one under grossAmount)',
		sees: 'error',
		call: async () => await call({ resource: 'payout', operation: 'create', amount: 100 }),
		expect: /The service recorded amount 99\.75 where 100 was asked \(payout po_\w+\)\. The write was made and is not repeated.*read from "amount" of the answer.*set Options → "Recorded Amount Fields" to that name/,
		check: (s, mode) => {
			if (mode === 'control') expect(s.items).toEqual([expect.objectContaining({ amount: 100 })]);
		},
	},
	{
		guess: 'Checkout → Pay under a Maximum Amount: the session is read first at GET /checkouts/{sessionId}',
		service: 'has no such route (404)',
		sees: 'error',
		call: async () => {
			const session = await paylinkSession();
			return await call({ resource: 'checkout', operation: 'pay', sessionId: rl(session), options: { maxAmount: 10_000 } });
		},
		expect: /Refused: the amount of "Pay a checkout session" is not known before it is sent \(reading it first failed\).*Nothing was sent\. Reading GET \/checkouts\/cks_\w+ failed: Not found \(HTTP 404\)\. If your service gives the total at another route, set Options → "Total Read Route" to it/,
		check: (s, mode) => {
			const sent = f.requests().map((q) => `${q.method} ${q.path.replace(/cks_\w+/, '{sessionId}')}`);
			if (mode === 'control') {
				expect(sent).toEqual([`GET ${storePath('stores', '/checkouts/{sessionId}')}`, `POST ${storePath('stores', '/checkouts/{sessionId}/pay')}`]);
				expect(s.items).toEqual([expect.objectContaining({ status: 'PAID' })]);
			} else {
				expect(sent).toEqual([`GET ${storePath('stores', '/checkouts/{sessionId}')}`]); // the payment was not sent
			}
		},
	},
	{
		guess: 'Report → Download: the file comes from the Base URL\'s host',
		service: 'gives a download URL on another host',
		sees: 'error',
		call: async () => await call({ resource: 'report', operation: 'download', reportId: rl(await finishedReport()), format: 'CSV' }),
		expect: /The download URL the service returned is not allowed: its host 127\.0\.0\.1:\d+ is neither the Base URL's host nor in "Allowed Download Hosts".*Add the host there if you trust it/,
		check: (s, mode) => {
			if (mode === 'control') expect(s.binary).toBe(true);
			else expect(f.requests().map((q) => q.path)).toEqual([expect.stringMatching(/\/download\/CSV$/)]); // nothing fetched from the other host
		},
	},
	{
		guess: 'Report → Download with the other host in "Allowed Download Hosts": the correction the error names',
		service: 'gives a download URL on another host',
		sees: 'as sent',
		call: async () => {
			const other = new URL(await f.sb.app.otherOrigin()).host;
			return await call({ resource: 'report', operation: 'download', reportId: rl(await finishedReport()), format: 'CSV', allowedDownloadHosts: other });
		},
		check: async (s) => {
			const file = s.run!.output()[0].binary!.data;
			expect((await Container.get(BinaryDataService).getAsBuffer(file)).toString('utf8')).toMatch(/^created_at,order_id,/);
			// Fetched without the credential, from the other host in the disagreeing mode.
			const fetched = f.requests().find((q) => q.path.startsWith('/__files/'));
			expect(fetched?.headers.authorization).toBeUndefined();
		},
	},
	{
		guess: 'Trigger: the signing secret is long (whsec_ and 24 characters or more)',
		service: 'signs its deliveries with a short secret (an 8-byte key)',
		sees: 'as sent',
		call: async () => await triggerDelivery(),
		// A warning in n8n's log at activation (a trigger has no execution hints); deliveries verify.
		expect: /warn .*credential field "Webhook Signing Secret" is short.*It is used as given and deliveries signed with it verify/,
		check: (s) => {
			expect(s.error).toBeUndefined();
			expect(s.items).toEqual([expect.objectContaining({ event: 'PAYMENT_COMPLETED', data: { amount: 12.5 } })]);
		},
	},
	{
		guess: 'Routing: each route the node sends is the spec\'s, trailing slash included (Order → Get Many sends /orders/)',
		service: 'routes strictly: the trailing slash as registered, one root per route',
		sees: 'as sent',
		call: async () => await call({ resource: 'order', operation: 'getAll', limit: 5 }),
		check: (s) => {
			expect(s.items).toHaveLength(5);
			expect(f.requests().map((q) => q.path)).toEqual([storePath('core', '/orders/')]);
		},
	},
	{
		guess: 'Routing: a Custom API Call may leave out the trailing slash the spec writes (GET .../orders)',
		service: 'routes strictly: /orders is not /orders/',
		sees: 'error',
		call: async () => await call({ resource: 'custom', operation: 'request', method: 'GET', path: '/v2/core/stores/{storeId}/orders' }),
		expect: /Not found \(HTTP 404\).*Route GET \/v2\/core\/stores\/shp_\w+\/orders not found/,
	},
	rootRow('Refund → Get Many', () => ({ resource: 'refund', operation: 'getAll', limit: 5 })),
	rootRow('Refund → Get', () => ({ resource: 'refund', operation: 'get', refundId: rl(f.sb.state.refunds[0].id) }), (out) => expect(out).toEqual([expect.objectContaining({ id: f.sb.state.refunds[0].id })])),
	rootRow('Dispute → Get Many', () => ({ resource: 'dispute', operation: 'getAll', limit: 5 })),
	rootRow('Dispute → Get', () => ({ resource: 'dispute', operation: 'get', disputeId: rl(disputesOf(f.sb.app)[0].id) })),
	rootRow('Dispute → Submit Evidence', () => ({ resource: 'dispute', operation: 'submitEvidence', disputeId: rl(openDisputes()[0].id), evidenceFields: { explanation: 'The files were downloaded.' } })),
	rootRow('Meter → Get Many', () => ({ resource: 'meter', operation: 'getAll', productId: rl(meterProduct().id) })),
	rootRow('Meter → Create', () => ({ resource: 'meter', operation: 'create', productId: rl(meterProduct().id), name: 'Calls', eventName: 'call', aggregation: 'COUNT' })),
	rootRow('Meter → Get', async (mode) => ({ resource: 'meter', operation: 'get', productId: rl(meterProduct().id), meterId: rl(await newMeter(mode)) })),
	rootRow('Meter → Update', async (mode) => ({ resource: 'meter', operation: 'update', productId: rl(meterProduct().id), meterId: rl(await newMeter(mode)), updateFields: { name: 'Seats used' } })),
	rootRow('Meter → Delete', async (mode) => ({ resource: 'meter', operation: 'delete', productId: rl(meterProduct().id), meterId: rl(await newMeter(mode)) })),
	rootRow('Subscription → Cancel', () => ({ resource: 'subscription', operation: 'cancel', subscriptionId: rl(freshSubscription((s) => s.status === 'ACTIVE' && !s.endsAt && !s.cancelledAt)) })),
	rootRow('Subscription → Pause', () => ({ resource: 'subscription', operation: 'pause', subscriptionId: rl(freshSubscription((s) => s.status === 'ACTIVE' && !s.endsAt && !s.cancelledAt)) })),
	rootRow('Subscription → Resume', () => ({ resource: 'subscription', operation: 'resume', subscriptionId: rl(freshSubscription((s) => s.status === 'PAUSED')) })),
	rootRow('Webhook → Update', async () => ({ resource: 'webhook', operation: 'update', webhookId: rl(await newEndpoint()), updateFields: { note: 'moved' } })),
	rootRow('Case → Get Many', () => ({ resource: 'case', operation: 'getAll', limit: 2 })),
	rootRow('Case → Get', () => ({ resource: 'case', operation: 'get', caseId: rl(casesOf(f.sb.app)[0].id) })),
	rootRow('License → Get Many', () => ({ resource: 'license', operation: 'getAll', limit: 5 })),
	rootRow('Store → Get Tax Details', () => ({ resource: 'store', operation: 'getTaxDetails' })),
	rootRow('Analytics → Get Monthly Revenue', () => ({ resource: 'analytics', operation: 'getMonthlyRevenue', months: 3 })),
	rootRow('Payout → Get Many Credits', () => ({ resource: 'payout', operation: 'getCredits', limit: 2 })),
	rootRow('Payout → Get Many Debits', () => ({ resource: 'payout', operation: 'getDebits', limit: 2 })),
	{
		guess: 'Idempotency-Key: an Idempotency Key option used again for another order\'s refund of the same amount makes that refund',
		service: 'judges a key by the body alone: the same key and body on another order replays the first order\'s refund',
		sees: 'error',
		call: async (mode) => {
			const key = `reused-${mode}-${randomUUID().slice(0, 8)}`;
			const first = await call({ resource: 'order', operation: 'refund', orderId: rl(freshOrder().id), additionalFields: { amount: 2 }, options: { idempotencyKey: key } });
			expect(first.error === undefined || mode === 'disagreeing').toBe(true);
			return await call({ resource: 'order', operation: 'refund', orderId: rl(freshOrder().id), additionalFields: { amount: 2 }, options: { idempotencyKey: key } });
		},
		expect: /answered with the stored result of an earlier request with the same Idempotency-Key \(a replay\), made for orderId ord_\w+, not ord_\w+: nothing was done for this request.*Give each write its own key/,
		check: (s, mode) => {
			const orderId = f.requests()[0].path.split('/')[5];
			const made = f.sb.state.refunds.filter((r) => r.orderId === orderId);
			if (mode === 'control') {
				expect(made).toHaveLength(1);
				expect(s.items).toEqual([expect.objectContaining({ orderId })]);
			} else {
				expect(made).toHaveLength(0); // nothing was refunded for this order
				expect(s.items).toEqual([]);
			}
		},
	},
	{
		guess: 'Idempotency-Key: an Idempotency Key option used again to pay another checkout session pays that session',
		service: 'judges a key by the body alone: the same key and body ({}) on another session replays the first session\'s payment',
		sees: 'error',
		call: async (mode) => {
			const key = `pay-${mode}-${randomUUID().slice(0, 8)}`;
			const first = await call({ resource: 'checkout', operation: 'pay', sessionId: rl(await paylinkSession()), options: { idempotencyKey: key } });
			expect(first.error).toBeUndefined();
			return await call({ resource: 'checkout', operation: 'pay', sessionId: rl(await paylinkSession()), options: { idempotencyKey: key } });
		},
		expect: /answered with the stored result of an earlier request with the same Idempotency-Key \(a replay\), made for sessionId cks_\w+, not cks_\w+: nothing was done for this request/,
		check: (s, mode) => {
			const sessionId = f.requests()[0].path.split('/')[5];
			const session = (f.sb.state.collections.checkoutSessions as { id: string; status: string }[]).find((x) => x.id === sessionId);
			expect(session?.status).toBe(mode === 'control' ? 'PAID' : 'OPEN'); // disagreeing: this session was not paid
			if (mode === 'control') expect(s.items).toEqual([expect.objectContaining({ id: sessionId, status: 'PAID' })]);
			else expect(s.items).toEqual([]);
		},
	},
	{
		guess: 'Idempotency-Key: an Idempotency Key option used again for a payout after a refund is another request',
		service: 'judges a key by the body alone, whatever the route: another body is 422',
		sees: 'error',
		call: async (mode) => {
			const key = `shared-${mode}-${randomUUID().slice(0, 8)}`;
			await call({ resource: 'order', operation: 'refund', orderId: rl(freshOrder().id), options: { idempotencyKey: key } });
			return await call({ resource: 'payout', operation: 'create', amount: 5, options: { idempotencyKey: key } });
		},
		expect: /The Idempotency-Key was already used with a different request body.*Send a new Idempotency-Key for a different request/,
	},
	{
		guess: 'Idempotency-Key: the keys the node derives are its own per node and item, whatever the service scopes them to',
		service: 'judges a key by the body alone, whatever the route',
		sees: 'as sent',
		call: async () => await twoFullRefunds(),
		check: (s) => {
			// Two nodes, one item, the same body ({}): two keys, two refunds, each of its own order.
			const [a, b] = s.items;
			expect(a.orderId).not.toBe(b.orderId);
			for (const refund of [a, b]) expect(f.sb.state.refunds.filter((r) => r.orderId === refund.orderId)).toHaveLength(1);
		},
	},
];

// ------------------------------------------------------------------ setup of some rows

function disputedOrder(): string {
	return String((f.sb.state.collections.disputes as IDataObject[])[0].orderId);
}

function licensedProduct(): string {
	const claimed = f.sb.state.licenses.find((l) => l.status === 'CLAIMED');
	return String(claimed?.productId);
}

async function paylinkSession(): Promise<string> {
	const paylink = (f.sb.state.collections.checkoutPaylinks as { id: string; active: boolean }[]).find((p) => p.active)!;
	const res = await fetch(`${f.sb.baseUrl}/v2/storefront/paylinks/${paylink.id}/checkout`, { method: 'POST' });
	return ((await res.json()) as { data: { id: string } }).data.id;
}

async function finishedReport(): Promise<string> {
	const res = await service('POST', storePath('stores', '/reports'), { type: 'PAYMENT_ACTIVITY', from: '2025-11-01T00:00:00.000Z', to: '2026-01-15T00:00:00.000Z' });
	expect(res.status).toBe(201);
	f.sb.clock.advance(10 * 60_000);
	return String(res.data.id);
}

/** Two Vault Store nodes in one workflow, each refunding its own order in full (the same body, {}), on one item. */
async function twoFullRefunds(): Promise<Seen> {
	const start = logLines.length;
	const [a, b] = [freshOrder(), freshOrder()];
	f.sb.clearRequests();
	const run = await runNodes(
		[
			{ name: 'Refund A', parameters: { resource: 'order', operation: 'refund', orderId: rl(a.id) } },
			{ name: 'Refund B', parameters: { resource: 'order', operation: 'refund', orderId: rl(b.id) } },
		],
		f.credentials,
	);
	const shown = seen(run, start);
	return { ...shown, error: run.error('Refund A')?.message ?? shown.error, hints: [...run.hints('Refund A').map((h) => h.message), ...shown.hints], items: [...jsonOf(run, 'Refund A'), ...shown.items] };
}

/** The trigger activated with the store credential, then one delivery as the sandbox signs it. */
async function triggerDelivery(): Promise<Seen> {
	const start = logLines.length;
	const credentials = withStoreFields(f.credentials) as CredentialSet;
	const t = await createTrigger({
		parameters: { events: ['PAYMENT_COMPLETED'], signatureVersion: 'V2', options: {} },
		credentials,
		// Nothing listens there: the sandbox's attempt is recorded with the bytes and headers it signed.
		webhookBaseUrl: 'http://127.0.0.1:9/webhook',
	});
	try {
		await t.activate();
		const endpoint = registeredEndpoint(f.sb.state.webhooks, t);
		const before = f.sb.deliveries.length;
		f.sb.app.deliver(endpoint.id, 'PAYMENT_COMPLETED', { amount: 12.5 });
		const [attempt] = (await f.sb.waitForDeliveries(before + 1)).slice(before);
		const delivered = await t.deliver({ rawBody: Buffer.from(attempt.body), headers: attempt.headers });
		return {
			error: delivered.status === 200 ? undefined : `delivery answered ${delivered.status}: ${JSON.stringify(delivered.body)}`,
			hints: [],
			items: delivered.items.map((i) => i.json),
			binary: false,
			logs: logLines.slice(start),
		};
	} finally {
		await t.delete();
	}
}

beforeAll(async () => {
	// Refunds of a few orders, for the refund list rows.
	for (let i = 0; i < 3; i++) {
		const res = await service('POST', storePath('stores', `/orders/${freshOrder().id}/refund`), { amount: 1 }, { 'Idempotency-Key': `seed-refund-${i}` });
		expect(res.status).toBe(201);
	}
});

describe('the node against a service that disagrees with every guess: a hint, an error or the data as sent, never wrong data', () => {
	test.each(ROWS)('$guess → disagreeing: $service → the user sees: $sees', async (row) => {
		// The control: the default sandbox, which answers as the node guesses.
		f.sb.disagree.on = false;
		const control = await row.call('control');
		expect(control.error).toBeUndefined();
		expect(control.hints.filter((h) => /seems to ignore|does not show|not checked|answered with the stored result/.test(h))).toEqual([]);
		if (row.expect !== undefined) {
			expect(control.hints.join('\n')).not.toMatch(row.expect);
			expect(control.logs.join('\n')).not.toMatch(row.expect);
		}
		await row.check?.(control, 'control');

		// The same call against the disagreeing sandbox.
		f.sb.disagree.on = true;
		f.sb.disagree.keepRoots = row.keepRoots === true;
		const shown = await row.call('disagreeing');
		if (row.sees === 'error') {
			expect(shown.error).toMatch(row.expect!);
		} else {
			expect(shown.error).toBeUndefined();
		}
		if (row.sees === 'hint') {
			expect(shown.hints.join('\n')).toMatch(row.expect!);
		}
		if (row.sees === 'as sent' && row.expect !== undefined) {
			expect([...shown.hints, ...shown.logs].join('\n')).toMatch(row.expect);
		}
		await row.check?.(shown, 'disagreeing');
	});
});

/**
 * The corrections the errors above name, set in the node's Options: against the disagreeing
 * service the money writes work and the read-back compares the number the service recorded. Each
 * test has its control (the same call without the correction fails naming the option) and shows
 * the corrected names are the ones read (a correction pointing at another number is caught).
 */
describe('the options the errors name correct the guesses: against the disagreeing service the money writes work', () => {
	/** What the disagreeing service serves instead of GET /checkouts/{sessionId} (sandbox/resources/checkout.ts). */
	const SUMMARY = { totalReadRoute: '/checkouts/{sessionId}/summary', totalAmountFields: 'grandTotal', totalCurrencyFields: 'currencyCode' };
	const session = (id: string) => (f.sb.state.collections.checkoutSessions as { id: string; status: string; amount: number; currency: string }[]).find((x) => x.id === id)!;
	const sent = () => f.requests().map((q) => `${q.method} ${q.path.replace(/cks_\w+/, '{sessionId}')}`);

	beforeEach(() => {
		f.sb.disagree.on = true;
	});

	test('Checkout → Pay under a Maximum Amount: with Total Read Route, Total Amount Fields and Total Currency Fields set, the total is read there and the session is paid; control: without them, refused naming the option', async () => {
		const unpaid = await paylinkSession();
		const without = await call({ resource: 'checkout', operation: 'pay', sessionId: rl(unpaid), options: { maxAmount: 10_000 } });
		expect(without.error).toMatch(/reading it first failed.*set Options → "Total Read Route"/);
		expect(session(unpaid).status).toBe('OPEN');

		const id = await paylinkSession();
		const paid = await call({ resource: 'checkout', operation: 'pay', sessionId: rl(id), options: { maxAmount: 10_000, ...SUMMARY } });
		expect(paid.error).toBeUndefined();
		expect(sent()).toEqual([`GET ${storePath('stores', '/checkouts/{sessionId}/summary')}`, `POST ${storePath('stores', '/checkouts/{sessionId}/pay')}`]);
		expect(session(id).status).toBe('PAID');
		expect(paid.items).toEqual([expect.objectContaining({ id, status: 'PAID' })]);
		expect(paid.hints.filter((h) => /does not show|no currency/.test(h))).toEqual([]);
	});

	test('Checkout → Pay: the total read at the corrected route is the one held to the Maximum Amount (a maximum below it refuses; nothing is paid)', async () => {
		const id = await paylinkSession();
		const total = session(id).amount;
		const r = await call({ resource: 'checkout', operation: 'pay', sessionId: rl(id), options: { maxAmount: total - 0.01, ...SUMMARY } });
		expect(r.error).toMatch(new RegExp(`^Refused: the amount ${total} is above the maximum of ${total - 0.01}`));
		expect(sent()).toEqual([`GET ${storePath('stores', '/checkouts/{sessionId}/summary')}`]);
		expect(session(id).status).toBe('OPEN');
	});

	test('Checkout → Pay: the route corrected but not the names: refused naming "Total Amount Fields" and the fields the answer has; nothing is paid', async () => {
		const id = await paylinkSession();
		const r = await call({ resource: 'checkout', operation: 'pay', sessionId: rl(id), options: { maxAmount: 10_000, totalReadRoute: SUMMARY.totalReadRoute } });
		expect(r.error).toMatch(/not known before it is sent \(the answer read first has no amount under amount, total, totalAmount\).*the fields sessionId, state, grandTotal, currencyCode\. If your service names the total differently, set Options → "Total Amount Fields"/);
		expect(session(id).status).toBe('OPEN');
	});

	test('Checkout → Pay under a spending budget: the currency read under Total Currency Fields is the budget\'s; without it, a warning names the option and the store\'s currency counts', async () => {
		const id = await paylinkSession();
		const r = await call({ resource: 'checkout', operation: 'pay', sessionId: rl(id), options: { maxTotalPerExecution: 10_000, ...SUMMARY } });
		expect(r.error).toBeUndefined();
		expect(r.items).toEqual([expect.objectContaining({ budgetLeft: expect.objectContaining({ currency: session(id).currency }) })]);

		const other = await paylinkSession();
		const { totalCurrencyFields: _currency, ...amountOnly } = SUMMARY;
		const warned = await call({ resource: 'checkout', operation: 'pay', sessionId: rl(other), options: { maxTotalPerExecution: 10_000, ...amountOnly } });
		expect(warned.error).toBeUndefined();
		expect(warned.hints.join('\n')).toMatch(/has no currency under currency: .* set Options → "Total Currency Fields" to its name/);
		// The budget counts it in the store's currency, read from the store.
		expect(warned.items).toEqual([expect.objectContaining({ budgetLeft: expect.objectContaining({ currency: f.sb.state.store.currency }) })]);
	});

	test('Order → Refund with Recorded Amount Fields "refundedAmount, amount": the refund\'s own amount is compared (no error, no warning), in both services', async () => {
		for (const disagree of [true, false]) {
			f.sb.disagree.on = disagree;
			const order = freshOrder();
			const r = await call({ resource: 'order', operation: 'refund', orderId: rl(order.id), additionalFields: { amount: 1 }, options: { recordedAmountFields: 'refundedAmount, amount' } });
			expect(r.error).toBeUndefined();
			expect(r.hints.filter((h) => /does not show|recorded amount/.test(h))).toEqual([]);
			expect(f.sb.state.refunds.filter((x) => x.orderId === order.id).map((x) => x.amount)).toEqual([1]);
			// The items are the service's answer as sent: disagreeing, its amount is the order's total.
			expect(r.items).toEqual([expect.objectContaining(disagree ? { refundedAmount: 1, amount: order.payment.totalAmount } : { amount: 1 })]);
		}
	});

	test('Payout → Create with Recorded Amount Fields "grossAmount, amount" works; set to "fee" (another number), the read-back catches the difference', async () => {
		const ok = await call({ resource: 'payout', operation: 'create', amount: 100, options: { recordedAmountFields: 'grossAmount, amount' } });
		expect(ok.error).toBeUndefined();
		expect(ok.items).toEqual([expect.objectContaining({ grossAmount: 100, amount: 99.75 })]);

		const wrong = await call({ resource: 'payout', operation: 'create', amount: 100, options: { recordedAmountFields: 'fee' } });
		expect(wrong.error).toMatch(/The service recorded amount 0\.25 where 100 was asked \(payout po_\w+\).*read from "fee" of the answer.*"Recorded Amount Fields"/);
	});
});

describe('the roots the node chooses for the routes the spec does not place', () => {
	test('each such row of the node is a row above, and the disagreeing service serves it under the other root only', () => {
		const guessed = resources.flatMap((r) => r.operations.filter((op) => op.inferred === true && (op.family === 'core' || op.family === 'stores')).map((op) => ({ label: `${r.name} → ${op.name}`, key: `${op.method} ${op.path.replace(/\{(\w+)\}/g, ':$1')}`, family: op.family })));
		expect(guessed.length).toBeGreaterThan(0);
		for (const row of guessed) {
			expect({ route: row.key, servedUnder: UNPLACED_ROOTS[row.key] }).toEqual({ route: row.key, servedUnder: row.family === 'core' ? 'stores' : 'core' });
			expect(ROWS.map((r) => r.guess)).toContain(`${row.label}: sent under the root the node chooses for it`);
		}
		// And nothing else: every route of the table is a guess of the node's.
		expect(Object.keys(UNPLACED_ROOTS).sort()).toEqual(guessed.map((r) => r.key).sort());
	});
});
