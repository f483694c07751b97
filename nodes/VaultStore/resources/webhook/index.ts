import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { STORE_CREDENTIAL } from '../../../shared/credentials';
import { opt } from '../../../shared/readers';
import type { WebhookEventType } from '../../../shared/events';
import { SIGNATURE_VERSIONS, WEBHOOK_EVENT_TYPES } from '../../../shared/events';
import { ID } from '../../../shared/ids';
import { WEBHOOK_ROUTES } from '../../../shared/webhookRoutes';
import { enumOptions } from '../../../shared/labels';
import { collectionField, locatorField } from '../../properties';
import type { Operation, Resource } from '../../operation';

/** A test delivery accepts every PAYMENT_* and SUBSCRIPTION_* event type. */
export const TEST_EVENT_TYPES = WEBHOOK_EVENT_TYPES.filter((e) => /^(PAYMENT|SUBSCRIPTION)_/.test(e));

/** Events whose name alone does not say when they fire. */
const EVENT_NOTES: Partial<Record<WebhookEventType, string>> = {
	PAYMENT_DISPUTE_PREVENTED:
		'A chargeback was prevented before becoming a formal dispute (opt-in; the amount plus a fee is deducted from the balance)',
	SUBSCRIPTION_UPDATED: 'Plan, quantity or payment-method change',
	SUBSCRIPTION_TRIAL_ENDING: 'Fires a few days before a trial ends',
	SUBSCRIPTION_RENEWING: 'Fires a few days before a renewal',
};

/** Event options labelled from the event list, with a note where the name needs one. */
function eventOptions(events: readonly WebhookEventType[]): INodePropertyOptions[] {
	return enumOptions(events).map((option) => {
		const note = EVENT_NOTES[option.value as WebhookEventType];
		return note ? { ...option, description: note } : option;
	});
}

const SIGNATURE_NOTES: Record<(typeof SIGNATURE_VERSIONS)[number], string> = {
	V1: 'HMAC-SHA256 hex signature, millisecond timestamps, legacy headers',
	V2: 'Standard Webhooks signature (v1 entries in base64), second timestamps',
};

const signatureOptions = enumOptions(SIGNATURE_VERSIONS, { V1: 'V1 (Deprecated)' }).map((option) => ({
	...option,
	description: SIGNATURE_NOTES[option.value as (typeof SIGNATURE_VERSIONS)[number]],
}));

const noteField: INodeProperties = {
	displayName: 'Note',
	name: 'note',
	type: 'string',
	default: '',
	description: 'Your own description of the endpoint (max 256 characters)',
};

const hook = { webhookId: ID.webhookId };

const webhookId = locatorField('webhookId', ID.webhookId);

const create: Operation = {
	value: 'create',
	name: 'Create',
	action: 'Create a webhook endpoint',
	agent: { confirm: 'a new endpoint receives every later payment event it names' },
	description:
		'Register an HTTPS endpoint that receives signed deliveries of the chosen payment and subscription events',
	...WEBHOOK_ROUTES.create,
	body: (p) => {
		const f = p.fields('additionalFields');
		const url = p.v.url('URL', p.get('url', ''), { max: 512, httpsOnly: true });
		const eventTypes = p.v.array<unknown>('Event Types', p.get('eventTypes', []), { min: 1 });
		return {
			url,
			eventTypes: eventTypes.map((e) => p.v.oneOf('Event Types', e, WEBHOOK_EVENT_TYPES)),
			note: opt(f, 'note', (v) => p.v.string('Note', v, { max: 256 })),
			signatureVersion:
				f.signatureVersion === undefined
					? undefined
					: p.v.oneOf('Signature Version', f.signatureVersion, SIGNATURE_VERSIONS),
		};
	},
	fields: [
		{
			displayName: 'URL',
			name: 'url',
			type: 'string',
			required: true,
			default: '',
			placeholder: 'https://example.com/webhooks/vault-store',
			description: 'HTTPS address that receives the deliveries (must start with https://, max 512 characters)',
		},
		{
			displayName: 'Event Types',
			name: 'eventTypes',
			type: 'multiOptions',
			required: true,
			options: eventOptions(WEBHOOK_EVENT_TYPES),
			default: [],
			description: 'Events the endpoint receives; choose at least one',
		},
		collectionField('additionalFields', [
			noteField,
			{
				displayName: 'Signature Version',
				name: 'signatureVersion',
				type: 'options',
				options: signatureOptions,
				default: 'V2',
				description: 'How deliveries are signed. When not set, the service default applies (V2 for new endpoints).',
			},
		]),
	],
};

const deleteWebhook: Operation = {
	value: 'delete',
	name: 'Delete',
	action: 'Delete a webhook endpoint',
	agent: { confirm: 'the integrations that use the endpoint stop receiving payment events' },
	description: 'Delete a webhook endpoint; it receives no further deliveries, retries included',
	...WEBHOOK_ROUTES.delete,
	ids: hook,
	fields: [webhookId],
};

const get: Operation = {
	value: 'get',
	name: 'Get',
	action: 'Get a webhook endpoint',
	description: 'Get a webhook endpoint with its URL, event types, note and signature version',
	...WEBHOOK_ROUTES.get,
	ids: hook,
	fields: [webhookId],
};

const update: Operation = {
	value: 'update',
	name: 'Update',
	action: 'Update a webhook endpoint',
	agent: { confirm: 'pointing an endpoint at another URL sends every later payment event there' },
	description:
		'Change the URL, event types, note or signature version of an endpoint in place: it keeps its ID and the deliveries still being retried',
	...WEBHOOK_ROUTES.update,
	ids: hook,
	inferred: true,
	notes: 'PATCH route and body inferred (the endpoint is settable on update)',
	body: (p) => {
		const f = p.fields('updateFields');
		const eventTypes =
			f.eventTypes === undefined ? undefined : p.v.array<unknown>('Event Types', f.eventTypes, { min: 1 });
		const body = {
			url: f.url === undefined ? undefined : p.v.url('URL', f.url, { max: 512, httpsOnly: true }),
			eventTypes: eventTypes?.map((e) => p.v.oneOf('Event Types', e, WEBHOOK_EVENT_TYPES)),
			// An added but empty Note clears the note (null, as the endpoint shows "no note").
			note: f.note === undefined ? undefined : f.note === '' || f.note === null ? null : p.v.string('Note', f.note, { max: 256 }),
			signatureVersion:
				f.signatureVersion === undefined ? undefined : p.v.oneOf('Signature Version', f.signatureVersion, SIGNATURE_VERSIONS),
		};
		return body;
	},
	sendNull: ['note'],
	needsBody: { message: 'Choose at least one field to update in "Update Fields"' },
	fields: [
		webhookId,
		collectionField('updateFields', [
			{
				displayName: 'Event Types',
				name: 'eventTypes',
				type: 'multiOptions',
				options: eventOptions(WEBHOOK_EVENT_TYPES),
				default: [],
				description: 'Events the endpoint receives from now on (replaces the list; at least one)',
			},
			{ ...noteField, description: 'Your own description of the endpoint (max 256 characters). Leave it empty to clear the note.' },
			{
				displayName: 'Signature Version',
				name: 'signatureVersion',
				type: 'options',
				options: signatureOptions,
				default: 'V2',
				description:
					'How deliveries are signed. Switching back to V1 after a migration to V2 rolls the migration back.',
			},
			{
				displayName: 'URL',
				name: 'url',
				type: 'string',
				default: '',
				placeholder: 'https://example.com/webhooks/vault-store',
				description: 'HTTPS address that receives the deliveries (must start with https://, max 512 characters)',
			},
		]),
	],
};

const sendTest: Operation = {
	value: 'sendTest',
	name: 'Send Test',
	action: 'Send a test delivery to a webhook endpoint',
	description:
		'Send one test delivery of a payment or subscription event to the endpoint, signed and with the same headers as a live delivery',
	...WEBHOOK_ROUTES.sendTest,
	ids: hook,
	notes: 'inferred body name eventType',
	guessedNames: { body: ['eventType'] },
	body: (p) => ({ eventType: p.v.oneOf('Event Type', p.get('eventType', ''), TEST_EVENT_TYPES) }),
	fields: [
		webhookId,
		{
			displayName: 'Event Type',
			name: 'eventType',
			type: 'options',
			required: true,
			options: eventOptions(TEST_EVENT_TYPES),
			default: 'PAYMENT_COMPLETED',
			description: 'Event to send as a test delivery (any payment or subscription event)',
		},
	],
};

export const webhook: Resource = {
	value: 'webhook',
	name: 'Webhook',
	description: 'Webhook endpoints of the store: create, get, delete and send test deliveries',
	credential: STORE_CREDENTIAL,
	operations: [create, deleteWebhook, get, sendTest, update],
};
