import { valueAt } from '../paths';
import { numberOf } from './amounts';
import type { MoneySpec } from './spec';

/** The largest number found at any of `paths` (a total with tax over a net amount), or undefined. */
export function largestAt(record: unknown, paths: readonly string[]): number | undefined {
	return largestWhere(record, paths)?.value;
}

/** The largest number found at any of `paths`, and the path it was found at. */
export function largestWhere(record: unknown, paths: readonly string[]): { path: string; value: number } | undefined {
	let largest: { path: string; value: number } | undefined;
	for (const path of paths) {
		const n = numberOf(valueAt(record, path));
		if (n !== undefined && (largest === undefined || n > largest.value)) largest = { path, value: n };
	}
	return largest;
}

export function firstAt(record: unknown, paths: readonly string[]): { path: string; value: unknown } | undefined {
	for (const path of paths) {
		const value = valueAt(record, path);
		if (value !== undefined && value !== null && value !== '') return { path, value };
	}
	return undefined;
}

/**
 * A path id of the write that the answer names otherwise: a field of the same name (`orderId`)
 * with another value, or an `id` of the same kind (the same prefix, `cks_`) that is another
 * record. The answer is then about another record than the one the request wrote to, e.g. the
 * stored answer of an earlier request that used the same Idempotency-Key on another route.
 */
export function otherTarget(ids: Readonly<Record<string, string>>, answer: unknown): { name: string; asked: string; answered: string } | undefined {
	const id = valueAt(answer, 'id');
	for (const [name, asked] of Object.entries(ids)) {
		const same = valueAt(answer, name);
		if (typeof same === 'string' && same !== asked) return { name, asked, answered: same };
		const prefix = /^[A-Za-z]+_/.exec(asked)?.[0];
		if (prefix !== undefined && typeof id === 'string' && id.startsWith(prefix) && id !== asked) return { name, asked, answered: id };
	}
	return undefined;
}

/**
 * The answer names every path id of the write with its own value (a field of the same name, or
 * its own `id`): it is about the record the request wrote to. A route without ids is never named.
 */
export function sameTarget(ids: Readonly<Record<string, string>>, answer: unknown): boolean {
	const entries = Object.entries(ids);
	if (entries.length === 0) return false;
	const id = valueAt(answer, 'id');
	return entries.every(([name, asked]) => valueAt(answer, name) === asked || id === asked);
}

/** Where the answer stated what was compared (for messages that name the option correcting it). */
export interface ReadFrom {
	amountFrom?: string;
	currencyFrom?: string;
}

export type ReadBack =
	| ({ status: 'match'; recorded?: number; currency?: string } & ReadFrom)
	/** The answer carries neither field the request set: nothing could be compared. */
	| ({ status: 'unchecked'; missing: string[]; recorded?: number; currency?: string; other?: string } & ReadFrom)
	/** `field`: which of the two differs. */
	| ({ status: 'mismatch'; message: string; field: 'amount' | 'currency'; recorded?: number; currency?: string } & ReadFrom);

export interface Asked {
	amount?: number;
	currency?: string;
	/** The Maximum Amount of the item. */
	max?: number;
}

/**
 * Compares what the service recorded with what was asked and with the Maximum Amount: the amount
 * (numbers compared to the cent), the currency (case-insensitive). A field the answer does not
 * carry is reported as unchecked, never as a match.
 */
export function readBack(spec: MoneySpec, asked: Asked, answer: unknown): ReadBack {
	const missing: string[] = [];
	// The answer is another record (the order, not the refund): its amounts are not this write's.
	const id = firstAt(answer, ['id'])?.value;
	const other = typeof id === 'string' ? Object.entries(spec.otherRecords ?? {}).find(([prefix]) => id.startsWith(prefix)) : undefined;
	if (other !== undefined) return { status: 'unchecked', missing: ['amount', 'currency'], other: `${other[1]} ${String(id)}` };
	const recordedAt = spec.largest ? largestWhere(answer, spec.answerAmount) : firstAt(answer, spec.answerAmount);
	const recorded = numberOf(recordedAt?.value);
	const currencyAt = firstAt(answer, spec.answerCurrency);
	const currency = typeof currencyAt?.value === 'string' ? currencyAt.value : undefined;
	const from: ReadFrom = {
		...(recorded !== undefined ? { amountFrom: recordedAt?.path } : {}),
		...(currency !== undefined ? { currencyFrom: currencyAt?.path } : {}),
	};
	if (recorded !== undefined && asked.max !== undefined && recorded > asked.max) {
		return { status: 'mismatch', field: 'amount', recorded, currency, ...from, message: `The service recorded amount ${recorded}, above the maximum of ${asked.max} set for this node ("Maximum Amount")` };
	}
	if (asked.amount !== undefined) {
		if (recorded === undefined) missing.push('amount');
		else if (Math.round(recorded * 100) !== Math.round(asked.amount * 100)) {
			return { status: 'mismatch', field: 'amount', recorded, currency, ...from, message: `The service recorded amount ${String(recorded)} where ${asked.amount} was asked` };
		}
	} else if (asked.max !== undefined && recorded === undefined) {
		missing.push('amount');
	}
	if (asked.currency !== undefined && asked.currency !== '') {
		if (currency === undefined) missing.push('currency');
		else if (currency.toUpperCase() !== asked.currency.toUpperCase()) {
			return { status: 'mismatch', field: 'currency', recorded, currency, ...from, message: `The service recorded currency ${currency} where ${asked.currency} was asked` };
		}
	}
	return missing.length ? { status: 'unchecked', missing, recorded, currency, ...from } : { status: 'match', recorded, currency, ...from };
}
