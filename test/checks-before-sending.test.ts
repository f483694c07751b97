/**
 * Every row of the checks table (scripts/checks-before-sending.ts, the README's
 * "Checks before sending") behaves as listed: an error row refuses its example
 * with an error naming the field and sends nothing; a warning row sends the
 * value, adds a warning execution hint, and "Skip Local Checks" silences it.
 * A row without an example here fails the test.
 */
import type { IDataObject } from 'n8n-workflow';

import { CHECKS_BEFORE_SENDING as CHECKS } from '../scripts/checks-before-sending';
import { useSandbox } from './support/fixtures';

const f = useSandbox({ orders: 5 });

const rl = (value: string) => ({ __rl: true, mode: 'id', value });
const expr = (value: string) => ({ __rl: true, mode: 'id', value: `={{ ${JSON.stringify(value)} }}` });
const id = (prefix: string) => `${prefix}${'a'.repeat(16 - prefix.length)}`;
const thisYear = new Date().getUTCFullYear();

const card = (extra: IDataObject) => ({
	resource: 'token',
	operation: 'create',
	tokenType: 'card',
	cardNumber: '4242424242424242',
	expMonth: '12',
	expYear: String(thisYear + 2),
	...extra,
});
const items = (n: number, quantity: unknown = 1) => ({ item: Array.from({ length: n }, () => ({ productId: id('prd_'), quantity })) });
const estimate = (extra: IDataObject) => ({ resource: 'checkout', operation: 'estimate', itemsInput: 'fields', items: items(1), country: 'US', ...extra });
const session = (extra: IDataObject) => ({ resource: 'checkout', operation: 'createSession', itemsInput: 'fields', items: items(1), ...extra });
const webhook = (extra: IDataObject) => ({ resource: 'webhook', operation: 'create', url: 'https://127.0.0.1:9/hook', eventTypes: ['PAYMENT_COMPLETED'], ...extra });
const product = (updateFields: IDataObject) => ({ resource: 'product', operation: 'update', productId: rl(id('prd_')), updateFields });

/** For each row: parameters that break the rule, and what the error or the warning says. */
const EXAMPLES: Record<string, [IDataObject, RegExp]> = {
	pathId: [{ resource: 'order', operation: 'get', orderId: expr('ord_short') }, /"Order ID" must start with "ord_" and be 12 to 48/],
	pathIdChars: [{ resource: 'order', operation: 'get', orderId: expr('ord_aaaa.aaaaaaaa') }, /"Order ID" has characters other than letters/],
	pathIdRoute: [{ resource: 'order', operation: 'get', orderId: expr('ord_abc/def/ghij') }, /the path has an encoded slash/],
	vaultId: [{ resource: 'token', operation: 'get', tokenId: expr('abc_aaaaaaaaaaaa') }, /"Token ID" must start with "tok_"/],
	fieldIdChars: [
		{ resource: 'subscription', operation: 'change', subscriptionId: rl(id('sub_')), updateFields: { productId: 'prd_aaaa.aaaaaaaa' } },
		/"Product ID" has characters other than letters/,
	],
	idempotencyKey: [{ resource: 'order', operation: 'refund', orderId: rl(id('ord_')), options: { idempotencyKey: 'bad key!' } }, /"Idempotency Key" must be 1 to 255/],
	extras: [{ resource: 'order', operation: 'getAll', additionalQueryParameters: { pair: [{ name: '', value: 'x' }] } }, /"Additional Query Parameters" has a value without a name/],
	nothingToUpdate: [{ resource: 'webhook', operation: 'update', webhookId: rl(id('whk_')) }, /Choose at least one field to update/],
	nodeOptions: [{ resource: 'store', operation: 'get', options: { concurrency: 1001 } }, /"Concurrency" must be at most 1000/],
	tokenData: [{ resource: 'token', operation: 'create', tokenType: 'pii', data: '[1]' }, /"Data" must be a JSON object/],
	customData: [{ resource: 'token', operation: 'create', tokenType: 'custom', data: JSON.stringify({ x: 'x'.repeat(16_400) }) }, /at most 16 KiB/],
	emptyData: [{ resource: 'token', operation: 'create', tokenType: 'pii', data: '{}' }, /"Data" of a PII token is an empty object/],
	cardNumberRequired: [card({ cardNumber: '={{ "" }}' }), /"Card Number" is required/],
	cardDigits: [card({ cardNumber: '42424242424' }), /"Card Number" is not 12 to 19 digits/],
	cardLuhn: [card({ cardNumber: '4242424242424241' }), /"Card Number" fails the Luhn check/],
	expiryWhole: [card({ expMonth: '1.5' }), /"Expiry Month" must be a whole number/],
	expiryMonth: [card({ expMonth: '13' }), /"Expiry Month" is not from 1 to 12/],
	expiryYear: [card({ expYear: '31' }), /"Expiry Year" is not a four-digit year/],
	cardExpired: [card({ expYear: String(thisYear - 1) }), /The card has expired/],
	cvc: [card({ cvc: '12' }), /"CVC" is not 3 or 4 digits/],
	expiresAt: [card({ additionalFields: { expiresAt: '2020-01-01T00:00:00Z' } }), /"Expires At" is not in the future/],
	fingerprint: [{ resource: 'token', operation: 'getAll', filters: { fingerprint: 'abc_1' } }, /"Fingerprint" must start with "fp_"/],
	metadataKeys: [
		{ resource: 'token', operation: 'update', tokenId: rl(id('tok_')), updateFields: { setMetadata: { entries: [{ key: 'a', value: '1' }] }, removeMetadataKeys: 'a' } },
		/both name the key "a"/,
	],
	estimateItems: [estimate({ items: items(11) }), /"Items" must have 1 to 10 entries/],
	sessionItems: [session({ items: items(11) }), /"Items" has 11 entries/],
	itemQuantity: [estimate({ items: items(1, 1.5) }), /"Items 1: Quantity" must be a whole number/],
	itemQuantityMin: [estimate({ items: items(1, 0) }), /"Items 1: Quantity" is below 1/],
	fieldIds: [estimate({ items: { item: [{ productId: 'ord_123456789012', quantity: 1 }] } }), /"Items 1: Product ID" must start with "prd_"/],
	country: [estimate({ country: 'USA' }), /"Country" must be exactly 2 letters/],
	estimateLengths: [estimate({ additionalFields: { couponCode: 'c'.repeat(65) } }), /"Coupon Code" must be at most 64/],
	urlForm: [session({ sessionFields: { successUrl: 'ftp://files.example.com/a' } }), /"Success URL" does not look like an http\(s\) URL/],
	email: [session({ sessionFields: { customerEmail: 'nobody' } }), /"Customer Email" does not look like an email address/],
	productFields: [product({ title: 't'.repeat(257) }), /"Title" must be 1 to 256/],
	availability: [product({ availableFrom: '2026-05-01T00:00:00Z', availableUntil: '2026-04-01T00:00:00Z' }), /"Available From" is not before "Available Until"/],
	variantFields: [product({ variants: JSON.stringify([{ title: 'A', color: 'red' }]) }), /"Variants" entry 1 has a field the node does not know, "color"/],
	variantTypes: [product({ variants: JSON.stringify([{ title: 'A', quantity: 1.5 }]) }), /"Variants" entry 1: "quantity" must be a whole number/],
	optionRows: [product({ options: { option: [{ name: 'Size', values: '', position: 0 }] } }), /"Options entry 1 Values" lists no value/],
	subscriptionQuantity: [
		{ resource: 'subscription', operation: 'change', subscriptionId: rl(id('sub_')), updateFields: { quantity: 0 } },
		/"Quantity" is not a whole number of at least 1/,
	],
	meterPrice: [
		{ resource: 'meter', operation: 'update', productId: rl(id('prd_')), meterId: rl(id('mtr_')), updateFields: { pricePerUnit: -1 } },
		/"Price Per Unit" is below 0/,
	],
	categoryFields: [{ resource: 'category', operation: 'create', name: 'Shoes', slug: 'shoes', additionalFields: { displayOrder: 10000 } }, /"Display Order" must be at most 9999/],
	categoryNamed: [{ resource: 'category', operation: 'create', name: '={{ "" }}', slug: 'no-name' }, /"Name" is empty, so it is not sent/],
	topLevel: [
		{ resource: 'category', operation: 'create', name: 'Shoes', slug: 'shoes', additionalFields: { topLevel: true, parentId: id('ctg_') } },
		/cannot be used together/,
	],
	webhookUrl: [webhook({ url: 'http://example.com/hook' }), /"URL" must start with https:\/\//],
	webhookEvents: [webhook({ additionalFields: { note: 'n'.repeat(257) } }), /"Note" must be at most 256/],
	caseMessage: [{ resource: 'case', operation: 'addMessage', caseId: rl(id('cs_')), body: 'm'.repeat(4001) }, /"Message" must be 1 to 4000/],
	licenseKey: [{ resource: 'license', operation: 'verify', key: 'k'.repeat(513) }, /"License Key" must be 1 to 512/],
	searchText: [{ resource: 'order', operation: 'getAll', filters: { search: 's'.repeat(129) } }, /"Search" must be at most 128/],
	enums: [product({ status: '={{ "ARCHIVED" }}' }), /"Status" must be one of/],
	reportPeriod: [
		{ resource: 'report', operation: 'create', type: 'PAYMENT_ACTIVITY', from: '2026-01-01T00:00:00Z', to: '2026-04-02T00:00:00Z' },
		/90 days/,
	],
	reportOrder: [
		{ resource: 'report', operation: 'create', type: 'PAYMENT_ACTIVITY', from: '2026-02-01T00:00:00Z', to: '2026-01-01T00:00:00Z' },
		/"From" is not before "To"/,
	],
	overviewPeriod: [
		{ resource: 'analytics', operation: 'getOverview', range: 'custom', from: '2026-02-01T00:00:00Z', to: '2026-01-01T00:00:00Z' },
		/"From" is not before "To"/,
	],
	months: [{ resource: 'analytics', operation: 'getMonthlyRevenue', months: 0 }, /"Months" is below 1/],
	searchInputs: [{ resource: 'search', operation: 'resolve', inputs: '={{ " " }}' }, /"Inputs" is required/],
	searchList: [{ resource: 'search', operation: 'resolve', inputs: `${id('ord_')},,${id('cus_')}` }, /"Inputs" must not contain empty entries/],
	searchMany: [{ resource: 'search', operation: 'resolve', inputs: Array.from({ length: 101 }, (_, i) => `VS-${i}`).join(',') }, /"Inputs" has more than 100 entries/],
	searchLength: [{ resource: 'search', operation: 'resolve', inputs: 'x'.repeat(257) }, /"Inputs" entry 1 is longer than 256/],
	currency: [{ resource: 'payout', operation: 'create', amount: 10, additionalFields: { currency: 'EURO' } }, /"Currency" is not a three-letter currency code/],
	capAmounts: [{ resource: 'order', operation: 'refund', orderId: rl(id('ord_')), additionalFields: { amount: 1 }, additionalBodyFields: { pair: [{ name: 'amount', value: '-1' }] }, options: { maxAmount: 5 } }, /"amount" of ".+" is -1; an amount must be more than 0/],
	amounts: [{ resource: 'order', operation: 'refund', orderId: rl(id('ord_')), additionalFields: { amount: 0 } }, /"Amount" must be greater than 0/],
	refundMin: [{ resource: 'order', operation: 'refund', orderId: rl(id('ord_')), additionalFields: { amount: 0.005 } }, /"Amount" is below 0.01/],
	bankAccountLength: [{ resource: 'payout', operation: 'create', amount: 1, additionalFields: { bankAccountId: 'bnk_short' } }, /"Bank Account ID" is not 12 to 48 characters/],
	payMethod: [{ resource: 'checkout', operation: 'pay', sessionId: rl(id('cks_')), additionalFields: { paymentMethod: '={{ "SEPA_DEBIT" }}' } }, /"Payment Method" is not one the node knows/],
	caseStatus: [{ resource: 'case', operation: 'getAll', filters: { status: 'open' } }, /"Status" has lower-case letters/],
	mandateFrequency: [{ resource: 'mandate', operation: 'create', customerId: rl(id('cus_')), description: 'Fee', frequency: '={{ "" }}' }, /"Frequency" is empty/],
	customPath: [{ resource: 'custom', operation: 'request', method: 'GET', path: '/v1/stores' }, /"Path" must start with \/v2\//],
};

/**
 * Rows of the trigger and the credential test: their examples are in test/trigger-secrets.test.ts
 * (signing secrets) and test/spec-rules-before-sending.test.ts (endpointUrl).
 */
const TRIGGER_ROWS = ['signingSecretShort', 'signingSecretEmpty', 'signingSecretV2', 'endpointUrl'];

test('every row of the checks table has an example here, and every example a row', () => {
	expect(CHECKS.filter((c) => c.node === 'trigger').map((c) => c.key)).toEqual(TRIGGER_ROWS);
	const keys = CHECKS.filter((c) => c.node !== 'trigger').map((c) => c.key);
	expect(new Set(keys).size).toBe(keys.length);
	expect(keys.filter((k) => !(k in EXAMPLES))).toEqual([]);
	expect(Object.keys(EXAMPLES).filter((k) => !keys.includes(k))).toEqual([]);
	// The rules the service states are errors; the node's own warn unless the row says why not.
	for (const c of CHECKS) {
		if (c.source === 'spec' || c.source === 'input') expect([c.key, c.level]).toEqual([c.key, 'error']);
		if (c.source === 'ours' && c.level === 'error') expect([c.key, (c.words ?? '').length > 10]).toEqual([c.key, true]);
		if (c.source === 'spec') expect([c.key, (c.words ?? '').length > 5]).toEqual([c.key, true]);
	}
});

describe.each(CHECKS.filter((c) => c.level === 'error' && c.node !== 'trigger'))('$key ($source): an error', (c) => {
	test(`${c.field}: ${c.rule}`, async () => {
		const [parameters, message] = EXAMPLES[c.key];
		const r = await f.run(parameters);
		expect(r.error()?.message).toMatch(message);
		expect(f.requests()).toHaveLength(0);
	});
});

describe.each(CHECKS.filter((c) => c.level === 'warning' && c.node !== 'trigger'))('$key ($source): a warning', (c) => {
	test(`${c.field}: ${c.rule}`, async () => {
		const [parameters, message] = EXAMPLES[c.key];
		const r = await f.run(parameters, undefined, { continueOnFail: true });
		// Sent as given, whatever the service answers.
		const sent = f.requests().length;
		expect(sent).toBeGreaterThan(0);
		expect(r.hints()).toEqual([expect.objectContaining({ type: 'warning', message: expect.stringMatching(message) })]);
		expect(r.hints()[0].message).toMatch(/Skip Local Checks/);

		const options = { ...(parameters.options as IDataObject | undefined), skipLocalChecks: true };
		const quiet = await f.run({ ...parameters, options }, undefined, { continueOnFail: true });
		expect(quiet.hints()).toEqual([]);
		expect(f.requests().length).toBe(sent);
	});
});

test('one hint per warning, naming the items it concerns', async () => {
	const input = [{ json: { n: '4242424242424241' } }, { json: { n: '4242424242424242' } }, { json: { n: '4242424242424241' } }];
	const r = await f.run(card({ cardNumber: '={{ $json.n }}' }), input, { continueOnFail: true });
	expect(f.requests()).toHaveLength(3);
	expect(r.hints().map((h) => h.message)).toEqual([expect.stringMatching(/"Card Number" fails the Luhn check.* \(items 1, 3\)\. Sent as given/)]);
	expect(JSON.stringify(r.hints())).not.toContain('4242424242424241');
});
