#!/usr/bin/env node
/**
 * npm run test:compat — runs the in-process workflow tests (every test file that loads
 * test/support/harness.ts, directly or through fixtures, trigger-harness, agent-routes, ...:
 * real workflows in n8n-core) against several n8n lines; a line that would run fewer than
 * MIN_FILES of them fails before jest starts (test/compat-selection.test.ts checks the choice):
 *
 *   2.8    the n8n-core / n8n-workflow installed as devDependencies (as `npm test`)
 *   2.41   newest n8n-core / n8n-workflow of the 2.41 line
 *   1.123  the last 1.x line (n8n 1.123.x ships n8n-core 1.122.x, n8n-workflow 1.120.x)
 *
 * Each other line is installed once into .compat/<line>/ (git-ignored; skipped
 * when its marker says that version is installed) and jest runs with
 * test/compat/jest.config.js, which maps n8n-core, n8n-workflow, @n8n/di and
 * @n8n/backend-common to that folder for the harness and the built nodes;
 * test/compat/identity.compat.ts and test/compat/same-line.js check that nothing else loads.
 *
 * Usage: node scripts/compat.js [line ...] [--no-build] [--verbose] [--check-latest]
 *   line            run only these lines (default: all)
 *   --no-build      do not run `npm run build` first
 *   --verbose       stream jest's output (default: shown only for a failing line)
 *   --check-latest  only print the newest published versions of each line and exit
 * Env: VS_FAULT_RUNS (default 20 here), VS_COMPAT_ROOT (default <package>/.compat)
 * Exits non-zero when a line fails (a failing test, a jest error, an install error).
 */
'use strict';

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const CACHE = path.resolve(process.env.VS_COMPAT_ROOT ?? path.join(ROOT, '.compat'));
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** The lines; `installed` uses the devDependencies. Versions pinned: the newest published when last checked. */
const LINES = [
	{ line: '2.8', n8n: '2.8.x', installed: true },
	{ line: '2.41', n8n: '2.41.x', core: '2.41.1', workflow: '2.41.0', coreRange: '2.41', workflowRange: '2.41' },
	{ line: '1.123', n8n: '1.123.x', core: '1.122.48', workflow: '1.120.31', coreRange: '1.122', workflowRange: '1.120' },
];

/**
 * Test files that load the harness but are not run on the other lines, with the reason. Every
 * other test file that loads test/support/harness.ts, directly or through another support module
 * (fixtures, trigger-harness, agent-routes, loop, once-record-support), runs on every line.
 */
const EXCLUDE = {
	'sandbox.test.ts': 'tests the sandbox alone: it uses useSandbox() but runs no workflow',
	'gate-cost.test.ts':
		'times the output-gate scanners (pure code of the package, no n8n-core) against bounds: load-sensitive, ~30 s a line, covered by npm test',
};

/**
 * Per line: test files left out on that line only, because they exercise something that line's
 * n8n-core does not have (file name -> reason). README's Compatibility lists them as "not on this
 * line". None so far: every workflow test file passes on 2.41 and 1.123.
 */
const LINE_EXCLUDE = {
	'2.41': {},
	'1.123': {},
};

/** A line must run at least this many workflow test files (a filter that matches nothing fails loudly). */
const MIN_FILES = 20;

/** The test/support modules that load the harness (n8n-core), directly or through another one. */
function workflowSupportModules(dir = path.join(ROOT, 'test', 'support')) {
	const sources = Object.fromEntries(
		fs
			.readdirSync(dir)
			.filter((f) => f.endsWith('.ts'))
			.map((f) => [f.replace(/\.ts$/, ''), fs.readFileSync(path.join(dir, f), 'utf8')]),
	);
	const found = new Set(['harness']);
	for (let grew = true; grew; ) {
		grew = false;
		for (const [name, text] of Object.entries(sources)) {
			if (found.has(name)) continue;
			const imports = [...text.matchAll(/from '\.\/([\w-]+)'/g)].map((m) => m[1]);
			if (imports.some((i) => found.has(i))) {
				found.add(name);
				grew = true;
			}
		}
	}
	return found;
}

/** Every test/*.test.ts that imports a support module that loads the harness. */
function workflowTestFiles() {
	const dir = path.join(ROOT, 'test');
	const support = workflowSupportModules();
	return fs
		.readdirSync(dir)
		.filter((f) => f.endsWith('.test.ts'))
		.filter((f) => {
			const text = fs.readFileSync(path.join(dir, f), 'utf8');
			return [...text.matchAll(/from '\.\/support\/([\w-]+)'/g)].some((m) => support.has(m[1]));
		})
		.sort();
}

/** The files left out on a line, with the reason. */
function exclusionsOf(line) {
	return { ...EXCLUDE, ...(LINE_EXCLUDE[line] ?? {}) };
}

/** The files jest runs for a line: the identity check, then every workflow test file not excluded. Throws under MIN_FILES. */
function testFiles(line = '2.8') {
	const dir = path.join(ROOT, 'test');
	const excluded = exclusionsOf(line);
	const all = workflowTestFiles();
	const unknown = Object.keys(excluded).filter((f) => !all.includes(f));
	if (unknown.length) throw new Error(`[${line}] excluded file(s) not among the workflow test files: ${unknown.join(', ')}`);
	// Independent of the selection above: the files that name the harness or the fixtures themselves.
	const direct = fs
		.readdirSync(dir)
		.filter((f) => f.endsWith('.test.ts') && !(f in excluded))
		.filter((f) => /from '\.\/support\/(harness|fixtures)'/.test(fs.readFileSync(path.join(dir, f), 'utf8')));
	const selected = all.filter((f) => !(f in excluded));
	const missed = direct.filter((f) => !selected.includes(f));
	if (missed.length) throw new Error(`[${line}] workflow test file(s) not selected: ${missed.join(', ')}`);
	if (selected.length < MIN_FILES) {
		throw new Error(`[${line}] only ${selected.length} workflow test file(s) selected (at least ${MIN_FILES} expected): the selection is broken`);
	}
	return [path.join(dir, 'compat', 'identity.compat.ts'), ...selected.map((f) => path.join(dir, f))];
}

function readJson(file) {
	try {
		return JSON.parse(fs.readFileSync(file, 'utf8'));
	} catch {
		return undefined;
	}
}

function installedVersion(modules, name) {
	return readJson(path.join(modules, name, 'package.json'))?.version;
}

function log(message) {
	process.stdout.write(`${message}\n`);
}

/** Installs the line into CACHE/<line>/ unless its marker says it is already there. Returns the folder. */
function ensureInstalled(spec) {
	const dir = path.join(CACHE, spec.line);
	const marker = path.join(dir, '.installed.json');
	const modules = path.join(dir, 'node_modules');
	const want = { 'n8n-core': spec.core, 'n8n-workflow': spec.workflow };
	const have = readJson(marker);
	if (
		have &&
		have['n8n-core'] === spec.core &&
		have['n8n-workflow'] === spec.workflow &&
		installedVersion(modules, 'n8n-core') === spec.core &&
		installedVersion(modules, 'n8n-workflow') === spec.workflow
	) {
		return dir;
	}
	log(`[${spec.line}] installing n8n-core@${spec.core} n8n-workflow@${spec.workflow} into ${path.relative(ROOT, dir)}/ ...`);
	fs.mkdirSync(dir, { recursive: true });
	fs.rmSync(marker, { force: true });
	fs.writeFileSync(
		path.join(dir, 'package.json'),
		`${JSON.stringify({ name: `vs-compat-${spec.line.replace(/\W/g, '-')}`, private: true, dependencies: want }, null, 2)}\n`,
	);
	const started = Date.now();
	const r = spawnSync(NPM, ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
		cwd: dir,
		stdio: 'inherit',
	});
	if (r.status !== 0) throw new Error(`npm install failed in ${dir} (exit ${r.status})`);
	for (const [name, version] of Object.entries(want)) {
		const got = installedVersion(modules, name);
		if (got !== version) throw new Error(`${name}: expected ${version} in ${modules}, found ${got}`);
	}
	fs.writeFileSync(marker, `${JSON.stringify(want)}\n`);
	log(`[${spec.line}] installed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
	return dir;
}

/** Runs jest for one line; returns the row of the summary. */
function runLine(spec, files, verbose) {
	const row = { line: spec.line, n8n: spec.n8n, core: '?', workflow: '?', passed: 0, failed: 0, skipped: 0, note: '', failures: [] };
	const started = Date.now();
	let compatDir;
	try {
		compatDir = spec.installed ? undefined : ensureInstalled(spec);
	} catch (error) {
		row.note = String(error.message ?? error);
		row.failed = NaN;
		return row;
	}
	const modules = compatDir ? path.join(compatDir, 'node_modules') : path.join(ROOT, 'node_modules');
	row.core = installedVersion(modules, 'n8n-core') ?? '?';
	row.workflow = installedVersion(modules, 'n8n-workflow') ?? '?';
	const outDir = path.join(CACHE, 'results');
	fs.mkdirSync(outDir, { recursive: true });
	const outputFile = path.join(outDir, `${spec.line}.json`);
	const logFile = path.join(outDir, `${spec.line}.log`);
	fs.rmSync(outputFile, { force: true });
	const env = {
		...process.env,
		VS_FAULT_RUNS: process.env.VS_FAULT_RUNS ?? '20',
		VS_COMPAT_CORE: row.core,
		VS_COMPAT_WORKFLOW: row.workflow,
		VS_COMPAT_LINE: spec.line,
	};
	if (compatDir) env.VS_COMPAT_DIR = compatDir;
	else delete env.VS_COMPAT_DIR;
	log(`[${spec.line}] jest with n8n-core ${row.core}, n8n-workflow ${row.workflow} (${files.length} files) ...`);
	const r = spawnSync(
		process.execPath,
		[
			require.resolve('jest/bin/jest', { paths: [ROOT] }),
			'--config',
			path.join(ROOT, 'test', 'compat', 'jest.config.js'),
			'--runTestsByPath',
			'--json',
			'--outputFile',
			outputFile,
			'--ci',
			...files,
		],
		{ cwd: ROOT, env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, stdio: verbose ? 'inherit' : 'pipe' },
	);
	if (!verbose) fs.writeFileSync(logFile, `${r.stdout ?? ''}${r.stderr ?? ''}`);
	row.seconds = (Date.now() - started) / 1000;
	const result = readJson(outputFile);
	if (!result) {
		row.note = `jest produced no results (exit ${r.status})`;
		row.failed = NaN;
	} else {
		row.passed = result.numPassedTests;
		row.failed = result.numFailedTests;
		row.skipped = result.numPendingTests + (result.numTodoTests ?? 0);
		for (const suite of result.testResults) {
			const file = path.relative(ROOT, suite.name);
			for (const t of suite.assertionResults) {
				if (t.status === 'failed') row.failures.push({ file, name: t.fullName, message: t.failureMessages?.[0] ?? '' });
			}
			if (suite.status === 'failed' && suite.assertionResults.every((t) => t.status !== 'failed')) {
				row.failures.push({ file, name: '(suite failed to run)', message: suite.message });
				row.failed += 1;
			}
		}
		if (r.status !== 0 && row.failed === 0) row.note = `jest exit ${r.status} (see ${path.relative(ROOT, logFile)})`;
	}
	if (r.status !== 0 && !row.note) row.note = `see ${path.relative(ROOT, logFile)}`;
	row.ok = r.status === 0 && row.failed === 0;
	if (!row.ok && !verbose) {
		const text = `${r.stdout ?? ''}${r.stderr ?? ''}`.split('\n');
		log(text.slice(-60).join('\n'));
	}
	return row;
}

function table(rows) {
	const head = ['line', 'n8n', 'n8n-core', 'n8n-workflow', 'passed', 'failed', 'skipped', 'time', 'result'];
	const body = rows.map((r) => [
		r.line,
		r.n8n,
		r.core,
		r.workflow,
		String(r.passed),
		Number.isNaN(r.failed) ? '-' : String(r.failed),
		String(r.skipped),
		r.seconds ? `${r.seconds.toFixed(0)} s` : '-',
		r.ok ? 'ok' : `FAIL${r.note ? ` (${r.note})` : ''}`,
	]);
	const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
	const line = (cells) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
	return [line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)].join('\n');
}

function checkLatest() {
	const versions = (name) => {
		const r = spawnSync(NPM, ['view', name, 'versions', '--json', '--loglevel=error'], { encoding: 'utf8' });
		if (r.status !== 0) throw new Error(`npm view ${name} failed: ${r.stderr}`);
		return JSON.parse(r.stdout);
	};
	const newest = (list, prefix) =>
		list
			.filter((v) => v.startsWith(`${prefix}.`) && !v.includes('-'))
			.sort((a, b) => Number(a.split('.')[2]) - Number(b.split('.')[2]))
			.pop();
	const core = versions('n8n-core');
	const workflow = versions('n8n-workflow');
	for (const spec of LINES.filter((l) => !l.installed)) {
		const c = newest(core, spec.coreRange);
		const w = newest(workflow, spec.workflowRange);
		const mark = (pinned, latest) => (pinned === latest ? `${pinned} (newest)` : `${pinned} -> newest ${latest}`);
		log(`${spec.line}: n8n-core ${mark(spec.core, c)}, n8n-workflow ${mark(spec.workflow, w)}`);
	}
	const stable = core.filter((v) => !v.includes('-'));
	const byVersion = (a, b) => {
		const [x, y] = [a, b].map((v) => v.split('.').map(Number));
		return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
	};
	for (const major of ['1', '2']) {
		log(`newest n8n-core ${major}.x published: ${stable.filter((v) => v.startsWith(`${major}.`)).sort(byVersion).pop()}`);
	}
}

function main() {
	const args = process.argv.slice(2);
	const flags = new Set(args.filter((a) => a.startsWith('--')));
	for (const f of flags) {
		if (!['--no-build', '--verbose', '--check-latest'].includes(f)) throw new Error(`unknown option ${f}`);
	}
	if (flags.has('--check-latest')) return checkLatest();
	const wanted = args.filter((a) => !a.startsWith('--'));
	const unknown = wanted.filter((w) => !LINES.some((l) => l.line === w));
	if (unknown.length) throw new Error(`unknown line(s) ${unknown.join(', ')}; lines: ${LINES.map((l) => l.line).join(', ')}`);
	const lines = wanted.length ? LINES.filter((l) => wanted.includes(l.line)) : LINES;

	const started = Date.now();
	if (!flags.has('--no-build')) {
		log('building the package (npm run build) ...');
		const b = spawnSync(NPM, ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
		if (b.status !== 0) {
			log('build failed');
			process.exitCode = 1;
			return undefined;
		}
	}
	const verbose = flags.has('--verbose');
	const selections = lines.map((spec) => ({ spec, files: testFiles(spec.line) }));
	for (const { spec, files } of selections) {
		log(`[${spec.line}] ${files.length} test files${verbose ? `: ${files.map((f) => path.relative(ROOT, f)).join(', ')}` : ''}`);
		for (const [file, reason] of Object.entries(exclusionsOf(spec.line))) log(`[${spec.line}]   left out: ${file} (${reason})`);
	}
	const rows = selections.map(({ spec, files }) => runLine(spec, files, verbose));

	const baseline = rows.find((r) => r.line === '2.8');
	log(`\nCompatibility (in-process workflow tests per n8n line, Node ${process.version})\n`);
	log(table(rows));
	for (const row of rows.filter((r) => r.failures.length)) {
		log(`\n${row.line} failures:`);
		for (const f of row.failures) {
			const alsoBase = baseline && baseline !== row && baseline.failures.some((b) => b.name === f.name && b.file === f.file);
			const first = f.message.split('\n').find((l) => l.trim()) ?? '';
			log(`  ${f.file} › ${f.name}${alsoBase ? '  [fails on 2.8 too]' : ''}\n      ${first.trim().slice(0, 300)}`);
		}
	}
	log(`\ntotal ${((Date.now() - started) / 1000).toFixed(0)} s; results and logs in ${path.relative(ROOT, path.join(CACHE, 'results'))}/`);
	process.exitCode = rows.every((r) => r.ok) ? 0 : 1;
	return undefined;
}

module.exports = { LINES, EXCLUDE, LINE_EXCLUDE, MIN_FILES, exclusionsOf, testFiles, workflowSupportModules, workflowTestFiles };

if (require.main === module) {
	try {
		main();
	} catch (error) {
		process.stderr.write(`${error.message ?? error}\n`);
		process.exitCode = 1;
	}
}
