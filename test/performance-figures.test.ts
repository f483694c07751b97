/**
 * Every benchmark figure README.md and docs/performance.md quote comes from bench/RESULTS.md (the
 * file `npm run bench` writes): the generated blocks are exactly what scripts/performance-figures.js
 * makes of it, and a figure outside them (a ratio, a rate, a time, a size, a share, a count of 429s)
 * stands in bench/RESULTS.md or in a test that the figure's section names, so a hand-typed figure
 * cannot drift from the run.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const figuresScript = require('../scripts/performance-figures.js') as {
	RESULTS: string;
	PAGES: Record<string, Record<string, unknown>>;
	generate(results: string): Record<string, Record<string, string>>;
	blockIn(text: string, name: string): string | undefined;
	outsideBlocks(text: string): string;
	figures(text: string): Array<{ figure: string; number: string }>;
	standsIn(text: string, figure: string): boolean;
};
const { RESULTS, PAGES, generate, blockIn, outsideBlocks, figures, standsIn } = figuresScript;

const ROOT = path.resolve(__dirname, '..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const results = read(RESULTS);

/** A test's source names the figure: as written (unit spacing aside), or as a constant's value (`= 0.15;`). */
function testStates(source: string, figure: string, number: string): boolean {
	return standsIn(source, figure) || standsIn(source, figure.replace(' ', '')) || new RegExp(`=\\s*${number.replace(/[.,]/g, (c) => (c === '.' ? '\\.' : ''))}\\s*;`).test(source);
}

/**
 * Figures outside the generated blocks that are neither in bench/RESULTS.md nor in a test their
 * section (the text under a `##` heading) names as `test/<name>.test.ts`.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const newcomer = require('../scripts/newcomer-times.js') as { testLine: (t: unknown) => string; FILE: string };
/** The README's npm test line is written from docs/newcomer-times.json (test/readme.test.ts checks it): not a bench figure. */
const NEWCOMER_LINE = newcomer.testLine(JSON.parse(readFileSync(newcomer.FILE, 'utf8')));

function unsourced(page: string, text: string, resultsText = results): string[] {
	const sections = outsideBlocks(text)
		.split('\n')
		.filter((line) => line !== NEWCOMER_LINE)
		.join('\n')
		.split(/^(?=## )/m);
	return sections.flatMap((section) => {
		const tests = [...new Set([...section.matchAll(/test\/[\w/-]+\.test\.ts/g)].map((m) => m[0]))].filter((file) => existsSync(path.join(ROOT, file)));
		const sources = tests.map(read);
		const heading = /^## (.+)$/m.exec(section)?.[1] ?? '(top)';
		return figures(section)
			.filter(({ figure, number }) => !standsIn(resultsText, figure) && !sources.some((source) => testStates(source, figure, number)))
			.map(({ figure }) => `${page}, "${heading}": ${figure}`);
	});
}

const generated = generate(results);
/** A block's text on one line (the script wraps paragraphs). */
const flat = (text: string) => text.replace(/\s+/g, ' ');

describe.each(Object.keys(PAGES))('%s', (page) => {
	const text = read(page);

	test.each(Object.keys(PAGES[page]))('the bench-%s block is what bench/RESULTS.md gives (node scripts/performance-figures.js --write)', (name) => {
		expect(blockIn(text, name)).toBe(generated[page][name]);
	});

	test('holds no bench block the script does not write', () => {
		const names = [...text.matchAll(/<!-- bench-([\w-]+):begin/g)].map((m) => m[1]);
		expect(names.sort()).toEqual(Object.keys(PAGES[page]).sort());
	});

	test('every figure outside the generated blocks is in bench/RESULTS.md or in the test its section names', () => {
		expect(unsourced(page, text)).toEqual([]);
	});
});

describe('the checks can fail', () => {
	test('figures() reads ratios, rates, times, sizes, shares and 429s, not version numbers', () => {
		const found = figures('1.40x, 258,000/s, 50 requests/s, 198 ms, 2,239 ms, 20.8 s, 139 KB, 152 MB, 94 %, 158 429s; n8n 2.8.x, 1.123.x, 127.x').map((f) => f.figure);
		expect(found).toEqual(['1.40x', '258,000/s', '50 requests/s', '198 ms', '2,239 ms', '20.8 s', '139 KB', '152 MB', '94 %', '158 429s']);
	});

	test('a figure typed by hand outside the blocks is reported, in a page and in a section that names a test', () => {
		const page = read('docs/performance.md');
		const last = [...page.matchAll(/^## (.+)$/gm)].pop()?.[1];
		expect(unsourced('docs/performance.md', `${page}\nThe node ran 1.97x the HTTP Request node at 5 ms.\n`)).toEqual([`docs/performance.md, "${last}": 1.97x`]);
		const paced = page.replace('at most\n237 429s', 'at most\n238 429s');
		expect(paced).not.toBe(page);
		expect(unsourced('docs/performance.md', paced)).toEqual(['docs/performance.md, "How the node paces requests": 238 429s']);
		expect(unsourced('README.md', `${read('README.md')}\nIt runs 1.93x the HTTP Request node.\n`)).toEqual(['README.md, "License": 1.93x']);
	});

	test('a figure of RESULTS.md changes the block that quotes it', () => {
		const row = '| 1,000 items, 5 ms | Vault Store, default settings (open start, 32 requests per turn, ×8 per round trip, ceiling 1000) | 5 | 1000 | 0 | 568 |';
		expect(results).toContain(row);
		const changed = generate(results.replace(row, row.replace('| 568 |', '| 571 |')));
		expect(changed['docs/performance.md'].items).not.toBe(generated['docs/performance.md'].items);
		expect(changed['docs/performance.md'].items).toContain('| 1,000 items, 5 ms | 571 ms |');
		const speed = generate(results.replace('| 5 | 1000 | 0 | 568 | 489–652 | 1.41x |', '| 5 | 1000 | 0 | 568 | 489–652 | 1.43x |'));
		expect(flat(speed['README.md'].speed)).toContain('run 1.43x, 1.39x and 1.05x');
	});

	test('a target RESULTS.md marks not met is written as not met, and a verdict that disagrees with the figures stops the script', () => {
		expect(flat(generated['README.md'].speed)).toMatch(/CPU per item is lower except at 100 ms \(0\.82 vs 0\.81 ms\): target not met/);
		expect(flat(generated['docs/performance.md'].items)).toContain('CPU per item no more than the HTTP Request node\'s: **not met**');
		const cpuTarget = '| 0.64 vs 0.95 ms; 0.51 vs 0.82 ms; 0.82 vs 0.81 ms; 0.43 vs 0.70 ms | **not met** |';
		expect(results).toContain(cpuTarget);
		expect(() => generate(results.replace(cpuTarget, cpuTarget.replace('**not met**', 'met')))).toThrow(/CPU target says met/);
	});

	test('a section missing from RESULTS.md stops the script, naming it', () => {
		expect(() => generate(results.replace('#### 3c.', '#### 3x.'))).toThrow(/no section "3c\."/);
	});
});
