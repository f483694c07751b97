#!/usr/bin/env node
// @ts-check
/**
 * npm run test:e2e:upgrade — a user's upgrade from the previous release to this build, through
 * n8n's Community Nodes panel (n8n 2.8.4; `--latest` or `--n8n <version>` as for test:e2e):
 *   1. the previous release (PREVIOUS: 0.1.0 as built from its commit, see there) and this build
 *      (published as a higher version when package.json still names the previous one) packed; a
 *      local registry (test/e2e/runner/registry.js) with the previous release only
 *   2. n8n started, the previous release installed through the panel (POST)
 *   3. from the node descriptions that n8n serves the editor for that release (/types/nodes.json),
 *      one workflow per resource of Vault Store with the resource's default operation (n8n Webhook →
 *      Vault Store; parameters saved as the editor saves them: only those that differ from their
 *      defaults; required ones filled with sandbox records), and one with the Vault Store Trigger;
 *      all saved and published over the public API, each run once (its HTTP answer recorded)
 *   4. this build published; the panel lists the update; the panel's Update (PATCH); n8n restarted
 *      on the same address
 *   5. every workflow: still published, its stored parameters unchanged, and opened with the new
 *      descriptions (for the node's saved typeVersion) every parameter resolves to the value it had
 *      under the previous release, with no new parameter issue (as the editor shows issues: on the
 *      parameters with their defaults), and every option of a collection it leaves unset (Options →
 *      Concurrency…) has the default it had; run again: the same HTTP status and the same answer
 *      shape as before the update; the trigger's endpoint at the service is the same one (same id
 *      and URL, no second) and a service event starts an execution.
 *      Exceptions only as the CHANGELOG states them (CHANGED_SINCE below; a change not listed fails,
 *      and so does a listed one that does not happen where it applies): a resource whose default
 *      operation changed opens on the new one (a read: the run sends only GETs), and with its
 *      operation chosen again (saved over the public API, published again) opens, runs and answers
 *      as before; an unset option's default; keys an answer gained (allowed, not required).
 * VS_UPGRADE_FROM=<commit> upgrades from another commit that packs as PREVIOUS.version (for instance
 * d420441, an unreleased build of 2026-11-23 this test used to install as "0.1.0").
 * Prints the install, update and restart times. Generic but for CHANGED_SINCE: nothing else here
 * names today's parameters; the previous release's descriptions are the fixture.
 */
'use strict';

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const lib = require('./lib');
const panel = require('./panel');
const { startRegistry, repack, buildRelease } = require('./registry');
const { Results } = require('./results');
const { log, ROOT, PKG_NAME } = lib;

/**
 * The release users upgrade from. 0.1.0 is dc492f4 (2026-11-22 08:07), the last commit before the
 * first change the CHANGELOG lists as unreleased: the CHANGELOG's 0.1.0 section (2595fa0, the same
 * day) describes it (Concurrency default 5); the next commits are of 2026-11-23, and the first of
 * them that change the nodes (ebfa632, 894940f) are the first items of the [Unreleased] section
 * (ab1a224). package.json says 0.1.0 from the first commit on, and there is no tag.
 */
const PREVIOUS = { version: '0.1.0', commit: process.env.VS_UPGRADE_FROM || 'dc492f4' };

/**
 * What a workflow saved with an earlier build finds changed within node version 1, as the
 * CHANGELOG ([Unreleased] → Changed) states it. Each entry applies where the earlier build had its
 * `from`; the checks compare what they find with the entries that apply, both ways.
 */
const CHANGED_SINCE = {
	/**
	 * "Every resource opens on a read operation" (version 2): resource → [default operation in
	 * the earlier build, now]. Empty from 0.1.0: a node saved with it is version 1, which keeps
	 * 0.1.0's default operations (nodes/VaultStore/versions.ts); a change here would fail the run.
	 */
	operation: /** @type {Record<string, [string, string]>} */ ({}),
	/**
	 * Options inside a collection, unset in the workflow: collection.option → [[default before, now]].
	 * 0.1.0's Concurrency default (5) is version 1's still; an unreleased build of 2026-11-23 had 64.
	 */
	unsetOption: /** @type {Record<string, [unknown, unknown][]>} */ ({
		'options.concurrency': [[64, 5]],
	}),
	/** Keys an answer may have gained: "outputs carry `idempotencyKeySource`" (a write sent with an Idempotency-Key). */
	outputKeys: ['idempotencyKeySource'],
	/**
	 * "Each operation's Options show only the options that act on it": options an operation no
	 * longer offers, where they did nothing (Idempotency Key without a key sent, Return All Maximum
	 * without Return All). Unset in the workflow, they are simply gone.
	 */
	notOffered: ['options.idempotencyKey', 'options.maxItems'],
};
/** The version this build is published as when package.json still names PREVIOUS.version. */
const UPGRADE_VERSION = '0.1.1-upgrade.0';

lib.selectN8n(lib.n8nFromArgs());

const TIMEOUT_MS = Number(process.env.VS_E2E_TIMEOUT_MS || 15 * 60_000);

const semverGt = (/** @type {string} */ a, /** @type {string} */ b) => {
	const p = (/** @type {string} */ v) => v.split(/[-+]/)[0].split('.').map(Number);
	const [x, y] = [p(a), p(b)];
	for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] > y[i];
	return false;
};

/**
 * Values for required parameters of the previous release's default operations, from the sandbox's
 * seeded records (a parameter named <thing>Id gets the id of the first <thing>). A workflow with a
 * required parameter not listed here is saved with it empty (n8n refuses to publish it): it is
 * checked for its parameters after the update, not run; the run lists these.
 */
function sandboxValues(/** @type {any} */ sb) {
	const res = (/** @type {string} */ m) => {
		try {
			return require(path.join(ROOT, 'out', 'sandbox', 'resources', `${m}.js`));
		} catch {
			return {};
		}
	};
	const first = (/** @type {any[] | undefined} */ list) => list?.[0]?.id;
	const meters = res('meters').metersOf?.(sb.app) ?? [];
	/** @type {Record<string, unknown>} */
	const v = {
		orderId: first(sb.state.orders),
		customerId: first(sb.state.customers),
		productId: meters[0]?.productId ?? first(sb.state.products),
		meterId: first(meters),
		licenseId: first(sb.state.licenses),
		refundId: first(sb.state.refunds),
		caseId: first(res('cases').casesOf?.(sb.app)),
		categoryId: first(res('categories').categoriesOf?.(sb.app)),
		disputeId: first(res('disputes').disputesOf?.(sb.app)),
		tokenId: sb.state.tokens instanceof Map ? [...sb.state.tokens.keys()][0] : undefined,
		country: 'US',
		// A payout's Amount (0.1.0 saved its default 0, which the service refuses).
		amount: 1,
		itemsInput: 'json',
		itemsJson: JSON.stringify([{ product_id: first(sb.state.products), quantity: 1 }]),
	};
	return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== undefined));
}

/** The description of a node type for a typeVersion in /types/nodes.json. */
function descriptionFor(/** @type {any[]} */ types, /** @type {string} */ name, /** @type {number | undefined} */ version) {
	const all = types.filter((d) => d.name === name);
	if (version === undefined) return all.find((d) => d.defaultVersion !== undefined) ?? all[all.length - 1];
	return all.find((d) => (Array.isArray(d.version) ? d.version.includes(version) : d.version === version));
}
const latestVersion = (/** @type {any} */ d) => (d.defaultVersion ?? (Array.isArray(d.version) ? Math.max(...d.version) : d.version));

/** Whether a property is shown for the given resource/operation values (displayOptions.show only). */
function shownFor(/** @type {any} */ p, /** @type {Record<string, unknown>} */ values) {
	const show = p.displayOptions?.show ?? {};
	return Object.entries(show).every(([k, allowed]) => k.startsWith('@') || !(k in values) || /** @type {unknown[]} */ (allowed).includes(values[k]));
}

/** Parameters as the editor stores them: the values that differ from their defaults. */
function stored(/** @type {any} */ nodeHelpers, /** @type {any} */ desc, /** @type {any} */ node) {
	return nodeHelpers.getNodeParameters(desc.properties, node.parameters, false, false, node, desc) ?? {};
}
/** Every parameter's value (defaults included), as the editor shows the node. */
function resolved(/** @type {any} */ nodeHelpers, /** @type {any} */ desc, /** @type {any} */ node) {
	return nodeHelpers.getNodeParameters(desc.properties, node.parameters, true, false, node, desc) ?? {};
}

/**
 * Every option of a collection parameter shown for the node that the node leaves unset:
 * [collection.option, its default then, its default now] (undefined now: gone). The default is
 * what the editor fills in when the option is added, and for Options what a run uses without it.
 */
function unsetOptions(/** @type {any} */ nodeHelpers, /** @type {any} */ oldDesc, /** @type {any} */ was, /** @type {any} */ newDesc, /** @type {any} */ now, /** @type {any} */ node) {
	/** @type {[string, unknown, unknown][]} */
	const out = [];
	for (const p of oldDesc.properties) {
		if (p.type !== 'collection' || !nodeHelpers.displayParameter(was, p, node, oldDesc)) continue;
		const q = newDesc.properties.find((/** @type {any} */ x) => x.name === p.name && x.type === 'collection' && nodeHelpers.displayParameter(now, x, node, newDesc));
		const set = node.parameters?.[p.name] ?? {};
		for (const c of p.options ?? []) {
			if (c.name in set) continue;
			out.push([`${p.name}.${c.name}`, c.default, q?.options?.find((/** @type {any} */ x) => x.name === c.name)?.default]);
		}
	}
	return out;
}
const same = (/** @type {unknown} */ a, /** @type {unknown} */ b) => JSON.stringify(a) === JSON.stringify(b);

/** n8n's parameter issues as "parameter: message" lines. */
function issueList(/** @type {any} */ issues) {
	return Object.entries(issues?.parameters ?? {}).flatMap(([k, msgs]) => (Array.isArray(msgs) ? msgs : [msgs]).map((m) => `${k}: ${String(m)}`));
}

/** The shape of an answer: status and the sorted keys of its first item (values vary per run). */
function shape(/** @type {{status: number, body: any}} */ r) {
	const first = Array.isArray(r.body) ? r.body[0] : r.body;
	return { status: r.status, keys: first && typeof first === 'object' ? Object.keys(first).sort() : typeof first };
}

async function post(/** @type {string} */ url) {
	const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}', signal: AbortSignal.timeout(60_000) });
	const text = await res.text();
	let body;
	try {
		body = JSON.parse(text);
	} catch {
		body = text;
	}
	return { status: res.status, body };
}

/** POSTs until n8n routes the URL (n8n 2.41 publishes through an outbox just after start). */
async function runHook(/** @type {string} */ url) {
	const end = Date.now() + 60_000;
	let r = await post(url);
	while (r.status === 404 && Date.now() < end) {
		await new Promise((s) => setTimeout(s, 500));
		r = await post(url);
	}
	return r;
}

/**
 * This package's node descriptions as n8n serves them to the editor (/types/nodes.json; n8n
 * rewrites that file after an install, so a read right after one may find it partly written).
 */
async function packageTypes(/** @type {ReturnType<typeof lib.restClient>} */ rest) {
	const end = Date.now() + 30_000;
	for (;;) {
		const r = await rest.request('GET', '/types/nodes.json');
		const list = Array.isArray(r.body) ? r.body.filter((/** @type {any} */ d) => String(d.name).startsWith(`${PKG_NAME}.`)) : [];
		if (list.length || Date.now() > end) return list;
		await new Promise((s) => setTimeout(s, 500));
	}
}

async function waitUntil(/** @type {() => boolean | Promise<boolean>} */ cond, timeoutMs) {
	const end = Date.now() + timeoutMs;
	while (!(await cond())) {
		if (Date.now() > end) return false;
		await new Promise((r) => setTimeout(r, 250));
	}
	return true;
}

async function main() {
	const started = Date.now();
	const t = new Results();
	t.title = `upgrade ${PREVIOUS.version} → this build, n8n ${lib.N8N_VERSION}`;
	const { overall, runDir, logDir } = lib.beginRun(t, `upgrade-n8n-${lib.N8N_VERSION}`, TIMEOUT_MS);
	const userFolder = path.join(runDir, 'n8n');
	fs.mkdirSync(userFolder, { recursive: true });
	const { NodeHelpers } = require('n8n-workflow');
	const build = process.env.VS_E2E_SKIP_BUILD !== '1';
	/** @type {Record<string, number>} */
	const timings = {};
	/** @type {any} */
	let sb;
	/** @type {Awaited<ReturnType<typeof startRegistry>> | undefined} */
	let registry;
	/** @type {ReturnType<typeof lib.makeInstance> | undefined} */
	let inst;
	/** @type {{name: string, id: string, url: string, node: any, before: any, saved: any, trigger?: boolean, missing?: string[], chosen?: any}[]} */
	const flows = [];
	const newVersion = semverGt(lib.PACKAGE_VERSION, PREVIOUS.version) ? lib.PACKAGE_VERSION : UPGRADE_VERSION;
	/** @type {string} */
	let newTgz = '';
	/** @type {ReturnType<typeof lib.restClient>} */
	let rest = lib.restClient('http://127.0.0.1:1');
	/** @type {any[]} */
	let oldTypes = [];
	/** @type {{id: string, url: string} | undefined} */
	let endpointBefore;

	await t.runPhase(`install ${PREVIOUS.version} through the panel`, async () => {
		const [home, tgz, oldTgz] = await Promise.all([lib.ensureN8n(), lib.buildAndPack(path.join(runDir, 'pack'), { build }), buildRelease(PREVIOUS.commit)]);
		t.title = `upgrade ${PREVIOUS.version} → ${newVersion}, n8n ${lib.N8N_VERSION} on node ${(await lib.ensureNode()).version}`;
		newTgz = newVersion === lib.PACKAGE_VERSION ? tgz : await repack(tgz, newVersion, path.join(runDir, 'pack'));
		t.must(`the previous release packs as ${PREVIOUS.version}`, path.basename(oldTgz) === `${PKG_NAME}-${PREVIOUS.version}.tgz`, oldTgz);
		const { startSandbox } = await lib.loadSandbox({ build });
		sb = await startSandbox({ allowHttpWebhooks: true, seed: 1 });
		registry = await startRegistry({ dir: path.join(runDir, 'registry'), logDir });
		await registry.publish(oldTgz);
		inst = lib.makeInstance({ userFolder, logDir, home });
		await inst.importCredentials(lib.credentialsFor(sb));
		rest = await panel.startPanel(inst, registry);
		await rest.createApiKey();
		const r = await panel.install(rest, PREVIOUS.version);
		timings.install = r.seconds;
		t.must(`the panel installed ${PREVIOUS.version}`, r.pkg?.installedVersion === PREVIOUS.version, JSON.stringify(r.pkg).slice(0, 300));
		oldTypes = await packageTypes(rest);
	});

	await t.runPhase(`workflows saved, published and run with ${PREVIOUS.version}`, async () => {
		const i = /** @type {NonNullable<typeof inst>} */ (inst);
		const H = { 'X-N8N-API-KEY': rest.apiKey };
		const action = descriptionFor(oldTypes, `${PKG_NAME}.vaultStore`, undefined);
		const trig = descriptionFor(oldTypes, `${PKG_NAME}.vaultStoreTrigger`, undefined);
		t.must(`n8n serves both node types of ${PREVIOUS.version}`, action && trig, oldTypes.map((d) => d.name).join(', '));
		const fills = sandboxValues(sb);
		const resourceProp = action.properties.find((/** @type {any} */ p) => p.name === 'resource');
		/** @type {{name: string, node: any, missing: string[], trigger?: boolean}[]} */
		const specs = [];
		for (const opt of resourceProp.options) {
			const values = /** @type {Record<string, unknown>} */ ({ resource: opt.value });
			const opProp = action.properties.find((/** @type {any} */ p) => p.name === 'operation' && shownFor(p, values));
			if (opProp) values.operation = opProp.default;
			const missing = [];
			for (const p of action.properties) {
				if (p.name === 'resource' || p.name === 'operation' || !shownFor(p, values)) continue;
				const empty = p.default === '' || (p.type === 'resourceLocator' && !p.default?.value) || (p.type === 'fixedCollection' && !Object.keys(p.default ?? {}).length);
				if (p.name in fills) values[p.name] = p.type === 'resourceLocator' ? { __rl: true, mode: 'id', value: fills[p.name] } : fills[p.name];
				else if (p.required && empty) missing.push(p.name);
			}
			const cred = action.credentials?.find((/** @type {any} */ c) => shownFor(c, values)) ?? action.credentials?.[0];
			const credRef = cred?.name === lib.CREDENTIALS.vault.type ? lib.CREDENTIALS.vault : lib.CREDENTIALS.store;
			const node = { id: crypto.randomUUID(), name: 'Vault Store', type: action.name, typeVersion: latestVersion(action), position: [220, 0], parameters: values, credentials: { [credRef.type]: { id: credRef.id, name: credRef.name } } };
			node.parameters = stored(NodeHelpers, action, node);
			specs.push({ name: `${opt.value}/${values.operation}`, node, missing });
		}
		const events = trig.properties.find((/** @type {any} */ p) => p.name === 'events');
		const tnode = { id: crypto.randomUUID(), name: 'Vault Store Trigger', type: trig.name, typeVersion: latestVersion(trig), position: [0, 0], webhookId: crypto.randomUUID(), parameters: /** @type {Record<string, unknown>} */ ({}), credentials: { [lib.CREDENTIALS.store.type]: { id: lib.CREDENTIALS.store.id, name: lib.CREDENTIALS.store.name } } };
		tnode.parameters = stored(NodeHelpers, trig, { ...tnode, parameters: events ? { events: events.options.map((/** @type {any} */ o) => o.value) } : {} });

		for (const spec of specs) {
			const pathName = `vs-upgrade-${spec.name.replace(/[^\w-]/g, '-')}`;
			const hook = { id: crypto.randomUUID(), name: 'Webhook', type: 'n8n-nodes-base.webhook', typeVersion: 2, position: [0, 0], webhookId: crypto.randomUUID(), parameters: { httpMethod: 'POST', path: pathName, responseMode: 'lastNode', responseData: 'allEntries', options: {} } };
			const wf = { name: `Upgrade: ${spec.name}`, nodes: [hook, spec.node], connections: { Webhook: { main: [[{ node: 'Vault Store', type: 'main', index: 0 }]] } }, settings: { executionOrder: 'v1' } };
			const created = await rest.request('POST', '/api/v1/workflows', wf, H);
			t.must(`${spec.name}: workflow saved`, created.status === 200, JSON.stringify(created.body).slice(0, 300));
			flows.push({ name: spec.name, id: created.body.id, url: `${i.url}/webhook/${pathName}`, node: spec.node, saved: spec.node.parameters, before: undefined, missing: spec.missing });
		}
		const trigWf = { name: 'Upgrade: trigger', nodes: [tnode], connections: {}, settings: { executionOrder: 'v1' } };
		const created = await rest.request('POST', '/api/v1/workflows', trigWf, H);
		t.must('trigger: workflow saved', created.status === 200, JSON.stringify(created.body).slice(0, 300));
		flows.push({ name: 'trigger', id: created.body.id, url: `${i.url}/webhook/${tnode.webhookId}/${String(trig.webhooks?.[0]?.path ?? 'webhook')}`, node: tnode, saved: tnode.parameters, before: undefined, trigger: true });

		for (const f of flows.filter((x) => !x.missing?.length)) {
			const act = await rest.request('POST', `/api/v1/workflows/${f.id}/activate`, undefined, H);
			t.must(`${f.name}: published with ${PREVIOUS.version}`, act.status === 200, JSON.stringify(act.body).slice(0, 300));
		}
		const trigFlow = /** @type {(typeof flows)[number]} */ (flows.find((f) => f.trigger));
		t.must('trigger: publishing registered one endpoint at the service', await waitUntil(() => sb.state.webhooks.filter((/** @type {any} */ w) => w.url === trigFlow.url).length === 1, 30_000), JSON.stringify(sb.state.webhooks.map((/** @type {any} */ w) => w.url)));
		const ep = sb.state.webhooks.find((/** @type {any} */ w) => w.url === trigFlow.url);
		endpointBefore = { id: ep.id, url: ep.url };
		for (const f of flows.filter((x) => !x.trigger && !x.missing?.length)) {
			f.before = shape(await runHook(f.url));
			log(`${f.name}: ran with ${PREVIOUS.version}: HTTP ${f.before.status}`);
		}
		const unpublished = flows.filter((f) => f.missing?.length);
		log(`${flows.length - 1 - unpublished.length} of ${flows.length - 1} action workflows published and run with ${PREVIOUS.version}; saved only (a required field the sandbox does not fill): ${unpublished.map((f) => `${f.name} (${f.missing?.join(', ')})`).join('; ') || 'none'}`);
		t.check(`every published action workflow answers 200 with ${PREVIOUS.version}`, flows.every((f) => f.trigger || f.missing?.length || f.before?.status === 200), JSON.stringify(flows.filter((f) => !f.trigger && !f.missing?.length && f.before?.status !== 200).map((f) => [f.name, f.before])));
	});
	// Went on when every workflow is saved and the trigger's endpoint recorded (a failed run is a failed check, not a stop).
	const before = flows.length > 0 && endpointBefore !== undefined && flows.every((f) => f.trigger || f.missing?.length || f.before);

	if (before) {
		await t.runPhase(`update to ${newVersion} through the panel, restart`, async () => {
			const i = /** @type {NonNullable<typeof inst>} */ (inst);
			const reg = /** @type {NonNullable<typeof registry>} */ (registry);
			await reg.publish(newTgz);
			const listed = await panel.list(rest);
			t.equal('the panel shows the update', listed.map((p) => [p.packageName, p.installedVersion, p.updateAvailable]), [[PKG_NAME, PREVIOUS.version, newVersion]]);
			const u = await panel.update(rest, newVersion);
			timings.update = u.seconds;
			t.must(`the panel updated to ${newVersion}`, u.pkg?.installedVersion === newVersion, JSON.stringify(u.pkg).slice(0, 300));
			t.equal('the nodes folder holds the new version and nothing else', panel.installedOnDisk(userFolder), { version: newVersion, listed: newVersion, modules: [PKG_NAME] });
			const stopped = await i.stop();
			t.check('n8n stopped cleanly after the update', stopped.clean, JSON.stringify(stopped));
			const rt = Date.now();
			await i.start({ port: i.port, env: panel.panelEnv(reg) });
			timings.restart = (Date.now() - rt) / 1000;
			const out = i.server ? i.server.stdout + i.server.stderr : '';
			t.check('n8n restarted without a package load error', !/Failed to load|Error loading package|n8n-nodes-vault-store.*error/i.test(out), lib.tail(out, 20));
			const key = rest.apiKey;
			rest = lib.restClient(i.url);
			rest.apiKey = key;
			await rest.ownerLogin();
		});
	}

	if (before && t.phases[t.phases.length - 1].ok) {
		await t.runPhase(`workflows after the update`, async () => {
			const H = { 'X-N8N-API-KEY': rest.apiKey };
			const newTypes = await packageTypes(rest);
			for (const f of flows) {
				const wf = await rest.api(`/workflows/${f.id}`);
				const node = wf.nodes.find((/** @type {any} */ n) => n.type === f.node.type);
				t.check(`${f.name}: ${f.missing?.length ? 'still saved, unpublished' : 'still published'} after the update and restart`, wf.active === !f.missing?.length, JSON.stringify({ active: wf.active }));
				t.equal(`${f.name}: stored parameters unchanged`, node?.parameters, f.saved);
				const oldDesc = descriptionFor(oldTypes, f.node.type, f.node.typeVersion);
				const newDesc = descriptionFor(newTypes, f.node.type, node?.typeVersion);
				if (!t.check(`${f.name}: the new build still serves typeVersion ${node?.typeVersion}`, newDesc, newTypes.map((d) => `${d.name}@${JSON.stringify(d.version)}`).join(', '))) continue;
				const was = resolved(NodeHelpers, oldDesc, node);
				const now = resolved(NodeHelpers, newDesc, node);
				/** The node as checked: as saved, or with its operation chosen again where the default operation moved. */
				let opened = node;
				if (!f.trigger) {
					const listed = CHANGED_SINCE.operation[String(was.resource)];
					const expected = listed && node.parameters.operation === undefined && listed[0] === was.operation ? listed : null;
					const moved = was.operation !== now.operation ? [was.operation, now.operation] : null;
					t.equal(`${f.name}: ${expected ? `opens on ${expected[1]} instead of ${expected[0]}, as the CHANGELOG says` : 'opens on the same operation'}`, moved, expected);
					if (moved) {
						// What the CHANGELOG tells users to do: open it and choose the operation again (the editor then stores it).
						opened = { ...node, parameters: stored(NodeHelpers, newDesc, { ...node, parameters: { ...node.parameters, operation: was.operation } }) };
						f.chosen = { ...wf, nodes: wf.nodes.map((/** @type {any} */ n) => (n === node ? opened : n)) };
					}
				}
				const again = opened === node ? '' : ' once its operation is chosen again';
				const nowOpened = opened === node ? now : resolved(NodeHelpers, newDesc, opened);
				const changed = Object.keys(was).filter((k) => !same(was[k], nowOpened[k]));
				t.equal(`${f.name}: opens with every parameter as it was (defaults included)${again}`, changed.map((k) => [k, was[k], nowOpened[k]]), []);
				const unset = unsetOptions(NodeHelpers, oldDesc, was, newDesc, nowOpened, opened);
				const documented = unset
					.filter(([k, before, now]) => CHANGED_SINCE.unsetOption[k]?.some(([from]) => same(from, before)) || (now === undefined && CHANGED_SINCE.notOffered.includes(k)))
					.map(([k, before, now]) => [k, before, now === undefined && CHANGED_SINCE.notOffered.includes(k) ? undefined : CHANGED_SINCE.unsetOption[k].find(([from]) => same(from, before))?.[1]]);
				t.equal(
					`${f.name}: options it leaves unset keep their defaults${documented.length ? ` (but ${documented.map(([k, a, b]) => `${k} ${JSON.stringify(a)} → ${JSON.stringify(b)}`).join(', ')}, as the CHANGELOG says)` : ''}`,
					unset.filter(([, a, b]) => !same(a, b)),
					documented,
				);
				// As the editor shows them: on the parameters with their defaults (the stored ones lack the operation a node kept).
				const issuesBefore = issueList(NodeHelpers.getNodeParametersIssues(oldDesc.properties, { ...node, parameters: was }, oldDesc));
				const issuesNow = issueList(NodeHelpers.getNodeParametersIssues(newDesc.properties, { ...opened, parameters: nowOpened }, newDesc));
				t.equal(`${f.name}: no new parameter issue${again}`, issuesNow.filter((i) => !issuesBefore.includes(i)), []);
			}
			for (const f of flows.filter((x) => !x.trigger && !x.missing?.length)) {
				if (f.chosen) {
					sb.clearRequests();
					const moved = await runHook(f.url);
					const sent = sb.requests.map((/** @type {any} */ r) => `${r.method} ${r.path}`);
					t.check(`${f.name}: runs the operation it opens on now, a read (HTTP 200, only GETs at the service)`, moved.status === 200 && sent.length > 0 && sent.every((/** @type {string} */ r) => r.startsWith('GET ')), JSON.stringify({ status: moved.status, sent }));
					const { name, nodes, connections } = f.chosen;
					const put = await rest.request('PUT', `/api/v1/workflows/${f.id}`, { name, nodes, connections, settings: { executionOrder: 'v1' } }, H);
					if (!t.check(`${f.name}: its operation chosen again, saved and still published`, put.status === 200 && put.body?.active === true, JSON.stringify(put.body).slice(0, 300))) continue;
				}
				const after = shape(await runHook(f.url));
				const gained = Array.isArray(after.keys) && Array.isArray(f.before.keys) ? after.keys.filter((/** @type {string} */ k) => !f.before.keys.includes(k) && CHANGED_SINCE.outputKeys.includes(k)) : [];
				const asBefore = gained.length ? { ...after, keys: /** @type {string[]} */ (after.keys).filter((k) => !gained.includes(k)) } : after;
				t.equal(`${f.name}: runs as before the update${f.chosen ? ' once its operation is chosen again' : ''} (HTTP ${f.before.status}${gained.length ? `; its answer has ${gained.join(', ')} too, as the CHANGELOG says` : ''})`, asBefore, f.before);
			}
			const trigFlow = /** @type {(typeof flows)[number]} */ (flows.find((f) => f.trigger));
			const eps = sb.state.webhooks.filter((/** @type {any} */ w) => w.url === trigFlow.url);
			t.equal("trigger: the same single endpoint at the service (id and URL)", eps.map((/** @type {any} */ w) => ({ id: w.id, url: w.url })), [endpointBefore]);
			const count = async () => (await rest.api(`/executions?workflowId=${trigFlow.id}&limit=50`)).data.length;
			const n0 = await count();
			const eventType = sb.state.webhooks.find((/** @type {any} */ w) => w.url === trigFlow.url)?.eventTypes?.[0];
			await Promise.all(sb.emit(eventType, {}) ?? []);
			t.check(`trigger: a ${eventType} event from the service starts an execution after the update`, await waitUntil(async () => (await count()) > n0, 30_000), `executions stayed at ${n0}`);
			for (const f of flows) await rest.request('POST', `/api/v1/workflows/${f.id}/deactivate`, undefined, H);
			t.check('trigger: unpublishing deleted its endpoint', await waitUntil(() => !sb.state.webhooks.some((/** @type {any} */ w) => w.url === trigFlow.url), 30_000), JSON.stringify(sb.state.webhooks.map((/** @type {any} */ w) => w.url)));
		});
	}

	if (inst?.server) {
		const r = await inst.stop();
		t.check('n8n stop: exit code 0', r.clean, JSON.stringify(r));
	}
	await sb?.close();
	await registry?.stop();
	await lib.stopAll();
	clearTimeout(overall);
	console.log(t.summary());
	const fmt = (/** @type {number | undefined} */ s) => (s === undefined ? 'not run' : `${s.toFixed(1)} s`);
	log(`panel timings (n8n ${lib.N8N_VERSION}): install ${fmt(timings.install)}, update ${fmt(timings.update)}, restart after the update ${fmt(timings.restart)}`);
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
