/**
 * Operations the spec names without a path or body ("tax details, monthly revenue analytics and
 * credit/debit payout routes exist"). Every path, query name and shape here is this sandbox's
 * choice, shared with the node's rows marked inferred (README operations table):
 *   GET /v2/core/stores/:storeId/tax-details                -> {country, taxIds, pricesIncludeTax, registrations}
 *   GET /v2/core/stores/:storeId/analytics/revenue/monthly  months (1..24, default 12)
 *       -> {currency, months: [{month: 'YYYY-MM', orders, revenue, refunded, netRevenue}]}, newest first
 *   GET /v2/core/stores/:storeId/payouts/credits            page, limit -> credits to the payout balance
 *   GET /v2/core/stores/:storeId/payouts/debits             page, limit -> debits from the payout balance
 * All four are also served under /v2/stores/:storeId (disagreeing: there only, disagree.ts UNPLACED_ROOTS).
 */
import { both, ok, paginate, SandboxApp, v } from '../app';
import { round2 } from '../util';

interface BalanceEntry {
	id: string;
	type: 'credit' | 'debit';
	amount: number;
	currency: string;
	reason: string;
	createdAt: string;
}

const DAY = 86_400_000;

export function register(app: SandboxApp): void {
	const { state } = app;

	app.route('GET', both('/tax-details'), () =>
		ok({
			country: state.store.country,
			taxIds: [{ type: 'us_ein', value: '12-3456789' }],
			pricesIncludeTax: false,
			registrations: [{ country: 'US', state: 'CA' }, { country: 'DE' }],
		}),
	);

	app.route('GET', both('/analytics/revenue/monthly'), (ctx) => {
		const months = v.queryInt(ctx.query.months, 'months', { min: 1, max: 24 }) ?? 12;
		const now = new Date(ctx.now());
		const out = [];
		for (let i = 0; i < months; i++) {
			const start = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - i, 1);
			const end = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - i + 1, 1);
			const inMonth = state.orders.filter((o) => {
				const t = Date.parse(o.createdAt);
				return t >= start && t < end && o.payment.status === 'COMPLETED';
			});
			const revenue = round2(inMonth.reduce((sum, o) => sum + o.payment.totalAmount, 0));
			const refunded = round2(
				state.refunds.filter((r) => inMonth.some((o) => o.id === r.orderId)).reduce((sum, r) => sum + r.amount, 0),
			);
			out.push({ month: new Date(start).toISOString().slice(0, 7), orders: inMonth.length, revenue, refunded, netRevenue: round2(revenue - refunded) });
		}
		return ok({ currency: state.store.currency, months: out });
	});

	const entries = (type: 'credit' | 'debit') =>
		app.collection<BalanceEntry>(`payout${type}s`, (rng) =>
			Array.from({ length: 7 }, (_, i) => ({
				id: rng.id(type === 'credit' ? 'bcr_' : 'bdb_'),
				type,
				amount: round2(5 + rng.next() * 200),
				currency: state.store.currency,
				reason: type === 'credit' ? 'settlement' : i % 2 ? 'dispute_fee' : 'refund',
				createdAt: new Date(app.clock.now() - (i + 1) * DAY).toISOString(),
			})),
		);

	app.route('GET', both('/payouts/credits'), (ctx) => ok(paginate(entries('credit'), ctx.query)));
	app.route('GET', both('/payouts/debits'), (ctx) => ok(paginate(entries('debit'), ctx.query)));
}
