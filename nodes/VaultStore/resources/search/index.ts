import type { Resource } from '../../operation';
import { STORE_CREDENTIAL } from '../../../shared/credentials';
import { searchFields } from './fields';
import { searchOperations } from './operations';

export const search: Resource = {
	value: 'search',
	name: 'Search',
	description: 'Resolve IDs, customer emails and order numbers to the records they name',
	credential: STORE_CREDENTIAL,
	operations: searchOperations,
	fields: searchFields,
};
