/**
 * Saved workflows keep working: the node's parameters, per resource and
 * operation, are what version 0.1.0 offered (test/fixtures/description-0.1.0.json,
 * written from the 0.1.0 description), except for the corrections listed here.
 * New operations and new optional parameters may be added; none may disappear
 * or change shape. Every
 * example workflow's Vault Store parameters are still parameters of the node.
 *
 * The fixture is the canonical form of the 0.1.0 release itself (dc492f4, packed as
 * `npm run test:e2e:upgrade` packs it; .e2e/release-dc492f4bc1ed/*.tgz). To write it again from
 * that release's dist/ (unpacked):
 *   VS_WRITE_DESCRIPTION_FIXTURE=<unpacked 0.1.0>/package/dist npx jest test/description.test.ts
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import type { IDataObject, INodeTypeDescription } from 'n8n-workflow';

import { VaultStore } from '../nodes/VaultStore/VaultStore.node';
import { optionsFor } from '../nodes/VaultStore/options';
import { resources } from '../nodes/VaultStore/resources';
import type { Canon } from './support/description-canon';
import { canonical, operationDefaults } from './support/description-canon';

const FIXTURE = path.join(__dirname, 'fixtures', 'description-0.1.0.json');

/** Deliberate corrections since 0.1.0: resource:operation → parameter → the new canonical form's differing keys. */
const CORRECTIONS: Record<string, Record<string, (old: Record<string, unknown>, key: string) => Record<string, unknown>>> = {
	// The refund amount said minValue 0 and default 0 while the request requires at least 0.01.
	'order:refund': {
		additionalFields: (old) => {
			const children = old.children as Record<string, Record<string, unknown>>;
			return { ...old, children: { ...children, amount: { ...children.amount, default: 0.01, minValue: 0.01 } } };
		},
	},
	// (The payout Amount's default 0.01 is version 2's: version 1 keeps 0, see nodes/VaultStore/versions.ts.)
	// Required fields of mandate creation are not given by the spec: Description is optional (not sent when empty).
	'mandate:create': {
		description: ({ required: _required, ...old }) => old,
		// Nor Frequency: an empty one (from an expression) is not sent, with a warning.
		frequency: ({ required: _required, ...old }) => old,
	},
	// The spec gives a category's Name and Slug lengths, not that they are required: an empty one is not sent, with a warning.
	'category:create': {
		name: ({ required: _required, ...old }) => old,
		slug: ({ required: _required, ...old }) => old,
	},
	// New options inside existing collections (category Top Level, token Metadata (JSON)) need no entry: additions are allowed.
};

/** Corrections of a node-wide parameter, shown for every operation. */
const EVERY_OPERATION: Record<string, (old: Record<string, unknown>, key: string) => Record<string, unknown>> = {
	// Concurrency became the ceiling of an adaptive pool: default 1000, up to 1000 (was a fixed 5, up to 20;
	// then 64, up to 100, and 256, which bound a healthy service's window below what the HTTP Request
	// node sends). An option inside a collection: saved workflows store it only once the user adds it.
	options: (old, key) => {
		// Each operation shows only the options that act on it (an option that did nothing there, e.g.
		// Return All Maximum on a single read or Maximum Amount on a product update, is no longer offered;
		// n8n drops a saved value of it, which changed nothing).
		const [resourceName, operationName] = key.split(':');
		const resource = resources.find((r) => r.value === resourceName);
		const op = resource?.operations.find((o) => o.value === operationName);
		const shown = new Set(op && resource ? (optionsFor(op, resource).options ?? []).map((o) => ('name' in o ? o.name : '')) : []);
		const children = Object.fromEntries(Object.entries(old.children as Record<string, Record<string, unknown>>).filter(([name]) => shown.has(name)));
		// Timeout and Return All Maximum gained the editor bounds the run-time check already had
		// (300000 ms, 10,000,000 items): a value above them was refused at run time before, now in the editor.
		return {
			...old,
			children: {
				...children,
				// (Its default stays 5 in version 1, 0.1.0's; 1000 is version 2's.)
				concurrency: { ...children.concurrency, maxValue: 1000 },
				timeout: { ...children.timeout, maxValue: 300000 },
				...(children.maxItems ? { maxItems: { ...children.maxItems, maxValue: 10000000 } } : {}),
			},
		};
	},
};

/** What a workflow saved with version 1 (0.1.0) sees: the node keeps version 1 for it. */
function current(): Canon {
	return canonical(new VaultStore().description as INodeTypeDescription, 1);
}

test('the 0.1.0 parameters of every resource and operation are unchanged (but for the listed corrections)', () => {
	const release = process.env.VS_WRITE_DESCRIPTION_FIXTURE;
	if (release) {
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const { VaultStore: Released } = require(path.resolve(release, 'nodes/VaultStore/VaultStore.node.js')) as { VaultStore: new () => { description: INodeTypeDescription } };
		writeFileSync(FIXTURE, `${JSON.stringify(canonical(new Released().description, 1), null, '\t')}\n`);
	}
	expect(existsSync(FIXTURE)).toBe(true);
	const old = JSON.parse(readFileSync(FIXTURE, 'utf8')) as Canon;
	const now = current();
	for (const [key, params] of Object.entries(old)) {
		const corrected: Record<string, unknown> = {};
		for (const [name, shape] of Object.entries(params)) {
			const fix = CORRECTIONS[key]?.[name] ?? EVERY_OPERATION[name];
			corrected[name] = fix ? fix(shape as Record<string, unknown>, key) : shape;
		}
		// New options inside an existing collection are as harmless as new parameters.
		const kept = Object.fromEntries(
			Object.entries(now[key] ?? {})
				.filter(([name]) => name in params)
				.map(([name, shape]) => {
					const oldChildren = (params[name] as { children?: Record<string, unknown> }).children;
					const newChildren = (shape as { children?: Record<string, unknown> }).children;
					if (!oldChildren || !newChildren) return [name, shape];
					return [name, { ...(shape as object), children: Object.fromEntries(Object.entries(newChildren).filter(([c]) => c in oldChildren)) }];
				}),
		);
		expect([key, kept]).toEqual([key, corrected]);
		// Parameters added since are optional: a saved workflow without them still runs.
		for (const [name, shape] of Object.entries(now[key] ?? {})) {
			if (!(name in params)) expect([key, name, (shape as { required?: boolean }).required ?? false]).toEqual([key, name, false]);
		}
	}
});

test('every Vault Store parameter of every example workflow is a parameter of its operation', () => {
	const now = current();
	const dir = path.join(__dirname, '..', 'examples');
	let checked = 0;
	for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
		const workflow = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as { nodes: { type: string; name: string; parameters: IDataObject }[] };
		for (const node of workflow.nodes.filter((n) => n.type.endsWith('.vaultStore'))) {
			const key = `${String(node.parameters.resource)}:${String(node.parameters.operation)}`;
			expect([file, node.name, key, key in now]).toEqual([file, node.name, key, true]);
			for (const name of Object.keys(node.parameters).filter((n) => n !== 'resource' && n !== 'operation')) {
				expect([file, node.name, name, name in now[key]]).toEqual([file, node.name, name, true]);
				checked++;
			}
		}
	}
	expect(checked).toBeGreaterThan(0);
});

test('a workflow saved with version 1 opens every resource on the operation 0.1.0 opened it on; new nodes (version 2) open on a read', () => {
	const description = new VaultStore().description as INodeTypeDescription;
	const old = JSON.parse(readFileSync(path.join(__dirname, 'fixtures', 'operation-defaults-0.1.0.json'), 'utf8')) as { operations: Record<string, string> };
	const v1 = operationDefaults(description, 1);
	for (const [resource, operation] of Object.entries(old.operations)) expect([resource, v1[resource]]).toEqual([resource, operation]);
	expect(description.defaultVersion).toBe(2);
	const latest = operationDefaults(description, 2);
	for (const r of resources) {
		const op = r.operations.find((o) => o.value === latest[r.value]);
		// A read, unless the resource has none (Checkout, Mandate, Search: their first operation).
		if (r.operations.some((o) => o.method === 'GET')) expect([r.value, op?.method]).toEqual([r.value, 'GET']);
	}
});
