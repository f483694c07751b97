/**
 * License list. The spec lists licenses among the store resources but shows no list route: the path,
 * paging and the filter names are our choice.
 *   GET /v2/core/stores/:storeId/licenses   page, limit, status (any text: the spec shows AVAILABLE and
 *       CLAIMED, not the full set), productId (prd_);
 *       newest first (createdAt, then id). Items have the License fields of the spec.
 * The licenses are those licenses.ts serves: claimed keys of seeded orders plus the AVAILABLE pool.
 * Also served under /v2/stores/:storeId. Disagreeing (disagree.ts): the filters are state and product_id,
 * and the list answers under /v2/stores only (UNPLACED_ROOTS).
 */
import { both, ok, paginate, SandboxApp, single, v } from '../app';
import { allLicenses, licenseView } from './licenses';
import { named, OTHER_QUERY_NAMES, queryIn } from '../disagree';

export function register(app: SandboxApp): void {
	app.route('GET', both('/licenses'), (ctx) => {
		const q = queryIn(ctx, OTHER_QUERY_NAMES.licenses);
		const name = (own: string) => named(ctx, OTHER_QUERY_NAMES.licenses, own);
		const status = v.str(single(q.status, name('status')), name('status'));
		const productId = v.id(single(q.productId, name('productId')), name('productId'), 'prd_');
		const found = allLicenses(app, ctx.state)
			.filter((l) => (!status || l.status === status) && (!productId || l.productId === productId))
			.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
		return ok(paginate(found, ctx.query, licenseView));
	});
}
