import type { IDataObject, IHookFunctions } from 'n8n-workflow';

import { STORE_CREDENTIAL } from '../shared/credentials';
import type { Transport } from '../shared/transport/request';
import { WEBHOOK_ROUTES, webhookRequest } from '../shared/webhookRoutes';
import { httpCodeOf, logContext } from './hookContext';
import type { Ownership } from './ownership';
import { readOwnership } from './ownership';
import { bindingOf, registrationSecret, SIGNING_SECRET_FIELD } from './secrets';
import type { SignatureVersion } from './verify';

/**
 * The trigger's static-data bookkeeping (workflow static data, type 'node'), apart from the
 * webhook methods that use it (webhookMethods.ts):
 *
 *   webhookId        id of the endpoint this node registered (whk_...), kept only once a read
 *                    of it showed this workflow's URL (ownership.ts)
 *   signingSecret    only when the creation response carries a secret (field `secret` or
 *                    `signingSecret`): used while the credential's Webhook Signing Secret
 *                    is what it was at registration (see secrets.ts)
 *   signingSecretFor the binding of that secret to the credential's secret then (an HMAC,
 *                    no secret of the credential); a changed credential wins at once
 *   staleWebhookIds  endpoints this node no longer wants but could not delete (the read
 *                    or the DELETE failed other than with 404): at most MAX_STALE_IDS,
 *                    oldest first. An id leaves static data once its DELETE succeeded or
 *                    answered 404, or once a read shows it is not provably this workflow's
 *                    (removeEndpoint). They are retried on every activation (checkExists or
 *                    create) and deactivation (delete).
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

/**
 * Deletes one endpoint this node recorded (its webhookId or a stale id); true when it is gone or
 * forgotten, false when it is kept for another attempt. Only an endpoint proven this workflow's is
 * deleted: it is read first (ownership.ts), unless `read` is a read just made. What the read shows:
 *
 *   this workflow's URL   DELETE; its 404 counts as deleted
 *   another URL, no URL   not deleted, forgotten with a warning: nothing proves it is this workflow's
 *                         (a copy of the workflow imported elsewhere with its static data reads the
 *                         original's endpoint with another URL, or none on a service that hides it)
 *   404                   DELETE all the same; its 404 counts as deleted, another failure keeps
 *                         the id. The id is one this node registered (it is in its static data only
 *                         after a read proved the endpoint this workflow's), and the service says it
 *                         has no endpoint with that id, so the DELETE can remove nothing of another
 *                         integration's; a service whose read wrongly says 404 would otherwise keep
 *                         an endpoint delivering every event to a workflow that no longer wants it
 *   any other failure     not deleted, kept (nothing known; read again before the next attempt)
 */
async function removeEndpoint(ctx: IHookFunctions, transport: Transport, webhookId: string, read?: Ownership): Promise<boolean> {
	const own = ctx.getNodeWebhookUrl('default') ?? '';
	const found = read ?? (await readOwnership(transport, webhookId, own));
	if (found.kind === 'elsewhere' || found.kind === 'no-url') {
		const shows = found.kind === 'elsewhere' ? `points at ${found.url}` : 'shows no URL when read';
		ctx.logger.warn(
			`Vault Store Trigger: webhook endpoint ${webhookId} ${shows}, so it cannot be proven this workflow's (webhook URL ${own}): the node does not delete it and forgets it. Delete it in the merchant dashboard if nothing uses it.`,
			logContext(ctx),
		);
		return true;
	}
	if (found.kind === 'unreadable') {
		keptWarning(ctx, webhookId, found.error);
		return false;
	}
	try {
		await transport.request({ ...webhookRequest(WEBHOOK_ROUTES.delete, webhookId) });
		return true;
	} catch (error) {
		if (httpCodeOf(error) === '404') return true;
		keptWarning(ctx, webhookId, error);
		return false;
	}
}

function keptWarning(ctx: IHookFunctions, webhookId: string, error: unknown): void {
	// Transport errors never carry the secret key or the signing secret.
	const reason = error instanceof Error ? error.message : 'unknown error';
	ctx.logger.warn(
		`Vault Store Trigger: could not delete webhook endpoint ${webhookId} at the service (${reason}); it is kept and deleted again at the next activation or deactivation`,
		logContext(ctx),
	);
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

/**
 * Deletes `webhookId` (removeEndpoint: only once proven this workflow's, or read 404), or keeps it
 * for a later attempt when that fails. True when it is gone or forgotten. `read`: a read of it just made.
 */
export async function removeOrKeep(
	ctx: IHookFunctions,
	transport: Transport,
	data: IDataObject,
	webhookId: string,
	read?: Ownership,
): Promise<boolean> {
	if (await removeEndpoint(ctx, transport, webhookId, read)) return true;
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
