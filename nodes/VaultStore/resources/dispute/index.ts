import type { Resource } from '../../operation';
import { STORE_CREDENTIAL } from '../../../shared/credentials';
import { disputeFields } from './fields';
import { disputeOperations } from './operations';

export const dispute: Resource = {
	value: 'dispute',
	name: 'Dispute',
	description: 'Disputes (chargebacks) of payments: list, get and submit evidence (inferred routes)',
	credential: STORE_CREDENTIAL,
	operations: disputeOperations,
	fields: disputeFields,
};
