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

import { items, useSandbox } from './fixtures';

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
