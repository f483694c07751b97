/**
 * createVerifier(options) is verifyDelivery with the keys derived once: a verifier made
 * for an endpoint and reused over many deliveries, in any order and of any scheme, gives
 * exactly the verdict verifyDelivery gives for each delivery on its own. Signatures come
 * from @noble/hashes (pure JS), independent of the node:crypto code under test.
 */
import { hmac } from '@noble/hashes/hmac';
import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex } from '@noble/hashes/utils';

import {
	createVerifier,
	verifyDelivery,
	type Delivery,
	type Verdict,
	type VerifierOptions,
} from '../nodes/VaultStoreTrigger/verify';

const NOW_MS = 1_763_900_000_000;
const SECONDS = String(NOW_MS / 1000);
const ID = 'msg_2f9c1d7e0a';
const BODY = Buffer.from('{"type":"order.created","data":{"id":"ord_1"}}');

const CURRENT = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const PREVIOUS = 'whsec_c2Vjb25kLXNlY3JldC1mb3ItdGVzdHM=';
const NOT_BASE64 = 'whsec_not*base64!';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const decoded = (secret: string): Uint8Array => new Uint8Array(Buffer.from(secret.replace(/^whsec_/, ''), 'base64'));
const mac = (key: Uint8Array, content: string): Uint8Array => hmac(sha256, key, new Uint8Array([...bytes(content), ...BODY]));

const v2 = (secret: string, id = ID, ts = SECONDS): Delivery['headers'] => ({
	'webhook-id': id,
	'webhook-timestamp': ts,
	'webhook-signature': `v1,${Buffer.from(mac(decoded(secret), `${id}.${ts}.`)).toString('base64')}`,
});
const v1 = (key: Uint8Array, ts = String(NOW_MS)): Delivery['headers'] => ({
	'webhook-id': ID,
	'webhook-timestamp': ts,
	'webhook-signature': bytesToHex(mac(key, `${ts}.`)),
});
const legacy = (secret: string): Delivery['headers'] => ({
	'x-service-idempotency': ID,
	'x-service-timestamp': String(NOW_MS),
	'x-service-signature': bytesToHex(mac(bytes(secret), '')),
});

const deliveries: Array<[string, Delivery]> = [
	['V2, current secret', { rawBody: BODY, headers: v2(CURRENT), nowMs: NOW_MS }],
	['V2, previous secret', { rawBody: BODY, headers: v2(PREVIOUS), nowMs: NOW_MS }],
	['V2, other id', { rawBody: BODY, headers: v2(CURRENT, 'msg_other'), nowMs: NOW_MS }],
	['V2, expired', { rawBody: BODY, headers: v2(CURRENT), nowMs: NOW_MS + 301_000 }],
	['V2, altered body', { rawBody: Buffer.from('{}'), headers: v2(CURRENT), nowMs: NOW_MS }],
	['V1, secret text', { rawBody: BODY, headers: v1(bytes(CURRENT)), nowMs: NOW_MS }],
	['V1, decoded key', { rawBody: BODY, headers: v1(decoded(CURRENT)), nowMs: NOW_MS }],
	['V1, previous secret text', { rawBody: BODY, headers: v1(bytes(PREVIOUS)), nowMs: NOW_MS }],
	['V1, seconds timestamp', { rawBody: BODY, headers: v1(bytes(CURRENT), SECONDS), nowMs: NOW_MS }],
	['legacy, current secret', { rawBody: BODY, headers: legacy(CURRENT), nowMs: NOW_MS }],
	['no headers', { rawBody: BODY, headers: {}, nowMs: NOW_MS }],
	['no body', { rawBody: undefined, headers: v2(CURRENT), nowMs: NOW_MS }],
];

const endpoints: Array<[string, VerifierOptions]> = [];
for (const version of ['V1', 'V2'] as const) {
	for (const secret of [CURRENT, NOT_BASE64]) {
		for (const previousSecret of [undefined, PREVIOUS, NOT_BASE64]) {
			for (const acceptBodyOnlySignature of [false, true]) {
				const options: VerifierOptions = { secret, previousSecret, version, toleranceSeconds: 300, acceptBodyOnlySignature };
				endpoints.push([`${version} ${secret === CURRENT ? 'valid' : 'bad'} secret, previous ${previousSecret === undefined ? 'none' : previousSecret === PREVIOUS ? 'valid' : 'bad'}, body-only ${acceptBodyOnlySignature}`, options]);
			}
		}
	}
}

const oneShot = (options: VerifierOptions, delivery: Delivery): Verdict => verifyDelivery({ ...options, ...delivery });

describe('createVerifier', () => {
	it.each(endpoints)('%s: every delivery, forwards then backwards, as verifyDelivery', (_label, options) => {
		const verify = createVerifier(options);
		for (const [name, delivery] of [...deliveries, ...[...deliveries].reverse()]) {
			expect([name, verify(delivery)]).toEqual([name, oneShot(options, delivery)]);
		}
	});

	it('accepts and rejects what it should (so the comparison above compares something)', () => {
		const rotating = createVerifier({ secret: CURRENT, previousSecret: PREVIOUS, version: 'V1', toleranceSeconds: 300 });
		const verdicts = Object.fromEntries(deliveries.map(([name, delivery]) => [name, rotating(delivery)]));
		expect(verdicts['V2, current secret']).toEqual({ ok: true, version: 'V2', id: ID, timestamp: Number(SECONDS), signingSecret: 'current' });
		expect(verdicts['V2, previous secret']).toMatchObject({ ok: true, version: 'V2', signingSecret: 'previous' });
		expect(verdicts['V1, secret text']).toMatchObject({ ok: true, version: 'V1', signingKey: 'secret-text', signingSecret: 'current' });
		expect(verdicts['V1, decoded key']).toMatchObject({ ok: true, version: 'V1', signingKey: 'decoded-key' });
		expect(verdicts['V1, previous secret text']).toMatchObject({ ok: true, signingKey: 'secret-text', signingSecret: 'previous' });
		expect(verdicts['V2, expired']).toMatchObject({ ok: false });
		expect(verdicts['V2, altered body']).toMatchObject({ ok: false });
		expect(verdicts['legacy, current secret']).toMatchObject({ ok: false });

		const badSecret = createVerifier({ secret: NOT_BASE64, version: 'V2', toleranceSeconds: 300 });
		expect(badSecret(deliveries[0][1])).toEqual({ ok: false, reason: 'signing secret is not valid base64 (it contains characters outside the base64 alphabet)' });
	});

	it.each([
		['null options', null],
		['a number', 42],
		['non-string secret', { secret: 12, version: 'V2', toleranceSeconds: 300 }],
		['unknown version', { secret: CURRENT, version: 'V3', toleranceSeconds: 300 }],
		['throwing secret', Object.defineProperty({ version: 'V2', toleranceSeconds: 300 }, 'secret', { get: () => { throw new Error('boom'); } })],
	])('%s: making and using the verifier never throws, and it rejects', (_label, options) => {
		let verdict: Verdict | undefined;
		expect(() => {
			verdict = createVerifier(options as unknown as VerifierOptions)(deliveries[0][1]);
		}).not.toThrow();
		expect(verdict?.ok).toBe(false);
	});
});
