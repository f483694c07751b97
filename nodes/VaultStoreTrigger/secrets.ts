import { createHmac } from 'node:crypto';

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
