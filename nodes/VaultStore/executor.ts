import type { IDataObject, IExecuteFunctions, INodeExecutionData, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { Operation, Resource } from './operation';
import { Params } from './operation';
import { secretParameterNames, withRedactedNode } from './redactNode';
import {
	AdaptiveConcurrency,
	DEFAULT_MAX_CONCURRENCY,
	mapLimit,
	MAX_CONCURRENCY,
} from '../shared/transport/concurrency';
import type { EventOrigin, KeySource } from '../shared/transport/idempotency';
import { IdempotencyKeys } from '../shared/transport/idempotency';
import { VAULT_CREDENTIAL } from '../shared/credentials';
import { guardOutput, outputRedactor } from '../shared/transport/outputGuard';
import { checkRecords, DEFAULT_MAX_ITEMS, paginate, readPage, UnexpectedAnswerError, walkCursor } from '../shared/transport/paginate';
import type { Redactor } from '../shared/transport/redact';
import type { ApiRequest } from '../shared/transport/request';
import { DEFAULT_TRANSPORT_OPTIONS, Transport } from '../shared/transport/request';
import { compact } from '../shared/validate';

interface RunOptions {
	/** Ceiling of requests in flight; the adaptive pool decides how many below it. */
	concurrency: number;
	maxRetries: number;
	timeoutMs: number;
	maxItems: number;
	maxAmount?: number;
	idempotencyKey?: string;
}

function readOptions(p: Params): RunOptions {
	const o = p.fields('options');
	return {
		concurrency:
			o.concurrency === undefined
				? DEFAULT_MAX_CONCURRENCY
				: p.v.number('Concurrency', o.concurrency, { min: 1, max: MAX_CONCURRENCY, integer: true }),
		maxRetries:
			o.maxRetries === undefined
				? DEFAULT_TRANSPORT_OPTIONS.maxRetries
				: p.v.number('Max Retries', o.maxRetries, { min: 0, max: 10, integer: true }),
		timeoutMs:
			o.timeout === undefined
				? DEFAULT_TRANSPORT_OPTIONS.timeoutMs
				: p.v.number('Timeout', o.timeout, { min: 100, max: 300_000, integer: true }),
		maxItems:
			o.maxItems === undefined
				? DEFAULT_MAX_ITEMS
				: p.v.number('Return All Maximum', o.maxItems, { min: 1, max: 10_000_000, integer: true }),
		maxAmount:
			o.maxAmount === undefined || o.maxAmount === ''
				? undefined
				: p.v.number('Maximum Amount', o.maxAmount, { min: 0 }),
		idempotencyKey:
			typeof o.idempotencyKey === 'string' && o.idempotencyKey !== '' ? o.idempotencyKey : undefined,
	};
}

/** `{orderId}` in a path becomes the validated, encoded id parameter of that name. */
function fillPath(op: Operation, p: Params): string {
	return op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
		const rule = op.ids?.[name];
		if (!rule) throw new NodeOperationError(p.ctx.getNode(), `No id rule for {${name}} in ${op.path}`);
		return encodeURIComponent(p.id(name, rule));
	});
}

function toItems(records: IDataObject[], itemIndex: number): INodeExecutionData[] {
	return records.map((json) => ({ json, pairedItem: { item: itemIndex } }));
}

/** The records of a single-object answer; anything but an object (or no data) is refused. */
function asRecords(data: unknown): IDataObject[] {
	if (data === undefined || data === null || data === '') return [{ success: true }];
	if (Array.isArray(data)) return checkRecords(data);
	if (typeof data === 'object') return [data as IDataObject];
	throw new UnexpectedAnswerError(`expected an object, got ${typeof data}`);
}

function errorItem(error: unknown, itemIndex: number, redactor: Redactor): INodeExecutionData {
	const e = error as { message?: string; description?: string; httpCode?: string };
	const json: IDataObject = { error: e.message ?? String(error) };
	if (e.description) json.description = e.description;
	if (e.httpCode) json.httpCode = e.httpCode;
	return { json: redactor.value(json), pairedItem: { item: itemIndex } };
}

export const EXTRA_QUERY = { parameter: 'additionalQueryParameters', label: 'Additional Query Parameters' };
export const EXTRA_BODY = { parameter: 'additionalBodyFields', label: 'Additional Body Fields' };

/**
 * Name/value pairs of an "Additional ..." parameter. Body values that read as
 * JSON (numbers, true/false, objects, quoted text) are sent as that JSON.
 */
function readPairs(p: Params, which: typeof EXTRA_QUERY, json: boolean): IDataObject | undefined {
	const rows = (p.fields(which.parameter).pair as IDataObject[] | undefined) ?? [];
	const out: IDataObject = {};
	for (const row of rows) {
		const name = typeof row.name === 'string' ? row.name.trim() : '';
		const raw = row.value === undefined || row.value === null ? '' : String(row.value);
		if (name === '') {
			if (raw === '') continue;
			p.v.fail(`"${which.label}" has a value without a name`);
		}
		if (name in out) p.v.fail(`"${which.label}" names "${name}" twice`);
		let value: unknown = raw;
		if (json && raw.trim() !== '') {
			try {
				value = JSON.parse(raw) as unknown;
			} catch {
				value = raw;
			}
		}
		out[name] = value as IDataObject[string];
	}
	return Object.keys(out).length ? out : undefined;
}

const TRIGGER_TYPE = /(^|\.)vaultStoreTrigger$/;

/** The delivery id of a Vault Store Trigger item: the message id, else the delivery id of its meta. */
function eventIdOf(json: IDataObject | undefined): string | undefined {
	if (!json) return undefined;
	if (typeof json.id === 'string' && json.id !== '') return json.id;
	const meta = json.meta as IDataObject | undefined;
	return typeof meta?.deliveryId === 'string' && meta.deliveryId !== '' ? meta.deliveryId : undefined;
}

/**
 * For each input item, the Vault Store Trigger delivery it descends from
 * (through n8n's paired items) and its position among the items of that
 * delivery; undefined for items that do not descend from one.
 */
function eventOrigins(ctx: IExecuteFunctions, count: number): (EventOrigin | undefined)[] {
	const out: (EventOrigin | undefined)[] = new Array(count).fill(undefined);
	let triggers: string[] = [];
	try {
		triggers = ctx
			.getParentNodes(ctx.getNode().name)
			.filter((node) => TRIGGER_TYPE.test(node.type) && !node.disabled)
			.map((node) => node.name);
	} catch {
		return out;
	}
	if (triggers.length === 0) return out;
	const seen = new Map<string, number>();
	for (let i = 0; i < count; i++) {
		let eventId: string | undefined;
		for (const name of triggers) {
			try {
				const proxy = ctx.getWorkflowDataProxy(i) as unknown as { $: (node: string) => { item?: INodeExecutionData } };
				eventId = eventIdOf(proxy.$(name).item?.json);
			} catch {
				eventId = undefined;
			}
			if (eventId !== undefined) break;
		}
		if (eventId === undefined) continue;
		const position = seen.get(eventId) ?? 0;
		seen.set(eventId, position + 1);
		out[i] = { eventId, position };
	}
	return out;
}

/** Whether n8n runs the node for an AI agent (as `<type>Tool`, or a context that says so). */
export function isToolRun(ctx: IExecuteFunctions): boolean {
	const context = ctx as IExecuteFunctions & { isToolExecution?: () => boolean };
	return ctx.getNode().type.endsWith('Tool') || context.isToolExecution?.() === true;
}

/**
 * The limits an AI agent works within, checked before any request: operations
 * that send card data to a model provider are refused; money-moving ones need
 * a Maximum Amount and stay under it (it applies to normal runs too when set).
 */
function checkAgentLimits(p: Params, op: Operation, options: RunOptions, tool: boolean): void {
	if (tool && op.agent?.refuse) {
		p.v.fail(`${op.name} is not available to AI agents: ${op.agent.refuse}`, 'Run this operation in a normal workflow step instead.');
	}
	if (!op.agent?.amount) return;
	if (tool && options.maxAmount === undefined) {
		p.v.fail(
			`Set "Maximum Amount" in the node's Options before giving "${op.name}" to an AI agent`,
			'An agent may choose any amount; the node refuses calls above the maximum you set.',
		);
	}
	if (options.maxAmount === undefined) return;
	const amount = op.agent.amount(p);
	if (amount === undefined) {
		if (!tool) return;
		p.v.fail(
			`Refused: the amount of "${op.action}" is not known before it is sent, and it must be at most ${options.maxAmount} ("Maximum Amount")`,
			'Give an explicit amount, or ask a person to do it.',
		);
	}
	if (amount > options.maxAmount) {
		p.v.fail(
			`Refused: the amount ${amount} is above the maximum of ${options.maxAmount} set for this node ("Maximum Amount")`,
			'Use an amount at or below the maximum, or ask a person to do it.',
		);
	}
}

/** Values of the item's secret parameters (e.g. card data), so no error can echo them. */
function secretValues(p: Params, names: Set<string>): unknown[] {
	const values: unknown[] = [];
	for (const name of names) {
		try {
			values.push(p.ctx.getNodeParameter(name, p.itemIndex, undefined));
		} catch {
			// not a parameter of this operation
		}
	}
	return values;
}

/**
 * Runs the operation row the node's resource/operation selects, for every
 * input item. Up to the Concurrency ceiling of items are in progress at once;
 * how many of their requests are in flight is up to the run's adaptive pool.
 * Output order and pairedItem follow the input order whatever the concurrency.
 */
export async function executeOperation(
	ctx: IExecuteFunctions,
	resources: readonly Resource[],
): Promise<INodeExecutionData[][]> {
	try {
		return await runOperation(ctx, resources);
	} catch (error) {
		// Errors carry a copy of the node: keep secret parameter values out of it.
		throw withRedactedNode(error, ctx.getNode(), secretParameterNames(resources));
	}
}

async function runOperation(
	ctx: IExecuteFunctions,
	resources: readonly Resource[],
): Promise<INodeExecutionData[][]> {
	const resourceValue = ctx.getNodeParameter('resource', 0) as string;
	const operationValue = ctx.getNodeParameter('operation', 0) as string;
	const resource = resources.find((r) => r.value === resourceValue);
	const op = resource?.operations.find((o) => o.value === operationValue);
	if (!resource || !op) {
		throw new NodeOperationError(
			ctx.getNode(),
			`Unknown operation "${operationValue}" of resource "${resourceValue}"`,
		);
	}

	const items = ctx.getInputData();
	const secretNames = secretParameterNames(resources);
	const first = new Params(ctx, 0);
	const options = readOptions(first);
	// One pool for the whole run: every item's requests and every page of Return All.
	const pool = new AdaptiveConcurrency({ max: options.concurrency });
	const transport = new Transport(
		ctx,
		resource.credential,
		{ ...DEFAULT_TRANSPORT_OPTIONS, maxRetries: options.maxRetries, timeoutMs: options.timeoutMs },
		pool,
	);
	const keys = new IdempotencyKeys({
		workflowId: ctx.getWorkflow().id,
		executionId: ctx.getExecutionId(),
		nodeName: ctx.getNode().name,
		runIndex: (ctx as unknown as { runIndex?: number }).runIndex ?? 0,
	});

	const tool = isToolRun(ctx);
	let origins: (EventOrigin | undefined)[] | undefined;
	const runItem = async (itemIndex: number): Promise<INodeExecutionData[]> => {
		const p = itemIndex === 0 ? first : new Params(ctx, itemIndex);
		// The run's options (the first item's) apply to every item; only the key may differ per item.
		checkAgentLimits(p, op, options, tool);
		const request: ApiRequest = {
			family: op.family,
			method: op.method,
			path: fillPath(op, p),
			inferred: op.inferred,
			hints: op.hints,
			itemIndex,
		};
		const query = op.query?.(p);
		if (query) request.query = compact(query);
		const body = op.body?.(p);
		if (body !== undefined) request.body = Array.isArray(body) ? body : compact(body, op.sendNull);
		if (op.extra?.query) {
			const extra = readPairs(p, EXTRA_QUERY, false);
			if (extra) request.query = { ...request.query, ...extra };
		}
		if (op.extra?.body && !Array.isArray(request.body)) {
			const extra = readPairs(p, EXTRA_BODY, true);
			if (extra) request.body = { ...request.body, ...extra };
		}
		let keySource: KeySource | undefined;
		if (op.idempotent) {
			// Only the key may differ per item (an expression); the other options are the run's.
			const itemOptions = itemIndex === 0 ? options : readOptions(p);
			origins ??= eventOrigins(ctx, items.length);
			const origin = origins[itemIndex];
			if (itemOptions.idempotencyKey !== undefined) {
				request.idempotencyKey = p.v.idempotencyKey(itemOptions.idempotencyKey);
				keySource = 'option';
			} else if (origin !== undefined) {
				request.idempotencyKey = keys.forEvent(origin, `${resource.value}:${op.value}`);
				keySource = 'event';
			} else {
				request.idempotencyKey = keys.forItem(itemIndex);
				keySource = 'execution';
			}
		}

		if (op.run) {
			const out = await op.run({ ctx, p, transport, request, concurrency: options.concurrency });
			return keySource === undefined ? out : out.map((item) => ({ ...item, json: { ...item.json, idempotencyKeySource: keySource } }));
		}

		let records: IDataObject[];
		if (op.list === 'paged') {
			const returnAll = p.get<boolean>('returnAll', false);
			const limit = returnAll ? 0 : p.v.number('Limit', p.get('limit', 50), { min: 1, integer: true });
			records = await paginate(transport, request, {
				returnAll,
				limit,
				concurrency: options.concurrency,
				maxItems: options.maxItems,
			});
		} else if (op.list === 'cursor') {
			const returnAll = p.get<boolean>('returnAll', false);
			const limit = returnAll ? 0 : p.v.number('Limit', p.get('limit', 50), { min: 1, integer: true });
			const cursorParam = p.get<string>('cursorParameter', op.cursorParam ?? 'cursor') || (op.cursorParam ?? 'cursor');
			const walked = await walkCursor(transport, request, { returnAll, limit, maxItems: options.maxItems, cursorParam });
			records = walked.items;
			if (walked.incomplete !== undefined) {
				ctx.addExecutionHints?.({ message: walked.incomplete, type: 'warning', location: 'outputPane' });
				const last = records.length - 1;
				if (last >= 0) records[last] = { ...records[last], listWarning: walked.incomplete };
				else records = [{ listWarning: walked.incomplete }];
			}
		} else if (op.list === 'client') {
			const returnAll = p.get<boolean>('returnAll', false);
			const limit = returnAll ? Infinity : p.v.number('Limit', p.get('limit', 50), { min: 1, integer: true });
			const res = await transport.request(request);
			records = readPage(res.data).items.slice(0, limit);
		} else {
			const res = await transport.request(request);
			records = asRecords(res.data);
			if (res.replay) records = records.map((r) => ({ ...r, idempotentReplay: true }));
			if (keySource !== undefined) records = records.map((r) => ({ ...r, idempotencyKeySource: keySource }));
		}
		if (op.output) records = op.output(records, p);
		return toItems(records, itemIndex);
	};

	const vaultAllowList = resource.credential === VAULT_CREDENTIAL && op.revealsData !== true;
	const perItem = await mapLimit(items, options.concurrency, async (_, itemIndex) => {
		try {
			// Success items: known secrets redacted; vault tokens through the allow-list (outputGuard.ts).
			const out = await runItem(itemIndex);
			const redactor = await outputRedactor(transport, secretValues(new Params(ctx, itemIndex), secretNames));
			return guardOutput(out, redactor, vaultAllowList);
		} catch (error) {
			const redactor = await transport.redactor(secretValues(new Params(ctx, itemIndex), secretNames));
			redactor.error(error);
			if (ctx.continueOnFail()) return [errorItem(error, itemIndex, redactor)];
			if (error instanceof NodeApiError) {
				throw redactor.error(new NodeApiError(ctx.getNode(), error as unknown as JsonObject, { itemIndex }));
			}
			throw redactor.error(new NodeOperationError(ctx.getNode(), error as Error, { itemIndex }));
		}
	});
	return [perItem.flat()];
}
