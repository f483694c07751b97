import { MoneyRoutes } from '../shared/money';
import type { Resource } from './operation';

const made = new WeakMap<readonly Resource[], MoneyRoutes>();

/**
 * The route table: every row that declares `money`, and every other write row's route (what the
 * request gate calls a declared route that moves no money), made once per resource list. A row
 * that runs its own function for any route (Custom API Call, `anyRoute`) declares no route.
 */
export function moneyRoutesOf(resources: readonly Resource[]): MoneyRoutes {
	let routes = made.get(resources);
	if (routes === undefined) {
		const rows = resources.flatMap((resource) => resource.operations);
		// What a record is called in messages ("refund rfd_…"): the operation, or for a Create the resource ("payout po_…").
		const label = (op: Resource['operations'][number]) =>
			(op.name === 'Create' ? (resources.find((r) => r.operations.includes(op))?.name ?? op.name) : op.name).toLowerCase();
		routes = new MoneyRoutes(
			rows.flatMap((op) => (op.money ? [{ name: op.action, label: label(op), method: op.method, family: op.family, path: op.path, spec: op.money }] : [])),
			rows.flatMap((op) =>
				!op.money && !op.anyRoute && op.method !== 'GET' ? [{ name: op.action, method: op.method, family: op.family, path: op.path, ...(op.charges !== undefined ? { charges: op.charges } : {}) }] : [],
			),
		);
		made.set(resources, routes);
	}
	return routes;
}
