/**
 * Runs real workflows in-process with n8n-core: the package is loaded with
 * PackageDirectoryLoader from its compiled files (as n8n loads a community
 * package), workflows run through WorkflowExecute, and credentials come from a
 * small ICredentialsHelper that applies each credential type's own
 * `authenticate` definition. Requests go over real HTTP (to the sandbox).
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';

import { Container } from '@n8n/di';
import {
	BinaryDataService,
	ExecutionLifecycleHooks,
	PackageDirectoryLoader,
	WorkflowExecute,
} from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	ICredentials,
	ICredentialType,
	IDataObject,
	IExecuteData,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeExecutionData,
	INodeProperties,
	INodeType,
	INodeTypes,
	IRun,
	IRunExecutionData,
	IVersionedNodeType,
	IWorkflowExecuteAdditionalData,
	WorkflowExecuteMode,
	IConnections,
	ExecuteWorkflowOptions,
	RelatedExecution,
} from 'n8n-workflow';
import { ICredentialsHelper, NodeHelpers, Workflow } from 'n8n-workflow';
import { Logger } from '@n8n/backend-common';

import type { ScanEntry } from './secret-scan';
import { outputText, record } from './secret-scan';

/** The package folder (this file also runs compiled from out/test/ in benchmarks). */
export const PACKAGE_ROOT = ((): string => {
	for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
		if (existsSync(path.join(dir, 'package.json')) && existsSync(path.join(dir, 'nodes'))) return dir;
	}
	throw new Error('package root not found');
})();
export const PACKAGE_NAME = 'n8n-nodes-vault-store';
export const NODE_TYPE = `${PACKAGE_NAME}.vaultStore`;
export const TRIGGER_TYPE = `${PACKAGE_NAME}.vaultStoreTrigger`;

/** Credentials by type; `<type>#<id>` names one a node picks by id (NodeSpec.credentialIds). */
export type CredentialSet = Record<string, ICredentialDataDecryptedObject>;

let loaderPromise: Promise<PackageDirectoryLoader> | undefined;

/** Loads the built package once per test file, as n8n loads an installed community package. */
export async function loadPackage(): Promise<PackageDirectoryLoader> {
	loaderPromise ??= (async () => {
		const loader = new PackageDirectoryLoader(PACKAGE_ROOT);
		await loader.loadAll();
		return loader;
	})();
	return await loaderPromise;
}

export class PackageNodeTypes implements INodeTypes {
	constructor(
		private readonly loader: PackageDirectoryLoader,
		private readonly extra: Record<string, INodeType | IVersionedNodeType> = {},
	) {}

	getByName(nodeType: string): INodeType | IVersionedNodeType {
		if (this.extra[nodeType]) return this.extra[nodeType];
		const short = nodeType.startsWith(`${PACKAGE_NAME}.`) ? nodeType.slice(PACKAGE_NAME.length + 1) : nodeType;
		const loaded = this.loader.nodeTypes[short];
		if (!loaded) throw new Error(`Unknown node type ${nodeType}`);
		return loaded.type;
	}

	getByNameAndVersion(nodeType: string, version?: number): INodeType {
		return NodeHelpers.getVersionedNodeType(this.getByName(nodeType), version);
	}

	getKnownTypes(): IDataObject {
		return {};
	}
}

/** Resolves `={{$credentials.x}}`-style values of a generic authenticate definition. */
function resolveCredentialExpression(value: string, credentials: ICredentialDataDecryptedObject): string {
	const text = value.startsWith('=') ? value.slice(1) : value;
	return text.replace(/\{\{\s*\$credentials\.(\w+)\s*\}\}/g, (_, key: string) => String(credentials[key] ?? ''));
}

export class TestCredentialsHelper extends ICredentialsHelper {
	constructor(
		private readonly loader: PackageDirectoryLoader,
		private readonly credentials: CredentialSet,
	) {
		super();
	}

	private type(name: string): ICredentialType {
		return this.loader.credentialTypes[name].type;
	}

	getParentTypes(): string[] {
		return [];
	}

	/**
	 * Abstract in newer n8n-workflow (2.41 has it, 2.8 not; n8n-core asks it before every getCredentials); not called
	 * by older lines. The policy of its doc comment: a credential type with
	 * `restrictToSupportedNodes: true` is usable only by the nodes in its `supportedNodes`.
	 */
	isCredentialUsableByNode(credentialType: string, nodeType: string): boolean {
		const type = this.loader.credentialTypes[credentialType]?.type as
			| (ICredentialType & { restrictToSupportedNodes?: boolean })
			| undefined;
		if (!type?.restrictToSupportedNodes) return true;
		return (type.supportedNodes ?? []).includes(nodeType);
	}

	/** Abstract in newer n8n-workflow (2.41 has it; OAuth pre-authentication); the package's credentials have none. */
	async runPreAuthentication(): Promise<undefined> {
		return undefined;
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		const auth = this.type(typeName).authenticate;
		if (!auth) return requestOptions;
		if (typeof auth === 'function') return await auth(credentials, requestOptions);
		const headers = { ...(requestOptions.headers ?? {}) } as IDataObject;
		for (const [key, value] of Object.entries(auth.properties.headers ?? {})) {
			headers[key] = resolveCredentialExpression(String(value), credentials);
		}
		return { ...requestOptions, headers };
	}

	async preAuthentication(): Promise<undefined> {
		return undefined;
	}

	async getCredentials(details: INodeCredentialsDetails, type: string): Promise<ICredentials> {
		return {
			id: details.id,
			name: details.name,
			type,
			data: '',
			getData: () => this.credentials[type],
			getDataToSave: () => ({ id: details.id, name: details.name, type, data: '' }),
			setData: () => {},
		} as unknown as ICredentials;
	}

	async getDecrypted(
		_additionalData: IWorkflowExecuteAdditionalData,
		details: INodeCredentialsDetails,
		type: string,
	): Promise<ICredentialDataDecryptedObject> {
		const data = this.credentials[`${type}#${details.id ?? ''}`] ?? this.credentials[type];
		if (!data) throw new Error(`No test credentials of type ${type}`);
		return { ...data };
	}

	async updateCredentials(): Promise<void> {}

	async updateCredentialsOauthTokenData(): Promise<void> {}

	getCredentialsProperties(type: string): INodeProperties[] {
		return this.type(type).properties;
	}
}

/** Every log line nodes write through n8n's logger, kept for the secret scan and for tests. */
export const logLines: string[] = [];

function capturingLogger(): Logger {
	const write =
		(level: string) =>
		(message: string, meta?: object): void => {
			logLines.push(`${level} ${message}${meta ? ` ${JSON.stringify(meta)}` : ''}`);
		};
	const logger = {
		error: write('error'),
		warn: write('warn'),
		info: write('info'),
		debug: write('debug'),
		verbose: write('verbose'),
		scoped: () => logger,
	};
	return logger as unknown as Logger;
}

/** Secrets of a credential set: values of fields whose names say key or secret. */
export function credentialSecrets(credentials: CredentialSet): string[] {
	return Object.values(credentials).flatMap((c) =>
		Object.entries(c)
			.filter(([key, value]) => /key|secret/i.test(key) && typeof value === 'string')
			.map(([, value]) => value as string),
	);
}

/** Records what a run shows a user (items, errors, log lines) for the suite's secret scan. */
export function recordForScan(
	source: string,
	credentials: CredentialSet,
	parts: { items?: { json: IDataObject; allowRevealedNumber?: boolean }[]; errors?: unknown[]; logs?: string[] },
): void {
	const secrets = credentialSecrets(credentials);
	const entries: ScanEntry[] = [];
	for (const item of parts.items ?? []) {
		entries.push({ source, secrets, text: outputText(item.json, item.allowRevealedNumber ?? false) });
	}
	for (const error of parts.errors ?? []) {
		const e = error as { message?: string; description?: string };
		entries.push({ source, secrets, text: `${e?.message ?? ''} ${e?.description ?? ''} ${JSON.stringify(error)}` });
	}
	for (const line of parts.logs ?? []) entries.push({ source, secrets, text: line });
	record(entries);
}

function currentTestName(): string {
	const jestExpect = (globalThis as { expect?: { getState?: () => { currentTestName?: string } } }).expect;
	return jestExpect?.getState?.().currentTestName ?? 'run';
}

let binaryReady: Promise<void> | undefined;

/** Sets up n8n-core services the node contexts need (logger, binary data); idempotent. */
export async function ensureBinaryData(): Promise<void> {
	if (!binaryReady) Container.set(Logger, capturingLogger());
	binaryReady ??= Container.get(BinaryDataService).init();
	await binaryReady;
}

export function makeAdditionalData(
	credentialsHelper: ICredentialsHelper,
	hooks: ExecutionLifecycleHooks,
	executionId: string,
): IWorkflowExecuteAdditionalData {
	return {
		credentialsHelper,
		hooks,
		executionId,
		currentNodeExecutionIndex: 0,
		restApiUrl: 'http://127.0.0.1:5678/rest',
		instanceBaseUrl: 'http://127.0.0.1:5678',
		formWaitingBaseUrl: 'http://127.0.0.1:5678/form-waiting',
		webhookBaseUrl: 'http://127.0.0.1:5678/webhook',
		webhookWaitingBaseUrl: 'http://127.0.0.1:5678/webhook-waiting',
		webhookTestBaseUrl: 'http://127.0.0.1:5678/webhook-test',
		variables: {},
		logAiEvent: () => {},
		executeWorkflow: async () => {
			throw new Error('not supported in tests');
		},
		getRunExecutionData: async () => undefined,
		startRunnerTask: async () => {
			throw new Error('not supported in tests');
		},
	} as unknown as IWorkflowExecuteAdditionalData;
}

export interface NodeSpec {
	name?: string;
	type?: string;
	parameters: IDataObject;
	continueOnFail?: boolean;
	typeVersion?: number;
	/** The node's id (n8n keeps it from execution to execution; scopes such as the deduplication store's use it). */
	id?: string;
	/** Credential ids by type, for a node that uses another credential than the others (`<type>#<id>` in the set). */
	credentialIds?: Record<string, string>;
}

export interface RunResult {
	run: IRun;
	/**
	 * The workflow's static data after the run, as n8n saves it after a
	 * production execution (successful or failed); pass it to the next run.
	 */
	staticData: IDataObject;
	/** Items the node output (first output, last run). */
	output(nodeName?: string): INodeExecutionData[];
	/** The node's error, if it failed. */
	error(nodeName?: string): (Error & { description?: string; httpCode?: string }) | undefined;
	/** The execution hints the node added (last run). */
	hints(nodeName?: string): { message: string; type?: string }[];
}

const DEFAULT_NODE = 'Vault Store';

export function credentialRefs(): INode['credentials'] {
	return {
		vaultStoreStoreApi: { id: '1', name: 'Store API' },
		vaultStoreVaultApi: { id: '2', name: 'Vault API' },
	};
}

/**
 * Runs one or more nodes in a chain; the first receives `input` items.
 * Returns the run and accessors for each node's output and error.
 */
export async function runNodes(
	specs: NodeSpec[],
	credentials: CredentialSet,
	input: INodeExecutionData[] = [{ json: {} }],
	options: {
		executionId?: string;
		extraNodeTypes?: Record<string, INodeType | IVersionedNodeType>;
		/** Static data the workflow starts with (what n8n loads with it). */
		staticData?: IDataObject;
		workflowId?: string;
		/** Connections other than the default chain (node names as in `specs`). */
		connections?: IConnections;
		/** Workflow settings, e.g. `{ executionOrder: 'v1' }` (n8n's default for new workflows). */
		settings?: IDataObject;
		/** The execution mode n8n runs the workflow in (default 'manual'; n8n's Retry runs as 'retry'). */
		mode?: WorkflowExecuteMode;
		/** The execution that started this one (n8n passes it to a sub-workflow). */
		parentExecution?: RelatedExecution;
		/** Runs a sub-workflow a node of this execution calls (this.executeWorkflow): its output items. */
		executeWorkflow?: (options: ExecuteWorkflowOptions) => Promise<INodeExecutionData[]>;
	} = {},
): Promise<RunResult> {
	await ensureBinaryData();
	const loader = await loadPackage();
	const nodeTypes = new PackageNodeTypes(loader, options.extraNodeTypes);
	const nodes: INode[] = specs.map((spec, index) => ({
		id: spec.id ?? randomUUID(),
		name: spec.name ?? (index === 0 ? DEFAULT_NODE : `${DEFAULT_NODE} ${index + 1}`),
		type: spec.type ?? NODE_TYPE,
		// Today's version unless a test asks for another (a workflow saved with version 1).
		typeVersion: spec.typeVersion ?? (spec.type === undefined || spec.type.endsWith('.vaultStore') || spec.type.endsWith('.vaultStoreTool') ? 2 : 1),
		position: [index * 200, 0],
		parameters: spec.parameters as INode['parameters'],
		credentials: Object.fromEntries(Object.entries(credentialRefs() ?? {}).map(([type, ref]) => [type, { ...ref, id: spec.credentialIds?.[type] ?? ref.id }])),
		onError: spec.continueOnFail ? 'continueRegularOutput' : undefined,
	}));
	let connections: IConnections = {};
	for (let i = 0; i + 1 < nodes.length; i++) {
		connections[nodes[i].name] = { main: [[{ node: nodes[i + 1].name, type: 'main', index: 0 }]] };
	}
	if (options.connections) connections = options.connections;
	const workflow = new Workflow({
		id: options.workflowId ?? `wf_${randomUUID().slice(0, 8)}`,
		staticData: options.staticData ? (JSON.parse(JSON.stringify(options.staticData)) as IDataObject) : undefined,
		name: 'test',
		nodes,
		connections,
		nodeTypes,
		active: false,
		settings: options.settings ?? {},
	});
	const executionId = options.executionId ?? randomUUID();
	const mode: WorkflowExecuteMode = options.mode ?? 'manual';
	const hooks = new ExecutionLifecycleHooks(mode, executionId, {
		id: workflow.id,
		name: 'test',
		nodes,
		connections,
		active: false,
		settings: {},
		createdAt: new Date(),
		updatedAt: new Date(),
		isArchived: false,
		activeVersionId: null,
	} as never);
	const done = new Promise<IRun>((resolve) => {
		hooks.addHandler('workflowExecuteAfter', (run) => resolve(run));
	});
	const additionalData = makeAdditionalData(new TestCredentialsHelper(loader, credentials), hooks, executionId);
	const subWorkflow = options.executeWorkflow;
	if (subWorkflow !== undefined) {
		additionalData.executeWorkflow = async (_info, _data, called) => ({ executionId: randomUUID(), data: [await subWorkflow(called)] });
	}
	const startNode = nodes[0];
	const runExecutionData: IRunExecutionData = {
		resultData: { runData: {} },
		executionData: {
			contextData: {},
			metadata: {},
			waitingExecution: {},
			waitingExecutionSource: null,
			nodeExecutionStack: [{ node: startNode, data: { main: [input] }, source: null } as IExecuteData],
		},
		...(options.parentExecution !== undefined ? { parentExecution: options.parentExecution } : {}),
	} as IRunExecutionData;
	const execute = new WorkflowExecute(additionalData, mode, runExecutionData);
	await execute.processRunExecutionData(workflow);
	const logStart = logLines.length;
	const run = await done;
	const runData = run.data.resultData.runData;
	for (const node of nodes) {
		const tasks = runData[node.name] ?? [];
		const reveal = node.parameters.resource === 'token' && node.parameters.operation === 'reveal';
		recordForScan(`${currentTestName()} / ${node.name}`, credentials, {
			items: tasks.flatMap((t) => t.data?.main?.[0] ?? []).map((i) => ({ json: i.json, allowRevealedNumber: reveal })),
			errors: tasks.map((t) => t.error).filter(Boolean),
			logs: logLines.slice(logStart),
		});
	}
	return {
		run,
		staticData: JSON.parse(JSON.stringify(workflow.staticData)) as IDataObject,
		output(nodeName = nodes[nodes.length - 1].name) {
			const tasks = runData[nodeName];
			return tasks?.[tasks.length - 1]?.data?.main?.[0] ?? [];
		},
		error(nodeName = nodes[nodes.length - 1].name) {
			const tasks = runData[nodeName];
			return tasks?.[tasks.length - 1]?.error as RunResult['error'] extends (n?: string) => infer E ? E : never;
		},
		hints(nodeName = nodes[nodes.length - 1].name) {
			const tasks = runData[nodeName];
			return (tasks?.[tasks.length - 1]?.hints ?? []) as { message: string; type?: string }[];
		},
	};
}

/** Runs a single Vault Store node with the given parameters. */
export async function runNode(
	parameters: IDataObject,
	credentials: CredentialSet,
	input?: INodeExecutionData[],
	options: { continueOnFail?: boolean; executionId?: string } = {},
): Promise<RunResult> {
	return await runNodes(
		[{ parameters, continueOnFail: options.continueOnFail }],
		credentials,
		input,
		options,
	);
}
