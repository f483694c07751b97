import type { INodeProperties } from 'n8n-workflow';

import { STORE_CREDENTIAL } from '../../../shared/credentials';
import { opt } from '../../../shared/readers';
import { enumOptions } from '../../../shared/labels';
import { collectionField, locatorField, returnAllFields } from '../../properties';
import type { Operation, Params, Resource } from '../../operation';
import { ID } from '../../../shared/ids';

/** Order statuses the spec shows ("seen"): not the full set, so the filter sends any other value too. */
export const ORDER_STATUSES = ['PENDING', 'COMPLETED'] as const;
/**
 * Sort directions: the spec's customer directions. For orders it names `asc` only, so the
 * order filter sends any other value typed through an expression too.
 */
export const SORT_DIRECTIONS = ['asc', 'desc'] as const;

const orderId = locatorField('orderId', ID.orderId, { searchMethod: 'searchOrders' });

const get: Operation = {
	value: 'get',
	name: 'Get',
	action: 'Get an order',
	description: 'Get an order with its items, payment, customer and licenses',
	method: 'GET',
	family: 'core',
	path: '/orders/{orderId}',
	ids: { orderId: ID.orderId },
	fields: [orderId],
};

const getAll: Operation = {
	value: 'getAll',
	name: 'Get Many',
	action: 'Get many orders',
	description: 'List orders, newest first unless sorted otherwise',
	method: 'GET',
	family: 'core',
	path: '/orders/',
	list: 'paged',
	notes: 'inferred filter names search, sortDirection (correct them under Additional Query Parameters; a hint names one the answer ignored)',
	guessedNames: { query: ['status'], text: { name: 'search', fields: ['orderNumber', 'customer.email'] }, sort: { field: 'createdAt', direction: 'sortDirection' } },
	query: (p) => {
		const f = p.fields('filters');
		return {
			status: f.status,
			search: f.search === undefined ? undefined : p.v.string('Search', f.search, { max: 128 }),
			sortDirection:
				opt(f, 'sortDirection', (v) => p.v.nonEmpty('Sort Direction', v)),
		};
	},
	fields: [
		...returnAllFields,
		collectionField('filters', [
			{
				displayName: 'Search',
				name: 'search',
				type: 'string',
				default: '',
				description:
					'Text to match against order number or customer email (max 128 characters). Sent as the query parameter "search"; if your account\'s API reference names it differently, leave this empty and send it under Additional Query Parameters. The node warns when the answer is not filtered.',
			},
			{
				displayName: 'Sort Direction',
				name: 'sortDirection',
				type: 'options',
				options: enumOptions(SORT_DIRECTIONS, { asc: 'Ascending (Oldest First)', desc: 'Descending (Newest First)' }),
				default: 'desc',
				description:
					'Order of creation time, sent as the query parameter "sortDirection". Another value the service accepts can be given with an expression; if your account\'s API reference names the parameter differently, send it under Additional Query Parameters. The node warns when the answer is not in this order.',
			},
			{
				displayName: 'Status',
				name: 'status',
				type: 'options',
				options: enumOptions(ORDER_STATUSES),
				default: 'PENDING',
				description:
					'Only orders with this status. The list shows the statuses known so far; another status can be given with an expression.',
			},
		]) satisfies INodeProperties,
	],
};

/** The smallest amount the Amount field offers (two decimals). */
const REFUND_MIN = 0.01;

/**
 * More than 0 (money safety: every money write's own amount). The 0.01 is the node's own (the
 * field's two decimals; the refund body is not in the spec): a smaller amount warns.
 */
function refundAmount(p: Params, value: unknown): number {
	const amount = p.v.number('Amount', value);
	if (amount <= 0) p.v.fail(`"Amount" must be greater than 0 (got ${amount})`);
	if (amount < REFUND_MIN) p.v.warn(`"Amount" is below ${REFUND_MIN} (got ${amount})`);
	return amount;
}

const refund: Operation = {
	value: 'refund',
	name: 'Refund',
	action: 'Refund an order',
	description: 'Refund an order in full or in part. Sends an Idempotency-Key, so a retry never refunds twice.',
	money: {
		amount: 'amount',
		amountParameter: 'additionalFields.amount',
		// The refund's own fields; an answer that is the order (`ord_`) is not compared.
		answerAmount: ['amount', 'refund.amount'],
		answerCurrency: ['currency', 'refund.currency'],
		otherRecords: { ord_: 'the order' },
		withoutAmount: 'a full refund',
		// A refund is in its order's currency: a spending budget counts it there.
		currencyRead: { path: '/orders/{orderId}', currency: ['currency'] },
	},
	method: 'POST',
	family: 'stores',
	path: '/orders/{orderId}/refund',
	ids: { orderId: ID.orderId },
	idempotent: 'honoured',
	notes: 'body (amount, reason) inferred',
	body: (p) => {
		const f = p.fields('additionalFields');
		return {
			amount: f.amount === undefined ? undefined : refundAmount(p, f.amount),
			// The refund body is not in the spec, nor any length for the reason.
			reason: f.reason === undefined ? undefined : p.v.string('Reason', f.reason),
		};
	},
	fields: [
		orderId,
		collectionField('additionalFields', [
			{
				displayName: 'Amount',
				name: 'amount',
				type: 'number',
				typeOptions: { minValue: REFUND_MIN, numberPrecision: 2 },
				default: REFUND_MIN,
				description: 'Amount to refund, in the order currency. Leave it out for a full refund.',
			},
			{
				displayName: 'Reason',
				name: 'reason',
				type: 'string',
				default: '',
				description: 'Why the order is refunded',
			},
		]),
	],
};

/** Orders, and refunding one. (Reading refunds back is the Refund resource.) */
export const order: Resource = {
	value: 'order',
	name: 'Order',
	description: 'Orders of the store, and refunds of them',
	credential: STORE_CREDENTIAL,
	operations: [get, getAll, refund],
};
