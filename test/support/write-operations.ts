/**
 * Minimal, valid node parameters for every write operation of the Vault Store
 * node, for tests that run each write against the sandbox (e.g. under fault
 * injection). Which operations are writes is read from the operation rows;
 * the cases below give, for each, the effect request and fresh parameters.
 *
 * A case's `parameters` prepares its target directly in the sandbox's memory
 * (never over HTTP), so no setup request can meet an injected fault, and every
 * call gives a target on which the write succeeds again: a new category slug,
 * another open subscription, a fresh checkout session, a fresh token...
 */
import type { IDataObject, INodeProperties } from 'n8n-workflow';

import type { Operation, Resource } from '../../nodes/VaultStore/operation';
import { resourceParameters } from '../../nodes/VaultStore/properties';
import { resources } from '../../nodes/VaultStore/resources';
import { casesOf } from '../../sandbox/resources/cases';
import { categoriesOf } from '../../sandbox/resources/categories';
import type { CheckoutSession, Paylink } from '../../sandbox/resources/checkout';
import { openSession } from '../../sandbox/resources/checkout';
import type { Dispute } from '../../sandbox/resources/disputes';
import { disputesOf } from '../../sandbox/resources/disputes';
import type { Meter } from '../../sandbox/resources/meters';
import { metersOf } from '../../sandbox/resources/meters';
import { refundable } from '../../sandbox/resources/orders';
import { catalogOf, licensePool } from '../../sandbox/resources/products';
import type { ReportRecord } from '../../sandbox/resources/reports';
import { MAX_ACTIVE_REPORTS, STEP_MS } from '../../sandbox/resources/reports';
import type { SubscriptionRecord } from '../../sandbox/resources/subscriptions';
import type { Sandbox } from '../../sandbox/server';
import type { WebhookEndpoint } from '../../sandbox/state';
import { round2 } from '../../sandbox/util';
import type { TokenRecord } from '../../sandbox/vault';

export interface WriteCase {
	/** Resource parameter value. */
	resource: string;
	/** Operation parameter value. */
	operation: string;
	/** HTTP method of the request that has the effect (POST/PATCH/PUT/DELETE). */
	method: string;
	/** Matches the sandbox request path of that effect request. */
	pathPattern: RegExp;
	/** Fresh parameters for run n; may create/look up state in the sandbox first (each call must give a target on which the write can succeed again, e.g. a new category name, another open subscription, a fresh checkout session, a fresh token to delete). */
	parameters(sb: Sandbox, n: number): IDataObject | Promise<IDataObject>;
}

const READ_METHODS = new Set(['GET', 'HEAD']);

/**
 * Methods the user picks for a row that runs its own function and has a
 * "Method" option (the Custom API Call): its row method is only the default.
 */
function chosenMethods(resource: Resource, op: Operation): string[] {
	if (!op.run) return [];
	const shownFor = (field: INodeProperties): boolean => {
		const show = field.displayOptions?.show;
		const inList = (list: unknown, value: string) => Array.isArray(list) && list.includes(value);
		return inList(show?.resource, resource.value) && inList(show?.operation, op.value);
	};
	return resourceParameters(resource)
		.filter((field) => field.name === 'method' && field.type === 'options' && shownFor(field))
		.flatMap((field) => field.options ?? [])
		.flatMap((option) => ('value' in option ? [String(option.value)] : []));
}

/** Every (resource, operation) whose row's method is not GET, plus row-less writes (operations with a `run` function that send a write), as "resource:operation". */
export function writeOperationKeys(): string[] {
	const keys: string[] = [];
	for (const resource of resources) {
		for (const op of resource.operations) {
			const methods = [op.method, ...chosenMethods(resource, op)];
			if (methods.some((method) => !READ_METHODS.has(method.toUpperCase()))) keys.push(`${resource.value}:${op.value}`);
		}
	}
	return keys;
}

/** Whether the row "resource:operation" declares that it moves money (the request gate's money rules apply). */
export function movesMoney(key: string): boolean {
	const [resourceValue, operationValue] = key.split(':');
	const op = resources.find((r) => r.value === resourceValue)?.operations.find((o) => o.value === operationValue);
	return op?.money !== undefined;
}

// ------------------------------------------------------------------ helpers

const DAY = 86_400_000;
const SEGMENT = '[^/]+';
const path = (root: string, sub: string) => new RegExp(`^${root}${sub}/?$`);
const core = (sub: string) => path(`/v2/core/stores/${SEGMENT}`, sub);
const stores = (sub: string) => path(`/v2/stores/${SEGMENT}`, sub);
const storefront = (sub: string) => path('/v2/storefront', sub);
const vault = (sub: string) => path(`/v2/workspaces/${SEGMENT}/vaults/${SEGMENT}`, sub);
const rl = (value: string) => ({ __rl: true, mode: 'id', value });

/** A URL no delivery ever reaches (closed loopback port), so no test sends anything off the machine. */
const NOWHERE = 'https://127.0.0.1:9/write-operations';
/** An event type no sandbox route emits: endpoints made here get no deliveries but test ones. */
const QUIET_EVENT = 'SUBSCRIPTION_TRIAL_ENDING';

/** Grows with every call in this process, so names stay unique whatever n and however many callers. */
let serial = 0;

function uniqueSlug(sb: Sandbox, prefix: string, n: number): string {
	const taken = new Set(categoriesOf(sb.app).map((c) => c.slug));
	let slug: string;
	do slug = `${prefix}-${n}-${++serial}`;
	while (taken.has(slug));
	return slug;
}

/** Entry n (turning round) of a sandbox list; a clear error when the list is empty. */
function nth<T>(list: T[], n: number, what: string): T {
	if (list.length === 0) throw new Error(`write-operations: the sandbox has no ${what}`);
	return list[n % list.length];
}

const first = <T>(list: T[], what: string): T => nth(list, 0, what);

const subscriptionProduct = (sb: Sandbox) =>
	sb.state.products.find((p) => p.productType === 'SUBSCRIPTION') ?? first(sb.state.products, 'product');

/**
 * A new subscription in the sandbox, inside a current period that started a
 * day ago: ACTIVE, ACTIVE with a cancellation scheduled at the period end, or PAUSED.
 */
function freshSubscription(sb: Sandbox, kind: 'active' | 'cancelScheduled' | 'paused'): SubscriptionRecord {
	const now = sb.clock.now();
	const product = subscriptionProduct(sb);
	const start = now - DAY;
	const end = start + 30 * DAY;
	const record: SubscriptionRecord = {
		id: sb.app.newId('sub_'),
		status: kind === 'paused' ? 'PAUSED' : 'ACTIVE',
		billingInterval: 'MONTHLY',
		amount: product.price,
		currency: product.currency,
		currentPeriodStart: sb.clock.iso(start),
		currentPeriodEnd: sb.clock.iso(end),
		nextChargeAt: kind === 'active' ? sb.clock.iso(end) : null,
		trialEnd: null,
		cancelledAt: kind === 'cancelScheduled' ? sb.clock.iso(now) : null,
		pausedAt: kind === 'paused' ? sb.clock.iso(now) : null,
		endsAt: kind === 'cancelScheduled' ? sb.clock.iso(end) : null,
		retryCount: 0,
		quantity: 1,
		productId: product.id,
		variantId: null,
		customerId: first(sb.state.customers, 'customer').id,
		paymentMethod: { id: sb.app.newId('pm_'), brand: 'visa', lastFour: '0005', expMonth: 12, expYear: 2035 },
		usagePerDay: 0,
		pastUsage: [],
		scheduledChange: null,
		createdAt: sb.clock.iso(start),
		updatedAt: sb.clock.iso(start),
	};
	sb.app.collection<SubscriptionRecord>('subscriptions').unshift(record);
	return record;
}

/** A new custom-data token stored in the sandbox vault. */
function freshToken(sb: Sandbox, n: number): TokenRecord {
	const data = { reference: `write-operations-${n}-${++serial}` };
	const now = sb.clock.now();
	const token: TokenRecord = {
		id: sb.app.newId('tok_'),
		type: 'custom',
		data,
		fingerprint: sb.app.vault.fingerprint('custom', data),
		metadata: {},
		expiresAt: null,
		createdAt: now,
		updatedAt: now,
	};
	sb.app.vault.tokens.set(token.id, token);
	return token;
}

/** A new meter on a product. */
function freshMeter(sb: Sandbox, n: number): Meter {
	const product = subscriptionProduct(sb);
	const at = sb.clock.iso();
	const meter: Meter = {
		id: sb.app.newId('mtr_'),
		productId: product.id,
		name: `Write case ${n}`,
		eventName: 'write_case',
		aggregation: 'SUM',
		unitLabel: null,
		pricePerUnit: 0,
		currency: product.currency,
		createdAt: at,
		updatedAt: at,
	};
	metersOf(sb.app).push(meter);
	return meter;
}

/** A new webhook endpoint that points nowhere. */
function freshEndpoint(sb: Sandbox, n: number): WebhookEndpoint {
	const at = sb.clock.iso();
	const endpoint: WebhookEndpoint = {
		id: sb.app.newId('whk_'),
		storeId: sb.store.storeId,
		url: `${NOWHERE}/${n}`,
		eventTypes: [QUIET_EVENT],
		note: null,
		signatureVersion: 'V2',
		createdAt: at,
		updatedAt: at,
	};
	sb.state.webhooks.push(endpoint);
	return endpoint;
}

const activePaylink = (sb: Sandbox): Paylink =>
	first(sb.app.collection<Paylink>('checkoutPaylinks').filter((p) => p.active), 'active paylink');

/** A new OPEN checkout session of an active paylink, valid for a day. */
function freshCheckoutSession(sb: Sandbox): CheckoutSession {
	const paylink = activePaylink(sb);
	const product = sb.state.products.find((p) => p.id === paylink.productId) ?? first(sb.state.products, 'product');
	const now = sb.clock.now();
	const id = sb.app.newId('cks_');
	const session = openSession({
		id,
		paylinkId: paylink.id,
		amount: round2(product.price * paylink.quantity),
		currency: product.currency,
		items: [{ productId: product.id, name: product.title, quantity: paylink.quantity, amount: product.price }],
		expiresAt: sb.clock.iso(now + DAY),
		createdAt: sb.clock.iso(now),
	});
	sb.app.collection<CheckoutSession>('checkoutSessions').push(session);
	return session;
}

/** A new OPEN dispute on a paid order. */
function freshDispute(sb: Sandbox, n: number): Dispute {
	const paid = sb.state.orders.filter((o) => o.payment.status === 'COMPLETED');
	const chosen = nth(paid, n, 'paid order');
	const now = sb.clock.now();
	const dispute: Dispute = {
		id: sb.app.newId('dsp_'),
		orderId: chosen.id,
		paymentId: chosen.payment.id,
		amount: chosen.payment.totalAmount,
		currency: chosen.currency,
		reason: 'fraudulent',
		status: 'OPEN',
		evidence: {},
		evidenceFiles: [],
		evidenceSubmittedAt: null,
		dueBy: sb.clock.iso(now + 21 * DAY),
		createdAt: sb.clock.iso(now),
		updatedAt: sb.clock.iso(now),
	};
	disputesOf(sb.app).unshift(dispute);
	return dispute;
}

/** A paid order that can still be refunded 0.01 (turns with n). */
function refundableOrder(sb: Sandbox, n: number): string {
	const open = sb.state.orders.filter((o) => o.payment.status === 'COMPLETED' && refundable(sb.state, o) >= 0.01);
	return nth(open, n, 'refundable order').id;
}

/**
 * Room for one more report: the sandbox refuses a report while 10 are
 * PENDING or PROCESSING; moving its clock two steps lets running ones finish.
 */
function roomForReport(sb: Sandbox): void {
	const now = sb.clock.now();
	const running = sb.app
		.collection<ReportRecord>('reports')
		.filter((r) => ['PENDING', 'PROCESSING'].includes(r.status) && now - Date.parse(r.createdAt) < 2 * STEP_MS);
	if (running.length >= MAX_ACTIVE_REPORTS - 2) sb.clock.advance(2 * STEP_MS);
}

// -------------------------------------------------------------------- cases

export const writeCases: WriteCase[] = [
	{
		resource: 'case',
		operation: 'addMessage',
		method: 'POST',
		pathPattern: core(`/cases/${SEGMENT}/messages`),
		parameters: (sb, n) => ({
			resource: 'case',
			operation: 'addMessage',
			caseId: rl(nth(casesOf(sb.app), n, 'case').id),
			body: `Write case reply ${n}`,
		}),
	},
	{
		resource: 'case',
		operation: 'markRead',
		method: 'POST',
		pathPattern: core(`/cases/${SEGMENT}/read`),
		parameters: (sb, n) => ({ resource: 'case', operation: 'markRead', caseId: rl(nth(casesOf(sb.app), n, 'case').id) }),
	},
	{
		resource: 'category',
		operation: 'create',
		method: 'POST',
		pathPattern: core('/categories'),
		parameters: (sb, n) => {
			const slug = uniqueSlug(sb, 'write-case', n);
			return { resource: 'category', operation: 'create', name: `Write case ${slug}`, slug };
		},
	},
	{
		resource: 'checkout',
		operation: 'createSession',
		method: 'POST',
		pathPattern: /^\/v2\/checkouts$/,
		parameters: (sb, n) => {
			const product = first(catalogOf(sb.app).filter((p) => p.status === 'ACTIVE'), 'active product');
			return {
				resource: 'checkout',
				operation: 'createSession',
				itemsInput: 'fields',
				items: { item: [{ productId: product.id, quantity: 1 + (n % 3) }] },
			};
		},
	},
	{
		resource: 'checkout',
		operation: 'estimate',
		method: 'POST',
		pathPattern: stores('/checkouts/estimate'),
		parameters: (sb, n) => {
			const product = first(catalogOf(sb.app).filter((p) => p.status === 'ACTIVE'), 'active product');
			return {
				resource: 'checkout',
				operation: 'estimate',
				itemsInput: 'fields',
				items: { item: [{ productId: product.id, quantity: 1 + (n % 3) }] },
				country: 'US',
			};
		},
	},
	{
		resource: 'checkout',
		operation: 'pay',
		method: 'POST',
		pathPattern: stores(`/checkouts/${SEGMENT}/pay`),
		parameters: (sb) => ({ resource: 'checkout', operation: 'pay', sessionId: rl(freshCheckoutSession(sb).id) }),
	},
	{
		resource: 'checkout',
		operation: 'paylinkCheckout',
		method: 'POST',
		pathPattern: storefront(`/paylinks/${SEGMENT}/checkout`),
		parameters: (sb) => ({ resource: 'checkout', operation: 'paylinkCheckout', paylinkId: rl(activePaylink(sb).id) }),
	},
	{
		resource: 'dispute',
		operation: 'submitEvidence',
		method: 'POST',
		pathPattern: stores(`/disputes/${SEGMENT}/evidence`),
		parameters: (sb, n) => ({
			resource: 'dispute',
			operation: 'submitEvidence',
			disputeId: rl(freshDispute(sb, n).id),
			evidenceFields: { explanation: `The customer downloaded the files (write case ${n}).` },
		}),
	},
	{
		resource: 'license',
		operation: 'verify',
		method: 'POST',
		pathPattern: core('/licenses/verify'),
		parameters: (sb) => {
			const license = sb.state.licenses[0] ?? first(licensePool(sb.app), 'license');
			return { resource: 'license', operation: 'verify', key: license.key };
		},
	},
	{
		resource: 'mandate',
		operation: 'create',
		method: 'POST',
		pathPattern: core('/mandates'),
		parameters: (sb, n) => ({
			resource: 'mandate',
			operation: 'create',
			customerId: rl(nth(sb.state.customers, n, 'customer').id),
			description: `Write case mandate ${n}`,
			frequency: 'MONTHLY',
		}),
	},
	{
		resource: 'meter',
		operation: 'create',
		method: 'POST',
		pathPattern: stores(`/products/${SEGMENT}/meters`),
		parameters: (sb, n) => ({
			resource: 'meter',
			operation: 'create',
			productId: rl(subscriptionProduct(sb).id),
			name: `Write case ${n}`,
			eventName: 'write_case',
			aggregation: 'SUM',
		}),
	},
	{
		resource: 'meter',
		operation: 'delete',
		method: 'DELETE',
		pathPattern: stores(`/products/${SEGMENT}/meters/${SEGMENT}`),
		parameters: (sb, n) => {
			const meter = freshMeter(sb, n);
			return { resource: 'meter', operation: 'delete', productId: rl(meter.productId), meterId: rl(meter.id) };
		},
	},
	{
		resource: 'meter',
		operation: 'update',
		method: 'PATCH',
		pathPattern: stores(`/products/${SEGMENT}/meters/${SEGMENT}`),
		parameters: (sb, n) => {
			const meter = freshMeter(sb, n);
			return {
				resource: 'meter',
				operation: 'update',
				productId: rl(meter.productId),
				meterId: rl(meter.id),
				updateFields: { name: `Write case ${n} renamed` },
			};
		},
	},
	{
		resource: 'order',
		operation: 'refund',
		method: 'POST',
		pathPattern: stores(`/orders/${SEGMENT}/refund`),
		parameters: (sb, n) => ({
			resource: 'order',
			operation: 'refund',
			orderId: rl(refundableOrder(sb, n)),
			additionalFields: { amount: 0.01, reason: `write case ${n}` },
		}),
	},
	{
		resource: 'payout',
		operation: 'create',
		method: 'POST',
		pathPattern: stores('/payouts'),
		parameters: () => ({ resource: 'payout', operation: 'create', amount: 0.01 }),
	},
	{
		resource: 'product',
		operation: 'update',
		method: 'PATCH',
		pathPattern: core(`/products/${SEGMENT}`),
		parameters: (sb, n) => ({
			resource: 'product',
			operation: 'update',
			productId: rl(first(sb.state.products, 'product').id),
			updateFields: { subtitle: `Write case ${n}` },
		}),
	},
	{
		resource: 'report',
		operation: 'create',
		method: 'POST',
		pathPattern: stores('/reports'),
		parameters: (sb) => {
			roomForReport(sb);
			return {
				resource: 'report',
				operation: 'create',
				type: 'PAYMENT_ACTIVITY',
				from: '2025-12-01T00:00:00.000Z',
				to: '2025-12-31T00:00:00.000Z',
			};
		},
	},
	{
		resource: 'subscription',
		operation: 'cancel',
		method: 'POST',
		pathPattern: stores(`/subscriptions/${SEGMENT}/cancel`),
		parameters: (sb) => ({ resource: 'subscription', operation: 'cancel', subscriptionId: rl(freshSubscription(sb, 'active').id) }),
	},
	{
		resource: 'subscription',
		operation: 'change',
		method: 'POST',
		pathPattern: stores(`/subscriptions/${SEGMENT}/change`),
		parameters: (sb, n) => ({
			resource: 'subscription',
			operation: 'change',
			subscriptionId: rl(freshSubscription(sb, 'active').id),
			prorationBehavior: 'END_OF_PERIOD',
			updateFields: { quantity: 2 + (n % 3) },
		}),
	},
	{
		resource: 'subscription',
		operation: 'pause',
		method: 'POST',
		pathPattern: stores(`/subscriptions/${SEGMENT}/pause`),
		parameters: (sb) => ({ resource: 'subscription', operation: 'pause', subscriptionId: rl(freshSubscription(sb, 'active').id) }),
	},
	{
		resource: 'subscription',
		operation: 'reactivate',
		method: 'POST',
		pathPattern: stores(`/subscriptions/${SEGMENT}/reactivate`),
		parameters: (sb) => ({
			resource: 'subscription',
			operation: 'reactivate',
			subscriptionId: rl(freshSubscription(sb, 'cancelScheduled').id),
		}),
	},
	{
		resource: 'subscription',
		operation: 'resume',
		method: 'POST',
		pathPattern: stores(`/subscriptions/${SEGMENT}/resume`),
		parameters: (sb) => ({ resource: 'subscription', operation: 'resume', subscriptionId: rl(freshSubscription(sb, 'paused').id) }),
	},
	{
		resource: 'token',
		operation: 'create',
		method: 'POST',
		pathPattern: vault('/tokens'),
		parameters: (_sb, n) => ({
			resource: 'token',
			operation: 'create',
			tokenType: 'custom',
			data: JSON.stringify({ reference: `write-operations-${n}-${++serial}` }),
		}),
	},
	{
		resource: 'token',
		operation: 'delete',
		method: 'DELETE',
		pathPattern: vault(`/tokens/${SEGMENT}`),
		parameters: (sb, n) => ({ resource: 'token', operation: 'delete', tokenId: rl(freshToken(sb, n).id) }),
	},
	{
		resource: 'token',
		operation: 'reveal',
		method: 'POST',
		pathPattern: vault(`/tokens/${SEGMENT}/reveal`),
		parameters: (sb, n) => ({ resource: 'token', operation: 'reveal', tokenId: rl(freshToken(sb, n).id) }),
	},
	{
		resource: 'token',
		operation: 'update',
		method: 'PATCH',
		pathPattern: vault(`/tokens/${SEGMENT}`),
		parameters: (sb, n) => ({
			resource: 'token',
			operation: 'update',
			tokenId: rl(freshToken(sb, n).id),
			updateFields: { setMetadata: { entries: [{ key: 'writeCase', value: String(n) }] } },
		}),
	},
	{
		resource: 'webhook',
		operation: 'create',
		method: 'POST',
		pathPattern: core('/webhooks'),
		parameters: (_sb, n) => ({
			resource: 'webhook',
			operation: 'create',
			url: `${NOWHERE}/${n}`,
			eventTypes: [QUIET_EVENT],
		}),
	},
	{
		resource: 'webhook',
		operation: 'delete',
		method: 'DELETE',
		pathPattern: core(`/webhooks/${SEGMENT}`),
		parameters: (sb, n) => ({ resource: 'webhook', operation: 'delete', webhookId: rl(freshEndpoint(sb, n).id) }),
	},
	{
		resource: 'webhook',
		operation: 'sendTest',
		method: 'POST',
		pathPattern: stores(`/webhooks/${SEGMENT}/test`),
		parameters: (sb, n) => ({
			resource: 'webhook',
			operation: 'sendTest',
			webhookId: rl(freshEndpoint(sb, n).id),
			eventType: 'PAYMENT_COMPLETED',
		}),
	},
	{
		resource: 'webhook',
		operation: 'update',
		method: 'PATCH',
		pathPattern: core(`/webhooks/${SEGMENT}`),
		parameters: (sb, n) => ({
			resource: 'webhook',
			operation: 'update',
			webhookId: rl(freshEndpoint(sb, n).id),
			updateFields: { note: `updated ${n}` },
		}),
	},
	{
		// The Custom API Call's row says GET (its default); here it POSTs to a real write route.
		resource: 'custom',
		operation: 'request',
		method: 'POST',
		pathPattern: core('/categories'),
		parameters: (sb, n) => {
			const slug = uniqueSlug(sb, 'custom-write-case', n);
			return {
				resource: 'custom',
				operation: 'request',
				method: 'POST',
				path: '/v2/core/stores/{storeId}/categories',
				body: JSON.stringify({ name: `Custom write case ${slug}`, slug }),
			};
		},
	},
];
