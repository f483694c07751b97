/**
 * Search.
 *   GET /v2/stores/:storeId/search?q=<input>[,<input>...]  (also under /v2/core)
 *       q: 1 to 10 comma-separated inputs, each 1 to 256 characters after trimming, no empty entries.
 *       Resolves order ids (ord_), customer ids (cus_), product ids (prd_), subscription ids (sub_, from the
 *       'subscriptions' collection when that module has created it), customer emails (case-insensitive)
 *       and order numbers (case-insensitive). data: array of {kind, id, label, sublabel, link, createdAt},
 *       in input order, one per match; inputs that match nothing are left out.
 *       Rate limit: 30 requests per minute per credential (429 with Retry-After).
 * The response wrapper (a plain array), the kind values, label/sublabel texts and link form are our choice.
 */
import { badRequest, both, Ctx, SandboxApp, ok, single } from '../app';
import type { Customer, Order, Product } from '../state';

export const SEARCH_MAX_INPUTS = 10;
export const SEARCH_PER_MINUTE = 30;

export interface SearchResult {
	kind: 'order' | 'customer' | 'product' | 'subscription';
	id: string;
	label: string;
	sublabel: string | null;
	link: string;
	createdAt: string;
}

interface SubscriptionLike {
	id: string;
	status?: string;
	customerId?: string;
	productId?: string;
	amount?: number;
	currency?: string;
	createdAt?: string;
}

export function register(app: SandboxApp): void {
	const limiter = app.rateLimit('search', SEARCH_PER_MINUTE);

	app.route('GET', both('/search'), (ctx) => {
		const q = single(ctx.query.q, 'q');
		if (q === undefined || q.trim() === '') throw badRequest('q', 'is required');
		const inputs = q.split(',').map((s) => s.trim());
		if (inputs.length > SEARCH_MAX_INPUTS) throw badRequest('q', `must hold at most ${SEARCH_MAX_INPUTS} comma-separated inputs`);
		inputs.forEach((s, i) => {
			if (s === '') throw badRequest('q', `input ${i + 1} is empty`);
			if (s.length > 256) throw badRequest('q', `input ${i + 1} must be at most 256 characters`);
		});
		const results: SearchResult[] = [];
		for (const input of inputs) results.push(...resolve(ctx, input));
		return ok(results);
	}, { rateLimit: limiter });
}

function resolve(ctx: Ctx, input: string): SearchResult[] {
	const { state } = ctx;
	const base = `https://dashboard.vault-store.invalid/stores/${state.store.id}`;
	const lower = input.toLowerCase();
	const email = (customerId: string) => state.customers.find((c) => c.id === customerId)?.email ?? null;
	const order = (o: Order): SearchResult => ({
		kind: 'order',
		id: o.id,
		label: `Order ${o.orderNumber}`,
		sublabel: `${o.amount.toFixed(2)} ${o.currency} · ${o.status} · ${email(o.customerId) ?? 'unknown customer'}`,
		link: `${base}/orders/${o.id}`,
		createdAt: o.createdAt,
	});
	const customer = (c: Customer): SearchResult => ({
		kind: 'customer',
		id: c.id,
		label: `${c.firstName} ${c.lastName}`,
		sublabel: c.email,
		link: `${base}/customers/${c.id}`,
		createdAt: c.createdAt,
	});
	const product = (p: Product): SearchResult => ({
		kind: 'product',
		id: p.id,
		label: p.title,
		sublabel: `${p.price.toFixed(2)} ${p.currency} · ${p.productType}`,
		link: `${base}/products/${p.id}`,
		createdAt: p.createdAt,
	});
	const subscription = (s: SubscriptionLike): SearchResult => ({
		kind: 'subscription',
		id: s.id,
		label: `Subscription ${s.id}`,
		sublabel: [s.status, s.customerId ? email(s.customerId) : null].filter(Boolean).join(' · ') || null,
		link: `${base}/subscriptions/${s.id}`,
		createdAt: s.createdAt ?? state.store.createdAt,
	});

	if (input.startsWith('ord_')) return state.orders.filter((o) => o.id === input).map(order);
	if (input.startsWith('cus_')) return state.customers.filter((c) => c.id === input).map(customer);
	if (input.startsWith('prd_')) return state.products.filter((p) => p.id === input).map(product);
	if (input.startsWith('sub_')) {
		const subs = (state.collections.subscriptions ?? []) as SubscriptionLike[];
		return subs.filter((s) => s.id === input).map(subscription);
	}
	if (input.includes('@')) return state.customers.filter((c) => c.email.toLowerCase() === lower).map(customer);
	return state.orders.filter((o) => o.orderNumber.toLowerCase() === lower).map(order);
}
