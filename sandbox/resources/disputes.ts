/**
 * Disputes (chargebacks) and the store balance they draw on. The spec names dispute listing,
 * fetching and evidence submission (scopes DISPUTES_READ, DISPUTES_WRITE) but not their paths or
 * bodies: everything below except the PREVENTED status, the events and the fee of 30 is our choice.
 *
 *   GET  /v2/stores/:storeId/disputes                       list; page, limit, status (any text: the spec
 *                                                           does not close the set), orderId (ord_);
 *                                                           newest first; scope DISPUTES_READ
 *   GET  /v2/stores/:storeId/disputes/:disputeId            the dispute; scope DISPUTES_READ
 *   POST /v2/stores/:storeId/disputes/:disputeId/evidence   {explanation?, productDescription?,
 *        customerCommunication?, refundPolicy?, uncategorizedText?, shippingCarrier?, trackingNumber?
 *        (text, no length limit: the spec gives none), files? [{fileName (1..255), mimeType (type/subtype),
 *        data (base64)}] (no file count or size limit of its own; the sandbox's 1 MiB body limit applies)}; at least
 *        one field. Only while OPEN or UNDER_REVIEW (422 dispute_closed otherwise). Text fields are
 *        merged into dispute.evidence, files are kept as {id, fileName, mimeType, sizeBytes}; the status
 *        becomes UNDER_REVIEW. Scope DISPUTES_WRITE.
 *   All three are also served under /v2/core/stores/:storeId (disagreeing: there only, disagree.ts
 *   UNPLACED_ROOTS).
 *
 * Disagreeing (disagree.ts): the list filters are state and order_id.
 *
 * Statuses: OPEN, UNDER_REVIEW, WON, LOST, PREVENTED (only PREVENTED is in the spec).
 * Dispute ids: dsp_ + 24 characters.
 *
 * Dev routes (no auth, localhost only):
 *   POST /__dev/disputes {orderId, amount?, reason?}  opens an OPEN dispute on a COMPLETED order (amount
 *        defaults to the payment total, must be > 0 and <= it) and emits PAYMENT_DISPUTED
 *        {disputeId, orderId, paymentId, amount, currency, reason, status}. -> 201 {dispute, messageIds}
 *   POST /__dev/disputes/:disputeId/prevent  OPEN -> PREVENTED (422 otherwise); deducts the disputed
 *        amount plus the fee of 30 from the balance and emits PAYMENT_DISPUTE_PREVENTED
 *        {disputeId, orderId, paymentId, amount, fee: 30, deducted, currency, status}.
 *        -> {dispute, balance, messageIds}
 *   POST /__dev/disputes/:disputeId/resolve {outcome: WON|LOST}  OPEN/UNDER_REVIEW -> outcome; emits
 *        PAYMENT_DISPUTE_WON / PAYMENT_DISPUTE_LOST; LOST deducts the disputed amount (no fee).
 *   GET  /__dev/balance  {available, currency, entries: [{at, kind, disputeId, amount, fee, balanceAfter}],
 *        disputeRate: {disputes, prevented}} (prevented disputes do not count as disputes).
 *
 * The balance (collection 'storeBalance', one record) starts at 25000 in the store currency. It is this
 * module's own record: payouts.ts keeps its own running balance for payout requests.
 *
 * Seed (collection 'disputes'): 6 disputes on seeded COMPLETED orders, one of each status and a second
 * OPEN one, dated before the seed anchor.
 */
import { badRequest, both, Ctx, notFound, ok, paginate, SandboxApp, single, unprocessable, v } from '../app';
import type { Order, SandboxState } from '../state';
import { SEED_ANCHOR } from '../state';
import type { Rng } from '../util';
import { round2 } from '../util';
import { named, OTHER_QUERY_NAMES, queryIn } from '../disagree';

export const DISPUTE_STATUSES = ['OPEN', 'UNDER_REVIEW', 'WON', 'LOST', 'PREVENTED'] as const;
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number];
export const PREVENTION_FEE = 30;
const STARTING_BALANCE = 25_000;
const DAY = 86_400_000;
const TEXT_FIELDS = [
	'customerCommunication',
	'explanation',
	'productDescription',
	'refundPolicy',
	'shippingCarrier',
	'trackingNumber',
	'uncategorizedText',
];
const REASONS = ['fraudulent', 'product_not_received', 'duplicate', 'subscription_canceled', 'unrecognized'];

export interface EvidenceFile {
	id: string;
	fileName: string;
	mimeType: string;
	sizeBytes: number;
}

export interface Dispute {
	id: string;
	orderId: string;
	paymentId: string;
	amount: number;
	currency: string;
	reason: string | null;
	status: DisputeStatus;
	evidence: Record<string, string>;
	evidenceFiles: EvidenceFile[];
	evidenceSubmittedAt: string | null;
	dueBy: string;
	createdAt: string;
	updatedAt: string;
}

export interface BalanceEntry {
	at: string;
	kind: 'dispute_prevented' | 'dispute_lost';
	disputeId: string;
	amount: number;
	fee: number;
	balanceAfter: number;
}

export interface StoreBalance {
	available: number;
	currency: string;
	entries: BalanceEntry[];
}

const iso = (ms: number) => new Date(ms).toISOString();

function seedDisputes(rng: Rng, state: SandboxState): Dispute[] {
	const completed = state.orders.filter((o) => o.payment.status === 'COMPLETED');
	const statuses: DisputeStatus[] = ['OPEN', 'OPEN', 'UNDER_REVIEW', 'WON', 'LOST', 'PREVENTED'];
	return statuses.map((status, i): Dispute => {
		const order = completed[(i * 17 + 5) % completed.length];
		const createdMs = SEED_ANCHOR - (i + 1) * 3 * DAY;
		return {
			id: rng.id('dsp_'),
			orderId: order.id,
			paymentId: order.payment.id,
			amount: order.payment.totalAmount,
			currency: order.currency,
			reason: rng.pick(REASONS),
			status,
			evidence: status === 'OPEN' || status === 'PREVENTED' ? ({} as Record<string, string>) : { explanation: 'The customer downloaded the files after purchase.' },
			evidenceFiles: [],
			evidenceSubmittedAt: status === 'OPEN' || status === 'PREVENTED' ? null : iso(createdMs + DAY),
			dueBy: iso(createdMs + 21 * DAY),
			createdAt: iso(createdMs),
			updatedAt: iso(createdMs + (status === 'OPEN' ? 0 : 2 * DAY)),
		};
	});
}

export const disputesOf = (app: SandboxApp) => app.collection<Dispute>('disputes', (rng) => seedDisputes(rng, app.state));

export const balanceOf = (app: SandboxApp): StoreBalance =>
	app.collection<StoreBalance>('storeBalance', () => [{ available: STARTING_BALANCE, currency: app.state.store.currency, entries: [] }])[0];

export const disputeView = (d: Dispute) => ({
	id: d.id,
	orderId: d.orderId,
	paymentId: d.paymentId,
	amount: d.amount,
	currency: d.currency,
	reason: d.reason,
	status: d.status,
	evidence: { ...d.evidence },
	evidenceFiles: d.evidenceFiles.map((f) => ({ ...f })),
	evidenceSubmittedAt: d.evidenceSubmittedAt,
	dueBy: d.dueBy,
	createdAt: d.createdAt,
	updatedAt: d.updatedAt,
});

const eventData = (d: Dispute) => ({
	disputeId: d.id,
	orderId: d.orderId,
	paymentId: d.paymentId,
	amount: d.amount,
	currency: d.currency,
	reason: d.reason,
	status: d.status,
});

function balanceView(app: SandboxApp) {
	const b = balanceOf(app);
	const disputes = disputesOf(app);
	return {
		available: b.available,
		currency: b.currency,
		entries: b.entries.map((e) => ({ ...e })),
		disputeRate: {
			disputes: disputes.filter((d) => d.status !== 'PREVENTED').length,
			prevented: disputes.filter((d) => d.status === 'PREVENTED').length,
		},
	};
}

function deduct(app: SandboxApp, ctx: Ctx, d: Dispute, kind: BalanceEntry['kind'], fee: number): BalanceEntry {
	const b = balanceOf(app);
	b.available = round2(b.available - d.amount - fee);
	const entry: BalanceEntry = { at: ctx.iso(), kind, disputeId: d.id, amount: d.amount, fee, balanceAfter: b.available };
	b.entries.push(entry);
	return entry;
}

/** A base64 string (standard or URL alphabet, padding optional); its decoded size. */
function base64Size(value: string, field: string): number {
	if (value === '' || !/^[A-Za-z0-9+/_-]+={0,2}$/.test(value) || value.replace(/=+$/, '').length % 4 === 1) {
		throw badRequest(field, 'must be base64-encoded file content');
	}
	return Buffer.from(value, 'base64').length;
}

function readFiles(app: SandboxApp, raw: unknown): EvidenceFile[] {
	const list = v.arr(raw, 'files') ?? [];
	return list.map((entry, i) => {
		const field = `files[${i}]`;
		const f = v.obj(entry, field, { required: true })!;
		v.onlyFields(f, ['fileName', 'mimeType', 'data'], field);
		const fileName = v.str(f.fileName, `${field}.fileName`, { required: true, max: 255 })!;
		const mimeType = v.str(f.mimeType, `${field}.mimeType`, { required: true, max: 255, pattern: /^[\w.+-]+\/[\w.+-]+$/ })!;
		const data = v.str(f.data, `${field}.data`, { required: true })!;
		const sizeBytes = base64Size(data, `${field}.data`);
		return { id: app.newId('fil_'), fileName, mimeType, sizeBytes };
	});
}

export function register(app: SandboxApp): void {
	const { state } = app;
	disputesOf(app); // seed at start

	const find = (ctx: Ctx): Dispute => {
		const d = disputesOf(app).find((x) => x.id === ctx.params.disputeId);
		if (!d) throw notFound('Dispute');
		return d;
	};

	app.route('GET', both('/disputes'), (ctx) => {
		const q = queryIn(ctx, OTHER_QUERY_NAMES.disputes);
		const name = (own: string) => named(ctx, OTHER_QUERY_NAMES.disputes, own);
		const status = v.str(single(q.status, name('status')), name('status'));
		const orderId = v.id(single(q.orderId, name('orderId')), name('orderId'), 'ord_');
		const found = disputesOf(app)
			.filter((d) => (!status || d.status === status) && (!orderId || d.orderId === orderId))
			.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
		return ok(paginate(found, q, disputeView));
	}, { scope: 'DISPUTES_READ' });

	app.route('GET', both('/disputes/:disputeId'), (ctx) => ok(disputeView(find(ctx))), { scope: 'DISPUTES_READ' });

	app.route('POST', both('/disputes/:disputeId/evidence'), (ctx) => {
		const d = find(ctx);
		const b = ctx.body;
		v.onlyFields(b, [...TEXT_FIELDS, 'files']);
		const text: Record<string, string> = {};
		for (const name of TEXT_FIELDS) {
			const value = v.str(b[name], name);
			if (value) text[name] = value;
		}
		const files = readFiles(app, b.files);
		if (Object.keys(text).length === 0 && files.length === 0) throw badRequest('body', 'must contain at least one evidence field or file');
		if (d.status !== 'OPEN' && d.status !== 'UNDER_REVIEW') {
			throw unprocessable('dispute_closed', `Evidence can only be submitted while the dispute is OPEN or UNDER_REVIEW (it is ${d.status})`);
		}
		Object.assign(d.evidence, text);
		d.evidenceFiles.push(...files);
		d.status = 'UNDER_REVIEW';
		d.evidenceSubmittedAt = ctx.iso();
		d.updatedAt = d.evidenceSubmittedAt;
		return ok(disputeView(d));
	}, { scope: 'DISPUTES_WRITE' });

	// ---------------------------------------------------------------- dev routes
	const dev = { auth: 'none', loopbackOnly: true } as const;

	app.route('POST', '/__dev/disputes', (ctx) => {
		v.onlyFields(ctx.body, ['orderId', 'amount', 'reason']);
		const orderId = v.id(ctx.body.orderId, 'orderId', 'ord_', { required: true })!;
		const order: Order | undefined = state.orders.find((o) => o.id === orderId);
		if (!order) throw notFound('Order');
		if (order.payment.status !== 'COMPLETED') throw unprocessable('order_not_paid', 'Only orders with a completed payment can be disputed');
		const amount = v.num(ctx.body.amount, 'amount', { gt: 0, max: order.payment.totalAmount }) ?? order.payment.totalAmount;
		const now = ctx.now();
		const d: Dispute = {
			id: app.newId('dsp_'),
			orderId: order.id,
			paymentId: order.payment.id,
			amount: round2(amount),
			currency: order.currency,
			reason: v.str(ctx.body.reason, 'reason', { max: 200 }) ?? 'fraudulent',
			status: 'OPEN',
			evidence: {},
			evidenceFiles: [],
			evidenceSubmittedAt: null,
			dueBy: ctx.iso(now + 21 * DAY),
			createdAt: ctx.iso(now),
			updatedAt: ctx.iso(now),
		};
		disputesOf(app).unshift(d);
		const messageIds = app.emit('PAYMENT_DISPUTED', eventData(d));
		return ok({ dispute: disputeView(d), messageIds }, 201);
	}, dev);

	app.route('POST', '/__dev/disputes/:disputeId/prevent', (ctx) => {
		const d = find(ctx);
		if (d.status !== 'OPEN') throw unprocessable('dispute_not_open', `Only an OPEN dispute can be prevented (it is ${d.status})`);
		d.status = 'PREVENTED';
		d.updatedAt = ctx.iso();
		const entry = deduct(app, ctx, d, 'dispute_prevented', PREVENTION_FEE);
		const messageIds = app.emit('PAYMENT_DISPUTE_PREVENTED', {
			...eventData(d),
			fee: PREVENTION_FEE,
			deducted: round2(entry.amount + entry.fee),
		});
		return ok({ dispute: disputeView(d), balance: balanceView(app), messageIds });
	}, dev);

	app.route('POST', '/__dev/disputes/:disputeId/resolve', (ctx) => {
		const d = find(ctx);
		v.onlyFields(ctx.body, ['outcome']);
		const outcome = v.oneOf(ctx.body.outcome, 'outcome', ['WON', 'LOST'] as const, { required: true })!;
		if (d.status !== 'OPEN' && d.status !== 'UNDER_REVIEW') {
			throw unprocessable('dispute_closed', `Only an OPEN or UNDER_REVIEW dispute can be resolved (it is ${d.status})`);
		}
		d.status = outcome;
		d.updatedAt = ctx.iso();
		if (outcome === 'LOST') deduct(app, ctx, d, 'dispute_lost', 0);
		const messageIds = app.emit(outcome === 'WON' ? 'PAYMENT_DISPUTE_WON' : 'PAYMENT_DISPUTE_LOST', eventData(d));
		return ok({ dispute: disputeView(d), balance: balanceView(app), messageIds });
	}, dev);

	app.route('GET', '/__dev/balance', () => ok(balanceView(app)), dev);
}
