import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { hasCardNumber, isSecurityCodeName } from './redact';
import type { Redactor } from './redact';
import type { Transport } from './request';

/**
 * The last step of every success item before it leaves the node.
 *
 * Every operation: the known secrets (the credential's keys and signing secrets, the item's
 * secret parameters) are redacted wherever the service echoed them; nothing else changes.
 *
 * Vault operations except Reveal (`vaultAllowList`): a token is shown through an allow-list,
 * so a service that echoes card data in a success answer cannot put it into n8n's execution
 * data. Kept: TOKEN_FIELDS, of `mask` only MASK_FIELDS, and `metadata` (what the user stored)
 * without any value that looks like a card number or a field named like a security code, at
 * any depth. Everything else is dropped.
 */

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
const NODE_FIELDS = ['idempotentReplay', 'idempotencyKeySource', 'listWarning', 'success'] as const;

type Scalar = string | number | boolean | null;

function scalar(value: unknown): Scalar | undefined {
	if (value === null || typeof value === 'boolean') return value;
	if (typeof value === 'number') return Number.isFinite(value) && !hasCardNumber(String(value)) ? value : undefined;
	if (typeof value === 'string') return hasCardNumber(value) ? undefined : value;
	return undefined;
}

/** A copy without security-code fields and without values that look like card numbers, at any depth. */
export function withoutCardData(value: unknown, depth = 0): unknown {
	if (depth > 20) return undefined;
	if (Array.isArray(value)) {
		return value.map((entry) => withoutCardData(entry, depth + 1)).filter((entry) => entry !== undefined);
	}
	if (value !== null && typeof value === 'object') {
		const out: IDataObject = {};
		for (const [key, inner] of Object.entries(value as IDataObject)) {
			if (isSecurityCodeName(key)) continue;
			const kept = withoutCardData(inner, depth + 1);
			if (kept !== undefined) out[key] = kept as IDataObject[string];
		}
		return out;
	}
	return scalar(value);
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
				const kept = scalar((value as IDataObject)[field]);
				if (kept !== undefined) mask[field] = kept;
			}
			out.mask = mask;
		} else if (key === 'metadata') {
			const kept = withoutCardData(value);
			if (kept !== undefined) out.metadata = kept as IDataObject;
		} else {
			const kept = scalar(value);
			if (kept !== undefined) out[key] = kept;
		}
	}
	return out;
}

/** One redactor of the credential's secrets per transport (node run), for items without secret values of their own. */
const runRedactors = new WeakMap<Transport, Promise<Redactor>>();

function hasValue(value: unknown): boolean {
	if (value === undefined || value === null || value === '') return false;
	if (typeof value === 'object') return Object.values(value as IDataObject).some(hasValue);
	return true;
}

/**
 * The redactor for one item's success output: the run's (the credential's secrets) unless the
 * item has secret parameter values of its own (e.g. card data), then one that knows them too.
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

/** Success items of one input item, as they may leave the node. */
export function guardOutput(items: INodeExecutionData[], redactor: Redactor, vaultAllowList: boolean): INodeExecutionData[] {
	return items.map((item) => {
		const json = vaultAllowList ? allowedToken(item.json) : item.json;
		return { ...item, json: redactor.secrets(json) };
	});
}
