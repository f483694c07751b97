import type { IDataObject } from 'n8n-workflow';

import type { Transport } from '../shared/transport/request';
import { WEBHOOK_ROUTES, webhookRequest } from '../shared/webhookRoutes';
import { httpCodeOf } from './hookContext';

/**
 * How the trigger proves that an endpoint is this workflow's before it acts on it (keeps its id,
 * updates it, deletes it): it reads the endpoint (GET) and compares the URL the service stores
 * with this workflow's webhook URL. Nothing else is proof: not the URL in a registration answer,
 * not an id in static data on its own. Used by registration and the start-up check
 * (webhookMethods.ts) and by every delete (staticData.ts).
 */

/**
 * Whether two webhook URLs name the same address. A service may store the URL in normal form
 * (host lower-cased, default port dropped), so they compare after WHATWG normalisation; when
 * either does not parse as a URL, only the exact same string is the same.
 */
export function sameUrl(a: string, b: string): boolean {
	if (a === b) return true;
	try {
		return new URL(a).href === new URL(b).href;
	} catch {
		return false;
	}
}

/** What a read of an endpoint proves about it. */
export type Ownership =
	/** The service stores this workflow's URL for it: the node may keep, update and delete it. */
	| { kind: 'own'; endpoint: IDataObject }
	/** It points at another URL: someone else's now; never changed. */
	| { kind: 'elsewhere'; endpoint: IDataObject; url: string }
	/** The read shows no URL: nothing proves it is this workflow's; never changed. */
	| { kind: 'no-url'; endpoint: IDataObject }
	/** The read answered 404: the service says it has no such endpoint. */
	| { kind: 'gone'; error: unknown }
	/** The read failed otherwise (auth, network, 5xx, a refused redirect): nothing is known. */
	| { kind: 'unreadable'; error: unknown };

function asRecord(value: unknown): IDataObject {
	return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as IDataObject) : {};
}

/** Reads endpoint `webhookId` (GET) and compares its stored URL with `ownUrl`. Never throws. */
export async function readOwnership(transport: Transport, webhookId: string, ownUrl: string): Promise<Ownership> {
	let data: unknown;
	try {
		data = (await transport.request({ ...webhookRequest(WEBHOOK_ROUTES.get, webhookId) })).data;
	} catch (error) {
		return httpCodeOf(error) === '404' ? { kind: 'gone', error } : { kind: 'unreadable', error };
	}
	const endpoint = asRecord(data);
	const url = endpoint.url;
	if (typeof url !== 'string' || url === '') return { kind: 'no-url', endpoint };
	if (ownUrl === '' || !sameUrl(url, ownUrl)) return { kind: 'elsewhere', endpoint, url };
	return { kind: 'own', endpoint };
}
