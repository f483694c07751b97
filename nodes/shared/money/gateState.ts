import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { Gated } from '../redaction/gate';
import type { ApiRequest, ApiResponse } from '../transport/request';
import type { Budgets, Reservation } from './budget';
import type { Occurrences } from './occurrences';
import type { KeySource } from './keys';
import { IdempotencyKeys } from './keys';
import { ExecutionWrites } from './executionWrites';
import type { Origins } from './origins';
import type { Asked } from './readBack';
import type { OnceRecord, Unclear } from './record';
import type { MoneyRoute, MoneyRoutes } from './routes';
import type { MoneyNames } from './spec';
import { CORRECTING_OPTIONS } from './spec';

/*
 * What the request gate's admission steps share (gate.ts runs them in order: classify, agent
 * rules, read first, cap, key and claim, budgets): the run's context, the node's declarations, and
 * what the run learns (item rules, keys chosen, the once record, budgets, the execution's memory).
 */

/** What the node's Options say for one item (read per item: each may be an expression). */
export interface ItemRules {
	maxAmount?: number;
	/** Budgets over many writes (per currency): per execution, per calendar day. */
	maxTotalPerExecution?: number;
	maxTotalPerDay?: number;
	idempotencyKey?: string;
	allowAgentWrites: boolean;
	/** Corrections of the names the row's money declaration guesses: applied to the row's own route. */
	names?: MoneyNames;
}

/** What the operation row the node runs declares for the gate. */
export interface RowRules {
	name: string;
	action: string;
	agent?: { refuse?: string; confirm?: string };
	/** The row moves money (it declares `money`). */
	money: boolean;
}

export interface GateSetup {
	ctx: IExecuteFunctions;
	row: RowRules;
	routes: MoneyRoutes;
	/** The node runs for an AI agent. */
	tool: boolean;
	itemRules: (itemIndex: number) => ItemRules;
	hint: (kind: string, message: string, type?: 'info' | 'warning') => void;
	/** The output gate for what the once-per-event record keeps: 'message' a text that quotes the service, 'value' one of its values. */
	gateText: (text: string, kind: 'message' | 'value') => Gated<string>;
	/** The transport's Timeout and Max Retries: a money write's deadline (writeWindow) comes from them. */
	timing?: { timeoutMs: number; maxRetries: number };
	now?: () => number;
}

export type Send = (req: ApiRequest) => Promise<ApiResponse>;

/** What the gate keeps of an admitted money write until it is settled. */
export interface Ticket {
	route: MoneyRoute;
	asked: Asked;
	itemIndex: number;
	/** The record key this execution claimed (once per event). */
	claimed?: string;
	fields?: string;
	/** An earlier attempt's outcome is unknown: this one is sent again under its key. */
	resend?: { kind: Unclear; at?: number };
	/** What the key stands for, for messages: the event id, the Idempotency Key option, or this execution. */
	keyOf: string;
	/** The route is the row's own: the row's Options correct its guessed names (messages name them). */
	own?: boolean;
	/** A write keyed per run (no event, no key option): what it moves, remembered in the execution when unclear (`agent`: and when made). */
	inExecution?: { identity: string; key: string; agent?: true };
	/** The Idempotency Key option it was sent under, and whether this execution sent that key with this write before. */
	option?: { key: string; sentBefore: boolean };
	/** What it holds of the spending budgets. */
	budget?: Reservation;
	/** The currency the budgets counted it in, read before it was sent (the request stated none). */
	currencyRead?: string;
	/** The largest amount the cap read in the request (or read first): what the budgets count. */
	largest?: number;
}

export interface Admission {
	/** The write was made by an earlier execution of the same event: its recorded answer. */
	skip?: ApiResponse;
	ticket?: Ticket;
}

/** The state of one run's gate, which every admission step reads and adds to. */
export class GateState {
	readonly ctx: IExecuteFunctions;
	readonly keys: IdempotencyKeys;
	readonly rules = new Map<number, ItemRules>();
	readonly sources = new Map<number, KeySource>();
	origins?: Origins;
	record?: OnceRecord;
	occurrences?: Occurrences;
	private memory?: ExecutionWrites;
	budgets?: Budgets;
	/** Currencies read for the budgets (`currencyOf`), per route read. */
	readonly currencies = new Map<string, Promise<string | undefined>>();
	/** What is left of each budget after each item's money write, for its output. */
	readonly budgetLeft = new Map<number, IDataObject>();
	/** Identical whole requests of an event in this run, as the first record counted them (its rule; legacy.ts). */
	private readonly legacyCounts = new Map<string, number>();
	/** Idempotency Key options used in this run: which item first sent each. */
	readonly optionKeys = new Map<string, number>();
	readonly retryMode: boolean;
	readonly now: () => number;

	constructor(readonly setup: GateSetup) {
		this.ctx = setup.ctx;
		this.now = setup.now ?? (() => Date.now());
		this.retryMode = this.ctx.getMode() === 'retry';
		this.keys = new IdempotencyKeys({
			workflowId: this.ctx.getWorkflow().id,
			executionId: this.ctx.getExecutionId(),
			nodeName: this.ctx.getNode().name,
			runIndex: (this.ctx as unknown as { runIndex?: number }).runIndex ?? 0,
		});
	}

	itemRules(itemIndex: number): ItemRules {
		let rules = this.rules.get(itemIndex);
		if (rules === undefined) {
			rules = this.setup.itemRules(itemIndex);
			this.rules.set(itemIndex, rules);
		}
		return rules;
	}

	refuse(itemIndex: number | undefined, message: string, description: string): NodeOperationError {
		return new NodeOperationError(this.ctx.getNode(), message, { itemIndex, description });
	}

	/** The execution's memory of writes, shared by every Vault Store node of the execution (made when first needed). */
	get executionWrites(): ExecutionWrites {
		this.memory ??= new ExecutionWrites(this.ctx.getContext('flow') as IDataObject);
		return this.memory;
	}

	/** The execution's memory of writes when this run has used it. */
	get executionWritesUsed(): ExecutionWrites | undefined {
		return this.memory;
	}

	/** Set when the service recorded a write in another currency than the one read before it: later reads of the execution are not trusted. */
	get currencyReadWrong(): string | undefined {
		return this.executionWrites.currencyReadWrong();
	}

	set currencyReadWrong(why: string | undefined) {
		if (why !== undefined) this.executionWrites.distrustCurrencyReads(why);
	}

	legacyOccurrence(fingerprint: string): number {
		const n = this.legacyCounts.get(fingerprint) ?? 0;
		this.legacyCounts.set(fingerprint, n + 1);
		return n;
	}
}


export const WRITES = ['POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** Where the user corrects a guessed name of a money route: the row's Options, or the operation's that declares the route. */
export function optionOf(money: MoneyRoute, own: boolean, name: keyof MoneyNames): string {
	const option = CORRECTING_OPTIONS[name];
	return own ? `Options → "${option}"` : `"${option}" in the Options of the operation "${money.name}" (run it there)`;
}

/** What the top level of an answer holds, for a message that asks the user to name a field of it. */
export function fieldsOf(answer: unknown): string {
	if (answer === null || typeof answer !== 'object' || Array.isArray(answer)) return 'no fields (it is not an object)';
	const names = Object.entries(answer as IDataObject).map(([name, value]) => (value !== null && typeof value === 'object' && !Array.isArray(value) ? `${name} (an object)` : name));
	if (names.length === 0) return 'no fields';
	return `the fields ${names.slice(0, 15).join(', ')}${names.length > 15 ? ` and ${names.length - 15} more` : ''}`;
}
/** A Maximum Amount or a spending budget is set: what the gate cannot count is refused. */
export function limited(rules: ItemRules): boolean {
	return rules.maxAmount !== undefined || rules.maxTotalPerExecution !== undefined || rules.maxTotalPerDay !== undefined;
}

/** The limits set, in words: "Maximum Amount" and "Maximum Total per Day". */
export function limitNames(rules: ItemRules, join: 'and' | 'or' = 'and'): string {
	const names = [
		rules.maxAmount !== undefined ? '"Maximum Amount"' : undefined,
		rules.maxTotalPerExecution !== undefined ? '"Maximum Total per Execution"' : undefined,
		rules.maxTotalPerDay !== undefined ? '"Maximum Total per Day"' : undefined,
	].filter((name): name is string => name !== undefined);
	return names.length > 1 ? `${names.slice(0, -1).join(', ')} ${join} ${names[names.length - 1]}` : names.join('');
}

/** A money write in words, for messages: its name, the ids of its route, amount and currency. */
export function describeWrite(money: MoneyRoute, asked: Asked): string {
	const ids = Object.entries(money.ids).map(([name, value]) => `${name} ${value}`);
	const amount = asked.amount !== undefined ? `${asked.amount}${asked.currency !== undefined ? ` ${asked.currency.toUpperCase()}` : ''}` : undefined;
	return [`"${money.name}"`, ...ids, ...(amount !== undefined ? [amount] : [])].join(', ');
}
