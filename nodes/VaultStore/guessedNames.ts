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
	return messages;
}
