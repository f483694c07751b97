/**
 * Orders.
 *   GET  /v2/core/stores/:storeId/orders/          list; query page, limit, status (any text: the spec
 *                                                  shows PENDING and COMPLETED, not the full set),
 *                                                  search (max 128; orderNumber or customer email),
 *                                                  sortDirection (asc sorts oldest first; desc or any other
 *                                                  text newest first, the default: the spec names only asc)
 *   GET  /v2/core/stores/:storeId/orders/:orderId  detail
 *   POST /v2/stores/:storeId/orders/:orderId/refund {amount?, reason? (text, no length limit)}; honours Idempotency-Key;
 *        scope REFUNDS_WRITE; also under /v2/core. Ledger kind 'refund', emits PAYMENT_REFUNDED.
 * The query names of the text filter and the sort are our choice (not shown by the spec).
 * Disagreeing (disagree.ts): the filters are q and sort_order; a refund's answer carries the order's
 * total as `amount` and the refund's own as `refundedAmount`.
 */
import { both, core, Ctx, notFound, ok, paginate, SandboxApp, single, textFilter, unprocessable, badRequest, v } from '../app';
import { Order, Refund, SandboxState } from '../state';
import { round2, sortByText } from '../util';
import { answersDiffer, named, OTHER_QUERY_NAMES, queryIn } from '../disagree';

export function register(app: SandboxApp): void {
	app.route('GET', core('/orders/'), (ctx) => {
		const q = queryIn(ctx, OTHER_QUERY_NAMES.orders);
		const name = (own: string) => named(ctx, OTHER_QUERY_NAMES.orders, own);
		const status = v.str(single(q.status, 'status'), 'status');
		const direction = v.str(single(q.sortDirection, name('sortDirection')), name('sortDirection')) ?? 'desc';
		const email = (o: Order) => customerOf(ctx.state, o)?.email;
		const matching = textFilter(ctx.state.orders, single(q.search, name('search')), name('search'), (o) => [o.orderNumber, email(o)]);
		const found = sortByText(status ? matching.filter((o) => o.status === status) : matching, (o) => o.createdAt, direction !== 'asc');
		return ok(paginate(found, q, (o) => orderListItem(ctx.state, o)));
	});

	app.route('GET', core('/orders/:orderId'), (ctx) => ok(orderDetail(ctx.state, findOrder(ctx))));

	app.route('POST', both('/orders/:orderId/refund'), (ctx) => {
		const order = findOrder(ctx);
		v.onlyFields(ctx.body, ['amount', 'reason']);
		if (order.payment.status !== 'COMPLETED') throw unprocessable('order_not_refundable', 'Only orders with a completed payment can be refunded');
		const remaining = refundable(ctx.state, order);
		if (remaining <= 0) throw unprocessable('order_fully_refunded', 'This order has been refunded in full');
		const amount = v.num(ctx.body.amount, 'amount', { gt: 0 }) ?? remaining;
		if (amount > remaining + 1e-9) throw badRequest('amount', `must be <= the refundable remainder ${remaining}`);
		const reason = v.str(ctx.body.reason, 'reason') ?? null;
		const refund: Refund = {
			id: ctx.app.newId('rfd_'),
			storeId: order.storeId,
			orderId: order.id,
			paymentId: order.payment.id,
			amount: round2(amount),
			currency: order.currency,
			reason,
			status: 'SUCCEEDED',
			createdAt: ctx.iso(),
		};
		ctx.state.refunds.push(refund);
		ctx.commit('refund', { refundId: refund.id, orderId: order.id, amount: refund.amount });
		ctx.app.emit('PAYMENT_REFUNDED', { orderId: order.id, paymentId: order.payment.id, refundId: refund.id, amount: refund.amount, currency: refund.currency, reason });
		// Disagreeing: the answer's amount is the order's total.
		return ok(answersDiffer(ctx.app.disagree) ? { ...refund, amount: order.payment.totalAmount, refundedAmount: refund.amount } : refund, 201);
	}, { idempotency: 'honoured', scope: 'REFUNDS_WRITE' });
}

function findOrder(ctx: Ctx): Order {
	const order = ctx.state.orders.find((o) => o.id === ctx.params.orderId);
	if (!order) throw notFound('Order');
	return order;
}

const customerOf = (state: SandboxState, o: Order) => state.customers.find((c) => c.id === o.customerId);

export function refundable(state: SandboxState, order: Order): number {
	const refunded = state.refunds.filter((r) => r.orderId === order.id).reduce((s, r) => s + r.amount, 0);
	return round2(order.payment.totalAmount - refunded);
}

export function orderListItem(state: SandboxState, o: Order) {
	return {
		id: o.id,
		orderNumber: o.orderNumber,
		status: o.status,
		amount: o.amount,
		currency: o.currency,
		discounted: o.discounted,
		discountCode: o.discountCode,
		customer: { id: o.customerId, email: customerOf(state, o)?.email ?? null },
		payment: { status: o.payment.status, totalAmount: o.payment.totalAmount },
		createdAt: o.createdAt,
	};
}

export function orderDetail(state: SandboxState, o: Order) {
	const c = customerOf(state, o);
	return {
		...orderListItem(state, o),
		gateway: o.gateway,
		customFields: o.customFields,
		returnUrl: o.returnUrl,
		updatedAt: o.updatedAt,
		items: o.items,
		customer: { id: o.customerId, email: c?.email ?? null, firstName: c?.firstName ?? null, lastName: c?.lastName ?? null, guest: c?.guest ?? false },
		billingAddress: o.billingAddress,
		payment: { ...o.payment },
		licenses: state.licenses
			.filter((l) => o.licenseIds.includes(l.id))
			.map((l) => ({ id: l.id, key: l.key, status: l.status, productId: l.productId, variantId: l.variantId, claimedAt: l.claimedAt })),
		paymentMethod: o.paymentMethod,
	};
}
