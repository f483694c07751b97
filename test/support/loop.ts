/**
 * The Vault Store node inside a loop, as n8n's Loop Over Items (Split in Batches v3) with batch
 * size 1 runs it: one run of the node per item, all in one execution. The loop node is a small
 * stand-in with the same wiring and outputs (n8n-nodes-base is not installed here): output 0
 * "done" (every item the loop got back, once the last run is over), output 1 "loop" (the next
 * batch). It keeps its place in its per-execution node context, as the real one does.
 */
import type { IConnections, IDataObject, IExecuteFunctions, INodeExecutionData, INodeType, WorkflowExecuteMode } from 'n8n-workflow';

import type { CredentialSet, RunResult } from './harness';
import { runNodes } from './harness';

const LOOP_TYPE = 'test.loopOverItems';
const LOOP = 'Loop Over Items';
const NODE = 'Vault Store';

const loopOverItems: INodeType = {
	description: {
		displayName: LOOP,
		name: LOOP_TYPE,
		group: ['transform'],
		version: 1,
		description: 'stand-in for Loop Over Items, batch size 1',
		defaults: { name: LOOP },
		inputs: ['main'],
		outputs: ['main', 'main'],
		properties: [],
	} as unknown as INodeType['description'],
	async execute(this: IExecuteFunctions) {
		const context = this.getContext('node') as { left?: INodeExecutionData[]; back?: INodeExecutionData[] };
		const input = this.getInputData();
		if (context.left === undefined) {
			context.left = input.slice(1).map((item) => ({ json: item.json }));
			context.back = [];
			return [[], input.slice(0, 1).map((item) => ({ json: item.json, pairedItem: { item: 0 } }))];
		}
		context.back = [...(context.back ?? []), ...input.map((item) => ({ json: item.json }))];
		const next = context.left.shift();
		if (next !== undefined) return [[], [{ ...next, pairedItem: { item: 0 } }]];
		return [context.back, []];
	},
};

export interface LoopRun {
	run: RunResult;
	/** Each run of the Vault Store node: its items (json), or its error message. */
	runs: Array<{ items: IDataObject[]; error?: string }>;
}

/** Runs the Vault Store node with `parameters` once per input item, in one execution. */
export async function runInLoop(
	parameters: IDataObject,
	input: IDataObject[],
	credentials: CredentialSet,
	options: { continueOnFail?: boolean; mode?: WorkflowExecuteMode } = {},
): Promise<LoopRun> {
	const connections: IConnections = {
		[LOOP]: { main: [[], [{ node: NODE, type: 'main', index: 0 }]] },
		[NODE]: { main: [[{ node: LOOP, type: 'main', index: 0 }]] },
	};
	const run = await runNodes(
		[
			{ name: LOOP, type: LOOP_TYPE, parameters: {} },
			{ name: NODE, parameters, continueOnFail: options.continueOnFail },
		],
		credentials,
		input.map((json) => ({ json })),
		{ connections, settings: { executionOrder: 'v1' }, extraNodeTypes: { [LOOP_TYPE]: loopOverItems }, mode: options.mode },
	);
	const tasks = run.run.data.resultData.runData[NODE] ?? [];
	return {
		run,
		runs: tasks.map((task) => ({ items: (task.data?.main?.[0] ?? []).map((item) => item.json), ...(task.error !== undefined ? { error: task.error.message } : {}) })),
	};
}
