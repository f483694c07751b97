import type { IDataObject, IHttpRequestMethods, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import type { CredentialName } from '../../../shared/credentials';
import { STORE_CREDENTIAL, VAULT_CREDENTIAL } from '../../../shared/credentials';
import { enumOptions } from '../../../shared/labels';
import { collectionField } from '../../properties';
import type { Operation, Params, Resource, RunContext } from '../../operation';
import { LATEST_VERSION } from '../../versions';

export const CUSTOM_METHODS = ['DELETE', 'GET', 'PATCH', 'POST', 'PUT'] as const;
const BODY_METHODS: readonly string[] = ['PATCH', 'POST', 'PUT'];

/** The credential a custom call uses: the `api` parameter's value. */
export const CUSTOM_APIS = { store: STORE_CREDENTIAL, vault: VAULT_CREDENTIAL } as const satisfies Record<string, CredentialName>;
type CustomApi = keyof typeof CUSTOM_APIS;

/** Where the path of each API starts: store paths below the Base URL, vault paths below the credential's vault. */
const PATH_RULES: Record<CustomApi, { prefix: string; example: string; placeholder?: string }> = {
	store: { prefix: '/v2/', example: 'Example: /v2/core/stores/{storeId}/payouts', placeholder: 'storeId' },
	vault: { prefix: '/', example: 'Example: /tokens (below /v2/workspaces/{workspaceId}/vaults/{vaultId} of the credential)' },
};

/**
 * The path of a custom call. Store: below the Base URL, starting with /v2/,
 * with `{storeId}` as the only placeholder. Vault: below the credential's
 * vault URL (e.g. /tokens), no placeholder. Query strings belong in Query
 * Parameters; nothing may step out of the prefix, encoded or not.
 */
export function checkCustomPath(p: Params, raw: unknown, api: CustomApi = 'store'): string {
	const rule = PATH_RULES[api];
	const path = p.v.string('Path', typeof raw === 'string' ? raw.trim() : raw, { min: 1, max: 2048 });
	const example = rule.example;
	if (!path.startsWith(rule.prefix)) p.v.fail(`"Path" must start with ${rule.prefix} (got ${path.slice(0, 60)})`, example);
	if (api === 'vault' && path.startsWith('/v2/')) {
		p.v.fail('"Path" is below the vault URL of the credential: leave out /v2/workspaces/.../vaults/...', example);
	}
	if (/[\s?#]/.test(path)) {
		p.v.fail('"Path" must not contain spaces, "?" or "#"', 'Put query values under "Query Parameters".');
	}
	if (path.includes('\\')) p.v.fail('"Path" must not contain backslashes', example);
	// Decoded (repeatedly, so %252e counts too) before the checks: an encoded dot, slash or
	// backslash must not step out of /v2/ on a server that decodes it.
	let decoded = path;
	for (let round = 0; round < 5; round++) {
		let next: string;
		try {
			next = decodeURIComponent(decoded);
		} catch {
			p.v.fail('"Path" has an invalid percent-encoding (%)', example);
		}
		if (next === decoded) break;
		decoded = next;
	}
	if (/[\\?#\s]/.test(decoded) || /%(?:25)*(?:2f|5c)/i.test(path)) {
		p.v.fail('"Path" must not contain encoded slashes, backslashes, "?" or "#"', example);
	}
	// A trailing slash is kept (the spec writes some routes with one, e.g. /orders/).
	const segments = decoded.split('/').slice(1);
	if (segments.some((segment, i) => (segment === '' && i < segments.length - 1) || segment === '.' || segment === '..')) {
		p.v.fail('"Path" must not contain empty, "." or ".." segments, encoded or not', `Got ${path.slice(0, 60)}`);
	}
	if (!decoded.startsWith(rule.prefix) || decoded === '/') p.v.fail(`"Path" must stay below ${rule.prefix}`, example);
	const unknown = /\{[^}]*\}/.exec(rule.placeholder ? path.split(`{${rule.placeholder}}`).join('') : path);
	if (unknown) {
		p.v.fail(
			`"Path" has an unknown placeholder ${unknown[0]}: ${rule.placeholder ? `only {${rule.placeholder}} is replaced` : 'a vault path has none'}`,
		);
	}
	return path;
}

function readQuery(p: Params): IDataObject | undefined {
	const collection = p.fields('queryParameters');
	const rows = (collection.parameters as IDataObject[] | undefined) ?? [];
	const query: IDataObject = {};
	for (const row of rows) {
		const name = typeof row.name === 'string' ? row.name.trim() : '';
		const value = row.value === undefined || row.value === null ? '' : String(row.value);
		if (name === '') {
			if (value === '') continue;
			p.v.fail('"Query Parameters" has a value without a name');
		}
		if (name in query) p.v.fail(`"Query Parameters" names "${name}" twice`);
		if (value !== '') query[name] = value;
	}
	return Object.keys(query).length ? query : undefined;
}

function readBody(p: Params): IDataObject | IDataObject[] | undefined {
	const parsed = p.v.json('Body', p.get('body', ''));
	if (parsed === undefined || parsed === null) return undefined;
	if (typeof parsed !== 'object') p.v.fail('"Body" must be a JSON object or array');
	if (Array.isArray(parsed)) return parsed.length ? (parsed as IDataObject[]) : undefined;
	return Object.keys(parsed).length ? (parsed as IDataObject) : undefined;
}

function records(data: unknown): IDataObject[] {
	if (data === undefined || data === null || data === '') return [{ success: true }];
	if (Array.isArray(data)) {
		return data.map((entry) =>
			entry !== null && typeof entry === 'object' && !Array.isArray(entry)
				? (entry as IDataObject)
				: { value: entry as IDataObject[keyof IDataObject] },
		);
	}
	if (typeof data === 'object') return [data as IDataObject];
	return [{ value: data as string }];
}

async function customRequest(rc: RunContext): Promise<INodeExecutionData[]> {
	const { p, ctx } = rc;
	const api = p.v.oneOf('API', p.get('api', 'store'), Object.keys(CUSTOM_APIS) as CustomApi[]);
	const method = p.v.oneOf('Method', p.get('method', 'GET'), CUSTOM_METHODS);
	const template = checkCustomPath(p, p.get('path', ''), api);
	const query = readQuery(p);
	const body = BODY_METHODS.includes(method) ? readBody(p) : undefined;
	// Version 1 kept Send Idempotency-Key under Additional Fields (a parameter later versions do not have).
	const sendKey = ctx.getNode().typeVersion < LATEST_VERSION ? p.fields('additionalFields').sendIdempotencyKey === true : p.get<boolean>('sendIdempotencyKey', false) === true;

	let path = template;
	if (api === 'store' && template.includes('{storeId}')) {
		const credentials = await ctx.getCredentials(STORE_CREDENTIAL);
		const storeId = typeof credentials.storeId === 'string' ? credentials.storeId : '';
		if (storeId === '') p.v.fail('"Path" uses {storeId} but the credential has no Store ID');
		path = template.split('{storeId}').join(encodeURIComponent(storeId));
	}

	const res = await rc.transport.request({
		...rc.request,
		// Store paths start at the Base URL (/v2/...); vault paths at the credential's vault.
		family: api === 'vault' ? 'vault' : 'base',
		// A vault route may answer a bare list: each entry becomes an item.
		acceptArray: api === 'vault',
		method: method as IHttpRequestMethods,
		path,
		query,
		body,
		// The request gate chooses the key (Options → Idempotency Key, the event's, or the execution's);
		// a route that moves money always gets one.
		idempotent: sendKey,
	});
	return records(res.data).map((json) => ({
		json: res.replay ? { ...json, idempotentReplay: true } : json,
		pairedItem: { item: p.itemIndex },
	}));
}

const SEND_KEY: INodeProperties = {
	displayName: 'Send Idempotency-Key',
	name: 'sendIdempotencyKey',
	type: 'boolean',
	default: false,
	description:
		'Whether to send an Idempotency-Key header (honoured by refunds, payout creation and checkout pay): the Idempotency Key of the Options, or else a derived one that stays the same on retries: from the Vault Store Trigger event the item descends from (the same in every execution of that event), otherwise from the execution and item. A refund, payout or payment route gets one either way.',
};

const request: Operation = {
	value: 'request',
	name: 'Make a Request',
	action: 'Make a custom API call',
	agent: { confirm: 'it can call any route, including ones that move money or change where payment events go' },
	description:
		"Call any route of the store API (store credential) or of your vault (vault credential): for a route the node has no operation for, or when your account's API reference gives another path or body than an operation sends",
	method: 'GET',
	family: 'base',
	path: '',
	anyRoute: true,
	run: customRequest,
	noExtra: {
		query: 'its own Query Parameters are the whole query',
		body: 'its own Body is the whole body',
	},
	fields: [
		{
			displayName: 'API',
			name: 'api',
			type: 'options',
			noDataExpression: true,
			options: [
				{ name: 'Store API', value: 'store', description: 'With the store credential; paths start with /v2/' },
				{
					name: 'Vault API',
					value: 'vault',
					description: "With the vault credential; paths below the credential's vault, e.g. /tokens",
				},
			],
			default: 'store',
			description: 'Which API to call, and so which credential the call uses',
		},
		{
			displayName: 'Method',
			name: 'method',
			type: 'options',
			// Methods are shown as they are sent: upper case.
			options: enumOptions(CUSTOM_METHODS, Object.fromEntries(CUSTOM_METHODS.map((m) => [m, m]))),
			default: 'GET',
			description: 'HTTP method of the call',
		},
		{
			displayName: 'Path',
			name: 'path',
			type: 'string',
			required: true,
			default: '',
			placeholder: '/v2/core/stores/{storeId}/customers',
			description:
				"Store API: the path below the credential's Base URL, starting with /v2/; {storeId} is replaced with the credential's Store ID (e.g. /v2/core/stores/{storeId}/customers, the customer list). Vault API: the path below the credential's vault, /v2/workspaces/{workspaceId}/vaults/{vaultId}, e.g. /tokens, or a proxy or access-log route your account's API reference gives.",
		},
		{
			displayName: 'Query Parameters',
			name: 'queryParameters',
			type: 'fixedCollection',
			typeOptions: { multipleValues: true },
			placeholder: 'Add Parameter',
			default: {},
			description: 'Query string parameters; ones with an empty value are not sent',
			options: [
				{
					displayName: 'Parameter',
					name: 'parameters',
					values: [
						{ displayName: 'Name', name: 'name', type: 'string', default: '', description: 'Name of the query parameter' },
						{ displayName: 'Value', name: 'value', type: 'string', default: '', description: 'Value of the query parameter' },
					],
				},
			],
		},
		{
			displayName: 'Body',
			name: 'body',
			type: 'json',
			default: '{}',
			description: 'JSON body of the request (an object or an array); an empty object is not sent',
			displayOptions: { show: { method: [...BODY_METHODS] } },
		},
		// Version 2 shows it among the call's own fields; version 1 had it alone under Additional Fields.
		{ ...SEND_KEY, displayOptions: { show: { '@version': [LATEST_VERSION] } } },
		{ ...collectionField('additionalFields', [SEND_KEY]), displayOptions: { show: { '@version': [1] } } },
	],
};

export const custom: Resource = {
	value: 'custom',
	name: 'Custom API Call',
	description: 'Any route of the store API or of your vault, for routes without a dedicated operation',
	credential: STORE_CREDENTIAL,
	credentialChoice: { parameter: 'api', credentials: CUSTOM_APIS },
	operations: [request],
};
