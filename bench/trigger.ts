/**
 * Section 4: the trigger's webhook() in-process, as n8n-core calls it
 * (WebhookContext), per 4 KiB V2 delivery: p50 and p99, next to what a user
 * would do instead (a Webhook node plus the `standardwebhooks` library's
 * verify and a JSON parse of the same delivery).
 */
import { createHmac, randomUUID } from 'node:crypto';

import { Webhook } from 'standardwebhooks';

import { createTrigger } from '../test/support/trigger-harness';

const SECRET = `whsec_${Buffer.from('bench-signing-secret-0123').toString('base64')}`;
const N = 5_000;
const WARMUP = 500;

function delivery(size: number): { rawBody: Buffer; headers: Record<string, string> } {
	const id = `msg_${randomUUID().replace(/-/g, '')}`;
	const body = { id, event: 'PAYMENT_COMPLETED', createdAt: new Date().toISOString(), data: { pad: '' } };
	const base = Buffer.byteLength(JSON.stringify(body));
	body.data.pad = 'x'.repeat(Math.max(0, size - base));
	const rawBody = Buffer.from(JSON.stringify(body));
	const ts = String(Math.floor(Date.now() / 1000));
	const key = Buffer.from(SECRET.slice('whsec_'.length), 'base64');
	const sig = createHmac('sha256', key).update(`${id}.${ts}.`).update(rawBody).digest('base64');
	return { rawBody, headers: { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': ts, 'webhook-signature': `v1,${sig}` } };
}

function percentile(sorted: number[], p: number): number {
	return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export async function runTriggerBench(): Promise<string> {
	const trigger = await createTrigger({
		parameters: { events: ['PAYMENT_COMPLETED'], signatureVersion: 'V2', options: { manageEndpoint: false } },
		credentials: {
			vaultStoreStoreApi: { baseUrl: 'http://127.0.0.1:9', storeId: 'shp_benchstore01', secretKey: 'sk_bench_key_0001', signingSecret: SECRET },
		},
	});
	const deliveries = Array.from({ length: N + WARMUP }, () => delivery(4096));
	const ours: number[] = [];
	let started = 0;
	for (let i = 0; i < deliveries.length; i++) {
		const t = performance.now();
		const result = await trigger.deliver(deliveries[i]);
		const dt = performance.now() - t;
		if (i >= WARMUP) ours.push(dt);
		if (result.started) started++;
	}
	const wh = new Webhook(SECRET);
	const peer: number[] = [];
	for (let i = 0; i < deliveries.length; i++) {
		const d = deliveries[i];
		const t = performance.now();
		wh.verify(d.rawBody.toString('utf8'), d.headers);
		const dt = performance.now() - t;
		if (i >= WARMUP) peer.push(dt);
	}
	ours.sort((a, b) => a - b);
	peer.sort((a, b) => a - b);
	const row = (name: string, xs: number[], base: number[]) =>
		`| ${name} | ${percentile(xs, 50).toFixed(3)} | ${percentile(xs, 99).toFixed(3)} | ${(percentile(xs, 50) / percentile(base, 50)).toFixed(2)}x | ${(percentile(xs, 99) / percentile(base, 99)).toFixed(2)}x |`;
	return [
		`### 4. Trigger webhook() per 4 KiB V2 delivery, in-process (${N} deliveries after ${WARMUP} warm-up)`,
		'',
		'| contender | p50 (ms) | p99 (ms) | p50 vs peer | p99 vs peer |',
		'|---|---:|---:|---:|---:|',
		row('Vault Store Trigger webhook() through n8n-core WebhookContext (verify, dedupe, parse, emit)', ours, peer),
		row('(peer) standardwebhooks verify() alone, same deliveries', peer, peer),
		'',
		`Executions started: ${started} of ${deliveries.length}. Target: p99 under 1 ms.`,
	].join('\n');
}
