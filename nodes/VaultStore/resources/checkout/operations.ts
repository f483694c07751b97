import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { Operation, Params, RunContext } from '../../operation';
import { compact } from '../../../shared/validate';
import { ID } from '../../../shared/ids';

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

/** Items from the fixedCollection or from a JSON array, as the API's snake_case objects. */
export function readItems(p: Params): IDataObject[] {
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
	p.v.array('Items', raw, { min: 1, max: MAX_ESTIMATE_ITEMS });
	return raw.map((entry, i) => {
		const label = `Items ${i + 1}`;
		if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
			p.v.fail(`"${label}" must be an object with product_id and quantity`);
		}
		const item = entry as IDataObject;
		const productId = item.product_id ?? item.productId;
		const variantId = item.variant_id ?? item.variantId;
		return compact({
			product_id: p.v.id({ ...PRODUCT_ID, label: `${label}: Product ID` }, productId),
			quantity: isEmpty(item.quantity)
				? p.v.fail(`"${label}: Quantity" is required (a whole number, at least 1)`)
				: p.v.number(`${label}: Quantity`, item.quantity, { min: 1, integer: true }),
			variant_id: isEmpty(variantId) ? undefined : p.v.string(`${label}: Variant ID`, variantId, { min: 1, max: 128 }).trim(),
		});
	});
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

function payBody(p: Params): IDataObject {
	const f = p.fields('additionalFields');
	return {
		paymentMethod: isEmpty(f.paymentMethod) ? undefined : p.v.oneOf('Payment Method', f.paymentMethod, PAYMENT_METHODS),
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

export const checkoutOperations: Operation[] = [
	{
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
	},
	{
		value: 'pay',
		name: 'Pay',
		action: 'Pay a checkout session',
		description:
			'Pay an open checkout session, optionally with a payment method and a vault card token (tok_...). Sends an Idempotency-Key, so a retry never pays twice.',
		method: 'POST',
		family: 'stores',
		path: '/checkouts/{sessionId}/pay',
		ids: { sessionId: ID.sessionId },
		idempotent: 'honoured',
		inferred: true,
		notes: 'inferred body names paymentMethod, token; an already paid session is a clear error',
		body: payBody,
		run: runPay,
	},
	{
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
	},
];
