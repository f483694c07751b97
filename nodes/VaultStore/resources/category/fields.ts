import type { INodeProperties } from 'n8n-workflow';

import { idLocator, showFor } from '../../descriptions';
import { ID } from '../../../shared/ids';

export const categoryFields: INodeProperties[] = [
	{
		displayName: 'Name',
		name: 'name',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'Fonts',
		description: 'Name of the category (1 to 128 characters)',
		displayOptions: showFor('category', ['create']),
	},
	{
		displayName: 'Slug',
		name: 'slug',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'fonts',
		description: 'URL-friendly name of the category, e.g. "fonts" (2 to 128 characters)',
		displayOptions: showFor('category', ['create']),
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		displayOptions: showFor('category', ['create']),
		options: [
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
				description: 'ID of the parent category, to make this one a subcategory (12 to 48 characters)',
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
		],
	},
	idLocator('categoryId', ID.categoryId, showFor('category', ['get']), {
		description: 'The category to get (ID of 12 to 48 characters, e.g. ctg_...)',
	}),
];
