import type { INodeProperties } from 'n8n-workflow';

import { showFor } from '../../descriptions';

export const customFields: INodeProperties[] = [
	{
		displayName: 'Method',
		name: 'method',
		type: 'options',
		options: [
			{ name: 'DELETE', value: 'DELETE' },
			{ name: 'GET', value: 'GET' },
			{ name: 'PATCH', value: 'PATCH' },
			{ name: 'POST', value: 'POST' },
			{ name: 'PUT', value: 'PUT' },
		],
		default: 'GET',
		description: 'HTTP method of the call',
		displayOptions: showFor('custom', ['request']),
	},
	{
		displayName: 'Path',
		name: 'path',
		type: 'string',
		required: true,
		default: '',
		placeholder: '/v2/core/stores/{storeId}/refunds',
		description:
			"Path below the credential's Base URL, starting with /v2/. {storeId} is replaced with the credential's Store ID. Examples: /v2/core/stores/{storeId}/refunds, /v2/stores/{storeId}/analytics/subscriptions/mrr.",
		displayOptions: showFor('custom', ['request']),
	},
	{
		displayName: 'Query Parameters',
		name: 'queryParameters',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Add Parameter',
		default: {},
		description: 'Query string parameters; ones with an empty value are not sent',
		displayOptions: showFor('custom', ['request']),
		options: [
			{
				displayName: 'Parameter',
				name: 'parameters',
				values: [
					{ displayName: 'Name', name: 'name', type: 'string', default: '', description: 'Name of the query parameter' },
					{ displayName: 'Value', name: 'value', type: 'string', default: '', description: 'Value of the query parameter' },
				],
			},
		],
	},
	{
		displayName: 'Body',
		name: 'body',
		type: 'json',
		default: '{}',
		description: 'JSON body of the request (an object or an array); an empty object is not sent',
		displayOptions: { show: { resource: ['custom'], operation: ['request'], method: ['PATCH', 'POST', 'PUT'] } },
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		displayOptions: showFor('custom', ['request']),
		options: [
			{
				displayName: 'Send Idempotency-Key',
				name: 'sendIdempotencyKey',
				type: 'boolean',
				default: false,
				description:
					'Whether to send an Idempotency-Key header (honoured by refunds, payout creation and checkout pay): the Idempotency Key of the Options, or else one derived from the execution and item that stays the same on retries',
			},
		],
	},
];
