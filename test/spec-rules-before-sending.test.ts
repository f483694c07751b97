/**
 * Issue 54 point 7: what the service's rules state is checked before sending, and a rule of the
 * node's own warns without blocking. Each case with a control, counting the requests the sandbox
 * saw (none for refused input):
 *  - the endpoint URL the trigger registers: https:// and at most 512 characters (POST /webhooks:
 *    `url` (string, required, max 512, must start with `https://`));
 *  - a License ID starts with lic_ (the license record: id (prefix `lic_`)), as other ids their prefix;
 *  - an HMAC key (shk_) is refused at run time saying why, as the credential test says;
 *  - a lower-case payout currency is sent as typed, with a warning that says what it is.
 */
import type { IDataObject } from 'n8n-workflow';

import { MAX_ENDPOINT_URL_LENGTH } from '../nodes/VaultStoreTrigger/settings';
import { useSandbox } from './support/fixtures';
import type { CredentialSet } from './support/harness';
import { createTrigger } from './support/trigger-harness';

const f = useSandbox();
const rl = (value: string) => ({ __rl: true, mode: 'id', value });
const expr = (value: string) => ({ __rl: true, mode: 'id', value: `={{ ${JSON.stringify(value)} }}` });

const PARAMS = { events: ['PAYMENT_COMPLETED'], signatureVersion: 'V2', note: 'spec rules', options: {} };

async function failure(run: Promise<unknown>): Promise<(Error & { description?: string }) | undefined> {
	return await run.then(
		() => undefined,
		(e: Error & { description?: string }) => e,
	);
}

/** A trigger whose n8n webhook URL is exactly `length` characters long (https). */
async function triggerWithUrlLength(length: number, parameters: IDataObject = PARAMS, credentials: CredentialSet = f.credentials) {
	const probe = await createTrigger({ parameters, credentials, webhookBaseUrl: 'https://n8n.example.test/w' });
	const pad = length - probe.webhookUrl().length;
	const t = await createTrigger({ parameters, credentials, webhookBaseUrl: `https://n8n.example.test/w${'a'.repeat(pad)}` });
	expect(t.webhookUrl()).toHaveLength(length);
	return t;
}

describe('the trigger registers only an https:// URL of at most 512 characters', () => {
	test('control: a URL of exactly 512 characters is registered (one POST)', async () => {
		const t = await triggerWithUrlLength(MAX_ENDPOINT_URL_LENGTH);
		f.sb.clearRequests();
		expect(await t.create()).toBe(true);
		expect(f.requests().filter((r) => r.method === 'POST' && /\/webhooks$/.test(r.path))).toHaveLength(1);
		expect(f.sb.state.webhooks.filter((w) => w.url === t.webhookUrl())).toHaveLength(1);
		expect(await t.delete()).toBe(true);
	});

	test('513 characters: activation fails before any request, saying the limit (create and checkExists alike)', async () => {
		const t = await triggerWithUrlLength(MAX_ENDPOINT_URL_LENGTH + 1);
		f.sb.clearRequests();
		for (const call of [() => t.create(), () => t.checkExists()]) {
			const error = await failure(call());
			expect(error?.message).toBe("n8n's webhook URL for this trigger is 513 characters long; the service registers endpoint URLs of at most 512 characters");
			expect(error?.description).toMatch(/^Nothing was sent\. Set the WEBHOOK_URL environment variable of n8n to a shorter public https address/);
		}
		expect(f.requests()).toHaveLength(0);
		expect(t.staticData()).toEqual({});
	});

	test('control: with Manage Endpoint off nothing is registered, so a long URL is not refused', async () => {
		const t = await triggerWithUrlLength(MAX_ENDPOINT_URL_LENGTH + 1, { ...PARAMS, options: { manageEndpoint: false } });
		f.sb.clearRequests();
		expect(await t.checkExists()).toBe(true);
		expect(f.requests()).toHaveLength(0);
	});

	test.each([
		['http:// to a host that is not loopback, with the local sandbox as the service', 'http://n8n.example.test/webhook', undefined],
		['http://127.0.0.1 with a service over https (not a local stand-in)', 'http://127.0.0.1:5678/webhook', 'https://api.example.invalid'],
	])('%s: refused before any request, naming WEBHOOK_URL', async (_name, webhookBaseUrl, baseUrl) => {
		const credentials = baseUrl === undefined ? f.credentials : { ...f.credentials, vaultStoreStoreApi: { ...f.credentials.vaultStoreStoreApi, baseUrl } };
		const t = await createTrigger({ parameters: PARAMS, credentials, webhookBaseUrl });
		f.sb.clearRequests();
		for (const call of [() => t.create(), () => t.checkExists()]) {
			const error = await failure(call());
			expect(error?.message).toBe(`n8n's webhook URL is ${t.webhookUrl()}; the service only accepts https:// endpoints. Set WEBHOOK_URL to a public https address (e.g. through a tunnel)`);
			expect(error?.description).toMatch(/^Nothing was sent\./);
		}
		expect(f.requests()).toHaveLength(0);
	});

	test('control: http://127.0.0.1 with the local sandbox as the service is sent (the sandbox allows it)', async () => {
		const t = await createTrigger({ parameters: PARAMS, credentials: f.credentials, webhookBaseUrl: 'http://127.0.0.1:5678/webhook' });
		f.sb.clearRequests();
		expect(await t.create()).toBe(true);
		expect(f.requests().filter((r) => r.method === 'POST')).toHaveLength(1);
		expect(await t.delete()).toBe(true);
	});
});

describe('a License ID is held to its lic_ prefix', () => {
	const license = () => f.sb.state.licenses[0];

	test('control: a lic_ id is sent (one GET)', async () => {
		const r = await f.run({ resource: 'license', operation: 'get', licenseId: rl(license().id) });
		expect(r.error()).toBeUndefined();
		expect(f.requests()).toHaveLength(1);
	});

	test.each([
		['another prefix', 'key_aaaaaaaaaaaa'],
		['no prefix', 'aaaaaaaaaaaaaaaa'],
		['another id kind', 'ord_aaaaaaaaaaaa'],
	])('%s: refused before any request, as other ids are', async (_name, id) => {
		const r = await f.run({ resource: 'license', operation: 'get', licenseId: expr(id) });
		expect(r.error()?.message).toMatch(/^"License ID" must start with "lic_" and be 12 to 48 characters long/);
		expect(f.requests()).toHaveLength(0);
	});
});

describe('an HMAC key (shk_) is refused at run time, saying why', () => {
	const withKey = (secretKey: string): CredentialSet => ({ ...f.credentials, vaultStoreStoreApi: { ...f.credentials.vaultStoreStoreApi, secretKey } });

	test('shk_: the error says the node does not support HMAC keys and why; nothing sent', async () => {
		const r = await f.run({ resource: 'store', operation: 'get' }, undefined, { credentials: withKey('shk_live_abcdefghijklmnop') });
		expect(r.error()?.message).toBe('Credential field "Secret Key" is an HMAC key (shk_...), which the node does not support');
		expect(r.error()?.description).toMatch(/does not publish how requests are signed with HMAC keys.*secret key \(sk_\.\.\.\) or a store token \(stk_\.\.\.\).*Nothing was sent/);
		expect(f.requests()).toHaveLength(0);
	});

	test('controls: another wrong prefix keeps its message; sk_ is sent', async () => {
		const other = await f.run({ resource: 'store', operation: 'get' }, undefined, { credentials: withKey('psk_abcdefghijklmnop') });
		expect(other.error()?.message).toBe('Credential field "Secret Key" must start with sk_ (secret key) or stk_ (store token)');
		expect(f.requests()).toHaveLength(0);
		const ok = await f.run({ resource: 'store', operation: 'get' });
		expect(ok.error()).toBeUndefined();
		expect(f.requests()).toHaveLength(1);
	});
});

describe('a lower-case payout currency: sent as typed, with a warning that says what it is', () => {
	test('usd: sent as usd; the warning says it is an ISO 4217 code in lower case, not that it was changed', async () => {
		const r = await f.run({ resource: 'payout', operation: 'create', amount: 5, additionalFields: { currency: 'usd' } }, undefined, { continueOnFail: true });
		expect(f.requests()).toHaveLength(1);
		expect(f.requests()[0].body).toMatchObject({ currency: 'usd' });
		const messages = r.hints().map((h) => h.message);
		expect(messages).toEqual([expect.stringMatching(/^"Currency" usd is a currency code \(ISO 4217, three letters\) written in lower case: the service shows these codes in upper case \(USD\).*It was sent as typed \(usd\); if the service refuses it, type USD/)]);
		expect(messages[0]).not.toMatch(/upper-cased|was sent as USD/);
	});

	test('control: USD is sent without a warning', async () => {
		const r = await f.run({ resource: 'payout', operation: 'create', amount: 5, additionalFields: { currency: 'USD' } }, undefined, { continueOnFail: true });
		expect(f.requests()).toHaveLength(1);
		expect(f.requests()[0].body).toMatchObject({ currency: 'USD' });
		expect(r.hints()).toEqual([]);
	});
});
