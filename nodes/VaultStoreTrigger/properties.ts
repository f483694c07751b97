import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { WEBHOOK_EVENT_TYPES } from '../shared/events';

/** Events an endpoint can subscribe to (spec, Events), in the spec's order. */
export const TRIGGER_EVENTS = WEBHOOK_EVENT_TYPES;

const EVENT_DESCRIPTIONS: Record<(typeof TRIGGER_EVENTS)[number], string> = {
	PAYMENT_PENDING: 'A payment was created and waits to be processed',
	PAYMENT_PROCESSING: 'A payment is being processed',
	PAYMENT_COMPLETED: 'A payment completed',
	PAYMENT_FAILED: 'A payment failed',
	PAYMENT_REFUNDED: 'A payment was refunded',
	PAYMENT_DISPUTED: 'A payment was disputed',
	PAYMENT_DISPUTE_WON: 'A dispute was decided for the merchant',
	PAYMENT_DISPUTE_LOST: 'A dispute was decided against the merchant',
	PAYMENT_DISPUTE_PREVENTED:
		'Opt-in: only sent to endpoints that list it. A chargeback was prevented before it became a formal dispute; the disputed amount plus a fee is deducted from the balance.',
	SUBSCRIPTION_UPDATED: 'Plan, quantity or payment-method change',
	SUBSCRIPTION_TRIAL_ENDING: 'Fires a few days before a trial ends',
	SUBSCRIPTION_RENEWING: 'Fires a few days before a renewal',
};

function eventName(value: string): string {
	return value
		.split('_')
		.map((word) => word.charAt(0) + word.slice(1).toLowerCase())
		.join(' ');
}

/** Value of the "All Events" choice: every payment and subscription event except the opt-in one. */
export const ALL_EVENTS = '*';

const eventOptions: INodePropertyOptions[] = [
	{
		name: 'All Events',
		value: ALL_EVENTS,
		description:
			'Every payment and subscription event, each registered by name. Payment Dispute Prevented is opt-in: select it as well to receive it.',
	},
	...TRIGGER_EVENTS.map((value) => ({
		name: eventName(value),
		value,
		description: EVENT_DESCRIPTIONS[value],
	})),
];

/** Longest note the service stores with an endpoint. */
export const MAX_NOTE_LENGTH = 256;

export const DEFAULT_TOLERANCE = 300;

/** The spec's receiver rule: reject a timestamp more than 5 minutes from the receiver clock. */
export const MAX_TOLERANCE = 300;

/** Display name of the tolerance option, for error messages (keep equal to the property below). */
export const TOLERANCE_FIELD = 'Timestamp Tolerance (Seconds)';

export const triggerProperties: INodeProperties[] = [
	{
		displayName:
			"Activating registers this workflow's webhook URL at the service. A live account delivers only to public https:// addresses: if n8n runs on your own machine, set n8n's WEBHOOK_URL to a public https address (for example a tunnel). The local sandbox also delivers to http:// on this machine. While you listen for a test event, the node asks the service for a signed test delivery (option Send Test Event When Listening).",
		name: 'httpsNotice',
		type: 'notice',
		default: '',
	},
	{
		displayName: 'Events',
		name: 'events',
		type: 'multiOptions',
		required: true,
		options: eventOptions,
		default: [],
		description:
			'Events that start the workflow; choose at least one, or All Events. Payment Dispute Prevented is opt-in: it is only delivered when selected here.',
	},
	{
		displayName: 'Signature Version',
		name: 'signatureVersion',
		type: 'options',
		options: [
			{
				name: 'V2 (Standard Webhooks)',
				value: 'V2',
				description: 'Signs the delivery ID, timestamp (seconds) and body; the signing secret is base64 (whsec_...)',
			},
			{
				name: 'V1 (Deprecated)',
				value: 'V1',
				description:
					'Hex signature of the timestamp (milliseconds) and body; the delivery ID is not signed. Only for endpoints that still need it.',
			},
		],
		default: 'V2',
		description:
			'Signature scheme the endpoint is registered with. A V2 trigger rejects V1 deliveries; a V1 trigger also accepts V2 deliveries (V2 signs more), for endpoints that were migrated.',
	},
	{
		displayName: 'Note',
		name: 'note',
		type: 'string',
		default: '',
		placeholder: 'n8n: order fulfilment workflow',
		description: 'Label stored with the endpoint at the service (max 256 characters)',
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Accept Body-Only Signature (Legacy, Unsafe)',
				name: 'acceptBodyOnlySignature',
				type: 'boolean',
				default: false,
				description:
					'Whether V1 deliveries that carry only the legacy X-Service-Signature are accepted. That signature covers the body alone and its timestamp is not signed, so a captured delivery can be replayed later. Leave off unless a sender cannot send Webhook-Signature.',
			},
			{
				displayName: 'Include Delivery Headers',
				name: 'includeHeaders',
				type: 'boolean',
				default: false,
				description:
					'Whether the request headers are added under meta.headers (signature headers, Authorization and Cookie are left out)',
			},
			{
				displayName: 'Manage Endpoint',
				name: 'manageEndpoint',
				type: 'boolean',
				default: true,
				description:
					'Whether n8n registers the endpoint at the service on activation and deletes it on deactivation. Turn off if the URL was registered by hand: then set Events and Signature Version to match it.',
			},
			{
				displayName: 'Reject Duplicates',
				name: 'rejectDuplicates',
				type: 'boolean',
				default: true,
				description:
					'Whether a delivery already accepted recently is answered with 200 without starting the workflow (retries and replays). V2 deliveries are matched by their signed ID; V1 ones, whose ID is not signed, by their signed timestamp and body or the ID in the body. Each n8n webhook process remembers deliveries on its own.',
			},
			{
				displayName: 'Send Test Event When Listening',
				name: 'sendTestEvent',
				type: 'boolean',
				default: true,
				description:
					'Whether clicking "Listen for test event" in the editor also asks the service to send one signed test delivery of the first selected payment or subscription event, so the node fires without waiting for a real event. Never used for the active workflow.',
			},
			{
				displayName: 'Timestamp Tolerance (Seconds)',
				name: 'toleranceSeconds',
				type: 'number',
				typeOptions: { minValue: 1, maxValue: MAX_TOLERANCE },
				default: DEFAULT_TOLERANCE,
				description:
					'Largest difference between the delivery timestamp and the n8n clock, 1 to 300 (the service allows at most 5 minutes)',
			},
		],
	},
];
