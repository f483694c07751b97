import type { Operation } from '../../operation';

export const CUSTOMER_SORTS = ['email', 'totalSpent', 'orderCount', 'createdAt'] as const;
export const SORT_DIRECTIONS = ['asc', 'desc'] as const;

export const customerOperations: Operation[] = [
	{
		value: 'getAll',
		name: 'Get Many',
		action: 'Get many customers',
		description:
			'List customers of the store (ID, email, first and last name, guest flag, total spent, order count, created at), optionally filtered by a search text and sorted',
		method: 'GET',
		family: 'core',
		path: '/customers',
		list: 'paged',
		query: (p) => {
			const f = p.fields('filters');
			return {
				search: f.search === undefined ? undefined : p.v.string('Search', f.search, { max: 128 }),
				sort: f.sort === undefined ? undefined : p.v.oneOf('Sort By', f.sort, CUSTOMER_SORTS),
				direction:
					f.direction === undefined ? undefined : p.v.oneOf('Sort Direction', f.direction, SORT_DIRECTIONS),
			};
		},
	},
];
