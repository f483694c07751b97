import type { IDataObject, IExecuteFunctions, INodeExecutionData, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { withoutCardData } from './cardData';
import type { Redactor } from './secrets';
import type { Family, Transport } from '../transport/request';

/**
 * The one gate of what leaves the node: `gateOutput` for success items, `gateError` for a
 * failed item. Every operation, run hatch and Custom API Call passes them in the executor.
 *
 * Output policies, by the routes an item's requests went to (as sent, not by the resource):
 *   'store'        known secrets redacted (secrets.ts), security-code fields dropped, card-number
 *                  fields (named as one) redacted; nothing else changes.
 *   'vault'        a vault operation's token: the token allow-list (TOKEN_FIELDS, of `mask` only
 *                  MASK_FIELDS, `metadata` without card data), then as 'store'.
 *   'vault-custom' a Custom API Call to the vault: a record shaped as a token goes through the
 *                  allow-list (a custom reveal shows no data); any other record is free-form:
 *                  card numbers standing alone and security codes in text redacted too.
 *   'reveal'       Token → Reveal: the data the user asked for stays, a security code never.
 */

export type OutputPolicy = 'store' | 'vault' | 'vault-custom' | 'reveal';

export const TOKEN_FIELDS = [
	'object',
	'id',
	'type',
	'fingerprint',
	'mask',
	'metadata',
	'created_at',
	'updated_at',
	'expires_at',
	'createdAt',
	'updatedAt',
	'expiresAt',
	'deleted',
] as const;

export const MASK_FIELDS = ['brand', 'last4', 'exp_month', 'exp_year', 'expiry', 'funding', 'country', 'bank_name'] as const;

/** Fields the node itself adds to an item (not from the service's answer). */
const NODE_FIELDS = ['idempotentReplay', 'idempotencyKeySource', 'listWarning', 'success', 'writeSkipped', 'writeRecordedAt'] as const;

function isScalar(value: unknown): boolean {
	return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}

/** A token as a vault operation other than Reveal may show it. */
export function allowedToken(record: IDataObject): IDataObject {
	const out: IDataObject = {};
	for (const key of [...TOKEN_FIELDS, ...NODE_FIELDS]) {
		if (!(key in record)) continue;
		const value = record[key];
		if (key === 'mask') {
			if (value === null || typeof value !== 'object' || Array.isArray(value)) continue;
			const mask: IDataObject = {};
			for (const field of MASK_FIELDS) {
				const inner = (value as IDataObject)[field];
				if (isScalar(inner)) mask[field] = withoutCardData(inner, { freeForm: true }) as IDataObject[string];
			}
			out.mask = mask;
		} else if (key === 'metadata') {
			out.metadata = withoutCardData(value, { freeForm: true }) as IDataObject;
		} else if (isScalar(value)) {
			// Ids, fingerprints and timestamps are never card numbers: kept as they are.
			out[key] = value as IDataObject[string];
		}
	}
	return out;
}

/** A record of a vault answer shaped as a token: its object says so, or its id is a token id. */
function tokenShaped(record: IDataObject): boolean {
	return record.object === 'token' || (typeof record.id === 'string' && record.id.startsWith('tok_'));
}

/**
 * The policy of one item's output. `families`: the families of the requests the item sent (none
 * when nothing was sent, e.g. a write already recorded); `freeForm`: the operation is a Custom API
 * Call; `reveals`: Token → Reveal.
 */
export function outputPolicy(op: { family: Family; revealsData?: true }, families: ReadonlySet<Family> | undefined): OutputPolicy {
	const vault = families !== undefined && families.size > 0 ? families.has('vault') : op.family === 'vault';
	if (!vault) return 'store';
	if (op.revealsData === true && op.family === 'vault') return 'reveal';
	return op.family === 'base' ? 'vault-custom' : 'vault';
}

function gateRecord(json: IDataObject, policy: OutputPolicy): IDataObject {
	switch (policy) {
		case 'vault':
			return allowedToken(json);
		case 'vault-custom':
			return tokenShaped(json) ? allowedToken(json) : (withoutCardData(json, { freeForm: true }) as IDataObject);
		case 'reveal':
			return withoutCardData(json, { freeForm: false, keepCardNumbers: true }) as IDataObject;
		default:
			return withoutCardData(json, { freeForm: false }) as IDataObject;
	}
}

/** Success items of one input item, as they may leave the node. */
export function gateOutput(items: INodeExecutionData[], policy: OutputPolicy, redactor: Redactor): INodeExecutionData[] {
	return items.map((item) => ({ ...item, json: redactor.secrets(gateRecord(item.json, policy)) }));
}

/** One redactor of the credential's secrets per transport (node run), for items without secret values of their own. */
const runRedactors = new WeakMap<Transport, Promise<Redactor>>();

function hasValue(value: unknown): boolean {
	if (value === undefined || value === null || value === '') return false;
	if (typeof value === 'object') return Object.values(value as IDataObject).some(hasValue);
	return true;
}

/**
 * The redactor for one item: the run's (the credential's secrets) unless the item has secret
 * parameter values of its own (e.g. card data), then one that knows them too.
 */
export async function outputRedactor(transport: Transport, itemSecrets: unknown[]): Promise<Redactor> {
	if (itemSecrets.some(hasValue)) return await transport.redactor(itemSecrets);
	let shared = runRedactors.get(transport);
	if (shared === undefined) {
		shared = transport.redactor();
		runRedactors.set(transport, shared);
	}
	return await shared;
}

function errorItem(error: unknown, itemIndex: number, redactor: Redactor): INodeExecutionData {
	const e = error as { message?: string; description?: string; httpCode?: string };
	const json: IDataObject = { error: e.message ?? String(error) };
	if (e.description) json.description = e.description;
	if (e.httpCode) json.httpCode = e.httpCode;
	return { json: redactor.value(json), pairedItem: { item: itemIndex } };
}

/**
 * A failed item, as it may leave the node: redacted in place, then the continue-on-fail item,
 * or thrown as an n8n error of the item (also redacted).
 */
export function gateError(ctx: IExecuteFunctions, error: unknown, itemIndex: number, redactor: Redactor): INodeExecutionData[] {
	redactor.error(error);
	if (ctx.continueOnFail()) return [errorItem(error, itemIndex, redactor)];
	if (error instanceof NodeApiError) {
		throw redactor.error(new NodeApiError(ctx.getNode(), error as unknown as JsonObject, { itemIndex }));
	}
	throw redactor.error(new NodeOperationError(ctx.getNode(), error as Error, { itemIndex }));
}
