/**
 * Where the trigger's webhook() time goes (bench/RESULTS.md section 4, the second table): the same
 * harness and n8n-core WebhookContext as section 4, with a part of the path left out at a time,
 * interleaved round by round with the node as shipped and the reference library's verify. A
 * profile, not a headline: the left-out parts are patched into the loaded build for their own
 * contender only (never shipped), and put back after it.
 *
 *   node out/bench/trigger-parts.js     (after npm run build && npm run build:dev)
 */
import { createHash, createHmac } from 'node:crypto';
import path from 'node:path';

import type { IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';
import { Webhook } from 'standardwebhooks';

import { createTrigger } from '../test/support/trigger-harness';
import { delivery as sized, printAndExit, SECRET } from './trigger';

/** A 4 KiB V2 delivery, as section 4 sends. */
const delivery = () => sized(4096);

const PER_ROUND = 1000;
const ROUNDS = 10;
const WARM_ROUNDS = 1;

const DIST = path.join(__dirname, '..', '..', 'dist', 'nodes');
// The modules the loaded node uses (the harness loads the package from dist/): patched per contender.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const receive = require(path.join(DIST, 'VaultStoreTrigger', 'receive.js')) as { receiveDelivery: (ctx: IWebhookFunctions) => Promise<IWebhookResponseData> };
// eslint-disable-next-line @typescript-eslint/no-require-imports
const quick = require(path.join(DIST, 'shared', 'redaction', 'quick.js')) as { QuickScan: { prototype: { feed: (text: string) => void } } };

const item = (json: unknown): IWebhookResponseData => ({ workflowData: [[{ json: json as never }]] });

/** Kept so that the floor row's loop is not optimised away. */
let sink = 0;

/** Every character of a parsed value's keys and strings read once: a sum of char codes. */
function readEveryCharacter(value: unknown): number {
	if (typeof value === 'string') {
		let sum = 0;
		for (let i = 0; i < value.length; i++) sum = (sum + value.charCodeAt(i)) | 0;
		return sum;
	}
	if (value === null || typeof value !== 'object') return 0;
	let sum = 0;
	for (const [key, inner] of Object.entries(value)) sum = (sum + readEveryCharacter(key) + readEveryCharacter(inner)) | 0;
	return sum;
}

/** The reads every delivery makes of n8n (as receive.ts makes them). */
async function reads(ctx: IWebhookFunctions): Promise<Buffer> {
	const req = ctx.getRequestObject();
	ctx.getResponseObject();
	ctx.getNodeParameter('signatureVersion', 'V2');
	ctx.getWorkflowStaticData('node');
	ctx.getNodeParameter('events', []);
	ctx.getNode();
	ctx.getNodeParameter('options', {});
	await ctx.getCredentials('vaultStoreStoreApi');
	ctx.getWorkflow();
	return req.rawBody as Buffer;
}

/** The reads, the HMAC-SHA256 of the delivery, the duplicate check's SHA-256 and the parse: what every delivery costs before the gate. */
async function readVerifyParse(ctx: IWebhookFunctions): Promise<unknown> {
	const raw = await reads(ctx);
	createHmac('sha256', Buffer.alloc(24)).update('msg.1.').update(raw).digest('base64');
	createHash('sha256').update(raw).digest('base64');
	return JSON.parse(raw.toString('utf8'));
}

export async function runTriggerParts(): Promise<string> {
	const trigger = await createTrigger({
		parameters: { events: ['PAYMENT_COMPLETED'], signatureVersion: 'V2', options: { manageEndpoint: false } },
		credentials: { vaultStoreStoreApi: { baseUrl: 'http://127.0.0.1:9', storeId: 'shp_benchstore01', secretKey: 'sk_bench_key_0001', signingSecret: SECRET } },
		recordForScan: false,
	});
	const shipped = receive.receiveDelivery;
	const feed = quick.QuickScan.prototype.feed;
	const wh = new Webhook(SECRET);
	const withStub = (stub: (ctx: IWebhookFunctions) => Promise<IWebhookResponseData>) => async (d: ReturnType<typeof delivery>) => {
		receive.receiveDelivery = stub;
		try {
			return (await trigger.deliver(d)).started;
		} finally {
			receive.receiveDelivery = shipped;
		}
	};
	const contenders: Array<{ name: string; run: (d: ReturnType<typeof delivery>) => Promise<boolean> | boolean; times: number[] }> = [
		{ name: 'the harness and WebhookContext, webhook() a stub that returns one item', run: withStub(async () => item({})), times: [] },
		{
			name: "the same, the stub making the node's n8n reads (3 getNodeParameter, getNode, getWorkflowStaticData, getCredentials)",
			run: withStub(async (ctx) => {
				await reads(ctx);
				return item({});
			}),
			times: [],
		},
		{
			name: 'the same, and HMAC-SHA256 of the delivery, its parse and the duplicate check\'s SHA-256',
			run: withStub(async (ctx) => item(await readVerifyParse(ctx))),
			times: [],
		},
		{
			name: 'the same, and one read of each character of the parsed item (a sum of its char codes: the least any gate that reads every character costs)',
			run: withStub(async (ctx) => {
				const json = await readVerifyParse(ctx);
				sink ^= readEveryCharacter(json);
				return item(json);
			}),
			times: [],
		},
		{
			name: "the node's webhook() with the gate's quick test left out (its feed returns at once)",
			run: async (d) => {
				quick.QuickScan.prototype.feed = () => undefined;
				try {
					return (await trigger.deliver(d)).started;
				} finally {
					quick.QuickScan.prototype.feed = feed;
				}
			},
			times: [],
		},
		{ name: "the node's webhook() as shipped", run: async (d) => (await trigger.deliver(d)).started, times: [] },
		{ name: '(peer) standardwebhooks verify() made once', run: (d) => wh.verify(d.rawBody.toString('utf8'), d.headers) !== undefined, times: [] },
	];
	let started = 0;
	for (let round = 0; round < WARM_ROUNDS + ROUNDS; round++) {
		for (const c of contenders) {
			// Each its own deliveries: the node drops a repeated one as a duplicate.
			const batch = Array.from({ length: PER_ROUND }, delivery);
			for (const d of batch) {
				const t = performance.now();
				const ok = await c.run(d);
				const dt = performance.now() - t;
				if (round >= WARM_ROUNDS) c.times.push(dt);
				if (ok) started++;
			}
		}
	}
	const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] * 1000;
	const reference = p50(contenders[contenders.length - 1].times);
	return [
		`Where the time of webhook() goes, per 4 KiB V2 delivery (${ROUNDS} interleaved rounds of ${PER_ROUND} each after ${WARM_ROUNDS} warm-up; \`node out/bench/trigger-parts.js\`):`,
		'',
		'| contender | p50 (µs) | speed vs the reference verify |',
		'|---|---:|---:|',
		...contenders.map((c) => `| ${c.name} | ${p50(c.times).toFixed(1)} | ${(reference / p50(c.times)).toFixed(2)}x |`),
		'',
		`Answers that started an execution or verified: ${started} of ${(WARM_ROUNDS + ROUNDS) * PER_ROUND * contenders.length}.`,
	].join('\n');
}

if (require.main === module) printAndExit(runTriggerParts);
