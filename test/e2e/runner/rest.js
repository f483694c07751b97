// @ts-check
/**
 * n8n's REST API as the tests drive it: owner set-up and login, an API key, cookies.
 * Part of the e2e runner's library (lib.js gathers it).
 */
'use strict';

const { OWNER } = require('./package-info');

/** A small cookie-keeping client of n8n's internal REST API and public API. */
function restClient(baseUrl) {
	let cookie = '';
	const client = {
		apiKey: '',
		/** @returns {Promise<{status: number, body: any}>} */
		async request(method, p, body, headers = {}) {
			const res = await fetch(baseUrl + p, {
				method,
				headers: {
					...(body === undefined ? {} : { 'content-type': 'application/json' }),
					...(cookie ? { cookie } : {}),
					...headers,
				},
				body: body === undefined ? undefined : JSON.stringify(body),
				signal: AbortSignal.timeout(30_000),
			});
			const set = res.headers.getSetCookie?.() ?? [];
			const auth = set.map((c) => c.split(';')[0]).find((c) => c.startsWith('n8n-auth='));
			if (auth) cookie = auth;
			const text = await res.text();
			let parsed;
			try {
				parsed = text ? JSON.parse(text) : undefined;
			} catch {
				parsed = text;
			}
			return { status: res.status, body: parsed };
		},
		async ok(method, p, body, headers) {
			const r = await client.request(method, p, body, headers);
			if (r.status >= 300) throw new Error(`${method} ${p}: HTTP ${r.status} ${JSON.stringify(r.body).slice(0, 500)}`);
			return r.body?.data ?? r.body;
		},
		/** Owner setup on a fresh instance (or login when done before). */
		async ownerLogin(owner = OWNER) {
			const setup = await client.request('POST', '/rest/owner/setup', owner);
			if (setup.status >= 300) {
				await client.ok('POST', '/rest/login', { emailOrLdapLoginId: owner.email, password: owner.password });
			}
			return owner;
		},
		/** An API key of the logged-in user for the public API (/api/v1). */
		async createApiKey(label = 'vault-store-e2e') {
			let scopes = [];
			const s = await client.request('GET', '/rest/api-keys/scopes');
			if (s.status < 300) scopes = s.body?.data ?? s.body ?? [];
			const data = await client.ok('POST', '/rest/api-keys', { label, expiresAt: null, scopes });
			client.apiKey = data.rawApiKey ?? data.apiKey;
			if (!client.apiKey) throw new Error(`POST /rest/api-keys returned no key: ${Object.keys(data).join(', ')}`);
			return client.apiKey;
		},
		/** GET on the public API with the API key. */
		async api(p) {
			const res = await fetch(`${baseUrl}/api/v1${p}`, { headers: { 'X-N8N-API-KEY': client.apiKey, accept: 'application/json' }, signal: AbortSignal.timeout(30_000) });
			const text = await res.text();
			if (!res.ok) throw new Error(`GET /api/v1${p}: HTTP ${res.status} ${text.slice(0, 300)}`);
			return JSON.parse(text);
		},
	};
	return client;
}

module.exports = { restClient };
