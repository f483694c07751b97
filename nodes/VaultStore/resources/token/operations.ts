import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { Operation, Params, RunContext } from '../../operation';
import { ID } from '../../../shared/ids';
import type { TokenType } from './data';
import {
	cardData,
	futureTimestamp,
	jsonData,
	keyList,
	metadataPairs,
	publicToken,
	revealedToken,
	TOKEN_TYPES,
} from './data';

const GONE =
	'The token does not exist: it was deleted, or its expiry time passed (expired tokens are deleted with their data).';

const REVEAL_403 =
	'Revealing token data needs the tokens:reveal permission on the vault secret key. ' +
	'Use a credential whose key has tokens:reveal, or ask the vault owner to grant it.';

function asRecords(data: unknown): IDataObject[] {
	if (Array.isArray(data)) return data as IDataObject[];
	if (data !== null && typeof data === 'object') return [data as IDataObject];
	return [];
}

function createBody(p: Params): IDataObject {
	const type = p.v.oneOf('Token Type', p.get('tokenType', ''), TOKEN_TYPES) as TokenType;
	const data = type === 'card' ? cardData(p) : jsonData(p, type);
	const f = p.fields('additionalFields');
	return {
		type,
		data,
		deduplicate: f.deduplicate === true ? true : undefined,
		expires_at:
			f.expiresAt === undefined || f.expiresAt === '' ? undefined : futureTimestamp(p, 'Expires At', f.expiresAt),
		metadata: metadataPairs(p, 'Metadata', f.metadata),
	};
}

/**
 * The update body. Built here rather than through the executor's compact(),
 * because `expires_at: null` (Clear Expiry) must be sent as null. Metadata
 * keys to remove are sent as null inside `metadata`.
 */
export function updateBody(p: Params): IDataObject {
	const f = p.fields('updateFields');
	const set = metadataPairs(p, 'Set Metadata', f.setMetadata) ?? {};
	const remove = keyList(f.removeMetadataKeys);
	const both = remove.find((k) => k in set);
	if (both !== undefined) {
		p.v.fail(`"Remove Metadata Keys" and "Set Metadata" both name the key "${both.slice(0, 40)}"`);
	}
	const body: IDataObject = {};
	if (Object.keys(set).length || remove.length) {
		const metadata: IDataObject = { ...set };
		for (const key of remove) metadata[key] = null;
		body.metadata = metadata;
	}
	const hasExpiry = f.expiresAt !== undefined && f.expiresAt !== '';
	if (f.clearExpiry === true) {
		if (hasExpiry) p.v.fail('"Clear Expiry" and "Expires At" cannot be used together: choose one');
		body.expires_at = null;
	} else if (hasExpiry) {
		body.expires_at = futureTimestamp(p, 'Expires At', f.expiresAt);
	}
	if (Object.keys(body).length === 0) {
		p.v.fail(
			'Nothing to update: add "Set Metadata", "Remove Metadata Keys", "Expires At" or "Clear Expiry"',
			'Type and data of a token cannot be changed: create a new token and delete the old one.',
		);
	}
	return body;
}

async function runUpdate(rc: RunContext): Promise<INodeExecutionData[]> {
	const body = updateBody(rc.p);
	const res = await rc.transport.request({ ...rc.request, body });
	return asRecords(res.data).map((record) => ({
		json: publicToken(record),
		pairedItem: { item: rc.p.itemIndex },
	}));
}

function filtersQuery(p: Params): IDataObject {
	const f = p.fields('filters');
	let fingerprint: string | undefined;
	if (f.fingerprint !== undefined && f.fingerprint !== '') {
		fingerprint = p.v.string('Fingerprint', String(f.fingerprint).trim(), { min: 4, max: 128 });
		if (!fingerprint.startsWith('fp_')) p.v.fail(`"Fingerprint" must start with "fp_" (got ${fingerprint.slice(0, 40)})`);
	}
	return {
		type: f.type === undefined || f.type === '' ? undefined : p.v.oneOf('Type', f.type, TOKEN_TYPES),
		fingerprint,
		metadata: metadataPairs(p, 'Metadata', f.metadata),
	};
}

const ids = { tokenId: ID.tokenId };

export const tokenOperations: Operation[] = [
	{
		value: 'create',
		name: 'Create',
		action: 'Create a token',
		description:
			'Store a card, bank account, personal value or custom JSON object in the vault and get a token for it. Card details are checked before sending and never shown in the output (only the mask). Always sends an Idempotency-Key.',
		method: 'POST',
		family: 'vault',
		path: '/tokens',
		idempotent: 'required',
		notes: 'card number, expiry and CVC checked before sending; custom data max 16 KiB; output never has data',
		body: createBody,
		output: (records) => records.map(publicToken),
	},
	{
		value: 'delete',
		name: 'Delete',
		action: 'Delete a token',
		description: 'Delete a token and erase its data permanently',
		method: 'DELETE',
		family: 'vault',
		path: '/tokens/{tokenId}',
		ids,
		hints: { 404: GONE },
		output: (records, p) =>
			records.map((r) => ({
				object: r.object ?? 'token',
				id: r.id ?? p.id('tokenId', ID.tokenId),
				deleted: r.deleted ?? true,
			})),
	},
	{
		value: 'get',
		name: 'Get',
		action: 'Get a token',
		description: 'Get a token: type, fingerprint, mask, metadata and expiry, never its data',
		method: 'GET',
		family: 'vault',
		path: '/tokens/{tokenId}',
		ids,
		hints: { 404: GONE },
		output: (records) => records.map(publicToken),
	},
	{
		value: 'getAll',
		name: 'Get Many',
		action: 'Get many tokens',
		description:
			'List tokens, newest first, filtered by type, fingerprint or metadata. The list is read in one request and Limit is applied by the node (the token list pagination is not documented).',
		method: 'GET',
		family: 'vault',
		path: '/tokens',
		list: 'client',
		query: filtersQuery,
		output: (records) => records.map(publicToken),
	},
	{
		value: 'reveal',
		name: 'Reveal',
		action: 'Reveal a token',
		description:
			'Return the raw data of a token. Needs a vault key with the tokens:reveal permission. Every reveal is written to the token access log. A card CVC is never returned.',
		method: 'POST',
		family: 'vault',
		path: '/tokens/{tokenId}/reveal',
		ids,
		scope: 'tokens:reveal',
		notes: 'access-logged; a CVC is never output',
		hints: { 403: REVEAL_403, 404: GONE },
		output: (records) => records.map(revealedToken),
	},
	{
		value: 'update',
		name: 'Update',
		action: 'Update a token',
		description:
			'Set or remove metadata keys and set or clear the expiry. Type and data cannot be changed: create a new token and delete the old one.',
		method: 'PATCH',
		family: 'vault',
		path: '/tokens/{tokenId}',
		ids,
		hints: { 404: GONE },
		notes: 'metadata keys removed with null; Clear Expiry sends expires_at: null',
		run: runUpdate,
	},
];
