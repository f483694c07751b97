/**
 * Jest config for `npm run test:compat` (scripts/compat.js): the usual config,
 * with n8n-core, n8n-workflow and the @n8n packages the harness imports itself
 * taken from another n8n line installed in VS_COMPAT_DIR (.compat/<line>/).
 *
 * moduleNameMapper applies to every module jest loads, including the compiled
 * node files: PackageDirectoryLoader requires them through jest's require
 * (n8n-core's loadClassInIsolation uses plain `require` when NODE_ENV=test), so
 * their `require('n8n-workflow')` gets the same instance n8n-core uses.
 * test/compat/identity.compat.ts checks this on every run, and test/compat/same-line.js after
 * every test file.
 *
 * Without VS_COMPAT_DIR the installed (default) n8n packages are used.
 */
const path = require('node:path');

const base = require('../../jest.config.js');

const rootDir = path.resolve(__dirname, '..', '..');
const compatDir = process.env.VS_COMPAT_DIR ? path.resolve(process.env.VS_COMPAT_DIR) : undefined;

/** Packages the harness (or the built nodes) import directly; n8n-core's own dependencies resolve inside the line's folder. */
const MAPPED = ['n8n-core', 'n8n-workflow', '@n8n/di', '@n8n/backend-common'];

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

const moduleNameMapper = {};
if (compatDir) {
	const modules = path.join(compatDir, 'node_modules');
	for (const name of MAPPED) {
		moduleNameMapper[`^${escape(name)}$`] = path.join(modules, name);
		moduleNameMapper[`^${escape(name)}/(.*)$`] = `${path.join(modules, name)}/$1`;
	}
}

/** @type {import('jest').Config} */
module.exports = {
	...base,
	rootDir,
	testMatch: [...base.testMatch, '**/compat/*.compat.ts'],
	moduleNameMapper: { ...(base.moduleNameMapper ?? {}), ...moduleNameMapper },
	setupFilesAfterEnv: [...(base.setupFilesAfterEnv ?? []), '<rootDir>/test/compat/same-line.js'],
};
