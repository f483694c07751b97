import { readFileSync } from 'node:fs';
import path from 'node:path';

import type { IDataObject, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { VaultStore } from '../nodes/VaultStore/VaultStore.node';
import type { Dispute } from '../sandbox/resources/disputes';
import { disputesOf, PREVENTION_FEE } from '../sandbox/resources/disputes';
import { jsonOf, useSandbox, useWebhookReceiver } from './support/fixtures';

const f = useSandbox({ orders: 60 });

const stores = (sub: string) => `/v2/stores/${f.sb.store.storeId}${sub}`;
const rl = (value: string) => ({ __rl: true, mode: 'id', value });
const disputes = (): Dispute[] => disputesOf(f.sb.app);
const withStatus = (status: Dispute['status']) => disputes().filter((d) => d.status === status);

/** An input item carrying binary properties in n8n's default (in-memory, base64) mode. */
function binaryItem(files: Record<string, { content: Buffer; fileName?: string; mimeType?: string }>): INodeExecutionData[] {
	const binary: INodeExecutionData['binary'] = {};
	for (const [name, file] of Object.entries(files)) {
		binary[name] = {
			data: file.content.toString('base64'),
			mimeType: file.mimeType ?? 'application/octet-stream',
			fileName: file.fileName,
		};
	}
	return [{ json: {}, binary }];
}

async function dev(method: 'GET' | 'POST', sub: string, body?: IDataObject): Promise<{ status: number; data: IDataObject }> {
	const res = await fetch(`${f.sb.baseUrl}${sub}`, {
		method,
		headers: body ? { 'content-type': 'application/json' } : undefined,
		body: body ? JSON.stringify(body) : undefined,
	});
	const json = (await res.json()) as { data: IDataObject };
	return { status: res.status, data: json.data };
}

const receiver = useWebhookReceiver();

describe('dispute operations (inferred routes under /v2/stores)', () => {
	test('getAll with Return All and a status filter sends page/limit/status and returns only that status', async () => {
		const open = withStatus('OPEN');
		expect(open.length).toBeGreaterThan(0);
		const r = await f.run({ resource: 'dispute', operation: 'getAll', returnAll: true, filters: { status: 'OPEN' } });
		expect(r.error()).toBeUndefined();
		const reqs = f.requests();
		expect(reqs).toHaveLength(1);
		expect(reqs[0].method).toBe('GET');
		expect(reqs[0].path).toBe(stores('/disputes'));
		expect(reqs[0].query).toEqual({ page: '1', limit: '100', status: 'OPEN' });
		const out = jsonOf(r);
		expect(out.map((d) => d.id).sort()).toEqual(open.map((d) => d.id).sort());
		expect(out.every((d) => d.status === 'OPEN')).toBe(true);
	});

	test('getAll with Limit 2 asks for 2 and filters by order', async () => {
		const r = await f.run({ resource: 'dispute', operation: 'getAll', returnAll: false, limit: 2 });
		expect(jsonOf(r)).toHaveLength(2);
		expect(f.requests()[0].query).toEqual({ page: '1', limit: '2' });

		const target = disputes()[0];
		const r2 = await f.run({ resource: 'dispute', operation: 'getAll', returnAll: true, filters: { orderId: target.orderId } });
		expect(f.requests()[0].query).toEqual({ page: '1', limit: '100', orderId: target.orderId });
		expect(jsonOf(r2).map((d) => d.orderId)).toContain(target.orderId);
		expect(jsonOf(r2).every((d) => d.orderId === target.orderId)).toBe(true);
	});

	test('get fetches one dispute by id', async () => {
		const target = withStatus('WON')[0];
		const r = await f.run({ resource: 'dispute', operation: 'get', disputeId: rl(target.id) });
		expect(r.error()).toBeUndefined();
		const [req] = f.requests();
		expect([req.method, req.path]).toEqual(['GET', stores(`/disputes/${target.id}`)]);
		const [out] = jsonOf(r);
		expect(out).toMatchObject({ id: target.id, orderId: target.orderId, status: 'WON', amount: target.amount });
	});

	test('submitEvidence sends the text fields and each binary property base64 in files; empty fields are not sent', async () => {
		const target = withStatus('OPEN')[0];
		const receipt = Buffer.from('%PDF-1.4 receipt of the order\n');
		const screenshot = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 1, 2, 255]);
		const r = await f.run(
			{
				resource: 'dispute',
				operation: 'submitEvidence',
				disputeId: rl(target.id),
				evidenceFields: { explanation: 'The customer downloaded the files.', trackingNumber: '1Z999', productDescription: '' },
				binaryProperties: ' receipt , screenshot ',
			},
			binaryItem({
				receipt: { content: receipt, fileName: 'receipt.pdf', mimeType: 'application/pdf' },
				screenshot: { content: screenshot, fileName: 'download-log.png', mimeType: 'image/png' },
			}),
		);
		expect(r.error()).toBeUndefined();
		const reqs = f.requests();
		expect(reqs).toHaveLength(1);
		expect([reqs[0].method, reqs[0].path]).toEqual(['POST', stores(`/disputes/${target.id}/evidence`)]);
		expect(reqs[0].body).toEqual({
			explanation: 'The customer downloaded the files.',
			trackingNumber: '1Z999',
			files: [
				{ fileName: 'receipt.pdf', mimeType: 'application/pdf', data: receipt.toString('base64') },
				{ fileName: 'download-log.png', mimeType: 'image/png', data: screenshot.toString('base64') },
			],
		});
		const [out] = jsonOf(r);
		expect(out.status).toBe('UNDER_REVIEW');
		expect(out.evidence).toMatchObject({ explanation: 'The customer downloaded the files.', trackingNumber: '1Z999' });
		expect((out.evidenceFiles as IDataObject[]).map((x) => [x.fileName, x.sizeBytes])).toEqual([
			['receipt.pdf', receipt.length],
			['download-log.png', screenshot.length],
		]);
		expect(r.output()[0].pairedItem).toEqual({ item: 0 });
	});

	test('submitEvidence with text only sends no files key', async () => {
		const target = withStatus('UNDER_REVIEW')[0];
		const r = await f.run({
			resource: 'dispute',
			operation: 'submitEvidence',
			disputeId: rl(target.id),
			evidenceFields: { refundPolicy: 'No refunds after download.' },
		});
		expect(r.error()).toBeUndefined();
		expect(f.requests()[0].body).toEqual({ refundPolicy: 'No refunds after download.' });
	});

	test('evidence on a closed dispute: the service refusal (422) reaches the user', async () => {
		const target = withStatus('LOST')[0];
		const r = await f.run({
			resource: 'dispute',
			operation: 'submitEvidence',
			disputeId: rl(target.id),
			evidenceFields: { explanation: 'late' },
		});
		expect(r.error()?.message).toMatch(/HTTP 422/);
		expect(r.error()?.description).toMatch(/OPEN or UNDER_REVIEW/);
	});

	test('a 404 on the inferred route says so and points to the Custom API Call', async () => {
		const r = await f.run({ resource: 'dispute', operation: 'get', disputeId: rl('dsp_doesnotexist0000000000') });
		const error = r.error();
		expect(error?.message).toMatch(/HTTP 404/);
		expect(error?.description).toMatch(/answers 404 here, use the Custom API Call/);
		expect(error?.description).toMatch(/Custom API Call/);
		expect(f.requests()).toHaveLength(1);
	});

	test('a key without DISPUTES_WRITE gets a 403 that names the scope', async () => {
		const target = withStatus('OPEN')[0];
		const credentials = { ...f.credentials, vaultStoreStoreApi: { ...f.credentials.vaultStoreStoreApi, secretKey: f.sb.store.storeTokenKey } };
		const r = await f.run(
			{ resource: 'dispute', operation: 'submitEvidence', disputeId: rl(target.id), evidenceFields: { explanation: 'x' } },
			undefined,
			{ credentials },
		);
		expect(r.error()?.message).toMatch(/HTTP 403/);
		expect(r.error()?.description).toMatch(/DISPUTES_WRITE/);
		expect(target.status).toBe('OPEN');
	});

	describe('input rules (no request is sent)', () => {
		const open = () => withStatus('OPEN')[0];

		test('a binary property the item does not have is named', async () => {
			const r = await f.run(
				{ resource: 'dispute', operation: 'submitEvidence', disputeId: rl(open().id), binaryProperties: 'receipt, invoice' },
				binaryItem({ receipt: { content: Buffer.from('x') } }),
			);
			expect(r.error()?.message).toBe('"Binary Properties": the input item has no binary property "invoice"');
			expect(r.error()?.description).toMatch(/Binary properties of this item: receipt/);
			expect(f.requests()).toHaveLength(0);
		});

		test('an item without binary data gets a hint', async () => {
			const r = await f.run({ resource: 'dispute', operation: 'submitEvidence', disputeId: rl(open().id), binaryProperties: 'data' });
			expect(r.error()?.message).toMatch(/no binary property "data"/);
			expect(r.error()?.description).toMatch(/has no binary data/);
			expect(f.requests()).toHaveLength(0);
		});

		// The 10-file and 10 MiB evidence limits were not rules of the spec: they are gone (see "no file count limit" below).

		test('no evidence at all is refused', async () => {
			const r = await f.run({ resource: 'dispute', operation: 'submitEvidence', disputeId: rl(open().id), evidenceFields: { explanation: '' } });
			expect(r.error()?.message).toMatch(/Give some evidence: fill at least one of "Evidence Fields" or name a file in "Binary Properties"/);
			expect(f.requests()).toHaveLength(0);
		});

		test('a bad dispute id from an expression', async () => {
			const r = await f.run({ resource: 'dispute', operation: 'get', disputeId: rl('={{ "dsp_1" }}') });
			expect(r.error()?.message).toMatch(/"Dispute ID" must be 12 to 48 characters long/);
			expect(f.requests()).toHaveLength(0);
		});

		test('a bad order id in the filters', async () => {
			const r = await f.run({ resource: 'dispute', operation: 'getAll', returnAll: true, filters: { orderId: 'cus_0123456789ab' } });
			expect(r.error()?.message).toMatch(/"Order ID" must start with "ord_"/);
			expect(f.requests()).toHaveLength(0);
		});

		test('an empty status from an expression is refused', async () => {
			const r = await f.run({ resource: 'dispute', operation: 'getAll', returnAll: true, filters: { status: '={{ "  " }}' } });
			expect(r.error()?.message).toMatch(/"Status" must be a non-empty text/);
			expect(f.requests()).toHaveLength(0);
		});
	});

	describe('values the spec does not rule out are sent', () => {
		test('getAll: a status outside the listed ones (the spec names only PREVENTED) reaches the service and filters by it', async () => {
			const list = disputes();
			const extra = { ...list[0], id: 'dsp_otherstatus0000000000', status: 'WARNING_NEEDS_RESPONSE' as Dispute['status'] };
			list.push(extra);
			try {
				const r = await f.run({ resource: 'dispute', operation: 'getAll', returnAll: true, filters: { status: '={{ "WARNING_NEEDS_RESPONSE" }}' } });
				expect(r.error()).toBeUndefined();
				expect(f.requests()[0].query).toEqual({ page: '1', limit: '100', status: 'WARNING_NEEDS_RESPONSE' });
				expect(jsonOf(r).map((d) => [d.id, d.status])).toEqual([[extra.id, 'WARNING_NEEDS_RESPONSE']]);
				const none = await f.run({ resource: 'dispute', operation: 'getAll', returnAll: true, filters: { status: '={{ "CLOSED" }}' } });
				expect([none.error(), f.requests()[0].query.status, jsonOf(none)]).toEqual([undefined, 'CLOSED', []]);
			} finally {
				list.splice(list.indexOf(extra), 1);
			}
		});

		test('submitEvidence: long texts (a 300-character tracking number, a 30000-character explanation) are sent', async () => {
			const target = withStatus('UNDER_REVIEW')[0];
			const evidenceFields = { trackingNumber: 'T'.repeat(300), explanation: 'e'.repeat(30_000) };
			const r = await f.run({ resource: 'dispute', operation: 'submitEvidence', disputeId: rl(target.id), evidenceFields });
			expect(r.error()).toBeUndefined();
			expect(f.requests()[0].body).toEqual(evidenceFields);
			expect(jsonOf(r)[0].evidence).toMatchObject(evidenceFields);
		});

		test('submitEvidence: no file count limit, 11 files are sent', async () => {
			const target = withStatus('UNDER_REVIEW')[0];
			const names = Array.from({ length: 11 }, (_, i) => `f${i}`);
			const files = Object.fromEntries(names.map((name) => [name, { content: Buffer.from(`file ${name}`), fileName: `${name}.txt`, mimeType: 'text/plain' }]));
			const r = await f.run(
				{ resource: 'dispute', operation: 'submitEvidence', disputeId: rl(target.id), binaryProperties: names.join(',') },
				binaryItem(files),
			);
			expect(r.error()).toBeUndefined();
			expect((f.requests()[0].body as { files: unknown[] }).files).toHaveLength(11);
			expect((jsonOf(r)[0].evidenceFiles as IDataObject[]).slice(-11).map((x) => x.fileName)).toEqual(names.map((n) => `${n}.txt`));
		});
	});

	test('operation descriptions and field hints name the scopes', () => {
		const properties = new VaultStore().description.properties;
		const operation = properties.find(
			(p) => p.name === 'operation' && (p.displayOptions?.show?.resource as string[] | undefined)?.[0] === 'dispute',
		) as INodeProperties;
		const byValue = Object.fromEntries((operation.options as Array<{ value: string; description: string }>).map((o) => [o.value, o.description]));
		expect(byValue.get).toMatch(/\(scope DISPUTES_READ\)$/);
		expect(byValue.getAll).toMatch(/\(scope DISPUTES_READ\)$/);
		expect(byValue.submitEvidence).toMatch(/\(scope DISPUTES_WRITE\)$/);
		const evidence = properties.find((p) => p.name === 'evidenceFields') as INodeProperties;
		expect(evidence.description).toMatch(/DISPUTES_WRITE/);
		expect(evidence.description).not.toMatch(/\b(spec|inferred)\b/i);
	});
});

describe('sandbox dispute lifecycle: opened, prevented, balance', () => {
	test('opening a dispute emits PAYMENT_DISPUTED; preventing it emits PAYMENT_DISPUTE_PREVENTED and deducts amount + 30', async () => {
		f.sb.state.webhooks.push({
			id: 'whk_disputetest000000001',
			storeId: f.sb.store.storeId,
			url: receiver.url,
			eventTypes: ['PAYMENT_DISPUTED', 'PAYMENT_DISPUTE_PREVENTED'],
			note: null,
			signatureVersion: 'V2',
			createdAt: new Date().toISOString(),
			updatedAt: new Date().toISOString(),
		});
		try {
			const order = f.sb.state.orders.filter((o) => o.payment.status === 'COMPLETED')[3];
			const before = (await dev('GET', '/__dev/balance')).data;
			const deliveriesBefore = f.sb.deliveries.length;

			const opened = await dev('POST', '/__dev/disputes', { orderId: order.id, amount: 12.5, reason: 'fraudulent' });
			expect(opened.status).toBe(201);
			const dispute = opened.data.dispute as IDataObject;
			expect(dispute).toMatchObject({ orderId: order.id, amount: 12.5, status: 'OPEN' });
			await f.sb.waitForDeliveries(deliveriesBefore + 1);
			expect(receiver.received.at(-1)).toMatchObject({ event: 'PAYMENT_DISPUTED', data: { disputeId: dispute.id, orderId: order.id, amount: 12.5 } });

			// The node sees it.
			const got = await f.run({ resource: 'dispute', operation: 'get', disputeId: rl(String(dispute.id)) });
			expect(jsonOf(got)[0]).toMatchObject({ id: dispute.id, status: 'OPEN' });

			const prevented = await dev('POST', `/__dev/disputes/${String(dispute.id)}/prevent`);
			expect(prevented.status).toBe(200);
			expect((prevented.data.dispute as IDataObject).status).toBe('PREVENTED');
			await f.sb.waitForDeliveries(deliveriesBefore + 2);
			expect(receiver.received.at(-1)).toMatchObject({
				event: 'PAYMENT_DISPUTE_PREVENTED',
				data: { disputeId: dispute.id, amount: 12.5, fee: PREVENTION_FEE, deducted: 42.5, status: 'PREVENTED' },
			});
			const after = (await dev('GET', '/__dev/balance')).data;
			expect(Number(before.available) - Number(after.available)).toBeCloseTo(12.5 + 30, 6);
			expect((after.entries as IDataObject[]).at(-1)).toMatchObject({ kind: 'dispute_prevented', disputeId: dispute.id, amount: 12.5, fee: 30 });
			// Prevented disputes do not count toward the dispute rate.
			const rate = after.disputeRate as IDataObject;
			expect(rate.prevented).toBe((before.disputeRate as IDataObject).prevented as number + 1);
			expect(rate.disputes).toBe((before.disputeRate as IDataObject).disputes);

			const list = await f.run({ resource: 'dispute', operation: 'getAll', returnAll: true, filters: { status: 'PREVENTED' } });
			expect(jsonOf(list).map((d) => d.id)).toContain(dispute.id);

			// A prevented dispute cannot be prevented again.
			expect((await dev('POST', `/__dev/disputes/${String(dispute.id)}/prevent`)).status).toBe(422);
		} finally {
			f.sb.state.webhooks.splice(0);
		}
	});
});

describe('examples', () => {
	const ALLOWED = new Set([
		'n8n-nodes-vault-store.vaultStore',
		'n8n-nodes-vault-store.vaultStoreTrigger',
		'n8n-nodes-base.scheduleTrigger',
		'n8n-nodes-base.merge',
		'n8n-nodes-base.set',
	]);
	const properties = new VaultStore().description.properties;
	const operationsOf = (resource: string): string[] => {
		const op = properties.find(
			(p) => p.name === 'operation' && (p.displayOptions?.show?.resource as string[] | undefined)?.[0] === resource,
		);
		return ((op?.options ?? []) as Array<{ value: string }>).map((o) => o.value);
	};
	const load = (file: string) =>
		JSON.parse(readFileSync(path.join(__dirname, '..', 'examples', file), 'utf8')) as {
			nodes: Array<{ name: string; type: string; parameters: IDataObject; credentials?: IDataObject }>;
			connections: Record<string, { main: Array<Array<{ node: string }>> }>;
		};

	test.each(['dispute-evidence.json', 'nightly-licenses-payouts.json'])('%s parses, uses only the allowed node types and real operations', (file) => {
		const wf = load(file);
		const names = new Set(wf.nodes.map((n) => n.name));
		for (const node of wf.nodes) {
			expect(ALLOWED).toContain(node.type);
			if (node.type.startsWith('n8n-nodes-vault-store.')) {
				expect(node.credentials).toEqual({ vaultStoreStoreApi: { id: '1', name: 'Vault Store account' } });
			}
			if (node.type === 'n8n-nodes-vault-store.vaultStore') {
				expect(operationsOf(String(node.parameters.resource))).toContain(node.parameters.operation);
			}
		}
		for (const [from, out] of Object.entries(wf.connections)) {
			expect(names).toContain(from);
			for (const target of out.main.flat()) expect(names).toContain(target.node);
		}
	});

	test('dispute-evidence: trigger on PAYMENT_DISPUTED, then dispute get, order get, submit evidence', () => {
		const wf = load('dispute-evidence.json');
		const trigger = wf.nodes.find((n) => n.type === 'n8n-nodes-vault-store.vaultStoreTrigger')!;
		expect(trigger.parameters.events).toEqual(['PAYMENT_DISPUTED']);
		const ops = wf.nodes.filter((n) => n.type === 'n8n-nodes-vault-store.vaultStore').map((n) => `${String(n.parameters.resource)}.${String(n.parameters.operation)}`);
		expect(ops).toEqual(['dispute.get', 'order.get', 'dispute.submitEvidence']);
	});

	test('nightly-licenses-payouts: schedule, license and payout Return All, merged by append', () => {
		const wf = load('nightly-licenses-payouts.json');
		const vs = wf.nodes.filter((n) => n.type === 'n8n-nodes-vault-store.vaultStore');
		expect(vs.map((n) => [n.parameters.resource, n.parameters.operation, n.parameters.returnAll])).toEqual([
			['license', 'getAll', true],
			['payout', 'getAll', true],
		]);
		const merge = wf.nodes.find((n) => n.type === 'n8n-nodes-base.merge')!;
		expect(merge.parameters.mode ?? 'append').toBe('append');
		expect(wf.nodes.some((n) => n.type === 'n8n-nodes-base.scheduleTrigger')).toBe(true);
	});
});
