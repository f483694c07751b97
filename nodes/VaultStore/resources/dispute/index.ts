import type { INodeProperties } from 'n8n-workflow';

import { STORE_CREDENTIAL } from '../../../shared/credentials';
import { opt } from '../../../shared/readers';
import { ID } from '../../../shared/ids';
import { enumOptions } from '../../../shared/labels';
import { collectionField, locatorField, returnAllFields } from '../../properties';
import type { Operation, Resource } from '../../operation';
import { submitEvidence as sendEvidence } from './evidence';

/**
 * Dispute statuses offered in the Status filter. The spec gives PREVENTED
 * only ("the others ... are not shown"); the others are the usual life of a
 * chargeback. The set is not closed: the filter sends any other status typed
 * through an expression.
 */
export const DISPUTE_STATUSES = ['LOST', 'OPEN', 'PREVENTED', 'UNDER_REVIEW', 'WON'] as const;

/** Text evidence fields (inferred names). The spec gives no length limits for them. */
export const EVIDENCE_TEXT_FIELDS: Record<string, { label: string }> = {
	customerCommunication: { label: 'Customer Communication' },
	explanation: { label: 'Explanation' },
	productDescription: { label: 'Product Description' },
	refundPolicy: { label: 'Refund Policy' },
	shippingCarrier: { label: 'Shipping Carrier' },
	trackingNumber: { label: 'Tracking Number' },
	uncategorizedText: { label: 'Uncategorized Text' },
};

function evidenceText(name: string, description: string, rows = 4): INodeProperties {
	const rule = EVIDENCE_TEXT_FIELDS[name];
	return {
		displayName: rule.label,
		name,
		type: 'string',
		typeOptions: rows > 1 ? { rows } : undefined,
		default: '',
		description,
	};
}

const disputeId = locatorField('disputeId', ID.disputeId, {
	description:
		'The dispute to use (ID of 12 to 48 characters). Needs scope DISPUTES_READ (get) or DISPUTES_WRITE (submit evidence).',
});

const get: Operation = {
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
	fields: [disputeId],
};

const getAll: Operation = {
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
	guessedNames: { query: ['status', 'orderId'] },
	query: (p) => {
		const f = p.fields('filters');
		return {
			status: opt(f, 'status', (v) => p.v.nonEmpty('Status', v)),
			orderId: opt(f, 'orderId', (v) => p.v.id(ID.orderId, v)),
		};
	},
	fields: [
		...returnAllFields,
		collectionField('filters', [
			{
				displayName: 'Order ID',
				name: 'orderId',
				type: 'string',
				default: '',
				placeholder: 'ord_...',
				description: 'Only disputes of this order (starts with ord_)',
			},
			{
				displayName: 'Status',
				name: 'status',
				type: 'options',
				options: enumOptions(DISPUTE_STATUSES),
				default: 'OPEN',
				description:
					'Only disputes with this status. The list shows the usual statuses; another status can be given with an expression.',
			},
		], { description: 'Needs scope DISPUTES_READ' }) satisfies INodeProperties,
	],
};

const submitEvidence: Operation = {
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
			body[name] = value === undefined || value === '' ? undefined : p.v.string(rule.label, value);
		}
		return body;
	},
	run: sendEvidence,
	fields: [
		disputeId,
		{
			displayName: 'Binary Properties',
			name: 'binaryProperties',
			type: 'string',
			default: '',
			placeholder: 'data, receipt',
			description:
				'Comma-separated names of binary properties of the input item to attach as evidence files. Each is sent base64 in the JSON body as files [{fileName, mimeType, data}].',
		},
		{
			displayName: 'Evidence Fields',
			name: 'evidenceFields',
			type: 'collection',
			placeholder: 'Add Evidence',
			default: {},
			description: 'Text evidence to send. Needs scope DISPUTES_WRITE.',
			options: [
				evidenceText('customerCommunication', 'Messages exchanged with the customer about the purchase'),
				evidenceText('explanation', 'Why the charge is valid, in your own words'),
				evidenceText('productDescription', 'What was sold and how it was delivered'),
				evidenceText('refundPolicy', 'The refund policy the customer agreed to'),
				evidenceText('shippingCarrier', 'Carrier of the shipment, e.g. UPS', 1),
				evidenceText('trackingNumber', 'Tracking number of the shipment', 1),
				evidenceText('uncategorizedText', 'Any other evidence'),
			],
		},
	],
};

export const dispute: Resource = {
	value: 'dispute',
	name: 'Dispute',
	description: 'Disputes (chargebacks) of payments: list, get and submit evidence',
	credential: STORE_CREDENTIAL,
	operations: [get, getAll, submitEvidence],
};
