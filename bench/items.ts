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

import { DEFAULT_MAX_CONCURRENCY, INITIAL_CONCURRENCY } from '../nodes/shared/transport/concurrency';

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
	loopDelay: { meanMs: number; p99Ms: number; maxMs: number };
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
	return { ...result, requests: stats.requests, r429: stats.r429 };
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
		`${fmt(r.cpuMs / Math.max(1, r.items), 2)} | ${pct(r.idleMs, r.spanMs)} | ${r.peakInFlight} | ${fmt(r.loopDelay.meanMs, 1)} / ${fmt(r.loopDelay.p99Ms, 1)} | ${fmt(r.peakRssMb)} |`
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

export async function itemsBench(o: ItemsBenchOptions): Promise<string> {
	const LATENCY = 20;
	const N = 1000;
	const RATE = 50;
	const BURST = 50;
	const service = await Service.start();
	try {
		const notInstalled = `HTTP Request node not measured: n8n ${o.n8nVersion} is not installed (run \`npm run e2e:install\`).`;
		const httpSettings = (continueOnFail = false) => [
			http('HTTP Request node, no batching', { continueOnFail }),
			http('HTTP Request node, batch size 50, interval 0', { batchSize: 50, batchInterval: 0, continueOnFail }),
			http('HTTP Request node, batch size 200, interval 0', { batchSize: 200, batchInterval: 0, continueOnFail }),
		];
		const plain = (): Contender => ({ name: 'plain Node keep-alive client (headroom)', scenario: 'plain', args: {}, runs: [] });

		// 3a. 1,000 items at 20 ms, no rate limit.
		const def = ours(`Vault Store, default settings (adaptive: starts at ${INITIAL_CONCURRENCY}, ceiling ${DEFAULT_MAX_CONCURRENCY})`);
		const freeRows = [def, ...(o.haveN8n ? httpSettings() : [])];
		const headroom = plain();
		await measure(service, { latencyMs: LATENCY }, freeRows, o, N, o.rounds, headroom);
		const bestOf = (rows: Contender[]) =>
			rows.filter((c) => c.httpBest).reduce<Contender | undefined>((best, c) => (!best || median(c).nodeMs < median(best).nodeMs ? c : best), undefined);
		const bestHttp = bestOf(freeRows);
		const bh = bestHttp ? median(bestHttp) : undefined;
		const d = median(def);
		const room = headroomLine(headroom, freeRows);
		const mark = (c: Contender) => (c === bestHttp ? `**${c.name}** (best)` : c.name);

		const lines = [
			`### 3. Input items × order get, against a light stand-in service`,
			'',
			'The service (bench/service.ts) runs in a process of its own: a fixed latency (a timer) and a prepared ~200 B order per request, no other work, so it is ' +
				"never the bottleneck; the headroom line under each table checks that in the same run. Each contender runs in a child process of its own with its node types loaded before the clock (as in a running n8n). Wall time is the node's execution time as n8n records it. " +
				'CPU per item: CPU time of the contender\'s process over the run (all threads) / items. Idle share: time with no request in flight, from the start of the run to the last answer, ' +
				"over that span (requests counted from Node's HTTP client diagnostics channels, the same instrument for every contender). " +
				"The HTTP Request node's settings here all start every request at once; its best is the quickest of them.",
			'',
			`#### 3a. ${fmt(N)} items, ${LATENCY} ms latency, no rate limit (median of ${o.rounds} interleaved runs)`,
			'',
			HEADER,
			RULE,
			...freeRows.map((c) => row(mark(c), median(c), bh)),
			'',
			room.line,
		];

		// 3b. The curve: 10,000 items, and 5 ms / 100 ms latency, default vs the best HTTP Request setting of 3a.
		const curve: { label: string; items: number; latencyMs: number; rows: Contender[]; headroom: Contender }[] = [
			{ label: `${fmt(10_000)} items, ${LATENCY} ms`, items: 10_000, latencyMs: LATENCY, rows: [], headroom: plain() },
			{ label: `${fmt(N)} items, 5 ms`, items: N, latencyMs: 5, rows: [], headroom: plain() },
			{ label: `${fmt(N)} items, 100 ms`, items: N, latencyMs: 100, rows: [], headroom: plain() },
		];
		const curveRounds = Math.max(1, Math.min(3, o.rounds));
		for (const point of curve) {
			point.rows = [ours(def.name), ...(bestHttp ? [http(bestHttp.name, bestHttp.args)] : [])];
			await measure(service, { latencyMs: point.latencyMs }, point.rows, o, point.items, point.items > N ? 1 : curveRounds, point.headroom);
		}
		lines.push(
			'',
			`#### 3b. The curve: more items, lower and higher latency (median of ${curveRounds} interleaved runs; 1 run at ${fmt(10_000)} items)`,
			'',
			HEADER.replace('| contender |', '| load | contender |'),
			RULE.replace('|---|', '|---|---|'),
		);
		for (const point of curve) {
			const peer = point.rows[1] ? median(point.rows[1]) : undefined;
			for (const c of point.rows) lines.push(`| ${point.label} ${row(c.name, median(c), peer)}`);
		}
		lines.push('', ...curve.map((p) => `- ${p.label}: ${headroomLine(p.headroom, p.rows).line}`));

		// 3c. 50 requests/s: every contender continues on fail, so a failed item counts once.
		const limited = { latencyMs: LATENCY, rate: RATE, burst: BURST };
		const defLimited = ours('Vault Store, default settings', { continueOnFail: true });
		const tuned = http(
			`HTTP Request node, batch size ${RATE}, interval 1000 ms (tuned to the limit by hand)`,
			{ batchSize: RATE, batchInterval: 1000, continueOnFail: true },
			false,
		);
		const limitedRows = [defLimited, ...(o.haveN8n ? [...httpSettings(true), tuned] : [])];
		await measure(service, limited, limitedRows, o, N, 1);
		const bestLimited = limitedRows
			.filter((c) => c.httpBest)
			.reduce<Contender | undefined>((best, c) => {
				if (!best) return c;
				const a = median(c);
				const b = median(best);
				return a.failed < b.failed || (a.failed === b.failed && a.nodeMs < b.nodeMs) ? c : best;
			}, undefined);
		const dl = median(defLimited);
		const bl = bestLimited ? median(bestLimited) : undefined;
		const ideal = (N / RATE) * 1000;
		lines.push(
			'',
			`#### 3c. ${fmt(N)} items against a service limited to ${RATE} requests/s (burst ${BURST}, 429 with Retry-After), ${LATENCY} ms latency`,
			'',
			`Ideal wall time: ${fmt(N)} items / ${RATE} per second = ${fmt(ideal)} ms. One run each; On Error: Continue for every contender, so each failed item counts once. ` +
				"The HTTP Request node's best setting here is the one (of those that start every request at once) that fails fewest items.",
			'',
			'| contender | items | failed | requests | 429s | wall time (ms) | vs ideal | CPU per item (ms) | peak in flight |',
			'|---|---:|---:|---:|---:|---:|---:|---:|---:|',
			...limitedRows.map((c) => {
				const r = median(c);
				const name = c === bestLimited ? `**${c.name}** (best)` : c.name;
				return `| ${name} | ${r.items} | ${r.failed} | ${r.requests} | ${r.r429} | ${fmt(r.nodeMs)} | ${ratio(r.nodeMs, ideal)} | ${fmt(r.cpuMs / Math.max(1, r.items), 2)} | ${r.peakInFlight} |`;
			}),
		);

		if (!bh || !bl || !bestHttp) {
			lines.push('', notInstalled);
			return lines.join('\n');
		}
		const speed = bh.nodeMs / d.nodeMs;
		lines.push(
			'',
			'| target | measured | |',
			'|---|---|---|',
			`| 1,000 items at 20 ms: default at least 1.0x the HTTP Request node's best setting (aim 1.2x) | ${speed.toFixed(2)}x (${fmt(d.nodeMs)} ms vs ${fmt(bh.nodeMs)} ms) | ${met(speed >= 1)}${speed >= 1.2 ? ', aim met' : ', aim **not met**'} |`,
			`| CPU per item no more than the HTTP Request node's | ${fmt(d.cpuMs / d.items, 2)} ms vs ${fmt(bh.cpuMs / bh.items, 2)} ms | ${met(d.cpuMs / d.items <= bh.cpuMs / bh.items)} |`,
			`| idle share at most 10 % | ${pct(d.idleMs, d.spanMs)} (HTTP Request node: ${pct(bh.idleMs, bh.spanMs)}) | ${met(d.idleMs <= 0.1 * d.spanMs)} |`,
			`| the service had headroom (plain client at least 2x faster than the fastest node) | ${room.ok ? 'yes' : 'no'} | ${met(room.ok)} |`,
			`| rate-limited: 0 failed items | ${dl.failed} (HTTP Request node, best setting: ${bl.failed}) | ${met(dl.failed === 0)} |`,
			`| rate-limited: fewer 429s than the HTTP Request node's best setting | ${dl.r429} vs ${bl.r429} | ${met(dl.r429 < bl.r429)} |`,
			`| rate-limited: wall time within 1.3x of the ideal | ${ratio(dl.nodeMs, ideal)} | ${met(dl.nodeMs <= 1.3 * ideal)} |`,
		);

		lines.push(
			'',
			`#### 3d. Where the CPU time goes (${fmt(N)} items, ${LATENCY} ms, no rate limit)`,
			'',
			"One more run of the default and of the HTTP Request node's best setting under Node's CPU profiler (`node --cpu-prof`); each sample's own time is counted by the code it is in.",
			'',
			...(await profileTables(service, { latencyMs: LATENCY }, [ours(def.name), http(bestHttp.name, bestHttp.args)], o, N)),
		);
		return lines.join('\n');
	} finally {
		service.close();
	}
}
