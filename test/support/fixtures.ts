/**
 * Shared test setup: one sandbox per test file, started on a free loopback
 * port, plus shortcuts to run the Vault Store node against it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { Sandbox, SandboxOptions } from '../../sandbox/server';
import { startSandbox } from '../../sandbox/server';
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
	afterEach(() => {
		sb?.faults.clear();
		// A test may switch the disagreeing mode (sb.disagree.on); the next one starts as the file chose.
		if (sb) {
			sb.disagree.on = options.disagree ?? false;
			sb.disagree.keepRoots = false;
			sb.disagree.keepAnswers = false;
		}
	});
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

export interface WebhookReceiver {
	/** URL a sandbox endpoint can deliver to. */
	readonly url: string;
	/** Parsed JSON bodies of every delivery received, in order. */
	readonly received: IDataObject[];
}

/** A local HTTP endpoint for the file's tests that answers 200 to every delivery. */
export function useWebhookReceiver(): WebhookReceiver {
	let server: Server | undefined;
	const state = { url: '', received: [] as IDataObject[] };
	beforeAll(async () => {
		server = createServer((req, res) => {
			let body = '';
			req.on('data', (c: Buffer) => (body += c.toString('utf8')));
			req.on('end', () => {
				state.received.push(JSON.parse(body) as IDataObject);
				res.writeHead(200).end('ok');
			});
		});
		await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
		state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
	});
	afterAll(async () => {
		await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
	});
	return {
		get url() {
			return state.url;
		},
		received: state.received,
	};
}
