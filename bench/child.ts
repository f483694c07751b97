/**
 * One measured contender, in its own process so that wall time and peak RSS
 * belong to it alone. Usage (from bench/run.ts):
 *   node out/bench/child.js <scenario> '<json args>'
 * Node types are loaded before the clock starts, as in a running n8n; the workflow run is timed.
 * Prints one JSON line: { ms, cpuMs, loadMs, items, failed, peakRssMb }. A node that fails as a whole
 * counts every input item as failed.
 */
import path from 'node:path';

import type { IDataObject, INodeExecutionData, INodeType, IVersionedNodeType } from 'n8n-workflow';

import { ensureBinaryData, loadPackage, runNodes } from '../test/harness';

interface Args {
	baseUrl: string;
	storeId: string;
	secretKey: string;
	items?: string[];
	/** The Concurrency option; unset means the node's default. */
	concurrency?: number;
	batchSize?: number;
	/** HTTP Request node batching interval (ms); 0 starts a whole batch at once. */
	batchInterval?: number;
	/** Settings → On Error: continue, so a failed item is an item with `error` instead of a failed node. */
	continueOnFail?: boolean;
	n8nHome?: string;
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
function settle(run: Awaited<ReturnType<typeof runNodes>>, inputCount: number): INodeExecutionData[] {
	if (run.error()) return Array.from({ length: inputCount }, () => ({ json: { error: run.error()?.message ?? 'failed' } }));
	return run.output();
}

async function scenario(name: string, a: Args): Promise<INodeExecutionData[]> {
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
			if (run.error()) return settle(run, 1);
			// One item per page: the orders are inside each page body.
			return run
				.output()
				.flatMap((i) =>
					i.json.error !== undefined ? [i] : ((i.json.data as IDataObject)?.items as IDataObject[]).map((json) => ({ json })),
				);
		}
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
						typeVersion: 4.2,
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

async function main(): Promise<void> {
	const [name, json] = process.argv.slice(2);
	const args = JSON.parse(json) as Args;
	// What a running n8n has loaded before an execution starts: n8n-core's services and the node
	// types (this package; the HTTP Request node from n8n-nodes-base). Only the workflow run is
	// timed; the load is reported next to it.
	const loadStart = performance.now();
	await ensureBinaryData();
	await loadPackage();
	if (name.endsWith('-http')) httpRequestNode(args);
	const loadMs = performance.now() - loadStart;
	const start = performance.now();
	const cpuStart = process.cpuUsage();
	const out = await scenario(name, args);
	const ms = performance.now() - start;
	const cpu = process.cpuUsage(cpuStart);
	const cpuMs = (cpu.user + cpu.system) / 1000;
	const peakRssMb = process.resourceUsage().maxRSS / 1024;
	const failed = out.filter((i) => i.json.error !== undefined).length;
	process.stdout.write(`${JSON.stringify({ ms, cpuMs, loadMs, items: out.length, failed, peakRssMb })}\n`);
	process.exit(0);
}

main().catch((error: unknown) => {
	process.stderr.write(`${String((error as Error)?.stack ?? error)}\n`);
	process.exit(1);
});
