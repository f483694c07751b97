/**
 * What an answer tells of a money write sent under its Idempotency-Key: the one table the
 * transport (repeat or not, outcome known or not) and the request gate (what the once record
 * remembers) read. docs/money-safety.md's outcome table shows it (`node scripts/outcome-table.js`
 * writes that table's statuses from this function; test/outcome-table.test.ts checks them).
 *
 * - applied: any 2xx (also one whose body is not the API's);
 * - notApplied: the service says it did nothing (a 4xx other than 408 and 409, a 503, a 3xx
 *   the node does not follow) or the request never left (a connection that failed before it was
 *   written);
 * - unanswered: nothing is known of what the service did, and a repeat under the same key is
 *   answered with it (409 "still running", a gateway's 502 or 504, a timeout, a connection
 *   dropped after the request was written);
 * - failed: the service's own error, which it does not store, so a repeat would run it again (a
 *   500, any other 5xx, a 408).
 */
export type MoneyOutcome = 'applied' | 'notApplied' | 'unanswered' | 'failed';

export function moneyOutcomeOf(status: number): MoneyOutcome {
	if (status >= 200 && status < 300) return 'applied';
	if (status === 409 || status === 502 || status === 504) return 'unanswered';
	if (status === 503) return 'notApplied';
	if (status >= 500 || status === 408) return 'failed';
	return 'notApplied';
}
