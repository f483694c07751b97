/**
 * Additional Query Parameters and Additional Body Fields: every operation
 * offers the first, every operation that sends a body the second (a row opts
 * out only with a reason), and what is typed there reaches the service.
 *
 * The table below needs a case for every operation: a new operation without
 * one, or one that does not carry the extras to the sandbox, fails here.
 */
import type { IDataObject, INodeTypeDescription } from 'n8n-workflow';

import type { SubscriptionRecord } from '../sandbox/resources/subscriptions';
import { extrasOf } from '../nodes/VaultStore/operation';
import { resources } from '../nodes/VaultStore/resources';
import { VaultStore } from '../nodes/VaultStore/VaultStore.node';
import { canonical } from './support/description-canon';
import { jsonOf, useSandbox } from './support/fixtures';
import { writeCases } from './support/write-operations';

const f = useSandbox({ orders: 20 });

const rl = (value: string) => ({ __rl: true, mode: 'id', value });
const pairs = (...list: [string, string][]) => ({ pair: list.map(([name, value]) => ({ name, value })) });

/** Parameters of the read operations (writes come from test/support/write-operations.ts): ids of a valid form are enough, a 404 is fine. */
const READS: Record<string, IDataObject> = {
	'analytics:getMonthlyRevenue': {},
	'analytics:getMrr': {},
	'analytics:getOverview': { from: '2026-01-01T00:00:00Z', to: '2026-01-31T00:00:00Z' },
	'analytics:getSubscriptionOverview': {},
	'case:get': { caseId: rl('cs_aaaaaaaaaaaaaaaa') },
	'case:getAll': {},
	'category:get': { categoryId: rl('ctg_aaaaaaaaaaaaaaaa') },
	'customer:getAll': {},
	'dispute:get': { disputeId: rl('dsp_aaaaaaaaaaaaaaaa') },
	'dispute:getAll': {},
	'license:get': { licenseId: rl('lic_aaaaaaaaaaaaaaaa') },
	'license:getAll': {},
	'meter:get': { productId: rl('prd_aaaaaaaaaaaaaaaa'), meterId: rl('mtr_aaaaaaaaaaaaaaaa') },
	'meter:getAll': { productId: rl('prd_aaaaaaaaaaaaaaaa') },
	'order:get': { orderId: rl('ord_aaaaaaaaaaaaaaaa') },
	'order:getAll': {},
	'payout:getAll': {},
	'payout:getBankAccounts': {},
	'payout:getCredits': {},
	'payout:getDebits': {},
	'product:get': { productId: rl('prd_aaaaaaaaaaaaaaaa') },
	'refund:get': { refundId: rl('ref_aaaaaaaaaaaaaaaa') },
	'refund:getAll': {},
	'report:download': { reportId: rl('rpt_aaaaaaaaaaaaaaaa'), format: 'CSV' },
	'report:get': { reportId: rl('rpt_aaaaaaaaaaaaaaaa') },
	'report:getAll': {},
	'search:resolve': { inputs: 'ord_aaaaaaaaaaaaaaaa' },
	'store:get': {},
	'store:getTaxDetails': {},
	'subscription:get': { subscriptionId: rl('sub_aaaaaaaaaaaaaaaa') },
	'subscription:getAll': {},
	'subscription:getUpcomingInvoice': { subscriptionId: rl('sub_aaaaaaaaaaaaaaaa') },
	'subscription:getUsage': { subscriptionId: rl('sub_aaaaaaaaaaaaaaaa') },
	'token:get': { tokenId: rl('tok_aaaaaaaaaaaaaaaa') },
	'token:getAll': {},
	'webhook:get': { webhookId: rl('whk_aaaaaaaaaaaaaaaa') },
};

/** Operations that opt out, with their reason in the row. */
const OPTED_OUT = ['custom:request'];

const operations = resources.flatMap((resource) => resource.operations.map((op) => ({ key: `${resource.value}:${op.value}`, resource, op })));

async function parametersOf(key: string, n: number): Promise<IDataObject> {
	const write = writeCases.find((c) => `${c.resource}:${c.operation}` === key);
	if (write) return await write.parameters(f.sb, n);
	const [resource, operation] = key.split(':');
	if (!(key in READS)) throw new Error(`test/extras.test.ts: no parameters for ${key}: add it to READS`);
	return { resource, operation, ...READS[key] };
}

describe('every operation offers the extras', () => {
	test('Additional Query Parameters everywhere, Additional Body Fields wherever a body is sent, but for the rows that say why not', () => {
		const shown = canonical(new VaultStore().description as INodeTypeDescription);
		const out: string[] = [];
		for (const { key, op } of operations) {
			const offered = extrasOf(op);
			const sendsBody = ['POST', 'PUT', 'PATCH'].includes(op.method);
			if (!offered.query || (sendsBody && !offered.body)) {
				out.push(key);
				// The reason is a sentence for the README table.
				expect([key, (op.noExtra?.query ?? 'x').length > 5, (op.noExtra?.body ?? 'x').length > 5]).toEqual([key, true, true]);
			}
			expect([key, 'additionalQueryParameters' in shown[key]]).toEqual([key, offered.query]);
			expect([key, 'additionalBodyFields' in shown[key]]).toEqual([key, offered.body]);
			expect([key, offered.body && !sendsBody]).toEqual([key, false]);
		}
		expect(out).toEqual(OPTED_OUT);
	});

	test('the table has parameters for every operation', () => {
		const writes = new Set(writeCases.map((c) => `${c.resource}:${c.operation}`));
		const missing = operations.map((o) => o.key).filter((key) => !OPTED_OUT.includes(key) && !writes.has(key) && !(key in READS));
		expect(missing).toEqual([]);
	});
});

describe.each(operations.filter((o) => !OPTED_OUT.includes(o.key)).map((o) => ({ ...o, body: extrasOf(o.op).body })))(
	'$key',
	({ key, body }) => {
		test(`one extra query parameter${body ? ' and one extra body field' : ''} reach the service`, async () => {
			const params = await parametersOf(key, 0);
			const run = await f.run(
				{
					...params,
					additionalQueryParameters: pairs(['vsExtraQuery', 'q 1']),
					...(body ? { additionalBodyFields: pairs(['vsExtraBody', '{"n":1,"list":[true,null]}']) } : {}),
				},
				undefined,
				{ continueOnFail: true },
			);
			// Whatever the service answers (an unknown id, a field it does not accept), the request carried both.
			const carrying = f.requests().filter((r) => r.query.vsExtraQuery === 'q 1');
			expect([key, carrying.length > 0, run.error()?.message]).toEqual([key, true, undefined]);
			if (body) {
				for (const r of carrying) expect([key, (r.body as IDataObject).vsExtraBody]).toEqual([key, { n: 1, list: [true, null] }]);
			}
		});
	},
);

describe('rules of the extras', () => {
	const orderId = () => f.sb.state.orders.find((o) => o.payment.status === 'COMPLETED')!.id;

	test("an extra replaces the node's own field of the same name, in the query and in the body", async () => {
		let r = await f.run({
			resource: 'order',
			operation: 'getAll',
			limit: 5,
			filters: { status: 'PENDING', search: 'a' },
			additionalQueryParameters: pairs(['status', 'COMPLETED'], ['orderStatus', 'PAID']),
		});
		expect(r.error()).toBeUndefined();
		expect(f.requests()[0].query).toMatchObject({ status: 'COMPLETED', search: 'a', orderStatus: 'PAID' });

		r = await f.run(
			{
				resource: 'order',
				operation: 'refund',
				orderId: rl(orderId()),
				additionalFields: { amount: 1, reason: 'from the field' },
				additionalBodyFields: pairs(['reason', 'from the extra'], ['refund_reason', 'duplicate']),
			},
			undefined,
			{ continueOnFail: true },
		);
		expect(f.requests()[0].body).toEqual({ amount: 1, reason: 'from the extra', refund_reason: 'duplicate' });
	});

	test.each([
		['Limit 3', { limit: 3 }, { page: '1', limit: '3' }, 3],
		['Return All', { returnAll: true }, { page: '1', limit: '100' }, 20],
	])('page and limit in Additional Query Parameters on a paged list (%s): the node sets them, and a warning says so once', async (_, shown, sent, count) => {
		const r = await f.run({ resource: 'order', operation: 'getAll', ...shown, additionalQueryParameters: pairs(['page', '5'], ['limit', '500'], ['vsExtraQuery', 'kept']) }, [{ json: {} }, { json: {} }]);
		expect(r.error()).toBeUndefined();
		expect(f.requests()[0].query).toMatchObject({ ...sent, vsExtraQuery: 'kept' });
		expect(r.output()).toHaveLength(2 * count);
		const warnings = r.hints().filter((h) => /^page and limit in Additional Query Parameters were not sent/.test(h.message));
		expect(warnings).toHaveLength(1);
		// Control: without them, no warning.
		const plain = await f.run({ resource: 'order', operation: 'getAll', ...shown, additionalQueryParameters: pairs(['vsExtraQuery', 'kept']) });
		expect(plain.hints().filter((h) => /Additional Query Parameters (was|were) not sent/.test(h.message))).toEqual([]);
	});

	test('body values that read as JSON are sent as JSON, the rest as text; query values as typed', async () => {
		await f.run(
			{
				resource: 'webhook',
				operation: 'update',
				webhookId: rl('whk_aaaaaaaaaaaaaaaa'),
				updateFields: {},
				additionalQueryParameters: pairs(['n', '12'], ['flag', 'true'], ['big', '1e3']),
				additionalBodyFields: pairs(
					['number', '12.5'],
					['yes', 'true'],
					['none', 'null'],
					['object', '{"a":[1,"b"]}'],
					['quoted', '"12"'],
					['text', 'plain text'],
					['almostJson', '{a: 1}'],
					['longId', '12345678901234567890'],
					['empty', ''],
				),
			},
			undefined,
			{ continueOnFail: true },
		);
		const [req] = f.requests();
		expect(req.query).toEqual({ n: '12', flag: 'true', big: '1e3' });
		expect(req.body).toEqual(
			JSON.parse(
				'{"number":12.5,"yes":true,"none":null,"object":{"a":[1,"b"]},"quoted":"12","text":"plain text","almostJson":"{a: 1}","longId":"12345678901234567890","empty":""}',
			),
		);
	});

	test('a body of only extras is sent: Subscription → Change with no Update Fields', async () => {
		const sub = f.sb.app.collection<SubscriptionRecord>('subscriptions').find((s) => s.status === 'ACTIVE')!;
		await f.run(
			{
				resource: 'subscription',
				operation: 'change',
				subscriptionId: rl(sub.id),
				prorationBehavior: 'IMMEDIATELY',
				additionalBodyFields: pairs(['seats', '3']),
			},
			undefined,
			{ continueOnFail: true },
		);
		expect(f.requests().map((q) => q.body)).toEqual([{ proration_behavior: 'IMMEDIATELY', seats: 3 }]);

		// Without them the change has nothing to change: refused before sending.
		const r = await f.run({ resource: 'subscription', operation: 'change', subscriptionId: rl(sub.id), prorationBehavior: 'IMMEDIATELY' });
		expect(r.error()?.message).toMatch(/"Update Fields" must set at least one of/);
		expect(r.error()?.description).toMatch(/Additional Body Fields/);
		expect(f.requests()).toHaveLength(0);
	});

	test('extras-only bodies of the other updates are sent too (token, product, meter, webhook)', async () => {
		const cases: IDataObject[] = [
			{ resource: 'token', operation: 'update', tokenId: rl('tok_aaaaaaaaaaaaaaaa') },
			{ resource: 'product', operation: 'update', productId: rl('prd_aaaaaaaaaaaaaaaa') },
			{ resource: 'meter', operation: 'update', productId: rl('prd_aaaaaaaaaaaaaaaa'), meterId: rl('mtr_aaaaaaaaaaaaaaaa') },
			{ resource: 'webhook', operation: 'update', webhookId: rl('whk_aaaaaaaaaaaaaaaa') },
		];
		for (const params of cases) {
			const refused = await f.run(params);
			expect([params.resource, refused.error()?.message]).toEqual([params.resource, expect.stringMatching(/update|change|Update Fields/i)]);
			expect(f.requests()).toHaveLength(0);
			await f.run({ ...params, additionalBodyFields: pairs(['label', 'x']) }, undefined, { continueOnFail: true });
			expect([params.resource, f.requests().map((q) => q.body)]).toEqual([params.resource, [{ label: 'x' }]]);
		}
	});

	test('a value without a name, or a name given twice, is an error naming the parameter, before anything is sent', async () => {
		const cases: [IDataObject, RegExp][] = [
			[{ additionalQueryParameters: pairs(['', 'COMPLETED']) }, /"Additional Query Parameters" has a value without a name/],
			[{ additionalQueryParameters: pairs(['status', 'a'], [' status ', 'b']) }, /"Additional Query Parameters" names "status" twice/],
			[{ additionalQueryParameters: pairs(['__proto__', '{}']) }, /"Additional Query Parameters" cannot send a field named __proto__/],
		];
		for (const [extra, message] of cases) {
			const r = await f.run({ resource: 'order', operation: 'getAll', ...extra });
			expect(r.error()?.message).toMatch(message);
			expect(f.requests()).toHaveLength(0);
		}
		const r = await f.run({
			resource: 'order',
			operation: 'refund',
			orderId: rl(orderId()),
			additionalBodyFields: pairs(['', '5']),
		});
		expect(r.error()?.message).toMatch(/"Additional Body Fields" has a value without a name/);
		expect(f.requests()).toHaveLength(0);
		// An empty row (no name, no value) is ignored.
		const ok = await f.run({ resource: 'order', operation: 'getAll', limit: 1, additionalQueryParameters: pairs(['', '']) });
		expect(ok.error()).toBeUndefined();
		expect(jsonOf(ok)).toHaveLength(1);
	});

	test('extras never become a header, the host or the path', async () => {
		await f.run(
			{
				resource: 'order',
				operation: 'get',
				orderId: rl(orderId()),
				additionalQueryParameters: pairs(['Authorization', 'Bearer other'], ['Host', 'evil.example'], ['path', '/v2/other']),
			},
			undefined,
			{ continueOnFail: true },
		);
		const [req] = f.requests();
		expect(req.path).toBe(`/v2/core/stores/${f.sb.store.storeId}/orders/${orderId()}`);
		expect(req.query).toEqual({ Authorization: 'Bearer other', Host: 'evil.example', path: '/v2/other' });
		expect(req.headers.host).toBe(new URL(f.sb.baseUrl).host);
		expect(req.headers.authorization).toBe('[redacted]');
		expect(f.sb.requests.length).toBeGreaterThan(0);

		await f.run(
			{
				resource: 'payout',
				operation: 'create',
				amount: 1,
				currency: 'USD',
				bankAccountId: 'bnk_aaaaaaaaaaaa',
				additionalBodyFields: pairs(['Idempotency-Key', 'mine'], ['Authorization', 'x']),
			},
			undefined,
			{ continueOnFail: true },
		);
		const [post] = f.requests();
		expect(post.body).toMatchObject({ 'Idempotency-Key': 'mine', Authorization: 'x' });
		expect(post.headers['idempotency-key']).not.toBe('mine');
		expect(post.headers.authorization).toBe('[redacted]');
	});
});

describe('a guessed filter the answer plainly ignored is named in a hint', () => {
	const page = (items: IDataObject[]) => ({ ok: true, data: { items, pagination: { page: 1, limit: 50, total: items.length, totalPages: 1 } } });
	const ord = (c: string) => `ord_${c.repeat(12)}`;

	test('Refund → Get Many by order: records of other orders give a hint pointing to Additional Query Parameters', async () => {
		f.sb.faults.add({ kind: 'reply', status: 200, match: { method: 'GET', path: /\/refunds$/ }, reply: { body: page([{ id: 'ref_1', orderId: ord('a') }, { id: 'ref_2', orderId: ord('b') }, { id: 'ref_3', orderId: ord('c') }]) } });
		const r = await f.run({ resource: 'refund', operation: 'getAll', filters: { orderId: ord('a') } });
		expect(r.error()).toBeUndefined();
		expect(f.requests()[0].query).toMatchObject({ orderId: ord('a') });
		expect(r.hints()).toEqual([
			expect.objectContaining({
				type: 'warning',
				message: expect.stringMatching(/seems to ignore "orderId" \(sent orderId=ord_a+\): 2 of 3 records have another orderId.*"Additional Query Parameters"/),
			}),
		]);
		// Skip Local Checks does not silence it: it is about the answer, not a check of the input.
		f.sb.faults.add({ kind: 'reply', status: 200, match: { method: 'GET', path: /\/refunds$/ }, reply: { body: page([{ id: 'ref_2', orderId: ord('b') }]) } });
		const again = await f.run({ resource: 'refund', operation: 'getAll', filters: { orderId: ord('a') }, options: { skipLocalChecks: true } });
		expect(again.hints()).toHaveLength(1);
	});

	/**
	 * The order and customer list filters whose names the service does not document (search text,
	 * sort, direction): each row is a guess the service ignored (the answer is not filtered or not in
	 * order: a hint names it and the field that corrects it) with its control (the same answer
	 * filtered or in order: no hint), against the polite sandbox too, which honours the names.
	 */
	const cus = (email: string, createdAt: string, extra: IDataObject = {}) => ({ id: `cus_${email.slice(0, 3)}${'x'.repeat(9)}`, email, firstName: 'A', lastName: 'B', createdAt, ...extra });
	const GUESSES: Array<{ name: string; params: IDataObject; path: RegExp; ignored: IDataObject[]; honoured: IDataObject[]; hint: RegExp }> = [
		{
			name: 'Customer → Get Many, Search',
			params: { resource: 'customer', operation: 'getAll', filters: { search: 'ada@' } },
			path: /\/customers$/,
			ignored: [cus('ada@example.com', '2026-01-02'), cus('bob@example.com', '2026-01-01')],
			honoured: [cus('ada@example.com', '2026-01-02')],
			hint: /ignore the text filter sent as "search": 1 of 2 records match "ada@" in none of email, firstName, lastName\. The list may not be filtered.*Additional Query Parameters/,
		},
		{
			name: 'Customer → Get Many, Sort By email ascending',
			params: { resource: 'customer', operation: 'getAll', filters: { sort: 'email', direction: 'asc' } },
			path: /\/customers$/,
			ignored: [cus('bob@example.com', '2026-01-02'), cus('ada@example.com', '2026-01-01')],
			honoured: [cus('ada@example.com', '2026-01-02'), cus('bob@example.com', '2026-01-01')],
			hint: /ignore the sort sent as "sort=email&direction=asc": the records are not in ascending order of email \(record 2\).*Additional Query Parameters/,
		},
		{
			name: 'Order → Get Many, Search',
			params: { resource: 'order', operation: 'getAll', filters: { search: 'ORD-1001' } },
			path: /\/orders\/?$/,
			ignored: [{ id: ord('a'), orderNumber: 'ORD-1001', customer: { email: 'a@x.io' } }, { id: ord('b'), orderNumber: 'ORD-2002', customer: { email: 'b@x.io' } }],
			honoured: [{ id: ord('a'), orderNumber: 'ORD-1001', customer: { email: 'a@x.io' } }],
			hint: /ignore the text filter sent as "search": 1 of 2 records match "ORD-1001" in none of orderNumber, customer\.email/,
		},
		{
			name: 'Order → Get Many, Sort Direction ascending',
			params: { resource: 'order', operation: 'getAll', filters: { sortDirection: 'asc' } },
			path: /\/orders\/?$/,
			ignored: [{ id: ord('a'), createdAt: '2026-01-02T00:00:00Z' }, { id: ord('b'), createdAt: '2026-01-01T00:00:00Z' }],
			honoured: [{ id: ord('b'), createdAt: '2026-01-01T00:00:00Z' }, { id: ord('a'), createdAt: '2026-01-02T00:00:00Z' }],
			hint: /ignore the sort sent as "sortDirection=asc": the records are not in ascending order of createdAt/,
		},
		{
			name: 'Order → Get Many, Status',
			params: { resource: 'order', operation: 'getAll', filters: { status: 'PENDING' } },
			path: /\/orders\/?$/,
			ignored: [{ id: ord('a'), status: 'PENDING' }, { id: ord('b'), status: 'COMPLETED' }],
			honoured: [{ id: ord('a'), status: 'PENDING' }],
			hint: /seems to ignore "status" \(sent status=PENDING\): 1 of 2 records have another status/,
		},
	];
	test.each(GUESSES)('$name: an answer that ignores it gives a hint naming it and where to correct it; an answer that honours it gives none', async (g) => {
		f.sb.faults.add({ kind: 'reply', status: 200, match: { method: 'GET', path: g.path }, reply: { body: page(g.ignored) } });
		const ignored = await f.run(g.params);
		expect(ignored.error()).toBeUndefined();
		expect(ignored.output()).toHaveLength(g.ignored.length); // the data is passed on unchanged
		expect(ignored.hints().map((h) => h.message).join('\n')).toMatch(g.hint);
		f.sb.faults.add({ kind: 'reply', status: 200, match: { method: 'GET', path: g.path }, reply: { body: page(g.honoured) } });
		const honoured = await f.run(g.params);
		expect(honoured.hints()).toEqual([]);
		// The polite sandbox honours the guessed names: no hint either.
		const polite = await f.run(g.params);
		expect(polite.error()).toBeUndefined();
		expect(polite.hints()).toEqual([]);
	});

	test('no hint when the records match, lack the field, or no filter was sent', async () => {
		const cases: [IDataObject, IDataObject[]][] = [
			[{ filters: { orderId: ord('a') } }, [{ id: 'ref_1', orderId: ord('a') }]],
			[{ filters: { orderId: ord('a') } }, [{ id: 'ref_1' }]],
			[{}, [{ id: 'ref_1', orderId: ord('a') }, { id: 'ref_2', orderId: ord('b') }]],
		];
		for (const [params, records] of cases) {
			f.sb.faults.add({ kind: 'reply', status: 200, match: { method: 'GET', path: /\/refunds$/ }, reply: { body: page(records) } });
			const r = await f.run({ resource: 'refund', operation: 'getAll', ...params });
			expect([params, r.error(), r.hints()]).toEqual([params, undefined, []]);
		}
	});

	test('disputes by status, licenses by product, and the test event type of Send Test', async () => {
		f.sb.faults.add({ kind: 'reply', status: 200, match: { method: 'GET', path: /\/disputes$/ }, reply: { body: page([{ id: 'dsp_1', status: 'WON' }, { id: 'dsp_2', status: 'LOST' }]) } });
		const disputes = await f.run({ resource: 'dispute', operation: 'getAll', filters: { status: 'won' } });
		expect(disputes.hints().map((h) => h.message)).toEqual([expect.stringMatching(/"status" \(sent status=won\): 1 of 2 records/)]);

		f.sb.faults.add({ kind: 'reply', status: 200, match: { method: 'GET', path: /\/licenses$/ }, reply: { body: page([{ id: 'lic_1', productId: 'prd_bbbbbbbbbbbb' }]) } });
		const licenses = await f.run({ resource: 'license', operation: 'getAll', filters: { productId: 'prd_aaaaaaaaaaaa' } });
		expect(licenses.hints().map((h) => h.message)).toEqual([expect.stringMatching(/"productId" .*1 of 1 records have another productId/)]);

		f.sb.faults.add({ kind: 'reply', status: 200, match: { method: 'POST', path: /\/test$/ }, reply: { body: { ok: true, data: { id: 'msg_1', eventType: 'PAYMENT_PENDING', test: true } } } });
		const test = await f.run({ resource: 'webhook', operation: 'sendTest', webhookId: rl('whk_aaaaaaaaaaaa'), eventType: 'PAYMENT_FAILED' });
		expect(test.hints().map((h) => h.message)).toEqual([expect.stringMatching(/"eventType" \(sent eventType=PAYMENT_FAILED\).*"Additional Body Fields"/)]);
	});
});
