import type { IDataObject, IExecuteFunctions, INodeExecutionData, JsonObject, NodeExecutionHint } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { isSecurityCodeName, REDACTED, withoutCardData } from './cardData';
import { withoutHidden } from './hidden';
import type { Redactor } from './secrets';
import type { Family } from '../transport/request';

/**
 * The one gate of what leaves the node: `gateOutput` for success items, `gateError` for a
 * failed item. Every operation, run hatch and Custom API Call passes them in the executor.
 *
 * Output policies, by the routes an item's requests went to (as sent, not by the resource):
 *   'store'        known secrets redacted (secrets.ts), security-code fields dropped, card-number
 *                  fields (named as one) redacted; nothing else changes.
 *   'store-agent'  a store answer an AI agent reads (it goes to a model provider), and a trigger's
 *                  item: as 'store', and card numbers standing alone and security codes in text
 *                  redacted too.
 *   'vault'        a vault operation's token: the token allow-list (TOKEN_FIELDS; `mask` and
 *                  `metadata` without card data), then as 'store'.
 *   'vault-custom' a Custom API Call to the vault: a record shaped as a token goes through the
 *                  allow-list (a custom reveal shows no data); any other record is free-form:
 *                  card numbers standing alone and security codes in text redacted too.
 *   'reveal'       Token → Reveal: a card's data as the spec defines it (number, expiry), other
 *                  types' data as the user stored it; a security code never.
 */

export type OutputPolicy = 'store' | 'store-agent' | 'vault' | 'vault-custom' | 'reveal';

/**
 * The output gate's stamp. Whatever leaves the node (action items, error items, trigger items
 * with their headers, execution hints, resource-locator results, the text the once-per-event
 * record stores) is typed `Gated<…>`, and only this file makes one (`stamped` is not exported).
 * A stamp is a class's private member: object spread, string templates and concatenation drop
 * it, so a value changed after the gate (a field added to a gated item, service text put in a
 * gated hint) is no longer `Gated` and does not compile where one is asked for.
 * test/gate-bypass.test.ts compiles such code and expects each line to fail.
 */
declare class OutputGateStamp {
	private readonly outputGateStamp: true;
}
export type Gated<T> = T & OutputGateStamp;

function stamped<T>(value: T): Gated<T> {
	return value as Gated<T>;
}

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

/** The card data fields of a revealed card token, as the spec defines them (a CVC is never among them). */
export const CARD_DATA_FIELDS = ['number', 'exp_month', 'exp_year'] as const;

/** Fields the node itself adds to an item (not from the service's answer). */
const NODE_FIELDS = ['idempotentReplay', 'idempotencyKeySource', 'listWarning', 'success', 'writeSkipped', 'writeRecordedAt'] as const;

function isScalar(value: unknown): boolean {
	return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}

/**
 * A token's mask: every field the service sends (the spec names the card mask's fields only; a
 * bank account's or PII mask's names are the service's), each scalar after the card-data scan,
 * so that a mask never carries a full card number or a security code.
 */
function allowedMask(value: unknown): IDataObject | undefined {
	if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
	const mask: IDataObject = {};
	for (const [field, inner] of Object.entries(value as IDataObject)) {
		if (!isScalar(inner) || isSecurityCodeName(field)) continue;
		const kept = withoutCardData(inner, { freeForm: true }, field) as IDataObject[string];
		// A field that was a card number as a whole is no mask field: left out, not shown redacted.
		if (kept === REDACTED && inner !== REDACTED) continue;
		mask[field] = kept;
	}
	return mask;
}

/** A token as a vault operation other than Reveal may show it. */
export function allowedToken(record: IDataObject): IDataObject {
	const out: IDataObject = {};
	for (const key of [...TOKEN_FIELDS, ...NODE_FIELDS]) {
		if (!(key in record)) continue;
		const value = record[key];
		if (key === 'mask') {
			const mask = allowedMask(value);
			if (mask !== undefined) out.mask = mask;
		} else if (key === 'metadata') {
			out.metadata = withoutCardData(value, { freeForm: true }) as IDataObject;
		} else if (isScalar(value)) {
			// Ids, fingerprints and timestamps are never card numbers: kept as they are.
			out[key] = value as IDataObject[string];
		}
	}
	return out;
}

/**
 * A token as Token → Reveal shows it: the token's fields (as allowedToken) and its data. A card's
 * data is the fields the spec defines (number, exp_month, exp_year) and nothing else: a security
 * code under any name never comes out. Other types' data (a bank account, PII, a custom object:
 * the user's own, in a shape the spec leaves open) keeps every field but one named as a
 * security code.
 */
export function revealedRecord(record: IDataObject): IDataObject {
	const out = allowedToken(record);
	const data = record.data;
	if (data === undefined) return out;
	if (record.type === 'card' && data !== null && typeof data === 'object' && !Array.isArray(data)) {
		const card: IDataObject = {};
		for (const field of CARD_DATA_FIELDS) if (field in data && isScalar((data as IDataObject)[field])) card[field] = (data as IDataObject)[field];
		out.data = card;
	} else {
		out.data = withoutCardData(data, { freeForm: false, keepCardNumbers: true, anyCodeName: true }) as IDataObject;
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
export function outputPolicy(op: { family: Family; revealsData?: true }, families: ReadonlySet<Family> | undefined, tool = false): OutputPolicy {
	const vault = families !== undefined && families.size > 0 ? families.has('vault') : op.family === 'vault';
	if (!vault) return tool ? 'store-agent' : 'store';
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
			return revealedRecord(json);
		case 'store-agent':
			return withoutCardData(json, { freeForm: true }) as IDataObject;
		default:
			return withoutCardData(json, { freeForm: false }) as IDataObject;
	}
}

/**
 * Success items of one input item, as they may leave the node. `hidden`: the fields the rows
 * declare secret (Operation.hides: a product's webhookSecret), left out at any depth (an embedded
 * product, a list, a list envelope) whatever path asked for them: an operation, a Custom API Call
 * with either credential, an agent's call. Token → Reveal alone shows a token's data as the user
 * stored it (the user's own, asked for by name).
 */
export function gateOutput(items: INodeExecutionData[], policy: OutputPolicy, redactor: Redactor, hidden: ReadonlySet<string> = new Set()): Array<Gated<INodeExecutionData>> {
	const store = policy === 'store' || policy === 'store-agent';
	return items.map((item) => {
		// A vault operation's token (its metadata the user's own) and Token → Reveal: no service record in them.
		const json = gateRecord(policy === 'reveal' || policy === 'vault' ? item.json : withoutHidden(item.json, hidden), policy);
		return stamped<INodeExecutionData>({ ...item, json: store ? redactor.secrets(json) : tokenSecrets(json, redactor) });
	});
}

/**
 * A trigger's item, the delivery's metadata and headers included, as it may leave the node: as a
 * store answer an AI agent reads ('store-agent'), since the item goes on to whatever the workflow
 * does next without a record asked for by name: security-code fields dropped, card-number fields,
 * card numbers standing alone and security codes in text redacted, known secrets redacted.
 */
export function gateTriggerItem(json: IDataObject, redactor: Redactor): Gated<INodeExecutionData> {
	return stamped<INodeExecutionData>({ json: redactor.secrets(gateRecord(json, 'store-agent')) });
}

/**
 * Text the node shows or keeps that may carry the service's text (an execution hint, what the
 * once-per-event record stores): every secret, card number and security code replaced, as in an
 * error message.
 */
export function gateText(text: string, redactor: Redactor): Gated<string> {
	return stamped(redactor.text(text));
}

/**
 * A value of the service's answer the node keeps apart from its item (a record id, a currency in
 * the once-per-event record): as in a success answer, only known secrets replaced.
 */
export function gateAnswerText(text: string, redactor: Redactor): Gated<string> {
	return stamped(redactor.secrets(text));
}

/** The one place execution hints leave the node: each message made by gateText. */
export function emitHints(ctx: Pick<IExecuteFunctions, 'addExecutionHints'>, hints: Array<{ message: Gated<string>; type: NodeExecutionHint['type'] }>): void {
	if (hints.length === 0) return;
	ctx.addExecutionHints?.(...hints.map(({ message, type }) => ({ message, type, location: 'outputPane' as const })));
}

/**
 * A vault answer through the known secrets: a token's metadata is the user's own and changes only
 * for the credentials' secrets (never for the token data the user gave, so Create and Get show
 * the same metadata); everything else for every known secret.
 */
function tokenSecrets(json: IDataObject, redactor: Redactor): IDataObject {
	if (json.metadata === undefined) return redactor.secrets(json);
	const { metadata, ...rest } = json;
	const others = redactor.secrets(rest);
	const out: IDataObject = {};
	for (const key of Object.keys(json)) {
		if (key === 'metadata') out.metadata = redactor.secrets(metadata, 'credentials');
		else if (key in others) out[key] = others[key];
	}
	// A key of the rest renamed by the redaction ([redacted]) keeps its place at the end.
	for (const key of Object.keys(others)) if (!(key in out)) out[key] = others[key];
	return out;
}

/**
 * A resource locator's search results, as they may leave the node: a label is free text the
 * editor shows (card numbers standing alone and security codes in text replaced, known secrets
 * replaced); a value is an id (known secrets only).
 */
export function gateSearchResults<T extends { name: string; value: string | number | boolean }>(results: T[], redactor: Redactor): Array<Gated<T>> {
	return results.map((result) => stamped<T>({
		...result,
		name: redactor.secrets(withoutCardData(result.name, { freeForm: true }) as string),
		value: typeof result.value === 'string' ? redactor.secrets(result.value) : result.value,
	}));
}

function errorItem(error: unknown, itemIndex: number, redactor: Redactor): Gated<INodeExecutionData> {
	const e = error as { message?: string; description?: string; httpCode?: string };
	const json: IDataObject = { error: e.message ?? String(error) };
	if (e.description) json.description = e.description;
	if (e.httpCode) json.httpCode = e.httpCode;
	return stamped<INodeExecutionData>({ json: redactor.value(json), pairedItem: { item: itemIndex } });
}

/**
 * A failed item, as it may leave the node: redacted in place, then the continue-on-fail item,
 * or thrown as an n8n error of the item (also redacted). `hidden`: the declared secret fields,
 * out of the error at any depth and redacted where its text quotes a record (`"webhookSecret":"…"`).
 */
export function gateError(ctx: IExecuteFunctions, error: unknown, itemIndex: number, redactor: Redactor, hidden: ReadonlySet<string> = new Set()): Array<Gated<INodeExecutionData>> {
	redactor.hide(hidden).error(error);
	if (ctx.continueOnFail()) return [errorItem(error, itemIndex, redactor)];
	if (error instanceof NodeApiError) {
		throw redactor.error(new NodeApiError(ctx.getNode(), error as unknown as JsonObject, { itemIndex }));
	}
	throw redactor.error(new NodeOperationError(ctx.getNode(), error as Error, { itemIndex }));
}
