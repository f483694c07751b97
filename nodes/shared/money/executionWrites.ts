import type { IDataObject } from 'n8n-workflow';

import type { Unclear } from './record';

/** Where the unclear writes live in n8n's per-execution node context. */
const FIELD = 'vaultStoreUnclearWrites';

/** A money write of this execution whose outcome is unknown: the key it went under, how, when. */
export interface UnclearWrite {
	key: string;
	kind: Unclear;
	at: number;
}

/**
 * Money writes without an event or a key of the user's (each run of the node gets its own key:
 * an AI agent's tool calls, a loop) whose outcome is unknown, remembered for the rest of the
 * execution by what they move (method, route with ids, amount, currency). A repeat of one within
 * the execution is sent under the first's key or refused, never sent as a new write. Kept in
 * n8n's per-execution node context, which every run of the node in the execution shares (both
 * of n8n's agent routes included); written when the outcome is learnt, as the run may fail.
 */
export class ExecutionWrites {
	constructor(private readonly context: IDataObject) {}

	private all(): Record<string, UnclearWrite> {
		const saved = this.context[FIELD];
		return saved !== null && typeof saved === 'object' && !Array.isArray(saved) ? (saved as unknown as Record<string, UnclearWrite>) : {};
	}

	unclear(identity: string): UnclearWrite | undefined {
		return this.all()[identity];
	}

	remember(identity: string, write: UnclearWrite): void {
		this.context[FIELD] = { ...this.all(), [identity]: write } as unknown as IDataObject;
	}

	/** The write's outcome is known now (answered, or provably not applied). */
	forget(identity: string): void {
		const all = this.all();
		if (!(identity in all)) return;
		const rest = { ...all };
		delete rest[identity];
		this.context[FIELD] = rest as unknown as IDataObject;
	}
}
