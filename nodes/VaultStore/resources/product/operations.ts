import type { IDataObject } from 'n8n-workflow';

import type { Operation, Params } from '../../operation';
import { ID } from '../../../shared/ids';
import { bool, idList, opt, stringList, withoutSecrets } from '../../../shared/readers';

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
				p.v.fail(
					`${at} has an unknown field "${key}"`,
					`Variant fields: ${Object.keys(VARIANT_FIELDS).join(', ')}`,
				);
			}
			if (field === null || kind === 'any') continue;
			if (kind === 'text' && typeof field !== 'string') p.v.fail(`${at}: "${key}" must be text`);
			if (kind === 'boolean' && typeof field !== 'boolean') p.v.fail(`${at}: "${key}" must be true or false`);
			if (kind === 'money' && (typeof field !== 'number' || !Number.isFinite(field) || field < 0)) {
				p.v.fail(`${at}: "${key}" must be a number of at least 0`);
			}
			if (kind === 'count' && (typeof field !== 'number' || !Number.isInteger(field) || field < 0)) {
				p.v.fail(`${at}: "${key}" must be a whole number of at least 0`);
			}
			if (kind === 'images') stringList(p.v, `Variants entry ${index + 1} images`, field, { max: MAX_IMAGES });
		}
		const hasId = typeof variant.id === 'string' && variant.id !== '';
		const hasTitle = typeof variant.title === 'string' && variant.title.trim() !== '';
		if (!hasId && !hasTitle) {
			p.v.fail(`${at} needs an "id" (to change an existing variant) or a "title" (to add a new one)`);
		}
		return variant;
	});
}

function productOptions(p: Params, value: unknown): IDataObject[] {
	const rows = ((value as IDataObject | undefined)?.option ?? []) as IDataObject[];
	p.v.array('Options', rows, { max: MAX_OPTIONS });
	return rows.map((row, index) => {
		const at = `Options entry ${index + 1}`;
		const name = p.v.string(`${at} Name`, row.name ?? '', { min: 1 }).trim();
		const values = stringList(p.v, `${at} Values`, row.values ?? '', {});
		if (values.length === 0) p.v.fail(`"${at} Values" must list at least one value`);
		const position = p.v.number(`${at} Position`, row.position ?? index, { min: 0, integer: true });
		return { name, values, position };
	});
}

/** The PATCH body: every field of Update Fields, validated, named as the API names them. */
function productUpdateBody(p: Params): IDataObject {
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
		images: opt(f, 'images', (v) => stringList(p.v, 'Images', v, { max: MAX_IMAGES, itemMax: 2048 })),
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
		licenseKeys: opt(f, 'licenseKeys', (v) =>
			stringList(p.v, 'License Keys', v, { itemMax: 512, separators: /\n/, secret: true }),
		),
		categoryIds: opt(f, 'categoryIds', (v) => idList(p.v, 'Category IDs', v, ID.categoryId, 100)),
		variants: opt(f, 'variants', (v) => variants(p, v)),
		options: opt(f, 'options', (v) => productOptions(p, v)),
	};
	if (typeof body.availableFrom === 'string' && typeof body.availableUntil === 'string') {
		if (Date.parse(body.availableFrom) >= Date.parse(body.availableUntil)) {
			p.v.fail('"Available From" must be before "Available Until"');
		}
	}
	if (Object.values(body).every((v) => v === undefined)) {
		p.v.fail('Add at least one field to "Update Fields"', 'Only the fields you add are changed.');
	}
	return body;
}

const hideSecret = withoutSecrets(['webhookSecret']);

export const productOperations: Operation[] = [
	{
		value: 'get',
		name: 'Get',
		action: 'Get a product',
		description:
			'Get one product by its ID (prd_...): title, prices, type, fulfillment and license settings, variants, options, categories and the number of available license keys',
		method: 'GET',
		family: 'core',
		path: '/products/{productId}',
		ids: { productId: ID.productId },
		output: hideSecret,
	},
	{
		value: 'update',
		name: 'Update',
		action: 'Update a product',
		description:
			'Change the fields of a product that are added under Update Fields; other fields keep their values. Returns what the service answers (usually the updated product).',
		method: 'PATCH',
		family: 'core',
		path: '/products/{productId}',
		ids: { productId: ID.productId },
		body: productUpdateBody,
		output: hideSecret,
	},
];
