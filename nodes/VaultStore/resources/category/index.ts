import type { IDataObject } from 'n8n-workflow';

import { STORE_CREDENTIAL } from '../../../shared/credentials';
import { ID } from '../../../shared/ids';
import { bool, idList, opt } from '../../../shared/readers';
import { collectionField, locatorField } from '../../properties';
import type { Operation, Params, Resource } from '../../operation';

export const MAX_CATEGORY_PRODUCTS = 100;

const PARENT_ID = { ...ID.categoryId, label: 'Parent Category ID' };

/**
 * parentId is "string or null": a category ID (ctg_, 12 to 48 characters), or
 * null when Top Level is on, for a category without a parent.
 */
function parentId(p: Params, f: IDataObject): string | null | undefined {
	const id = opt(f, 'parentId', (v) => p.v.id(PARENT_ID, v));
	const topLevel = bool(p.v, 'Top Level (No Parent)', f.topLevel);
	if (topLevel !== true) return id;
	if (id !== undefined) {
		p.v.fail('"Top Level (No Parent)" and "Parent Category ID" cannot be used together: choose one');
	}
	return null;
}

function categoryCreateBody(p: Params): IDataObject {
	const f = p.fields('additionalFields');
	const text = (label: string, max: number) => (v: unknown) => p.v.string(label, v, { max });
	// The spec gives Name 1 to 128 and Slug 2 to 128 characters, not that they are required: an
	// empty one is not sent, with a warning, and the service decides.
	const named = (label: string, value: unknown, min: number): string | undefined => {
		if (value === undefined || value === null || value === '') {
			p.v.warn(`"${label}" is empty, so it is not sent`);
			return undefined;
		}
		return p.v.string(label, value, { min, max: 128 });
	};
	return {
		name: named('Name', p.get('name', ''), 1),
		slug: named('Slug', p.get('slug', ''), 2),
		description: opt(f, 'description', text('Description', 5000)),
		parentId: parentId(p, f),
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

const create: Operation = {
	value: 'create',
	name: 'Create',
	action: 'Create a category',
	description:
		'Create a product category with a name and a URL slug; optionally a parent category, display order, SEO texts, flags and up to 100 products. Returns what the service answers (usually the new category).',
	method: 'POST',
	family: 'core',
	path: '/categories',
	body: categoryCreateBody,
	sendNull: ['parentId'],
	fields: [
		{
			displayName: 'Name',
			name: 'name',
			type: 'string',
			default: '',
			placeholder: 'Fonts',
			description: 'Name of the category (1 to 128 characters). Not sent when empty (the node warns).',
		},
		{
			displayName: 'Slug',
			name: 'slug',
			type: 'string',
			default: '',
			placeholder: 'fonts',
			description: 'URL-friendly name of the category, e.g. "fonts" (2 to 128 characters). Not sent when empty (the node warns).',
		},
		collectionField('additionalFields', [
			{
				displayName: 'Description',
				name: 'description',
				type: 'string',
				typeOptions: { rows: 3 },
				default: '',
				description: 'Description of the category (max 5000 characters)',
			},
			{
				displayName: 'Display Order',
				name: 'displayOrder',
				type: 'number',
				typeOptions: { minValue: 0, maxValue: 9999 },
				default: 0,
				description: 'Sort position among categories (whole number, 0 to 9999; the service uses 0 when unset)',
			},
			{
				displayName: 'Featured',
				name: 'featured',
				type: 'boolean',
				default: false,
				description: 'Whether the category is featured (the service uses false when unset)',
			},
			{
				displayName: 'Icon',
				name: 'icon',
				type: 'string',
				default: '',
				description: 'Icon name of the category (max 64 characters)',
			},
			{
				displayName: 'Is Archived',
				name: 'isArchived',
				type: 'boolean',
				default: false,
				description: 'Whether the category is archived (the service uses false when unset)',
			},
			{
				displayName: 'Is Favourite',
				name: 'isFavourite',
				type: 'boolean',
				default: false,
				description: 'Whether the category is marked as a favourite (the service uses false when unset)',
			},
			{
				displayName: 'Meta Description',
				name: 'metaDescription',
				type: 'string',
				default: '',
				description: 'SEO description of the category page (max 320 characters)',
			},
			{
				displayName: 'Meta Title',
				name: 'metaTitle',
				type: 'string',
				default: '',
				description: 'SEO title of the category page (max 128 characters)',
			},
			{
				displayName: 'Parent Category ID',
				name: 'parentId',
				type: 'string',
				default: '',
				placeholder: 'ctg_1a2b3c4d5e6f',
				description:
					'ID of the parent category, to make this one a subcategory (starts with ctg_, 12 to 48 characters)',
			},
			{
				displayName: 'Product IDs',
				name: 'productIds',
				type: 'string',
				default: '',
				placeholder: 'prd_1a2b3c4d5e6f, prd_7g8h9i0j1k2l',
				description:
					'Products to put in the category: IDs (prd_...) separated by commas, or a JSON array (max 100)',
			},
			{
				displayName: 'Show In Navigation',
				name: 'showInNavigation',
				type: 'boolean',
				default: true,
				description: 'Whether the category is shown in the store navigation (the service uses true when unset)',
			},
			{
				displayName: 'Top Level (No Parent)',
				name: 'topLevel',
				type: 'boolean',
				default: false,
				description:
					'Whether to send the parent as null, so the category sits at the top level with no parent. Use instead of Parent Category ID; when neither is set, no parent is sent and the service decides.',
			},
		]),
	],
};

const get: Operation = {
	value: 'get',
	name: 'Get',
	action: 'Get a category',
	description: 'Get one category by its ID: name, slug, parent, display order, SEO texts and flags',
	method: 'GET',
	family: 'core',
	path: '/categories/{categoryId}',
	ids: { categoryId: ID.categoryId },
	fields: [
		locatorField('categoryId', ID.categoryId, {
			description: 'The category to get (ID starts with ctg_, 12 to 48 characters)',
		}),
	],
};

export const category: Resource = {
	value: 'category',
	name: 'Category',
	description: 'Product categories of the store',
	credential: STORE_CREDENTIAL,
	operations: [create, get],
};
