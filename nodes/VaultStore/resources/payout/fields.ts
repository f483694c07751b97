import type { INodeProperties } from 'n8n-workflow';

import { listFields, showFor } from '../../descriptions';

export const payoutFields: INodeProperties[] = [
	{
		displayName: 'Amount',
		name: 'amount',
		type: 'number',
		required: true,
		typeOptions: { minValue: 0, numberPrecision: 2 },
		default: 0,
		description: 'Amount to pay out, greater than 0, in the payout currency',
		displayOptions: showFor('payout', ['create']),
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		displayOptions: showFor('payout', ['create']),
		options: [
			{
				displayName: 'Bank Account ID',
				name: 'bankAccountId',
				type: 'string',
				default: '',
				placeholder: 'bnk_...',
				description:
					'Bank account to pay out to (starts with bnk_; see Get Bank Accounts). Leave empty for the primary account.',
			},
			{
				displayName: 'Currency',
				name: 'currency',
				type: 'string',
				default: '',
				placeholder: 'USD',
				description:
					'Three-letter currency code of the payout; must be one the bank account supports. Leave empty for the store currency.',
			},
		],
	},
	...listFields('payout', 'getAll'),
	...listFields('payout', 'getBankAccounts'),
];
