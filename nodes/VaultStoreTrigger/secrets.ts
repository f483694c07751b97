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

/** Characters below which a signing secret (after an optional whsec_ prefix) looks short: a warning. */
export const MIN_SECRET_CHARS = 24;
/** Bytes below which a V2 secret's key looks short: a warning. */
export const MIN_V2_KEY_BYTES = 16;

const PREFIX = 'whsec_';

/**
 * Why `secret` cannot be a signing secret for `version` deliveries, or undefined when it can: no
 * secret at all (blank, a bare prefix), or (V2) no key (the Standard Webhooks secret is base64).
 * The service's secret is used as given otherwise: its shape is not a rule the service states
 * (secretWeakness only warns).
 */
export function secretShapeProblem(secret: string, version: SignatureVersion): string | undefined {
	if (secret.trim() === '') return 'is blank';
	const body = secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret;
	if (body.trim() === '') return 'is only the prefix, with no secret after it';
	if (version !== 'V2') return undefined;
	try {
		decodeSigningSecret(secret);
	} catch (error) {
		return `is not a valid V2 signing secret (${error instanceof Error ? error.message : 'not valid base64'})`;
	}
	return undefined;
}

/**
 * Why `secret` looks weak (short, one character repeated, spaces), or undefined. A warning only:
 * the secret is the service's, and deliveries signed with it verify.
 */
export function secretWeakness(secret: string, version: SignatureVersion): string | undefined {
	if (/\s/.test(secret)) return 'contains spaces or line breaks';
	const body = secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret;
	if (body.length < MIN_SECRET_CHARS) return `is short: fewer than ${MIN_SECRET_CHARS} characters (not counting the prefix)`;
	if (/^(.)\1*$/.test(body)) return 'is one character repeated';
	if (version !== 'V2') return undefined;
	try {
		if (decodeSigningSecret(secret).length < MIN_V2_KEY_BYTES) return `is short: its key has fewer than ${MIN_V2_KEY_BYTES} bytes`;
	} catch {
		return undefined; // secretShapeProblem reports it.
	}
	return undefined;
}

/** Logs a warning when a usable secret looks weak. */
function warnIfWeak(ctx: IHookFunctions, secret: string, version: SignatureVersion, what: string): void {
	const weakness = secretWeakness(secret, version);
	if (weakness === undefined) return;
	ctx.logger.warn(
		`Vault Store Trigger: ${what} ${weakness}. It is used as given and deliveries signed with it verify; if the merchant dashboard shows a longer secret, copy the whole of it.`,
		logContext(ctx),
	);
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

/** Refuses a previous secret that is no secret (blank, a bare prefix; V2: no key); warns when it looks weak. */
export function checkPreviousSecret(ctx: IHookFunctions, previous: string, version: SignatureVersion): void {
	const problem = secretShapeProblem(previous, version);
	if (problem === undefined) return warnIfWeak(ctx, previous, version, `credential field "${PREVIOUS_SECRET_FIELD}"`);
	throw new NodeOperationError(ctx.getNode(), `Credential field "${PREVIOUS_SECRET_FIELD}" ${problem}`, {
		description: `Clear "${PREVIOUS_SECRET_FIELD}", or paste the whole secret being replaced. A blank secret is a key anyone can sign with.`,
	});
}

/**
 * Warns (once per activation) while a previous signing secret is set, and when a secret looks
 * weak; refuses a signing or previous secret that is blank, a bare prefix or (V2) not a key.
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
	const what = source === 'credential' ? `credential field "${SIGNING_SECRET_FIELD}"` : 'the signing secret returned by the service';
	if (problem === undefined) return warnIfWeak(ctx, secret, version, what);
	throw new NodeOperationError(
		ctx.getNode(),
		source === 'credential'
			? `Credential field "${SIGNING_SECRET_FIELD}" ${problem}`
			: `The signing secret returned by the service ${problem}`,
		{ description: 'Copy the signing secret again from the merchant dashboard, the whole of it (for V2 it is base64 after its prefix).' },
	);
}
