import { createHash, createHmac, hash, timingSafeEqual } from 'node:crypto';

/**
 * Webhook signature verification for Vault & Store deliveries.
 *
 * A pure function: raw bytes, headers, secret and clock in; a verdict out. It never
 * throws and its failure reasons never contain the secret, a signature or a header
 * value, so they are safe to log or return to the caller.
 *
 * V2 (Standard Webhooks v1 scheme):
 *   webhook-id, webhook-timestamp (seconds), webhook-signature ("v1,<base64>" entries,
 *   space separated, any matching entry accepts: key rotation). Signed content is
 *   `<id>.<timestamp>.<raw body bytes>`, HMAC-SHA256 keyed with the base64-decoded
 *   secret (optional "whsec_" prefix).
 *
 * V1 (deprecated):
 *   webhook-signature is a bare lower-case hex HMAC-SHA256 of `<timestamp>.<raw body>`,
 *   webhook-timestamp is in milliseconds, the key is the secret's UTF-8 bytes (the
 *   spec does not show the key encoding; this is inferred). The webhook-id header is
 *   NOT covered by the V1 signature, so the id reported for V1 is unauthenticated.
 *   Optionally (acceptBodyOnlySignature) the legacy x-service-signature (hex HMAC of
 *   the body only) with x-service-timestamp (ms, unsigned) is accepted when the
 *   standard header is absent; such verdicts carry `legacy: true`.
 *
 * The endpoint's configured version is authoritative: a delivery in the other format
 * is rejected, with a reason that points at the version mismatch.
 */

export type SignatureVersion = 'V1' | 'V2';

export interface VerifyInput {
	/** Exact bytes received; undefined => reject. */
	rawBody: Buffer | undefined;
	/** Lower-case header names as Node gives them; arrays use their first value. */
	headers: Record<string, string | string[] | undefined>;
	/** The store's signing secret. */
	secret: string;
	/** The endpoint's configured version: authoritative. */
	version: SignatureVersion;
	/** Receiver clock, milliseconds since the epoch. */
	nowMs: number;
	/** Allowed clock difference either way, default 300. */
	toleranceSeconds: number;
	/** V1 only: accept the legacy body-only x-service-signature. Default false. */
	acceptBodyOnlySignature?: boolean;
}

export type Verdict =
	| {
			ok: true;
			version: SignatureVersion;
			/** webhook-id (V1: unauthenticated; legacy: webhook-id or x-service-idempotency). */
			id: string;
			/** Delivery timestamp in seconds (V1 milliseconds are floored to seconds). */
			timestamp: number;
			legacy?: boolean;
	  }
	| { ok: false; reason: string };

// Limits (module constants: the hot path reads them without going through exports).
const MAX_HEADER = 8192;
const MAX_ENTRIES = 20;
const MAX_ID = 256;

export const DEFAULT_TOLERANCE_SECONDS = 300;
/** Signature headers longer than this (in characters) are rejected before parsing. */
export const MAX_SIGNATURE_HEADER_LENGTH = MAX_HEADER;
/** More space-separated signature entries than this are rejected. */
export const MAX_SIGNATURE_ENTRIES = MAX_ENTRIES;
/** Longest accepted webhook-id (printable ASCII, no space). */
export const MAX_ID_LENGTH = MAX_ID;

const WHSEC_PREFIX = 'whsec_';
const DIGEST_BYTES = 32;

/** Lower-case hex of exactly 32 bytes (V1). */
const HEX_DIGEST_PATTERN = /^[0-9a-f]{64}$/;
/** Strict padded base64 (signing secrets). */
const BASE64_PATTERN = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** Looks like a V2 header: some entry starts with "v1,". */
const V2_ENTRY_PATTERN = /(?:^| )v1,/;

/** Length of canonical padded base64 of 32 bytes. */
const BASE64_DIGEST_LENGTH = 44;
const CHAR_SPACE = 0x20;
const CHAR_V = 0x76;
const CHAR_1 = 0x31;
const CHAR_COMMA = 0x2c;
const CHAR_EQUALS = 0x3d;

/** base64 symbol -> value, -1 outside the alphabet (ASCII only). */
const BASE64_VALUES = new Int8Array(128).fill(-1);
{
	const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
	for (let i = 0; i < alphabet.length; i++) {
		BASE64_VALUES[alphabet.charCodeAt(i)] = i;
	}
}

/**
 * Scratch space for one decoded candidate. Verification is synchronous, so one
 * buffer per module is enough and spares an allocation per entry.
 */
const candidateBytes = Buffer.alloc(DIGEST_BYTES);

function fail(reason: string): Verdict {
	return { ok: false, reason };
}

/**
 * The V2 HMAC key: base64 after an optional "whsec_" prefix. Strict: characters
 * outside the base64 alphabet, missing or wrong padding, and empty keys throw. The
 * error message never contains the secret.
 */
export function decodeSigningSecret(secret: string): Buffer {
	if (typeof secret !== 'string') {
		throw new Error('Signing secret must be a string');
	}
	const encoded = secret.startsWith(WHSEC_PREFIX) ? secret.slice(WHSEC_PREFIX.length) : secret;
	if (encoded.length === 0) {
		throw new Error('Signing secret is empty');
	}
	if (!BASE64_PATTERN.test(encoded)) {
		let detail = 'wrong length or padding';
		if (/\s/.test(encoded)) {
			detail = 'it contains whitespace';
		} else if (/[^A-Za-z0-9+/=]/.test(encoded)) {
			detail = 'it contains characters outside the base64 alphabet';
		}
		throw new Error(
			`Signing secret is not valid base64 (${detail}); expected the value shown by the service, optionally prefixed with "whsec_"`,
		);
	}
	const key = Buffer.from(encoded, 'base64');
	if (key.length === 0) {
		throw new Error('Signing secret is empty');
	}
	return key;
}

/**
 * An HMAC-SHA256 key ready for use: the raw key for streaming, and the RFC 2104 pads
 * for the one-shot path used with small bodies.
 */
interface PreparedKey {
	key: Buffer;
	/** K0 xor ipad (64 bytes). */
	innerPad: Buffer;
	/** K0 xor opad (64 bytes) followed by room for the inner digest (32 bytes). */
	outerBlock: Buffer;
}

const SHA256_BLOCK = 64;

function prepareKey(key: Buffer): PreparedKey {
	// RFC 2104: keys longer than the block are hashed first, then zero padded.
	const k0 = Buffer.alloc(SHA256_BLOCK);
	(key.length > SHA256_BLOCK ? createHash('sha256').update(key).digest() : key).copy(k0);
	const innerPad = Buffer.alloc(SHA256_BLOCK);
	const outerBlock = Buffer.alloc(SHA256_BLOCK + DIGEST_BYTES);
	for (let i = 0; i < SHA256_BLOCK; i++) {
		innerPad[i] = k0[i] ^ 0x36;
		outerBlock[i] = k0[i] ^ 0x5c;
	}
	return { key, innerPad, outerBlock };
}

// Tiny memo of the last prepared secrets: a trigger verifies many deliveries with the
// same secret, and decoding it on every call would be wasted work.
let v2MemoSecret: string | undefined;
let v2MemoKey: PreparedKey | undefined;
let v2MemoError: string | undefined;
let v1MemoSecret: string | undefined;
let v1MemoKey: PreparedKey | undefined;

function v2Key(secret: string): PreparedKey | string {
	if (secret !== v2MemoSecret) {
		v2MemoKey = undefined;
		v2MemoError = undefined;
		try {
			v2MemoKey = prepareKey(decodeSigningSecret(secret));
		} catch (error) {
			v2MemoError = error instanceof Error ? error.message : 'Signing secret is not valid';
		}
		v2MemoSecret = secret;
	}
	return v2MemoKey ?? (v2MemoError as string);
}

function v1Key(secret: string): PreparedKey {
	if (secret !== v1MemoSecret || v1MemoKey === undefined) {
		v1MemoKey = prepareKey(Buffer.from(secret, 'utf8'));
		v1MemoSecret = secret;
	}
	return v1MemoKey;
}

/**
 * Bodies up to this size are hashed with Node's one-shot `crypto.hash` over
 * `(K0 xor ipad) || prefix || body` assembled in a reusable scratch buffer: creating
 * an Hmac object costs more than copying a few KiB (at 256 B this path is about twice
 * as fast). Larger bodies are streamed through `createHmac` without any copy.
 */
const ONE_SHOT_MAX_BODY = 16384;
/** The prefix is `<id>.<timestamp>.`: at most MAX_ID + 15 digits + 2 dots. */
const MAX_PREFIX = 512;
const oneShotHash = typeof hash === 'function' ? hash : undefined;
let oneShotScratch: Buffer | undefined;
/** The last computed digest (one-shot path); verification is synchronous. */
const digestBytes = Buffer.alloc(DIGEST_BYTES);

/** HMAC-SHA256 of `prefix || body`; prefix must be ASCII. */
function hmacSha256(prepared: PreparedKey, prefix: string, body: Uint8Array): Buffer {
	if (oneShotHash !== undefined && body.length <= ONE_SHOT_MAX_BODY && prefix.length <= MAX_PREFIX) {
		if (oneShotScratch === undefined) {
			oneShotScratch = Buffer.alloc(SHA256_BLOCK + MAX_PREFIX + ONE_SHOT_MAX_BODY);
		}
		const scratch = oneShotScratch;
		scratch.set(prepared.innerPad, 0);
		const prefixLength = scratch.write(prefix, SHA256_BLOCK, 'latin1');
		scratch.set(body, SHA256_BLOCK + prefixLength);
		const end = SHA256_BLOCK + prefixLength + body.length;
		const inner = oneShotHash('sha256', scratch.subarray(0, end), 'binary');
		// Leave neither key material nor the body behind in the shared buffer.
		scratch.fill(0, 0, end);
		prepared.outerBlock.write(inner, SHA256_BLOCK, 'latin1');
		digestBytes.write(oneShotHash('sha256', prepared.outerBlock, 'binary'), 0, 'latin1');
		return digestBytes;
	}
	return createHmac('sha256', prepared.key).update(prefix, 'latin1').update(body).digest();
}

function header(headers: VerifyInput['headers'], name: string): string | undefined {
	const value: unknown = headers[name];
	if (typeof value === 'string') {
		return value.length > 0 ? value : undefined;
	}
	if (Array.isArray(value) && value.length > 0 && typeof value[0] === 'string') {
		return value[0].length > 0 ? value[0] : undefined;
	}
	return undefined;
}

/** Ids are plain tokens (msg_..., whk_.../job): printable ASCII, no space, bounded. */
function isValidId(id: string): boolean {
	const length = id.length;
	if (length > MAX_ID) {
		return false;
	}
	for (let i = 0; i < length; i++) {
		const code = id.charCodeAt(i);
		if (code < 0x21 || code > 0x7e) {
			return false;
		}
	}
	return true;
}

/** Digits only (no sign, space or decimal point), 1 to 15 of them; -1 otherwise. */
function parseDigits(text: string): number {
	const length = text.length;
	if (length === 0 || length > 15) {
		return -1;
	}
	let value = 0;
	for (let i = 0; i < length; i++) {
		const digit = text.charCodeAt(i) - 0x30;
		if (digit < 0 || digit > 9) {
			return -1;
		}
		value = value * 10 + digit;
	}
	return value;
}

function withinWindow(timestampMs: number, nowMs: number, toleranceMs: number): boolean {
	const delta = nowMs - timestampMs;
	return delta <= toleranceMs && delta >= -toleranceMs;
}

/**
 * Decodes the 44 symbols at text[start..start+44) as canonical padded base64 of 32
 * bytes into `out`. Anything else (other symbols, missing '=', non-zero trailing
 * bits that a lenient decoder would drop) is not a match: false.
 */
function decodeBase64Digest(text: string, start: number, out: Buffer): boolean {
	let o = 0;
	for (let i = start; i < start + 40; i += 4) {
		const a = text.charCodeAt(i);
		const b = text.charCodeAt(i + 1);
		const c = text.charCodeAt(i + 2);
		const d = text.charCodeAt(i + 3);
		if ((a | b | c | d) > 0x7f) {
			return false;
		}
		const word =
			(BASE64_VALUES[a] << 18) | (BASE64_VALUES[b] << 12) | (BASE64_VALUES[c] << 6) | BASE64_VALUES[d];
		if (word < 0) {
			return false;
		}
		out[o++] = word >>> 16;
		out[o++] = (word >>> 8) & 0xff;
		out[o++] = word & 0xff;
	}
	const a = text.charCodeAt(start + 40);
	const b = text.charCodeAt(start + 41);
	const c = text.charCodeAt(start + 42);
	if ((a | b | c) > 0x7f || text.charCodeAt(start + 43) !== CHAR_EQUALS) {
		return false;
	}
	const va = BASE64_VALUES[a];
	const vb = BASE64_VALUES[b];
	const vc = BASE64_VALUES[c];
	if ((va | vb | vc) < 0 || (vc & 0x03) !== 0) {
		return false;
	}
	out[o++] = (va << 2) | (vb >>> 4);
	out[o] = ((vb & 0x0f) << 4) | (vc >>> 2);
	return true;
}

/**
 * Verifies one delivery. Never throws: any unexpected input yields `{ ok: false }`.
 */
export function verifySignature(input: VerifyInput): Verdict {
	try {
		if (typeof input !== 'object' || input === null) {
			return fail('invalid verification input');
		}
		const { rawBody, headers, secret, version, nowMs } = input;
		if (version !== 'V1' && version !== 'V2') {
			return fail('unknown signature version (expected V1 or V2)');
		}
		if (rawBody === undefined || rawBody === null) {
			return fail('raw body unavailable: the exact received bytes are needed to verify');
		}
		if (!(rawBody instanceof Uint8Array)) {
			return fail('raw body must be a Buffer of the received bytes');
		}
		if (typeof headers !== 'object' || headers === null) {
			return fail('request headers unavailable');
		}
		if (typeof secret !== 'string' || secret.length === 0) {
			return fail('signing secret is not configured');
		}
		if (typeof nowMs !== 'number' || !Number.isFinite(nowMs)) {
			return fail('receiver clock is invalid');
		}
		const tolerance = input.toleranceSeconds;
		const toleranceMs =
			(typeof tolerance === 'number' && Number.isFinite(tolerance) && tolerance >= 0
				? tolerance
				: DEFAULT_TOLERANCE_SECONDS) * 1000;
		if (version === 'V2') {
			return verifyV2(rawBody, headers, secret, nowMs, toleranceMs);
		}
		return verifyV1(rawBody, headers, secret, nowMs, toleranceMs, input.acceptBodyOnlySignature === true);
	} catch {
		return fail('verification failed on unexpected input');
	}
}

/** The id and timestamp headers both versions need, or why they are unusable. */
function idAndTimestamp(headers: VerifyInput['headers']): { id: string; timestamp: string } | Verdict {
	const id = header(headers, 'webhook-id');
	if (id === undefined) {
		return fail('missing webhook-id header');
	}
	const timestamp = header(headers, 'webhook-timestamp');
	if (timestamp === undefined) {
		return fail('missing webhook-timestamp header');
	}
	if (!isValidId(id)) {
		return fail('webhook-id header is malformed');
	}
	return { id, timestamp };
}

function verifyV2(
	rawBody: Uint8Array,
	headers: VerifyInput['headers'],
	secret: string,
	nowMs: number,
	toleranceMs: number,
): Verdict {
	const key = v2Key(secret);
	if (typeof key === 'string') {
		return fail(key);
	}
	const delivery = idAndTimestamp(headers);
	if ('ok' in delivery) {
		return delivery;
	}
	const { id, timestamp } = delivery;
	const signature = header(headers, 'webhook-signature');
	if (signature === undefined) {
		return fail('missing webhook-signature header');
	}
	const length = signature.length;
	if (length > MAX_HEADER) {
		return fail('webhook-signature header is too large');
	}

	// Entries are separated by spaces; empty tokens and other versions are ignored.
	// Record where the "v1," entries of the right size start (at most MAX_ENTRIES).
	const candidates: number[] = [];
	let entries = 0;
	let v1Entries = 0;
	let position = 0;
	while (position < length) {
		if (signature.charCodeAt(position) === CHAR_SPACE) {
			position++;
			continue;
		}
		let end = signature.indexOf(' ', position);
		if (end === -1) {
			end = length;
		}
		if (++entries > MAX_ENTRIES) {
			return fail('webhook-signature header has too many entries');
		}
		if (
			signature.charCodeAt(position) === CHAR_V &&
			signature.charCodeAt(position + 1) === CHAR_1 &&
			signature.charCodeAt(position + 2) === CHAR_COMMA
		) {
			v1Entries++;
			if (end - position - 3 === BASE64_DIGEST_LENGTH) {
				candidates.push(position + 3);
			}
		}
		position = end;
	}
	if (v1Entries === 0) {
		if (HEX_DIGEST_PATTERN.test(signature)) {
			return fail('signature is bare hex (V1 format) but this endpoint is set to V2: check its signature version');
		}
		return fail('webhook-signature header has no v1 entries');
	}

	const seconds = parseDigits(timestamp);
	if (seconds < 0) {
		return fail('webhook-timestamp header must be whole seconds (digits only)');
	}
	if (!withinWindow(seconds * 1000, nowMs, toleranceMs)) {
		if (withinWindow(seconds, nowMs, toleranceMs)) {
			return fail('timestamp looks like milliseconds: is this endpoint set to V1?');
		}
		return fail('webhook-timestamp is outside the tolerance window');
	}

	// id is printable ASCII and timestamp digits: latin1 is their exact byte form.
	const digest = hmacSha256(key, `${id}.${timestamp}.`, rawBody);
	for (let i = 0; i < candidates.length; i++) {
		if (
			decodeBase64Digest(signature, candidates[i], candidateBytes) &&
			timingSafeEqual(candidateBytes, digest)
		) {
			return { ok: true, version: 'V2', id, timestamp: seconds };
		}
	}
	return fail('no signature entry matched (wrong secret, or body, id or timestamp altered)');
}

function verifyV1(
	rawBody: Uint8Array,
	headers: VerifyInput['headers'],
	secret: string,
	nowMs: number,
	toleranceMs: number,
	acceptBodyOnly: boolean,
): Verdict {
	const signature = header(headers, 'webhook-signature');
	if (signature === undefined) {
		if (acceptBodyOnly) {
			return verifyLegacy(rawBody, headers, secret, nowMs, toleranceMs);
		}
		if (header(headers, 'x-service-signature') !== undefined) {
			return fail(
				'missing webhook-signature header (only the legacy body-only x-service-signature is present and it is not accepted)',
			);
		}
		return fail('missing webhook-signature header');
	}
	const delivery = idAndTimestamp(headers);
	if ('ok' in delivery) {
		return delivery;
	}
	const { id, timestamp } = delivery;
	if (signature.length > MAX_HEADER) {
		return fail('webhook-signature header is too large');
	}
	if (!HEX_DIGEST_PATTERN.test(signature)) {
		if (V2_ENTRY_PATTERN.test(signature)) {
			return fail('signature has v1, entries (V2 format) but this endpoint is set to V1: check its signature version');
		}
		return fail('webhook-signature header must be a lower-case hex digest for V1');
	}
	const millis = parseDigits(timestamp);
	if (millis < 0) {
		return fail('webhook-timestamp header must be whole milliseconds (digits only)');
	}
	if (!withinWindow(millis, nowMs, toleranceMs)) {
		if (withinWindow(millis * 1000, nowMs, toleranceMs)) {
			return fail('timestamp looks like seconds: is this endpoint set to V2?');
		}
		return fail('webhook-timestamp is outside the tolerance window');
	}
	const digest = hmacSha256(v1Key(secret), `${timestamp}.`, rawBody);
	if (!timingSafeEqual(Buffer.from(signature, 'hex'), digest)) {
		return fail('signature did not match (wrong secret, or body or timestamp altered)');
	}
	return { ok: true, version: 'V1', id, timestamp: Math.floor(millis / 1000) };
}

function verifyLegacy(
	rawBody: Uint8Array,
	headers: VerifyInput['headers'],
	secret: string,
	nowMs: number,
	toleranceMs: number,
): Verdict {
	const signature = header(headers, 'x-service-signature');
	if (signature === undefined) {
		return fail('missing webhook-signature header (and no legacy x-service-signature)');
	}
	const timestamp = header(headers, 'x-service-timestamp');
	if (timestamp === undefined) {
		return fail('missing x-service-timestamp header');
	}
	const id = header(headers, 'webhook-id') ?? header(headers, 'x-service-idempotency');
	if (id === undefined) {
		return fail('missing webhook-id (or x-service-idempotency) header');
	}
	if (!isValidId(id)) {
		return fail('webhook-id header is malformed');
	}
	if (signature.length > MAX_HEADER || !HEX_DIGEST_PATTERN.test(signature)) {
		return fail('x-service-signature header must be a lower-case hex digest');
	}
	const millis = parseDigits(timestamp);
	if (millis < 0) {
		return fail('x-service-timestamp header must be whole milliseconds (digits only)');
	}
	if (!withinWindow(millis, nowMs, toleranceMs)) {
		return fail('x-service-timestamp is outside the tolerance window');
	}
	const digest = hmacSha256(v1Key(secret), '', rawBody);
	if (!timingSafeEqual(Buffer.from(signature, 'hex'), digest)) {
		return fail('legacy body-only signature did not match (wrong secret or body altered)');
	}
	return { ok: true, version: 'V1', id, timestamp: Math.floor(millis / 1000), legacy: true };
}
