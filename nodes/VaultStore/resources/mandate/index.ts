import type { Operation, Params, Resource } from '../../operation';
import { STORE_CREDENTIAL } from '../../../shared/credentials';
import { ID } from '../../../shared/ids';
import { enumOptions } from '../../../shared/labels';
import { locatorField } from '../../properties';

/** The spec's frequency values (its whole list). */
export const MANDATE_FREQUENCIES = ['ONE_OFF', 'WEEKLY', 'MONTHLY', 'QUARTERLY', 'YEARLY', 'AD_HOC'] as const;

/** What each frequency means, shown under its option. */
const FREQUENCY_DESCRIPTIONS: Record<(typeof MANDATE_FREQUENCIES)[number], string> = {
	ONE_OFF: 'A single charge; the mandate is revoked after the first successful charge',
	WEEKLY: 'Every 7 days',
	MONTHLY: 'Every 30 days',
	QUARTERLY: 'Every quarter',
	YEARLY: 'Every year',
	AD_HOC: 'No fixed cadence',
};

/**
 * One of the spec's values. Which request fields are required is not shown: an empty Frequency (from an
 * expression) is not sent, with a warning, and the service decides.
 */
function frequency(p: Params): string | undefined {
	const value = p.get<unknown>('frequency', '');
	if (value === undefined || value === null || value === '') {
		p.v.warn('"Frequency" is empty, so it is not sent');
		return undefined;
	}
	return p.v.oneOf('Frequency', value, MANDATE_FREQUENCIES);
}

const create: Operation = {
	value: 'create',
	name: 'Create',
	action: 'Create a mandate',
	description:
		'Create a billing agreement (mandate) for an existing customer. Returns the ID, status REQUIRES_ACTION and agreementUrl: send the customer to agreementUrl to authorize it; once ACTIVE it can be charged.',
	method: 'POST',
	family: 'core',
	path: '/mandates',
	// The spec names the three request fields but not which are required, nor a description length:
	// an empty description is not sent, and the service decides.
	body: (p) => {
		const description = p.get<unknown>('description', '');
		return {
			customerId: p.v.id(ID.customerId, p.get('customerId', '')),
			description: description === '' || description === undefined || description === null ? undefined : p.v.string('Description', description),
			frequency: frequency(p),
		};
	},
	fields: [
		locatorField('customerId', ID.customerId, {
			searchMethod: 'searchCustomers',
			description: 'The customer who signs the agreement; must already exist (ID starts with cus_)',
		}),
		{
			displayName: 'Description',
			name: 'description',
			type: 'string',
			default: '',
			placeholder: 'Monthly hosting fee',
			description: 'What the customer agrees to be charged for, shown on the agreement page. Not sent when empty.',
		},
		{
			displayName: 'Frequency',
			name: 'frequency',
			type: 'options',
			options: enumOptions(MANDATE_FREQUENCIES, { ONE_OFF: 'One-Off' }).map((option) => ({
				...option,
				description: FREQUENCY_DESCRIPTIONS[option.value as (typeof MANDATE_FREQUENCIES)[number]],
			})),
			default: 'MONTHLY',
			description: 'How often the customer may be charged under this agreement',
		},
	],
};

export const mandate: Resource = {
	value: 'mandate',
	name: 'Mandate',
	description: 'Billing agreements a customer authorizes before being charged',
	credential: STORE_CREDENTIAL,
	operations: [create],
};
