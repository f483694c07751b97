import type { Resource } from '../../operation';
import { STORE_CREDENTIAL } from '../../../shared/credentials';
import { payoutFields } from './fields';
import { payoutOperations } from './operations';

export const payout: Resource = {
	value: 'payout',
	name: 'Payout',
	description: 'Payouts of the store balance and the bank accounts they go to',
	credential: STORE_CREDENTIAL,
	operations: payoutOperations,
	fields: payoutFields,
};
