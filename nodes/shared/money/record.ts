import { createHash } from 'node:crypto';
import { sleep } from 'n8n-workflow';
import type { ICheckProcessedOptions, IDataObject, IDeduplicationOutput, IExecuteFunctions } from 'n8n-workflow';

import type { Gated } from '../redaction/gate';

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
 * installed, n8n/dist/deduplication/deduplication-helper.js):
 * - one database row per (workflow, `n:<node id>`) holding `{ mode, data: [...] }`; every value is
 *   hashed (md5, base64: 24 characters, about 27 B in the row), so values cannot be read back;
 * - `maxEntries` trims from the front of the list (first in, first out; no time);
 * - `checkProcessedAndRecord` and `removeProcessed` are a findOne then an update (or insert) of the
 *   whole row, with no transaction or lock: NOT atomic across processes. Two processes whose calls
 *   interleave between the read and the write keep only the last writer's list (the first one's new
 *   value is lost); two first-ever inserts race on the row's primary key (one fails: the claim is
 *   tried once more after a pause, when the row exists). The window is
 *   one round trip (milliseconds) rather than a whole execution. Mitigations here: the calls of one
 *   process to one node's row go one at a time (no race inside a worker); confirm() adds the key
 *   again, waits VERIFY_DELAY_MS (longer than any read-modify-write that could have read the row
 *   before that add) and checks it is still there, re-adding and checking again when it is not;
 *   every claim re-adds the keys this run confirmed. The confirm also leaves a done mark, which
 *   outranks a time mark that such a write put back after the confirm took it out (seen in queue
 *   mode: without it the write read as never answered). What is left: a read-modify-write of another
 *   process slower than VERIFY_DELAY_MS that started before the last add and ends after the check.
 *
 * What a 'done' claim without details means: the store holds the key but this process cannot read
 * what was written. Either the write was made and its details were not saved where this process
 * reads them (queue mode: another worker's static data), or another execution holds the claim and
 * is writing now, or an execution claimed and then stopped before it could confirm or release
 * (worker killed between the claim and the answer). The caller sends nothing (a second refund is
 * money out and cannot be taken back; a refund that was never sent shows as that failed or crashed
 * execution). Not covered: the crashed-after-claim case loses that write until someone looks.
 *
 * Bounds: CAPACITY entries (25,000; at least 20,000 per node within the horizon), pruned after
 * RECORD_HORIZON_MS. When full, entries past the horizon go first (oldest first); if still full the
 * claim is 'untracked' (the write goes out under the event's Idempotency-Key alone), never refused.
 */

/** The service retries a delivery 9 times over about 75 hours (±10 % jitter); kept 84 hours. */
export const RECORD_HORIZON_MS = 84 * 3_600_000;
/** Entries one node keeps within the horizon. */
export const RECORD_CAPACITY = 25_000;
/** Node static data field of the entries' details. */
export const RECORD_FIELD = 'vaultStoreOnce';
/** Keys this run confirmed that every later claim re-adds (repairs a concurrent overwrite). */
const REPAIR_WINDOW = 50;
/** How long confirm() waits before it checks its key is still in the store (see above). */
const VERIFY_DELAY_MS = 300;
/** Rounds of add-wait-check confirm() makes at most. */
const VERIFY_ROUNDS = 4;
/** Reads of a claim's marks while another process may be reading them too (see readMarks). */
const READ_ROUNDS = 3;
/** Longest mismatch text kept. */
const MISMATCH_MAX_CHARS = 400;
/** Longest record id kept. */
const ID_MAX_CHARS = 64;
/**
 * A write whose outcome is unknown is sent again (same Idempotency-Key) only this long after its
 * first attempt: the service keeps a key's stored result 24 hours; 2 hours spare for clocks.
 */
export const RESEND_WINDOW_MS = 22 * 3_600_000;
/** Width of the time marks a claim leaves in n8n's store (two of them span at most RESEND_WINDOW_MS). */
const MARK_MS = 11 * 3_600_000;
/** Marks that cover the horizon. */
const MARKS = Math.ceil(RECORD_HORIZON_MS / MARK_MS) + 1;

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
	| { status: 'unclear'; kind: Unclear; at?: number; resend: boolean; entry?: RecordEntry }
	| { status: 'untracked'; reason: string } // cannot be recorded: the write goes out under the event's Idempotency-Key
	| { status: 'unavailable'; reason: string }; // n8n's Retry without n8n's store: the record cannot be read
export interface OnceRecord {
	/** Which store backs it, for hints and tests. */
	readonly backend: 'deduplication' | 'staticData';
	/** Why n8n's deduplication store failed in this run, when it did (the record then uses static data). */
	readonly storeFailure?: string;
	claim(key: string): Promise<Claim>;
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

/** n8n-core without n8n: the deduplication service was never given a store. */
export function notInitialised(error: unknown): boolean {
	return /needs to (be )?initiali[sz]ed/i.test(error instanceof Error ? error.message : String(error));
}

/** What a claim finds in an entry it can read: made, or sent with an unknown outcome. */
function found(entry: RecordEntry, now: number): Claim {
	if (entry.unclear === undefined) return { status: 'done', entry };
	return { status: 'unclear', kind: entry.unclear, at: entry.at, resend: entry.unclear === 'unanswered' && now - entry.at < RESEND_WINDOW_MS, entry };
}

/** The store's time mark of a claim made in period `period` (MARK_MS wide). */
function timeMark(digest: string, period: number): string {
	return `${digest}@${period}`;
}

/** The store's mark of a claim whose write failed with an answer the service does not store. */
function failedMark(digest: string): string {
	return `${digest}!`;
}

/**
 * The store's mark of a confirmed write. It outranks the other marks: a concurrent read-modify-write
 * that read the row before the confirm took the time mark out can put that mark back, and without
 * this one the write would read as never answered (sent again within 22 hours, refused after).
 */
function doneMark(digest: string): string {
	return `${digest}=`;
}

/** Every mark a claim made up to `now` may have left (the failed mark first, then time marks newest first). */
function marksOf(digest: string, now: number): string[] {
	const period = Math.floor(now / MARK_MS);
	return [failedMark(digest), ...Array.from({ length: MARKS }, (_, i) => timeMark(digest, period - i))];
}

function describe(error: unknown): string {
	return (error instanceof Error ? error.message : String(error)).slice(0, 200);
}

/** Room in n8n's store beside the claims for the marks of writes in flight or of unknown outcome. */
const MARK_ROOM = 1_000;
/** Room for the day budgets' units (budget.ts): 8 currency-days of a full budget. */
export const BUDGET_ROOM = 4_000;
/** Values a confirmed write keeps in n8n's store: the claim and its done mark. */
const VALUES_PER_WRITE = 2;
/** Every call to the node's row passes the same options (n8n trims the row to maxEntries on each). */
export const DEDUP: ICheckProcessedOptions = { mode: 'entries', maxEntries: RECORD_CAPACITY * VALUES_PER_WRITE + MARK_ROOM + BUDGET_ROOM };

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

class Record_ implements OnceRecord {
	private helpers: boolean;
	private details?: Details;
	/** How many details there are (counted once per run, then kept up to date). */
	private size = 0;
	private pruned = false;
	/** Claimed in this run, not yet confirmed or released. */
	private readonly pending = new Set<string>();
	/** Confirmed in this run (digests), newest last. */
	private readonly confirmed: string[] = [];
	/** Entries in the deduplication row, when read this run. */
	private storeCount?: number;
	/** Marks of unclear writes pruned from the details, to take out of the store. */
	private readonly staleMarks: string[] = [];
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
	}

	/** The store's row for this node, as n8n keys it (workflow, node id). */
	private row(): string {
		return rowOf(this.ctx);
	}

	private async count(): Promise<number> {
		return await oneAtATime(this.row(), async () => await this.ctx.helpers.getProcessedDataCount('node', DEDUP));
	}

	private async add(values: string[]): Promise<IDeduplicationOutput> {
		return await oneAtATime(this.row(), async () => await this.ctx.helpers.checkProcessedAndRecord(values, 'node', DEDUP));
	}

	private async remove(values: string[]): Promise<void> {
		await oneAtATime(this.row(), async () => await this.ctx.helpers.removeProcessed(values, 'node', DEDUP));
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
			if (isDetail(detail) && detail[6] !== undefined) this.staleMarks.push(failedMark(digest), timeMark(digest, Math.floor(detail[0] / MARK_MS)));
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

	async claim(key: string): Promise<Claim> {
		const digest = recordDigest(key);
		if (this.readOnly && !this.helpers) return { status: 'unavailable', reason: 'not there' };
		if (this.helpers) {
			try {
				return await this.claimInStore(key, digest);
			} catch (error) {
				// n8n-core alone, or a store that failed: static data for the rest of the run (never untracked).
				if (!notInitialised(error)) this.storeFailure = describe(error);
				if (this.readOnly) return { status: 'unavailable', reason: this.storeFailure ?? 'not there' };
				this.helpers = false;
			}
		}
		return this.claimInStaticData(key, digest);
	}

	/** A claim on an entry this process can read: made, or unclear (claimed again for this run when it may be resent). */
	private claimFound(entry: RecordEntry, digest: string): Claim {
		const claim = found(entry, this.now());
		if (claim.status === 'unclear' && claim.resend) this.pending.add(digest);
		return claim;
	}

	private claimInStaticData(key: string, digest: string): Claim {
		if (!this.pruned) {
			this.prune();
			this.pruned = true;
		}
		const entry = this.detailOf(key, digest);
		if (entry) return this.claimFound(entry, digest);
		if (this.pending.has(digest)) return { status: 'done' };
		if (this.live() + this.pending.size >= RECORD_CAPACITY) {
			this.prune();
			if (this.live() + this.pending.size >= RECORD_CAPACITY) return this.full(`holds ${RECORD_CAPACITY} writes of the last 84 hours and is full`);
		}
		this.pending.add(digest);
		return { status: 'new' };
	}

	private async claimInStore(key: string, digest: string): Promise<Claim> {
		if (this.storeCount === undefined) {
			// First use in the run: also tells whether the store is there at all (throws when not).
			this.storeCount = await this.count();
		}
		if (!this.pruned) {
			this.pruned = true;
			const expired = this.prune();
			if (expired.length > 0) {
				await this.remove([...expired, ...expired.map(doneMark), ...this.staleMarks.splice(0)]);
				this.storeCount = Math.max(0, this.storeCount - expired.length * VALUES_PER_WRITE);
			}
		}
		const known = this.detailOf(key, digest);
		// Its details are here: the store holds it too (or held it until a concurrent write dropped it).
		if (known) return this.claimFound(known, digest);
		if (this.storeCount >= RECORD_CAPACITY * VALUES_PER_WRITE && this.live() + this.pending.size >= RECORD_CAPACITY) {
			// n8n would drop the oldest entry on this add, and that entry is within the horizon.
			this.prune();
			if (this.live() + this.pending.size >= RECORD_CAPACITY) return this.full(`holds ${RECORD_CAPACITY} writes of the last 84 hours and is full`);
		}
		const repair = this.confirmed.slice(-REPAIR_WINDOW).flatMap((d) => [d, doneMark(d)]);
		// The claim and its time mark: a process that finds the claim without details reads when it was made.
		const mark = timeMark(digest, Math.floor(this.now() / MARK_MS));
		let out: IDeduplicationOutput;
		try {
			out = await this.add([digest, mark, ...repair]);
		} catch {
			// Once more after a pause: two processes' first-ever adds race on the row's primary key.
			await sleep(VERIFY_DELAY_MS);
			out = await this.add([digest, mark, ...repair]);
		}
		const added = new Set(out.new.map(String));
		this.storeCount = this.storeCount + added.size - (added.has(mark) ? 1 : 0);
		if (!added.has(digest)) {
			try {
				if (added.has(mark)) await this.remove([mark]);
				return await this.readMarks(digest);
			} catch {
				// The store holds the claim and cannot say more: nothing may be sent.
				return { status: 'unclear', kind: 'unanswered', resend: false };
			}
		}
		this.pending.add(digest);
		return { status: 'new' };
	}

	/**
	 * A claim held in the store whose details this process cannot read: confirmed (its done mark,
	 * or no marks: a write confirmed before done marks), or made and never answered (its time mark:
	 * sent again within RESEND_WINDOW_MS), or failed with an answer the service does not store. The
	 * marks are read by adding them and taking back the ones that were not there; with the done mark
	 * there, the marks a concurrent write put back go too.
	 */
	private async readMarks(digest: string): Promise<Claim> {
		for (let round = 1; ; round++) {
			const period = Math.floor(this.now() / MARK_MS);
			const marks = marksOf(digest, this.now());
			const done = doneMark(digest);
			const out = await this.add([done, ...marks]);
			const absent = new Set(out.new.map(String));
			const failed = !absent.has(marks[0]);
			// Another process reading these marks adds every absent one in one write, the failed mark
			// among them, so a done mark beside a failed mark is never read as done. A confirmed write
			// never has a failed mark (no write that failed is sent again under its key).
			if (!absent.has(done) && !failed) {
				// The marks this read added are among them.
				await this.remove(marks);
				return { status: 'done' };
			}
			if (absent.size > 0) await this.remove([...absent]);
			if (failed) {
				// The failed mark, or another process reading the marks now: read again after a pause.
				if (round < READ_ROUNDS) {
					await sleep(VERIFY_DELAY_MS);
					continue;
				}
				return { status: 'unclear', kind: 'failed', resend: false };
			}
			const newest = marks.slice(1).findIndex((m) => !absent.has(m));
			if (newest < 0) return { status: 'done' };
			// The mark's period began at most this long ago: two periods span at most RESEND_WINDOW_MS.
			const resend = newest <= 1;
			if (resend) this.pending.add(digest);
			return { status: 'unclear', kind: 'unanswered', at: (period - newest) * MARK_MS, resend };
		}
	}

	/** Takes back the marks of a claim (its outcome is known now, or it is past the horizon). */
	private async clearMarks(digest: string, also: string[] = []): Promise<void> {
		await this.remove([...also, ...marksOf(digest, this.now())]);
	}

	async confirm(entry: ConfirmedEntry): Promise<void> {
		const digest = recordDigest(entry.key);
		this.pending.delete(digest);
		const d = this.entries();
		if (d[digest] === undefined) this.size++;
		d[digest] = toDetail(entry);
		this.touch();
		if (!this.helpers) return;
		this.confirmed.push(digest);
		if (this.confirmed.length > REPAIR_WINDOW * 2) this.confirmed.splice(0, this.confirmed.length - REPAIR_WINDOW);
		try {
			// Again, then again after a pause: a concurrent read-modify-write of the row (another worker)
			// may have dropped the claim; present after the pause, no write that read before the add is left.
			// The done mark goes in with it (checked the same way). The claim's other marks go in every
			// round too; one that a concurrent read-modify-write puts back after the last round is
			// outranked by the done mark.
			for (let round = 0; round < VERIFY_ROUNDS; round++) {
				const out = await this.add([digest, doneMark(digest)]);
				if (out.new.length > 0) this.storeCount = (this.storeCount ?? 0) + out.new.length;
				await this.clearMarks(digest);
				if (round > 0 && out.new.length === 0) break;
				if (round < VERIFY_ROUNDS - 1) await sleep(VERIFY_DELAY_MS);
			}
		} catch {
			// The claim was in the store; the details are kept above.
		}
	}

	async unclear(entry: RecordEntry & { unclear: Unclear }): Promise<void> {
		const digest = recordDigest(entry.key);
		this.pending.delete(digest);
		const d = this.entries();
		const before = isDetail(d[digest]) ? fromDetail(entry.key, d[digest]) : undefined;
		if (d[digest] === undefined) this.size++;
		// The first unclear attempt's time is kept: the service's 24 hours run from it.
		d[digest] = toDetail({ ...entry, at: before?.unclear !== undefined ? before.at : entry.at, unclear: before?.unclear === 'failed' ? 'failed' : entry.unclear });
		this.touch();
		if (!this.helpers || entry.unclear !== 'failed') return;
		try {
			await this.add([failedMark(digest)]);
		} catch {
			// The static data above still says so; the time mark stays in the store.
		}
	}

	async release(key: string): Promise<void> {
		const digest = recordDigest(key);
		if (!this.pending.delete(digest)) return;
		if (!this.helpers) return;
		try {
			await this.clearMarks(digest, [digest, doneMark(digest)]);
			if (this.storeCount !== undefined) this.storeCount = Math.max(0, this.storeCount - 1);
		} catch {
			// Left claimed: a re-delivery finds it 'done' without details and sends nothing (see above).
		}
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
