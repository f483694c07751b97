/**
 * One measured contender, in its own process so that wall time and peak RSS
 * belong to it alone. Usage (from bench/run.ts):
 *   node out/bench/child.js <scenario> '<json args>'
 * Prints one JSON line: { ms, items, peakRssMb }.
 */
import path from 'node:path';

import type { IDataObject, INodeExecutionData, INodeType, IVersionedNodeType } from 'n8n-workflow';

import { runNodes } from '../test/harness';

interface Args {
	baseUrl: string;
	storeId: string;
	secretKey: string;
	items?: string[];
	concurrency?: number;
	batchSize?: number;
	n8nHome?: string;
}

function credentials(a: Args) {
	return { vaultStoreStoreApi: { baseUrl: a.baseUrl, storeId: a.storeId, secretKey: a.secretKey, signingSecret: '' } };
}

function httpRequestNode(a: Args): Record<string, INodeType | IVersionedNodeType> {
	if (!a.n8nHome) throw new Error('n8nHome is required for the HTTP Request node');
	const file = path.join(a.n8nHome, 'node_modules/n8n-nodes-base/dist/nodes/HttpRequest/HttpRequest.node.js');
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { HttpRequest } = require(file) as { HttpRequest: new () => IVersionedNodeType };
	return { 'n8n-nodes-base.httpRequest': new HttpRequest() };
}

const authHeader = (a: Args) => ({
	sendHeaders: true,
	specifyHeaders: 'keypair',
	headerParameters: { parameters: [{ name: 'Authorization', value: `Bearer ${a.secretKey}` }] },
});

async function scenario(name: string, a: Args): Promise<INodeExecutionData[]> {
	const input = (a.items ?? []).map((id) => ({ json: { id } as IDataObject }));
	switch (name) {
		case 'returnAll-ours': {
			const run = await runNodes(
				[{ parameters: { resource: 'order', operation: 'getAll', returnAll: true, options: { concurrency: a.concurrency ?? 5 } } }],
				credentials(a),
			);
			return run.output();
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
					},
				],
				credentials(a),
				[{ json: {} }],
				{ extraNodeTypes: httpRequestNode(a) },
			);
			// One item per page: the orders are inside each page body.
			return run.output().flatMap((i) => ((i.json.data as IDataObject)?.items as IDataObject[]).map((json) => ({ json })));
		}
		case 'items-ours': {
			const run = await runNodes(
				[
					{
						parameters: {
							resource: 'order',
							operation: 'get',
							orderId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
							options: { concurrency: a.concurrency ?? 5 },
						},
					},
				],
				credentials(a),
				input,
			);
			return run.output();
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
							options: { batching: { batch: { batchSize: a.batchSize ?? 50, batchInterval: 0 } } },
						},
					},
				],
				credentials(a),
				input,
				{ extraNodeTypes: httpRequestNode(a) },
			);
			return run.output();
		}
		default:
			throw new Error(`unknown scenario ${name}`);
	}
}

async function main(): Promise<void> {
	const [name, json] = process.argv.slice(2);
	const args = JSON.parse(json) as Args;
	const start = performance.now();
	const out = await scenario(name, args);
	const ms = performance.now() - start;
	const peakRssMb = process.resourceUsage().maxRSS / 1024;
	const failed = out.filter((i) => i.json.error !== undefined).length;
	process.stdout.write(`${JSON.stringify({ ms, items: out.length, failed, peakRssMb })}\n`);
	process.exit(0);
}

main().catch((error: unknown) => {
	process.stderr.write(`${String((error as Error)?.stack ?? error)}\n`);
	process.exit(1);
});
