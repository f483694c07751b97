import type { IDataObject, IHookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { STORE_CREDENTIAL } from '../shared/credentials';
import { Transport } from '../shared/transport/request';
import { WEBHOOK_ROUTES, webhookRequest } from '../shared/webhookRoutes';
import { readManageEndpoint } from './settings';
import { bindingOf, checkPreviousSecret, checkSigningSecret, noteRotation, SIGNING_SECRET_FIELD } from './secrets';
import { httpCodeOf, logContext } from './hookContext';
import { readOwnership } from './ownership';
import {
	clearStaticData,
	rememberVersions,
	removeOrKeep,
	removeStale,
	settleRegistrationSecret,
} from './staticData';
import type { SignatureVersion } from './verify';
import type { Settings } from './endpointSettings';
import { checkUrl, differences, httpsRefusal, readSettings } from './endpointSettings';

/**
 * The trigger's webhook methods, named as n8n names them (webhookMethods.default of the node):
 * checkExists on every activation, create when it answers false, delete on deactivation.
 * They register n8n's webhook URL as an endpoint of the store, check it on start-up (and
 * update it in place when the node's URL, events, note or signature version differ from it),
 * and delete it on deactivation. Each acts only on an endpoint a read (GET) shows with this
 * workflow's URL (ownership.ts): one that shows another URL or none is never changed. What
 * they keep between calls is in staticData.ts; the credential checks they make are in
 * secrets.ts; the routes are nodes/shared/webhookRoutes.ts.
 *
 * n8n ignores the return value of delete() and skips saving static data when a webhook
 * method throws, so delete() never throws: failures are logged and reported as false.
 * Static data changed during an activation that fails is not saved by n8n either; what
 * was saved before (the previous webhookId, earlier stale ids) is retried instead.
 */

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** Runs a request and hands back its result or error, so errors are rethrown outside a catch clause. */
async function settle<T>(run: () => Promise<T>): Promise<Settled<T>> {
	try {
		return { ok: true, value: await run() };
	} catch (error) {
		return { ok: false, error };
	}
}

function asRecord(value: unknown): IDataObject {
	return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as IDataObject) : {};
}

/**
 * checkExists, the first call of every activation. Kept stale endpoints are retried here when
 * it answers true; when it answers false, n8n calls create() next, which retries them.
 */
export async function checkExists(ctx: IHookFunctions): Promise<boolean> {
	const s = readSettings(ctx);
	if (s.options.manageEndpoint) await checkUrl(ctx, s);
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

	const found = await readOwnership(transport, webhookId, s.url);
	if (found.kind === 'unreadable') {
		// Anything else than 404 (auth, network, 5xx) is not proof that the endpoint is gone.
		throw found.error;
	}
	if (found.kind === 'gone') {
		// A read answered 404 is not a deletion: a service that answers 404 for an endpoint that
		// still exists would get another endpoint beside it at every activation, each delivering
		// every event. The DELETE is sent all the same (removeEndpoint in staticData.ts says why
		// that can remove nothing of another integration's); if it fails, the id is kept as stale
		// and retried, before create() registers anew.
		ctx.logger.warn(
			`Vault Store Trigger: webhook endpoint ${webhookId} was not found at the service (HTTP 404 when read); it is deleted all the same, in case it still exists, and registered again`,
			logContext(ctx),
		);
		await removeOrKeep(ctx, transport, data, webhookId, found);
		clearStaticData(data);
		return false;
	}
	if (found.kind !== 'own') {
		// Not provably this workflow's endpoint any more (repointed in the dashboard, n8n's URL
		// changed, a copy of the workflow imported elsewhere with its static data, or a read that
		// shows no URL): it is never updated or deleted by this node. It is forgotten, and
		// create() registers this workflow's URL anew.
		const shows = found.kind === 'elsewhere' ? `now points at ${found.url}` : 'shows no URL when read';
		ctx.logger.warn(
			`Vault Store Trigger: webhook endpoint ${webhookId} ${shows}, so it cannot be proven this workflow's (webhook URL ${s.url}): the node leaves it as it is (no update, no delete) and registers a new endpoint. Delete ${webhookId} in the merchant dashboard if it is no longer used.`,
			logContext(ctx),
		);
		clearStaticData(data);
		return false;
	}
	const endpoint = found.endpoint;
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
					`Deliveries signed as ${s.version} are accepted too, so setting the endpoint back to ${s.version} in the merchant dashboard keeps the workflow receiving; the next activation then keeps ${s.version}.`,
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

/** Registrations answered without an endpoint ID, by workflow, node and URL (this process; bounded). */
const unidentified = new Map<string, number>();
const UNIDENTIFIED_WAIT_MINUTES = 15;

function registrationKey(ctx: IHookFunctions, url: string): string {
	const node = ctx.getNode();
	return `${ctx.getWorkflow().id ?? ''}\u0000${node.id ?? node.name}\u0000${url}`;
}

/** An endpoint as the service reads it back, or undefined when it cannot be read. */
async function readEndpoint(transport: Transport, webhookId: string): Promise<IDataObject | undefined> {
	const read = await settle(async () => await transport.request({ ...webhookRequest(WEBHOOK_ROUTES.get, webhookId) }));
	return read.ok ? asRecord(read.value.data) : undefined;
}

/**
 * A new endpoint comes out of registration in the version asked for: one the service answered in
 * another version is set back (PATCH, then read again to confirm). True when confirmed.
 */
async function confirmVersion(ctx: IHookFunctions, transport: Transport, webhookId: string, answered: SignatureVersion, wanted: SignatureVersion): Promise<boolean> {
	ctx.logger.warn(
		`Vault Store Trigger: the service registered webhook endpoint ${webhookId} as ${answered} although ${wanted} was asked; setting it to ${wanted}`,
		logContext(ctx),
	);
	const patched = await settle(
		async () => await transport.request({ ...webhookRequest(WEBHOOK_ROUTES.update, webhookId), body: { signatureVersion: wanted } }),
	);
	if (!patched.ok) return false;
	return (await readEndpoint(transport, webhookId))?.signatureVersion === wanted;
}

const CHECK_ENDPOINTS =
	"Before activating again, check the store's webhook endpoints in the merchant dashboard and delete any endpoint with this workflow's URL";

/** A transport error's message for the user (transport errors carry no secret or header value). */
function errorText(error: unknown): string {
	return error instanceof Error ? error.message : 'unknown error';
}

/** True when a failed request may still have been applied by the service (no 4xx answer: 5xx, timeout, dropped connection). */
function mayHaveBeenApplied(error: unknown): boolean {
	const code = httpCodeOf(error);
	return code === undefined || !/^4\d\d$/.test(code);
}

export async function create(ctx: IHookFunctions): Promise<boolean> {
	const s = readSettings(ctx);
	if (s.options.manageEndpoint) await checkUrl(ctx, s);
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
	const unidentifiedAt = unidentified.get(registrationKey(ctx, s.url));
	if (unidentifiedAt !== undefined && Date.now() - unidentifiedAt < UNIDENTIFIED_WAIT_MINUTES * 60_000) {
		throw new NodeOperationError(
			node,
			`A registration of this workflow's URL was answered without an endpoint ID at ${new Date(unidentifiedAt).toISOString()}; the node does not register it again blindly. ${CHECK_ENDPOINTS}.`,
			{ description: `This workflow's webhook URL: ${s.url}. Activate the workflow again ${UNIDENTIFIED_WAIT_MINUTES} minutes after that time, once the endpoint with this URL is deleted in the merchant dashboard.` },
		);
	}
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

	const endpoint = asRecord(created.value.data);
	const webhookId = typeof endpoint.id === 'string' ? endpoint.id : '';
	if (webhookId === '') {
		// The service made an endpoint (or may have) that this node cannot name: it is not
		// registered again blindly from this process; the user finds it by this workflow's URL.
		if (unidentified.size >= 1000) unidentified.clear();
		unidentified.set(registrationKey(ctx, s.url), Date.now());
		throw new NodeOperationError(node, `The service registered the webhook endpoint without returning its ID. ${CHECK_ENDPOINTS}.`, {
			description: `This workflow's webhook URL: ${s.url}. The node cannot update or delete an endpoint it cannot name, so it does not register another one for this URL from this n8n process for ${UNIDENTIFIED_WAIT_MINUTES} minutes: delete the endpoint with this URL in the merchant dashboard, then activate the workflow again after that.`,
		});
	}
	// Only an endpoint proven to be the one asked for is kept, updated or deleted: the service's
	// read of it (GET) must show this workflow's webhook URL. The URL in the registration answer
	// proves nothing (an answer may name another integration's endpoint with this workflow's URL).
	const proof = await readOwnership(transport, webhookId, s.url);
	if (proof.kind !== 'own') {
		throw new NodeOperationError(
			node,
			proof.kind === 'elsewhere'
				? `The service answered the registration with endpoint ${webhookId}, which points at ${proof.url}, not at this workflow's webhook URL ${s.url}: the node neither keeps nor changes it`
				: `The service answered the registration with endpoint ${webhookId}, whose URL could not be read (${proof.kind === 'no-url' ? 'the read shows none' : errorText(proof.error)}): the node does not keep, change or delete an endpoint it cannot prove is this workflow's (${s.url})`,
			{
				description: `This workflow's webhook URL: ${s.url}. Check the store's webhook endpoints in the merchant dashboard: an endpoint with this URL may have been made and can be deleted there; endpoint ${webhookId} is left as it is.`,
			},
		);
	}
	const returned = [endpoint.secret, endpoint.signingSecret].find(
		(value): value is string => typeof value === 'string' && value !== '',
	);
	const usable = await settle(async () => {
		if (returned !== undefined) checkSigningSecret(ctx, returned, s.version, 'response');
		else checkSigningSecret(ctx, credentialSecret, s.version, 'credential');
	});
	if (!usable.ok) {
		// Not verifiable: take the endpoint down again rather than leave it failing deliveries
		// (proven this workflow's by the read above).
		await removeOrKeep(ctx, transport, data, webhookId, proof);
		throw usable.error;
	}

	// The version as read, which is what the service has; the answer's when the read shows none.
	const readVersion = proof.endpoint.signatureVersion;
	const answered = readVersion === 'V1' || readVersion === 'V2' ? readVersion : endpoint.signatureVersion;
	if ((answered === 'V1' || answered === 'V2') && answered !== s.version && !(await confirmVersion(ctx, transport, webhookId, answered, s.version))) {
		// Never a silent downgrade (or upgrade): an endpoint not confirmed in the version asked for
		// is taken down again, and the activation fails (nothing is kept, so it stays unconfirmed).
		await removeOrKeep(ctx, transport, data, webhookId);
		throw new NodeOperationError(
			node,
			`The service registered the webhook endpoint as ${answered} although Signature Version is ${s.version}, and did not set it to ${s.version} when asked: the endpoint was removed again and nothing is verified as ${answered}`,
			{ description: `This workflow's webhook URL: ${s.url}. Set Signature Version to ${answered} if the store only offers ${answered} endpoints, or try again later.` },
		);
	}
	data.webhookId = webhookId;
	// Confirmed in the version asked for (as answered, or set back and read again).
	rememberVersions(data, s.version, s.version);
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
async function deleteEndpoint(ctx: IHookFunctions): Promise<boolean> {
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

// `delete` is a reserved word as a function name, not as an export name: the three exports read as n8n's.
export { deleteEndpoint as delete };
