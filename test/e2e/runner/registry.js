// @ts-check
/**
 * A local npm registry for the end-to-end tests: verdaccio (pinned), installed once from the npm
 * registry into ~/.cache/n8n-nodes-vault-store/verdaccio-<version>, started per run on 127.0.0.1
 * with its storage in the run folder and no uplinks, so it serves only what the test publishes
 * (a request for anything else, n8n-workflow included, is a 404). n8n's community-packages panel
 * and the README's manual `npm install` are pointed at it.
 *
 * Also: repacking a tarball under another version, and building the package as it was at a git
 * commit (the previous release, for the upgrade test).
 */
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const lib = require('./lib');
const { log, run, ROOT } = lib;

/** The newest verdaccio that runs on Node 20 (the system Node of the default n8n line). */
const VERDACCIO = '6.8.0';

/**
 * Installs verdaccio once (reused while its marker is there). verdaccio-audit asks for
 * `node-fetch@cjs`, a dist-tag the npm registry mirror of this machine lacks: the override pins
 * what that tag names on registry.npmjs.org (2.7.0).
 */
async function ensureVerdaccio() {
	const dir = path.join(lib.CACHE_ROOT, `verdaccio-${VERDACCIO}`);
	const bin = path.join(dir, 'node_modules', 'verdaccio', 'bin', 'verdaccio');
	const marker = path.join(dir, '.vault-store-e2e-installed');
	const ready = () => fs.existsSync(marker) && fs.existsSync(bin);
	if (ready()) return bin;
	await lib.withInstallLock(
		dir,
		ready,
		async () => {
			const t = Date.now();
			log(`verdaccio ${VERDACCIO}: npm install into ${dir} (first run only: about 20 s, 60 MB)`);
			fs.rmSync(path.join(dir, 'node_modules'), { recursive: true, force: true });
			fs.writeFileSync(
				path.join(dir, 'package.json'),
				JSON.stringify(
					{
						name: 'vault-store-e2e-registry',
						private: true,
						description: `A local npm registry for the end-to-end tests of ${lib.PKG_NAME} (made by scripts/e2e; safe to delete)`,
						dependencies: { verdaccio: VERDACCIO },
						overrides: { 'node-fetch@cjs': '2.7.0' },
					},
					null,
					2,
				) + '\n',
			);
			await run('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--omit=dev'], { cwd: dir, logFile: path.join(dir, 'install.log'), timeoutMs: 5 * 60_000 });
			fs.writeFileSync(marker, JSON.stringify({ verdaccio: VERDACCIO, installedAt: new Date().toISOString(), seconds: Math.round((Date.now() - t) / 1000) }) + '\n');
			log(`verdaccio ${VERDACCIO}: installed in ${((Date.now() - t) / 1000).toFixed(1)} s`);
		},
		`verdaccio ${VERDACCIO}`,
	);
	return bin;
}

/**
 * Starts verdaccio on a free loopback port with its storage under dir; every package can be
 * published by anyone (a dummy token), nothing is fetched from elsewhere.
 * @param {{dir: string, logDir: string}} o
 */
async function startRegistry({ dir, logDir }) {
	const bin = await ensureVerdaccio();
	fs.mkdirSync(dir, { recursive: true });
	fs.mkdirSync(logDir, { recursive: true });
	const port = await lib.freePort();
	const url = `http://127.0.0.1:${port}/`;
	const config = path.join(dir, 'config.yaml');
	fs.writeFileSync(
		config,
		[
			`storage: ${JSON.stringify(path.join(dir, 'storage'))}`,
			'auth:',
			'  htpasswd:',
			`    file: ${JSON.stringify(path.join(dir, 'htpasswd'))}`,
			'    max_users: -1',
			'uplinks: {}',
			'packages:',
			"  '**':",
			'    access: $all',
			'    publish: $all',
			'    unpublish: $all',
			'log: { type: stdout, format: pretty, level: warn }',
			'',
		].join('\n'),
	);
	const proc = lib.startProcess(process.execPath, [bin, '--config', config, '--listen', `127.0.0.1:${port}`], { cwd: dir, logFile: path.join(logDir, 'verdaccio.log') });
	await lib.waitHttp(`${url}-/ping`, 60_000);
	const npmrc = path.join(dir, 'npmrc');
	fs.writeFileSync(npmrc, `registry=${url}\n//127.0.0.1:${port}/:_authToken=vault-store-e2e\n`);
	/** npm settings that send every npm command of a child process to this registry. */
	const npmEnv = { npm_config_registry: url, npm_config_userconfig: npmrc };
	const registry = {
		url,
		npmEnv,
		/** npm publish of a tarball (under a dist-tag; npm's default "latest"). */
		async publish(/** @type {string} */ tgz, { tag = 'latest' } = {}) {
			await run('npm', ['publish', tgz, '--tag', tag, '--registry', url, '--userconfig', npmrc, '--provenance=false', '--ignore-scripts'], { cwd: dir, timeoutMs: 120_000 });
			log(`registry: published ${path.basename(tgz)} (tag ${tag})`);
		},
		/** The registry's document of a package (versions and dist-tags). */
		async packument(/** @type {string} */ name) {
			const res = await fetch(url + name.replace('/', '%2f'));
			return res.ok ? await res.json() : undefined;
		},
		async stop() {
			await proc.stop(5000);
		},
	};
	return registry;
}

/** The tarball tgz with its package.json version set to version, written into dir. */
async function repack(/** @type {string} */ tgz, /** @type {string} */ version, /** @type {string} */ dir) {
	const work = fs.mkdtempSync(path.join(os.tmpdir(), 'vs-repack-'));
	try {
		await run('tar', ['-xzf', tgz, '-C', work]);
		const pjFile = path.join(work, 'package', 'package.json');
		const pj = JSON.parse(fs.readFileSync(pjFile, 'utf8'));
		pj.version = version;
		fs.writeFileSync(pjFile, JSON.stringify(pj, null, 2) + '\n');
		fs.mkdirSync(dir, { recursive: true });
		const r = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], { cwd: path.join(work, 'package'), timeoutMs: 120_000 });
		const info = JSON.parse(r.stdout.slice(r.stdout.indexOf('[')));
		return path.join(dir, info[0].filename);
	} finally {
		fs.rmSync(work, { recursive: true, force: true });
	}
}

/**
 * The package as it was at a git commit, built and packed (cached in .e2e/release-<commit> while
 * the tarball is there): the source tree from `git archive`, built with this checkout's
 * node_modules.
 */
async function buildRelease(/** @type {string} */ commit) {
	const full = (await run('git', ['rev-parse', '--verify', `${commit}^{commit}`])).stdout.trim();
	const dir = path.join(ROOT, '.e2e', `release-${full.slice(0, 12)}`);
	const done = path.join(dir, 'tarball');
	if (fs.existsSync(done) && fs.existsSync(fs.readFileSync(done, 'utf8'))) return fs.readFileSync(done, 'utf8');
	fs.rmSync(dir, { recursive: true, force: true });
	const src = path.join(dir, 'src');
	fs.mkdirSync(src, { recursive: true });
	const t = Date.now();
	await run('sh', ['-c', `git archive ${full} | tar -x -C ${JSON.stringify(src)}`]);
	fs.symlinkSync(fs.realpathSync(path.join(ROOT, 'node_modules')), path.join(src, 'node_modules'));
	await run('npm', ['run', 'build', '--silent'], { cwd: src, timeoutMs: 5 * 60_000 });
	const r = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], { cwd: src, timeoutMs: 120_000 });
	const info = JSON.parse(r.stdout.slice(r.stdout.indexOf('[')));
	const tgz = path.join(dir, info[0].filename);
	fs.writeFileSync(done, tgz);
	fs.rmSync(src, { recursive: true, force: true });
	log(`release at ${full.slice(0, 7)}: ${path.basename(tgz)} built in ${((Date.now() - t) / 1000).toFixed(1)} s`);
	return tgz;
}

module.exports = { VERDACCIO, ensureVerdaccio, startRegistry, repack, buildRelease };
