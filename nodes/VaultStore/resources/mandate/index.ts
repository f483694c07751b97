import type { Resource } from '../../operation';
import { STORE_CREDENTIAL } from '../../../shared/credentials';
import { mandateFields } from './fields';
import { mandateOperations } from './operations';

export const mandate: Resource = {
	value: 'mandate',
	name: 'Mandate',
	description: 'Billing agreements a customer authorizes before being charged',
	credential: STORE_CREDENTIAL,
	operations: mandateOperations,
	fields: mandateFields,
};
