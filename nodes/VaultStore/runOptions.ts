import type { ItemRules } from '../shared/money';
import type { MoneyNames } from '../shared/money/spec';
import { CORRECTING_OPTIONS } from '../shared/money/spec';
import { DEFAULT_MAX_CONCURRENCY, MAX_CONCURRENCY } from '../shared/transport/concurrency';
import { DEFAULT_MAX_ITEMS } from '../shared/transport/paginate';
import { DEFAULT_TRANSPORT_OPTIONS } from '../shared/transport/request';
import type { Operation, Params } from './operation';
import { LATEST_VERSION, V1_CONCURRENCY } from './versions';

/** The node's Options that apply to the whole run (read from the first item). */
export interface RunOptions {
	/** Ceiling of requests in flight; the adaptive pool decides how many below it. */
	concurrency: number;
	maxRetries: number;
	timeoutMs: number;
	maxItems: number;
}

export function readRunOptions(p: Params, typeVersion: number): RunOptions {
	const o = p.fields('options');
	return {
		concurrency:
			o.concurrency === undefined
				? typeVersion < LATEST_VERSION
					? V1_CONCURRENCY
					: DEFAULT_MAX_CONCURRENCY
				: p.v.number('Concurrency', o.concurrency, { min: 1, max: MAX_CONCURRENCY, integer: true }),
		maxRetries:
			o.maxRetries === undefined
				? DEFAULT_TRANSPORT_OPTIONS.maxRetries
				: p.v.number('Max Retries', o.maxRetries, { min: 0, max: 10, integer: true }),
		timeoutMs:
			o.timeout === undefined
				? DEFAULT_TRANSPORT_OPTIONS.timeoutMs
				: p.v.number('Timeout', o.timeout, { min: 100, max: 300_000, integer: true }),
		maxItems:
			o.maxItems === undefined
				? DEFAULT_MAX_ITEMS
				: p.v.number('Return All Maximum', o.maxItems, { min: 1, max: 10_000_000, integer: true }),
	};
}

/** n8n's expression for a value an AI agent fills in. */
const FROM_AI = /\$fromAI\s*\(|\bfromAI\s*\(/;

/** A field name or dot path of an answer: letters, digits, _, $ and - between dots; never a prototype's. */
const FIELD_PATH = /^[A-Za-z0-9_$-]+(?:\.[A-Za-z0-9_$-]+)*$/;
const NOT_A_FIELD = new Set(['__proto__', 'constructor', 'prototype']);

/** Comma-separated field names (dot paths) of an option; undefined when the option is not set. */
function fieldNames(p: Params, label: string, value: unknown): string[] | undefined {
	if (value === undefined || value === '') return undefined;
	const names = p.v.string(label, value).split(',').map((name) => name.trim()).filter((name) => name !== '');
	if (names.length === 0) p.v.fail(`"${label}" names no field; give one or more names separated by commas, or remove the option`);
	for (const name of names) {
		if (!FIELD_PATH.test(name) || name.split('.').some((part) => NOT_A_FIELD.has(part))) {
			p.v.fail(`"${label}" holds "${name.slice(0, 60)}", which is not a field name: use names or dot paths (e.g. amount, data.total), separated by commas`);
		}
	}
	return names;
}

/**
 * The user's corrections of the names the row's money declaration guesses, read only where the
 * row declares money (the editor shows them there): where the answer states what was recorded,
 * and for a row that reads its amount first, the route and the names of that read.
 */
function readMoneyNames(p: Params, o: Record<string, unknown>, op: Operation): MoneyNames | undefined {
	if (op.money === undefined) return undefined;
	const names: MoneyNames = {
		answerAmount: fieldNames(p, CORRECTING_OPTIONS.answerAmount, o.recordedAmountFields),
		answerCurrency: fieldNames(p, CORRECTING_OPTIONS.answerCurrency, o.recordedCurrencyFields),
	};
	if (op.money.readFirst !== undefined) {
		const route = o.totalReadRoute === undefined || o.totalReadRoute === '' ? undefined : p.v.string(CORRECTING_OPTIONS.readPath, o.totalReadRoute).trim();
		names.readPath = route === '' ? undefined : route;
		names.readAmount = fieldNames(p, CORRECTING_OPTIONS.readAmount, o.totalAmountFields);
		names.readCurrency = fieldNames(p, CORRECTING_OPTIONS.readCurrency, o.totalCurrencyFields);
	}
	const set = Object.fromEntries(Object.entries(names).filter(([, value]) => value !== undefined)) as MoneyNames;
	return Object.keys(set).length > 0 ? set : undefined;
}

/**
 * Options only the user sets, never an AI agent: the cap, the budgets and the agent switch, and
 * every option that tells the request gate where to read (the total's route and names, the names
 * of what the service recorded) or what to send under (the Idempotency Key: a key per call would
 * escape the execution's memory of unanswered writes).
 */
export const USERS_OPTIONS = [
	['maxAmount', 'Maximum Amount'],
	['maxTotalPerExecution', 'Maximum Total per Execution'],
	['maxTotalPerDay', 'Maximum Total per Day'],
	['allowAgentWrites', 'Allow Agent Writes'],
	['idempotencyKey', 'Idempotency Key'],
	['recordedAmountFields', CORRECTING_OPTIONS.answerAmount],
	['recordedCurrencyFields', CORRECTING_OPTIONS.answerCurrency],
	['totalReadRoute', CORRECTING_OPTIONS.readPath],
	['totalAmountFields', CORRECTING_OPTIONS.readAmount],
	['totalCurrencyFields', CORRECTING_OPTIONS.readCurrency],
] as const;

/** The Options the request gate reads per item (each may be an expression): cap, key, agent writes, corrected names. */
export function readItemRules(p: Params, op: Operation): ItemRules {
	// The limits on an agent, and what tells the gate where to read or what to send under, are the
	// user's: a value the agent fills in ($fromAI) is no limit.
	for (const [name, label] of USERS_OPTIONS) {
		const stored = p.stored(`options.${name}`);
		if (typeof stored === 'string' && FROM_AI.test(stored)) {
			p.v.fail(`"${label}" is filled in by the AI agent ($fromAI): a limit the agent sets is no limit, nor a rule it steers. Type the value in the node's Options; nothing was sent`);
		}
	}
	const o = p.fields('options');
	return {
		maxAmount: o.maxAmount === undefined || o.maxAmount === '' ? undefined : p.v.number('Maximum Amount', o.maxAmount, { min: 0 }),
		maxTotalPerExecution: o.maxTotalPerExecution === undefined || o.maxTotalPerExecution === '' ? undefined : p.v.number('Maximum Total per Execution', o.maxTotalPerExecution, { min: 0 }),
		maxTotalPerDay: o.maxTotalPerDay === undefined || o.maxTotalPerDay === '' ? undefined : p.v.number('Maximum Total per Day', o.maxTotalPerDay, { min: 0 }),
		allowAgentWrites: o.allowAgentWrites === true,
		idempotencyKey: typeof o.idempotencyKey === 'string' && o.idempotencyKey !== '' ? p.v.idempotencyKey(o.idempotencyKey) : undefined,
		names: readMoneyNames(p, o, op),
	};
}
