/**
 * Analytics.
 *   GET /v2/core/stores/:storeId/analytics/overview  query range (7d|30d|90d|all|custom, default 30d), and for
 *       custom from + to (ISO 8601, from < to; both required; not accepted with other ranges).
 *       -> {range, from, to, currency, orders, completedOrders, revenue, refunded, netRevenue,
 *           averageOrderValue, newCustomers}: COMPLETED orders' payment totals, refunds and new customers
 *       created inside [from, to]; for 'all' from is the first order/customer, to is now.
 *   GET /v2/core/stores/:storeId/analytics/subscriptions/overview
 *       -> {currency, total, byStatus {TRIALING, ACTIVE, PAST_DUE, PAUSED, CANCELLED}, activeSubscribers, mrr,
 *           averageRevenuePerSubscriber, trialConversionCandidates, scheduledCancellations}
 *   GET /v2/core/stores/:storeId/analytics/subscriptions/mrr
 *       -> {currency, asOf, mrr, arr, activeSubscriptions, byInterval {WEEKLY, MONTHLY, YEARLY}}
 * The query names, every response shape and the MRR rule (ACTIVE and PAST_DUE subscriptions, amount per
 * period scaled to a month: weekly x 52/12, yearly / 12) are our choice: the spec does not show them.
 * Disagreeing (disagree.ts): the overview reads period, start and end (the answer still names its range).
 * Subscription figures read the 'subscriptions' collection of subscriptions.ts (seeded here the same way
 * when it has not been used yet).
 */
import { badRequest, core, ok, SandboxApp, single, v } from '../app';
import { round2 } from '../util';
import { named, OTHER_QUERY_NAMES, queryIn } from '../disagree';
import type { SubscriptionRecord } from './subscriptions';
import { seedSubscriptions } from './subscriptions';

export const RANGES = ['7d', '30d', '90d', 'all', 'custom'] as const;
const DAY = 86_400_000;
const RANGE_DAYS: Record<string, number> = { '7d': 7, '30d': 30, '90d': 90 };
const STATUSES = ['TRIALING', 'ACTIVE', 'PAST_DUE', 'PAUSED', 'CANCELLED'] as const;
const MONTHLY_FACTOR: Record<string, number> = { WEEKLY: 52 / 12, MONTHLY: 1, YEARLY: 1 / 12 };

export function register(app: SandboxApp): void {
	const { state } = app;
	const subscriptions = (): SubscriptionRecord[] =>
		app.collection<SubscriptionRecord>('subscriptions', (rng) =>
			seedSubscriptions(rng, Math.floor(app.clock.now() / DAY) * DAY, state.products, state.customers),
		);
	const monthly = (s: SubscriptionRecord) => s.amount * (MONTHLY_FACTOR[s.billingInterval] ?? 1);
	const paying = (s: SubscriptionRecord) => s.status === 'ACTIVE' || s.status === 'PAST_DUE';

	app.route('GET', core('/analytics/overview'), (ctx) => {
		const q = queryIn(ctx, OTHER_QUERY_NAMES.analyticsOverview);
		const name = (own: string) => named(ctx, OTHER_QUERY_NAMES.analyticsOverview, own);
		const range = v.oneOf(single(q.range, name('range')), name('range'), RANGES) ?? '30d';
		const rawFrom = single(q.from, name('from'));
		const rawTo = single(q.to, name('to'));
		let from: number;
		let to = ctx.now();
		if (range === 'custom') {
			from = v.timestamp(rawFrom, name('from'), { required: true }) as number;
			to = v.timestamp(rawTo, name('to'), { required: true }) as number;
			if (from >= to) throw badRequest(name('from'), `must be before ${name('to')}`);
		} else {
			if (rawFrom !== undefined || rawTo !== undefined) throw badRequest(rawFrom !== undefined ? name('from') : name('to'), `is only accepted with ${name('range')}=custom`);
			from =
				range === 'all'
					? Math.min(to, ...state.orders.map((o) => Date.parse(o.createdAt)), ...state.customers.map((c) => Date.parse(c.createdAt)))
					: to - RANGE_DAYS[range] * DAY;
		}
		const inside = (iso: string) => {
			const t = Date.parse(iso);
			return t >= from && t <= to;
		};
		const orders = state.orders.filter((o) => inside(o.createdAt));
		const completed = orders.filter((o) => o.status === 'COMPLETED');
		const revenue = round2(completed.reduce((s, o) => s + o.payment.totalAmount, 0));
		const refunded = round2(state.refunds.filter((r) => inside(r.createdAt)).reduce((s, r) => s + r.amount, 0));
		return ok({
			range,
			from: new Date(from).toISOString(),
			to: new Date(to).toISOString(),
			currency: state.store.currency,
			orders: orders.length,
			completedOrders: completed.length,
			revenue,
			refunded,
			netRevenue: round2(revenue - refunded),
			averageOrderValue: completed.length ? round2(revenue / completed.length) : 0,
			newCustomers: state.customers.filter((c) => inside(c.createdAt)).length,
		});
	});

	app.route('GET', core('/analytics/subscriptions/overview'), (ctx) => {
		const all = subscriptions();
		const byStatus = Object.fromEntries(STATUSES.map((s) => [s, all.filter((x) => x.status === s).length]));
		const active = all.filter(paying);
		const mrr = round2(active.reduce((s, x) => s + monthly(x), 0));
		return ok({
			currency: state.store.currency,
			asOf: ctx.iso(),
			total: all.length,
			byStatus,
			activeSubscribers: new Set(active.map((x) => x.customerId)).size,
			mrr,
			averageRevenuePerSubscriber: active.length ? round2(mrr / active.length) : 0,
			trialConversionCandidates: byStatus.TRIALING,
			scheduledCancellations: all.filter((x) => x.endsAt && x.status !== 'CANCELLED').length,
		});
	});

	app.route('GET', core('/analytics/subscriptions/mrr'), (ctx) => {
		const active = subscriptions().filter(paying);
		const byInterval = Object.fromEntries(
			['WEEKLY', 'MONTHLY', 'YEARLY'].map((i) => [i, round2(active.filter((x) => x.billingInterval === i).reduce((s, x) => s + monthly(x), 0))]),
		);
		const mrr = round2(active.reduce((s, x) => s + monthly(x), 0));
		return ok({ currency: state.store.currency, asOf: ctx.iso(), mrr, arr: round2(mrr * 12), activeSubscriptions: active.length, byInterval });
	});
}
