import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { STORE_CREDENTIAL } from '../../../shared/credentials';
import { ID } from '../../../shared/ids';
import { enumOptions } from '../../../shared/labels';
import { collectionField, locatorField, returnAllFields } from '../../properties';
import type { Operation, Params, Resource } from '../../operation';

/**
 * How usage events add up over a billing period: the values the Aggregation
 * dropdown offers. The spec names no values, so the set is not closed: any
 * other value typed through an expression is sent as it is.
 */
export const METER_AGGREGATIONS = ['COUNT', 'LAST', 'MAX', 'SUM'] as const;

const ids = { productId: ID.productId, meterId: ID.meterId };
const listIds = { productId: ID.productId };

/** A number; below 0 only warns (the meter's body is not shown by the spec). */
function price(p: Params, value: unknown): number {
	const n = p.v.number('Price Per Unit', value);
	if (n < 0) p.v.warn(`"Price Per Unit" is below 0 (got ${n})`);
	return n;
}

/**
 * Reads the meter write fields of a collection (or of the top level for
 * create). The spec gives no lengths for them: text is only checked to be text.
 */
function meterBody(p: Params, f: IDataObject): IDataObject {
	const has = (name: string) => f[name] !== undefined && f[name] !== '';
	return {
		name: has('name') ? p.v.string('Name', f.name, { min: 1 }) : undefined,
		eventName: has('eventName') ? p.v.string('Event Name', f.eventName, { min: 1 }) : undefined,
		aggregation: has('aggregation') ? p.v.nonEmpty('Aggregation', f.aggregation) : undefined,
		unitLabel: has('unitLabel') ? p.v.string('Unit Label', f.unitLabel, { min: 1 }) : undefined,
		pricePerUnit: has('pricePerUnit') ? price(p, f.pricePerUnit) : undefined,
	};
}

const productId = locatorField('productId', ID.productId, {
	description:
		'The product the meters belong to (ID starts with prd_). Needs scope METERS_READ (get, list) or METERS_WRITE (create, update, delete).',
});

const meterId = locatorField('meterId', ID.meterId, {
	description: 'The meter to use (ID of 12 to 48 characters, e.g. mtr_...)',
});

const aggregation: INodeProperties = {
	displayName: 'Aggregation',
	name: 'aggregation',
	type: 'options',
	options: enumOptions(METER_AGGREGATIONS),
	default: 'SUM',
	description:
		'How the usage events of a period add up. The list shows the usual ways; another value can be given with an expression.',
};

const unitLabel: INodeProperties = {
	displayName: 'Unit Label',
	name: 'unitLabel',
	type: 'string',
	default: '',
	placeholder: 'API call',
	description: 'Name of one unit shown on invoices',
};

const pricePerUnit: INodeProperties = {
	displayName: 'Price Per Unit',
	name: 'pricePerUnit',
	type: 'number',
	typeOptions: { minValue: 0, numberPrecision: 4 },
	default: 0,
	description: 'Price of one unit in the store currency (0 or more)',
};

const name: INodeProperties = {
	displayName: 'Name',
	name: 'name',
	type: 'string',
	default: '',
	description: 'Name of the meter',
};

const eventName: INodeProperties = {
	displayName: 'Event Name',
	name: 'eventName',
	type: 'string',
	default: '',
	placeholder: 'api_call',
	description: 'Name of the usage event the meter counts',
};

const create: Operation = {
	value: 'create',
	name: 'Create',
	action: 'Create a meter',
	agent: { confirm: 'meters decide what usage customers are billed for' },
	description: 'Create a usage meter on a product: which event it counts, how usage adds up and its price per unit',
	method: 'POST',
	family: 'stores',
	path: '/products/{productId}/meters',
	ids: listIds,
	inferred: true,
	scope: 'METERS_WRITE',
	notes: 'inferred body names name, eventName, aggregation, unitLabel, pricePerUnit',
	body: (p) => {
		const f = p.fields('additionalFields');
		return meterBody(p, {
			name: p.v.string('Name', p.get('name', ''), { min: 1 }),
			eventName: p.v.string('Event Name', p.get('eventName', ''), { min: 1 }),
			aggregation: p.v.nonEmpty('Aggregation', p.get('aggregation', '')),
			unitLabel: f.unitLabel,
			pricePerUnit: f.pricePerUnit,
		});
	},
	fields: [
		productId,
		{ ...name, required: true },
		{ ...eventName, required: true },
		{ ...aggregation, required: true },
		collectionField('additionalFields', [pricePerUnit, unitLabel], { description: 'Needs scope METERS_WRITE' }),
	],
};

const deleteMeter: Operation = {
	value: 'delete',
	name: 'Delete',
	action: 'Delete a meter',
	agent: { confirm: 'meters decide what usage customers are billed for' },
	description: 'Delete a usage meter of a product',
	method: 'DELETE',
	family: 'stores',
	path: '/products/{productId}/meters/{meterId}',
	ids,
	inferred: true,
	scope: 'METERS_WRITE',
	fields: [productId, meterId],
};

const get: Operation = {
	value: 'get',
	name: 'Get',
	action: 'Get a meter',
	description: 'Get one usage meter of a product',
	method: 'GET',
	family: 'stores',
	path: '/products/{productId}/meters/{meterId}',
	ids,
	inferred: true,
	scope: 'METERS_READ',
	fields: [productId, meterId],
};

const getAll: Operation = {
	value: 'getAll',
	name: 'Get Many',
	action: 'Get many meters',
	description: 'List the usage meters of a product',
	method: 'GET',
	family: 'stores',
	path: '/products/{productId}/meters',
	ids: listIds,
	list: 'paged',
	inferred: true,
	scope: 'METERS_READ',
	fields: [productId, ...returnAllFields],
};

const update: Operation = {
	value: 'update',
	name: 'Update',
	action: 'Update a meter',
	agent: { confirm: 'meters decide what usage customers are billed for' },
	description: 'Change the name, event, aggregation, unit label or price per unit of a meter; only the fields given change',
	method: 'PATCH',
	family: 'stores',
	path: '/products/{productId}/meters/{meterId}',
	ids,
	inferred: true,
	scope: 'METERS_WRITE',
	notes: 'inferred method PATCH and body names',
	body: (p) => meterBody(p, p.fields('updateFields')),
	needsBody: { message: '"Update Fields": give at least one field to change' },
	fields: [
		productId,
		meterId,
		collectionField('updateFields', [aggregation, eventName, name, pricePerUnit, unitLabel], { description: 'Only the fields given change. Needs scope METERS_WRITE.' }),
	],
};

export const meter: Resource = {
	value: 'meter',
	name: 'Meter',
	description: 'Usage meters of a product: list, create, get, update and delete',
	credential: STORE_CREDENTIAL,
	operations: [create, deleteMeter, get, getAll, update],
};
