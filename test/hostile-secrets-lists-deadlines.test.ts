/**
 * Issue 27, hostile service round 2: secrets, signatures, lists and deadlines. Each
 * describe block is one numbered item of the issue and runs the node's real code inside
 * n8n-core against the sandbox's hostile mode (sb.hostile, sb.faults) over real HTTP.
 */
import { randomUUID } from 'node:crypto';

import type { IDataObject } from 'n8n-workflow';

import { signedHeaders } from '../sandbox/deliveries';
import type { WebhookEndpoint } from '../sandbox/state';
import fc from 'fast-check';

import { Redactor } from '../nodes/shared/redaction/secrets';
import { testCredential } from './support/credential-tester';
import { jsonOf, useSandbox } from './support/fixtures';
import { logLines } from './support/harness';
import { serialiseAll } from './support/secret-scan';
import type { TriggerInstance } from './support/trigger-harness';
import { createTrigger, registeredEndpoint, withStoreFields } from './support/trigger-harness';

const f = useSandbox();

const rl = (value: string) => ({ __rl: true, mode: 'id', value });

const mutableCredentials = (store: IDataObject = {}) => withStoreFields(f.credentials, store);

const endpointOf = (t: TriggerInstance): WebhookEndpoint => registeredEndpoint(f.sb.state.webhooks, t);

/** One delivery of a fresh message to the trigger, signed as the sandbox signs for `endpoint`, with `secret`. */
/** When each message was first made: every attempt of one message carries the same body, as the service sends it. */
const messageCreatedAt = new Map<string, string>();

async function deliverSigned(t: TriggerInstance, endpoint: WebhookEndpoint, secret: string, messageId = `msg_${randomUUID().replace(/-/g, '')}`) {
	if (!messageCreatedAt.has(messageId)) messageCreatedAt.set(messageId, new Date().toISOString());
	const body = JSON.stringify({ id: messageId, event: 'PAYMENT_COMPLETED', createdAt: messageCreatedAt.get(messageId), data: { amount: 1 } });
	const headers = signedHeaders(endpoint, secret, messageId, `job_${randomUUID().slice(0, 8)}`, body, Date.now());
	return await t.deliver({ rawBody: Buffer.from(body), headers });
}

const whsec = (fill: number): string => `whsec_${Buffer.from(Array.from({ length: 32 }, (_, i) => (fill * 31 + i * 7) & 0xff)).toString('base64')}`;

describe('1. rotation revokes: the credential is the source of truth for signing secrets', () => {
	afterEach(() => void (f.sb.hostile.registrationSecret = false));

	test.each(['V2', 'V1'])('%s: the README rotation steps on one live trigger, with a secret returned at registration and the same static data throughout', async (version) => {
		f.sb.hostile.registrationSecret = true;
		// The user has not copied a secret yet: the one the service returns is used.
		const creds = mutableCredentials({ signingSecret: '', previousSigningSecret: '' });
		const t = await createTrigger({ parameters: { events: ['PAYMENT_COMPLETED'], signatureVersion: version, options: {} }, credentials: creds });
		await t.activate();
		const endpoint = endpointOf(t);
		const registered = endpoint.secret!;
		expect(registered).toMatch(/^whsec_/);
		expect(t.staticData().signingSecret).toBe(registered);
		expect((await deliverSigned(t, endpoint, registered)).started).toBe(true);

		// Before rotating: the endpoint's secret copied into Webhook Signing Secret (nothing changes).
		creds.vaultStoreStoreApi.signingSecret = registered;
		expect((await deliverSigned(t, endpoint, registered)).started).toBe(true);

		// README step 1: Webhook Signing Secret copied into Previous Signing Secret (nothing changes).
		creds.vaultStoreStoreApi.previousSigningSecret = registered;
		expect((await deliverSigned(t, endpoint, registered)).started).toBe(true);
		// Step 2: the secret is rolled at the service (it signs with the new one from now on) and
		// pasted into Webhook Signing Secret. No re-activation.
		const next = f.sb.rotateEndpointSecret(endpoint.id);
		creds.vaultStoreStoreApi.signingSecret = next;
		const signedNew = await deliverSigned(t, endpoint, next);
		expect(signedNew.status).toBe(200);
		expect(signedNew.started).toBe(true);
		expect(signedNew.items[0].json.meta).toMatchObject({ signingSecret: 'current' });
		const signedOld = await deliverSigned(t, endpoint, registered);
		expect(signedOld.started).toBe(true);
		expect(signedOld.items[0].json.meta).toMatchObject({ signingSecret: 'previous' });

		// Step 3: old deliveries may still come (retries); n8n restarts meanwhile (checkExists on the
		// same static data): nothing brings the returned secret back as the current one.
		expect((await deliverSigned(t, endpoint, registered)).started).toBe(true);
		expect(await t.checkExists()).toBe(true);

		// Step 4: Previous Signing Secret cleared. The replaced (maybe leaked) secret starts nothing.
		creds.vaultStoreStoreApi.previousSigningSecret = '';
		const replaced = await deliverSigned(t, endpoint, registered);
		expect(replaced.status).toBe(401);
		expect(replaced.started).toBe(false);
		const after = await deliverSigned(t, endpoint, next);
		expect(after.started).toBe(true);
		expect(after.items[0].json.meta).not.toHaveProperty('signingSecret');
		expect(t.staticData().signingSecret).toBeUndefined();
		expect(await t.delete()).toBe(true);
	});

	test('a credential secret set after registration wins at once; the returned secret then verifies nothing', async () => {
		f.sb.hostile.registrationSecret = true;
		const creds = mutableCredentials({ signingSecret: '' });
		const t = await createTrigger({ parameters: { events: ['PAYMENT_COMPLETED'], signatureVersion: 'V2', options: {} }, credentials: creds });
		await t.activate();
		const endpoint = endpointOf(t);
		const returned = endpoint.secret!;
		const own = whsec(7);
		creds.vaultStoreStoreApi.signingSecret = own;
		expect((await deliverSigned(t, endpoint, own)).started).toBe(true);
		expect((await deliverSigned(t, endpoint, returned)).status).toBe(401);
		expect(await t.delete()).toBe(true);
	});
});

// Issue 44: a short, repeated or spaced secret is no longer refused (its shape is not a rule of the
// service): it warns and verifies (test/trigger-secrets.test.ts). What is no secret at all still is.
describe('2. a secret is not blank: blank, whitespace or a bare prefix is refused', () => {
	const sloppy = [' ', 'whsec_', 'whsec_ ', '\t\n'];

	test.each(['V1', 'V2'])('%s: a sloppy Previous Signing Secret fails activation, naming the field (no endpoint registered)', async (version) => {
		for (const previous of sloppy) {
			const t = await createTrigger({
				parameters: { events: ['PAYMENT_COMPLETED'], signatureVersion: version, options: {} },
				credentials: mutableCredentials({ previousSigningSecret: previous }),
			});
			const before = f.sb.state.webhooks.length;
			await expect(t.activate()).rejects.toThrow(/Credential field "Previous Signing Secret" (is blank|is only the prefix)/);
			expect(f.sb.state.webhooks.length).toBe(before);
		}
	});

	test.each(['V1', 'V2'])('%s: a sloppy Webhook Signing Secret fails activation, naming the field', async (version) => {
		for (const secret of sloppy) {
			const t = await createTrigger({
				parameters: { events: ['PAYMENT_COMPLETED'], signatureVersion: version, options: {} },
				credentials: mutableCredentials({ signingSecret: secret }),
			});
			await expect(t.activate()).rejects.toThrow(/Credential field "Webhook Signing Secret" /);
		}
	});

	test('a sloppy secret put in the credential after registration fails the next activation too (endpoint already in place)', async () => {
		const creds = mutableCredentials();
		const t = await createTrigger({ parameters: { events: ['PAYMENT_COMPLETED'], signatureVersion: 'V2', options: {} }, credentials: creds });
		await t.activate();
		for (const [field, label] of [['signingSecret', 'Webhook Signing Secret'], ['previousSigningSecret', 'Previous Signing Secret']]) {
			const good = creds.vaultStoreStoreApi[field];
			creds.vaultStoreStoreApi[field] = 'whsec_';
			await expect(t.checkExists()).rejects.toThrow(new RegExp(`Credential field "${label}" is only the prefix`));
			creds.vaultStoreStoreApi[field] = good;
		}
		expect(await t.checkExists()).toBe(true);
		expect(await t.delete()).toBe(true);
	});

	test('V1: a delivery forged with a previous secret of " " or "whsec_" (credential changed after activation) starts nothing', async () => {
		const creds = mutableCredentials();
		const t = await createTrigger({ parameters: { events: ['PAYMENT_COMPLETED'], signatureVersion: 'V1', options: {} }, credentials: creds });
		await t.activate();
		const endpoint = endpointOf(t);
		for (const previous of [' ', 'whsec_']) {
			creds.vaultStoreStoreApi.previousSigningSecret = previous;
			const start = logLines.length;
			const forged = await deliverSigned(t, endpoint, previous);
			expect(forged.status).toBe(401);
			expect(forged.started).toBe(false);
			expect(logLines.slice(start).join('\n')).toMatch(/"Previous Signing Secret" (is blank|is only the prefix)/);
			// The real secret still verifies.
			expect((await deliverSigned(t, endpoint, f.sb.store.signingSecret)).started).toBe(true);
		}
		expect(await t.delete()).toBe(true);
	});

	test('the credential test fails for a blank or bare-prefix signing or previous secret, naming the field, before the key is sent anywhere', async () => {
		const good = { ...f.credentials.vaultStoreStoreApi, signingSecret: whsec(1), previousSigningSecret: '' };
		const run = async (values: IDataObject) => {
			f.sb.clearRequests();
			const result = await testCredential('vaultStoreStoreApi', values);
			return [result.status, result.message.split(':')[0], f.requests().length];
		};
		expect(await run(good)).toEqual(['OK', 'Connection successful!', 1]);
		expect(await run({ ...good, signingSecret: '' })).toEqual(['OK', 'Connection successful!', 1]);
		expect(await run({ ...good, previousSigningSecret: whsec(2) })).toEqual(['OK', 'Connection successful!', 1]);
		for (const bad of sloppy) {
			expect(await run({ ...good, signingSecret: bad })).toEqual(['Error', 'Webhook Signing Secret', 0]);
			expect(await run({ ...good, previousSigningSecret: bad })).toEqual(['Error', 'Previous Signing Secret', 0]);
		}
	});
});

describe('9a. one message delivered as V1 and retried as V2 starts the workflow once', () => {
	test('a V1 endpoint migrated to V2 between attempts: the retry is a duplicate', async () => {
		const t = await createTrigger({ parameters: { events: ['PAYMENT_COMPLETED'], signatureVersion: 'V1', options: {} }, credentials: mutableCredentials() });
		await t.activate();
		const endpoint = endpointOf(t);
		const messageId = `msg_${randomUUID().replace(/-/g, '')}`;
		const first = await deliverSigned(t, endpoint, f.sb.store.signingSecret, messageId);
		expect(first.started).toBe(true);
		endpoint.signatureVersion = 'V2'; // migrated at the service between the attempts
		const retried = await deliverSigned(t, endpoint, f.sb.store.signingSecret, messageId);
		expect(retried.started).toBe(false);
		expect(retried.body).toEqual({ received: true, ignored: 'duplicate delivery' });
		expect(await t.delete()).toBe(true);
	});
});

const CARD = '4242424242424242';
const CVC = '737';
const NEXT_YEAR = String(new Date().getUTCFullYear() + 2);

/** The sandbox's secret material. */
function secretList(): string[] {
	const { store, vault } = f.sb;
	return [store.secretKey, store.storeTokenKey, store.signingSecret, vault.secretKey, vault.noRevealKey];
}

/** The ways a text may still carry a secret after redaction: as it is, \u- and %-decoded, base64 words decoded. */
function views(text: string): string[] {
	const out = [text];
	out.push(text.replace(/\\u([0-9a-fA-F]{4})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))));
	try {
		out.push(decodeURIComponent(text.replace(/%(?![0-9a-fA-F]{2})/g, '%25')));
	} catch {
		// not decodable as a whole
	}
	for (const word of text.match(/[A-Za-z0-9+/_-]{12,}={0,2}/g) ?? []) {
		const normal = word.replace(/-/g, '+').replace(/_/g, '/');
		for (const shift of [0, 1, 2, 3]) out.push(Buffer.from(normal.slice(shift), 'base64').toString('latin1'));
	}
	return out;
}

/**
 * What leaked, by meaning: an 8+ character piece of a secret (also spread over separators,
 * also encoded), the card number with any separators, the CVC as a standalone number.
 */
function meaningLeaks(text: string, codes: string[] = [CVC]): string[] {
	const found = new Set<string>();
	for (const view of views(text)) {
		const bare = view.replace(/[\s.;,|"'`\\[\]{}()<>]/g, '');
		for (const secret of secretList()) {
			const plain = secret.replace(/[\s.;,|"'`\\[\]{}()<>]/g, '');
			for (let i = 0; i + 8 <= plain.length; i++) {
				if (bare.includes(plain.slice(i, i + 8))) {
					found.add(`piece of ${secret.slice(0, 3)}…`);
					break;
				}
			}
		}
		if (view.replace(/[\s.\-_/\\",;|[\]]/g, '').includes(CARD)) found.add('card number');
		// A standalone number, not the milliseconds of a timestamp (…:33.123Z).
		for (const code of codes) if (new RegExp(`(?<![\\d.])${code}(?!\\d)`).test(view)) found.add('security code');
	}
	return [...found];
}

function cardToken(extra: IDataObject = {}): IDataObject {
	return { resource: 'token', operation: 'create', tokenType: 'card', cardNumber: CARD, expMonth: '12', expYear: NEXT_YEAR, cvc: CVC, ...extra };
}

describe('3. card data never reaches output items unless revealed on purpose', () => {
	test('Token → Create answered with the card number top-level and in the mask and the CVC nested: the item holds only allowed token fields', async () => {
		f.sb.faults.add({ kind: 'echo-success', match: { method: 'POST', path: /\/tokens$/ } });
		const r = await f.run(cardToken());
		expect(r.error()).toBeUndefined();
		const [json] = jsonOf(r);
		expect(json.id).toMatch(/^tok_/);
		expect(json.mask).toMatchObject({ last4: '4242' });
		expect(json).not.toHaveProperty('card_number');
		expect(json).not.toHaveProperty('source');
		expect(json).not.toHaveProperty('authorization');
		expect(json.mask).not.toHaveProperty('number');
		expect(meaningLeaks(JSON.stringify(r.run.data.resultData))).toEqual([]);
	});

	test.each([
		['get', (id: string) => ({ resource: 'token', operation: 'get', tokenId: rl(id) }), /\/tokens\/[^/]+$/],
		['update', (id: string) => ({ resource: 'token', operation: 'update', tokenId: rl(id), updateFields: { setMetadataJson: '{"k":"v"}' } }), /\/tokens\/[^/]+$/],
		['getAll', () => ({ resource: 'token', operation: 'getAll', returnAll: false, limit: 5 }), /\/tokens$/],
	])('Token → %s answered with echoed card data: allow-listed, no card number, CVC or key in the items', async (_name, parameters, path) => {
		const created = await f.run(cardToken());
		const id = String(jsonOf(created)[0].id);
		f.sb.faults.add({ kind: 'echo-success', match: { path }, count: 5 });
		// The request the hostile service echoes carries no card data here: give it some, nested in metadata.
		f.sb.faults.clear();
		f.sb.faults.add({
			kind: 'reply',
			match: { path },
			count: 5,
			reply: {
				body: (() => {
					const token = { object: 'token', id, type: 'card', fingerprint: 'fp_x', mask: { last4: '4242', brand: 'visa', number: CARD, cvc: CVC }, metadata: { note: 'ok', payer: { card: CARD.replace(/(\d{4})/g, '$1 ').trim(), CARD_CVC: CVC } }, card_number: CARD, details: { securityCode: CVC }, created_at: new Date().toISOString() };
					return _name === 'getAll' ? { object: 'list', data: [token], has_more: false, next_cursor: null } : token;
				})(),
			},
		});
		const r = await f.run(parameters(id));
		expect(r.error()).toBeUndefined();
		const [json] = jsonOf(r);
		expect(json).toMatchObject({ id, type: 'card', fingerprint: 'fp_x', mask: { last4: '4242', brand: 'visa' }, metadata: { note: 'ok', payer: {} } });
		expect(meaningLeaks(JSON.stringify(jsonOf(r)))).toEqual([]);
	});

	test('Reveal still returns the card data it is asked for (never a CVC); a store operation that echoes the secret key shows it redacted', async () => {
		const created = await f.run(cardToken());
		const r = await f.run({ resource: 'token', operation: 'reveal', tokenId: rl(String(jsonOf(created)[0].id)) });
		expect((jsonOf(r)[0].data as IDataObject).number).toBe(CARD);
		const order = f.sb.state.orders[0];
		f.sb.faults.add({ kind: 'echo-success', match: { path: /\/orders\/[^/]+$/ } });
		const echoed = await f.run({ resource: 'order', operation: 'get', orderId: rl(order.id) });
		expect(jsonOf(echoed)[0].id).toBe(order.id);
		expect(jsonOf(echoed)[0].authorization).toMatch(/\[redacted\]/);
		expect(meaningLeaks(JSON.stringify(jsonOf(echoed)), [])).toEqual([]);
	});
});

describe('4. redaction by meaning: echoes that are not literal', () => {
	const escaped = (text: string): string => text.split('').map((ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
	const chunks = (text: string, size: number): string[] => text.match(new RegExp(`.{1,${size}}`, 'g')) ?? [];

	const forms: [string, () => IDataObject][] = [
		['the Authorization header in base64', () => ({ error: { message: `unauthorized: ${Buffer.from(`Bearer ${f.sb.vault.secretKey}`).toString('base64')}`, code: 'auth' } })],
		['the Authorization header in base64url inside a message', () => ({ message: `token ${Buffer.from(`Bearer ${f.sb.vault.secretKey}`).toString('base64url')} refused` })],
		['the key split into pieces under 8 characters across errors[]', () => ({ errors: chunks(f.sb.vault.secretKey, 5).map((message) => ({ message })) })],
		['the key \\u-escaped in a message', () => ({ message: `key was ${escaped(f.sb.vault.secretKey)}` })],
		['the key %-escaped in a message', () => ({ message: `key=${encodeURIComponent(f.sb.vault.secretKey).replace(/_/g, '%5F')}` })],
		['the card number with dots', () => ({ message: `card ${CARD.replace(/(\d{4})(?=\d)/g, '$1.')} declined` })],
		['the card number with double spaces', () => ({ message: `card ${CARD.replace(/(\d{4})(?=\d)/g, '$1  ')} declined` })],
		['the card number \\u-escaped', () => ({ message: `card ${escaped(CARD)} declined` })],
		['the card number split across errors[]', () => ({ errors: chunks(CARD, 4) })],
		['the CVC by value', () => ({ message: `the code ${CVC} was refused` })],
		['the CVC under card_cvc', () => ({ message: `invalid ${JSON.stringify({ card_cvc: CVC })}`, details: { card_cvc: CVC, CVV2: CVC } })],
	];

	test.each(forms)('token create answered 400 with %s: error, continue-on-fail item and stored run data hold no secret', async (_label, body) => {
		f.sb.faults.add({ kind: 'reply', status: 400, match: { method: 'POST', path: /\/tokens$/ }, reply: { body: body() }, count: 2 });
		const failed = await f.run(cardToken());
		expect(failed.error()).toBeDefined();
		expect(meaningLeaks(serialiseAll(failed.error()))).toEqual([]);
		expect(meaningLeaks(JSON.stringify(failed.run.data.resultData))).toEqual([]);
		const continued = await f.run(cardToken(), undefined, { continueOnFail: true });
		expect(continued.output()[0].json.error).toBeDefined();
		expect(meaningLeaks(JSON.stringify(continued.output()))).toEqual([]);
	});

	test('plain numbers in messages stay readable: an order number, an amount in cents, a far-future wait', () => {
		const r = new Redactor(secretList());
		for (const text of ['order 123456789012345 not found', 'amount 1000000000000 too high', 'asked to wait 31536000000 s']) expect(r.text(text)).toBe(text);
	});

	test('fuzz: secrets and card data echoed in generated forms are never readable after redaction (count of cases)', () => {
		let cases = 0;
		const separators = ['; ', ', ', ' | ', '\n', '","', ' ', '  ', '.', '-', '/'];
		const secretForm = fc.record({
			which: fc.nat(),
			form: fc.constantFrom('plain', 'base64', 'base64url', 'bearer-base64', 'unicode', 'percent', 'split', 'card', 'card-unicode', 'card-split', 'cvc-field'),
			size: fc.integer({ min: 2, max: 7 }),
			sep: fc.constantFrom(...separators),
			before: fc.stringMatching(/^[A-Za-z ]{0,20}$/),
			after: fc.stringMatching(/^[A-Za-z ]{0,20}$/),
			field: fc.constantFrom('cvc', 'CVC', 'card_cvc', 'cardCvc', 'cvv2', 'CVV', 'security_code', 'SecurityCode', 'card-cvc'),
		});
		fc.assert(
			fc.property(secretForm, ({ which, form, size, sep, before, after, field }) => {
				cases++;
				const secrets = secretList();
				const secret = secrets[which % secrets.length];
				const redactor = new Redactor(secrets);
				redactor.addValue({ number: CARD, cvc: CVC });
				let echo: string;
				switch (form) {
					case 'plain': echo = secret; break;
					case 'base64': echo = Buffer.from(secret).toString('base64'); break;
					case 'base64url': echo = Buffer.from(secret).toString('base64url'); break;
					case 'bearer-base64': echo = Buffer.from(`Bearer ${secret}`).toString('base64'); break;
					case 'unicode': echo = escaped(secret); break;
					case 'percent': echo = encodeURIComponent(secret).replace(/_/g, '%5F'); break;
					case 'split': echo = chunks(secret, size).join(sep); break;
					case 'card': echo = chunks(CARD, size).join(sep.trim() === '' || /^[.\-/]$/.test(sep) ? sep : ' '); break;
					case 'card-unicode': echo = escaped(CARD); break;
					case 'card-split': echo = chunks(CARD, size).join(sep); break;
					default: echo = JSON.stringify({ [field]: CVC });
				}
				const out = redactor.text(`${before} ${echo} ${after}`);
				const valueOut = JSON.stringify(redactor.value({ message: `${before} ${echo} ${after}`, errors: chunks(echo, size), [field]: CVC }));
				expect(meaningLeaks(out)).toEqual([]);
				expect(meaningLeaks(valueOut)).toEqual([]);
			}),
			{ numRuns: 2000, seed: 27 },
		);
		expect(cases).toBe(2000);
	});
});


/** Execution hints of the run's Vault Store node. */
function hintsOf(r: { run: { data: { resultData: { runData: Record<string, Array<{ hints?: Array<{ message: string }> }>> } } } }): string[] {
	return Object.values(r.run.data.resultData.runData).flatMap((tasks) => tasks.flatMap((t) => (t.hints ?? []).map((h) => h.message)));
}

describe('5. Return All: an offset-paged list that shifts between pages outputs each record once and says it moved', () => {
	test('an order inserted at the top after page 1: no order twice, a warning with the count', async () => {
		const all = Array.from({ length: 230 }, (_, i) => ({ id: `ord_shift${String(i).padStart(8, '0')}`, amount: i }));
		const inserted = { id: 'ord_shiftinserted01', amount: 999 };
		f.sb.faults.add({
			kind: 'reply',
			count: 10,
			match: { method: 'GET', path: /\/orders\/?$/ },
			reply: {
				body: (q: Record<string, unknown>) => {
					const page = Number(q.page ?? 1);
					const limit = Number(q.limit ?? 25);
					const list = page === 1 ? all : [inserted, ...all];
					return { ok: true, data: { items: list.slice((page - 1) * limit, page * limit), pagination: { page, limit, total: list.length, totalPages: Math.ceil(list.length / limit) } } };
				},
			},
		});
		const r = await f.run({ resource: 'order', operation: 'getAll', returnAll: true });
		expect(r.error()).toBeUndefined();
		const ids = jsonOf(r).map((j) => j.id as string);
		expect(new Set(ids).size).toBe(ids.length);
		expect(ids).toEqual(expect.arrayContaining(all.map((o) => o.id)));
		const warning = /The list changed while it was read page by page: 1 record\(s\) came twice/;
		expect(hintsOf(r).some((m) => warning.test(m))).toBe(true);
		expect(String(jsonOf(r)[ids.length - 1].listWarning)).toMatch(warning);
	});

	test('a cursor list that repeats a record on the next page outputs it once, with the warning', async () => {
		const token = (n: number) => ({ object: 'token', id: `tok_repeat${String(n).padStart(8, '0')}`, type: 'custom', fingerprint: `fp_${n}`, metadata: {}, created_at: new Date().toISOString() });
		f.sb.faults.add({
			kind: 'reply',
			count: 5,
			match: { method: 'GET', path: /\/tokens$/ },
			reply: { body: (q: Record<string, unknown>) => (q.cursor === undefined ? { object: 'list', data: [token(1), token(2)], has_more: true, next_cursor: 'c1' } : { object: 'list', data: [token(2), token(3)], has_more: false, next_cursor: null }) },
		});
		const r = await f.run({ resource: 'token', operation: 'getAll', returnAll: true });
		expect(jsonOf(r).map((j) => j.id)).toEqual([token(1).id, token(2).id, token(3).id]);
		expect(hintsOf(r).join('\n')).toMatch(/1 record\(s\) came twice/);
	});
});

describe('6. a cursor page that says there is more but is empty is not a silent short list', () => {
	test('2 of 3 tokens, then an empty page claiming more: the output says the list is incomplete', async () => {
		const token = (n: number) => ({ object: 'token', id: `tok_empty${String(n).padStart(9, '0')}`, type: 'custom', fingerprint: `fp_${n}`, metadata: {}, created_at: new Date().toISOString() });
		f.sb.faults.add({
			kind: 'reply',
			count: 5,
			match: { method: 'GET', path: /\/tokens$/ },
			reply: { body: (q: Record<string, unknown>) => (q.cursor === undefined ? { object: 'list', data: [token(1), token(2)], has_more: true, next_cursor: 'c1' } : { object: 'list', data: [], has_more: true, next_cursor: 'c2' }) },
		});
		const r = await f.run({ resource: 'token', operation: 'getAll', returnAll: true });
		const out = jsonOf(r);
		expect(out.map((j) => j.id)).toEqual([token(1).id, token(2).id]);
		expect(String(out[1].listWarning)).toMatch(/said there are more records after these 2 but sent an empty page/);
		expect(hintsOf(r).join('\n')).toMatch(/sent an empty page/);
	});
});

describe('9c. a cursor that never advances stops within a few requests', () => {
	test('the same next_cursor with fresh records on every page: at most 3 requests, the output says why it stopped', async () => {
		let n = 0;
		f.sb.faults.add({
			kind: 'reply',
			count: 1000,
			match: { method: 'GET', path: /\/tokens$/ },
			reply: { body: () => ({ object: 'list', data: [{ object: 'token', id: `tok_stuck${String(++n).padStart(9, '0')}`, type: 'custom', fingerprint: 'fp', metadata: {} }], has_more: true, next_cursor: 'stuck' }) },
		});
		// Return All Maximum 50 only bounds the old behaviour (one request per record up to it).
		const r = await f.run({ resource: 'token', operation: 'getAll', returnAll: true, options: { maxItems: 50 } });
		expect(f.requests().length).toBeLessThanOrEqual(3);
		expect(r.error()).toBeUndefined();
		expect(String(jsonOf(r).at(-1)?.listWarning)).toMatch(/same continuation again .* does not advance/);
	});
});

/** A report of the sandbox that has finished, ready to download. */
async function finishedReport(): Promise<string> {
	const created = await f.run({ resource: 'report', operation: 'create', type: 'PAYMENT_ACTIVITY', from: '2025-11-01T00:00:00.000Z', to: '2026-01-15T00:00:00.000Z' });
	expect(created.error()).toBeUndefined();
	f.sb.clock.advance(10 * 60_000);
	return String(jsonOf(created)[0].id);
}

/** Whether the sandbox saw the client close the connection before the answer ended (its close event may come a moment after the node's error). */
async function closedByClient(entry: () => { clientClosed?: boolean } | undefined): Promise<boolean> {
	for (let i = 0; i < 100 && entry()?.clientClosed !== true; i++) await new Promise((resolve) => setTimeout(resolve, 20));
	return entry()?.clientClosed === true;
}

describe('7. Timeout is a deadline for the whole answer, downloads included', () => {
	test('an answer that trickles one byte every 400 ms is cut at the Timeout (1000 ms): a clear error, the connection closed by the node', async () => {
		const order = f.sb.state.orders[0];
		f.sb.faults.add({ kind: 'trickle', delayMs: 400, match: { method: 'GET', path: /\/orders\/[^/]+$/ } });
		const r = await f.run({ resource: 'order', operation: 'get', orderId: rl(order.id), options: { timeout: 1000, maxRetries: 0 } });
		expect(r.error()?.message).toMatch(/The service did not answer in time/);
		expect(r.error()?.description).toMatch(/no complete answer within the Timeout of 1000 ms/);
		const [request] = f.requests();
		expect(await closedByClient(() => request)).toBe(true);
	}, 30_000);

	test('an answer that never ends does not hold the workflow: the node gives up at the Timeout', async () => {
		const order = f.sb.state.orders[1];
		f.sb.faults.add({ kind: 'trickle', forever: true, delayMs: 200, match: { method: 'GET', path: /\/orders\/[^/]+$/ } });
		const r = await f.run({ resource: 'order', operation: 'get', orderId: rl(order.id), options: { timeout: 1000, maxRetries: 0 } });
		expect(r.error()?.description).toMatch(/within the Timeout of 1000 ms/);
		expect(await closedByClient(() => f.requests()[0])).toBe(true);
	}, 30_000);

	test('Report → Download: a file that trickles is cut at the Timeout, with an error that says so', async () => {
		const reportId = await finishedReport();
		f.sb.faults.add({ kind: 'trickle', delayMs: 400, match: { method: 'GET', path: /^\/__files\// } });
		const r = await f.run({ resource: 'report', operation: 'download', reportId: rl(reportId), format: 'CSV', options: { timeout: 1000, maxRetries: 0 } });
		expect(r.error()?.message).toBe('Could not download the file');
		expect(r.error()?.description).toMatch(/did not arrive completely within the Timeout of 1000 ms/);
		expect(await closedByClient(() => f.requests().find((q) => q.path.startsWith('/__files/')))).toBe(true);
	}, 30_000);
});

describe('8. Report → Download follows only https URLs on allowed hosts, and caps the size', () => {
	const metadataUrl = (port: string) => `http://127.0.0.1:${port}/latest/meta-data/iam/security-credentials/`;

	test.each([
		['a cloud-metadata-like path on another loopback port', () => metadataUrl(String(Number(new URL(f.sb.baseUrl).port) + 1))],
		['a link-local metadata address over https', () => 'https://169.254.169.254/latest/meta-data/'],
		['an https host the user did not allow', () => 'https://files.attacker.example/report.csv'],
		['a URL with a user and password', () => `${f.sb.baseUrl.replace('http://', 'http://u:p@')}/__files/x`],
	])('the service answers %s: refused before any request to it, naming the rule', async (_label, url) => {
		const reportId = await finishedReport();
		f.sb.faults.add({ kind: 'reply', match: { path: /\/download\/CSV$/ }, reply: { body: { ok: true, data: { reportId, format: 'CSV', url: url(), expiresAt: new Date(Date.now() + 300_000).toISOString() } } } });
		const r = await f.run({ resource: 'report', operation: 'download', reportId: rl(reportId), format: 'CSV' });
		expect(r.error()?.message).toMatch(/^The download URL the service returned is not allowed: /);
		expect(r.error()?.description).toMatch(/Allowed Download Hosts/);
		expect(f.requests().map((q) => q.path)).toEqual([expect.stringMatching(/\/download\/CSV$/)]);
	});

	test('a redirect from the allowed host to an internal address is not followed', async () => {
		const reportId = await finishedReport();
		f.sb.faults.add({ kind: 'redirect', status: 302, location: 'https://169.254.169.254/latest/meta-data/', match: { path: /^\/__files\// } });
		const r = await f.run({ resource: 'report', operation: 'download', reportId: rl(reportId), format: 'CSV' });
		expect(r.error()?.message).toMatch(/^The download URL the service returned is not allowed: /);
	});

	test('a file larger than Max File Size is refused while it arrives; the default host rule lets the Base URL host through', async () => {
		const reportId = await finishedReport();
		const big = Buffer.alloc(3 * 1024 * 1024, 0x61);
		f.sb.faults.add({ kind: 'reply', match: { path: /^\/__files\// }, reply: { body: big, headers: { 'content-type': 'text/csv' } } });
		const r = await f.run({ resource: 'report', operation: 'download', reportId: rl(reportId), format: 'CSV', maxFileSizeMb: 1 });
		expect(r.error()?.message).toMatch(/larger than the maximum of 1048576 bytes \("Max File Size"\)/);
		const ok = await f.run({ resource: 'report', operation: 'download', reportId: rl(reportId), format: 'CSV', maxFileSizeMb: 1 });
		expect(ok.error()).toBeUndefined();
		expect(ok.output()[0].binary?.data).toBeDefined();
	});
});

describe('9b/9d. Retry-After: a negative value still backs off; a far-future one reads as a wait, not "[redacted]"', () => {
	test('Retry-After: -5 is unreadable: the retry waits the node\'s own backoff (at least 125 ms)', async () => {
		const order = f.sb.state.orders[2];
		const at: number[] = [];
		f.sb.faults.add({
			kind: 'reply',
			status: 429,
			count: 1,
			match: { method: 'GET', path: /\/orders\/[^/]+$/ },
			reply: { body: () => (at.push(Date.now()), { ok: false, error: { code: 'rate_limited', message: 'slow down' } }), headers: { 'Retry-After': '-5' } },
		});
		f.sb.faults.add({ kind: 'reply', count: 1, match: { method: 'GET', path: /\/orders\/[^/]+$/ }, reply: { body: () => (at.push(Date.now()), { ok: true, data: { id: order.id } }) } });
		const r = await f.run({ resource: 'order', operation: 'get', orderId: rl(order.id) });
		expect(r.error()).toBeUndefined();
		expect(at).toHaveLength(2);
		// The node's backoff after a 429 without a usable Retry-After is at least half of 1 s.
		expect(at[1] - at[0]).toBeGreaterThanOrEqual(125);
	});

	test.each([
		['99999999999999', 'more than a year'],
		['Fri, 31 Dec 9999 23:59:59 GMT', 'more than a year'],
		['864000', 'about 10 days'],
	])('Retry-After: %s is refused with a readable wait', async (value, words) => {
		const order = f.sb.state.orders[3];
		f.sb.faults.add({ kind: 'reply', status: 429, count: 1, match: { method: 'GET', path: /\/orders\/[^/]+$/ }, reply: { body: { ok: false, error: { code: 'rate_limited', message: 'slow down' } }, headers: { 'Retry-After': value } } });
		const r = await f.run({ resource: 'order', operation: 'get', orderId: rl(order.id) });
		expect(r.error()?.message).toBe(`Rate limit reached (HTTP 429): the service asked to wait ${words}, longer than the node waits (120 s)`);
	});
});
