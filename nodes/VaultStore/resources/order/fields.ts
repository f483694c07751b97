import type { INodeProperties } from 'n8n-workflow';

import { idLocator, listFields, showFor } from '../../descriptions';
import { ID } from '../ids';
import { ORDER_STATUSES } from './operations';

export const orderFields: INodeProperties[] = [
	idLocator('orderId', ID.orderId, showFor('order', ['get', 'refund']), { searchMethod: 'searchOrders' }),
	...listFields('order', 'getAll'),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		displayOptions: showFor('order', ['getAll']),
		options: [
			{
				displayName: 'Search',
				name: 'search',
				type: 'string',
				default: '',
				description: 'Text to match against order number or customer email (max 128 characters)',
			},
			{
				displayName: 'Sort Direction',
				name: 'sortDirection',
				type: 'options',
				options: [
					{ name: 'Ascending (Oldest First)', value: 'asc' },
					{ name: 'Descending (Newest First)', value: 'desc' },
				],
				default: 'desc',
				description: 'Order of creation time',
			},
			{
				displayName: 'Status',
				name: 'status',
				type: 'options',
				options: ORDER_STATUSES.map((s) => ({ name: s.charAt(0) + s.slice(1).toLowerCase(), value: s })),
				default: 'PENDING',
				description: 'Only orders with this status',
			},
		],
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		displayOptions: showFor('order', ['refund']),
		options: [
			{
				displayName: 'Amount',
				name: 'amount',
				type: 'number',
				typeOptions: { minValue: 0, numberPrecision: 2 },
				default: 0,
				description: 'Amount to refund, in the order currency. Leave unset for a full refund (inferred: the spec does not show the refund body).',
			},
			{
				displayName: 'Reason',
				name: 'reason',
				type: 'string',
				default: '',
				description: 'Why the order is refunded (inferred field)',
			},
		],
	},
];
