import type { Resource } from '../../operation';
import { STORE_CREDENTIAL } from '../../../shared/credentials';
import { checkoutFields } from './fields';
import { checkoutOperations } from './operations';

export const checkout: Resource = {
	value: 'checkout',
	name: 'Checkout',
	description: 'Checkout estimates, paylink checkout sessions and their payment',
	credential: STORE_CREDENTIAL,
	operations: checkoutOperations,
	fields: checkoutFields,
};
