/**
 * Refunds (read side). The refunds come from state.refunds, which POST .../orders/:orderId/refund
 * (orders.ts) fills. The spec names refund listing and fetching (scope REFUNDS_READ) but not their
 * paths: the ones below, the orderId filter name and the record shape are our choice.
 *   GET /v2/stores/:storeId/refunds             list; page, limit, orderId (ord_); newest first
 *   GET /v2/stores/:storeId/refunds/:refundId   the refund (ids rfd_ + 24 characters)
 * Both need scope REFUNDS_READ and are also served under /v2/core/stores/:storeId (disagreeing: there
 * only, disagree.ts UNPLACED_ROOTS).
 * Record: {id, orderId, paymentId, amount, currency, reason, status (SUCCEEDED), createdAt}.
 * Disagreeing (disagree.ts): the list filter is order_id.
 */
import { both, notFound, ok, paginate, SandboxApp, single, v } from '../app';
import type { Refund } from '../state';
import { named, OTHER_QUERY_NAMES, queryIn } from '../disagree';

export const refundView = (r: Refund) => ({
	id: r.id,
	orderId: r.orderId,
	paymentId: r.paymentId,
	amount: r.amount,
	currency: r.currency,
	reason: r.reason,
	status: r.status,
	createdAt: r.createdAt,
});

export function register(app: SandboxApp): void {
	app.route('GET', both('/refunds'), (ctx) => {
		const orderIdName = named(ctx, OTHER_QUERY_NAMES.refunds, 'orderId');
		const orderId = v.id(single(queryIn(ctx, OTHER_QUERY_NAMES.refunds).orderId, orderIdName), orderIdName, 'ord_');
		const found = ctx.state.refunds
			.filter((r) => !orderId || r.orderId === orderId)
			// Newest first; refunds made within the same millisecond keep their reverse creation order.
			.map((r, i) => ({ r, i }))
			.sort((a, b) => b.r.createdAt.localeCompare(a.r.createdAt) || b.i - a.i)
			.map(({ r }) => refundView(r));
		return ok(paginate(found, ctx.query));
	}, { scope: 'REFUNDS_READ' });

	app.route('GET', both('/refunds/:refundId'), (ctx) => {
		const refund = ctx.state.refunds.find((r) => r.id === ctx.params.refundId);
		if (!refund) throw notFound('Refund');
		return ok(refundView(refund));
	}, { scope: 'REFUNDS_READ' });
}
