// The in-process harness loads the package the way n8n does: from the compiled
// files the package.json "n8n" section points at. Fail early if they are missing.
// Also prepares the folder where every run records its texts for the secret scan.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

module.exports = async () => {
	const pkg = require('../../package.json');
	const missing = [...pkg.n8n.nodes, ...pkg.n8n.credentials].filter(
		(p) => !fs.existsSync(path.join(__dirname, '..', '..', p)),
	);
	if (missing.length) {
		throw new Error(`Build the package first (npm run build): missing ${missing.join(', ')}`);
	}
	process.env.VS_SECRET_SCAN_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'vs-secret-scan-'));
};
