import { createHash, randomBytes } from 'node:crypto';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { Gated } from '../redaction/gate';
import type { Answer, Decision, Held, Known, StoreOp } from './onceState';
import { doneMark, drive, failedMark, MARK_MS, MAX_WINDOW_MS, startAnswer, startClaim, timeMark, unansweredMark } from './onceState';
import { describeError as describe, notInitialised, RECORD_CAPACITY, StoreRow, VALUES_PER_WRITE } from './recordStore';

export { RECORD_CAPACITY } from './recordStore';

/**
 * The once-per-event record: which event-derived money writes a node has made, kept for longer
 * than the service retries a delivery (the service keeps an Idempotency-Key's result only 24 h;
 * the record covers the rest of the retry horizon).
 *
 * Two stores, one interface (claim before the write, confirm or release after):
 *
 * - 'deduplication': n8n's deduplication helpers (`checkProcessedAndRecord`, `removeProcessed`,
 *   `getProcessedDataCount`; scope 'node', mode 'entries'), kept in n8n's database and written when
 *   called, not at the end of the execution. The claim itself is the record: a second execution
 *   (another worker, an overlapping run) that claims the same key is told 'done'.
 * - 'staticData': the node's static data alone, where the helpers are not there (older n8n; n8n-core
 *   without n8n, which throws "Instance needs to initialized" from DataDeduplicationService: detected
 *   on the first claim of a run). n8n saves static data whole at the end of an execution, so two
 *   overlapping executions of one workflow keep only the last one's entries (measured in queue mode:
 *   docs/queue-mode.md).
 *
 * Beside either store, the entry's details (record id, amount, currency, time, mismatch text) are
 * kept in the node's static data, about 80 B each under a 22-character digest of the key: they give
 * the skipped output its contents, the time-based pruning its keys, and replay a mismatch. In
 * queue mode they are best effort (the same whole-object save): a claim can be 'done' without them.
 *
 * What n8n 2.8.4's store does (read in packages/cli/src/deduplication/deduplication-helper.ts as
 * installed): one database row per (workflow, `n:<node id>`) holding `{ mode, data: [...] }`; every
 * value is hashed (md5), so values cannot be read back, only added (answering whether each was
 * there) and removed; `maxEntries` trims from the front; `checkProcessedAndRecord` and
 * `removeProcessed` are a findOne then an update of the whole row, with no transaction or lock, so
 * two calls that interleave keep only the last writer's list (a lost read-modify-write). The claim,
 * its marks and their reading are the state machine of onceState.ts (in flight → done, failed or
 * unanswered; marks only move forward), which test/once-protocol.test.ts checks over every
 * interleaving of two and three executions on a model of that row. The store outranks static data:
 * a claim reads the store even when static data holds the write, and the two join by rank.
 *
 * What a claim the store holds but whose details this process cannot read means: 'done' (its done
 * mark: made, the details saved by another process), 'unclear' (its failed or unanswered mark), or
 * in flight (another execution is sending it now, or stopped before its write's deadline passed:
 * the window claim() is given): nothing is sent then, and the item fails saying so.
 *
 * Bounds: CAPACITY entries (25,000; at least 20,000 per node within the horizon), pruned after
 * RECORD_HORIZON_MS. When full, entries past the horizon go first (oldest first); if still full the
 * claim is 'untracked' (the write goes out under the event's Idempotency-Key alone), never refused.
 */

/** The service retries a delivery 9 times over about 75 hours (±10 % jitter); kept 84 hours. */
export const RECORD_HORIZON_MS = 84 * 3_600_000;
/** Node static data field of the entries' details. */
export const RECORD_FIELD = 'vaultStoreOnce';
/** Longest mismatch text kept. */
const MISMATCH_MAX_CHARS = 400;
/** Longest record id kept. */
const ID_MAX_CHARS = 64;
/**
 * A write whose outcome is unknown is sent again (same Idempotency-Key) only this long after its
 * first attempt: the service keeps a key's stored result 24 hours; 2 hours spare for clocks.
 */
export const RESEND_WINDOW_MS = 22 * 3_600_000;

/**
 * Why an outcome is unknown: 'unanswered' (no answer: a timeout, a dropped connection, 409 "still
 * running" on every try, a process that stopped between the claim and the answer: the service may
 * hold a stored result under the key) or 'failed' (a 500/502/504 or 408: the service does not
 * store these, so a repeat under the same key is applied again if the first was).
 */
export type Unclear = 'unanswered' | 'failed';

/** About 100 B serialised: key, record id, amount, currency, time (+ mismatch text when the read-back found one, + the other fields' digests). */
export interface RecordEntry {
	key: string;
	recordId?: string;
	amount?: number;
	currency?: string;
	at: number;
	mismatch?: string;
	/** Short digests of the other request fields, to name the ones a later execution changed. */
	fields?: string;
	/** The write was sent and its outcome is not known (`at` is its first attempt). */
	unclear?: Unclear;
}
/**
 * What confirm() stores: the service's text in it (record id, currency, the read-back's mismatch
 * text, which quotes what the service recorded) made by the output gate, so that static data and
 * n8n's store, and the hints a later execution shows from them, never hold an ungated secret.
 */
export type ConfirmedEntry = Omit<RecordEntry, 'recordId' | 'currency' | 'mismatch'> & {
	recordId?: Gated<string>;
	currency?: Gated<string>;
	mismatch?: Gated<string>;
};

export type Claim =
	| { status: 'new' } // claimed for this execution: make the write, then confirm() or release()
	| { status: 'done'; entry?: RecordEntry } // an earlier execution made it (entry when this process can read its details)
	/**
	 * An earlier execution sent it and its outcome is not known. `resend`: it was unanswered within
	 * RESEND_WINDOW_MS, so the same key gets the service's stored result (claimed for this execution:
	 * confirm(), release() or unclear() after); else nothing may be sent.
	 */
	| { status: 'unclear'; kind: Unclear; at?: number; resend: boolean; entry?: RecordEntry; inflight?: true; again?: true }
	| { status: 'untracked'; reason: string } // cannot be recorded: the write goes out under the event's Idempotency-Key
	| { status: 'unavailable'; reason: string }; // n8n's Retry without n8n's store: the record cannot be read
export interface OnceRecord {
	/** Which store backs it, for hints and tests. */
	readonly backend: 'deduplication' | 'staticData';
	/** Why n8n's deduplication store failed in this run, when it did (the record then uses static data). */
	readonly storeFailure?: string;
	/** `window`: the write's deadline, ms from now (at most MAX_WINDOW_MS): in flight for other executions until then. */
	claim(key: string, window?: number): Promise<Claim>;
	/** The write succeeded (or was replayed). */
	confirm(entry: ConfirmedEntry): Promise<void>;
	/** The write did not happen (refused before sending, or failed in a way that cannot have applied it). */
	release(key: string): Promise<void>;
	/** The write was sent and its outcome is not known: the claim stays, remembered as unclear. */
	unclear(entry: RecordEntry & { unclear: Unclear }): Promise<void>;
}

/** Stored detail: [at, recordId, amount, currency, mismatch, fields, unclear (1 unanswered, 2 failed)], trailing empties dropped. */
type Detail = [number, (string | null)?, (number | null)?, (string | null)?, (string | null)?, (string | null)?, number?];
type Details = Record<string, Detail>;

/** The key as the stores hold it: 22 characters whatever the key's length. */
export function recordDigest(key: string): string {
	return createHash('sha256').update(key).digest('base64url').slice(0, 22);
}

function toDetail(entry: RecordEntry): Detail {
	const d: Detail = [
		Math.round(entry.at),
		typeof entry.recordId === 'string' ? entry.recordId.slice(0, ID_MAX_CHARS) : null,
		typeof entry.amount === 'number' && Number.isFinite(entry.amount) ? entry.amount : null,
		typeof entry.currency === 'string' ? entry.currency.slice(0, 8) : null,
	];
	d.push(entry.mismatch ? entry.mismatch.slice(0, MISMATCH_MAX_CHARS) : null);
	// Kept whole (about 14 B a field): the gate compares it with the next execution's, a cut one would differ.
	d.push(typeof entry.fields === 'string' ? entry.fields : null);
	if (entry.unclear !== undefined) d.push(entry.unclear === 'failed' ? 2 : 1);
	while (d.length > 1 && (d[d.length - 1] === null || d[d.length - 1] === undefined)) d.pop();
	return d;
}

function fromDetail(key: string, d: Detail): RecordEntry {
	const entry: RecordEntry = { key, at: d[0] };
	if (typeof d[1] === 'string') entry.recordId = d[1];
	if (typeof d[2] === 'number') entry.amount = d[2];
	if (typeof d[3] === 'string') entry.currency = d[3];
	if (typeof d[4] === 'string') entry.mismatch = d[4];
	if (typeof d[5] === 'string') entry.fields = d[5];
	if (d[6] === 1 || d[6] === 2) entry.unclear = d[6] === 2 ? 'failed' : 'unanswered';
	return entry;
}

function isDetail(value: unknown): value is Detail {
	return Array.isArray(value) && typeof value[0] === 'number';
}

/** What a claim finds in an entry it can read: made, or sent with an unknown outcome. */
function found(entry: RecordEntry, now: number): Claim {
	if (entry.unclear === undefined) return { status: 'done', entry };
	return { status: 'unclear', kind: entry.unclear, at: entry.at, resend: entry.unclear === 'unanswered' && now - entry.at < RESEND_WINDOW_MS, entry };
}

/** The store's marks of a write of unknown outcome, taken out with it past the horizon. */
function unclearMarks(digest: string, at: number): string[] {
	return [failedMark(digest), unansweredMark(digest, 1), unansweredMark(digest, 2), `${digest}^2`, timeMark(digest, Math.floor(at / MARK_MS))];
}

class Record_ implements OnceRecord {
	private helpers: boolean;
	private details?: Details;
	/** How many details there are (counted once per run, then kept up to date). */
	private size = 0;
	private pruned = false;
	/** Claimed in this run, not yet confirmed or released (with the store's claim, when held there). */
	private readonly pending = new Map<string, Held | undefined>();
	/** Entries in the deduplication row, when read this run. */
	private storeCount?: number;
	/** Marks of unclear writes pruned from the details, to take out of the store. */
	private readonly staleMarks: string[] = [];
	private readonly row: StoreRow;
	/** Why n8n's store failed in this run (the record fell back to static data). */
	storeFailure?: string;

	constructor(
		private readonly ctx: IExecuteFunctions,
		private readonly now: () => number,
		/** Static data is read, never written (n8n's Retry saves a stored copy's static data over the workflow's). */
		private readonly readOnly = false,
	) {
		const h = ctx.helpers as Partial<IExecuteFunctions['helpers']>;
		this.helpers =
			typeof h?.checkProcessedAndRecord === 'function' &&
			typeof h.removeProcessed === 'function' &&
			typeof h.getProcessedDataCount === 'function';
		this.row = new StoreRow(ctx);
	}

	get backend(): 'deduplication' | 'staticData' {
		return this.helpers ? 'deduplication' : 'staticData';
	}

	/** The node's static data: the details object, made once per run. */
	private store(): IDataObject {
		return this.ctx.getWorkflowStaticData('node');
	}

	private entries(): Details {
		if (this.details) return this.details;
		const store = this.store();
		let d = store[RECORD_FIELD] as unknown as Details | undefined;
		if (d === undefined || d === null || typeof d !== 'object' || Array.isArray(d)) {
			d = {};
			if (!this.readOnly) store[RECORD_FIELD] = d as unknown as IDataObject;
		} else if (this.readOnly) {
			d = { ...d };
		}
		this.details = d;
		this.size = Object.keys(d).length;
		return d;
	}

	/** Marks the static data changed (n8n saves it only then). */
	private touch(): void {
		if (!this.readOnly) this.store()[RECORD_FIELD] = this.entries() as unknown as IDataObject;
	}

	/** Drops details past the horizon, oldest first; returns the digests dropped. */
	private prune(): string[] {
		const d = this.entries();
		const oldest = this.now() - RECORD_HORIZON_MS;
		const gone: Array<[string, number]> = [];
		for (const [digest, detail] of Object.entries(d)) {
			if (!isDetail(detail)) gone.push([digest, 0]);
			else if (detail[0] < oldest) gone.push([digest, detail[0]]);
		}
		gone.sort((a, b) => a[1] - b[1]);
		for (const [digest] of gone) {
			// An unclear write's marks go with it.
			const detail = d[digest];
			if (isDetail(detail) && detail[6] !== undefined) this.staleMarks.push(...unclearMarks(digest, detail[0]));
			delete d[digest];
		}
		this.size -= gone.length;
		if (gone.length > 0) this.touch();
		return gone.map(([digest]) => digest);
	}

	private live(): number {
		this.entries();
		return this.size;
	}

	private detailOf(key: string, digest: string): RecordEntry | undefined {
		const detail = this.entries()[digest];
		if (!isDetail(detail) || detail[0] < this.now() - RECORD_HORIZON_MS) return undefined;
		return fromDetail(key, detail);
	}

	private full(reason: string): Claim {
		return {
			status: 'untracked',
			reason:
				`This node's once-per-event record ${reason}: the write went out under the event's Idempotency-Key alone, ` +
				'which the service honours for 24 hours; a re-delivery after that could write again. Split the work over several nodes.',
		};
	}

	async claim(key: string, window = MAX_WINDOW_MS): Promise<Claim> {
		const digest = recordDigest(key);
		if (this.readOnly && !this.helpers) return { status: 'unavailable', reason: 'not there' };
		if (this.helpers) {
			let claim: Claim | undefined;
			try {
				claim = await this.claimInStore(key, digest, Math.min(window, MAX_WINDOW_MS));
			} catch (error) {
				claim = this.failed(error);
			}
			if (claim !== undefined) return claim;
		}
		return this.claimInStaticData(key, digest);
	}

	/**
	 * n8n-core alone, or a store that failed before the claim went in: static data for the rest of
	 * the run (never untracked); in n8n's Retry the record cannot be read.
	 */
	private failed(error: unknown): Claim | undefined {
		if (!notInitialised(error)) this.storeFailure = describe(error);
		if (this.readOnly) return { status: 'unavailable', reason: this.storeFailure ?? 'not there' };
		this.helpers = false;
		return undefined;
	}

	private claimInStaticData(key: string, digest: string): Claim {
		if (!this.pruned) {
			this.prune();
			this.pruned = true;
		}
		const entry = this.detailOf(key, digest);
		if (entry) {
			const claim = found(entry, this.now());
			if (claim.status === 'unclear' && claim.resend) this.pending.set(digest, undefined);
			return claim;
		}
		if (this.pending.has(digest)) return { status: 'done' };
		if (this.live() + this.pending.size >= RECORD_CAPACITY) {
			this.prune();
			if (this.live() + this.pending.size >= RECORD_CAPACITY) return this.full(`holds ${RECORD_CAPACITY} writes of the last 84 hours and is full`);
		}
		this.pending.set(digest, undefined);
		return { status: 'new' };
	}

	private async claimInStore(key: string, digest: string, window: number): Promise<Claim | undefined> {
		if (this.storeCount === undefined) {
			// First use in the run: also tells whether the store is there at all (throws when not).
			this.storeCount = await this.row.count();
		}
		if (!this.pruned) {
			this.pruned = true;
			const expired = this.prune();
			if (expired.length > 0) {
				await this.row.remove([...expired, ...expired.map(doneMark), ...this.staleMarks.splice(0)]);
				this.storeCount = Math.max(0, this.storeCount - expired.length * VALUES_PER_WRITE);
			}
		}
		// Another item of this run claimed it: the store would say "in flight" of this run's own claim.
		if (this.pending.has(digest)) return { status: 'done' };
		const known = this.detailOf(key, digest);
		if (known === undefined && this.storeCount >= RECORD_CAPACITY * VALUES_PER_WRITE && this.live() + this.pending.size >= RECORD_CAPACITY) {
			// n8n would drop the oldest entry on this add, and that entry is within the horizon.
			this.prune();
			if (this.live() + this.pending.size >= RECORD_CAPACITY) return this.full(`holds ${RECORD_CAPACITY} writes of the last 84 hours and is full`);
		}
		const now = this.now();
		const start = startClaim({
			digest,
			nonce: randomBytes(6).toString('base64url'),
			now,
			window,
			known: known === undefined ? undefined : ((known.unclear ?? 'done') as Known),
			knownFresh: known?.unclear === 'unanswered' && now - known.at < RESEND_WINDOW_MS,
		});
		let decision: Decision;
		let first = true;
		try {
			decision = await drive(start, async (o) => {
				const out = await this.row.run(o);
				first = false;
				return out;
			});
		} catch (error) {
			// Before the claim went in: static data for the rest of the run (claim()). After: nothing may be sent.
			if (first) return this.failed(error);
			return { status: 'unclear', kind: 'unanswered', resend: false };
		}
		return this.claimOf(decision, digest, known);
	}

	/** The machine's decision as the gate reads it, with what static data holds of the write. */
	private claimOf(decision: Decision, digest: string, known: RecordEntry | undefined): Claim {
		const at = (newest?: number) => known?.at ?? (newest !== undefined ? (Math.floor(this.now() / MARK_MS) - newest) * MARK_MS : undefined);
		switch (decision.status) {
			case 'new':
				this.storeCount = (this.storeCount ?? 0) + 1;
				this.pending.set(digest, { token: decision.token, attempt: 1, flights: decision.flights ?? [] });
				return { status: 'new' };
			case 'resend':
				this.pending.set(digest, { token: decision.token, attempt: decision.attempt, flights: decision.flights ?? [] });
				return { status: 'unclear', kind: 'unanswered', at: at(decision.newest), resend: true, ...(known ? { entry: known } : {}) };
			case 'done':
				return known?.unclear === undefined && known !== undefined ? { status: 'done', entry: known } : { status: 'done' };
			case 'failed':
				return { status: 'unclear', kind: 'failed', at: at(), resend: false, ...(known ? { entry: known } : {}) };
			case 'unanswered':
				// Within the window: its one resend went unanswered too.
				return { status: 'unclear', kind: 'unanswered', at: at(decision.newest), resend: false, ...(decision.newest !== undefined && decision.newest <= 1 ? { again: true } : {}), ...(known ? { entry: known } : {}) };
			case 'inflight':
				return { status: 'unclear', kind: 'unanswered', resend: false, inflight: true, ...(known ? { entry: known } : {}) };
			default:
				return { status: 'unclear', kind: 'unanswered', resend: false, ...(known ? { entry: known } : {}) };
		}
	}

	/** The answer of a claim this run holds in the store, written there (add, pause, check). */
	private async answer(digest: string, answer: Answer): Promise<void> {
		const held = this.pending.get(digest);
		this.pending.delete(digest);
		if (!this.helpers || held === undefined) return;
		try {
			await drive(startAnswer(digest, held, this.now(), answer), async (o: StoreOp) => await this.row.run(o));
		} catch {
			// The static data says so; the claim stays in the store, in flight (nothing is sent again meanwhile).
		}
	}

	async confirm(entry: ConfirmedEntry): Promise<void> {
		const digest = recordDigest(entry.key);
		const d = this.entries();
		if (d[digest] === undefined) this.size++;
		d[digest] = toDetail(entry);
		this.touch();
		await this.answer(digest, 'done');
	}

	async unclear(entry: RecordEntry & { unclear: Unclear }): Promise<void> {
		const digest = recordDigest(entry.key);
		const d = this.entries();
		const before = isDetail(d[digest]) ? fromDetail(entry.key, d[digest]) : undefined;
		if (d[digest] === undefined) this.size++;
		// The first unclear attempt's time is kept: the service's 24 hours run from it. Failed stays failed.
		const kind: Unclear = before?.unclear === 'failed' ? 'failed' : entry.unclear;
		d[digest] = toDetail({ ...entry, at: before?.unclear !== undefined ? before.at : entry.at, unclear: kind });
		this.touch();
		await this.answer(digest, kind);
	}

	async release(key: string): Promise<void> {
		const digest = recordDigest(key);
		if (!this.pending.has(digest)) return;
		if (this.pending.get(digest) !== undefined && this.storeCount !== undefined) this.storeCount = Math.max(0, this.storeCount - 1);
		await this.answer(digest, 'released');
	}
}

/**
 * The once-per-event record of the node running in `ctx`; one per run. `storeOnly`: n8n's Retry,
 * whose static data must not be written: the record is n8n's deduplication store alone, with the
 * details read from static data; every claim is 'unavailable' where that store is not there.
 */
export function onceRecord(ctx: IExecuteFunctions, now: () => number = () => Date.now(), storeOnly = false): OnceRecord {
	return new Record_(ctx, now, storeOnly);
}
