import type { INodeProperties } from 'n8n-workflow';

import { idLocator, showFor } from '../../descriptions';
import { ID } from '../../../shared/ids';
import { PAYMENT_METHODS } from './operations';

const METHOD_NAMES: Record<(typeof PAYMENT_METHODS)[number], string> = {
	AMAZON_PAY: 'Amazon Pay',
	APPLE_PAY: 'Apple Pay',
	BANCONTACT: 'Bancontact',
	BLIK: 'BLIK',
	CARD: 'Card',
	EPS: 'EPS',
	GOOGLE_PAY: 'Google Pay',
	IDEAL: 'iDEAL',
	MB_WAY: 'MB WAY',
	MULTIBANCO: 'Multibanco',
	PRZELEWY24: 'Przelewy24',
};

const estimate = showFor('checkout', ['estimate']);

export const checkoutFields: INodeProperties[] = [
	{
		displayName: 'Items Input',
		name: 'itemsInput',
		type: 'options',
		options: [
			{ name: 'Define Below', value: 'fields', description: 'Enter each product in the fields below' },
			{ name: 'JSON', value: 'json', description: 'Pass a JSON array of {product_id, quantity, variant_id?}' },
		],
		default: 'fields',
		description: 'How the products to price are given',
		displayOptions: estimate,
	},
	{
		displayName: 'Items',
		name: 'items',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Add Item',
		default: {},
		required: true,
		description: 'Products to price: 1 to 10 entries',
		displayOptions: { show: { resource: ['checkout'], operation: ['estimate'], itemsInput: ['fields'] } },
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
						description: 'The product to price (starts with prd_, 12 to 48 characters)',
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
		description: 'JSON array of 1 to 10 objects {product_id, quantity, variant_id?}',
		displayOptions: { show: { resource: ['checkout'], operation: ['estimate'], itemsInput: ['json'] } },
	},
	{
		displayName: 'Country',
		name: 'country',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'US',
		description: 'Country of the buyer, used for tax: a 2-letter ISO 3166-1 alpha-2 code such as US, DE or NL',
		displayOptions: estimate,
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		displayOptions: estimate,
		options: [
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
		],
	},
	idLocator('sessionId', ID.sessionId, showFor('checkout', ['pay']), {
		description: 'The checkout session to pay (12 to 48 characters), e.g. from Start Paylink Checkout',
	}),
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		displayOptions: showFor('checkout', ['pay']),
		options: [
			{
				displayName: 'Payment Method',
				name: 'paymentMethod',
				type: 'options',
				options: PAYMENT_METHODS.map((value) => ({ name: METHOD_NAMES[value], value })),
				default: 'CARD',
				description: 'How the session is paid (inferred field)',
			},
			{
				displayName: 'Card Token ID',
				name: 'vaultCardId',
				type: 'string',
				default: '',
				placeholder: 'tok_...',
				description: 'A vault card token to pay with (inferred field)',
			},
		],
	},
	idLocator('paylinkId', ID.paylinkId, showFor('checkout', ['paylinkCheckout']), {
		description: 'The paylink to open a checkout session from (12 to 48 characters)',
	}),
];
