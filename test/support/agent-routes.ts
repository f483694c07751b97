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
	IConnections,
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
} from 'n8n-workflow';

import type { CredentialSet, RunResult } from './harness';
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
		properties: [{ displayName: 'Arguments', name: 'args', type: 'json', default: '{}' }],
	} as unknown as INodeType['description'];
}

/** Invokes the first connected tool with the arguments, as the Tools Agent's tool call does. */
const toolCallAgent: INodeType = {
	description: agentDescription(AGENT_CALL),
	async execute(this: IExecuteFunctions) {
		const args = JSON.parse(this.getNodeParameter('args', 0) as string) as IDataObject;
		const connected = (await this.getInputConnectionData('ai_tool', 0)) as unknown;
		const tools = (Array.isArray(connected) ? connected : [connected]) as Array<{ invoke: (a: IDataObject) => Promise<unknown> }>;
		const response = await tools[0].invoke(args);
		return [[{ json: { response: typeof response === 'string' ? response : JSON.stringify(response) } }]];
	},
};

/** Returns an engine request for the tool, then reports the engine's response, as agents on the engine route do. */
const engineAgent: INodeType = {
	description: agentDescription(AGENT_ENGINE),
	async execute(this: IExecuteFunctions, response?: EngineResponse) {
		if (response && response.actionResponses.length > 0) {
			const out = response.actionResponses.map((r) => ({ json: { raw: JSON.stringify(r.data) } as IDataObject }));
			return [out];
		}
		const args = JSON.parse(this.getNodeParameter('args', 0) as string) as IDataObject;
		const request: EngineRequest = {
			actions: [{ actionType: 'ExecutionNodeAction', nodeName: TOOL_NAME, input: args, type: 'ai_tool', id: 'call_1', metadata: { itemIndex: 0 } }],
			metadata: {},
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
	/** What the agent got back: the tool's answer, or its error message. */
	text: string;
}

/**
 * Runs the package node as an agent's tool with `parameters` (which may use
 * $fromAI()) and the agent's `args`, through the chosen route.
 */
export async function runAsAgentTool(route: AgentRoute, parameters: IDataObject, args: IDataObject, credentials: CredentialSet): Promise<AgentRun> {
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
			{ name: 'Agent', type: agentType, parameters: { args: JSON.stringify(args) } },
			{ name: TOOL_NAME, type: TOOL_TYPE, parameters },
		],
		credentials,
		[{ json: {} }],
		{ connections, settings: { executionOrder: 'v1' }, extraNodeTypes: { [TOOL_TYPE]: toolType, [AGENT_CALL]: toolCallAgent, [AGENT_ENGINE]: engineAgent, 'test.start': START } },
	);
	// A tool that fails on the engine route stops the execution with the tool's error.
	const failed = run.error('Agent') ?? run.error(TOOL_NAME) ?? run.run.data.resultData.error;
	const out = run.output('Agent')[0]?.json ?? {};
	const text = failed?.message ?? (typeof out.response === 'string' ? out.response : String(out.raw));
	return { run, text };
}
