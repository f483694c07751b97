/**
 * Usage meters of a product. The spec names meter management (list, create, fetch, update, delete on
 * a product; scopes METERS_READ, METERS_WRITE) but not its paths or bodies: all below is our choice.
 *   GET    /v2/stores/:storeId/products/:productId/meters            list; page, limit; oldest first
 *   POST   /v2/stores/:storeId/products/:productId/meters            {name, eventName (non-empty text),
 *          aggregation (non-empty text; seeded meters use SUM, the node offers SUM|COUNT|MAX|LAST, the set
 *          is not closed), unitLabel? (non-empty text), pricePerUnit? (>= 0, default 0)} -> 201
 *   GET    /v2/stores/:storeId/products/:productId/meters/:meterId   the meter
 *   PATCH  /v2/stores/:storeId/products/:productId/meters/:meterId   any of the create fields, at least one;
 *          only sent fields change (unitLabel null clears it)
 *   DELETE /v2/stores/:storeId/products/:productId/meters/:meterId   -> {id, deleted: true}
 * Reads need METERS_READ, writes METERS_WRITE; all are also served under /v2/core/stores/:storeId
 * (disagreeing: there only, disagree.ts UNPLACED_ROOTS).
 * 404 when the product (state.products) or the meter (of that product) does not exist; unknown body
 * fields are a 400.
 * Record: {id (mtr_ + 24), productId, name, eventName, aggregation, unitLabel, pricePerUnit, currency,
 * createdAt, updatedAt}. Seed (collection 'meters'): one meter per SUBSCRIPTION product.
 */
import { badRequest, both, Ctx, notFound, ok, paginate, SandboxApp, v } from '../app';
import type { Product } from '../state';
import { SEED_ANCHOR } from '../state';
import type { Rng } from '../util';

const FIELDS = ['name', 'eventName', 'aggregation', 'unitLabel', 'pricePerUnit'];

export interface Meter {
	id: string;
	productId: string;
	name: string;
	eventName: string;
	aggregation: string;
	unitLabel: string | null;
	pricePerUnit: number;
	currency: string;
	createdAt: string;
	updatedAt: string;
}

function seedMeters(rng: Rng, products: Product[]): Meter[] {
	return products
		.filter((p) => p.productType === 'SUBSCRIPTION')
		.map((p, i) => {
			const at = new Date(SEED_ANCHOR - (90 - i) * 86_400_000).toISOString();
			return {
				id: rng.id('mtr_'),
				productId: p.id,
				name: 'API calls',
				eventName: 'api_call',
				aggregation: 'SUM' as const,
				unitLabel: 'call',
				pricePerUnit: 0.002,
				currency: p.currency,
				createdAt: at,
				updatedAt: at,
			};
		});
}

export const metersOf = (app: SandboxApp) => app.collection<Meter>('meters', (rng) => seedMeters(rng, app.state.products));

const view = (m: Meter) => ({ ...m });

export function register(app: SandboxApp): void {
	metersOf(app);

	const product = (ctx: Ctx): Product => {
		const p = ctx.state.products.find((x) => x.id === ctx.params.productId);
		if (!p) throw notFound('Product');
		return p;
	};
	const find = (ctx: Ctx): Meter => {
		const p = product(ctx);
		const m = metersOf(app).find((x) => x.id === ctx.params.meterId && x.productId === p.id);
		if (!m) throw notFound('Meter');
		return m;
	};
	const read = { scope: 'METERS_READ' };
	const write = { scope: 'METERS_WRITE' };

	app.route('GET', both('/products/:productId/meters'), (ctx) => {
		const p = product(ctx);
		return ok(paginate(metersOf(app).filter((m) => m.productId === p.id), ctx.query, view));
	}, read);

	app.route('POST', both('/products/:productId/meters'), (ctx) => {
		const p = product(ctx);
		const b = ctx.body;
		v.onlyFields(b, FIELDS);
		const now = ctx.iso();
		const meter: Meter = {
			id: app.newId('mtr_'),
			productId: p.id,
			name: v.str(b.name, 'name', { required: true })!,
			eventName: v.str(b.eventName, 'eventName', { required: true })!,
			aggregation: v.str(b.aggregation, 'aggregation', { required: true })!,
			unitLabel: v.str(b.unitLabel, 'unitLabel', { min: 1 }) ?? null,
			pricePerUnit: v.num(b.pricePerUnit, 'pricePerUnit', { min: 0 }) ?? 0,
			currency: p.currency,
			createdAt: now,
			updatedAt: now,
		};
		metersOf(app).push(meter);
		return ok(view(meter), 201);
	}, write);

	app.route('GET', both('/products/:productId/meters/:meterId'), (ctx) => ok(view(find(ctx))), read);

	app.route('PATCH', both('/products/:productId/meters/:meterId'), (ctx) => {
		const m = find(ctx);
		const b = ctx.body;
		v.onlyFields(b, FIELDS);
		if (!FIELDS.some((f) => f in b)) throw badRequest('body', 'must contain at least one of ' + FIELDS.join(', '));
		m.name = v.str(b.name, 'name', { min: 1 }) ?? m.name;
		m.eventName = v.str(b.eventName, 'eventName', { min: 1 }) ?? m.eventName;
		m.aggregation = v.str(b.aggregation, 'aggregation', { min: 1 }) ?? m.aggregation;
		if ('unitLabel' in b) m.unitLabel = v.str(b.unitLabel, 'unitLabel', { min: 1 }) ?? null;
		m.pricePerUnit = v.num(b.pricePerUnit, 'pricePerUnit', { min: 0 }) ?? m.pricePerUnit;
		m.updatedAt = ctx.iso();
		return ok(view(m));
	}, write);

	app.route('DELETE', both('/products/:productId/meters/:meterId'), (ctx) => {
		const m = find(ctx);
		const list = metersOf(app);
		list.splice(list.indexOf(m), 1);
		return ok({ id: m.id, deleted: true });
	}, write);
}
