import type { IDataObject } from 'n8n-workflow';

import { categoriesOf } from '../sandbox/resources/categories';
import type { CatalogProduct } from '../sandbox/resources/products';
import { catalogOf, licensePool } from '../sandbox/resources/products';
import { runAsAgentTool } from './support/agent-routes';
import { items, jsonOf, useSandbox } from './support/fixtures';

const f = useSandbox({ orders: 40 });

const byId = (value: string) => ({ __rl: true, mode: 'id', value });
const byExpression = (value: string) => ({ __rl: true, mode: 'id', value: `={{ ${JSON.stringify(value)} }}` });
const product = (title: string): CatalogProduct => catalogOf(f.sb.app).find((p) => p.title === title)!;
const core = (sub: string) => `/v2/core/stores/${f.sb.store.storeId}${sub}`;

describe('product', () => {
	test('get: GET /products/{id}, the product with variants, options, categories and pool count', async () => {
		const pro = product('Pro License');
		const r = await f.run({ resource: 'product', operation: 'get', productId: byId(pro.id) });
		expect(r.error()).toBeUndefined();
		const [req] = f.requests();
		expect(req.method).toBe('GET');
		expect(req.path).toBe(core(`/products/${pro.id}`));
		expect(req.query).toEqual({});
		const [out] = jsonOf(r);
		expect(out.id).toBe(pro.id);
		expect(out.title).toBe('Pro License');
		expect(out.variants).toHaveLength(2);
		expect((out.options as IDataObject[])[0]).toMatchObject({ name: 'Seats', values: ['1', '5'] });
		expect((out.categories as IDataObject[]).map((c) => c.slug)).toEqual(['licenses']);
		expect(out.availableLicenses).toBe(3);
		// The sandbox sends the product's webhookSecret (seeded); the node leaves it out.
		expect(f.requests()[0].status).toBe(200);
		expect(pro.webhookSecret).toEqual(expect.any(String));
		expect(out).not.toHaveProperty('webhookSecret');
		expect(JSON.stringify(out)).not.toContain(pro.webhookSecret!);
	});

	test.each([
		['a store Custom API Call', 'workflow'],
		['a store Custom API Call made by an AI agent', 'tool call'],
		['a store Custom API Call made by an AI agent', 'engine request'],
	] as const)('%s (%s) to the product route leaves the webhook secret out too (declared once on the product rows)', async (_name, route) => {
		const pro = product('Pro License');
		(pro as CatalogProduct & { webhookSecret?: string }).webhookSecret = 'whsec_product_hook_secret_1234567890';
		const params = { resource: 'custom', operation: 'request', api: 'store', method: 'GET', path: `/v2/core/stores/{storeId}/products/${pro.id}`, options: { allowAgentWrites: true } };
		// What the workflow's item holds, or what the agent reads (the tool's answer as text).
		const text = route === 'workflow' ? JSON.stringify(jsonOf(await f.run(params))) : (await runAsAgentTool(route, params, {}, f.credentials)).text;
		expect(text).toContain(pro.id);
		expect(text).toContain('Pro License');
		expect(text).not.toContain('webhookSecret');
		expect(text).not.toContain('whsec_product_hook_secret');
	});

	test('update: PATCH sends exactly the added fields, converted and validated; secret never echoed', async () => {
		const starter = product('Starter License');
		const fonts = categoriesOf(f.sb.app).find((c) => c.slug === 'fonts')!;
		const secret = 'whk-secret-value-123456';
		const poolBefore = licensePool(f.sb.app).filter((l) => l.productId === starter.id).length;
		const r = await f.run({
			resource: 'product',
			operation: 'update',
			productId: byId(starter.id),
			updateFields: {
				title: 'Starter License 2026',
				subtitle: '',
				price: 35,
				compareAtPrice: 49,
				images: 'https://cdn.example.com/a.png, https://cdn.example.com/b.png',
				inStock: false,
				status: 'DRAFT',
				fulfillmentMode: 'LICENSE_WEBHOOK',
				webhookUrl: 'https://keys.example.com/issue',
				webhookSecret: secret,
				maxPerCustomer: 2,
				availableFrom: '2026-03-01T00:00:00Z',
				availableUntil: '2026-12-31T23:59:59Z',
				licenseDuration: 'NINETY_DAYS',
				trialDays: 0,
				licenseKeys: 'NEW1-AAAA-BBBB-CCCC\nNEW1-DDDD-EEEE-FFFF',
				categoryIds: `["${fonts.id}"]`,
			},
		});
		expect(r.error()).toBeUndefined();
		const reqs = f.requests();
		expect(reqs).toHaveLength(1);
		expect(reqs[0].method).toBe('PATCH');
		expect(reqs[0].path).toBe(core(`/products/${starter.id}`));
		expect(reqs[0].body).toEqual({
			title: 'Starter License 2026',
			price: 35,
			compareAtPrice: 49,
			images: ['https://cdn.example.com/a.png', 'https://cdn.example.com/b.png'],
			inStock: false,
			status: 'DRAFT',
			fulfillmentMode: 'LICENSE_WEBHOOK',
			webhookUrl: 'https://keys.example.com/issue',
			webhookSecret: secret,
			maxPerCustomer: 2,
			availableFrom: '2026-03-01T00:00:00.000Z',
			availableUntil: '2026-12-31T23:59:59.000Z',
			licenseDuration: 'NINETY_DAYS',
			trialDays: 0,
			licenseKeys: ['NEW1-AAAA-BBBB-CCCC', 'NEW1-DDDD-EEEE-FFFF'],
			categoryIds: [fonts.id],
		});
		const [out] = jsonOf(r);
		expect(out).toMatchObject({ id: starter.id, title: 'Starter License 2026', price: 35, status: 'DRAFT', inStock: false });
		expect(out.categories).toEqual([{ id: fonts.id, name: 'Fonts', slug: 'fonts' }]);
		expect(out.availableLicenses).toBe(poolBefore + 2);
		expect(JSON.stringify(out)).not.toContain(secret);
		expect(JSON.stringify(out)).not.toContain('NEW1-AAAA');
		expect(product('Starter License 2026').webhookSecret).toBe(secret);
	});

	test('update: variants (JSON) and options (rows) are sent in the API shape', async () => {
		const fontBundle = product('Font Bundle');
		const keep = fontBundle.variants[0];
		const r = await f.run({
			resource: 'product',
			operation: 'update',
			productId: byId(fontBundle.id),
			updateFields: {
				variants: JSON.stringify([
					{ id: keep.id, price: 50 },
					{ title: 'App', price: 80, inStock: true, position: 2, options: { License: 'App' } },
				]),
				options: { option: [{ name: 'License', values: 'Desktop, Web, App', position: 0 }] },
			},
		});
		expect(r.error()).toBeUndefined();
		expect(f.requests()[0].body).toEqual({
			variants: [
				{ id: keep.id, price: 50 },
				{ title: 'App', price: 80, inStock: true, position: 2, options: { License: 'App' } },
			],
			options: [{ name: 'License', values: ['Desktop', 'Web', 'App'], position: 0 }],
		});
		const [out] = jsonOf(r);
		const variants = out.variants as IDataObject[];
		expect(variants).toHaveLength(2);
		expect(variants[0]).toMatchObject({ id: keep.id, title: keep.title, price: 50 });
		expect(variants[1]).toMatchObject({ title: 'App', price: 80 });
		expect(String(variants[1].id)).toMatch(/^var_/);
		expect((out.options as IDataObject[])[0].values).toEqual(['Desktop', 'Web', 'App']);
	});

	const productId = () => product('Icon Pack').id;
	test.each<[string, IDataObject, RegExp]>([
		['title too long', { title: 'x'.repeat(257) }, /"Title" must be 1 to 256 characters long \(got 257\)/],
		['subtitle too long', { subtitle: 'x'.repeat(513) }, /"Subtitle" must be at most 512 characters long/],
		['description too long', { description: 'x'.repeat(10001) }, /"Description" must be at most 10000 characters/],
		['negative price', { price: -1 }, /"Price" must be at least 0/],
		['negative minimum price', { minimumPrice: -0.5 }, /"Minimum Price" must be at least 0/],
		['11 images', { images: Array.from({ length: 11 }, (_, i) => `https://x.example/${i}.png`).join(',') }, /"Images" must have at most 10 entries \(got 11\)/],
		['message too long', { message: 'x'.repeat(1001) }, /"Message" must be at most 1000 characters/],
		['max per customer 0', { maxPerCustomer: 0 }, /"Max Per Customer" must be at least 1/],
		['max activations 1.5', { maxActivations: 1.5 }, /"Max Activations" must be a whole number/],
		['low stock -1', { lowStockThreshold: -1 }, /"Low Stock Threshold" must be at least 0/],
		['trial days -3', { trialDays: -3 }, /"Trial Days" must be at least 0/],
		['bad product type', { productType: 'BUNDLE' }, /"Product Type" must be one of SUBSCRIPTION, DIGITAL_DOWNLOAD, LICENSE_KEY/],
		['redirect URL too long', { redirectUrl: `https://x.example/${'a'.repeat(2040)}` }, /"Redirect URL" must be 1 to 2048 characters/],
		['custom prefix too long', { customPrefix: 'x'.repeat(33) }, /"Custom Prefix" must be at most 32 characters/],
		['not a date', { availableFrom: 'next tuesday' }, /"Available From" must be a date and time/],
		['variants not JSON', { variants: '[{"title":' }, /"Variants" must be valid JSON/],
		['21 variants', { variants: JSON.stringify(Array.from({ length: 21 }, (_, i) => ({ title: `V${i}` }))) }, /"Variants" must have at most 20 entries \(got 21\)/],
		['variant quantity 1.5', { variants: '[{"title":"A","quantity":1.5}]' }, /"Variants" entry 1: "quantity" must be a whole number/],
		['variant inStock as text', { variants: '[{"title":"A","inStock":"yes"}]' }, /"Variants" entry 1: "inStock" must be true or false/],
		['21 options', { options: { option: Array.from({ length: 21 }, (_, i) => ({ name: `O${i}`, values: 'a', position: i })) } }, /"Options" must have at most 20 entries/],
		['category id too short', { categoryIds: 'ctg_1' }, /"Category IDs entry 1" must start with "ctg_" and be 12 to 48 characters long/],
		['category id without ctg_', { categoryIds: 'cat_abcdefghijkl' }, /"Category IDs entry 1" must start with "ctg_"/],
		// Removed (not rules of the spec): a license key over 512 characters, a variant without id or title.
		['nothing to update', {}, /Add at least one field to "Update Fields"/],
	])('update refuses %s before any request', async (_name, updateFields, message) => {
		const r = await f.run({ resource: 'product', operation: 'update', productId: byId(productId()), updateFields });
		expect(r.error()?.message).toMatch(message);
		expect(f.requests()).toHaveLength(0);
	});

	test('update: a variant price below 0 or not a number, and a variant title that is not text, are sent with warnings (the spec gives them no type or sign)', async () => {
		const variants = [{ title: 'A', price: -2 }, { title: 7, compareAtPrice: '9.99' }];
		const parameters = { resource: 'product', operation: 'update', productId: byId(productId()), updateFields: { variants: JSON.stringify(variants) } };
		const r = await f.run(parameters, undefined, { continueOnFail: true });
		expect(f.requests()).toHaveLength(1);
		expect(f.requests()[0].body).toEqual({ variants });
		expect(r.hints().map((h) => h.message)).toEqual([
			expect.stringMatching(/"Variants" entry 1: "price" is below 0/),
			expect.stringMatching(/"Variants" entry 2: "title" is not text/),
			expect.stringMatching(/"Variants" entry 2: "compareAtPrice" is not a number/),
		]);
		const quiet = await f.run({ ...parameters, updateFields: { ...parameters.updateFields }, options: { skipLocalChecks: true } }, undefined, { continueOnFail: true });
		expect(quiet.hints()).toEqual([]);
		expect(f.requests()).toHaveLength(1);
	});

	test('update: long image URLs, long license keys and a variant without id or title are sent (the spec gives no such limits)', async () => {
		const icons = product('Icon Pack');
		const images = [`https://cdn.example.com/${'i'.repeat(3000)}.png`];
		const key = `LONG-${'K'.repeat(600)}`;
		const poolBefore = licensePool(f.sb.app).length;
		const r = await f.run({
			resource: 'product',
			operation: 'update',
			productId: byId(icons.id),
			updateFields: {
				images: JSON.stringify(images),
				licenseKeys: key,
				variants: JSON.stringify([{ price: 3, images: [`https://cdn.example.com/${'v'.repeat(2100)}.png`] }]),
			},
		});
		expect(r.error()).toBeUndefined();
		expect(f.requests()[0].body).toEqual({
			images,
			licenseKeys: [key],
			variants: [{ price: 3, images: [`https://cdn.example.com/${'v'.repeat(2100)}.png`] }],
		});
		const [out] = jsonOf(r);
		expect(out.images).toEqual(images);
		expect((out.variants as IDataObject[]).map((v) => [v.title, v.price])).toEqual([['', 3]]);
		expect(licensePool(f.sb.app).length).toBe(poolBefore + 1);
		expect(licensePool(f.sb.app).some((l) => l.key === key && l.productId === icons.id)).toBe(true);
	});

	test('update: a too long webhook secret is refused without echoing it', async () => {
		const secret = 'S3cr3t'.repeat(43);
		const r = await f.run({ resource: 'product', operation: 'update', productId: byId(productId()), updateFields: { webhookSecret: secret } });
		const error = r.error();
		expect(error?.message).toMatch(/"Webhook Secret" must be 1 to 256 characters long \(got 258\)/);
		expect(JSON.stringify({ m: error?.message, d: error?.description })).not.toContain('S3cr3tS3cr3t');
		expect(f.requests()).toHaveLength(0);
	});

	test('get: a product id without prd_ fails before any request', async () => {
		const r = await f.run({ resource: 'product', operation: 'get', productId: byExpression('ord_abcdefghijkl') });
		expect(r.error()?.message).toMatch(/"Product ID" must start with "prd_" and be 12 to 48 characters/);
		expect(f.requests()).toHaveLength(0);
	});
});

describe('category', () => {
	test('create: POST /categories with name, slug and the added fields; get reads it back', async () => {
		const parent = categoriesOf(f.sb.app).find((c) => c.slug === 'downloads')!;
		const icons = product('Icon Pack');
		const r = await f.run({
			resource: 'category',
			operation: 'create',
			name: 'Icons',
			slug: 'icons',
			additionalFields: {
				description: 'Icon packs',
				parentId: parent.id,
				displayOrder: 7,
				metaTitle: 'Icon packs',
				showInNavigation: false,
				featured: true,
				productIds: icons.id,
			},
		});
		expect(r.error()).toBeUndefined();
		const [req] = f.requests();
		expect(req.method).toBe('POST');
		expect(req.path).toBe(core('/categories'));
		expect(req.body).toEqual({
			name: 'Icons',
			slug: 'icons',
			description: 'Icon packs',
			parentId: parent.id,
			displayOrder: 7,
			metaTitle: 'Icon packs',
			showInNavigation: false,
			featured: true,
			productIds: [icons.id],
		});
		const [created] = jsonOf(r);
		expect(created).toMatchObject({ name: 'Icons', slug: 'icons', parentId: parent.id, displayOrder: 7, isArchived: false, isFavourite: false, icon: null });
		expect(created).not.toHaveProperty('productIds');
		expect(categoriesOf(f.sb.app).find((c) => c.id === created.id)?.productIds).toEqual([icons.id]);

		const got = await f.run(
			{ resource: 'category', operation: 'get', categoryId: { __rl: true, mode: 'id', value: '={{ $json.id }}' } },
			items({ id: String(created.id) }),
		);
		expect(got.error()).toBeUndefined();
		expect(f.requests().map((q) => [q.method, q.path])).toEqual([['GET', core(`/categories/${String(created.id)}`)]]);
		expect(jsonOf(got)[0]).toEqual(created);
	});

	test('create: only name and slug are sent when nothing else is added', async () => {
		const r = await f.run({ resource: 'category', operation: 'create', name: 'Bundles', slug: 'bundles', additionalFields: { icon: '' } });
		expect(r.error()).toBeUndefined();
		expect(f.requests()[0].body).toEqual({ name: 'Bundles', slug: 'bundles' });
		expect(jsonOf(r)[0]).toMatchObject({ showInNavigation: true, featured: false, displayOrder: 0 });
	});

	test.each<[string, IDataObject, RegExp]>([
		['long name', { name: 'n'.repeat(129), slug: 'ok-slug' }, /"Name" must be 1 to 128 characters long \(got 129\)/],
		['one-letter slug', { name: 'A', slug: 'a' }, /"Slug" must be 2 to 128 characters long \(got 1\)/],
		['display order 10000', { name: 'A', slug: 'aa', additionalFields: { displayOrder: 10000 } }, /"Display Order" must be at most 9999/],
		['long icon', { name: 'A', slug: 'aa', additionalFields: { icon: 'i'.repeat(65) } }, /"Icon" must be at most 64 characters/],
		['long meta description', { name: 'A', slug: 'aa', additionalFields: { metaDescription: 'm'.repeat(321) } }, /"Meta Description" must be at most 320 characters/],
		['long description', { name: 'A', slug: 'aa', additionalFields: { description: 'd'.repeat(5001) } }, /"Description" must be at most 5000 characters/],
		['bad parent id', { name: 'A', slug: 'aa', additionalFields: { parentId: 'ctg_short' } }, /"Parent Category ID" must start with "ctg_" and be 12 to 48 characters/],
		['parent id without ctg_', { name: 'A', slug: 'aa', additionalFields: { parentId: 'prd_abcdefghijkl' } }, /"Parent Category ID" must start with "ctg_"/],
		['top level together with a parent id', { name: 'A', slug: 'aa', additionalFields: { parentId: 'ctg_abcdefghijkl', topLevel: true } }, /"Top Level \(No Parent\)" and "Parent Category ID" cannot be used together/],
		['101 products', { name: 'A', slug: 'aa', additionalFields: { productIds: JSON.stringify(Array.from({ length: 101 }, (_, i) => `prd_${String(i).padStart(12, '0')}`)) } }, /"Product IDs" must have at most 100 entries \(got 101\)/],
		['product id without prd_', { name: 'A', slug: 'aa', additionalFields: { productIds: 'ord_abcdefghijkl' } }, /"Product IDs entry 1" must start with "prd_"/],
	])('create refuses %s before any request', async (_name, params, message) => {
		const r = await f.run({ resource: 'category', operation: 'create', ...params });
		expect(r.error()?.message).toMatch(message);
		expect(f.requests()).toHaveLength(0);
	});

	test.each([
		['Name', { name: '={{ "" }}', slug: 'no-name' }, { slug: 'no-name' }],
		['Slug', { name: 'No Slug', slug: '' }, { name: 'No Slug' }],
	])('create: an empty %s (the spec gives its length, not that it is required) is not sent, with a warning', async (label, params, body) => {
		const parameters = { resource: 'category', operation: 'create', ...params };
		const r = await f.run(parameters, undefined, { continueOnFail: true });
		expect(f.requests()).toHaveLength(1);
		expect(f.requests()[0].body).toEqual(body);
		expect(r.hints()).toEqual([expect.objectContaining({ type: 'warning', message: expect.stringMatching(new RegExp(`"${label}" is empty, so it is not sent`)) })]);
		const quiet = await f.run({ ...parameters, options: { skipLocalChecks: true } }, undefined, { continueOnFail: true });
		expect(quiet.hints()).toEqual([]);
	});

	test('create: Top Level sends parentId as JSON null; the category sits at the top level', async () => {
		const r = await f.run({ resource: 'category', operation: 'create', name: 'Top', slug: 'top-level', additionalFields: { topLevel: true } });
		expect(r.error()).toBeUndefined();
		const [req] = f.requests();
		expect(req.body).toEqual({ name: 'Top', slug: 'top-level', parentId: null });
		const [created] = jsonOf(r);
		expect(created).toMatchObject({ slug: 'top-level', parentId: null });
		expect(categoriesOf(f.sb.app).find((c) => c.id === created.id)?.parentId).toBeNull();
	});

	test('create: Top Level off sends no parent', async () => {
		const r = await f.run({ resource: 'category', operation: 'create', name: 'Plain', slug: 'plain', additionalFields: { topLevel: false } });
		expect(r.error()).toBeUndefined();
		expect(f.requests()[0].body).toEqual({ name: 'Plain', slug: 'plain' });
	});

	test('get: a category id without ctg_ fails before any request', async () => {
		const r = await f.run({ resource: 'category', operation: 'get', categoryId: byExpression('prd_abcdefghijkl') });
		expect(r.error()?.message).toMatch(/"Category ID" must start with "ctg_" and be 12 to 48 characters/);
		expect(f.requests()).toHaveLength(0);
	});

	test('create: the service refusing a duplicate slug comes back readable', async () => {
		const r = await f.run({ resource: 'category', operation: 'create', name: 'Fonts again', slug: 'fonts' });
		const error = r.error();
		expect(error?.message).toMatch(/HTTP 409/);
		expect(error?.description).toMatch(/already used/);
		expect(f.requests()).toHaveLength(1);
	});
});

describe('customer', () => {
	test('getAll: filters go out as search, sort and direction; results come back sorted', async () => {
		const r = await f.run({
			resource: 'customer',
			operation: 'getAll',
			returnAll: false,
			limit: 5,
			filters: { sort: 'totalSpent', direction: 'desc' },
		});
		expect(r.error()).toBeUndefined();
		const reqs = f.requests();
		expect(reqs).toHaveLength(1);
		expect(reqs[0].method).toBe('GET');
		expect(reqs[0].path).toBe(core('/customers'));
		expect(reqs[0].query).toEqual({ page: '1', limit: '5', sort: 'totalSpent', direction: 'desc' });
		const out = jsonOf(r);
		expect(out).toHaveLength(5);
		const spent = out.map((c) => Number(c.totalSpent));
		expect(spent).toEqual([...spent].sort((a, b) => b - a));
		const top = Math.max(...f.sb.state.customers.map((c) => c.totalSpent));
		expect(spent[0]).toBe(top);
	});

	test('getAll: Return All with a search text', async () => {
		const target = f.sb.state.customers[3];
		const r = await f.run({ resource: 'customer', operation: 'getAll', returnAll: true, filters: { search: target.email } });
		expect(r.error()).toBeUndefined();
		expect(f.requests()[0].query).toEqual({ page: '1', limit: '100', search: target.email });
		expect(jsonOf(r)).toEqual([
			{
				id: target.id,
				email: target.email,
				firstName: target.firstName,
				lastName: target.lastName,
				guest: target.guest,
				totalSpent: target.totalSpent,
				orderCount: target.orderCount,
				createdAt: target.createdAt,
			},
		]);
	});

	test('getAll: Return All walks every customer', async () => {
		const r = await f.run({ resource: 'customer', operation: 'getAll', returnAll: true, filters: { sort: 'email', direction: 'asc' } });
		const emails = jsonOf(r).map((c) => String(c.email));
		expect(emails).toHaveLength(f.sb.state.customers.length);
		expect(emails).toEqual([...emails].sort());
	});

	test('getAll: a search text over 128 characters fails before any request', async () => {
		const r = await f.run({ resource: 'customer', operation: 'getAll', returnAll: true, filters: { search: 's'.repeat(129) } });
		expect(r.error()?.message).toMatch(/"Search" must be at most 128 characters long \(got 129\)/);
		expect(f.requests()).toHaveLength(0);
	});
});
