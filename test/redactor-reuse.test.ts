/**
 * Issue 52, cost: the output gate's index of a credential's secrets (every piece of every secret
 * and of its encodings) is made once per credential and shared, not per request or delivery
 * (made per delivery it cost the trigger more than verifying the delivery did). Shared, it must
 * redact exactly as one made for the call would, and it never learns an item's own secret values.
 */
import fc from 'fast-check';

import { credentialRedactor, Redactor } from '../nodes/shared/redaction/secrets';
import { runSize } from './support/run-size';

const KEY = 'sk_live_Q8fJ2kLmN4pR7sT1vW3xY5zA';
const SIGNING = 'whsec_c2VjcmV0LXNpZ25pbmcta2V5LTEyMzQ1Njc4';
const ROTATED = `whsec_${Buffer.from('rotated:Zx81Qa77Vb02Lm33Pp90').toString('base64')}`;

describe('the redactor of a credential is made once and shared', () => {
	test('the same secrets (in any order) give the same redactor; a changed credential gives another', () => {
		const a = credentialRedactor([KEY, SIGNING]);
		expect(credentialRedactor([SIGNING, KEY])).toBe(a);
		expect(credentialRedactor([KEY, SIGNING, KEY])).toBe(a);
		const rotated = credentialRedactor([KEY, ROTATED]);
		expect(rotated).not.toBe(a);
		// The rotated credential's redactor knows the new secret, and no longer the old one.
		expect(rotated.secrets({ note: `echo ${ROTATED}` }).note).toBe('echo [redacted]');
		expect(rotated.secrets({ note: `echo ${SIGNING}` }).note).toBe(`echo ${SIGNING}`);
	});

	test('a shared redactor cannot learn more secrets (an item\'s card data would reach other items\' redaction)', () => {
		const shared = credentialRedactor([KEY, SIGNING]);
		expect(() => shared.add('another-secret-value-1234')).toThrow(/shared redactor/);
		expect(() => shared.addValue({ number: '4242424242424242' })).toThrow(/shared redactor/);
	});

	test('an item with secret values of its own gets a redactor of its own; without them, the shared one', () => {
		const shared = credentialRedactor([KEY, SIGNING]);
		expect(Redactor.withValues([KEY, SIGNING])).toBe(shared);
		expect(Redactor.withValues([KEY, SIGNING], ['', undefined, { number: '' }])).toBe(shared);
		const own = Redactor.withValues([KEY, SIGNING], [{ data: 'tokendata_9f8e7d6c5b4a3210' }]);
		expect(own).not.toBe(shared);
		expect(own.secrets({ echo: 'tokendata_9f8e7d6c5b4a3210' }).echo).not.toContain('9f8e7d6c5b4a3210');
		// Control: the shared one did not learn the item's value.
		expect(shared.secrets({ echo: 'tokendata_9f8e7d6c5b4a3210' }).echo).toBe('tokendata_9f8e7d6c5b4a3210');
	});

	test('property: the shared redactor gives exactly what one made for the call gives, answers and errors alike', () => {
		const secrets = [KEY, SIGNING];
		const echo = fc.oneof(
			fc.constant(KEY),
			fc.constant(SIGNING),
			fc.constant(Buffer.from(KEY).toString('base64')),
			fc.constant(KEY.slice(3, 20)),
			fc.constant(`Bearer ${KEY}`),
		);
		const text = fc.array(fc.oneof(fc.string(), echo, fc.constantFrom('ord_1234567890', '2026-11-28T20:00:00.000Z', '4242 4242 4242 4242')), { maxLength: 6 }).map((parts) => parts.join(' '));
		const value = fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), fc.oneof(text, fc.array(text, { maxLength: 4 })), { maxKeys: 5 });
		fc.assert(
			fc.property(value, (v) => {
				const fresh = new Redactor(secrets);
				const shared = credentialRedactor(secrets);
				expect(shared.secrets(v)).toEqual(fresh.secrets(v));
				expect(shared.value(v)).toEqual(fresh.value(v));
			}),
			{ numRuns: runSize(200, 2000) },
		);
	});
});
