/** Event names a webhook endpoint can subscribe to (spec, Events), in the spec's order. */
export const WEBHOOK_EVENT_TYPES = [
	'PAYMENT_PENDING',
	'PAYMENT_PROCESSING',
	'PAYMENT_COMPLETED',
	'PAYMENT_FAILED',
	'PAYMENT_REFUNDED',
	'PAYMENT_DISPUTED',
	'PAYMENT_DISPUTE_WON',
	'PAYMENT_DISPUTE_LOST',
	'PAYMENT_DISPUTE_PREVENTED',
	'SUBSCRIPTION_UPDATED',
	'SUBSCRIPTION_TRIAL_ENDING',
	'SUBSCRIPTION_RENEWING',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Events an endpoint only receives when it lists them. */
export const OPT_IN_EVENT_TYPES: readonly WebhookEventType[] = ['PAYMENT_DISPUTE_PREVENTED'];

/** Every PAYMENT_* and SUBSCRIPTION_* event except the opt-in ones: what "All Events" stands for. */
export const ALL_STANDARD_EVENT_TYPES: readonly WebhookEventType[] = WEBHOOK_EVENT_TYPES.filter(
	(event) => /^(PAYMENT|SUBSCRIPTION)_/.test(event) && !OPT_IN_EVENT_TYPES.includes(event),
);

/** Webhook signature versions an endpoint can use. */
export const SIGNATURE_VERSIONS = ['V1', 'V2'] as const;

/*
 * The trigger ↔ action contract. The Vault Store Trigger emits each verified delivery as one item, the event's
 * payload with a `meta` object (DeliveryMeta). The Vault Store node finds the trigger among its parent nodes by
 * type (isTriggerType) and reads the delivery id of the item its input descends from (deliveryIdOf) to key its
 * writes once per event. Both nodes import these names, so changing one side without the other does not compile.
 */

/** What the trigger adds to each delivered event under `meta`. */
export interface DeliveryMeta {
	/** webhook-id (V2), or the V1 delivery id: the same for every retry of one message. */
	deliveryId: string;
	/** The signed timestamp, in seconds. */
	timestamp: number;
	signatureVersion: (typeof SIGNATURE_VERSIONS)[number];
	/** Accepted on a legacy V1 header (body-only signature or x-service-idempotency). */
	legacy: boolean;
	/** V1: which form of the secret matched. */
	signingKey?: 'secret-text' | 'decoded-key';
	/** With a previous secret configured: which one matched. */
	signingSecret?: 'current' | 'previous';
	/** Only with the "Include Delivery Headers" option: the delivery's non-secret headers. */
	headers?: { [name: string]: unknown };
}

/** The Vault Store Trigger's node type, as n8n names it in a workflow (package prefix + name). */
export const TRIGGER_NODE_NAME = 'vaultStoreTrigger';

export function isTriggerType(type: string): boolean {
	return type === TRIGGER_NODE_NAME || type.endsWith(`.${TRIGGER_NODE_NAME}`);
}

/**
 * The delivery id of a Vault Store Trigger item: the message id of the event (`id`), else the
 * delivery id of the item's `meta` (the Webhook-Id header).
 */
export function deliveryIdOf(json: Record<string, unknown> | undefined): string | undefined {
	if (!json) return undefined;
	if (typeof json.id === 'string' && json.id !== '') return json.id;
	for (const field of [DELIVERY_META_FALLBACK, 'meta']) {
		const meta = json[field] as Partial<DeliveryMeta> | undefined;
		if (typeof meta?.deliveryId === 'string' && meta.deliveryId !== '') return meta.deliveryId;
	}
	return undefined;
}

/**
 * The delivery id an item carries in the trigger's own shape, wherever the item is now (a
 * sub-workflow called with Execute Workflow, a node that kept the delivery's fields but not the
 * pairing): `meta` (or `vaultStoreDelivery`) holds a DeliveryMeta (a delivery id, a signature
 * version and a numeric timestamp). Any other `id` or `meta` is not read as a delivery.
 */
export function carriedDeliveryId(json: Record<string, unknown> | undefined): string | undefined {
	if (!json) return undefined;
	for (const field of [DELIVERY_META_FALLBACK, 'meta']) {
		const meta = json[field] as Partial<DeliveryMeta> | undefined;
		if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) continue;
		const shaped =
			typeof meta.deliveryId === 'string' &&
			meta.deliveryId !== '' &&
			typeof meta.timestamp === 'number' &&
			(SIGNATURE_VERSIONS as readonly unknown[]).includes(meta.signatureVersion);
		if (shaped) return deliveryIdOf(json);
	}
	return undefined;
}

/**
 * Where the trigger's delivery details go when the event carries a `meta` field of its own: the
 * service's field stays as it came, the details go beside it under this name.
 */
export const DELIVERY_META_FALLBACK = 'vaultStoreDelivery';

/** An event's item: its payload and the delivery details, under `meta` unless the payload has its own. */
export function withDeliveryMeta<T extends Record<string, unknown>>(payload: T, meta: DeliveryMeta): T & Record<string, unknown> {
	if (Object.prototype.hasOwnProperty.call(payload, 'meta')) return { ...payload, [DELIVERY_META_FALLBACK]: meta };
	return { ...payload, meta };
}
