/**
 * Issue 34, the trigger: a V2 → V1 rollback in the merchant dashboard keeps deliveries coming
 * (the node accepts its own Signature Version besides the endpoint's version it remembers), no
 * log line advises a step that breaks the live workflow, and a failure after verification answers
 * 500 (the service retries) where only what does not verify answers 401. Through the node's real
 * webhook() in n8n-core, deliveries signed as the sandbox signs them.
 */
import { randomUUID } from 'node:crypto';

import { signedHeaders } from '../sandbox/deliveries';
import type { WebhookEndpoint } from '../sandbox/state';
import { useSandbox } from './support/fixtures';
import { logLines } from './support/harness';
import type { TriggerInstance } from './support/trigger-harness';
import { createTrigger, registeredEndpoint } from './support/trigger-harness';

const f = useSandbox();

const endpointOf = (t: TriggerInstance): WebhookEndpoint => registeredEndpoint(f.sb.state.webhooks, t);

/** A fresh delivery signed as the sandbox signs for `endpoint` (its current version), optionally tampered with. */
async function deliver(t: TriggerInstance, endpoint: WebhookEndpoint, options: { secret?: string; tamper?: boolean } = {}) {
	const messageId = `msg_${randomUUID().replace(/-/g, '')}`;
	const body = JSON.stringify({ id: messageId, event: 'PAYMENT_COMPLETED', createdAt: new Date().toISOString(), data: { amount: 1 } });
	const headers = signedHeaders(endpoint, options.secret ?? f.sb.store.signingSecret, messageId, `job_${randomUUID().slice(0, 8)}`, body, Date.now());
	return await t.deliver({ rawBody: Buffer.from(options.tamper ? body.replace('"amount":1', '"amount":9') : body), headers });
}

async function v1Trigger(): Promise<TriggerInstance> {
	const t = await createTrigger({ parameters: { events: ['PAYMENT_COMPLETED'], signatureVersion: 'V1', options: {} }, credentials: f.credentials });
	await t.activate();
	expect(endpointOf(t).signatureVersion).toBe('V1');
	return t;
}

/** Three V1 deliveries in a row: each answered 200, each starts the workflow, each marked V1. */
async function expectV1DeliveriesRun(t: TriggerInstance, endpoint: WebhookEndpoint): Promise<void> {
	for (let i = 0; i < 3; i++) {
		const asV1 = await deliver(t, endpoint);
		expect(asV1.status).toBe(200);
		expect(asV1.started).toBe(true);
		expect(asV1.items[0].json.meta).toMatchObject({ signatureVersion: 'V1' });
	}
}

describe('a V2 → V1 rollback in the merchant dashboard', () => {
	test('after the service migrated the endpoint to V2 and a restart kept V2, V1 deliveries after the rollback start the workflow; a forged one is still 401', async () => {
		const t = await v1Trigger();
		const endpoint = endpointOf(t);
		endpoint.signatureVersion = 'V2'; // the service migrated it
		const before = logLines.length;
		await t.activate(); // a restart: the endpoint is kept at V2
		expect(endpoint.signatureVersion).toBe('V2');
		expect(t.staticData().signatureVersion).toBe('V2');
		const advice = logLines.slice(before).filter((line) => line.includes('is set to V2 at the service'));
		expect(advice).toHaveLength(1);
		// What the line says holds: rolling back in the dashboard keeps the workflow receiving.
		expect(advice[0]).toMatch(/Deliveries signed as V1 are accepted too/);
		expect(logLines.slice(before).some((line) => /select the previous version/.test(line))).toBe(false);

		const asV2 = await deliver(t, endpoint);
		expect(asV2.status).toBe(200);
		expect(asV2.started).toBe(true);

		endpoint.signatureVersion = 'V1'; // the merchant rolls back in the dashboard
		await expectV1DeliveriesRun(t, endpoint);
		const forged = await deliver(t, endpoint, { secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}` });
		expect(forged.status).toBe(401);
		expect(forged.started).toBe(false);
		const tampered = await deliver(t, endpoint, { tamper: true });
		expect(tampered.status).toBe(401);

		// The next activation keeps the version the endpoint now has.
		await t.activate();
		expect(endpoint.signatureVersion).toBe('V1');
		expect((await deliver(t, endpoint)).started).toBe(true);
	});

	test('the node-advised switch to V2 followed by a rollback to V1 in the dashboard: V1 deliveries run (the endpoint is read again), forged ones are still 401', async () => {
		const t = await v1Trigger();
		const endpoint = endpointOf(t);
		endpoint.signatureVersion = 'V2'; // the service migrated it; the node's log advises V2
		t.setParameters({ ...t.node.parameters, signatureVersion: 'V2' }); // the user follows the advice
		await t.activate();
		expect(t.staticData()).toMatchObject({ chosenVersion: 'V2', signatureVersion: 'V2' });
		expect((await deliver(t, endpoint)).started).toBe(true);
		endpoint.signatureVersion = 'V1'; // the merchant rolls back in the dashboard
		await expectV1DeliveriesRun(t, endpoint);
		expect((await deliver(t, endpoint, { secret: `whsec_${Buffer.alloc(32, 9).toString('base64')}` })).status).toBe(401);
		// And back to V2 at the service: V2 deliveries run again once the endpoint is read again (a few reads at once, then one every 10 s).
		endpoint.signatureVersion = 'V2';
		await t.activate();
		expect((await deliver(t, endpoint)).started).toBe(true);
	});

	test('a node set to V2 whose endpoint is V2 still refuses V1 deliveries (no downgrade the node did not ask for)', async () => {
		const t = await createTrigger({ parameters: { events: ['PAYMENT_COMPLETED'], signatureVersion: 'V2', options: {} }, credentials: f.credentials });
		await t.activate();
		const endpoint = endpointOf(t);
		expect((await deliver(t, endpoint)).started).toBe(true);
		const v1 = { ...endpoint, signatureVersion: 'V1' as const };
		const asV1 = await deliver(t, v1);
		expect(asV1.status).toBe(401);
	});
});

// Issue 54.1: a delivery that verifies in no version makes no request and spends nothing of the
// node's read allowance, so forged requests arriving all the time cannot keep a rollback unnoticed.
describe('a forgery costs nothing', () => {
	const endpointReads = () => f.requests().filter((q) => q.method === 'GET' && /\/webhooks\/whk_/.test(q.path));
	const otherSecret = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;

	test('forged deliveries in either version, tampered ones and ones without signature headers read nothing; after them the genuine rollback delivery runs (one read)', async () => {
		const t = await v1Trigger();
		const endpoint = endpointOf(t);
		endpoint.signatureVersion = 'V2'; // migrated at the service, kept at a restart
		await t.activate();
		expect(t.staticData().signatureVersion).toBe('V2');
		f.sb.clearRequests();
		for (let i = 0; i < 20; i++) {
			const as = i % 2 === 0 ? endpoint : { ...endpoint, signatureVersion: 'V1' as const };
			expect((await deliver(t, as, { secret: otherSecret })).status).toBe(401);
			expect((await deliver(t, as, { tamper: true })).status).toBe(401);
			expect((await t.deliver({ rawBody: Buffer.from('{"id":"msg_x","event":"PAYMENT_COMPLETED"}'), headers: { 'content-type': 'application/json' } })).status).toBe(401);
		}
		expect(endpointReads()).toHaveLength(0);
		// Control: the merchant rolls back; the genuine V1 delivery makes the node read the endpoint, once, and runs.
		endpoint.signatureVersion = 'V1';
		const genuine = await deliver(t, endpoint);
		expect(genuine.status).toBe(200);
		expect(genuine.started).toBe(true);
		expect(endpointReads()).toHaveLength(1);
	});
});

describe('answers: 401 only for what does not verify', () => {
	test('a failure after the delivery verified answers 500, so the service retries it; an unverified delivery answers 401', async () => {
		const t = await v1Trigger();
		const endpoint = endpointOf(t);
		// The endpoint migrated at the service without a restart: a V2 delivery verifies, then the
		// node logs that it was migrated. That log write fails (e.g. a full disk).
		endpoint.signatureVersion = 'V2';
		const push = logLines.push.bind(logLines);
		logLines.push = (...lines: string[]): number => {
			if (lines.some((line) => line.includes('accepted a V2-signed delivery'))) throw new Error('log write failed');
			return push(...lines);
		};
		let failed;
		try {
			failed = await deliver(t, endpoint);
		} finally {
			logLines.push = push;
		}
		expect(failed.status).toBe(500);
		expect(failed.started).toBe(false);
		expect(JSON.stringify(failed.body)).not.toMatch(/not.*verified|could not be verified/);
		// Retried by the service: verified and started this time.
		const retried = await deliver(t, endpoint);
		expect(retried.status).toBe(200);
		expect(retried.started).toBe(true);

		const unverified = await deliver(t, endpoint, { tamper: true });
		expect(unverified.status).toBe(401);
	});
});
