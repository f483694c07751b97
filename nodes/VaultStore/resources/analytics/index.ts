import type { Resource } from '../../operation';
import { STORE_CREDENTIAL } from '../../../shared/credentials';
import { analyticsFields } from './fields';
import { analyticsOperations } from './operations';

export const analytics: Resource = {
	value: 'analytics',
	name: 'Analytics',
	description: 'Sales and subscription metrics of the store',
	credential: STORE_CREDENTIAL,
	operations: analyticsOperations,
	fields: analyticsFields,
};
