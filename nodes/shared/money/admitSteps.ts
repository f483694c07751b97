import type { IDataObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { ApiRequest } from '../transport/request';
import { numberOf } from './amounts';
import type { Reservation } from './budget';
import { BudgetExceeded, Budgets, currencyLabel } from './budget';
import { checkAmounts } from './cap';
import type { Asked } from './readBack';
import type { MoneyRoute, Route } from './routes';
import { isRevealRoute, routeOf } from './routes';
import { correctedSpec } from './spec';
import type { GateState, ItemRules, Ticket } from './gateState';
import { limited, limitNames } from './gateState';

/*
 * Admission steps "classify" (what the gate cannot classify, refused under a limit or for an
 * agent), "agent rules" (a per-execution budget in a called execution), "cap" (the amount asked)
 * and "budgets" (the amount held against Maximum Total per Execution / per Day).
 */

/**
 * Step "classify": the request's route as the service will read it, and what the declarations say
 * it is. A refused path, a Reveal for an agent, and (under a limit or for an agent) a write the
 * declarations cannot classify are refused here, nothing sent.
 */
export function classify(g: GateState, req: ApiRequest): { route: Route; money?: MoneyRoute } {
	const itemIndex = req.itemIndex ?? 0;
	const found = routeOf(req.family, req.path);
	if ('refused' in found) {
		throw g.refuse(itemIndex, `Refused: ${found.refused}`, 'Nothing was sent. Give the route without encoded slashes, backslashes, doubled slashes or dot segments.');
	}
	const route: Route = found;
	if (g.setup.tool && isRevealRoute(route)) {
		throw g.refuse(itemIndex, 'Refused: this call reveals card data, which is never given to AI agents', 'Run Token → Reveal in a normal workflow step instead.');
	}
	const write = g.setup.routes.classify(req.method, route);
	if (write.kind === 'unknown' || write.kind === 'declared') failClosed(g, req, route, write, itemIndex);
	return write.kind === 'money' ? { route, money: write.route } : { route };
}

/** Step "agent rules": a money write for an agent needs a Maximum Amount; a per-execution budget cannot hold in a called execution. */
export function agentRules(g: GateState, rules: ItemRules, itemIndex: number): void {
	if (g.setup.tool && rules.maxAmount === undefined) {
		throw g.refuse(itemIndex, 'Refused: this call moves money and the node has no "Maximum Amount" for AI agents', 'Set "Maximum Amount" in the node\'s Options; the node refuses calls above it.');
	}
	if (rules.maxTotalPerExecution !== undefined) refuseInCalledExecution(g, itemIndex);
}

/** The row's own route, as the row declares it: the user's corrections of its guessed names apply. */
export function ownRoute(g: GateState, declared: MoneyRoute, rules: ItemRules): { money: MoneyRoute; own: boolean } {
	const own = g.setup.row.money && declared.undeclared !== true && declared.name === g.setup.row.action;
	return { money: own ? { ...declared, spec: correctedSpec(declared.spec, rules.names) } : declared, own };
}

/**
 * Step "cap": every amount the request carries (body and query, or the total read first) above 0
 * and at most the Maximum Amount; a route no operation declares refused under a limit. Returns the
 * write's ticket: what it asks, and the largest amount the cap read (what the budgets count).
 */
export function cap(g: GateState, req: ApiRequest, route: Route, write: { money: MoneyRoute; own: boolean }, rules: ItemRules, known: { amount?: number; currency?: string } | undefined): Ticket {
	const { money, own } = write;
	const itemIndex = req.itemIndex ?? 0;
	const verdict = checkAmounts({ route: money, body: req.body, query: req.query, max: rules.maxAmount, known: known?.amount });
	if (verdict.refusal !== undefined) {
		throw g.refuse(itemIndex, verdict.refusal, 'Nothing was sent. Use an amount above 0 and at or below the maximum, or ask a person to do it.');
	}
	// A route that names money but that no operation declares: what it moves is a guess.
	if (money.undeclared) failClosed(g, req, route, { kind: 'unknown' }, itemIndex);
	const asked: Asked = { amount: askedAmount(money, req, known?.amount), currency: askedCurrency(money, req) ?? known?.currency, max: rules.maxAmount };
	return { route: money, asked, itemIndex, keyOf: '', own, ...(verdict.largest !== undefined ? { largest: verdict.largest } : {}) };
}

/**
 * Under a Maximum Amount or for an AI agent, what the gate cannot classify from the rows'
 * declarations is refused (it may move money), and so is a declared operation whose charge the
 * request does not state (Subscription → Change Plan, Reactivate, Resume) under a Maximum Amount
 * or a budget.
 */
function failClosed(g: GateState, req: ApiRequest, route: Route, write: { kind: 'unknown' } | { kind: 'declared'; name: string; charges?: string }, itemIndex: number): void {
	const rules = g.itemRules(itemIndex);
	const capped = limited(rules);
	if (write.kind === 'unknown' && (capped || g.setup.tool)) {
		const who = g.setup.tool ? 'an AI agent runs this node' : 'the node has a "Maximum Amount" or a spending budget';
		throw g.refuse(
			itemIndex,
			`Refused: ${req.method} /${route.segments.join('/')} is not a route of this node's operations, so it cannot tell whether it moves money, and ${who}`,
			'Nothing was sent. Use the operation for it (its route is known), or make this call in a normal workflow step without "Maximum Amount".',
		);
	}
	if (write.kind === 'declared' && write.charges !== undefined && capped) {
		throw g.refuse(
			itemIndex,
			`Refused: "${write.name}" ${write.charges}, an amount the request does not state, so it cannot be held to ${limitNames(rules)}`,
			`Nothing was sent. Run it in a step without ${limitNames(rules, 'or')} that a person reviews.`,
		);
	}
}

/**
 * "Maximum Total per Execution" in an execution another one started (n8n passes the parent
 * execution to a sub-workflow: an AI agent's Call n8n Workflow tool, an Execute Workflow node):
 * each call is its own execution, so the budget, and the execution's memory of writes, would
 * start empty at every call. Refused, nothing sent, saying why.
 */
function refuseInCalledExecution(g: GateState, itemIndex: number): void {
	const context = (g.ctx as unknown as { getExecutionContext?: () => { parentExecutionId?: unknown } | undefined }).getExecutionContext?.();
	const parent = context?.parentExecutionId;
	if (typeof parent !== 'string' || parent === '') return;
	throw g.refuse(
		itemIndex,
		`Refused: "Maximum Total per Execution" cannot hold here: this execution was started by another one (execution ${parent}), as an AI agent's Call n8n Workflow tool or an Execute Workflow node starts one for each call, so the budget would count this call alone, not the calling execution; nothing was sent`,
		'Give the agent the Vault Store node itself as its tool (its calls share the agent\'s execution: its budget and its memory of writes), or leave "Maximum Total per Execution" empty in this sub-workflow and cap the total with "Maximum Total per Day", which counts across executions.',
	);
}

/**
 * The spending budgets (per execution, per day): the write's amount is held before it is sent,
 * or the write is refused naming the budget (its claim given back: nothing was sent).
 */
export async function holdBudgets(g: GateState, ticket: Ticket, rules: ItemRules, currencyOf: () => Promise<string | undefined>): Promise<void> {
	if (rules.maxTotalPerExecution === undefined && rules.maxTotalPerDay === undefined) return;
	// A write sent again under its key was counted when it was first sent (in this execution, or that day).
	const perExecution = ticket.resend !== undefined && ticket.inExecution !== undefined ? undefined : rules.maxTotalPerExecution;
	const perDay = ticket.resend !== undefined ? undefined : rules.maxTotalPerDay;
	if (perExecution === undefined && perDay === undefined) return;
	let failure: NodeOperationError | undefined;
	const budgetName = perExecution !== undefined ? 'Maximum Total per Execution' : 'Maximum Total per Day';
	// What the write can move: the largest amount the cap read, in the currency it moves (read when not stated).
	// A currency read is not trusted once the service recorded a write in another one than read.
	const stated = ticket.asked.currency;
	const currency = ticket.asked.amount === undefined ? undefined : (stated ?? (g.currencyReadWrong === undefined ? await currencyOf() : undefined));
	if (ticket.asked.amount === undefined) {
		failure = g.refuse(ticket.itemIndex, `Refused: the amount of "${ticket.route.name}" is not known before it is sent, so it cannot be counted against "${budgetName}"`, 'Nothing was sent. Give the amount in the request.');
	} else if (currency === undefined && stated === undefined && g.currencyReadWrong !== undefined) {
		failure = g.refuse(
			ticket.itemIndex,
			`Refused: the currency of "${ticket.route.name}" cannot be read reliably before it is sent, so it cannot be counted against "${budgetName}"`,
			`Nothing was sent. ${g.currencyReadWrong}, so the currency the service states before a write is not trusted for the rest of this execution.${ticket.route.spec.currency !== undefined ? ' State the currency in the request.' : ''}`,
		);
	} else if (currency === undefined) {
		const read = ticket.route.spec.currencyRead;
		failure = g.refuse(
			ticket.itemIndex,
			`Refused: the currency of "${ticket.route.name}" is not known before it is sent, so it cannot be counted against "${budgetName}"`,
			`Nothing was sent. ${ticket.route.spec.currency !== undefined ? 'State the currency in the request. ' : ''}${read !== undefined ? `The node reads it at GET ${read.path} (field ${read.currency.join(', ')}), which did not show one.` : ''}`.trim(),
		);
	} else {
		try {
			g.budgets ??= new Budgets(g.ctx, g.now);
			const amount = Math.max(ticket.asked.amount, ticket.largest ?? ticket.asked.amount);
			ticket.budget = await g.budgets.reserve({ perExecution, perDay }, amount, currency);
			if (stated === undefined) ticket.currencyRead = currency;
		} catch (error) {
			failure =
				error instanceof BudgetExceeded
					? g.refuse(ticket.itemIndex, error.message, 'A budget counts every money write of this node in its currency: its own amount (Pay: the total read first), held when sent, kept when the outcome is unknown, given back when it provably did not happen.')
					: g.refuse(ticket.itemIndex, `Refused: the day's spending could not be counted (${(error as Error).message})`, "Nothing was sent. n8n's deduplication store, where the day's total is kept, failed; run again.");
		}
	}
	if (failure !== undefined || ticket.budget === undefined) {
		// Nothing was sent: a new claim is given back; an unclear one stays unclear.
		if (ticket.claimed !== undefined && ticket.resend === undefined) await g.record?.release(ticket.claimed);
		else if (ticket.claimed !== undefined && ticket.resend !== undefined) {
			await g.record?.unclear({ key: ticket.claimed, at: ticket.resend.at ?? g.now(), unclear: ticket.resend.kind, ...(ticket.fields !== undefined ? { fields: ticket.fields } : {}) });
		}
		throw failure ?? g.refuse(ticket.itemIndex, 'Refused: the spending budgets could not be read', 'Nothing was sent.');
	}
	g.budgetLeft.set(ticket.itemIndex, leftOf(ticket.budget));
}

function askedAmount(money: MoneyRoute, req: ApiRequest, known: number | undefined): number | undefined {
	const own = money.spec.amount;
	if (own !== undefined) return numberOf((req.body as IDataObject | undefined)?.[own] ?? (req.query as IDataObject | undefined)?.[own]);
	if (money.spec.readFirst !== undefined) return known;
	return numberOf((req.body as IDataObject | undefined)?.amount ?? (req.query as IDataObject | undefined)?.amount);
}

function askedCurrency(money: MoneyRoute, req: ApiRequest): string | undefined {
	const value = (req.body as IDataObject | undefined)?.[money.spec.currency ?? 'currency'];
	return typeof value === 'string' && value !== '' ? value : undefined;
}


/** For a read-back that differs or could not compare: where the answer was read, and the option naming it otherwise. */
/** What is left of each budget after a write, for its output. */
export function leftOf(res: Reservation): IDataObject {
	const left: IDataObject = { currency: currencyLabel(res.currency) };
	if (res.left.execution !== undefined) left.thisExecution = res.left.execution;
	if (res.left.today !== undefined) left.today = res.left.today;
	return left;
}
