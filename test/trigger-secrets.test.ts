/**
 * Issue 44: the signing secret's shape is not a rule the service states ("Webhook signing secret:
 * <SIGNING_SECRET>"). Any secret the service gives is used: a short one (or one character repeated,
 * or spaced) passes the credential test, activates the trigger with a warning in the log, and
 * deliveries signed with it verify. Only a value that is no secret (blank, a bare whsec_) and, for
 * V2, one that is not base64 (the Standard Webhooks key) are refused. These are the examples of the
 * checks table's trigger rows (scripts/checks-before-sending.ts, node: 'trigger'). The trigger runs
 * in n8n-core against the sandbox, which signs with the endpoint's secret.
 */
import { randomUUID } from 'node:crypto';

import type { IDataObject } from 'n8n-workflow';

import { signedHeaders } from '../sandbox/deliveries';
import type { WebhookEndpoint } from '../sandbox/state';
import { testCredential } from './support/credential-tester';
import { useSandbox } from './support/fixtures';
import { logLines } from './support/harness';
import type { TriggerInstance } from './support/trigger-harness';
import { createTrigger, registeredEndpoint, withStoreFields } from './support/trigger-harness';

const f = useSandbox();

const credentials = (store: IDataObject = {}) => withStoreFields(f.credentials, store);

const endpointOf = (t: TriggerInstance): WebhookEndpoint => registeredEndpoint(f.sb.state.webhooks, t);

/** A delivery as the sandbox sends it for `endpoint`, signed with `secret`. */
async function deliver(t: TriggerInstance, endpoint: WebhookEndpoint, secret: string) {
	const messageId = `msg_${randomUUID().replace(/-/g, '')}`;
	const body = JSON.stringify({ id: messageId, event: 'PAYMENT_COMPLETED', createdAt: new Date().toISOString(), data: { amount: 1 } });
	const headers = signedHeaders(endpoint, secret, messageId, `job_${randomUUID().slice(0, 8)}`, body, Date.now());
	return await t.deliver({ rawBody: Buffer.from(body), headers });
}

/** The credential test (as n8n runs it, against the sandbox) with these store credential values. */
async function credentialTest(values: IDataObject): Promise<string> {
	const result = await testCredential('vaultStoreStoreApi', credentials({ signingSecret: '', previousSigningSecret: '', ...values }).vaultStoreStoreApi);
	return result.status === 'OK' ? 'OK' : result.message;
}

/** Short secrets the service might give: V2 ones are base64 (after whsec_), V1 ones any text. */
const SHORT = {
	V2: ['whsec_c2hvcnQ=', 'whsec_QUFBQUFB', 'c2VjcmV0'],
	V1: ['short', 'whsec_abc', 'aaaaaaaa', 'whsec_x'],
};

describe('a short signing secret: the credential test passes, activation works with a warning, deliveries verify', () => {
	test('the credential test passes for short, repeated or spaced secrets (current and previous)', async () => {
		for (const secret of [...SHORT.V2, ...SHORT.V1, 'two words here']) {
			expect(await credentialTest({ signingSecret: secret })).toBe('OK');
			expect(await credentialTest({ previousSigningSecret: secret })).toBe('OK');
		}
	});

	test.each(['V2', 'V1'] as const)('%s: activation with a short Webhook Signing Secret works, logs a warning naming the field, and deliveries signed with it verify', async (version) => {
		for (const secret of SHORT[version]) {
			const start = logLines.length;
			const t = await createTrigger({
				parameters: { events: ['PAYMENT_COMPLETED'], signatureVersion: version, options: {} },
				credentials: credentials({ signingSecret: secret }),
			});
			await t.activate();
			const logged = logLines.slice(start).join('\n');
			expect(logged).toMatch(/warn .*credential field "Webhook Signing Secret" (is short|is one character repeated).*It is used as given/);
			expect(logged).not.toContain(secret.replace(/^whsec_/, '') + '"'); // the value is not logged
			const endpoint = endpointOf(t);
			// The service signs with this endpoint's secret: the short one.
			endpoint.secret = secret;
			const good = await deliver(t, endpoint, secret);
			expect(good.status).toBe(200);
			expect(good.started).toBe(true);
			expect(good.items[0].json).toMatchObject({ event: 'PAYMENT_COMPLETED' });
			// Another secret still verifies nothing.
			const forged = await deliver(t, endpoint, f.sb.store.signingSecret);
			expect(forged.status).toBe(401);
			expect(forged.started).toBe(false);
			expect(await t.delete()).toBe(true);
		}
	});

	test('a short Previous Signing Secret activates with a warning; deliveries signed with it verify during the rotation', async () => {
		const previous = 'whsec_c2hvcnQ=';
		const start = logLines.length;
		const t = await createTrigger({
			parameters: { events: ['PAYMENT_COMPLETED'], signatureVersion: 'V2', options: {} },
			credentials: credentials({ previousSigningSecret: previous }),
		});
		await t.activate();
		expect(logLines.slice(start).join('\n')).toMatch(/credential field "Previous Signing Secret" is short/);
		const endpoint = endpointOf(t);
		const old = await deliver(t, endpoint, previous);
		expect(old.started).toBe(true);
		expect(old.items[0].json.meta).toMatchObject({ signingSecret: 'previous' });
		expect((await deliver(t, endpoint, f.sb.store.signingSecret)).started).toBe(true);
		expect(await t.delete()).toBe(true);
	});

	test('a full-length secret logs no shape warning', async () => {
		const start = logLines.length;
		const t = await createTrigger({ parameters: { events: ['PAYMENT_COMPLETED'], signatureVersion: 'V2', options: {} }, credentials: credentials({}) });
		await t.activate();
		expect(logLines.slice(start).join('\n')).not.toMatch(/is short|one character repeated|contains spaces/);
		expect(await t.delete()).toBe(true);
	});
});

describe('what is still refused: no secret at all, and (V2) no key', () => {
	test.each(['V1', 'V2'])('%s: a blank value or a bare whsec_ fails activation naming the field, and the credential test', async (version) => {
		for (const [secret, problem] of [[' ', /is blank/], ['whsec_', /is only the prefix/]] as const) {
			expect(await credentialTest({ signingSecret: secret })).toMatch(/^Webhook Signing Secret: it is blank or only whsec_/);
			const t = await createTrigger({
				parameters: { events: ['PAYMENT_COMPLETED'], signatureVersion: version, options: {} },
				credentials: credentials({ signingSecret: secret }),
			});
			await expect(t.activate()).rejects.toThrow(new RegExp(`Credential field "Webhook Signing Secret" ${problem.source}`));
		}
	});

	test('V2: a secret that is not base64 fails activation naming the field (the Standard Webhooks key is base64)', async () => {
		const t = await createTrigger({
			parameters: { events: ['PAYMENT_COMPLETED'], signatureVersion: 'V2', options: {} },
			credentials: credentials({ signingSecret: 'whsec_not base64!' }),
		});
		await expect(t.activate()).rejects.toThrow(/Credential field "Webhook Signing Secret" is not a valid V2 signing secret/);
	});
});
