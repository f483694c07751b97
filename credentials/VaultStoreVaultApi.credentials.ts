import type {
	ICredentialTestRequest,
	ICredentialType,
	Icon,
	INodeProperties,
} from 'n8n-workflow';

export class VaultStoreVaultApi implements ICredentialType {
	name = 'vaultStoreVaultApi';

	displayName = 'Vault Store Vault API';

	icon: Icon = { light: 'file:../icons/vaultStore.svg', dark: 'file:../icons/vaultStore.dark.svg' };

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-vault-store';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://api.example.com',
			description: 'Address of the service; behind a gateway, with its path (https://gw.example.com/vault-store). No query. For the local sandbox: the URL `npm run sandbox` prints.',
		},
		{
			displayName: 'Workspace ID',
			name: 'workspaceId',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'wks_...',
			description: 'Workspace that owns the vault: starts with wks_',
		},
		{
			displayName: 'Vault ID',
			name: 'vaultId',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'vlt_...',
			description: 'Vault that holds the tokens: starts with vlt_',
		},
		{
			displayName: 'Secret Key',
			name: 'secretKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'Vault secret key. Revealing token data needs a key with the tokens:reveal permission.',
		},
	];

	test: ICredentialTestRequest = {
		request: {
			// Only https (or plain http on loopback), a path prefix allowed, no query, fragment or user:
			// anything else resolves to a host that
			// does not exist, so the key is never sent. Redirects are not followed.
			baseURL: '={{ /^(https:\\/\\/[^\\s\\/?#@]+|http:\\/\\/(localhost|127\\.\\d+\\.\\d+\\.\\d+|\\[::1\\])(:\\d+)?)(\\/[^\\s?#@%\\\\]*)?$/.test($credentials.baseUrl.trim()) ? $credentials.baseUrl.trim().replace(/\\/+$/, "") : "https://base-url-must-be-https-without-query-or-user.invalid" }}',
			url: '=/v2/workspaces/{{$credentials.workspaceId}}/vaults/{{$credentials.vaultId}}/tokens',
			method: 'GET',
			// The header is set here and by the node's transport, not by an `authenticate` block: n8n adds
			// its own "Custom API Call" entry to every operation of nodes whose credential has one.
			headers: { Authorization: '=Bearer {{$credentials.secretKey}}' },
			disableFollowRedirect: true,
		},
	};
}
