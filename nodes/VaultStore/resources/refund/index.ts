import type { Resource } from '../../operation';
import { STORE_CREDENTIAL } from '../../../shared/credentials';
import { refundFields } from './fields';
import { refundOperations } from './operations';

export const refund: Resource = {
	value: 'refund',
	name: 'Refund',
	description: 'Refunds of orders: list and get (inferred routes; to refund an order use Order > Refund)',
	credential: STORE_CREDENTIAL,
	operations: refundOperations,
	fields: refundFields,
};
