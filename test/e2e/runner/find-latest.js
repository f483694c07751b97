#!/usr/bin/env node
// @ts-check
/**
 * node test/e2e/runner/find-latest.js [--max N] [--from VERSION] — which n8n the e2e suite's newest
 * line (lib.N8N_LATEST) can pin: n8n's versions from the registry, newest first (or from
 * VERSION down), each tried with `npm install --dry-run --ignore-scripts` in an empty temporary
 * folder holding the runtime's package.json (the same xlsx override as the real install), until
 * one resolves its whole dependency tree; then the Node it needs (engines) and the newest release
 * of the registry package `node` that meets it. At most N candidates (default 8), about 1-3
 * minutes each. Prints one line per candidate; changes nothing in the project.
 */
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const lib = require('./lib');

function arg(name) {
	const i = process.argv.indexOf(name);
	return i > 0 ? process.argv[i + 1] : undefined;
}

async function view(spec, field) {
	const r = await lib.run('npm', ['view', spec, field, '--json'], { timeoutMs: 120_000 });
	return JSON.parse(r.stdout || 'null');
}

async function main() {
	lib.installCleanup();
	const max = Number(arg('--max') || 8);
	const from = arg('--from');
	const cmp = (/** @type {string} */ a, /** @type {string} */ b) => {
		const [x, y] = [a, b].map((v) => v.split('.').map(Number));
		return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
	};
	const all = /** @type {string[]} */ (await view('n8n', 'versions')).filter((v) => /^\d+\.\d+\.\d+$/.test(v)).sort(cmp).reverse();
	const candidates = all.filter((v) => !from || cmp(v, from) <= 0).slice(0, max);
	const nodeVersions = /** @type {string[]} */ (await view('node', 'versions')).filter((v) => /^\d+\.\d+\.\d+$/.test(v));
	lib.log(`candidates (newest first): ${candidates.join(', ')}`);
	for (const v of candidates) {
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), `vs-n8n-dry-${v}-`));
		try {
			fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'dry-run', private: true, dependencies: { n8n: v }, overrides: { xlsx: 'npm:@e965/xlsx@0.20.2' } }));
			const t = Date.now();
			const r = await lib.run('npm', ['install', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund', '--omit=dev'], { cwd: dir, timeoutMs: 10 * 60_000, allowFail: true });
			const secs = Math.round((Date.now() - t) / 1000);
			const out = r.stdout + r.stderr;
			if (r.code !== 0) {
				const why = (out.match(/npm error notarget (No matching version found for \S+)/) ?? out.match(/npm error (code \S+)/) ?? [])[1] ?? `exit ${r.code}`;
				lib.log(`n8n ${v}: does not install (${secs} s): ${why.replace(/\.$/, '')}`);
				continue;
			}
			const range = String((await view(`n8n@${v}`, 'engines.node')) ?? '');
			const fits = nodeVersions.filter((n) => lib.nodeSatisfies(n, range)).sort(cmp);
			const added = (out.match(/added (\d+) packages/) ?? [])[1];
			lib.log(`n8n ${v}: whole tree resolves (${added ?? '?'} packages, ${secs} s); engines.node ${range || '(none)'}; system Node ${process.version} ${range && !lib.nodeSatisfies(process.version, range) ? 'does not meet it' : 'meets it'}; registry node releases that do: ${fits.length ? `${fits[0]} … ${fits[fits.length - 1]}` : 'none'}`);
			lib.log(`pin: lib.N8N_LATEST = '${v}', NODE_PINS['${v}'] = '${await lib.nodeFor(v)}' (now ${lib.N8N_LATEST} on ${lib.NODE_PINS[lib.N8N_LATEST]})`);
			return;
		} finally {
			fs.rmSync(dir, { recursive: true, force: true });
		}
	}
	lib.log(`none of the ${candidates.length} candidates installs; try --from an older version or a larger --max`);
	process.exitCode = 1;
}

main().catch((err) => {
	console.error(err instanceof Error ? err.message : err);
	process.exit(1);
});
