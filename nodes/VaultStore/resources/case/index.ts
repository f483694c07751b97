import type { Operation, Resource } from '../../operation';
import { STORE_CREDENTIAL } from '../../../shared/credentials';
import { ID } from '../../../shared/ids';
import { collectionField, locatorField, returnAllFields } from '../../properties';

const caseId = locatorField('caseId', ID.caseId, { description: 'The support case (ID starts with cs_)' });

const addMessage: Operation = {
	value: 'addMessage',
	name: 'Add Message',
	action: 'Add a message to a case',
	description:
		'Reply to a support case as the merchant with a text message (1 to 4000 characters). Attachments cannot be sent with a store API key. Returns the new message.',
	method: 'POST',
	family: 'core',
	path: '/cases/{caseId}/messages',
	ids: { caseId: ID.caseId },
	body: (p) => ({ body: p.v.string('Message', p.get('body', ''), { min: 1, max: 4000 }) }),
	fields: [
		caseId,
		{
			displayName: 'Message',
			name: 'body',
			type: 'string',
			typeOptions: { rows: 4 },
			required: true,
			default: '',
			description:
				'Text of the reply (1 to 4000 characters). Attachments are not supported with store API keys: add them from the merchant dashboard.',
		},
	],
};

const get: Operation = {
	value: 'get',
	name: 'Get',
	action: 'Get a case',
	description: 'Get one support case by its ID (cs_...) with its messages',
	method: 'GET',
	family: 'core',
	path: '/cases/{caseId}',
	ids: { caseId: ID.caseId },
	inferred: true,
	fields: [caseId],
};

const getAll: Operation = {
	value: 'getAll',
	name: 'Get Many',
	action: 'Get many cases',
	description: 'List support cases of the store, newest first, optionally only those with a given status',
	method: 'GET',
	family: 'core',
	path: '/cases',
	list: 'paged',
	inferred: true,
	query: (p) => {
		const f = p.fields('filters');
		if (f.status === undefined || f.status === '') return {};
		// Case statuses are not in the spec: the text is sent as given. Every status it does show is
		// upper case, so a lower-case letter warns.
		const status = p.v.nonEmpty('Status', f.status);
		if (status !== status.toUpperCase()) {
			p.v.warn(`"Status" has lower-case letters; the statuses the service shows are upper case, e.g. ${status.toUpperCase().slice(0, 40)} (got ${status.slice(0, 40)})`);
		}
		return { status };
	},
	fields: [
		...returnAllFields,
		collectionField('filters', [
			{
				displayName: 'Status',
				name: 'status',
				type: 'string',
				default: '',
				placeholder: 'OPEN',
				description: 'Only cases with this status, e.g. OPEN or CLOSED (sent as typed)',
			},
		]),
	],
};

const markRead: Operation = {
	value: 'markRead',
	name: 'Mark as Read',
	action: 'Mark a case as read',
	description:
		"Mark a support case as read on the merchant side (sets the case's unread counter to 0). Returns {read: true}.",
	method: 'POST',
	family: 'core',
	path: '/cases/{caseId}/read',
	ids: { caseId: ID.caseId },
	scope: 'CASES_WRITE',
	hints: { 403: 'Mark as Read needs a key with the CASES_WRITE scope.' },
	fields: [caseId],
};

/** Support cases; `case` is a reserved word, hence the export name. */
export const supportCase: Resource = {
	value: 'case',
	name: 'Case',
	description: 'Support cases of the store and their messages',
	credential: STORE_CREDENTIAL,
	operations: [addMessage, get, getAll, markRead],
};
