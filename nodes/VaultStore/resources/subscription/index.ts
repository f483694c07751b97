import type { Resource } from '../../operation';
import { STORE_CREDENTIAL } from '../../../shared/credentials';
import { subscriptionFields } from './fields';
import { subscriptionOperations } from './operations';

export const subscription: Resource = {
	value: 'subscription',
	name: 'Subscription',
	description: 'Recurring subscriptions of the store: list, inspect, change plan, cancel, pause, resume, usage and upcoming invoice',
	credential: STORE_CREDENTIAL,
	operations: subscriptionOperations,
	fields: subscriptionFields,
};
