import type { INodeProperties } from 'n8n-workflow';

import { idLocator, listFields, showFor } from '../../descriptions';
import { ID } from '../../../shared/ids';

export const caseFields: INodeProperties[] = [
	idLocator('caseId', ID.caseId, showFor('case', ['addMessage', 'get', 'markRead']), {
		description: 'The support case (ID starts with cs_)',
	}),
	{
		displayName: 'Message',
		name: 'body',
		type: 'string',
		typeOptions: { rows: 4 },
		required: true,
		default: '',
		description:
			'Text of the reply (1 to 4000 characters). Attachments are not supported with store API keys: add them from the merchant dashboard.',
		displayOptions: showFor('case', ['addMessage']),
	},
	...listFields('case', 'getAll'),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		displayOptions: showFor('case', ['getAll']),
		options: [
			{
				displayName: 'Status',
				name: 'status',
				type: 'string',
				default: '',
				placeholder: 'OPEN',
				description:
					'Only cases with this status, e.g. OPEN or CLOSED (the spec does not list the values; sent in upper case)',
			},
		],
	},
];
