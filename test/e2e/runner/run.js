#!/usr/bin/env node
// @ts-check
/**
 * npm run test:e2e — this package in a real n8n 2.8.4 (on the system Node);
 * npm run test:e2e:latest (= `npm run test:e2e -- --latest`) — the same in the newest n8n line that
 * installs from the registry (lib.N8N_LATEST, on the Node it needs from the registry package `node`);
 * `npm run test:e2e -- --n8n <version>` — any other n8n version:
 *   1. n8n installed once into a cache folder (VS_N8N_HOME, default ~/.cache/n8n-nodes-vault-store/n8n-<version>),
 *      with a Node from the registry beside it when that n8n needs a newer one (node-<version>)
 *   2. npm run build, npm pack; the tarball published to a local npm registry (verdaccio, pinned,
 *      offline: test/e2e/runner/registry.js) and installed into a fresh N8N_USER_FOLDER (under .e2e/)
 *      through n8n's Community Nodes panel route, POST /rest/community-packages (test/e2e/runner/panel.js;
 *      n8n started once for it, in E2E_TESTS mode for the custom-registry feature); the install time
 *      is printed. VS_E2E_INSTALL=unpack unpacks the tarball by hand instead (no registry)
 *   3. the sandbox started in this process (its request log is read directly), credentials and
 *      the example workflows imported with the n8n CLI
 *   4. action workflows run with `n8n execute --id --rawOutput`      (test/e2e/actions.js)
 *   5. `n8n start`: the trigger workflow published and driven by sandbox events (test/e2e/trigger.js)
 *   5b. money once per event: late re-delivery, a timeout a day later (both clocks), outage, migrated endpoint (test/e2e/money.js)
 *   5c. the credential tests through n8n's REST API: each wrong field named (test/e2e/credential-test.js)
 *   5d. n8n's AI Agent with Vault Store tools and a scripted OpenAI-compatible model on 127.0.0.1: cap,
 *       budget, the same refund twice, Reveal, a read holding card data (test/e2e/agent.js)
 *   6. the trigger under load: 500 valid and 500 forged/stale deliveries (test/e2e/trigger-load.js)
 *   7. the dispute-evidence example published and driven by a sandbox dispute (test/e2e/dispute.js)
 *   8. the editor in Debian's chromium with playwright-core           (test/e2e/editor.js)
 *   9. n8n stopped; it must exit cleanly
 *  10. the nodes folder deleted (a recreated container: the database still lists the package) and
 *      n8n started with N8N_REINSTALL_MISSING_PACKAGES=true on its default registry setting, which
 *      reaches the local registry through a local proxy (test/e2e/runner/registry-proxy.js, no E2E_TESTS
 *      mode): the package is installed at start, the trigger example published and run by one
 *      sandbox event, unpublished; the same build published as the next patch version, the panel
 *      offers it and updates to it (PATCH /rest/community-packages); the trigger example published
 *      and unpublished (no endpoint left at the sandbox); the package uninstalled (DELETE): types
 *      gone, folder gone. Install, update and uninstall times printed
 * Everything listens on 127.0.0.1; every child runs in its own process group and is killed on
 * exit, failure, Ctrl-C or the overall timeout (VS_E2E_TIMEOUT_MS, default 20 minutes).
 *
 * Options: --n8n <version> | --latest (or VS_N8N_VERSION); environment: VS_N8N_HOME, VS_E2E_SKIP_BUILD=1 (reuse dist/ and out/),
 * VS_E2E_SKIP_BROWSER=1, VS_E2E_KEEP=1 (keep the run folder under .e2e/),
 * VS_E2E_ONLY=actions,trigger,money,output,credential,agent,load,dispute,editor (any subset), VS_E2E_INSTALL=unpack
 */
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const lib = require('./lib');
const panel = require('./panel');
const { startRegistry, repack } = require('./registry');
const { startRegistryProxy } = require('./registry-proxy');
const { Results } = require('./results');
const { log, ROOT } = lib;

lib.selectN8n(lib.n8nFromArgs());

const TIMEOUT_MS = Number(process.env.VS_E2E_TIMEOUT_MS || 20 * 60_000);
const only = process.env.VS_E2E_ONLY ? new Set(process.env.VS_E2E_ONLY.split(',')) : undefined;
const wants = (phase) => !only || only.has(phase);

const fmt = (/** @type {number | undefined} */ s) => (s === undefined ? 'not run' : `${s.toFixed(1)} s`);

/** Polls until cond() holds or timeoutMs passes; returns whether it held. */
async function waitUntil(/** @type {() => boolean} */ cond, timeoutMs) {
	const end = Date.now() + timeoutMs;
	while (!cond()) {
		if (Date.now() > end) return false;
		await new Promise((r) => setTimeout(r, 250));
	}
	return true;
}

async function main() {
	const started = Date.now();
	const t = new Results();
	t.title = `n8n ${lib.N8N_VERSION}`;
	const { overall, runDir, logDir } = lib.beginRun(t, `run-n8n-${lib.N8N_VERSION}`, TIMEOUT_MS);
	const userFolder = path.join(runDir, 'n8n');
	fs.mkdirSync(userFolder, { recursive: true });
	log(`n8n ${lib.N8N_VERSION}; run folder ${path.relative(ROOT, runDir)} (logs in logs/)`);

	/** @type {any} */
	let sb;
	/** @type {ReturnType<typeof lib.makeInstance> | undefined} */
	let inst;
	/** @type {{example: ReturnType<typeof lib.exampleWorkflows>[number], missing: string[]}[]} */
	let examples = [];
	const build = process.env.VS_E2E_SKIP_BUILD !== '1';
	/** @type {Awaited<ReturnType<typeof startRegistry>> | undefined} */
	let registry;
	/** The packed build (published to the registry). */
	let tgzFile = '';
	/** Seconds of the panel's install, update and uninstall. */
	/** @type {{install?: number, update?: number, uninstall?: number, reinstallStart?: number}} */
	const timings = {};
	/** @type {Awaited<ReturnType<typeof startRegistryProxy>> | undefined} */
	let proxy;

	await t.runPhase('setup', async () => {
		const [home, tgz] = await Promise.all([lib.ensureN8n(), lib.buildAndPack(path.join(runDir, 'pack'), { build })]);
		t.title = `n8n ${lib.N8N_VERSION} on node ${(await lib.ensureNode()).version}`;
		const { startSandbox } = await lib.loadSandbox({ build });
		sb = await startSandbox({ allowHttpWebhooks: true, seed: 1 });
		log(`sandbox on ${sb.baseUrl}`);
		inst = lib.makeInstance({ userFolder, logDir, home });
		if (process.env.VS_E2E_INSTALL === 'unpack') {
			await lib.installPackage(userFolder, tgz);
		} else {
			// The package from a registry through n8n's Community Nodes panel, as users install it.
			registry = await startRegistry({ dir: path.join(runDir, 'registry'), logDir });
			await registry.publish(tgz);
			tgzFile = tgz;
			const version = lib.PACKAGE_VERSION;
			const rest0 = await panel.startPanel(inst, registry);
			const installed = await panel.install(rest0, version);
			timings.install = installed.seconds;
			t.equal(
				'setup: the panel installed the package from the registry with both nodes',
				[installed.pkg?.installedVersion, (installed.pkg?.installedNodes ?? []).map((/** @type {any} */ n) => n.type).sort()],
				[version, [`${lib.PKG_NAME}.vaultStore`, `${lib.PKG_NAME}.vaultStoreTrigger`]],
			);
			const listed = await panel.list(rest0);
			t.equal('setup: the panel lists the package once, no update available', listed.map((/** @type {any} */ p) => [p.packageName, p.installedVersion, p.updateAvailable ?? null]), [[lib.PKG_NAME, version, null]]);
			t.equal('setup: the nodes folder holds the package and nothing else (no n8n-workflow of its own)', panel.installedOnDisk(userFolder), { version, listed: version, modules: [lib.PKG_NAME] });
			const stopped = await inst.stop();
			t.check('setup: n8n (panel mode) stopped cleanly after the install', stopped.clean, JSON.stringify(stopped));
		}
		await inst.importCredentials(lib.credentialsFor(sb));
		examples = lib.exampleWorkflows().map((example) => ({ example, missing: lib.missingInBuild(ROOT, example.workflow) }));
		const importDir = path.join(runDir, 'import');
		fs.mkdirSync(importDir);
		for (const { example, missing } of examples) {
			if (missing.length) log(`example ${example.name}: not imported, the build lacks ${missing.join('; ')}`);
			else fs.copyFileSync(example.file, path.join(importDir, example.name));
		}
		await inst.importWorkflows(importDir);
		const listed = await inst.cli(['list:workflow']);
		const ready = examples.filter((e) => !e.missing.length);
		t.check(
			'setup: every runnable example is imported with its own id',
			ready.every(({ example }) => listed.stdout.includes(`${example.id}|${example.title}`)),
			listed.stdout,
		);
		const exported = await inst.cli(['export:credentials', '--all', '--decrypted', `--output=${path.join(runDir, 'creds.export.json')}`]);
		const creds = JSON.parse(fs.readFileSync(path.join(runDir, 'creds.export.json'), 'utf8'));
		fs.rmSync(path.join(runDir, 'creds.export.json'));
		t.equal(
			'setup: credentials imported with the ids and names the examples use',
			creds.map((/** @type {any} */ c) => [c.id, c.name, c.type, c.data?.baseUrl]).sort(),
			[
				['1', 'Vault Store account', 'vaultStoreStoreApi', sb.baseUrl],
				['2', 'Vault Store vault', 'vaultStoreVaultApi', sb.baseUrl],
			],
		);
		void exported;
	});
	const setupOk = t.phases[0].ok && inst && sb;

	// ------------------------------------------------------------------ actions (n8n execute)
	const { checks: actionChecks } = require('../actions');
	if (!setupOk) t.skipPhase('actions (n8n execute)', 'setup failed');
	else if (wants('actions')) {
		for (const { example, missing } of examples) {
			const fn = actionChecks[example.name];
			if (!fn) continue;
			const phase = `actions: ${example.name}`;
			if (missing.length) {
				t.skipPhase(phase, `not in this build yet: ${missing.join('; ')}`);
				continue;
			}
			await t.runPhase(phase, () => fn({ inst, sb, t, example }));
		}
	}

	// ------------------------------------------------------------------ n8n start: trigger, editor
	const trigger = examples.find((e) => e.example.name === 'trigger-events.json');
	const needServer = setupOk && ['trigger', 'money', 'output', 'credential', 'agent', 'load', 'dispute', 'editor'].some(wants);
	/** @type {ReturnType<typeof lib.restClient> | undefined} */
	let rest;
	if (needServer) {
		await t.runPhase('n8n start', async () => {
			const i = /** @type {NonNullable<typeof inst>} */ (inst);
			if (trigger && !trigger.missing.length && wants('trigger')) {
				const r = await i.cli(['publish:workflow', `--id=${trigger.example.id}`]);
				t.check('n8n start: publish:workflow of the trigger example succeeded', r.code === 0, r.stdout);
			}
			const t1 = Date.now();
			await i.start();
			log(`n8n started on ${i.url} in ${((Date.now() - t1) / 1000).toFixed(1)} s`);
			const server = /** @type {NonNullable<typeof i.server>} */ (i.server);
			const out = () => server.stdout + server.stderr;
			t.check('n8n start: the community package loaded (no load error in the log)', !/Failed to load|Error loading package|n8n-nodes-vault-store.*error/i.test(out()), lib.tail(out(), 20));
			rest = lib.restClient(i.url);
			await rest.ownerLogin();
			await rest.createApiKey();
			const types = await rest.ok('GET', '/types/nodes.json');
			const names = (Array.isArray(types) ? types : []).map((/** @type {any} */ n) => n.name);
			t.check('n8n start: the editor serves both node types', names.includes(`${lib.PKG_NAME}.vaultStore`) && names.includes(`${lib.PKG_NAME}.vaultStoreTrigger`), names.filter((n) => /vault/i.test(n)).join(', ') || `${names.length} types, none of ours`);
		});
	}
	const serverOk = needServer && inst?.server && t.phases[t.phases.length - 1].ok;

	if (wants('trigger')) {
		if (!trigger) t.skipPhase('trigger (n8n start)', 'examples/trigger-events.json is missing');
		else if (trigger.missing.length) t.skipPhase('trigger (n8n start)', `not in this build yet: ${trigger.missing.join('; ')}`);
		else if (!serverOk) t.skipPhase('trigger (n8n start)', 'n8n did not start');
		else {
			const { triggerChecks } = require('../trigger');
			await t.runPhase('trigger (n8n start)', () => triggerChecks({ inst, sb, t, rest, example: trigger.example }));
		}
	}

	if (wants('money')) {
		if (!trigger) t.skipPhase('money once per event (n8n start)', 'examples/trigger-events.json is missing');
		else if (!serverOk) t.skipPhase('money once per event (n8n start)', 'n8n did not start');
		else {
			const { moneyChecks } = require('../money');
			await t.runPhase('money once per event (n8n start)', () => moneyChecks({ inst, sb, t, rest, example: trigger.example }));
		}
	}

	if (wants('output')) {
		if (!trigger) t.skipPhase('output gate (n8n start)', 'examples/trigger-events.json is missing');
		else if (!serverOk) t.skipPhase('output gate (n8n start)', 'n8n did not start');
		else {
			const { outputGateChecks } = require('../output-gate');
			await t.runPhase('output gate (n8n start)', () => outputGateChecks({ inst, sb, t, rest, example: trigger.example }));
		}
	}

	if (wants('credential')) {
		if (!serverOk) t.skipPhase('credential tests (n8n start)', 'n8n did not start');
		else {
			const { credentialTestChecks } = require('../credential-test');
			await t.runPhase('credential tests (n8n start)', () => credentialTestChecks({ inst, sb, t, rest }));
		}
	}

	if (wants('agent')) {
		if (!serverOk) t.skipPhase('AI agent (n8n start)', 'n8n did not start');
		else {
			const { agentChecks } = require('../agent');
			await t.runPhase('AI agent (n8n start)', () => agentChecks({ inst, sb, t, rest }));
		}
	}

	if (wants('load')) {
		if (!trigger) t.skipPhase('trigger load (n8n start)', 'examples/trigger-events.json is missing');
		else if (trigger.missing.length) t.skipPhase('trigger load (n8n start)', `not in this build yet: ${trigger.missing.join('; ')}`);
		else if (!serverOk) t.skipPhase('trigger load (n8n start)', 'n8n did not start');
		else {
			const { loadChecks } = require('../trigger-load');
			await t.runPhase('trigger load (n8n start)', () => loadChecks({ inst, sb, t, rest, example: trigger.example }));
		}
	}

	if (wants('dispute')) {
		const dispute = examples.find((e) => e.example.name === 'dispute-evidence.json');
		if (!dispute) t.skipPhase('dispute-evidence (n8n start)', 'examples/dispute-evidence.json is missing');
		else if (dispute.missing.length) t.skipPhase('dispute-evidence (n8n start)', `not in this build yet: ${dispute.missing.join('; ')}`);
		else if (!serverOk) t.skipPhase('dispute-evidence (n8n start)', 'n8n did not start');
		else {
			const { disputeChecks } = require('../dispute');
			await t.runPhase('dispute-evidence (n8n start)', () => disputeChecks({ inst, sb, t, rest, example: dispute.example }));
		}
	}

	if (wants('editor')) {
		if (process.env.VS_E2E_SKIP_BROWSER === '1') t.skipPhase('editor (chromium)', 'VS_E2E_SKIP_BROWSER=1');
		else if (!serverOk) t.skipPhase('editor (chromium)', 'n8n did not start');
		else {
			const { editorChecks } = require('../editor');
			await t.runPhase('editor (chromium)', () => editorChecks({ inst, sb, t, rest }));
		}
	}

	if (inst?.server) {
		await t.runPhase('n8n stop', async () => {
			const i = /** @type {NonNullable<typeof inst>} */ (inst);
			const r = await i.stop();
			t.check('n8n stop: SIGTERM ends n8n within 30 s with exit code 0', r.clean, JSON.stringify(r));
			const leftovers = await lib.run('pgrep', ['-f', i.userFolder], { allowFail: true });
			t.check('n8n stop: no process of this run is left', leftovers.stdout.trim() === '', leftovers.stdout);
		});
	}

	if (registry && serverOk && inst && tgzFile) {
		await t.runPhase('panel: reinstall at start, update and uninstall', async () => {
			const i = /** @type {NonNullable<typeof inst>} */ (inst);
			const reg = /** @type {NonNullable<typeof registry>} */ (registry);
			// The same build as the next patch release, so the panel has an update to offer.
			const [maj, min, pat] = lib.PACKAGE_VERSION.split(/[-+]/)[0].split('.').map(Number);
			const next = `${maj}.${min}.${pat + 1}-e2e-update`;
			await reg.publish(await repack(tgzFile, next, path.join(runDir, 'pack')));

			// A recreated container: the database lists the package, the nodes folder is gone. n8n is
			// started as the README says (N8N_REINSTALL_MISSING_PACKAGES=true), on its default registry
			// setting, which reaches the local registry through the proxy (no E2E_TESTS mode this time).
			fs.rmSync(path.join(i.userFolder, '.n8n', 'nodes'), { recursive: true, force: true });
			proxy = await startRegistryProxy({ registry: reg, dir: path.join(runDir, 'proxy') });
			const tr = Date.now();
			await i.start({ env: { N8N_REINSTALL_MISSING_PACKAGES: 'true', ...proxy.env } });
			timings.reinstallStart = (Date.now() - tr) / 1000;
			const server = /** @type {NonNullable<typeof i.server>} */ (i.server);
			const out = () => server.stdout + server.stderr;
			t.check('reinstall: n8n started on an empty nodes folder installed the package its database lists ("Attempting to reinstall missing packages", "Packages reinstalled successfully")', /Attempting to reinstall missing packages/.test(out()) && /Packages reinstalled successfully/.test(out()), lib.tail(out(), 20));
			t.equal('reinstall: the nodes folder holds the listed version and nothing else', panel.installedOnDisk(i.userFolder), { version: lib.PACKAGE_VERSION, listed: lib.PACKAGE_VERSION, modules: [lib.PKG_NAME] });
			t.check('reinstall: the tarball came from the local registry through the proxy', proxy.tarballs(lib.PKG_NAME).some((q) => q.status === 200), JSON.stringify(proxy.requests));
			const r = lib.restClient(i.url);
			await r.ownerLogin();
			r.apiKey = rest?.apiKey ?? (await r.createApiKey());
			const H = { 'X-N8N-API-KEY': r.apiKey };
			// A workflow using the reinstalled nodes runs: the trigger example published, an event from the service, one successful execution.
			if (trigger && !trigger.missing.length) {
				const id = trigger.example.id;
				const newer = async (/** @type {number} */ than) => /** @type {any[]} */ ((await r.api(`/executions?workflowId=${id}&limit=20`)).data ?? []).filter((e) => Number(e.id) > than);
				const lastBefore = Math.max(0, ...(await newer(0)).map((e) => Number(e.id)));
				const act = await r.request('POST', `/api/v1/workflows/${id}/activate`, undefined, H);
				t.must('reinstall: the trigger example published after the reinstall', act.status === 200, JSON.stringify(act.body).slice(0, 300));
				const ep = await waitUntil(() => sb.state.webhooks.length === 1, 30_000);
				t.must('reinstall: publishing registered its endpoint at the service', ep, JSON.stringify(sb.state.webhooks.map((/** @type {any} */ w) => w.url)));
				sb.app.deliver(sb.state.webhooks[0].id, 'PAYMENT_COMPLETED', { orderId: 'ord_reinstall0001', amount: 1, currency: 'USD' });
				/** @type {any[]} */
				let runs = [];
				const end = Date.now() + 30_000;
				while (Date.now() < end) {
					runs = await newer(lastBefore);
					if (runs.length && runs.every((e) => e.finished || ['success', 'error', 'crashed'].includes(e.status))) break;
					await new Promise((s) => setTimeout(s, 500));
				}
				t.equal('reinstall: the event ran the workflow once, successfully', runs.map((e) => e.status), ['success']);
				const deact = await r.request('POST', `/api/v1/workflows/${id}/deactivate`, undefined, H);
				t.check('reinstall: the trigger example unpublished again; no endpoint left', deact.status === 200 && (await waitUntil(() => sb.state.webhooks.length === 0, 30_000)), JSON.stringify(sb.state.webhooks.map((/** @type {any} */ w) => w.url)));
			}
			const listed = await panel.list(r);
			t.equal('update: the panel offers the new version', listed.map((/** @type {any} */ p) => [p.packageName, p.installedVersion, p.updateAvailable]), [[lib.PKG_NAME, lib.PACKAGE_VERSION, next]]);
			const u = await panel.update(r, next);
			timings.update = u.seconds;
			t.equal('update: the panel updated the package, both nodes loaded', [u.pkg?.installedVersion, (u.pkg?.installedNodes ?? []).map((/** @type {any} */ n) => n.type).sort()], [next, [`${lib.PKG_NAME}.vaultStore`, `${lib.PKG_NAME}.vaultStoreTrigger`]]);
			t.equal('update: the nodes folder holds the new version and nothing else', panel.installedOnDisk(i.userFolder), { version: next, listed: next, modules: [lib.PKG_NAME] });

			// What the README asks before uninstalling: unpublish the workflows that use the trigger.
			// n8n's uninstall does not deactivate them; deactivating deletes the trigger's endpoint at the service.
			if (trigger && !trigger.missing.length) {
				const id = trigger.example.id;
				const act = await r.request('POST', `/api/v1/workflows/${id}/activate`, undefined, H);
				t.must('uninstall: the trigger example published again before the uninstall', act.status === 200, JSON.stringify(act.body).slice(0, 300));
				t.check('uninstall: publishing registered its endpoint at the service', await waitUntil(() => sb.state.webhooks.length === 1, 30_000), JSON.stringify(sb.state.webhooks.map((/** @type {any} */ w) => w.url)));
				const deact = await r.request('POST', `/api/v1/workflows/${id}/deactivate`, undefined, H);
				t.check('uninstall: the trigger example unpublished (the README\'s step before uninstalling)', deact.status === 200, JSON.stringify(deact.body).slice(0, 300));
				t.check('uninstall: no endpoint is left at the service', await waitUntil(() => sb.state.webhooks.length === 0, 30_000), JSON.stringify(sb.state.webhooks.map((/** @type {any} */ w) => w.url)));
			}
			const un = await panel.uninstall(r);
			timings.uninstall = un.seconds;
			t.equal('uninstall: the panel lists no package', await panel.list(r), []);
			const types = await r.ok('GET', '/types/nodes.json');
			const ours = (Array.isArray(types) ? types : []).map((/** @type {any} */ n) => n.name).filter((/** @type {string} */ n) => n.startsWith(`${lib.PKG_NAME}.`));
			t.equal('uninstall: the editor serves none of the package\'s node types', ours, []);
			const disk = panel.installedOnDisk(i.userFolder);
			t.equal('uninstall: the package folder is gone from ~/.n8n/nodes/node_modules', [disk.version, disk.modules], [undefined, []]);
			// n8n 2.8 leaves the dependency line in ~/.n8n/nodes/package.json (2.41 removes it; a later `npm install`
			// there would bring the package back): the README says to run `npm uninstall` there for a clean folder.
			log(`uninstall: ~/.n8n/nodes/package.json ${disk.listed ? `still lists ${lib.PKG_NAME}@${disk.listed}` : `no longer lists ${lib.PKG_NAME}`}`);
			const stopped = await i.stop();
			t.check('uninstall: n8n (panel mode) stops cleanly', stopped.clean, JSON.stringify(stopped));
		});
	}

	await sb?.close();
	await proxy?.stop();
	await registry?.stop();
	await lib.stopAll();
	clearTimeout(overall);
	console.log(t.summary());
	if (registry) log(`panel timings (n8n ${lib.N8N_VERSION}): install ${fmt(timings.install)}, update ${fmt(timings.update)}, uninstall ${fmt(timings.uninstall)}; n8n start with the reinstall ${fmt(timings.reinstallStart)}`);
	log(`finished in ${((Date.now() - started) / 1000).toFixed(1)} s`);
	const ok = t.failed.length === 0;
	if (ok && process.env.VS_E2E_KEEP !== '1') fs.rmSync(runDir, { recursive: true, force: true });
	else log(`run folder kept: ${path.relative(ROOT, runDir)}`);
	process.exit(ok ? 0 : 1);
}

main().catch(async (err) => {
	console.error(err);
	await lib.stopAll();
	process.exit(1);
});
