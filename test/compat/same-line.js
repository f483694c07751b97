/**
 * Run after every test file of `npm run test:compat` on another line (set up by
 * test/compat/jest.config.js): no n8n module, nor a library n8n-core hands the nodes
 * (@langchain/*, zod), was loaded from the package's own node_modules. identity.compat.ts
 * checks this for one workflow; this checks it for everything each test file ran (tool
 * calls, the engine route, the trigger's hook and webhook contexts, ...).
 */
const fs = require('node:fs');
const path = require('node:path');

const SHARED = /^(n8n-core|n8n-workflow|@n8n\/.+|@langchain\/.+|langchain|zod)$/;

afterAll(() => {
	if (!process.env.VS_COMPAT_DIR) return;
	const own = `${fs.realpathSync(path.resolve(__dirname, '..', '..', 'node_modules'))}${path.sep}`;
	const packageOf = (file) => {
		const parts = file.slice(own.length).split(path.sep);
		return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
	};
	const loaded = Object.keys(require.cache).map((file) => (file.startsWith(own) ? file : safeRealpath(file)));
	const outside = [...new Set(loaded.filter((file) => file.startsWith(own)).map(packageOf))].filter((name) => SHARED.test(name));
	expect(outside).toEqual([]);
});

function safeRealpath(file) {
	try {
		return fs.realpathSync(file);
	} catch {
		return file;
	}
}
