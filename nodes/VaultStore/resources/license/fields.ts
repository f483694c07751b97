import type { INodeProperties } from 'n8n-workflow';

import { idLocator, showFor } from '../../descriptions';
import { ID } from '../../../shared/ids';
import { licenseGetAllFields } from './getAll';

export const licenseFields: INodeProperties[] = [
	{
		displayName: 'License Key',
		name: 'key',
		type: 'string',
		typeOptions: { password: true },
		required: true,
		default: '',
		description: 'The license key to verify (1 to 512 characters). It is never repeated in error messages.',
		displayOptions: showFor('license', ['verify']),
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		displayOptions: showFor('license', ['verify']),
		options: [
			{
				displayName: 'Product ID',
				name: 'productId',
				type: 'string',
				default: '',
				placeholder: 'prd_1a2b3c4d5e6f',
				description: 'Only count the key as valid when it belongs to this product (prd_..., 12 to 48 characters)',
			},
		],
	},
	idLocator('licenseId', ID.licenseId, showFor('license', ['get']), {
		description: 'The license to get (ID of 12 to 48 characters, e.g. lic_...)',
	}),
	...licenseGetAllFields,
];
