/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.dev.json', isolatedModules: true }] },
	testTimeout: 120000,
	globalSetup: '<rootDir>/test/global-setup.js',
};
