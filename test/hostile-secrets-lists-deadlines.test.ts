/**
 * Issue 27, hostile service round 2: secrets, signatures, lists and deadlines. Each
 * describe block is one numbered item of the issue and runs the node's real code inside
 * n8n-core against the sandbox's hostile mode (sb.hostile, sb.faults) over real HTTP.
 * Item 10 is issue 53's: a money write's deadline against a service that answers after the
 * Timeout and makes the write anyway.
 */
import { randomUUID } from 'node:crypto';

import { DataDeduplicationService } from 'n8n-core';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { signedHeaders } from '../sandbox/deliveries';
import type { WebhookEndpoint } from '../sandbox/state';
import fc from 'fast-check';

import { ANSWER_MS, writeWindow } from '../nodes/shared/money/keyStep';
import { Redactor } from '../nodes/shared/redaction/secrets';
import { ATTEMPT_SLACK_MS } from '../nodes/shared/transport/request';
import { testCredential } from './support/credential-tester';
import { jsonOf, useSandbox } from './support/fixtures';
import type { NodeSpec } from './support/harness';
import { logLines, runNodes } from './support/harness';
import { delivery, MemoryDeduplicator, REFUND, TRIGGER } from './support/once-record-support';
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

/**
 * Issue 53 (points 1 and 4), the deadline of a money write against a service that holds it past
 * the Timeout and makes it afterwards (fault 'hang-then-commit': when the node's attempt times out
 * nothing is made yet; it is made later all the same). The once record keeps the write's claim in
 * flight only until its deadline (money/keyStep.ts writeWindow: Timeout × attempts and the pauses,
 * at most 32 minutes); the transport starts no attempt that could end after it (ApiRequest.sendBy,
 * ATTEMPT_SLACK_MS), and after it a claim without an outcome is sent again once, under the same
 * Idempotency-Key. Runs on an in-memory deduplication store that behaves as n8n 2.8.4's (the
 * record's in-flight and deadline marks live there). Each row has a control where the service
 * answers in time: the write goes out once and succeeds.
 */
describe('10. (issue 53) a money write never outlives its deadline, against a service that answers after the Timeout and makes the write anyway', () => {
	const store = new MemoryDeduplicator();
	beforeAll(async () => {
		await DataDeduplicationService.init(store);
	});
	const MONEY = /\/(orders\/[^/]+\/refund|payouts)$/;
	const writesSince = (mark: number) => f.sb.requests.slice(mark).filter((q) => q.method === 'POST' && MONEY.test(q.path));
	const secretsIn = (text: string) => [f.sb.store.secretKey, f.sb.store.signingSecret].filter((s) => text.includes(s));
	const completed = () => f.sb.state.orders.filter((o) => o.payment.status === 'COMPLETED' && o.amount >= 10);
	let serial = 0;

	/** A refund fed by the trigger (the event's key) or a payout under a key of the user's: both are claimed in the once record. */
	function write(kind: 'refund' | 'payout', options: IDataObject): { nodes: NodeSpec[]; input: INodeExecutionData[]; name: string; workflowId: string } {
		serial++;
		const workflowId = `wf_deadline_${serial}`;
		if (kind === 'payout') {
			return {
				nodes: [{ name: 'Money', id: `deadline-payout-${serial}`, parameters: { resource: 'payout', operation: 'create', amount: 5, options: { ...options, idempotencyKey: `deadline-payout-${serial}` } } }],
				input: [{ json: {} }],
				name: 'Create a payout',
				workflowId,
			};
		}
		const order = completed()[serial % completed().length];
		return {
			nodes: [TRIGGER, { ...REFUND, name: 'Money', id: `deadline-refund-${serial}`, parameters: { ...REFUND.parameters, options } }],
			input: [delivery(`msg_deadline_${serial}`, order.id)],
			name: 'Refund an order',
			workflowId,
		};
	}

	// Timeout 300 ms, Max Retries 2: three attempts, and a write window (from the claim, without the
	// 20 s for the answer to reach the store) of 4 × (300 ms + 2 s) + 250 + 500 ms of backoff = 9.95 s.
	const TIMING = { timeout: 300, maxRetries: 2 };
	const SEND_BY_MS = writeWindow({ timeoutMs: TIMING.timeout, maxRetries: TIMING.maxRetries }) - ANSWER_MS;
	const RETRY_AFTER_S = 8;

	// Row 1. The first attempt is held past the Timeout (and made 1 s after it arrived); the repeat
	// under the same key is told to come back in 8 s (429 Retry-After: the service did nothing with
	// it). Max Retries allows a third attempt, but one started after the 8 s could end past the
	// write's deadline: it is not started, and the item fails "outcome unknown". One effect.
	const ROW_1 = (['refund', 'payout'] as const).flatMap((kind) => [
		{ kind, hostile: true, label: `${kind}: its attempt held past the Timeout and made later, its repeat told to wait 8 s: no attempt starts that could end past the deadline (2 of the 3 attempts Max Retries 2 allows); the outcome is unknown, one effect under one key` },
		{ kind, hostile: false, label: `${kind}, control: answered in time, sent once and made once` },
	]);
	test.each(ROW_1)('$label', async ({ kind, hostile }) => {
		const { nodes, input, name, workflowId } = write(kind, TIMING);
		const effects = f.sb.ledger.length;
		if (hostile) {
			f.sb.faults.add({ kind: 'hang-then-commit', delayMs: 1000, match: { method: 'POST', path: MONEY } });
			f.sb.faults.add({ kind: '429', retryAfter: RETRY_AFTER_S, match: { method: 'POST', path: MONEY } });
		}
		const mark = f.sb.requests.length;
		const r = await runNodes(nodes, f.credentials, input, { workflowId });
		const ended = f.sb.clock.now();
		f.sb.faults.clear();
		const sent = writesSince(mark);
		const key = sent[0]?.headers['idempotency-key'];
		expect(key).toEqual(expect.any(String));
		expect(sent.map((q) => q.headers['idempotency-key'])).toEqual(sent.map(() => key));
		if (!hostile) {
			expect(r.error('Money')).toBeUndefined();
			expect(sent).toHaveLength(1);
			expect(f.sb.ledger.slice(effects).map((e) => e.key)).toEqual([key]);
			return;
		}
		// Two attempts where Max Retries allows three: the one after the Retry-After would have ended past the deadline.
		expect(sent).toHaveLength(2);
		expect(sent.length).toBeLessThan(TIMING.maxRetries + 1);
		const [first, second] = sent.map((q) => q.at);
		// The deadline is no later than the first attempt's arrival plus the window (the claim came before it) ...
		for (const at of [first, second]) expect(at + TIMING.timeout + ATTEMPT_SLACK_MS).toBeLessThanOrEqual(first + SEND_BY_MS + 100);
		// ... and the third could not start before the Retry-After ended, nor end by the deadline then.
		expect(second + RETRY_AFTER_S * 1000 + TIMING.timeout + ATTEMPT_SLACK_MS).toBeGreaterThan(first + SEND_BY_MS);
		// The node waited for the Retry-After, then gave up rather than send.
		expect(ended - second).toBeGreaterThanOrEqual(RETRY_AFTER_S * 1000 - 100);
		const error = r.error('Money');
		expect(error?.message).toBe(`The outcome of "${name}" is unknown: the service may have applied it (The write ran out of time before it could be repeated)`);
		expect(error?.description).toMatch(/could not end within the time the once-per-event record gave the write when it was claimed \(Timeout × attempts, at most 32 minutes\), so no attempt was started after 2/);
		expect(secretsIn(JSON.stringify([error?.message, error?.description]))).toEqual([]);
		// The service made it once, after the first attempt had timed out.
		expect(f.sb.ledger.slice(effects).map((e) => e.key)).toEqual([key]);
	}, 30_000);

	// Row 2. The first execution's worker is killed while the service holds its refund past the
	// Timeout (and makes it later): nothing the worker writes after reaches n8n's store and its
	// static data is never saved, so its claim stays without an outcome. Another execution of the
	// same event while the worker's attempts are still out, and one 30 s later, send nothing: the
	// claim is in flight until its deadline (window 32.25 s with Timeout 2 s and Max Retries 1,
	// deadline marks of one minute: in flight 1 to 2 minutes after the claim). 125 s later the claim
	// counts as unanswered: the refund is sent again once, under the SAME key, and the service
	// answers it with the refund it made (a replay). One refund in all; a further execution skips it.
	const ROW_2 = [
		{ hostile: true, label: 'a worker killed while the service holds its refund past the Timeout: the same event meanwhile and 30 s later sends nothing (in flight); past the deadline it is sent again once under the same key and answered with the one refund' },
		{ hostile: false, label: 'control: the refund answered in time; the same event at once, 30 s and 125 s later sends nothing and skips it' },
	];
	test.each(ROW_2)('$label', async ({ hostile }) => {
		const realNow = Date.now.bind(Date);
		let shift = 0;
		const clock = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + shift);
		try {
			const { nodes, input, workflowId } = write('refund', { timeout: 2000, maxRetries: 1 });
			// Each execution on a worker whose static data holds nothing of the others' (queue mode).
			const execute = async () => await runNodes(nodes, f.credentials, input, { workflowId, staticData: {} });
			const effects = f.sb.ledger.length;
			const start = f.sb.requests.length;
			if (hostile) f.sb.faults.add({ kind: 'hang-then-commit', delayMs: 3000, count: 2, match: { method: 'POST', path: MONEY } });
			const worker = execute();
			let workerDone = false;
			void worker.then(
				() => (workerDone = true),
				() => (workerDone = true),
			);
			if (hostile) {
				while (writesSince(start).length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
				// While the worker's attempt is out: refused as in flight, nothing sent.
				const overlap = await execute();
				expect(overlap.error('Money')?.description).toMatch(/another execution is sending it now/);
				// It ran while the worker was still sending (the worker's attempts end before the write's deadline).
				expect(workerDone).toBe(false);
				store.down = true; // the worker is killed: its outcome never reaches the store
			}
			await worker;
			store.down = false;
			f.sb.faults.clear();
			const first = writesSince(start);
			const key = first[0]?.headers['idempotency-key'];
			expect(key).toEqual(expect.any(String));
			// The worker's own attempts (Max Retries 1: two, both under its key), none from the overlapping execution.
			expect(first.map((q) => q.headers['idempotency-key'])).toEqual(hostile ? [key, key] : [key]);
			const later = [[0, hostile ? 'inflight' : 'skipped'], [30_000, hostile ? 'inflight' : 'skipped'], [125_000, hostile ? 'resent' : 'skipped'], [125_000, 'skipped']] as const;
			for (const [after, expected] of later.slice(hostile ? 1 : 0)) {
				shift = after;
				const mark = f.sb.requests.length;
				const again = await execute();
				const sent = writesSince(mark);
				if (expected === 'inflight') {
					expect(sent).toHaveLength(0);
					expect(again.error('Money')?.description).toMatch(/another execution is sending it now/);
				} else if (expected === 'resent') {
					expect(again.error('Money')).toBeUndefined();
					expect(sent.map((q) => q.headers['idempotency-key'])).toEqual([key]);
					expect(again.output('Money')[0].json).toMatchObject({ idempotentReplay: true, idempotencyKeySource: 'event' });
				} else {
					expect(sent).toHaveLength(0);
					expect(again.error('Money')).toBeUndefined();
					expect(again.output('Money')[0].json).toMatchObject({ writeSkipped: true });
				}
			}
			// One refund in all, under the one key.
			expect(f.sb.ledger.slice(effects).map((e) => e.key)).toEqual([key]);
		} finally {
			clock.mockRestore();
			store.down = false;
		}
	}, 30_000);
});
