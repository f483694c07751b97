import type { IDataObject, INodeExecutionData, IWebhookFunctions } from 'n8n-workflow';

import { STORE_CREDENTIAL } from '../shared/credentials';
import type { DeliveryMeta } from '../shared/events';
import { withDeliveryMeta } from '../shared/events';
import type { Gated } from '../shared/redaction/gate';
import { gateTriggerItem } from '../shared/redaction/gate';
import { DECLARED_SECRET_FIELDS, withoutHidden } from '../shared/redaction/hidden';
import type { Redactor } from '../shared/redaction/secrets';
import { credentialRedactor } from '../shared/redaction/secrets';
import { DEFAULT_TRANSPORT_OPTIONS, Transport } from '../shared/transport/request';
import { WEBHOOK_ROUTES, webhookRequest } from '../shared/webhookRoutes';
import { readHeader } from '../shared/headers';
import { readEvents, readTriggerOptions, readVersion } from './settings';
import type { TriggerOptions } from './settings';
import { SeenIds, signedContentKey } from './duplicates';
import { registrationSecret, secretShapeProblem } from './secrets';
import type { SignatureVersion, Verdict } from './verify';
import { verifyDelivery } from './verify';

/**
 * Handling of one delivery: verify the signature over the exact received bytes, drop
 * duplicates and unselected events, and emit the parsed body as one item.
 *
 * Answers: 401 {error: reason} for anything that does not verify (nothing starts); 500 for a
 * failure after the delivery verified (the service retries it);
 * 200 {received: true, ignored: reason} for duplicates and unselected events (so the
 * service stops retrying); otherwise n8n's normal answer for a started workflow.
 */

/**
 * A delivery's answer: n8n's own answer to the sender, or the items a workflow starts with, each
 * made by the output gate (the delivery's metadata and headers included).
 */
export type DeliveryAnswer = { noWebhookResponse: true } | { workflowData: Array<Array<Gated<INodeExecutionData>>> };

/** Ids accepted per workflow and node, bounded. Each n8n process (main or webhook worker)
 * keeps its own sets: with several webhook processes, a retry that reaches another
 * process is not recognised as a duplicate. */
const seenByNode = new Map<string, SeenIds>();
const MAX_NODES = 1000;
const MAX_IDS_PER_NODE = 10000;

function seenIdsFor(key: string): SeenIds {
	let seen = seenByNode.get(key);
	if (seen === undefined) {
		if (seenByNode.size >= MAX_NODES) {
			const oldest = seenByNode.keys().next().value;
			if (oldest !== undefined) seenByNode.delete(oldest);
		}
		seen = new SeenIds(MAX_IDS_PER_NODE);
		seenByNode.set(key, seen);
	}
	return seen;
}

/** Headers left out of meta.headers: signatures (not secret, but no use downstream) and credentials. */
const HIDDEN_HEADERS = new Set([
	'webhook-signature',
	'x-service-signature',
	'authorization',
	'proxy-authorization',
	'cookie',
]);

function visibleHeaders(headers: Record<string, string | string[] | undefined>): IDataObject {
	const out: IDataObject = {};
	for (const [name, value] of Object.entries(headers)) {
		const key = name.toLowerCase();
		if (value === undefined || HIDDEN_HEADERS.has(key)) continue;
		out[key] = Array.isArray(value) ? value.join(', ') : value;
	}
	return out;
}

/**
 * Keys under which an accepted delivery is remembered; any key already seen makes it a
 * duplicate. Only signed content is used, so a replay cannot dodge detection by
 * changing an unsigned header:
 *   V2      the webhook-id (it is signed).
 *   V1      a hash of the signed `<timestamp>.<raw body>`: webhook-id is not signed, and a
 *           replay with a fresh one must still be recognised, also when the body has no
 *           `id`. With the body-only option on, also the hash of the body alone, so the
 *           same delivery stripped down to its legacy header is recognised too.
 *   legacy  a hash of the raw body (all that X-Service-Signature signs).
 * For V1 and legacy the message `id` inside the signed body is a key as well, in the same
 * key space as the V2 webhook-id (which is the message id): it recognises the service's
 * retries, re-signed with a fresh timestamp, also when a retry comes signed with V2.
 */
function duplicateKeys(
	verdict: Extract<Verdict, { ok: true }>,
	rawBody: Buffer,
	headers: Record<string, string | string[] | undefined>,
	payload: IDataObject,
	options: TriggerOptions,
): string[] {
	// One key space for message ids: a V2 webhook-id is the message id, which V1 and legacy
	// deliveries carry as the signed body's `id`, so one message delivered as V1 and retried as
	// V2 (an endpoint migrated meanwhile), or the other way round, is recognised.
	if (verdict.version === 'V2') return [`message:${verdict.id}`];
	const messageKey = typeof payload.id === 'string' && payload.id !== '' ? [`message:${payload.id}`] : [];
	const keys: string[] = [];
	if (verdict.legacy === true) {
		keys.push(signedContentKey('body', '', rawBody));
	} else {
		keys.push(signedContentKey('v1', `${readHeader(headers, 'webhook-timestamp') ?? ''}.`, rawBody));
		if (options.acceptBodyOnlySignature) keys.push(signedContentKey('body', '', rawBody));
	}
	return [...keys, ...messageKey];
}

/** The store credential as one delivery reads it (once: n8n decrypts it on every read), or unreadable. */
interface CredentialRead {
	credentials: IDataObject;
	unreadable: boolean;
}

async function readCredential(ctx: IWebhookFunctions): Promise<CredentialRead> {
	try {
		return { credentials: (await ctx.getCredentials(STORE_CREDENTIAL)) as IDataObject, unreadable: false };
	} catch (error) {
		ctx.logger.error(
			`Vault Store Trigger: could not read the credential (${error instanceof Error ? error.message : 'unknown error'})`,
		);
		return { credentials: {}, unreadable: true };
	}
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/**
 * The current signing secret and, during a rotation, the previous one ('' when none). The
 * credential is the source of truth: a secret the service returned at registration is used
 * only while the credential's Webhook Signing Secret is what it was then (secrets.ts), so a
 * changed credential takes effect on the next delivery. A value that is no secret (blank, a bare
 * prefix; V2: not base64) is never a key: `problem` says which field is unusable. A short secret is
 * used as given (activation warned about it).
 */
function signingSecrets(
	ctx: IWebhookFunctions,
	read: CredentialRead,
	version: SignatureVersion,
): { current: string; previous: string; problem?: string } {
	const data = ctx.getWorkflowStaticData('node');
	const { credentials, unreadable } = read;
	const credentialSecret = text(credentials.signingSecret);
	// An unreadable credential is not a changed one: the registration secret is not used then.
	const returned = unreadable ? undefined : registrationSecret(data, credentialSecret);
	const current = returned ?? credentialSecret;
	const previous = text(credentials.previousSigningSecret);
	if (current === '') return { current, previous: '' };
	const currentProblem = returned === undefined ? secretShapeProblem(current, version) : undefined;
	if (currentProblem !== undefined) return { current: '', previous: '', problem: `"Webhook Signing Secret" ${currentProblem}` };
	if (previous !== '') {
		const previousProblem = secretShapeProblem(previous, version);
		if (previousProblem !== undefined) return { current, previous: '', problem: `"Previous Signing Secret" ${previousProblem}` };
	}
	return { current, previous };
}

/** The output gate's redactor of the store credential's secrets (key, signing secrets): made once per credential. */
function credentialSecrets(read: CredentialRead): Redactor {
	return credentialRedactor(['secretKey', 'signingSecret', 'previousSigningSecret'].map((name) => text(read.credentials[name])).filter((v) => v !== ''));
}

/**
 * Reads of an endpoint's version, per node (this process): a bucket of READ_BURST reads that
 * refills one every READ_REFILL_MS. A change at the service (a rollback seconds after a read) is
 * read at once; deliveries that never verify (forged ones) cost at most one GET every 10 s.
 */
const endpointReads = new Map<string, { tokens: number; at: number }>();
const READ_BURST = 3;
const READ_REFILL_MS = 10_000;

/** The signature version the endpoint has at the service now, or undefined when it cannot be read (or reads are spent). */
async function endpointVersionNow(ctx: IWebhookFunctions, webhookId: string): Promise<SignatureVersion | undefined> {
	const node = ctx.getNode();
	const key = `${ctx.getWorkflow().id ?? ''}\u0000${node.id ?? node.name}\u0000${webhookId}`;
	const now = Date.now();
	const bucket = endpointReads.get(key) ?? { tokens: READ_BURST, at: now };
	bucket.tokens = Math.min(READ_BURST, bucket.tokens + (now - bucket.at) / READ_REFILL_MS);
	bucket.at = now;
	if (endpointReads.size >= MAX_NODES) endpointReads.clear();
	endpointReads.set(key, bucket);
	if (bucket.tokens < 1) return undefined;
	bucket.tokens -= 1;
	try {
		const transport = new Transport(ctx, STORE_CREDENTIAL, { ...DEFAULT_TRANSPORT_OPTIONS, maxRetries: 0, timeoutMs: 5000 });
		const res = await transport.request({ ...webhookRequest(WEBHOOK_ROUTES.get, webhookId) });
		const remote = (res.data as IDataObject | undefined)?.signatureVersion;
		return remote === 'V1' || remote === 'V2' ? remote : undefined;
	} catch (error) {
		ctx.logger.warn(
			`Vault Store Trigger: could not read webhook endpoint ${webhookId} to check its signature version (${error instanceof Error ? error.message : 'unknown error'}); the node's Signature Version is used`,
			{ workflowId: ctx.getWorkflow().id, node: ctx.getNode().name },
		);
		return undefined;
	}
}

/** Nodes already warned that their V1 endpoint sends V2 deliveries (once per node and process). */
const warnedMigrated = new Set<string>();

export async function receiveDelivery(ctx: IWebhookFunctions): Promise<DeliveryAnswer> {
	const res = ctx.getResponseObject();
	const where = (): IDataObject => ({ workflowId: ctx.getWorkflow().id, node: ctx.getNode().name });
	const answer = (status: number, body: IDataObject): DeliveryAnswer => {
		res.status(status).json(body);
		return { noWebhookResponse: true };
	};
	const reject = (reason: string): DeliveryAnswer => {
		ctx.logger.warn(`Vault Store Trigger: rejected a delivery: ${reason}`, where());
		return answer(401, { error: reason });
	};
	const ignore = (reason: string): DeliveryAnswer => {
		ctx.logger.debug(`Vault Store Trigger: ignored a delivery: ${reason}`, where());
		return answer(200, { received: true, ignored: reason });
	};

	/** Set once the delivery verified: a failure after it is the receiver's (500, the service retries). */
	let verified = false;
	try {
		const req = ctx.getRequestObject();
		// The endpoint's version as the last activation found it at the service (it may have been
		// migrated there), else the node's setting. A delivery that does not verify in it is tried
		// in the node's setting too: the merchant may have rolled the endpoint back in the dashboard.
		const nodeVersion = readVersion(ctx.getNodeParameter('signatureVersion', 'V2'));
		const endpointVersion = ctx.getWorkflowStaticData('node').signatureVersion;
		const version = endpointVersion === 'V1' || endpointVersion === 'V2' ? endpointVersion : nodeVersion;
		const events = readEvents(ctx.getNodeParameter('events', []));
		// Read once: n8n copies the node on every read.
		const node = ctx.getNode();
		let options: TriggerOptions;
		try {
			options = readTriggerOptions(node, ctx.getNodeParameter('options', {}) as IDataObject);
		} catch (error) {
			// Names the option and its allowed range; no secret or header value.
			const reason = error instanceof Error ? error.message : 'the trigger options are invalid';
			ctx.logger.error(`Vault Store Trigger: every delivery is rejected until this is fixed: ${reason}`, where());
			return answer(401, { error: reason });
		}

		const credential = await readCredential(ctx);
		const { current: secret, previous, problem } = signingSecrets(ctx, credential, version);
		if (problem !== undefined) {
			// Verification goes on with the usable secret only; the field is named, its value never.
			ctx.logger.error(`Vault Store Trigger: credential field ${problem}; it is not used to verify deliveries`, where());
		}
		if (secret === '') {
			ctx.logger.error(
				'Vault Store Trigger: no signing secret: fill the credential field "Webhook Signing Secret"; every delivery is rejected until then',
				where(),
			);
			return reject('the receiver has no signing secret configured');
		}

		const rawBody: unknown = req.rawBody;
		const verifyAs = (as: SignatureVersion, keys: { current: string; previous: string }): Verdict =>
			verifyDelivery({
				rawBody: Buffer.isBuffer(rawBody) ? rawBody : undefined,
				headers: req.headers,
				secret: keys.current,
				previousSecret: keys.previous,
				version: as,
				nowMs: Date.now(),
				toleranceSeconds: options.toleranceSeconds,
				acceptBodyOnlySignature: options.acceptBodyOnlySignature,
			});
		let verdict = verifyAs(version, { current: secret, previous });
		// The endpoint's version at the service, read at most once per delivery (undefined: unreadable).
		let endpointRead: { now: SignatureVersion | undefined } | undefined;
		const endpointId = (): string | undefined => {
			const webhookId = ctx.getWorkflowStaticData('node').webhookId;
			return typeof webhookId === 'string' && webhookId !== '' ? webhookId : undefined;
		};
		const endpointNow = async (): Promise<SignatureVersion | undefined> => {
			const webhookId = endpointId();
			endpointRead ??= { now: webhookId !== undefined ? await endpointVersionNow(ctx, webhookId) : undefined };
			return endpointRead.now;
		};
		const hasEndpoint = (): boolean => endpointId() !== undefined;
		if (!verdict.ok) {
			// Signed in the other version: the endpoint may have been changed at the service since
			// (a migration, a rollback in the merchant dashboard). The other version is tried first,
			// which costs no request: only a delivery that verifies there makes the node read the
			// endpoint's version (a few reads per node, then one every 10 s), so a forged delivery, in
			// any version or none, costs nothing and spends no read. Only the version the endpoint has
			// now is accepted; without an endpoint to read (Manage Endpoint off, or unreadable), the
			// node's own setting is what the user says it has.
			const other: SignatureVersion = version === 'V1' ? 'V2' : 'V1';
			const keys = signingSecrets(ctx, credential, other);
			const changed = keys.current !== '' ? verifyAs(other, keys) : undefined;
			if (changed?.ok === true && ((await endpointNow()) ?? nodeVersion) === other) {
				verdict = changed;
				ctx.getWorkflowStaticData('node').signatureVersion = other;
				ctx.logger.info(`Vault Store Trigger: the endpoint is ${other} at the service now; deliveries are verified as ${other}`, where());
			}
		}
		if (!verdict.ok) return reject(verdict.reason);
		if (verdict.version !== version) {
			// Accepted in the other version than the endpoint had (a V2-signed delivery to a V1
			// endpoint: the service's migration): only when the endpoint has that version now.
			if (hasEndpoint()) {
				const now = await endpointNow();
				// Unreadable: the service's migration (V1 to V2) is what the V1 scheme accepts, as before reads.
				if (now !== undefined && now !== verdict.version) {
					return reject(`signed as ${verdict.version}, but the endpoint is ${now ?? 'not readable'} at the service: check its signature version`);
				}
				ctx.getWorkflowStaticData('node').signatureVersion = verdict.version;
			}
		}
		verified = true;
		if (verdict.version === 'V2' && version === 'V1') {
			const key = `${ctx.getWorkflow().id ?? ''}\u0000${node.id ?? node.name}`;
			if (!warnedMigrated.has(key)) {
				if (warnedMigrated.size >= MAX_NODES) warnedMigrated.clear();
				warnedMigrated.add(key);
				ctx.logger.warn(
					`Vault Store Trigger: accepted a V2-signed delivery although Signature Version is ${version}: the endpoint seems to have been migrated to V2. Set Signature Version to V2 in the node.`,
					where(),
				);
			}
		}

		// The body is read from the verified bytes, never from a re-serialisation.
		let body: unknown;
		try {
			body = JSON.parse((rawBody as Buffer).toString('utf8'));
		} catch {
			return answer(400, { error: 'body is not JSON' });
		}
		if (body === null || typeof body !== 'object' || Array.isArray(body)) {
			return answer(400, { error: 'body is not a JSON object' });
		}
		const payload = body as IDataObject;

		if (options.rejectDuplicates) {
			// Twice the tolerance: a delivery stamped T verifies from T - tolerance to T + tolerance.
			const windowMs = 2 * options.toleranceSeconds * 1000;
			const seen = seenIdsFor(`${ctx.getWorkflow().id ?? ''}\u0000${node.id ?? node.name}`);
			const keys = duplicateKeys(verdict, rawBody as Buffer, req.headers, payload, options);
			const now = Date.now();
			// The signed body's fingerprint: one id with another body is a conflict, not a repeat.
			const content = signedContentKey('content', '', rawBody as Buffer);
			const verdicts = keys.map((key) => seen.check(key, now, windowMs, content));
			if (verdicts.includes('conflict')) {
				ctx.logger.warn(
					`Vault Store Trigger: delivery ${verdict.id} reuses the id of an earlier delivery with a different signed body; it is refused (409) so that the service retries it and shows it, not dropped as a repeat`,
					where(),
				);
				return answer(409, { error: 'delivery id already used with a different body' });
			}
			if (verdicts.includes('duplicate')) return ignore('duplicate delivery');
		}

		const event = payload.event;
		if (typeof event !== 'string' || !events.includes(event)) {
			return ignore('event not selected');
		}

		const meta: DeliveryMeta & IDataObject = {
			deliveryId: verdict.id,
			timestamp: verdict.timestamp,
			signatureVersion: verdict.version,
			legacy: verdict.legacy === true,
		};
		if (verdict.signingKey !== undefined) meta.signingKey = verdict.signingKey;
		if (verdict.signingSecret !== undefined) meta.signingSecret = verdict.signingSecret;
		if (options.includeHeaders) meta.headers = visibleHeaders(req.headers);
		// The whole item through the output gate, delivery headers included: a delivery that carries
		// the store key or a signing secret (it verified, so it came from the service or someone
		// holding the secret), in its body or in a header, shows them redacted, as every item of the
		// action node does; a declared secret field (a product's webhookSecret, e.g. in a
		// subscription event embedding its product) is left out at any depth, as the action node's
		// rows declare it.
		const item = withDeliveryMeta(withoutHidden(payload, DECLARED_SECRET_FIELDS), meta);
		return { workflowData: [[gateTriggerItem(item, credentialSecrets(credential))]] };
	} catch (error) {
		ctx.logger.error(
			`Vault Store Trigger: delivery could not be handled (${error instanceof Error ? error.message : 'unknown error'})`,
			where(),
		);
		// A delivery that verified is not answered "not verified": 500 makes the service retry it.
		if (verified) return answer(500, { error: 'delivery verified but could not be handled; please retry' });
		return answer(401, { error: 'delivery could not be verified' });
	}
}
