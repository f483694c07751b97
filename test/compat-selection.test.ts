/**
 * `npm run test:compat` runs the workflow tests on other n8n lines; it once ran none of them (its
 * file filter matched no import, so each line passed with the identity check alone). These checks
 * fail `npm test` when scripts/compat.js's testFiles() stops selecting the workflow test files.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

interface Compat {
	LINES: Array<{ line: string; installed?: boolean }>;
	EXCLUDE: Record<string, string>;
	LINE_EXCLUDE: Record<string, Record<string, string>>;
	MIN_FILES: number;
	exclusionsOf(line: string): Record<string, string>;
	testFiles(line: string): string[];
}

const ROOT = path.resolve(__dirname, '..');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const compat = require(path.join(ROOT, 'scripts', 'compat.js')) as Compat;
const OTHER_LINES = compat.LINES.filter((l) => !l.installed).map((l) => l.line);

/** Test files that name a support module which runs workflows in n8n-core (written out here on purpose). */
const WORKFLOW_IMPORT = /from '\.\/support\/(harness|fixtures|trigger-harness|agent-routes|loop|once-record-support)'/;
const workflowFiles = readdirSync(__dirname)
	.filter((f) => f.endsWith('.test.ts') && WORKFLOW_IMPORT.test(readFileSync(path.join(__dirname, f), 'utf8')))
	.sort();

test('there are workflow test files at all (the pattern here matches the imports)', () => {
	expect(workflowFiles.length).toBeGreaterThan(compat.MIN_FILES);
	expect(workflowFiles).toEqual(expect.arrayContaining(['trigger.test.ts', 'agent-tool.test.ts', 'money-outcomes.test.ts']));
});

describe.each(OTHER_LINES)('line %s', (line) => {
	const selected = compat.testFiles(line).map((f) => path.relative(__dirname, f));
	const excluded = compat.exclusionsOf(line);

	test('runs the identity check first, then every workflow test file not left out with a reason', () => {
		expect(selected[0]).toBe(path.join('compat', 'identity.compat.ts'));
		expect(selected.slice(1)).toEqual(workflowFiles.filter((f) => !(f in excluded)));
		expect(selected.length - 1).toBeGreaterThanOrEqual(compat.MIN_FILES);
	});

	test('every file left out is a workflow test file, with a reason', () => {
		for (const [file, reason] of Object.entries(excluded)) {
			expect(workflowFiles).toContain(file);
			expect(reason.length).toBeGreaterThan(10);
		}
	});
});

test("README's Compatibility names every file left out", () => {
	const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
	const section = readme.slice(readme.indexOf('## Compatibility'), readme.indexOf('\n## ', readme.indexOf('## Compatibility') + 1));
	const left = [...Object.keys(compat.EXCLUDE), ...Object.values(compat.LINE_EXCLUDE).flatMap((files) => Object.keys(files))];
	for (const file of left) expect(section).toContain(file);
});
