/**
 * A field's editor limits never contradict the rule the node applies: for
 * every number parameter of every operation (collections included, generated
 * from the rows' fields), the node is run inside n8n-core with the field at
 * its default, its minValue and its maxValue; none of these values may be
 * refused by the node's own validation of that field.
 */
import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { useSandbox } from './support/fixtures';
// The compiled rows and parameters, exactly what the node runs.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { resources } = require('../dist/nodes/VaultStore/resources') as typeof import('../nodes/VaultStore/resources');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { resourceParameters } = require('../dist/nodes/VaultStore/properties') as typeof import('../nodes/VaultStore/properties');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { LATEST_VERSION } = require('../dist/nodes/VaultStore/versions') as typeof import('../nodes/VaultStore/versions');

const f = useSandbox();

interface Probe {
	key: string;
	label: string;
	value: number;
	parameters: IDataObject;
}

const expr = (value: string) => ({ __rl: true, mode: 'id', value: `={{ ${JSON.stringify(value)} }}` });
const validId = (prefix = '') => `${prefix}${'a'.repeat(16 - prefix.length)}`;

/** Shown for the operation in today's version (a field kept for version 1 with its old default is not). */
function shownFor(field: INodeProperties, operation: string): boolean {
	const ops = field.displayOptions?.show?.operation as string[] | undefined;
	const versions = field.displayOptions?.show?.['@version'] as number[] | undefined;
	return (!ops || ops.includes(operation)) && (!versions || versions.includes(LATEST_VERSION));
}

function probes(): Probe[] {
	const out: Probe[] = [];
	for (const resource of resources) {
		const parameters = resourceParameters(resource);
		for (const op of resource.operations) {
			const base: IDataObject = { resource: resource.value, operation: op.value };
			for (const [name, rule] of Object.entries(op.ids ?? {})) base[name] = expr(validId(rule.prefix));
			// Plausible values for the other required fields, so the workflow has no issues.
			for (const field of parameters.filter((p) => shownFor(p, op.value) && p.required && p.type !== 'resourceLocator')) {
				const first = (field.options?.[0] as { value?: unknown } | undefined)?.value;
				if (field.type === 'options') base[field.name] = first ?? '';
				else if (field.type === 'multiOptions') base[field.name] = first === undefined ? [] : [first];
				else if (field.type === 'number') base[field.name] = field.default as number;
				else if (field.type === 'boolean') base[field.name] = true;
				else if (field.type === 'string') base[field.name] = 'text';
			}
			const numbers: { field: INodeProperties; place: (v: number) => IDataObject }[] = [];
			for (const field of parameters.filter((p) => shownFor(p, op.value))) {
				if (field.type === 'number') numbers.push({ field, place: (v) => ({ [field.name]: v }) });
				if (field.type === 'collection') {
					for (const child of (field.options ?? []) as INodeProperties[]) {
						if (child.type === 'number') numbers.push({ field: child, place: (v) => ({ [field.name]: { [child.name]: v } }) });
					}
				}
			}
			for (const { field, place } of numbers) {
				const limits = field.typeOptions as { minValue?: number; maxValue?: number } | undefined;
				const values = new Set<number>([field.default as number]);
				if (limits?.minValue !== undefined) values.add(limits.minValue);
				if (limits?.maxValue !== undefined) values.add(limits.maxValue);
				for (const value of values) {
					if (typeof value !== 'number') continue;
					out.push({
						key: `${resource.value}:${op.value}`,
						label: field.displayName,
						value,
						parameters: { ...base, ...place(value) },
					});
				}
			}
		}
	}
	return out;
}

const all = probes();

test('there are number fields to check', () => {
	expect(all.length).toBeGreaterThan(20);
});

test.each(all.map((p) => [p.key, p.label, p.value, p] as const))('%s: "%s" = %s is not refused by the node', async (_k, label, _v, probe) => {
	const r = await f.run(probe.parameters);
	const message = r.error()?.message ?? '';
	const escaped = label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
	expect(message).not.toMatch(new RegExp(`^"${escaped}" must`));
});
