// @ts-check
/**
 * The credential tests in a running n8n (`n8n start`), as the editor's Test button runs them
 * (POST /rest/credentials/test with the saved credential's id and the values in the form): the
 * message n8n shows names the field that is wrong, nothing is sent when a field's shape is wrong,
 * and no message shows the key. Also: the credential modal's notices (an HMAC key, a short signing
 * secret) as n8n serves the credential type and as n8n's own displayParameter (the function the
 * editor's credential modal calls with the credential's values) decides them.
 */
'use strict';

const path = require('node:path');

const { CREDENTIALS } = require('./runner/lib');

/**
 * @param {{inst: any, sb: any, t: import('./runner/results').Results, rest: any}} ctx
 */
async function credentialTestChecks({ inst, sb, t, rest }) {
	const creds = sb.credentials();
	const store = creds.vaultStoreStoreApi;
	const vault = creds.vaultStoreVaultApi;

	/** The editor's Test: the saved credential's id with the form's values. */
	const test = async (/** @type {any} */ ref, /** @type {Record<string, unknown>} */ data) => {
		sb.clearRequests();
		const r = await rest.request('POST', '/rest/credentials/test', { credentials: { id: ref.id, name: ref.name, type: ref.type, data } });
		const body = r.body?.data ?? r.body;
		const sent = sb.requests.filter((/** @type {any} */ q) => !q.path.startsWith('/__dev')).length;
		return { status: body?.status, message: String(body?.message ?? JSON.stringify(r.body)), sent, http: r.status };
	};
	const keys = [store.secretKey, sb.store.storeTokenKey, vault.secretKey, 'sk_sandbox_not_a_key_of_this_store', 'shk_live_abcdefghijklmnop'];
	/** No message shows a key, whole or the part n8n's masking would leave. */
	const clean = (/** @type {string} */ message) => keys.every((k) => !message.includes(k) && !message.includes(k.slice(3)));

	/** @type {[string, any, Record<string, unknown>, RegExp | 'OK', boolean][]} */
	const cases = [
		['store: the right values', CREDENTIALS.store, {}, 'OK', true],
		['store: a store token (stk_)', CREDENTIALS.store, { secretKey: sb.store.storeTokenKey }, 'OK', true],
		['store: a short Webhook Signing Secret', CREDENTIALS.store, { signingSecret: 'whsec_abc' }, 'OK', true],
		['store: a wrong Secret Key', CREDENTIALS.store, { secretKey: 'sk_sandbox_not_a_key_of_this_store' }, /^Secret Key: the service refused it/, true],
		['store: a wrong Store ID', CREDENTIALS.store, { storeId: 'shp_000000000000' }, /^Store ID or Base URL: .*Check the Store ID/, true],
		['store: a Base URL with a gateway path the service does not have', CREDENTIALS.store, { baseUrl: `${store.baseUrl}/gateway` }, /the path in the Base URL/, true],
		['store: a Base URL pointing at another server (n8n itself)', CREDENTIALS.store, { baseUrl: inst.url }, /^Base URL: the answer did not come from the service/, false],
		['store: a malformed Base URL (plain http to another host)', CREDENTIALS.store, { baseUrl: 'http://api.example.com' }, /^Base URL: the address must start with https:\/\//, false],
		['store: a malformed Base URL (a query)', CREDENTIALS.store, { baseUrl: `${store.baseUrl}?x=1` }, /^Base URL:/, false],
		// One Base URL rule with the node (issue 54): an upper-case scheme passes, a doubled slash in a gateway path is refused, nothing sent.
		['store: a Base URL with an upper-case scheme', CREDENTIALS.store, { baseUrl: store.baseUrl.replace(/^http:/, 'HTTP:') }, 'OK', true],
		['store: a Base URL with a doubled slash in its gateway path', CREDENTIALS.store, { baseUrl: `${store.baseUrl}//gateway` }, /^Base URL: the address has a doubled slash in its path/, false],
		['store: an HMAC key (shk_)', CREDENTIALS.store, { secretKey: 'shk_live_abcdefghijklmnop' }, /^Secret Key: HMAC keys \(shk_\.\.\.\) are not supported, because the service does not publish how requests are signed with them/, false],
		['store: a Store ID without shp_', CREDENTIALS.store, { storeId: 'abc_aaaaaaaaaaaa' }, /^Store ID: it starts with shp_ and is 12 to 48 characters long/, false],
		['store: a blank Webhook Signing Secret', CREDENTIALS.store, { signingSecret: ' ' }, /^Webhook Signing Secret: it is blank or only whsec_/, false],
		['vault: the right values', CREDENTIALS.vault, {}, 'OK', true],
		['vault: a Workspace ID without wks_', CREDENTIALS.vault, { workspaceId: 'abc' }, /^Workspace ID: it starts with wks_/, false],
		['vault: a malformed Base URL', CREDENTIALS.vault, { baseUrl: 'http://api.example.com' }, /^Base URL:/, false],
		// The vault's answers are not documented well enough to name a field from them: n8n's own text
		// (2.8: "Authorization failed - please check your credentials"; 2.41: the status text).
		['vault: a wrong Secret Key', CREDENTIALS.vault, { secretKey: 'sk_sandbox_not_a_key_of_this_store' }, /^(Authorization failed - please check your credentials|Unauthorized)$/, true],
	];
	for (const [name, ref, patch, expected, reachesSandbox] of cases) {
		const values = ref.type === 'vaultStoreStoreApi' ? store : vault;
		const r = await test(ref, { ...values, ...patch });
		if (expected === 'OK') t.equal(`credential test: ${name}: OK`, [r.status, r.message], ['OK', 'Connection successful!']);
		else t.check(`credential test: ${name}: fails with the expected message`, r.status === 'Error' && expected.test(r.message), JSON.stringify(r));
		t.check(`credential test: ${name}: ${reachesSandbox ? 'the service is asked' : 'nothing reaches the service'}`, reachesSandbox ? r.sent >= 1 : r.sent === 0, `requests at the sandbox: ${r.sent}`);
		t.check(`credential test: ${name}: the message shows no key`, clean(r.message), 'a key in the message');
		console.log(`[credential test] ${name}: ${r.status} "${r.message}"`);
	}

	// ------------------------------------------------------------------ the modal's notices
	const types = await rest.ok('GET', '/types/credentials.json');
	const type = (Array.isArray(types) ? types : []).find((/** @type {any} */ c) => c.name === 'vaultStoreStoreApi');
	const notice = (/** @type {string} */ name) => type?.properties?.find((/** @type {any} */ p) => p.name === name);
	t.must('notices: n8n serves the store credential with its two notices', notice('hmacKeyNotice') && notice('shortSigningNotice'), JSON.stringify(type?.properties?.map((/** @type {any} */ p) => p.name)));
	const { NodeHelpers } = require(path.join(inst.home, 'node_modules', 'n8n-workflow'));
	const shown = (/** @type {string} */ name, /** @type {Record<string, unknown>} */ values) => NodeHelpers.displayParameter(values, notice(name), null, null);
	const saved = await rest.ok('GET', `/rest/credentials/${CREDENTIALS.store.id}?includeData=true`);
	const masked = saved?.data?.signingSecret;
	t.check('notices: a saved signing secret comes back to the dialog masked', typeof masked === 'string' && masked !== '' && masked !== store.signingSecret, typeof masked === 'string' ? `${masked.length} characters` : String(masked));
	t.equal(
		'notices: the short-secret notice shows while a short secret is typed, not for a long one, none or the saved (masked) one',
		[shown('shortSigningNotice', { ...store, signingSecret: 'whsec_abc' }), shown('shortSigningNotice', { ...store, signingSecret: 'short' }), shown('shortSigningNotice', store), shown('shortSigningNotice', { ...store, signingSecret: '' }), shown('shortSigningNotice', saved?.data ?? {})],
		[true, true, false, false, false],
	);
	t.equal(
		'notices: the HMAC-key notice shows for a shk_ key only',
		[shown('hmacKeyNotice', { ...store, secretKey: 'shk_live_abc' }), shown('hmacKeyNotice', store), shown('hmacKeyNotice', { ...store, secretKey: sb.store.storeTokenKey })],
		[true, false, false],
	);
}

module.exports = { credentialTestChecks };
