import { createHmac, timingSafeEqual } from 'node:crypto';

import { readHeader, readHeaderCopies } from '../shared/headers';

/**
 * Webhook signature verification in the style of the Standard Webhooks reference library (createHmac, timingSafeEqual,
 * keys derived once per verifier): pure, never throws, bounded inputs, reasons without secrets, signatures or header
 * values. One pipeline (headers, digits, window, HMAC, compare) runs a row of SCHEMES. V1 signs no id and its key
 * encoding is not documented: the secret's UTF-8 bytes and its decoded whsec_ form are both tried and reported. A V2
 * endpoint takes V2 only; a V1 endpoint also takes V2 (V2 signs strictly more: the endpoint was migrated). With a
 * previous secret, the keys of both are tried.
 */

export type SignatureVersion = 'V1' | 'V2';
export type SigningKeyForm = 'secret-text' | 'decoded-key';
export type SigningSecretSlot = 'current' | 'previous';

/** An endpoint's settings: what a verifier is made from. */
export interface VerifierOptions {
	secret: string;
	previousSecret?: string; // rotation: the secret being replaced; deliveries signed with it are accepted too
	version: SignatureVersion; // the endpoint's configured version
	toleranceSeconds: number; // allowed difference either way between receiver clock and timestamp (s, default 300)
	acceptBodyOnlySignature?: boolean; // V1 only: accept the legacy body-only x-service-signature (default false)
}
export interface Delivery {
	rawBody: Buffer | undefined; // the exact bytes received; undefined => reject
	headers: Record<string, string | string[] | undefined>; // lower-case names as Node gives them; an array counts by its first value
	nowMs: number; // receiver clock (ms)
}

export type VerifyInput = VerifierOptions & Delivery;

/**
 * Accepted: version is the scheme that verified (V2 also for a V2 delivery to a V1 endpoint); id is webhook-id
 * (unsigned for V1; legacy: or x-service-idempotency); timestamp is in seconds; signingKey (V1, legacy): the
 * form of the secret that matched; signingSecret (only when a previous secret was given): which one matched.
 */
export type Verdict =
	| { ok: true; version: SignatureVersion; id: string; timestamp: number; legacy?: boolean;
			signingKey?: SigningKeyForm; signingSecret?: SigningSecretSlot }
	| { ok: false; reason: string };

export const DEFAULT_TOLERANCE_SECONDS = 300;
/** Bounds: longer signature headers, more entries and longer ids (printable ASCII) are rejected. */
export const MAX_SIGNATURE_HEADER_LENGTH = 8192;
export const MAX_SIGNATURE_ENTRIES = 20;
export const MAX_ID_LENGTH = 256;

/** A scheme: the first of idHeaders present carries the id; signedPrefix is signed before the raw body; textKey: the
 * secret's UTF-8 bytes are a key too; unitHint is the reason (configured scheme only) when the timestamp fits the other unit. */
interface Scheme {
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

const SCHEMES: Record<'V2' | 'V1' | 'legacy', Scheme> = {
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
const HEX_DIGEST = /^[0-9a-fA-F]{64}$/;
const V2_ENTRY = /(?:^| )v1,/;
const PLAIN_ID = /^[\x21-\x7e]+$/;
const DIGITS = /^[0-9]{1,15}$/;

const fail = (reason: string): Verdict => ({ ok: false, reason });

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

type Key = { slot: SigningSecretSlot; form: SigningKeyForm; bytes: Buffer };

/** Adds a secret's keys for the scheme (text form: only if the scheme uses it); why it has no decoded key, if so. */
function addKeys(keys: Key[], scheme: Scheme, secret: string, slot: SigningSecretSlot): string | undefined {
	if (scheme.textKey) keys.push({ slot, form: 'secret-text', bytes: Buffer.from(secret, 'utf8') });
	const decoded = decodedKey(secret);
	if (typeof decoded === 'string') return decoded;
	keys.push({ slot, form: 'decoded-key', bytes: decoded });
	return undefined;
}

/** The keys a scheme tries, the current secret's first, or why the current secret gives none. */
function keysOf(scheme: Scheme, options: VerifierOptions): Key[] | string {
	const keys: Key[] = [];
	const problem = addKeys(keys, scheme, options.secret, 'current');
	if (keys.length === 0) return `signing secret is not valid base64 (${problem as string})`;
	if (rotating(options)) addKeys(keys, scheme, options.previousSecret as string, 'previous');
	return keys;
}

const rotating = (options: VerifierOptions): boolean => typeof options.previousSecret === 'string' && options.previousSecret !== '';


/** The signatures a header offers, as text in the scheme's digest encoding (hex in lower case), or why it offers
 * none. They are compared with the expected text: only the canonical spelling matches. */
function offeredSignatures(scheme: Scheme, signature: string): string[] | string {
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
function sign(scheme: Scheme, key: Buffer, id: string, timestamp: string, body: Buffer): string {
	return createHmac('sha256', key)
		.update(scheme.signedPrefix(id, timestamp), 'latin1')
		.update(body)
		.digest(scheme.format === 'hex' ? 'hex' : 'base64');
}

const LEGACY_HEADERS = ['x-service-signature', 'x-service-timestamp', 'x-service-idempotency'];

/**
 * For a V2 endpoint that misses a V2 header: the hint to check the signature version when the
 * delivery carries V1 marks (the legacy X-Service-* headers, or a bare hex webhook-signature).
 */
function v1Hint(scheme: Scheme, headers: Delivery['headers'], configured: boolean): string {
	if (scheme.version !== 'V2' || !configured) return '';
	const legacy = LEGACY_HEADERS.some((name) => readHeader(headers, name) !== undefined);
	const hex = HEX_DIGEST.test(readHeader(headers, 'webhook-signature') ?? '');
	if (!legacy && !hex) return '';
	return `: the delivery looks like V1 (${legacy ? 'legacy X-Service-Signature headers' : 'a bare hex signature'}) but this endpoint is set to V2: check its signature version`;
}

/** The pipeline, for any scheme. `configured` is false for a V2 delivery to a V1 endpoint. */
function verifyWithScheme(scheme: Scheme, keys: Key[] | string, options: VerifierOptions, delivery: Delivery, configured: boolean): Verdict {
	const { headers, nowMs } = delivery;
	if (typeof keys === 'string') return fail(keys);
	const missing = (name: string): Verdict => fail(`missing ${name} header${v1Hint(scheme, headers, configured)}`);
	const idHeader = scheme.idHeaders.find((name) => readHeader(headers, name) !== undefined);
	if (idHeader === undefined) return missing(`${scheme.idHeaders.join(' (or ')}${scheme.idHeaders.length > 1 ? ')' : ''}`);
	const id = readHeader(headers, idHeader) as string;
	const timestamp = readHeader(headers, scheme.timestampHeader);
	if (timestamp === undefined) return missing(scheme.timestampHeader);
	if (id.length > MAX_ID_LENGTH || !PLAIN_ID.test(id)) return fail(`${idHeader} header is malformed`);
	// Every copy of the header (a proxy may repeat it): every entry of each is tried.
	const signature = readHeaderCopies(headers, scheme.signatureHeader);
	if (signature === undefined) return missing(scheme.signatureHeader);
	const offered = offeredSignatures(scheme, signature);
	if (typeof offered === 'string') return fail(offered);
	const unit = scheme.unitMs === 1000 ? 'seconds' : 'milliseconds';
	if (!DIGITS.test(timestamp)) return fail(`${scheme.timestampHeader} header must be whole ${unit} (digits only)`);
	const toleranceMs = (Number.isFinite(options.toleranceSeconds) && options.toleranceSeconds >= 0 ? options.toleranceSeconds : DEFAULT_TOLERANCE_SECONDS) * 1000;
	const timestampMs = Number(timestamp) * scheme.unitMs;
	if (Math.abs(nowMs - timestampMs) > toleranceMs) {
		const fitsOtherUnit = Math.abs(nowMs - Number(timestamp) * (1000 / scheme.unitMs)) <= toleranceMs;
		return fail((configured && fitsOtherUnit && scheme.unitHint) || `${scheme.timestampHeader} is outside the tolerance window`);
	}
	// Every key against every offered text, no early exit: timing does not tell which matched. Texts
	// compare as UTF-8 bytes (latin1 would keep only the low byte of other characters).
	const candidates = offered.map((text) => Buffer.from(text, 'utf8'));
	let matched: Key | undefined;
	for (const key of keys) {
		const expected = Buffer.from(sign(scheme, key.bytes, id, timestamp, delivery.rawBody as Buffer), 'utf8');
		for (const candidate of candidates) {
			if (candidate.length === expected.length && timingSafeEqual(candidate, expected) && matched === undefined) matched = key;
		}
	}
	if (matched === undefined) return fail(scheme.mismatch);
	const verdict: Verdict = { ok: true, version: scheme.version, id, timestamp: Math.floor(timestampMs / 1000) };
	if (scheme.legacy) verdict.legacy = true;
	if (scheme.version === 'V1') verdict.signingKey = matched.form;
	if (rotating(options)) verdict.signingSecret = matched.slot;
	return verdict;
}

/** The scheme a delivery is checked with, or why it cannot be checked. */
function schemeFor(options: VerifierOptions, headers: Delivery['headers']): Scheme | string {
	if (options.version === 'V2') return SCHEMES.V2;
	const signature = readHeader(headers, 'webhook-signature');
	if (signature !== undefined) return signature.length <= MAX_SIGNATURE_HEADER_LENGTH && V2_ENTRY.test(signature) ? SCHEMES.V2 : SCHEMES.V1;
	const legacy = readHeader(headers, 'x-service-signature') !== undefined;
	if (options.acceptBodyOnlySignature === true) return legacy ? SCHEMES.legacy : 'missing webhook-signature header (and no legacy x-service-signature)';
	return `missing webhook-signature header${legacy ? ' (only the legacy body-only x-service-signature is present and it is not accepted)' : ''}`;
}

function inputProblem(options: VerifierOptions, delivery: Delivery): string | undefined {
	if (typeof options !== 'object' || options === null || typeof delivery !== 'object' || delivery === null) return 'invalid verification input';
	const { rawBody, headers, nowMs } = delivery;
	const { secret, version } = options;
	if (version !== 'V1' && version !== 'V2') return 'unknown signature version (expected V1 or V2)';
	if (rawBody === undefined || rawBody === null) return 'raw body unavailable: the exact received bytes are needed to verify';
	if (!(rawBody instanceof Uint8Array)) return 'raw body must be a Buffer of the received bytes';
	if (typeof headers !== 'object' || headers === null) return 'request headers unavailable';
	if (typeof secret !== 'string' || secret.length === 0) return 'signing secret is not configured';
	if (typeof nowMs !== 'number' || !Number.isFinite(nowMs)) return 'receiver clock is invalid';
	return undefined;
}

/** The whole check of one delivery; keysFor gives a scheme's keys. Never throws. */
function verdictFor(options: VerifierOptions, delivery: Delivery, keysFor: (scheme: Scheme) => Key[] | string): Verdict {
	try {
		const problem = inputProblem(options, delivery);
		if (problem !== undefined) return fail(problem);
		const scheme = schemeFor(options, delivery.headers);
		if (typeof scheme === 'string') return fail(scheme);
		const configured = scheme.version === options.version;
		const verdict = verifyWithScheme(scheme, keysFor(scheme), options, delivery, configured);
		if (verdict.ok || configured) return verdict;
		return fail(`signature is in V2 format but did not verify for this V1 endpoint: ${verdict.reason}`);
	} catch {
		return fail('verification failed on unexpected input');
	}
}

/** A verifier for one endpoint, like the reference library's Webhook: a scheme's keys are derived once (at its first
 * delivery, inside verdictFor's guard), each call checks one delivery. Never throws: bad options yield `{ ok: false }`. */
export function createVerifier(options: VerifierOptions): (delivery: Delivery) => Verdict {
	const keys = new Map<Scheme, Key[] | string>();
	const keysFor = (scheme: Scheme): Key[] | string => keys.get(scheme) ?? (keys.set(scheme, keysOf(scheme, options)).get(scheme) as Key[] | string);
	return (delivery) => verdictFor(options, delivery, keysFor);
}

/**
 * Verifies one delivery (headers, id, timestamp window and signature), deriving the keys for it: the trigger's
 * path, n8n calls it once per request.
 */
export function verifyDelivery(input: VerifyInput): Verdict {
	return verdictFor(input, input, (scheme) => keysOf(scheme, input));
}
