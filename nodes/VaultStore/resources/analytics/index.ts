import type { Operation, Resource } from '../../operation';
import { STORE_CREDENTIAL } from '../../../shared/credentials';
import { enumOptions } from '../../../shared/labels';

export const ANALYTICS_RANGES = ['7d', '30d', '90d', 'all', 'custom'] as const;

const getMrr: Operation = {
	value: 'getMrr',
	name: 'Get MRR',
	action: 'Get monthly recurring revenue',
	description:
		'Get subscription metrics for monthly recurring revenue (MRR) of the store. Returns what the service answers.',
	method: 'GET',
	family: 'core',
	path: '/analytics/subscriptions/mrr',
	notes: 'the spec writes the path prefix as "...": /v2/core/stores/{storeId} chosen',
	fields: [],
};

const getMonthlyRevenue: Operation = {
	value: 'getMonthlyRevenue',
	name: 'Get Monthly Revenue',
	action: 'Get monthly revenue',
	description: 'Get revenue, refunds and net revenue per calendar month, newest month first',
	method: 'GET',
	family: 'core',
	path: '/analytics/revenue/monthly',
	inferred: true,
	notes: 'route, query name months and response inferred',
	query: (p) => {
		const months = p.get<number | undefined>('months', undefined);
		if (months === undefined) return { months: undefined };
		// The query name and its range are a guess: a count below 1 only warns.
		const n = p.v.number('Months', months, { integer: true });
		if (n < 1) p.v.warn(`"Months" is below 1 (got ${n})`);
		return { months: n };
	},
	fields: [
		{
			displayName: 'Months',
			name: 'months',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 12,
			description: 'How many months back to include, this month first',
		},
	],
};

const customPeriod = { show: { range: ['custom'] } };

const getOverview: Operation = {
	value: 'getOverview',
	name: 'Get Overview',
	action: 'Get the store overview',
	description:
		'Get the sales overview of the store for a time range: the last 7, 30 or 90 days, all time, or a custom From/To period. Returns what the service answers.',
	method: 'GET',
	family: 'core',
	path: '/analytics/overview',
	notes: 'inferred query names range, from, to (a hint names the range when the answer states another)',
	// The answer states the range it covers: another than the one sent means the name was ignored.
	guessedNames: { query: ['range'] },
	query: (p) => {
		const range = p.v.oneOf('Range', p.get('range', '30d'), ANALYTICS_RANGES);
		if (range !== 'custom') return { range };
		const from = p.v.timestamp('From', p.get('from', ''));
		const to = p.v.timestamp('To', p.get('to', ''));
		if (Date.parse(from) >= Date.parse(to)) p.v.warn('"From" is not before "To"');
		return { range, from, to };
	},
	fields: [
		{
			displayName: 'Range',
			name: 'range',
			type: 'options',
			options: enumOptions(ANALYTICS_RANGES, {
				'7d': 'Last 7 Days',
				'30d': 'Last 30 Days',
				'90d': 'Last 90 Days',
				all: 'All Time',
			}).map((option) => (option.value === 'custom' ? { ...option, description: 'The period between From and To' } : option)),
			default: '30d',
			description:
				'Period the overview covers, sent as query parameter "range". The node warns when the answer states another range; if your account\'s API reference names the parameter differently, send it under Additional Query Parameters.',
		},
		{
			displayName: 'From',
			name: 'from',
			type: 'dateTime',
			required: true,
			default: '',
			description: 'Start of the custom period (ISO 8601 date and time, sent as query parameter "from")',
			displayOptions: customPeriod,
		},
		{
			displayName: 'To',
			name: 'to',
			type: 'dateTime',
			required: true,
			default: '',
			description: 'End of the custom period, after From (ISO 8601 date and time, sent as query parameter "to")',
			displayOptions: customPeriod,
		},
	],
};

const getSubscriptionOverview: Operation = {
	value: 'getSubscriptionOverview',
	name: 'Get Subscription Overview',
	action: 'Get the subscription overview',
	description:
		'Get subscription metrics of the store (subscriptions by status and related figures). Returns what the service answers.',
	method: 'GET',
	family: 'core',
	path: '/analytics/subscriptions/overview',
	notes: 'the spec writes the path prefix as "...": /v2/core/stores/{storeId} chosen',
	fields: [],
};

export const analytics: Resource = {
	value: 'analytics',
	name: 'Analytics',
	description: 'Sales and subscription metrics of the store',
	credential: STORE_CREDENTIAL,
	operations: [getMonthlyRevenue, getMrr, getOverview, getSubscriptionOverview],
};
