/**
 * `npm run bench`: every figure next to a peer measured in the same run, as a
 * ratio. Writes bench/RESULTS.md with the machine and the date, then the figures README.md and
 * docs/performance.md quote from it (scripts/performance-figures.js --write).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import type { SandboxOptions } from '../sandbox/server';
import { startSandbox } from '../sandbox/server';
import { itemsBench, runChild } from './items';
import { runTriggerBench } from './trigger';

const ROOT = path.resolve(__dirname, '..', '..');
const N8N_VERSION = '2.8.4';
const N8N_HOME =
	process.env.VS_N8N_HOME ?? path.join(os.homedir(), '.cache', 'n8n-nodes-vault-store', `n8n-${N8N_VERSION}`);
const HAVE_N8N = existsSync(path.join(N8N_HOME, 'node_modules/n8n-nodes-base/dist/nodes/HttpRequest/HttpRequest.node.js'));
const LATENCY_MS = 20;

/** Each contender of the no-rate-limit runs is measured this many times, interleaved; the median counts. */
const ROUNDS = Math.max(1, Number(process.env.VS_BENCH_ROUNDS ?? 5));
/** The rate-limited runs: requests per second and burst of the sandbox's token bucket. */
const RATE = 50;
const BURST = 50;

interface ChildResult {
	/** Wall time of the workflow run (node types already loaded). */
	ms: number;
	/** CPU time of the contender's process during the run. */
	cpuMs: number;
	/** Loading n8n-core's services and the node types before the run (not in `ms`). */
	loadMs: number;
	items: number;
	failed: number;
	peakRssMb: number;
	requests: number;
	/** Answers with status 429 the sandbox gave during the run. */
	r429: number;
}

interface Contender {
	name: string;
	scenario: string;
	args: object;
	/** The sandbox it runs against (a fresh one for every run). */
	sandbox: SandboxOptions;
	/** Input items: the ids of the first this many seeded orders. */
	items?: number;
	/** One of the HTTP Request node's settings the targets compare with (no batching, or interval 0). */
	httpBest?: boolean;
	/** Measured in the first round only (slow, and no target depends on it). */
	once?: boolean;
	runs: ChildResult[];
}

/**
 * One run: a fresh sandbox in this process (no connections or rate-limit tokens left over from
 * the run before), the contender in a child process of its own.
 */
async function child(c: Contender, nodeFlags: string[] = []): Promise<ChildResult> {
	const sb = await startSandbox({ port: 0, ...c.sandbox });
	try {
		const payload = JSON.stringify({
			baseUrl: sb.baseUrl,
			storeId: sb.store.storeId,
			secretKey: sb.store.secretKey,
			n8nHome: N8N_HOME,
			...(c.items === undefined ? {} : { items: sb.state.orders.slice(0, c.items).map((o) => o.id) }),
			...c.args,
		});
		return {
			...(await runChild<Omit<ChildResult, 'requests' | 'r429'>>(c.scenario, payload, nodeFlags)),
			requests: sb.requests.length,
			r429: sb.requests.filter((r) => r.status === 429).length,
		};
	} finally {
		await sb.close();
	}
}

/** Runs every contender `rounds` times, interleaved, so that machine noise hits all of them alike. */
async function measure(contenders: Contender[], rounds: number): Promise<void> {
	for (let round = 0; round < rounds; round++) {
		for (const c of contenders) {
			if (round > 0 && c.once) continue;
			c.runs.push(await child(c));
			process.stderr.write('.');
		}
	}
	process.stderr.write('\n');
}

/** The run with the median wall time. */
function median(c: Contender): ChildResult {
	const sorted = [...c.runs].sort((a, b) => a.ms - b.ms);
	return sorted[Math.floor((sorted.length - 1) / 2)];
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
const met = (ok: boolean) => (ok ? 'met' : '**not met**');
const notInstalled = `HTTP Request node not measured: n8n ${N8N_VERSION} is not installed (run \`npm run e2e:install\`).`;
const METHOD =
	"Each run gets a fresh sandbox in the bench's process and runs the contender in a child process of its own. " +
	'Node types are loaded before the clock starts, as in a running n8n (that load is the "load" column, not part of the wall time).';

async function paginationBench(): Promise<string> {
	const orders: SandboxOptions = { orders: 10_000, latencyMs: LATENCY_MS };
	const ours = (sandbox: SandboxOptions, args: object = {}): Contender => ({
		name: 'Vault Store, Return All, default settings',
		scenario: 'returnAll-ours',
		args,
		sandbox,
		runs: [],
	});
	const http = (sandbox: SandboxOptions, args: object = {}): Contender => ({
		name: 'HTTP Request node, built-in pagination',
		scenario: 'returnAll-http',
		args,
		sandbox,
		runs: [],
	});
	const o = ours(orders);
	const h = http(orders);
	await measure(HAVE_N8N ? [o, h] : [o], ROUNDS);
	// Rate-limited: the bench's limit, and a tighter one that 100 requests in a few seconds must run into.
	const limitedRows = [
		{ rate: RATE, burst: BURST },
		{ rate: 10, burst: 10 },
	].map(({ rate, burst }) => {
		const sandbox = { ...orders, rateLimit: rate, rateBurst: burst };
		return { label: `${rate} requests/s, burst ${burst}`, ours: ours(sandbox, { continueOnFail: true }), http: http(sandbox, { continueOnFail: true }) };
	});
	for (const l of limitedRows) await measure(HAVE_N8N ? [l.ours, l.http] : [l.ours], 1);

	const lines = [
		`### 2. Return All over 10,000 orders (sandbox latency ${LATENCY_MS} ms per request)`,
		'',
		`${METHOD} Median of ${ROUNDS} interleaved runs without a rate limit, one run with it (On Error: Continue, so a failure is counted; the HTTP Request node's items are the orders of the pages it read plus one per error).`,
		'',
		'| contender | sandbox | items | failed | requests | 429s | wall time (ms) | load (ms) | peak RSS (MB) | time vs HTTP Request | RSS vs HTTP Request |',
		'|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
	];
	const row = (c: Contender, sandbox: string, peer: Contender) => {
		const r = median(c);
		const p = peer.runs.length > 0 ? median(peer) : undefined;
		return `| ${c.name} | ${sandbox} | ${r.items} | ${r.failed} | ${r.requests} | ${r.r429} | ${fmt(r.ms)} | ${fmt(r.loadMs)} | ${fmt(r.peakRssMb)} | ${p ? ratio(r.ms, p.ms) : 'n/a'} | ${p ? ratio(r.peakRssMb, p.peakRssMb) : 'n/a'} |`;
	};
	lines.push(row(o, 'no rate limit', h));
	if (HAVE_N8N) lines.push(row(h, 'no rate limit', h));
	for (const l of limitedRows) {
		lines.push(row(l.ours, l.label, l.http));
		if (HAVE_N8N) lines.push(row(l.http, l.label, l.http));
	}
	if (!HAVE_N8N) {
		lines.push('', notInstalled);
		return lines.join('\n');
	}
	const om = median(o);
	const hm = median(h);
	const limitedOurs = limitedRows.map((l) => median(l.ours));
	const limitedHttp = limitedRows.map((l) => median(l.http));
	const rss = [om, ...limitedOurs].map((r, i) => [r.peakRssMb, [hm, ...limitedHttp][i].peakRssMb]);
	lines.push(
		'',
		'| target | measured | |',
		'|---|---|---|',
		`| 100 requests | ${om.requests} | ${met(om.requests === 100)} |`,
		`| at most 0.3x the HTTP Request node's wall time | ${ratio(om.ms, hm.ms)} (${fmt(om.ms)} ms vs ${fmt(hm.ms)} ms) | ${met(om.ms <= 0.3 * hm.ms)} |`,
		`| peak RSS no higher than the HTTP Request node's | ${rss.map(([a, b]) => ratio(a, b)).join(', ')} | ${met(rss.every(([a, b]) => a <= b))} |`,
		...limitedRows.map(
			(l, i) =>
				`| rate limit on (${l.label}): 0 failures | ${limitedOurs[i].failed} failed, ${limitedOurs[i].r429} 429s (HTTP Request node: ${limitedHttp[i].failed} failed, ${limitedHttp[i].r429} 429s) | ${met(limitedOurs[i].failed === 0)} |`,
		),
		'',
		'The sandbox serves a page in time proportional to the page (it keeps the orders newest first and shapes only the 100 it returns). Until this run it sorted and shaped all 10,000 orders for every page, about 10 ms of its CPU each, a floor of about 1 s under the parallel walk whatever the client did; the sequential HTTP Request node paid it too, 10 ms per page.',
	);
	return lines.join('\n');
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
	const loadAtStart = os.loadavg()[0];
	const benchStart = performance.now();
	const sections: string[] = [];
	// VS_BENCH_ONLY=2,3 runs only those sections and leaves RESULTS.md alone.
	const only = process.env.VS_BENCH_ONLY?.split(',').map(Number);
	const runs: [number, () => Promise<string>][] = [
		// The in-process latency percentiles first, while this process has no garbage of the other sections.
		[4, runTriggerBench],
		// In a fresh process: the verifiers' figures depend on the heap they run in (see the section).
		[1, async () => `### 1. Signature verification (ops/s)\n\n${execFileSync(process.execPath, [path.join(__dirname, 'verify.js')]).toString().trim()}`],
		[5, async () => packageBench()],
		// In a fresh process, as section 1: the gate's cost per MB next to JSON.parse of the same answer.
		[6, async () => execFileSync(process.execPath, [path.join(__dirname, 'gate.js')]).toString().trim()],
		[2, paginationBench],
		[3, async () => await itemsBench({ n8nHome: N8N_HOME, haveN8n: HAVE_N8N, n8nVersion: N8N_VERSION, rounds: ROUNDS })],
	];
	for (const [n, run] of runs) {
		if (only && !only.includes(n)) continue;
		const text = await run();
		sections[n - 1] = text;
		process.stdout.write(`\n${text}\n`);
	}
	if (only) process.exit(0);
	const header = [
		'# Benchmark results',
		'',
		`Generated by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${fmt(os.totalmem() / 2 ** 30, 0)} GiB, Node ${process.version}, ${os.platform()} ${os.release()}.`,
		`Each figure is next to a peer measured in the same run, interleaved, so load from other processes on the machine affects all contenders of a table alike: load average ${loadAtStart.toFixed(1)} at the start, ${os.loadavg()[0].toFixed(1)} at the end (1-minute, ${os.cpus().length} cores); the run took ${fmt((performance.now() - benchStart) / 60_000, 1)} min.`,
		'Section 3a is the headline of item throughput: the plain measurement (one n8n-core process, every contender interleaved, uninstrumented, wall time as n8n records it); the instrumented runs are in 3b.',
		'',
	].join('\n');
	writeFileSync(path.join(ROOT, 'bench', 'RESULTS.md'), `${header}\n${sections.filter(Boolean).join('\n\n')}\n`);
	process.stdout.write('\nWrote bench/RESULTS.md\n');
	// Every figure README.md and docs/performance.md quote from the run is written from RESULTS.md.
	execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'performance-figures.js'), '--write'], { stdio: 'inherit' });
	process.exit(0);
}

main().catch((error: unknown) => {
	process.stderr.write(`${String((error as Error)?.stack ?? error)}\n`);
	process.exit(1);
});
