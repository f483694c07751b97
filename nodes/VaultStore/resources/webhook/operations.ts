import type { Operation } from '../../operation';
import { SIGNATURE_VERSIONS, WEBHOOK_EVENT_TYPES } from '../../../shared/events';
import { ID } from '../../../shared/ids';

/** A test delivery accepts every PAYMENT_* and SUBSCRIPTION_* event type. */
export const TEST_EVENT_TYPES = WEBHOOK_EVENT_TYPES.filter((e) => /^(PAYMENT|SUBSCRIPTION)_/.test(e));

const hook = { webhookId: ID.webhookId };

export const webhookOperations: Operation[] = [
	{
		value: 'create',
		name: 'Create',
		action: 'Create a webhook endpoint',
		description:
			'Register an HTTPS endpoint that receives signed deliveries of the chosen payment and subscription events',
		method: 'POST',
		family: 'core',
		path: '/webhooks',
		body: (p) => {
			const f = p.fields('additionalFields');
			const url = p.v.url('URL', p.get('url', ''), { max: 512, httpsOnly: true });
			const eventTypes = p.v.array<unknown>('Event Types', p.get('eventTypes', []), { min: 1 });
			return {
				url,
				eventTypes: eventTypes.map((e) => p.v.oneOf('Event Types', e, WEBHOOK_EVENT_TYPES)),
				note: f.note === undefined || f.note === '' ? undefined : p.v.string('Note', f.note, { max: 256 }),
				signatureVersion:
					f.signatureVersion === undefined
						? undefined
						: p.v.oneOf('Signature Version', f.signatureVersion, SIGNATURE_VERSIONS),
			};
		},
	},
	{
		value: 'delete',
		name: 'Delete',
		action: 'Delete a webhook endpoint',
		description: 'Delete a webhook endpoint; it receives no further deliveries, retries included',
		method: 'DELETE',
		family: 'core',
		path: '/webhooks/{webhookId}',
		ids: hook,
	},
	{
		value: 'get',
		name: 'Get',
		action: 'Get a webhook endpoint',
		description: 'Get a webhook endpoint with its URL, event types, note and signature version',
		method: 'GET',
		family: 'stores',
		path: '/webhooks/{webhookId}',
		ids: hook,
	},
	{
		value: 'sendTest',
		name: 'Send Test',
		action: 'Send a test delivery to a webhook endpoint',
		description:
			'Send one test delivery of a payment or subscription event to the endpoint, signed and with the same headers as a live delivery',
		method: 'POST',
		family: 'stores',
		path: '/webhooks/{webhookId}/test',
		ids: hook,
		notes: 'inferred body name eventType',
		body: (p) => ({ eventType: p.v.oneOf('Event Type', p.get('eventType', ''), TEST_EVENT_TYPES) }),
	},
];
