import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { operationProperties, resourceExtras, resourceOptions, resourceParameters, resourceProperty } from './properties';
import { LATEST_VERSION, NODE_VERSIONS } from './versions';
import { executeOperation } from './executor';
import { listSearch } from './listSearch';
import { resources } from './resources';
import { VAULT_CREDENTIAL, STORE_CREDENTIAL } from '../shared/credentials';

const vaultResources = resources.filter((r) => r.credential === VAULT_CREDENTIAL).map((r) => r.value);
/** Resources whose credential a parameter chooses (the Custom API Call's API). */
const choosing = resources.filter((r) => r.credentialChoice).map((r) => r.value);

export class VaultStore implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Vault Store',
		name: 'vaultStore',
		icon: { light: 'file:../../icons/vaultStore.svg', dark: 'file:../../icons/vaultStore.dark.svg' },
		group: ['transform'],
		version: NODE_VERSIONS,
		defaultVersion: LATEST_VERSION,
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		description: 'Manage orders, refunds, subscriptions, payouts, reports and vault tokens of Vault & Store',
		defaults: { name: 'Vault Store' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			// `hide` (not `show` with every other resource): when the credentials' show lists cover every
			// resource, n8n's editor takes `resource` for an auth selector and hides the Resource dropdown.
			// The Custom API Call takes either: its API parameter says which.
			{ name: STORE_CREDENTIAL, required: true, displayOptions: { hide: { resource: vaultResources, api: ['vault'] } } },
			{
				name: VAULT_CREDENTIAL,
				required: true,
				displayOptions: { show: { resource: [...vaultResources, ...choosing] }, hide: { api: ['store'] } },
			},
		],
		properties: [
			resourceProperty(resources),
			...resources.flatMap(operationProperties),
			// An operation's own fields (Additional Fields last), then Options, then the escape hatches.
			...resources.flatMap(resourceParameters),
			...resources.flatMap(resourceOptions),
			...resources.flatMap(resourceExtras),
		],
	};

	methods = { listSearch };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await executeOperation(this, resources);
	}
}
