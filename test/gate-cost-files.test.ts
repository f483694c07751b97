/**
 * The cost matrix of the output gate (test/support/gate-cost.ts), second half: the text scans and
 * the report-file gate (CSV, JSON, UTF-16), linear in the text whatever it holds. The first half is
 * in gate-cost.test.ts; a control here checks that the two halves are the whole table.
 */
import { describeLinear, HALVES, SCANS } from './support/gate-cost';

describeLinear(HALVES[1]);

test('control: the two halves of the matrix are every scan of the table, each once', () => {
	expect([...HALVES[0], ...HALVES[1]].sort()).toEqual(Object.keys(SCANS).sort());
});
