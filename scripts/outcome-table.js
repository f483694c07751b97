#!/usr/bin/env node
// The HTTP statuses of each money-write outcome, as the node classifies them
// (nodes/shared/transport/outcomes.ts, compiled in dist/): writes them into docs/money-safety.md
// between the outcome-statuses markers with --write; test/outcome-table.test.ts checks the page
// says what the code does. Run `npm run build` first.
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const DOC = path.join(ROOT, 'docs', 'money-safety.md');
const START = '<!-- outcome-statuses: written by scripts/outcome-table.js -->';
const END = '<!-- /outcome-statuses -->';

const NAMES = {
	applied: 'Applied',
	notApplied: 'Provably not applied',
	unanswered: 'Unanswered',
	failed: 'Failed',
};

/** Each outcome's final statuses (200–599) as ranges, from the compiled classifier. */
function statusesByOutcome(moneyOutcomeOf = require(path.join(ROOT, 'dist', 'nodes', 'shared', 'transport', 'outcomes.js')).moneyOutcomeOf) {
	const ranges = {};
	for (let status = 200; status <= 599; status++) {
		const outcome = moneyOutcomeOf(status);
		const list = (ranges[outcome] ??= []);
		const last = list[list.length - 1];
		if (last !== undefined && last[1] === status - 1) last[1] = status;
		else list.push([status, status]);
	}
	return ranges;
}

function block(ranges = statusesByOutcome()) {
	const lines = Object.entries(NAMES).map(([outcome, name]) => {
		const list = (ranges[outcome] ?? []).map(([a, b]) => (a === b ? `${a}` : `${a}–${b}`)).join(', ');
		return `- ${name}: ${list || 'none'}`;
	});
	return [START, 'The HTTP statuses of each outcome, as the node classifies them (`nodes/shared/transport/outcomes.ts`, the one classifier the transport and the once record read):', '', ...lines, END].join('\n');
}

/** The block the page holds now, or undefined. */
function current(text = fs.readFileSync(DOC, 'utf8')) {
	const a = text.indexOf(START);
	const b = text.indexOf(END);
	return a === -1 || b === -1 ? undefined : text.slice(a, b + END.length);
}

if (require.main === module) {
	const text = fs.readFileSync(DOC, 'utf8');
	const now = current(text);
	const want = block();
	if (process.argv.includes('--write')) {
		if (now === undefined) throw new Error(`docs/money-safety.md has no ${START} block`);
		fs.writeFileSync(DOC, text.replace(now, want));
		console.log('docs/money-safety.md: outcome statuses written');
	} else {
		console.log(want);
		process.exitCode = now === want ? 0 : 1;
	}
}

module.exports = { statusesByOutcome, block, current };
