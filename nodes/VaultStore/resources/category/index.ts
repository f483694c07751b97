import type { Resource } from '../../operation';
import { STORE_CREDENTIAL } from '../../../shared/credentials';
import { categoryFields } from './fields';
import { categoryOperations } from './operations';

export const category: Resource = {
	value: 'category',
	name: 'Category',
	description: 'Product categories of the store',
	credential: STORE_CREDENTIAL,
	operations: categoryOperations,
	fields: categoryFields,
};
