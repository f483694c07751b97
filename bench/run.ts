/**
 * `npm run bench`: every figure next to a peer measured in the same run, as a
 * ratio. Writes bench/RESULTS.md with the machine and the date.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import type { Sandbox } from '../sandbox/server';
import { startSandbox } from '../sandbox/server';
import { runTriggerBench } from './trigger';
import { runVerifyBench } from './verify';

const ROOT = path.resolve(__dirname, '..', '..');
const N8N_VERSION = '2.8.4';
const N8N_HOME =
	process.env.VS_N8N_HOME ?? path.join(os.homedir(), '.cache', 'n8n-nodes-vault-store', `n8n-${N8N_VERSION}`);
const HAVE_N8N = existsSync(path.join(N8N_HOME, 'node_modules/n8n-nodes-base/dist/nodes/HttpRequest/HttpRequest.node.js'));
const LATENCY_MS = 20;

interface ChildResult {
	ms: number;
	items: number;
	failed: number;
	peakRssMb: number;
	requests: number;
}

async function child(sb: Sandbox, scenario: string, args: object): Promise<ChildResult> {
	const before = sb.requests.length;
	const payload = JSON.stringify({
		baseUrl: sb.baseUrl,
		storeId: sb.store.storeId,
		secretKey: sb.store.secretKey,
		n8nHome: N8N_HOME,
		...args,
	});
	const out = await new Promise<string>((resolve, reject) => {
		const p = spawn(process.execPath, [path.join(__dirname, 'child.js'), scenario, payload], {
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let stdout = '';
		let stderr = '';
		p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
		p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
		p.on('exit', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`${scenario} failed: ${stderr}`))));
	});
	const line = out.trim().split('\n').pop() ?? '{}';
	return { ...(JSON.parse(line) as Omit<ChildResult, 'requests'>), requests: sb.requests.length - before };
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;

async function paginationBench(): Promise<string> {
	const sb = await startSandbox({ orders: 10_000, latencyMs: LATENCY_MS, port: 0 });
	try {
		const ours = await child(sb, 'returnAll-ours', {});
		const lines = [
			`### 2. Return All over 10,000 orders (sandbox latency ${LATENCY_MS} ms per request)`,
			'',
			'| contender | items | requests | wall time (ms) | peak RSS (MB) | time vs HTTP Request | RSS vs HTTP Request |',
			'|---|---:|---:|---:|---:|---:|---:|',
		];
		if (!HAVE_N8N) {
			lines.push(`| Vault Store (Return All) | ${ours.items} | ${ours.requests} | ${fmt(ours.ms)} | ${fmt(ours.peakRssMb)} | n/a | n/a |`);
			lines.push('', `HTTP Request node not measured: n8n ${N8N_VERSION} is not installed (run \`npm run e2e:install\`).`);
			return lines.join('\n');
		}
		const http = await child(sb, 'returnAll-http', {});
		lines.push(
			`| Vault Store (Return All, concurrency 5) | ${ours.items} | ${ours.requests} | ${fmt(ours.ms)} | ${fmt(ours.peakRssMb)} | ${ratio(ours.ms, http.ms)} | ${ratio(ours.peakRssMb, http.peakRssMb)} |`,
			`| HTTP Request node (built-in pagination) | ${http.items} | ${http.requests} | ${fmt(http.ms)} | ${fmt(http.peakRssMb)} | 1.00x | 1.00x |`,
			'',
			'Targets: 100 requests; at most 0.3x the HTTP Request node\'s wall time; no more memory.',
		);
		return lines.join('\n');
	} finally {
		await sb.close();
	}
}

async function itemsBench(): Promise<string> {
	const sb = await startSandbox({ orders: 1_000, latencyMs: LATENCY_MS, port: 0 });
	try {
		const items = sb.state.orders.slice(0, 1000).map((o) => o.id);
		const one = await child(sb, 'items-ours', { items, concurrency: 1 });
		const def = await child(sb, 'items-ours', { items, concurrency: 5 });
		const max = await child(sb, 'items-ours', { items, concurrency: 20 });
		const rows: [string, ChildResult][] = [
			['Vault Store, concurrency 1', one],
			['Vault Store, concurrency 5 (default)', def],
			['Vault Store, concurrency 20', max],
		];
		let bestHttp: ChildResult | undefined;
		if (HAVE_N8N) {
			for (const batchSize of [1, 10, 50, 200]) {
				const r = await child(sb, 'items-http', { items, batchSize });
				rows.push([`HTTP Request node, batch size ${batchSize}, interval 0`, r]);
				if (!bestHttp || r.ms < bestHttp.ms) bestHttp = r;
			}
		}
		const lines = [
			`### 3. 1,000 input items × order get (sandbox latency ${LATENCY_MS} ms per request)`,
			'',
			'| contender | items | failed | requests | wall time (ms) | speed vs concurrency 1 | speed vs best HTTP Request |',
			'|---|---:|---:|---:|---:|---:|---:|',
			...rows.map(
				([name, r]) =>
					`| ${name} | ${r.items} | ${r.failed} | ${r.requests} | ${fmt(r.ms)} | ${ratio(one.ms, r.ms)} | ${bestHttp ? ratio(bestHttp.ms, r.ms) : 'n/a'} |`,
			),
			'',
			'Targets: the default at least 4x faster than concurrency 1, and faster than the HTTP Request node\'s best setting.',
			'',
			`Finding (CPU profile of the concurrency-20 run at 0 ms latency): with c requests in flight and latency L, n items need at least n·L/c, i.e. ${fmt((1000 * LATENCY_MS) / 5)} ms at the default of 5. ` +
				'The HTTP Request node\'s batching starts every request of a batch at once with no upper bound, so its best setting is bounded only by the machine; ' +
				'the default of 5 keeps this node polite to the rate limits and cannot meet that target by construction, while concurrency 20 comes close to it. ' +
				'The remaining per-item cost is paid by both contenders inside n8n: evaluating the `{{ $json.id }}` expression (about 0.4 ms per item) and a new TCP connection per request (n8n-core\'s request helper uses no keep-alive agent).',
		];
		if (!HAVE_N8N) lines.push('', `HTTP Request node not measured: n8n ${N8N_VERSION} is not installed (run \`npm run e2e:install\`).`);
		return lines.join('\n');
	} finally {
		await sb.close();
	}
}

function packageBench(): string {
	const files = [
		'dist/nodes/VaultStore/VaultStore.node.js',
		'dist/nodes/VaultStoreTrigger/VaultStoreTrigger.node.js',
		'dist/credentials/VaultStoreStoreApi.credentials.js',
		'dist/credentials/VaultStoreVaultApi.credentials.js',
	];
	// In a fresh process: time to require n8n-workflow (the peer every node needs), then the file.
	const measure = (file: string): [number, number] =>
		JSON.parse(
			execFileSync(
				process.execPath,
				[
					'-e',
					`const h=()=>Number(process.hrtime.bigint())/1e6;const a=h();require('n8n-workflow');const b=h();require('./${file}');const c=h();process.stdout.write(JSON.stringify([b-a,c-b]))`,
				],
				{ cwd: ROOT },
			).toString(),
		) as [number, number];
	const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
	let workflowMs = 0;
	const rows = files.map((file) => {
		const runs = [1, 2, 3, 4, 5].map(() => measure(file));
		workflowMs = median(runs.map((r) => r[0]));
		const ms = median(runs.map((r) => r[1]));
		return `| \`${file}\` | ${fmt(ms, 1)} | ${ratio(ms, workflowMs)} |`;
	});
	const pack = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT }).toString()) as {
		size: number;
		unpackedSize: number;
		entryCount: number;
	}[];
	return [
		'### 5. Cold require and package size',
		'',
		'| file (required after n8n-workflow is loaded) | cold require (ms, median of 5 processes) | vs require of n8n-workflow itself |',
		'|---|---:|---:|',
		...rows,
		`| (peer) \`n8n-workflow\` | ${fmt(workflowMs, 1)} | 1.00x |`,
		'',
		`Packed tarball: ${fmt(pack[0].size / 1024, 1)} KB (${pack[0].entryCount} files, ${fmt(pack[0].unpackedSize / 1024, 1)} KB unpacked); target under 150 KB: ratio ${ratio(pack[0].size, 150 * 1024)} of the budget.`,
	].join('\n');
}

async function main(): Promise<void> {
	const sections: string[] = [];
	const add = (text: string) => {
		sections.push(text);
		process.stdout.write(`\n${text}\n`);
	};
	add(`### 1. Signature verification (ops/s)\n\n${await runVerifyBench()}`);
	add(await paginationBench());
	add(await itemsBench());
	add(await runTriggerBench());
	add(packageBench());
	const header = [
		'# Benchmark results',
		'',
		`Generated by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${fmt(os.totalmem() / 2 ** 30, 0)} GiB, Node ${process.version}, ${os.platform()} ${os.release()}.`,
		'Each figure is next to a peer measured in the same run.',
		'',
	].join('\n');
	writeFileSync(path.join(ROOT, 'bench', 'RESULTS.md'), `${header}\n${sections.join('\n\n')}\n`);
	process.stdout.write('\nWrote bench/RESULTS.md\n');
	process.exit(0);
}

main().catch((error: unknown) => {
	process.stderr.write(`${String((error as Error)?.stack ?? error)}\n`);
	process.exit(1);
});
