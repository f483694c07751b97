import type { IDataObject, NodeOperationError } from 'n8n-workflow';

import type { ApiResponse } from '../transport/request';
import type { MadeWrite } from './executionWrites';
import type { RecordEntry, Unclear } from './record';
import { RESEND_WINDOW_MS } from './record';
import type { MoneyRoute } from './routes';
import type { GateState, Ticket } from './gateState';
import { describeWrite } from './gateState';

/*
 * What the gate answers for a write it does not send: the recorded answer of a write already made
 * (by an earlier execution of the event, under a key of the user's, or earlier in this execution
 * for an AI agent), or the refusal of one whose outcome is unknown.
 */

/** An AI agent asked again for a write it made in this execution: the first call's answer, nothing sent. */
export function madeInExecution(g: GateState, money: MoneyRoute, ticket: Ticket, made: MadeWrite): ApiResponse {
	g.setup.hint(
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

/** An earlier execution sent the write and its outcome cannot be learnt by sending it again. */
export function unresolved(g: GateState, money: MoneyRoute, ticket: Ticket, kind: Unclear, at: number | undefined, state?: 'inflight' | 'again'): NodeOperationError {
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
	return g.refuse(
		ticket.itemIndex,
		`The outcome of "${money.name}" for ${ticket.keyOf} is unknown: ${earlier}${when} and the service may have applied it; nothing was sent`,
		`Not sent again because ${why}. ${way}`,
	);
}

/**
 * The answer of a write an earlier execution of the event made (or, under an Idempotency Key of
 * the user's, an earlier run with that key), or its failure again.
 */
export function skipped(g: GateState, money: MoneyRoute, ticket: Ticket, entry: RecordEntry | undefined): ApiResponse {
	const key = ticket.option !== undefined ? `the Idempotency Key "${ticket.option.key}"` : undefined;
	// The earlier execution failed on it; later ones go on (the write is made, once), saying so.
	if (entry?.mismatch) {
		const earlier = key === undefined ? 'An earlier execution of this event made this write' : `This write was made earlier under ${key}`;
		g.setup.hint('mismatch', `${earlier} and failed on what the service recorded: ${entry.mismatch} It is not made again; the output shows the write as skipped.`, 'warning');
	}
	if (entry?.fields !== undefined && ticket.fields !== undefined && entry.fields !== ticket.fields) {
		const changed = changedFields(entry.fields, ticket.fields).map((f) => `"${f}"`).join(', ');
		throw key === undefined
			? g.refuse(
					ticket.itemIndex,
					`An earlier execution of this event already made this write (${money.name}) with other values of ${changed}; nothing was sent`,
					'The same event, order and amount is one money movement, made once. A field whose value changes from one execution to the next (e.g. an expression with $execution.id or $now) cannot change it. To make a second, separate write, give it its own Idempotency Key in the Options.',
				)
			: g.refuse(
					ticket.itemIndex,
					`A write was already made under ${key} (${money.name}) with other values of ${changed}; nothing was sent`,
					'An Idempotency Key of yours names one money movement, made once: a field whose value changed since (e.g. an expression with $execution.id or $now) cannot change it. To make a second, separate write, give it another Idempotency Key in the Options.',
				);
	}
	if (entry === undefined) {
		g.setup.hint(
			'claimed',
			key === undefined
				? 'A write this event already made (or started) in an earlier execution was not sent again. The answer recorded then is not available here (in queue mode another process may hold it), so the output shows writeSkipped only; if that execution stopped before the service answered, check the write in the Vault Store dashboard.'
				: `A write already made (or started) under ${key} was not sent again. The answer recorded then is not available here (in queue mode another process may hold it), so the output shows writeSkipped only; if the run that sent it stopped before the service answered, check the write in the Vault Store dashboard.`,
			'warning',
		);
	} else {
		g.setup.hint('skipped', `A write ${key === undefined ? 'this event already made' : `already made under ${key}`} was not sent again: the output shows the result recorded then (writeSkipped).`);
	}
	g.sources.set(ticket.itemIndex, key === undefined ? 'event' : 'option');
	const data: IDataObject = {
		...(entry?.recordId !== undefined ? { id: entry.recordId } : {}),
		...(entry?.amount !== undefined ? { amount: entry.amount } : {}),
		...(entry?.currency !== undefined ? { currency: entry.currency } : {}),
		writeSkipped: true,
		...(entry !== undefined ? { writeRecordedAt: new Date(entry.at).toISOString() } : {}),
	};
	return { data, status: 200, headers: {}, replay: false };
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
