import { STORE_CREDENTIAL } from '../../../shared/credentials';
import { enumOptions } from '../../../shared/labels';
import { collectionField, returnAllFields } from '../../properties';
import type { Operation, Resource } from '../../operation';
import { SORT_DIRECTIONS } from '../order';

export const CUSTOMER_SORTS = ['createdAt', 'email', 'orderCount', 'totalSpent'] as const;

const getAll: Operation = {
	value: 'getAll',
	name: 'Get Many',
	action: 'Get many customers',
	description:
		'List customers of the store (ID, email, first and last name, guest flag, total spent, order count, created at), optionally filtered by a search text and sorted',
	method: 'GET',
	family: 'core',
	path: '/customers',
	list: 'paged',
	notes: 'inferred filter names search, sort, direction (correct them under Additional Query Parameters; a hint names one the answer ignored)',
	guessedNames: { text: { name: 'search', fields: ['email', 'firstName', 'lastName'] }, sort: { by: 'sort', direction: 'direction' } },
	query: (p) => {
		const f = p.fields('filters');
		return {
			search: f.search === undefined ? undefined : p.v.string('Search', f.search, { max: 128 }),
			sort: f.sort === undefined ? undefined : p.v.oneOf('Sort By', f.sort, CUSTOMER_SORTS),
			direction: f.direction === undefined ? undefined : p.v.oneOf('Sort Direction', f.direction, SORT_DIRECTIONS),
		};
	},
	fields: [
		...returnAllFields,
		collectionField('filters', [
			{
				displayName: 'Search',
				name: 'search',
				type: 'string',
				default: '',
				placeholder: 'ada@example.com',
				description:
					'Text to match against the email or name of the customer (max 128 characters). Sent as the query parameter "search"; if your account\'s API reference names it differently, leave this empty and send it under Additional Query Parameters. The node warns when the answer is not filtered.',
			},
			{
				displayName: 'Sort By',
				name: 'sort',
				type: 'options',
				options: enumOptions(CUSTOMER_SORTS, { createdAt: 'Created At', orderCount: 'Order Count', totalSpent: 'Total Spent' }),
				default: 'createdAt',
				description: 'Field the customers are sorted by, sent as the query parameter "sort" (with Sort Direction as "direction"); if your account\'s API reference names them differently, send them under Additional Query Parameters. The node warns when the answer is not in this order.',
			},
			{
				displayName: 'Sort Direction',
				name: 'direction',
				type: 'options',
				options: enumOptions(SORT_DIRECTIONS),
				default: 'desc',
				description: 'Direction of the sort, sent as the query parameter "direction"'
			},
		]),
	],
};

export const customer: Resource = {
	value: 'customer',
	name: 'Customer',
	description: 'Customers of the store',
	credential: STORE_CREDENTIAL,
	operations: [getAll],
};
