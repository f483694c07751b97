import type { IDataObject, IHookFunctions } from 'n8n-workflow';

import { STORE_CREDENTIAL } from '../shared/credentials';
import type { Transport } from '../shared/transport/request';
import { WEBHOOK_ROUTES, webhookRequest } from '../shared/webhookRoutes';
import { httpCodeOf, logContext } from './hookContext';
import { bindingOf, registrationSecret, SIGNING_SECRET_FIELD } from './secrets';
import type { SignatureVersion } from './verify';

/**
 * The trigger's static-data bookkeeping (workflow static data, type 'node'), apart from the
 * webhook methods that use it (webhookMethods.ts):
 *
 *   webhookId        id of the endpoint this node registered (whk_...)
 *   signingSecret    only when the creation response carries a secret (field `secret` or
 *                    `signingSecret`): used while the credential's Webhook Signing Secret
 *                    is what it was at registration (see secrets.ts)
 *   signingSecretFor the binding of that secret to the credential's secret then (an HMAC,
 *                    no secret of the credential); a changed credential wins at once
 *   staleWebhookIds  endpoints this node no longer wants but could not delete (the DELETE
 *                    failed other than with 404): at most MAX_STALE_IDS, oldest first.
 *                    An id leaves static data only once its DELETE succeeded or answered
 *                    404. They are retried on every activation (checkExists or create)
 *                    and deactivation (delete).
 *   chosenVersion    the node's Signature Version at the last activation (rememberVersions)
 *   signatureVersion the version the endpoint has at the service: what deliveries are verified as
 *
 * Static data changed during an activation that fails is not saved by n8n; what was saved
 * before (the previous webhookId, earlier stale ids) is retried instead.
 */

/** At most this many undeletable endpoint ids are kept for later attempts. */
export const MAX_STALE_IDS = 20;

export function clearStaticData(data: IDataObject): void {
	delete data.webhookId;
	delete data.signingSecret;
	delete data.signingSecretFor;
	delete data.chosenVersion;
	delete data.signatureVersion;
}

/**
 * After an activation: the node's Signature Version as the user set it (a
 * later change of it is what the node sends to the service) and the version
 * the endpoint has at the service (what deliveries are verified with).
 */
export function rememberVersions(data: IDataObject, chosen: SignatureVersion, endpoint: SignatureVersion): void {
	data.chosenVersion = chosen;
	data.signatureVersion = endpoint;
}

/** Deletes one endpoint; a 404 counts as deleted. Other failures are logged and reported as false. */
async function removeEndpoint(ctx: IHookFunctions, transport: Transport, webhookId: string): Promise<boolean> {
	try {
		// Only an endpoint provably this workflow's is deleted: read first, compare its URL.
		const own = ctx.getNodeWebhookUrl('default') ?? '';
		// A read that fails (404 included) is handled below, as a failed delete is.
		const read = await transport.request({ ...webhookRequest(WEBHOOK_ROUTES.get, webhookId) });
		const data = read.data;
		const endpoint = data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as IDataObject) : undefined;
		if (typeof endpoint?.url === 'string' && endpoint.url !== own) {
			ctx.logger.warn(
				`Vault Store Trigger: webhook endpoint ${webhookId} points at ${endpoint.url}, not at this workflow's webhook URL ${own}: the node does not delete it and forgets it. Delete it in the merchant dashboard if nothing uses it.`,
				logContext(ctx),
			);
			return true;
		}
		await transport.request({ ...webhookRequest(WEBHOOK_ROUTES.delete, webhookId) });
		return true;
	} catch (error) {
		if (httpCodeOf(error) === '404') return true;
		// Transport errors never carry the secret key or the signing secret.
		const reason = error instanceof Error ? error.message : 'unknown error';
		ctx.logger.warn(
			`Vault Store Trigger: could not delete webhook endpoint ${webhookId} at the service (${reason}); it is kept and deleted again at the next activation or deactivation`,
			logContext(ctx),
		);
		return false;
	}
}

function staleIdsOf(data: IDataObject): string[] {
	const list = data.staleWebhookIds;
	if (!Array.isArray(list)) return [];
	return [...new Set(list.filter((id): id is string => typeof id === 'string' && id !== ''))];
}

/** Stores the list (oldest first, without repeats); beyond MAX_STALE_IDS the oldest are dropped, with a warning. */
function setStaleIds(ctx: IHookFunctions, data: IDataObject, ids: string[]): void {
	const unique = [...new Set(ids)];
	const dropped = unique.slice(0, Math.max(0, unique.length - MAX_STALE_IDS));
	for (const id of dropped) {
		ctx.logger.warn(
			`Vault Store Trigger: webhook endpoint ${id} could not be deleted and is no longer retried (more than ${MAX_STALE_IDS} are pending); delete it in the merchant dashboard`,
			logContext(ctx),
		);
	}
	const kept = unique.slice(dropped.length);
	if (kept.length === 0) delete data.staleWebhookIds;
	else data.staleWebhookIds = kept;
}

/** Deletes `webhookId`, or keeps it for a later attempt when that fails. True when it is gone. */
export async function removeOrKeep(
	ctx: IHookFunctions,
	transport: Transport,
	data: IDataObject,
	webhookId: string,
): Promise<boolean> {
	if (await removeEndpoint(ctx, transport, webhookId)) return true;
	setStaleIds(ctx, data, [...staleIdsOf(data).filter((id) => id !== webhookId), webhookId]);
	return false;
}

/** Tries once more to delete every kept endpoint; forgets those deleted. True when none is left. */
export async function removeStale(ctx: IHookFunctions, transport: Transport, data: IDataObject): Promise<boolean> {
	// Trimmed to the bound before any request: ids beyond it are dropped (with a warning) untried.
	setStaleIds(ctx, data, staleIdsOf(data));
	const ids = staleIdsOf(data);
	if (ids.length === 0) return true;
	const left: string[] = [];
	for (const id of ids) {
		if (!(await removeEndpoint(ctx, transport, id))) left.push(id);
	}
	setStaleIds(ctx, data, left);
	return left.length === 0;
}

/**
 * A secret the service returned at registration, once the credential has changed since, is
 * no longer used (secrets.ts): forget it. Static data of an older version (no binding) is bound
 * to the credential as it is now.
 */
export async function settleRegistrationSecret(ctx: IHookFunctions, data: IDataObject): Promise<void> {
	if (typeof data.signingSecret !== 'string' || data.signingSecret === '') return;
	let current = '';
	try {
		const credentials = (await ctx.getCredentials(STORE_CREDENTIAL)) as IDataObject;
		current = typeof credentials.signingSecret === 'string' ? credentials.signingSecret : '';
	} catch {
		return;
	}
	if (typeof data.signingSecretFor !== 'string') {
		data.signingSecretFor = bindingOf(data.signingSecret, current);
		return;
	}
	if (registrationSecret(data, current) === undefined) {
		delete data.signingSecret;
		delete data.signingSecretFor;
		ctx.logger.info(
			`Vault Store Trigger: the credential's "${SIGNING_SECRET_FIELD}" changed since the endpoint was registered; the secret the service returned then is no longer used`,
			logContext(ctx),
		);
	}
}
