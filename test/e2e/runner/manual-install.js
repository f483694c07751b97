#!/usr/bin/env node
// @ts-check
/**
 * npm run test:e2e:manual — the README's manual install commands, run exactly as written, on
 * Node 20 (the system Node, with n8n 2.8.4) and on Node 24 (the registry package node@24, with
 * the newest n8n line the suite covers, lib.N8N_LATEST); on Node 22 (node@22) the install only
 * (see LINES):
 *   1. the package built and packed, published to a local registry (test/e2e/runner/registry.js: only
 *      this package is there, so npm fetching any peer, n8n-workflow included, fails with a 404)
 *   2. per Node line, a fresh HOME (under the system temp folder, outside this repository): the
 *      README's `sh` blocks of "Manual install" (the registry set by npm_config_registry) run by
 *      `sh -e` with HOME there, so `~/.n8n/nodes` is a fresh nodes folder; it must then hold the
 *      package and nothing else
 *   3. n8n started on that HOME (its default user folder), the credentials and one workflow
 *      (n8n Webhook → Vault Store store/get) imported and published with the n8n CLI before the
 *      start; the webhook called: the Vault Store node must answer with the sandbox's store
 *   4. the README's tarball command (`<path>` and `<version>` filled in) in another fresh HOME: the
 *      same single package
 * Options: --node 20|22|24 (one line only). Prints the duration of each install and of each line.
 */
'use strict';

const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const lib = require('./lib');
const { startRegistry } = require('./registry');
const { Results } = require('./results');
const { log, ROOT, PKG_NAME } = lib;

/**
 * Node line → n8n line it runs here (n8n 2.8.4's native modules are built for Node 20). Node 22
 * (the registry package node@22, pinned): the install commands and the package's files loading
 * with n8n-workflow supplied as n8n supplies it (NODE_PATH); no n8n of that line is installed here.
 */
const LINES = /** @type {{node: string, n8n?: string, pin?: string}[]} */ ([
	{ node: '20', n8n: lib.N8N_DEFAULT },
	{ node: '22', pin: '22.23.3' },
	{ node: '24', n8n: lib.N8N_LATEST },
]);

/**
 * The README's manual-install commands: the ```sh blocks between the "Manual install" marker and
 * the next heading of the Install section; `tarball` is the block that names a .tgz.
 */
function readmeCommands() {
	const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
	const section = readme.split(/^## Install$/m)[1]?.split(/^## /m)[0] ?? '';
	const manual = section.split(/^### Manual install.*$/m)[1]?.split(/^### /m)[0];
	if (!manual) throw new Error('README.md: no "### Manual install" part in the Install section');
	const blocks = [...manual.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1].trim());
	const tarball = blocks.find((b) => /\.tgz\b/.test(b));
	const byName = blocks.find((b) => b !== tarball && new RegExp(`npm install[^\\n]*\\b${PKG_NAME}\\b`).test(b));
	if (!byName || !tarball) throw new Error(`README.md "Manual install": expected a sh block installing ${PKG_NAME} by name and one installing a .tgz; found:\n${blocks.join('\n---\n')}`);
	return { byName, tarball };
}

/** A workflow: n8n Webhook (answers with the last node's items) → Vault Store, store/get. */
function smokeWorkflow() {
	return {
		id: 'vsManualInstall1',
		name: 'Manual install smoke test',
		active: false,
		nodes: [
			{
				id: crypto.randomUUID(),
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: crypto.randomUUID(),
				parameters: { httpMethod: 'POST', path: 'vault-store-manual-install', responseMode: 'lastNode', responseData: 'allEntries', options: {} },
			},
			{
				id: crypto.randomUUID(),
				name: 'Vault Store',
				type: `${PKG_NAME}.vaultStore`,
				typeVersion: 1,
				position: [220, 0],
				parameters: { resource: 'store', operation: 'get' },
				credentials: { vaultStoreStoreApi: { id: lib.CREDENTIALS.store.id, name: lib.CREDENTIALS.store.name } },
			},
		],
		connections: { Webhook: { main: [[{ node: 'Vault Store', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	};
}

/** `sh -e -c script` with HOME set to home, PATH leading to node, npm aimed at the registry. */
async function shell(/** @type {string} */ script, /** @type {string} */ home, /** @type {string} */ node, /** @type {Record<string, string>} */ npmEnv, /** @type {string} */ logFile) {
	/** @type {NodeJS.ProcessEnv} */
	const env = {};
	for (const [k, v] of Object.entries(process.env)) if (!/^(npm_|N8N_|NODE_OPTIONS$)/i.test(k)) env[k] = v;
	Object.assign(env, { HOME: home, PATH: lib.pathWithNode(env, node), npm_config_registry: npmEnv.npm_config_registry, npm_config_update_notifier: 'false' });
	const t = Date.now();
	const r = await lib.run('sh', ['-e', '-c', script], { cwd: home, env, logFile, timeoutMs: 5 * 60_000, allowFail: true });
	return { ...r, seconds: (Date.now() - t) / 1000 };
}

/** What a nodes folder holds: node_modules entries and the package's version. */
function nodesFolder(/** @type {string} */ home) {
	const dir = path.join(home, '.n8n', 'nodes', 'node_modules');
	const modules = fs.existsSync(dir) ? fs.readdirSync(dir).filter((d) => !d.startsWith('.')) : [];
	const pj = path.join(dir, PKG_NAME, 'package.json');
	return { modules, version: fs.existsSync(pj) ? JSON.parse(fs.readFileSync(pj, 'utf8')).version : undefined };
}

/**
 * A Node line without an n8n here: both README commands in fresh homes, the folder checked, and the
 * package's node and credential files loaded by that Node with n8n-workflow from NODE_PATH (this
 * repository's devDependency), the way n8n makes its own copy available to community packages.
 * @param {InstanceType<typeof Results>} t @param {string} phase @param {string} major @param {string} node
 * @param {{byName: string, tarball: string, tgz: string, registry: {npmEnv: Record<string, string>}, logDir: string, homes: string[], durations: string[]}} o
 */
async function installOnly(t, phase, major, node, o) {
	const nodeVersion = (await lib.run(node, ['--version'])).stdout.trim();
	t.check(`${phase}: runs on Node ${major}`, nodeVersion.startsWith(`v${major}.`), nodeVersion);
	for (const [label, script] of /** @type {const} */ ([
		['by name', o.byName],
		['from the tarball', o.tarball.replace(/<path>/g, path.dirname(o.tgz)).replace(/<version>/g, lib.PACKAGE_VERSION)],
	])) {
		const home = fs.mkdtempSync(path.join(os.tmpdir(), `vs-manual-node${major}-`));
		o.homes.push(home);
		const r = await shell(script, home, node, o.registry.npmEnv, path.join(o.logDir, `npm-node${major}-${label.replace(/ /g, '-')}.log`));
		o.durations.push(`node ${major}: install ${label} ${r.seconds.toFixed(1)} s`);
		t.must(`${phase}: the README's install command (${label}) exits 0`, r.code === 0, lib.tail(r.stdout + r.stderr, 15));
		t.equal(`${phase}: ~/.n8n/nodes holds the package and nothing else (${label})`, nodesFolder(home), { modules: [PKG_NAME], version: lib.PACKAGE_VERSION });
		const pkgDir = path.join(home, '.n8n', 'nodes', 'node_modules', PKG_NAME);
		const files = /** @type {{n8n: {nodes: string[], credentials: string[]}}} */ (JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'))).n8n;
		const load = `for (const f of ${JSON.stringify([...files.nodes, ...files.credentials])}) { const m = require(require('path').join(${JSON.stringify(pkgDir)}, f)); for (const C of Object.values(m)) new C(); }`;
		const l = await lib.run(node, ['-e', load], { env: { ...process.env, NODE_PATH: path.join(ROOT, 'node_modules') }, allowFail: true });
		t.check(`${phase}: every node and credential file of the install loads (${label})`, l.code === 0, lib.tail(l.stdout + l.stderr, 10));
	}
}

async function main() {
	const started = Date.now();
	const t = new Results();
	t.title = 'README manual install';
	const { overall, runDir, logDir } = lib.beginRun(t, 'manual', 15 * 60_000);
	const i = process.argv.indexOf('--node');
	const lines = i > 0 ? LINES.filter((l) => l.node === process.argv[i + 1]) : LINES;
	if (!lines.length) throw new Error(`--node ${process.argv[i + 1]}: expected one of ${LINES.map((l) => l.node).join(', ')}`);

	const { byName, tarball } = readmeCommands();
	log(`README commands:\n--- by name\n${byName}\n--- from a tarball\n${tarball}\n---`);

	const build = process.env.VS_E2E_SKIP_BUILD !== '1';
	const tgz = await lib.buildAndPack(path.join(runDir, 'pack'), { build });
	const { startSandbox } = await lib.loadSandbox({ build });
	const sb = await startSandbox({ allowHttpWebhooks: true, seed: 1 });
	const registry = await startRegistry({ dir: path.join(runDir, 'registry'), logDir });
	await registry.publish(tgz);
	const durations = /** @type {string[]} */ ([]);
	const homes = /** @type {string[]} */ ([]);

	for (const line of lines) {
		const lt = Date.now();
		const phase = line.n8n ? `node ${line.node} (n8n ${line.n8n})` : `node ${line.node} (install only)`;
		await t.runPhase(phase, async () => {
			if (!line.n8n) {
				const node = (await lib.ensureNodeVersion(/** @type {string} */ (line.pin))).bin;
				await installOnly(t, phase, line.node, node, { byName, tarball, tgz, registry, logDir, homes, durations });
				return;
			}
			lib.selectN8n(line.n8n);
			const n8nHome = await lib.ensureN8n();
			const node = (await lib.ensureNode()).bin;
			const nodeVersion = (await lib.run(node, ['--version'])).stdout.trim();
			t.check(`${phase}: runs on Node ${line.node}`, nodeVersion.startsWith(`v${line.node}.`), nodeVersion);
			// A home outside this repository, as a user's is (npm looks for package.json in parent folders).
			const home = fs.mkdtempSync(path.join(os.tmpdir(), `vs-manual-node${line.node}-`));
			homes.push(home);

			// The README's command by name, in a fresh ~/.n8n/nodes.
			const r = await shell(byName, home, node, registry.npmEnv, path.join(logDir, `npm-node${line.node}-by-name.log`));
			const npmVersion = (await shell('npm --version', home, node, registry.npmEnv, path.join(logDir, 'npm-version.log'))).stdout.trim();
			log(`${phase}: README install by name (npm ${npmVersion}) exited ${r.code} in ${r.seconds.toFixed(1)} s`);
			durations.push(`node ${line.node}: install by name ${r.seconds.toFixed(1)} s`);
			t.must(`${phase}: the README's install command exits 0 (npm ${npmVersion})`, r.code === 0, lib.tail(r.stdout + r.stderr, 15));
			t.equal(`${phase}: ~/.n8n/nodes holds the package and nothing else (no second n8n-workflow)`, nodesFolder(home), { modules: [PKG_NAME], version: lib.PACKAGE_VERSION });

			// n8n (re)started on that home; one workflow through the Vault Store node.
			const inst = lib.makeInstance({ userFolder: home, logDir: path.join(logDir, `n8n-node${line.node}`), home: n8nHome, node });
			await inst.importCredentials(lib.credentialsFor(sb));
			const wfDir = path.join(runDir, `workflow-node${line.node}`);
			fs.mkdirSync(wfDir, { recursive: true });
			const wf = smokeWorkflow();
			fs.writeFileSync(path.join(wfDir, 'smoke.json'), JSON.stringify(wf, null, 2));
			await inst.importWorkflows(wfDir);
			const pub = await inst.cli(['publish:workflow', `--id=${wf.id}`]);
			t.check(`${phase}: the workflow is published`, pub.code === 0, pub.stdout);
			const st = Date.now();
			await inst.start();
			log(`${phase}: n8n started in ${((Date.now() - st) / 1000).toFixed(1)} s`);
			const server = /** @type {NonNullable<typeof inst.server>} */ (inst.server);
			const out = () => server.stdout + server.stderr;
			t.check(`${phase}: n8n loaded the package (no load error in its log)`, !/Failed to load|Error loading package|n8n-nodes-vault-store.*error/i.test(out()), lib.tail(out(), 20));
			const hook = `${inst.url}/webhook/vault-store-manual-install`;
			/** @type {{status: number, body: any}} */
			let res = { status: 0, body: undefined };
			const end = Date.now() + 60_000;
			while (Date.now() < end) {
				const f = await fetch(hook, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}', signal: AbortSignal.timeout(30_000) });
				const text = await f.text();
				res = { status: f.status, body: (() => { try { return JSON.parse(text); } catch { return text; } })() };
				if (f.status !== 404) break; // n8n 2.41 publishes through its outbox just after start
				await new Promise((s) => setTimeout(s, 500));
			}
			const items = Array.isArray(res.body) ? res.body : [res.body];
			t.check(`${phase}: the workflow ran: the Vault Store node answered with the sandbox's store`, res.status === 200 && items.some((it) => JSON.stringify(it).includes(sb.state.store.id)), `HTTP ${res.status} ${JSON.stringify(res.body).slice(0, 400)}`);
			const stopped = await inst.stop();
			t.check(`${phase}: n8n stopped cleanly`, stopped.clean, JSON.stringify(stopped));

			// The README's tarball command, placeholders filled in, in another fresh home.
			const home2 = fs.mkdtempSync(path.join(os.tmpdir(), `vs-manual-node${line.node}-tarball-`));
			homes.push(home2);
			const script = tarball.replace(/<path>/g, path.dirname(tgz)).replace(/<version>/g, lib.PACKAGE_VERSION);
			const r2 = await shell(script, home2, node, registry.npmEnv, path.join(logDir, `npm-node${line.node}-tarball.log`));
			durations.push(`node ${line.node}: install from the tarball ${r2.seconds.toFixed(1)} s`);
			t.must(`${phase}: the README's tarball command exits 0`, r2.code === 0, lib.tail(r2.stdout + r2.stderr, 15));
			t.equal(`${phase}: the tarball install holds the package and nothing else`, nodesFolder(home2), { modules: [PKG_NAME], version: lib.PACKAGE_VERSION });
		});
		durations.push(`node ${line.node}: whole line ${((Date.now() - lt) / 1000).toFixed(1)} s`);
	}

	await sb.close();
	await registry.stop();
	await lib.stopAll();
	clearTimeout(overall);
	console.log(t.summary());
	log(`durations: ${durations.join('; ')}`);
	log(`finished in ${((Date.now() - started) / 1000).toFixed(1)} s`);
	const ok = t.failed.length === 0;
	if (ok && process.env.VS_E2E_KEEP !== '1') for (const d of [runDir, ...homes]) fs.rmSync(d, { recursive: true, force: true });
	else log(`run folder kept: ${path.relative(ROOT, runDir)}; homes: ${homes.join(', ')}`);
	process.exit(ok ? 0 : 1);
}

main().catch(async (err) => {
	console.error(err);
	await lib.stopAll();
	process.exit(1);
});
