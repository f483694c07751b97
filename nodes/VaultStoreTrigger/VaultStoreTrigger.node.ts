import type {
	IHookFunctions,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { STORE_CREDENTIAL } from '../shared/credentials';
import { TRIGGER_NODE_NAME } from '../shared/events';
import { triggerProperties } from './properties';
import * as endpoint from './webhookMethods';
import { receiveDelivery } from './receive';

/**
 * Starts a workflow on signed Vault & Store webhook deliveries.
 *
 * Activation registers n8n's webhook URL as an endpoint of the store (unless the
 * "Manage Endpoint" option is off); each delivery is verified (V2 Standard Webhooks or
 * deprecated V1, as the endpoint is configured) over the exact received bytes before
 * anything starts. See lifecycle.ts and receive.ts.
 */
export class VaultStoreTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Vault Store Trigger',
		name: TRIGGER_NODE_NAME,
		icon: { light: 'file:../../icons/vaultStore.svg', dark: 'file:../../icons/vaultStore.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{($parameter["events"] || []).join(", ")}}',
		// n8n's node picker merges this trigger and the Vault Store node into one "Vault Store" entry and
		// shows this description on it (generateMergedNodesAndActions: app.description = trigger.description),
		// above both the trigger's events and the node's actions. So it names both.
		description:
			'Manage Vault & Store orders, refunds, subscriptions, payouts, reports and vault tokens, or start a workflow on its signed payment and subscription events',
		defaults: { name: 'Vault Store Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: STORE_CREDENTIAL, required: true }],
		webhooks: [{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'webhook' }],
		properties: triggerProperties,
	};

	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				return await endpoint.checkExists(this);
			},
			async create(this: IHookFunctions): Promise<boolean> {
				return await endpoint.create(this);
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				return await endpoint.delete(this);
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await receiveDelivery(this);
	}
}
