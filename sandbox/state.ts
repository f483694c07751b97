/**
 * The in-memory data of the sandbox and its deterministic seed. Same seed and counts give the
 * same ids, keys, records and timestamps (seeded records are anchored at a fixed date, not now).
 *
 * Resource modules that need a collection not typed here use `app.collection(name, init)`.
 */
import { Rng, round2 } from './util';
import type { TokenRecord } from './vault';

export const ORDER_STATUSES = ['PENDING', 'COMPLETED'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export interface StoreRecord {
	id: string;
	name: string;
	handle: string;
	currency: string;
	supportEmail: string;
	country: string;
	createdAt: string;
	updatedAt: string;
}

export interface Customer {
	id: string;
	email: string;
	firstName: string;
	lastName: string;
	guest: boolean;
	totalSpent: number;
	orderCount: number;
	createdAt: string;
}

export interface Product {
	id: string;
	title: string;
	handle: string;
	price: number;
	currency: string;
	productType: 'SUBSCRIPTION' | 'DIGITAL_DOWNLOAD' | 'LICENSE_KEY';
	status: 'DRAFT' | 'ACTIVE';
	inStock: boolean;
	createdAt: string;
	updatedAt: string;
}

export interface License {
	id: string;
	key: string;
	status: 'AVAILABLE' | 'CLAIMED';
	productId: string;
	variantId: string | null;
	orderId: string;
	customerId: string;
	claimedAt: string | null;
	createdAt: string;
}

export interface PaymentMethod {
	type: string | null;
	cardBrand: string | null;
	cardLastFour: string | null;
}

export interface Order {
	id: string;
	storeId: string;
	orderNumber: string;
	status: OrderStatus;
	amount: number;
	currency: string;
	discounted: boolean;
	discountCode: string | null;
	customerId: string;
	gateway: string;
	customFields: Record<string, unknown>;
	returnUrl: string | null;
	items: { id: string; productId: string; variantId: string | null; name: string; quantity: number; price: number }[];
	billingAddress: {
		id: string;
		addressLine1: string;
		addressLine2: string | null;
		city: string;
		state: string | null;
		postalCode: string;
		country: string;
	};
	payment: {
		id: string;
		referenceId: string;
		amount: number;
		discountAmount: number;
		platformFeeAmount: number;
		pspFeeAmount: number;
		taxAmount: number;
		totalAmount: number;
		settledAmount: number;
		status: 'PENDING' | 'COMPLETED';
		pspProvider: string;
		couponCode: string | null;
		taxId: string | null;
		createdAt: string;
	};
	paymentMethod: PaymentMethod;
	licenseIds: string[];
	createdAt: string;
	updatedAt: string;
}

export interface Refund {
	id: string;
	storeId: string;
	orderId: string;
	paymentId: string;
	amount: number;
	currency: string;
	reason: string | null;
	status: 'SUCCEEDED';
	createdAt: string;
}

export const SIGNATURE_VERSIONS = ['V1', 'V2'] as const;
export interface WebhookEndpoint {
	id: string;
	storeId: string;
	url: string;
	eventTypes: string[];
	note: string | null;
	signatureVersion: (typeof SIGNATURE_VERSIONS)[number];
	createdAt: string;
	updatedAt: string;
	/** Hostile mode `registrationSecret`: this endpoint's own signing secret (returned at creation, signs its deliveries). */
	secret?: string;
}

export interface SandboxState {
	store: StoreRecord;
	customers: Customer[];
	products: Product[];
	orders: Order[];
	licenses: License[];
	refunds: Refund[];
	webhooks: WebhookEndpoint[];
	tokens: Map<string, TokenRecord>;
	/** Collections added by other resource modules through app.collection(). */
	collections: Record<string, unknown[]>;
}

/** Secrets derived from the seed (never put in responses). */
export interface SeedSecrets {
	storeSecretKey: string;
	storeTokenKey: string;
	signingSecret: string;
	workspaceId: string;
	vaultId: string;
	vaultKey: string;
	vaultNoRevealKey: string;
	fingerprintKey: Buffer;
}

/** Seeded records are dated relative to this instant, so they do not depend on the start time. */
export const SEED_ANCHOR = Date.parse('2026-01-15T12:00:00.000Z');
const DAY = 86_400_000;

const FIRST = ['Ada', 'Ben', 'Chloe', 'Dan', 'Eva', 'Finn', 'Gia', 'Hugo', 'Iris', 'Jon', 'Kai', 'Lena', 'Milo', 'Nora', 'Omar', 'Pia'];
const LAST = ['Abbott', 'Berg', 'Costa', 'Diaz', 'Engel', 'Fox', 'Garcia', 'Hale', 'Ito', 'Jansen', 'Khan', 'Lund', 'Moreau', 'Novak'];
const CITIES = [['Austin', 'TX', '73301'], ['Denver', 'CO', '80202'], ['Portland', 'OR', '97201'], ['Boston', 'MA', '02108']] as const;
const PRODUCTS: [string, number, Product['productType']][] = [
	['Starter License', 29, 'LICENSE_KEY'],
	['Pro License', 99, 'LICENSE_KEY'],
	['Icon Pack', 12.5, 'DIGITAL_DOWNLOAD'],
	['Font Bundle', 45, 'DIGITAL_DOWNLOAD'],
	['E-book: Webhooks', 19.99, 'DIGITAL_DOWNLOAD'],
	['Team Plan', 49, 'SUBSCRIPTION'],
	['Solo Plan', 9, 'SUBSCRIPTION'],
	['Theme Kit', 59, 'DIGITAL_DOWNLOAD'],
];
const WALLETS = ['apple_pay', 'google_pay', 'ideal', 'bancontact', 'blik'];
const BRANDS = ['visa', 'mastercard', 'amex'];

const iso = (ms: number) => new Date(ms).toISOString();
const slug = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');

export function seedState(seed: number, orderCount = 250, customerCount = 60): { state: SandboxState; secrets: SeedSecrets } {
	const rng = new Rng(seed);
	const secrets: SeedSecrets = {
		storeSecretKey: 'sk_sandbox_' + rng.chars(32),
		storeTokenKey: 'stk_sandbox_' + rng.chars(32),
		signingSecret: 'whsec_' + rng.bytes(24).toString('base64'),
		workspaceId: rng.id('wks_'),
		vaultId: rng.id('vlt_'),
		vaultKey: 'sk_vault_' + rng.chars(32),
		vaultNoRevealKey: 'sk_vault_' + rng.chars(32),
		fingerprintKey: rng.bytes(32),
	};
	const store: StoreRecord = {
		id: rng.id('shp_'),
		name: 'Sandbox Supply Co.',
		handle: 'sandbox-supply',
		currency: 'USD',
		supportEmail: 'support@sandbox-supply.example',
		country: 'US',
		createdAt: iso(SEED_ANCHOR - 400 * DAY),
		updatedAt: iso(SEED_ANCHOR - 30 * DAY),
	};
	const products: Product[] = PRODUCTS.map(([title, price, productType], i) => ({
		id: rng.id('prd_'),
		title,
		handle: slug(title),
		price,
		currency: 'USD',
		productType,
		status: 'ACTIVE',
		inStock: true,
		createdAt: iso(SEED_ANCHOR - (380 - i) * DAY),
		updatedAt: iso(SEED_ANCHOR - (200 - i) * DAY),
	}));
	const customers: Customer[] = [];
	for (let i = 0; i < customerCount; i++) {
		const firstName = FIRST[i % FIRST.length];
		const lastName = LAST[(i * 7 + 3) % LAST.length];
		customers.push({
			id: rng.id('cus_'),
			email: `${firstName}.${lastName}${i}@example.com`.toLowerCase(),
			firstName,
			lastName,
			guest: rng.chance(0.2),
			totalSpent: 0,
			orderCount: 0,
			createdAt: iso(SEED_ANCHOR - (365 - i * 3) * DAY + rng.int(0, DAY)),
		});
	}

	const orders: Order[] = [];
	const licenses: License[] = [];
	for (let i = 0; i < orderCount; i++) {
		const customer = rng.pick(customers);
		const createdMs = Math.max(Date.parse(customer.createdAt) + 3_600_000, SEED_ANCHOR - rng.int(0, 180 * DAY));
		const createdAt = iso(createdMs);
		const completed = rng.chance(0.85);
		const items = Array.from({ length: rng.int(1, 3) }, () => {
			const p = rng.pick(products);
			return { id: rng.id('itm_'), productId: p.id, variantId: null, name: p.title, quantity: p.productType === 'LICENSE_KEY' ? 1 : rng.int(1, 2), price: p.price };
		});
		const subtotal = round2(items.reduce((s, it) => s + it.price * it.quantity, 0));
		const discountCode = rng.chance(0.2) ? rng.pick(['SAVE10', 'WELCOME10', 'SPRING10']) : null;
		const discountAmount = discountCode ? round2(subtotal * 0.1) : 0;
		const net = round2(subtotal - discountAmount);
		const taxAmount = round2(net * 0.08);
		const totalAmount = round2(net + taxAmount);
		const pspFeeAmount = completed ? round2(totalAmount * 0.029 + 0.3) : 0;
		const platformFeeAmount = completed ? round2(totalAmount * 0.01) : 0;
		const card = rng.chance(0.75);
		const paymentMethod: PaymentMethod = !completed
			? { type: null, cardBrand: null, cardLastFour: null }
			: card
				? { type: 'card', cardBrand: rng.pick(BRANDS), cardLastFour: String(rng.int(1000, 9999)) }
				: { type: rng.pick(WALLETS), cardBrand: null, cardLastFour: null };
		const [city, state, postalCode] = rng.pick(CITIES);
		const id = rng.id('ord_');
		const order: Order = {
			id,
			storeId: store.id,
			orderNumber: `VS-${10001 + i}`,
			status: completed ? 'COMPLETED' : 'PENDING',
			amount: totalAmount,
			currency: 'USD',
			discounted: discountCode !== null,
			discountCode,
			customerId: customer.id,
			gateway: 'vault-store-payments',
			customFields: {},
			returnUrl: null,
			items,
			billingAddress: { id: rng.id('adr_'), addressLine1: `${rng.int(1, 999)} Main St`, addressLine2: null, city, state, postalCode, country: 'US' },
			payment: {
				id: rng.id('pay_'),
				referenceId: 'ref_' + rng.chars(16),
				amount: subtotal,
				discountAmount,
				platformFeeAmount,
				pspFeeAmount,
				taxAmount,
				totalAmount,
				settledAmount: completed ? round2(totalAmount - pspFeeAmount - platformFeeAmount) : 0,
				status: completed ? 'COMPLETED' : 'PENDING',
				pspProvider: card || !completed ? 'stripe' : 'mollie',
				couponCode: discountCode,
				taxId: null,
				createdAt,
			},
			paymentMethod,
			licenseIds: [],
			createdAt,
			updatedAt: iso(createdMs + (completed ? 120_000 : 0)),
		};
		if (completed) {
			for (const it of items.filter((x) => products.find((p) => p.id === x.productId)?.productType === 'LICENSE_KEY')) {
				const lic: License = {
					id: rng.id('lic_'),
					key: Array.from({ length: 4 }, () => rng.chars(4, 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789')).join('-'),
					status: 'CLAIMED',
					productId: it.productId,
					variantId: null,
					orderId: id,
					customerId: customer.id,
					claimedAt: iso(createdMs + 60_000),
					createdAt,
				};
				licenses.push(lic);
				order.licenseIds.push(lic.id);
			}
			customer.totalSpent = round2(customer.totalSpent + totalAmount);
			customer.orderCount += 1;
		}
		orders.push(order);
	}
	orders.sort((a, b) => b.createdAt.localeCompare(a.createdAt));

	return {
		state: { store, customers, products, orders, licenses, refunds: [], webhooks: [], tokens: new Map(), collections: {} },
		secrets,
	};
}
