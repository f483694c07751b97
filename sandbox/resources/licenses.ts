/**
 * Licenses.
 *   POST /v2/core/stores/:storeId/licenses/verify  {key (1..512, required), productId? (prd_, 12..48)}
 *        -> {valid, status, productId, customerId, expiresAt}. An unknown key is 200 with valid false
 *        and null fields (our choice). valid = the key is CLAIMED, not expired, and of productId when given.
 *        expiresAt follows the product's licenseDuration from claimedAt (LIFETIME: null).
 *   GET  /v2/core/stores/:storeId/licenses/:licenseId  the license.
 *
 * Licenses are the CLAIMED ones of seeded orders (state.licenses) plus the pool of AVAILABLE keys
 * (collection 'licensePool', owned by products.ts: 3 per LICENSE_KEY product, plus keys added by PATCH
 * product licenseKeys).
 */
import { core, notFound, ok, SandboxApp, v } from '../app';
import type { License, SandboxState } from '../state';
import type { PoolLicense } from './products';
import { catalogOf, licensePool } from './products';

export type AnyLicense = License | PoolLicense;

const DAY = 86_400_000;
const DURATION_DAYS: Record<string, number | null> = { THIRTY_DAYS: 30, NINETY_DAYS: 90, ONE_YEAR: 365, LIFETIME: null };

export function allLicenses(app: SandboxApp, state: SandboxState): AnyLicense[] {
	return [...state.licenses, ...licensePool(app)];
}

/** claimedAt plus the product's licenseDuration; null for LIFETIME or unclaimed keys. */
export function expiresAt(app: SandboxApp, l: AnyLicense): string | null {
	if (!l.claimedAt) return null;
	const duration = catalogOf(app).find((p) => p.id === l.productId)?.licenseDuration ?? 'LIFETIME';
	const days = DURATION_DAYS[duration];
	return days === null || days === undefined ? null : new Date(Date.parse(l.claimedAt) + days * DAY).toISOString();
}

/** A license as the API shows it. */
export const licenseView = (l: AnyLicense) => ({
	id: l.id,
	key: l.key,
	status: l.status,
	productId: l.productId,
	variantId: l.variantId,
	orderId: l.orderId,
	customerId: l.customerId,
	claimedAt: l.claimedAt,
	createdAt: l.createdAt,
});

export function register(app: SandboxApp): void {
	app.route('POST', core('/licenses/verify'), (ctx) => {
		v.onlyFields(ctx.body, ['key', 'productId']);
		const key = v.str(ctx.body.key, 'key', { required: true, max: 512 }) as string;
		const productId = v.id(ctx.body.productId, 'productId', 'prd_');
		const found = allLicenses(app, ctx.state).find((l) => l.key === key);
		if (!found) return ok({ valid: false, status: null, productId: null, customerId: null, expiresAt: null });
		const expires = expiresAt(app, found);
		const valid =
			found.status === 'CLAIMED' &&
			(expires === null || Date.parse(expires) > ctx.now()) &&
			(productId === undefined || productId === found.productId);
		return ok({ valid, status: found.status, productId: found.productId, customerId: found.customerId, expiresAt: expires });
	});

	app.route('GET', core('/licenses/:licenseId'), (ctx) => {
		const found = allLicenses(app, ctx.state).find((l) => l.id === ctx.params.licenseId);
		if (!found) throw notFound('License');
		return ok(licenseView(found));
	});
}
