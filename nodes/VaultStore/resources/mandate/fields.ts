import type { INodeProperties } from 'n8n-workflow';

import { idLocator, showFor } from '../../descriptions';
import { ID } from '../../../shared/ids';

export const mandateFields: INodeProperties[] = [
	idLocator('customerId', ID.customerId, showFor('mandate', ['create']), {
		searchMethod: 'searchCustomers',
		description: 'The customer who signs the agreement; must already exist (ID starts with cus_)',
	}),
	{
		displayName: 'Description',
		name: 'description',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'Monthly hosting fee',
		description: 'What the customer agrees to be charged for, shown on the agreement page (1 to 1000 characters)',
		displayOptions: showFor('mandate', ['create']),
	},
	{
		displayName: 'Frequency',
		name: 'frequency',
		type: 'options',
		required: true,
		options: [
			{ name: 'Ad Hoc', value: 'AD_HOC', description: 'No fixed cadence' },
			{ name: 'Monthly', value: 'MONTHLY', description: 'Every 30 days' },
			{
				name: 'One-Off',
				value: 'ONE_OFF',
				description: 'A single charge; the mandate is revoked after the first successful charge',
			},
			{ name: 'Quarterly', value: 'QUARTERLY', description: 'Every quarter' },
			{ name: 'Weekly', value: 'WEEKLY', description: 'Every 7 days' },
			{ name: 'Yearly', value: 'YEARLY', description: 'Every year' },
		],
		default: 'MONTHLY',
		description: 'How often the customer may be charged under this agreement',
		displayOptions: showFor('mandate', ['create']),
	},
];
