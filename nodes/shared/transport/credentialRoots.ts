import type { IDataObject, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { CredentialName } from '../credentials';
import { STORE_CREDENTIAL } from '../credentials';
import { BASE_URL_EXAMPLE, BASE_URL_REASONS, readBaseUrl } from './baseUrl';
import type { HttpContext } from './http';
import type { Family } from './request';

/**
 * Credentials and URL roots: a credential's fields checked (Base URL, ids, key shape) and turned
 * into the root of each path family and the Authorization header.
 */

export interface ResolvedCredential {
	baseUrl: string;
	roots: Record<Family, string>;
	/** The account the credential reaches (Base URL and store, or workspace and vault): where the service keeps its Idempotency-Keys. */
	place: string;
	secrets: string[];
	/** The Authorization header value; set here, so the credential types need no `authenticate`. */
	authorization: string;
}

function enc(value: string): string {
	return encodeURIComponent(value);
}

export async function loadCredential(ctx: HttpContext, name: CredentialName, secrets: Set<string>): Promise<ResolvedCredential> {
	const c = (await ctx.getCredentials(name)) as IDataObject;
	const secretKey = String(c.secretKey ?? '');
	for (const secret of [secretKey, String(c.signingSecret ?? ''), String(c.previousSigningSecret ?? '')]) {
		if (secret !== '') secrets.add(secret);
	}
	const node = ctx.getNode();
	const baseUrl = checkBaseUrl(node, c.baseUrl);
	if (secretKey.trim() === '') {
		throw new NodeOperationError(node, 'Credential field "Secret Key" is empty');
	}
	if (/\s/.test(secretKey)) {
		throw new NodeOperationError(node, 'Credential field "Secret Key" contains spaces or line breaks', {
			description: 'Paste the key again without spaces, tabs or line breaks around or inside it.',
		});
	}
	if (name === STORE_CREDENTIAL) {
		const storeId = String(c.storeId ?? '');
		checkCredentialId(ctx, 'Store ID', storeId, 'shp_');
		if (secretKey.startsWith('shk_')) {
			throw new NodeOperationError(node, 'Credential field "Secret Key" is an HMAC key (shk_...), which the node does not support', {
				description:
					"The service does not publish how requests are signed with HMAC keys, so the node cannot send them. Use the store's secret key (sk_...) or a store token (stk_...) from the merchant dashboard. Nothing was sent.",
			});
		}
		if (!/^(sk|stk)_/.test(secretKey)) {
			throw new NodeOperationError(
				node,
				'Credential field "Secret Key" must start with sk_ (secret key) or stk_ (store token)',
			);
		}
		const noVault = `${baseUrl}/v2/workspaces/-/vaults/-`;
		return {
			baseUrl,
			place: `${baseUrl}/v2/stores/${enc(storeId)}`,
			secrets: [...secrets],
			authorization: `Bearer ${secretKey}`,
			roots: {
				core: `${baseUrl}/v2/core/stores/${enc(storeId)}`,
				stores: `${baseUrl}/v2/stores/${enc(storeId)}`,
				storefront: `${baseUrl}/v2/storefront`,
				vault: noVault,
				base: baseUrl,
			},
		};
	}
	const workspaceId = String(c.workspaceId ?? '');
	const vaultId = String(c.vaultId ?? '');
	// The spec gives these two the prefix only: the 12 to 48 length rule is the store path ids'.
	checkCredentialId(ctx, 'Workspace ID', workspaceId, 'wks_', false);
	checkCredentialId(ctx, 'Vault ID', vaultId, 'vlt_', false);
	const vault = `${baseUrl}/v2/workspaces/${enc(workspaceId)}/vaults/${enc(vaultId)}`;
	return {
		baseUrl,
		place: vault,
		secrets: [...secrets],
		authorization: `Bearer ${secretKey}`,
		roots: { core: vault, stores: vault, storefront: `${baseUrl}/v2/storefront`, vault, base: baseUrl },
	};
}

export const LOOPBACK_HOST = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/**
 * The credential's Base URL, by the rule the credential test runs too (readBaseUrl, baseUrl.ts):
 * the origin in WHATWG normal form and the path prefix, without a trailing slash; or an error
 * saying why it is refused, before anything is sent.
 */
export function checkBaseUrl(node: INode, raw: unknown): string {
	const root = readBaseUrl(raw);
	let url: URL | undefined;
	if (!root.startsWith('!')) {
		try {
			url = new URL(root);
		} catch {
			// Never reached: readBaseUrl accepts only what the URL parser reads (test/base-url.test.ts).
		}
	}
	if (url === undefined) {
		const reason = BASE_URL_REASONS[root.slice(1)] ?? BASE_URL_REASONS['2'];
		throw new NodeOperationError(node, `Credential field "Base URL" ${reason}`, { description: BASE_URL_EXAMPLE });
	}
	return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** A credential id: its prefix, and with `pathLength` (the store id) 12 to 48 characters. */
function checkCredentialId(ctx: HttpContext, field: string, value: string, prefix: string, pathLength = true): void {
	if (pathLength && (!value.startsWith(prefix) || value.length < 12 || value.length > 48)) {
		throw new NodeOperationError(
			ctx.getNode(),
			`Credential field "${field}" must start with ${prefix} and be 12 to 48 characters long`,
		);
	}
	if (!pathLength && (!value.startsWith(prefix) || value.length === prefix.length)) {
		throw new NodeOperationError(ctx.getNode(), `Credential field "${field}" must start with ${prefix}, followed by the ID`);
	}
}
