import type { IDataObject } from 'n8n-workflow';

import type { ApiRequest } from '../transport/request';
import { ATTEMPT_SLACK_MS, DEFAULT_TRANSPORT_OPTIONS } from '../transport/request';
import type { EventOrigin, KeySource } from './keys';
import { digest, fieldDigests } from './keys';
import { legacyEntry } from './legacy';
import { Occurrences } from './occurrences';
import { eventOrigins } from './origins';
import { MAX_WINDOW_MS } from './onceState';
import { onceRecord, RESEND_WINDOW_MS } from './record';
import type { MoneyRoute } from './routes';
import { skipped, unresolved, madeInExecution } from './answers';
import type { Admission, GateState, Ticket } from './gateState';
import { describeWrite } from './gateState';
/*
 * Admission step "key and claim": the write's Idempotency-Key (the item's option, the event's, or
 * the execution's) and its claim in the once-per-event record, or in the execution's memory of
 * writes when it is keyed per run.
 */

const ONCE_HINT =
	"n8n's Retry does not read or keep this node's once-per-event record here (n8n's deduplication store is not there, and a Retry must not write static data); the Idempotency-Key still makes the service apply a repeated write once within 24 hours.";

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

/** The write's Idempotency-Key and its once-per-event claim. */
export async function keyAndClaim(g: GateState, req: ApiRequest, money: MoneyRoute, ticket: Ticket, itemIndex: number, place: string): Promise<Admission> {
	const { asked } = ticket;

	// The key names the money movement: event, workflow, node, method, route with its ids, amount, currency.
	const identity = `money|${req.method}|${money.identity}|${asked.amount ?? ''}|${(asked.currency ?? '').toUpperCase()}`;
	const chosen = chooseKey(g, req, itemIndex, place, () => identity, () => describeWrite(money, asked));
	const source = chosen.source;
	if (source === 'option') ticket.option = { key: req.idempotencyKey as string, sentBefore: chosen.sentBefore === true };
	if (source === 'execution') {
		if (g.origins !== undefined && g.origins.triggers.length > 0) lostPairing(g, itemIndex);
		return inExecution(g, money, req, ticket, `${place}\n${identity}`);
	}
	ticket.keyOf = source === 'event' ? `event ${chosen.event?.origin.eventId ?? ''}` : `Idempotency Key "${req.idempotencyKey ?? ''}"`;
	const key = source === 'event' ? (req.idempotencyKey as string) : `option|${req.idempotencyKey ?? ''}`;
	ticket.fields = fieldDigests(req.body, req.query, [money.spec.amount, money.spec.currency]);
	// A key the user set names one write: the same key on another route or order is another write.
	if (source === 'option') ticket.fields = `${ticket.fields}${ticket.fields ? '&' : ''}path=${digest(identity)}`;
	// n8n's Retry: n8n's store only (its static data is a stored copy's, saved over the workflow's).
	g.record ??= onceRecord(g.ctx, g.now, g.retryMode);
	// A write the first record (unreleased builds, legacy.ts) holds for this event is not made again either.
	const before = !g.retryMode && chosen.event && legacyEntry(g.ctx, g.keys, chosen.event.origin, req, (fp) => g.legacyOccurrence(fp), g.now());
	if (before) return { skip: skipped(g, money, ticket, before) };
	const window = writeWindow(g.setup.timing ?? DEFAULT_TRANSPORT_OPTIONS);
	// The claim is made after this moment: its deadline is no earlier than the one the transport keeps.
	req.sendBy = g.now() + window - ANSWER_MS;
	const claim = await g.record.claim(key, window);
	if (claim.status === 'unavailable') {
		g.setup.hint('retry', ONCE_HINT, 'warning');
		return { ticket };
	}
	if (g.record.storeFailure !== undefined) {
		g.setup.hint('store', `n8n's deduplication store failed (${g.record.storeFailure}); this run's money writes are recorded in the node's static data instead, which queue-mode workers do not share.`, 'warning');
	}
	if (claim.status === 'untracked') {
		g.setup.hint('untracked', `This money write is not in the node's once-per-event record (${claim.reason}); it was sent under the event's Idempotency-Key, which the service honours for 24 hours.`, 'warning');
		return { ticket };
	}
	if (claim.status === 'new') {
		ticket.claimed = key;
		return { ticket };
	}
	if (claim.status === 'unclear') {
		if (claim.entry?.fields !== undefined && claim.entry.fields !== ticket.fields) skipped(g, money, ticket, claim.entry);
		if (!claim.resend) throw unresolved(g, money, ticket, claim.kind, claim.at, claim.inflight ? 'inflight' : claim.again ? 'again' : undefined);
		ticket.claimed = key;
		ticket.resend = { kind: claim.kind, at: claim.at };
		g.setup.hint(
			'resend',
			`An earlier execution sent "${money.name}" for this ${source === 'event' ? 'event' : 'key'} without learning its outcome; it was sent again under the same Idempotency-Key, which the service answers with what it did then (or does it now, once).`,
			'warning',
		);
		return { ticket };
	}
	return { skip: skipped(g, money, ticket, claim.entry) };
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
export function inExecution(g: GateState, money: MoneyRoute, req: ApiRequest, ticket: Ticket, identity: string): Admission {
	ticket.keyOf = 'this execution';
	if (g.setup.tool) {
		const made = g.executionWrites.made(identity);
		if (made !== undefined) return { skip: madeInExecution(g, money, ticket, made) };
		req.idempotencyKey = g.keys.forExecutionWrite(identity);
	}
	const earlier = g.executionWrites.unclear(identity);
	if (earlier !== undefined) {
		if (earlier.kind === 'failed' || g.now() - earlier.at > RESEND_WINDOW_MS) throw unresolved(g, money, ticket, earlier.kind, earlier.at);
		req.idempotencyKey = earlier.key;
		ticket.resend = { kind: earlier.kind, at: earlier.at };
		g.setup.hint('resend', `An earlier call in this execution sent "${money.name}" without learning its outcome; it was sent again under the same Idempotency-Key, which the service answers with what it did then (or does it now, once).`, 'warning');
	}
	ticket.inExecution = { identity, key: req.idempotencyKey as string, ...(g.setup.tool ? { agent: true } : {}) };
	return { ticket };
}

/**
 * Sets the request's Idempotency-Key: the item's option, else the event's, else the execution's.
 * A key of the user's names one write (`identity`: what it moves, `what`: in words) for the
 * whole execution: another item of the run, or another write in a later run of the node (a
 * loop, an AI agent's next tool call), is refused before it is sent; `sentBefore` says this
 * execution already sent the key with this very write (a re-send).
 */
export function chooseKey(g: GateState, 		req: ApiRequest,
	itemIndex: number,
	place: string,
	identity: () => string,
	what: () => string,
): { source: KeySource; event?: { origin: EventOrigin; occurrence: number }; sentBefore?: boolean } {
	const rules = g.itemRules(itemIndex);
	let source: KeySource;
	let event: { origin: EventOrigin; occurrence: number } | undefined;
	let sentBefore: boolean | undefined;
	if (rules.idempotencyKey !== undefined) {
		const first = g.optionKeys.get(rules.idempotencyKey);
		const advice =
			"The service answers a repeated key with the first request's result, so this item would report another item's write as its own. Give each item its own key in Options → Idempotency Key, e.g. {{ $json.id }}, or leave it empty: the node then derives one per item (and per event).";
		if (first !== undefined && first !== itemIndex) {
			throw g.refuse(itemIndex, `Item ${itemIndex} has the same Idempotency Key as item ${first} ("${rules.idempotencyKey}"); nothing was sent for it`, advice);
		}
		const use = g.executionWrites.useKey(`${place}\n${rules.idempotencyKey}`, identity(), what());
		if (use.status === 'other') {
			throw g.refuse(
				itemIndex,
				`The Idempotency Key "${rules.idempotencyKey}" was already sent in this execution with another write (${use.what}); nothing was sent for this one`,
				`A key typed as a constant is sent again each time the node runs in one execution (Loop Over Items, an AI agent's tool calls), and another Vault Store node of the workflow may use it too. ${advice}`,
			);
		}
		sentBefore = use.status === 'same';
		g.optionKeys.set(rules.idempotencyKey, itemIndex);
		req.idempotencyKey = rules.idempotencyKey;
		source = 'option';
	} else {
		g.origins ??= eventOrigins(g.ctx, g.ctx.getInputData().length);
		const origin: EventOrigin | undefined = g.origins.of[itemIndex];
		if (origin !== undefined) {
			const id = identity();
			g.occurrences ??= new Occurrences(g.ctx.getContext('node') as IDataObject);
			const occurrence = g.occurrences.next(`${origin.eventId}|${id}`);
			req.idempotencyKey = g.keys.forEvent(origin, id, occurrence);
			event = { origin, occurrence };
			source = 'event';
		} else {
			req.idempotencyKey = g.keys.forItem(itemIndex);
			source = 'execution';
		}
	}
	g.sources.set(itemIndex, source);
	return { source, event, sentBefore };
}

export function lostPairing(g: GateState, itemIndex: number): void {
	const trigger = g.origins?.triggers[0] ?? 'Vault Store Trigger';
	g.setup.hint(
		'pairing',
		`Item ${itemIndex} cannot be traced to the "${trigger}" event it came from: a node before this one made new items without pairing them to their input. Its money write is made once per execution, not once per event, so a re-delivered event writes again. Keep the item pairing (in a Code node, return pairedItem), or set Options → Idempotency Key from the event id, e.g. {{ $('${trigger}').item.json.id }}.`,
		'warning',
	);
}
