import type { IDataObject } from 'n8n-workflow';

/** Where the counts live in n8n's per-execution node context. */
const FIELD = 'vaultStoreWriteCounts';
/** The name the counts had before (same meaning), still read. */
const OLD_FIELD = 'vaultStoreWrites';

/**
 * How many identical writes of the same event came before in the current execution: earlier
 * runs of the node (a loop, a second branch), counted in n8n's per-execution node context once
 * a run has finished, plus the earlier writes of this run. A run that fails leaves the context
 * as it was, so n8n's Retry of the execution repeats the failed writes with the same keys.
 */
export class Occurrences {
	private readonly before: Record<string, number>;

	private readonly now: Record<string, number> = {};

	constructor(private readonly context: IDataObject) {
		const saved = context[FIELD] ?? context[OLD_FIELD];
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
		this.context[FIELD] = merged;
	}
}
