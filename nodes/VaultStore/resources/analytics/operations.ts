import type { Operation } from '../../operation';

export const ANALYTICS_RANGES = ['7d', '30d', '90d', 'all', 'custom'] as const;

export const analyticsOperations: Operation[] = [
	{
		value: 'getMrr',
		name: 'Get MRR',
		action: 'Get monthly recurring revenue',
		description:
			'Get subscription metrics for monthly recurring revenue (MRR) of the store. Returns what the service answers.',
		method: 'GET',
		family: 'core',
		path: '/analytics/subscriptions/mrr',
		inferred: true,
	},
	{
		value: 'getOverview',
		name: 'Get Overview',
		action: 'Get the store overview',
		description:
			'Get the sales overview of the store for a time range: the last 7, 30 or 90 days, all time, or a custom From/To period. Returns what the service answers.',
		method: 'GET',
		family: 'core',
		path: '/analytics/overview',
		inferred: true,
		query: (p) => {
			const range = p.v.oneOf('Range', p.get('range', '30d'), ANALYTICS_RANGES);
			if (range !== 'custom') return { range };
			const from = p.v.timestamp('From', p.get('from', ''));
			const to = p.v.timestamp('To', p.get('to', ''));
			if (Date.parse(from) >= Date.parse(to)) p.v.fail('"From" must be before "To"');
			return { range, from, to };
		},
	},
	{
		value: 'getSubscriptionOverview',
		name: 'Get Subscription Overview',
		action: 'Get the subscription overview',
		description:
			'Get subscription metrics of the store (subscriptions by status and related figures). Returns what the service answers.',
		method: 'GET',
		family: 'core',
		path: '/analytics/subscriptions/overview',
		inferred: true,
	},
];
