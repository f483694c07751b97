import { readFileSync } from 'node:fs';
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
