import type { IDataObject } from 'n8n-workflow';

/**
 * What an operation that moves money declares (refund, payout, payment), and
 * the checks derived from it: the cap on the request as it will be sent, and
 * the read-back of what the service recorded. Pure functions: request and
 * answer in, verdict out.
 */
export interface MoneySpec {
	/** Body key of the amount in the request (absent: the amount is not known before sending). */
	amount?: string;
	/** Body key of the currency in the request. */
	currency?: string;
	/** Where the answer carries the amount / currency the service recorded (dot paths, first found wins). */
	answerAmount: string[];
	answerCurrency: string[];
	/** What the request leaves out when it has no amount, for messages ("a full refund"). */
	withoutAmount?: string;
}

/** Keys whose numbers count as an amount wherever they sit in a body: the cap reads every one. */
const AMOUNT_KEY = /amount|total|price|sum|value|fee|cents/i;

/**
 * Writes that may move money, whatever route they are sent by (an operation or
 * a custom call): any write whose path names a refund, payout, payment, charge,
 * capture, credit, debit or transfer.
 */
const MONEY_SEGMENT = /(^|\/)[^/]*(refund|payout|pay|charge|capture|credit|debit|transfer|intent)[^/]*(\/|$)/i;

export function isMoneyRoute(method: string, path: string): boolean {
	return !['GET', 'HEAD', 'OPTIONS'].includes(method.toUpperCase()) && MONEY_SEGMENT.test(path.split('?')[0]);
}

/** A number, or a string that is one; undefined otherwise. */
export function numberOf(value: unknown): number | undefined {
	const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
}

export interface FoundAmount {
	path: string;
	value: unknown;
}

/** Every value under an amount-like key, at any depth (arrays and objects walked), with its path. */
export function amountsIn(body: unknown, prefix = '', out: FoundAmount[] = [], depth = 0): FoundAmount[] {
	if (depth > 20 || body === null || typeof body !== 'object') return out;
	const entries = Array.isArray(body) ? body.map((v, i) => [String(i), v] as const) : Object.entries(body as IDataObject);
	for (const [key, value] of entries) {
		const path = prefix === '' ? key : `${prefix}.${key}`;
		if (value !== null && typeof value === 'object') amountsIn(value, path, out, depth + 1);
		else if (!Array.isArray(body) && AMOUNT_KEY.test(key)) out.push({ path, value });
	}
	return out;
}

export type CapVerdict =
	| { ok: true; amount: number }
	| { ok: false; reason: 'unknown'; message: string }
	| { ok: false; reason: 'above'; message: string; amount: number };

/**
 * The cap on a request as it will be sent: every amount-like value in the body
 * is a number at or below `max`, and there is at least one (else the amount is
 * not known before sending). A value that is not a number counts as unknown.
 */
export function checkCap(body: unknown, max: number, what: string, withoutAmount?: string): CapVerdict {
	const found = amountsIn(body);
	if (found.length === 0) {
		const left = withoutAmount ? ` (without an amount it is ${withoutAmount})` : '';
		return {
			ok: false,
			reason: 'unknown',
			message: `Refused: the amount of "${what}" is not known before it is sent${left}, and it must be at most ${max} ("Maximum Amount")`,
		};
	}
	let highest = -Infinity;
	for (const { path, value } of found) {
		const n = numberOf(value);
		if (n === undefined) {
			return {
				ok: false,
				reason: 'unknown',
				message: `Refused: "${path}" of "${what}" is not a number, so the amount is not known before it is sent; it must be at most ${max} ("Maximum Amount")`,
			};
		}
		if (n > max) {
			return {
				ok: false,
				reason: 'above',
				amount: n,
				message: `Refused: the amount ${n} is above the maximum of ${max} set for this node ("Maximum Amount")`,
			};
		}
		highest = Math.max(highest, n);
	}
	return { ok: true, amount: highest };
}

function at(record: unknown, path: string): unknown {
	let cur: unknown = record;
	for (const part of path.split('.')) {
		if (cur === null || typeof cur !== 'object') return undefined;
		cur = (cur as IDataObject)[part];
	}
	return cur;
}

function firstAt(record: unknown, paths: string[]): { path: string; value: unknown } | undefined {
	for (const path of paths) {
		const value = at(record, path);
		if (value !== undefined && value !== null && value !== '') return { path, value };
	}
	return undefined;
}

export type ReadBack =
	| { status: 'match' }
	/** The answer carries neither field the request set: nothing could be compared. */
	| { status: 'unchecked'; missing: string[] }
	| { status: 'mismatch'; field: 'amount' | 'currency'; asked: string; recorded: string };

/**
 * Compares what the service recorded with what was asked: the amount (when
 * the request sent one; numbers compared to the cent) and the currency (when
 * sent; case-insensitive). Fields the answer does not carry are reported as
 * unchecked, never as a match.
 */
export function readBack(spec: MoneySpec, body: unknown, answer: unknown): ReadBack {
	const missing: string[] = [];
	if (spec.amount) {
		const asked = numberOf(at(body, spec.amount));
		if (asked !== undefined) {
			const recorded = firstAt(answer, spec.answerAmount);
			const n = numberOf(recorded?.value);
			if (recorded === undefined || n === undefined) missing.push('amount');
			else if (Math.round(n * 100) !== Math.round(asked * 100)) {
				return { status: 'mismatch', field: 'amount', asked: String(asked), recorded: String(recorded.value) };
			}
		}
	}
	if (spec.currency) {
		const asked = at(body, spec.currency);
		if (typeof asked === 'string' && asked !== '') {
			const recorded = firstAt(answer, spec.answerCurrency);
			if (recorded === undefined || typeof recorded.value !== 'string') missing.push('currency');
			else if (recorded.value.toUpperCase() !== asked.toUpperCase()) {
				return { status: 'mismatch', field: 'currency', asked, recorded: recorded.value };
			}
		}
	}
	return missing.length ? { status: 'unchecked', missing } : { status: 'match' };
}
