import type { Operation } from '../../operation';
import { ID } from '../../../shared/ids';

export const refundOperations: Operation[] = [
	{
		value: 'get',
		name: 'Get',
		action: 'Get a refund',
		description: 'Get one refund with its order, payment, amount, reason and status',
		method: 'GET',
		family: 'stores',
		path: '/refunds/{refundId}',
		ids: { refundId: ID.refundId },
		inferred: true,
		scope: 'REFUNDS_READ',
	},
	{
		value: 'getAll',
		name: 'Get Many',
		action: 'Get many refunds',
		description: 'List the refunds of the store, optionally only those of one order',
		method: 'GET',
		family: 'stores',
		path: '/refunds',
		list: 'paged',
		inferred: true,
		scope: 'REFUNDS_READ',
		notes: 'inferred filter name orderId',
		query: (p) => {
			const f = p.fields('filters');
			return {
				orderId: f.orderId === undefined || f.orderId === '' ? undefined : p.v.id(ID.orderId, f.orderId),
			};
		},
	},
];
