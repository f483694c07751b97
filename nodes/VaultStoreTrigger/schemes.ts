import { createHmac } from 'node:crypto';

import type { VerifierOptions } from './verify';

/** The secrets a scheme's keys are derived from (all a key derivation reads of the options). */
type SecretsOf = Pick<VerifierOptions, 'secret' | 'previousSecret'>;

/**
 * The signature schemes the verifier runs (V2, V1 and the legacy body-only one): their headers, the
 * text each signs and its digest encoding, the keys a secret gives for each (derived once per
 * verifier by verify.ts), and the signatures a header offers. Pure, never reveals a secret.
 */

export type SignatureVersion = 'V1' | 'V2';
export type SigningKeyForm = 'secret-text' | 'decoded-key';
export type SigningSecretSlot = 'current' | 'previous';

/** Bounds: longer signature headers and more entries are rejected (longer ids too: verify.ts). */
export const MAX_SIGNATURE_HEADER_LENGTH = 8192;
export const MAX_SIGNATURE_ENTRIES = 20;

/** A scheme: the first of idHeaders present carries the id; signedPrefix is signed before the raw body; textKey: the
 * secret's UTF-8 bytes are a key too; unitHint is the reason (configured scheme only) when the timestamp fits the other unit. */
export interface Scheme {
	version: SignatureVersion; legacy: boolean; format: 'entries' | 'hex'; textKey: boolean;
	idHeaders: string[]; timestampHeader: string; signatureHeader: string; unitMs: 1 | 1000;
	signedPrefix: (id: string, timestamp: string) => string; unitHint?: string; mismatch: string;
}

const V1: Scheme = {
	version: 'V1', legacy: false, format: 'hex', textKey: true, unitMs: 1,
	idHeaders: ['webhook-id'], timestampHeader: 'webhook-timestamp', signatureHeader: 'webhook-signature',
	signedPrefix: (_id, timestamp) => `${timestamp}.`,
	unitHint: 'timestamp looks like seconds: is this endpoint set to V2?',
	mismatch: 'signature did not match (wrong secret, or body or timestamp altered)',
};

export const SCHEMES: Record<'V2' | 'V1' | 'legacy', Scheme> = {
	V2: {
		version: 'V2', legacy: false, format: 'entries', textKey: false, unitMs: 1000,
		idHeaders: ['webhook-id'], timestampHeader: 'webhook-timestamp', signatureHeader: 'webhook-signature',
		signedPrefix: (id, timestamp) => `${id}.${timestamp}.`,
		unitHint: 'timestamp looks like milliseconds: is this endpoint set to V1?',
		mismatch: 'no signature entry matched (wrong secret, or body, id or timestamp altered)',
	},
	V1,
	legacy: {
		...V1, legacy: true, idHeaders: ['webhook-id', 'x-service-idempotency'], timestampHeader: 'x-service-timestamp',
		signatureHeader: 'x-service-signature', signedPrefix: () => '', unitHint: undefined,
		mismatch: 'legacy body-only signature did not match (wrong secret or body altered)',
	},
};

/** base64 symbols, up to two "=" at the end; decodedKey adds the length rule (unpadded, no last group of one symbol; padded, whole groups). */
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
export const HEX_DIGEST = /^[0-9a-fA-F]{64}$/;
export const V2_ENTRY = /(?:^| )v1,/;
/** The decoded key of a secret (base64 after an optional "whsec_"), or why it has none. */
function decodedKey(secret: string): Buffer | string {
	const encoded = secret.startsWith('whsec_') ? secret.slice(6) : secret;
	if (encoded.length === 0) return 'it is empty';
	const lengthFits = encoded.endsWith('=') ? encoded.length % 4 === 0 : encoded.length % 4 !== 1;
	if (lengthFits && BASE64.test(encoded)) return Buffer.from(encoded, 'base64');
	if (/\s/.test(encoded)) return 'it contains whitespace';
	if (/[^A-Za-z0-9+/=]/.test(encoded)) return 'it contains characters outside the base64 alphabet';
	return 'wrong length or padding';
}

/** The V2 key: base64 (padding optional) after an optional "whsec_". Errors never contain the secret. */
export function decodeSigningSecret(secret: string): Buffer {
	if (typeof secret !== 'string') throw new Error('Signing secret must be a string');
	const key = decodedKey(secret);
	if (key === 'it is empty') throw new Error('Signing secret is empty');
	if (typeof key !== 'string') return key;
	throw new Error(`Signing secret is not valid base64 (${key}); expected the value shown by the service, optionally prefixed with "whsec_"`);
}

export type Key = { slot: SigningSecretSlot; form: SigningKeyForm; bytes: Buffer };

/** Adds a secret's keys for the scheme (text form: only if the scheme uses it); why it has no decoded key, if so. */
function addKeys(keys: Key[], scheme: Scheme, secret: string, slot: SigningSecretSlot): string | undefined {
	if (scheme.textKey) keys.push({ slot, form: 'secret-text', bytes: Buffer.from(secret, 'utf8') });
	const decoded = decodedKey(secret);
	if (typeof decoded === 'string') return decoded;
	keys.push({ slot, form: 'decoded-key', bytes: decoded });
	return undefined;
}

/** The keys a scheme tries, the current secret's first, or why the current secret gives none. */
export function keysOf(scheme: Scheme, options: SecretsOf): Key[] | string {
	const keys: Key[] = [];
	const problem = addKeys(keys, scheme, options.secret, 'current');
	if (keys.length === 0) return `signing secret is not valid base64 (${problem as string})`;
	if (rotating(options)) addKeys(keys, scheme, options.previousSecret as string, 'previous');
	return keys;
}

export const rotating = (options: SecretsOf): boolean => typeof options.previousSecret === 'string' && options.previousSecret !== '';

/** The signatures a header offers, as text in the scheme's digest encoding (hex in lower case), or why it offers
 * none. They are compared with the expected text: only the canonical spelling matches. */
export function offeredSignatures(scheme: Scheme, signature: string): string[] | string {
	const name = scheme.signatureHeader;
	if (signature.length > MAX_SIGNATURE_HEADER_LENGTH) return `${name} header is too large`;
	if (scheme.format === 'hex') {
		// Copies of the header joined by ", ": each must be a digest.
		const copies = signature.split(',').map((copy, i) => (i > 0 && copy.startsWith(' ') ? copy.slice(1) : copy));
		if (copies.length <= MAX_SIGNATURE_ENTRIES && copies.every((copy) => HEX_DIGEST.test(copy))) return copies.map((copy) => copy.toLowerCase());
		return `${name} header must be 64 hex digits (lower-case hex as the service sends it; upper case is accepted too)`;
	}
	// Entries are separated by spaces; copies of the header joined by ", " leave a comma at the
	// end of an entry (an entry's own comma follows its "v1").
	const entries = signature
		.split(' ')
		.filter((entry) => entry !== '')
		.map((entry) => (entry.endsWith(',') && entry.length > 3 ? entry.slice(0, -1) : entry));
	if (entries.length > MAX_SIGNATURE_ENTRIES) return `${name} header has too many entries`;
	const v1 = entries.filter((entry) => entry.startsWith('v1,')).map((entry) => entry.slice(3));
	if (v1.length === 0 && HEX_DIGEST.test(signature)) {
		return 'signature is bare hex (V1 format) but this endpoint is set to V2: check its signature version';
	}
	if (v1.length === 0) return `${name} header has no v1 entries`;
	return v1;
}

/**
 * The signature of one delivery under one key, as the reference library's sign() computes it: HMAC-SHA256 over the
 * scheme's signed prefix (V2 `id.timestamp.`, V1 `timestamp.`, legacy nothing) and the raw body, in the scheme's
 * digest encoding (V2 base64, without the `v1,` of the header entry; V1 lower-case hex).
 */
export function sign(scheme: Scheme, key: Buffer, id: string, timestamp: string, body: Buffer): string {
	return createHmac('sha256', key)
		.update(scheme.signedPrefix(id, timestamp), 'latin1')
		.update(body)
		.digest(scheme.format === 'hex' ? 'hex' : 'base64');
}
