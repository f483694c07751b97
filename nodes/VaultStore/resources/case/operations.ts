import type { Operation } from '../../operation';
import { ID } from '../../../shared/ids';

export const caseOperations: Operation[] = [
	{
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
	},
	{
		value: 'get',
		name: 'Get',
		action: 'Get a case',
		description:
			'Get one support case by its ID (cs_...) with its messages. The spec names this operation but not its path; the route is inferred.',
		method: 'GET',
		family: 'core',
		path: '/cases/{caseId}',
		ids: { caseId: ID.caseId },
		inferred: true,
	},
	{
		value: 'getAll',
		name: 'Get Many',
		action: 'Get many cases',
		description:
			'List support cases of the store, newest first, optionally only those with a given status. The spec names this operation but not its path; the route is inferred.',
		method: 'GET',
		family: 'core',
		path: '/cases',
		list: 'paged',
		inferred: true,
		query: (p) => {
			const f = p.fields('filters');
			if (f.status === undefined || f.status === '') return {};
			const status = p.v.string('Status', f.status, { min: 1, max: 32 }).trim().toUpperCase();
			if (!/^[A-Z_]+$/.test(status)) p.v.fail('"Status" may contain only letters and "_" (e.g. OPEN)');
			return { status };
		},
	},
	{
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
	},
];
