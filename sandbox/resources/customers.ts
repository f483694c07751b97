/**
 * GET /v2/core/stores/:storeId/customers
 * Query (names are our choice; the spec does not show them): page, limit, search (max 128,
 * matches email / first / last / full name), sort (email|totalSpent|orderCount|createdAt,
 * default createdAt), direction (asc|desc, default desc). Disagreeing (disagree.ts): q, sort_by, sort_order.
 */
import { core, ok, paginate, SandboxApp, single, textFilter, v } from '../app';
import { named, OTHER_QUERY_NAMES, queryIn } from '../disagree';
import type { Customer } from '../state';
import { compare } from '../util';

const SORTS = ['email', 'totalSpent', 'orderCount', 'createdAt'] as const;

export function register(app: SandboxApp): void {
	app.route('GET', core('/customers'), (ctx) => {
		const q = queryIn(ctx, OTHER_QUERY_NAMES.customers);
		const name = (own: string) => named(ctx, OTHER_QUERY_NAMES.customers, own);
		const sort = v.oneOf(single(q.sort, name('sort')), name('sort'), SORTS) ?? 'createdAt';
		const direction = v.oneOf(single(q.direction, name('direction')), name('direction'), ['asc', 'desc'] as const) ?? 'desc';
		const found = textFilter(ctx.state.customers, single(q.search, name('search')), name('search'), (c) => [c.email, c.firstName, c.lastName, `${c.firstName} ${c.lastName}`]);
		const sign = direction === 'asc' ? 1 : -1;
		found.sort((a, b) => sign * compare(a[sort], b[sort]) || (a.id < b.id ? -1 : 1));
		return ok(paginate(found, q, customerView));
	});
}


export const customerView = (c: Customer) => ({
	id: c.id,
	email: c.email,
	firstName: c.firstName,
	lastName: c.lastName,
	guest: c.guest,
	totalSpent: c.totalSpent,
	orderCount: c.orderCount,
	createdAt: c.createdAt,
});
