import type { INodeProperties } from 'n8n-workflow';

import { idLocator, showFor } from '../../descriptions';
import { ID } from '../../../shared/ids';

const TYPE_OPTIONS = [
	{ name: 'Bank Account', value: 'bank_account' },
	{ name: 'Card', value: 'card' },
	{ name: 'Custom', value: 'custom', description: 'Any JSON object up to 16 KiB' },
	{ name: 'PII', value: 'pii', description: 'A personal value, e.g. a national ID or phone number' },
];

function forType(type: string): INodeProperties['displayOptions'] {
	return { show: { resource: ['token'], operation: ['create'], tokenType: [type] } };
}

/** Key/value pairs, read as `{entries: [{key, value}]}`. */
function keyValues(displayName: string, name: string, description: string): INodeProperties {
	return {
		displayName,
		name,
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Add Key',
		default: {},
		description,
		options: [
			{
				displayName: 'Entry',
				name: 'entries',
				values: [
					{ displayName: 'Key', name: 'key', type: 'string', default: '' },
					{ displayName: 'Value', name: 'value', type: 'string', default: '' },
				],
			},
		],
	};
}

const expiresAt: INodeProperties = {
	displayName: 'Expires At',
	name: 'expiresAt',
	type: 'dateTime',
	default: '',
	description: 'When the vault deletes the token and its data; must be in the future. Leave unset to keep the token until it is deleted.',
};

export const tokenFields: INodeProperties[] = [
	idLocator('tokenId', ID.tokenId, showFor('token', ['delete', 'get', 'reveal', 'update'])),

	// create
	{
		displayName: 'Token Type',
		name: 'tokenType',
		type: 'options',
		options: TYPE_OPTIONS,
		default: 'card',
		required: true,
		description: 'What kind of data the token stands for. Type and data cannot be changed later.',
		displayOptions: showFor('token', ['create']),
	},
	{
		displayName: 'Card Number',
		name: 'cardNumber',
		type: 'string',
		typeOptions: { password: true },
		default: '',
		required: true,
		description: '12 to 19 digits, spaces and dashes allowed; checked with the Luhn algorithm before sending',
		displayOptions: forType('card'),
	},
	{
		displayName: 'Expiry Month',
		name: 'expMonth',
		type: 'string',
		typeOptions: { password: true },
		default: '',
		required: true,
		placeholder: 'MM',
		description: 'Month of the card expiry, 1 to 12',
		displayOptions: forType('card'),
	},
	{
		displayName: 'Expiry Year',
		name: 'expYear',
		type: 'string',
		typeOptions: { password: true },
		default: '',
		required: true,
		placeholder: 'YYYY',
		description: 'Four-digit year of the card expiry, not in the past',
		displayOptions: forType('card'),
	},
	{
		displayName: 'CVC',
		name: 'cvc',
		type: 'string',
		typeOptions: { password: true },
		default: '',
		description:
			'Optional, 3 or 4 digits. The vault keeps it only for one proxy use or one hour, whichever comes first; it is never returned, not even by Reveal.',
		displayOptions: forType('card'),
	},
	{
		displayName: 'Data',
		name: 'data',
		type: 'json',
		default: '{\n  "account_number": "",\n  "routing_number": ""\n}',
		required: true,
		description:
			'Bank account data as a JSON object. The spec does not show its field names; the sandbox accepts account_number (required), routing_number, bank_name and country.',
		displayOptions: forType('bank_account'),
	},
	{
		displayName: 'Data',
		name: 'data',
		type: 'json',
		default: '{\n  "value": ""\n}',
		required: true,
		description:
			'Personal data as a JSON object. The spec does not show its field names; the sandbox accepts value (required).',
		displayOptions: forType('pii'),
	},
	{
		displayName: 'Data',
		name: 'data',
		type: 'json',
		default: '{}',
		required: true,
		description: 'Any JSON object up to 16 KiB (16384 bytes as UTF-8 JSON), checked before sending',
		displayOptions: forType('custom'),
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		displayOptions: showFor('token', ['create']),
		options: [
			{
				displayName: 'Deduplicate',
				name: 'deduplicate',
				type: 'boolean',
				default: false,
				description:
					'Whether to return the existing token when one already holds the same data, instead of creating another',
			},
			expiresAt,
			keyValues('Metadata', 'metadata', 'Your own attributes stored with the token (text values)'),
		],
	},

	// getAll
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
		displayOptions: showFor('token', ['getAll']),
	},
	{
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 50,
		description: 'Max number of results to return',
		hint: 'Applied by the node to the list the vault returns in one request: the token list pagination is not documented',
		displayOptions: { show: { resource: ['token'], operation: ['getAll'], returnAll: [false] } },
	},
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		displayOptions: showFor('token', ['getAll']),
		options: [
			{
				displayName: 'Fingerprint',
				name: 'fingerprint',
				type: 'string',
				default: '',
				placeholder: 'fp_...',
				description: 'Only tokens with this fingerprint (tokens holding the same data)',
			},
			keyValues(
				'Metadata',
				'metadata',
				'Only tokens whose metadata has all these keys with these text values (top-level text values only)',
			),
			{
				displayName: 'Type',
				name: 'type',
				type: 'options',
				options: TYPE_OPTIONS,
				default: 'card',
				description: 'Only tokens of this type',
			},
		],
	},

	// update
	{
		displayName: 'Type and data of a token cannot be changed: to replace the data, create a new token and delete the old one',
		name: 'updateNotice',
		type: 'notice',
		default: '',
		displayOptions: showFor('token', ['update']),
	},
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		displayOptions: showFor('token', ['update']),
		options: [
			{
				displayName: 'Clear Expiry',
				name: 'clearExpiry',
				type: 'boolean',
				default: false,
				description: 'Whether to remove the expiry, so the token is kept until it is deleted',
			},
			expiresAt,
			{
				displayName: 'Remove Metadata Keys',
				name: 'removeMetadataKeys',
				type: 'string',
				default: '',
				placeholder: 'key1, key2',
				description: 'Metadata keys to remove, separated by commas (sent as null)',
			},
			keyValues('Set Metadata', 'setMetadata', 'Metadata keys to add or change (text values); other keys stay as they are'),
		],
	},
];
