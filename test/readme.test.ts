import { readFileSync } from 'node:fs';
import path from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { operationsTable, readmeSection, checksTable, checksSection } = require('../scripts/operations-table.js') as {
	operationsTable(): string;
	readmeSection(readme: string): string | undefined;
	checksTable(): string;
	checksSection(readme: string): string | undefined;
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

	test('the checks table is the one generated from scripts/checks-before-sending.ts', () => {
		expect(checksSection(readme)).toBe(checksTable());
	});

	test.each([
		'Install',
		'Credentials',
		'Operations',
		'Trigger',
		'Vault tokens',
		'Using the node as an AI-agent tool',
		'Examples',
		'Reliability',
		'Performance',
		'Queue mode',
		'Troubleshooting',
		'Compatibility',
		'Development',
	])('has a "%s" section', (title) => {
		expect(readme).toMatch(new RegExp(`^## ${title}$`, 'm'));
	});
});
