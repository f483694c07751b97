#!/usr/bin/env node
// @ts-check
/**
 * npm run dev — edit a node, see it in a running n8n without restarting it. What `n8n-node dev`
 * does (tsc --watch, the build loaded from n8n's custom-nodes folder, n8n started with
 * N8N_DEV_RELOAD=true so it reloads changed nodes), on the n8n the end-to-end tests cache
 * (2.8.4 on the system Node, see test/e2e/runner/lib.js) instead of `npx n8n@latest`:
 *
 *   - tsc --watch compiles nodes/ and credentials/ (and copies the codex *.node.json files) into
 *     <user folder>/.n8n/custom/n8n-nodes-vault-store/dist; icons/ is copied there and re-copied
 *     when it changes. dist/ of the repository is left alone.
 *   - n8n (data kept between runs in ~/.cache/n8n-nodes-vault-store/dev) watches that folder and
 *     reloads the nodes on every rebuild ("Hot reload triggered" below); the editor refreshes them.
 *   - the sandbox service and the two credentials pointing at it, and an owner login, as in the demo.
 *
 * The nodes appear as "Vault Store" in the nodes panel; their type is CUSTOM.vaultStore (n8n's
 * custom-folder loading), so workflows made here are not the ones of an installed package.
 * Options: --port N (n8n, default 5678 or a free port), --sandbox-port N, --fresh (new n8n data).
 */
'use strict';

const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');

const lib = require('../test/e2e/runner/lib');

const { ROOT, CACHE_ROOT, PKG_NAME } = lib;
const DEV_DIR = path.join(CACHE_ROOT, 'dev');

const say = (/** @type {string} */ msg) => process.stdout.write(`[dev] ${msg}\n`);
function arg(/** @type {string} */ name) {
	const i = process.argv.indexOf(name);
	return i > 0 ? process.argv[i + 1] : undefined;
}
async function portOr(/** @type {number} */ preferred) {
	const free = await new Promise((resolve) => {
		const srv = net.createServer();
		srv.once('error', () => resolve(false));
		srv.listen(preferred, '127.0.0.1', () => srv.close(() => resolve(true)));
	});
	return free ? preferred : await lib.freePort();
}

function copyIcons(/** @type {string} */ out) {
	fs.mkdirSync(path.join(out, 'icons'), { recursive: true });
	for (const f of fs.readdirSync(path.join(ROOT, 'icons'))) fs.copyFileSync(path.join(ROOT, 'icons', f), path.join(out, 'icons', f));
}

async function main() {
	if (process.argv.includes('--fresh')) fs.rmSync(DEV_DIR, { recursive: true, force: true });
	const userFolder = path.join(DEV_DIR, 'n8n');
	const custom = path.join(userFolder, '.n8n', 'custom');
	const out = path.join(custom, PKG_NAME, 'dist');
	// n8n's hot reload lists custom/node_modules (as n8n-node dev links packages there): it must exist.
	fs.mkdirSync(path.join(custom, 'node_modules'), { recursive: true });

	/** @type {any} */
	let sb;
	/** @type {ReturnType<typeof lib.makeInstance> | undefined} */
	let inst;
	/** @type {fs.FSWatcher | undefined} */
	let iconWatch;
	let stopping = false;
	lib.installCleanup(async () => {
		stopping = true;
		iconWatch?.close();
		await inst?.stop();
		await sb?.close();
		say('stopped: n8n, tsc --watch and the sandbox shut down.');
	});

	const [home, sandbox] = await Promise.all([lib.ensureN8n(), lib.loadSandbox({ build: true })]);

	fs.rmSync(out, { recursive: true, force: true });
	copyIcons(out);
	iconWatch = fs.watch(path.join(ROOT, 'icons'), () => copyIcons(out));
	const tsc = lib.startProcess(process.execPath, [require.resolve('typescript/bin/tsc'), '--watch', '--preserveWatchOutput', '-p', 'tsconfig.json', '--outDir', out], { logFile: path.join(DEV_DIR, 'tsc.log') });
	tsc.child.stdout?.on('data', (d) => {
		for (const line of String(d).split('\n')) if (line.trim()) say(`tsc: ${line.trim()}`);
	});
	await tsc.waitFor(/Watching for file changes/, 180_000);

	sb = await sandbox.startSandbox({ allowHttpWebhooks: true, port: Number(arg('--sandbox-port')) || (await portOr(5858)) });
	const keyFile = path.join(DEV_DIR, 'encryption-key');
	const encryptionKey = fs.existsSync(keyFile) ? fs.readFileSync(keyFile, 'utf8').trim() : undefined;
	inst = lib.makeInstance({ userFolder, logDir: path.join(DEV_DIR, 'logs'), home, encryptionKey });
	fs.writeFileSync(keyFile, inst.encryptionKey, { mode: 0o600 });
	await inst.importCredentials(lib.credentialsFor(sb));

	say('starting n8n with N8N_DEV_RELOAD=true ...');
	// Hot reload runs only in development mode: NODE_ENV unset.
	const server = await inst.start({ port: Number(arg('--port')) || (await portOr(5678)), env: { N8N_DEV_RELOAD: 'true', NODE_ENV: '' } });
	server.child.stdout?.on('data', (d) => {
		for (const line of String(d).split('\n')) if (/Hot reload|error/i.test(line)) say(`n8n: ${line.trim()}`);
	});
	await lib.restClient(inst.url).ownerLogin();

	say(
		[
			'ready',
			`  Editor:    ${inst.url}   login ${lib.OWNER.email} / ${lib.OWNER.password}`,
			`  Sandbox:   ${sb.baseUrl}   (credentials "${lib.CREDENTIALS.store.name}" and "${lib.CREDENTIALS.vault.name}" point at it)`,
			`  Edit nodes/ or credentials/: tsc rebuilds into ${out} and n8n reloads the nodes (refresh the node's panel).`,
			`  n8n log: ${path.join(DEV_DIR, 'logs', 'n8n-start.log')}    Ctrl-C stops everything.`,
		].join('\n'),
	);
	const ended = await Promise.race([tsc.exited.then(() => 'tsc --watch'), server.exited.then(() => 'n8n')]);
	if (stopping) return; // Ctrl-C: the cleanup above stops the rest and exits
	say(`${ended} exited unexpectedly (logs in ${DEV_DIR})`);
	lib.killAll();
	process.exit(1);
}

main().catch((err) => {
	say(err instanceof Error ? err.stack ?? err.message : String(err));
	lib.killAll();
	process.exit(1);
});
