import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { operationsTable, readmeSection, checksTable, checksSection, optionsTable, optionsSection, CHECKS_DOC } = require('../scripts/operations-table.js') as {
	operationsTable(): string;
	readmeSection(readme: string): string | undefined;
	checksTable(): string;
	checksSection(text: string): string | undefined;
	optionsTable(): string;
	optionsSection(readme: string): string | undefined;
	CHECKS_DOC: string;
};

const readme = readFileSync(path.join(__dirname, '..', 'README.md'), 'utf8');

describe('README', () => {
	test('starts with the try-it and test commands', () => {
		const firstBlock = readme.split('```')[1];
		expect(firstBlock).toMatch(/npm ci && npm run demo/);
		expect(firstBlock).toMatch(/npm test/);
	});

	test('the operations table is the one generated from the operation rows', () => {
		expect(readmeSection(readme)).toBe(operationsTable());
	});

	test('the checks table (docs/checks-before-sending.md) is the one generated from scripts/checks-before-sending.ts', () => {
		expect(checksSection(readFileSync(path.join(__dirname, '..', CHECKS_DOC), 'utf8'))).toBe(checksTable());
	});

	test('the Options table (defaults, limits, descriptions) is the one generated from the node', () => {
		expect(optionsSection(readme)).toBe(optionsTable());
	});

	test('is at most about 350 lines', () => {
		expect(readme.split('\n').length).toBeLessThanOrEqual(350);
	});

	test.each([
		'Try it',
		'Install',
		'Credentials',
		'Operations',
		'Trigger',
		'Examples',
		'Troubleshooting',
		'Compatibility',
		'Development',
	])('has a "%s" section', (title) => {
		expect(readme).toMatch(new RegExp(`^## ${title}$`, 'm'));
	});
});

describe('README "Try it" and the demo banner (test/e2e/runner/demo.js) say the same', () => {
	const demo = readFileSync(path.join(__dirname, 'e2e', 'runner', 'demo.js'), 'utf8');
	const tryIt = readme.slice(readme.indexOf('## Try it'), readme.indexOf('## Install'));
	const examples = readdirSync(path.join(__dirname, '..', 'examples')).filter((f) => f.endsWith('.json'));

	test('the curl that sends an event has the same body', () => {
		const readmeBody = /__dev\/events -H 'content-type: application\/json' -d '([^']+)'/.exec(tryIt)?.[1];
		const bannerBody = /__dev\/events -H 'content-type: application\/json'[^\n]*\n[^\n]*-d '([^']+)'/.exec(demo)?.[1];
		expect(readmeBody).toBeDefined();
		expect(readmeBody).toBe(bannerBody);
	});

	test('every option the demo takes is in "Try it"', () => {
		const header = demo.slice(0, demo.indexOf("'use strict'"));
		const options = [...new Set(header.slice(header.indexOf('Options:')).match(/--[a-z][a-z0-9-]*/g))];
		expect(options).toEqual(expect.arrayContaining(['--port', '--sandbox-port', '--no-build', '--keep', '--n8n', '--latest']));
		expect(options.filter((o) => !tryIt.includes(`\`${o}`))).toEqual([]);
	});

	test.each(examples)('example %s is in the README\'s Examples table and in the demo banner', (file) => {
		expect(readme).toContain(`| \`${file}\` |`);
		expect(demo).toContain(`byName['${file}']`);
	});

	test('"Try it" has an entry per example, as the banner does', () => {
		const entries = tryIt.split('\n').filter((l) => /^- \*\*[^*]+\*\*/.test(l));
		expect(entries).toHaveLength(examples.length);
	});
});

describe('README top block: the times a newcomer waits are measured ones', () => {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { testLine, FILE } = require('../scripts/newcomer-times.js') as { testLine: (t: unknown) => string; FILE: string };
	test('the npm test line gives the npm ci and npm test times of docs/newcomer-times.json (scripts/newcomer-times.js)', () => {
		const times = JSON.parse(readFileSync(FILE, 'utf8')) as { npmCiSeconds: number; npmTestSeconds: number; loadBefore: number };
		expect(readme.split('\n')).toContain(testLine(times));
		// Measured, not typed: a figure the file holds came with its seconds and the load it ran at.
		expect(times.npmCiSeconds).toBeGreaterThan(0);
		expect(times.npmTestSeconds).toBeGreaterThan(0);
		expect(times.loadBefore).toBeLessThan(1);
	});
});
