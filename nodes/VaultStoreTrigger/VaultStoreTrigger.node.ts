import type { INodeType, INodeTypeDescription, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

/** Placeholder while the trigger is written (issue 5). */
export class VaultStoreTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Vault Store Trigger',
		name: 'vaultStoreTrigger',
		icon: { light: 'file:../../icons/vaultStore.svg', dark: 'file:../../icons/vaultStore.dark.svg' },
		group: ['trigger'],
		version: 1,
		description: 'Starts the workflow on signed Vault & Store events',
		defaults: { name: 'Vault Store Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'vaultStoreStoreApi', required: true }],
		webhooks: [{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'webhook' }],
		properties: [],
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return { workflowData: [this.helpers.returnJsonArray([this.getBodyData()])] };
	}
}
