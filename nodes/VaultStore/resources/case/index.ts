import type { Resource } from '../../operation';
import { STORE_CREDENTIAL } from '../../../shared/credentials';
import { caseFields } from './fields';
import { caseOperations } from './operations';

export const supportCase: Resource = {
	value: 'case',
	name: 'Case',
	description: 'Support cases of the store and their messages',
	credential: STORE_CREDENTIAL,
	operations: caseOperations,
	fields: caseFields,
};
