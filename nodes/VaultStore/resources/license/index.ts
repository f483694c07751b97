import type { Resource } from '../../operation';
import { STORE_CREDENTIAL } from '../../../shared/credentials';
import { licenseFields } from './fields';
import { licenseOperations } from './operations';

export const license: Resource = {
	value: 'license',
	name: 'License',
	description: 'License keys sold by the store: verify a key or get a license',
	credential: STORE_CREDENTIAL,
	operations: licenseOperations,
	fields: licenseFields,
};
