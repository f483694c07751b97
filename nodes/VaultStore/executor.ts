import type { IDataObject, IExecuteFunctions, INodeExecutionData, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { Operation, Resource, RunInput } from './operation';
import { credentialOf, extrasOf, Params } from './operation';
import { ignoredNames } from './guessedNames';
import { LocalChecks } from './localChecks';
import { secretParameterNames, withRedactedNode } from './redactNode';
import type { Permit } from '../shared/transport/concurrency';
import {
	AdaptiveConcurrency,
	DEFAULT_MAX_CONCURRENCY,
	mapLimit,
	MAX_CONCURRENCY,
} from '../shared/transport/concurrency';
import type { MoneySpec } from '../shared/money';
import { checkCap, isMoneyRoute, readBack } from '../shared/money';
import type { EventOrigin, KeySource } from '../shared/transport/idempotency';
import { IdempotencyKeys, writeFingerprint } from '../shared/transport/idempotency';
import { WriteRecord } from '../shared/writeRecord';
import { VAULT_CREDENTIAL } from '../shared/credentials';
import { eventIdOf, isTriggerNodeType } from '../shared/events';
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
	allowAgentWrites: boolean;
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
		allowAgentWrites: o.allowAgentWrites === true,
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

/** Integers longer than a number keeps exactly (e.g. numeric ids) stay text. */
const UNSAFE_INTEGER = /^-?\d{16,}$/;

/**
 * Name/value pairs of an "Additional ..." parameter. Query values are sent as
 * typed; body values that read as JSON (numbers, true/false, null, objects,
 * arrays, "quoted text") are sent as that JSON, anything else as text.
 */
function readPairs(p: Params, which: typeof EXTRA_QUERY, json: boolean): IDataObject | undefined {
	const rows = (p.fields(which.parameter).pair as IDataObject[] | undefined) ?? [];
	const out: IDataObject = {};
	for (const row of rows) {
		const name = typeof row.name === 'string' ? row.name.trim() : '';
		const raw = row.value === undefined || row.value === null ? '' : typeof row.value === 'string' ? row.value : JSON.stringify(row.value);
		if (name === '') {
			if (raw === '') continue;
			p.v.fail(`"${which.label}" has a value without a name`, 'Give every value the name the service expects, or remove the row.');
		}
		if (Object.prototype.hasOwnProperty.call(out, name)) p.v.fail(`"${which.label}" names "${name}" twice`);
		// Dropped on the way by JSON tooling, so refused rather than silently lost.
		if (name === '__proto__') p.v.fail(`"${which.label}" cannot send a field named __proto__`);
		let value: unknown = raw;
		if (json && raw.trim() !== '' && !UNSAFE_INTEGER.test(raw.trim())) {
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

/**
 * Merges Additional Query Parameters and Additional Body Fields over the
 * request the row built (a name given there replaces the node's own); then
 * refuses an empty body where the row needs one. They only ever reach the
 * query string and the JSON body: never a header, the host or the path.
 */
function applyExtras(op: Operation, p: Params, request: ApiRequest): void {
	const offered = extrasOf(op);
	const query = offered.query ? readPairs(p, EXTRA_QUERY, false) : undefined;
	if (query) request.query = { ...request.query, ...query };
	const body = offered.body ? readPairs(p, EXTRA_BODY, true) : undefined;
	if (body) {
		if (Array.isArray(request.body)) p.v.fail(`"${EXTRA_BODY.label}" cannot be added to a body that is a list`);
		request.body = { ...request.body, ...body };
	}
	if (op.needsBody !== undefined) {
		const sent = request.body ?? {};
		const besides = op.needsBody.besides ?? [];
		if (!Array.isArray(sent) && Object.keys(sent).every((name) => besides.includes(name))) {
			p.v.fail(op.needsBody.message, `A field the node has no option for can be given under "${EXTRA_BODY.label}".`);
		}
	}
}

/**
 * For each input item, the Vault Store Trigger delivery it descends from
 * (through n8n's paired items); undefined for items that do not descend from one.
 */
function eventOrigins(ctx: IExecuteFunctions, count: number): (EventOrigin | undefined)[] {
	const out: (EventOrigin | undefined)[] = new Array(count).fill(undefined);
	let triggers: string[] = [];
	try {
		triggers = ctx
			.getParentNodes(ctx.getNode().name)
			.filter((node) => isTriggerNodeType(node.type) && !node.disabled)
			.map((node) => node.name);
	} catch {
		return out;
	}
	if (triggers.length === 0) return out;
	for (let i = 0; i < count; i++) {
		for (const name of triggers) {
			let eventId: string | undefined;
			try {
				const proxy = ctx.getWorkflowDataProxy(i) as unknown as { $: (node: string) => { item?: INodeExecutionData } };
				eventId = eventIdOf(proxy.$(name).item?.json);
			} catch {
				eventId = undefined;
			}
			if (eventId !== undefined) {
				out[i] = { eventId };
				break;
			}
		}
	}
	return out;
}

/**
 * How many identical writes of the same event came before in the current
 * execution: earlier runs of the node (a loop, a second branch), counted in
 * n8n's per-execution node context once a run has finished, plus the earlier
 * items of this run. A run that fails leaves the context as it was, so n8n's
 * Retry of the execution repeats the failed writes with the same keys.
 */
class Occurrences {
	private readonly before: Record<string, number>;

	private readonly now: Record<string, number> = {};

	constructor(private readonly context: IDataObject) {
		const saved = context.vaultStoreWrites;
		this.before = saved !== null && typeof saved === 'object' && !Array.isArray(saved) ? (saved as Record<string, number>) : {};
	}

	next(identity: string): number {
		const n = (this.before[identity] ?? 0) + (this.now[identity] ?? 0);
		this.now[identity] = (this.now[identity] ?? 0) + 1;
		return n;
	}

	/** The run finished: its writes count for the node's later runs. */
	commit(): void {
		if (Object.keys(this.now).length === 0) return;
		const merged = { ...this.before };
		for (const [identity, n] of Object.entries(this.now)) merged[identity] = (merged[identity] ?? 0) + n;
		this.context.vaultStoreWrites = merged;
	}
}

/** Whether n8n runs the node for an AI agent (as `<type>Tool`, or a context that says so). */
export function isToolRun(ctx: IExecuteFunctions): boolean {
	const context = ctx as IExecuteFunctions & { isToolExecution?: () => boolean };
	return ctx.getNode().type.endsWith('Tool') || context.isToolExecution?.() === true;
}

/**
 * The limits an AI agent works within, checked before any request: operations
 * that send card data to a model provider are refused; ones an agent could
 * turn against the store need the node's "Allow Agent Writes"; money-moving
 * ones need a Maximum Amount (checked on the request as sent, see moneyGuard).
 */
function checkAgentLimits(p: Params, op: Operation, options: RunOptions, tool: boolean): void {
	if (!tool) return;
	if (op.agent?.refuse) {
		p.v.fail(`${op.name} is not available to AI agents: ${op.agent.refuse}`, 'Run this operation in a normal workflow step instead.');
	}
	if (op.agent?.confirm && !options.allowAgentWrites) {
		p.v.fail(
			`${op.name} is not available to AI agents unless this node allows it: ${op.agent.confirm}`,
			'Turn on "Allow Agent Writes" in the node\'s Options to let an agent use it, or run it in a normal workflow step.',
		);
	}
	if (op.money && options.maxAmount === undefined) {
		p.v.fail(
			`Set "Maximum Amount" in the node's Options before giving "${op.name}" to an AI agent`,
			'An agent may choose any amount; the node refuses calls above the maximum you set.',
		);
	}
}

/** An amount field the user set must give the request an amount: never a silent full refund. */
function checkAmountGiven(p: Params, money: MoneySpec & { amountParameter?: string }, request: ApiRequest): void {
	if (!money.amount || !money.amountParameter) return;
	const raw = p.stored(money.amountParameter);
	if (raw === undefined || raw === null || raw === '') return;
	const body = request.body as IDataObject | undefined;
	const sent = body && !Array.isArray(body) ? body[money.amount] : undefined;
	if (sent === undefined || sent === null || sent === '') {
		p.v.fail(
			'"Amount" is set but has no value for this item, so nothing was sent',
			`An expression that resolves to nothing would otherwise send no amount${money.withoutAmount ? `, which is ${money.withoutAmount}` : ''}. Check the expression, or remove the field${money.withoutAmount ? ` for ${money.withoutAmount}` : ''}.`,
		);
	}
}

/**
 * The Maximum Amount on every request the run sends, as it will be sent
 * (Additional Body Fields, expressions and custom calls included): a request
 * of a money-moving operation, or a custom call that writes to a route that
 * moves money, must carry amounts at or below the maximum. Without a maximum, only agent runs
 * are refused.
 */
function moneyGuard(ctx: IExecuteFunctions, op: Operation, options: RunOptions, tool: boolean) {
	return (req: ApiRequest, url: URL): NodeOperationError | undefined => {
		// A row declares whether it moves money; a free-form call (Custom API Call) is judged by its route.
		const freeForm = op.family === 'base';
		if (!op.money && !(freeForm && isMoneyRoute(req.method, url.pathname))) return undefined;
		const refuse = (message: string, description: string) =>
			new NodeOperationError(ctx.getNode(), message, { itemIndex: req.itemIndex, description });
		if (options.maxAmount === undefined) {
			if (!tool) return undefined;
			return refuse(
				'Refused: this call moves money and the node has no "Maximum Amount" for AI agents',
				'Set "Maximum Amount" in the node\'s Options; the node refuses calls above it.',
			);
		}
		const verdict = checkCap(req.body, options.maxAmount, op.money ? op.action : `${req.method} ${url.pathname}`, op.money?.withoutAmount);
		return verdict.ok ? undefined : refuse(verdict.message, 'Nothing was sent. Use an amount at or below the maximum, or ask a person to do it.');
	};
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
	const checks = new LocalChecks(ctx);
	// Read once for the run: n8n copies the node on every getNode().
	const run: RunInput = { node: ctx.getNode(), items };
	// n8n keeps only the parameters the operation shows: the secret ones this node has, once per run.
	const itemSecretNames = [...secretNames].filter((name) => Object.prototype.hasOwnProperty.call(run.node.parameters, name));
	const first = new Params(ctx, 0, checks.sink(0), run);
	const options = readOptions(first);
	// One pool for the whole run: every item's requests and every page of Return All.
	const pool = new AdaptiveConcurrency({ max: options.concurrency });
	const transport = new Transport(
		ctx,
		credentialOf(resource, ctx),
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
	const retryMode = ctx.getMode() === 'retry';
	transport.guard = moneyGuard(ctx, op, options, tool);
	let origins: (EventOrigin | undefined)[] | undefined;
	let record: WriteRecord | undefined;
	let occurrences: Occurrences | undefined;
	const hinted = new Set<string>();
	const hint = (kind: string, message: string, type: 'info' | 'warning' = 'info') => {
		if (hinted.has(kind)) return;
		hinted.add(kind);
		ctx.addExecutionHints?.({ message, type, location: 'outputPane' });
	};
	/**
	 * After a money-moving write succeeded: records it (once per event) and
	 * compares what the service recorded with what was asked. A difference
	 * fails the item, never retried: the write was made.
	 */
	const settleMoney = async (o: Operation, request: ApiRequest, answer: IDataObject | undefined, itemIndex: number, once: string | undefined) => {
		const verdict = readBack(o.money as MoneySpec, request.body, answer ?? {});
		let mismatch: string | undefined;
		if (verdict.status === 'mismatch') {
			const id = typeof answer?.id === 'string' ? answer.id : 'without an id';
			mismatch =
				`The service recorded ${verdict.field} ${verdict.recorded} where ${verdict.asked} was asked (${o.name.toLowerCase()} ${id}). ` +
				'The write was made and is not repeated: check it in the Vault Store dashboard.';
		} else if (verdict.status === 'unchecked') {
			hint('unchecked', `The answer to "${o.action}" does not show the ${verdict.missing.join(' and ')} the service recorded, so it could not be compared with what was asked.`, 'warning');
		}
		if (once !== undefined && record) {
			// Kept with the workflow: what the service echoed of a secret is redacted first.
			const redactor = await outputRedactor(transport, []);
			record.put(once, redactor.secrets(answer ?? {}) as IDataObject, mismatch);
		}
		if (mismatch) throw new NodeOperationError(ctx.getNode(), mismatch, { itemIndex });
	};
	// Single-request operations take their slot of the pool before the item is read, so items are
	// read only as fast as the window lets them go out (no item waits, read, behind a full window).
	const direct = !op.run && !op.list;
	const runItem = async (itemIndex: number, slot: { permit?: Permit } = {}): Promise<INodeExecutionData[]> => {
		const p = itemIndex === 0 ? first : new Params(ctx, itemIndex, checks.sink(itemIndex), run);
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
		applyExtras(op, p, request);
		if (op.money) checkAmountGiven(p, op.money, request);
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
				const fingerprint = writeFingerprint({
					method: request.method,
					route: `${request.family}${request.path}`,
					query: request.query,
					body: request.body,
				});
				occurrences ??= new Occurrences(ctx.getContext('node') as IDataObject);
				const occurrence = occurrences.next(`${origin.eventId}|${fingerprint}`);
				request.idempotencyKey = keys.forEvent(origin, fingerprint, occurrence);
				keySource = 'event';
			} else {
				request.idempotencyKey = keys.forItem(itemIndex);
				keySource = 'execution';
			}
		}

		// A money-moving write of an event is done once per event, for the service's whole retry horizon.
		// n8n's Retry of a failed execution runs on the workflow as the execution stored it, not on its
		// current static data, and saves what it changes over the workflow's: the record is not touched
		// there (the Idempotency-Key still replays within 24 hours).
		const once = op.money && keySource === 'event' && request.idempotencyKey && !retryMode ? request.idempotencyKey : undefined;
		if (op.money && keySource === 'event' && retryMode) {
			hint('retry', "n8n's Retry does not read or keep this node's once-per-event record; the Idempotency-Key still makes the service apply a repeated write once within 24 hours.", 'warning');
		}
		if (once !== undefined) {
			record ??= new WriteRecord(ctx.getWorkflowStaticData('node'));
			const done = record.get(once);
			if (done) {
				if (done.mismatch) throw new NodeOperationError(ctx.getNode(), done.mismatch, { itemIndex });
				hint('skipped', 'A write this event already made was not sent again: the output shows the result recorded then (writeSkipped).');
				return toItems([{ ...done.result, writeSkipped: true, writeRecordedAt: new Date(done.at).toISOString(), idempotencyKeySource: 'event' }], itemIndex);
			}
			const full = record.fullMessage();
			if (full !== undefined) {
				throw new NodeOperationError(ctx.getNode(), `Refused: ${full}, so it could not make sure this write happens once`, {
					itemIndex,
					description: 'Nothing was sent. Older entries are dropped 84 hours after their write; split the work over several nodes or wait.',
				});
			}
		}

		if (op.run) {
			let out = await op.run({ ctx, p, transport, request, concurrency: options.concurrency });
			if (keySource !== undefined) out = out.map((item) => ({ ...item, json: { ...item.json, idempotencyKeySource: keySource } }));
			if (op.money) await settleMoney(op, request, out[0]?.json, itemIndex, once);
			return out;
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
			const permit = slot.permit;
			slot.permit = undefined;
			const res = await transport.request(request, permit);
			records = asRecords(res.data);
			if (res.replay) records = records.map((r) => ({ ...r, idempotentReplay: true }));
			if (keySource !== undefined) records = records.map((r) => ({ ...r, idempotencyKeySource: keySource }));
			if (op.money) await settleMoney(op, request, records[0], itemIndex, once);
		}
		if (op.guessedNames) checks.note(ignoredNames(op, request, records));
		if (op.output) records = op.output(records, p);
		return toItems(records, itemIndex);
	};

	const vaultAllowList = resource.credential === VAULT_CREDENTIAL && op.revealsData !== true;
	const perItem = await mapLimit(items, options.concurrency, async (_, itemIndex) => {
		const slot = { permit: direct ? await pool.acquire() : undefined };
		try {
			// Success items: known secrets redacted; vault tokens through the allow-list (outputGuard.ts).
			const out = await runItem(itemIndex, slot);
			const redactor = await outputRedactor(transport, secretValues(ctx, itemIndex, itemSecretNames));
			return guardOutput(out, redactor, vaultAllowList);
		} catch (error) {
			const redactor = await transport.redactor(secretValues(ctx, itemIndex, itemSecretNames));
			redactor.error(error);
			if (ctx.continueOnFail()) return [errorItem(error, itemIndex, redactor)];
			if (error instanceof NodeApiError) {
				throw redactor.error(new NodeApiError(ctx.getNode(), error as unknown as JsonObject, { itemIndex }));
			}
			throw redactor.error(new NodeOperationError(ctx.getNode(), error as Error, { itemIndex }));
		} finally {
			// The item failed before its request was sent: give the slot back.
			if (slot.permit) pool.release(slot.permit, 'neutral');
		}
	}).finally(() => checks.flush());
	occurrences?.commit();
	return [perItem.flat()];
}
