import { valueAt } from '../paths';
import { numberOf } from './amounts';
import type { MoneySpec } from './spec';

export function firstAt(record: unknown, paths: readonly string[]): { path: string; value: unknown } | undefined {
	for (const path of paths) {
		const value = valueAt(record, path);
		if (value !== undefined && value !== null && value !== '') return { path, value };
	}
	return undefined;
}

export type ReadBack =
	| { status: 'match'; recorded?: number; currency?: string }
	/** The answer carries neither field the request set: nothing could be compared. */
	| { status: 'unchecked'; missing: string[]; recorded?: number; currency?: string }
	| { status: 'mismatch'; message: string };

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
	const recordedAt = firstAt(answer, spec.answerAmount);
	const recorded = numberOf(recordedAt?.value);
	const currencyAt = firstAt(answer, spec.answerCurrency);
	const currency = typeof currencyAt?.value === 'string' ? currencyAt.value : undefined;
	if (recorded !== undefined && asked.max !== undefined && recorded > asked.max) {
		return { status: 'mismatch', message: `The service recorded amount ${recorded}, above the maximum of ${asked.max} set for this node ("Maximum Amount")` };
	}
	if (asked.amount !== undefined) {
		if (recorded === undefined) missing.push('amount');
		else if (Math.round(recorded * 100) !== Math.round(asked.amount * 100)) {
			return { status: 'mismatch', message: `The service recorded amount ${String(recordedAt?.value)} where ${asked.amount} was asked` };
		}
	} else if (asked.max !== undefined && recorded === undefined) {
		missing.push('amount');
	}
	if (asked.currency !== undefined && asked.currency !== '') {
		if (currency === undefined) missing.push('currency');
		else if (currency.toUpperCase() !== asked.currency.toUpperCase()) {
			return { status: 'mismatch', message: `The service recorded currency ${currency} where ${asked.currency} was asked` };
		}
	}
	return missing.length ? { status: 'unchecked', missing, recorded, currency } : { status: 'match', recorded, currency };
}
