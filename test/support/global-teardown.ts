import { rmSync } from 'node:fs';

import { SCAN_DIR_ENV, scanDirectory } from './secret-scan';

/** Fails the run if any workflow run of the suite output or logged a secret. */
export default async function globalTeardown(): Promise<void> {
	const dir = process.env[SCAN_DIR_ENV];
	if (!dir) return;
	const { scanned, leaks } = scanDirectory(dir);
	rmSync(dir, { recursive: true, force: true });
	// eslint-disable-next-line no-console
	console.log(`\nSecret scan: ${scanned} output items, error texts and log lines checked, ${leaks.length} leaks.`);
	if (leaks.length > 0) {
		throw new Error(`Secret scan found ${leaks.length} leak(s):\n${[...new Set(leaks)].slice(0, 50).join('\n')}`);
	}
}
