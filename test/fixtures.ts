/**
 * Shared test setup: one sandbox per test file, started on a free loopback
 * port, plus shortcuts to run the Vault Store node against it.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { Sandbox, SandboxOptions } from '../sandbox/server';
import { startSandbox } from '../sandbox/server';
import type { CredentialSet, RunResult } from './harness';
import { runNode } from './harness';

export interface SandboxFixture {
	readonly sb: Sandbox;
	readonly credentials: CredentialSet;
	/** Runs the node and returns the run; clears the request log first. */
	run(parameters: IDataObject, input?: INodeExecutionData[], options?: { continueOnFail?: boolean; credentials?: CredentialSet }): Promise<RunResult>;
	/** Requests the sandbox received since the last `run`, without dev routes. */
	requests(): Sandbox['requests'];
}

export function useSandbox(options: SandboxOptions = {}): SandboxFixture {
	let sb: Sandbox | undefined;
	beforeAll(async () => {
		sb = await startSandbox({ allowHttpWebhooks: true, webhookTimeScale: 0.001, ...options });
	});
	afterAll(async () => {
		await sb?.close();
	});
	afterEach(() => sb?.faults.clear());
	const fixture: SandboxFixture = {
		get sb() {
			if (!sb) throw new Error('sandbox not started');
			return sb;
		},
		get credentials() {
			return fixture.sb.credentials() as unknown as CredentialSet;
		},
		async run(parameters, input, opts = {}) {
			fixture.sb.clearRequests();
			return await runNode(parameters, opts.credentials ?? fixture.credentials, input, {
				continueOnFail: opts.continueOnFail,
			});
		},
		requests() {
			return fixture.sb.requests.filter((r) => !r.path.startsWith('/__dev'));
		},
	};
	return fixture;
}

export function jsonOf(result: RunResult, nodeName?: string): IDataObject[] {
	return result.output(nodeName).map((i) => i.json);
}

/** Items with the given JSON, as a previous node would output them. */
export function items(...jsons: IDataObject[]): INodeExecutionData[] {
	return jsons.map((json) => ({ json }));
}
