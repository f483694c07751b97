// @ts-check
/**
 * The example workflows (examples/*.json) as the e2e suite imports and runs them.
 * Part of the e2e runner's library (lib.js gathers it).
 */
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { CREDENTIALS, ROOT } = require('./package-info');

const EXAMPLES_DIR = path.join(ROOT, 'examples');

/** The example workflows of this package (the files the e2e suite and demo import). */
function exampleWorkflows() {
	return fs
		.readdirSync(EXAMPLES_DIR)
		.filter((f) => f.endsWith('.json'))
		.sort()
		.map((f) => {
			const file = path.join(EXAMPLES_DIR, f);
			const wf = JSON.parse(fs.readFileSync(file, 'utf8'));
			return { file, name: f, id: wf.id, title: wf.name, workflow: wf };
		});
}

/** Credentials in the format `n8n import:credentials` reads (data is encrypted on import). */
function credentialsFor(sandbox) {
	const c = sandbox.credentials();
	return [
		{ ...CREDENTIALS.store, data: c.vaultStoreStoreApi },
		{ ...CREDENTIALS.vault, data: c.vaultStoreVaultApi },
	];
}

/** Whether the node types a workflow uses are all available (operations still being written). */
function nodeTypesOf(wf) {
	return [...new Set((wf.nodes ?? []).map((/** @type {any} */ n) => n.type))];
}


/** Parameters n8n adds to the `<name>Tool` variant of a node that is usableAsTool. */
const TOOL_PARAMETERS = ['descriptionType', 'toolDescription'];

/**
 * What a workflow needs that the built package does not have yet (operations and the trigger are
 * written in parallel): an empty list when the workflow can run.
 * @param {string} pkgDir the installed package @param {any} wf
 */
function missingInBuild(pkgDir, wf) {
	const pj = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
	/** @type {Record<string, any>} */
	const descriptions = {};
	for (const rel of pj.n8n.nodes) {
		const mod = require(path.join(pkgDir, rel));
		for (const Cls of Object.values(mod)) {
			if (typeof Cls !== 'function') continue;
			const d = new /** @type {any} */ (Cls)().description;
			if (!d?.name) continue;
			descriptions[`${pj.name}.${d.name}`] = d;
			// n8n makes the tool type `<name>Tool` itself from a node that is usableAsTool.
			if (d.usableAsTool) descriptions[`${pj.name}.${d.name}Tool`] = d;
		}
	}
	const missing = [];
	for (const node of wf.nodes ?? []) {
		if (!String(node.type).startsWith(`${pj.name}.`)) continue;
		const d = descriptions[node.type];
		if (!d) {
			missing.push(`node type ${node.type}`);
			continue;
		}
		const props = /** @type {any[]} */ (d.properties);
		const { resource, operation } = node.parameters ?? {};
		if (resource !== undefined) {
			const res = props.find((p) => p.name === 'resource');
			if (!res?.options?.some((/** @type {any} */ o) => o.value === resource)) {
				missing.push(`${node.name}: resource ${resource}`);
				continue;
			}
			const ops = props.filter((p) => p.name === 'operation' && p.displayOptions?.show?.resource?.includes(resource));
			if (operation !== undefined && !ops.some((p) => p.options?.some((/** @type {any} */ o) => o.value === operation))) {
				missing.push(`${node.name}: operation ${resource}/${operation}`);
			}
		}
		for (const name of Object.keys(node.parameters ?? {})) {
			if (name === 'resource' || name === 'operation') continue;
			// The tool variant n8n makes has its own two parameters (the description the agent reads).
			if (String(node.type).endsWith('Tool') && TOOL_PARAMETERS.includes(name)) continue;
			if (!props.some((p) => p.name === name)) missing.push(`${node.name}: parameter ${name}`);
		}
	}
	return [...new Set(missing)];
}

module.exports = { EXAMPLES_DIR, credentialsFor, exampleWorkflows, missingInBuild, nodeTypesOf };
