#!/usr/bin/env node
/*
 * Offline reproduction of n8n's community-package verification scan
 * (@n8n/scan-community-package 0.32.0, scanner/scanner.mjs).
 *
 * The scanner lints two things with the same flat config (`buildScanConfig`):
 *   1. the source checkout attested by npm provenance, files
 *      `package.json` + `{nodes,credentials}/**\/*.{js,ts,json}`;
 *   2. the published tarball, files `**\/*.js` + `package.json`.
 * Both passes use `allowInlineConfig: false`, so `eslint-disable` comments are
 * ignored. The run fails if either pass reports an error (warnings are shown
 * but do not fail it).
 *
 * Here pass 1 runs on this working tree and pass 2 on the tarball that
 * `npm pack --ignore-scripts` produces from it (unpacked into a temp dir, as
 * the scanner unpacks the registry tarball). Pass 2 file names are mapped back
 * to the same relative path in this working tree so they are clickable.
 *
 * Usage: node scripts/lint.js [--source-only | --dist-only]
 */
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..');

/** The scanner's source-leg patterns (SOURCE_FILE_PATTERNS), for reference. */
const SOURCE_DIRS = ['nodes', 'credentials'];
const SOURCE_EXTENSIONS = ['.js', '.ts', '.json'];

/**
 * Same flat config as `buildScanConfig()` in scanner.mjs, built from the
 * plugin versions installed in this project.
 */
async function buildScanConfig() {
	const { defineConfig } = require('eslint/config');
	const { n8nCommunityNodesPlugin } = await import('@n8n/eslint-plugin-community-nodes');
	const tsParser = require('@typescript-eslint/parser');
	const n8nNodesPlugin = require('eslint-plugin-n8n-nodes-base');
	const parser = tsParser.default ?? tsParser;

	return defineConfig(
		n8nCommunityNodesPlugin.configs.recommended,
		{ rules: { 'no-console': 'error' } },
		{ plugins: { 'n8n-nodes-base': n8nNodesPlugin } },
		{
			files: ['package.json'],
			rules: { ...n8nNodesPlugin.configs.community.rules },
		},
		{
			files: ['**/credentials/**/*.ts'],
			rules: {
				...n8nNodesPlugin.configs.credentials.rules,
				'n8n-nodes-base/cred-class-field-documentation-url-miscased': 'off',
				'n8n-nodes-base/cred-class-field-type-options-password-missing': 'off',
			},
		},
		{
			files: ['**/nodes/**/*.ts'],
			rules: {
				...n8nNodesPlugin.configs.nodes.rules,
				'n8n-nodes-base/node-class-description-inputs-wrong-regular-node': 'off',
				'n8n-nodes-base/node-class-description-outputs-wrong': 'off',
				'n8n-nodes-base/node-param-type-options-max-value-present': 'off',
			},
		},
		{ files: ['**/*.json'], languageOptions: { parser } },
		{ files: ['**/*.ts'], languageOptions: { parser } },
	);
}

/**
 * Recursive file walk with fast-glob's defaults as the scanner uses them:
 * dot files/directories are skipped; `node_modules` and `package-lock.json`
 * are ignored.
 */
function walk(dir, accept, out = []) {
	let entries;
	try {
		entries = fs.readdirSync(dir, { withFileTypes: true });
	} catch {
		return out;
	}
	for (const entry of entries) {
		if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) walk(full, accept, out);
		else if (entry.isFile() && entry.name !== 'package-lock.json' && accept(entry.name)) out.push(full);
	}
	return out;
}

function sourceFiles(root) {
	const files = [path.join(root, 'package.json')];
	for (const dir of SOURCE_DIRS) {
		files.push(
			...walk(path.join(root, dir), (name) => SOURCE_EXTENSIONS.includes(path.extname(name))),
		);
	}
	return files.filter((f) => fs.existsSync(f)).sort();
}

function tarballFiles(root) {
	const files = walk(root, (name) => name.endsWith('.js'));
	const pkg = path.join(root, 'package.json');
	if (fs.existsSync(pkg)) files.push(pkg);
	return files.sort();
}

/** `npm pack` the working tree and unpack it the way the scanner does. */
function packToTempDir() {
	const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-store-scan-'));
	const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
	const pack = spawnSync(
		npm,
		['pack', '--ignore-scripts', '--json', '--dry-run=false', '--pack-destination', tmp],
		{ cwd: ROOT, encoding: 'utf8', shell: process.platform === 'win32' },
	);
	if (pack.status !== 0) {
		throw new Error(`npm pack failed:\n${pack.stderr}`);
	}
	const tarball = fs.readdirSync(tmp).find((f) => f.endsWith('.tgz'));
	if (!tarball) throw new Error('npm pack produced no tarball');
	const packageDir = path.join(tmp, 'package');
	fs.mkdirSync(packageDir);
	const untar = spawnSync('tar', ['-xzf', tarball, '-C', packageDir, '--strip-components=1'], {
		cwd: tmp,
		encoding: 'utf8',
	});
	if (untar.status !== 0) throw new Error(`tar extraction failed:\n${untar.stderr}`);
	return { tmp, packageDir };
}

async function analyze(ESLint, config, cwd, files) {
	const eslint = new ESLint({
		cwd,
		allowInlineConfig: false,
		overrideConfigFile: true,
		overrideConfig: config,
	});
	return eslint.lintFiles(files);
}

async function main() {
	const args = new Set(process.argv.slice(2));
	const runSource = !args.has('--dist-only');
	const runDist = !args.has('--source-only');

	if (runDist && !fs.existsSync(path.join(ROOT, 'dist'))) {
		process.stderr.write('dist/ is missing: run `npm run build` first (the scan also lints the compiled package).\n');
		return 1;
	}

	const { ESLint } = require('eslint');
	const config = await buildScanConfig();
	const formatter = await new ESLint({ cwd: ROOT, overrideConfigFile: true }).loadFormatter('stylish');

	let errors = 0;
	let warnings = 0;
	const report = async (title, results) => {
		const e = results.reduce((n, r) => n + r.errorCount, 0);
		const w = results.reduce((n, r) => n + r.warningCount, 0);
		errors += e;
		warnings += w;
		const text = await formatter.format(results);
		process.stdout.write(`\n== ${title}: ${results.length} files, ${e} errors, ${w} warnings\n`);
		if (text.trim()) process.stdout.write(`${text}\n`);
	};

	if (runSource) {
		const results = await analyze(ESLint, config, ROOT, sourceFiles(ROOT));
		await report('Pass 1 (source: package.json, {nodes,credentials}/**/*.{js,ts,json})', results);
	}

	if (runDist) {
		const { tmp, packageDir } = packToTempDir();
		try {
			const results = await analyze(ESLint, config, packageDir, tarballFiles(packageDir));
			for (const r of results) {
				r.filePath = path.join(ROOT, path.relative(packageDir, r.filePath));
			}
			await report('Pass 2 (npm pack tarball: **/*.js, package.json)', results);
		} finally {
			fs.rmSync(tmp, { recursive: true, force: true });
		}
	}

	process.stdout.write(
		errors
			? `\nScan FAILED: ${errors} errors, ${warnings} warnings.\n`
			: `\nScan passed (${warnings} warnings).\n`,
	);
	return errors ? 1 : 0;
}

main().then(
	(code) => {
		process.exitCode = code;
	},
	(error) => {
		process.stderr.write(`${error && error.stack ? error.stack : error}\n`);
		process.exitCode = 1;
	},
);
