import type { INodeProperties } from 'n8n-workflow';

import { listFields, showFor } from '../../descriptions';
import type { Operation } from '../../operation';
import { ID } from '../../../shared/ids';

/**
 * License > Get Many: GET {store_url}/licenses. The spec lists licenses among
 * the store API resources but shows no list route: the path, paging and the
 * filter names status and productId are inferred.
 */
export const LICENSE_STATUSES = ['AVAILABLE', 'CLAIMED'] as const;

export const licenseGetAll: Operation = {
	value: 'getAll',
	name: 'Get Many',
	action: 'Get many licenses',
	description: 'List the licenses of the store, optionally only AVAILABLE or CLAIMED ones, or those of one product',
	method: 'GET',
	family: 'core',
	path: '/licenses',
	list: 'paged',
	inferred: true,
	notes: 'inferred filter names status, productId',
	query: (p) => {
		const f = p.fields('filters');
		return {
			status: f.status === undefined || f.status === '' ? undefined : p.v.oneOf('Status', f.status, LICENSE_STATUSES),
			productId: f.productId === undefined || f.productId === '' ? undefined : p.v.id(ID.productId, f.productId),
		};
	},
};

export const licenseGetAllFields: INodeProperties[] = [
	...listFields('license', 'getAll'),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		description: 'Inferred: the spec shows no license list route or filter names',
		displayOptions: showFor('license', ['getAll']),
		options: [
			{
				displayName: 'Product ID',
				name: 'productId',
				type: 'string',
				default: '',
				placeholder: 'prd_...',
				description: 'Only licenses of this product (starts with prd_)',
			},
			{
				displayName: 'Status',
				name: 'status',
				type: 'options',
				options: [
					{ name: 'Available', value: 'AVAILABLE' },
					{ name: 'Claimed', value: 'CLAIMED' },
				],
				default: 'AVAILABLE',
				description: 'Only licenses with this status',
			},
		],
	},
];
