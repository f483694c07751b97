import type { INodeProperties } from 'n8n-workflow';

import { listFields, showFor } from '../../descriptions';

export const customerFields: INodeProperties[] = [
	...listFields('customer', 'getAll'),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		displayOptions: showFor('customer', ['getAll']),
		options: [
			{
				displayName: 'Search',
				name: 'search',
				type: 'string',
				default: '',
				placeholder: 'ada@example.com',
				description: 'Text to match against the email or name of the customer (max 128 characters)',
			},
			{
				displayName: 'Sort By',
				name: 'sort',
				type: 'options',
				options: [
					{ name: 'Created At', value: 'createdAt' },
					{ name: 'Email', value: 'email' },
					{ name: 'Order Count', value: 'orderCount' },
					{ name: 'Total Spent', value: 'totalSpent' },
				],
				default: 'createdAt',
				description: 'Field the customers are sorted by',
			},
			{
				displayName: 'Sort Direction',
				name: 'direction',
				type: 'options',
				options: [
					{ name: 'Ascending', value: 'asc' },
					{ name: 'Descending', value: 'desc' },
				],
				default: 'desc',
				description: 'Direction of the sort',
			},
		],
	},
];
