import type { ICredentialTestRequest, ICredentialType, Icon, INodeProperties } from 'n8n-workflow';

import { credentialTest, field } from './testRequest';

const WORKSPACE_ID = field('workspaceId');
const VAULT_ID = field('vaultId');
const SECRET_KEY = field('secretKey');

/**
 * The vault credential's test: fields refused locally (naming the field), then GET of the token
 * list. The vault's answer shapes (success and error) are not documented well enough to recognise
 * a success from its body, so HTTP errors stay errors, with n8n's own text.
 */
const VAULT_TEST: ICredentialTestRequest = credentialTest(
	[
		{
			when: `!(${WORKSPACE_ID}.startsWith("wks_") && ${WORKSPACE_ID}.length > 4)`,
			code: 'A',
			message: 'Workspace ID: it starts with wks_, followed by the ID. Nothing was sent.',
		},
		{
			when: `!(${VAULT_ID}.startsWith("vlt_") && ${VAULT_ID}.length > 4)`,
			code: 'V',
			message: 'Vault ID: it starts with vlt_, followed by the ID. Nothing was sent.',
		},
		{
			when: `(${SECRET_KEY}.trim() === "" || /\\s/.test(${SECRET_KEY}))`,
			code: 'K',
			message: 'Secret Key: it is empty or has spaces or line breaks. Paste the vault secret key again. Nothing was sent.',
		},
	],
	`"/v2/workspaces/" + encodeURIComponent(${WORKSPACE_ID}) + "/vaults/" + encodeURIComponent(${VAULT_ID}) + "/tokens"`,
);

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

	test: ICredentialTestRequest = VAULT_TEST;
}
