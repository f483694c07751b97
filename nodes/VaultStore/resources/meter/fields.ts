import type { INodeProperties } from 'n8n-workflow';

import { idLocator, listFields, showFor } from '../../descriptions';
import { enumOptions } from '../../../shared/labels';
import { ID } from '../../../shared/ids';
import { METER_AGGREGATIONS } from './operations';

const INFERRED = 'Inferred: the spec names meter management but not its paths or bodies.';

const aggregation = (description: string): INodeProperties => ({
	displayName: 'Aggregation',
	name: 'aggregation',
	type: 'options',
	options: enumOptions(METER_AGGREGATIONS),
	default: 'SUM',
	description: `${description} (Count, Last, Max, Sum are inferred values)`,
});

const unitLabel: INodeProperties = {
	displayName: 'Unit Label',
	name: 'unitLabel',
	type: 'string',
	default: '',
	placeholder: 'API call',
	description: 'Name of one unit shown on invoices (1 to 64 characters)',
};

const pricePerUnit: INodeProperties = {
	displayName: 'Price Per Unit',
	name: 'pricePerUnit',
	type: 'number',
	typeOptions: { minValue: 0, numberPrecision: 4 },
	default: 0,
	description: 'Price of one unit in the store currency (0 or more)',
};

const name = (required: boolean): INodeProperties => ({
	displayName: 'Name',
	name: 'name',
	type: 'string',
	required,
	default: '',
	description: 'Name of the meter (1 to 128 characters)',
});

const eventName = (required: boolean): INodeProperties => ({
	displayName: 'Event Name',
	name: 'eventName',
	type: 'string',
	required,
	default: '',
	placeholder: 'api_call',
	description: 'Name of the usage event the meter counts (1 to 128 characters)',
});

export const meterFields: INodeProperties[] = [
	idLocator('productId', ID.productId, showFor('meter', ['create', 'delete', 'get', 'getAll', 'update']), {
		description: `The product the meters belong to (ID starts with prd_). Needs scope METERS_READ (get, list) or METERS_WRITE (create, update, delete). ${INFERRED}`,
	}),
	idLocator('meterId', ID.meterId, showFor('meter', ['delete', 'get', 'update']), {
		description: `The meter to use (ID of 12 to 48 characters, e.g. mtr_...). ${INFERRED}`,
	}),
	...listFields('meter', 'getAll'),
	{ ...name(true), displayOptions: showFor('meter', ['create']) },
	{ ...eventName(true), displayOptions: showFor('meter', ['create']) },
	{
		...aggregation('How the usage events of a period add up'),
		required: true,
		displayOptions: showFor('meter', ['create']),
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		description: 'Needs scope METERS_WRITE. Inferred: the spec names meter management but not its paths or bodies.',
		displayOptions: showFor('meter', ['create']),
		options: [pricePerUnit, unitLabel],
	},
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		description: `Only the fields given change. Needs scope METERS_WRITE. ${INFERRED}`,
		displayOptions: showFor('meter', ['update']),
		options: [
			aggregation('How the usage events of a period add up'),
			eventName(false),
			name(false),
			pricePerUnit,
			unitLabel,
		],
	},
];
