/**
 * rememberLast (nodes/shared/lastCall.ts): what the trigger derives from its credential on every
 * delivery (signing keys, the output gate's redactor) is made again only when the credential
 * changes. One entry: going back to earlier arguments makes it again.
 */
import { rememberLast } from '../nodes/shared/lastCall';

describe('rememberLast', () => {
	test('the same arguments answer the same result without making it again; a changed argument makes it again (control)', () => {
		let made = 0;
		const keys = rememberLast((secret: string, previous: string | undefined) => ({ secret, previous, n: ++made }));
		const first = keys('whsec_a', undefined);
		expect(keys('whsec_a', undefined)).toBe(first);
		expect(made).toBe(1);
		const rotated = keys('whsec_a', 'whsec_b');
		expect(rotated).not.toBe(first);
		expect(rotated).toEqual({ secret: 'whsec_a', previous: 'whsec_b', n: 2 });
		// One entry: the first arguments again are made again.
		expect(keys('whsec_a', undefined)).toEqual({ secret: 'whsec_a', previous: undefined, n: 3 });
	});

	test('arguments are compared one by one, their number too', () => {
		let made = 0;
		const joined = rememberLast((...list: string[]) => `${list.join('|')}#${++made}`);
		expect(joined('a', 'b')).toBe('a|b#1');
		expect(joined('a', 'b')).toBe('a|b#1');
		expect(joined('a', 'b', 'c')).toBe('a|b|c#2');
		expect(joined('a')).toBe('a#3');
		expect(joined('b')).toBe('b#4');
	});
});
