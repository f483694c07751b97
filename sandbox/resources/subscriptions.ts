/**
 * Subscriptions.
 *   GET  /v2/core/stores/:storeId/subscriptions                       list; query page, limit, status
 *   GET  /v2/core/stores/:storeId/subscriptions/:subscriptionId       the list item shape (spec: not shown)
 *   GET  /v2/core/stores/:storeId/subscriptions/:subscriptionId/usage {subscriptionId, currency,
 *        currentPeriod {start, end, meters[], amount, projectedAmount}, pastPeriods[]}; scope USAGE_READ
 *   POST /v2/stores/:storeId/subscriptions/:subscriptionId/change     {productId?, variantId?,
 *        billingInterval?, quantity?, proration_behavior?}; at least one change field; emits SUBSCRIPTION_UPDATED
 *   POST .../reactivate   clears a scheduled cancellation; 422 once the current period has ended
 *   POST .../cancel       schedules the cancellation at the period end (endsAt = currentPeriodEnd)
 *   POST .../pause        TRIALING/ACTIVE/PAST_DUE -> PAUSED
 *   POST .../resume       PAUSED -> ACTIVE
 *   GET  .../upcoming-invoice  {subscriptionId, chargeAt, periodStart, periodEnd, currency, base, usage, tax, total}
 * The /v2/stores routes are also served under /v2/core (disagreeing: cancel, pause and resume there
 * only, disagree.ts UNPLACED_ROOTS). Reads need SUBSCRIPTIONS_READ, writes
 * SUBSCRIPTIONS_WRITE. Body names of change (other than proration_behavior), the cancel, pause and
 * resume paths, and every response shape except the list item are our choice (the spec does not show them).
 *
 * Seed (collection 'subscriptions', 30 records, ids from the seeded rng): every status, one ACTIVE
 * subscription with a cancellation scheduled inside its current period, one CANCELLED whose scheduled
 * cancellation took effect at its period end (reactivate is rejected). Period dates are relative to the
 * start of the UTC day on which the sandbox starts, so current periods contain "now".
 * Products keep the billing anchor IMMEDIATELY (used when proration_behavior is omitted).
 * Hostile mode `embedProducts` (sb.hostile): `product` is the whole product as GET /products/{id}
 * answers it (webhookSecret included), in every answer and in SUBSCRIPTION_UPDATED events.
 */
import { both, core, Ctx, badRequest, notFound, ok, paginate, SandboxApp, single, unprocessable, v } from '../app';
import type { Customer, Product } from '../state';
import { round2, Rng } from '../util';
import { catalogOf, productView } from './products';

export const SUBSCRIPTION_STATUSES = ['TRIALING', 'ACTIVE', 'PAST_DUE', 'PAUSED', 'CANCELLED'] as const;
export const BILLING_INTERVALS = ['WEEKLY', 'MONTHLY', 'YEARLY'] as const;
export const PRORATION_BEHAVIORS = ['IMMEDIATELY', 'END_OF_PERIOD'] as const;
type Status = (typeof SUBSCRIPTION_STATUSES)[number];
type Interval = (typeof BILLING_INTERVALS)[number];
type Proration = (typeof PRORATION_BEHAVIORS)[number];

const DAY = 86_400_000;
const PERIOD_DAYS: Record<Interval, number> = { WEEKLY: 7, MONTHLY: 30, YEARLY: 365 };
const PRICE_FACTOR: Record<Interval, number> = { WEEKLY: 0.25, MONTHLY: 1, YEARLY: 10 };
const PRODUCT_BILLING_ANCHOR: Proration = 'IMMEDIATELY';
const METER_UNIT_PRICE = 0.001;
const TAX_RATE = 0.08;

export interface SubscriptionRecord {
	id: string;
	status: Status;
	billingInterval: Interval;
	amount: number;
	currency: string;
	currentPeriodStart: string;
	currentPeriodEnd: string;
	nextChargeAt: string | null;
	trialEnd: string | null;
	cancelledAt: string | null;
	pausedAt: string | null;
	endsAt: string | null;
	retryCount: number;
	quantity: number;
	productId: string;
	variantId: string | null;
	customerId: string;
	paymentMethod: { id: string; brand: string; lastFour: string; expMonth: number; expYear: number };
	/** Metered units used per day of the period (usage projection). */
	usagePerDay: number;
	pastUsage: { start: string; end: string; quantity: number }[];
	scheduledChange: Record<string, unknown> | null;
	createdAt: string;
	updatedAt: string;
}

interface Template {
	status: Status;
	interval: Interval;
	quantity?: number;
	/** Cancellation scheduled inside (true) or outside/after (false) the current period. */
	scheduledCancel?: 'inside' | 'outside';
}

/** Fixed first records: every status and both scheduled-cancellation cases. */
const TEMPLATES: Template[] = [
	{ status: 'ACTIVE', interval: 'MONTHLY' },
	{ status: 'ACTIVE', interval: 'YEARLY' },
	{ status: 'ACTIVE', interval: 'WEEKLY' },
	{ status: 'ACTIVE', interval: 'MONTHLY', quantity: 3 },
	{ status: 'TRIALING', interval: 'MONTHLY' },
	{ status: 'PAST_DUE', interval: 'MONTHLY' },
	{ status: 'PAUSED', interval: 'MONTHLY' },
	{ status: 'CANCELLED', interval: 'MONTHLY' },
	{ status: 'ACTIVE', interval: 'MONTHLY', scheduledCancel: 'inside' },
	{ status: 'CANCELLED', interval: 'MONTHLY', scheduledCancel: 'outside' },
];
const SEEDED = 30;
const BRANDS = ['visa', 'mastercard', 'amex'];

const iso = (ms: number) => new Date(ms).toISOString();
const ms = (text: string) => Date.parse(text);

export function seedSubscriptions(rng: Rng, anchor: number, products: Product[], customers: Customer[]): SubscriptionRecord[] {
	const plans = products.filter((p) => p.productType === 'SUBSCRIPTION');
	const out: SubscriptionRecord[] = [];
	for (let i = 0; i < SEEDED; i++) {
		const t: Template = TEMPLATES[i] ?? {
			status: rng.pick(['ACTIVE', 'ACTIVE', 'ACTIVE', 'TRIALING', 'PAST_DUE', 'PAUSED', 'CANCELLED'] as const),
			interval: rng.pick(BILLING_INTERVALS),
			quantity: rng.int(1, 4),
		};
		const product = rng.pick(plans.length ? plans : products);
		const customer = customers[(i * 7 + 3) % customers.length];
		const quantity = t.quantity ?? 1;
		const len = PERIOD_DAYS[t.interval] * DAY;
		// Current period: started between 1 day and (length - 2 days) ago.
		const periodStart = anchor - rng.int(1, PERIOD_DAYS[t.interval] - 2) * DAY;
		let start = periodStart;
		let end = periodStart + len;
		const createdMs = periodStart - rng.int(0, 6) * len - rng.int(0, 23) * 3_600_000;
		const record: SubscriptionRecord = {
			id: rng.id('sub_'),
			status: t.status,
			billingInterval: t.interval,
			amount: round2(product.price * quantity * PRICE_FACTOR[t.interval]),
			currency: product.currency,
			currentPeriodStart: '',
			currentPeriodEnd: '',
			nextChargeAt: null,
			trialEnd: null,
			cancelledAt: null,
			pausedAt: null,
			endsAt: null,
			retryCount: 0,
			quantity,
			productId: product.id,
			variantId: null,
			customerId: customer.id,
			paymentMethod: {
				id: rng.id('pm_'),
				brand: rng.pick(BRANDS),
				lastFour: String(rng.int(1000, 9999)),
				expMonth: rng.int(1, 12),
				expYear: 2027 + rng.int(0, 4),
			},
			usagePerDay: rng.int(0, 800),
			pastUsage: [],
			scheduledChange: null,
			createdAt: iso(Math.min(createdMs, periodStart)),
			updatedAt: iso(periodStart),
		};
		switch (t.status) {
			case 'TRIALING':
				record.trialEnd = iso(end);
				break;
			case 'PAST_DUE':
				record.retryCount = rng.int(1, 3);
				break;
			case 'PAUSED':
				record.pausedAt = iso(start + DAY);
				break;
			case 'CANCELLED': {
				// Ended some periods ago; the last period is the current one no more.
				end = anchor - rng.int(2, 20) * DAY;
				start = end - len;
				record.cancelledAt = iso(t.scheduledCancel === 'outside' ? start + 2 * DAY : end);
				record.endsAt = iso(end);
				break;
			}
			default:
				if (t.scheduledCancel === 'inside') {
					record.cancelledAt = iso(anchor - DAY);
					record.endsAt = iso(end);
				}
		}
		record.currentPeriodStart = iso(start);
		record.currentPeriodEnd = iso(end);
		record.createdAt = iso(Math.min(ms(record.createdAt), start));
		record.nextChargeAt = t.status === 'CANCELLED' || t.status === 'PAUSED' || record.endsAt ? null : iso(end);
		record.pastUsage = Array.from({ length: Math.min(3, Math.floor((start - ms(record.createdAt)) / len)) }, (_, k) => ({
			start: iso(start - (k + 1) * len),
			end: iso(start - k * len),
			quantity: rng.int(0, 800) * PERIOD_DAYS[t.interval],
		}));
		out.push(record);
	}
	return out.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.id.localeCompare(b.id));
}

export function register(app: SandboxApp): void {
	const { state } = app;
	const all = (): SubscriptionRecord[] =>
		app.collection<SubscriptionRecord>('subscriptions', (rng) =>
			seedSubscriptions(rng, Math.floor(app.clock.now() / DAY) * DAY, state.products, state.customers),
		);
	// Seed at start, so code that reads the collection without an init (tests) sees the records.
	all();

	/** A scheduled cancellation whose end has passed takes effect. */
	const settle = (s: SubscriptionRecord, now: number): SubscriptionRecord => {
		if (s.endsAt && s.status !== 'CANCELLED' && now >= ms(s.endsAt)) {
			s.status = 'CANCELLED';
			s.nextChargeAt = null;
			s.updatedAt = s.endsAt;
		}
		return s;
	};

	const find = (ctx: Ctx): SubscriptionRecord => {
		const s = all().find((x) => x.id === ctx.params.subscriptionId);
		if (!s) throw notFound('Subscription');
		return settle(s, ctx.now());
	};

	/** Hostile embedProducts: the whole product, as its GET answers it (webhookSecret included). */
	const embeddedProduct = (productId: string) => {
		if (app.hostile.embedProducts !== true) return undefined;
		const full = catalogOf(app).find((p) => p.id === productId);
		return full === undefined ? undefined : productView(app, full);
	};

	const view = (s: SubscriptionRecord) => {
		const product = state.products.find((p) => p.id === s.productId);
		const customer = state.customers.find((c) => c.id === s.customerId);
		return {
			id: s.id,
			status: s.status,
			billingInterval: s.billingInterval,
			amount: s.amount,
			currency: s.currency,
			currentPeriodStart: s.currentPeriodStart,
			currentPeriodEnd: s.currentPeriodEnd,
			nextChargeAt: s.nextChargeAt,
			trialEnd: s.trialEnd,
			cancelledAt: s.cancelledAt,
			pausedAt: s.pausedAt,
			endsAt: s.endsAt,
			retryCount: s.retryCount,
			quantity: s.quantity,
			product: embeddedProduct(s.productId) ?? { id: s.productId, title: product?.title ?? null, price: product?.price ?? null },
			customer: { id: s.customerId, email: customer?.email ?? null },
			paymentMethod: { ...s.paymentMethod },
			createdAt: s.createdAt,
		};
	};

	const touch = (ctx: Ctx, s: SubscriptionRecord) => {
		s.updatedAt = ctx.iso();
		return s;
	};

	const READ = { scope: 'SUBSCRIPTIONS_READ' };
	const WRITE = { scope: 'SUBSCRIPTIONS_WRITE' };

	app.route('GET', core('/subscriptions'), (ctx) => {
		const status = v.oneOf(single(ctx.query.status, 'status'), 'status', SUBSCRIPTION_STATUSES);
		const now = ctx.now();
		const found = all()
			.map((s) => settle(s, now))
			.filter((s) => !status || s.status === status);
		return ok(paginate(found, ctx.query, view));
	}, READ);

	app.route('GET', core('/subscriptions/:subscriptionId'), (ctx) => ok(view(find(ctx))), READ);

	app.route('GET', core('/subscriptions/:subscriptionId/usage'), (ctx) => {
		const s = find(ctx);
		const start = ms(s.currentPeriodStart);
		const end = ms(s.currentPeriodEnd);
		const elapsedDays = Math.max(0, Math.min(ctx.now(), end) - start) / DAY;
		const periodDays = (end - start) / DAY;
		const live = s.status !== 'CANCELLED' && s.status !== 'PAUSED';
		const quantity = live ? Math.floor(s.usagePerDay * elapsedDays) : 0;
		const projectedQuantity = live ? Math.floor(s.usagePerDay * periodDays) : quantity;
		const meter = (q: number) => ({ meter: 'api_calls', quantity: q, unitPrice: METER_UNIT_PRICE, amount: round2(q * METER_UNIT_PRICE) });
		return ok({
			subscriptionId: s.id,
			currency: s.currency,
			currentPeriod: {
				start: s.currentPeriodStart,
				end: s.currentPeriodEnd,
				meters: [{ ...meter(quantity), projectedQuantity, projectedAmount: round2(projectedQuantity * METER_UNIT_PRICE) }],
				amount: meter(quantity).amount,
				projectedAmount: round2(projectedQuantity * METER_UNIT_PRICE),
			},
			pastPeriods: s.pastUsage.map((p) => ({ start: p.start, end: p.end, meters: [meter(p.quantity)], amount: meter(p.quantity).amount })),
		});
	}, { scope: 'USAGE_READ' });

	app.route('GET', both('/subscriptions/:subscriptionId/upcoming-invoice'), (ctx) => {
		const s = find(ctx);
		if (s.status === 'CANCELLED' || s.status === 'PAUSED' || s.endsAt || !s.nextChargeAt) {
			throw unprocessable('no_upcoming_invoice', `This subscription has no upcoming charge (status ${s.status}${s.endsAt ? ', cancellation scheduled' : ''})`);
		}
		const len = PERIOD_DAYS[s.billingInterval] * DAY;
		const next = s.scheduledChange;
		const base = typeof next?.amount === 'number' ? next.amount : s.amount;
		const usage = round2(s.usagePerDay * (len / DAY) * METER_UNIT_PRICE);
		const tax = round2((base + usage) * TAX_RATE);
		return ok({
			subscriptionId: s.id,
			chargeAt: s.nextChargeAt,
			periodStart: s.currentPeriodEnd,
			periodEnd: iso(ms(s.currentPeriodEnd) + len),
			currency: s.currency,
			base,
			usage,
			tax,
			total: round2(base + usage + tax),
		});
	}, READ);

	app.route('POST', both('/subscriptions/:subscriptionId/change'), (ctx) => {
		const s = find(ctx);
		const b = ctx.body;
		v.onlyFields(b, ['productId', 'variantId', 'billingInterval', 'quantity', 'proration_behavior']);
		const productId = v.id(b.productId, 'productId', 'prd_');
		const variantId = v.str(b.variantId, 'variantId', { min: 1 }); // the spec gives variant ids no prefix or length
		const billingInterval = v.oneOf(b.billingInterval, 'billingInterval', BILLING_INTERVALS);
		const quantity = v.int(b.quantity, 'quantity', { min: 1 });
		const requested = v.oneOf(b.proration_behavior, 'proration_behavior', PRORATION_BEHAVIORS);
		if (productId === undefined && variantId === undefined && billingInterval === undefined && quantity === undefined) {
			throw badRequest('body', 'at least one of productId, variantId, billingInterval, quantity is required');
		}
		const product = productId === undefined ? state.products.find((p) => p.id === s.productId) : state.products.find((p) => p.id === productId);
		if (!product) throw badRequest('productId', 'does not match a product of this store');
		if (s.status === 'CANCELLED') throw unprocessable('subscription_cancelled', 'A cancelled subscription cannot be changed');

		const target = {
			productId: product.id,
			variantId: variantId ?? (productId === undefined ? s.variantId : null),
			billingInterval: billingInterval ?? s.billingInterval,
			quantity: quantity ?? s.quantity,
		};
		const newAmount = round2(product.price * target.quantity * PRICE_FACTOR[target.billingInterval]);
		const prorationBehavior = requested ?? PRODUCT_BILLING_ANCHOR;
		const previous = { productId: s.productId, variantId: s.variantId, billingInterval: s.billingInterval, quantity: s.quantity, amount: s.amount };
		const now = ctx.now();
		let proratedAmount = 0;
		let effectiveAt = ctx.iso(now);
		if (prorationBehavior === 'IMMEDIATELY') {
			const start = ms(s.currentPeriodStart);
			const end = ms(s.currentPeriodEnd);
			const upgrade = newAmount > s.amount;
			if (upgrade && end > now) proratedAmount = round2((newAmount - s.amount) * ((end - now) / (end - start)));
			if (upgrade || target.billingInterval !== s.billingInterval) {
				s.currentPeriodStart = ctx.iso(now);
				s.currentPeriodEnd = ctx.iso(now + PERIOD_DAYS[target.billingInterval] * DAY);
				if (s.nextChargeAt) s.nextChargeAt = s.currentPeriodEnd;
			}
			Object.assign(s, target, { amount: newAmount, scheduledChange: null });
		} else {
			effectiveAt = s.currentPeriodEnd;
			s.scheduledChange = { ...target, amount: newAmount, effectiveAt };
		}
		touch(ctx, s);
		const change = { prorationBehavior, prorationSource: requested ? 'request' : 'product_billing_anchor', effectiveAt, proratedAmount, previous, next: { ...target, amount: newAmount } };
		const embedded = embeddedProduct(s.productId);
		app.emit('SUBSCRIPTION_UPDATED', { subscriptionId: s.id, ...change, ...(embedded !== undefined ? { product: embedded } : {}) });
		return ok({ ...view(s), change });
	}, WRITE);

	app.route('POST', both('/subscriptions/:subscriptionId/reactivate'), (ctx) => {
		const s = find(ctx);
		v.onlyFields(ctx.body, []);
		if (!s.endsAt || !s.cancelledAt) throw unprocessable('no_scheduled_cancellation', 'This subscription has no scheduled cancellation');
		if (s.status === 'CANCELLED' || ctx.now() >= ms(s.endsAt)) {
			throw unprocessable('outside_current_period', `The cancellation took effect at ${s.endsAt}; a subscription can only be reactivated inside its current period`);
		}
		s.cancelledAt = null;
		s.endsAt = null;
		s.nextChargeAt = s.status === 'PAUSED' ? null : s.currentPeriodEnd;
		return ok(view(touch(ctx, s)));
	}, WRITE);

	app.route('POST', both('/subscriptions/:subscriptionId/cancel'), (ctx) => {
		const s = find(ctx);
		v.onlyFields(ctx.body, []);
		if (s.status === 'CANCELLED') throw unprocessable('subscription_cancelled', 'This subscription is already cancelled');
		if (s.endsAt) throw unprocessable('cancellation_scheduled', `A cancellation is already scheduled for ${s.endsAt}`);
		s.cancelledAt = ctx.iso();
		s.endsAt = s.currentPeriodEnd;
		s.nextChargeAt = null;
		return ok(view(touch(ctx, s)));
	}, WRITE);

	app.route('POST', both('/subscriptions/:subscriptionId/pause'), (ctx) => {
		const s = find(ctx);
		v.onlyFields(ctx.body, []);
		if (s.status === 'PAUSED') throw unprocessable('subscription_paused', 'This subscription is already paused');
		if (s.status === 'CANCELLED') throw unprocessable('subscription_cancelled', 'A cancelled subscription cannot be paused');
		s.status = 'PAUSED';
		s.pausedAt = ctx.iso();
		s.nextChargeAt = null;
		return ok(view(touch(ctx, s)));
	}, WRITE);

	app.route('POST', both('/subscriptions/:subscriptionId/resume'), (ctx) => {
		const s = find(ctx);
		v.onlyFields(ctx.body, []);
		if (s.status !== 'PAUSED') throw unprocessable('subscription_not_paused', `Only a paused subscription can be resumed (status ${s.status})`);
		s.status = 'ACTIVE';
		s.pausedAt = null;
		s.nextChargeAt = s.endsAt ? null : s.currentPeriodEnd;
		return ok(view(touch(ctx, s)));
	}, WRITE);
}
