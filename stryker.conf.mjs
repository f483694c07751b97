// @ts-check
/**
 * The mutation run of the money and redaction rooms (`npm run test:mutation`, scripts/mutation.js;
 * docs/reliability.md "Mutation testing"). One StrykerJS run per group, chosen by VS_MUTATION_GROUP:
 * each group mutates the guard functions of a few files (line ranges) and runs the nearest tests
 * only, so a mutant costs the tests that cover it (perTest), not the suite.
 *
 * The TypeScript sources are mutated (mutant switching) and built once in Stryker's sandbox
 * (`npm run build`), so the tests read them both ways they do in `npm test`: the compiled package
 * under dist/ that n8n-core loads and runs, and the sources a unit test imports.
 */

/** @type {Record<string, { mutate: string[]; tests: string[] }>} */
export const GROUPS = {
	// The outcome classifier of a money write's answer.
	outcomes: {
		mutate: ['nodes/shared/transport/outcomes.ts'],
		tests: ['outcome-table'],
	},
	// The cap (checkAmounts) and the read-back of what the service recorded (readBack).
	cap: {
		mutate: ['nodes/shared/money/cap.ts:38-71', 'nodes/shared/money/readBack.ts:81-113'],
		tests: ['money-gate', 'money'],
	},
	// The spending budgets: hold, refuse, give back, count what the service recorded (reserve,
	// countInExecution, countInStaticDay, recorded, giveBackExecution, release); the agent rule.
	budget: {
		mutate: [
			'nodes/shared/money/budget.ts:135-150',
			'nodes/shared/money/budget.ts:175-201',
			'nodes/shared/money/budget.ts:247-300',
			'nodes/shared/money/admitSteps.ts:43-50',
		],
		tests: ['budget', 'budget-midnight', 'agent-tool', 'agent-sub-workflow'],
	},
	// The card detector (issuer, Luhn, the card numbers of a chain of digit groups), card data in
	// records (security-code fields, card-number fields, the record walk), declared secret fields;
	// card-data-records holds cardData's unit cases, output-gate runs the gate in n8n-core.
	redaction: {
		mutate: [
			'nodes/shared/redaction/detector.ts:39-67',
			'nodes/shared/redaction/detector.ts:317-345',
			'nodes/shared/redaction/cardData.ts:95-112',
			'nodes/shared/redaction/cardData.ts:137-143',
			'nodes/shared/redaction/cardData.ts:168-205',
			'nodes/shared/redaction/hidden.ts',
		],
		tests: ['card-detector', 'card-data-records', 'hidden-fields', 'output-gate'],
	},
};

const group = process.env.VS_MUTATION_GROUP ?? 'outcomes';
const chosen = GROUPS[group];
if (chosen === undefined) throw new Error(`VS_MUTATION_GROUP: no group "${group}" (${Object.keys(GROUPS).join(', ')})`);

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
	packageManager: 'npm',
	testRunner: 'jest',
	plugins: ['@stryker-mutator/jest-runner'],
	mutate: chosen.mutate,
	// Message texts are not mutated: a guard's decision is, its wording is checked where it matters.
	mutator: { excludedMutations: ['StringLiteral'] },
	buildCommand: 'npm run build --silent',
	disableTypeChecks: 'nodes/**/*.ts',
	coverageAnalysis: 'perTest',
	// A mutant of a module-level constant would run every test of the group: not run (counted as ignored).
	ignoreStatic: true,
	concurrency: 1,
	// n8n-core keeps process-wide handles per jest run: a fresh test runner every 30 mutants bounds its memory.
	maxTestRunnerReuse: 30,
	timeoutMS: 20000,
	timeoutFactor: 1.5,
	jest: {
		configFile: 'jest.config.js',
		// The node's tests load dist/ at run time (n8n-core's loader): jest cannot see that dependency.
		enableFindRelatedTests: false,
		config: { testMatch: chosen.tests.map((name) => `**/test/${name}.test.ts`), maxWorkers: 1 },
	},
	ignorePatterns: ['dist', 'out', '.e2e', '.compat', 'coverage', 'bench/.tmp', 'test/screenshots', '*.tgz'],
	tempDirName: '.stryker-tmp',
	reporters: ['clear-text', 'progress-append-only', 'html', 'json'],
	htmlReporter: { fileName: `reports/mutation/${group}.html` },
	jsonReporter: { fileName: `reports/mutation/${group}.json` },
	clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
};
