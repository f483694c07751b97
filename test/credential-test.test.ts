/**
 * Issue 44 item 2: the credential test names the field that is wrong. Each credential's test runs
 * as n8n's credential tester runs it (test/support/credential-tester.ts: n8n-core's RoutingNode
 * over real HTTP to the sandbox, then the test's rules), and the message it shows names the field:
 * a shape refused before anything is sent (nothing reaches the sandbox), or the service's answer
 * read by the rules, which fail every answer that is not the store (fail closed). The same cases
 * run in a real n8n in the e2e suite (test/e2e/credential-test.js).
 */
import type { IDataObject } from 'n8n-workflow';

import type { FaultSpec } from '../sandbox/faults';
import { testCredential } from './support/credential-tester';
import { useSandbox } from './support/fixtures';

const f = useSandbox();

const store = (patch: IDataObject = {}) => ({ ...f.credentials.vaultStoreStoreApi, ...patch });
const vault = (patch: IDataObject = {}) => ({ ...f.credentials.vaultStoreVaultApi, ...patch });

/** The store credential's test with `patch`, after `fault` is armed; with what reached the sandbox. */
async function testStore(patch: IDataObject = {}, fault?: Omit<FaultSpec, 'match'>) {
	f.sb.clearRequests();
	if (fault) f.sb.faults.add({ ...fault, match: { path: /\/v2\/core\/stores\// } });
	const result = await testCredential('vaultStoreStoreApi', store(patch));
	const key = String(store(patch).secretKey);
	// No message shows the key (or its end: n8n masks secrets to their last three characters).
	if (key.length > 3) expect(result.message).not.toContain(key.slice(3));
	return { ...result, sent: f.requests().length };
}

describe('Store API credential', () => {
	test('the right values pass, with a secret key and with a store token', async () => {
		expect(await testStore()).toEqual({ status: 'OK', message: 'Connection successful!', sent: 1 });
		expect(await testStore({ secretKey: f.sb.store.storeTokenKey })).toMatchObject({ status: 'OK', sent: 1 });
	});

	test.each([
		['a wrong Secret Key', { secretKey: 'sk_sandbox_not_a_key_of_this_store' }, /^Secret Key: the service refused it/],
		['a Store ID of no store', { storeId: 'shp_000000000000' }, /^Store ID or Base URL: .*Check the Store ID/],
		['a Base URL with a path the service does not have', { baseUrl: '$base/gateway' }, /^Store ID or Base URL: .*the path in the Base URL/],
	])('%s: the service answers, and the message names the field', async (_name, patch, message) => {
		const values = { ...patch } as IDataObject;
		if (typeof values.baseUrl === 'string') values.baseUrl = values.baseUrl.replace('$base', f.sb.baseUrl);
		expect(await testStore(values)).toMatchObject({ status: 'Error', message: expect.stringMatching(message), sent: 1 });
	});

	test.each<[string, Omit<FaultSpec, 'match'>, RegExp]>([
		['an HTML page (another server at the Base URL)', { kind: 'html' }, /^Base URL: the answer did not come from the service/],
		['an empty answer', { kind: 'empty' }, /^Base URL: the answer did not come from the service/],
		['a redirect (not followed)', { kind: 'redirect', status: 302, location: 'http://127.0.0.1:9/elsewhere' }, /^Base URL: the answer did not come from the service/],
		['{ok: true} without data', { kind: 'reply', reply: { body: { ok: true } } }, /^Base URL: the answer has no store in it/],
		['{ok: null, data: null}', { kind: 'reply', reply: { body: { ok: null, data: null } } }, /^Base URL: the answer did not come from the service/],
		['a 500 error in the envelope', { kind: '500' }, /^Secret Key or Store ID: the service refused the request/],
		['a 429 error in the envelope', { kind: '429' }, /^Secret Key or Store ID: the service refused the request/],
		['a 200 error envelope', { kind: 'reply', reply: { body: { ok: false, error: { code: 'whatever', message: 'no' } } } }, /^Secret Key or Store ID/],
	])('fail closed: %s fails the test', async (_name, fault, message) => {
		expect(await testStore({}, fault)).toMatchObject({ status: 'Error', message: expect.stringMatching(message), sent: 1 });
	});

	test.each([
		['Base URL over plain http to another host', { baseUrl: 'http://api.example.com' }, /^Base URL: the address must start with https:\/\//],
		['Base URL with a query', { baseUrl: 'https://api.example.com?x=1' }, /^Base URL:/],
		['Base URL with a user', { baseUrl: 'https://u:p@api.example.com' }, /^Base URL:/],
		['Base URL with an encoded slash', { baseUrl: 'https://api.example.com/gw%2Fadmin' }, /^Base URL:/],
		['Base URL not an address', { baseUrl: 'api.example.com' }, /^Base URL:/],
		['Base URL empty', { baseUrl: '' }, /^Base URL:/],
		['Store ID without shp_', { storeId: 'abc_aaaaaaaaaaaa' }, /^Store ID: it starts with shp_ and is 12 to 48 characters long/],
		['Store ID too short', { storeId: 'shp_abc' }, /^Store ID:/],
		['Store ID too long', { storeId: `shp_${'a'.repeat(45)}` }, /^Store ID:/],
		['an HMAC key (shk_)', { secretKey: 'shk_live_abcdefghijklmnop' }, /^Secret Key: HMAC keys \(shk_\.\.\.\) are not supported, because the service does not publish how requests are signed with them/],
		['a key of another kind', { secretKey: 'psk_abcdefghijklmnop' }, /^Secret Key: use the store's secret key \(sk_\.\.\.\) or a store token \(stk_\.\.\.\)/],
		['a key with a space', { secretKey: 'sk_abc def' }, /^Secret Key: use/],
		['an empty key', { secretKey: '' }, /^Secret Key: use/],
		['a blank Webhook Signing Secret', { signingSecret: '  ' }, /^Webhook Signing Secret: it is blank or only whsec_/],
		['a bare whsec_ as the Webhook Signing Secret', { signingSecret: 'whsec_' }, /^Webhook Signing Secret:/],
		['a bare whsec_ as the Previous Signing Secret', { previousSigningSecret: 'whsec_ ' }, /^Previous Signing Secret: it is blank or only whsec_/],
	])('refused before sending: %s, named', async (_name, patch, message) => {
		expect(await testStore(patch)).toMatchObject({ status: 'Error', message: expect.stringMatching(message), sent: 0 });
	});

	test('the first wrong field in the form is named (Base URL, then Store ID, then Secret Key)', async () => {
		expect((await testStore({ baseUrl: 'ftp://x', storeId: 'x', secretKey: 'shk_x' })).message).toMatch(/^Base URL:/);
		expect((await testStore({ storeId: 'x', secretKey: 'shk_x' })).message).toMatch(/^Store ID:/);
	});

	test('a short, repeated or spaced signing secret passes (the trigger warns about it at activation); no secret at all passes', async () => {
		for (const signingSecret of ['whsec_abc', 'short', 'aaaaaaaa', 'two words here', '']) {
			expect(await testStore({ signingSecret, previousSigningSecret: signingSecret })).toMatchObject({ status: 'OK', sent: 1 });
		}
	});
});

describe('Vault API credential', () => {
	async function testVault(patch: IDataObject = {}) {
		f.sb.clearRequests();
		const result = await testCredential('vaultStoreVaultApi', vault(patch));
		return { ...result, sent: f.requests().length };
	}

	test('the right values pass', async () => {
		expect(await testVault()).toEqual({ status: 'OK', message: 'Connection successful!', sent: 1 });
	});

	test.each([
		['Base URL', { baseUrl: 'http://api.example.com' }, /^Base URL:/],
		['Workspace ID', { workspaceId: 'wks_' }, /^Workspace ID: it starts with wks_/],
		['Vault ID', { vaultId: 'abc' }, /^Vault ID: it starts with vlt_/],
		['Secret Key', { secretKey: ' ' }, /^Secret Key: it is empty or has spaces/],
	])('a wrong %s is refused before sending, named', async (_name, patch, message) => {
		expect(await testVault(patch)).toMatchObject({ status: 'Error', message: expect.stringMatching(message), sent: 0 });
	});

	test('an error answer fails with n8n\'s own text (the vault\'s answer bodies are not documented enough to name a field)', async () => {
		// (n8n sends a request again after a 401, once.)
		expect(await testVault({ secretKey: 'vk_not_a_key' })).toMatchObject({ status: 'Error', message: 'Authorization failed - please check your credentials' });
	});
});
