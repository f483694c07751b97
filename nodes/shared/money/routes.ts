import type { IHttpRequestMethods } from 'n8n-workflow';

import type { Family } from '../transport/request';
import type { MoneySpec } from './spec';

/**
 * Which API a request reaches and its route below that API's root, as the service will read it:
 * percent-escapes decoded, the store or vault root taken off, ids kept as segments. Whatever
 * built the request (a row, a `run` hatch, Custom API Call), the money rules and the agent
 * refusals read this, never the path as typed.
 */
export type Api = 'store' | 'storefront' | 'vault' | 'other';

export interface Route {
	api: Api;
	/** The root the path starts with when the request names it (Custom API Call), else ''. */
	root: string;
	/** Segments below the API's root (ids included), decoded; no empty ones. */
	segments: string[];
}

/** A segment that names a route (lower-case words joined by hyphens), not an id. */
export function isRouteWord(segment: string): boolean {
	return /^[a-z]+(?:-[a-z]+)*$/.test(segment);
}

const ROOTS: Array<{ api: Api; prefix: RegExp }> = [
	{ api: 'store', prefix: /^\/v2\/core\/stores\/[^/]+(?=\/|$)/ },
	{ api: 'store', prefix: /^\/v2\/stores\/[^/]+(?=\/|$)/ },
	{ api: 'storefront', prefix: /^\/v2\/storefront(?=\/|$)/ },
	{ api: 'vault', prefix: /^\/v2\/workspaces\/[^/]+\/vaults\/[^/]+(?=\/|$)/ },
];

const FAMILY_API: Record<Family, Api | undefined> = {
	core: 'store',
	stores: 'store',
	storefront: 'storefront',
	vault: 'vault',
	base: undefined,
};

/** Why a path is refused before any rule reads it, or undefined. */
function badPath(raw: string, decoded: string): string | undefined {
	if (raw.includes('\\') || decoded.includes('\\')) return 'a backslash';
	if (/%(?:25)*(?:2f|5c)/i.test(raw)) return 'an encoded slash';
	if (/\/\//.test(decoded)) return 'a doubled slash';
	if (decoded.split('/').some((s) => s === '.' || s === '..' || s.startsWith('..;') || s.startsWith('.;'))) return 'a "." or ".." segment';
	if (/[;?#\s]/.test(decoded)) return 'a ";", "?", "#" or space';
	return undefined;
}

/**
 * The route of a request: `family` and `path` as the transport joins them. Percent-escapes are
 * decoded (repeatedly, so %2566 counts too); a path with a backslash, an encoded slash, a doubled
 * slash, a `..`/`..;` segment or a `;` is refused (`refused` says why), whatever built it.
 */
export function routeOf(family: Family, path: string): Route | { refused: string } {
	let decoded = path;
	for (let round = 0; round < 5 && decoded.includes('%'); round++) {
		let next: string;
		try {
			next = decodeURIComponent(decoded);
		} catch {
			return { refused: 'the path has an invalid percent-encoding (%)' };
		}
		if (next === decoded) break;
		decoded = next;
	}
	const bad = badPath(path, decoded.replace(/\/$/, ''));
	if (bad !== undefined) return { refused: `the path has ${bad}` };
	let api = FAMILY_API[family];
	let below = decoded;
	let root = '';
	if (api === undefined) {
		const found = ROOTS.find((r) => r.prefix.test(decoded));
		api = found?.api ?? 'other';
		if (found) {
			root = found.prefix.exec(decoded)?.[0] ?? '';
			below = decoded.slice(root.length);
		}
	}
	return { api, root, segments: below.split('/').filter((s) => s !== '') };
}

/**
 * A segment as a service's router reads a route word: in any case, with a format suffix
 * (`.json`, `.xml`) or trailing dots taken off (`/Refund.json`, `/refund.` reach `/refund`).
 */
export function asRouteWord(segment: string): string {
	let word = segment.toLowerCase();
	if (word.endsWith('.json')) word = word.slice(0, -5);
	else if (word.endsWith('.xml')) word = word.slice(0, -4);
	while (word.endsWith('.')) word = word.slice(0, -1);
	return word;
}

/** The last segment when it names a route (an id last means the call is about an existing record), as the service reads it. */
function lastWord(route: Route): string | undefined {
	const last = route.segments[route.segments.length - 1];
	if (last === undefined) return undefined;
	const word = asRouteWord(last);
	return isRouteWord(word) ? word : undefined;
}

/** Route words that move money when written to, whoever sends the write. */
export const MONEY_WORDS = [
	'capture',
	'captures',
	'charge',
	'charges',
	'credit',
	'credits',
	'debit',
	'debits',
	'intent',
	'intents',
	'pay',
	'payment',
	'payments',
	'payout',
	'payouts',
	'refund',
	'refunds',
	'transfer',
	'transfers',
] as const;

const READS: readonly string[] = ['GET', 'HEAD', 'OPTIONS'];

/** A route of the money table: declared by an operation row, or found by its route word. */
export interface MoneyRoute {
	/** What it is called in messages ("Refund an order", or `POST /orders/ord_x/refund`). */
	name: string;
	/** What its record is called beside its id ("refund rfd_…"). */
	label: string;
	spec: MoneySpec;
	/** Ids of the route by their place in the pattern (`{orderId}`: the order's id). */
	ids: Record<string, string>;
	/** The route as the key names it: api and segments, ids included. */
	identity: string;
	/** The root the request's path started with ('' when the family gives it). */
	root: string;
	/** Found by its route word only: no operation declares it (refused under a cap and for agents). */
	undeclared?: true;
}

/** An operation row's money declaration: method, API, and path pattern below the root. */
export interface DeclaredMoneyRoute {
	/** The operation's action ("Refund an order"). */
	name: string;
	/** The operation's name in lower case ("refund"). */
	label: string;
	method: IHttpRequestMethods;
	family: Family;
	/** e.g. `/orders/{orderId}/refund` */
	path: string;
	spec: MoneySpec;
}

/** A row's route that moves no money (declared by its method and path), for the fail-closed rule. */
export interface DeclaredRoute {
	/** The operation's action ("Create a category"). */
	name: string;
	method: IHttpRequestMethods;
	family: Family;
	path: string;
	/** The operation can charge an amount its request does not state: why (refused under a Maximum Amount). */
	charges?: string;
}

/** What a write is, from the declarations: a money route, a declared route that moves no money, or unknown. */
export type WriteClass = { kind: 'money'; route: MoneyRoute } | { kind: 'declared'; name: string; charges?: string } | { kind: 'unknown' } | { kind: 'read' };

/** What a route found only by its route word declares: `amount` is its own amount; every other amount-like field counts too. */
const UNDECLARED: MoneySpec = {
	amount: 'amount',
	answerAmount: ['amount', 'data.amount', 'refund.amount', 'payout.amount', 'payment.amount'],
	answerCurrency: ['currency', 'data.currency', 'refund.currency', 'payout.currency', 'payment.currency'],
};

/**
 * The one table of routes that move money, made once from the rows' declarations; Custom API
 * Call and every other path are matched against it on the decoded route.
 */
/** A declared route made ready to match: method, API and path pattern split into segments. */
interface Compiled<E> {
	method: string;
	api: Api;
	pattern: string[];
	entry: E;
}

function compile<E extends { method: IHttpRequestMethods; family: Family; path: string }>(entry: E): Compiled<E> {
	return { method: entry.method, api: FAMILY_API[entry.family] ?? 'other', pattern: entry.path.split('/').filter((s) => s !== ''), entry };
}

/** The first declared route a request fits, with the route's ids by their placeholder names. */
function firstFit<E>(table: ReadonlyArray<Compiled<E>>, method: string, route: Route): { entry: E; ids: Record<string, string> } | undefined {
	for (const { method: m, api, pattern, entry } of table) {
		if (m !== method || api !== route.api || pattern.length !== route.segments.length) continue;
		const ids: Record<string, string> = {};
		const fits = pattern.every((part, i) => {
			const placeholder = /^\{(\w+)\}$/.exec(part);
			if (placeholder) ids[placeholder[1]] = route.segments[i];
			return placeholder !== null || part === asRouteWord(route.segments[i]);
		});
		if (fits) return { entry, ids };
	}
	return undefined;
}

export class MoneyRoutes {
	private readonly declared: ReadonlyArray<Compiled<DeclaredMoneyRoute>>;

	private readonly others: ReadonlyArray<Compiled<DeclaredRoute>>;

	constructor(declared: readonly DeclaredMoneyRoute[], others: readonly DeclaredRoute[] = []) {
		this.declared = declared.map(compile);
		this.others = others.map(compile);
	}

	/** A write as the declarations classify it (a read is a read). */
	classify(method: string, route: Route): WriteClass {
		const upper = method.toUpperCase();
		if (READS.includes(upper)) return { kind: 'read' };
		const money = this.match(upper, route);
		if (money !== undefined) return { kind: 'money', route: money };
		const other = firstFit(this.others, upper, route)?.entry;
		if (other !== undefined) return { kind: 'declared', name: other.name, ...(other.charges !== undefined ? { charges: other.charges } : {}) };
		return { kind: 'unknown' };
	}

	/** The money route a request reaches, or undefined when it moves no money. */
	match(method: string, route: Route): MoneyRoute | undefined {
		const upper = method.toUpperCase();
		if (READS.includes(upper)) return undefined;
		const identity = `${route.api}:/${route.segments.join('/')}`;
		const fit = firstFit(this.declared, upper, route);
		if (fit !== undefined) return { name: fit.entry.name, label: fit.entry.label, spec: fit.entry.spec, ids: fit.ids, identity, root: route.root };
		const word = lastWord(route);
		if (word !== undefined && (MONEY_WORDS as readonly string[]).includes(word)) {
			return { name: `${upper} /${route.segments.join('/')}`, label: 'write', spec: UNDECLARED, ids: {}, identity, root: route.root, undeclared: true };
		}
		return undefined;
	}
}

/** A vault route that returns card data (`/tokens/{id}/reveal`): never for agents. */
export function isRevealRoute(route: Route): boolean {
	return route.api === 'vault' && lastWord(route) === 'reveal';
}
