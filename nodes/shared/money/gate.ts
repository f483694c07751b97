import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { Gated } from '../redaction/gate';
import type { ApiRequest, ApiResponse } from '../transport/request';
import { ATTEMPT_SLACK_MS, DEFAULT_TRANSPORT_OPTIONS, isUnansweredStatus, isUnknownOutcome } from '../transport/request';
import { numberOf } from './amounts';
import type { Reservation } from './budget';
import { BudgetExceeded, Budgets, currencyLabel } from './budget';
import { checkAmounts } from './cap';
import type { EventOrigin, KeySource } from './keys';
import { digest, fieldDigests, IdempotencyKeys, writeFingerprint } from './keys';
import type { MadeWrite } from './executionWrites';
import { ExecutionWrites } from './executionWrites';
import { legacyEntry } from './legacy';
import { Occurrences } from './occurrences';
import type { Origins } from './origins';
import { eventOrigins } from './origins';
import type { Asked, ReadBack } from './readBack';
import { firstAt, largestAt, otherTarget, readBack, sameTarget } from './readBack';
import type { OnceRecord, RecordEntry, Unclear } from './record';
import { onceRecord, RESEND_WINDOW_MS } from './record';
import { MAX_WINDOW_MS } from './onceState';
import type { MoneyRoute, MoneyRoutes, Route } from './routes';
import { isRevealRoute, routeOf } from './routes';
import type { MoneyNames } from './spec';
import { CORRECTING_OPTIONS, correctedSpec } from './spec';

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

/** After a write's last attempt, time for its answer to reach the once record (and for the clocks of n8n's processes to differ). */
export const ANSWER_MS = 20_000;

/**
 * A money write's window, from its claim: what the gate does before sending (the claim, a read
 * first: one attempt's time), every attempt (Timeout and its slack) and the backoff between them,
 * and its answer's way into the record; at most MAX_WINDOW_MS. The transport starts no attempt that
 * could end after it (ApiRequest.sendBy); other executions find the claim in flight until then,
 * and unanswered after.
 */
export function writeWindow(timing: { timeoutMs: number; maxRetries: number }): number {
	let ms = ANSWER_MS + timing.timeoutMs + ATTEMPT_SLACK_MS;
	for (let attempt = 0; attempt <= timing.maxRetries; attempt++) ms += timing.timeoutMs + ATTEMPT_SLACK_MS + (attempt > 0 ? Math.min(8_000, 250 * 2 ** (attempt - 1)) : 0);
	return Math.min(ms, MAX_WINDOW_MS);
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
	/** The largest amount the cap read in the request (or read first): what the budgets count. */
	largest?: number;
}

export interface Admission {
	/** The write was made by an earlier execution of the same event: its recorded answer. */
	skip?: ApiResponse;
	ticket?: Ticket;
}

const ONCE_HINT =
	"n8n's Retry does not read or keep this node's once-per-event record here (n8n's deduplication store is not there, and a Retry must not write static data); the Idempotency-Key still makes the service apply a repeated write once within 24 hours.";

/**
 * The request gate: every request the node sends passes `admit` exactly as it will be sent,
 * whoever built it (a row, a `run` hatch, Custom API Call with either credential). Here, and
 * only here, apply: the agent refusals, the money rules (cap per item, amounts above 0, on body
 * and query, on the decoded route), the Idempotency-Key choice, the once-per-event record and
 * the read-back of what the service recorded.
 */
export class RequestGate {
	private readonly ctx: IExecuteFunctions;
	private readonly keys: IdempotencyKeys;
	private readonly rules = new Map<number, ItemRules>();
	private readonly sources = new Map<number, KeySource>();
	private origins?: Origins;
	private record?: OnceRecord;
	private occurrences?: Occurrences;
	private executionWrites?: ExecutionWrites;
	private budgets?: Budgets;
	/** Currencies read for the budgets (`currencyOf`), per route read. */
	private readonly currencies = new Map<string, Promise<string | undefined>>();
	/** What is left of each budget after each item's money write, for its output. */
	private readonly budgetLeft = new Map<number, IDataObject>();
	/** Identical whole requests of an event in this run, as the first record counted them (its rule; legacy.ts). */
	private readonly legacyCounts = new Map<string, number>();
	/** Idempotency Key options used in this run: which item first sent each. */
	private readonly optionKeys = new Map<string, number>();
	private readonly retryMode: boolean;
	private readonly now: () => number;

	constructor(private readonly setup: GateSetup) {
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

	private itemRules(itemIndex: number): ItemRules {
		let rules = this.rules.get(itemIndex);
		if (rules === undefined) {
			rules = this.setup.itemRules(itemIndex);
			this.rules.set(itemIndex, rules);
		}
		return rules;
	}

	private refuse(itemIndex: number | undefined, message: string, description: string): NodeOperationError {
		return new NodeOperationError(this.ctx.getNode(), message, { itemIndex, description });
	}

	/** Fields the gate adds to an item's output: where its Idempotency-Key came from, what is left of its budgets. */
	outputFields(itemIndex: number, idempotent: boolean): IDataObject | undefined {
		const source = idempotent ? this.sources.get(itemIndex) : undefined;
		const left = this.budgetLeft.get(itemIndex);
		if (source === undefined && left === undefined) return undefined;
		return { ...(source !== undefined ? { idempotencyKeySource: source } : {}), ...(left !== undefined ? { budgetLeft: left } : {}) };
	}

	/** The row's agent limits, before the item's request is built. */
	checkItem(itemIndex: number): void {
		if (!this.setup.tool) return;
		const { row } = this.setup;
		if (row.agent?.refuse) {
			throw this.refuse(itemIndex, `${row.name} is not available to AI agents: ${row.agent.refuse}`, 'Run this operation in a normal workflow step instead.');
		}
		const rules = this.itemRules(itemIndex);
		if (row.agent?.confirm && !rules.allowAgentWrites) {
			throw this.refuse(
				itemIndex,
				`${row.name} is not available to AI agents unless this node allows it: ${row.agent.confirm}`,
				'Turn on "Allow Agent Writes" in the node\'s Options to let an agent use it, or run it in a normal workflow step.',
			);
		}
		if (row.money && rules.maxAmount === undefined) {
			throw this.refuse(
				itemIndex,
				`Set "Maximum Amount" in the node's Options before giving "${row.name}" to an AI agent`,
				'An agent may choose any amount; the node refuses calls above the maximum you set.',
			);
		}
		if (row.money && (rules.maxTotalPerExecution === undefined || rules.maxTotalPerDay === undefined)) {
			this.setup.hint(
				'budgets',
				`An AI agent may call "${row.name}" many times: "Maximum Amount" caps each call, not their total. Set "Maximum Total per Execution" and "Maximum Total per Day" in the node's Options to cap what the agent moves in one run and in one day.`,
				'warning',
			);
		}
	}

	/**
	 * A request as it will be sent. Throws a refusal (nothing is sent); returns the recorded
	 * answer of a write this event already made; else sets the request's Idempotency-Key and
	 * returns the ticket `settle` / `abandon` take. `place`: where the service keeps the write's
	 * Idempotency-Key, the account the credential reaches (ResolvedCredential.place), whatever the
	 * route; two Vault Store nodes of one execution share their memory of keys and unclear writes
	 * only for the same place.
	 */
	async admit(req: ApiRequest, send: Send, place: () => Promise<string>): Promise<Admission> {
		const itemIndex = req.itemIndex ?? 0;
		const found = routeOf(req.family, req.path);
		if ('refused' in found) {
			throw this.refuse(itemIndex, `Refused: ${found.refused}`, 'Nothing was sent. Give the route without encoded slashes, backslashes, doubled slashes or dot segments.');
		}
		const route: Route = found;
		if (this.setup.tool && isRevealRoute(route)) {
			throw this.refuse(itemIndex, 'Refused: this call reveals card data, which is never given to AI agents', 'Run Token → Reveal in a normal workflow step instead.');
		}
		const write = this.setup.routes.classify(req.method, route);
		if (write.kind === 'unknown' || write.kind === 'declared') this.failClosed(req, route, write, itemIndex);
		const declared = write.kind === 'money' ? write.route : undefined;
		if (declared === undefined) {
			if (req.idempotent && req.idempotencyKey === undefined) {
				this.chooseKey(req, itemIndex, await place(), () => writeFingerprint({ method: req.method, route: `${route.api}:/${route.segments.join('/')}`, query: req.query, body: req.body }), () => `${req.method} /${route.segments.join('/')}`);
			}
			return {};
		}
		const rules = this.itemRules(itemIndex);
		if (this.setup.tool && rules.maxAmount === undefined) {
			throw this.refuse(itemIndex, 'Refused: this call moves money and the node has no "Maximum Amount" for AI agents', 'Set "Maximum Amount" in the node\'s Options; the node refuses calls above it.');
		}
		if (rules.maxTotalPerExecution !== undefined) this.refuseInCalledExecution(itemIndex);
		// The row's own route, as the row declares it: the user's corrections of its guessed names apply.
		const own = this.setup.row.money && declared.undeclared !== true && declared.name === this.setup.row.action;
		const money: MoneyRoute = own ? { ...declared, spec: correctedSpec(declared.spec, rules.names) } : declared;
		const known = limited(rules) ? await this.readFirst(money, route, req, send, own) : undefined;
		const verdict = checkAmounts({ route: money, body: req.body, query: req.query, max: rules.maxAmount, known: known?.amount });
		if (verdict.refusal !== undefined) {
			throw this.refuse(itemIndex, verdict.refusal, 'Nothing was sent. Use an amount above 0 and at or below the maximum, or ask a person to do it.');
		}
		// A route that names money but that no operation declares: what it moves is a guess.
		if (money.undeclared) this.failClosed(req, route, { kind: 'unknown' }, itemIndex);
		const asked: Asked = { amount: this.askedAmount(money, req, known?.amount), currency: this.askedCurrency(money, req) ?? known?.currency, max: rules.maxAmount };
		// The transport repeats it only where the service says it did nothing, and reports an unknown outcome.
		req.money = true;
		const ticket: Ticket = { route: money, asked, itemIndex, keyOf: '', own, ...(verdict.largest !== undefined ? { largest: verdict.largest } : {}) };
		const admission = await this.keyAndClaim(req, money, ticket, itemIndex, await place());
		if (admission.ticket !== undefined) await this.holdBudgets(admission.ticket, rules, async () => await this.currencyOf(money, route, req, send));
		return admission;
	}

	/** The write's Idempotency-Key and its once-per-event claim. */
	private async keyAndClaim(req: ApiRequest, money: MoneyRoute, ticket: Ticket, itemIndex: number, place: string): Promise<Admission> {
		const { asked } = ticket;

		// The key names the money movement: event, workflow, node, method, route with its ids, amount, currency.
		const identity = `money|${req.method}|${money.identity}|${asked.amount ?? ''}|${(asked.currency ?? '').toUpperCase()}`;
		const chosen = this.chooseKey(req, itemIndex, place, () => identity, () => describeWrite(money, asked));
		const source = chosen.source;
		if (source === 'option') ticket.option = { key: req.idempotencyKey as string, sentBefore: chosen.sentBefore === true };
		if (source === 'execution') {
			if (this.origins !== undefined && this.origins.triggers.length > 0) this.lostPairing(itemIndex);
			return this.inExecution(money, req, ticket, `${place}\n${identity}`);
		}
		ticket.keyOf = source === 'event' ? `event ${chosen.event?.origin.eventId ?? ''}` : `Idempotency Key "${req.idempotencyKey ?? ''}"`;
		const key = source === 'event' ? (req.idempotencyKey as string) : `option|${req.idempotencyKey ?? ''}`;
		ticket.fields = fieldDigests(req.body, req.query, [money.spec.amount, money.spec.currency]);
		// A key the user set names one write: the same key on another route or order is another write.
		if (source === 'option') ticket.fields = `${ticket.fields}${ticket.fields ? '&' : ''}path=${digest(identity)}`;
		// n8n's Retry: n8n's store only (its static data is a stored copy's, saved over the workflow's).
		this.record ??= onceRecord(this.ctx, this.now, this.retryMode);
		// A write the first record (unreleased builds, legacy.ts) holds for this event is not made again either.
		const before = !this.retryMode && chosen.event && legacyEntry(this.ctx, this.keys, chosen.event.origin, req, (fp) => this.legacyOccurrence(fp), this.now());
		if (before) return { skip: this.skipped(money, ticket, before) };
		const window = writeWindow(this.setup.timing ?? DEFAULT_TRANSPORT_OPTIONS);
		// The claim is made after this moment: its deadline is no earlier than the one the transport keeps.
		req.sendBy = this.now() + window - ANSWER_MS;
		const claim = await this.record.claim(key, window);
		if (claim.status === 'unavailable') {
			this.setup.hint('retry', ONCE_HINT, 'warning');
			return { ticket };
		}
		if (this.record.storeFailure !== undefined) {
			this.setup.hint('store', `n8n's deduplication store failed (${this.record.storeFailure}); this run's money writes are recorded in the node's static data instead, which queue-mode workers do not share.`, 'warning');
		}
		if (claim.status === 'untracked') {
			this.setup.hint('untracked', `This money write is not in the node's once-per-event record (${claim.reason}); it was sent under the event's Idempotency-Key, which the service honours for 24 hours.`, 'warning');
			return { ticket };
		}
		if (claim.status === 'new') {
			ticket.claimed = key;
			return { ticket };
		}
		if (claim.status === 'unclear') {
			if (claim.entry?.fields !== undefined && claim.entry.fields !== ticket.fields) this.skipped(money, ticket, claim.entry);
			if (!claim.resend) throw this.unresolved(money, ticket, claim.kind, claim.at, claim.inflight ? 'inflight' : claim.again ? 'again' : undefined);
			ticket.claimed = key;
			ticket.resend = { kind: claim.kind, at: claim.at };
			this.setup.hint(
				'resend',
				`An earlier execution sent "${money.name}" for this ${source === 'event' ? 'event' : 'key'} without learning its outcome; it was sent again under the same Idempotency-Key, which the service answers with what it did then (or does it now, once).`,
				'warning',
			);
			return { ticket };
		}
		return { skip: this.skipped(money, ticket, claim.entry) };
	}

	/**
	 * The spending budgets (per execution, per day): the write's amount is held before it is sent,
	 * or the write is refused naming the budget (its claim given back: nothing was sent).
	 */
	private async holdBudgets(ticket: Ticket, rules: ItemRules, currencyOf: () => Promise<string | undefined>): Promise<void> {
		if (rules.maxTotalPerExecution === undefined && rules.maxTotalPerDay === undefined) return;
		// A write sent again under its key was counted when it was first sent (in this execution, or that day).
		const perExecution = ticket.resend !== undefined && ticket.inExecution !== undefined ? undefined : rules.maxTotalPerExecution;
		const perDay = ticket.resend !== undefined ? undefined : rules.maxTotalPerDay;
		if (perExecution === undefined && perDay === undefined) return;
		let failure: NodeOperationError | undefined;
		const budgetName = perExecution !== undefined ? 'Maximum Total per Execution' : 'Maximum Total per Day';
		// What the write can move: the largest amount the cap read, in the currency it moves (read when not stated).
		const currency = ticket.asked.amount === undefined ? undefined : (ticket.asked.currency ?? (await currencyOf()));
		if (ticket.asked.amount === undefined) {
			failure = this.refuse(ticket.itemIndex, `Refused: the amount of "${ticket.route.name}" is not known before it is sent, so it cannot be counted against "${budgetName}"`, 'Nothing was sent. Give the amount in the request.');
		} else if (currency === undefined) {
			const read = ticket.route.spec.currencyRead;
			failure = this.refuse(
				ticket.itemIndex,
				`Refused: the currency of "${ticket.route.name}" is not known before it is sent, so it cannot be counted against "${budgetName}"`,
				`Nothing was sent. ${ticket.route.spec.currency !== undefined ? 'State the currency in the request. ' : ''}${read !== undefined ? `The node reads it at GET ${read.path} (field ${read.currency.join(', ')}), which did not show one.` : ''}`.trim(),
			);
		} else {
			try {
				this.budgets ??= new Budgets(this.ctx, this.now);
				const amount = Math.max(ticket.asked.amount, ticket.largest ?? ticket.asked.amount);
				ticket.budget = await this.budgets.reserve({ perExecution, perDay }, amount, currency);
			} catch (error) {
				failure =
					error instanceof BudgetExceeded
						? this.refuse(ticket.itemIndex, error.message, 'A budget counts every money write of this node in its currency: its own amount (Pay: the total read first), held when sent, kept when the outcome is unknown, given back when it provably did not happen.')
						: this.refuse(ticket.itemIndex, `Refused: the day's spending could not be counted (${(error as Error).message})`, "Nothing was sent. n8n's deduplication store, where the day's total is kept, failed; run again.");
			}
		}
		if (failure !== undefined || ticket.budget === undefined) {
			// Nothing was sent: a new claim is given back; an unclear one stays unclear.
			if (ticket.claimed !== undefined && ticket.resend === undefined) await this.record?.release(ticket.claimed);
			else if (ticket.claimed !== undefined && ticket.resend !== undefined) {
				await this.record?.unclear({ key: ticket.claimed, at: ticket.resend.at ?? this.now(), unclear: ticket.resend.kind, ...(ticket.fields !== undefined ? { fields: ticket.fields } : {}) });
			}
			throw failure ?? this.refuse(ticket.itemIndex, 'Refused: the spending budgets could not be read', 'Nothing was sent.');
		}
		this.budgetLeft.set(ticket.itemIndex, leftOf(ticket.budget));
	}

	/**
	 * Under a Maximum Amount or for an AI agent, what the gate cannot classify from the rows'
	 * declarations is refused (it may move money), and so is a declared operation whose charge the
	 * request does not state (Subscription → Change Plan, Reactivate, Resume) under a Maximum Amount
	 * or a budget.
	 */
	private failClosed(req: ApiRequest, route: Route, write: { kind: 'unknown' } | { kind: 'declared'; name: string; charges?: string }, itemIndex: number): void {
		const rules = this.itemRules(itemIndex);
		const capped = limited(rules);
		if (write.kind === 'unknown' && (capped || this.setup.tool)) {
			const who = this.setup.tool ? 'an AI agent runs this node' : 'the node has a "Maximum Amount" or a spending budget';
			throw this.refuse(
				itemIndex,
				`Refused: ${req.method} /${route.segments.join('/')} is not a route of this node's operations, so it cannot tell whether it moves money, and ${who}`,
				'Nothing was sent. Use the operation for it (its route is known), or make this call in a normal workflow step without "Maximum Amount".',
			);
		}
		if (write.kind === 'declared' && write.charges !== undefined && capped) {
			throw this.refuse(
				itemIndex,
				`Refused: "${write.name}" ${write.charges}, an amount the request does not state, so it cannot be held to ${limitNames(rules)}`,
				`Nothing was sent. Run it in a step without ${limitNames(rules, 'or')} that a person reviews.`,
			);
		}
	}

	/**
	 * A write keyed per run (a loop, another Vault Store node) or, for an AI agent, per write of the
	 * execution: a repeat, in the same execution, of one whose outcome is unknown goes out under the
	 * first's key when it went unanswered, and is refused when the service failed on it (it does not
	 * remember a failure's result). For an AI agent, the same write asked again after it was made is
	 * answered with the first call's answer and not sent (a tool call, another tool of the agent:
	 * the model asked twice for one refund); its key is the execution's for that write, so even two
	 * calls at once go out under one key. `identity`: where (place) and what it moves.
	 */
	private inExecution(money: MoneyRoute, req: ApiRequest, ticket: Ticket, identity: string): Admission {
		this.executionWrites ??= this.newExecutionWrites();
		ticket.keyOf = 'this execution';
		if (this.setup.tool) {
			const made = this.executionWrites.made(identity);
			if (made !== undefined) return { skip: this.madeInExecution(money, ticket, made) };
			req.idempotencyKey = this.keys.forExecutionWrite(identity);
		}
		const earlier = this.executionWrites.unclear(identity);
		if (earlier !== undefined) {
			if (earlier.kind === 'failed' || this.now() - earlier.at > RESEND_WINDOW_MS) throw this.unresolved(money, ticket, earlier.kind, earlier.at);
			req.idempotencyKey = earlier.key;
			ticket.resend = { kind: earlier.kind, at: earlier.at };
			this.setup.hint('resend', `An earlier call in this execution sent "${money.name}" without learning its outcome; it was sent again under the same Idempotency-Key, which the service answers with what it did then (or does it now, once).`, 'warning');
		}
		ticket.inExecution = { identity, key: req.idempotencyKey as string, ...(this.setup.tool ? { agent: true } : {}) };
		return { ticket };
	}

	/** An AI agent asked again for a write it made in this execution: the first call's answer, nothing sent. */
	private madeInExecution(money: MoneyRoute, ticket: Ticket, made: MadeWrite): ApiResponse {
		this.setup.hint(
			'madeInExecution',
			`The AI agent asked again for ${describeWrite(money, ticket.asked)}, which an earlier call made in this execution: it was not sent again, and the agent got the first call's answer (alreadyMadeInThisExecution). For an agent, the same amount to the same record is one write per execution: a second one is made in another execution or by a normal workflow step.`,
		);
		const data: IDataObject = {
			...(made.recordId !== undefined ? { id: made.recordId } : {}),
			...(made.amount !== undefined ? { amount: made.amount } : {}),
			...(made.currency !== undefined ? { currency: made.currency } : {}),
			writeSkipped: true,
			alreadyMadeInThisExecution: true,
			writeRecordedAt: new Date(made.at).toISOString(),
		};
		return { data, status: 200, headers: {}, replay: false };
	}

	/**
	 * "Maximum Total per Execution" in an execution another one started (n8n passes the parent
	 * execution to a sub-workflow: an AI agent's Call n8n Workflow tool, an Execute Workflow node):
	 * each call is its own execution, so the budget, and the execution's memory of writes, would
	 * start empty at every call. Refused, nothing sent, saying why.
	 */
	private refuseInCalledExecution(itemIndex: number): void {
		const context = (this.ctx as unknown as { getExecutionContext?: () => { parentExecutionId?: unknown } | undefined }).getExecutionContext?.();
		const parent = context?.parentExecutionId;
		if (typeof parent !== 'string' || parent === '') return;
		throw this.refuse(
			itemIndex,
			`Refused: "Maximum Total per Execution" cannot hold here: this execution was started by another one (execution ${parent}), as an AI agent's Call n8n Workflow tool or an Execute Workflow node starts one for each call, so the budget would count this call alone, not the calling execution; nothing was sent`,
			'Give the agent the Vault Store node itself as its tool (its calls share the agent\'s execution: its budget and its memory of writes), or leave "Maximum Total per Execution" empty in this sub-workflow and cap the total with "Maximum Total per Day", which counts across executions.',
		);
	}

	/** The execution's memory of writes, shared by every Vault Store node of the execution. */
	private newExecutionWrites(): ExecutionWrites {
		return new ExecutionWrites(this.ctx.getContext('flow') as IDataObject);
	}

	private legacyOccurrence(fingerprint: string): number {
		const n = this.legacyCounts.get(fingerprint) ?? 0;
		this.legacyCounts.set(fingerprint, n + 1);
		return n;
	}

	/** An earlier execution sent the write and its outcome cannot be learnt by sending it again. */
	private unresolved(money: MoneyRoute, ticket: Ticket, kind: Unclear, at: number | undefined, state?: 'inflight' | 'again'): NodeOperationError {
		const when = at !== undefined ? ` at ${new Date(at).toISOString()}` : '';
		const earlier = ticket.inExecution !== undefined || ticket.keyOf === 'this execution' ? 'an earlier call sent it' : 'an earlier execution sent it';
		const why = state === 'inflight'
			? "another execution is sending it now (or stopped while sending it, and the write's deadline, its Timeout × attempts of at most 32 minutes, has not passed) and its answer may still come"
			: state === 'again'
				? 'it was already sent again once under the same Idempotency-Key and that went unanswered too'
				: kind === 'failed'
					? 'the service answered with an error it does not remember, so sending it again could apply it twice'
					: `the service keeps a key's result for 24 hours and it was sent more than ${RESEND_WINDOW_MS / 3_600_000} hours ago`;
		const way =
			state === 'inflight'
				? 'Run it again once that deadline has passed: a write still unanswered then is sent again under the same Idempotency-Key, which the service answers with what it did.'
				: 'Check in the Vault Store dashboard whether it was made. If it was not, set Options → Idempotency Key to a new value for this item (for example {{ $json.id }}-2) and run again: the node then makes it once under that key.';
		return this.refuse(
			ticket.itemIndex,
			`The outcome of "${money.name}" for ${ticket.keyOf} is unknown: ${earlier}${when} and the service may have applied it; nothing was sent`,
			`Not sent again because ${why}. ${way}`,
		);
	}

	/**
	 * The answer of a write an earlier execution of the event made (or, under an Idempotency Key of
	 * the user's, an earlier run with that key), or its failure again.
	 */
	private skipped(money: MoneyRoute, ticket: Ticket, entry: RecordEntry | undefined): ApiResponse {
		const key = ticket.option !== undefined ? `the Idempotency Key "${ticket.option.key}"` : undefined;
		// The earlier execution failed on it; later ones go on (the write is made, once), saying so.
		if (entry?.mismatch) {
			const earlier = key === undefined ? 'An earlier execution of this event made this write' : `This write was made earlier under ${key}`;
			this.setup.hint('mismatch', `${earlier} and failed on what the service recorded: ${entry.mismatch} It is not made again; the output shows the write as skipped.`, 'warning');
		}
		if (entry?.fields !== undefined && ticket.fields !== undefined && entry.fields !== ticket.fields) {
			const changed = changedFields(entry.fields, ticket.fields).map((f) => `"${f}"`).join(', ');
			throw key === undefined
				? this.refuse(
						ticket.itemIndex,
						`An earlier execution of this event already made this write (${money.name}) with other values of ${changed}; nothing was sent`,
						'The same event, order and amount is one money movement, made once. A field whose value changes from one execution to the next (e.g. an expression with $execution.id or $now) cannot change it. To make a second, separate write, give it its own Idempotency Key in the Options.',
					)
				: this.refuse(
						ticket.itemIndex,
						`A write was already made under ${key} (${money.name}) with other values of ${changed}; nothing was sent`,
						'An Idempotency Key of yours names one money movement, made once: a field whose value changed since (e.g. an expression with $execution.id or $now) cannot change it. To make a second, separate write, give it another Idempotency Key in the Options.',
					);
		}
		if (entry === undefined) {
			this.setup.hint(
				'claimed',
				key === undefined
					? 'A write this event already made (or started) in an earlier execution was not sent again. The answer recorded then is not available here (in queue mode another process may hold it), so the output shows writeSkipped only; if that execution stopped before the service answered, check the write in the Vault Store dashboard.'
					: `A write already made (or started) under ${key} was not sent again. The answer recorded then is not available here (in queue mode another process may hold it), so the output shows writeSkipped only; if the run that sent it stopped before the service answered, check the write in the Vault Store dashboard.`,
				'warning',
			);
		} else {
			this.setup.hint('skipped', `A write ${key === undefined ? 'this event already made' : `already made under ${key}`} was not sent again: the output shows the result recorded then (writeSkipped).`);
		}
		this.sources.set(ticket.itemIndex, key === undefined ? 'event' : 'option');
		const data: IDataObject = {
			...(entry?.recordId !== undefined ? { id: entry.recordId } : {}),
			...(entry?.amount !== undefined ? { amount: entry.amount } : {}),
			...(entry?.currency !== undefined ? { currency: entry.currency } : {}),
			writeSkipped: true,
			...(entry !== undefined ? { writeRecordedAt: new Date(entry.at).toISOString() } : {}),
		};
		return { data, status: 200, headers: {}, replay: false };
	}

	/**
	 * Sets the request's Idempotency-Key: the item's option, else the event's, else the execution's.
	 * A key of the user's names one write (`identity`: what it moves, `what`: in words) for the
	 * whole execution: another item of the run, or another write in a later run of the node (a
	 * loop, an AI agent's next tool call), is refused before it is sent; `sentBefore` says this
	 * execution already sent the key with this very write (a re-send).
	 */
	private chooseKey(
		req: ApiRequest,
		itemIndex: number,
		place: string,
		identity: () => string,
		what: () => string,
	): { source: KeySource; event?: { origin: EventOrigin; occurrence: number }; sentBefore?: boolean } {
		const rules = this.itemRules(itemIndex);
		let source: KeySource;
		let event: { origin: EventOrigin; occurrence: number } | undefined;
		let sentBefore: boolean | undefined;
		if (rules.idempotencyKey !== undefined) {
			const first = this.optionKeys.get(rules.idempotencyKey);
			const advice =
				"The service answers a repeated key with the first request's result, so this item would report another item's write as its own. Give each item its own key in Options → Idempotency Key, e.g. {{ $json.id }}, or leave it empty: the node then derives one per item (and per event).";
			if (first !== undefined && first !== itemIndex) {
				throw this.refuse(itemIndex, `Item ${itemIndex} has the same Idempotency Key as item ${first} ("${rules.idempotencyKey}"); nothing was sent for it`, advice);
			}
			this.executionWrites ??= this.newExecutionWrites();
			const use = this.executionWrites.useKey(`${place}\n${rules.idempotencyKey}`, identity(), what());
			if (use.status === 'other') {
				throw this.refuse(
					itemIndex,
					`The Idempotency Key "${rules.idempotencyKey}" was already sent in this execution with another write (${use.what}); nothing was sent for this one`,
					`A key typed as a constant is sent again each time the node runs in one execution (Loop Over Items, an AI agent's tool calls), and another Vault Store node of the workflow may use it too. ${advice}`,
				);
			}
			sentBefore = use.status === 'same';
			this.optionKeys.set(rules.idempotencyKey, itemIndex);
			req.idempotencyKey = rules.idempotencyKey;
			source = 'option';
		} else {
			this.origins ??= eventOrigins(this.ctx, this.ctx.getInputData().length);
			const origin: EventOrigin | undefined = this.origins.of[itemIndex];
			if (origin !== undefined) {
				const id = identity();
				this.occurrences ??= new Occurrences(this.ctx.getContext('node') as IDataObject);
				const occurrence = this.occurrences.next(`${origin.eventId}|${id}`);
				req.idempotencyKey = this.keys.forEvent(origin, id, occurrence);
				event = { origin, occurrence };
				source = 'event';
			} else {
				req.idempotencyKey = this.keys.forItem(itemIndex);
				source = 'execution';
			}
		}
		this.sources.set(itemIndex, source);
		return { source, event, sentBefore };
	}

	private lostPairing(itemIndex: number): void {
		const trigger = this.origins?.triggers[0] ?? 'Vault Store Trigger';
		this.setup.hint(
			'pairing',
			`Item ${itemIndex} cannot be traced to the "${trigger}" event it came from: a node before this one made new items without pairing them to their input. Its money write is made once per execution, not once per event, so a re-delivered event writes again. Keep the item pairing (in a Code node, return pairedItem), or set Options → Idempotency Key from the event id, e.g. {{ $('${trigger}').item.json.id }}.`,
			'warning',
		);
	}

	private askedAmount(money: MoneyRoute, req: ApiRequest, known: number | undefined): number | undefined {
		const own = money.spec.amount;
		if (own !== undefined) return numberOf((req.body as IDataObject | undefined)?.[own] ?? (req.query as IDataObject | undefined)?.[own]);
		if (money.spec.readFirst !== undefined) return known;
		return numberOf((req.body as IDataObject | undefined)?.amount ?? (req.query as IDataObject | undefined)?.amount);
	}

	private askedCurrency(money: MoneyRoute, req: ApiRequest): string | undefined {
		const value = (req.body as IDataObject | undefined)?.[money.spec.currency ?? 'currency'];
		return typeof value === 'string' && value !== '' ? value : undefined;
	}

	/**
	 * The amount a request without one will move, read first (Pay: the session's total). The read
	 * is a GET below the write's own root, from the declaration or the user's correction of it,
	 * refused when it is not a plain route of the same API or names a route that moves money.
	 */
	private async readFirst(money: MoneyRoute, route: Route, req: ApiRequest, send: Send, own: boolean): Promise<{ amount?: number; currency?: string } | undefined> {
		const read = money.spec.readFirst;
		if (read === undefined) return undefined;
		const max = this.itemRules(req.itemIndex ?? 0).maxAmount;
		const limit = max !== undefined ? `, and it must be at most ${max} ("Maximum Amount")` : ', so it cannot be counted against "Maximum Total per Execution" or "Maximum Total per Day"';
		const path = this.readPath(money, route, req, read.path, own);
		let answer: unknown;
		try {
			answer = (await send({ family: req.family, method: 'GET', path, itemIndex: req.itemIndex, inferred: true })).data;
		} catch (error) {
			throw this.refuse(
				req.itemIndex,
				`Refused: the amount of "${money.name}" is not known before it is sent (reading it first failed)${limit}`,
				`Nothing was sent. Reading GET ${path} failed: ${(error as Error).message}. If your service gives the total at another route, set ${optionOf(money, own, 'readPath')} to it (now ${read.path}).`,
			);
		}
		// The largest amount the service states for it (a total with tax over an amount).
		const amount = largestAt(answer, read.amount);
		if (amount === undefined) {
			throw this.refuse(
				req.itemIndex,
				`Refused: the amount of "${money.name}" is not known before it is sent (the answer read first has no amount under ${read.amount.join(', ')})${limit}`,
				`Nothing was sent. The answer of GET ${path} has ${fieldsOf(answer)}. If your service names the total differently, set ${optionOf(money, own, 'readAmount')} to its name (a dot path for a nested field, e.g. summary.total).`,
			);
		}
		const currency = firstAt(answer, read.currency ?? [])?.value;
		if (typeof currency !== 'string' || currency === '') {
			this.setup.hint(
				'readCurrency',
				`The answer of GET ${path}, read before "${money.name}", has no currency under ${(read.currency ?? []).join(', ') || '(no name)'}: the payment's currency is not compared, and the spending budgets count it in the store's currency. If your service names the currency differently, set ${optionOf(money, own, 'readCurrency')} to its name.`,
				'warning',
			);
		}
		return { amount, currency: typeof currency === 'string' && currency !== '' ? currency : undefined };
	}

	/**
	 * The currency a write moves when its request does not state one, read where its route declares
	 * (`currencyRead`: a refund's order, the store), once per route and run; undefined when the
	 * route declares no such read, the read fails or its answer shows none.
	 */
	private async currencyOf(money: MoneyRoute, route: Route, req: ApiRequest, send: Send): Promise<string | undefined> {
		const read = money.spec.currencyRead;
		if (read === undefined || route.api !== 'store') return undefined;
		// Below the store API's root, as its record routes are (GET /orders/{orderId}; '' the store itself).
		const path = read.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(money.ids[name] ?? ''));
		let known = this.currencies.get(path);
		if (known === undefined) {
			known = send({ family: 'core', method: 'GET', path, itemIndex: req.itemIndex, inferred: true }).then(
				(res) => {
					const value = firstAt(res.data, read.currency)?.value;
					return typeof value === 'string' && /^[A-Za-z]{3}$/.test(value) ? value.toUpperCase() : undefined;
				},
				() => undefined,
			);
			this.currencies.set(path, known);
		}
		return await known;
	}

	/**
	 * The route a total is read from first, as it will be sent: `{id}` placeholders of the write's
	 * route filled, below the write's root. Refused (nothing is sent) unless it is a plain route of
	 * the same API that, written to, would move no money: a read, never a write or another host.
	 */
	private readPath(money: MoneyRoute, write: Route, req: ApiRequest, template: string, own: boolean): string {
		const placeholders = Object.keys(money.ids).map((name) => `{${name}}`);
		const refuse = (why: string) =>
			this.refuse(
				req.itemIndex,
				`Refused: the route the total of "${money.name}" is read from first ("${template}", ${optionOf(money, own, 'readPath')}) ${why}; nothing was sent`,
				`Give a route below the store's root that reads the record${placeholders.length ? `, with ${placeholders.join(', ')} for its ID` : ''}, e.g. ${placeholders.length ? `/checkouts/${placeholders[0]}` : '/checkouts'}.`,
			);
		if (!template.startsWith('/')) throw refuse('does not start with "/"');
		const unknown = [...template.matchAll(/\{([^{}]*)\}/g)].map((m) => m[1]).find((name) => !(name in money.ids));
		if (unknown !== undefined) throw refuse(`names {${unknown}}, which this operation's route does not have`);
		const path = money.root + template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(money.ids[name] ?? ''));
		if (/[{}]/.test(path)) throw refuse('has a "{" or "}" that is not a placeholder');
		const found = routeOf(req.family, path);
		if ('refused' in found) throw refuse(`is not a plain route: ${found.refused}`);
		if (found.api !== write.api || found.api === 'other') throw refuse("leaves the API the write goes to");
		if (this.setup.routes.classify('GET', found).kind !== 'read' || isRevealRoute(found)) throw refuse('is not a read');
		for (const method of WRITES) {
			if (this.setup.routes.match(method, found) !== undefined) throw refuse(`is a route that moves money when written to (${method} /${found.segments.join('/')})`);
		}
		return path;
	}

	/**
	 * After a money write succeeded: what the service recorded is compared with what was asked
	 * and with the Maximum Amount, and the write is recorded (once per event). A difference fails
	 * the item, never retried: the write was made.
	 */
	async settle(ticket: Ticket | undefined, res: ApiResponse): Promise<void> {
		if (ticket === undefined) return;
		if (ticket.inExecution !== undefined) this.executionWrites?.forget(ticket.inExecution.identity);
		if (res.unreadable !== undefined) {
			this.setup.hint('unreadable', `The service answered "${ticket.route.name}" with success (HTTP ${res.status}) but with ${res.unreadable}: the write was made and recorded, and what it made is not known. Check it in the Vault Store dashboard.`, 'warning');
		}
		const answer = res.data;
		const verdict = readBack(ticket.route.spec, ticket.asked, answer);
		const id = firstAt(answer, ['id'])?.value;
		// The answer is about another record than the one written to (an id of the path named otherwise).
		const other = otherTarget(ticket.route.ids, answer);
		let mismatch: string | undefined;
		let advice = 'The write was made once; running again with the same Idempotency-Key replays it.';
		if (other !== undefined && res.replay) {
			mismatch = `The service answered with the stored result of an earlier request with the same Idempotency-Key (a replay), made for ${other.name} ${other.answered}, not ${other.asked}: nothing was done for this request.`;
			advice = 'The key was used before for another write, and the service keeps one result per key whatever the route. Give each write its own key in Options → Idempotency Key (e.g. from the record it writes to), or leave it empty for one the node derives per item and event.';
		} else if (res.replay && unexplainedReplay(ticket, answer)) {
			mismatch = `The service answered with the stored result of an earlier request with the Idempotency Key "${ticket.option?.key ?? ''}" (a replay), and neither this execution nor this node's record of earlier executions sent "${ticket.route.name}" with that key: the answer may be another write's, and this one may not have been made.`;
			advice = 'Check in the Vault Store dashboard whether it was made. The service keeps one result per key, whatever the write: give each write its own key in Options → Idempotency Key (e.g. {{ $json.id }}), or leave it empty for one the node derives per item and event.';
		} else if (other !== undefined) {
			mismatch = `The answer names ${other.name} ${other.answered} where the request was for ${other.asked} (${ticket.route.label} ${typeof id === 'string' ? id : 'without an id'}). The write was made and is not repeated: check it in the Vault Store dashboard.`;
		} else if (verdict.status === 'mismatch') {
			mismatch = `${verdict.message} (${ticket.route.label} ${typeof id === 'string' ? id : 'without an id'}). The write was made and is not repeated: check it in the Vault Store dashboard.`;
			advice = `${advice}${namesAdvice(ticket, verdict)}`;
		} else if (verdict.status === 'unchecked' && verdict.other !== undefined) {
			this.setup.hint('unchecked', `The answer to "${ticket.route.name}" is ${verdict.other}, not the write's own record: its amount was not checked against what was asked.`, 'warning');
		} else if (verdict.status === 'unchecked') {
			this.setup.hint('unchecked', `The answer to "${ticket.route.name}" does not show the ${verdict.missing.join(' and ')} the service recorded, so it could not be compared with what was asked.${namesAdvice(ticket, verdict)}`, 'warning');
		}
		// An AI agent's write, made: the same write asked again in this execution is answered with this.
		if (ticket.inExecution?.agent === true && this.executionWrites !== undefined && !(other !== undefined && res.replay)) {
			const clean = mismatch === undefined && verdict.status !== 'mismatch' ? verdict : undefined;
			const amount = clean !== undefined ? (clean.recorded ?? ticket.asked.amount) : undefined;
			const currency = clean !== undefined ? (clean.currency ?? ticket.asked.currency) : undefined;
			this.executionWrites.rememberMade(ticket.inExecution.identity, {
				at: this.now(),
				...(typeof id === 'string' ? { recordId: this.setup.gateText(id, 'value') } : {}),
				...(amount !== undefined ? { amount } : {}),
				...(currency !== undefined ? { currency: this.setup.gateText(currency, 'value') } : {}),
			});
		}
		if (ticket.claimed !== undefined && this.record !== undefined) {
			await this.record.confirm({
				key: ticket.claimed,
				at: this.now(),
				...(typeof id === 'string' ? { recordId: this.setup.gateText(id, 'value') } : {}),
				...(mismatch === undefined && verdict.status !== 'mismatch' && (verdict.recorded ?? ticket.asked.amount) !== undefined ? { amount: verdict.recorded ?? ticket.asked.amount } : {}),
				...(mismatch === undefined && verdict.status !== 'mismatch' && (verdict.currency ?? ticket.asked.currency) !== undefined ? { currency: this.setup.gateText(verdict.currency ?? ticket.asked.currency ?? '', 'value') } : {}),
				...(mismatch !== undefined ? { mismatch: this.setup.gateText(mismatch, 'message') } : {}),
				...(ticket.fields !== undefined ? { fields: ticket.fields } : {}),
			});
		}
		// What the service says it recorded is what moved: the budgets count it when it is more than was
		// held. After the record's confirm, so a store failure here never leaves a made write unconfirmed.
		if (ticket.budget !== undefined && (verdict.recorded !== undefined || verdict.currency !== undefined) && other === undefined) {
			try {
				await this.budgets?.recorded(ticket.budget, verdict.recorded ?? ticket.budget.amount, verdict.currency);
			} catch (error) {
				this.setup.hint('recordedBudget', `What the service recorded for "${ticket.route.name}" could not be added to the spending budgets (${(error as Error).message}); they count what was asked.`, 'warning');
			}
			this.budgetLeft.set(ticket.itemIndex, leftOf(ticket.budget));
		}
		if (mismatch !== undefined) throw this.refuse(ticket.itemIndex, mismatch, advice);
	}

	/**
	 * The write failed. Provably not applied (a 4xx other than 408 and 409, a 503, a connection
	 * that failed before it was written): the claim is released, so a later execution may make it.
	 * Any other failure leaves the outcome unknown: the claim stays, remembered as unclear, and the
	 * item fails saying the service may have applied it. Returns what the item fails with.
	 */
	async abandon(ticket: Ticket | undefined, error: unknown): Promise<unknown> {
		if (ticket === undefined) return error;
		const unknown = isUnknownOutcome(error) || ticket.resend !== undefined;
		const status = Number((error as { httpCode?: string }).httpCode);
		const kind: Unclear = ticket.resend?.kind === 'failed' || (status > 0 && !isUnansweredStatus(status)) ? 'failed' : 'unanswered';
		if (!unknown) {
			await this.budgets?.release(ticket.budget);
			this.budgetLeft.delete(ticket.itemIndex);
		}
		const mine = ticket.inExecution;
		if (mine !== undefined && this.executionWrites !== undefined) {
			if (unknown) this.executionWrites.remember(mine.identity, { key: mine.key, kind, at: ticket.resend?.at ?? this.now() });
			else this.executionWrites.forget(mine.identity);
		}
		if (ticket.claimed !== undefined && this.record !== undefined) {
			if (unknown) {
				await this.record.unclear({ key: ticket.claimed, at: ticket.resend?.at ?? this.now(), unclear: kind, ...(ticket.fields !== undefined ? { fields: ticket.fields } : {}) });
			} else {
				await this.record.release(ticket.claimed);
			}
		}
		if (!unknown) return error;
		const cause = error instanceof Error ? error : new Error(String(error));
		const what = (cause as { description?: string }).description;
		const later = ticket.inExecution !== undefined
			? ' A repeat of it in this execution (the same amount to the same record) is sent under the same Idempotency-Key when it went unanswered, and refused otherwise.'
			: ticket.claimed !== undefined
				? ` The node remembers it for ${ticket.keyOf}: a later execution sends it again under the same Idempotency-Key within ${RESEND_WINDOW_MS / 3_600_000} hours when it went unanswered (the service then answers with what it did), and otherwise sends nothing and fails naming it.`
				: ' Running again with the same Idempotency-Key within 24 hours gets the service\'s stored result when it has one.';
		return this.refuse(
			ticket.itemIndex,
			`The outcome of "${ticket.route.name}" is unknown: the service may have applied it (${cause.message})`,
			`Check in the Vault Store dashboard whether it was made before running again.${later}${what ? ` ${what}` : ''}`,
		);
	}

	/** The run finished: its writes count for the node's later runs in this execution. */
	finish(): void {
		this.occurrences?.commit();
	}
}

/** Names of the fields whose digests differ between two `fieldDigests` strings. */
function changedFields(before: string, now: string): string[] {
	const parse = (s: string) => new Map(s.split('&').filter(Boolean).map((pair) => pair.split('=') as [string, string]));
	const a = parse(before);
	const b = parse(now);
	const names = new Set([...a.keys(), ...b.keys()]);
	const changed = [...names].filter((name) => a.get(name) !== b.get(name)).map((name) => decodeURIComponent(name));
	return changed.length ? changed : ['the request'];
}

const WRITES = ['POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** Where the user corrects a guessed name of a money route: the row's Options, or the operation's that declares the route. */
function optionOf(money: MoneyRoute, own: boolean, name: keyof MoneyNames): string {
	const option = CORRECTING_OPTIONS[name];
	return own ? `Options → "${option}"` : `"${option}" in the Options of the operation "${money.name}" (run it there)`;
}

/** What the top level of an answer holds, for a message that asks the user to name a field of it. */
function fieldsOf(answer: unknown): string {
	if (answer === null || typeof answer !== 'object' || Array.isArray(answer)) return 'no fields (it is not an object)';
	const names = Object.entries(answer as IDataObject).map(([name, value]) => (value !== null && typeof value === 'object' && !Array.isArray(value) ? `${name} (an object)` : name));
	if (names.length === 0) return 'no fields';
	return `the fields ${names.slice(0, 15).join(', ')}${names.length > 15 ? ` and ${names.length - 15} more` : ''}`;
}

/** For a read-back that differs or could not compare: where the answer was read, and the option naming it otherwise. */
/** What is left of each budget after a write, for its output. */
function leftOf(res: Reservation): IDataObject {
	const left: IDataObject = { currency: currencyLabel(res.currency) };
	if (res.left.execution !== undefined) left.thisExecution = res.left.execution;
	if (res.left.today !== undefined) left.today = res.left.today;
	return left;
}

function namesAdvice(ticket: Ticket, verdict: ReadBack): string {
	if (ticket.route.undeclared) return '';
	const spec = ticket.route.spec;
	const where = (from: string | undefined, names: string[]) => (from !== undefined ? `was read from "${from}" of the answer` : `was looked for under ${names.join(', ')}`);
	const amount = (from: string | undefined) =>
		` The recorded amount ${where(from, spec.answerAmount)}; if your service states it under another name (e.g. "amount" is another total there), set ${optionOf(ticket.route, ticket.own === true, 'answerAmount')} to that name.`;
	const currency = (from: string | undefined) =>
		` The recorded currency ${where(from, spec.answerCurrency)}; if your service states it under another name, set ${optionOf(ticket.route, ticket.own === true, 'answerCurrency')} to that name.`;
	if (verdict.status === 'mismatch') return verdict.field === 'amount' ? amount(verdict.amountFrom) : currency(verdict.currencyFrom);
	if (verdict.status === 'unchecked') return `${verdict.missing.includes('amount') ? amount(undefined) : ''}${verdict.missing.includes('currency') ? currency(undefined) : ''}`;
	return '';
}

/** A Maximum Amount or a spending budget is set: what the gate cannot count is refused. */
function limited(rules: ItemRules): boolean {
	return rules.maxAmount !== undefined || rules.maxTotalPerExecution !== undefined || rules.maxTotalPerDay !== undefined;
}

/** The limits set, in words: "Maximum Amount" and "Maximum Total per Day". */
function limitNames(rules: ItemRules, join: 'and' | 'or' = 'and'): string {
	const names = [
		rules.maxAmount !== undefined ? '"Maximum Amount"' : undefined,
		rules.maxTotalPerExecution !== undefined ? '"Maximum Total per Execution"' : undefined,
		rules.maxTotalPerDay !== undefined ? '"Maximum Total per Day"' : undefined,
	].filter((name): name is string => name !== undefined);
	return names.length > 1 ? `${names.slice(0, -1).join(', ')} ${join} ${names[names.length - 1]}` : names.join('');
}

/** A money write in words, for messages: its name, the ids of its route, amount and currency. */
function describeWrite(money: MoneyRoute, asked: Asked): string {
	const ids = Object.entries(money.ids).map(([name, value]) => `${name} ${value}`);
	const amount = asked.amount !== undefined ? `${asked.amount}${asked.currency !== undefined ? ` ${asked.currency.toUpperCase()}` : ''}` : undefined;
	return [`"${money.name}"`, ...ids, ...(amount !== undefined ? [amount] : [])].join(', ');
}

/**
 * A replayed answer (Idempotent-Replay: true) to a write under a key of the user's that nothing
 * explains: this execution did not send the key with this write before, no earlier execution left
 * it in the once record (a resend), and the answer does not name the record the write was for. A
 * derived key names the write (event or execution, route, amount), so its replay is always its own.
 */
function unexplainedReplay(ticket: Ticket, answer: unknown): boolean {
	if (ticket.option === undefined || ticket.option.sentBefore || ticket.resend !== undefined) return false;
	return !sameTarget(ticket.route.ids, answer);
}
