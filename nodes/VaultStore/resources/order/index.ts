import type { Resource } from '../../operation';
import { STORE_CREDENTIAL } from '../../../shared/credentials';
import { orderFields } from './fields';
import { orderOperations } from './operations';

export const order: Resource = {
	value: 'order',
	name: 'Order',
	description: 'Orders of the store, and refunds of them',
	credential: STORE_CREDENTIAL,
	operations: orderOperations,
	fields: orderFields,
};
