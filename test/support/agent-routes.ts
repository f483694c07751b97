/**
 * The two ways n8n hands a node to an AI agent, driven through n8n-core's own
 * code with a stand-in agent (no model):
 * - tool call: the agent asks n8n-core for its tools (getInputConnectionData on
 *   ai_tool, which wraps the node with createNodeAsTool) and invokes one; the
 *   node's execute() runs inside n8n-core's tool invocation;
 * - engine request: the agent returns an EngineRequest naming the tool node;
 *   the engine runs it and resumes the agent with the result.
 * The tool node is the package's node converted as n8n converts it (type
 * `<name>Tool`, output ai_tool), its parameters read the agent's arguments
 * with $fromAI().
 */
import type {
	EngineRequest,
	EngineResponse,
	ExecuteWorkflowOptions,
	IConnections,
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
} from 'n8n-workflow';

import type { CredentialSet, NodeSpec, RunResult } from './harness';
import { loadPackage, runNodes } from './harness';

export const TOOL_TYPE = 'n8n-nodes-vault-store.vaultStoreTool';
const TOOL_NAME = 'Vault Store Tool';
const AGENT_CALL = 'test.agentToolCall';
const AGENT_ENGINE = 'test.agentEngineRequest';

function agentDescription(name: string): INodeType['description'] {
	return {
		displayName: name,
		name,
		group: ['transform'],
		version: 1,
		description: 'stand-in agent',
		defaults: { name },
		inputs: ['main', { type: 'ai_tool', displayName: 'Tools' }],
		outputs: ['main'],
		properties: [
			{ displayName: 'Arguments', name: 'args', type: 'json', default: '{}' },
			{ displayName: 'At Once', name: 'parallel', type: 'boolean', default: false },
		],
	} as unknown as INodeType['description'];
}

/** Invokes the first connected tool with each set of arguments in turn, as the Tools Agent's tool calls do. */
const toolCallAgent: INodeType = {
	description: agentDescription(AGENT_CALL),
	async execute(this: IExecuteFunctions) {
		const calls = argumentsOf(this.getNodeParameter('args', 0) as string);
		const connected = (await this.getInputConnectionData('ai_tool', 0)) as unknown;
		const tools = (Array.isArray(connected) ? connected : [connected]) as Array<{ invoke: (a: IDataObject) => Promise<unknown> }>;
		const answer = (response: unknown): INodeExecutionData => ({ json: { response: typeof response === 'string' ? response : JSON.stringify(response) } });
		// At once: every call in one turn, invoked together (a model may ask for several tool calls in one turn).
		if (this.getNodeParameter('parallel', 0, false) === true) return [(await Promise.all(calls.map(async (args) => await tools[0].invoke(args)))).map(answer)];
		const out: INodeExecutionData[] = [];
		for (const args of calls) out.push(answer(await tools[0].invoke(args)));
		return [out];
	},
};

/** The tool's items (their json), or its error, from the engine's record of the tool's run. */
function toolResult(run: IDataObject): unknown {
	const data = run.data as { ai_tool?: Array<Array<{ json: IDataObject }>> } | undefined;
	const items = data?.ai_tool?.[0];
	if (items !== undefined) return items.map((i) => i.json);
	return run.error ?? run;
}

/** One set of arguments, or a list of them (one tool call each, in order). */
function argumentsOf(text: string): IDataObject[] {
	const parsed = JSON.parse(text) as IDataObject | IDataObject[];
	return Array.isArray(parsed) ? parsed : [parsed];
}

/**
 * Returns an engine request for the tool, one per set of arguments: the engine runs the tool and
 * resumes the agent with its result, and the agent asks for the next call (as agents on the
 * engine route do for sequential tool calls); at the end it reports every result.
 */
const engineAgent: INodeType = {
	description: agentDescription(AGENT_ENGINE),
	async execute(this: IExecuteFunctions, response?: EngineResponse) {
		const calls = argumentsOf(this.getNodeParameter('args', 0) as string);
		const before = (response?.metadata as { results?: string[] } | undefined)?.results ?? [];
		// What the agent reads of a result: the tool's items (or its error), as n8n's agents pass a model.
		const results = [...before, ...(response?.actionResponses ?? []).map((r) => JSON.stringify(toolResult(r.data as unknown as IDataObject)))];
		if (results.length >= calls.length) return [results.map((raw) => ({ json: { raw } as IDataObject }))];
		const step = results.length;
		const request: EngineRequest = {
			actions: [{ actionType: 'ExecutionNodeAction', nodeName: TOOL_NAME, input: calls[step], type: 'ai_tool', id: `call_${step + 1}`, metadata: { itemIndex: 0 } }],
			metadata: { results } as EngineRequest['metadata'],
		};
		return request as unknown as INodeExecutionData[][];
	},
};

/** Passes its input on: the agent needs a node before it (the engine resumes it from its parent). */
const START: INodeType = {
	description: { ...agentDescription('test.start'), inputs: ['main'], properties: [] } as INodeType['description'],
	async execute(this: IExecuteFunctions) {
		return [this.getInputData()];
	},
};

export type AgentRoute = 'tool call' | 'engine request';
export const AGENT_ROUTES: AgentRoute[] = ['tool call', 'engine request'];

export interface AgentRun {
	run: RunResult;
	/** What the agent got back: the tool's answer, or its error message (the last call's). */
	text: string;
	/** What the agent got back from each call, in order (a failed call: its error message). */
	texts: string[];
}

/**
 * Runs the package node as an agent's tool with `parameters` (which may use
 * $fromAI()) and the agent's `args`, through the chosen route: one tool call, or
 * one per set of arguments when `args` is a list (all in one execution). `atOnce` (tool call
 * route): the calls are invoked together, as a model's several tool calls of one turn.
 */
export async function runAsAgentTool(route: AgentRoute, parameters: IDataObject, args: IDataObject | IDataObject[], credentials: CredentialSet, options: { continueOnFail?: boolean; workflowId?: string; staticData?: IDataObject; toolId?: string; atOnce?: boolean } = {}): Promise<AgentRun> {
	const loader = await loadPackage();
	const base = loader.nodeTypes.vaultStore.type as INodeType;
	const toolType: INodeType = Object.assign(Object.create(base) as INodeType, {
		description: { ...base.description, name: 'vaultStoreTool', inputs: [], outputs: ['ai_tool'] },
	});
	const agentType = route === 'tool call' ? AGENT_CALL : AGENT_ENGINE;
	const connections: IConnections = {
		Start: { main: [[{ node: 'Agent', type: 'main', index: 0 }]] },
		[TOOL_NAME]: { ai_tool: [[{ node: 'Agent', type: 'ai_tool', index: 0 }]] },
	};
	const run = await runNodes(
		[
			{ name: 'Start', type: 'test.start', parameters: {} },
			{ name: 'Agent', type: agentType, parameters: { args: JSON.stringify(args), ...(options.atOnce === true ? { parallel: true } : {}) } },
			{ name: TOOL_NAME, type: TOOL_TYPE, parameters, continueOnFail: options.continueOnFail, ...(options.toolId !== undefined ? { id: options.toolId } : {}) },
		],
		credentials,
		[{ json: {} }],
		{ workflowId: options.workflowId, staticData: options.staticData, connections, settings: { executionOrder: 'v1' }, extraNodeTypes: { [TOOL_TYPE]: toolType, [AGENT_CALL]: toolCallAgent, [AGENT_ENGINE]: engineAgent, 'test.start': START } },
	);
	// A tool that fails on the engine route stops the execution with the tool's error.
	const failed = run.error('Agent') ?? run.error(TOOL_NAME) ?? run.run.data.resultData.error;
	const texts = run.output('Agent').map((item) => (typeof item.json.response === 'string' ? item.json.response : String(item.json.raw)));
	const text = failed?.message ?? texts[texts.length - 1] ?? 'undefined';
	return { run, text, texts: failed !== undefined ? [...texts, failed.message] : texts };
}

const WORKFLOW_TOOL = 'test.workflowTool';

/**
 * A stand-in for n8n's Call n8n Workflow Tool: the agent's arguments (`order`, `amount`, through
 * $fromAI) become the sub-workflow's one input item, and the sub-workflow runs as its own execution
 * with the agent's execution as its parent (n8n passes it: `parentExecution`). Its answer is the
 * sub-workflow's output, or its error.
 */
const workflowTool: INodeType = {
	description: {
		...agentDescription(WORKFLOW_TOOL),
		inputs: [],
		outputs: ['ai_tool'],
		properties: [
			{ displayName: 'Order', name: 'order', type: 'string', default: '' },
			{ displayName: 'Amount', name: 'amount', type: 'number', default: 0 },
		],
	} as unknown as INodeType['description'],
	async execute(this: IExecuteFunctions) {
		const input: INodeExecutionData[] = [{ json: { order: this.getNodeParameter('order', 0) as string, amount: this.getNodeParameter('amount', 0) as number } }];
		const result = await this.executeWorkflow({ code: { nodes: [], connections: {} } as never }, input, undefined, { parentExecution: { executionId: this.getExecutionId(), workflowId: this.getWorkflow().id ?? '' } });
		return [result.data[0] ?? []];
	},
};

export interface SubWorkflowRun extends AgentRun {
	/** The agent's execution id (the sub-workflows' parent). */
	executionId: string;
	/** Each sub-workflow execution, in order: the parent it was given, its result. */
	calls: Array<{ parent?: string; run: RunResult }>;
}

/**
 * Runs the package node in a sub-workflow that an agent calls as its tool (the Call n8n Workflow
 * Tool's way): one sub-workflow execution per tool call, each item `{ order, amount }` from the
 * agent's arguments, through the chosen agent route. `node`: the Vault Store node of the sub-workflow.
 */
export async function runSubWorkflowAsAgentTool(route: AgentRoute, node: NodeSpec, args: IDataObject[], credentials: CredentialSet): Promise<SubWorkflowRun> {
	const agentType = route === 'tool call' ? AGENT_CALL : AGENT_ENGINE;
	const connections: IConnections = {
		Start: { main: [[{ node: 'Agent', type: 'main', index: 0 }]] },
		[TOOL_NAME]: { ai_tool: [[{ node: 'Agent', type: 'ai_tool', index: 0 }]] },
	};
	const calls: SubWorkflowRun['calls'] = [];
	const executionId = `agent-${Math.random().toString(36).slice(2, 10)}`;
	const run = await runNodes(
		[
			{ name: 'Start', type: 'test.start', parameters: {} },
			{ name: 'Agent', type: agentType, parameters: { args: JSON.stringify(args) } },
			{ name: TOOL_NAME, type: WORKFLOW_TOOL, parameters: { order: "={{ $fromAI('order', 'the order', 'string') }}", amount: "={{ $fromAI('amount', 'the amount', 'number') }}" }, continueOnFail: true },
		],
		credentials,
		[{ json: {} }],
		{
			executionId,
			connections,
			settings: { executionOrder: 'v1' },
			extraNodeTypes: { [WORKFLOW_TOOL]: workflowTool, [AGENT_CALL]: toolCallAgent, [AGENT_ENGINE]: engineAgent, 'test.start': START },
			executeWorkflow: async (options: ExecuteWorkflowOptions) => {
				const sub = await runNodes([{ ...node, continueOnFail: true }], credentials, options.inputData, { parentExecution: options.parentExecution, workflowId: 'wf_sub_refund' });
				calls.push({ parent: options.parentExecution?.executionId, run: sub });
				return sub.output().map((item) => ({ json: item.json }));
			},
		},
	);
	const failed = run.error('Agent') ?? run.error(TOOL_NAME) ?? run.run.data.resultData.error;
	const texts = run.output('Agent').map((item) => (typeof item.json.response === 'string' ? item.json.response : String(item.json.raw)));
	const text = failed?.message ?? texts[texts.length - 1] ?? 'undefined';
	return { run, text, texts: failed !== undefined ? [...texts, failed.message] : texts, executionId, calls };
}
