import type { INodeProperties } from 'n8n-workflow';

import { idLocator, listFields, showFor } from '../../descriptions';
import { ID } from '../../../shared/ids';

const INFERRED = 'Inferred: the spec names the operation but not its path.';

export const refundFields: INodeProperties[] = [
	idLocator('refundId', ID.refundId, showFor('refund', ['get']), {
		description: `The refund to get (ID of 12 to 48 characters, e.g. rfd_...). Needs scope REFUNDS_READ. ${INFERRED}`,
	}),
	...listFields('refund', 'getAll'),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		description: 'Needs scope REFUNDS_READ. Inferred: the spec names the operation but not its path or filters.',
		displayOptions: showFor('refund', ['getAll']),
		options: [
			{
				displayName: 'Order ID',
				name: 'orderId',
				type: 'string',
				default: '',
				placeholder: 'ord_...',
				description: 'Only refunds of this order (starts with ord_; inferred filter)',
			},
		],
	},
];
