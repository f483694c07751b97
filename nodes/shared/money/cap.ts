import { amountsIn, numberOf } from './amounts';
import type { MoneyRoute } from './routes';

/**
 * The amount rules on a money-moving request as it will be sent (after extras, expressions and
 * defaults; body and query):
 * - the route's own amount, wherever it is given, is more than 0; no amount-like value is below 0;
 * - under a Maximum Amount: the own amount is present and a number (other amount-like fields are
 *   checked too but never stand in for it; a route without a declared amount needs at least one
 *   amount-like value), and every amount-like value is at or below the maximum.
 * Returns the refusal message, or undefined; and the largest amount it read (what a budget counts).
 */
export interface CapInput {
	route: MoneyRoute;
	body: unknown;
	query: unknown;
	/** The Maximum Amount of the item; undefined: no cap. */
	max?: number;
	/** The amount read before the write (Pay: the session's total), when the request carries none. */
	known?: number;
}

export interface CapVerdict {
	refusal?: string;
	/** The largest amount the cap read (every amount-like value of body and query, the amount read first): what a budget counts. */
	largest?: number;
}

function aboveMax(n: number, max: number): string {
	return `Refused: the amount ${n} is above the maximum of ${max} set for this node ("Maximum Amount")`;
}

function unknownAmount(what: string, max: number, withoutAmount?: string): string {
	const left = withoutAmount ? ` (without an amount it is ${withoutAmount})` : '';
	return `Refused: the amount of "${what}" is not known before it is sent${left}, and it must be at most ${max} ("Maximum Amount")`;
}

export function checkAmounts({ route, body, query, max, known }: CapInput): CapVerdict {
	const { spec, name } = route;
	const found = amountsIn(body, query);
	const own = spec.amount;
	let ownGiven = false;
	let highest: number | undefined;
	for (const { path, name: key, value, topLevel } of found) {
		const n = numberOf(value);
		const isOwn = topLevel && own !== undefined && key === own;
		if (isOwn) ownGiven = true;
		if (n === undefined) {
			if (max !== undefined) {
				return { refusal: `Refused: "${path}" of "${name}" is not a number, so the amount is not known before it is sent; it must be at most ${max} ("Maximum Amount")` };
			}
			continue;
		}
		// Declared routes move money one way; a route found by its word alone (a debit, an adjustment) may
		// take a negative amount the service accepts: outside a cap it is the user's own call.
		if ((n < 0 || (isOwn && n === 0)) && (!route.undeclared || max !== undefined)) {
			return { refusal: `Refused: "${path}" of "${name}" is ${n}; an amount must be more than 0` };
		}
		if (max !== undefined && n > max) return { refusal: aboveMax(n, max) };
		highest = highest === undefined ? n : Math.max(highest, n);
	}
	if (known !== undefined && max !== undefined && known > max) return { refusal: aboveMax(known, max) };
	// A read-first amount of 0 or less is not a payment the node can hold to a cap: what would it charge?
	if (known !== undefined && max !== undefined && known <= 0) return { refusal: `Refused: "${name}" states an amount of ${known}, so what it will charge is not known; it must be more than 0 and at most ${max} ("Maximum Amount")` };
	const largest = highest === undefined ? known : known === undefined ? highest : Math.max(highest, known);
	if (max !== undefined) {
		const needsOwn = own !== undefined ? !ownGiven : spec.readFirst !== undefined ? known === undefined : highest === undefined;
		if (needsOwn) return { refusal: unknownAmount(name, max, spec.withoutAmount) };
	}
	return largest !== undefined ? { largest } : {};
}
