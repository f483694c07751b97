import type { Resource } from '../../operation';
import { STORE_CREDENTIAL } from '../../../shared/credentials';
import { productFields } from './fields';
import { productOperations } from './operations';

export const product: Resource = {
	value: 'product',
	name: 'Product',
	description: 'Products of the store, with variants, options and license settings',
	credential: STORE_CREDENTIAL,
	operations: productOperations,
	fields: productFields,
};
