import type { IDataObject } from 'n8n-workflow';

import type { Operation, Params } from '../../operation';
import { ID } from '../../../shared/ids';

/** How usage events add up over a billing period (inferred values). */
export const METER_AGGREGATIONS = ['COUNT', 'LAST', 'MAX', 'SUM'] as const;

const ids = { productId: ID.productId, meterId: ID.meterId };
const listIds = { productId: ID.productId };

/** Reads the meter write fields of a collection (or of the top level for create). */
function meterBody(p: Params, f: IDataObject): IDataObject {
	const has = (name: string) => f[name] !== undefined && f[name] !== '';
	return {
		name: has('name') ? p.v.string('Name', f.name, { min: 1, max: 128 }) : undefined,
		eventName: has('eventName') ? p.v.string('Event Name', f.eventName, { min: 1, max: 128 }) : undefined,
		aggregation: has('aggregation') ? p.v.oneOf('Aggregation', f.aggregation, METER_AGGREGATIONS) : undefined,
		unitLabel: has('unitLabel') ? p.v.string('Unit Label', f.unitLabel, { min: 1, max: 64 }) : undefined,
		pricePerUnit: has('pricePerUnit') ? p.v.number('Price Per Unit', f.pricePerUnit, { min: 0 }) : undefined,
	};
}

export const meterOperations: Operation[] = [
	{
		value: 'create',
		name: 'Create',
		action: 'Create a meter',
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
				name: p.v.string('Name', p.get('name', ''), { min: 1, max: 128 }),
				eventName: p.v.string('Event Name', p.get('eventName', ''), { min: 1, max: 128 }),
				aggregation: p.v.oneOf('Aggregation', p.get('aggregation', ''), METER_AGGREGATIONS),
				unitLabel: f.unitLabel,
				pricePerUnit: f.pricePerUnit,
			});
		},
	},
	{
		value: 'delete',
		name: 'Delete',
		action: 'Delete a meter',
		description: 'Delete a usage meter of a product',
		method: 'DELETE',
		family: 'stores',
		path: '/products/{productId}/meters/{meterId}',
		ids,
		inferred: true,
		scope: 'METERS_WRITE',
	},
	{
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
	},
	{
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
	},
	{
		value: 'update',
		name: 'Update',
		action: 'Update a meter',
		description: 'Change the name, event, aggregation, unit label or price per unit of a meter; only the fields given change',
		method: 'PATCH',
		family: 'stores',
		path: '/products/{productId}/meters/{meterId}',
		ids,
		inferred: true,
		scope: 'METERS_WRITE',
		notes: 'inferred method PATCH and body names',
		body: (p) => {
			const body = meterBody(p, p.fields('updateFields'));
			if (Object.values(body).every((v) => v === undefined)) {
				p.v.fail('"Update Fields": give at least one field to change');
			}
			return body;
		},
	},
];
