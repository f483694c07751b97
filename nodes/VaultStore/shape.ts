import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { checkRecords, UnexpectedAnswerError } from '../shared/transport/paginate';

export function toItems(records: IDataObject[], itemIndex: number): INodeExecutionData[] {
	return records.map((json) => ({ json, pairedItem: { item: itemIndex } }));
}

/** The records of a single-object answer; anything but an object (or no data) is refused. */
export function asRecords(data: unknown): IDataObject[] {
	if (data === undefined || data === null || data === '') return [{ success: true }];
	if (Array.isArray(data)) return checkRecords(data);
	if (typeof data === 'object') return [data as IDataObject];
	throw new UnexpectedAnswerError(`expected an object, got ${typeof data}`);
}
