import type {
	ICredentialTestRequest,
	ICredentialType,
	Icon,
	INodeProperties,
} from 'n8n-workflow';

/**
 * Expression text: true when the credential field is empty (not set) or holds a secret: not blank
 * and not only the whsec_ prefix. Any secret the service gives passes, a short one too (the
 * trigger logs a warning about it at activation; its shape is not a rule of the service).
 */
function usableSecret(field: string): string {
	const value = `String($credentials.${field} ?? "")`;
	const body = `${value}.replace(/^whsec_/, "")`;
	return `(${value} === "" || (${value}.trim() !== "" && ${body}.trim() !== ""))`;
}

export class VaultStoreStoreApi implements ICredentialType {
	name = 'vaultStoreStoreApi';

	displayName = 'Vault Store Store API';

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
			description:
				'Address of the service; behind a gateway, with its path (https://gw.example.com/vault-store). No query. For the local sandbox: the URL `npm run sandbox` prints.',
		},
		{
			displayName: 'Store ID',
			name: 'storeId',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'shp_...',
			description: 'ID of the store this key belongs to: starts with shp_, 12 to 48 characters',
		},
		{
			displayName: 'Secret Key',
			name: 'secretKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: 'Store secret key (sk_...) or store token (stk_...) from the merchant dashboard',
		},
		{
			displayName: 'Webhook Signing Secret',
			name: 'signingSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			description:
				'Secret used by the Vault Store Trigger to verify deliveries, as the merchant dashboard shows it (usually whsec_...). Only needed for the trigger.',
		},
		{
			displayName: 'Previous Signing Secret',
			name: 'previousSigningSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			description:
				'Only while rotating the signing secret: the secret being replaced. The trigger accepts deliveries signed with either secret. Clear it once the service signs with the new one.',
		},
	];

	test: ICredentialTestRequest = {
		request: {
			// Only https (or plain http on loopback), a path prefix allowed, no query, fragment or user:
			// anything else resolves to a host that
			// does not exist, so the key is never sent. Redirects are not followed.
			// A signing secret (or previous one) that is set but blank or a bare whsec_ fails the test the same
			// way: the trigger refuses it at activation too. A short one passes (the trigger warns).
			baseURL: `={{ ${usableSecret('signingSecret')} && ${usableSecret('previousSigningSecret')} ? (/^(https:\\/\\/[^\\s\\/?#@]+|http:\\/\\/(localhost|127\\.\\d+\\.\\d+\\.\\d+|\\[::1\\])(:\\d+)?)(\\/[^\\s?#@%\\\\]*)?$/.test($credentials.baseUrl.trim()) ? $credentials.baseUrl.trim().replace(/\\/+$/, "") : "https://base-url-must-be-https-without-query-or-user.invalid") : "https://webhook-signing-secret-is-blank-or-only-whsec.invalid" }}`,
			url: '=/v2/core/stores/{{$credentials.storeId}}',
			method: 'GET',
			// The header is set here and by the node's transport, not by an `authenticate` block: n8n adds
			// its own "Custom API Call" entry to every operation of nodes whose credential has one.
			headers: { Authorization: '=Bearer {{$credentials.secretKey}}' },
			disableFollowRedirect: true,
		},
	};
}
