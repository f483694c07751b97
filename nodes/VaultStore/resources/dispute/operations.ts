import type { Operation } from '../../operation';
import { ID } from '../../../shared/ids';
import { submitEvidence } from './evidence';

/**
 * Dispute statuses. The spec shows PREVENTED only; the others are inferred
 * (the usual life of a chargeback: opened, under review, won or lost).
 */
export const DISPUTE_STATUSES = ['LOST', 'OPEN', 'PREVENTED', 'UNDER_REVIEW', 'WON'] as const;

/** Text evidence fields (inferred names), with their maximum lengths. */
export const EVIDENCE_TEXT_FIELDS: Record<string, { label: string; max: number }> = {
	customerCommunication: { label: 'Customer Communication', max: 20_000 },
	explanation: { label: 'Explanation', max: 20_000 },
	productDescription: { label: 'Product Description', max: 20_000 },
	refundPolicy: { label: 'Refund Policy', max: 20_000 },
	shippingCarrier: { label: 'Shipping Carrier', max: 128 },
	trackingNumber: { label: 'Tracking Number', max: 128 },
	uncategorizedText: { label: 'Uncategorized Text', max: 20_000 },
};

export const disputeOperations: Operation[] = [
	{
		value: 'get',
		name: 'Get',
		action: 'Get a dispute',
		description: 'Get one dispute with its order, amount, status and submitted evidence',
		method: 'GET',
		family: 'stores',
		path: '/disputes/{disputeId}',
		ids: { disputeId: ID.disputeId },
		inferred: true,
		scope: 'DISPUTES_READ',
	},
	{
		value: 'getAll',
		name: 'Get Many',
		action: 'Get many disputes',
		description: 'List the disputes of the store, optionally only those of one status or one order',
		method: 'GET',
		family: 'stores',
		path: '/disputes',
		list: 'paged',
		inferred: true,
		scope: 'DISPUTES_READ',
		notes: 'inferred filter names status, orderId',
		query: (p) => {
			const f = p.fields('filters');
			return {
				status: f.status === undefined || f.status === '' ? undefined : p.v.oneOf('Status', f.status, DISPUTE_STATUSES),
				orderId: f.orderId === undefined || f.orderId === '' ? undefined : p.v.id(ID.orderId, f.orderId),
			};
		},
	},
	{
		value: 'submitEvidence',
		name: 'Submit Evidence',
		action: 'Submit evidence for a dispute',
		description:
			'Send text evidence and files (binary properties of the input item, sent base64 in the JSON body) to contest a dispute',
		method: 'POST',
		family: 'stores',
		path: '/disputes/{disputeId}/evidence',
		ids: { disputeId: ID.disputeId },
		inferred: true,
		scope: 'DISPUTES_WRITE',
		notes: 'inferred body: evidence text fields, files [{fileName, mimeType, data (base64)}]',
		body: (p) => {
			const f = p.fields('evidenceFields');
			const body: Record<string, string | undefined> = {};
			for (const [name, rule] of Object.entries(EVIDENCE_TEXT_FIELDS)) {
				const value = f[name];
				body[name] =
					value === undefined || value === '' ? undefined : p.v.string(rule.label, value, { min: 1, max: rule.max });
			}
			return body;
		},
		run: submitEvidence,
	},
];
