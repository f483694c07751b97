import { Container } from '@n8n/di';
import { BinaryDataService } from 'n8n-core';
import type { IBinaryData } from 'n8n-workflow';

import type { ReportFile, ReportRecord } from '../sandbox/resources/reports';
import { jsonOf, items, useSandbox } from './support/fixtures';

const f = useSandbox({ orders: 250 });

const FROM = '2025-11-01T00:00:00.000Z';
const TO = '2026-01-15T00:00:00.000Z';
const rl = (value: string) => ({ __rl: true, mode: 'id', value });
const expr = (value: string) => ({ __rl: true, mode: 'id', value: `={{ ${JSON.stringify(value)} }}` });

const reports = () => (f.sb.state.collections.reports ?? []) as ReportRecord[];
const files = () => (f.sb.state.collections.reportFiles ?? []) as ReportFile[];

/** Lets every report reach its final state (one step per 60 s of sandbox clock). */
const finishAll = () => f.sb.clock.advance(3 * 60_000);

/** The bytes of an output binary, whatever the binary data mode. */
const bytesOf = async (binary: IBinaryData): Promise<Buffer> => await Container.get(BinaryDataService).getAsBuffer(binary);

async function createReport(type = 'PAYMENT_ACTIVITY', from = FROM, to = TO): Promise<string> {
	const r = await f.run({ resource: 'report', operation: 'create', type, from, to });
	expect(r.error()).toBeUndefined();
	return String(jsonOf(r)[0].id);
}

describe('report', () => {
	afterEach(() => finishAll());

	test('create sends POST /v2/stores/{storeId}/reports with type, from, to (and format) and returns a PENDING report', async () => {
		const r = await f.run({
			resource: 'report',
			operation: 'create',
			type: 'PAYMENT_ACTIVITY',
			from: FROM,
			to: TO,
			additionalFields: { format: 'JSON' },
		});
		expect(r.error()).toBeUndefined();
		const [req] = f.requests();
		expect(f.requests()).toHaveLength(1);
		expect(req.method).toBe('POST');
		expect(req.path).toBe(`/v2/stores/${f.sb.store.storeId}/reports`);
		expect(req.body).toEqual({ type: 'PAYMENT_ACTIVITY', from: FROM, to: TO, format: 'JSON' });
		expect(req.status).toBe(201);
		const [out] = jsonOf(r);
		expect(out).toMatchObject({ type: 'PAYMENT_ACTIVITY', status: 'PENDING', from: FROM, to: TO, format: 'JSON' });
		expect(reports().some((x) => x.id === out.id)).toBe(true);
	});

	test('create without format sends no format field', async () => {
		await createReport('BALANCE_LEDGER');
		expect(f.requests()[0].body).toEqual({ type: 'BALANCE_LEDGER', from: FROM, to: TO });
	});

	test('get moves the report one step per read: PENDING -> PROCESSING -> SUCCEEDED', async () => {
		const id = await createReport();
		const seen: unknown[] = [];
		for (let i = 0; i < 2; i++) {
			const r = await f.run({ resource: 'report', operation: 'get', reportId: rl(id) });
			expect(r.error()).toBeUndefined();
			seen.push(jsonOf(r)[0].status);
			const [req] = f.requests();
			expect(req.method).toBe('GET');
			expect(req.path).toBe(`/v2/stores/${f.sb.store.storeId}/reports/${id}`);
		}
		expect(seen).toEqual(['PROCESSING', 'SUCCEEDED']);
		const done = reports().find((x) => x.id === id)!;
		expect(done.rowCount).toBeGreaterThan(0);
	});

	test('getAll sends status and type filters and returns only matching reports', async () => {
		const id = await createReport('REFUNDS_DISPUTES');
		const r = await f.run({
			resource: 'report',
			operation: 'getAll',
			returnAll: true,
			filters: { status: 'PENDING', type: 'REFUNDS_DISPUTES' },
		});
		expect(r.error()).toBeUndefined();
		const [req] = f.requests();
		expect(req.method).toBe('GET');
		expect(req.path).toBe(`/v2/stores/${f.sb.store.storeId}/reports`);
		expect(req.query).toMatchObject({ status: 'PENDING', type: 'REFUNDS_DISPUTES', page: '1', limit: '100' });
		const out = jsonOf(r);
		expect(out.map((x) => x.id)).toContain(id);
		expect(out.every((x) => x.status === 'PENDING' && x.type === 'REFUNDS_DISPUTES')).toBe(true);
	});

	test('getAll with Limit 2 asks for 2', async () => {
		await createReport();
		await createReport();
		const r = await f.run({ resource: 'report', operation: 'getAll', returnAll: false, limit: 2 });
		expect(jsonOf(r)).toHaveLength(2);
		expect(f.requests()[0].query).toMatchObject({ page: '1', limit: '2' });
	});

	test.each([
		['CSV', 'csv', 'text/csv'],
		['JSON', 'json', 'application/json'],
	])('download %s fetches the pre-signed URL without credentials; the binary equals the sandbox file', async (format, ext, mime) => {
		const id = await createReport();
		finishAll();
		const r = await f.run({ resource: 'report', operation: 'download', reportId: rl(id), format });
		expect(r.error()).toBeUndefined();
		const reqs = f.requests();
		expect(reqs.map((q) => `${q.method} ${q.path.replace(/__files\/.*/, '__files/<token>')} ${q.status}`)).toEqual([
			`GET /v2/stores/${f.sb.store.storeId}/reports/${id}/download/${format} 200`,
			'GET /__files/<token> 200',
		]);
		expect(reqs[0].headers.authorization).toBe('[redacted]');
		expect(reqs[1].headers.authorization).toBeUndefined();

		const [item] = r.output();
		expect(item.json).toMatchObject({ reportId: id, format, fileName: `report_${id}.${ext}`, mimeType: mime });
		expect(String(item.json.url)).toMatch(/\/__files\/[A-Za-z0-9_-]+$/);
		expect(Date.parse(String(item.json.expiresAt))).toBeGreaterThan(f.sb.clock.now());
		const binary = item.binary?.data;
		expect(binary).toBeDefined();
		expect(binary!.mimeType).toBe(mime);
		expect(binary!.fileName).toBe(`report_${id}.${ext}`);
		const bytes = await bytesOf(binary!);
		const file = files().find((x) => x.reportId === id && x.format === format)!;
		expect(bytes.equals(file.bytes)).toBe(true);
		expect(item.json.fileSize).toBe(file.bytes.length);
	});

	describe('a downloaded file passes the output gate: a known secret or a full card number never reaches binary data', () => {
		const CARD = '4242424242424242';
		const serve = (body: string | Buffer, contentType: string) =>
			f.sb.faults.add({ kind: 'reply', status: 200, match: { method: 'GET', path: /^\/__files\// }, reply: { body: Buffer.isBuffer(body) ? body : Buffer.from(body), headers: { 'content-type': contentType } } });
		const header = 'id,amount,card_brand,card_last_four,reference,order.metadata';
		test.each([
			['a card number in a card_number column', 'CSV', `id,card_number,amount\r\npay_000000000001,${CARD},10\r\n`, 'text/csv', /full card number \(column "card_number"\)/],
			['a card number in the metadata column text', 'CSV', `${header}\r\npay_000000000001,10,visa,4242,ref1,"{""note"":""card ${CARD.replace(/(\d{4})(?=\d)/g, '$1 ')}""}"\r\n`, 'text/csv', /full card number \(column "order\.metadata"\)/],
			['the store key in a cell', 'CSV', `${header}\r\npay_000000000001,10,visa,4242,ref1,KEY\r\n`, 'text/csv', /key or signing secret/],
			['a card number in a JSON field named pan', 'JSON', JSON.stringify([{ id: 'pay_000000000001', pan: CARD }]), 'application/json', /full card number \(field "pan"\)/],
			// A column under another name: a cell that is only a number, read by the card-data detector.
			['a card number in a column named Kartennummer', 'CSV', `id,Kartennummer,amount\r\npay_000000000001,${CARD},10\r\n`, 'text/csv', /full card number \(column "Kartennummer"\)/],
			['a grouped card number in a column named pan_full', 'CSV', `id,pan_full\r\npay_000000000001,4242 4242 4242 4242\r\n`, 'text/csv', /full card number \(column "pan_full"\)/],
			['a Mastercard number in a column named card', 'CSV', `id,card\r\npay_000000000001,5555555555554444\r\n`, 'text/csv', /full card number \(column "card"\)/],
			['a card number in a column named cc', 'CSV', `id,cc,amount\r\npay_000000000001,"${CARD}",10\r\n`, 'text/csv', /full card number \(column "cc"\)/],
			['a card number as a JSON number in a field named card', 'JSON', `[{"id":"pay_000000000001","card":${CARD}}]`, 'application/json', /full card number \(field "card"\)/],
			// Security-code columns.
			['a security code in a column named cvc', 'CSV', `id,cvc\r\npay_000000000001,737\r\n`, 'text/csv', /card security code \(column "cvc"\)/],
			['a security code in a column named card_cvc', 'CSV', `${header},card_cvc\r\npay_000000000001,10,visa,4242,ref1,{},737\r\n`, 'text/csv', /card security code \(column "card_cvc"\)/],
			['a security code in a column named security_code', 'CSV', `id,security_code\r\npay_000000000001,1234\r\n`, 'text/csv', /card security code \(column "security_code"\)/],
			['a security code in a column named cvv_code', 'CSV', `id,cvv_code\r\npay_000000000001, 123 \r\n`, 'text/csv', /card security code \(column "cvv_code"\)/],
			['a security code in a JSON field named cvv2', 'JSON', JSON.stringify([{ id: 'pay_000000000001', cvv2: '737' }]), 'application/json', /card security code \(field "cvv2"\)/],
		])('%s: the item fails naming it, no binary', async (_name, format, body, contentType, message) => {
			const id = await createReport();
			finishAll();
			serve(body.replace('KEY', String(f.credentials.vaultStoreStoreApi.secretKey)), contentType);
			const r = await f.run({ resource: 'report', operation: 'download', reportId: rl(id), format }, undefined, { continueOnFail: true });
			const [item] = r.output();
			expect(item.binary).toBeUndefined();
			expect(String(item.json.error)).toMatch(message);
			expect(JSON.stringify(item.json)).not.toContain(CARD);
		});

		/** UTF-16 forms of a text: little or big endian, with or without a byte-order mark. */
		const utf16 = (text: string, order: 'LE' | 'BE', bom: boolean): Buffer => {
			const le = Buffer.from(text, 'utf16le');
			const bytes = order === 'LE' ? le : le.swap16();
			return bom ? Buffer.concat([Buffer.from(order === 'LE' ? [0xff, 0xfe] : [0xfe, 0xff]), bytes]) : bytes;
		};
		const ENCODINGS = [
			['UTF-16 LE with a byte-order mark', 'LE', true],
			['UTF-16 LE without one', 'LE', false],
			['UTF-16 BE with a byte-order mark', 'BE', true],
			['UTF-16 BE without one', 'BE', false],
		] as const;

		test.each(ENCODINGS)('a file in %s is read in its encoding: a card number in a column, a card number in metadata text, a security code and the store key are found', async (_name, order, bom) => {
			const cases: Array<[string, RegExp]> = [
				[`id,card_number,amount\r\npay_000000000001,${CARD},10\r\n`, /full card number \(column "card_number"\)/],
				[`${header}\r\npay_000000000001,10,visa,4242,ref1,"{""note"":""card 4242 4242 4242 4242""}"\r\n`, /full card number \(column "order\.metadata"\)/],
				[`id,card_cvc\r\npay_000000000001,737\r\n`, /card security code \(column "card_cvc"\)/],
				[`${header}\r\npay_000000000001,10,visa,4242,ref1,${String(f.credentials.vaultStoreStoreApi.secretKey)}\r\n`, /key or signing secret/],
			];
			for (const [text, message] of cases) {
				const id = await createReport();
				finishAll();
				serve(utf16(text, order, bom), 'text/csv');
				const r = await f.run({ resource: 'report', operation: 'download', reportId: rl(id), format: 'CSV' }, undefined, { continueOnFail: true });
				const [item] = r.output();
				expect(item.binary).toBeUndefined();
				expect(String(item.json.error)).toMatch(message);
			}
		});

		test.each(ENCODINGS)('control: a clean file in %s is stored byte for byte', async (_name, order, bom) => {
			const id = await createReport();
			finishAll();
			const bytes = utf16(`${header}\r\npay_000000000001,10,visa,4242,ref1,"{""customer"":""Zoë""}"\r\n`, order, bom);
			serve(bytes, 'text/csv');
			const r = await f.run({ resource: 'report', operation: 'download', reportId: rl(id), format: 'CSV' });
			expect(r.error()).toBeUndefined();
			expect((await bytesOf(r.output()[0].binary!.data)).equals(bytes)).toBe(true);
		});

		test('a UTF-8 file with a byte-order mark: the card number is found as without it', async () => {
			const id = await createReport();
			finishAll();
			serve(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify([{ id: 'pay_000000000001', pan: CARD }]))]), 'application/json');
			const r = await f.run({ resource: 'report', operation: 'download', reportId: rl(id), format: 'JSON' }, undefined, { continueOnFail: true });
			expect(r.output()[0].binary).toBeUndefined();
			expect(String(r.output()[0].json.error)).toMatch(/full card number \(field "pan"\)/);
		});

		test('control: Luhn-valid numbers under names of other ids (order number, invoice id, sku, gift card number), numbers no issuer gives out, timestamps and security-code flags are stored as they came', async () => {
			const id = await createReport();
			finishAll();
			const body =
				'order_number,invoice_id,sku,gift_card_number,Kartennummer,created_ms,cvc_check,security_code,card_last_four\r\n' +
				`${CARD},${CARD},5555555555554444,6006491122334453,7777123456789011,1733011200000,pass,M,4242\r\n`;
			serve(body, 'text/csv');
			const r = await f.run({ resource: 'report', operation: 'download', reportId: rl(id), format: 'CSV' });
			expect(r.error()).toBeUndefined();
			expect((await bytesOf(r.output()[0].binary!.data)).toString('utf8')).toBe(body);
		});

		test('control: numeric ids and references of 16 Luhn-valid digits, amounts and last four digits are not card numbers: the file is stored as it came', async () => {
			const id = await createReport();
			finishAll();
			const body = `${header}\r\n${CARD},10,visa,4242,4000056655665556,"{""customer"":""Ada"",""parcel"":""00340434161094042557""}"\r\n`;
			serve(body, 'text/csv');
			const r = await f.run({ resource: 'report', operation: 'download', reportId: rl(id), format: 'CSV' });
			expect(r.error()).toBeUndefined();
			expect((await bytesOf(r.output()[0].binary!.data)).toString('utf8')).toBe(body);
		});
	});

	describe('the Payment Activity export with a gift card number in order.metadata', () => {
		const CARD = '4242424242424242';
		const serve = (body: string | Buffer, contentType: string) =>
			f.sb.faults.add({ kind: 'reply', status: 200, match: { method: 'GET', path: /^\/__files\// }, reply: { body: Buffer.isBuffer(body) ? body : Buffer.from(body), headers: { 'content-type': contentType } } });
		/** The first order of the report's period carries this metadata while `run` runs (the sandbox writes the file when the report finishes). */
		async function withMetadata<T>(metadata: Record<string, unknown>, run: () => Promise<T>): Promise<T> {
			const order = f.sb.state.orders.filter((o) => o.createdAt >= FROM && o.createdAt < TO).sort((a, b) => a.createdAt.localeCompare(b.createdAt))[0];
			const before = order.customFields;
			order.customFields = metadata;
			try {
				return await run();
			} finally {
				order.customFields = before;
			}
		}
		const download = async (format: string, metadata: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
			await withMetadata(metadata, async () => {
				const id = await createReport();
				finishAll();
				const r = await f.run({ resource: 'report', operation: 'download', reportId: rl(id), format, ...extra }, undefined, { continueOnFail: true });
				const file = files().find((x) => x.reportId === id && x.format === format)!;
				return { r, file };
			});

		test.each([
			['CSV', 'a gift card number no issuer gives out (Luhn-valid)', { note: 'gift card 7777 1234 5678 9011' }],
			['JSON', 'a gift card number no issuer gives out (Luhn-valid)', { note: 'gift card 7777 1234 5678 9011' }],
			['CSV', 'a number of an issuer\'s prefix that fails the Luhn check', { gift_card: '6006 4911 2233 4455' }],
		])('%s, %s: the file is delivered byte for byte', async (format, _name, metadata) => {
			const { r, file } = await download(format, metadata);
			expect(r.error()).toBeUndefined();
			const [item] = r.output();
			const bytes = await bytesOf(item.binary!.data);
			expect(bytes.toString('utf8')).toContain(Object.values(metadata)[0] as string);
			expect(bytes.equals(file.bytes)).toBe(true);
			expect(item.json.cardNumbersMasked).toBeUndefined();
		});

		test.each(['CSV', 'JSON'])('%s, control: a number the card-data detector reads as a card (Maestro, Luhn-valid) is refused by default, naming the column, never the number', async (format) => {
			const { r } = await download(format, { note: 'gift card 6006 4911 2233 4453' });
			const [item] = r.output();
			expect(item.binary).toBeUndefined();
			expect(String(item.json.error)).toMatch(/full card number \((column|field) "order\.metadata"\)/);
			expect(JSON.stringify(item.json)).not.toContain('4911');
			expect(String((item.json as { error?: unknown; description?: unknown }).description ?? JSON.stringify(item.json))).toMatch(/Mask Them/);
		});

		test.each(['CSV', 'JSON'])('%s: with "Mask Them" the card number is masked to its last four digits and the file delivered, the rest byte for byte, counted in cardNumbersMasked', async (format) => {
			const { r, file } = await download(format, { note: 'gift card 6006 4911 2233 4453 and 5555555555554444' }, { cardNumbersInFiles: 'mask' });
			expect(r.error()).toBeUndefined();
			const [item] = r.output();
			const text = (await bytesOf(item.binary!.data)).toString('utf8');
			expect(text).toBe(file.bytes.toString('utf8').replace('6006 4911 2233 4453', '•••• 4453').replace('5555555555554444', '•••• 4444'));
			expect(item.json.cardNumbersMasked).toBe(2);
			expect(item.json.fileSize).toBe(Buffer.byteLength(text));
		});

		test('"Mask Them" keeps a UTF-16 file in its encoding, and still refuses a file holding a security code', async () => {
			const id = await createReport();
			finishAll();
			const text = `id,card,note\r\npay_000000000001,${CARD},ok\r\n`;
			serve(Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()]), 'text/csv');
			const r = await f.run({ resource: 'report', operation: 'download', reportId: rl(id), format: 'CSV', cardNumbersInFiles: 'mask' });
			expect(r.error()).toBeUndefined();
			const bytes = await bytesOf(r.output()[0].binary!.data);
			expect(bytes.subarray(0, 2)).toEqual(Buffer.from([0xfe, 0xff]));
			expect(Buffer.from(bytes.subarray(2)).swap16().toString('utf16le')).toBe(text.replace(CARD, '•••• 4242'));
			expect(r.output()[0].json.cardNumbersMasked).toBe(1);

			const id2 = await createReport();
			finishAll();
			serve(`id,card,cvc\r\npay_000000000001,${CARD},737\r\n`, 'text/csv');
			const refused = await f.run({ resource: 'report', operation: 'download', reportId: rl(id2), format: 'CSV', cardNumbersInFiles: 'mask' }, undefined, { continueOnFail: true });
			expect(refused.output()[0].binary).toBeUndefined();
			expect(String(refused.output()[0].json.error)).toMatch(/card security code \(column "cvc"\)/);
		});
	});

	test('the PAYMENT_ACTIVITY CSV has payment_method, card_brand, card_last_four and order.metadata as last column', async () => {
		const id = await createReport();
		finishAll();
		const r = await f.run({ resource: 'report', operation: 'download', reportId: rl(id), format: 'CSV' });
		const text = (await bytesOf(r.output()[0].binary!.data)).toString('utf8');
		const header = text.split('\r\n')[0].split(',');
		expect(header).toEqual(expect.arrayContaining(['payment_method', 'card_brand', 'card_last_four']));
		expect(header[header.length - 1]).toBe('order.metadata');
		expect(text.split('\r\n').filter(Boolean).length).toBe(1 + reports().find((x) => x.id === id)!.rowCount!);
	});

	test('download with Download File off returns only the URL and expiry, one request', async () => {
		const id = await createReport();
		finishAll();
		const r = await f.run({ resource: 'report', operation: 'download', reportId: rl(id), format: 'JSON', downloadFile: false });
		expect(r.error()).toBeUndefined();
		expect(f.requests()).toHaveLength(1);
		const [item] = r.output();
		expect(item.binary).toBeUndefined();
		expect(Object.keys(item.json).sort()).toEqual(['expiresAt', 'format', 'reportId', 'url']);
	});

	test('the file goes into the configured binary property', async () => {
		const id = await createReport();
		finishAll();
		const r = await f.run({ resource: 'report', operation: 'download', reportId: rl(id), format: 'CSV', binaryPropertyName: 'report' });
		expect(Object.keys(r.output()[0].binary ?? {})).toEqual(['report']);
	});

	test('a download URL is refused with 403 after 5 minutes of sandbox clock', async () => {
		const id = await createReport();
		finishAll();
		const r = await f.run({ resource: 'report', operation: 'download', reportId: rl(id), format: 'CSV', downloadFile: false });
		const url = String(jsonOf(r)[0].url);
		expect((await fetch(url)).status).toBe(200);
		f.sb.clock.advance(5 * 60_000 + 1000);
		const late = await fetch(url);
		expect(late.status).toBe(403);
	});

	test('download of a report that is not finished is a readable error', async () => {
		const id = await createReport();
		const r = await f.run({ resource: 'report', operation: 'download', reportId: rl(id), format: 'CSV' });
		const error = r.error();
		expect(error?.message).toMatch(/HTTP 400/);
		expect(error?.description).toMatch(/PENDING.*SUCCEEDED/);
		expect(f.requests()).toHaveLength(1);
	});

	test('more than 10 running reports: 429 without waiting, a clear error, one request', async () => {
		finishAll();
		const first = await f.run(
			{ resource: 'report', operation: 'create', type: 'PAYMENT_ACTIVITY', from: '={{ $json.from }}', to: TO },
			items(...Array.from({ length: 10 }, (_, i) => ({ from: `2025-12-${String(i + 1).padStart(2, '0')}T00:00:00Z` }))),
		);
		expect(first.error()).toBeUndefined();
		expect(first.output()).toHaveLength(10);
		const r = await f.run({ resource: 'report', operation: 'create', type: 'PAYMENT_ACTIVITY', from: FROM, to: TO });
		const error = r.error();
		expect(error?.message).toMatch(/Too many reports.*wait for running reports to finish.*429/);
		expect(error?.description).toMatch(/10 reports of this store are already PENDING or PROCESSING/);
		// One request: the 30 s Retry-After is not waited for, nothing is retried.
		expect(f.requests().map((q) => q.status)).toEqual([429]);
		expect(f.requests()[0].body).toEqual({ type: 'PAYMENT_ACTIVITY', from: FROM, to: TO });

		finishAll();
		const again = await f.run({ resource: 'report', operation: 'create', type: 'PAYMENT_ACTIVITY', from: FROM, to: TO });
		expect(again.error()).toBeUndefined();
	});

	describe('validation before any request', () => {
		test.each([
			[{ from: '2025-01-01T00:00:00Z', to: '2025-04-02T00:00:00Z' }, /period from "From" to "To" must be at most 90 days \(got 91 days\)/],
			[{ from: 'yesterday', to: TO }, /"From" must be a date and time/],
			[{ from: FROM, to: '={{ "" }}' }, /"To" must be a date and time/],
		])('%j', async (dates, message) => {
			const r = await f.run({ resource: 'report', operation: 'create', type: 'PAYMENT_ACTIVITY', ...dates });
			expect(r.error()?.message).toMatch(message);
			expect(f.requests()).toHaveLength(0);
		});

		test.each([
			['after', { from: TO, to: FROM }],
			['equal to', { from: FROM, to: FROM }],
		])('From %s To is sent as given, with a warning (the order is not a rule of the service; its 90 days are)', async (_what, dates) => {
			const parameters = { resource: 'report', operation: 'create', type: 'PAYMENT_ACTIVITY', ...dates };
			const r = await f.run(parameters, undefined, { continueOnFail: true });
			expect(f.requests()).toHaveLength(1);
			expect(f.requests()[0].body).toMatchObject(dates);
			expect(r.hints()).toEqual([expect.objectContaining({ type: 'warning', message: expect.stringMatching(/"From" is not before "To"/) })]);
			const quiet = await f.run({ ...parameters, options: { skipLocalChecks: true } }, undefined, { continueOnFail: true });
			expect(quiet.hints()).toEqual([]);
		});

		test('exactly 90 days is accepted', async () => {
			const r = await f.run({ resource: 'report', operation: 'create', type: 'PAYMENT_ACTIVITY', from: '2025-10-01T00:00:00Z', to: '2025-12-30T00:00:00Z' });
			expect(r.error()).toBeUndefined();
			expect(f.requests()).toHaveLength(1);
		});

		test('a bad type from an expression names the field', async () => {
			const r = await f.run({ resource: 'report', operation: 'create', type: '={{ "SALES" }}', from: FROM, to: TO });
			expect(r.error()?.message).toMatch(/"Type" must be one of PAYMENT_ACTIVITY/);
			expect(f.requests()).toHaveLength(0);
		});

		test('a short report id names the field and the rule', async () => {
			const r = await f.run({ resource: 'report', operation: 'get', reportId: expr('rpt_1') });
			expect(r.error()?.message).toMatch(/"Report ID" must be 12 to 48 characters long/);
			expect(f.requests()).toHaveLength(0);
		});

		test('an empty binary property name is refused', async () => {
			const r = await f.run({ resource: 'report', operation: 'download', reportId: rl('rpt_abcdefghijklmnop'), format: 'CSV', binaryPropertyName: '={{ "" }}' });
			expect(r.error()?.message).toMatch(/"Put Output File in Field" must be 1 to 128 characters long/);
			expect(f.requests()).toHaveLength(0);
		});
	});
});
