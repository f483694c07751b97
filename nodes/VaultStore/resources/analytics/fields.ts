import type { INodeProperties } from 'n8n-workflow';

import { showFor } from '../../descriptions';

export const analyticsFields: INodeProperties[] = [
	{
		displayName: 'Range',
		name: 'range',
		type: 'options',
		options: [
			{ name: 'All Time', value: 'all' },
			{ name: 'Custom', value: 'custom', description: 'The period between From and To' },
			{ name: 'Last 30 Days', value: '30d' },
			{ name: 'Last 7 Days', value: '7d' },
			{ name: 'Last 90 Days', value: '90d' },
		],
		default: '30d',
		description: 'Period the overview covers (sent as query parameter "range")',
		displayOptions: showFor('analytics', ['getOverview']),
	},
	{
		displayName: 'From',
		name: 'from',
		type: 'dateTime',
		required: true,
		default: '',
		description: 'Start of the custom period (ISO 8601 date and time, sent as query parameter "from")',
		displayOptions: { show: { resource: ['analytics'], operation: ['getOverview'], range: ['custom'] } },
	},
	{
		displayName: 'To',
		name: 'to',
		type: 'dateTime',
		required: true,
		default: '',
		description: 'End of the custom period, after From (ISO 8601 date and time, sent as query parameter "to")',
		displayOptions: { show: { resource: ['analytics'], operation: ['getOverview'], range: ['custom'] } },
	},
];
