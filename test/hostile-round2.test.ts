/**
 * Issue 27, hostile service round 2: secrets, signatures, lists and deadlines. Each
 * describe block is one numbered item of the issue and runs the node's real code inside
 * n8n-core against the sandbox's hostile mode (sb.hostile, sb.faults) over real HTTP.
 */
import { randomUUID } from 'node:crypto';

import type { IDataObject } from 'n8n-workflow';

import { signedHeaders } from '../sandbox/deliveries';
import type { WebhookEndpoint } from '../sandbox/state';
import { useSandbox } from './fixtures';
import type { CredentialSet } from './harness';
import { logLines } from './harness';
import type { TriggerInstance } from './trigger-harness';
import { createTrigger } from './trigger-harness';

const f = useSandbox();

const rl = (value: string) => ({ __rl: true, mode: 'id', value });

/** A copy of the sandbox credentials the test may change while a trigger runs (n8n reads them per call). */
function mutableCredentials(store: IDataObject = {}): CredentialSet & { vaultStoreStoreApi: IDataObject } {
	const base = f.credentials as unknown as { vaultStoreStoreApi: IDataObject; vaultStoreVaultApi: IDataObject };
	return {
		vaultStoreStoreApi: { ...base.vaultStoreStoreApi, ...store },
		vaultStoreVaultApi: { ...base.vaultStoreVaultApi },
	} as unknown as CredentialSet & { vaultStoreStoreApi: IDataObject };
}

function endpointOf(t: TriggerInstance): WebhookEndpoint {
	const endpoint = f.sb.state.webhooks.find((w) => w.id === t.staticData().webhookId);
	if (!endpoint) throw new Error('trigger has no endpoint at the sandbox');
	return endpoint;
}

/** One delivery of a fresh message to the trigger, signed as the sandbox signs for `endpoint`, with `secret`. */
async function deliverSigned(t: TriggerInstance, endpoint: WebhookEndpoint, secret: string, messageId = `msg_${randomUUID().replace(/-/g, '')}`) {
	const body = JSON.stringify({ id: messageId, event: 'PAYMENT_COMPLETED', createdAt: new Date().toISOString(), data: { amount: 1 } });
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

		// Step 0: the user copies the endpoint's secret into the credential (nothing changes).
		creds.vaultStoreStoreApi.signingSecret = registered;
		expect((await deliverSigned(t, endpoint, registered)).started).toBe(true);

		// Step 1: the secret is rotated at the service; it signs with the new one from now on.
		const next = f.sb.rotateEndpointSecret(endpoint.id);
		// Step 2: Previous Signing Secret = old, Webhook Signing Secret = new. No re-activation.
		creds.vaultStoreStoreApi.previousSigningSecret = registered;
		creds.vaultStoreStoreApi.signingSecret = next;
		const signedNew = await deliverSigned(t, endpoint, next);
		expect(signedNew.status).toBe(200);
		expect(signedNew.started).toBe(true);
		expect(signedNew.items[0].json.meta).toMatchObject({ signingSecret: 'current' });
		const signedOld = await deliverSigned(t, endpoint, registered);
		expect(signedOld.started).toBe(true);
		expect(signedOld.items[0].json.meta).toMatchObject({ signingSecret: 'previous' });

		// n8n restarts meanwhile (checkExists on the same static data): nothing brings the old secret back.
		expect(await t.checkExists()).toBe(true);

		// Step 3: Previous Signing Secret cleared. The replaced (maybe leaked) secret starts nothing.
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

describe('2. secrets have a shape: blank, whitespace, a bare prefix or a short secret is refused', () => {
	const sloppy = [' ', 'whsec_', 'whsec_ ', 'whsec_abc', 'short', 'whsec_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', `whsec_${'x'.repeat(20)} ${'y'.repeat(10)}`];

	test.each(['V1', 'V2'])('%s: a sloppy Previous Signing Secret fails activation, naming the field (no endpoint registered)', async (version) => {
		for (const previous of sloppy) {
			const t = await createTrigger({
				parameters: { events: ['PAYMENT_COMPLETED'], signatureVersion: version, options: {} },
				credentials: mutableCredentials({ previousSigningSecret: previous }),
			});
			const before = f.sb.state.webhooks.length;
			await expect(t.activate()).rejects.toThrow(/Credential field "Previous Signing Secret" (is blank|is only the prefix|is too short|contains spaces|is one character repeated)/);
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

	test('the credential test fails for a sloppy signing or previous secret, before the key is sent anywhere', async () => {
		const { VaultStoreStoreApi } = await import('../credentials/VaultStoreStoreApi.credentials');
		const expression = String(new VaultStoreStoreApi().test.request.baseURL);
		const body = expression.replace(/^=\{\{/, '').replace(/\}\}$/, '');
		// eslint-disable-next-line @typescript-eslint/no-implied-eval
		const evaluate = (c: IDataObject): string => new Function('$credentials', `return (${body});`)(c) as string;
		const good = { baseUrl: 'https://api.example.com', signingSecret: whsec(1), previousSigningSecret: '' };
		expect(evaluate(good)).toBe('https://api.example.com');
		expect(evaluate({ ...good, signingSecret: '' })).toBe('https://api.example.com');
		expect(evaluate({ ...good, previousSigningSecret: whsec(2) })).toBe('https://api.example.com');
		for (const bad of sloppy) {
			expect(evaluate({ ...good, signingSecret: bad })).toMatch(/^https:\/\/webhook-signing-secret-.*\.invalid$/);
			expect(evaluate({ ...good, previousSigningSecret: bad })).toMatch(/^https:\/\/webhook-signing-secret-.*\.invalid$/);
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
		const retried = await deliverSigned(t, { ...endpoint, signatureVersion: 'V2' }, f.sb.store.signingSecret, messageId);
		expect(retried.started).toBe(false);
		expect(retried.body).toEqual({ received: true, ignored: 'duplicate delivery' });
		expect(await t.delete()).toBe(true);
	});
});

void rl;
