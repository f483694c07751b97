/**
 * One measured contender, in its own process so that wall time and peak RSS
 * belong to it alone. Usage (from bench/run.ts):
 *   node out/bench/child.js <scenario> '<json args>'
 * Node types are loaded before the clock starts, as in a running n8n; the workflow run is timed.
 * Prints one JSON line: { ms, nodeMs, cpuMs, loadMs, items, failed, peakRssMb, idleMs, peakInFlight,
 * loopDelay }. A node that fails as a whole counts every input item as failed.
 *
 * Requests in flight are counted from Node's HTTP client diagnostics channels (sent: a request
 * starts; done: its response headers arrive, or it fails), whoever sends them, so the count is the
 * same instrument for every contender. Idle time: time from the start of the run to the last
 * answer with nothing in flight (items remain until the last answer is in).
 */
import diagnostics from 'node:diagnostics_channel';
import http from 'node:http';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';

import type { IDataObject, INodeExecutionData, INodeType, IVersionedNodeType } from 'n8n-workflow';

import { ensureBinaryData, loadPackage, runNodes } from '../test/support/harness';

interface Args {
	baseUrl: string;
	storeId: string;
	secretKey: string;
	items?: string[];
	/** Instead of `items` (a long list does not fit in the arguments): order ids ord_000…0 to ord_000…(n-1). */
	itemCount?: number;
	/** The Concurrency option; unset means the node's default. */
	concurrency?: number;
	batchSize?: number;
	/** HTTP Request node batching interval (ms); 0 starts a whole batch at once. */
	batchInterval?: number;
	/** Settings → On Error: continue, so a failed item is an item with `error` instead of a failed node. */
	continueOnFail?: boolean;
	n8nHome?: string;
	/** The plain client: sockets of its keep-alive agent (and requests in flight at most). */
	sockets?: number;
	/** Count requests in flight and sample the event loop during the run (not in headline runs). */
	instrument?: boolean;
	/** HTTP Request node type version (default 4.2). */
	httpVersion?: number;
	/** Pacing other than the default (a comparison row, e.g. the old start): options of the node's pool. */
	pool?: Record<string, unknown>;
}

/** Makes the node's pool (dist) start with `pool`'s options instead of its defaults, for the runs that ask. */
function poolOverride(pool: Args['pool']): void {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const m = require('../../dist/nodes/shared/transport/concurrency') as Record<string, unknown> & { AdaptiveConcurrency: new (o: object) => object };
	const original = (m.__original ??= m.AdaptiveConcurrency) as new (o: object) => object;
	m.AdaptiveConcurrency = pool ? class extends (original as new (o: object) => object) { constructor(o: object) { super({ ...o, ...pool }); } } as typeof m.AdaptiveConcurrency : original as typeof m.AdaptiveConcurrency;
}

/** Requests in flight over the run, from Node's HTTP client channels. */
const flight = {
	now: 0,
	peak: 0,
	idleMs: 0,
	/** When nothing was last in flight (the run's start until the first request). */
	idleSince: 0,
	lastAnswerAt: 0,
};
function started(): void {
	if (flight.now === 0) flight.idleMs += performance.now() - flight.idleSince;
	flight.now++;
	if (flight.now > flight.peak) flight.peak = flight.now;
}
function ended(): void {
	flight.now--;
	flight.lastAnswerAt = performance.now();
	if (flight.now === 0) flight.idleSince = flight.lastAnswerAt;
}
const counted = new WeakSet<object>();
/** Counts requests in flight from Node's HTTP client channels (instrumented runs only). */
function countRequests(): void {
	diagnostics.subscribe('http.client.request.start', (message) => {
		const request = (message as { request: http.ClientRequest }).request;
		counted.add(request);
		started();
		request.once('error', () => {
			if (counted.delete(request)) ended();
		});
	});
	diagnostics.subscribe('http.client.response.finish', (message) => {
		const request = (message as { request: http.ClientRequest }).request;
		if (counted.delete(request)) ended();
	});
}

/** The headroom client: plain `http.get` with a keep-alive agent, `sockets` at a time, JSON parsed. */
async function plainClient(a: Args): Promise<INodeExecutionData[]> {
	const agent = new http.Agent({ keepAlive: true, maxSockets: a.sockets ?? 64 });
	const root = `${a.baseUrl}/v2/core/stores/${a.storeId}/orders/`;
	const headers = { Authorization: `Bearer ${a.secretKey}`, Accept: 'application/json' };
	const one = (id: string) =>
		new Promise<INodeExecutionData>((resolve, reject) => {
			http
				.get(`${root}${id}`, { agent, headers }, (res) => {
					let text = '';
					res.setEncoding('utf8');
					res.on('data', (chunk: string) => (text += chunk));
					res.on('end', () => resolve({ json: (JSON.parse(text) as { data: IDataObject }).data }));
				})
				.on('error', reject);
		});
	const out = await Promise.all((a.items ?? []).map(one));
	agent.destroy();
	return out;
}

function credentials(a: Args) {
	return { vaultStoreStoreApi: { baseUrl: a.baseUrl, storeId: a.storeId, secretKey: a.secretKey, signingSecret: '' } };
}

let httpNodeTypes: Record<string, INodeType | IVersionedNodeType> | undefined;

function httpRequestNode(a: Args): Record<string, INodeType | IVersionedNodeType> {
	if (httpNodeTypes) return httpNodeTypes;
	if (!a.n8nHome) throw new Error('n8nHome is required for the HTTP Request node');
	const file = path.join(a.n8nHome, 'node_modules/n8n-nodes-base/dist/nodes/HttpRequest/HttpRequest.node.js');
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { HttpRequest } = require(file) as { HttpRequest: new () => IVersionedNodeType };
	httpNodeTypes = { 'n8n-nodes-base.httpRequest': new HttpRequest() };
	return httpNodeTypes;
}

const authHeader = (a: Args) => ({
	sendHeaders: true,
	specifyHeaders: 'keypair',
	headerParameters: { parameters: [{ name: 'Authorization', value: `Bearer ${a.secretKey}` }] },
});

const ourOptions = (a: Args): IDataObject => (a.concurrency === undefined ? {} : { concurrency: a.concurrency });

/** The node's output; a node that failed as a whole failed every input item. */
/** The node's execution time n8n recorded for the last run. */
let lastNodeMs: number | undefined;

function settle(run: Awaited<ReturnType<typeof runNodes>>, inputCount: number): INodeExecutionData[] {
	const tasks = Object.values(run.run.data.resultData.runData)[0] ?? [];
	lastNodeMs = tasks.reduce((sum, t) => sum + (t.executionTime ?? 0), 0);
	if (run.error()) return Array.from({ length: inputCount }, () => ({ json: { error: run.error()?.message ?? 'failed' } }));
	return run.output();
}

async function scenario(name: string, a: Args): Promise<INodeExecutionData[]> {
	if (a.itemCount !== undefined) a.items = Array.from({ length: a.itemCount }, (_, i) => `ord_${String(i).padStart(20, '0')}`);
	const input = (a.items ?? []).map((id) => ({ json: { id } as IDataObject }));
	switch (name) {
		case 'returnAll-ours': {
			const run = await runNodes(
				[{ parameters: { resource: 'order', operation: 'getAll', returnAll: true, options: ourOptions(a) }, continueOnFail: a.continueOnFail }],
				credentials(a),
			);
			return settle(run, 1);
		}
		case 'returnAll-http': {
			const run = await runNodes(
				[
					{
						type: 'n8n-nodes-base.httpRequest',
						typeVersion: 4.2,
						parameters: {
							method: 'GET',
							url: `${a.baseUrl}/v2/core/stores/${a.storeId}/orders/`,
							sendQuery: true,
							specifyQuery: 'keypair',
							queryParameters: { parameters: [{ name: 'limit', value: '100' }] },
							...authHeader(a),
							options: {
								pagination: {
									pagination: {
										paginationMode: 'updateAParameterInEachRequest',
										parameters: { parameters: [{ type: 'qs', name: 'page', value: '={{ $pageCount + 1 }}' }] },
										paginationCompleteWhen: 'other',
										completeExpression:
											'={{ $response.body.data.pagination.page >= $response.body.data.pagination.totalPages }}',
										limitPagesFetched: false,
										requestInterval: 0,
									},
								},
							},
						},
						continueOnFail: a.continueOnFail,
					},
				],
				credentials(a),
				[{ json: {} }],
				{ extraNodeTypes: httpRequestNode(a) },
			);
			const all = settle(run, 1);
			if (run.error()) return all;
			// One item per page: the orders are inside each page body.
			return run
				.output()
				.flatMap((i) =>
					i.json.error !== undefined ? [i] : ((i.json.data as IDataObject)?.items as IDataObject[]).map((json) => ({ json })),
				);
		}
		case 'plain':
			return await plainClient(a);
		case 'items-ours': {
			const run = await runNodes(
				[
					{
						parameters: {
							resource: 'order',
							operation: 'get',
							orderId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
							options: ourOptions(a),
						},
						continueOnFail: a.continueOnFail,
					},
				],
				credentials(a),
				input,
			);
			return settle(run, input.length);
		}
		case 'items-http': {
			const run = await runNodes(
				[
					{
						type: 'n8n-nodes-base.httpRequest',
						typeVersion: a.httpVersion ?? 4.2,
						parameters: {
							method: 'GET',
							url: `=${a.baseUrl}/v2/core/stores/${a.storeId}/orders/{{ $json.id }}`,
							...authHeader(a),
							options:
								a.batchSize === undefined
									? {}
									: { batching: { batch: { batchSize: a.batchSize, batchInterval: a.batchInterval ?? 0 } } },
						},
						continueOnFail: a.continueOnFail,
					},
				],
				credentials(a),
				input,
				{ extraNodeTypes: httpRequestNode(a) },
			);
			return settle(run, input.length);
		}
		default:
			throw new Error(`unknown scenario ${name}`);
	}
}

/** One contender of a plain interleaved run: a scenario and its arguments (merged over the shared ones). */
interface PlainContender {
	scenario: string;
	args: Partial<Args>;
}

/** Service settings for a run: latency and an optional rate limit (requests/s, burst). */
interface PlainSettings {
	latencyMs: number;
	rate?: number;
	burst?: number;
}

/** One timed run of a plain interleaved series. */
export interface PlainRun {
	/** Index into the contenders. */
	contender: number;
	/** The node's execution time as n8n records it. */
	nodeMs: number;
	cpuMs: number;
	items: number;
	failed: number;
	requests: number;
	r429: number;
	/** Most requests the service held at once (counted by the service: nothing observes the client). */
	serverPeak: number;
	/** TCP connections the service accepted during the run. */
	connections: number;
}

/**
 * The plain measurement: every contender in this one process (one n8n-core, node types loaded
 * once, as in a running n8n), interleaved round by round, nothing observing the run but n8n's
 * own execution time. One untimed warm-up round first: a running n8n has executed its nodes
 * before, and a fresh process's first run pays for compiling n8n's code paths, not for the node.
 */
async function plainSeries(shared: Args & { contenders: PlainContender[]; rounds: number; settings: PlainSettings; warmupItems?: number }): Promise<PlainRun[]> {
	const reset = async () => {
		const s = shared.settings;
		const q = new URLSearchParams({ latencyMs: String(s.latencyMs), rate: String(s.rate ?? 0), burst: String(s.burst ?? 0) });
		await fetch(`${shared.baseUrl}/__reset?${q}`, { method: 'POST' });
	};
	const runs: PlainRun[] = [];
	for (let round = -1; round < shared.rounds; round++) {
		for (const [index, c] of shared.contenders.entries()) {
			const a: Args = { ...shared, ...c.args } as Args;
			if (round < 0) a.itemCount = Math.min(a.itemCount ?? 0, shared.warmupItems ?? 1000);
			await reset();
			poolOverride(a.pool);
			const cpuStart = process.cpuUsage();
			const out = await scenario(c.scenario, a);
			const cpu = process.cpuUsage(cpuStart);
			const stats = (await (await fetch(`${shared.baseUrl}/__stats`)).json()) as { requests: number; r429: number; peakInFlight: number; connections: number };
			if (round < 0) continue;
			runs.push({
				contender: index,
				nodeMs: lastNodeMs ?? 0,
				cpuMs: (cpu.user + cpu.system) / 1000,
				items: out.length,
				failed: out.filter((i) => i.json.error !== undefined).length,
				requests: stats.requests,
				r429: stats.r429,
				serverPeak: stats.peakInFlight,
				connections: stats.connections,
			});
		}
	}
	return runs;
}

async function main(): Promise<void> {
	const [name, json] = process.argv.slice(2);
	const args = JSON.parse(json) as Args;
	if (name === 'plain-series') {
		await ensureBinaryData();
		await loadPackage();
		const series = args as Args & { contenders: PlainContender[]; rounds: number; settings: PlainSettings };
		if (series.contenders.some((c) => c.scenario.endsWith('-http'))) httpRequestNode(args);
		process.stdout.write(`${JSON.stringify({ runs: await plainSeries(series), peakRssMb: process.resourceUsage().maxRSS / 1024 })}\n`);
		process.exit(0);
	}
	// What a running n8n has loaded before an execution starts: n8n-core's services and the node
	// types (this package; the HTTP Request node from n8n-nodes-base). Only the workflow run is
	// timed; the load is reported next to it.
	const loadStart = performance.now();
	await ensureBinaryData();
	await loadPackage();
	if (name.endsWith('-http')) httpRequestNode(args);
	const loadMs = performance.now() - loadStart;
	const instrument = args.instrument === true;
	if (instrument) countRequests();
	const loop = instrument ? monitorEventLoopDelay({ resolution: 1 }) : undefined;
	const start = performance.now();
	flight.idleSince = start;
	loop?.enable();
	const cpuStart = process.cpuUsage();
	const out = await scenario(name, args);
	const ms = performance.now() - start;
	const cpu = process.cpuUsage(cpuStart);
	loop?.disable();
	const cpuMs = (cpu.user + cpu.system) / 1000;
	const peakRssMb = process.resourceUsage().maxRSS / 1024;
	const failed = out.filter((i) => i.json.error !== undefined).length;
	const result = {
		ms,
		/** The node's own execution time as n8n records it (the workflow run less the harness around it). */
		nodeMs: lastNodeMs ?? ms,
		cpuMs,
		loadMs,
		items: out.length,
		failed,
		peakRssMb,
		idleMs: flight.idleMs,
		/** Wall time from the start to the last answer: the span over which idle time is counted. */
		spanMs: (flight.lastAnswerAt || performance.now()) - start,
		peakInFlight: flight.peak,
		loopDelay: loop ? { meanMs: loop.mean / 1e6, p99Ms: loop.percentile(99) / 1e6, maxMs: loop.max / 1e6 } : undefined,
	};
	process.stdout.write(`${JSON.stringify(result)}\n`);
	process.exit(0);
}

main().catch((error: unknown) => {
	process.stderr.write(`${String((error as Error)?.stack ?? error)}\n`);
	process.exit(1);
});
