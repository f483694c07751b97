/**
 * Products.
 *   GET   /v2/core/stores/:storeId/products/:productId  the product (every field of the spec's Product table,
 *         plus read-only categories [{id, name, slug}] and availableLicenses).
 *   PATCH /v2/core/stores/:storeId/products/:productId  any write field; only sent fields change. Checks:
 *         title 1..256, subtitle 512, description 10000, price/compareAtPrice/minimumPrice >= 0, images max 10
 *         strings, message 1000, enums, maxPerCustomer/maxActivations integer >= 1, lowStockThreshold/trialDays
 *         integer >= 0, availableFrom < availableUntil (ISO 8601), downloadUrl/redirectUrl/webhookUrl max 2048,
 *         customPrefix 32, webhookSecret 256 (returned: a plain readable field of the spec's Product table), licenseKeys (non-empty strings, added to
 *         the AVAILABLE pool, never returned), categoryIds (existing ctg_ categories; replaces membership),
 *         variants (max 20; Variant shape; an id must be an existing variant, a variant without one is new),
 *         options (max 20; {name, values (at least 1), position}). Unknown fields are a 400. Image URLs,
 *         license keys and variant texts have no length limit (the spec gives none).
 *         200 with the product (the spec does not show the PATCH response: our choice).
 * Nullable "unset" values (null) and the variant/option id prefixes var_/opt_ are our choice.
 *
 * Seed (collection 'catalogProducts', one record per state.products entry, same ids): Pro License has
 * Seats variants/option, Font Bundle has License (Desktop/Web), Team Plan has Seats (5/10). Pro
 * License and the subscription plans have a webhookSecret (SEEDED_WEBHOOK_SECRET: the node's
 * tests see a real value, which the node must leave out of its output). The
 * collection 'licensePool' (AVAILABLE keys, 3 per LICENSE_KEY product) lives here too and is served
 * by licenses.ts.
 */
import { badRequest, core, Ctx, notFound, ok, SandboxApp, v } from '../app';
import type { Product } from '../state';
import { SEED_ANCHOR } from '../state';
import type { Rng } from '../util';
import { isPlainObject } from '../util';
import { categoriesOf } from './categories';

const PRODUCT_TYPES = ['SUBSCRIPTION', 'DIGITAL_DOWNLOAD', 'LICENSE_KEY'] as const;
const FULFILLMENT_MODES = ['MANAGED_LICENSE', 'LICENSE_POOL', 'LICENSE_WEBHOOK', 'INSTANT_DOWNLOAD', 'REDIRECT', 'MANUAL'] as const;
const PRICING_MODELS = ['STANDARD', 'PAY_WHAT_YOU_WANT', 'FREE'] as const;
const STATUSES = ['DRAFT', 'ACTIVE'] as const;
const KEY_FORMATS = ['ALPHANUMERIC', 'UUID', 'CUSTOM_PREFIX'] as const;
const LICENSE_DURATIONS = ['THIRTY_DAYS', 'NINETY_DAYS', 'ONE_YEAR', 'LIFETIME'] as const;
const BILLING_INTERVALS = ['WEEKLY', 'MONTHLY', 'YEARLY'] as const;
const BILLING_ANCHORS = ['IMMEDIATELY', 'END_OF_PERIOD'] as const;

export interface Variant {
	id: string;
	title: string;
	slug: string;
	description: string;
	sku: string | null;
	options: unknown;
	price: number;
	compareAtPrice: number | null;
	images: string[];
	inStock: boolean;
	quantity: number;
	trackStock: boolean;
	position: number;
}

export interface ProductOption {
	id: string;
	name: string;
	values: string[];
	position: number;
}

export interface CatalogProduct {
	id: string;
	title: string;
	subtitle: string;
	description: string;
	handle: string;
	price: number;
	compareAtPrice: number | null;
	minimumPrice: number | null;
	currency: string;
	images: string[];
	message: string | null;
	inStock: boolean;
	productType: (typeof PRODUCT_TYPES)[number];
	fulfillmentMode: (typeof FULFILLMENT_MODES)[number];
	pricingModel: (typeof PRICING_MODELS)[number];
	status: (typeof STATUSES)[number];
	maxPerCustomer: number | null;
	availableFrom: string | null;
	availableUntil: string | null;
	downloadUrl: string | null;
	redirectUrl: string | null;
	keyFormat: (typeof KEY_FORMATS)[number] | null;
	customPrefix: string | null;
	maxActivations: number | null;
	licenseDuration: (typeof LICENSE_DURATIONS)[number] | null;
	revokeOnRefund: boolean;
	lowStockThreshold: number | null;
	webhookUrl: string | null;
	/** Returned with the product, as the spec lists it (the node leaves it out of its output). */
	webhookSecret: string | null;
	billingInterval: (typeof BILLING_INTERVALS)[number] | null;
	billingAnchor: (typeof BILLING_ANCHORS)[number] | null;
	trialDays: number | null;
	variants: Variant[];
	options: ProductOption[];
	createdAt: string;
	updatedAt: string;
}

export interface PoolLicense {
	id: string;
	key: string;
	status: 'AVAILABLE';
	productId: string;
	variantId: string | null;
	orderId: null;
	customerId: null;
	claimedAt: null;
	createdAt: string;
}

const DAY = 86_400_000;
const KEY_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

function seedVariants(rng: Rng, p: Product, option: string, rows: [string, string, number][]): { variants: Variant[]; options: ProductOption[] } {
	return {
		variants: rows.map(([title, value, price], position) => ({
			id: rng.id('var_'),
			title,
			slug: title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, ''),
			description: `${p.title}: ${title}`,
			sku: `${p.handle.toUpperCase()}-${position + 1}`,
			options: { [option]: value },
			price,
			compareAtPrice: null,
			images: [],
			inStock: true,
			quantity: 0,
			trackStock: false,
			position,
		})),
		options: [{ id: rng.id('opt_'), name: option, values: rows.map((r) => r[1]), position: 0 }],
	};
}

/** The seeded webhookSecret of a product (by its handle): not from the rng, so no other seeded value moves. */
export const SEEDED_WEBHOOK_SECRET = (handle: string): string => `prodhook-${handle}-5d1f8a3c9e2b4760`;

function seedCatalog(rng: Rng, products: Product[]): CatalogProduct[] {
	return products.map((p) => {
		const license = p.productType === 'LICENSE_KEY';
		const subscription = p.productType === 'SUBSCRIPTION';
		const download = p.productType === 'DIGITAL_DOWNLOAD';
		let extra: { variants: Variant[]; options: ProductOption[] } = { variants: [], options: [] };
		if (p.title === 'Pro License') extra = seedVariants(rng, p, 'Seats', [['Single seat', '1', 99], ['Team (5 seats)', '5', 399]]);
		if (p.title === 'Font Bundle') extra = seedVariants(rng, p, 'License', [['Desktop', 'Desktop', 45], ['Web', 'Web', 60]]);
		if (p.title === 'Team Plan') extra = seedVariants(rng, p, 'Seats', [['5 seats', '5', 49], ['10 seats', '10', 89]]);
		return {
			id: p.id,
			title: p.title,
			subtitle: '',
			description: `${p.title} from the sandbox store.`,
			handle: p.handle,
			price: p.price,
			compareAtPrice: null,
			minimumPrice: null,
			currency: p.currency,
			images: [`https://cdn.sandbox-supply.example/${p.handle}.png`],
			message: license ? 'Thank you! Your key is below.' : null,
			inStock: p.inStock,
			productType: p.productType,
			fulfillmentMode: license ? (p.title === 'Pro License' ? 'MANAGED_LICENSE' : 'LICENSE_POOL') : download ? 'INSTANT_DOWNLOAD' : 'MANUAL',
			pricingModel: 'STANDARD',
			status: p.status,
			maxPerCustomer: license ? 1 : null,
			availableFrom: null,
			availableUntil: null,
			downloadUrl: download ? `https://files.sandbox-supply.example/${p.handle}.zip` : null,
			redirectUrl: null,
			keyFormat: license ? 'ALPHANUMERIC' : null,
			customPrefix: null,
			maxActivations: license ? (p.title === 'Pro License' ? 5 : 1) : null,
			licenseDuration: license ? (p.title === 'Pro License' ? 'LIFETIME' : 'ONE_YEAR') : null,
			revokeOnRefund: license,
			lowStockThreshold: license ? 2 : null,
			webhookUrl: null,
			webhookSecret: p.title === 'Pro License' || subscription ? SEEDED_WEBHOOK_SECRET(p.handle) : null,
			billingInterval: subscription ? 'MONTHLY' : null,
			billingAnchor: subscription ? 'IMMEDIATELY' : null,
			trialDays: subscription ? (p.title === 'Team Plan' ? 14 : 0) : null,
			...extra,
			createdAt: p.createdAt,
			updatedAt: p.updatedAt,
		};
	});
}

/** Full product records (seeded on first use from state.products, same ids). */
export function catalogOf(app: SandboxApp): CatalogProduct[] {
	return app.collection<CatalogProduct>('catalogProducts', (rng) => seedCatalog(rng, app.state.products));
}

/** AVAILABLE license keys (seeded on first use); PATCH licenseKeys adds to it. */
export function licensePool(app: SandboxApp): PoolLicense[] {
	return app.collection<PoolLicense>('licensePool', (rng) =>
		app.state.products
			.filter((p) => p.productType === 'LICENSE_KEY')
			.flatMap((p) =>
				Array.from({ length: 3 }, (_, i) => ({
					id: rng.id('lic_'),
					key: Array.from({ length: 4 }, () => rng.chars(4, KEY_ALPHABET)).join('-'),
					status: 'AVAILABLE' as const,
					productId: p.id,
					variantId: null,
					orderId: null,
					customerId: null,
					claimedAt: null,
					createdAt: new Date(SEED_ANCHOR - (200 - i) * DAY).toISOString(),
				})),
			),
	);
}

/** A product as GET and PATCH answer it: every field of the spec's Product table (webhookSecret included). */
export function productView(app: SandboxApp, p: CatalogProduct) {
	return {
		...p,
		categories: categoriesOf(app)
			.filter((c) => c.productIds.includes(p.id))
			.map((c) => ({ id: c.id, name: c.name, slug: c.slug })),
		availableLicenses: licensePool(app).filter((l) => l.productId === p.id).length,
	};
}

function findProduct(ctx: Ctx): CatalogProduct {
	const found = catalogOf(ctx.app).find((p) => p.id === ctx.params.productId);
	if (!found) throw notFound('Product');
	return found;
}

const VARIANT_FIELDS = ['id', 'title', 'slug', 'description', 'sku', 'options', 'price', 'compareAtPrice', 'images', 'inStock', 'quantity', 'trackStock', 'position'];

function strings(value: unknown, field: string, o: { max?: number; itemMin?: number; itemMax?: number }): string[] | undefined {
	const list = v.arr(value, field, { max: o.max });
	return list?.map((s, i) => v.str(s, `${field}[${i}]`, { required: true, min: o.itemMin ?? 1, max: o.itemMax }) as string);
}

function url(value: unknown, field: string): string | undefined {
	return v.str(value, field, { max: 2048, pattern: /^https?:\/\/\S+$/ });
}

function patchVariants(ctx: Ctx, value: unknown, current: Variant[]): Variant[] | undefined {
	const list = v.arr(value, 'variants', { max: 20 });
	if (!list) return undefined;
	return list.map((raw, i) => {
		const f = `variants[${i}]`;
		if (!isPlainObject(raw)) throw badRequest(f, 'must be an object');
		v.onlyFields(raw, VARIANT_FIELDS, f);
		const id = v.str(raw.id, `${f}.id`);
		const base = id ? current.find((x) => x.id === id) : undefined;
		if (id && !base) throw badRequest(`${f}.id`, 'no such variant of this product');
		// Variant text fields: no lengths and no required title in the spec.
		const title = v.str(raw.title, `${f}.title`) ?? base?.title ?? '';
		return {
			id: base?.id ?? ctx.app.newId('var_'),
			title,
			slug: v.str(raw.slug, `${f}.slug`) ?? base?.slug ?? title.toLowerCase().replace(/[^a-z0-9]+/g, '-'),
			description: v.str(raw.description, `${f}.description`) ?? base?.description ?? '',
			sku: v.str(raw.sku, `${f}.sku`) ?? base?.sku ?? null,
			options: raw.options ?? base?.options ?? null,
			price: v.num(raw.price, `${f}.price`, { min: 0 }) ?? base?.price ?? 0,
			compareAtPrice: v.num(raw.compareAtPrice, `${f}.compareAtPrice`, { min: 0 }) ?? base?.compareAtPrice ?? null,
			images: strings(raw.images, `${f}.images`, {}) ?? base?.images ?? [],
			inStock: v.bool(raw.inStock, `${f}.inStock`) ?? base?.inStock ?? true,
			quantity: v.int(raw.quantity, `${f}.quantity`, { min: 0 }) ?? base?.quantity ?? 0,
			trackStock: v.bool(raw.trackStock, `${f}.trackStock`) ?? base?.trackStock ?? false,
			position: v.int(raw.position, `${f}.position`, { min: 0 }) ?? base?.position ?? i,
		};
	});
}

function patchOptions(ctx: Ctx, value: unknown, current: ProductOption[]): ProductOption[] | undefined {
	const list = v.arr(value, 'options', { max: 20 });
	if (!list) return undefined;
	return list.map((raw, i) => {
		const f = `options[${i}]`;
		if (!isPlainObject(raw)) throw badRequest(f, 'must be an object');
		v.onlyFields(raw, ['name', 'values', 'position'], f);
		const name = v.str(raw.name, `${f}.name`, { required: true }) as string;
		const values = strings(raw.values, `${f}.values`, {});
		if (!values || values.length === 0) throw badRequest(`${f}.values`, 'must have at least 1 element(s)');
		const position = v.int(raw.position, `${f}.position`, { min: 0 }) ?? i;
		return { id: current.find((o) => o.name === name)?.id ?? ctx.app.newId('opt_'), name, values, position };
	});
}

const WRITE_FIELDS = [
	'title', 'subtitle', 'description', 'price', 'compareAtPrice', 'minimumPrice', 'images', 'message', 'inStock',
	'productType', 'fulfillmentMode', 'pricingModel', 'status', 'maxPerCustomer', 'availableFrom', 'availableUntil',
	'downloadUrl', 'redirectUrl', 'keyFormat', 'customPrefix', 'maxActivations', 'licenseDuration', 'revokeOnRefund',
	'lowStockThreshold', 'webhookUrl', 'webhookSecret', 'billingInterval', 'billingAnchor', 'trialDays', 'licenseKeys',
	'categoryIds', 'variants', 'options',
];

export function register(app: SandboxApp): void {
	app.route('GET', core('/products/:productId'), (ctx) => ok(productView(app, findProduct(ctx))));

	app.route('PATCH', core('/products/:productId'), (ctx) => {
		const p = findProduct(ctx);
		const b = ctx.body;
		v.onlyFields(b, WRITE_FIELDS);
		// Validate everything first, then apply: a 400 changes nothing.
		const next: Partial<CatalogProduct> = {};
		const set = <K extends keyof CatalogProduct>(k: K, value: CatalogProduct[K] | undefined) => {
			if (value !== undefined) next[k] = value;
		};
		set('title', v.str(b.title, 'title', { min: 1, max: 256 }));
		set('subtitle', v.str(b.subtitle, 'subtitle', { max: 512 }));
		set('description', v.str(b.description, 'description', { max: 10000 }));
		set('price', v.num(b.price, 'price', { min: 0 }));
		set('compareAtPrice', v.num(b.compareAtPrice, 'compareAtPrice', { min: 0 }));
		set('minimumPrice', v.num(b.minimumPrice, 'minimumPrice', { min: 0 }));
		set('images', strings(b.images, 'images', { max: 10 }));
		set('message', v.str(b.message, 'message', { max: 1000 }));
		set('inStock', v.bool(b.inStock, 'inStock'));
		set('productType', v.oneOf(b.productType, 'productType', PRODUCT_TYPES));
		set('fulfillmentMode', v.oneOf(b.fulfillmentMode, 'fulfillmentMode', FULFILLMENT_MODES));
		set('pricingModel', v.oneOf(b.pricingModel, 'pricingModel', PRICING_MODELS));
		set('status', v.oneOf(b.status, 'status', STATUSES));
		set('maxPerCustomer', v.int(b.maxPerCustomer, 'maxPerCustomer', { min: 1 }));
		const from = v.timestamp(b.availableFrom, 'availableFrom');
		const until = v.timestamp(b.availableUntil, 'availableUntil');
		const effectiveFrom = from ?? (p.availableFrom ? Date.parse(p.availableFrom) : undefined);
		const effectiveUntil = until ?? (p.availableUntil ? Date.parse(p.availableUntil) : undefined);
		if (effectiveFrom !== undefined && effectiveUntil !== undefined && effectiveFrom >= effectiveUntil) {
			throw badRequest(until !== undefined ? 'availableUntil' : 'availableFrom', 'availableFrom must be before availableUntil');
		}
		if (from !== undefined) next.availableFrom = new Date(from).toISOString();
		if (until !== undefined) next.availableUntil = new Date(until).toISOString();
		set('downloadUrl', url(b.downloadUrl, 'downloadUrl'));
		set('redirectUrl', url(b.redirectUrl, 'redirectUrl'));
		set('keyFormat', v.oneOf(b.keyFormat, 'keyFormat', KEY_FORMATS));
		set('customPrefix', v.str(b.customPrefix, 'customPrefix', { max: 32 }));
		set('maxActivations', v.int(b.maxActivations, 'maxActivations', { min: 1 }));
		set('licenseDuration', v.oneOf(b.licenseDuration, 'licenseDuration', LICENSE_DURATIONS));
		set('revokeOnRefund', v.bool(b.revokeOnRefund, 'revokeOnRefund'));
		set('lowStockThreshold', v.int(b.lowStockThreshold, 'lowStockThreshold', { min: 0 }));
		set('webhookUrl', url(b.webhookUrl, 'webhookUrl'));
		set('webhookSecret', v.str(b.webhookSecret, 'webhookSecret', { max: 256 }));
		set('billingInterval', v.oneOf(b.billingInterval, 'billingInterval', BILLING_INTERVALS));
		set('billingAnchor', v.oneOf(b.billingAnchor, 'billingAnchor', BILLING_ANCHORS));
		set('trialDays', v.int(b.trialDays, 'trialDays', { min: 0 }));
		set('variants', patchVariants(ctx, b.variants, p.variants));
		set('options', patchOptions(ctx, b.options, p.options));

		const pool = licensePool(app);
		const knownKeys = new Set([...pool.map((l) => l.key), ...ctx.state.licenses.map((l) => l.key)]);
		const keys = strings(b.licenseKeys, 'licenseKeys', {}) ?? [];
		keys.forEach((k, i) => {
			if (knownKeys.has(k) || keys.indexOf(k) !== i) throw badRequest(`licenseKeys[${i}]`, 'this key already exists');
		});

		const categories = categoriesOf(app);
		const categoryIds = v.arr(b.categoryIds, 'categoryIds')?.map((raw, i) => {
			const id = v.id(raw, `categoryIds[${i}]`, 'ctg_', { required: true }) as string;
			if (!categories.some((c) => c.id === id)) throw badRequest(`categoryIds[${i}]`, 'no such category');
			return id;
		});

		// Apply.
		const now = ctx.iso();
		Object.assign(p, next, { updatedAt: now });
		for (const key of keys) {
			pool.push({ id: ctx.app.newId('lic_'), key, status: 'AVAILABLE', productId: p.id, variantId: null, orderId: null, customerId: null, claimedAt: null, createdAt: now });
		}
		if (categoryIds) {
			for (const c of categories) {
				const member = c.productIds.includes(p.id);
				const wanted = categoryIds.includes(c.id);
				if (member && !wanted) c.productIds = c.productIds.filter((id) => id !== p.id);
				if (!member && wanted) c.productIds.push(p.id);
			}
		}
		const base = ctx.state.products.find((x) => x.id === p.id);
		if (base) Object.assign(base, { title: p.title, price: p.price, productType: p.productType, status: p.status, inStock: p.inStock, updatedAt: now });
		return ok(productView(app, p));
	});
}
