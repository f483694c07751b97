import { createHash } from 'node:crypto';

/**
 * Duplicate key for a delivery whose id header is not signed (V1, legacy body-only):
 * a SHA-256 of exactly the content the signature covers, `prefix` then the raw body
 * bytes. A replay must carry a valid signature, so it carries the same signed content
 * and gets the same key, whatever id header it is sent with; a different body or a
 * different signed timestamp gives another key. `scheme` keeps the V1 and legacy key
 * spaces apart.
 */
export function signedContentKey(scheme: string, prefix: string, rawBody: Uint8Array): string {
	const digest = createHash('sha256').update(prefix, 'latin1').update(rawBody).digest('base64');
	return `${scheme}:${digest}`;
}

/**
 * A bounded, in-memory set of recently seen delivery ids with a time window, for
 * dropping retried or replayed deliveries. No timers: expiry happens on use.
 *
 * Records sit in a ring of `max` slots in the order they were made, and a Map points
 * each live id at its slot. Each call drops expired records from the head of the
 * ring, and the oldest record when the ring is full. Every record is added and
 * dropped once, so `seen` is amortised O(1). (A Map alone used as a queue is not:
 * V8 leaves deleted entries as holes that every iteration from the front skips.)
 *
 * To catch replays of a signed delivery, use a window at least twice the signature
 * tolerance: a delivery stamped T verifies from T - tolerance to T + tolerance.
 */
export class SeenIds {
	private readonly max: number;

	/** id -> sequence number of its live record. */
	private readonly live = new Map<string, number>();

	private readonly ids: Array<string | undefined>;

	private readonly times: number[];

	/** Sequence number of the oldest record in the ring. */
	private head = 0;

	/** Sequence number the next record gets. */
	private tail = 0;

	constructor(max = 10000) {
		this.max = Number.isInteger(max) && max > 0 ? max : 10000;
		this.ids = [];
		this.times = [];
	}

	/** Number of ids currently remembered. */
	get size(): number {
		return this.live.size;
	}

	/** The content fingerprint recorded with each id (by slot), when one was given. */
	private readonly contents: Array<string | undefined> = [];

	/**
	 * True if `id` was recorded less than `windowMs` before `nowMs` (a duplicate);
	 * otherwise records it at `nowMs` and returns false. The first sighting counts:
	 * a duplicate does not extend the window.
	 */
	seen(id: string, nowMs: number, windowMs: number): boolean {
		return this.check(id, nowMs, windowMs) !== 'new';
	}

	/**
	 * As `seen`, with the content the id came with (a hash of the signed body): an id seen
	 * within the window with the same content is a 'duplicate'; with other content a
	 * 'conflict' (a reused id, not a repeat: never to be dropped as one); else 'new', recorded.
	 */
	check(id: string, nowMs: number, windowMs: number, content?: string): 'new' | 'duplicate' | 'conflict' {
		const found = this.find(id, nowMs, windowMs);
		if (found !== undefined) {
			const recorded = this.contents[found % this.max];
			return content !== undefined && recorded !== undefined && recorded !== content ? 'conflict' : 'duplicate';
		}
		this.record(id, nowMs, content);
		return 'new';
	}

	/** The sequence number of `id`'s live record within the window, after dropping expired records. */
	private find(id: string, nowMs: number, windowMs: number): number | undefined {
		while (this.head < this.tail && !(nowMs - this.times[this.head % this.max] < windowMs)) {
			this.dropHead();
		}
		const sequence = this.live.get(id);
		if (sequence !== undefined) {
			if (Math.abs(nowMs - this.times[sequence % this.max]) < windowMs) {
				return sequence;
			}
			// Expired but not at the head (the clock moved back): forget it; its old
			// slot is released when it reaches the head.
			this.live.delete(id);
		}
		return undefined;
	}

	private record(id: string, nowMs: number, content: string | undefined): void {
		if (this.tail - this.head >= this.max) {
			this.dropHead();
		}
		const slot = this.tail % this.max;
		this.ids[slot] = id;
		this.times[slot] = nowMs;
		this.contents[slot] = content;
		this.live.set(id, this.tail);
		this.tail++;
	}

	private dropHead(): void {
		const slot = this.head % this.max;
		const id = this.ids[slot];
		if (id !== undefined && this.live.get(id) === this.head) {
			this.live.delete(id);
		}
		this.ids[slot] = undefined;
		this.contents[slot] = undefined;
		this.head++;
	}
}
