/**
 * Maximum Total per Day at midnight, on the Budgets class itself (the clock injected): a write held
 * just before midnight and given back (it provably did not happen) just after, when another write
 * of the same node has meanwhile started the new day in this process, gives its units back to n8n's
 * store and fails nothing (the mutation run's last open budget case: the process's memory of the
 * day before is gone by then).
 */
import { Budgets } from '../nodes/shared/money/budget';
import { MemoryDeduplicator, storeContext } from './support/once-record-support';

const store = new MemoryDeduplicator();


const MIDNIGHT = Date.UTC(2026, 10, 30);

test.each([
	['after another write started the new day in this process', true],
	['control: nothing else ran meanwhile', false],
])('a write held at 23:59 and given back at 00:01, %s: its units go back, nothing fails', async (_name, otherWrite) => {
	const workflowId = `wf_midnight_${otherWrite ? 'other' : 'alone'}`;
	const ctx = storeContext(store, workflowId, 'node-midnight');
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
