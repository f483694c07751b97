/**
 * Issue 54 point 5: the credential test and the node read the Base URL by one rule (readBaseUrl,
 * nodes/shared/transport/baseUrl.ts). Each spelling runs through both: the credential test as n8n's
 * tester runs it (test/support/credential-tester.ts) and a node request (Order → Get), against the
 * sandbox, counting what reached it. Both accept it (and send to the same place) or both refuse it
 * with the same reason and nothing sent. Then the rule itself: run in n8n's expression engine (as
 * the credential test runs it) it gives what the node's call gives, and what it accepts WHATWG's
 * URL parser reads as the same address.
 */
import type { IDataObject } from 'n8n-workflow';
import { Expression } from 'n8n-workflow';

import { testCredential } from './support/credential-tester';
import { useSandbox } from './support/fixtures';

// The compiled code, as n8n loads it: the credential test embeds the function's compiled text.
const { BASE_URL_REASONS, readBaseUrl } = require('../dist/nodes/shared/transport/baseUrl') as typeof import('../nodes/shared/transport/baseUrl');
const { BASE_URL_ROOT, READ_BASE_URL } = require('../dist/credentials/testRequest') as typeof import('../credentials/testRequest');

const f = useSandbox();
const rl = (value: string) => ({ __rl: true, mode: 'id', value });

interface Seen {
	/** 'sent' when the spelling was accepted and the request reached the sandbox; else the reason code of the refusal. */
	outcome: string;
	message: string;
}

function reasonIn(message: string): string {
	const found = Object.entries(BASE_URL_REASONS).find(([, reason]) => message.includes(reason));
	return found ? `refused ${found[0]}` : `other: ${message}`;
}

async function throughCredentialTest(baseUrl: string): Promise<Seen> {
	f.sb.clearRequests();
	const result = await testCredential('vaultStoreStoreApi', { ...f.credentials.vaultStoreStoreApi, baseUrl } as IDataObject);
	const sent = f.requests().length;
	return { outcome: sent > 0 ? `sent ${f.requests()[0].path}` : reasonIn(result.message), message: result.message };
}

async function throughNode(baseUrl: string): Promise<Seen> {
	const order = f.sb.state.orders[0].id;
	const credentials = { ...f.credentials, vaultStoreStoreApi: { ...f.credentials.vaultStoreStoreApi, baseUrl } };
	const run = await f.run({ resource: 'order', operation: 'get', orderId: rl(order) }, undefined, { credentials });
	const sent = f.requests().length;
	const message = run.error()?.message ?? '';
	return { outcome: sent > 0 ? `sent ${f.requests()[0].path.replace(/\/orders\/.*$/, '')}` : reasonIn(message), message };
}

describe('the credential test and the node agree on every Base URL spelling', () => {
	// $base: the sandbox, http://127.0.0.1:<port>; $host: 127.0.0.1:<port>.
	const rows: [string, string, string][] = [
		// spelling, what both do, why
		['$base', 'sent', 'control: the address as the sandbox prints it'],
		['HTTP://$host', 'sent', 'an upper-case scheme (the test refused it, the node took it)'],
		['Http://$host/', 'sent', 'a mixed-case scheme and a trailing slash'],
		['$base//', 'sent', 'only trailing slashes'],
		['http://127.0.0.1:0$port', 'sent', 'a port with a leading zero'],
		['$base/gw', 'sent', 'a gateway path the sandbox does not have: sent below it, answered not found'],
		['$base//gw', 'refused 6', 'a doubled slash in a gateway path (the test sent the key there, the node refused)'],
		['https://gw.example.invalid//store', 'refused 6', 'the same over https to a gateway'],
		['$base/gw//x', 'refused 6', 'a doubled slash inside the path'],
		['$base/a/../gw', 'refused 8', 'a dot segment'],
		['$base/gw%2Fadmin', 'refused 7', 'an encoded slash'],
		['$base/st%41re', 'refused 7', 'an encoded letter (the test refused it, the node took it)'],
		['http:\\\\$host', 'refused 2', 'backslashes for slashes'],
		['http:$host', 'refused 2', 'no slashes after the scheme'],
		['$host', 'refused 2', 'no scheme'],
		['$base?x=1', 'refused 5', 'a query'],
		['$base#top', 'refused 5', 'a fragment'],
		['http://u:p@$host', 'refused 4', 'a user and password'],
		['http://127.0.0.1:99999', 'refused 9', 'a port out of range'],
		['http://api.example.invalid', 'refused 3', 'plain http to a host that is not loopback'],
		['ftp://$host', 'refused 3', 'another scheme'],
		['', 'refused 0', 'empty'],
		['http://127.0.0.1 :1', 'refused 1', 'a space'],
	];
	test.each(rows)('%j: %s (%s)', async (spelling, expected) => {
		const base = f.sb.baseUrl.replace(/\/+$/, '');
		const host = base.replace(/^http:\/\//, '');
		const port = host.split(':')[1];
		const baseUrl = spelling.replace('$base', base).replace('$host', host).replace('$port', port);
		const test = await throughCredentialTest(baseUrl);
		const node = await throughNode(baseUrl);
		if (expected === 'sent') {
			const gateway = spelling.includes('/gw') ? '/gw' : '';
			expect([test.outcome, node.outcome]).toEqual([`sent ${gateway}/v2/core/stores/${f.credentials.vaultStoreStoreApi.storeId}`, `sent ${gateway}/v2/core/stores/${f.credentials.vaultStoreStoreApi.storeId}`]);
			if (gateway === '') expect([test.message, node.message]).toEqual(['Connection successful!', '']);
			return;
		}
		expect([test.outcome, node.outcome]).toEqual([expected, expected]);
		const reason = BASE_URL_REASONS[expected.slice(-1)];
		expect(test.message).toBe(`Base URL: the address ${reason}. Nothing was sent.`);
		expect(node.message).toBe(`Credential field "Base URL" ${reason}`);
	});
});

describe('the rule: the same in n8n\'s expression engine, and the same address as WHATWG reads it', () => {
	const globals: IDataObject = {};
	Expression.initializeGlobalContext(globals);
	/** readBaseUrl as the credential test runs it (its compiled text, in an n8n expression), over many texts in one expression. */
	const inExpression = (texts: string[]): unknown =>
		Expression.resolveWithoutWorkflow(`{{ ${JSON.stringify(texts)}.map((text) => ${READ_BASE_URL}(text)) }}`, { ...globals });
	const whatwg = (text: string): string => {
		const url = new URL(text);
		return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
	};

	const spellings: string[] = [];
	for (const scheme of ['https://', 'HTTPS://', 'Https://', 'http://', 'HTTP://', 'ftp://', 'https:', 'https:/', 'https:\\\\', 'https:/\\']) {
		for (const host of ['api.example.com', 'API.Example.COM', 'localhost', 'LocalHost', '127.0.0.1', '127.1', '127.000.0.1', '10.0.0.1', '256.1.1.1', '1.2.3.4.5', '[::1]', '[0:0:0:0:0:0:0:1]', '[::]', '[1:::2]', '[1:2]', '[2001:db8::8a2e:370:7334]', 'a..b', '.a', 'a.', '0x7f.0.0.1', 'xn--bcher-kva.example', 'bücher.example', 'a_b.example', 'u@h', 'u:p@h']) {
			for (const port of ['', ':443', ':80', ':0443', ':65535', ':65536', ':']) {
				for (const path of ['', '/', '//', '/gw/', '//gw', '/gw//x', '/a/./b', '/a/../b', '/a%2Fb', '/a%41', '/a\\b', '/caf\u00e9', '/a?x=1', '/#f', "/a@b-c_d.e~!$&'()*+,;=:"]) {
					spellings.push(`${scheme}${host}${port}${path}`);
				}
			}
		}
	}

	test(`over ${spellings.length} spellings: the expression gives what the node's call gives`, () => {
		const differ: string[] = [];
		for (let start = 0; start < spellings.length; start += 1000) {
			const texts = spellings.slice(start, start + 1000);
			const roots = inExpression(texts) as string[];
			texts.forEach((text, i) => {
				if (roots[i] !== readBaseUrl(text)) differ.push(`${text}: ${String(roots[i])} in the expression, ${readBaseUrl(text)} in the node`);
			});
		}
		expect(differ).toEqual([]);
		expect(spellings.filter((text) => !readBaseUrl(text).startsWith('!')).length).toBeGreaterThan(1000);
	});

	test('what the rule accepts, WHATWG parses as the same address (root and origin with path); what it refuses has a reason', () => {
		const wrong: string[] = [];
		for (const text of spellings) {
			const root = readBaseUrl(text);
			if (root.startsWith('!')) {
				if (BASE_URL_REASONS[root.slice(1)] === undefined) wrong.push(`${text}: ${root}`);
				continue;
			}
			try {
				if (whatwg(root) !== whatwg(text) || !/^https?:\/\/[^/]+(\/.*)?$/.test(root) || root.endsWith('/')) wrong.push(`${text}: ${root} vs ${whatwg(text)}`);
			} catch (error) {
				wrong.push(`${text}: ${root}, ${(error as Error).message}`);
			}
		}
		expect(wrong).toEqual([]);
	});

	test('controls: the expression text is one expression (no {{ or }} inside), and a rule run outside n8n gives the same roots', () => {
		expect(BASE_URL_ROOT).not.toMatch(/\{\{|\}\}/);
		expect(readBaseUrl('HTTPS://GW.Example.com:443/Store/')).toBe('https://gw.example.com/Store');
		expect(inExpression(['HTTPS://GW.Example.com:443/Store/'])).toEqual(['https://gw.example.com/Store']);
		// The credential test's own text, as its URL expression starts.
		expect(BASE_URL_ROOT.startsWith(READ_BASE_URL)).toBe(true);
		expect(readBaseUrl('https://gw.example.com//store')).toBe('!6');
	});
});
