/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.dev.json' }] },
	testTimeout: 120000,
	// One worker per core (jest's default leaves one core idle): each worker starts its own sandboxes.
	maxWorkers: '100%',
	// n8n-core keeps process-wide handles (DI services) open after a run.
	forceExit: true,
	globalSetup: '<rootDir>/test/support/global-setup.js',
	globalTeardown: '<rootDir>/test/support/global-teardown.ts',
};
