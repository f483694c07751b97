#!/usr/bin/env node
// Times what a newcomer runs first, from a fresh clone of HEAD: `npm ci`, then `npm test`.
// Run it on a quiet machine (nothing else running); it writes docs/newcomer-times.json with the
// machine and its load, and with --write puts the figures into the README's top block, which
// test/readme.test.ts compares with that file. `--readme-only` rewrites the README from the file.
const { execSync, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const FILE = path.join(ROOT, 'docs', 'newcomer-times.json');

/** The README's top-block line for `npm test`, with both measured figures. */
function testLine(times) {
	return `npm test                   # (a second terminal: the demo holds the first) build + test suite in n8n-core: ${times.npmTestMinutes}, \`npm ci\` ${times.npmCiMinutes} (fresh clone, quiet machine, ${times.cores} cores)`;
}

/** "3 min 10 s", "55 s": to the nearest 5 seconds. */
function minutes(ms) {
	const total = Math.round(ms / 5000) * 5;
	const m = Math.floor(total / 60);
	const s = total % 60;
	return m === 0 ? `${s} s` : s === 0 ? `${m} min` : `${m} min ${s} s`;
}

function timed(cmd, cwd) {
	const t = Date.now();
	const r = spawnSync('sh', ['-c', cmd], { cwd, stdio: 'inherit', env: { ...process.env, CI: 'true' } });
	if (r.status !== 0) throw new Error(`${cmd} failed (${r.status})`);
	return Date.now() - t;
}

function measure() {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'newcomer-'));
	const clone = path.join(dir, 'clone');
	execSync(`git clone --quiet ${JSON.stringify(ROOT)} ${JSON.stringify(clone)}`);
	const loadBefore = os.loadavg()[0];
	const ci = timed('npm ci --no-audit --no-fund', clone);
	const test = timed('npm test', clone);
	fs.rmSync(dir, { recursive: true, force: true });
	return {
		date: new Date().toISOString().slice(0, 10),
		commit: execSync('git rev-parse --short HEAD', { cwd: ROOT }).toString().trim(),
		cores: os.cpus().length,
		node: process.version,
		loadBefore: Math.round(loadBefore * 10) / 10,
		npmCiSeconds: Math.round(ci / 1000),
		npmTestSeconds: Math.round(test / 1000),
		npmCiMinutes: minutes(ci),
		npmTestMinutes: minutes(test),
	};
}

function writeReadme(times) {
	const file = path.join(ROOT, 'README.md');
	const lines = fs.readFileSync(file, 'utf8').split('\n');
	const at = lines.findIndex((l) => l.startsWith('npm test                   #'));
	lines[at] = testLine(times);
	fs.writeFileSync(file, lines.join('\n'));
}

if (require.main === module) {
	const times = process.argv.includes('--readme-only') ? JSON.parse(fs.readFileSync(FILE, 'utf8')) : measure();
	fs.writeFileSync(FILE, `${JSON.stringify(times, null, '\t')}\n`);
	if (process.argv.includes('--write') || process.argv.includes('--readme-only')) writeReadme(times);
	console.log(times);
}

module.exports = { testLine, FILE };
