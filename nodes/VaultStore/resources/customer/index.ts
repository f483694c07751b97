import type { Resource } from '../../operation';
import { STORE_CREDENTIAL } from '../../../shared/credentials';
import { customerFields } from './fields';
import { customerOperations } from './operations';

export const customer: Resource = {
	value: 'customer',
	name: 'Customer',
	description: 'Customers of the store',
	credential: STORE_CREDENTIAL,
	operations: customerOperations,
	fields: customerFields,
};
