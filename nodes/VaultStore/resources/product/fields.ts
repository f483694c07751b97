import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { ID } from '../../../shared/ids';
import { enumOptions } from '../../../shared/labels';
import { bool, idList, opt, stringList } from '../../../shared/readers';
import type { Params } from '../../operation';

/** A product's fields: the values the service accepts, the Update body and its editor fields (index.ts holds the operations). */

export const PRODUCT_TYPES = ['SUBSCRIPTION', 'DIGITAL_DOWNLOAD', 'LICENSE_KEY'] as const;
export const FULFILLMENT_MODES = [
	'MANAGED_LICENSE',
	'LICENSE_POOL',
	'LICENSE_WEBHOOK',
	'INSTANT_DOWNLOAD',
	'REDIRECT',
	'MANUAL',
] as const;
export const PRICING_MODELS = ['STANDARD', 'PAY_WHAT_YOU_WANT', 'FREE'] as const;
export const PRODUCT_STATUSES = ['DRAFT', 'ACTIVE'] as const;
export const KEY_FORMATS = ['ALPHANUMERIC', 'UUID', 'CUSTOM_PREFIX'] as const;
export const LICENSE_DURATIONS = ['THIRTY_DAYS', 'NINETY_DAYS', 'ONE_YEAR', 'LIFETIME'] as const;
export const BILLING_INTERVALS = ['WEEKLY', 'MONTHLY', 'YEARLY'] as const;
export const BILLING_ANCHORS = ['IMMEDIATELY', 'END_OF_PERIOD'] as const;

export const MAX_IMAGES = 10;
export const MAX_VARIANTS = 20;
export const MAX_OPTIONS = 20;

/** Fields of a Variant the spec lists, with how each is checked. */
const VARIANT_FIELDS: Record<string, 'text' | 'money' | 'count' | 'boolean' | 'images' | 'any'> = {
	id: 'text',
	title: 'text',
	slug: 'text',
	description: 'text',
	sku: 'text',
	options: 'any',
	price: 'money',
	compareAtPrice: 'money',
	images: 'images',
	inStock: 'boolean',
	quantity: 'count',
	trackStock: 'boolean',
	position: 'count',
};

function variants(p: Params, value: unknown): IDataObject[] {
	const parsed = p.v.json('Variants', value);
	const list = p.v.array<unknown>('Variants', parsed, { max: MAX_VARIANTS });
	return list.map((entry, index) => {
		const at = `"Variants" entry ${index + 1}`;
		if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
			p.v.fail(`${at} must be a JSON object`);
		}
		const variant = entry as IDataObject;
		for (const [key, field] of Object.entries(variant)) {
			const kind = VARIANT_FIELDS[key];
			if (!kind) {
				// The spec's variant fields are listed; one more may be your account's: sent, with a warning.
				p.v.warn(`${at} has a field the node does not know, "${key.slice(0, 40)}" (variant fields: ${Object.keys(VARIANT_FIELDS).join(', ')})`);
				continue;
			}
			if (field === null || kind === 'any') continue;
			// The spec types images (array of string), inStock and trackStock (boolean), quantity and
			// position (integer): errors. It gives no type for the text fields nor for price and
			// compareAtPrice (nor a sign: the product's own prices are >= 0): warnings.
			if (kind === 'text' && typeof field !== 'string') p.v.warn(`${at}: "${key}" is not text`);
			if (kind === 'boolean' && typeof field !== 'boolean') p.v.fail(`${at}: "${key}" must be true or false`);
			if (kind === 'money' && (typeof field !== 'number' || !Number.isFinite(field))) p.v.warn(`${at}: "${key}" is not a number`);
			if (kind === 'money' && typeof field === 'number' && field < 0) p.v.warn(`${at}: "${key}" is below 0`);
			if (kind === 'count' && (typeof field !== 'number' || !Number.isInteger(field))) {
				p.v.fail(`${at}: "${key}" must be a whole number`);
			}
			if (kind === 'count' && (field as number) < 0) p.v.warn(`${at}: "${key}" is below 0`);
			// A variant's images: an array of strings (the max 10 of the spec is the product's images).
			if (kind === 'images') stringList(p.v, `Variants entry ${index + 1} images`, field);
		}
		return variant;
	});
}

function productOptions(p: Params, value: unknown): IDataObject[] {
	const rows = ((value as IDataObject | undefined)?.option ?? []) as IDataObject[];
	p.v.array('Options', rows, { max: MAX_OPTIONS });
	return rows.map((row, index) => {
		const at = `Options entry ${index + 1}`;
		const name = p.v.string(`${at} Name`, row.name ?? '').trim();
		if (name === '') p.v.warn(`"${at} Name" is empty`);
		const values = stringList(p.v, `${at} Values`, row.values ?? '', {});
		if (values.length === 0) p.v.warn(`"${at} Values" lists no value`);
		const position = p.v.number(`${at} Position`, row.position ?? index, { integer: true });
		if (position < 0) p.v.warn(`"${at} Position" is below 0`);
		return { name, values, position };
	});
}

/** The PATCH body: every field of Update Fields, validated, named as the API names them. */
export function productUpdateBody(p: Params): IDataObject {
	const f = p.fields('updateFields');
	const text = (label: string, max: number, min = 0) => (v: unknown) => p.v.string(label, v, { min, max });
	const money = (label: string) => (v: unknown) => p.v.number(label, v, { min: 0 });
	const count = (label: string, min: number) => (v: unknown) => p.v.number(label, v, { min, integer: true });
	const url = (label: string) => (v: unknown) => p.v.url(label, v, { max: 2048 });
	const body: IDataObject = {
		title: opt(f, 'title', text('Title', 256, 1)),
		subtitle: opt(f, 'subtitle', text('Subtitle', 512)),
		description: opt(f, 'description', text('Description', 10000)),
		price: opt(f, 'price', money('Price')),
		compareAtPrice: opt(f, 'compareAtPrice', money('Compare-At Price')),
		minimumPrice: opt(f, 'minimumPrice', money('Minimum Price')),
		// Images: the spec gives max 10 entries, no URL length.
		images: opt(f, 'images', (v) => stringList(p.v, 'Images', v, { max: MAX_IMAGES })),
		message: opt(f, 'message', text('Message', 1000)),
		inStock: opt(f, 'inStock', (v) => bool(p.v, 'In Stock', v)),
		productType: opt(f, 'productType', (v) => p.v.oneOf('Product Type', v, PRODUCT_TYPES)),
		fulfillmentMode: opt(f, 'fulfillmentMode', (v) => p.v.oneOf('Fulfillment Mode', v, FULFILLMENT_MODES)),
		pricingModel: opt(f, 'pricingModel', (v) => p.v.oneOf('Pricing Model', v, PRICING_MODELS)),
		status: opt(f, 'status', (v) => p.v.oneOf('Status', v, PRODUCT_STATUSES)),
		maxPerCustomer: opt(f, 'maxPerCustomer', count('Max Per Customer', 1)),
		availableFrom: opt(f, 'availableFrom', (v) => p.v.timestamp('Available From', v)),
		availableUntil: opt(f, 'availableUntil', (v) => p.v.timestamp('Available Until', v)),
		downloadUrl: opt(f, 'downloadUrl', url('Download URL')),
		redirectUrl: opt(f, 'redirectUrl', url('Redirect URL')),
		keyFormat: opt(f, 'keyFormat', (v) => p.v.oneOf('Key Format', v, KEY_FORMATS)),
		customPrefix: opt(f, 'customPrefix', text('Custom Prefix', 32)),
		maxActivations: opt(f, 'maxActivations', count('Max Activations', 1)),
		licenseDuration: opt(f, 'licenseDuration', (v) => p.v.oneOf('License Duration', v, LICENSE_DURATIONS)),
		revokeOnRefund: opt(f, 'revokeOnRefund', (v) => bool(p.v, 'Revoke On Refund', v)),
		lowStockThreshold: opt(f, 'lowStockThreshold', count('Low Stock Threshold', 0)),
		webhookUrl: opt(f, 'webhookUrl', url('Webhook URL')),
		webhookSecret: opt(f, 'webhookSecret', (v) =>
			p.v.string('Webhook Secret', v, { min: 1, max: 256, secret: true }),
		),
		billingInterval: opt(f, 'billingInterval', (v) => p.v.oneOf('Billing Interval', v, BILLING_INTERVALS)),
		billingAnchor: opt(f, 'billingAnchor', (v) => p.v.oneOf('Billing Anchor', v, BILLING_ANCHORS)),
		trialDays: opt(f, 'trialDays', count('Trial Days', 0)),
		// License keys: an array of strings, no length given (the 1 to 512 of Verify is that request's key).
		licenseKeys: opt(f, 'licenseKeys', (v) => stringList(p.v, 'License Keys', v, { separators: /\n/, secret: true })),
		// Category IDs: no count limit given for a product (max 100 is the category's productIds).
		categoryIds: opt(f, 'categoryIds', (v) => idList(p.v, 'Category IDs', v, ID.categoryId, Infinity)),
		variants: opt(f, 'variants', (v) => variants(p, v)),
		options: opt(f, 'options', (v) => productOptions(p, v)),
	};
	if (typeof body.availableFrom === 'string' && typeof body.availableUntil === 'string') {
		if (Date.parse(body.availableFrom) >= Date.parse(body.availableUntil)) {
			p.v.warn('"Available From" is not before "Available Until"');
		}
	}
	return body;
}

export const updateFieldOptions: INodeProperties[] = [
	{
		displayName: 'Available From',
		name: 'availableFrom',
		type: 'dateTime',
		default: '',
		description: 'When the product becomes available for purchase (ISO 8601 date and time)',
	},
	{
		displayName: 'Available Until',
		name: 'availableUntil',
		type: 'dateTime',
		default: '',
		description: 'When the product stops being available for purchase; must be after Available From',
	},
	{
		displayName: 'Billing Anchor',
		name: 'billingAnchor',
		type: 'options',
		options: enumOptions(BILLING_ANCHORS),
		default: 'IMMEDIATELY',
		description: 'For subscriptions: when plan changes take effect by default',
	},
	{
		displayName: 'Billing Interval',
		name: 'billingInterval',
		type: 'options',
		options: enumOptions(BILLING_INTERVALS),
		default: 'MONTHLY',
		description: 'For subscriptions: how often the customer is charged',
	},
	{
		displayName: 'Category IDs',
		name: 'categoryIds',
		type: 'string',
		default: '',
		placeholder: 'ctg_1a2b3c4d5e6f, ctg_7g8h9i0j1k2l',
		description:
			'Categories the product belongs to, replacing the current ones: IDs separated by commas, or a JSON array (send [] to remove the product from every category). Each ID starts with ctg_ and is 12 to 48 characters.',
	},
	{
		displayName: 'Compare-At Price',
		name: 'compareAtPrice',
		type: 'number',
		typeOptions: { minValue: 0, numberPrecision: 2 },
		default: 0,
		description: 'Former or reference price shown struck through, in the store currency (at least 0)',
	},
	{
		displayName: 'Custom Prefix',
		name: 'customPrefix',
		type: 'string',
		default: '',
		description: 'Prefix of generated license keys when Key Format is Custom Prefix (max 32 characters)',
	},
	{
		displayName: 'Description',
		name: 'description',
		type: 'string',
		typeOptions: { rows: 4 },
		default: '',
		description: 'Long description of the product (max 10000 characters)',
	},
	{
		displayName: 'Download URL',
		name: 'downloadUrl',
		type: 'string',
		default: '',
		placeholder: 'https://files.example.com/product.zip',
		description: 'For digital downloads: the file the buyer gets (http(s) URL, max 2048 characters)',
	},
	{
		displayName: 'Fulfillment Mode',
		name: 'fulfillmentMode',
		type: 'options',
		options: enumOptions(FULFILLMENT_MODES),
		default: 'MANUAL',
		description:
			'How a purchase is delivered: a managed license, a key from the license pool, a key from your webhook, an instant download, a redirect, or manual fulfillment',
	},
	{
		displayName: 'Images',
		name: 'images',
		type: 'string',
		default: '',
		placeholder: 'https://cdn.example.com/a.png, https://cdn.example.com/b.png',
		description:
			'Image URLs replacing the current ones: separated by commas, or a JSON array (max 10; [] removes all)',
	},
	{
		displayName: 'In Stock',
		name: 'inStock',
		type: 'boolean',
		default: true,
		description: 'Whether the product can be bought',
	},
	{
		displayName: 'Key Format',
		name: 'keyFormat',
		type: 'options',
		options: enumOptions(KEY_FORMATS),
		default: 'ALPHANUMERIC',
		description: 'Format of generated license keys',
	},
	{
		displayName: 'License Duration',
		name: 'licenseDuration',
		type: 'options',
		options: enumOptions(LICENSE_DURATIONS),
		default: 'LIFETIME',
		description: 'How long an issued license stays valid',
	},
	{
		displayName: 'License Keys',
		name: 'licenseKeys',
		type: 'string',
		typeOptions: { rows: 4, password: true },
		default: '',
		description:
			'License keys to add to the pool of this product: one per line, or a JSON array of strings. Write only: the product never returns them.',
	},
	{
		displayName: 'Low Stock Threshold',
		name: 'lowStockThreshold',
		type: 'number',
		typeOptions: { minValue: 0 },
		default: 0,
		description: 'Number of available license keys at or below which the pool counts as low (whole number, at least 0)',
	},
	{
		displayName: 'Max Activations',
		name: 'maxActivations',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 1,
		description: 'How many activations one license allows (whole number, at least 1)',
	},
	{
		displayName: 'Max Per Customer',
		name: 'maxPerCustomer',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 1,
		description: 'How many units one customer may buy (whole number, at least 1)',
	},
	{
		displayName: 'Message',
		name: 'message',
		type: 'string',
		typeOptions: { rows: 2 },
		default: '',
		description: 'Message text of the product, e.g. shown to the buyer (max 1000 characters)',
	},
	{
		displayName: 'Minimum Price',
		name: 'minimumPrice',
		type: 'number',
		typeOptions: { minValue: 0, numberPrecision: 2 },
		default: 0,
		description: 'Lowest amount a buyer may pay when Pricing Model is Pay What You Want (at least 0)',
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Add Option',
		default: {},
		description:
			'Product options such as Size or Seats, replacing the current ones (max 20). Values are separated by commas.',
		options: [
			{
				displayName: 'Option',
				name: 'option',
				values: [
					{
						displayName: 'Name',
						name: 'name',
						type: 'string',
						default: '',
						placeholder: 'Seats',
						description: 'Name of the option',
					},
					{
						displayName: 'Position',
						name: 'position',
						type: 'number',
						typeOptions: { minValue: 0 },
						default: 0,
						description: 'Sort position of the option (whole number, at least 0)',
					},
					{
						displayName: 'Values',
						name: 'values',
						type: 'string',
						default: '',
						placeholder: '1, 5, 10',
						description: 'Values of the option, separated by commas (or a JSON array of strings)',
					},
				],
			},
		],
	},
	{
		displayName: 'Price',
		name: 'price',
		type: 'number',
		typeOptions: { minValue: 0, numberPrecision: 2 },
		default: 0,
		description: 'Price in the store currency (at least 0)',
	},
	{
		displayName: 'Pricing Model',
		name: 'pricingModel',
		type: 'options',
		options: enumOptions(PRICING_MODELS),
		default: 'STANDARD',
		description: 'Fixed price, pay what you want (with Minimum Price), or free',
	},
	{
		displayName: 'Product Type',
		name: 'productType',
		type: 'options',
		options: enumOptions(PRODUCT_TYPES),
		default: 'DIGITAL_DOWNLOAD',
		description: 'What the product is: a subscription, a digital download or a license key',
	},
	{
		displayName: 'Redirect URL',
		name: 'redirectUrl',
		type: 'string',
		default: '',
		description: 'When Fulfillment Mode is Redirect: where the buyer is sent (http(s) URL, max 2048 characters)',
	},
	{
		displayName: 'Revoke On Refund',
		name: 'revokeOnRefund',
		type: 'boolean',
		default: false,
		description: 'Whether licenses of an order are revoked when the order is refunded',
	},
	{
		displayName: 'Status',
		name: 'status',
		type: 'options',
		options: enumOptions(PRODUCT_STATUSES),
		default: 'ACTIVE',
		description: 'Draft (hidden) or Active (on sale)',
	},
	{
		displayName: 'Subtitle',
		name: 'subtitle',
		type: 'string',
		default: '',
		description: 'Short line under the title (max 512 characters)',
	},
	{
		displayName: 'Title',
		name: 'title',
		type: 'string',
		default: '',
		description: 'Product name (1 to 256 characters)',
	},
	{
		displayName: 'Trial Days',
		name: 'trialDays',
		type: 'number',
		typeOptions: { minValue: 0 },
		default: 0,
		description: 'For subscriptions: free trial length in days (whole number, at least 0)',
	},
	{
		displayName: 'Variants (JSON)',
		name: 'variants',
		type: 'json',
		default: '',
		description:
			'Variants replacing the current ones, as a JSON array of Variant objects (max 20). To keep or change an existing variant, include its ID; a variant without an ID is a new one. Images is an array of URLs, quantity and position are whole numbers; the node warns about prices below 0.',
		hint: 'Keys: id, title, slug, description, sku, options, price, compareAtPrice, images, inStock, quantity, trackStock, position',
	},
	{
		displayName: 'Webhook Secret',
		name: 'webhookSecret',
		type: 'string',
		typeOptions: { password: true },
		default: '',
		description:
			'When Fulfillment Mode is License Webhook: secret used to sign calls to the Webhook URL (max 256 characters). The service returns it with the product, but the node never shows it in the output (Get, Update, Custom API Call, AI agents).',
	},
	{
		displayName: 'Webhook URL',
		name: 'webhookUrl',
		type: 'string',
		default: '',
		description:
			'When Fulfillment Mode is License Webhook: the URL that issues license keys (http(s) URL, max 2048 characters)',
	},
];
