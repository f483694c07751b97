import { findLeaks, outputText, TEST_CARD_NUMBERS } from './support/secret-scan';

const secrets = ['sk_sandbox_0123456789abcdef', 'whsec_c2VjcmV0c2VjcmV0c2VjcmV0'];

describe('secret scan used by the global teardown', () => {
	test('finds a key, a signing secret, a card number with separators and a CVC', () => {
		expect(findLeaks({ source: 't', secrets, text: 'failed with Bearer sk_sandbox_0123456789abcdef' })).toEqual(['secret sk_…']);
		expect(findLeaks({ source: 't', secrets, text: 'secret whsec_c2VjcmV0c2VjcmV0c2VjcmV0 used' })).toEqual(['secret whs…']);
		expect(findLeaks({ source: 't', secrets, text: 'card 4242 4242 4242 4242 declined' })).toEqual(['card number …4242']);
		expect(findLeaks({ source: 't', secrets, text: '{"number":"4111-1111-1111-1111"}' })).toEqual(['card number …1111']);
		expect(findLeaks({ source: 't', secrets, text: '{"cvc":"123"}' })).toEqual(['CVC']);
		expect(findLeaks({ source: 't', secrets, text: 'bad CVC: 4567' })).toEqual(['CVC']);
	});

	test('passes clean texts and the revealed number of a reveal output', () => {
		expect(findLeaks({ source: 't', secrets, text: '{"mask":{"last4":"4242","brand":"visa"},"id":"tok_123"}' })).toEqual([]);
		const reveal = { id: 'tok_1', data: { number: TEST_CARD_NUMBERS[0], exp_month: 12 } };
		expect(findLeaks({ source: 't', secrets, text: outputText(reveal, true) })).toEqual([]);
		expect(findLeaks({ source: 't', secrets, text: outputText(reveal, false) })).toEqual(['card number …4242']);
	});
});
