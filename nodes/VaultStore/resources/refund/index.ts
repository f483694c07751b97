import { STORE_CREDENTIAL } from '../../../shared/credentials';
import { opt } from '../../../shared/readers';
import { ID } from '../../../shared/ids';
import { collectionField, locatorField, returnAllFields } from '../../properties';
import type { Operation, Resource } from '../../operation';

const get: Operation = {
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
	fields: [
		locatorField('refundId', ID.refundId, {
			description: 'The refund to get (ID of 12 to 48 characters, e.g. rfd_...). Needs scope REFUNDS_READ.',
		}),
	],
};

const getAll: Operation = {
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
	guessedNames: { query: ['orderId'] },
	query: (p) => {
		const f = p.fields('filters');
		return {
			orderId: opt(f, 'orderId', (v) => p.v.id(ID.orderId, v)),
		};
	},
	fields: [
		...returnAllFields,
		collectionField('filters', [
			{
				displayName: 'Order ID',
				name: 'orderId',
				type: 'string',
				default: '',
				placeholder: 'ord_...',
				description: 'Only refunds of this order (starts with ord_)',
			},
		], { description: 'Needs scope REFUNDS_READ' }),
	],
};

/** Reading refunds back. (Refunding an order is Order > Refund.) */
export const refund: Resource = {
	value: 'refund',
	name: 'Refund',
	description: 'Refunds of orders: list and get (to refund an order use Order > Refund)',
	credential: STORE_CREDENTIAL,
	operations: [get, getAll],
};
