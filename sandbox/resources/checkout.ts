/**
 * Checkout.
 *   POST /v2/stores/:storeId/checkouts/estimate  {items: [{product_id, quantity, variant_id?}] (1..10), country
 *        (2 upper-case letters), state? (max 64), coupon_code? (max 64), tax_id? (max 32)} -> {merchant, subtotal,
 *        tax {rate, amount}, total, items [{name, amount (unit price), quantity, image}], discount
 *        {code, amount, type, value} | null, available_payment_methods, currency}.
 *        No authentication needed (a store key is accepted and ignored); the store id must exist.
 *        Prices from the product catalog (collection 'catalogProducts' of products.ts: variants have their own
 *        price). Coupons: SAVE10 / WELCOME10 / SPRING10 PERCENTAGE 10, FLAT5 FIXED 5 (case-insensitive;
 *        unknown code 400). Tax: rate by country (US by state), 0 for a valid-looking tax_id in the EU or GB.
 *   POST /v2/storefront/paylinks/:paylinkId/checkout  no auth, empty body -> 201 checkout session
 *        {id (cks_), object, status OPEN, paylinkId, url, amount, currency, items, expiresAt (+24 h),
 *        paidAt, payment, createdAt}. Paylinks: collection 'paylinks' when another module made it (records
 *        with id and productId or amount), else the seeded 'checkoutPaylinks' (3 active, 1 inactive -> 410).
 *   POST /v2/stores/:storeId/checkouts/:sessionId/pay  {paymentMethod? (CARD...), token? (tok_ card token of
 *        the sandbox vault)}; honours Idempotency-Key; store key needed. OPEN -> PAID, payment COMPLETED,
 *        ledger kind 'checkoutPay', emits PAYMENT_COMPLETED. An already paid session: 422
 *        checkout_session_already_paid (a replay with the same key returns the first answer); expired: 422.
 * Everything beyond the estimate's documented fields is our choice (the spec does not show it).
 * Disagreeing (disagree.ts): a checkout session cannot be read (GET .../checkouts/:sessionId is a 404); its
 * total is at GET /v2/stores/:storeId/checkouts/:sessionId/summary {sessionId, state, grandTotal, currencyCode}
 * (a 404 route in the default mode).
 */
import { badRequest, core, HttpError, notFound, ok, SandboxApp, stores, unprocessable, v } from '../app';
import type { Product } from '../state';
import { round2, Rng } from '../util';
import { catalogOf } from './products';

export const PAYMENT_METHODS = [
	'CARD', 'APPLE_PAY', 'GOOGLE_PAY', 'IDEAL', 'BANCONTACT', 'MULTIBANCO', 'MB_WAY', 'EPS', 'PRZELEWY24', 'BLIK', 'AMAZON_PAY',
] as const;
type Method = (typeof PAYMENT_METHODS)[number];

export const COUPONS: Record<string, { type: 'PERCENTAGE' | 'FIXED'; value: number }> = {
	SAVE10: { type: 'PERCENTAGE', value: 10 },
	WELCOME10: { type: 'PERCENTAGE', value: 10 },
	SPRING10: { type: 'PERCENTAGE', value: 10 },
	FLAT5: { type: 'FIXED', value: 5 },
};

/** Percent tax by country; US by state. */
export const TAX_RATES: Record<string, number> = {
	AT: 20, AU: 10, BE: 21, CA: 5, DE: 19, ES: 21, FR: 20, GB: 20, IE: 23, IT: 22, NL: 21, PL: 23, PT: 23,
};
export const US_STATE_RATES: Record<string, number> = { CA: 7.25, NY: 4, TX: 6.25, WA: 6.5 };
const EU = new Set(['AT', 'BE', 'DE', 'ES', 'FR', 'IE', 'IT', 'NL', 'PL', 'PT']);
const LOCAL_METHODS: Record<string, Method[]> = {
	AT: ['EPS'], BE: ['BANCONTACT'], NL: ['IDEAL'], PL: ['PRZELEWY24', 'BLIK'], PT: ['MULTIBANCO', 'MB_WAY'], US: ['AMAZON_PAY'],
};

const HOUR = 3_600_000;
const SESSION_TTL_MS = 24 * HOUR;

export interface Paylink {
	id: string;
	productId: string;
	quantity: number;
	active: boolean;
}

export interface CheckoutSession {
	id: string;
	object: 'checkout_session';
	status: 'OPEN' | 'PAID';
	paylinkId: string | null;
	url: string;
	amount: number;
	currency: string;
	items: { productId: string; name: string; quantity: number; amount: number }[];
	expiresAt: string;
	paidAt: string | null;
	payment: null | {
		id: string;
		status: 'COMPLETED';
		amount: number;
		currency: string;
		paymentMethod: { type: string; cardBrand: string | null; cardLastFour: string | null };
	};
	createdAt: string;
}

/** An OPEN checkout session, unpaid (its page URL from its id): the handlers and the tests make them here. */
export function openSession(fields: Pick<CheckoutSession, 'id' | 'paylinkId' | 'amount' | 'currency' | 'items' | 'expiresAt' | 'createdAt'>): CheckoutSession {
	return {
		id: fields.id,
		object: 'checkout_session',
		status: 'OPEN',
		paylinkId: fields.paylinkId,
		url: `https://checkout.vault-store.invalid/c/${fields.id}`,
		amount: fields.amount,
		currency: fields.currency,
		items: fields.items,
		expiresAt: fields.expiresAt,
		paidAt: null,
		payment: null,
		createdAt: fields.createdAt,
	};
}

export function register(app: SandboxApp): void {
	const { state } = app;
	const paylinks = () =>
		app.collection<Paylink>('checkoutPaylinks', (rng: Rng) =>
			state.products.slice(0, 4).map((p, i) => ({ id: rng.id('pl_'), productId: p.id, quantity: 1, active: i < 3 })),
		);
	const sessions = () => app.collection<CheckoutSession>('checkoutSessions');
	paylinks();

	const productById = (id: string): Product | undefined => state.products.find((p) => p.id === id);

	app.route('POST', stores('/checkouts/estimate'), (ctx) => {
		if (ctx.params.storeId !== state.store.id) throw notFound('Store');
		v.onlyFields(ctx.body, ['items', 'country', 'state', 'coupon_code', 'tax_id']);
		const items = v.arr(ctx.body.items, 'items', { required: true, min: 1, max: 10 })!;
		const country = v.str(ctx.body.country, 'country', { required: true, pattern: /^[A-Z]{2}$/ })!;
		const region = v.str(ctx.body.state, 'state', { max: 64 });
		const couponCode = v.str(ctx.body.coupon_code, 'coupon_code', { max: 64 });
		const taxId = v.str(ctx.body.tax_id, 'tax_id', { max: 32 });

		const catalog = catalogOf(app);
		const lines = items.map((raw, i) => {
			const field = `items[${i}]`;
			const item = v.obj(raw, field, { required: true })!;
			v.onlyFields(item, ['product_id', 'quantity', 'variant_id'], field);
			const productId = v.id(item.product_id, `${field}.product_id`, 'prd_', { required: true })!;
			const quantity = v.int(item.quantity, `${field}.quantity`, { required: true, min: 1 })!;
			const variantId = v.str(item.variant_id, `${field}.variant_id`);
			const full = catalog.find((p) => p.id === productId);
			const product = full ?? productById(productId);
			if (!product) throw badRequest(`${field}.product_id`, 'product not found');
			if (product.status !== 'ACTIVE') throw badRequest(`${field}.product_id`, 'product is not available');
			let name = product.title;
			let price = product.price;
			if (variantId) {
				const variant = (full?.variants ?? []).find((x) => x.id === variantId);
				if (!variant) throw badRequest(`${field}.variant_id`, 'variant not found for this product');
				name = `${product.title} (${variant.title})`;
				price = variant.price;
			}
			const image = full && full.images.length > 0 ? full.images[0] : null;
			return { name, amount: price, quantity, image };
		});
		const subtotal = round2(lines.reduce((s, l) => s + l.amount * l.quantity, 0));

		let discount: { code: string; amount: number; type: string; value: number } | null = null;
		if (couponCode) {
			const code = couponCode.toUpperCase();
			const coupon = COUPONS[code];
			if (!coupon) throw badRequest('coupon_code', 'is not a valid coupon');
			const amount = coupon.type === 'PERCENTAGE' ? round2((subtotal * coupon.value) / 100) : Math.min(coupon.value, subtotal);
			discount = { code, amount, type: coupon.type, value: coupon.value };
		}
		const net = round2(subtotal - (discount?.amount ?? 0));
		const exempt = taxId !== undefined && (EU.has(country) || country === 'GB') && /^[A-Z]{2}[A-Z0-9]{2,30}$/.test(taxId.toUpperCase());
		const rate = exempt ? 0 : country === 'US' ? (US_STATE_RATES[(region ?? '').toUpperCase()] ?? 0) : (TAX_RATES[country] ?? 0);
		const taxAmount = round2((net * rate) / 100);
		const s = state.store;
		return ok({
			merchant: {
				id: s.id,
				name: s.name,
				handle: s.handle,
				slug: s.handle,
				logo: null,
				favicon: null,
				accentColor: '#4F46E5',
				primaryColor: '#111827',
				statementDescriptor: 'SANDBOX SUPPLY',
				supportEmail: s.supportEmail,
			},
			currency: s.currency,
			subtotal,
			tax: { rate, amount: taxAmount },
			total: round2(net + taxAmount),
			items: lines,
			discount,
			available_payment_methods: ['CARD', 'APPLE_PAY', 'GOOGLE_PAY', ...(LOCAL_METHODS[country] ?? [])],
		});
	}, { auth: 'none' });

	app.route('POST', '/v2/storefront/paylinks/:paylinkId/checkout', (ctx) => {
		v.onlyFields(ctx.body, []);
		const external = state.collections.paylinks as { id: string; productId?: string; amount?: number; currency?: string; active?: boolean; status?: string }[] | undefined;
		const own = paylinks().find((p) => p.id === ctx.params.paylinkId);
		const other = own ? undefined : external?.find((p) => p.id === ctx.params.paylinkId);
		if (!own && !other) throw notFound('Paylink');
		const active = own ? own.active : other!.active !== false && (other!.status === undefined || other!.status === 'ACTIVE');
		if (!active) throw new HttpError(410, 'paylink_inactive', 'This paylink is no longer active');
		const productId = own?.productId ?? other?.productId;
		const product = productId ? productById(productId) : undefined;
		const quantity = own?.quantity ?? 1;
		const unit = product?.price ?? other?.amount ?? 0;
		const id = app.newId('cks_');
		const now = ctx.now();
		const session = openSession({
			id,
			paylinkId: ctx.params.paylinkId,
			amount: round2(unit * quantity),
			currency: product?.currency ?? other?.currency ?? state.store.currency,
			items: product ? [{ productId: product.id, name: product.title, quantity, amount: product.price }] : [],
			expiresAt: ctx.iso(now + SESSION_TTL_MS),
			createdAt: ctx.iso(now),
		});
		sessions().push(session);
		return ok(session, 201);
	}, { auth: 'none' });

	// POST /v2/checkouts: the spec names it ("checkout session, automatic capture only") without a body;
	// items as in the estimate, plus optional success_url, cancel_url and customer_email, are our choice.
	app.route('POST', '/v2/checkouts', (ctx) => {
		v.onlyFields(ctx.body, ['items', 'success_url', 'cancel_url', 'customer_email', 'capture_method']);
		if (ctx.body.capture_method !== undefined && ctx.body.capture_method !== 'automatic') {
			throw badRequest('capture_method', 'store API checkout sessions capture automatically only');
		}
		const raw = ctx.body.items;
		if (!Array.isArray(raw) || raw.length < 1 || raw.length > 10) throw badRequest('items', 'must be a list of 1 to 10 items');
		const items = raw.map((entry, i) => {
			const e = (entry ?? {}) as Record<string, unknown>;
			const product = productById(String(e.product_id ?? ''));
			if (!product) throw badRequest(`items[${i}].product_id`, 'does not match a product of this store');
			const quantity = v.num(e.quantity ?? 1, `items[${i}].quantity`, { min: 1 }) ?? 1;
			return { productId: product.id, name: product.title, quantity, amount: product.price };
		});
		for (const field of ['success_url', 'cancel_url']) {
			if (ctx.body[field] !== undefined) v.str(ctx.body[field], field, { max: 2048, pattern: /^https?:\/\// });
		}
		const id = app.newId('cks_');
		const now = ctx.now();
		const session = openSession({
			id,
			paylinkId: null,
			amount: round2(items.reduce((sum, item) => sum + item.amount * item.quantity, 0)),
			currency: state.store.currency,
			items,
			expiresAt: ctx.iso(now + SESSION_TTL_MS),
			createdAt: ctx.iso(now),
		});
		sessions().push(session);
		ctx.commit('checkoutCreate', { sessionId: id });
		return ok(session, 201);
	});

	// GET a checkout session: not in the spec (the node reads the total before paying under a Maximum Amount).
	app.route('GET', [stores('/checkouts/:sessionId'), core('/checkouts/:sessionId')], (ctx) => {
		// Disagreeing: no such route (the answer the router gives an unknown path).
		if (app.disagree.on) throw notFound(`Route ${ctx.method} ${ctx.path}`);
		const session = sessions().find((x) => x.id === ctx.params.sessionId);
		if (!session) throw notFound('Checkout session');
		return ok(session);
	});

	// Disagreeing only: a session's total at another route and under other names (the default has no such route).
	app.route('GET', stores('/checkouts/:sessionId/summary'), (ctx) => {
		if (!app.disagree.on) throw notFound(`Route ${ctx.method} ${ctx.path}`);
		const session = sessions().find((x) => x.id === ctx.params.sessionId);
		if (!session) throw notFound('Checkout session');
		return ok({ sessionId: session.id, state: session.status, grandTotal: session.amount, currencyCode: session.currency });
	});

	app.route('POST', [stores('/checkouts/:sessionId/pay'), core('/checkouts/:sessionId/pay')], (ctx) => {
		// An `amount` in the body is ignored: the session's total is charged.
		v.onlyFields(ctx.body, ['paymentMethod', 'token', 'amount']);
		const method = v.oneOf(ctx.body.paymentMethod, 'paymentMethod', PAYMENT_METHODS) ?? 'CARD';
		const tokenId = v.id(ctx.body.token, 'token', 'tok_', { anyLength: true });
		const session = sessions().find((x) => x.id === ctx.params.sessionId);
		if (!session) throw notFound('Checkout session');
		if (session.status === 'PAID') throw unprocessable('checkout_session_already_paid', 'This checkout session is already paid');
		if (ctx.now() > Date.parse(session.expiresAt)) throw unprocessable('checkout_session_expired', 'This checkout session has expired');
		let paymentMethod: { type: string; cardBrand: string | null; cardLastFour: string | null };
		if (tokenId) {
			if (method !== 'CARD') throw badRequest('token', 'is only accepted with paymentMethod CARD');
			const token = app.vault.get(tokenId);
			if (!token) throw badRequest('token', 'token not found');
			if (token.type !== 'card') throw badRequest('token', 'must be a card token');
			paymentMethod = { type: 'card', cardBrand: String(token.mask?.brand ?? 'unknown'), cardLastFour: String(token.mask?.last4 ?? '') };
		} else {
			paymentMethod = method === 'CARD' ? { type: 'card', cardBrand: 'visa', cardLastFour: '4242' } : { type: method.toLowerCase(), cardBrand: null, cardLastFour: null };
		}
		const paidAt = ctx.iso();
		session.status = 'PAID';
		session.paidAt = paidAt;
		// Hostile mode: charge another amount than the session's total.
		const charged = app.hostile.payCharges ?? session.amount;
		session.payment = { id: app.newId('pay_'), status: 'COMPLETED', amount: charged, currency: session.currency, paymentMethod };
		ctx.commit('checkoutPay', { sessionId: session.id, paymentId: session.payment.id, amount: charged });
		app.emit('PAYMENT_COMPLETED', {
			checkoutSessionId: session.id,
			paymentId: session.payment.id,
			amount: charged,
			currency: session.currency,
			paymentMethod,
		});
		return ok(session);
	}, { idempotency: 'honoured' });
}
