import type { IDataObject, IHookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { STORE_CREDENTIAL } from '../shared/credentials';
import { checkEndpointUrl, checkNote, readEvents, readTriggerOptions, readVersion } from './settings';
import type { TriggerOptions } from './settings';
import { httpCodeOf } from './hookContext';
import { sameUrl } from './ownership';
import type { SignatureVersion } from './verify';

/**
 * What the trigger's webhook methods (webhookMethods.ts) read of the node to register its endpoint,
 * how they compare it with the endpoint the service has, and the error for a service that refuses
 * n8n's http:// URL.
 */

export interface Settings {
	url: string;
	events: string[];
	version: SignatureVersion;
	note: string;
	options: TriggerOptions;
}

/** The node's settings; throws a NodeOperationError naming the field for an invalid option or note. */
export function readSettings(ctx: IHookFunctions): Settings {
	const options = readTriggerOptions(ctx.getNode(), ctx.getNodeParameter('options', {}) as IDataObject);
	const note = String(ctx.getNodeParameter('note', '') ?? '');
	// Checked before any request, like the webhook resource's Note.
	if (options.manageEndpoint) checkNote(ctx.getNode(), note);
	return {
		url: ctx.getNodeWebhookUrl('default') ?? '',
		events: readEvents(ctx.getNodeParameter('events', [])),
		version: readVersion(ctx.getNodeParameter('signatureVersion', 'V2')),
		note,
		options,
	};
}

/** The URL this node registers, held to the service's rule before any request (settings.ts, checkEndpointUrl). */
export async function checkUrl(ctx: IHookFunctions, s: Settings): Promise<void> {
	if (s.url === '') return;
	let baseUrl: unknown;
	try {
		baseUrl = ((await ctx.getCredentials(STORE_CREDENTIAL)) as IDataObject).baseUrl;
	} catch {
		// The transport reports a missing credential when it is first used.
	}
	checkEndpointUrl(ctx.getNode(), s.url, baseUrl);
}

/** What differs between the remote endpoint and the node: events compare as a set, an absent note as empty. */
export function differences(endpoint: IDataObject, s: Settings): string[] {
	const remote = Array.isArray(endpoint.eventTypes) ? new Set(endpoint.eventTypes.map(String)) : new Set<string>();
	const wanted = new Set(s.events);
	const sameEvents = remote.size === wanted.size && [...wanted].every((event) => remote.has(event));
	const remoteNote = typeof endpoint.note === 'string' ? endpoint.note : '';
	return [
		typeof endpoint.url === 'string' && sameUrl(endpoint.url, s.url) ? '' : 'URL',
		sameEvents ? '' : 'events',
		remoteNote === s.note ? '' : 'note',
		endpoint.signatureVersion === s.version ? '' : 'signature version',
	].filter((name) => name !== '');
}

/** The error for an https-only refusal of n8n's http:// webhook URL (400/422), else undefined. */
export function httpsRefusal(ctx: IHookFunctions, s: Settings, error: unknown): NodeOperationError | undefined {
	const code = httpCodeOf(error);
	if ((code !== '400' && code !== '422') || s.url.startsWith('https://')) return undefined;
	const said = (error as { description?: string }).description;
	return new NodeOperationError(
		ctx.getNode(),
		`n8n's webhook URL is ${s.url}; the service only accepts https:// endpoints. Set WEBHOOK_URL to a public https address (e.g. through a tunnel)`,
		{
			description: `Set the WEBHOOK_URL environment variable of n8n (for example https://n8n.example.com/) and restart n8n, then activate the workflow again.${said ? ` ${said}` : ''}`,
		},
	);
}
