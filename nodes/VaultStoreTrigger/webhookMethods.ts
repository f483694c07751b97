import type { IDataObject, IHookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { STORE_CREDENTIAL } from '../shared/credentials';
import { Transport } from '../shared/transport/request';
import { WEBHOOK_ROUTES, webhookRequest } from '../shared/webhookRoutes';
import type { TriggerOptions } from './description';
import { checkNote, readEvents, readManageEndpoint, readOptions, readVersion } from './description';
import { bindingOf, registrationSecret, secretShapeProblem } from './secrets';
import type { SignatureVersion } from './verify';

/**
 * Endpoint lifecycle of the trigger: register the n8n webhook URL at the service on
 * activation, check it on start-up (and update it in place when the node's URL, events,
 * note or signature version differ from it), delete it on deactivation.
 *
 * Static data of the node (workflow static data, type 'node'):
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
 *
 * n8n ignores the return value of delete() and skips saving static data when a webhook
 * method throws, so delete() never throws: failures are logged and reported as false.
 * Static data changed during an activation that fails is not saved by n8n either; what
 * was saved before (the previous webhookId, earlier stale ids) is retried instead.
 */

export const SIGNING_SECRET_FIELD = 'Webhook Signing Secret';
export const PREVIOUS_SECRET_FIELD = 'Previous Signing Secret';

interface Settings {
	url: string;
	events: string[];
	version: SignatureVersion;
	note: string;
	options: TriggerOptions;
}

/** At most this many undeletable endpoint ids are kept for later attempts. */
export const MAX_STALE_IDS = 20;

/** The node's settings; throws a NodeOperationError naming the field for an invalid option or note. */
function readSettings(ctx: IHookFunctions): Settings {
	const options = readOptions(ctx.getNode(), ctx.getNodeParameter('options', {}) as IDataObject);
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

function logContext(ctx: IHookFunctions): IDataObject {
	return { workflowId: ctx.getWorkflow().id, node: ctx.getNode().name };
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
	delete data.signingSecretFor;
	delete data.chosenVersion;
	delete data.signatureVersion;
}

/**
 * After an activation: the node's Signature Version as the user set it (a
 * later change of it is what the node sends to the service) and the version
 * the endpoint has at the service (what deliveries are verified with).
 */
function rememberVersions(data: IDataObject, chosen: SignatureVersion, endpoint: SignatureVersion): void {
	data.chosenVersion = chosen;
	data.signatureVersion = endpoint;
}

function asRecord(value: unknown): IDataObject {
	return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as IDataObject) : {};
}

/** What differs between the remote endpoint and the node: events compare as a set, an absent note as empty. */
function differences(endpoint: IDataObject, s: Settings): string[] {
	const remote = Array.isArray(endpoint.eventTypes) ? new Set(endpoint.eventTypes.map(String)) : new Set<string>();
	const wanted = new Set(s.events);
	const sameEvents = remote.size === wanted.size && [...wanted].every((event) => remote.has(event));
	const remoteNote = typeof endpoint.note === 'string' ? endpoint.note : '';
	return [
		endpoint.url === s.url ? '' : 'URL',
		sameEvents ? '' : 'events',
		remoteNote === s.note ? '' : 'note',
		endpoint.signatureVersion === s.version ? '' : 'signature version',
	].filter((name) => name !== '');
}

/** Deletes one endpoint; a 404 counts as deleted. Other failures are logged and reported as false. */
async function removeEndpoint(ctx: IHookFunctions, transport: Transport, webhookId: string): Promise<boolean> {
	try {
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
async function removeOrKeep(
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
async function removeStale(ctx: IHookFunctions, transport: Transport, data: IDataObject): Promise<boolean> {
	const ids = staleIdsOf(data);
	if (ids.length === 0) return true;
	const left: string[] = [];
	for (const id of ids) {
		if (!(await removeEndpoint(ctx, transport, id))) left.push(id);
	}
	setStaleIds(ctx, data, left);
	return left.length === 0;
}

/** The error for an https-only refusal of n8n's http:// webhook URL (400/422), else undefined. */
function httpsRefusal(ctx: IHookFunctions, s: Settings, error: unknown): NodeOperationError | undefined {
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

/** Refuses a previous secret that anyone could sign with. */
function checkPreviousSecret(ctx: IHookFunctions, previous: string, version: SignatureVersion): void {
	const problem = secretShapeProblem(previous, version);
	if (problem === undefined) return;
	throw new NodeOperationError(ctx.getNode(), `Credential field "${PREVIOUS_SECRET_FIELD}" ${problem}`, {
		description: `Clear "${PREVIOUS_SECRET_FIELD}", or paste the whole secret being replaced. A short or blank secret is a key anyone can sign with.`,
	});
}

/**
 * Warns (once per activation) while a previous signing secret is set; refuses a signing or
 * previous secret that is blank, whitespace, a bare prefix, too short or (V2) not a key:
 * anyone could sign with it.
 */
async function noteRotation(ctx: IHookFunctions, version: SignatureVersion): Promise<void> {
	let previous = '';
	let current = '';
	try {
		const credentials = (await ctx.getCredentials(STORE_CREDENTIAL)) as IDataObject;
		previous = typeof credentials.previousSigningSecret === 'string' ? credentials.previousSigningSecret : '';
		current = typeof credentials.signingSecret === 'string' ? credentials.signingSecret : '';
	} catch {
		return; // The requests that follow report credential problems.
	}
	// Also at an activation that finds its endpoint in place (create() is not called then).
	if (current !== '') checkSigningSecret(ctx, current, version, 'credential');
	if (previous === '') return;
	checkPreviousSecret(ctx, previous, version);
	ctx.logger.warn(
		`Vault Store Trigger: the credential still has a "${PREVIOUS_SECRET_FIELD}": deliveries signed with it or with "${SIGNING_SECRET_FIELD}" are accepted. Clear it once the service signs with the new secret.`,
		logContext(ctx),
	);
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
	const problem = secretShapeProblem(secret, version);
	if (problem === undefined) return;
	throw new NodeOperationError(
		ctx.getNode(),
		source === 'credential'
			? `Credential field "${SIGNING_SECRET_FIELD}" ${problem}`
			: `The signing secret returned by the service ${problem}`,
		{ description: 'A signing secret has at least 24 characters after its prefix (V2: base64 of at least 16 bytes) and no spaces. Copy it again from the merchant dashboard.' },
	);
}

/**
 * A secret the service returned at registration, once the credential has changed since, is
 * no longer used (secrets.ts): forget it. Static data of an older version (no binding) is bound
 * to the credential as it is now.
 */
async function settleRegistrationSecret(ctx: IHookFunctions, data: IDataObject): Promise<void> {
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

/**
 * checkExists, the first call of every activation. Kept stale endpoints are retried here when
 * it answers true; when it answers false, n8n calls create() next, which retries them.
 */
export async function endpointExists(ctx: IHookFunctions): Promise<boolean> {
	const s = readSettings(ctx);
	const data = ctx.getWorkflowStaticData('node');
	const transport = new Transport(ctx, STORE_CREDENTIAL);
	await noteRotation(ctx, s.version);
	await settleRegistrationSecret(ctx, data);
	if (!s.options.manageEndpoint) {
		// Endpoints this node registered earlier and failed to delete are still its own.
		await removeStale(ctx, transport, data);
		return true;
	}
	const webhookId = data.webhookId;
	if (typeof webhookId !== 'string' || webhookId === '') return false;

	const found = await settle(
		async () => await transport.request({ ...webhookRequest(WEBHOOK_ROUTES.get, webhookId) }),
	);
	if (!found.ok) {
		if (httpCodeOf(found.error) === '404') {
			clearStaticData(data);
			return false;
		}
		// Anything else (auth, network, 5xx) is not proof that the endpoint is gone.
		throw found.error;
	}
	const endpoint = asRecord(found.value.data);
	const remoteVersion = endpoint.signatureVersion;
	// The endpoint's signatureVersion is authoritative: a version the service set (its V1 to V2
	// migration) is kept. Only a change of the node's setting since its last activation is sent.
	let wanted = s.version;
	if ((remoteVersion === 'V1' || remoteVersion === 'V2') && remoteVersion !== s.version) {
		const chosen = data.chosenVersion;
		if (chosen === undefined || chosen === s.version) {
			wanted = remoteVersion;
			ctx.logger.warn(
				`Vault Store Trigger: webhook endpoint ${webhookId} is set to ${remoteVersion} at the service (the node's Signature Version is ${s.version}, unchanged since the last activation): kept at ${remoteVersion}, and deliveries are verified as ${remoteVersion}. ` +
					`To go back to ${s.version}, select the previous version in the merchant dashboard, or change Signature Version in the node: a change there is sent at the next activation.`,
				logContext(ctx),
			);
		} else {
			ctx.logger.warn(
				`Vault Store Trigger: webhook endpoint ${webhookId} is set to ${remoteVersion} at the service and the node's Signature Version was changed to ${s.version}: the endpoint is updated to ${s.version}.`,
				logContext(ctx),
			);
		}
	}
	const changed = differences(endpoint, { ...s, version: wanted });
	if (changed.length === 0) {
		rememberVersions(data, s.version, wanted);
		await removeStale(ctx, transport, data);
		return true;
	}

	// The endpoint no longer matches the node: update it in place (it keeps its id). The PATCH
	// carries no Idempotency-Key, so the transport sends it once even when the answer is lost.
	const body: IDataObject = { url: s.url, eventTypes: s.events, note: s.note, signatureVersion: wanted };
	const updated = await settle(
		async () => await transport.request({ ...webhookRequest(WEBHOOK_ROUTES.update, webhookId), body }),
	);
	if (updated.ok) {
		ctx.logger.info(
			`Vault Store Trigger: updated webhook endpoint ${webhookId} in place (${changed.join(', ')})`,
			logContext(ctx),
		);
		rememberVersions(data, s.version, wanted);
		await removeStale(ctx, transport, data);
		return true;
	}
	const code = httpCodeOf(updated.error);
	if (code === '404' || code === '405') {
		// Gone since the GET, or the service does not update endpoints: replace it. Deleting it
		// first (a 404 counts as deleted) means create() cannot leave two endpoints posting to
		// this workflow; if the DELETE fails the id is kept as stale and retried.
		ctx.logger.warn(
			`Vault Store Trigger: webhook endpoint ${webhookId} could not be updated (HTTP ${code}); it is deleted and registered again`,
			logContext(ctx),
		);
		await removeOrKeep(ctx, transport, data, webhookId);
		clearStaticData(data);
		return false;
	}
	throw updateError(ctx, s, webhookId, updated.error);
}

/** The error for a failed endpoint update other than 404/405. */
function updateError(ctx: IHookFunctions, s: Settings, webhookId: string, error: unknown): unknown {
	const refusal = httpsRefusal(ctx, s, error);
	if (refusal !== undefined) return refusal;
	if (!mayHaveBeenApplied(error)) return error;
	// Transport errors carry no secret or header value.
	const reason = error instanceof Error ? error.message : 'unknown error';
	const detail = (error as { description?: unknown }).description;
	return new NodeOperationError(
		ctx.getNode(),
		`Updating webhook endpoint ${webhookId} failed, and the service may have applied the update anyway (${reason})`,
		{
			description:
				'The update (PATCH) carries no Idempotency-Key, so it was sent once and not repeated. Activating the workflow again is safe: ' +
				`the node reads the endpoint again and sends the update only if it still differs.${typeof detail === 'string' && detail !== '' ? ` ${detail}` : ''}`,
		},
	);
}

const CHECK_ENDPOINTS =
	"Before activating again, check the store's webhook endpoints in the merchant dashboard and delete any endpoint with this workflow's URL";

/** True when a failed request may still have been applied by the service (no 4xx answer: 5xx, timeout, dropped connection). */
function mayHaveBeenApplied(error: unknown): boolean {
	const code = httpCodeOf(error);
	return code === undefined || !/^4\d\d$/.test(code);
}

export async function createEndpoint(ctx: IHookFunctions): Promise<boolean> {
	const s = readSettings(ctx);
	const data = ctx.getWorkflowStaticData('node');
	const transport = new Transport(ctx, STORE_CREDENTIAL);
	// Endpoints this node could not delete before (also with Manage Endpoint off: they are its own).
	await removeStale(ctx, transport, data);
	if (!s.options.manageEndpoint) return true;
	const previous = data.webhookId;
	if (typeof previous === 'string' && previous !== '') {
		// Still recorded (create() called without checkExists()): it is being replaced.
		await removeOrKeep(ctx, transport, data, previous);
		clearStaticData(data);
	}
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
	const previousSecret = typeof credentials.previousSigningSecret === 'string' ? credentials.previousSigningSecret : '';
	if (previousSecret !== '') checkPreviousSecret(ctx, previousSecret, s.version);

	const body: IDataObject = { url: s.url, eventTypes: s.events, signatureVersion: s.version };
	if (s.note !== '') body.note = s.note;
	// Credential problems surface here, before anything is sent: an error from the POST
	// below is then about the request itself.
	await transport.url('core', '/webhooks');
	const created = await settle(
		async () => await transport.request({ ...WEBHOOK_ROUTES.create, body }),
	);
	if (!created.ok) {
		const refusal = httpsRefusal(ctx, s, created.error);
		if (refusal !== undefined) throw refusal;
		if (mayHaveBeenApplied(created.error)) {
			// No answer, or a 5xx: the service may have registered the endpoint all the same,
			// and its id is unknown here. Transport errors carry no secret or header value.
			const reason = created.error instanceof Error ? created.error.message : 'unknown error';
			const detail = (created.error as { description?: unknown }).description;
			throw new NodeOperationError(
				node,
				`Registering the webhook endpoint failed and the service may have registered it anyway (${reason}). ${CHECK_ENDPOINTS}.`,
				{
					description: `This workflow's webhook URL: ${s.url}. An endpoint left there would deliver each event a second time.${typeof detail === 'string' && detail !== '' ? ` ${detail}` : ''}`,
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
		await removeOrKeep(ctx, transport, data, webhookId);
		throw usable.error;
	}

	data.webhookId = webhookId;
	const answered = endpoint.signatureVersion;
	rememberVersions(data, s.version, answered === 'V1' || answered === 'V2' ? answered : s.version);
	if (returned !== undefined) {
		// Used only while the credential's secret stays what it is now (secrets.ts).
		data.signingSecret = returned;
		data.signingSecretFor = bindingOf(returned, credentialSecret);
		if (credentialSecret !== returned) {
			ctx.logger.warn(
				`Vault Store Trigger: the service returned a signing secret of its own for webhook endpoint ${webhookId}; it verifies deliveries until "${SIGNING_SECRET_FIELD}" in the credential is changed. Copy the endpoint's secret from the merchant dashboard into the credential, so that a rotation is in your hands.`,
				logContext(ctx),
			);
		}
	} else {
		delete data.signingSecret;
		delete data.signingSecretFor;
	}
	if (s.options.sendTestEvent && isListeningForTest(ctx, s.url)) await requestTestDelivery(ctx, transport, webhookId, s.events);
	return true;
}

/** "Listen for test event" in the editor: n8n registers its test URL (…/webhook-test/…) in manual mode. */
function isListeningForTest(ctx: IHookFunctions, url: string): boolean {
	const mode = (ctx as IHookFunctions & { getMode?: () => string }).getMode?.();
	return mode === 'manual' || /\/webhook-test\//.test(url);
}

/**
 * Asks the service for one signed test delivery to the endpoint just registered for
 * listening, so the editor gets an event at once. A failure only logs: listening goes on.
 */
async function requestTestDelivery(ctx: IHookFunctions, transport: Transport, webhookId: string, events: string[]): Promise<void> {
	const eventType = events.find((event) => /^(PAYMENT|SUBSCRIPTION)_/.test(event));
	if (eventType === undefined) return;
	try {
		await transport.request({ ...webhookRequest(WEBHOOK_ROUTES.sendTest, webhookId), body: { eventType } });
	} catch (error) {
		ctx.logger.warn(
			`Vault Store Trigger: the service did not send a test event (${error instanceof Error ? error.message : 'unknown error'}); send one from the service, or use Vault Store → Webhook → Send Test`,
			{ workflowId: ctx.getWorkflow().id, node: ctx.getNode().name },
		);
	}
}

/**
 * delete (deactivation). Never throws (n8n would skip saving static data); false when an
 * endpoint could not be deleted: it is logged and kept in staleWebhookIds for later.
 */
export async function deleteEndpoint(ctx: IHookFunctions): Promise<boolean> {
	try {
		// Only Manage Endpoint is read: an invalid other option must not block deactivation.
		const manage = readManageEndpoint(ctx.getNodeParameter('options', {}) as IDataObject);
		const data = ctx.getWorkflowStaticData('node');
		const transport = new Transport(ctx, STORE_CREDENTIAL);
		let allDeleted = await removeStale(ctx, transport, data);
		const webhookId = data.webhookId;
		if (manage && typeof webhookId === 'string' && webhookId !== '') {
			if (!(await removeOrKeep(ctx, transport, data, webhookId))) allDeleted = false;
			clearStaticData(data);
		}
		return allDeleted;
	} catch (error) {
		ctx.logger.warn(
			`Vault Store Trigger: deactivation could not remove the webhook endpoint (${error instanceof Error ? error.message : 'unknown error'})`,
			logContext(ctx),
		);
		return false;
	}
}
