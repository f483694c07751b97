/**
 * Runs the Vault Store Trigger in-process with n8n-core's own contexts:
 * HookContext for the endpoint lifecycle (checkExists, create, delete, activation mode
 * 'activate') and WebhookContext for webhook(), as n8n calls them. One TriggerInstance
 * is one workflow with one trigger node; its static data persists across calls, as it
 * does in n8n between activation and deliveries.
 *
 * Deliveries are minimal express-like objects: `rawBody` (the exact bytes), lower-case
 * headers, the parsed body, and a response that records status and JSON.
 */
import { randomUUID } from 'node:crypto';

import { ExecutionLifecycleHooks, HookContext, WebhookContext } from 'n8n-core';
import type {
	IDataObject,
	IHookFunctions,
	INode,
	INodeExecutionData,
	INodeType,
	IWebhookData,
	IWebhookDescription,
	IWebhookResponseData,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import type { WebhookEndpoint } from '../../sandbox/state';
import type { CredentialSet } from './harness';
import {
	credentialRefs,
	ensureBinaryData,
	loadPackage,
	logLines,
	makeAdditionalData,
	PackageNodeTypes,
	recordForScan,
	TestCredentialsHelper,
	TRIGGER_TYPE,
} from './harness';

export const TRIGGER_NAME = 'Vault Store Trigger';

/** The sandbox's endpoint the trigger registered (the id in its static data); throws when there is none. */
export function registeredEndpoint(webhooks: readonly WebhookEndpoint[], t: { staticData(): IDataObject }): WebhookEndpoint {
	const endpoint = webhooks.find((w) => w.id === t.staticData().webhookId);
	if (!endpoint) throw new Error('trigger has no endpoint at the sandbox');
	return endpoint;
}

/** A copy of `credentials` with store credential fields changed (n8n reads them per call: a test may change the copy while a trigger runs). */
export function withStoreFields(credentials: CredentialSet, store: IDataObject = {}): CredentialSet & { vaultStoreStoreApi: IDataObject } {
	const base = credentials as unknown as { vaultStoreStoreApi: IDataObject; vaultStoreVaultApi: IDataObject };
	return {
		vaultStoreStoreApi: { ...base.vaultStoreStoreApi, ...store },
		vaultStoreVaultApi: { ...base.vaultStoreVaultApi },
	} as unknown as CredentialSet & { vaultStoreStoreApi: IDataObject };
}
/** Default n8n webhook base for lifecycle tests: a public https address. */
export const HTTPS_WEBHOOK_BASE = 'https://n8n.example.test/webhook';

export interface TriggerSetup {
	parameters: IDataObject;
	credentials: CredentialSet;
	/** n8n's webhook base URL (what WEBHOOK_URL sets); default HTTPS_WEBHOOK_BASE. */
	webhookBaseUrl?: string;
	/**
	 * Record every item, error and log line for the suite's secret scan (default true). The bench's
	 * headline row turns it off: it times the node as n8n runs it, without test instrumentation.
	 */
	recordForScan?: boolean;
}

export interface DeliveryRequest {
	/** The exact bytes; omit to simulate a request without a raw body. */
	rawBody?: Buffer;
	/** Header names are lower-cased. */
	headers: Record<string, string | undefined>;
	/** Parsed body as n8n's body parser would give it; default JSON.parse(rawBody). */
	body?: unknown;
}

export interface DeliveryResult {
	/** HTTP status the sender sees (200 when the workflow was started: responseMode onReceived). */
	status: number;
	/** JSON the node answered with (undefined when n8n answers for a started workflow). */
	body: unknown;
	/** Items that started an execution (empty when nothing started). */
	items: INodeExecutionData[];
	started: boolean;
	response: IWebhookResponseData;
}

export interface TriggerInstance {
	readonly workflow: Workflow;
	readonly node: INode;
	/** The node's static data (workflow.staticData['node:<name>']). */
	staticData(): IDataObject;
	/** n8n's webhook URL for this node. */
	webhookUrl(): string;
	/** Replaces node parameters (as when the user edits the node). */
	setParameters(parameters: IDataObject): void;
	checkExists(): Promise<boolean>;
	create(): Promise<boolean>;
	delete(): Promise<boolean>;
	/** Activation as n8n does it: create() unless checkExists() says the endpoint is there. */
	activate(): Promise<void>;
	deliver(request: DeliveryRequest): Promise<DeliveryResult>;
}

class FakeResponse {
	statusCode = 200;

	body: unknown;

	ended = false;

	headers: Record<string, string> = {};

	status(code: number): this {
		this.statusCode = code;
		return this;
	}

	json(body: unknown): this {
		this.body = body;
		this.ended = true;
		return this;
	}

	send(body?: unknown): this {
		this.body = body;
		this.ended = true;
		return this;
	}

	end(): this {
		this.ended = true;
		return this;
	}

	setHeader(name: string, value: string): this {
		this.headers[name.toLowerCase()] = value;
		return this;
	}
}

function currentTestName(): string {
	const jestExpect = (globalThis as { expect?: { getState?: () => { currentTestName?: string } } }).expect;
	return jestExpect?.getState?.().currentTestName ?? 'trigger';
}

export async function createTrigger(setup: TriggerSetup): Promise<TriggerInstance> {
	await ensureBinaryData();
	const loader = await loadPackage();
	const nodeTypes = new PackageNodeTypes(loader);
	const node: INode = {
		id: randomUUID(),
		name: TRIGGER_NAME,
		type: TRIGGER_TYPE,
		typeVersion: 1,
		position: [0, 0],
		webhookId: randomUUID(),
		parameters: setup.parameters as INode['parameters'],
		credentials: { vaultStoreStoreApi: credentialRefs()!.vaultStoreStoreApi },
	};
	const workflow = new Workflow({
		id: `wf_${randomUUID().slice(0, 8)}`,
		name: 'trigger test',
		nodes: [node],
		connections: {},
		nodeTypes,
		active: true,
		settings: {},
		staticData: {},
	});
	const liveNode = workflow.getNode(TRIGGER_NAME)!;
	const nodeType = nodeTypes.getByNameAndVersion(TRIGGER_TYPE, 1) as INodeType;
	const description = nodeType.description.webhooks!.find((w) => w.name === 'default') as IWebhookDescription;
	const credentialsHelper = new TestCredentialsHelper(loader, setup.credentials);
	const baseUrl = setup.webhookBaseUrl ?? HTTPS_WEBHOOK_BASE;

	const additionalData = (extra: Partial<IWorkflowExecuteAdditionalData> = {}): IWorkflowExecuteAdditionalData => {
		const executionId = randomUUID();
		const hooks = new ExecutionLifecycleHooks('webhook', executionId, {
			id: workflow.id,
			name: workflow.name,
			nodes: [liveNode],
			connections: {},
			active: true,
			settings: {},
		} as never);
		return {
			...makeAdditionalData(credentialsHelper, hooks, executionId),
			webhookBaseUrl: baseUrl,
			...extra,
		} as IWorkflowExecuteAdditionalData;
	};

	const scan = (what: string, logStart: number, parts: { items?: INodeExecutionData[]; errors?: unknown[] }) => {
		if (setup.recordForScan === false) return;
		recordForScan(`${currentTestName()} / trigger ${what}`, setup.credentials, {
			items: (parts.items ?? []).map((i) => ({ json: i.json })),
			errors: parts.errors,
			logs: logLines.slice(logStart),
		});
	};

	const hook = async (method: 'checkExists' | 'create' | 'delete'): Promise<boolean> => {
		const data = additionalData();
		const webhookData: IWebhookData = {
			httpMethod: 'POST',
			node: liveNode.name,
			path: description.path,
			webhookDescription: description,
			workflowId: workflow.id,
			workflowExecuteAdditionalData: data,
			webhookId: liveNode.webhookId,
		};
		const ctx = new HookContext(workflow, liveNode, data, 'webhook', 'activate', webhookData);
		const fn = nodeType.webhookMethods!.default![method] as (this: IHookFunctions) => Promise<boolean>;
		const logStart = logLines.length;
		const errors: unknown[] = [];
		try {
			return await fn.call(ctx);
		} catch (error) {
			errors.push(error);
			throw error;
		} finally {
			scan(method, logStart, { errors });
		}
	};

	const instance: TriggerInstance = {
		workflow,
		node: liveNode,
		staticData: () => workflow.getStaticData('node', liveNode) as IDataObject,
		webhookUrl() {
			const ctx = new HookContext(workflow, liveNode, additionalData(), 'webhook', 'activate');
			return ctx.getNodeWebhookUrl('default')!;
		},
		setParameters(parameters) {
			liveNode.parameters = parameters as INode['parameters'];
		},
		checkExists: async () => await hook('checkExists'),
		create: async () => await hook('create'),
		delete: async () => await hook('delete'),
		async activate() {
			if (!(await hook('checkExists'))) await hook('create');
		},
		async deliver(request) {
			const headers: Record<string, string> = {};
			for (const [name, value] of Object.entries(request.headers)) {
				if (value !== undefined) headers[name.toLowerCase()] = value;
			}
			let body = request.body;
			if (body === undefined && request.rawBody !== undefined) {
				try {
					body = JSON.parse(request.rawBody.toString('utf8'));
				} catch {
					body = {};
				}
			}
			const req = {
				method: 'POST',
				url: `/webhook/${liveNode.webhookId}/webhook`,
				headers,
				rawBody: request.rawBody,
				body: body ?? {},
				params: {},
				query: {},
			};
			const res = new FakeResponse();
			const data = additionalData({ httpRequest: req as never, httpResponse: res as never });
			const webhookData: IWebhookData = {
				httpMethod: 'POST',
				node: liveNode.name,
				path: description.path,
				webhookDescription: description,
				workflowId: workflow.id,
				workflowExecuteAdditionalData: data,
				webhookId: liveNode.webhookId,
			};
			const ctx = new WebhookContext(workflow, liveNode, data, 'webhook', webhookData, [], null);
			const logStart = logLines.length;
			const response = await nodeType.webhook!.call(ctx);
			const items = response.workflowData?.[0] ?? [];
			scan('webhook', logStart, { items });
			const started = items.length > 0;
			if (response.noWebhookResponse) {
				return { status: res.statusCode, body: res.body, items, started, response };
			}
			return { status: 200, body: undefined, items, started, response };
		},
	};
	return instance;
}
