import type { ICredentialTestRequest, ICredentialType, Icon, INodeProperties } from 'n8n-workflow';

import { credentialTest, field, rule } from './testRequest';

/**
 * Expression text: true when the signing secret field `name` is set but holds no secret (blank,
 * or only the whsec_ prefix). Empty is fine (only the trigger needs it); any secret the service
 * gives passes, a short one too (the trigger logs a warning about it at activation; its shape is
 * not a rule of the service).
 */
function unusableSecret(name: string): string {
	const value = field(name);
	return `(${value} !== "" && (${value}.trim() === "" || ${value}.replace(/^whsec_/, "").trim() === ""))`;
}

const SECRET_KEY = field('secretKey');
const STORE_ID = field('storeId');

/** The store credential's test: fields refused locally, then GET of the store, naming the field. */
const STORE_TEST: ICredentialTestRequest = credentialTest(
	[
		{
			when: `!(${STORE_ID}.startsWith("shp_") && ${STORE_ID}.length >= 12 && ${STORE_ID}.length <= 48)`,
			code: 'S',
			message: 'Store ID: it starts with shp_ and is 12 to 48 characters long. Nothing was sent.',
		},
		{
			when: `${SECRET_KEY}.trim().startsWith("shk_")`,
			code: 'H',
			message:
				"Secret Key: HMAC keys (shk_...) are not supported, because the service does not publish how requests are signed with them. Use the store's secret key (sk_...) or a store token (stk_...). Nothing was sent.",
		},
		{
			when: `(/\\s/.test(${SECRET_KEY}) || !/^(sk|stk)_/.test(${SECRET_KEY}))`,
			code: 'K',
			message:
				"Secret Key: use the store's secret key (sk_...) or a store token (stk_...), without spaces or line breaks. Nothing was sent.",
		},
		{
			when: unusableSecret('signingSecret'),
			code: 'W',
			message:
				'Webhook Signing Secret: it is blank or only whsec_. Paste the whole secret from the merchant dashboard, or leave the field empty. Nothing was sent.',
		},
		{
			when: unusableSecret('previousSigningSecret'),
			code: 'P',
			message:
				'Previous Signing Secret: it is blank or only whsec_. Paste the whole secret being replaced, or leave the field empty. Nothing was sent.',
		},
	],
	`"/v2/core/stores/" + encodeURIComponent(${STORE_ID})`,
	[
		// Error codes of a refused key and of an unknown store (the service's error codes are not
		// documented; these are the ones the sandbox answers with). Any other error: the next rule.
		rule(
			'error.code',
			'unauthorized',
			'Secret Key: the service refused it. Check that it is a key of this store (sk_... or stk_...), copied whole and not revoked.',
		),
		rule(
			'error.code',
			'not_found',
			'Store ID or Base URL: the service answered "not found". Check the Store ID (the store the key belongs to) and, behind a gateway, the path in the Base URL.',
		),
		rule(
			'ok',
			false,
			'Secret Key or Store ID: the service refused the request. Check that the key belongs to this store and is not revoked; if both are right, try again later.',
		),
		// Not the store API's {ok, data} answer: another server (a wrong host or gateway path).
		rule(
			'ok',
			undefined,
			'Base URL: the answer did not come from the service. Check the address and, behind a gateway, its path.',
		),
		rule(
			'ok',
			null,
			'Base URL: the answer did not come from the service. Check the address and, behind a gateway, its path.',
		),
		rule(
			'data',
			undefined,
			'Base URL: the answer has no store in it. Check the address and, behind a gateway, its path.',
		),
		rule(
			'data',
			null,
			'Base URL: the answer has no store in it. Check the address and, behind a gateway, its path.',
		),
	],
);

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
			description:
				"The store's secret key (sk_...) or a store token (stk_...) from the merchant dashboard. HMAC keys (shk_...) are not supported: the service does not publish how requests are signed with them.",
		},
		{
			displayName:
				'HMAC keys (shk_...) are not supported: the service does not publish how requests are signed with them. Use the store\'s secret key (sk_...) or a store token (stk_...).',
			name: 'hmacKeyNotice',
			type: 'notice',
			default: '',
			displayOptions: { show: { secretKey: [{ _cnd: { startsWith: 'shk_' } }] } },
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
			// Shown while a short secret is typed (n8n evaluates displayOptions against the credential's
			// values; a saved secret comes back masked, long). A warning only: the test passes.
			displayName:
				'This signing secret is short (fewer than 24 characters after whsec_). It works: the test passes and the trigger uses it as given, with a warning in the log. If the merchant dashboard shows a longer secret, copy the whole of it.',
			name: 'shortSigningNotice',
			type: 'notice',
			default: '',
			displayOptions: { show: { signingSecret: [{ _cnd: { regex: '^(whsec_)?[\\s\\S]{1,23}$' } }] } },
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

	test: ICredentialTestRequest = STORE_TEST;
}
