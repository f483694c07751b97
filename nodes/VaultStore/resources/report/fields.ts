import type { INodeProperties } from 'n8n-workflow';

import { idLocator, listFields, showFor } from '../../descriptions';
import { ID } from '../../../shared/ids';

const TYPE_OPTIONS = [
	{ name: 'Balance Ledger', value: 'BALANCE_LEDGER', description: 'Every balance movement: charges, fees and refunds' },
	{ name: 'Payment Activity', value: 'PAYMENT_ACTIVITY', description: 'Payments with method, card brand, last four and order metadata' },
	{ name: 'Payout Reconciliation', value: 'PAYOUT_RECONCILIATION', description: 'Settled payments with fees and net amounts' },
	{ name: 'Refunds and Disputes', value: 'REFUNDS_DISPUTES', description: 'Refunds and disputes of the period' },
];

const FORMAT_OPTIONS = [
	{ name: 'CSV', value: 'CSV' },
	{ name: 'JSON', value: 'JSON' },
];

export const reportFields: INodeProperties[] = [
	{
		displayName: 'Type',
		name: 'type',
		type: 'options',
		options: TYPE_OPTIONS,
		default: 'PAYMENT_ACTIVITY',
		required: true,
		description: 'Which report to generate',
		displayOptions: showFor('report', ['create']),
	},
	{
		displayName: 'From',
		name: 'from',
		type: 'dateTime',
		default: '',
		required: true,
		description: 'Start of the period (ISO 8601, e.g. 2026-01-01T00:00:00Z). Must be before "To"; the period may be at most 90 days.',
		displayOptions: showFor('report', ['create']),
	},
	{
		displayName: 'To',
		name: 'to',
		type: 'dateTime',
		default: '',
		required: true,
		description: 'End of the period (ISO 8601), at most 90 days after "From"',
		displayOptions: showFor('report', ['create']),
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		displayOptions: showFor('report', ['create']),
		options: [
			{
				displayName: 'Format',
				name: 'format',
				type: 'options',
				options: FORMAT_OPTIONS,
				default: 'CSV',
				description: 'Preferred file format (inferred field: both formats can be downloaded later)',
			},
		],
	},
	idLocator('reportId', ID.reportId, showFor('report', ['get', 'download']), {
		description: 'The report to use (12 to 48 characters), as returned by Create or Get Many',
	}),
	{
		displayName: 'Format',
		name: 'format',
		type: 'options',
		options: FORMAT_OPTIONS,
		default: 'CSV',
		required: true,
		description: 'File format to download',
		displayOptions: showFor('report', ['download']),
	},
	{
		displayName: 'Download File',
		name: 'downloadFile',
		type: 'boolean',
		default: true,
		description:
			'Whether to fetch the file and output it as binary data. When off, only the download URL (valid 5 minutes) and its expiry are returned.',
		displayOptions: showFor('report', ['download']),
	},
	{
		displayName: 'Put Output File in Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		hint: 'The name of the output binary field to put the file in',
		description: 'Name of the binary property the report file is written to',
		displayOptions: { show: { resource: ['report'], operation: ['download'], downloadFile: [true] } },
	},
	...listFields('report', 'getAll'),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		displayOptions: showFor('report', ['getAll']),
		options: [
			{
				displayName: 'Status',
				name: 'status',
				type: 'options',
				options: [
					{ name: 'Failed', value: 'FAILED' },
					{ name: 'Pending', value: 'PENDING' },
					{ name: 'Processing', value: 'PROCESSING' },
					{ name: 'Succeeded', value: 'SUCCEEDED' },
				],
				default: 'PENDING',
				description: 'Only reports with this status',
			},
			{
				displayName: 'Type',
				name: 'type',
				type: 'options',
				options: TYPE_OPTIONS,
				default: 'PAYMENT_ACTIVITY',
				description: 'Only reports of this type',
			},
		],
	},
];
