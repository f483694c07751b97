import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { VAULT_CREDENTIAL } from '../../../shared/credentials';
import { opt } from '../../../shared/readers';
import { ID } from '../../../shared/ids';
import { enumOptions } from '../../../shared/labels';
import { collectionField, locatorField, returnAllFields } from '../../properties';
import type { Operation, Params, Resource } from '../../operation';
import type { TokenType } from './data';
import {
	cardData,
	futureTimestamp,
	jsonData,
	keyList,
	metadataObject,
	metadataPairs,
	publicToken,
	TOKEN_TYPES,
} from './data';

const GONE =
	'The token does not exist: it was deleted, or its expiry time passed (expired tokens are deleted with their data).';

const REVEAL_403 =
	'Revealing token data needs the tokens:reveal permission on the vault secret key. ' +
	'Use a credential whose key has tokens:reveal, or ask the vault owner to grant it.';

const TOKEN_TYPE_DESCRIPTIONS: Partial<Record<TokenType, string>> = {
	custom: 'Any JSON object up to 16 KiB',
	pii: 'A personal value, e.g. a national ID or phone number',
};

/** The token types, labelled, with a description where the label needs one. */
const tokenTypeOptions = enumOptions(TOKEN_TYPES, { pii: 'PII' }).map((option) => {
	const description = TOKEN_TYPE_DESCRIPTIONS[option.value as TokenType];
	return description === undefined ? option : { ...option, description };
});

/** Key/value pairs, read as `{entries: [{key, value}]}`. */
function keyValues(displayName: string, name: string, description: string): INodeProperties {
	return {
		displayName,
		name,
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Add Key',
		default: {},
		description,
		options: [
			{
				displayName: 'Entry',
				name: 'entries',
				values: [
					{ displayName: 'Key', name: 'key', type: 'string', default: '' },
					{ displayName: 'Value', name: 'value', type: 'string', default: '' },
				],
			},
		],
	};
}

const tokenId = locatorField('tokenId', ID.tokenId);
const ids = { tokenId: ID.tokenId };

const expiresAt: INodeProperties = {
	displayName: 'Expires At',
	name: 'expiresAt',
	type: 'dateTime',
	default: '',
	description: 'When the vault deletes the token and its data (a time in the past is sent with a warning). Leave unset to keep the token until it is deleted.',
};

// ---- create ----

function createBody(p: Params): IDataObject {
	const type = p.v.oneOf('Token Type', p.get('tokenType', ''), TOKEN_TYPES) as TokenType;
	const data = type === 'card' ? cardData(p) : jsonData(p, type);
	const f = p.fields('additionalFields');
	return {
		type,
		data,
		deduplicate: f.deduplicate === true ? true : undefined,
		expires_at:
			opt(f, 'expiresAt', (v) => futureTimestamp(p, 'Expires At', v)),
		metadata: metadataObject(p, 'Metadata', f.metadata, 'Metadata (JSON)', f.metadataJson),
	};
}

/** Metadata values typed: how the key/value pairs and the JSON field send them. */
const TYPED_VALUES =
	'A value typed in the Value field is sent as text; a value from an expression keeps its type (number, true/false, object, list).';

/** Shown only for tokens of this type (the Token Type parameter). */
function forType(type: TokenType): INodeProperties['displayOptions'] {
	return { show: { tokenType: [type] } };
}

const create: Operation = {
	value: 'create',
	name: 'Create',
	action: 'Create a token',
	description:
		'Store a card, bank account, personal value or custom JSON object in the vault and get a token for it. Card details never appear in the output (only the mask); a card that looks wrong (checksum, expiry) is sent with a warning. Always sends an Idempotency-Key.',
	method: 'POST',
	family: 'vault',
	path: '/tokens',
	idempotent: 'required',
	notes: 'card number, expiry and CVC checked before sending (warnings); custom data max 16 KiB; output never has data',
	body: createBody,
	output: (records) => records.map(publicToken),
	fields: [
		{
			displayName: 'Token Type',
			name: 'tokenType',
			type: 'options',
			options: tokenTypeOptions,
			default: 'card',
			required: true,
			description: 'What kind of data the token stands for. Type and data cannot be changed later.',
		},
		{
			displayName: 'Card Number',
			name: 'cardNumber',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: '12 to 19 digits, spaces and dashes allowed; a number that fails the Luhn check is sent with a warning',
			displayOptions: forType('card'),
		},
		{
			displayName: 'Expiry Month',
			name: 'expMonth',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			placeholder: 'MM',
			description: 'Month of the card expiry, 1 to 12',
			displayOptions: forType('card'),
		},
		{
			displayName: 'Expiry Year',
			name: 'expYear',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			placeholder: 'YYYY',
			description: 'Four-digit year of the card expiry, not in the past',
			displayOptions: forType('card'),
		},
		{
			displayName: 'CVC',
			name: 'cvc',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			description:
				'Optional, 3 or 4 digits. The vault keeps it only for one proxy use or one hour, whichever comes first; it is never returned, not even by Reveal.',
			displayOptions: forType('card'),
		},
		{
			displayName: 'Data',
			name: 'data',
			type: 'json',
			default: '{\n  "account_number": "",\n  "routing_number": ""\n}',
			required: true,
			description:
				'Bank account data as a JSON object (must not be empty), e.g. account_number, routing_number, bank_name and country',
			displayOptions: forType('bank_account'),
		},
		{
			displayName: 'Data',
			name: 'data',
			type: 'json',
			default: '{\n  "value": ""\n}',
			required: true,
			description: 'Personal data as a JSON object (must not be empty), e.g. {"value": "..."}',
			displayOptions: forType('pii'),
		},
		{
			displayName: 'Data',
			name: 'data',
			type: 'json',
			default: '{}',
			required: true,
			description: 'Any JSON object up to 16 KiB (16384 bytes as UTF-8 JSON), checked before sending',
			displayOptions: forType('custom'),
		},
		collectionField('additionalFields', [
			{
				displayName: 'Deduplicate',
				name: 'deduplicate',
				type: 'boolean',
				default: false,
				description:
					'Whether to return the existing token when one already holds the same data, instead of creating another',
			},
			expiresAt,
			keyValues('Metadata', 'metadata', `Your own attributes stored with the token. ${TYPED_VALUES}`),
			{
				displayName: 'Metadata (JSON)',
				name: 'metadataJson',
				type: 'json',
				default: '{}',
				description:
					'Your own attributes as a JSON object; values keep their JSON types (numbers, true/false, objects). Merged with Metadata; a key may appear in only one of them. Only text values can be matched by the Get Many metadata filter.',
			},
		]),
	],
};

// ---- delete, get ----

const deleteToken: Operation = {
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
	fields: [tokenId],
};

const get: Operation = {
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
	fields: [tokenId],
};

// ---- getAll ----

function filtersQuery(p: Params): IDataObject {
	const f = p.fields('filters');
	let fingerprint: string | undefined;
	if (f.fingerprint !== undefined && f.fingerprint !== '') {
		fingerprint = p.v.string('Fingerprint', String(f.fingerprint).trim());
		if (!fingerprint.startsWith('fp_')) p.v.fail(`"Fingerprint" must start with "fp_" (got ${fingerprint.slice(0, 40)})`);
	}
	return {
		type: opt(f, 'type', (v) => p.v.oneOf('Type', v, TOKEN_TYPES)),
		fingerprint,
		metadata: metadataPairs(p, 'Metadata', f.metadata),
	};
}

const [returnAll, limit] = returnAllFields;

const getAll: Operation = {
	value: 'getAll',
	name: 'Get Many',
	action: 'Get many tokens',
	description:
		'List tokens, newest first, filtered by type, fingerprint or metadata. Return All follows the paging cursor the vault returns; if the vault says there are more tokens but gives no cursor, the last item and the output say so.',
	method: 'GET',
	family: 'vault',
	path: '/tokens',
	list: 'cursor',
	cursorParam: 'cursor',
	query: filtersQuery,
	output: (records) => records.map(publicToken),
	fields: [
		returnAll,
		limit,
		{
			displayName: 'Cursor Parameter',
			name: 'cursorParameter',
			type: 'string',
			default: 'cursor',
			description:
				"Query parameter that carries the vault's next_cursor to fetch the next page. Change it only if your vault's API reference names it differently.",
		},
		collectionField('filters', [
			{
				displayName: 'Fingerprint',
				name: 'fingerprint',
				type: 'string',
				default: '',
				placeholder: 'fp_...',
				description: 'Only tokens with this fingerprint (tokens holding the same data)',
			},
			keyValues(
				'Metadata',
				'metadata',
				'Only tokens whose metadata has all these keys with these text values (top-level text values only)',
			),
			{
				displayName: 'Type',
				name: 'type',
				type: 'options',
				options: tokenTypeOptions,
				default: 'card',
				description: 'Only tokens of this type',
			},
		]),
	],
};

// ---- reveal ----

const reveal: Operation = {
	value: 'reveal',
	name: 'Reveal',
	action: 'Reveal a token',
	description:
		'Return the raw data of a token. Needs a vault key with the tokens:reveal permission. Every reveal is written to the token access log. A card CVC is never returned.',
	agent: { refuse: 'it returns raw card or personal data, which must not be sent to an AI model' },
	method: 'POST',
	family: 'vault',
	path: '/tokens/{tokenId}/reveal',
	ids,
	scope: 'tokens:reveal',
	notes: 'access-logged; a CVC is never output',
	hints: { 403: REVEAL_403, 404: GONE },
	revealsData: true,
	fields: [tokenId],
};

// ---- update ----

/**
 * The update body. Built here rather than through buildRequest's withoutEmptyValues(),
 * because `expires_at: null` (Clear Expiry) must be sent as null. Metadata
 * keys to remove are sent as null inside `metadata`.
 */
export function updateBody(p: Params): IDataObject {
	const f = p.fields('updateFields');
	const set = metadataObject(p, 'Set Metadata', f.setMetadata, 'Set Metadata (JSON)', f.setMetadataJson) ?? {};
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
	return body;
}

const update: Operation = {
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
	body: updateBody,
	sendNull: ['expires_at'],
	needsBody: {
		message:
			'Nothing to update: add "Set Metadata", "Remove Metadata Keys", "Expires At" or "Clear Expiry". Type and data of a token cannot be changed: create a new token and delete the old one.',
	},
	output: (records) => records.map(publicToken),
	fields: [
		tokenId,
		{
			displayName:
				'Type and data of a token cannot be changed: to replace the data, create a new token and delete the old one',
			name: 'updateNotice',
			type: 'notice',
			default: '',
		},
		collectionField('updateFields', [
			{
				displayName: 'Clear Expiry',
				name: 'clearExpiry',
				type: 'boolean',
				default: false,
				description: 'Whether to remove the expiry, so the token is kept until it is deleted',
			},
			expiresAt,
			{
				displayName: 'Remove Metadata Keys',
				name: 'removeMetadataKeys',
				type: 'string',
				default: '',
				placeholder: 'key1, key2',
				description: 'Metadata keys to remove, separated by commas (sent as null)',
			},
			keyValues(
				'Set Metadata',
				'setMetadata',
				`Metadata keys to add or change; other keys stay as they are. ${TYPED_VALUES}`,
			),
			{
				displayName: 'Set Metadata (JSON)',
				name: 'setMetadataJson',
				type: 'json',
				default: '{}',
				description:
					'Metadata keys to add or change as a JSON object; values keep their JSON types (numbers, true/false, objects), and a key set to null is removed. Merged with Set Metadata; a key may appear in only one of them.',
			},
		]),
	],
};

export const token: Resource = {
	value: 'token',
	name: 'Token',
	description: 'Vault tokens: store sensitive data, look it up, reveal it (tokens:reveal) and delete it',
	credential: VAULT_CREDENTIAL,
	operations: [create, deleteToken, get, getAll, reveal, update],
	// Password fields (card number, expiry, CVC) are kept out of errors anyway; token data too.
	secretParameters: ['data'],
};
