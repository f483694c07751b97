import type { INodeProperties } from 'n8n-workflow';

import { idLocator, listFields, showFor } from '../../descriptions';
import { ID } from '../../../shared/ids';

const label = (value: string) =>
	value
		.split('_')
		.map((w) => w.charAt(0) + w.slice(1).toLowerCase())
		.join(' ');

export const subscriptionFields: INodeProperties[] = [
	idLocator(
		'subscriptionId',
		ID.subscriptionId,
		showFor('subscription', [
			'cancel',
			'change',
			'get',
			'getUpcomingInvoice',
			'getUsage',
			'pause',
			'reactivate',
			'resume',
		]),
		{ searchMethod: 'searchSubscriptions' },
	),
	{
		displayName: 'Proration Behavior',
		name: 'prorationBehavior',
		type: 'options',
		options: [
			{
				name: 'End of Period',
				value: 'END_OF_PERIOD',
				description: 'Apply the change at the next renewal; nothing is charged now',
			},
			{
				name: 'Immediately',
				value: 'IMMEDIATELY',
				description:
					'Apply now: an upgrade charges the prorated difference and resets the billing date, a downgrade applies now',
			},
			{
				name: 'Product Default',
				value: '',
				description: "Send nothing: the service follows the product's billing anchor",
			},
		],
		default: '',
		description: 'When the plan change takes effect and whether a prorated amount is charged now',
		displayOptions: showFor('subscription', ['change']),
	},
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		description: 'What to change; set at least one',
		displayOptions: showFor('subscription', ['change']),
		options: [
			{
				displayName: 'Billing Interval',
				name: 'billingInterval',
				type: 'options',
				options: [
					{ name: 'Monthly', value: 'MONTHLY' },
					{ name: 'Weekly', value: 'WEEKLY' },
					{ name: 'Yearly', value: 'YEARLY' },
				],
				default: 'MONTHLY',
				description: 'New billing interval',
			},
			{
				displayName: 'Product ID',
				name: 'productId',
				type: 'string',
				default: '',
				placeholder: 'prd_...',
				description: 'Product to switch the subscription to (starts with prd_, 12 to 48 characters)',
			},
			{
				displayName: 'Quantity',
				name: 'quantity',
				type: 'number',
				typeOptions: { minValue: 1, numberPrecision: 0 },
				default: 1,
				description: 'New quantity (seats, units), a whole number of at least 1',
			},
			{
				displayName: 'Variant ID',
				name: 'variantId',
				type: 'string',
				default: '',
				description: 'Product variant to switch the subscription to (12 to 48 characters)',
			},
		],
	},
	...listFields('subscription', 'getAll'),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		displayOptions: showFor('subscription', ['getAll']),
		options: [
			{
				displayName: 'Status',
				name: 'status',
				type: 'options',
				options: ['ACTIVE', 'CANCELLED', 'PAST_DUE', 'PAUSED', 'TRIALING'].map((s) => ({ name: label(s), value: s })),
				default: 'ACTIVE',
				description: 'Only subscriptions with this status',
			},
		],
	},
];
