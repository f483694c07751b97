#!/usr/bin/env node
// @ts-check
/**
 * npm run release -- <patch|minor|major|x.y.z>
 *
 * The release path of n8n's starter (`n8n-node release`) adapted to this repository: npm must
 * publish from CI with provenance (n8n's verification requires it), which
 * .github/workflows/publish.yml does on a `v<version>` tag. This script checks the tree (on main,
 * clean, up to date with its upstream, CHANGELOG has an [Unreleased] section), runs the build, both
 * lints and the tests, moves [Unreleased] in CHANGELOG.md under the new version, and makes the
 * version commit and tag (`npm version`), then pushes them: the workflow publishes.
 * `--dry-run` stops before the version commit.
 */
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..');
const sh = (/** @type {string} */ cmd, /** @type {string[]} */ args, quiet = false) =>
	execFileSync(cmd, args, { cwd: ROOT, encoding: 'utf8', stdio: quiet ? ['ignore', 'pipe', 'inherit'] : 'inherit' });

function fail(/** @type {string} */ msg) {
	process.stderr.write(`release: ${msg}\n`);
	process.exit(1);
}

const args = process.argv.slice(2);
const bump = args.find((a) => !a.startsWith('--'));
const dryRun = args.includes('--dry-run');
if (!bump || !/^(patch|minor|major|\d+\.\d+\.\d+)$/.test(bump)) fail('usage: npm run release -- <patch|minor|major|x.y.z> [--dry-run]');

const branch = sh('git', ['rev-parse', '--abbrev-ref', 'HEAD'], true).trim();
if (branch !== 'main') fail(`on branch ${branch}: releases are made from main`);
if (sh('git', ['status', '--porcelain'], true).trim()) fail('the working tree has changes: commit or stash them first');
sh('git', ['fetch', '--quiet'], true);
if (sh('git', ['rev-list', '--count', 'HEAD...@{upstream}'], true).trim() !== '0') fail('main differs from its upstream: pull or push first');
const changelogFile = path.join(ROOT, 'CHANGELOG.md');
const changelog = fs.readFileSync(changelogFile, 'utf8');
const unreleased = /^## \[Unreleased\]$([\s\S]*?)(?=^## \[|(?![\s\S]))/m.exec(changelog)?.[1] ?? '';
if (!/^- /m.test(unreleased)) fail('CHANGELOG.md has no entries under ## [Unreleased]');

sh('npm', ['run', 'build']);
sh('npm', ['run', 'lint']);
sh('node', ['scripts/n8n-node.js', 'check']);
sh('npm', ['test']);
if (dryRun) {
	process.stdout.write('release: checks passed (dry run: no version commit, no tag, no push)\n');
	process.exit(0);
}

const version = sh('npm', ['version', bump, '--no-git-tag-version'], true).trim().replace(/^v/, '');
const date = new Date().toISOString().slice(0, 10);
fs.writeFileSync(changelogFile, changelog.replace(/^## \[Unreleased\]$/m, `## [Unreleased]\n\n## [${version}] - ${date}`));
sh('git', ['add', 'package.json', 'package-lock.json', 'CHANGELOG.md']);
sh('git', ['commit', '-m', `Release ${version}`]);
sh('git', ['tag', '-a', `v${version}`, '-m', `v${version}`]);
sh('git', ['push', '--follow-tags']);
process.stdout.write(`release: v${version} pushed; .github/workflows/publish.yml publishes it to npm with provenance\n`);
