// @ts-check
/**
 * n8n 2.8.4 in queue mode on one machine: `n8n start` (main), `n8n webhook` processes and
 * `n8n worker` processes sharing one encryption key, PostgreSQL and Redis, each with its own
 * N8N_USER_FOLDER (main: `userFolder`, every other process `<userFolder>-<name>`, empty at its first
 * start, kept across its restarts), so each has its own nodes folder, as separate hosts or
 * containers have. Built on test/e2e/runner/lib.js (makeInstance for the shared settings and the main
 * process, startProcess for the others); every process listens on 127.0.0.1.
 *
 * Ports: main and each webhook process have their own N8N_PORT; main and each worker their own task-broker
 * port (N8N_RUNNERS_BROKER_PORT: 2.8 always runs the internal task runner, N8N_RUNNERS_ENABLED is
 * deprecated there and not set); each worker its own health server (QUEUE_HEALTH_CHECK_PORT).
 * Webhook processes run no task runner. Every webhook process and every worker gets WEBHOOK_URL = the
 * first webhook process's URL (`webhook`), as processes behind one load balancer share its public
 * address (workers build the resume links of Send-and-Wait nodes from it).
 */
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const lib = require('../runner/lib');

const { log } = lib;

/**
 * @param {{userFolder: string, logDir: string, home: string,
 *   pg: {port: number, database: string, user: string}, redis: {port: number},
 *   env?: NodeJS.ProcessEnv}} o
 */
function makeQueueCluster({ userFolder, logDir, home, pg, redis, env: extraEnv = {} }) {
	const inst = lib.makeInstance({ userFolder, logDir, home });

	/** What every n8n process of the cluster shares (on top of lib's base settings). */
	const queueEnv = () => ({
		EXECUTIONS_MODE: 'queue',
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: '127.0.0.1',
		DB_POSTGRESDB_PORT: String(pg.port),
		DB_POSTGRESDB_DATABASE: pg.database,
		DB_POSTGRESDB_USER: pg.user,
		DB_POSTGRESDB_PASSWORD: '',
		QUEUE_BULL_REDIS_HOST: '127.0.0.1',
		QUEUE_BULL_REDIS_PORT: String(redis.port),
		...extraEnv,
	});
	const envOf = (/** @type {NodeJS.ProcessEnv} */ more) => ({ ...inst.baseEnv(), ...queueEnv(), ...more });
	/** The user folder of a process (main: userFolder; created on first use). */
	const folderOf = (/** @type {string} */ name) => {
		const dir = name === 'main' ? userFolder : `${userFolder}-${name}`;
		fs.mkdirSync(dir, { recursive: true });
		return dir;
	};
	/**
	 * Every process gets its own event log in the shared folder. n8n names it
	 * <N8N_EVENTBUS_LOGWRITER_LOGBASENAME>[-worker|-webhook-processor].log, so by default all
	 * workers append to one file, and a worker starting up "recovers" every execution that file
	 * does not show as finished: in a first run a replacement worker marked ~290 successful
	 * executions crashed. One log per process is what separate hosts or containers have.
	 */
	const eventLog = (/** @type {string} */ name) => ({ N8N_EVENTBUS_LOGWRITER_LOGBASENAME: `n8nEventLog-${name}` });

	let cliCount = 0;
	/** @type {Map<string, ReturnType<typeof lib.startProcess>>} */
	const procs = new Map();
	/** Output of earlier processes of the same name (a worker restarted after a kill). */
	/** @type {Map<string, string>} */
	const past = new Map();
	const remember = (/** @type {string} */ name, /** @type {ReturnType<typeof lib.startProcess>} */ proc) => {
		const old = procs.get(name);
		if (old) past.set(name, (past.get(name) ?? '') + old.stdout + old.stderr);
		procs.set(name, proc);
	};
	const cluster = {
		inst,
		procs,
		queueEnv,
		folderOf,
		/** The webhook process: port and base URL (fixed before anything starts, WEBHOOK_URL points at it). */
		webhook: { port: 0, url: '' },
		/** Every webhook process by name (`webhook` is cluster.webhook); a restart keeps the port. */
		/** @type {Record<string, {port: number, url: string}>} */
		webhooks: {},
		/** @type {Record<string, {port: number, healthPort: number}>} */
		workers: {},

		async init() {
			cluster.webhook.port = await lib.freePort();
			cluster.webhook.url = `http://127.0.0.1:${cluster.webhook.port}`;
			cluster.webhooks.webhook = cluster.webhook;
		},

		/** One n8n CLI command against the cluster's database (lib's inst.cli always uses SQLite). */
		async cli(/** @type {string[]} */ args, { timeoutMs = 180_000, allowFail = false } = {}) {
			const env = envOf({ N8N_RUNNERS_BROKER_PORT: String(await lib.freePort()), N8N_PORT: String(await lib.freePort()) });
			const logFile = path.join(logDir, `cli-${String(++cliCount).padStart(2, '0')}-${args[0].replace(/[^\w-]/g, '_')}.log`);
			return await lib.run(process.execPath, [lib.n8nBin(home), ...args], { cwd: userFolder, env, logFile, timeoutMs, allowFail });
		},

		async importCredentials(/** @type {object[]} */ creds) {
			const file = path.join(userFolder, 'credentials.import.json');
			fs.writeFileSync(file, JSON.stringify(creds, null, 2), { mode: 0o600 });
			try {
				await cluster.cli(['import:credentials', `--input=${file}`]);
			} finally {
				fs.rmSync(file, { force: true });
			}
		},

		async importWorkflows(/** @type {string} */ dir) {
			const n = fs.readdirSync(dir).filter((f) => f.endsWith('.json')).length;
			const r = await cluster.cli(['import:workflow', '--separate', `--input=${dir}`]);
			if (!new RegExp(`Successfully imported ${n} workflow`).test(r.stdout + r.stderr)) {
				throw new Error(`import:workflow --separate ${dir}: expected "Successfully imported ${n} workflow(s)"\n${lib.tail(r.stdout + r.stderr)}`);
			}
		},

		/** `n8n start` in queue mode (lib's inst.start: waits for the editor and /healthz). WEBHOOK_URL = the webhook process. */
		async startMain() {
			const t = Date.now();
			const server = await inst.start({ port: inst.port || undefined, env: { ...queueEnv(), ...eventLog('main'), WEBHOOK_URL: `${cluster.webhook.url}/` } });
			remember('main', server);
			log(`main (n8n start) ready on ${inst.url} in ${((Date.now() - t) / 1000).toFixed(1)} s`);
			return server;
		},

		/** `n8n webhook` named `name` (default `webhook`, the one WEBHOOK_URL points at) on its own port. */
		async startWebhook(name = 'webhook') {
			const t = Date.now();
			if (!cluster.webhooks[name]) {
				const p = await lib.freePort();
				cluster.webhooks[name] = { port: p, url: `http://127.0.0.1:${p}` };
			}
			const { port, url } = cluster.webhooks[name];
			const proc = lib.startProcess(process.execPath, [lib.n8nBin(home), 'webhook'], {
				cwd: folderOf(name),
				env: envOf({
					N8N_USER_FOLDER: folderOf(name),
					N8N_PORT: String(port),
					N8N_LISTEN_ADDRESS: '127.0.0.1',
					N8N_HOST: '127.0.0.1',
					N8N_PROTOCOL: 'http',
					WEBHOOK_URL: `${cluster.webhook.url}/`,
					N8N_RUNNERS_BROKER_PORT: String(await lib.freePort()),
					...eventLog(name),
					// Diagnosis: executionIds in the log lines (VS_E2E_QUEUE_WEBHOOK_DEBUG=1).
					...(process.env.VS_E2E_QUEUE_WEBHOOK_DEBUG === '1' ? { N8N_LOG_LEVEL: 'debug', N8N_LOG_FORMAT: 'json' } : {}),
				}),
				logFile: path.join(logDir, `n8n-${name}.log`),
			});
			remember(name, proc);
			await proc.waitFor(/Webhook listener waiting for requests/, 180_000);
			await lib.waitHttp(`${url}/healthz`, 60_000);
			log(`${name} process (n8n webhook) ready on ${url} in ${((Date.now() - t) / 1000).toFixed(1)} s`);
			return proc;
		},

		/** `n8n worker --concurrency=<n>` named `name`, with its health server; resolves when /healthz/readiness is 200. */
		async startWorker(/** @type {string} */ name, concurrency = 10) {
			const t = Date.now();
			const healthPort = await lib.freePort();
			const port = await lib.freePort();
			const proc = lib.startProcess(process.execPath, [lib.n8nBin(home), 'worker', `--concurrency=${concurrency}`], {
				cwd: folderOf(name),
				env: envOf({
					N8N_USER_FOLDER: folderOf(name),
					N8N_PORT: String(port),
					N8N_LISTEN_ADDRESS: '127.0.0.1',
					N8N_RUNNERS_BROKER_PORT: String(await lib.freePort()),
					QUEUE_HEALTH_CHECK_ACTIVE: 'true',
					QUEUE_HEALTH_CHECK_PORT: String(healthPort),
					N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
					// A Send-and-Wait node (a Human Review tool) builds its Approve and Decline links where it
					// runs: without it a worker's links point at http://localhost:<its own N8N_PORT>.
					WEBHOOK_URL: `${cluster.webhook.url}/`,
					...eventLog(name),
				}),
				logFile: path.join(logDir, `n8n-${name}.log`),
			});
			remember(name, proc);
			cluster.workers[name] = { port, healthPort };
			await proc.waitFor(/n8n worker is now ready/, 180_000);
			await lib.waitHttp(`http://127.0.0.1:${healthPort}/healthz/readiness`, 60_000);
			log(`${name} (n8n worker, concurrency ${concurrency}) ready in ${((Date.now() - t) / 1000).toFixed(1)} s, health on :${healthPort}`);
			return proc;
		},

		/** The whole output of a process so far (with that of earlier processes of the same name). */
		output(/** @type {string} */ name) {
			const p = procs.get(name);
			return (past.get(name) ?? '') + (p ? p.stdout + p.stderr : '');
		},

		/** SIGKILL to a process group: a crash, no shutdown handlers. */
		async kill(/** @type {string} */ name) {
			const p = procs.get(name);
			if (!p) throw new Error(`no process ${name}`);
			try {
				process.kill(-(/** @type {number} */ (p.child.pid)), 'SIGKILL');
			} catch {
				/* gone */
			}
			return await p.exited;
		},

		/** SIGTERM, SIGKILL after graceMs; {clean} = exit code 0 (or SIGTERM) within the grace time. */
		async stop(/** @type {string} */ name, graceMs = 30_000) {
			const p = procs.get(name);
			if (!p) return { clean: true, code: 0, signal: null };
			return await p.stop(graceMs);
		},
	};
	return cluster;
}

module.exports = { makeQueueCluster };
