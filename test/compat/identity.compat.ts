/**
 * Run by scripts/compat.js on every line before the workflow tests: proves the
 * run really uses the line's n8n-core and n8n-workflow, for the harness and for
 * the built nodes alike (one n8n-workflow instance, as in n8n itself).
 */
import { readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';

import { loadPackage, PACKAGE_ROOT, runNode } from '../support/harness';

function versionAt(resolved: string, name: string): string {
	let dir = path.dirname(resolved);
	while (!dir.endsWith(path.join('node_modules', name))) dir = path.dirname(dir);
	return (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string }).version;
}

describe('compat: the run uses the chosen n8n line', () => {
	const compatDir = process.env.VS_COMPAT_DIR ? path.resolve(process.env.VS_COMPAT_DIR) : undefined;
	// jest resolves symlinks: a worktree whose node_modules links to another checkout's loads from there.
	const home = realpathSync(compatDir ? path.join(compatDir, 'node_modules') : path.join(PACKAGE_ROOT, 'node_modules'));

	test.each(['n8n-core', 'n8n-workflow', '@n8n/di', '@n8n/backend-common'])('%s resolves into the line folder', (name) => {
		const resolved = require.resolve(name);
		expect(resolved.startsWith(home + path.sep)).toBe(true);
	});

	test('n8n-core and n8n-workflow have the expected versions', () => {
		if (process.env.VS_COMPAT_CORE) expect(versionAt(require.resolve('n8n-core'), 'n8n-core')).toBe(process.env.VS_COMPAT_CORE);
		if (process.env.VS_COMPAT_WORKFLOW) {
			expect(versionAt(require.resolve('n8n-workflow'), 'n8n-workflow')).toBe(process.env.VS_COMPAT_WORKFLOW);
		}
	});

	test('PackageDirectoryLoader loads the built nodes through jest (so they get the mapped n8n-workflow)', async () => {
		const loader = await loadPackage();
		const loaded = loader.nodeTypes.vaultStore.type;
		// Same module registry: the class the loader instantiated is the one jest's require returns.
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const mod = require(path.join(PACKAGE_ROOT, 'dist/nodes/VaultStore/VaultStore.node.js')) as Record<string, unknown>;
		// moduleNameMapper is applied to every require jest handles, whatever the requiring file, so the
		// node's require('n8n-workflow') is the mapped module checked above.
		expect(loaded.constructor).toBe(mod.VaultStore);
	});

	test('after a workflow ran, every n8n module jest loaded comes from the line folder, and the built nodes are among them', async () => {
		const credentials = {
			vaultStoreStoreApi: { baseUrl: 'http://127.0.0.1:9', storeId: 'sto_compatcheck01', secretKey: 'sk_compat_placeholder_0000', signingSecret: '' },
			vaultStoreVaultApi: { baseUrl: 'http://127.0.0.1:9', workspaceId: 'ws_compat', vaultId: 'vlt_compat', secretKey: 'vk_compat_placeholder_0000' },
		};
		// Fails in the node's own validator (dist/), before any request.
		const r = await runNode(
			{ resource: 'order', operation: 'get', orderId: { __rl: true, mode: 'id', value: '={{ $json.id }}' } },
			credentials,
			[{ json: { id: 'not-an-order-id' } }],
		);
		expect(r.error()?.stack).toContain(path.join(PACKAGE_ROOT, 'dist'));
		// jest's require.cache lists its module registry: the one registry the harness, n8n-core and the built nodes share.
		const loaded = Object.keys(require.cache);
		expect(loaded).toContain(path.join(PACKAGE_ROOT, 'dist/nodes/VaultStore/VaultStore.node.js'));
		const n8nModules = loaded.filter((file) => /[\\/]node_modules[\\/](n8n-core|n8n-workflow|@n8n)[\\/]/.test(file));
		expect(n8nModules.filter((file) => !file.startsWith(home + path.sep))).toEqual([]);
		// One n8n-workflow: its entry file was loaded from one place only.
		const entries = loaded.filter((file) => /[\\/]node_modules[\\/]n8n-workflow[\\/]dist[\\/](cjs[\\/])?index\.js$/.test(file));
		expect(entries).toEqual([require.resolve('n8n-workflow')]);
	});
});
