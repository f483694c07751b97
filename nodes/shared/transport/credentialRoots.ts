import type { IDataObject, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { CredentialName } from '../credentials';
import { STORE_CREDENTIAL } from '../credentials';
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
 * The credential's Base URL: https://host[:port] (plain http only for loopback hosts), with an
 * optional path prefix (a service behind a gateway, e.g. https://gw.example.com/vault-store),
 * without user, query or fragment. Returns the origin and the prefix, without a trailing slash.
 */
export function checkBaseUrl(node: INode, raw: unknown): string {
	const field = 'Credential field "Base URL"';
	const text = typeof raw === 'string' ? raw.trim() : '';
	const example = 'Example: https://api.example.com, or with the path of a gateway in front of the service, https://gw.example.com/vault-store (for the local sandbox, the URL `npm run sandbox` prints)';
	if (text === '') throw new NodeOperationError(node, `${field} is empty`, { description: example });
	if (/\s/.test(text)) {
		throw new NodeOperationError(node, `${field} contains spaces or line breaks`, { description: example });
	}
	let url: URL;
	try {
		url = new URL(text);
	} catch {
		throw new NodeOperationError(node, `${field} is not a valid address`, { description: example });
	}
	const loopback = LOOPBACK_HOST.test(url.hostname);
	if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
		throw new NodeOperationError(node, `${field} must start with https://`, {
			description: `Plain http:// would send the secret key unencrypted; it is allowed only for localhost, 127.x.x.x and [::1]. ${example}`,
		});
	}
	if (url.username !== '' || url.password !== '') {
		throw new NodeOperationError(node, `${field} must not contain a user name or password`, { description: example });
	}
	if (url.search !== '' || url.hash !== '' || /[?#]/.test(text)) {
		throw new NodeOperationError(node, `${field} must be the address (scheme, host, port and an optional path), without a query or fragment`, {
			description: example,
		});
	}
	// A path prefix as the URL parser leaves it (dot segments resolved); an encoded slash or a
	// backslash in it would be read as another path by the service.
	const prefix = url.pathname.replace(/\/+$/, '');
	if (/%2f|%5c|\\|\/\//i.test(prefix)) {
		throw new NodeOperationError(node, `${field} has an encoded slash, a backslash or a doubled slash in its path`, { description: example });
	}
	return `${url.origin}${prefix}`;
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
