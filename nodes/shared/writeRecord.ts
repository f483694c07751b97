import type { IDataObject } from 'n8n-workflow';

/**
 * The once-per-event record: which event-derived money writes were done, kept
 * in the workflow's static data (n8n saves it with the workflow after every
 * production execution, on whichever process ran it) for longer than the
 * service retries a delivery. The service keeps an Idempotency-Key's result
 * only 24 hours; this record covers the rest of the retry horizon.
 *
 * Bounded: entries older than the horizon are pruned on every use, and when
 * the record is full a new write is refused (never an old entry forgotten).
 */

/** The service retries a delivery 9 times over about 75 hours (±10 % jitter); kept 84 hours. */
export const RECORD_HORIZON_MS = 84 * 3_600_000;
/** Most writes one node remembers within the horizon. */
export const RECORD_MAX_ENTRIES = 2000;
/** Longest JSON kept of a recorded result; larger results keep their scalar fields only. */
const RESULT_MAX_CHARS = 1024;

const FIELD = 'vaultStoreWrites';

export interface RecordedWrite {
	/** When the write was confirmed (ms since epoch). */
	at: number;
	/** What the service answered (compacted), as the output of a skipped write shows it. */
	result: IDataObject;
	/** The read-back found a difference: a later execution fails the same way. */
	mismatch?: string;
}

/** Scalars of the result only, when the whole answer is too large to keep. */
function compact(result: IDataObject): IDataObject {
	const text = JSON.stringify(result);
	if (text.length <= RESULT_MAX_CHARS) return JSON.parse(text) as IDataObject;
	const out: IDataObject = {};
	let size = 2;
	for (const [key, value] of Object.entries(result)) {
		if (value === null || typeof value === 'object') continue;
		const add = JSON.stringify(key).length + JSON.stringify(value).length + 2;
		if (size + add > RESULT_MAX_CHARS) break;
		out[key] = value;
		size += add;
	}
	return out;
}

export class WriteRecord {
	constructor(
		/** The node's static data object (n8n persists it). */
		private readonly store: IDataObject,
		private readonly now: () => number = () => Date.now(),
		private readonly limits = { horizonMs: RECORD_HORIZON_MS, maxEntries: RECORD_MAX_ENTRIES },
	) {}

	private entries(): Record<string, RecordedWrite> {
		let entries = this.store[FIELD] as Record<string, RecordedWrite> | undefined;
		if (entries === undefined || entries === null || typeof entries !== 'object' || Array.isArray(entries)) {
			entries = {};
		}
		return entries;
	}

	/** Drops entries past the horizon; writes back only when something changed. */
	private pruned(): Record<string, RecordedWrite> {
		const entries = this.entries();
		const oldest = this.now() - this.limits.horizonMs;
		let changed = this.store[FIELD] !== entries;
		const kept: Record<string, RecordedWrite> = {};
		for (const [key, entry] of Object.entries(entries)) {
			if (entry && typeof entry.at === 'number' && entry.at >= oldest) kept[key] = entry;
			else changed = true;
		}
		if (changed) this.store[FIELD] = kept as unknown as IDataObject;
		return changed ? kept : entries;
	}

	get(key: string): RecordedWrite | undefined {
		return this.pruned()[key];
	}

	get size(): number {
		return Object.keys(this.pruned()).length;
	}

	/** Why a new write could not be remembered (refuse it rather than forget one), or undefined when there is room. */
	fullMessage(): string | undefined {
		if (this.size < this.limits.maxEntries) return undefined;
		return `This node remembers ${this.limits.maxEntries} money-moving writes per ${Math.round(this.limits.horizonMs / 3_600_000)} hours and is full`;
	}

	put(key: string, result: IDataObject, mismatch?: string): void {
		const entries = { ...this.pruned() };
		entries[key] = { at: this.now(), result: compact(result), ...(mismatch ? { mismatch } : {}) };
		// A new object, so n8n's change tracking sees the write and saves the static data.
		this.store[FIELD] = entries as unknown as IDataObject;
	}
}
