/**
 * Shared by the once-per-event record tests: events as a Vault Store Trigger emits them, a
 * workflow whose static data carries over from one execution to the next (as n8n saves it), and
 * an in-memory deduplication store that behaves as n8n 2.8.4's.
 */
import { createHash } from 'node:crypto';
import type {
	DeduplicationItemTypes,
	DeduplicationScope,
	ICheckProcessedContextData,
	ICheckProcessedOptions,
	IDataDeduplicator,
	IDataObject,
	IDeduplicationOutput,
	IExecuteFunctions,
	INodeExecutionData,
} from 'n8n-workflow';

import type { SandboxFixture as Fixture } from './fixtures';
import type { NodeSpec, RunResult } from './harness';
import { runNodes, TRIGGER_TYPE } from './harness';
import type { Gated } from '../../nodes/shared/redaction/gate';
import { gateAnswerText } from '../../nodes/shared/redaction/gate';
import { credentialRedactor } from '../../nodes/shared/redaction/secrets';

export const HOUR = 3_600_000;

export function delivery(eventId: string, orderId: string): INodeExecutionData {
	return { json: { event: 'PAYMENT_COMPLETED', id: eventId, data: { orderId }, meta: { deliveryId: eventId, signatureVersion: 'V2' } } };
}

export const TRIGGER: NodeSpec = { id: '0b7d3e44-8a2f-4f7e-b1a0-5d2c9e6f4a30', name: 'Vault Store Trigger', type: TRIGGER_TYPE, parameters: { events: ['PAYMENT_COMPLETED'], signatureVersion: 'V2', options: {} } };
export const REFUND: NodeSpec = {
	name: 'Refund',
	id: '6f1c0a52-0d5e-4c1e-9a57-3c1f6b0e2a11',
	parameters: {
		resource: 'order',
		operation: 'refund',
		orderId: { __rl: true, mode: 'id', value: '={{ $json.data.orderId }}' },
		additionalFields: { amount: 0.01 },
	},
};

/** One workflow: its id and static data stay the same from execution to execution, as in n8n. */
export class Workflow {
	staticData: IDataObject = {};

	constructor(
		private readonly f: Fixture,
		readonly id: string,
	) {}

	/** One execution; n8n saves its static data whole at the end (here: `staticData` becomes it). */
	async run(items: INodeExecutionData[], nodes: NodeSpec[] = [TRIGGER, REFUND]): Promise<RunResult> {
		const r = await runNodes(nodes, this.f.credentials, items, { workflowId: this.id, staticData: this.staticData });
		this.staticData = r.staticData;
		return r;
	}

	/** Executions that overlap: each starts from the static data saved so far; the one that ends last is saved last. */
	async overlapping(batches: INodeExecutionData[][]): Promise<RunResult[]> {
		const start = this.staticData;
		const runs = await Promise.all(batches.map(async (items) => await runNodes([TRIGGER, REFUND], this.f.credentials, items, { workflowId: this.id, staticData: start })));
		// Saved in the order they end; every save replaces the whole static data.
		for (const r of runs) this.staticData = r.staticData;
		return runs;
	}

	/** The record's details as n8n would save them. */
	details(node = 'Refund'): Record<string, unknown[]> {
		return (((this.staticData[`node:${node}`] as IDataObject | undefined)?.vaultStoreOnce ?? {}) as Record<string, unknown[]>);
	}
}

export const hintsOf = (r: RunResult, node = 'Refund') => (r.run.data.resultData.runData[node] ?? []).flatMap((t) => t.hints ?? []).map((h) => h.message);

/** A stand-in for the context the record reads: the node's static data object, no deduplication helpers. */
export function staticDataContext(store: IDataObject): IExecuteFunctions {
	return { helpers: {}, getWorkflowStaticData: () => store } as unknown as IExecuteFunctions;
}

/**
 * A node's context on an in-memory deduplication store (n8n's helpers the record and the budgets
 * call), with `details` as its static data (what one process reads), the UTC timezone and a flow
 * context of its own.
 */
export function storeContext(store: MemoryDeduplicator, workflowId: string, nodeId: string, details: IDataObject = {}): IExecuteFunctions {
	const node = { id: nodeId, name: 'Refund' };
	const data = { node, workflow: { id: workflowId } } as never;
	const flow: IDataObject = {};
	return {
		helpers: {
			checkProcessedAndRecord: async (items: string[], scope: 'node', options: { mode: 'entries' }) => await store.checkProcessedAndRecord(items, scope, data, options),
			removeProcessed: async (items: string[], scope: 'node') => await store.removeProcessed(items, scope, data),
			getProcessedDataCount: async (scope: 'node', options: { mode: 'entries' }) => await store.getProcessedDataCount(scope, data, options),
		},
		getTimezone: () => 'UTC',
		getContext: () => flow,
		getWorkflowStaticData: () => details,
		getWorkflow: () => ({ id: workflowId }),
		getNode: () => node,
	} as unknown as IExecuteFunctions;
}

/**
 * What n8n 2.8.4's DeduplicationHelper does (packages/cli/src/deduplication/deduplication-helper.ts),
 * in memory: one list per (workflow, `n:<node id>`), values stored as md5/base64 hashes, `maxEntries`
 * trimming the front of the list, every call a read then a write of the whole list.
 * Not atomic, as n8n's is not: two calls that overlap keep the last one's list.
 * `loseNextClaim` makes the next new value vanish right after it was recorded, as when another
 * process's read-modify-write of the same row overwrote it.
 */
export class MemoryDeduplicator implements IDataDeduplicator {
	/** One list per row; a Set keeps insertion order (the front is the oldest), for speed with 25,000 entries. */
	readonly rows = new Map<string, Set<string>>();
	calls: string[] = [];
	loseNextClaim = false;
	/** The next this many removals are undone: another writer that read the row before each wrote it back after. */
	undoRemoves = 0;
	/** The next add whose values this matches is lost (another writer's read-modify-write of the row overwrote it); then cleared. */
	loseAdd?: (items: string[]) => boolean;
	/** Writes lost by `loseAdd`. */
	lost = 0;
	/** Every call fails: the process that makes them was killed (its writes never reach the row). */
	down = false;
	/**
	 * A write from an older read: the next add that `capture` matches is recorded and then overwritten
	 * (lost), and the row as that add left it is written back just before the next removal (another
	 * writer's read made meanwhile, landing late). `foreign`: the values of the captured add that hold
	 * `#` or `?` (its token and probe) are not in the row written back (the claim there is another's).
	 */
	stale?: { capture: (items: string[]) => boolean; foreign?: boolean; row?: Set<string>; key?: string };

	private up(): void {
		if (this.down) throw new Error('the process was killed (test)');
	}

	private static hash(value: DeduplicationItemTypes): string {
		return createHash('md5').update(value.toString()).digest('base64');
	}

	private rowKey(scope: DeduplicationScope, data: ICheckProcessedContextData): string {
		return `${data.workflow.id}|${scope === 'node' ? `n:${data.node?.id ?? ''}` : ''}`;
	}

	has(workflowId: string, value: string): boolean {
		const hash = MemoryDeduplicator.hash(value);
		return [...this.rows.entries()].some(([k, row]) => k.startsWith(`${workflowId}|`) && row.has(hash));
	}

	count(workflowId: string): number {
		return [...this.rows.entries()].filter(([k]) => k.startsWith(`${workflowId}|`)).reduce((n, [, row]) => n + row.size, 0);
	}

	/** As n8n's: read the row, (a database round trip), write the whole row back. */
	private static async roundTrip(): Promise<void> {
		await new Promise((resolve) => setImmediate(resolve));
	}

	async checkProcessedAndRecord(items: DeduplicationItemTypes[], scope: DeduplicationScope, data: ICheckProcessedContextData, options: ICheckProcessedOptions): Promise<IDeduplicationOutput> {
		this.up();
		this.calls.push('check');
		const key = this.rowKey(scope, data);
		const row = new Set(this.rows.get(key) ?? []);
		await MemoryDeduplicator.roundTrip();
		const out: IDeduplicationOutput = { new: [], processed: [] };
		for (const item of items) {
			const hash = MemoryDeduplicator.hash(item);
			if (row.has(hash)) out.processed.push(item);
			else {
				out.new.push(item);
				row.add(hash);
			}
		}
		if (options.maxEntries) for (const hash of row) {
			if (row.size <= options.maxEntries) break;
			row.delete(hash);
		}
		if (this.stale !== undefined && this.stale.row === undefined && this.stale.capture(items.map(String))) {
			const back = new Set(row);
			if (this.stale.foreign) for (const v of items.map(String)) if (/[#?]/.test(v)) back.delete(MemoryDeduplicator.hash(v));
			this.stale.row = back;
			this.stale.key = key;
			return out;
		}
		if (this.loseAdd?.(items.map(String))) {
			this.loseAdd = undefined;
			this.lost++;
			return out;
		}
		if (this.loseNextClaim && out.new.length > 0) {
			// Recorded, then overwritten by another writer's read-modify-write of the row.
			this.loseNextClaim = false;
			return out;
		}
		this.rows.set(key, row);
		return out;
	}

	async removeProcessed(items: DeduplicationItemTypes[], scope: DeduplicationScope, data: ICheckProcessedContextData): Promise<void> {
		this.up();
		this.calls.push('remove');
		const key = this.rowKey(scope, data);
		if (this.stale?.row !== undefined && this.stale.key === key) {
			this.rows.set(key, this.stale.row);
			this.stale = undefined;
		}
		const row = new Set(this.rows.get(key) ?? []);
		await MemoryDeduplicator.roundTrip();
		for (const item of items) row.delete(MemoryDeduplicator.hash(item));
		if (this.undoRemoves > 0) {
			this.undoRemoves--;
			return;
		}
		this.rows.set(key, row);
	}

	async clearAllProcessedItems(scope: DeduplicationScope, data: ICheckProcessedContextData): Promise<void> {
		this.rows.delete(this.rowKey(scope, data));
	}

	async getProcessedDataCount(scope: DeduplicationScope, data: ICheckProcessedContextData, options: ICheckProcessedOptions): Promise<number> {
		this.calls.push('count');
		return options.mode === 'entries' ? (this.rows.get(this.rowKey(scope, data))?.size ?? 0) : 0;
	}
}

/** A value as the output gate passes it into the once record (the record takes no other): with no credential secrets, unchanged. */
export function gatedValue(text: string): Gated<string> {
	return gateAnswerText(text, credentialRedactor([]));
}
