import type { IDataObject } from 'n8n-workflow';

import type { Operation, Params } from '../../operation';
import { ID } from '../../../shared/ids';
import { bool, idList, opt } from '../../../shared/readers';

export const MAX_CATEGORY_PRODUCTS = 100;

function categoryCreateBody(p: Params): IDataObject {
	const f = p.fields('additionalFields');
	const text = (label: string, max: number) => (v: unknown) => p.v.string(label, v, { max });
	return {
		name: p.v.string('Name', p.get('name', ''), { min: 1, max: 128 }),
		slug: p.v.string('Slug', p.get('slug', ''), { min: 2, max: 128 }),
		description: opt(f, 'description', text('Description', 5000)),
		parentId: opt(f, 'parentId', (v) => p.v.id({ label: 'Parent Category ID' }, v)),
		displayOrder: opt(f, 'displayOrder', (v) =>
			p.v.number('Display Order', v, { min: 0, max: 9999, integer: true }),
		),
		icon: opt(f, 'icon', text('Icon', 64)),
		metaTitle: opt(f, 'metaTitle', text('Meta Title', 128)),
		metaDescription: opt(f, 'metaDescription', text('Meta Description', 320)),
		showInNavigation: opt(f, 'showInNavigation', (v) => bool(p.v, 'Show In Navigation', v)),
		featured: opt(f, 'featured', (v) => bool(p.v, 'Featured', v)),
		isFavourite: opt(f, 'isFavourite', (v) => bool(p.v, 'Is Favourite', v)),
		isArchived: opt(f, 'isArchived', (v) => bool(p.v, 'Is Archived', v)),
		productIds: opt(f, 'productIds', (v) =>
			idList(p.v, 'Product IDs', v, ID.productId, MAX_CATEGORY_PRODUCTS),
		),
	};
}

export const categoryOperations: Operation[] = [
	{
		value: 'create',
		name: 'Create',
		action: 'Create a category',
		description:
			'Create a product category with a name and a URL slug; optionally a parent category, display order, SEO texts, flags and up to 100 products. Returns what the service answers (usually the new category).',
		method: 'POST',
		family: 'core',
		path: '/categories',
		body: categoryCreateBody,
	},
	{
		value: 'get',
		name: 'Get',
		action: 'Get a category',
		description: 'Get one category by its ID: name, slug, parent, display order, SEO texts and flags',
		method: 'GET',
		family: 'core',
		path: '/categories/{categoryId}',
		ids: { categoryId: ID.categoryId },
	},
];
