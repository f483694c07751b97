import { createHash, randomUUID } from 'node:crypto';

/** The spec's key rule: 1 to 255 characters of A-Z a-z 0-9 _ - */
export const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9_-]{1,255}$/;

export interface KeyScope {
	workflowId?: string;
	executionId?: string;
	nodeName: string;
	runIndex: number;
}

/** Where an item's default key comes from, as the output reports it. */
export type KeySource = 'event' | 'execution' | 'option';

/** The Vault Store Trigger delivery an item descends from. */
export interface EventOrigin {
	eventId: string;
}

/** What a write does: the request as it will be sent, without its key. */
export interface WriteShape {
	method: string;
	/** Family and path below it, ids filled. */
	route: string;
	query?: unknown;
	body?: unknown;
}

/** JSON with object keys in sorted order, so the same values always read the same. */
export function canonicalJson(value: unknown): string {
	if (value === undefined) return '';
	if (value === null || typeof value !== 'object') return JSON.stringify(value);
	if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
	const keys = Object.keys(value as object)
		.filter((k) => (value as Record<string, unknown>)[k] !== undefined)
		.sort();
	return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
}

/** The identity of a write within an event: route, method and the values that define it. */
export function writeFingerprint(shape: WriteShape): string {
	return createHash('sha256')
		.update(`${shape.method.toUpperCase()}|${shape.route}|${canonicalJson(shape.query ?? {})}|${canonicalJson(shape.body ?? {})}`)
		.digest('base64url');
}

/**
 * A key per item, derived from where the item runs (workflow, execution, node,
 * run, item). The transport reuses it on every retry, and n8n's own "Retry On
 * Fail" re-runs of the node produce the same key, so the service sees one
 * operation. Without an execution id (some manual runs), a per-run nonce keeps
 * keys stable within the run.
 */
export class IdempotencyKeys {
	private readonly nonce = randomUUID();

	constructor(private readonly scope: KeyScope) {}

	forItem(itemIndex: number): string {
		const { workflowId, executionId, nodeName, runIndex } = this.scope;
		const origin = executionId ? `${workflowId ?? ''}|${executionId}` : `nonce|${this.nonce}`;
		const digest = createHash('sha256')
			.update(`${origin}|${nodeName}|${runIndex}|${itemIndex}`)
			.digest('base64url');
		return `n8n_${digest.slice(0, 40)}`;
	}

	/**
	 * An AI agent's money write without an event or a key of the user's: one key per write of the
	 * execution, not per run or item. `identity` names where it goes and what it moves (the
	 * credential's place, method, route with its ids, amount, currency), so the same write asked
	 * again in the execution (another tool call, another tool of the agent) goes out under the same
	 * key, and the service makes it once; another order or amount gets another key.
	 */
	forExecutionWrite(identity: string): string {
		const { workflowId, executionId } = this.scope;
		const origin = executionId ? `${workflowId ?? ''}|${executionId}` : `nonce|${this.nonce}`;
		const digest = createHash('sha256').update(`agent|${origin}|${identity}`).digest('base64url');
		return `n8n_agt_${digest.slice(0, 40)}`;
	}

	/**
	 * A key that names the write, not its place: the event, the workflow, the
	 * node and what the request does (method, route, query and body as sent),
	 * and for identical requests how many identical ones came before in the
	 * same execution. Every execution of the same event gets the same key for
	 * the same write, whatever the order of the items around it; another
	 * workflow, order, amount or a repeat of the same write gets another.
	 */
	forEvent(origin: EventOrigin, fingerprint: string, occurrence: number): string {
		const digest = createHash('sha256')
			.update(`event|${origin.eventId}|${this.scope.workflowId ?? ''}|${this.scope.nodeName}|${fingerprint}|${occurrence}`)
			.digest('base64url');
		return `n8n_evt_${digest.slice(0, 40)}`;
	}
}

/**
 * Short digests of the top-level fields of a request's body and query, except `skip` (the
 * amount and currency, which the key names): `name=digest&…`, sorted. Kept with a recorded write
 * (a few bytes a field) to name the fields a later execution of the same event changed.
 */
export function fieldDigests(body: unknown, query: unknown, skip: Array<string | undefined>): string {
	const pairs: string[] = [];
	const add = (prefix: string, record: unknown) => {
		if (record === null || typeof record !== 'object' || Array.isArray(record)) {
			if (record !== undefined) pairs.push(`${prefix}=${digest(canonicalJson(record))}`);
			return;
		}
		for (const [name, value] of Object.entries(record as Record<string, unknown>)) {
			if (value === undefined || skip.includes(name)) continue;
			pairs.push(`${encodeURIComponent(prefix + name)}=${digest(canonicalJson(value))}`);
		}
	};
	add('', body);
	if (query !== undefined) add('query.', query);
	return pairs.sort().join('&');
}

/** A 6-character digest of a text (field values in `fieldDigests`). */
export function digest(text: string): string {
	return createHash('sha256').update(text).digest('base64url').slice(0, 6);
}
