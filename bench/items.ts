/**
 * Section 3 of `npm run bench`: input items × order get, the Vault Store node against n8n's HTTP
 * Request node, against a light stand-in service (bench/service.ts) in a process of its own, so that
 * what is measured is the nodes and not the service. Each table says how much headroom the service
 * had: a plain Node keep-alive client at the same concurrency, in the same run.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import type { PlainRun } from './child';
import { DEFAULT_MAX_CONCURRENCY, INITIAL_CONCURRENCY, START_GROWTH_FACTOR, TURN_GRANTS } from '../nodes/shared/transport/concurrency';

const STORE_ID = 'shp_bench0000000001';
const SECRET_KEY = 'sk_bench_light_service_key';

export interface ItemsBenchOptions {
	n8nHome: string;
	haveN8n: boolean;
	n8nVersion: string;
	/** Rounds of the main comparison (interleaved; the median counts). */
	rounds: number;
}

interface ServiceSettings {
	latencyMs: number;
	rate?: number;
	burst?: number;
}

export interface ItemsResult {
	/** Wall time of the workflow run in the contender's process (node types already loaded). */
	ms: number;
	/** The node's own execution time as n8n records it. */
	nodeMs: number;
	/** CPU time of the contender's process during the run (all threads). */
	cpuMs: number;
	loadMs: number;
	items: number;
	failed: number;
	peakRssMb: number;
	/** Time with no request in flight, from the start of the run to the last answer. */
	idleMs: number;
	spanMs: number;
	peakInFlight: number;
	/** Only in instrumented runs. */
	loopDelay?: { meanMs: number; p99Ms: number; maxMs: number };
	/** What the service counted. */
	requests: number;
	r429: number;
}

interface Contender {
	name: string;
	scenario: 'items-ours' | 'items-http' | 'plain';
	args: object;
	/** One of the HTTP Request node's settings that start every request at once (the best is picked among them). */
	httpBest?: boolean;
	runs: ItemsResult[];
}

/** The stand-in service, in a process of its own for the whole section. */
class Service {
	private constructor(
		private readonly proc: ReturnType<typeof spawn>,
		readonly baseUrl: string,
	) {}

	static async start(): Promise<Service> {
		const proc = spawn(process.execPath, [path.join(__dirname, 'service.js'), JSON.stringify({ storeId: STORE_ID, secretKey: SECRET_KEY })], {
			stdio: ['ignore', 'pipe', 'inherit'],
		});
		const port = await new Promise<number>((resolve, reject) => {
			let text = '';
			proc.stdout?.on('data', (d: Buffer) => {
				text += d.toString();
				if (text.includes('\n')) resolve((JSON.parse(text.split('\n')[0]) as { port: number }).port);
			});
			proc.on('exit', (code) => reject(new Error(`service exited (${code})`)));
		});
		return new Service(proc, `http://127.0.0.1:${port}`);
	}

	async reset(s: ServiceSettings): Promise<void> {
		const q = new URLSearchParams({ latencyMs: String(s.latencyMs), rate: String(s.rate ?? 0), burst: String(s.burst ?? 0) });
		await fetch(`${this.baseUrl}/__reset?${q}`, { method: 'POST' });
	}

	async stats(): Promise<{ requests: number; r429: number; peakInFlight: number }> {
		return (await (await fetch(`${this.baseUrl}/__stats`)).json()) as { requests: number; r429: number; peakInFlight: number };
	}

	close(): void {
		this.proc.kill();
	}
}

/** Runs bench/child.js for `scenario` in a process of its own; its last line of output, parsed. */
export async function runChild<R>(scenario: string, payload: string, nodeFlags: string[] = []): Promise<R> {
	const out = await new Promise<string>((resolve, reject) => {
		const p = spawn(process.execPath, [...nodeFlags, path.join(__dirname, 'child.js'), scenario, payload], {
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let stdout = '';
		let stderr = '';
		p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
		p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
		p.on('exit', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`${scenario} failed: ${stderr}`))));
	});
	return JSON.parse(out.trim().split('\n').pop() ?? '{}') as R;
}

/** One run of a contender in a child process of its own against the service (reset first). */
async function runOnce(
	service: Service,
	settings: ServiceSettings,
	c: Contender,
	o: ItemsBenchOptions,
	items: number,
	nodeFlags: string[] = [],
): Promise<ItemsResult> {
	await service.reset(settings);
	const payload = JSON.stringify({
		baseUrl: service.baseUrl,
		storeId: STORE_ID,
		secretKey: SECRET_KEY,
		n8nHome: o.n8nHome,
		itemCount: items,
		...c.args,
	});
	const result = await runChild<Omit<ItemsResult, 'requests' | 'r429'>>(c.scenario, payload, nodeFlags);
	const stats = await service.stats();
	// Uninstrumented runs do not count requests in flight: the service's count stands in (for the headroom client's sockets).
	return { ...result, peakInFlight: result.peakInFlight || stats.peakInFlight, requests: stats.requests, r429: stats.r429 };
}

function median(c: Contender): ItemsResult {
	const sorted = [...c.runs].sort((a, b) => a.nodeMs - b.nodeMs);
	return sorted[Math.floor((sorted.length - 1) / 2)];
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
const met = (ok: boolean) => (ok ? 'met' : '**not met**');
const pct = (a: number, b: number) => `${((a / b) * 100).toFixed(1)}%`;

const HEADER =
	'| contender | items | failed | requests | wall time (ms) | speed vs best HTTP Request | CPU per item (ms) | idle share | peak in flight | event-loop delay mean / p99 (ms) | peak RSS (MB) |';
const RULE = '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|';

function row(name: string, r: ItemsResult, peer?: ItemsResult): string {
	return (
		`| ${name} | ${r.items} | ${r.failed} | ${r.requests} | ${fmt(r.nodeMs)} | ${peer ? ratio(peer.nodeMs, r.nodeMs) : 'n/a'} | ` +
		`${fmt(r.cpuMs / Math.max(1, r.items), 2)} | ${r.loopDelay ? pct(r.idleMs, r.spanMs) : 'not counted'} | ${r.loopDelay ? r.peakInFlight : 'not counted'} | ${r.loopDelay ? `${fmt(r.loopDelay.meanMs, 1)} / ${fmt(r.loopDelay.p99Ms, 1)}` : 'not sampled'} | ${fmt(r.peakRssMb)} |`
	);
}

const ours = (name: string, args: object = {}): Contender => ({ name, scenario: 'items-ours', args, runs: [] });
const http = (name: string, args: object, httpBest = true): Contender => ({ name, scenario: 'items-http', args, httpBest, runs: [] });

/** Runs the contenders `rounds` times, interleaved, then the headroom client once per round. */
async function measure(
	service: Service,
	settings: ServiceSettings,
	contenders: Contender[],
	o: ItemsBenchOptions,
	items: number,
	rounds: number,
	headroom?: Contender,
): Promise<void> {
	for (let round = 0; round < rounds; round++) {
		for (const c of contenders) {
			c.runs.push(await runOnce(service, settings, c, o, items));
			process.stderr.write('.');
		}
		if (headroom) {
			// The plain client at the concurrency the fastest node of this round reached.
			const fastest = contenders.map((c) => c.runs[c.runs.length - 1]).sort((a, b) => a.nodeMs - b.nodeMs)[0];
			const plain = { ...headroom, args: { sockets: Math.max(1, fastest.peakInFlight) } };
			headroom.runs.push({ ...(await runOnce(service, settings, plain, o, items)) });
			process.stderr.write('.');
		}
	}
	process.stderr.write('\n');
}

/** The headroom verdict: the plain client must be at least 2x faster than the fastest node. */
function headroomLine(plain: Contender, nodes: Contender[]): { line: string; ok: boolean } {
	const p = median(plain);
	const fastest = nodes.map(median).sort((a, b) => a.nodeMs - b.nodeMs)[0];
	const x = fastest.nodeMs / p.ms;
	const ok = x >= 2;
	return {
		ok,
		line:
			`Service headroom: a plain Node keep-alive client (\`http.get\`, ${p.peakInFlight} sockets, the fastest node's peak in flight) ` +
			`read the same ${p.items} orders in ${fmt(p.ms)} ms (median), ${x.toFixed(1)}x faster than the fastest node (${fmt(fastest.nodeMs)} ms): ` +
			(ok ? 'the service was not the bottleneck; the nodes were measured.' : '**less than 2x: this run measured the service, not the nodes.**'),
	};
}

interface CpuProfile {
	nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
	samples: number[];
	timeDeltas: number[];
}

/** Where a sample's own time goes: this package's code, the n8n packages, Node's HTTP stack, ... */
function category(functionName: string, url: string): string {
	if (functionName === '(idle)') return 'idle (waiting for answers)';
	if (functionName === '(garbage collector)') return 'garbage collection';
	if (url.includes('/dist/nodes/') && !url.includes('/node_modules/')) return 'this package (dist/nodes)';
	const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?:node_modules\/((?:@[^/]+\/)?[^/]+))?/.exec(url);
	if (pkg?.[2] === 'axios' || pkg?.[1] === 'axios' || pkg?.[2] === 'follow-redirects' || pkg?.[1] === 'follow-redirects') {
		return "axios (inside n8n-core's request helper)";
	}
	if (pkg?.[1] === 'n8n-core') return 'n8n-core';
	if (pkg?.[1] === 'n8n-workflow' || pkg?.[1] === 'luxon' || pkg?.[1] === '@n8n/tournament' || pkg?.[1] === 'recast' || pkg?.[1] === 'esprima-next') {
		return 'n8n-workflow expressions (with luxon, tournament)';
	}
	if (pkg?.[1] === 'n8n-nodes-base') return 'HTTP Request node (n8n-nodes-base)';
	if (functionName === 'internalConnect' || functionName === 'Socket.connect') return 'TCP connect (a new connection per request)';
	if (url === '' || url.startsWith('node:')) return 'Node.js (HTTP, streams) and native';
	return pkg ? 'other packages' : 'bench harness';
}

interface Attribution {
	byCategory: Map<string, number>;
	byFunction: Map<string, number>;
}

/** CPU self time of one profiled run by category and by function, leaving out module loading (before the clock). */
function attribute(file: string): Attribution {
	const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
	const byId = new Map(profile.nodes.map((n) => [n.id, n]));
	const parent = new Map<number, number>();
	for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
	const loading = new Map<number, boolean>();
	const isLoading = (id: number): boolean => {
		const known = loading.get(id);
		if (known !== undefined) return known;
		const up = parent.get(id);
		const value = byId.get(id)?.callFrame.functionName === 'Module._load' || (up !== undefined && isLoading(up));
		loading.set(id, value);
		return value;
	};
	const byCategory = new Map<string, number>();
	const byFunction = new Map<string, number>();
	profile.samples.forEach((id, i) => {
		if (isLoading(id)) return;
		const frame = byId.get(id)?.callFrame ?? { functionName: '', url: '', lineNumber: 0 };
		const ms = profile.timeDeltas[i] / 1000;
		const key = category(frame.functionName, frame.url);
		byCategory.set(key, (byCategory.get(key) ?? 0) + ms);
		const where = frame.url.replace(/^.*node_modules\//, '').replace(/^.*\/(dist\/nodes\/)/, '$1');
		const fn = `\`${frame.functionName || '(anonymous)'}\` ${where ? `${where}:${frame.lineNumber + 1}` : ''}`.trim();
		byFunction.set(fn, (byFunction.get(fn) ?? 0) + ms);
	});
	return { byCategory, byFunction };
}

/** One profiled run of each contender: where the CPU goes by category, and the top functions by self time. */
async function profileTables(service: Service, settings: ServiceSettings, contenders: Contender[], o: ItemsBenchOptions, items: number): Promise<string[]> {
	const dir = mkdtempSync(path.join(os.tmpdir(), 'vs-bench-prof-'));
	const columns: Attribution[] = [];
	try {
		for (const [i, c] of contenders.entries()) {
			const into = path.join(dir, String(i));
			await runOnce(service, settings, c, o, items, ['--cpu-prof', `--cpu-prof-dir=${into}`]);
			columns.push(attribute(path.join(into, readdirSync(into)[0])));
		}
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
	const totals = columns.map((m) => [...m.byCategory.values()].reduce((x, y) => x + y, 0));
	const keys = [...new Set(columns.flatMap((m) => [...m.byCategory.keys()]))].sort(
		(a, b) => (columns[0].byCategory.get(b) ?? 0) - (columns[0].byCategory.get(a) ?? 0),
	);
	const cell = (m: Map<string, number>, k: string, total: number) => `${fmt(m.get(k) ?? 0)} (${pct(m.get(k) ?? 0, total)})`;
	const lines = [
		`| where the CPU time goes (ms of self time; module loading left out) | ${contenders.map((c) => c.name).join(' | ')} |`,
		`|---|${contenders.map(() => '---:').join('|')}|`,
		...keys.map((k) => `| ${k} | ${columns.map((m, i) => cell(m.byCategory, k, totals[i])).join(' | ')} |`),
		`| total (ms, profiler on) | ${totals.map((t) => fmt(t)).join(' | ')} |`,
	];
	for (const [i, c] of contenders.entries()) {
		const top = [...columns[i].byFunction.entries()].sort((a, b) => b[1] - a[1]).slice(0, 15);
		lines.push(
			'',
			`Top functions by self time, ${c.name}:`,
			'',
			'| function | self time (ms) | share |',
			'|---|---:|---:|',
			...top.map(([fn, ms]) => `| ${fn} | ${fmt(ms, 1)} | ${pct(ms, totals[i])} |`),
		);
	}
	return lines;
}

interface PlainContender {
	name: string;
	scenario: 'items-ours' | 'items-http';
	args: object;
	/** One of the HTTP Request node's settings that start every request at once (the best is picked among them). */
	httpBest?: boolean;
	runs: PlainRun[];
}

/** The plain measurement: every contender in one child process (one n8n-core), interleaved, uninstrumented. */
async function plainSeries(
	service: Service,
	settings: ServiceSettings,
	contenders: PlainContender[],
	o: ItemsBenchOptions,
	items: number,
	rounds: number,
): Promise<number> {
	const payload = JSON.stringify({
		baseUrl: service.baseUrl,
		storeId: STORE_ID,
		secretKey: SECRET_KEY,
		n8nHome: o.n8nHome,
		itemCount: items,
		rounds,
		settings,
		// The warm-up round: at most 1,000 items (a rate-limited warm-up of one item: the bucket is reset before every run anyway).
		warmupItems: settings.rate ? 1 : 1000,
		contenders: contenders.map((c) => ({ scenario: c.scenario, args: c.args })),
	});
	const out = await runChild<{ runs: PlainRun[]; peakRssMb: number }>('plain-series', payload);
	for (const r of out.runs) contenders[r.contender].runs.push(r);
	process.stderr.write('.');
	return out.peakRssMb;
}

function plainMedian(c: PlainContender): PlainRun {
	const sorted = [...c.runs].sort((a, b) => a.nodeMs - b.nodeMs);
	return sorted[Math.floor((sorted.length - 1) / 2)];
}

function bestPlain(rows: PlainContender[]): PlainContender | undefined {
	return rows.filter((c) => c.httpBest).reduce<PlainContender | undefined>((best, c) => (!best || plainMedian(c).nodeMs < plainMedian(best).nodeMs ? c : best), undefined);
}

const spread = (c: PlainContender) => {
	const ms = c.runs.map((r) => r.nodeMs).sort((a, b) => a - b);
	return `${fmt(ms[0])}–${fmt(ms[ms.length - 1])}`;
};

export async function itemsBench(o: ItemsBenchOptions): Promise<string> {
	const N = 1000;
	const RATE = 50;
	const BURST = 50;
	const service = await Service.start();
	try {
		const notInstalled = `HTTP Request node not measured: n8n ${o.n8nVersion} is not installed (run \`npm run e2e:install\`).`;
		const HTTP_VERSION = 4.4;
		const defName = `Vault Store, default settings (open start, ${TURN_GRANTS} requests per turn, ×${START_GROWTH_FACTOR} per round trip, ceiling ${DEFAULT_MAX_CONCURRENCY})`;
		const oldName = `Vault Store, the previous start (${INITIAL_CONCURRENCY} at once, ×${START_GROWTH_FACTOR} per round trip, no turns)`;
		const oldPool = { initial: INITIAL_CONCURRENCY, turnGrants: 0 };
		const httpPlain = (continueOnFail = false): PlainContender[] => [
			{ name: `HTTP Request node ${HTTP_VERSION}, no batching`, scenario: 'items-http', args: { httpVersion: HTTP_VERSION, continueOnFail }, httpBest: true, runs: [] },
			{ name: `HTTP Request node ${HTTP_VERSION}, batch size 50, interval 0`, scenario: 'items-http', args: { httpVersion: HTTP_VERSION, batchSize: 50, batchInterval: 0, continueOnFail }, httpBest: true, runs: [] },
			{ name: `HTTP Request node ${HTTP_VERSION}, batch size 200, interval 0`, scenario: 'items-http', args: { httpVersion: HTTP_VERSION, batchSize: 200, batchInterval: 0, continueOnFail }, httpBest: true, runs: [] },
		];
		const oursPlain = (name: string, args: object = {}): PlainContender => ({ name, scenario: 'items-ours', args, runs: [] });

		// 3a. The plain rows: every latency and size, each in one process with every contender, interleaved.
		const points = [
			{ label: `${fmt(N)} items, 5 ms`, items: N, latencyMs: 5, rounds: o.rounds, old: true },
			{ label: `${fmt(N)} items, 20 ms`, items: N, latencyMs: 20, rounds: o.rounds, old: true },
			{ label: `${fmt(N)} items, 100 ms`, items: N, latencyMs: 100, rounds: o.rounds, old: true },
			{ label: `${fmt(10_000)} items, 20 ms`, items: 10_000, latencyMs: 20, rounds: Math.max(1, Math.min(3, o.rounds)), old: true },
		].map((p) => ({ ...p, rows: [oursPlain(defName), ...(p.old ? [oursPlain(oldName, { pool: oldPool })] : []), ...(o.haveN8n ? httpPlain() : [])] }));
		for (const p of points) await plainSeries(service, { latencyMs: p.latencyMs }, p.rows, o, p.items, p.rounds);
		process.stderr.write('\n');

		const lines = [
			`### 3. Input items × order get, against a light stand-in service`,
			'',
			'The service (bench/service.ts) runs in a process of its own: a fixed latency (a timer) and a prepared ~200 B order per request, no other work. ' +
				"The HTTP Request node is n8n-nodes-base's (from the n8n install of the e2e tests), `GET …/orders/{{ $json.id }}` with the key in a header; its settings here all start every request at once, and its best is the quickest of them at each load.",
			'',
			`#### 3a. Plain measurement (the headline)`,
			'',
			"**How the plain rows were measured:** for each load, one process of n8n-core runs every contender in turn (node types loaded once, as in a running n8n), " +
				`round after round (interleaved), after one untimed warm-up round; nothing observes the runs (no diagnostics channels, no event-loop monitor, no profiler). ` +
				"Wall time is the node's execution time as n8n records it (`executionTime` of its task); the figure is the median of the rounds, the range is the fastest and slowest round. " +
				'CPU per item is the process\'s CPU time over the run / items (one process holds every contender, so peak memory is in 3b). ' +
				'Peak in flight and connections are counted by the service, so nothing in the contenders\' process observes the run.',
			'',
			'| load | contender | rounds | items | failed | median wall time (ms) | range (ms) | speed vs best HTTP Request | CPU per item (ms) | peak in flight (service) | connections |',
			'|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
		];
		const verdicts: { label: string; speed: number; cpu: [number, number] }[] = [];
		for (const p of points) {
			const best = bestPlain(p.rows);
			const bm = best ? plainMedian(best) : undefined;
			for (const c of p.rows) {
				const r = plainMedian(c);
				const name = c === best ? `**${c.name}** (best)` : c.name;
				lines.push(
					`| ${p.label} | ${name} | ${c.runs.length} | ${r.items} | ${r.failed} | ${fmt(r.nodeMs)} | ${spread(c)} | ${bm ? ratio(bm.nodeMs, r.nodeMs) : 'n/a'} | ${fmt(r.cpuMs / Math.max(1, r.items), 2)} | ${fmt(r.serverPeak)} | ${fmt(r.connections)} |`,
				);
			}
			if (bm) {
				const d = plainMedian(p.rows[0]);
				verdicts.push({ label: p.label, speed: bm.nodeMs / d.nodeMs, cpu: [d.cpuMs / d.items, bm.cpuMs / bm.items] });
			}
		}

		// 3b. Instrumented rows (not the headline): each run a fresh process, as the bench measured before.
		const def = ours(defName);
		const bestName = bestPlain(points[1].rows);
		const instrumentedRows = [
			ours(`${defName}, instrumented`, { instrument: true }),
			...(bestName ? [http(`${bestName.name}, instrumented`, { ...bestName.args, instrument: true }), def, http(bestName.name, bestName.args, false)] : [def]),
		];
		const headroom: Contender = { name: 'plain Node keep-alive client (headroom)', scenario: 'plain', args: {}, runs: [] };
		const iRounds = Math.max(1, Math.min(3, o.rounds));
		await measure(service, { latencyMs: 20 }, instrumentedRows, o, N, iRounds, headroom);
		const room = headroomLine(headroom, instrumentedRows);
		const peer = instrumentedRows[1] ? median(instrumentedRows[1]) : undefined;
		lines.push(
			'',
			`#### 3b. Instrumented runs, and why the bench used to time the HTTP Request node about 2x slower (${fmt(N)} items, 20 ms; not the headline)`,
			'',
			`Each run in a fresh child process of its own (median of ${iRounds} interleaved runs), as every row of this section was measured until now. ` +
				"Instrumented: requests in flight counted from Node's HTTP client diagnostics channels, event-loop delay sampled every 1 ms. " +
				'Idle share: time with no request in flight from the start of the run to the last answer, over that span. Speed is against the instrumented HTTP Request row.',
			'',
			HEADER,
			RULE,
			...instrumentedRows.map((c) => row(c.name, median(c), peer)),
			'',
			room.line,
		);
		const plain20 = points[1].rows;
		const pd = plainMedian(plain20[0]);
		const ph = bestName ? plainMedian(bestName) : undefined;
		const fh = instrumentedRows[3] ? median(instrumentedRows[3]) : undefined;
		const ih = peer;
		if (ph && fh && ih) {
			lines.push(
				'',
				`Why: the HTTP Request node (${bestName?.name}) takes ${fmt(ih.nodeMs)} ms instrumented in a fresh process, ${fmt(fh.nodeMs)} ms uninstrumented in a fresh process, ` +
					`and ${fmt(ph.nodeMs)} ms in the plain measurement (a process that has run it before); its CPU per item is ${fmt(ih.cpuMs / ih.items, 2)}, ${fmt(fh.cpuMs / fh.items, 2)} and ${fmt(ph.cpuMs / ph.items, 2)} ms. ` +
					"Most of the difference is the fresh process: a node's first execution in a process pays for compiling the code paths it runs (n8n's expression engine with luxon and tournament for `{{ $json.id }}` on every item, the request helper, axios), and the HTTP Request node runs far more of that code per item than this node, which reads `{{ $json.id }}` without the expression engine. " +
					`The instruments add the rest. This node: ${fmt(median(instrumentedRows[0]).nodeMs)}, ${fmt(median(def).nodeMs)} and ${fmt(pd.nodeMs)} ms. A running n8n has executed its nodes before, so the plain rows are the headline.`,
			);
		}

		// 3c. 50 requests/s, plain: every contender continues on fail, so a failed item counts once.
		const limited = { latencyMs: 20, rate: RATE, burst: BURST };
		const limitedRows = [
			oursPlain('Vault Store, default settings', { continueOnFail: true }),
			oursPlain(oldName, { continueOnFail: true, pool: oldPool }),
			...(o.haveN8n
				? [
						...httpPlain(true),
						{
							name: `HTTP Request node ${HTTP_VERSION}, batch size ${RATE}, interval 1000 ms (tuned to the limit by hand)`,
							scenario: 'items-http' as const,
							args: { httpVersion: HTTP_VERSION, batchSize: RATE, batchInterval: 1000, continueOnFail: true },
							runs: [],
						},
					]
				: []),
		];
		await plainSeries(service, limited, limitedRows, o, N, 1);
		process.stderr.write('\n');
		const ideal = (N / RATE) * 1000;
		const atOnce = limitedRows.filter((c) => c.httpBest);
		const peer429 = atOnce.length ? Math.min(...atOnce.map((c) => plainMedian(c).r429)) : undefined;
		const dl = plainMedian(limitedRows[0]);
		lines.push(
			'',
			`#### 3c. ${fmt(N)} items against a service limited to ${RATE} requests/s (burst ${BURST}, 429 with Retry-After), 20 ms latency (plain, as 3a)`,
			'',
			`Ideal wall time: ${fmt(N)} items / ${RATE} per second = ${fmt(ideal)} ms. One round in one process after a warm-up; On Error: Continue for every contender, so each failed item counts once.`,
			'',
			'| contender | items | failed | requests | 429s | wall time (ms) | vs ideal | CPU per item (ms) |',
			'|---|---:|---:|---:|---:|---:|---:|---:|',
			...limitedRows.map((c) => {
				const r = plainMedian(c);
				return `| ${c.name} | ${r.items} | ${r.failed} | ${r.requests} | ${r.r429} | ${fmt(r.nodeMs)} | ${ratio(r.nodeMs, ideal)} | ${fmt(r.cpuMs / Math.max(1, r.items), 2)} |`;
			}),
		);

		if (!o.haveN8n || peer429 === undefined || !peer) {
			lines.push('', notInstalled);
			return lines.join('\n');
		}
		const defI = median(def);
		const httpI = fh ?? peer;
		lines.push(
			'',
			'| target | measured | |',
			'|---|---|---|',
			...verdicts.map(
				(v) =>
					`| ${v.label} (plain): at least 1.0x the HTTP Request node's best setting (aim 1.2x) | ${v.speed.toFixed(2)}x | ${met(v.speed >= 1)}${v.speed >= 1.2 ? ', aim met' : ', aim **not met**'} |`,
			),
			`| CPU per item no more than the HTTP Request node's (plain) | ${verdicts.map((v) => `${fmt(v.cpu[0], 2)} vs ${fmt(v.cpu[1], 2)} ms`).join('; ')} | ${met(verdicts.every((v) => v.cpu[0] <= v.cpu[1]))} |`,
			`| peak RSS no more than the HTTP Request node's (3b, uninstrumented fresh processes) | ${fmt(defI.peakRssMb)} vs ${fmt(httpI.peakRssMb)} MB | ${met(defI.peakRssMb <= httpI.peakRssMb)} |`,
			`| the service had headroom (plain client at least 2x faster than the fastest node) | ${room.ok ? 'yes' : 'no'} | ${met(room.ok)} |`,
			`| rate-limited: 0 failed items | ${dl.failed} | ${met(dl.failed === 0)} |`,
			`| rate-limited: wall time within 1.3x of the ideal | ${ratio(dl.nodeMs, ideal)} | ${met(dl.nodeMs <= 1.3 * ideal)} |`,
			`| rate-limited: at most a quarter of the HTTP Request node's 429s (fewest of its all-at-once settings) | ${dl.r429} vs ${peer429} (${ratio(dl.r429, peer429)}) | ${met(dl.r429 <= peer429 / 4)} |`,
		);

		lines.push(
			'',
			`#### 3d. Where the CPU time goes (${fmt(N)} items, 20 ms, no rate limit; fresh processes, not the headline)`,
			'',
			"One more run of the default and of the HTTP Request node's best setting under Node's CPU profiler (`node --cpu-prof`); each sample's own time is counted by the code it is in.",
			'',
			...(await profileTables(service, { latencyMs: 20 }, [ours(def.name), http(bestName?.name ?? '', bestName?.args ?? {})], o, N)),
		);
		return lines.join('\n');
	} finally {
		service.close();
	}
}
