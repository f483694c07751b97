/**
 * Categories.
 *   POST /v2/core/stores/:storeId/categories              create; body name (1..128, required), slug (2..128,
 *        required: our choice), description (max 5000), parentId (an existing category), displayOrder
 *        (integer 0..9999, default 0), icon (max 64), metaTitle (max 128), metaDescription (max 320),
 *        showInNavigation (default true), featured, isFavourite, isArchived (default false),
 *        productIds (max 100, existing prd_ ids; write only). 201 with the category (spec: not shown).
 *   GET  /v2/core/stores/:storeId/categories/:categoryId  the category.
 * Unknown body fields are a 400. A slug already used by another category is a 409 (our choice).
 *
 * Seed (collection 'categories'): Licenses, Downloads, Fonts (child of Downloads), Subscriptions;
 * membership follows the product type (kept here as productIds, read by the products module).
 */
import { badRequest, conflict, core, Ctx, notFound, ok, SandboxApp, v } from '../app';
import type { Product, SandboxState } from '../state';
import { SEED_ANCHOR } from '../state';
import type { Rng } from '../util';

export interface CategoryRecord {
	id: string;
	name: string;
	slug: string;
	description: string;
	parentId: string | null;
	displayOrder: number;
	icon: string | null;
	metaTitle: string | null;
	metaDescription: string | null;
	showInNavigation: boolean;
	featured: boolean;
	isFavourite: boolean;
	isArchived: boolean;
	/** Write only: never in responses. */
	productIds: string[];
	createdAt: string;
	updatedAt: string;
}

const DAY = 86_400_000;
const WRITE_FIELDS = [
	'name', 'slug', 'description', 'parentId', 'displayOrder', 'icon', 'metaTitle', 'metaDescription',
	'showInNavigation', 'featured', 'isFavourite', 'isArchived', 'productIds',
] as const;

function seedCategories(rng: Rng, products: Product[]): CategoryRecord[] {
	const iso = (daysBefore: number) => new Date(SEED_ANCHOR - daysBefore * DAY).toISOString();
	const make = (name: string, slug: string, order: number, members: Product[], parentId: string | null = null): CategoryRecord => ({
		id: rng.id('ctg_'),
		name,
		slug,
		description: `${name} sold by the sandbox store`,
		parentId,
		displayOrder: order,
		icon: null,
		metaTitle: null,
		metaDescription: null,
		showInNavigation: true,
		featured: order === 0,
		isFavourite: false,
		isArchived: false,
		productIds: members.map((p) => p.id),
		createdAt: iso(300 - order),
		updatedAt: iso(100 - order),
	});
	const licenses = make('Licenses', 'licenses', 0, products.filter((p) => p.productType === 'LICENSE_KEY'));
	const downloads = make('Downloads', 'downloads', 1, products.filter((p) => p.productType === 'DIGITAL_DOWNLOAD'));
	const fonts = make('Fonts', 'fonts', 2, products.filter((p) => /font/i.test(p.title)), downloads.id);
	const subscriptions = make('Subscriptions', 'subscriptions', 3, products.filter((p) => p.productType === 'SUBSCRIPTION'));
	return [licenses, downloads, fonts, subscriptions];
}

/** The category collection (seeded on first use); shared with the products module. */
export function categoriesOf(app: SandboxApp): CategoryRecord[] {
	return app.collection<CategoryRecord>('categories', (rng) => seedCategories(rng, app.state.products));
}

/** The read form: every field but the write-only productIds. */
export function categoryView(c: CategoryRecord) {
	const { productIds: _write, ...view } = c;
	return view;
}

/** Validates a list of existing product ids (field name for messages). */
export function productIdList(state: SandboxState, value: unknown, field: string, max: number): string[] | undefined {
	const list = v.arr(value, field, { max });
	if (!list) return undefined;
	return list.map((entry, i) => {
		const id = v.id(entry, `${field}[${i}]`, 'prd_', { required: true }) as string;
		if (!state.products.some((p) => p.id === id)) throw badRequest(`${field}[${i}]`, 'no such product');
		return id;
	});
}

export function register(app: SandboxApp): void {
	app.route('POST', core('/categories'), (ctx) => {
		const all = categoriesOf(app);
		const b = ctx.body;
		v.onlyFields(b, WRITE_FIELDS);
		const name = v.str(b.name, 'name', { required: true, max: 128 }) as string;
		const slug = v.str(b.slug, 'slug', { required: true, min: 2, max: 128 }) as string;
		if (all.some((c) => c.slug === slug)) throw conflict('slug_taken', `slug: "${slug}" is already used by another category`);
		const parentId = v.id(b.parentId, 'parentId', 'ctg_') ?? null; // null (or absent): a top-level category
		if (parentId && !all.some((c) => c.id === parentId)) throw badRequest('parentId', 'no such category');
		const now = ctx.iso();
		const category: CategoryRecord = {
			id: ctx.app.newId('ctg_'),
			name,
			slug,
			description: v.str(b.description, 'description', { max: 5000 }) ?? '',
			parentId,
			displayOrder: v.int(b.displayOrder, 'displayOrder', { min: 0, max: 9999 }) ?? 0,
			icon: v.str(b.icon, 'icon', { max: 64 }) ?? null,
			metaTitle: v.str(b.metaTitle, 'metaTitle', { max: 128 }) ?? null,
			metaDescription: v.str(b.metaDescription, 'metaDescription', { max: 320 }) ?? null,
			showInNavigation: v.bool(b.showInNavigation, 'showInNavigation') ?? true,
			featured: v.bool(b.featured, 'featured') ?? false,
			isFavourite: v.bool(b.isFavourite, 'isFavourite') ?? false,
			isArchived: v.bool(b.isArchived, 'isArchived') ?? false,
			productIds: productIdList(ctx.state, b.productIds, 'productIds', 100) ?? [],
			createdAt: now,
			updatedAt: now,
		};
		all.push(category);
		return ok(categoryView(category), 201);
	});

	app.route('GET', core('/categories/:categoryId'), (ctx) => ok(categoryView(findCategory(ctx))));
}

function findCategory(ctx: Ctx): CategoryRecord {
	const found = categoriesOf(ctx.app).find((c) => c.id === ctx.params.categoryId);
	if (!found) throw notFound('Category');
	return found;
}
