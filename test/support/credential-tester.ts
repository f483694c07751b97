/**
 * A credential type's declarative test as n8n's credential tester runs it (n8n 2.8.4,
 * packages/cli/src/services/credentials-tester.service.ts, testCredentials): the test request is
 * the routing of a temporary node run by n8n-core's RoutingNode, over real HTTP; an error returns
 * its message (n8n's NodeApiError keeps no `cause`, so the `responseCode` rules never apply); a
 * success is checked against the `responseSuccessBody` rules in order, the first whose value
 * equals the body's value at its key failing the test with its message. The e2e suite checks the
 * same cases in a real n8n (test/e2e/credential-test.js).
 */
import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IDataObject,
	INode,
	INodeExecutionData,
	INodeType,
	INodeTypes,
	IRunExecutionData,
} from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';
import { ExecuteContext, ExecutionLifecycleHooks, RoutingNode } from 'n8n-core';

import { ensureBinaryData, loadPackage, makeAdditionalData, TestCredentialsHelper } from './harness';

export interface CredentialTestResult {
	status: 'OK' | 'Error';
	message: string;
}

function get(value: unknown, key: string): unknown {
	let current = value as Record<string, unknown> | undefined;
	for (const part of key.split('.')) {
		if (current === null || current === undefined) return undefined;
		current = (current as Record<string, unknown>)[part] as Record<string, unknown> | undefined;
	}
	return current;
}

/** Runs the test of credential type `type` (the package's, as loaded by n8n) with `data`. */
export async function testCredential(type: string, values: IDataObject): Promise<CredentialTestResult> {
	const data = values as ICredentialDataDecryptedObject;
	await ensureBinaryData();
	const loader = await loadPackage();
	const credentialType = loader.credentialTypes[type].type as ICredentialType;
	const test = credentialType.test as ICredentialTestRequest;
	const nodeType: INodeType = {
		description: {
			displayName: 'Temp',
			name: 'credentialTest',
			group: ['transform'],
			version: 1,
			description: '',
			defaults: { name: 'Temp' },
			inputs: ['main'],
			outputs: ['main'],
			credentials: [{ name: type, required: true }],
			properties: [{ displayName: 'Temp', name: 'temp', type: 'string', routing: { request: test.request }, default: '' }],
		},
	};
	const nodeTypes: INodeTypes = {
		getByName: () => nodeType,
		getByNameAndVersion: () => nodeType,
		getKnownTypes: () => ({}),
	} as unknown as INodeTypes;
	const node: INode = {
		id: 'temp',
		name: 'Temp-Node',
		type: 'credentialTest',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
		credentials: { [type]: { id: 'test', name: 'test' } },
	};
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	const credentials = { id: 'test', name: 'test', type, data };
	const hooks = new ExecutionLifecycleHooks('internal', 'credential-test', { id: 'wf', nodes: [node], connections: {} } as never);
	const additionalData = makeAdditionalData(new TestCredentialsHelper(loader, { [type]: data }), hooks, 'credential-test');
	const runExecutionData = { resultData: { runData: {} } } as IRunExecutionData;
	const inputData = { main: [[{ json: {} }]] };
	const context = new ExecuteContext(workflow, node, additionalData, 'internal', runExecutionData, 0, [], inputData, { node, data: {}, source: null }, []);
	let response: INodeExecutionData[][] | null | undefined;
	try {
		response = (await new RoutingNode(context, nodeType, credentials).runNode()) as INodeExecutionData[][];
	} catch (error) {
		return { status: 'Error', message: String((error as Error).message) };
	}
	for (const rule of test.rules ?? []) {
		if (rule.type !== 'responseSuccessBody') continue;
		const body = response?.[0]?.[0]?.json;
		if (get(body, rule.properties.key) === rule.properties.value) return { status: 'Error', message: rule.properties.message };
	}
	return { status: 'OK', message: 'Connection successful!' };
}
