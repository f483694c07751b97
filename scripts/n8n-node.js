#!/usr/bin/env node
// @ts-check
/**
 * n8n's own node tool, `n8n-node` (@n8n/node-cli), pinned, as a verification reviewer runs it.
 *
 * @n8n/node-cli does not install on Node 20 (isolated-vm, a dependency, builds only for Node 24),
 * so it is not a devDependency: it is installed once into
 * ~/.cache/n8n-nodes-vault-store/n8n-node-cli-<version>, with npm run by Node 24 from the npm
 * registry (the same cached `node@<version>` the end-to-end tests use, see test/e2e/runner/lib.js),
 * and it runs on that Node. It is linked into node_modules/@n8n/node-cli, so `eslint.config.mjs`
 * (the tool's default, word for word, which strict mode requires) resolves as it would with a
 * devDependency.
 *
 *   node scripts/n8n-node.js lint [--fix]   `n8n-node lint` on exactly what the package is made of
 *                                           (package.json, tsconfig.json, eslint.config.mjs, nodes/,
 *                                           credentials/, icons/) copied into a temp folder: the
 *                                           tool lints the whole folder it runs in, and test/,
 *                                           sandbox/ and bench/ are Node programs that never ship.
 *                                           --fix writes the fixes back. (npm run lint:n8n / lint:fix)
 *   node scripts/n8n-node.js check          lint as above, then `n8n-node cloud-support` in the
 *                                           repository; fails on any lint problem (warnings too) or
 *                                           when the package is not eligible. (.ci/run)
 *   node scripts/n8n-node.js <args...>      any other n8n-node command, in the repository root,
 *                                           e.g. `cloud-support` or `lint` on the whole folder.
 */
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');

const lib = require('../test/e2e/runner/lib');

const { ROOT, CACHE_ROOT } = lib;
/** The @n8n/node-cli release a reviewer used (issue 36), and the Node line it installs on. */
const CLI_VERSION = '0.48.3';
const NODE_VERSION = '24.21.0';
const CLI_HOME = path.join(CACHE_ROOT, `n8n-node-cli-${CLI_VERSION}`);
const CLI_PKG = path.join(CLI_HOME, 'node_modules', '@n8n', 'node-cli');
const MARKER = path.join(CLI_HOME, '.vault-store-installed');
/** What the package is made of: the lint copy holds these and nothing else. */
const PACKAGE_CONTENTS = ['package.json', 'tsconfig.json', 'eslint.config.mjs', 'nodes', 'credentials', 'icons'];

const say = (/** @type {string} */ msg) => process.stderr.write(`[n8n-node] ${msg}\n`);

function cliVersion(/** @type {string} */ node) {
	if (!fs.existsSync(MARKER)) return '';
	const r = spawnSync(node, [path.join(CLI_PKG, 'bin', 'n8n-node.mjs'), '--version'], { encoding: 'utf8', timeout: 60_000 });
	return /@n8n\/node-cli\/(\S+)/.exec(r.stdout ?? '')?.[1] ?? '';
}

/** Node 24 and @n8n/node-cli, installed once (a lock keeps parallel runs from installing twice). */
async function ensureTool() {
	const { bin: node, headers } = await lib.ensureNodeVersion(NODE_VERSION, { quiet: true });
	const ready = () => cliVersion(node) === CLI_VERSION;
	if (!ready()) {
		await lib.withInstallLock(
			CLI_HOME,
			ready,
			async () => {
				const t = Date.now();
				const logFile = path.join(CLI_HOME, 'install.log');
				say(`installing @n8n/node-cli ${CLI_VERSION} with Node ${NODE_VERSION} into ${CLI_HOME} (first run only: about a minute; log ${logFile})`);
				fs.rmSync(path.join(CLI_HOME, 'node_modules'), { recursive: true, force: true });
				fs.rmSync(MARKER, { force: true });
				fs.writeFileSync(
					path.join(CLI_HOME, 'package.json'),
					JSON.stringify({ name: 'vault-store-n8n-node-cli', private: true, description: `n8n's node tool for ${lib.PKG_NAME} (made by scripts/n8n-node.js; safe to delete)`, dependencies: { '@n8n/node-cli': CLI_VERSION } }, null, 2) + '\n',
				);
				/** @type {NodeJS.ProcessEnv} */
				const env = { ...process.env, PATH: lib.pathWithNode(process.env, node), npm_config_yes: 'true' };
				// eslint-plugin-n8n-nodes-base runs `npx only-allow pnpm` on install: npm_config_yes lets that npx run.
				if (headers) env.npm_config_nodedir = headers; // isolated-vm builds against Node 24's headers
				await lib.run(node, [lib.npmCli(), 'install', '--no-audit', '--no-fund', '--foreground-scripts'], { cwd: CLI_HOME, env, logFile, timeoutMs: 15 * 60_000 });
				fs.writeFileSync(MARKER, JSON.stringify({ cli: CLI_VERSION, node: NODE_VERSION, installedAt: new Date().toISOString() }) + '\n');
				if (!ready()) throw new Error(`n8n-node --version is not ${CLI_VERSION} after the install (see ${logFile})`);
				say(`installed in ${Math.round((Date.now() - t) / 1000)} s`);
			},
			`@n8n/node-cli ${CLI_VERSION}`,
			true,
		);
	}
	// eslint.config.mjs imports '@n8n/node-cli/eslint': resolvable from the repository as a devDependency would be.
	const link = path.join(ROOT, 'node_modules', '@n8n', 'node-cli');
	let current = '';
	try {
		current = fs.readlinkSync(link);
	} catch {
		/* missing, or not a link */
	}
	if (current !== CLI_PKG) {
		fs.mkdirSync(path.dirname(link), { recursive: true });
		fs.rmSync(link, { recursive: true, force: true });
		fs.symlinkSync(CLI_PKG, link, 'dir');
	}
	return node;
}

/**
 * Runs n8n-node in `cwd` on Node 24; resolves with its exit code and its output (printed as it
 * comes, with `from` replaced by `to` so paths in a copy point at the repository's files).
 * @param {string} node @param {string[]} args @param {string} cwd
 */
function runTool(node, args, cwd, from = '', to = '') {
	return new Promise((resolve, reject) => {
		const child = spawn(node, [path.join(CLI_PKG, 'bin', 'n8n-node.mjs'), ...args], {
			cwd,
			env: { ...process.env, PATH: lib.pathWithNode(process.env, node), npm_config_yes: 'false' },
			stdio: ['inherit', 'pipe', 'pipe'],
		});
		let output = '';
		const fix = (/** @type {Buffer} */ d) => (from ? String(d).split(from).join(to) : String(d));
		child.stdout.on('data', (d) => {
			const s = fix(d);
			output += s;
			process.stdout.write(s);
		});
		child.stderr.on('data', (d) => {
			const s = fix(d);
			output += s;
			process.stderr.write(s);
		});
		child.on('error', reject);
		child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output }));
	});
}

/** Plain text of the tool's output (it colours it). */
const plain = (/** @type {string} */ s) => s.replace(/\x1b\[[0-9;]*m/g, '');

/** Files under dir (relative), recursively. */
function files(/** @type {string} */ dir, base = dir) {
	if (!fs.existsSync(dir)) return [];
	if (fs.statSync(dir).isFile()) return [path.relative(base, dir)];
	return fs.readdirSync(dir).flatMap((n) => files(path.join(dir, n), base));
}

/** `n8n-node lint [--fix]` on a copy of the package's contents; returns {code, output}. */
async function lintPackage(/** @type {string} */ node, fix = false) {
	const stage = fs.mkdtempSync(path.join(os.tmpdir(), 'vs-n8n-node-lint-'));
	try {
		for (const name of PACKAGE_CONTENTS) fs.cpSync(path.join(ROOT, name), path.join(stage, name), { recursive: true });
		// eslint, n8n-workflow (import resolution) and @n8n/node-cli (linked above) from the repository.
		fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(stage, 'node_modules'), 'dir');
		say(`n8n-node lint${fix ? ' --fix' : ''} on ${PACKAGE_CONTENTS.join(', ')} (a copy in ${stage})`);
		const r = /** @type {{code: number, output: string}} */ (await runTool(node, ['lint', ...(fix ? ['--fix'] : [])], stage, stage + path.sep, ROOT + path.sep));
		if (fix) {
			for (const rel of PACKAGE_CONTENTS.flatMap((n) => files(path.join(stage, n), stage))) {
				const mine = path.join(ROOT, rel);
				const fixed = fs.readFileSync(path.join(stage, rel));
				if (!fs.existsSync(mine) || !fixed.equals(fs.readFileSync(mine))) {
					fs.writeFileSync(mine, fixed);
					say(`fixed ${rel}`);
				}
			}
		}
		return r;
	} finally {
		fs.rmSync(stage, { recursive: true, force: true });
	}
}

async function main() {
	const args = process.argv.slice(2);
	const node = await ensureTool();
	if (args[0] === 'lint' && args.every((a) => a === 'lint' || a === '--fix')) {
		const r = await lintPackage(node, args.includes('--fix'));
		process.exitCode = r.code;
		return;
	}
	if (args[0] === 'check' && args.length === 1) {
		const lint = await lintPackage(node);
		const support = /** @type {{code: number, output: string}} */ (await runTool(node, ['cloud-support'], ROOT));
		const problems = /✖ \d+ problems? \([^)]*\)/.exec(plain(lint.output))?.[0];
		const eligible = /Status: eligible for n8n Cloud verification/.test(plain(support.output));
		const failures = [
			...(lint.code !== 0 || problems ? [`n8n-node lint: ${problems ?? `exit code ${lint.code}`}`] : []),
			...(support.code !== 0 || !eligible ? ['n8n-node cloud-support: NOT eligible for n8n Cloud verification'] : []),
		];
		if (failures.length) {
			say(`FAILED: ${failures.join('; ')}`);
			process.exitCode = 1;
		} else {
			const linted = PACKAGE_CONTENTS.flatMap((n) => files(path.join(ROOT, n), ROOT)).filter((f) => f === 'package.json' || f.endsWith('.ts')).length;
			say(`@n8n/node-cli ${CLI_VERSION}: lint 0 problems (0 errors, 0 warnings) in ${linted} files (package.json, nodes/, credentials/), cloud-support eligible`);
		}
		return;
	}
	const r = /** @type {{code: number}} */ (await runTool(node, args, ROOT));
	process.exitCode = r.code;
}

main().catch((err) => {
	say(err instanceof Error ? err.message : String(err));
	process.exit(1);
});
