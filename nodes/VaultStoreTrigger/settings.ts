import type { IDataObject, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { ALL_STANDARD_EVENT_TYPES } from '../shared/events';
import { readBaseUrl } from '../shared/transport/baseUrl';
import { ALL_EVENTS, DEFAULT_TOLERANCE, MAX_NOTE_LENGTH, MAX_TOLERANCE, TOLERANCE_FIELD } from './properties';
import type { SignatureVersion } from './verify';

/** The trigger's settings as its webhook methods and its receiver read them from the properties (properties.ts). */

export interface TriggerOptions {
	manageEndpoint: boolean;
	toleranceSeconds: number;
	rejectDuplicates: boolean;
	acceptBodyOnlySignature: boolean;
	includeHeaders: boolean;
	sendTestEvent: boolean;
}

/** Only the Manage Endpoint option: never throws, so deactivation works whatever else is set. */
export function readManageEndpoint(raw: IDataObject | undefined): boolean {
	return raw?.manageEndpoint !== false;
}

/** Unset means the default; anything else must be a number from 1 to MAX_TOLERANCE. */
function readTolerance(node: INode, value: unknown): number {
	if (value === undefined || value === null || value === '') return DEFAULT_TOLERANCE;
	const tolerance = typeof value === 'number' ? value : Number(value);
	if (typeof value === 'boolean' || !Number.isFinite(tolerance) || tolerance < 1 || tolerance > MAX_TOLERANCE) {
		const shown = typeof value === 'number' ? ` (got ${value})` : '';
		throw new NodeOperationError(
			node,
			`Option "${TOLERANCE_FIELD}" must be a number from 1 to ${MAX_TOLERANCE}${shown}`,
			{
				description:
					'The service signs deliveries with a timestamp and receivers must reject one more than 5 minutes (300 s) from their clock. Set the option to 300 or less.',
			},
		);
	}
	return tolerance;
}

/** Reads the Options collection; throws a NodeOperationError naming the field for an out-of-range tolerance. */
export function readTriggerOptions(node: INode, raw: IDataObject | undefined): TriggerOptions {
	const o = raw ?? {};
	return {
		manageEndpoint: readManageEndpoint(o),
		toleranceSeconds: readTolerance(node, o.toleranceSeconds),
		rejectDuplicates: o.rejectDuplicates !== false,
		acceptBodyOnlySignature: o.acceptBodyOnlySignature === true,
		includeHeaders: o.includeHeaders === true,
		sendTestEvent: o.sendTestEvent !== false,
	};
}

export function readVersion(value: unknown): SignatureVersion {
	return value === 'V1' ? 'V1' : 'V2';
}

/** The selected events, with All Events expanded into every event it stands for. */
export function readEvents(value: unknown): string[] {
	const list = Array.isArray(value) ? value.map(String) : [];
	return [...new Set(list.flatMap((event): string[] => (event === ALL_EVENTS ? [...ALL_STANDARD_EVENT_TYPES] : [event])))];
}

/** Throws a NodeOperationError naming the field when the note is longer than the service stores. */
export function checkNote(node: INode, note: string): void {
	if (note.length > MAX_NOTE_LENGTH) {
		throw new NodeOperationError(
			node,
			`"Note" must be at most ${MAX_NOTE_LENGTH} characters long (got ${note.length})`,
			{ description: 'The service stores at most 256 characters with an endpoint. Shorten the note.' },
		);
	}
}

/** The longest endpoint URL the service registers (POST /webhooks: `url`, at most 512 characters). */
export const MAX_ENDPOINT_URL_LENGTH = 512;
const LOOPBACK_URL = /^http:\/\/(localhost|127(?:\.\d{1,3}){3}|\[::1\])(:\d+)?(\/|$)/i;
const SET_WEBHOOK_URL =
	'Nothing was sent. Set the WEBHOOK_URL environment variable of n8n to its public https address (for example https://n8n.example.com/), restart n8n, then activate the workflow again.';

/**
 * The endpoint URL the trigger registers, held to the service's rule before anything is sent:
 * it starts with https:// and has at most 512 characters. Plain http:// goes out only between
 * loopback addresses (n8n and a local stand-in of the service, the credential's Base URL, on the
 * same machine, as `npm run sandbox` runs); a service that refuses it still gets its answer
 * translated (webhookMethods.ts, httpsRefusal).
 */
export function checkEndpointUrl(node: INode, url: string, baseUrl: unknown): void {
	if (url.length > MAX_ENDPOINT_URL_LENGTH) {
		throw new NodeOperationError(
			node,
			`n8n's webhook URL for this trigger is ${url.length} characters long; the service registers endpoint URLs of at most ${MAX_ENDPOINT_URL_LENGTH} characters`,
			{ description: `${SET_WEBHOOK_URL.replace('its public https address', 'a shorter public https address')} The URL begins ${url.slice(0, 80)}...` },
		);
	}
	if (url.startsWith('https://')) return;
	if (readBaseUrl(baseUrl).startsWith('http://') && LOOPBACK_URL.test(url)) return;
	throw new NodeOperationError(
		node,
		`n8n's webhook URL is ${url}; the service only accepts https:// endpoints. Set WEBHOOK_URL to a public https address (e.g. through a tunnel)`,
		{ description: `${SET_WEBHOOK_URL} (Plain http:// is sent only to a local stand-in of the service: a Base URL on localhost, 127.x.x.x or [::1], with n8n on the same machine.)` },
	);
}
