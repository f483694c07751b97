/**
 * Maximum Total per Day at midnight, on the Budgets class itself (the clock injected): a write held
 * just before midnight and given back (it provably did not happen) just after, when another write
 * of the same node has meanwhile started the new day in this process, gives its units back to n8n's
 * store and fails nothing (the mutation run's last open budget case: the process's memory of the
 * day before is gone by then).
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { Budgets } from '../nodes/shared/money/budget';
import { MemoryDeduplicator } from './support/once-record-support';

const store = new MemoryDeduplicator();

function context(workflowId: string): IExecuteFunctions {
	const node = { id: 'node-midnight', name: 'Refund' };
	const data = { node, workflow: { id: workflowId } } as never;
	const staticData: IDataObject = {};
	const flow: IDataObject = {};
	return {
		helpers: {
			checkProcessedAndRecord: async (items: string[], scope: 'node', options: { mode: 'entries' }) => await store.checkProcessedAndRecord(items, scope, data, options),
			removeProcessed: async (items: string[], scope: 'node') => await store.removeProcessed(items, scope, data),
			getProcessedDataCount: async (scope: 'node', options: { mode: 'entries' }) => await store.getProcessedDataCount(scope, data, options),
		},
		getTimezone: () => 'UTC',
		getContext: () => flow,
		getWorkflowStaticData: () => staticData,
		getWorkflow: () => ({ id: workflowId }),
		getNode: () => node,
	} as unknown as IExecuteFunctions;
}

const MIDNIGHT = Date.UTC(2026, 10, 30);

test.each([
	['after another write started the new day in this process', true],
	['control: nothing else ran meanwhile', false],
])('a write held at 23:59 and given back at 00:01, %s: its units go back, nothing fails', async (_name, otherWrite) => {
	const workflowId = `wf_midnight_${otherWrite ? 'other' : 'alone'}`;
	const ctx = context(workflowId);
	const before = new Budgets(ctx, () => MIDNIGHT - 60_000);
	const held = await before.reserve({ perDay: 10 }, 4, 'USD');
	const heldUnits = store.count(workflowId);
	expect(heldUnits).toBeGreaterThan(0);
	if (otherWrite) {
		// Another execution of the node on this process, in the new day.
		await new Budgets(ctx, () => MIDNIGHT + 30_000).reserve({ perDay: 10 }, 1, 'USD');
	}
	const afterOther = store.count(workflowId);
	await expect(before.release(held)).resolves.toBeUndefined();
	// The 4's units left n8n's store; the new day's write (if any) keeps its own.
	expect(store.count(workflowId)).toBeLessThan(afterOther);
	expect(store.count(workflowId)).toBe(afterOther - heldUnits);
});
