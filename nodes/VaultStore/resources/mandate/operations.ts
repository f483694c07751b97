import type { Operation } from '../../operation';
import { ID } from '../../../shared/ids';

export const MANDATE_FREQUENCIES = ['ONE_OFF', 'WEEKLY', 'MONTHLY', 'QUARTERLY', 'YEARLY', 'AD_HOC'] as const;
export const MAX_MANDATE_DESCRIPTION = 1000;

export const mandateOperations: Operation[] = [
	{
		value: 'create',
		name: 'Create',
		action: 'Create a mandate',
		description:
			'Create a billing agreement (mandate) for an existing customer. Returns the ID, status REQUIRES_ACTION and agreementUrl: send the customer to agreementUrl to authorize it; once ACTIVE it can be charged.',
		method: 'POST',
		family: 'core',
		path: '/mandates',
		body: (p) => ({
			customerId: p.id('customerId', ID.customerId),
			description: p.v.string('Description', p.get('description', ''), {
				min: 1,
				max: MAX_MANDATE_DESCRIPTION,
			}),
			frequency: p.v.oneOf('Frequency', p.get('frequency', ''), MANDATE_FREQUENCIES),
		}),
	},
];
