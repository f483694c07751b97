import type { IDataObject } from 'n8n-workflow';

import type { ApiRequest, ApiResponse } from '../transport/request';
import { moneyOutcomeOf } from '../transport/outcomes';
import { isUnknownOutcome } from '../transport/request';
import { writeFingerprint } from './keys';
import type { ReadBack } from './readBack';
import { firstAt, otherTarget, readBack, sameTarget } from './readBack';
import type { Unclear } from './record';
import { RESEND_WINDOW_MS } from './record';
import { agentRules, cap, classify, holdBudgets, leftOf, ownRoute } from './admitSteps';
import type { Admission, GateSetup, Send, Ticket } from './gateState';
import { GateState, limited, optionOf } from './gateState';
import { chooseKey, keyAndClaim } from './keyStep';
import { currencyOf, readFirst } from './reads';

export type { Admission, GateSetup, ItemRules, RowRules, Send, Ticket } from './gateState';

/**
 * The request gate: every request the node sends passes `admit` exactly as it will be sent,
 * whoever built it (a row, a `run` hatch, Custom API Call with either credential). Here, and
 * only here, apply: the agent refusals, the money rules (cap per item, amounts above 0, on body
 * and query, on the decoded route), the Idempotency-Key choice, the once-per-event record and
 * the read-back of what the service recorded. `admit` runs the admission steps in order (each in
 * a file of its own): classify, agent rules, read first, cap, key and claim, budgets.
 */
export class RequestGate extends GateState {
	constructor(setup: GateSetup) {
		super(setup);
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
		const { route, money: declared } = classify(this, req);
		if (declared === undefined) {
			if (req.idempotent && req.idempotencyKey === undefined) {
				chooseKey(this, req, itemIndex, await place(), () => writeFingerprint({ method: req.method, route: `${route.api}:/${route.segments.join('/')}`, query: req.query, body: req.body }), () => `${req.method} /${route.segments.join('/')}`);
			}
			return {};
		}
		const rules = this.itemRules(itemIndex);
		agentRules(this, rules, itemIndex);
		const { money, own } = ownRoute(this, declared, rules);
		const known = limited(rules) ? await readFirst(this, money, route, req, send, own) : undefined;
		const ticket = cap(this, req, route, { money, own }, rules, known);
		// The transport repeats it only where the service says it did nothing, and reports an unknown outcome.
		req.money = true;
		const admission = await keyAndClaim(this, req, money, ticket, itemIndex, await place());
		if (admission.ticket !== undefined) await holdBudgets(this, admission.ticket, rules, async () => await currencyOf(this, money, route, req, send));
		return admission;
	}

	/**
	 * After a money write succeeded: what the service recorded is compared with what was asked
	 * and with the Maximum Amount, and the write is recorded (once per event). A difference fails
	 * the item, never retried: the write was made.
	 */
	async settle(ticket: Ticket | undefined, res: ApiResponse): Promise<void> {
		if (ticket === undefined) return;
		if (ticket.inExecution !== undefined) this.executionWritesUsed?.forget(ticket.inExecution.identity);
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
		if (ticket.inExecution?.agent === true && this.executionWritesUsed !== undefined && !(other !== undefined && res.replay)) {
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
		// The currency read before the write was not the one it moved (a service whose order or store
		// answer is wrong): counted above in the recorded one; later reads of this run are not trusted.
		const moved = verdict.currency?.toUpperCase();
		if (ticket.currencyRead !== undefined && moved !== undefined && moved !== ticket.currencyRead.toUpperCase()) {
			const shown = /^[A-Z]{3}$/.test(moved) ? moved : 'another currency';
			this.currencyReadWrong = `The service recorded "${ticket.route.name}" in ${shown} where the currency read before it was ${ticket.currencyRead}`;
			this.setup.hint('currencyRead', `${this.currencyReadWrong}: the spending budgets counted it in ${shown}, and under a budget the rest of this execution refuses writes whose currency it would have to read.`, 'warning');
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
		const kind: Unclear = ticket.resend?.kind === 'failed' || (status > 0 && moneyOutcomeOf(status) !== 'unanswered') ? 'failed' : 'unanswered';
		if (!unknown) {
			await this.budgets?.release(ticket.budget);
			this.budgetLeft.delete(ticket.itemIndex);
		}
		const mine = ticket.inExecution;
		if (mine !== undefined && this.executionWritesUsed !== undefined) {
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

/** For a read-back that differs or could not compare: where the answer was read, and the option naming it otherwise. */
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
