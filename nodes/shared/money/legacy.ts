import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { ApiRequest } from '../transport/request';
import type { EventOrigin, IdempotencyKeys } from './keys';
import { writeFingerprint } from './keys';
import type { RecordEntry } from './record';
import { RECORD_HORIZON_MS } from './record';

/**
 * Where the first once-per-event record lived in the node's static data: written by unreleased
 * builds of 2026-11-25 and 11-26 (before the record moved to n8n's deduplication store). Release
 * 0.1.0 kept no record at all.
 */
const FIELD = 'vaultStoreWrites';

/**
 * A write that first record holds for this event, within the horizon: its key was derived from
 * the whole request (method, family and path, query, body), and its record kept the answer. Read
 * only, so an event re-delivered across an update from such a build is not written twice; nothing
 * is written there any more, and its entries age out with the horizon.
 */
export function legacyEntry(
	ctx: IExecuteFunctions,
	keys: IdempotencyKeys,
	origin: EventOrigin,
	req: ApiRequest,
	/** How many identical requests (same fingerprint) of the event came before in this run: that record counted by the whole request. */
	occurrenceOf: (fingerprint: string) => number,
	now: number,
): RecordEntry | undefined {
	const store = ctx.getWorkflowStaticData('node')[FIELD];
	if (store === null || typeof store !== 'object' || Array.isArray(store) || Object.keys(store).length === 0) return undefined;
	const fingerprint = writeFingerprint({ method: req.method, route: `${req.family}${req.path}`, query: req.query, body: req.body });
	const key = keys.forEvent(origin, fingerprint, occurrenceOf(`${origin.eventId}|${fingerprint}`));
	const entry = (store as IDataObject)[key] as { at?: unknown; result?: IDataObject; mismatch?: string } | undefined;
	if (!entry || typeof entry.at !== 'number' || entry.at < now - RECORD_HORIZON_MS) return undefined;
	const result = entry.result ?? {};
	return {
		key,
		at: entry.at,
		...(typeof result.id === 'string' ? { recordId: result.id } : {}),
		...(typeof result.amount === 'number' ? { amount: result.amount } : {}),
		...(typeof result.currency === 'string' ? { currency: result.currency } : {}),
		...(entry.mismatch ? { mismatch: entry.mismatch } : {}),
	};
}
