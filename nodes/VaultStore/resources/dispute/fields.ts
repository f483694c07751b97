import type { INodeProperties } from 'n8n-workflow';

import { idLocator, listFields, showFor } from '../../descriptions';
import { enumOptions } from '../../../shared/labels';
import { ID } from '../../../shared/ids';
import { DISPUTE_STATUSES, EVIDENCE_TEXT_FIELDS } from './operations';
import { MAX_EVIDENCE_FILES } from './evidence';

const INFERRED = 'Inferred: the spec names the operation but not its path or body.';

function evidenceText(name: string, description: string, rows = 4): INodeProperties {
	const rule = EVIDENCE_TEXT_FIELDS[name];
	return {
		displayName: rule.label,
		name,
		type: 'string',
		typeOptions: rows > 1 ? { rows } : undefined,
		default: '',
		description: `${description} (max ${rule.max} characters)`,
	};
}

export const disputeFields: INodeProperties[] = [
	idLocator('disputeId', ID.disputeId, showFor('dispute', ['get', 'submitEvidence']), {
		description: `The dispute to use (ID of 12 to 48 characters). Needs scope DISPUTES_READ (get) or DISPUTES_WRITE (submit evidence). ${INFERRED}`,
	}),
	...listFields('dispute', 'getAll'),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		description: 'Needs scope DISPUTES_READ. Inferred: the spec names the operation but not its path or filters.',
		displayOptions: showFor('dispute', ['getAll']),
		options: [
			{
				displayName: 'Order ID',
				name: 'orderId',
				type: 'string',
				default: '',
				placeholder: 'ord_...',
				description: 'Only disputes of this order (starts with ord_; inferred filter)',
			},
			{
				displayName: 'Status',
				name: 'status',
				type: 'options',
				options: enumOptions(DISPUTE_STATUSES),
				default: 'OPEN',
				description:
					'Only disputes with this status. The spec shows PREVENTED only; Open, Under Review, Won and Lost are inferred.',
			},
		],
	},
	{
		displayName: 'Evidence Fields',
		name: 'evidenceFields',
		type: 'collection',
		placeholder: 'Add Evidence',
		default: {},
		description: `Text evidence to send. Needs scope DISPUTES_WRITE. ${INFERRED}`,
		displayOptions: showFor('dispute', ['submitEvidence']),
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
	{
		displayName: 'Binary Properties',
		name: 'binaryProperties',
		type: 'string',
		default: '',
		placeholder: 'data, receipt',
		description: `Comma-separated names of binary properties of the input item to attach as evidence files (at most ${MAX_EVIDENCE_FILES} files, 10 MiB in total). Each is sent base64 in the JSON body as files [{fileName, mimeType, data}]. ${INFERRED}`,
		displayOptions: showFor('dispute', ['submitEvidence']),
	},
];
