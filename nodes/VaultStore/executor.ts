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
import { IdempotencyKeys } from '../shared/transport/idempotency';
import { checkRecords, DEFAULT_MAX_ITEMS, paginate, readPage, UnexpectedAnswerError } from '../shared/transport/paginate';
import type { Redactor } from '../shared/transport/redact';
import type { ApiRequest } from '../shared/transport/request';
import { DEFAULT_TRANSPORT_OPTIONS, Transport } from '../shared/transport/request';
import { compact } from './validate';

interface RunOptions {
	/** Ceiling of requests in flight; the adaptive pool decides how many below it. */
	concurrency: number;
	maxRetries: number;
	timeoutMs: number;
	maxItems: number;
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

	const runItem = async (itemIndex: number): Promise<INodeExecutionData[]> => {
		const p = itemIndex === 0 ? first : new Params(ctx, itemIndex);
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
		if (body !== undefined) request.body = Array.isArray(body) ? body : compact(body);
		if (op.idempotent) {
			// Only the key may differ per item (an expression); the other options are the run's.
			const itemOptions = itemIndex === 0 ? options : readOptions(p);
			request.idempotencyKey =
				itemOptions.idempotencyKey !== undefined
					? p.v.idempotencyKey(itemOptions.idempotencyKey)
					: keys.forItem(itemIndex);
		}

		if (op.run) {
			return await op.run({ ctx, p, transport, request, concurrency: options.concurrency });
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
		} else if (op.list === 'client') {
			const returnAll = p.get<boolean>('returnAll', false);
			const limit = returnAll ? Infinity : p.v.number('Limit', p.get('limit', 50), { min: 1, integer: true });
			const res = await transport.request(request);
			records = readPage(res.data).items.slice(0, limit);
		} else {
			const res = await transport.request(request);
			records = asRecords(res.data);
			if (res.replay) records = records.map((r) => ({ ...r, idempotentReplay: true }));
		}
		if (op.output) records = op.output(records, p);
		return toItems(records, itemIndex);
	};

	const perItem = await mapLimit(items, options.concurrency, async (_, itemIndex) => {
		try {
			return await runItem(itemIndex);
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
