// @ts-check
/**
 * One n8n instance of a run: its environment, `n8n import` / `execute` and `n8n start`, and reading
 * its output.
 * Part of the e2e runner's library (lib.js gathers it).
 */
'use strict';

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { freePort, run, startProcess, tail } = require('./processes');
const { n8nBin, nodeBin, pathWithNode } = require('./n8n-install');

/**
 * One n8n user folder with its settings; CLI commands and the server share its database.
 * `node` is the binary n8n runs with (default: the one the selected n8n needs, see ensureN8n).
 * @param {{userFolder: string, logDir: string, home: string, encryptionKey?: string, node?: string}} o
 */
function makeInstance({ userFolder, logDir, home, encryptionKey = crypto.randomBytes(24).toString('hex'), node = nodeBin() }) {
	fs.mkdirSync(logDir, { recursive: true });
	const baseEnv = () => {
		/** @type {NodeJS.ProcessEnv} */
		const env = {};
		// The parent's environment minus any N8N_/DB_ settings of the developer's own n8n.
		for (const [k, v] of Object.entries(process.env)) if (!/^(N8N_|DB_|WEBHOOK_URL$|QUEUE_|EXECUTIONS_)/.test(k)) env[k] = v;
		return {
			...env,
			PATH: pathWithNode(env, node),
			N8N_USER_FOLDER: userFolder,
			N8N_ENCRYPTION_KEY: encryptionKey,
			DB_TYPE: 'sqlite',
			N8N_DIAGNOSTICS_ENABLED: 'false',
			N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
			N8N_TEMPLATES_ENABLED: 'false',
			N8N_PERSONALIZATION_ENABLED: 'false',
			N8N_HIRING_BANNER_ENABLED: 'false',
			N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
			N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
			N8N_REINSTALL_MISSING_PACKAGES: 'false',
			N8N_LOG_LEVEL: process.env.VS_N8N_LOG_LEVEL || 'info',
			N8N_LOG_OUTPUT: 'console',
			N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
			EXTERNAL_FRONTEND_HOOKS_URLS: '',
			N8N_SECURE_COOKIE: 'false',
			NO_PROXY: '127.0.0.1,localhost',
			no_proxy: '127.0.0.1,localhost',
			NODE_OPTIONS: '',
			...Object.fromEntries((process.env.VS_N8N_ENV || '').split(',').filter(Boolean).map((kv) => kv.split('='))),
		};
	};
	let cliCount = 0;
	const inst = {
		userFolder,
		logDir,
		home,
		node,
		encryptionKey,
		baseEnv,
		/** Runs one n8n CLI command (its own task-broker port, so it works beside a running server). */
		async cli(/** @type {string[]} */ args, { timeoutMs = 180_000, allowFail = false } = {}) {
			const env = { ...baseEnv(), N8N_RUNNERS_BROKER_PORT: String(await freePort()), N8N_PORT: String(await freePort()) };
			const logFile = path.join(logDir, `cli-${String(++cliCount).padStart(2, '0')}-${args[0].replace(/[^\w-]/g, '_')}.log`);
			return await run(node, [n8nBin(home), ...args], { cwd: userFolder, env, logFile, timeoutMs, allowFail });
		},
		/** Imports the credentials (an array in n8n's import format) from a file. */
		async importCredentials(/** @type {object[]} */ creds) {
			const file = path.join(userFolder, 'credentials.import.json');
			fs.writeFileSync(file, JSON.stringify(creds, null, 2), { mode: 0o600 });
			try {
				await inst.cli(['import:credentials', `--input=${file}`]);
			} finally {
				fs.rmSync(file, { force: true });
			}
		},
		/** Imports every *.json workflow of a folder (n8n import:workflow --separate). */
		async importWorkflows(/** @type {string} */ dir) {
			const n = fs.readdirSync(dir).filter((f) => f.endsWith('.json')).length;
			if (!n) return;
			const r = await inst.cli(['import:workflow', '--separate', `--input=${dir}`]);
			if (!new RegExp(`Successfully imported ${n} workflow`).test(r.stdout + r.stderr)) {
				throw new Error(`import:workflow --separate ${dir}: expected "Successfully imported ${n} workflow(s)"\n${tail(r.stdout + r.stderr)}`);
			}
		},
		/**
		 * n8n execute --id --rawOutput; returns the run (IRun JSON) that follows the log lines.
		 * @returns {Promise<{run: any, stdout: string, stderr: string, code: number | null}>}
		 */
		async execute(/** @type {string} */ id, { timeoutMs = 180_000 } = {}) {
			const r = await inst.cli(['execute', `--id=${id}`, '--rawOutput'], { timeoutMs, allowFail: true });
			const run = parseRunJson(r.stdout);
			if (r.code !== 0 || !run) {
				throw new Error(`n8n execute --id=${id} exited ${r.code}${run ? '' : ' without a JSON result'}\n${tail(r.stdout + r.stderr, 60)}`);
			}
			return { run, stdout: r.stdout, stderr: r.stderr, code: r.code };
		},
		/** @type {ReturnType<typeof startProcess> | undefined} */
		server: undefined,
		port: 0,
		url: '',
		/** n8n start on 127.0.0.1; resolves when the editor is reachable. */
		async start({ port, echo = false, env: extra = {} } = /** @type {{port?: number, echo?: boolean, env?: NodeJS.ProcessEnv}} */ ({})) {
			inst.port = port ?? (await freePort());
			inst.url = `http://127.0.0.1:${inst.port}`;
			const env = {
				...baseEnv(),
				N8N_PORT: String(inst.port),
				N8N_LISTEN_ADDRESS: '127.0.0.1',
				N8N_HOST: '127.0.0.1',
				N8N_PROTOCOL: 'http',
				WEBHOOK_URL: `${inst.url}/`,
				N8N_EDITOR_BASE_URL: `${inst.url}/`,
				N8N_RUNNERS_BROKER_PORT: String(await freePort()),
				...extra,
			};
			const logFile = path.join(logDir, 'n8n-start.log');
			inst.server = startProcess(node, [...(process.env.VS_E2E_N8N_PROF ? ['--cpu-prof', '--cpu-prof-dir=' + process.env.VS_E2E_N8N_PROF] : []), n8nBin(home), 'start'], { cwd: userFolder, env, logFile, echo });
			await inst.server.waitFor(/Editor is now accessible via/, 180_000);
			await waitHttp(`${inst.url}/healthz`, 60_000);
			return inst.server;
		},
		async stop() {
			if (!inst.server) return { clean: true, code: 0, signal: null };
			const r = await inst.server.stop(30_000);
			return r;
		},
	};
	return inst;
}

/** The JSON object n8n execute --rawOutput prints after its log lines. */
function parseRunJson(stdout) {
	const lines = stdout.split('\n');
	for (let i = 0; i < lines.length; i++) {
		if (lines[i] !== '{') continue;
		const text = lines.slice(i).join('\n');
		const end = text.lastIndexOf('\n}');
		if (end < 0) continue;
		try {
			return JSON.parse(text.slice(0, end + 2));
		} catch {
			/* not the result yet */
		}
	}
	return undefined;
}

/** Output items (json) of a node in a run, first run, first output. */
function nodeOutput(run, nodeName, output = 0) {
	const runData = run?.data?.resultData?.runData ?? {};
	const r = runData[nodeName];
	if (!r) throw new Error(`node "${nodeName}" did not run (ran: ${Object.keys(runData).join(', ')})`);
	if (r[0].error) throw new Error(`node "${nodeName}" failed: ${r[0].error.message}`);
	return (r[0].data?.main?.[output] ?? []).map((/** @type {any} */ i) => i);
}

/**
 * Extra environment for `inst.start({ env })` that runs n8n's wall clock `shiftMs` ahead
 * (clock-shift.js preloaded; Date.now() and new Date() move, timers do not).
 */
function clockShiftEnv(/** @type {number} */ shiftMs) {
	return { NODE_OPTIONS: `--require ${JSON.stringify(path.join(__dirname, 'clock-shift.js'))}`, VS_E2E_CLOCK_SHIFT_MS: String(shiftMs) };
}

async function waitHttp(url, timeoutMs) {
	const end = Date.now() + timeoutMs;
	let last = '';
	while (Date.now() < end) {
		try {
			const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
			if (res.ok) return;
			last = `HTTP ${res.status}`;
		} catch (err) {
			last = String(err);
		}
		await new Promise((r) => setTimeout(r, 300));
	}
	throw new Error(`${url} not ready after ${timeoutMs} ms (${last})`);
}

module.exports = { clockShiftEnv, makeInstance, nodeOutput, parseRunJson, waitHttp };
