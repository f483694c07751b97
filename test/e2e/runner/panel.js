// @ts-check
/**
 * n8n's Community Nodes panel, driven over the REST routes its editor calls
 * (`/rest/community-packages`: POST install, PATCH update, DELETE uninstall, GET list), against
 * the local registry of test/e2e/runner/registry.js.
 *
 * A registry other than registry.npmjs.org (N8N_COMMUNITY_PACKAGES_REGISTRY) needs the licensed
 * feature `feat:communityNodes:customRegistry`. n8n's own end-to-end mode (E2E_TESTS=true) has a
 * route that switches a licensed feature on (`PATCH /rest/e2e/feature`); the install code path
 * is then the one every instance runs. The rest of the suite runs n8n without that mode.
 */
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const lib = require('./lib');
const { log, PKG_NAME } = lib;

const CUSTOM_REGISTRY_FEATURE = 'feat:communityNodes:customRegistry';

/**
 * Environment of an n8n that installs from the local registry: the registry for n8n and for the
 * npm commands it runs (`npm outdated`, which has no registry flag, finds updates there too).
 * @param {{url: string, npmEnv: Record<string, string>}} registry
 */
function panelEnv(registry) {
	return { E2E_TESTS: 'true', N8N_COMMUNITY_PACKAGES_REGISTRY: registry.url.replace(/\/+$/, ''), ...registry.npmEnv };
}

/** Switches on the licensed feature a non-default registry needs (n8n in E2E_TESTS mode). */
async function allowCustomRegistry(/** @type {ReturnType<typeof lib.restClient>} */ rest) {
	await rest.ok('PATCH', '/rest/e2e/feature', { feature: CUSTOM_REGISTRY_FEATURE, enabled: true });
}

/** Runs fn and returns its result with the seconds it took. @template T @param {() => Promise<T>} fn */
async function timed(fn) {
	const t = Date.now();
	const result = await fn();
	return { result, seconds: (Date.now() - t) / 1000 };
}

/**
 * The panel's Install: POST /rest/community-packages {name, version}. Returns n8n's answer (the
 * installed package with its nodes) and the seconds it took.
 */
async function install(/** @type {ReturnType<typeof lib.restClient>} */ rest, version = '', name = PKG_NAME) {
	const { result, seconds } = await timed(() => rest.ok('POST', '/rest/community-packages', version ? { name, version } : { name }));
	log(`panel: installed ${name}@${result?.installedVersion} in ${seconds.toFixed(1)} s (${(result?.installedNodes ?? []).map((/** @type {any} */ n) => n.type).join(', ')})`);
	return { pkg: result, seconds };
}

/** The panel's Update: PATCH /rest/community-packages {name, version}. */
async function update(/** @type {ReturnType<typeof lib.restClient>} */ rest, version = '', name = PKG_NAME) {
	const { result, seconds } = await timed(() => rest.ok('PATCH', '/rest/community-packages', version ? { name, version } : { name }));
	log(`panel: updated ${name} to ${result?.installedVersion} in ${seconds.toFixed(1)} s`);
	return { pkg: result, seconds };
}

/** The panel's Uninstall: DELETE /rest/community-packages?name=. */
async function uninstall(/** @type {ReturnType<typeof lib.restClient>} */ rest, name = PKG_NAME) {
	const { seconds } = await timed(() => rest.ok('DELETE', `/rest/community-packages?name=${encodeURIComponent(name)}`));
	log(`panel: uninstalled ${name} in ${seconds.toFixed(1)} s`);
	return { seconds };
}

/** The panel's list (GET /rest/community-packages): installed packages, with updateAvailable. */
async function list(/** @type {ReturnType<typeof lib.restClient>} */ rest) {
	return /** @type {any[]} */ (await rest.ok('GET', '/rest/community-packages'));
}

/** What the nodes folder of a user folder holds for this package (version, or undefined). */
function installedOnDisk(/** @type {string} */ userFolder, name = PKG_NAME) {
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	const pjFile = path.join(nodesDir, 'node_modules', name, 'package.json');
	const listed = fs.existsSync(path.join(nodesDir, 'package.json')) ? JSON.parse(fs.readFileSync(path.join(nodesDir, 'package.json'), 'utf8')).dependencies?.[name] : undefined;
	return {
		version: fs.existsSync(pjFile) ? JSON.parse(fs.readFileSync(pjFile, 'utf8')).version : undefined,
		listed,
		/** Every folder under nodes/node_modules (the package's own dependencies would show here). */
		modules: fs.existsSync(path.join(nodesDir, 'node_modules')) ? fs.readdirSync(path.join(nodesDir, 'node_modules')).filter((d) => !d.startsWith('.')) : [],
	};
}

/**
 * Starts n8n in panel mode on a user folder, logs the owner in and allows the local registry;
 * returns the REST client. The caller stops n8n (inst.stop()).
 * @param {ReturnType<typeof lib.makeInstance>} inst @param {{url: string, npmEnv: Record<string, string>}} registry
 */
async function startPanel(inst, registry) {
	const t = Date.now();
	await inst.start({ env: panelEnv(registry) });
	log(`n8n (panel mode) started on ${inst.url} in ${((Date.now() - t) / 1000).toFixed(1)} s`);
	const rest = lib.restClient(inst.url);
	await rest.ownerLogin();
	await allowCustomRegistry(rest);
	return rest;
}

module.exports = { panelEnv, allowCustomRegistry, install, update, uninstall, list, installedOnDisk, startPanel, CUSTOM_REGISTRY_FEATURE };
