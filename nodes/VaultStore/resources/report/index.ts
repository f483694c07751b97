import type { Resource } from '../../operation';
import { STORE_CREDENTIAL } from '../../../shared/credentials';
import { reportFields } from './fields';
import { reportOperations } from './operations';

export const report: Resource = {
	value: 'report',
	name: 'Report',
	description: 'Payment, payout, balance and refund reports of the store, generated as CSV or JSON files',
	credential: STORE_CREDENTIAL,
	operations: reportOperations,
	fields: reportFields,
};
