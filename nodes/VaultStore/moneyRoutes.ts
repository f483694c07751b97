import { MoneyRoutes } from '../shared/money';
import type { Resource } from './operation';

const made = new WeakMap<readonly Resource[], MoneyRoutes>();

/** The route table of every row that declares `money`, made once per resource list. */
export function moneyRoutesOf(resources: readonly Resource[]): MoneyRoutes {
	let routes = made.get(resources);
	if (routes === undefined) {
		routes = new MoneyRoutes(
			resources.flatMap((resource) =>
				resource.operations.flatMap((op) =>
					op.money ? [{ name: op.action, label: op.name.toLowerCase(), method: op.method, family: op.family, path: op.path, spec: op.money }] : [],
				),
			),
		);
		made.set(resources, routes);
	}
	return routes;
}
