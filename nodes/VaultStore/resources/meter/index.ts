import type { Resource } from '../../operation';
import { STORE_CREDENTIAL } from '../../../shared/credentials';
import { meterFields } from './fields';
import { meterOperations } from './operations';

export const meter: Resource = {
	value: 'meter',
	name: 'Meter',
	description: 'Usage meters of a product: list, create, get, update and delete (inferred routes)',
	credential: STORE_CREDENTIAL,
	operations: meterOperations,
	fields: meterFields,
};
