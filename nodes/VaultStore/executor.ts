import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { RequestGate } from '../shared/money';
import type { Permit } from '../shared/transport/concurrency';
import { AdaptiveConcurrency, mapLimit } from '../shared/transport/concurrency';
import type { Gated } from '../shared/redaction/gate';
import { gateAnswerText, gateError, gateOutput, gateText, outputPolicy } from '../shared/redaction/gate';
import { secretParameterNames, withRedactedNode } from '../shared/redaction/node';
import { DEFAULT_TRANSPORT_OPTIONS, Transport } from '../shared/transport/request';
import { buildRequest } from './buildRequest';
import { ignoredNames } from './guessedNames';
import { LocalChecks } from './localChecks';
import { moneyRoutesOf } from './moneyRoutes';
import type { Operation, Resource, RunInput } from './operation';
import { credentialOf, Params } from './operation';
import { readList } from './readList';
import { readItemRules, readRunOptions } from './runOptions';
import { asRecords, toItems } from './shape';

/** Whether n8n runs the node for an AI agent (as `<type>Tool`, or a context that says so). */
export function isToolRun(ctx: IExecuteFunctions): boolean {
	const context = ctx as IExecuteFunctions & { isToolExecution?: () => boolean };
	return ctx.getNode().type.endsWith('Tool') || context.isToolExecution?.() === true;
}

/**
 * Values of the item's secret parameters (e.g. card data), so no error or output can echo them.
 * `names` are the secret parameters the node has (read once per run); most operations have none.
 */
function secretValues(ctx: IExecuteFunctions, itemIndex: number, names: readonly string[]): unknown[] {
	const values: unknown[] = [];
	for (const name of names) {
		try {
			values.push(ctx.getNodeParameter(name, itemIndex, undefined));
		} catch {
			// an expression that cannot be resolved for this item: nothing it could echo
		}
	}
	return values;
}

function findOperation(ctx: IExecuteFunctions, resources: readonly Resource[]): { resource: Resource; op: Operation } {
	const resourceValue = ctx.getNodeParameter('resource', 0) as string;
	const operationValue = ctx.getNodeParameter('operation', 0) as string;
	const resource = resources.find((r) => r.value === resourceValue);
	const op = resource?.operations.find((o) => o.value === operationValue);
	if (!resource || !op) {
		throw new NodeOperationError(ctx.getNode(), `Unknown operation "${operationValue}" of resource "${resourceValue}"`);
	}
	return { resource, op };
}

/**
 * Runs the operation row the node's resource/operation selects, for every
 * input item. Up to the Concurrency ceiling of items are in progress at once;
 * how many of their requests are in flight is up to the run's adaptive pool.
 * Output order and pairedItem follow the input order whatever the concurrency.
 */
export async function executeOperation(ctx: IExecuteFunctions, resources: readonly Resource[]): Promise<INodeExecutionData[][]> {
	try {
		return await runOperation(ctx, resources);
	} catch (error) {
		// Errors carry a copy of the node: keep secret parameter values out of it.
		throw withRedactedNode(error, ctx.getNode(), secretParameterNames(resources));
	}
}

async function runOperation(ctx: IExecuteFunctions, resources: readonly Resource[]): Promise<Array<Array<Gated<INodeExecutionData>>>> {
	const { resource, op } = findOperation(ctx, resources);
	const items = ctx.getInputData();
	const localChecks = new LocalChecks(ctx);
	// Read once for the run: n8n copies the node on every getNode().
	const run: RunInput = { node: ctx.getNode(), items };
	// n8n keeps only the parameters the operation shows: the secret ones this node has, once per run.
	const itemSecretNames = [...secretParameterNames(resources)].filter((name) => Object.prototype.hasOwnProperty.call(run.node.parameters, name));
	const params = (itemIndex: number) => (itemIndex === 0 ? first : new Params(ctx, itemIndex, localChecks.sink(itemIndex), run));
	const first = new Params(ctx, 0, localChecks.sink(0), run);
	const options = readRunOptions(first, run.node.typeVersion);
	const hinted = new Set<string>();
	// An agent's run: its output goes to a model provider (the output gate's 'store-agent' policy).
	const tool = isToolRun(ctx);
	// Secret fields of the service's records, as the rows declare them: out of every answer and error, at any depth.
	const hiddenFields = new Set(resources.flatMap((r) => r.operations.flatMap((row) => row.hides ?? [])));
	const gate: RequestGate = new RequestGate({
		ctx,
		row: { name: op.name, action: op.action, agent: op.agent, money: op.money !== undefined },
		routes: moneyRoutesOf(resources),
		tool,
		itemRules: (itemIndex) => readItemRules(params(itemIndex), op),
		hint: (kind, message, type = 'info') => {
			if (hinted.has(kind)) return;
			hinted.add(kind);
			localChecks.note([message], type);
		},
		// What the once-per-event record keeps of the service's answer (static data, n8n's store):
		// through the output gate first. A write was sent, so the credential has been read.
		gateText: (text, kind) => (kind === 'message' ? gateText : gateAnswerText)(text, transport.redactorNow()),
		timing: { timeoutMs: options.timeoutMs, maxRetries: options.maxRetries },
	});
	// One pool for the whole run: every item's requests and every page of Return All.
	const pool = new AdaptiveConcurrency({ max: options.concurrency });
	const transport: Transport = new Transport(
		ctx,
		credentialOf(resource, ctx),
		{ ...DEFAULT_TRANSPORT_OPTIONS, maxRetries: options.maxRetries, timeoutMs: options.timeoutMs },
		pool,
		gate,
	);
	// The run's hints (a list's warnings, the money gate's) leave with the others, through the gate.
	transport.hints = (message) => localChecks.note([message]);

	/** One item: build → agent limits → send (the gate: key, once-check, money rules, read-back) → shape. */
	const runItem = async (itemIndex: number, slot: { permit?: Permit }): Promise<INodeExecutionData[]> => {
		const p = params(itemIndex);
		gate.checkItem(itemIndex);
		const request = buildRequest(op, p);
		let records: IDataObject[];
		if (op.run) {
			const out = await op.run({ ctx, p, transport, request, concurrency: options.concurrency });
			return withFields(out, gate.outputFields(itemIndex, op.idempotent !== undefined));
		}
		if (op.list) {
			records = await readList(ctx, op, p, transport, request, options, (messages) => localChecks.note(messages));
		} else {
			const permit = slot.permit;
			slot.permit = undefined;
			const res = await transport.request(request, permit);
			records = asRecords(res.data);
			if (res.replay) records = records.map((r) => ({ ...r, idempotentReplay: true }));
			const fields = gate.outputFields(itemIndex, op.idempotent !== undefined);
			if (fields !== undefined) records = records.map((r) => ({ ...r, ...fields }));
		}
		if (op.guessedNames) {
			const ignored = ignoredNames(op, request, records);
			localChecks.note(ignored);
			// A list the service did not filter or sort as asked: every item says so (an agent or a later step reads it).
			if (ignored.length > 0 && op.list) records = withListWarning(records, ignored.join(' '));
		}
		if (op.output) records = op.output(records, p);
		return toItems(records, itemIndex);
	};

	// Single-request operations take their slot of the pool before the item is read, so items are
	// read only as fast as the window lets them go out (no item waits, read, behind a full window).
	const direct = !op.run && !op.list;
	const perItem = await mapLimit(items, options.concurrency, async (_, itemIndex): Promise<Array<Gated<INodeExecutionData>>> => {
		const slot = { permit: direct ? await pool.acquire() : undefined };
		try {
			// Success items through the output gate, its policy from the routes the item's requests went to.
			const out = await runItem(itemIndex, slot);
			// The credential's redactor (made once per credential), or one that also knows the item's own secret values (card data).
			const redactor = await transport.redactor(secretValues(ctx, itemIndex, itemSecretNames));
			return gateOutput(out, outputPolicy(op, transport.familiesSent.get(itemIndex), tool), redactor, hiddenFields);
		} catch (error) {
			return gateError(ctx, error, itemIndex, await transport.redactor(secretValues(ctx, itemIndex, itemSecretNames)), hiddenFields);
		} finally {
			// The item failed before its request was sent: give the slot back.
			if (slot.permit) pool.release(slot.permit, 'neutral');
		}
	}).finally(async () => localChecks.flush(await transport.redactor()));
	gate.finish();
	return [perItem.flat()];
}

/** The gate's fields (key source, budgets left) on each output item. */
function withFields(out: INodeExecutionData[], fields: IDataObject | undefined): INodeExecutionData[] {
	if (fields === undefined) return out;
	return out.map((item) => ({ ...item, json: { ...item.json, ...fields } }));
}

/** `warning` on every record of a list, after a warning the record already carries (an incomplete list's). */
function withListWarning(records: IDataObject[], warning: string): IDataObject[] {
	return records.map((record) => ({ ...record, listWarning: typeof record.listWarning === 'string' ? `${record.listWarning} ${warning}` : warning }));
}
