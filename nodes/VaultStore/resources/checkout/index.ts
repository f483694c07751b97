import type { IDataObject, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { STORE_CREDENTIAL } from '../../../shared/credentials';
import { ID } from '../../../shared/ids';
import { enumOptions } from '../../../shared/labels';
import { withoutEmptyValues } from '../../../shared/validate';
import { collectionField, locatorField } from '../../properties';
import type { Operation, Params, Resource, RunContext } from '../../operation';

export const MAX_ESTIMATE_ITEMS = 10;
export const PAYMENT_METHODS = [
	'AMAZON_PAY',
	'APPLE_PAY',
	'BANCONTACT',
	'BLIK',
	'CARD',
	'EPS',
	'GOOGLE_PAY',
	'IDEAL',
	'MB_WAY',
	'MULTIBANCO',
	'PRZELEWY24',
] as const;

const PRODUCT_ID = ID.productId;

function isEmpty(value: unknown): boolean {
	return value === undefined || value === null || value === '';
}

// ---- estimate ----

/**
 * Items from the fixedCollection or from a JSON array, as the API's snake_case
 * objects. 1 to 10 items is the estimate's rule (an error there); a session's
 * item count has no stated rule, so there it only warns.
 */
export function readItems(p: Params, countRule: 'estimate' | 'session' = 'estimate'): IDataObject[] {
	const mode = p.get<string>('itemsInput', 'fields');
	let raw: unknown[];
	if (mode === 'json') {
		const parsed = p.v.json('Items (JSON)', p.get('itemsJson', '[]'));
		if (!Array.isArray(parsed)) {
			p.v.fail('"Items (JSON)" must be a JSON array of {product_id, quantity, variant_id?}');
		}
		raw = parsed;
	} else {
		const collection = p.get<IDataObject>('items', {}) ?? {};
		raw = Array.isArray(collection.item) ? collection.item : [];
	}
	if (countRule === 'estimate') p.v.array('Items', raw, { min: 1, max: MAX_ESTIMATE_ITEMS });
	else if (raw.length < 1 || raw.length > MAX_ESTIMATE_ITEMS) {
		p.v.warn(`"Items" has ${raw.length} entries: the estimate takes 1 to ${MAX_ESTIMATE_ITEMS}, a session may differ`);
	}
	return raw.map((entry, i) => {
		const label = `Items ${i + 1}`;
		if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
			p.v.fail(`"${label}" must be an object with product_id and quantity`);
		}
		const item = entry as IDataObject;
		const productId = item.product_id ?? item.productId;
		const variantId = item.variant_id ?? item.variantId;
		return withoutEmptyValues({
			product_id: p.v.id({ ...PRODUCT_ID, label: `${label}: Product ID` }, productId),
			quantity: isEmpty(item.quantity)
				? p.v.fail(`"${label}: Quantity" is required (a whole number, at least 1)`)
				: quantity(p, `${label}: Quantity`, item.quantity),
			variant_id: isEmpty(variantId) ? undefined : p.v.nonEmpty(`${label}: Variant ID`, variantId),
		});
	});
}

/** A whole number (the spec's integer); below 1 is the node's own rule, a warning. */
function quantity(p: Params, label: string, value: unknown): number {
	const n = p.v.number(label, value, { integer: true });
	if (n < 1) p.v.warn(`"${label}" is below 1 (got ${n})`);
	return n;
}

function estimateBody(p: Params): IDataObject {
	const items = readItems(p);
	const country = p.v.string('Country', p.get('country', ''), { min: 1 }).trim().toUpperCase();
	if (!/^[A-Z]{2}$/.test(country)) {
		p.v.fail(`"Country" must be exactly 2 letters, an ISO 3166-1 alpha-2 code such as US or DE (got "${country.slice(0, 20)}")`);
	}
	const f = p.fields('additionalFields');
	const text = (label: string, value: unknown, max: number) =>
		isEmpty(value) ? undefined : p.v.string(label, value, { max }).trim() || undefined;
	return {
		items,
		country,
		state: text('State', f.state, 64),
		coupon_code: text('Coupon Code', f.couponCode, 64),
		tax_id: text('Tax ID', f.taxId, 32),
	};
}

/** The products of an estimate or a new checkout session: fields, or a JSON array. */
const itemFields: INodeProperties[] = [
	{
		displayName: 'Items Input',
		name: 'itemsInput',
		type: 'options',
		options: [
			{ name: 'Define Below', value: 'fields', description: 'Enter each product in the fields below' },
			{ name: 'JSON', value: 'json', description: 'Pass a JSON array of {product_id, quantity, variant_id?}' },
		],
		default: 'fields',
		description: 'How the products are given',
	},
	{
		displayName: 'Items',
		name: 'items',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Add Item',
		default: {},
		required: true,
		description: `Products: 1 to ${MAX_ESTIMATE_ITEMS} entries`,
		displayOptions: { show: { itemsInput: ['fields'] } },
		options: [
			{
				displayName: 'Item',
				name: 'item',
				values: [
					{
						displayName: 'Product ID',
						name: 'productId',
						type: 'string',
						default: '',
						required: true,
						placeholder: 'prd_...',
						description: 'The product (starts with prd_, 12 to 48 characters)',
					},
					{
						displayName: 'Quantity',
						name: 'quantity',
						type: 'number',
						typeOptions: { minValue: 1 },
						default: 1,
						description: 'How many, a whole number of at least 1',
					},
					{
						displayName: 'Variant ID',
						name: 'variantId',
						type: 'string',
						default: '',
						description: 'The product variant, if the product has variants',
					},
				],
			},
		],
	},
	{
		displayName: 'Items (JSON)',
		name: 'itemsJson',
		type: 'json',
		default: '[\n  { "product_id": "prd_...", "quantity": 1 }\n]',
		required: true,
		description: `JSON array of 1 to ${MAX_ESTIMATE_ITEMS} objects {product_id, quantity, variant_id?}`,
		displayOptions: { show: { itemsInput: ['json'] } },
	},
];

const estimate: Operation = {
	value: 'estimate',
	name: 'Estimate',
	action: 'Estimate a checkout',
	description:
		'Preview price, tax, discount and total for 1 to 10 products (product_id, quantity, optional variant_id) delivered to a country (2-letter ISO code), with optional state, coupon code and VAT number. Also returns the merchant and the payment methods available.',
	method: 'POST',
	family: 'stores',
	path: '/checkouts/estimate',
	notes: 'sends the store credential (whether it is needed is not shown)',
	body: estimateBody,
	fields: [
		...itemFields,
		{
			displayName: 'Country',
			name: 'country',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'US',
			description: 'Country of the buyer, used for tax: a 2-letter ISO 3166-1 alpha-2 code such as US, DE or NL',
		},
		collectionField('additionalFields', [
			{
				displayName: 'Coupon Code',
				name: 'couponCode',
				type: 'string',
				default: '',
				description: 'Coupon to preview the discount of (max 64 characters)',
			},
			{
				displayName: 'State',
				name: 'state',
				type: 'string',
				default: '',
				description: 'State or region of the buyer, used for tax (max 64 characters)',
			},
			{
				displayName: 'Tax ID',
				name: 'taxId',
				type: 'string',
				default: '',
				description: 'VAT number of a business buyer, for tax exemption (max 32 characters)',
			},
		]),
	],
};

// ---- create session ----

/** Text (an email's form and length are not given: the node only warns about what cannot be an address). */
function email(p: Params, value: unknown): string {
	const text = p.v.string('Customer Email', value).trim();
	if (!/^[^@\s]+@[^@\s]+$/.test(text)) p.v.warn(`"Customer Email" does not look like an email address`);
	return text;
}

const createSession: Operation = {
	value: 'createSession',
	name: 'Create Session',
	action: 'Create a checkout session',
	description:
		'Open a checkout session for one or more products and get its payment page URL. Store checkout sessions capture the payment automatically.',
	method: 'POST',
	family: 'base',
	path: '/v2/checkouts',
	notes: 'route given (POST /v2/checkouts, automatic capture only); inferred body: items as in the estimate, success_url, cancel_url, customer_email',
	body: (p) => {
		const f = p.fields('sessionFields');
		const url = (label: string, value: unknown) => (isEmpty(value) ? undefined : p.v.url(label, value));
		return {
			items: readItems(p, 'session'),
			success_url: url('Success URL', f.successUrl),
			cancel_url: url('Cancel URL', f.cancelUrl),
			customer_email: isEmpty(f.customerEmail) ? undefined : email(p, f.customerEmail),
		};
	},
	fields: [
		...itemFields,
		{
			displayName: 'Session Fields',
			name: 'sessionFields',
			type: 'collection',
			placeholder: 'Add Field',
			default: {},
			options: [
				{
					displayName: 'Cancel URL',
					name: 'cancelUrl',
					type: 'string',
					default: '',
					description: 'Where the buyer returns after leaving the payment page without paying',
				},
				{
					displayName: 'Customer Email',
					name: 'customerEmail',
					type: 'string',
					placeholder: 'name@email.com',
					default: '',
					description: 'Email address of the buyer, if known',
				},
				{
					displayName: 'Success URL',
					name: 'successUrl',
					type: 'string',
					default: '',
					description: 'Where the buyer goes after paying',
				},
			],
		},
	],
};

// ---- pay ----

/**
 * The list is the one an estimate draws available_payment_methods from; Pay's body is not shown, so a
 * method outside it (typed through an expression) is sent as given, with a warning.
 */
function paymentMethod(p: Params, value: unknown): string {
	const method = p.v.nonEmpty('Payment Method', value);
	if (!(PAYMENT_METHODS as readonly string[]).includes(method)) {
		p.v.warn(`"Payment Method" is not one the node knows (${PAYMENT_METHODS.join(', ')}) (got ${method.slice(0, 40)})`);
	}
	return method;
}

function payBody(p: Params): IDataObject {
	const f = p.fields('additionalFields');
	return {
		paymentMethod: isEmpty(f.paymentMethod) ? undefined : paymentMethod(p, f.paymentMethod),
		token: isEmpty(f.vaultCardId) ? undefined : p.v.id({ ...ID.tokenId, label: 'Card Token ID' }, f.vaultCardId),
	};
}

async function runPay(rc: RunContext): Promise<INodeExecutionData[]> {
	try {
		const res = await rc.transport.request(rc.request);
		let json = (res.data ?? { success: true }) as IDataObject;
		if (res.replay) json = { ...json, idempotentReplay: true };
		return [{ json, pairedItem: { item: rc.p.itemIndex } }];
	} catch (error) {
		throw alreadyPaidError(rc, error);
	}
}

/** The service's "already paid" 422 becomes a clear message; other errors pass unchanged. */
function alreadyPaidError(rc: RunContext, error: unknown): unknown {
	const e = error as { httpCode?: string; description?: string; message?: string };
	if (e.httpCode !== '422' || !/already[_ ]paid/i.test(`${e.description ?? ''} ${e.message ?? ''}`)) return error;
	return new NodeOperationError(rc.ctx.getNode(), 'This checkout session is already paid (HTTP 422)', {
		description:
			'A checkout session can be paid once. Running again with the same Idempotency-Key returns the original payment; a new key is refused.',
		itemIndex: rc.p.itemIndex,
	});
}

const pay: Operation = {
	value: 'pay',
	name: 'Pay',
	action: 'Pay a checkout session',
	description:
		'Pay an open checkout session, optionally with a payment method and a vault card token (tok_...). Sends an Idempotency-Key, so a retry never pays twice.',
	money: {
		answerAmount: ['payment.amount', 'payment.totalAmount', 'amount', 'totalAmount'],
		answerCurrency: ['payment.currency', 'currency'],
		// The charge is the largest amount the service states for it (a total with tax over an amount).
		largest: true,
		withoutAmount: 'the whole session total',
		// Under a Maximum Amount or a budget the session's total is read before paying (the read route and
		// its names are guessed; Options → Total Read Route, Total Amount Fields, Total Currency Fields correct them).
		readFirst: { path: '/checkouts/{sessionId}', amount: ['amount', 'total', 'totalAmount'], currency: ['currency'] },
		// A session whose total shows no currency: a spending budget counts it in the store currency.
		currencyRead: { path: '', currency: ['currency'] },
	},
	method: 'POST',
	family: 'stores',
	path: '/checkouts/{sessionId}/pay',
	ids: { sessionId: ID.sessionId },
	idempotent: 'honoured',
	notes: 'inferred body names paymentMethod, token; an already paid session is a clear error',
	body: payBody,
	run: runPay,
	fields: [
		locatorField('sessionId', ID.sessionId, {
			description: 'The checkout session to pay (12 to 48 characters), e.g. from Start Paylink Checkout',
		}),
		collectionField('additionalFields', [
			{
				displayName: 'Payment Method',
				name: 'paymentMethod',
				type: 'options',
				options: enumOptions(PAYMENT_METHODS, { BLIK: 'BLIK', EPS: 'EPS', IDEAL: 'iDEAL', MB_WAY: 'MB WAY' }),
				default: 'CARD',
				description: 'How the session is paid',
			},
			{
				displayName: 'Card Token ID',
				name: 'vaultCardId',
				type: 'string',
				default: '',
				placeholder: 'tok_...',
				description: 'A vault card token to pay with (starts with tok_)',
			},
		]),
	],
};

// ---- paylinkCheckout ----

const paylinkCheckout: Operation = {
	value: 'paylinkCheckout',
	name: 'Start Paylink Checkout',
	action: 'Start a checkout from a paylink',
	description:
		'Open a checkout session from a paylink, as a buyer would (no authentication is sent). Returns the session with its ID and the checkout URL.',
	method: 'POST',
	family: 'storefront',
	path: '/paylinks/{paylinkId}/checkout',
	notes: 'no request body',
	ids: { paylinkId: ID.paylinkId },
	fields: [
		locatorField('paylinkId', ID.paylinkId, {
			description: 'The paylink to open a checkout session from (12 to 48 characters)',
		}),
	],
};

export const checkout: Resource = {
	value: 'checkout',
	name: 'Checkout',
	description: 'Checkout estimates, paylink checkout sessions and their payment',
	credential: STORE_CREDENTIAL,
	operations: [createSession, estimate, pay, paylinkCheckout],
	defaultOperation: 'estimate',
};
