import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { checkRecords, UnexpectedAnswerError } from '../shared/transport/paginate';
import type { Redactor } from '../shared/transport/redact';

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

/** The item a failed input item becomes under "Continue (using error output)". */
export function errorItem(error: unknown, itemIndex: number, redactor: Redactor): INodeExecutionData {
	const e = error as { message?: string; description?: string; httpCode?: string };
	const json: IDataObject = { error: e.message ?? String(error) };
	if (e.description) json.description = e.description;
	if (e.httpCode) json.httpCode = e.httpCode;
	return { json: redactor.value(json), pairedItem: { item: itemIndex } };
}
