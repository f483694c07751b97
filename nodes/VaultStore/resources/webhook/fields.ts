import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { idLocator, showFor } from '../../descriptions';
import { ID } from '../../../shared/ids';
import { WEBHOOK_EVENT_TYPES } from '../../../shared/events';
import { TEST_EVENT_TYPES } from './operations';

const EVENT_NOTES: Record<string, string> = {
	PAYMENT_DISPUTE_PREVENTED:
		'A chargeback was prevented before becoming a formal dispute (opt-in; the amount plus a fee is deducted from the balance)',
	SUBSCRIPTION_UPDATED: 'Plan, quantity or payment-method change',
	SUBSCRIPTION_TRIAL_ENDING: 'Fires a few days before a trial ends',
	SUBSCRIPTION_RENEWING: 'Fires a few days before a renewal',
};

function eventOptions(events: readonly string[]): INodePropertyOptions[] {
	return events
		.map((value) => {
			const name = value
				.split('_')
				.map((w) => w.charAt(0) + w.slice(1).toLowerCase())
				.join(' ');
			const option: INodePropertyOptions = { name, value };
			if (EVENT_NOTES[value]) option.description = EVENT_NOTES[value];
			return option;
		})
		.sort((a, b) => a.name.localeCompare(b.name));
}

export const webhookFields: INodeProperties[] = [
	idLocator('webhookId', ID.webhookId, showFor('webhook', ['delete', 'get', 'sendTest'])),
	{
		displayName: 'URL',
		name: 'url',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'https://example.com/webhooks/vault-store',
		description: 'HTTPS address that receives the deliveries (must start with https://, max 512 characters)',
		displayOptions: showFor('webhook', ['create']),
	},
	{
		displayName: 'Event Types',
		name: 'eventTypes',
		type: 'multiOptions',
		required: true,
		options: eventOptions(WEBHOOK_EVENT_TYPES),
		default: [],
		description: 'Events the endpoint receives; choose at least one',
		displayOptions: showFor('webhook', ['create']),
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		displayOptions: showFor('webhook', ['create']),
		options: [
			{
				displayName: 'Note',
				name: 'note',
				type: 'string',
				default: '',
				description: 'Your own description of the endpoint (max 256 characters)',
			},
			{
				displayName: 'Signature Version',
				name: 'signatureVersion',
				type: 'options',
				options: [
					{ name: 'V1 (Deprecated)', value: 'V1', description: 'HMAC-SHA256 hex signature, millisecond timestamps, legacy headers' },
					{ name: 'V2', value: 'V2', description: 'Standard Webhooks signature (v1 entries in base64), second timestamps' },
				],
				default: 'V2',
				description: 'How deliveries are signed. When not set, the service default applies (V2 for new endpoints).',
			},
		],
	},
	{
		displayName: 'Event Type',
		name: 'eventType',
		type: 'options',
		required: true,
		options: eventOptions(TEST_EVENT_TYPES),
		default: 'PAYMENT_COMPLETED',
		description: 'Event to send as a test delivery (any payment or subscription event)',
		displayOptions: showFor('webhook', ['sendTest']),
	},
];
