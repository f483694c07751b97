import type { IDataObject } from 'n8n-workflow';

import type { Operation } from './operation';
import type { ApiRequest } from '../shared/transport/request';

function scalar(value: unknown): value is string | number | boolean {
	return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

const same = (a: string | number | boolean, b: string | number | boolean) => String(a).toLowerCase() === String(b).toLowerCase();

/**
 * For each guessed name (Operation.guessedNames) the request carried, whether
 * the records plainly ignored it: some carry that field with another value.
 * Records without the field say nothing. Returns the messages to show.
 */
export function ignoredNames(op: Operation, request: ApiRequest, records: IDataObject[]): string[] {
	const messages: string[] = [];
	const places = [
		{ names: op.guessedNames?.query, sent: request.query, extra: 'Additional Query Parameters' },
		{ names: op.guessedNames?.body, sent: Array.isArray(request.body) ? undefined : request.body, extra: 'Additional Body Fields' },
	];
	for (const { names, sent, extra } of places) {
		for (const name of names ?? []) {
			const value = sent?.[name];
			if (!scalar(value)) continue;
			const carrying = records.filter((record) => scalar(record[name]));
			const other = carrying.filter((record) => !same(record[name] as string, value));
			if (other.length === 0) continue;
			const shown = String(value).length > 40 ? `${String(value).slice(0, 37)}...` : String(value);
			messages.push(
				`The service seems to ignore "${name}" (sent ${name}=${shown}): ${other.length} of ${carrying.length} records have another ${name}. If your account's API reference names it differently, send it under "${extra}".`,
			);
		}
	}
	const query = request.query as IDataObject | undefined;
	const text = op.guessedNames?.text;
	const sent = text !== undefined ? query?.[text.name] : undefined;
	if (text !== undefined && typeof sent === 'string' && sent !== '' && records.length > 0) {
		const needle = sent.toLowerCase();
		const missing = records.filter((record) => !text.fields.some((path) => String(valueAt(record, path) ?? '').toLowerCase().includes(needle)));
		if (missing.length > 0) {
			messages.push(
				`The service seems to ignore the text filter sent as "${text.name}": ${missing.length} of ${records.length} records match "${cut(sent)}" in none of ${text.fields.join(', ')}. The list may not be filtered: check it before acting on it. If your account's API reference names the filter differently, send it under "Additional Query Parameters".`,
			);
		}
	}
	const sort = op.guessedNames?.sort;
	if (sort !== undefined && query !== undefined) {
		const field = sort.field ?? (sort.by !== undefined && typeof query[sort.by] === 'string' ? (query[sort.by] as string) : undefined);
		const direction = query[sort.direction];
		if (field !== undefined && (direction === 'asc' || direction === 'desc')) {
			const values = records.map((record) => valueAt(record, field)).filter((v): v is string | number => typeof v === 'string' || typeof v === 'number');
			const wrong = values.findIndex((v, i) => i > 0 && (direction === 'asc' ? compare(values[i - 1], v) > 0 : compare(values[i - 1], v) < 0));
			if (wrong > 0) {
				messages.push(
					`The service seems to ignore the sort sent as "${sort.by !== undefined ? `${sort.by}=${field}&` : ''}${sort.direction}=${direction}": the records are not in ${direction === 'asc' ? 'ascending' : 'descending'} order of ${field} (record ${wrong + 1}). If your account's API reference names these differently, send them under "Additional Query Parameters".`,
				);
			}
		}
	}
	return messages;
}

function cut(value: string): string {
	return value.length > 40 ? `${value.slice(0, 37)}...` : value;
}

function valueAt(record: IDataObject, path: string): unknown {
	let here: unknown = record;
	for (const part of path.split('.')) {
		if (here === null || typeof here !== 'object') return undefined;
		here = (here as IDataObject)[part];
	}
	return here;
}

function compare(a: string | number, b: string | number): number {
	if (typeof a === 'number' && typeof b === 'number') return a - b;
	return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
}
