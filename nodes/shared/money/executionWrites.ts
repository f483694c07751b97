import { createHash } from 'node:crypto';
import type { IDataObject } from 'n8n-workflow';

import type { Gated } from '../redaction/gate';
import type { Unclear } from './record';

/** Where the unclear writes live in n8n's per-execution flow context. */
const FIELD = 'vaultStoreUnclearWrites';
/** Where the Idempotency Keys of the user's that this execution sent live, beside them. */
const KEYS_FIELD = 'vaultStoreOptionKeys';
/** Where the money writes an AI agent made in this execution live, beside them. */
const MADE_FIELD = 'vaultStoreAgentWrites';
/** Longest record id kept of a write an agent made. */
const ID_MAX_CHARS = 100;
/** Longest description of a write kept with its key (for messages). */
const WHAT_MAX_CHARS = 160;

/** A money write of this execution whose outcome is unknown: the key it went under, how, when. */
export interface UnclearWrite {
	key: string;
	kind: Unclear;
	at: number;
}

/** What an Idempotency Key of the user's was first sent with in this execution. */
export interface KeyUse {
	/** A digest of what the write moves (method, route with ids, amount, currency) or, for another write, of the whole request. */
	write: string;
	/** The write in words, for messages ("Refund an order" for orderId ord_…, 1 USD). */
	what: string;
}

/** A money write an AI agent made in this execution: what its answer said, kept to answer a repeat. */
export interface MadeWrite {
	/** The record the service made (the refund's id), as the output gate lets a value out. */
	recordId?: string;
	amount?: number;
	currency?: string;
	at: number;
}

/** 22 characters of SHA-256: what the context keeps of a key or a write. */
function digestOf(text: string): string {
	return createHash('sha256').update(text).digest('base64url').slice(0, 22);
}

/**
 * What the nodes remember of their writes for the rest of the execution, in n8n's per-execution
 * flow context, which every Vault Store node and every run of one in the execution shares (a
 * loop's runs, n8n's Retry On Fail, both of n8n's agent routes, a second node on an error branch).
 * Entries are per place (the credential's Base URL and store or vault): the caller puts the place
 * in front of the identity and the key.
 *
 * - Money writes without an event or a key of the user's (outside an AI agent each run of the node gets its own key)
 *   whose outcome is unknown, by what they move (method, route with ids, amount, currency). A
 *   repeat of one within the execution is sent under the first's key or refused, never sent as a
 *   new write. Written when the outcome is learnt, as the run may fail.
 * - Each Idempotency Key of the user's (Options → Idempotency Key) and the write it was first sent
 *   with. The service keeps one result per key and answers a repeat with it, whatever the route
 *   (or refuses another body): the same key for another write is refused before it is sent, the
 *   same write again (a re-send) goes out. Written before the write is sent.
 * - The money writes an AI agent made (answered with success), by what they move, with what the
 *   answer said (record id, amount, currency): the same write asked again in the execution is
 *   answered with them, not sent. Written when the answer arrives.
 */
export class ExecutionWrites {
	constructor(private readonly context: IDataObject) {}

	private all(): Record<string, UnclearWrite> {
		const saved = this.context[FIELD];
		return saved !== null && typeof saved === 'object' && !Array.isArray(saved) ? (saved as unknown as Record<string, UnclearWrite>) : {};
	}

	unclear(identity: string): UnclearWrite | undefined {
		return this.all()[digestOf(identity)];
	}

	remember(identity: string, write: UnclearWrite): void {
		this.context[FIELD] = { ...this.all(), [digestOf(identity)]: write } as unknown as IDataObject;
	}

	/** The write's outcome is known now (answered, or provably not applied). */
	forget(identity: string): void {
		const all = this.all();
		const id = digestOf(identity);
		if (!(id in all)) return;
		const rest = { ...all };
		delete rest[id];
		this.context[FIELD] = rest as unknown as IDataObject;
	}

	private madeWrites(): Record<string, MadeWrite> {
		const saved = this.context[MADE_FIELD];
		return saved !== null && typeof saved === 'object' && !Array.isArray(saved) ? (saved as unknown as Record<string, MadeWrite>) : {};
	}

	/** A money write an AI agent made earlier in this execution (the service answered it with success). */
	made(identity: string): MadeWrite | undefined {
		const entry = this.madeWrites()[digestOf(identity)];
		return entry !== undefined && typeof entry.at === 'number' ? entry : undefined;
	}

	/** `recordId` and `currency` come from the service's answer: through the output gate first. */
	rememberMade(identity: string, write: Omit<MadeWrite, 'recordId' | 'currency'> & { recordId?: Gated<string>; currency?: Gated<string> }): void {
		const kept: MadeWrite = {
			at: write.at,
			...(write.recordId !== undefined ? { recordId: write.recordId.slice(0, ID_MAX_CHARS) } : {}),
			...(write.amount !== undefined ? { amount: write.amount } : {}),
			...(write.currency !== undefined ? { currency: write.currency.slice(0, 16) } : {}),
		};
		this.context[MADE_FIELD] = { ...this.madeWrites(), [digestOf(identity)]: kept } as unknown as IDataObject;
	}

	private keys(): Record<string, KeyUse> {
		const saved = this.context[KEYS_FIELD];
		return saved !== null && typeof saved === 'object' && !Array.isArray(saved) ? (saved as unknown as Record<string, KeyUse>) : {};
	}

	/**
	 * An Idempotency Key of the user's about to be sent with `identity`: 'new' (first use in the
	 * execution, remembered now), 'same' (sent before with the same write), or the other write it
	 * was sent with.
	 */
	useKey(key: string, identity: string, what: string): { status: 'new' | 'same' } | { status: 'other'; what: string } {
		const all = this.keys();
		const id = digestOf(key);
		const write = digestOf(identity);
		const earlier = all[id];
		if (earlier !== undefined && typeof earlier.write === 'string') return earlier.write === write ? { status: 'same' } : { status: 'other', what: String(earlier.what) };
		this.context[KEYS_FIELD] = { ...all, [id]: { write, what: what.slice(0, WHAT_MAX_CHARS) } } as unknown as IDataObject;
		return { status: 'new' };
	}
}
