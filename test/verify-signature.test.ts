import { hmac } from '@noble/hashes/hmac';
import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex } from '@noble/hashes/utils';

import { SeenIds } from '../nodes/VaultStoreTrigger/duplicates';
import {
	decodeSigningSecret,
	verifyDelivery,
	type Verdict,
	type VerifyInput,
} from '../nodes/VaultStoreTrigger/verify';

jest.setTimeout(60000);

// Signatures in these tests come from @noble/hashes (pure JS), independent of the
// node:crypto code under test.

type Headers = VerifyInput['headers'];

function concatBytes(...parts: Uint8Array[]): Uint8Array {
	const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
	let offset = 0;
	for (const part of parts) {
		out.set(part, offset);
		offset += part.length;
	}
	return out;
}

const ascii = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'latin1'));

function b64(bytes: Uint8Array): string {
	return Buffer.from(bytes).toString('base64');
}

/** Standard Webhooks signature entry: v1,base64(HMAC(key, id.ts.body)). */
function signV2(key: Uint8Array, id: string, timestamp: string, body: Uint8Array): string {
	return `v1,${b64(hmac(sha256, key, concatBytes(ascii(`${id}.${timestamp}.`), body)))}`;
}

/** V1: hex(HMAC(utf8(secret), ts.body)). */
function signV1(secret: string, timestamp: string, body: Uint8Array): string {
	return bytesToHex(hmac(sha256, new TextEncoder().encode(secret), concatBytes(ascii(`${timestamp}.`), body)));
}

/** Legacy X-Service-Signature: hex(HMAC(utf8(secret), body)). */
function signLegacy(secret: string, body: Uint8Array): string {
	return bytesToHex(hmac(sha256, new TextEncoder().encode(secret), body));
}

// Reasons must never carry secrets or signatures: every rejection seen in this file
// is checked against every secret and signature used.
const secretsUsed = new Set<string>();
const signaturesUsed = new Set<string>();
const reasonsSeen: string[] = [];

function verify(input: Partial<VerifyInput> & Pick<VerifyInput, 'secret' | 'version'>): Verdict {
	secretsUsed.add(input.secret);
	const verdict = verifyDelivery({
		rawBody: undefined,
		headers: {},
		nowMs: 0,
		toleranceSeconds: 300,
		...input,
	} as VerifyInput);
	if (!verdict.ok) {
		reasonsSeen.push(verdict.reason);
	}
	return verdict;
}

function expectReject(verdict: Verdict, reason?: RegExp): void {
	expect(verdict.ok).toBe(false);
	if (!verdict.ok && reason) {
		expect(verdict.reason).toMatch(reason);
	}
}

// Known answers from the Standard Webhooks test suites.
const VECTORS = [
	{
		secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
		id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
		timestamp: '1614265330',
		body: '{"test": 2432232314}',
		signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
	},
	{
		secret: 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD',
		id: 'msg_27UH4WbU6Z5A5EzD8u03UvzRbpk',
		timestamp: '1649367553',
		body: '{"email":"test@example.com","username":"test_user"}',
		signature: 'v1,tZ1I4/hDygAJgO5TYxiSd6Sd0kDW6hPenDe+bTa3Kkw=',
	},
];
for (const v of VECTORS) signaturesUsed.add(v.signature.slice(3));

const V = VECTORS[0];
const V_NOW = Number(V.timestamp) * 1000;
const V_BODY = Buffer.from(V.body);

function v2Headers(overrides: Record<string, string | string[] | undefined> = {}): Headers {
	return {
		'webhook-id': V.id,
		'webhook-timestamp': V.timestamp,
		'webhook-signature': V.signature,
		...overrides,
	};
}

function verifyV(headers: Headers, body: Buffer | undefined = V_BODY, nowMs = V_NOW): Verdict {
	return verify({ rawBody: body, headers, secret: V.secret, version: 'V2', nowMs });
}

/** Signs a V2 delivery for the first vector's key with arbitrary id/timestamp/body. */
function v2Delivery(id: string, timestamp: string, body: Uint8Array): Headers {
	const signature = signV2(decodeSigningSecret(V.secret), id, timestamp, body);
	signaturesUsed.add(signature.slice(3));
	return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signature };
}

describe('V2 known answers (Standard Webhooks)', () => {
	it.each(VECTORS)('accepts $id at its own time, and rejects it with one body byte changed', (vector) => {
		// The independent signer agrees with the published answer.
		expect(signV2(decodeSigningSecret(vector.secret), vector.id, vector.timestamp, ascii(vector.body))).toBe(
			vector.signature,
		);
		const run = (body: Buffer): Verdict =>
			verify({
				rawBody: body,
				headers: {
					'webhook-id': vector.id,
					'webhook-timestamp': vector.timestamp,
					'webhook-signature': vector.signature,
				},
				secret: vector.secret,
				version: 'V2',
				nowMs: Number(vector.timestamp) * 1000,
			});
		expect(run(Buffer.from(vector.body))).toEqual({
			ok: true,
			version: 'V2',
			id: vector.id,
			timestamp: Number(vector.timestamp),
		});
		const altered = Buffer.from(vector.body);
		altered[altered.length - 2] ^= 0x01;
		expectReject(run(altered), /no signature entry matched/);
	});

	it('accepts a secret given without the whsec_ prefix', () => {
		const verdict = verify({
			rawBody: V_BODY,
			headers: v2Headers(),
			secret: V.secret.slice('whsec_'.length),
			version: 'V2',
			nowMs: V_NOW,
		});
		expect(verdict.ok).toBe(true);
		const wrong = verify({
			rawBody: V_BODY,
			headers: v2Headers(),
			secret: VECTORS[1].secret.slice('whsec_'.length),
			version: 'V2',
			nowMs: V_NOW,
		});
		expectReject(wrong, /no signature entry matched/);
	});

	it('rejects the other vector\'s signature for this delivery', () => {
		expectReject(verifyV(v2Headers({ 'webhook-signature': VECTORS[1].signature })), /no signature entry matched/);
	});
});

describe('V2 rejections', () => {
	it('rejects one changed body byte, at every position', () => {
		expect(verifyV(v2Headers()).ok).toBe(true);
		for (let i = 0; i < V_BODY.length; i++) {
			const body = Buffer.from(V_BODY);
			body[i] ^= 0x01;
			expectReject(verifyV(v2Headers(), body), /no signature entry matched/);
		}
	});

	it('rejects an appended or removed body byte', () => {
		expectReject(verifyV(v2Headers(), Buffer.concat([V_BODY, Buffer.from(' ')])));
		expectReject(verifyV(v2Headers(), V_BODY.subarray(0, V_BODY.length - 1)));
	});

	it('rejects a wrong secret', () => {
		const verdict = verify({
			rawBody: V_BODY,
			headers: v2Headers(),
			secret: VECTORS[1].secret,
			version: 'V2',
			nowMs: V_NOW,
		});
		expectReject(verdict, /no signature entry matched/);
	});

	it('rejects a changed id or timestamp (both are signed)', () => {
		expectReject(verifyV(v2Headers({ 'webhook-id': `${V.id}x` })));
		expectReject(verifyV(v2Headers({ 'webhook-timestamp': String(Number(V.timestamp) + 1) })));
	});

	it('accepts the edges of the 300 s window and rejects 301 s either way', () => {
		expect(verifyV(v2Headers(), V_BODY, V_NOW + 300_000).ok).toBe(true);
		expect(verifyV(v2Headers(), V_BODY, V_NOW - 300_000).ok).toBe(true);
		expectReject(verifyV(v2Headers(), V_BODY, V_NOW + 301_000), /outside the tolerance window/);
		expectReject(verifyV(v2Headers(), V_BODY, V_NOW - 301_000), /outside the tolerance window/);
	});

	it('honours a custom tolerance', () => {
		const at = (nowMs: number): boolean =>
			verify({ rawBody: V_BODY, headers: v2Headers(), secret: V.secret, version: 'V2', nowMs, toleranceSeconds: 10 })
				.ok;
		expect(at(V_NOW + 10_000)).toBe(true);
		expect(at(V_NOW + 11_000)).toBe(false);
	});

	it('rejects a timestamp in milliseconds, hinting at V1', () => {
		const ms = String(Number(V.timestamp) * 1000);
		// Correctly signed over the millisecond string, so only the window can reject it.
		expectReject(verifyV(v2Delivery(V.id, ms, V_BODY)), /looks like milliseconds.*V1/);
	});

	it.each(['1614265330.0', '+1614265330', '-1614265330', ' 1614265330', '1614265330 ', '1.6e9', '0x603', 'abc', '１６１４２６５３３０', '1614265330000000000'])(
		'rejects the non-digit or oversized timestamp %p even when correctly signed',
		(timestamp) => {
			expectReject(verifyV(v2Delivery(V.id, timestamp, V_BODY)), /webhook-timestamp/);
		},
	);

	it.each(['webhook-id', 'webhook-timestamp', 'webhook-signature'])('rejects a missing %s, naming it', (name) => {
		expectReject(verifyV(v2Headers({ [name]: undefined })), new RegExp(`missing ${name}`));
		expectReject(verifyV(v2Headers({ [name]: '' })), new RegExp(`missing ${name}`));
		expectReject(verifyV(v2Headers({ [name]: [] })), new RegExp(`missing ${name}`));
	});

	it('rejects header names that are not lower-case (Node lower-cases them)', () => {
		const headers: Headers = {
			'Webhook-Id': V.id,
			'Webhook-Timestamp': V.timestamp,
			'Webhook-Signature': V.signature,
		};
		expectReject(verifyV(headers), /missing webhook-id/);
	});

	it('takes the first value of array headers, but every copy of the signature header (a proxy may repeat it)', () => {
		expect(verifyV(v2Headers({ 'webhook-signature': [V.signature, 'v1,garbage'] })).ok).toBe(true);
		expect(verifyV(v2Headers({ 'webhook-signature': ['v1,garbage', V.signature] })).ok).toBe(true);
		expectReject(verifyV(v2Headers({ 'webhook-signature': ['v1,garbage', 'v1,other'] })));
		expect(verifyV(v2Headers({ 'webhook-id': [V.id, 'other'] })).ok).toBe(true);
		expectReject(verifyV(v2Headers({ 'webhook-timestamp': ['1', V.timestamp] })));
	});

	it.each([
		['truncated by one symbol', V.signature.slice(0, -1)],
		['without padding', V.signature.replace(/=$/, '')],
		['with extra padding', `${V.signature}=`],
		['with a trailing symbol', `${V.signature}A`],
		['as url-safe base64', V.signature.replace(/\+/g, '-').replace(/\//g, '_')],
		['version prefix only', 'v1,'],
		['no version', V.signature.slice(3)],
		['upper-case version', `V1,${V.signature.slice(3)}`],
		['space after the comma', `v1, ${V.signature.slice(3)}`],
		['tab-joined to garbage', `v1,abc\t${V.signature}`],
		['garbage', 'v1,!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!'],
		['zero digest', `v1,${'A'.repeat(43)}=`],
		['all entries of other versions', `v2,${V.signature.slice(3)} v1a,${V.signature.slice(3)}`],
		['a different digest', `v1,${b64(new Uint8Array(32).fill(7))}`],
	])('rejects a signature %s', (_label, signature) => {
		expectReject(verifyV(v2Headers({ 'webhook-signature': signature })));
	});

	it('rejects a non-canonical base64 spelling of the right digest (trailing bits set)', () => {
		// The last symbol before '=' carries 2 unused bits; a lenient decoder maps
		// 'E' (0b000100) and 'F' (0b000101) to the same bytes. Only the canonical one counts.
		const canonical = V.signature.slice(3);
		const last = canonical[42];
		const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
		const value = alphabet.indexOf(last);
		expect(value & 3).toBe(0);
		const twin = `${canonical.slice(0, 42)}${alphabet[value + 1]}=`;
		expect(Buffer.from(twin, 'base64').equals(Buffer.from(canonical, 'base64'))).toBe(true);
		expectReject(verifyV(v2Headers({ 'webhook-signature': `v1,${twin}` })));
	});

	it('rejects an undefined, missing or non-Buffer raw body', () => {
		expect(verifyV(v2Headers()).ok).toBe(true);
		expectReject(
			verify({ headers: v2Headers(), secret: V.secret, version: 'V2', nowMs: V_NOW, rawBody: undefined }),
			/raw body unavailable/,
		);
		expectReject(
			verify({ headers: v2Headers(), secret: V.secret, version: 'V2', nowMs: V_NOW, rawBody: null as unknown as Buffer }),
			/raw body unavailable/,
		);
		expectReject(
			verify({ headers: v2Headers(), secret: V.secret, version: 'V2', nowMs: V_NOW, rawBody: V.body as unknown as Buffer }),
			/raw body/,
		);
	});

	it.each([
		['a space', 'msg 1'],
		['a non-ASCII character', 'msg_é'],
		['an emoji', 'msg_😀'],
		['a control character', 'msg_\u0001'],
		['257 characters', 'm'.repeat(257)],
	])('rejects a webhook-id with %s even when correctly signed', (_label, id) => {
		expectReject(verifyV(v2Delivery(id, V.timestamp, V_BODY)), /webhook-id header is malformed/);
	});

	it('accepts a 256-character id when correctly signed, but not with another id', () => {
		const headers = v2Delivery('m'.repeat(256), V.timestamp, V_BODY);
		expect(verifyV(headers).ok).toBe(true);
		expectReject(verifyV({ ...headers, 'webhook-id': `${'m'.repeat(255)}n` }), /no signature entry matched/);
	});

	it('hints at a version mismatch when a V2 endpoint receives bare hex', () => {
		const ms = String(V_NOW);
		const headers: Headers = {
			'webhook-id': V.id,
			'webhook-timestamp': ms,
			'webhook-signature': signV1(V.secret, ms, V_BODY),
		};
		expectReject(verifyV(headers), /bare hex \(V1 format\).*V2/);
	});
});

describe('V2 acceptances', () => {
	const other = signV2(new Uint8Array(32).fill(9), V.id, V.timestamp, V_BODY);

	it.each([
		['valid first', `${V.signature} ${other}`],
		['valid last (key rotation)', `${other} ${V.signature}`],
		['valid among garbage and other versions', `v2,xyz ${other} v1,bogus ${V.signature} v1a,${V.signature.slice(3)} junk`],
		['extra spaces', `   ${other}    ${V.signature}   `],
		['20 entries with the valid one last', `${Array(19).fill(other).join(' ')} ${V.signature}`],
	])('accepts %s, and rejects the same header with the valid entry corrupted', (_label, signature) => {
		expect(verifyV(v2Headers({ 'webhook-signature': signature })).ok).toBe(true);
		const corrupted = signature.replace(V.signature, `v1,${V.signature.slice(4, 46)}A=`);
		expect(corrupted).not.toBe(signature);
		expectReject(verifyV(v2Headers({ 'webhook-signature': corrupted })));
	});

	it('rejects a valid signature beyond 20 entries, and headers over 8 KiB, without blowing up', () => {
		expectReject(
			verifyV(v2Headers({ 'webhook-signature': `${Array(20).fill(other).join(' ')} ${V.signature}` })),
			/too many entries/,
		);
		expectReject(
			verifyV(v2Headers({ 'webhook-signature': `${' '.repeat(8200)}${V.signature}` })),
			/too large/,
		);
		const huge = `${'v1,'.repeat(400_000)} ${V.signature}`;
		const started = Date.now();
		expectReject(verifyV(v2Headers({ 'webhook-signature': huge })), /too large/);
		expectReject(verifyV(v2Headers({ 'webhook-id': 'x'.repeat(1_000_000) })), /malformed/);
		expect(Date.now() - started).toBeLessThan(1000);
	});

	it('accepts a non-UTF-8 body (bytes 0xff 0xfe) with a valid signature, and rejects it altered', () => {
		const body = Buffer.from([0xff, 0xfe, 0x00, 0x80, 0xc3, 0x28, 0x7b, 0x7d]);
		const headers = v2Delivery(V.id, V.timestamp, body);
		expect(verifyV(headers, body).ok).toBe(true);
		// A decoder that went through a UTF-8 string would map 0xff and 0xfe alike.
		expectReject(verifyV(headers, Buffer.from([0xfe, 0xff, 0x00, 0x80, 0xc3, 0x28, 0x7b, 0x7d])));
	});

	it.each([0, 1, 255, 4096, 16384, 16385, 100_000, 1_100_000])(
		'accepts a %d-byte body and rejects its last byte changed',
		(size) => {
			const body = Buffer.alloc(size);
			for (let i = 0; i < size; i++) body[i] = (i * 31 + 7) & 0xff;
			const headers = v2Delivery(V.id, V.timestamp, body);
			expect(verifyV(headers, body).ok).toBe(true);
			if (size > 0) {
				body[size - 1] ^= 0x80;
				expectReject(verifyV(headers, body));
			} else {
				expectReject(verifyV(headers, Buffer.from([0])));
			}
		},
	);

	it('works with keys longer than the SHA-256 block (hashed first)', () => {
		for (const length of [1, 63, 64, 65, 100, 200]) {
			const key = new Uint8Array(length).map((_, i) => (i * 13 + length) & 0xff);
			const secret = `whsec_${b64(key)}`;
			const signature = signV2(key, V.id, V.timestamp, V_BODY);
			const verdict = verify({
				rawBody: V_BODY,
				headers: v2Headers({ 'webhook-signature': signature }),
				secret,
				version: 'V2',
				nowMs: V_NOW,
			});
			expect(verdict.ok).toBe(true);
			const otherKey = key.map((b) => b ^ 0x01);
			const rejected = verify({
				rawBody: V_BODY,
				headers: v2Headers({ 'webhook-signature': signature }),
				secret: `whsec_${b64(otherKey)}`,
				version: 'V2',
				nowMs: V_NOW,
			});
			expectReject(rejected, /no signature entry matched/);
		}
	});

	it('keeps working when secrets alternate (memo is per secret)', () => {
		const [a, b] = VECTORS;
		const run = (vector: (typeof VECTORS)[number], secret: string): boolean =>
			verify({
				rawBody: Buffer.from(vector.body),
				headers: {
					'webhook-id': vector.id,
					'webhook-timestamp': vector.timestamp,
					'webhook-signature': vector.signature,
				},
				secret,
				version: 'V2',
				nowMs: Number(vector.timestamp) * 1000,
			}).ok;
		for (let i = 0; i < 3; i++) {
			expect(run(a, a.secret)).toBe(true);
			expect(run(b, b.secret)).toBe(true);
			expect(run(a, b.secret)).toBe(false);
			expect(run(b, a.secret)).toBe(false);
		}
	});

	it('rejects with a clear reason when the V2 secret is not valid base64', () => {
		expectReject(
			verify({ rawBody: V_BODY, headers: v2Headers(), secret: 'whsec_not base64!', version: 'V2', nowMs: V_NOW }),
			/not valid base64/,
		);
		expectReject(
			verify({ rawBody: V_BODY, headers: v2Headers(), secret: '', version: 'V2', nowMs: V_NOW }),
			/secret is not configured/,
		);
	});
});

describe('V1 (deprecated)', () => {
	const secret = 'v1-signing-secret-ÄÖ-é';
	const id = 'whk_0123456789ab/job_42';
	const nowMs = 1_760_000_000_123;
	const timestamp = String(nowMs - 2_000);
	const body = Buffer.from('{"event":"PAYMENT_COMPLETED","id":"pay_1"}');
	const signature = signV1(secret, timestamp, body);
	signaturesUsed.add(signature);

	const headers = (overrides: Record<string, string | string[] | undefined> = {}): Headers => ({
		'webhook-id': id,
		'webhook-timestamp': timestamp,
		'webhook-signature': signature,
		...overrides,
	});
	const v1 = (h: Headers, b: Buffer | undefined = body, at = nowMs, extra: Partial<VerifyInput> = {}): Verdict =>
		verify({ rawBody: b, headers: h, secret, version: 'V1', nowMs: at, ...extra });

	it('accepts a signature made with the UTF-8 secret over "<ms>.<body>"', () => {
		expect(v1(headers())).toEqual({ ok: true, version: 'V1', id, timestamp: Math.floor(Number(timestamp) / 1000), signingKey: 'secret-text' });
		// Not keyed with the base64-decoded secret, and not over the body alone.
		expectReject(v1(headers({ 'webhook-signature': signLegacy(secret, body) })), /did not match/);
	});

	it('rejects a changed body byte, timestamp, or secret', () => {
		const changed = Buffer.from(body);
		changed[5] ^= 0x20;
		expectReject(v1(headers(), changed), /did not match/);
		expectReject(v1(headers({ 'webhook-timestamp': String(Number(timestamp) + 1) })), /did not match/);
		expectReject(verify({ rawBody: body, headers: headers(), secret: `${secret}x`, version: 'V1', nowMs }), /did not match/);
	});

	it('ignores the id for the signature (V1 does not sign it) but requires it', () => {
		expect(v1(headers({ 'webhook-id': 'whk_other/job_1' }))).toMatchObject({ ok: true, id: 'whk_other/job_1' });
		expectReject(v1(headers({ 'webhook-id': undefined })), /missing webhook-id/);
	});

	it.each(['webhook-timestamp', 'webhook-signature'])('rejects a missing %s', (name) => {
		expectReject(v1(headers({ [name]: undefined })), new RegExp(`missing ${name}`));
	});

	it('accepts upper-case hex; rejects truncated hex and v1, entries (hinting at V2)', () => {
		expect(v1(headers({ 'webhook-signature': signature.toUpperCase() })).ok).toBe(true);
		expectReject(v1(headers({ 'webhook-signature': signature.slice(0, -1) })), /lower-case hex/);
		expectReject(v1(headers({ 'webhook-signature': `${signature} ` })), /lower-case hex/);
		const v2sig = `v1,${b64(hmac(sha256, new TextEncoder().encode(secret), ascii(`${id}.${timestamp}.`)))}`;
		expectReject(v1(headers({ 'webhook-signature': v2sig })), /V2 format.*V1/);
	});

	it('applies the window to milliseconds and hints when the timestamp is in seconds', () => {
		expect(v1(headers(), body, Number(timestamp) + 300_000).ok).toBe(true);
		expectReject(v1(headers(), body, Number(timestamp) + 301_000), /outside the tolerance window/);
		expectReject(v1(headers(), body, Number(timestamp) - 301_000), /outside the tolerance window/);
		const seconds = String(Math.floor(nowMs / 1000));
		expectReject(
			v1(headers({ 'webhook-timestamp': seconds, 'webhook-signature': signV1(secret, seconds, body) })),
			/looks like seconds.*V2/,
		);
	});

	it('accepts a non-UTF-8 body and a long (> 64 byte) secret', () => {
		const longSecret = 'k'.repeat(150);
		const raw = Buffer.from([0xff, 0xfe, 0xfd]);
		const h = headers({ 'webhook-signature': signV1(longSecret, timestamp, raw) });
		expect(verify({ rawBody: raw, headers: h, secret: longSecret, version: 'V1', nowMs }).ok).toBe(true);
		expectReject(verify({ rawBody: Buffer.from([0xfe, 0xff, 0xfd]), headers: h, secret: longSecret, version: 'V1', nowMs }));
	});

	describe('legacy body-only X-Service-Signature', () => {
		const legacySig = signLegacy(secret, body);
		signaturesUsed.add(legacySig);
		const legacyHeaders = (overrides: Record<string, string | undefined> = {}): Headers => ({
			'x-service-signature': legacySig,
			'x-service-timestamp': timestamp,
			'x-service-idempotency': id,
			...overrides,
		});

		it('is accepted only with acceptBodyOnlySignature, and reported as legacy', () => {
			expect(v1(legacyHeaders(), body, nowMs, { acceptBodyOnlySignature: true })).toEqual({
				ok: true,
				version: 'V1',
				id,
				timestamp: Math.floor(Number(timestamp) / 1000),
				legacy: true,
				signingKey: 'secret-text',
			});
			expectReject(v1(legacyHeaders()), /x-service-signature is present and it is not accepted/);
			expectReject(v1(legacyHeaders(), body, nowMs, { acceptBodyOnlySignature: false }), /missing webhook-signature/);
		});

		it('prefers webhook-id for the id and needs one of the two', () => {
			const withId = { ...legacyHeaders(), 'webhook-id': 'whk_a/job_b' };
			expect(v1(withId, body, nowMs, { acceptBodyOnlySignature: true })).toMatchObject({ ok: true, id: 'whk_a/job_b' });
			expectReject(
				v1(legacyHeaders({ 'x-service-idempotency': undefined }), body, nowMs, { acceptBodyOnlySignature: true }),
				/missing webhook-id/,
			);
		});

		it('rejects a changed body, an old timestamp, a missing timestamp and a wrong secret', () => {
			const opt = { acceptBodyOnlySignature: true };
			const changed = Buffer.from(body);
			changed[0] ^= 1;
			expectReject(v1(legacyHeaders(), changed, nowMs, opt), /did not match/);
			expectReject(v1(legacyHeaders(), body, Number(timestamp) + 301_000, opt), /outside the tolerance window/);
			expectReject(v1(legacyHeaders({ 'x-service-timestamp': undefined }), body, nowMs, opt), /missing x-service-timestamp/);
			expectReject(
				verify({ rawBody: body, headers: legacyHeaders(), secret: 'nope', version: 'V1', nowMs, ...opt }),
				/did not match/,
			);
		});

		it('does not fall back to the legacy header when webhook-signature is present but wrong', () => {
			const h = { ...legacyHeaders(), 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': '0'.repeat(64) };
			expectReject(v1(h, body, nowMs, { acceptBodyOnlySignature: true }), /did not match/);
		});

		it('is never used for V2 endpoints', () => {
			expectReject(
				verify({ rawBody: body, headers: legacyHeaders(), secret: V.secret, version: 'V2', nowMs, acceptBodyOnlySignature: true }),
				/missing webhook-id/,
			);
		});
	});
});

describe('never throws', () => {
	const throwing = new Proxy(
		{},
		{
			get() {
				throw new Error('boom');
			},
		},
	) as Headers;

	it.each([
		['null input', null],
		['a number', 42],
		['unknown version', { rawBody: V_BODY, headers: v2Headers(), secret: V.secret, version: 'V3', nowMs: V_NOW, toleranceSeconds: 300 }],
		['null headers', { rawBody: V_BODY, headers: null, secret: V.secret, version: 'V2', nowMs: V_NOW, toleranceSeconds: 300 }],
		['throwing headers', { rawBody: V_BODY, headers: throwing, secret: V.secret, version: 'V2', nowMs: V_NOW, toleranceSeconds: 300 }],
		['NaN clock', { rawBody: V_BODY, headers: v2Headers(), secret: V.secret, version: 'V2', nowMs: NaN, toleranceSeconds: 300 }],
		['non-string secret', { rawBody: V_BODY, headers: v2Headers(), secret: 12, version: 'V2', nowMs: V_NOW, toleranceSeconds: 300 }],
		['numeric headers', { rawBody: V_BODY, headers: { 'webhook-id': 1, 'webhook-timestamp': 2, 'webhook-signature': 3 }, secret: V.secret, version: 'V2', nowMs: V_NOW, toleranceSeconds: 300 }],
	])('%s yields ok: false', (_label, input) => {
		let verdict: Verdict | undefined;
		expect(() => {
			verdict = verifyDelivery(input as unknown as VerifyInput);
		}).not.toThrow();
		expect(verdict?.ok).toBe(false);
	});

	it('falls back to the default tolerance when it is not a usable number', () => {
		const at = (toleranceSeconds: number, nowMs: number): boolean =>
			verify({ rawBody: V_BODY, headers: v2Headers(), secret: V.secret, version: 'V2', nowMs, toleranceSeconds }).ok;
		expect(at(NaN, V_NOW + 300_000)).toBe(true);
		expect(at(NaN, V_NOW + 301_000)).toBe(false);
		expect(at(-5, V_NOW + 301_000)).toBe(false);
		expect(at(0, V_NOW)).toBe(true);
		expect(at(0, V_NOW + 1)).toBe(false);
	});
});

describe('decodeSigningSecret', () => {
	it('decodes with and without the whsec_ prefix', () => {
		const expected = Buffer.from('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'base64');
		expect(decodeSigningSecret('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')).toEqual(expected);
		expect(decodeSigningSecret('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')).toEqual(expected);
		expect(decodeSigningSecret('whsec_ab==')).toEqual(Buffer.from([0x69]));
		expect(decodeSigningSecret('abc=')).toEqual(Buffer.from('abc=', 'base64'));
	});

	it.each([
		['empty', ''],
		['prefix only', 'whsec_'],
		['whitespace inside', 'whsec_MfKQ9r8G KYqrTwjU'],
		['trailing newline', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n'],
		['url-safe alphabet', 'whsec_ab-_'],
		['wrong padding', 'whsec_ab='],
		['too much padding', 'whsec_a==='],
		['padding in the middle', 'whsec_ab==abcd'],
		['non-ASCII', 'whsec_abcé'],
		['a bare "=" block', '===='],
	])('throws on %s without echoing the secret', (_label, secret) => {
		let message = '';
		try {
			decodeSigningSecret(secret);
		} catch (error) {
			message = (error as Error).message;
		}
		expect(message).toMatch(/Signing secret/);
		const body = secret.replace(/^whsec_/, '');
		if (body.length > 2) {
			expect(message).not.toContain(body);
		}
	});
});

describe('SeenIds', () => {
	it('reports a repeat inside the window and records first sightings', () => {
		const seen = new SeenIds();
		expect(seen.seen('a', 1000, 60_000)).toBe(false);
		expect(seen.seen('a', 2000, 60_000)).toBe(true);
		expect(seen.seen('b', 2000, 60_000)).toBe(false);
		expect(seen.seen('a', 60_999, 60_000)).toBe(true);
	});

	it('forgets ids older than the window and evicts them', () => {
		const seen = new SeenIds();
		for (let i = 0; i < 5; i++) seen.seen(`id${i}`, 1000 + i, 10_000);
		expect(seen.size).toBe(5);
		expect(seen.seen('id0', 11_000, 10_000)).toBe(false); // 10 000 ms old: outside
		expect(seen.size).toBe(5); // id0 evicted then recorded again, id1..id4 still inside
		expect(seen.seen('new', 20_000, 10_000)).toBe(false);
		expect(seen.size).toBe(2); // id1..id4 evicted; id0 (recorded at 11 000) and new remain
		expect(seen.seen('id1', 20_001, 10_000)).toBe(false);
	});

	it('keeps at most max ids, dropping the oldest', () => {
		const seen = new SeenIds(3);
		for (const id of ['a', 'b', 'c', 'd']) expect(seen.seen(id, 1000, 60_000)).toBe(false);
		expect(seen.size).toBe(3);
		expect(seen.seen('d', 1001, 60_000)).toBe(true);
		expect(seen.seen('b', 1001, 60_000)).toBe(true);
		expect(seen.seen('a', 1001, 60_000)).toBe(false); // was evicted; recording it again drops b, now the oldest
		expect(seen.size).toBe(3);
		expect(seen.seen('b', 1002, 60_000)).toBe(false);
	});

	it('does not refresh an id when it is seen again (the first sighting counts)', () => {
		const seen = new SeenIds();
		seen.seen('a', 0, 10_000);
		expect(seen.seen('a', 9_999, 10_000)).toBe(true);
		expect(seen.seen('a', 10_000, 10_000)).toBe(false);
	});

	it('treats a window of 0 as no deduplication and survives a clock going back', () => {
		const seen = new SeenIds();
		expect(seen.seen('a', 1000, 0)).toBe(false);
		expect(seen.seen('a', 1000, 0)).toBe(false);
		const back = new SeenIds();
		back.seen('x', 100_000, 10_000);
		expect(back.seen('x', 95_000, 10_000)).toBe(true);
		expect(back.seen('x', 50_000, 10_000)).toBe(false);
	});

	it('falls back to 10000 for an unusable max and stays bounded and fast', () => {
		const seen = new SeenIds(-1);
		const started = Date.now();
		for (let i = 0; i < 200_000; i++) seen.seen(`id${i}`, i, 1e12);
		expect(seen.size).toBe(10_000);
		expect(seen.seen('id199999', 200_000, 1e12)).toBe(true);
		expect(seen.seen('id0', 200_000, 1e12)).toBe(false);
		expect(Date.now() - started).toBeLessThan(2000);
	});
});

describe('V1 to V2 migration, V1 key forms and secret rotation', () => {
	const KEY = new Uint8Array(24).map((_, i) => (i * 37 + 11) & 0xff);
	const SECRET = `whsec_${b64(KEY)}`;
	const PREVIOUS_KEY = new Uint8Array(24).map((_, i) => (i * 53 + 5) & 0xff);
	const PREVIOUS = `whsec_${b64(PREVIOUS_KEY)}`;
	const THIRD = `whsec_${b64(new Uint8Array(24).fill(0x42))}`;
	secretsUsed.add(PREVIOUS);
	secretsUsed.add(THIRD);
	const nowMs = 1_760_000_000_500;
	const seconds = String(Math.floor(nowMs / 1000));
	const millis = String(nowMs - 1_500);
	const body = Buffer.from('{"event":"PAYMENT_COMPLETED","id":"msg_migrated0001"}');
	const id = 'msg_migrated0001';

	/** A V2 delivery signed with a raw key. */
	const v2 = (key: Uint8Array): Headers => {
		const signature = signV2(key, id, seconds, body);
		signaturesUsed.add(signature.slice(3));
		return { 'webhook-id': id, 'webhook-timestamp': seconds, 'webhook-signature': signature };
	};
	/** A V1 delivery signed with raw key bytes. */
	const v1 = (key: Uint8Array, upper = false): Headers => {
		const hex = bytesToHex(hmac(sha256, key, concatBytes(ascii(`${millis}.`), body)));
		signaturesUsed.add(hex);
		return { 'webhook-id': 'whk_0123456789ab/job_1', 'webhook-timestamp': millis, 'webhook-signature': upper ? hex.toUpperCase() : hex };
	};
	const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
	const run = (headers: Headers, version: 'V1' | 'V2', extra: Partial<VerifyInput> = {}): Verdict =>
		verify({ rawBody: body, headers, secret: SECRET, version, nowMs, ...extra });

	it('a V1 endpoint accepts a valid V2 delivery and reports it as V2', () => {
		expect(run(v2(KEY), 'V1')).toEqual({ ok: true, version: 'V2', id, timestamp: Number(seconds) });
	});

	it('a V1 endpoint refuses a forged V2 delivery (changed body, id, timestamp or key), naming the V2 format', () => {
		const headers = v2(KEY);
		const changed = Buffer.from(body);
		changed[3] ^= 0x01;
		expectReject(verify({ rawBody: changed, headers, secret: SECRET, version: 'V1', nowMs }), /V2 format.*V1.*no signature entry matched/);
		expectReject(run({ ...headers, 'webhook-id': 'msg_other0000001' }, 'V1'), /V2 format.*V1/);
		expectReject(run({ ...headers, 'webhook-timestamp': String(Number(seconds) - 1) }, 'V1'), /V2 format.*V1/);
		expectReject(run(v2(new Uint8Array(24).fill(1)), 'V1'), /no signature entry matched/);
		// V2 rules apply in full: a V2 entry signed over a millisecond timestamp is outside the window.
		const stale = { ...headers, 'webhook-timestamp': millis, 'webhook-signature': signV2(KEY, id, millis, body) };
		expectReject(run(stale, 'V1'), /V2 format.*V1.*outside the tolerance window/);
	});

	it('a V2 endpoint refuses valid V1 and legacy deliveries (no downgrade)', () => {
		expect(run(v1(utf8(SECRET)), 'V1').ok).toBe(true);
		expectReject(run(v1(utf8(SECRET)), 'V2'), /bare hex \(V1 format\)/);
		expectReject(run(v1(KEY), 'V2'), /bare hex \(V1 format\)/);
		const legacy: Headers = {
			'x-service-signature': bytesToHex(hmac(sha256, utf8(SECRET), body)),
			'x-service-timestamp': millis,
			'x-service-idempotency': 'whk_0123456789ab/job_1',
		};
		expect(run(legacy, 'V1', { acceptBodyOnlySignature: true }).ok).toBe(true);
		expectReject(run(legacy, 'V2', { acceptBodyOnlySignature: true }), /missing webhook-id/);
		expectReject(run({ ...legacy, 'webhook-id': id, 'webhook-timestamp': seconds }, 'V2', { acceptBodyOnlySignature: true }), /missing webhook-signature/);
	});

	it('V1 accepts a signature keyed with the secret text or with the decoded whsec_ key, and reports which', () => {
		expect(run(v1(utf8(SECRET)), 'V1')).toMatchObject({ ok: true, version: 'V1', signingKey: 'secret-text' });
		expect(run(v1(KEY), 'V1')).toMatchObject({ ok: true, version: 'V1', signingKey: 'decoded-key' });
		// Both forms for the legacy body-only signature too.
		const legacy = (key: Uint8Array): Headers => ({
			'x-service-signature': bytesToHex(hmac(sha256, key, body)),
			'x-service-timestamp': millis,
			'x-service-idempotency': 'whk_0123456789ab/job_1',
		});
		expect(run(legacy(KEY), 'V1', { acceptBodyOnlySignature: true })).toMatchObject({ legacy: true, signingKey: 'decoded-key' });
		expect(run(legacy(utf8(SECRET)), 'V1', { acceptBodyOnlySignature: true })).toMatchObject({ legacy: true, signingKey: 'secret-text' });
		// Neither form of another secret, and not the text without its prefix.
		expectReject(run(v1(new Uint8Array(24).fill(3)), 'V1'), /did not match/);
		expectReject(run(v1(utf8(SECRET.slice('whsec_'.length))), 'V1'), /did not match/);
	});

	it('V1 accepts upper-case hex in either key form', () => {
		expect(run(v1(utf8(SECRET), true), 'V1')).toMatchObject({ ok: true, signingKey: 'secret-text' });
		expect(run(v1(KEY, true), 'V1')).toMatchObject({ ok: true, signingKey: 'decoded-key' });
		const mixed = v1(KEY);
		const hex = mixed['webhook-signature'] as string;
		mixed['webhook-signature'] = hex.slice(0, 32).toUpperCase() + hex.slice(32);
		expect(run(mixed, 'V1').ok).toBe(true);
	});

	it('accepts an unpadded whsec_ secret for V2 and V1, as its padded form', () => {
		const key = new Uint8Array(32).map((_, i) => (i * 7 + 1) & 0xff); // 32 bytes: base64 ends in one "="
		const padded = `whsec_${b64(key)}`;
		const unpadded = padded.replace(/=+$/, '');
		expect(unpadded).not.toBe(padded);
		secretsUsed.add(padded);
		expect(decodeSigningSecret(unpadded)).toEqual(decodeSigningSecret(padded));
		expect(decodeSigningSecret('whsec_ab')).toEqual(Buffer.from([0x69]));
		expect(run(v2(key), 'V2', { secret: unpadded })).toMatchObject({ ok: true, version: 'V2' });
		expect(run(v1(key), 'V1', { secret: unpadded })).toMatchObject({ ok: true, signingKey: 'decoded-key' });
		expectReject(run(v2(key), 'V2', { secret: `${unpadded}==` }), /not valid base64 \(wrong length or padding\)/);
	});

	it.each(['V2', 'V1'] as const)('%s: a delivery signed with the current or the previous secret is accepted and reported; a third is refused', (version) => {
		const signed = (key: Uint8Array): Headers => (version === 'V2' ? v2(key) : v1(key));
		const rotating = { previousSecret: PREVIOUS };
		expect(run(signed(KEY), version, rotating)).toMatchObject({ ok: true, signingSecret: 'current' });
		expect(run(signed(PREVIOUS_KEY), version, rotating)).toMatchObject({ ok: true, signingSecret: 'previous' });
		expectReject(run(signed(decodeSigningSecret(THIRD)), version, rotating));
		// Without the previous secret, its deliveries are refused, and nothing is reported about secrets.
		expectReject(run(signed(PREVIOUS_KEY), version));
		expect(run(signed(KEY), version)).not.toHaveProperty('signingSecret');
		// Swapped roles: the report follows the secret, not the order.
		expect(run(signed(KEY), version, { secret: PREVIOUS, previousSecret: SECRET })).toMatchObject({ ok: true, signingSecret: 'previous' });
	});

	it('rotation with a V2 entry for each secret reports the current one; a previous secret that is not base64 does not block the current', () => {
		const both = `${v2(PREVIOUS_KEY)['webhook-signature']} ${v2(KEY)['webhook-signature']}`;
		expect(run({ ...v2(KEY), 'webhook-signature': both }, 'V2', { previousSecret: PREVIOUS })).toMatchObject({ signingSecret: 'current' });
		expect(run(v2(KEY), 'V2', { previousSecret: 'not base64 at all!' })).toMatchObject({ ok: true, signingSecret: 'current' });
		// As V1 it is still usable as text.
		const text = 'previous V1 secret';
		secretsUsed.add(text);
		expect(run(v1(utf8(text)), 'V1', { previousSecret: text })).toMatchObject({ ok: true, signingSecret: 'previous', signingKey: 'secret-text' });
	});
});

afterAll(() => {
	// Runs after every test above: no reason may contain a secret or a signature.
	expect(reasonsSeen.length).toBeGreaterThan(50);
	for (const reason of reasonsSeen) {
		for (const secret of secretsUsed) {
			const body = secret.replace(/^whsec_/, '');
			if (body.length >= 6) expect(reason).not.toContain(body);
		}
		for (const signature of signaturesUsed) expect(reason).not.toContain(signature);
	}
});
