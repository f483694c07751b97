/**
 * Section 4: the trigger's webhook() in-process, as n8n-core calls it
 * (WebhookContext), per 4 KiB V2 delivery: p50 and p99, next to what a user
 * would do instead (a Webhook node plus the `standardwebhooks` library's
 * verify and a JSON parse of the same delivery).
 */
import { createHmac, randomUUID } from 'node:crypto';

import { Webhook } from 'standardwebhooks';

import { createTrigger } from '../test/support/trigger-harness';

export const SECRET = `whsec_${Buffer.from('bench-signing-secret-0123').toString('base64')}`;
const N = 5_000;
const WARMUP = 500;

/** A V2 delivery of `size` bytes signed with SECRET, and its body as n8n's body parser gives it. */
export function delivery(size: number): { rawBody: Buffer; headers: Record<string, string>; body: unknown } {
	const id = `msg_${randomUUID().replace(/-/g, '')}`;
	const body = { id, event: 'PAYMENT_COMPLETED', createdAt: new Date().toISOString(), data: { pad: '' } };
	const base = Buffer.byteLength(JSON.stringify(body));
	body.data.pad = 'x'.repeat(Math.max(0, size - base));
	const rawBody = Buffer.from(JSON.stringify(body));
	const ts = String(Math.floor(Date.now() / 1000));
	const key = Buffer.from(SECRET.slice('whsec_'.length), 'base64');
	const sig = createHmac('sha256', key).update(`${id}.${ts}.`).update(rawBody).digest('base64');
	// `body` is what n8n's body parser hands the node before it calls webhook(): parsed here, untimed.
	return { rawBody, body: JSON.parse(rawBody.toString('utf8')), headers: { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': ts, 'webhook-signature': `v1,${sig}` } };
}

function percentile(sorted: number[], p: number): number {
	return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Rounds of the interleaved run: each round times every contender over the same ROUND deliveries. */
const ROUNDS = 10;

export async function runTriggerBench(): Promise<string> {
	const trigger = await createTrigger({
		parameters: { events: ['PAYMENT_COMPLETED'], signatureVersion: 'V2', options: { manageEndpoint: false } },
		credentials: {
			vaultStoreStoreApi: { baseUrl: 'http://127.0.0.1:9', storeId: 'shp_benchstore01', secretKey: 'sk_bench_key_0001', signingSecret: SECRET },
		},
		// Uninstrumented: the test suite's secret-scan recording of each item is left out of the timing.
		recordForScan: false,
	});
	const round = Math.ceil((N + WARMUP) / ROUNDS);
	const deliveries = Array.from({ length: round * ROUNDS }, () => delivery(4096));
	const wh = new Webhook(SECRET);
	// The contenders, interleaved round by round over the same deliveries, so that a slow phase of
	// the machine falls on each alike: the trigger as n8n-core calls it, and the reference library
	// as a user's Code node after a Webhook node would run it (made once, and made per delivery as a
	// workflow without state does; both parse the JSON, as the trigger does).
	const contenders: Array<{ name: string; run: (d: (typeof deliveries)[number]) => Promise<boolean> | boolean; times: number[] }> = [
		{ name: 'Vault Store Trigger webhook() through n8n-core WebhookContext (verify, dedupe, parse, output gate, emit)', run: async (d) => (await trigger.deliver(d)).started, times: [] },
		{ name: '(peer) standardwebhooks verify() made once, same deliveries', run: (d) => wh.verify(d.rawBody.toString('utf8'), d.headers) !== undefined, times: [] },
		{ name: '(peer) standardwebhooks new Webhook(secret).verify() per delivery', run: (d) => new Webhook(SECRET).verify(d.rawBody.toString('utf8'), d.headers) !== undefined, times: [] },
	];
	let started = 0;
	for (let r = 0; r < ROUNDS; r++) {
		const batch = deliveries.slice(r * round, (r + 1) * round);
		for (const c of contenders) {
			for (let i = 0; i < batch.length; i++) {
				const t = performance.now();
				const ok = await c.run(batch[i]);
				const dt = performance.now() - t;
				if (r * round + i >= WARMUP) c.times.push(dt);
				if (c === contenders[0] && ok) started++;
			}
		}
	}
	for (const c of contenders) c.times.sort((a, b) => a - b);
	const peer = contenders[1].times;
	const row = (name: string, xs: number[]) =>
		`| ${name} | ${percentile(xs, 50).toFixed(3)} | ${percentile(xs, 99).toFixed(3)} | ${(percentile(xs, 50) / percentile(peer, 50)).toFixed(2)}x | ${(percentile(xs, 99) / percentile(peer, 99)).toFixed(2)}x |`;
	const ours = contenders[0].times;
	const speed = (xs: number[]) => percentile(xs, 50) / percentile(ours, 50);
	return [
		`### 4. Trigger webhook() per 4 KiB V2 delivery, in-process (${ours.length} deliveries after ${WARMUP} warm-up, ${ROUNDS} interleaved rounds)`,
		'',
		'| contender | p50 (ms) | p99 (ms) | p50 vs peer | p99 vs peer |',
		'|---|---:|---:|---:|---:|',
		...contenders.map((c) => row(c.name, c.times)),
		'',
		`Executions started: ${started} of ${deliveries.length}. Target: p99 under 1 ms.`,
		`Speed of the whole webhook() against the reference library's verify (p50 time of the library / p50 time of webhook()): ` +
			`${speed(peer).toFixed(2)}x against it made once, ${speed(contenders[2].times).toFixed(2)}x against it made per delivery; ` +
			`the target is 1.5x: ${speed(peer) >= 1.5 ? 'met' : '**not met**'}.`,
	].join('\n');
}

/** Runs a section by itself: prints its markdown and exits (n8n-core keeps process-wide handles open after a run). */
export function printAndExit(section: () => Promise<string>): void {
	section().then(
		(markdown) => {
			console.log(markdown);
			process.exit(0);
		},
		(error: unknown) => {
			console.error(error);
			process.exit(1);
		},
	);
}

if (require.main === module) printAndExit(runTriggerBench);
