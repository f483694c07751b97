import type { Resource } from '../../operation';
import { STORE_CREDENTIAL } from '../../../shared/credentials';
import { customFields } from './fields';
import { customOperations } from './operations';

export const custom: Resource = {
	value: 'custom',
	name: 'Custom API Call',
	description: 'Any store API route with the store credential, for routes without a dedicated operation',
	credential: STORE_CREDENTIAL,
	operations: customOperations,
	fields: customFields,
};
