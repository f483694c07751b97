#!/usr/bin/env node
// The mutation run of the money and redaction rooms (`npm run test:mutation`): one StrykerJS run per
// group of stryker.conf.mjs (`node scripts/mutation.js budget redaction` runs those only), one after
// the other, each on one test runner (concurrency 1). Prints each file's score from the JSON
// reports (reports/mutation/<group>.json, with an HTML report beside it), the time of each run and
// the machine's load average. docs/reliability.md "Mutation testing" records a run.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const ALL = ['outcomes', 'cap', 'budget', 'redaction'];
const groups = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ALL;
const unknown = groups.filter((g) => !ALL.includes(g));
if (unknown.length > 0) {
	console.error(`No mutation group ${unknown.join(', ')} (${ALL.join(', ')})`);
	process.exit(2);
}

const DETECTED = new Set(['Killed', 'Timeout']);
const UNDETECTED = new Set(['Survived', 'NoCoverage']);

/** Per file: killed (with timeouts), survived, no coverage, and the score over the valid mutants. */
function scores(report) {
	return Object.entries(report.files).map(([file, { mutants }]) => {
		const count = (set) => mutants.filter((m) => set.has(m.status)).length;
		const detected = count(DETECTED);
		const undetected = count(UNDETECTED);
		const survived = mutants.filter((m) => m.status === 'Survived');
		return {
			file,
			detected,
			survived: survived.length,
			noCoverage: count(new Set(['NoCoverage'])),
			ignored: count(new Set(['Ignored'])),
			score: detected + undetected === 0 ? 100 : (100 * detected) / (detected + undetected),
			survivors: survived.map((m) => `${file}:${m.location.start.line}:${m.location.start.column} ${m.mutatorName} → ${JSON.stringify(m.replacement)}`),
		};
	});
}

let failed = false;
const rows = [];
for (const group of groups) {
	const load = os.loadavg()[0].toFixed(1);
	const started = Date.now();
	console.log(`\n== mutation group ${group} (load average ${load} on ${os.cpus().length} cores)`);
	const run = spawnSync(process.execPath, [path.join(ROOT, 'node_modules', '@stryker-mutator', 'core', 'bin', 'stryker.js'), 'run', 'stryker.conf.mjs'], {
		cwd: ROOT,
		stdio: 'inherit',
		env: { ...process.env, VS_MUTATION_GROUP: group },
	});
	const minutes = ((Date.now() - started) / 60000).toFixed(1);
	if (run.status !== 0) {
		failed = true;
		console.error(`group ${group} failed (exit ${run.status})`);
		continue;
	}
	const report = JSON.parse(fs.readFileSync(path.join(ROOT, 'reports', 'mutation', `${group}.json`), 'utf8'));
	for (const row of scores(report)) rows.push({ group, minutes, load, ...row });
}

console.log('\ngroup       | file                                          | score  | killed | survived | no cov | ignored | min | load');
for (const r of rows) {
	console.log(
		`${r.group.padEnd(11)} | ${r.file.padEnd(45)} | ${r.score.toFixed(1).padStart(5)}% | ${String(r.detected).padStart(6)} | ${String(r.survived).padStart(8)} | ${String(r.noCoverage).padStart(6)} | ${String(r.ignored).padStart(7)} | ${r.minutes.padStart(3)} | ${r.load}`,
	);
}
const survivors = rows.flatMap((r) => r.survivors);
if (survivors.length > 0) console.log(`\nSurvivors (${survivors.length}):\n${survivors.join('\n')}`);
process.exit(failed ? 1 : 0);
