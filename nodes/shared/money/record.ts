import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

/**
 * The once-per-event record (interim: static data only; the deduplication-helpers backend
 * replaces it). About 100 B per entry.
 */
export interface RecordEntry {
	key: string;
	recordId?: string;
	amount?: number;
	currency?: string;
	at: number;
	mismatch?: string;
	/** Short digests of the other request fields, to name the ones a later execution changed. */
	fields?: string;
}

export type Claim = { status: 'new' } | { status: 'done'; entry?: RecordEntry } | { status: 'untracked'; reason: string };

export interface OnceRecord {
	readonly backend: 'deduplication' | 'staticData';
	claim(key: string): Promise<Claim>;
	confirm(entry: RecordEntry): Promise<void>;
	release(key: string): Promise<void>;
}

/** The service retries a delivery 9 times over about 75 hours (±10 % jitter); kept 84 hours. */
export const RECORD_HORIZON_MS = 84 * 3_600_000;
export const RECORD_MAX_ENTRIES = 20_000;
const FIELD = 'vaultStoreOnce';

type Stored = Record<string, Omit<RecordEntry, 'key'> & { claimed?: true }>;

class StaticDataRecord implements OnceRecord {
	readonly backend = 'staticData' as const;

	constructor(
		private readonly store: IDataObject,
		private readonly now: () => number,
	) {}

	private entries(): Stored {
		const raw = this.store[FIELD];
		const entries = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? (raw as unknown as Stored) : {};
		const oldest = this.now() - RECORD_HORIZON_MS;
		const kept: Stored = {};
		for (const [key, entry] of Object.entries(entries)) if (entry && typeof entry.at === 'number' && entry.at >= oldest) kept[key] = entry;
		return kept;
	}

	private save(entries: Stored): void {
		this.store[FIELD] = entries as unknown as IDataObject;
	}

	async claim(key: string): Promise<Claim> {
		const entries = this.entries();
		const found = entries[key];
		if (found) return { status: 'done', entry: found.claimed ? undefined : { key, ...found } };
		if (Object.keys(entries).length >= RECORD_MAX_ENTRIES) {
			return { status: 'untracked', reason: `this node's record holds ${RECORD_MAX_ENTRIES} money writes of the last 84 hours` };
		}
		entries[key] = { at: this.now(), claimed: true };
		this.save(entries);
		return { status: 'new' };
	}

	async confirm(entry: RecordEntry): Promise<void> {
		const entries = this.entries();
		const { key, ...rest } = entry;
		entries[key] = rest;
		this.save(entries);
	}

	async release(key: string): Promise<void> {
		const entries = this.entries();
		delete entries[key];
		this.save(entries);
	}
}

export function onceRecord(ctx: IExecuteFunctions, now: () => number = () => Date.now()): OnceRecord {
	return new StaticDataRecord(ctx.getWorkflowStaticData('node'), now);
}
