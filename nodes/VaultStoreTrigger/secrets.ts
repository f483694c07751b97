import { createHmac } from 'node:crypto';
import type { IDataObject, IHookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { STORE_CREDENTIAL } from '../shared/credentials';
import { logContext } from './hookContext';

import type { SignatureVersion } from './verify';
import { decodeSigningSecret } from './verify';

/**
 * Which signing secrets verify a delivery, and what a usable one looks like.
 *
 * The credential is the source of truth. A secret the service returned when the endpoint was
 * registered (kept in static data as `signingSecret`) is used only while the credential's
 * "Webhook Signing Secret" is still what it was at registration: static data keeps a binding,
 * an HMAC of the credential's secret at that moment keyed with the returned secret
 * (`signingSecretFor`), so it holds no secret of the credential. Once the user changes the
 * credential (a rotation), the returned secret is no longer used anywhere, on the next delivery,
 * without re-activation; the credential's "Previous Signing Secret" is then the only way an
 * older secret is still accepted.
 */

/** Characters a signing secret must have after an optional whsec_ prefix. */
export const MIN_SECRET_CHARS = 24;
/** Bytes a V2 secret must decode to. */
export const MIN_V2_KEY_BYTES = 16;

const PREFIX = 'whsec_';

/**
 * Why `secret` cannot be a signing secret for `version` deliveries, or undefined when it can.
 * Blank, whitespace, a bare prefix and short values would make a key anyone can guess.
 */
export function secretShapeProblem(secret: string, version: SignatureVersion): string | undefined {
	if (secret.trim() === '') return 'is blank';
	if (/\s/.test(secret)) return 'contains spaces or line breaks';
	const body = secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret;
	if (body === '') return 'is only the prefix, with no secret after it';
	if (body.length < MIN_SECRET_CHARS) {
		return `is too short: it needs at least ${MIN_SECRET_CHARS} characters (not counting the prefix)`;
	}
	if (/^(.)\1*$/.test(body)) return 'is one character repeated';
	if (version !== 'V2') return undefined;
	let key: Buffer;
	try {
		key = decodeSigningSecret(secret);
	} catch (error) {
		return `is not a valid V2 signing secret (${error instanceof Error ? error.message : 'not valid base64'})`;
	}
	if (key.length < MIN_V2_KEY_BYTES) return `decodes to fewer than ${MIN_V2_KEY_BYTES} bytes`;
	return undefined;
}

/** The binding of a returned secret to the credential's secret at registration ('' when none). */
export function bindingOf(returned: string, credentialSecret: string): string {
	return createHmac('sha256', returned).update(`credential-signing-secret:${credentialSecret}`).digest('base64');
}

export interface StoredSecret {
	/** The secret the service returned at registration. */
	signingSecret?: unknown;
	/** bindingOf(signingSecret, the credential's secret then). */
	signingSecretFor?: unknown;
}

/**
 * The secret the service returned, when it still applies: the credential's Webhook Signing
 * Secret is the one it was bound to at registration. Without a binding (static data of an
 * older version) it applies only while the credential has no secret.
 */
export function registrationSecret(stored: StoredSecret, credentialSecret: string): string | undefined {
	const secret = stored.signingSecret;
	if (typeof secret !== 'string' || secret === '') return undefined;
	const binding = stored.signingSecretFor;
	if (typeof binding !== 'string') return credentialSecret === '' ? secret : undefined;
	return bindingOf(secret, credentialSecret) === binding ? secret : undefined;
}

/* The credential checks an activation makes (webhookMethods.ts): what the node refuses before registering. */

export const SIGNING_SECRET_FIELD = 'Webhook Signing Secret';
export const PREVIOUS_SECRET_FIELD = 'Previous Signing Secret';

/** Refuses a previous secret that anyone could sign with. */
export function checkPreviousSecret(ctx: IHookFunctions, previous: string, version: SignatureVersion): void {
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
export async function noteRotation(ctx: IHookFunctions, version: SignatureVersion): Promise<void> {
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
export function checkSigningSecret(ctx: IHookFunctions, secret: string, version: SignatureVersion, source: string): void {
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
