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

/** The Vault Store Trigger delivery an item descends from, and the item's place among its siblings. */
export interface EventOrigin {
	eventId: string;
	position: number;
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
	 * A key from the delivery the item descends from: every execution of the
	 * same event (a re-delivery, n8n's Retry, a second webhook process) gets the
	 * same key for the same node, operation and position, so the service
	 * applies the write once.
	 */
	forEvent(origin: EventOrigin, operation: string): string {
		const digest = createHash('sha256')
			.update(`event|${origin.eventId}|${this.scope.nodeName}|${operation}|${origin.position}`)
			.digest('base64url');
		return `n8n_evt_${digest.slice(0, 40)}`;
	}
}
