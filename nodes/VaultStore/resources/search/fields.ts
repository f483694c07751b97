import type { INodeProperties } from 'n8n-workflow';

import { showFor } from '../../descriptions';

export const searchFields: INodeProperties[] = [
	{
		displayName: 'Inputs',
		name: 'inputs',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'ord_..., jane@example.com, VS-10001',
		description:
			'Comma-separated IDs (orders, customers, products, subscriptions), customer emails or order numbers to resolve: 1 to 100 per item, each 1 to 256 characters, no empty entries',
		displayOptions: showFor('search', ['resolve']),
	},
];
