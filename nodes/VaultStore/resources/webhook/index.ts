import type { Resource } from '../../operation';
import { STORE_CREDENTIAL } from '../../../shared/credentials';
import { webhookFields } from './fields';
import { webhookOperations } from './operations';

export const webhook: Resource = {
	value: 'webhook',
	name: 'Webhook',
	description: 'Webhook endpoints of the store: create, get, delete and send test deliveries',
	credential: STORE_CREDENTIAL,
	operations: webhookOperations,
	fields: webhookFields,
};
