import type { Operation } from '../../operation';
import { ID } from '../ids';

export const ORDER_STATUSES = ['PENDING', 'COMPLETED'] as const;

export const orderOperations: Operation[] = [
	{
		value: 'get',
		name: 'Get',
		action: 'Get an order',
		description: 'Get an order with its items, payment, customer and licenses',
		method: 'GET',
		family: 'core',
		path: '/orders/{orderId}',
		ids: { orderId: ID.orderId },
	},
	{
		value: 'getAll',
		name: 'Get Many',
		action: 'Get many orders',
		description: 'List orders, newest first unless sorted otherwise',
		method: 'GET',
		family: 'core',
		path: '/orders/',
		list: 'paged',
		query: (p) => {
			const f = p.fields('filters');
			return {
				status: f.status,
				search: f.search === undefined ? undefined : p.v.string('Search', f.search, { max: 128 }),
				sortDirection:
					f.sortDirection === undefined ? undefined : p.v.oneOf('Sort Direction', f.sortDirection, ['asc', 'desc']),
			};
		},
	},
	{
		value: 'refund',
		name: 'Refund',
		action: 'Refund an order',
		description: 'Refund an order in full or in part. Sends an Idempotency-Key, so a retry never refunds twice.',
		method: 'POST',
		family: 'stores',
		path: '/orders/{orderId}/refund',
		ids: { orderId: ID.orderId },
		idempotent: 'honoured',
		notes: 'body (amount, reason) inferred',
		body: (p) => {
			const f = p.fields('additionalFields');
			return {
				amount: f.amount === undefined ? undefined : p.v.number('Amount', f.amount, { min: 0.01 }),
				reason: f.reason === undefined ? undefined : p.v.string('Reason', f.reason, { max: 1000 }),
			};
		},
	},
];
