import type { ApiRequest, Family } from '../transport/request';
import { firstAt, largestAt } from './readBack';
import type { MoneyRoute, Route } from './routes';
import { isRevealRoute, routeOf } from './routes';
import type { GateState, Send } from './gateState';
import { fieldsOf, optionOf, WRITES } from './gateState';

/*
 * Admission step "read first": what a write will move when its request does not say, read before
 * it is sent (Pay: the session's total; a refund or a payout without a currency: the currency of
 * its order or of the store). Reads only: a route that moves money, or leaves the write's API, is
 * refused before anything is sent.
 */

/**
 * The amount a request without one will move, read first (Pay: the session's total). The read
 * is a GET below the write's own root, from the declaration or the user's correction of it,
 * refused when it is not a plain route of the same API or names a route that moves money.
 */
export async function readFirst(g: GateState, money: MoneyRoute, route: Route, req: ApiRequest, send: Send, own: boolean): Promise<{ amount?: number; currency?: string } | undefined> {
	const read = money.spec.readFirst;
	if (read === undefined) return undefined;
	const max = g.itemRules(req.itemIndex ?? 0).maxAmount;
	const limit = max !== undefined ? `, and it must be at most ${max} ("Maximum Amount")` : ', so it cannot be counted against "Maximum Total per Execution" or "Maximum Total per Day"';
	const path = readPath(g, money, route, req, read.path, own);
	let answer: unknown;
	try {
		answer = (await send({ family: req.family, method: 'GET', path, itemIndex: req.itemIndex, inferred: true })).data;
	} catch (error) {
		throw g.refuse(
			req.itemIndex,
			`Refused: the amount of "${money.name}" is not known before it is sent (reading it first failed)${limit}`,
			`Nothing was sent. Reading GET ${path} failed: ${(error as Error).message}. If your service gives the total at another route, set ${optionOf(money, own, 'readPath')} to it (now ${read.path}).`,
		);
	}
	// The largest amount the service states for it (a total with tax over an amount).
	const amount = largestAt(answer, read.amount);
	if (amount === undefined) {
		throw g.refuse(
			req.itemIndex,
			`Refused: the amount of "${money.name}" is not known before it is sent (the answer read first has no amount under ${read.amount.join(', ')})${limit}`,
			`Nothing was sent. The answer of GET ${path} has ${fieldsOf(answer)}. If your service names the total differently, set ${optionOf(money, own, 'readAmount')} to its name (a dot path for a nested field, e.g. summary.total).`,
		);
	}
	const currency = firstAt(answer, read.currency ?? [])?.value;
	if (typeof currency !== 'string' || currency === '') {
		g.setup.hint(
			'readCurrency',
			`The answer of GET ${path}, read before "${money.name}", has no currency under ${(read.currency ?? []).join(', ') || '(no name)'}: the payment's currency is not compared, and the spending budgets count it in the store's currency. If your service names the currency differently, set ${optionOf(money, own, 'readCurrency')} to its name.`,
			'warning',
		);
	}
	return { amount, currency: typeof currency === 'string' && currency !== '' ? currency : undefined };
}

/**
 * The currency a write moves when its request does not state one, read where its route declares
 * (`currencyRead`: a refund's order, the store), once per route and run; undefined when the
 * route declares no such read, the read is not a plain read of the store API (the same rule as a
 * total read first), the read fails or its answer shows none.
 */
export async function currencyOf(g: GateState, money: MoneyRoute, route: Route, req: ApiRequest, send: Send): Promise<string | undefined> {
	const read = money.spec.currencyRead;
	if (read === undefined) return undefined;
	// Below the store API's root, as its record routes are (GET /orders/{orderId}; '' the store itself).
	const found = readRoute(g, money, route, { family: 'core', root: '' }, read.path);
	if ('refused' in found) return undefined;
	let known = g.currencies.get(found.path);
	if (known === undefined) {
		known = send({ family: 'core', method: 'GET', path: found.path, itemIndex: req.itemIndex, inferred: true }).then(
			(res) => {
				const value = firstAt(res.data, read.currency)?.value;
				return typeof value === 'string' && /^[A-Za-z]{3}$/.test(value) ? value.toUpperCase() : undefined;
			},
			() => undefined,
		);
		g.currencies.set(found.path, known);
	}
	return await known;
}

/**
 * The route a total is read from first, as it will be sent: `{id}` placeholders of the write's
 * route filled, below the write's root. Refused (nothing is sent) unless it is a plain read
 * (`readRoute`).
 */
function readPath(g: GateState, money: MoneyRoute, write: Route, req: ApiRequest, template: string, own: boolean): string {
	const found = readRoute(g, money, write, { family: req.family, root: money.root }, template);
	if (!('refused' in found)) return found.path;
	const placeholders = Object.keys(money.ids).map((name) => `{${name}}`);
	throw g.refuse(
		req.itemIndex,
		`Refused: the route the total of "${money.name}" is read from first ("${template}", ${optionOf(money, own, 'readPath')}) ${found.refused}; nothing was sent`,
		`Give a route below the store's root that reads the record${placeholders.length ? `, with ${placeholders.join(', ')} for its ID` : ''}, e.g. ${placeholders.length ? `/checkouts/${placeholders[0]}` : '/checkouts'}.`,
	);
}

/**
 * The one rule for a read the gate makes before a write (a total, a currency): `template` ('' the
 * root itself, else from "/") with the write's `{id}` placeholders filled, below `at.root` in
 * `at.family`. Refused, with why, unless it is a plain route of the write's API that is a read and
 * that, written to, would move no money: never a write, a Reveal or another host.
 */
export function readRoute(g: GateState, money: MoneyRoute, write: Route, at: { family: Family; root: string }, template: string): { path: string } | { refused: string } {
	if (template !== '' && !template.startsWith('/')) return { refused: 'does not start with "/"' };
	const unknown = [...template.matchAll(/\{([^{}]*)\}/g)].map((m) => m[1]).find((name) => !(name in money.ids));
	if (unknown !== undefined) return { refused: `names {${unknown}}, which this operation's route does not have` };
	const path = at.root + template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(money.ids[name] ?? ''));
	if (/[{}]/.test(path)) return { refused: 'has a "{" or "}" that is not a placeholder' };
	const found = routeOf(at.family, path);
	if ('refused' in found) return { refused: `is not a plain route: ${found.refused}` };
	if (found.api !== write.api || found.api === 'other') return { refused: 'leaves the API the write goes to' };
	if (g.setup.routes.classify('GET', found).kind !== 'read' || isRevealRoute(found)) return { refused: 'is not a read' };
	for (const method of WRITES) {
		if (g.setup.routes.match(method, found) !== undefined) return { refused: `is a route that moves money when written to (${method} /${found.segments.join('/')})` };
	}
	return { path };
}
