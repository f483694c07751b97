/**
 * The disagreeing mode (DESIGN.md, "The sandbox disagrees on purpose"). By default the sandbox
 * answers every detail the spec does not show the way the node guesses it. Switched on
 * (`sb.disagree.on = true` in a test, `startSandbox({ disagree: true })`, `useSandbox({ disagree:
 * true })`, `cli --disagree`), each of those details differs from the node's guess, so a test
 * shows what a user sees when a guess is wrong. Everything the spec shows stays as it is.
 *
 * Each difference is small and sits where the default behaviour sits; this table lists them all:
 *
 * | The node's guess (spec: "not shown")                      | Default sandbox                  | Disagreeing sandbox (where)                                        |
 * |-----------------------------------------------------------|----------------------------------|--------------------------------------------------------------------|
 * | Customer list filters `search`, `sort`, `direction`       | reads those names                | reads `q`, `sort_by`, `sort_order`; the node's names are ignored (customers.ts) |
 * | Order list filters `search`, `sortDirection`              | reads those names                | reads `q`, `sort_order` (`status` is the spec's: kept) (orders.ts)  |
 * | Refund list filter `orderId`                              | reads it                         | reads `order_id` (refunds.ts)                                      |
 * | Dispute list filters `status`, `orderId`                  | reads them                       | reads `state`, `order_id` (disputes.ts)                             |
 * | License list filters `status`, `productId`                | reads them                       | reads `state`, `product_id` (licenses-list.ts)                      |
 * | Analytics overview query `range`, `from`, `to`            | reads them                       | reads `period`, `start`, `end`; the answer still states the `range` it covers (analytics.ts) |
 * | Mask names of bank_account and pii tokens                 | `bank_name`, `last4`, `country`; `last4` | `bankName`, `lastFour`, `countryCode`; `lastChars` (vault.ts)  |
 * | Refund answer: `amount` is the refund's                   | the refund's amount              | `amount` is the order's total; the refund's is `refundedAmount` (orders.ts) |
 * | Payout answer: `amount` is what was asked                 | the amount asked                 | `amount` is the net amount (after the fee); `grossAmount` (payouts.ts) |
 * | A checkout session can be read (GET /checkouts/{id})      | served                           | no such route: 404; the total is at GET /checkouts/{id}/summary as grandTotal, currencyCode (checkout.ts) |
 * | Report files come from the Base URL's host                | the request's own host           | another origin: a second listener of the sandbox (reports.ts, server.ts) |
 * | The webhook signing secret is long (`whsec_` + 24+ chars) | `whsec_` + 32 base64 characters  | `whsec_` + 12 (an 8-byte key); deliveries are signed with it (server.ts) |
 * | Routing is lenient                                        | a trailing slash is ignored; a route under /v2/stores is also served under /v2/core (and back) | the trailing slash must be as registered; each route answers under one root only: STRICT_ROOTS below (app.ts Router) |
 * | The root of a route the spec does not place (refunds, disputes, meters, subscription cancel/pause/resume, cases list and get, license list, tax details, monthly revenue, payout credits/debits, webhook update) | served under both roots | served under the OTHER root than the node sends it to: UNPLACED_ROOTS below; the node's request is a 404 (or 405) |
 * | An Idempotency-Key is scoped to its route                 | credential + method + path; same key, other route: another request | credential only, judged by the body as the spec says: same key and body on another route replays the first answer, another body is 422 (server.ts) |
 *
 * The filter names the disagreeing service reads are OTHER_QUERY_NAMES; a resource reads its query
 * through `queryIn` and names a field in its errors with `named`.
 */
import type { Ctx } from './app';

/** The switch: on, the sandbox disagrees with every guess of the node (the table above). */
export interface DisagreeMode {
	on: boolean;
	/**
	 * With `on`: routes the spec does not place answer under both roots, as by default (UNPLACED_ROOTS
	 * is not applied), so a test can show another guess on such a route (a list's filter names) alone.
	 */
	keepRoots?: boolean;
	/**
	 * With `on`: refund and payout answers carry the amount as by default, so a test can show
	 * another guess on a money write (how the service judges a reused Idempotency-Key) alone.
	 */
	keepAnswers?: boolean;
}

/** The refund and payout answers differ (the table above): disagreeing, unless the test kept them. */
export function answersDiffer(mode: DisagreeMode): boolean {
	return mode.on && mode.keepAnswers !== true;
}

/** Per list: the query name the default reads → the one the disagreeing service reads instead. */
export const OTHER_QUERY_NAMES = {
	customers: { search: 'q', sort: 'sort_by', direction: 'sort_order' },
	orders: { search: 'q', sortDirection: 'sort_order' },
	refunds: { orderId: 'order_id' },
	disputes: { status: 'state', orderId: 'order_id' },
	licenses: { status: 'state', productId: 'product_id' },
	analyticsOverview: { range: 'period', from: 'start', to: 'end' },
} as const satisfies Record<string, Record<string, string>>;

type Names = Readonly<Record<string, string>>;

/**
 * The request's query under the default's names. Disagreeing, the other names are read into
 * them and the default's own names are ignored (as any unknown query name is).
 */
export function queryIn(ctx: Ctx, names: Names): Record<string, unknown> {
	if (!ctx.app.disagree.on) return ctx.query;
	const out: Record<string, unknown> = { ...ctx.query };
	for (const [own, other] of Object.entries(names)) {
		delete out[own];
		delete out[other];
		if (other in ctx.query) out[own] = ctx.query[other];
	}
	return out;
}

/** The name a query field has for this request (for error messages): the other one when disagreeing. */
export function named(ctx: Ctx, names: Names, own: string): string {
	return ctx.app.disagree.on && own in names ? names[own] : own;
}

/**
 * Strict routing: routes the sandbox registers under both roots (`both(...)`), and the one root
 * each answers under when disagreeing: the spec's root where it gives one. A route the spec does
 * not place is in UNPLACED_ROOTS instead. Key: method and the path below the root. A route served
 * under both roots and missing from both tables fails the sandbox's start
 * (Router.checkStrictRoots), so the lists stay complete.
 */
export const STRICT_ROOTS: Readonly<Record<string, 'core' | 'stores' | 'both'>> = {
	// The spec writes these in full under /v2/stores.
	'POST /orders/:orderId/refund': 'stores',
	'POST /payouts': 'stores',
	'GET /search': 'stores',
	'GET /webhooks/:webhookId': 'stores',
	'POST /subscriptions/:subscriptionId/change': 'stores',
	'GET /reports/:reportId': 'stores',
	'GET /reports/:reportId/download/:format': 'stores',
	'POST /checkouts/:sessionId/pay': 'stores',
	// The spec gives both roots for creating and reading reports.
	'POST /reports': 'both',
	'GET /reports': 'both',
	// Relative to {store_url} (/v2/core) in the spec's store table.
	'DELETE /webhooks/:webhookId': 'core',
	// Written with "..." after a /v2/stores row: read as /v2/stores.
	'POST /subscriptions/:subscriptionId/reactivate': 'stores',
	'GET /subscriptions/:subscriptionId/upcoming-invoice': 'stores',
	// Not in the spec at all (absent when disagreeing, checkout.ts); listed for completeness.
	'GET /checkouts/:sessionId': 'stores',
};

/**
 * Routes the spec names without a path ("their paths and bodies: not shown"), so their root is
 * the node's guess: disagreeing, each answers under the OTHER root than the one the node sends it
 * to (its row's family), and the node's own request meets a 404 (or a 405 where another method
 * has that path there). test/disagreeing-sandbox.test.ts checks every such row of the node
 * against this table.
 */
export const UNPLACED_ROOTS: Readonly<Record<string, 'core' | 'stores'>> = {
	// The node sends these under /v2/stores.
	'GET /refunds': 'core',
	'GET /refunds/:refundId': 'core',
	'GET /disputes': 'core',
	'GET /disputes/:disputeId': 'core',
	'POST /disputes/:disputeId/evidence': 'core',
	'GET /products/:productId/meters': 'core',
	'POST /products/:productId/meters': 'core',
	'GET /products/:productId/meters/:meterId': 'core',
	'PATCH /products/:productId/meters/:meterId': 'core',
	'DELETE /products/:productId/meters/:meterId': 'core',
	'POST /subscriptions/:subscriptionId/cancel': 'core',
	'POST /subscriptions/:subscriptionId/pause': 'core',
	'POST /subscriptions/:subscriptionId/resume': 'core',
	// The node sends these under /v2/core.
	'PATCH /webhooks/:webhookId': 'stores',
	'GET /cases': 'stores',
	'GET /cases/:caseId': 'stores',
	'GET /licenses': 'stores',
	'GET /tax-details': 'stores',
	'GET /analytics/revenue/monthly': 'stores',
	'GET /payouts/credits': 'stores',
	'GET /payouts/debits': 'stores',
};
