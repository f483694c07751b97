import { sleep } from 'n8n-workflow';
import type { ICheckProcessedOptions, IExecuteFunctions } from 'n8n-workflow';

import type { StoreOp } from './onceState';

/**
 * n8n's deduplication store as the once record and the day budgets use it: one row per node
 * (workflow id, node id), every call a read then a write of the whole row, with no lock (see
 * record.ts). The calls of one process to one row go one at a time.
 */

/** Entries one node keeps within the horizon. */
export const RECORD_CAPACITY = 25_000;
/** Room in n8n's store beside the claims for the marks of writes in flight or of unknown outcome. */
const MARK_ROOM = 1_000;
/** Room for the day budgets' units (budget.ts): 8 currency-days of a full budget. */
export const BUDGET_ROOM = 4_000;
/** Values a confirmed write keeps in n8n's store: the claim and its done mark. */
export const VALUES_PER_WRITE = 2;
/** Every call to the node's row passes the same options (n8n trims the row to maxEntries on each). */
export const DEDUP: ICheckProcessedOptions = { mode: 'entries', maxEntries: RECORD_CAPACITY * VALUES_PER_WRITE + MARK_ROOM + BUDGET_ROOM };
/**
 * The record's pause: longer than any read-modify-write of the row (one database round trip), so
 * a write that read the row before an add has written when the pause ends.
 */
export const VERIFY_DELAY_MS = 300;

/** Per node row (workflow id and node id): the tail of this process's calls to it, one at a time. */
const rowQueues = new Map<string, Promise<unknown>>();

/** The store's row for a node, as n8n keys it (workflow, node id). */
export function rowOf(ctx: IExecuteFunctions): string {
	return `${ctx.getWorkflow().id ?? ''}|${ctx.getNode().id ?? ''}`;
}

export async function oneAtATime<T>(row: string, work: () => Promise<T>): Promise<T> {
	const before = rowQueues.get(row) ?? Promise.resolve();
	const run = before.then(work, work);
	const tail = run.then(
		() => undefined,
		() => undefined,
	);
	rowQueues.set(row, tail);
	try {
		return await run;
	} finally {
		if (rowQueues.get(row) === tail) rowQueues.delete(row);
	}
}

/** n8n-core without n8n: the deduplication service was never given a store. */
export function notInitialised(error: unknown): boolean {
	return /needs to (be )?initiali[sz]ed/i.test(error instanceof Error ? error.message : String(error));
}

export function describeError(error: unknown): string {
	return (error instanceof Error ? error.message : String(error)).slice(0, 200);
}

/** The node's row in n8n's store, as the once record's state machine (onceState.ts) drives it. */
export class StoreRow {
	constructor(private readonly ctx: IExecuteFunctions) {}

	async count(): Promise<number> {
		return await oneAtATime(rowOf(this.ctx), async () => await this.ctx.helpers.getProcessedDataCount('node', DEDUP));
	}

	/** The values that were new. */
	async add(values: string[]): Promise<string[]> {
		const out = await oneAtATime(rowOf(this.ctx), async () => await this.ctx.helpers.checkProcessedAndRecord(values, 'node', DEDUP));
		return out.new.map(String);
	}

	async remove(values: string[]): Promise<void> {
		await oneAtATime(rowOf(this.ctx), async () => await this.ctx.helpers.removeProcessed(values, 'node', DEDUP));
	}

	/** One operation of the state machine. An add is tried once more after a pause: two processes' first-ever adds race on the row's primary key. */
	async run(o: StoreOp): Promise<string[] | void> {
		if (o.op === 'sleep') return await sleep(VERIFY_DELAY_MS);
		if (o.op === 'remove') return await this.remove(o.values);
		try {
			return await this.add(o.values);
		} catch {
			await sleep(VERIFY_DELAY_MS);
			return await this.add(o.values);
		}
	}
}
