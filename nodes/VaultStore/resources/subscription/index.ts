import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { STORE_CREDENTIAL } from '../../../shared/credentials';
import { opt } from '../../../shared/readers';
import { ID } from '../../../shared/ids';
import { enumOptions } from '../../../shared/labels';
import { collectionField, locatorField, returnAllFields } from '../../properties';
import type { Operation, Params, Resource } from '../../operation';
import { BILLING_INTERVALS } from '../product/fields';

export const SUBSCRIPTION_STATUSES = ['TRIALING', 'ACTIVE', 'PAST_DUE', 'PAUSED', 'CANCELLED'] as const;
export const PRORATION_BEHAVIORS = ['IMMEDIATELY', 'END_OF_PERIOD'] as const;

/** What each proration choice does; '' sends nothing. */
const PRORATION_NOTES: Record<(typeof PRORATION_BEHAVIORS)[number] | '', string> = {
	END_OF_PERIOD: 'Apply the change at the next renewal; nothing is charged now',
	IMMEDIATELY:
		'Apply now: an upgrade charges the prorated difference and resets the billing date, a downgrade applies now',
	'': "Send nothing: the service follows the product's billing anchor",
};

const sub = { subscriptionId: ID.subscriptionId };

const subscriptionId = locatorField('subscriptionId', ID.subscriptionId, { searchMethod: 'searchSubscriptions' });

/** A number; a whole one of at least 1 is the node's own rule (no rule is given for a subscription's quantity). */
function quantity(p: Params, value: unknown): number {
	const n = p.v.number('Quantity', value);
	if (!Number.isInteger(n) || n < 1) p.v.warn(`"Quantity" is not a whole number of at least 1 (got ${n})`);
	return n;
}

/** Body of a plan change: the change fields, plus the proration choice (the executor refuses an empty one). */
function changeBody(p: Params): IDataObject {
	const f = p.fields('updateFields');
	const body: IDataObject = {
		productId: opt(f, 'productId', (v) => p.v.id(ID.productId, v)),
		// Variant ids are never a path id and the spec gives them no prefix or length: any non-empty text.
		variantId: opt(f, 'variantId', (v) => p.v.nonEmpty('Variant ID', v)),
		billingInterval:
			f.billingInterval === undefined ? undefined : p.v.oneOf('Billing Interval', f.billingInterval, BILLING_INTERVALS),
		quantity: f.quantity === undefined ? undefined : quantity(p, f.quantity),
	};
	const proration = p.get<string>('prorationBehavior', '');
	if (proration !== '') {
		body.proration_behavior = p.v.oneOf('Proration Behavior', proration, PRORATION_BEHAVIORS);
	}
	return body;
}

const cancel: Operation = {
	value: 'cancel',
	name: 'Cancel',
	action: 'Cancel a subscription',
	description:
		'Schedule the cancellation of a subscription at the end of its current period (endsAt is set; no further renewal). Undo with Reactivate while the period lasts.',
	method: 'POST',
	family: 'stores',
	path: '/subscriptions/{subscriptionId}/cancel',
	ids: sub,
	inferred: true,
	scope: 'SUBSCRIPTIONS_WRITE',
	fields: [subscriptionId],
};

const change: Operation = {
	value: 'change',
	name: 'Change Plan',
	action: 'Change the plan of a subscription',
	agent: { confirm: 'it may charge the customer now (an immediate prorated upgrade)' },
	charges: 'may charge the customer a prorated difference now',
	description:
		'Change the product or variant, the billing interval or the quantity of a subscription. Proration: Immediately charges a prorated difference on upgrade and resets the billing date; End of Period applies the change at the next renewal without a charge now.',
	method: 'POST',
	family: 'stores',
	path: '/subscriptions/{subscriptionId}/change',
	ids: sub,
	scope: 'SUBSCRIPTIONS_WRITE',
	notes: 'inferred body names productId, variantId, billingInterval, quantity (proration_behavior is in the spec)',
	body: changeBody,
	needsBody: {
		message: '"Update Fields" must set at least one of Product ID, Variant ID, Billing Interval or Quantity',
		besides: ['proration_behavior'],
	},
	fields: [
		subscriptionId,
		{
			displayName: 'Proration Behavior',
			name: 'prorationBehavior',
			type: 'options',
			options: enumOptions(['', ...PRORATION_BEHAVIORS], { '': 'Product Default', END_OF_PERIOD: 'End of Period' }).map(
				(option) => ({ ...option, description: PRORATION_NOTES[option.value as keyof typeof PRORATION_NOTES] }),
			),
			default: '',
			description: 'When the plan change takes effect and whether a prorated amount is charged now',
		},
		collectionField('updateFields', [
			{
				displayName: 'Billing Interval',
				name: 'billingInterval',
				type: 'options',
				options: enumOptions(BILLING_INTERVALS),
				default: 'MONTHLY',
				description: 'New billing interval',
			},
			{
				displayName: 'Product ID',
				name: 'productId',
				type: 'string',
				default: '',
				placeholder: 'prd_...',
				description: 'Product to switch the subscription to (starts with prd_, 12 to 48 characters)',
			},
			{
				displayName: 'Quantity',
				name: 'quantity',
				type: 'number',
				typeOptions: { minValue: 1, numberPrecision: 0 },
				default: 1,
				description: 'New quantity (seats, units), a whole number of at least 1',
			},
			{
				displayName: 'Variant ID',
				name: 'variantId',
				type: 'string',
				default: '',
				description: 'ID of the product variant to switch the subscription to',
			},
		], { description: 'What to change; set at least one' }) satisfies INodeProperties,
	],
};

const get: Operation = {
	value: 'get',
	name: 'Get',
	action: 'Get a subscription',
	description:
		'Get one subscription: status, billing interval, amount, current period, next charge, cancellation and pause dates, product, customer and payment method',
	method: 'GET',
	family: 'core',
	path: '/subscriptions/{subscriptionId}',
	ids: sub,
	fields: [subscriptionId],
};

const getAll: Operation = {
	value: 'getAll',
	name: 'Get Many',
	action: 'Get many subscriptions',
	description: 'List the subscriptions of the store, optionally only those with one status',
	method: 'GET',
	family: 'core',
	path: '/subscriptions',
	list: 'paged',
	query: (p) => {
		const f = p.fields('filters');
		return {
			status: opt(f, 'status', (v) => p.v.oneOf('Status', v, SUBSCRIPTION_STATUSES)),
		};
	},
	fields: [
		...returnAllFields,
		collectionField('filters', [
			{
				displayName: 'Status',
				name: 'status',
				type: 'options',
				options: enumOptions(SUBSCRIPTION_STATUSES),
				default: 'ACTIVE',
				description: 'Only subscriptions with this status',
			},
		]),
	],
};

const getUpcomingInvoice: Operation = {
	value: 'getUpcomingInvoice',
	name: 'Get Upcoming Invoice',
	action: 'Get the upcoming invoice of a subscription',
	description: 'Preview the next charge of a subscription: base amount, usage, tax and total',
	method: 'GET',
	family: 'stores',
	path: '/subscriptions/{subscriptionId}/upcoming-invoice',
	ids: sub,
	scope: 'SUBSCRIPTIONS_READ',
	fields: [subscriptionId],
};

const getUsage: Operation = {
	value: 'getUsage',
	name: 'Get Usage',
	action: 'Get the usage of a subscription',
	description:
		'Get the metered usage of a subscription: a live projection of the current period plus summaries of past periods',
	method: 'GET',
	family: 'core',
	path: '/subscriptions/{subscriptionId}/usage',
	ids: sub,
	scope: 'USAGE_READ',
	fields: [subscriptionId],
};

const pause: Operation = {
	value: 'pause',
	name: 'Pause',
	action: 'Pause a subscription',
	description: 'Pause a subscription: status becomes PAUSED and no charge is made until it is resumed',
	method: 'POST',
	family: 'stores',
	path: '/subscriptions/{subscriptionId}/pause',
	ids: sub,
	inferred: true,
	scope: 'SUBSCRIPTIONS_WRITE',
	fields: [subscriptionId],
};

const reactivate: Operation = {
	value: 'reactivate',
	name: 'Reactivate',
	action: 'Reactivate a subscription',
	agent: { confirm: 'it restarts billing the customer' },
	charges: 'restarts billing the customer',
	description:
		'Clear a scheduled cancellation so the subscription renews again. Only possible while the current period has not ended; the service rejects it afterwards.',
	method: 'POST',
	family: 'stores',
	path: '/subscriptions/{subscriptionId}/reactivate',
	ids: sub,
	fields: [subscriptionId],
};

const resume: Operation = {
	value: 'resume',
	name: 'Resume',
	action: 'Resume a subscription',
	agent: { confirm: 'it restarts billing the customer' },
	charges: 'restarts billing the customer',
	description: 'Resume a paused subscription: status becomes ACTIVE and billing continues',
	method: 'POST',
	family: 'stores',
	path: '/subscriptions/{subscriptionId}/resume',
	ids: sub,
	inferred: true,
	scope: 'SUBSCRIPTIONS_WRITE',
	fields: [subscriptionId],
};

export const subscription: Resource = {
	value: 'subscription',
	name: 'Subscription',
	description: 'Recurring subscriptions of the store: list, get, change plan, cancel, pause, resume, usage and upcoming invoice',
	credential: STORE_CREDENTIAL,
	operations: [cancel, change, get, getAll, getUpcomingInvoice, getUsage, pause, reactivate, resume],
};
