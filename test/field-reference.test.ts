/**
 * A parameter that is exactly `={{ $json.field }}` is read from the item without n8n's expression
 * engine (nodes/VaultStore/operation.ts, Params.fieldReference): the commonest expression of all,
 * and the largest part of the node's CPU per item when n8n evaluates it. The value must be what
 * n8n's own evaluation gives, item by item, for every shape of input: each case runs the node
 * twice against the sandbox, once with `{{ $json... }}` and once with the same reference in
 * parentheses (not a bare field reference, so n8n evaluates it), and compares output, errors and
 * the requests the sandbox received.
 */
import type { IDataObject } from 'n8n-workflow';

import { items, useSandbox } from './support/fixtures';
import { runNodes } from './support/harness';
import { LONG } from './support/run-size';

/** The fallbacks a parameter is read with: an object, text, a number. */
const FALLBACKS: unknown[] = [{}, '', 50];

const f = useSandbox({ orders: 5 });

async function both(reference: string, inputs: IDataObject[], asLocator = true) {
	const results = [];
	for (const expression of [`={{ ${reference} }}`, `={{ (${reference}) }}`]) {
		const orderId = asLocator ? { __rl: true, mode: 'id', value: expression } : expression;
		const r = await f.run({ resource: 'order', operation: 'get', orderId }, items(...inputs), { continueOnFail: true });
		results.push({
			error: r.error()?.message,
			output: r.output().map((i) => ({ json: i.json, pairedItem: i.pairedItem })),
			// run() clears the sandbox's request log first.
			paths: f
				.requests()
				.map((q) => q.path)
				.sort(),
		});
	}
	return results;
}

describe('a bare field reference gives what n8n evaluates', () => {
	test('ids of every shape: text, padded, number, boolean, empty, null, missing, object, array, inherited names', async () => {
		const id = f.sb.state.orders[0].id;
		const inputs: IDataObject[] = [
			{ id },
			{ id: ` ${id} ` },
			{ id: 12345 },
			{ id: true },
			{ id: '' },
			{ id: null },
			{ other: id },
			{ id: { nested: id } },
			{ id: [id] },
			{ id: 'ord_doesnotexist01' },
			{ id },
		];
		const [direct, evaluated] = await both('$json.id', inputs);
		expect(direct.output.length).toBe(inputs.length);
		expect(direct).toEqual(evaluated);
		// The items were read: the reference is not a no-op (first, padded (the id rule trims it) and last).
		expect(direct.output[0].json.id).toBe(id);
		expect(direct.paths.filter((p) => p.endsWith(`/orders/${id}`))).toHaveLength(3);
	});

	test('nested fields and names JavaScript objects inherit (constructor, toString, length)', async () => {
		const id = f.sb.state.orders[1].id;
		for (const reference of ['$json.order.id', '$json.constructor', '$json.toString', '$json.ids.length', '$json.a.b.c']) {
			const [direct, evaluated] = await both(reference, [{ order: { id }, ids: [id], a: { b: { c: id } } }, { order: id }, {}]);
			expect({ reference, ...direct }).toEqual({ reference, ...evaluated });
		}
	});

	test('a plain (non-locator) parameter value works the same way', async () => {
		const id = f.sb.state.orders[2].id;
		const [direct, evaluated] = await both('$json.id', [{ id }, { id: 7 }], false);
		expect(direct).toEqual(evaluated);
	});
});

/**
 * Parameters read without n8n (nodes/VaultStore/operation.ts, Params.get): an empty collection, a
 * number or a boolean gives its stored value; anything else, and a parameter the node does not
 * have, goes to n8n. A probe node with the Vault Store node's own description runs
 * inside n8n-core and reads every parameter of every operation both ways, for items whose
 * parameters are the defaults, numbers, booleans, text, collections and expressions.
 */
describe('parameters read without n8n give what n8n gives', () => {
	test('every parameter of every operation, plus absent and dotted names, as stored and as expressions', async () => {
		const { VaultStore } = await import('../nodes/VaultStore/VaultStore.node');
		const { Params } = await import('../nodes/VaultStore/operation');
		const base = new VaultStore();
		const names = [...new Set(base.description.properties.map((p) => p.name))];
		const probe = {
			// The node's own parameters; none required, so that n8n runs it with any of them empty.
			description: {
				...base.description,
				name: 'paramsProbe',
				displayName: 'Params Probe',
				properties: base.description.properties.map((p) => ({ ...p, required: false })),
			},
			async execute(this: import('n8n-workflow').IExecuteFunctions) {
				const items = this.getInputData();
				const run = { node: this.getNode(), items };
				const out = [];
				for (let i = 0; i < items.length; i++) {
					const p = new Params(this, i, undefined, run);
					const diff: string[] = [];
					let read = 0;
					for (const [n, name] of [...names, 'notAParameter', 'options.concurrency', 'options.maxRetries'].entries()) {
						// Every fallback for every name in the long run; in `npm test` each name gets one, in turn.
						for (const fallback of LONG ? FALLBACKS : [FALLBACKS[n % FALLBACKS.length]]) {
							const settle = (f: () => unknown) => {
								try {
									return { value: f() };
								} catch (error) {
									return { error: (error as Error).message };
								}
							};
							const ours = settle(() => p.get(name, fallback));
							const theirs = settle(() => this.getNodeParameter(name, i, fallback as never, { extractValue: true }));
							read++;
							if (JSON.stringify(ours) !== JSON.stringify(theirs)) diff.push(`${name} (fallback ${JSON.stringify(fallback)}): ${JSON.stringify(ours)} vs ${JSON.stringify(theirs)}`);
						}
					}
					out.push({ json: { diff, read }, pairedItem: { item: i } });
				}
				return [out];
			},
		};
		const resources = (base.description.properties.find((p) => p.name === 'resource')?.options ?? []) as { value: string }[];
		// Every ID field set (an empty one fails n8n's own check of the field before the node runs).
		const locators = Object.fromEntries(
			base.description.properties
				.filter((p) => p.type === 'resourceLocator')
				.map((p) => [p.name, { __rl: true, mode: 'id', value: '={{ $json.loc }}' }]),
		);
		let compared = 0;
		for (const { value: resource } of resources) {
			const operations = base.description.properties
				.filter((p) => p.name === 'operation' && (p.displayOptions?.show?.resource as string[] | undefined)?.includes(resource))
				.flatMap((p) => (p.options ?? []) as { value: string }[]);
			for (const { value: operation } of operations) {
				for (const extra of [
					{},
					{ returnAll: true, limit: 7, options: { concurrency: 3, maxRetries: 0 } },
					{ returnAll: '={{ $json.all }}', limit: '={{ $json.n }}', options: { concurrency: '={{ $json.n }}' }, additionalFields: {} },
				]) {
					const r = await (runNodes(
						[{ type: 'test.paramsProbe', parameters: { resource, operation, ...locators, ...extra } }],
						f.credentials,
						items({ all: false, n: 4, loc: 'x' }, { all: true, n: 9, loc: 'y' }),
						{ extraNodeTypes: { 'test.paramsProbe': probe as never } },
					).catch((error: Error) => {
						throw new Error(`${resource} ${operation} ${JSON.stringify(extra)}: ${error.message}`);
					}));
					expect({ resource, operation, error: r.error()?.message }).toEqual({ resource, operation, error: undefined });
					for (const item of r.output()) {
						expect({ resource, operation, diff: item.json.diff }).toEqual({ resource, operation, diff: [] });
						compared += item.json.read as number;
					}
				}
			}
		}
		expect(compared).toBeGreaterThan(1000);
	});
});
