import { timingSafeEqual } from 'node:crypto';

import { readHeader, readHeaderCopies } from '../shared/headers';
import { rememberLast } from '../shared/lastCall';
import type { Key, Scheme, SignatureVersion, SigningKeyForm, SigningSecretSlot } from './schemes';
import { HEX_DIGEST, keysOf, MAX_SIGNATURE_HEADER_LENGTH, offeredSignatures, rotating, SCHEMES, sign, V2_ENTRY } from './schemes';

export type { SignatureVersion, SigningKeyForm, SigningSecretSlot } from './schemes';
export { decodeSigningSecret, MAX_SIGNATURE_ENTRIES, MAX_SIGNATURE_HEADER_LENGTH } from './schemes';

/**
 * Webhook signature verification in the style of the Standard Webhooks reference library (createHmac, timingSafeEqual,
 * keys derived once per verifier): pure, never throws, bounded inputs, reasons without secrets, signatures or header
 * values. One pipeline (headers, digits, window, HMAC, compare) runs a row of SCHEMES. V1 signs no id and its key
 * encoding is not documented: the secret's UTF-8 bytes and its decoded whsec_ form are both tried and reported. A V2
 * endpoint takes V2 only; a V1 endpoint also takes V2 (V2 signs strictly more: the endpoint was migrated). With a
 * previous secret, the keys of both are tried.
 */

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
/** Longer ids (printable ASCII) are rejected, as are longer signature headers and more entries (schemes.ts). */
export const MAX_ID_LENGTH = 256;

const fail = (reason: string): Verdict => ({ ok: false, reason });
const PLAIN_ID = /^[\x21-\x7e]+$/;
const DIGITS = /^[0-9]{1,15}$/;
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
	return verdictFor(input, input, (scheme) => lastKeysOf(scheme, input));
}

/**
 * The keys of the last secrets each scheme verified with (one entry per scheme: bounded), so that
 * deliveries to an endpoint whose credential has not changed do not derive them again. Keys are
 * derived from the secrets alone; a changed secret makes them again.
 */
const lastKeys = new Map<Scheme, (secret: string, previousSecret: string | undefined) => Key[] | string>();

function lastKeysOf(scheme: Scheme, options: VerifierOptions): Key[] | string {
	let keysFor = lastKeys.get(scheme);
	if (keysFor === undefined) {
		keysFor = rememberLast((secret: string, previousSecret: string | undefined) => keysOf(scheme, { secret, previousSecret }));
		lastKeys.set(scheme, keysFor);
	}
	return keysFor(options.secret, options.previousSecret);
}
