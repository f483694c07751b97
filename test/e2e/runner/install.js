#!/usr/bin/env node
// @ts-check
/**
 * npm run e2e:install — installs what the end-to-end suite and the demo need, idempotently:
 * n8n 2.8.4 into the cache folder (VS_N8N_HOME, default ~/.cache/n8n-nodes-vault-store/n8n-2.8.4)
 * and Debian's chromium (apt-get, as root) for the editor test. `npm run test:e2e` and
 * `npm run demo` call the same steps themselves; this is for warming a machine or a CI cache.
 * --no-browser skips chromium. `--n8n <version>` (or `--latest`: the newest line the suite
 * tests, lib.N8N_LATEST) installs that n8n instead, into n8n-<version>, and the Node it needs
 * (from the npm registry package `node`) into node-<version> beside it.
 */
'use strict';

const lib = require('./lib');

async function main() {
	lib.installCleanup();
	lib.selectN8n(lib.n8nFromArgs());
	const t = Date.now();
	const home = await lib.ensureN8n();
	lib.log(`n8n ${lib.N8N_VERSION} ready: ${lib.n8nBin(home)} (node ${lib.nodeBin()})`);
	if (!process.argv.includes('--no-browser')) {
		const exe = await lib.ensureChromium();
		lib.log(`chromium ready: ${exe}`);
	}
	lib.log(`done in ${((Date.now() - t) / 1000).toFixed(1)} s`);
}

main().catch((err) => {
	console.error(err instanceof Error ? err.message : err);
	process.exit(1);
});
