import type { INodeProperties } from 'n8n-workflow';

import { CORRECTING_OPTIONS } from '../shared/money/spec';
import type { Operation, Resource } from './operation';

/** Node-wide options: speed, retries and the idempotency key. */
export const optionsProperty: INodeProperties = {
	displayName: 'Options',
	name: 'options',
	type: 'collection',
	placeholder: 'Add Option',
	default: {},
	options: [
		{
			displayName: 'Allow Agent Writes',
			name: 'allowAgentWrites',
			type: 'boolean',
			default: false,
			description:
				'Whether an AI agent that uses this node as a tool may run operations it could turn against the store: plan changes that charge, product updates, webhook endpoint and meter changes, and custom API calls. Refunds, payouts and payments stay within Maximum Amount either way.',
		},
		{
			displayName: 'Concurrency',
			name: 'concurrency',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 1000 },
			default: 1000,
			description:
				'Most requests in flight at once (1 to 1000). The node sends as fast as it can until the first answer, then adds more while answers stay fast, takes some off while they get slower, and halves on a rate limit (429) or 503, waiting out Retry-After for every item; 1 sends one request at a time. Output order does not change.',
		},
		{
			displayName: 'Idempotency Key',
			name: 'idempotencyKey',
			type: 'string',
			default: '',
			description:
				'Key sent as Idempotency-Key by operations that use one (token create, refund, payout create, checkout pay, and a Custom API Call with Send Idempotency-Key on): 1 to 255 of A-Z a-z 0-9 _ -. Leave empty for a derived key that stays the same on every retry: when the item descends from a Vault Store Trigger event, one derived from that event and the write, so every execution of the event sends the same key; otherwise one derived from the execution and item.',
		},
		{
			displayName: 'Max Retries',
			name: 'maxRetries',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: 10 },
			default: 3,
			description:
				'Retries after a rate limit (429), and after a server error (5xx), a dropped connection or a timeout for reads, deletes and requests with an Idempotency-Key. Money writes are repeated only after a 429, a 503 or a refused connection; other writes are never repeated, so they cannot apply twice.',
		},
		{
			displayName: 'Maximum Amount',
			name: 'maxAmount',
			type: 'number',
			typeOptions: { minValue: 0, numberPrecision: 2 },
			default: 0,
			description:
				'For refunds, payouts and checkout payments: the most one call may move, checked on the request as it will be sent (Additional Body Fields included). Calls above it, and calls whose amount is not known before sending (a full refund; a checkout payment whose total cannot be read first), are refused before anything is sent; 0, the value when the option is added, refuses them all until you type the most one call may move. Required when an AI agent uses the node as a tool.',
		},
		{
			displayName: 'Maximum Total per Day',
			name: 'maxTotalPerDay',
			type: 'number',
			typeOptions: { minValue: 0, numberPrecision: 2 },
			default: 0,
			description:
				"For refunds, payouts and checkout payments: the most this node may move in one calendar day (the workflow's time zone) in each currency, over all its executions and queue-mode workers. A call that would pass it is refused before anything is sent; a call whose outcome is unknown counts as spent. 0, the value when the option is added, refuses every call until you type the day's total.",
		},
		{
			displayName: 'Maximum Total per Execution',
			name: 'maxTotalPerExecution',
			type: 'number',
			typeOptions: { minValue: 0, numberPrecision: 2 },
			default: 0,
			description:
				"For refunds, payouts and checkout payments: the most this node may move in one execution in each currency, over all its items and, for an AI agent, all its tool calls. A call that would pass it is refused before anything is sent; a call whose outcome is unknown counts as spent. 0, the value when the option is added, refuses every call until you type the total.",
		},
		{
			displayName: CORRECTING_OPTIONS.answerAmount,
			name: 'recordedAmountFields',
			type: 'string',
			default: '',
			description:
				"Where the service's answer to this refund, payout or payment states the amount it recorded, which the node compares with the amount asked and with Maximum Amount: field names or dot paths, separated by commas; the first found counts (Pay: the largest). The default is the operation's own (Refund: amount, refund.amount; Payout → Create: amount, payout.amount; Pay: payment.amount, payment.totalAmount, amount, totalAmount). Change it when the service states the recorded amount under another name, e.g. when its amount is the order's total or the amount after a fee.",
		},
		{
			displayName: CORRECTING_OPTIONS.answerCurrency,
			name: 'recordedCurrencyFields',
			type: 'string',
			default: '',
			description:
				"Where the service's answer to this refund, payout or payment states the currency it recorded, compared with the currency asked: field names or dot paths, separated by commas; the first found counts. The default is the operation's own (Refund: currency, refund.currency; Payout → Create: currency, payout.currency; Pay: payment.currency, currency). Change it when the service names the currency differently.",
		},
		{
			displayName: 'Return All Maximum',
			name: 'maxItems',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 10000000 },
			default: 100000,
			description:
				'With Return All, the most items the node reads before it stops with an error, so a list that never ends cannot exhaust memory',
		},
		{
			displayName: 'Skip Local Checks',
			name: 'skipLocalChecks',
			type: 'boolean',
			default: false,
			description:
				"Whether to turn off the warnings of the node's own checks (e.g. a card number's checksum, a URL's form). They never stop a value from being sent; rules the service states are still checked.",
		},
		{
			displayName: 'Timeout (Ms)',
			name: 'timeout',
			type: 'number',
			typeOptions: { minValue: 100, maxValue: 300000 },
			default: 30000,
			description: 'Deadline for each attempt\'s whole response (headers and body, report files included), in milliseconds: 100 to 300000 (5 minutes). A response not complete by then is cut and retried by the retry rule.',
		},
		{
			displayName: CORRECTING_OPTIONS.readAmount,
			name: 'totalAmountFields',
			type: 'string',
			default: '',
			description:
				'Where the answer of Total Read Route states the session\'s total: field names or dot paths, separated by commas; the largest found counts (a total with tax over an amount). Default: amount, total, totalAmount. Change it when the service names the total differently.',
		},
		{
			displayName: CORRECTING_OPTIONS.readCurrency,
			name: 'totalCurrencyFields',
			type: 'string',
			default: '',
			description:
				'Where the answer of Total Read Route states the session\'s currency (compared with the payment\'s, and the currency the spending budgets count it in): field names or dot paths, separated by commas; the first found counts. Default: currency. Change it when the service names the currency differently.',
		},
		{
			displayName: CORRECTING_OPTIONS.readPath,
			name: 'totalReadRoute',
			type: 'string',
			default: '',
			description:
				'Under a Maximum Amount or a spending budget, Pay reads the session\'s total from this route (GET, below the store\'s root; {sessionId} is the session) before paying, and pays only when it is within them. Default: /checkouts/{sessionId}. Change it when your service gives the total at another route. A route that moves money when written to, or that leaves the store\'s routes, is refused.',
		},
	],
};

/** Where an option applies, from what the rows declare; an option not named here applies to every operation. */
const APPLIES: Record<string, { label: string; listed?: boolean; to: (op: Operation, resource: Resource) => boolean }> = (() => {
	// Also on operations that may charge an amount the request does not state: under a Maximum Amount they are refused.
	const money = {
		// Listed from the rows (optionShownFor with the resources).
		label: 'operations that move or may charge money, Custom API Call',
		listed: true,
		to: (op: Operation, r: Resource) => op.money !== undefined || op.charges !== undefined || custom(r),
	};
	return {
		allowAgentWrites: { label: 'operations an agent may use only when allowed, Custom API Call', to: (op, r) => op.agent?.confirm !== undefined || custom(r) },
		idempotencyKey: { label: 'operations that send an Idempotency-Key, Custom API Call', to: (op, r) => op.idempotent !== undefined || custom(r) },
		maxAmount: money,
		maxTotalPerDay: money,
		maxTotalPerExecution: money,
		maxItems: { label: 'Get Many operations (Return All)', to: (op) => op.list !== undefined },
		// Corrections of the names a money row guesses: where its declaration has them.
		recordedAmountFields: { label: 'Order → Refund, Payout → Create, Checkout → Pay', to: (op) => op.money !== undefined },
		recordedCurrencyFields: { label: 'Order → Refund, Payout → Create, Checkout → Pay', to: (op) => op.money !== undefined },
		totalAmountFields: { label: 'Checkout → Pay', to: (op) => op.money?.readFirst !== undefined },
		totalCurrencyFields: { label: 'Checkout → Pay', to: (op) => op.money?.readFirst !== undefined },
		totalReadRoute: { label: 'Checkout → Pay', to: (op) => op.money?.readFirst !== undefined },
	};
})();

/** The editor's default of an option on one operation, from the row's declaration (the names it guesses); undefined: the option's own. */
function rowDefault(name: string, op: Operation): string | undefined {
	const money = op.money;
	if (money === undefined) return undefined;
	const list = (names: readonly string[] | undefined) => (names ?? []).join(', ');
	switch (name) {
		case 'recordedAmountFields':
			return list(money.answerAmount);
		case 'recordedCurrencyFields':
			return list(money.answerCurrency);
		case 'totalReadRoute':
			return money.readFirst?.path;
		case 'totalAmountFields':
			return money.readFirst && list(money.readFirst.amount);
		case 'totalCurrencyFields':
			return money.readFirst && list(money.readFirst.currency);
		default:
			return undefined;
	}
}

/** "A, B and C". */
function inWords(names: string[]): string {
	return names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}` : names.join('');
}

/**
 * Where the option `name` is shown, in words (the README's Options table). Given the resources, an
 * option shown on a few operations names each of them, from the same declarations that show it.
 */
export function optionShownFor(name: string, resources?: readonly Resource[]): string {
	const applies = APPLIES[name];
	if (applies === undefined) return 'every operation';
	if (!applies.listed || resources === undefined) return applies.label;
	const parts = resources.flatMap((r) => {
		const names = r.operations.filter((op) => applies.to(op, r)).map((op) => op.name);
		if (names.length === 0) return [];
		return custom(r) ? ['Custom API Call'] : [`${r.name} → ${inWords(names)}`];
	});
	return parts.join(', ');
}

function custom(resource: Resource): boolean {
	return resource.value === 'custom';
}

/** The Options collection of one operation: only the options that apply to it, with the operation's own defaults. */
export function optionsFor(op: Operation, resource: Resource): INodeProperties {
	return {
		...optionsProperty,
		options: (optionsProperty.options ?? [])
			.filter((o) => !('name' in o) || APPLIES[o.name] === undefined || APPLIES[o.name].to(op, resource))
			.map((o) => {
				const own = 'name' in o ? rowDefault(o.name, op) : undefined;
				return own === undefined ? o : { ...o, default: own };
			}),
	};
}
