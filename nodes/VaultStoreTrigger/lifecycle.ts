import type { IDataObject, IHookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { STORE_CREDENTIAL, Transport } from '../VaultStore/transport/request';
import type { TriggerOptions } from './description';
import { readEvents, readOptions, readVersion } from './description';
import type { SignatureVersion } from './verify';
import { decodeSigningSecret } from './verify';

/**
 * Endpoint lifecycle of the trigger: register the n8n webhook URL at the service on
 * activation, check it on start-up, delete it on deactivation.
 *
 * Static data of the node (workflow static data, type 'node'):
 *   webhookId      id of the endpoint this node registered (whk_...)
 *   signingSecret  only when the creation response carries a secret (field `secret` or
 *                  `signingSecret`): used in preference to the credential's
 */

export const SIGNING_SECRET_FIELD = 'Webhook Signing Secret';

interface Settings {
	url: string;
	events: string[];
	version: SignatureVersion;
	note: string;
	options: TriggerOptions;
}

function readSettings(ctx: IHookFunctions): Settings {
	return {
		url: ctx.getNodeWebhookUrl('default') ?? '',
		events: readEvents(ctx.getNodeParameter('events', [])),
		version: readVersion(ctx.getNodeParameter('signatureVersion', 'V2')),
		note: String(ctx.getNodeParameter('note', '') ?? ''),
		options: readOptions(ctx.getNodeParameter('options', {}) as IDataObject),
	};
}

function httpCodeOf(error: unknown): string | undefined {
	const code = (error as { httpCode?: unknown } | null)?.httpCode;
	return typeof code === 'string' ? code : undefined;
}

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** Runs a request and hands back its result or error, so errors are rethrown outside a catch clause. */
async function settle<T>(run: () => Promise<T>): Promise<Settled<T>> {
	try {
		return { ok: true, value: await run() };
	} catch (error) {
		return { ok: false, error };
	}
}

function clearStaticData(data: IDataObject): void {
	delete data.webhookId;
	delete data.signingSecret;
}

function endpointPath(webhookId: string): string {
	return `/webhooks/${encodeURIComponent(webhookId)}`;
}

/** True when the remote endpoint has the same URL, events (as a set) and signature version. */
function sameEndpoint(record: unknown, s: Settings): boolean {
	if (record === null || typeof record !== 'object' || Array.isArray(record)) return false;
	const endpoint = record as IDataObject;
	if (endpoint.url !== s.url) return false;
	if (endpoint.signatureVersion !== s.version) return false;
	const remote = Array.isArray(endpoint.eventTypes) ? new Set(endpoint.eventTypes.map(String)) : new Set<string>();
	const wanted = new Set(s.events);
	return remote.size === wanted.size && [...wanted].every((event) => remote.has(event));
}

/** Deletes one endpoint; a 404 counts as deleted. Other failures are logged and reported as false. */
async function removeEndpoint(ctx: IHookFunctions, transport: Transport, webhookId: string): Promise<boolean> {
	try {
		await transport.request({ family: 'core', method: 'DELETE', path: endpointPath(webhookId) });
		return true;
	} catch (error) {
		if (httpCodeOf(error) === '404') return true;
		// Transport errors never carry the secret key or the signing secret.
		const reason = error instanceof Error ? error.message : 'unknown error';
		ctx.logger.warn(
			`Vault Store Trigger: could not delete webhook endpoint ${webhookId} at the service (${reason}); delete it in the merchant dashboard if it is no longer needed`,
			{ workflowId: ctx.getWorkflow().id, node: ctx.getNode().name },
		);
		return false;
	}
}

/** Throws a clear error naming the credential field when `secret` cannot verify `version` deliveries. */
function checkSigningSecret(ctx: IHookFunctions, secret: string, version: SignatureVersion, source: string): void {
	if (secret === '') {
		throw new NodeOperationError(
			ctx.getNode(),
			`Credential field "${SIGNING_SECRET_FIELD}" is empty: the trigger needs it to verify deliveries`,
			{ description: 'Copy the signing secret (whsec_...) of the store from the merchant dashboard into the credential.' },
		);
	}
	if (version !== 'V2') return;
	try {
		decodeSigningSecret(secret);
	} catch (error) {
		const detail = error instanceof Error ? error.message : 'not valid base64';
		throw new NodeOperationError(
			ctx.getNode(),
			source === 'credential'
				? `Credential field "${SIGNING_SECRET_FIELD}" is not a valid V2 signing secret`
				: 'The signing secret returned by the service is not a valid V2 signing secret',
			{ description: `${detail}. V2 secrets are base64, optionally prefixed with whsec_.` },
		);
	}
}

export async function endpointExists(ctx: IHookFunctions): Promise<boolean> {
	const s = readSettings(ctx);
	if (!s.options.manageEndpoint) return true;
	const data = ctx.getWorkflowStaticData('node');
	const webhookId = data.webhookId;
	if (typeof webhookId !== 'string' || webhookId === '') return false;

	const transport = new Transport(ctx, STORE_CREDENTIAL);
	const found = await settle(
		async () => await transport.request({ family: 'stores', method: 'GET', path: endpointPath(webhookId) }),
	);
	if (!found.ok) {
		if (httpCodeOf(found.error) === '404') {
			clearStaticData(data);
			return false;
		}
		// Anything else (auth, network, 5xx) is not proof that the endpoint is gone.
		throw found.error;
	}
	if (sameEndpoint(found.value.data, s)) return true;

	// The endpoint exists but no longer matches the node (URL, events or version changed):
	// remove it, so that create() does not leave two endpoints posting to the same workflow.
	await removeEndpoint(ctx, transport, webhookId);
	clearStaticData(data);
	return false;
}

export async function createEndpoint(ctx: IHookFunctions): Promise<boolean> {
	const s = readSettings(ctx);
	if (!s.options.manageEndpoint) return true;
	const node = ctx.getNode();
	if (s.events.length === 0) {
		throw new NodeOperationError(node, 'Choose at least one event in "Events"');
	}
	if (s.url === '') {
		throw new NodeOperationError(node, 'n8n did not provide a webhook URL for this node');
	}
	const credentials = (await ctx.getCredentials(STORE_CREDENTIAL)) as IDataObject;
	const credentialSecret = typeof credentials.signingSecret === 'string' ? credentials.signingSecret : '';
	// Checked before registering, so no endpoint is created that this node could not verify.
	if (credentialSecret !== '') checkSigningSecret(ctx, credentialSecret, s.version, 'credential');

	const body: IDataObject = { url: s.url, eventTypes: s.events, signatureVersion: s.version };
	if (s.note !== '') body.note = s.note;
	const transport = new Transport(ctx, STORE_CREDENTIAL);
	const created = await settle(
		async () => await transport.request({ family: 'core', method: 'POST', path: '/webhooks', body }),
	);
	if (!created.ok) {
		const code = httpCodeOf(created.error);
		if ((code === '400' || code === '422') && !s.url.startsWith('https://')) {
			const said = (created.error as { description?: string }).description;
			throw new NodeOperationError(
				node,
				`n8n's webhook URL is ${s.url}; the service only accepts https:// endpoints. Set WEBHOOK_URL to a public https address (e.g. through a tunnel)`,
				{
					description: `Set the WEBHOOK_URL environment variable of n8n (for example https://n8n.example.com/) and restart n8n, then activate the workflow again.${said ? ` ${said}` : ''}`,
				},
			);
		}
		throw created.error;
	}

	const endpoint = (created.value.data ?? {}) as IDataObject;
	const webhookId = typeof endpoint.id === 'string' ? endpoint.id : '';
	if (webhookId === '') {
		throw new NodeOperationError(node, 'The service did not return an ID for the new webhook endpoint');
	}
	const returned = [endpoint.secret, endpoint.signingSecret].find(
		(value): value is string => typeof value === 'string' && value !== '',
	);
	const usable = await settle(async () => {
		if (returned !== undefined) checkSigningSecret(ctx, returned, s.version, 'response');
		else checkSigningSecret(ctx, credentialSecret, s.version, 'credential');
	});
	if (!usable.ok) {
		// Not verifiable: take the endpoint down again rather than leave it failing deliveries.
		await removeEndpoint(ctx, transport, webhookId);
		throw usable.error;
	}

	const data = ctx.getWorkflowStaticData('node');
	data.webhookId = webhookId;
	if (returned !== undefined) data.signingSecret = returned;
	else delete data.signingSecret;
	return true;
}

export async function deleteEndpoint(ctx: IHookFunctions): Promise<boolean> {
	const options = readOptions(ctx.getNodeParameter('options', {}) as IDataObject);
	if (!options.manageEndpoint) return true;
	const data = ctx.getWorkflowStaticData('node');
	const webhookId = data.webhookId;
	if (typeof webhookId !== 'string' || webhookId === '') return true;
	const deleted = await removeEndpoint(ctx, new Transport(ctx, STORE_CREDENTIAL), webhookId);
	if (deleted) clearStaticData(data);
	return deleted;
}
