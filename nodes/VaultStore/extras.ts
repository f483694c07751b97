import type { IDataObject } from 'n8n-workflow';

import type { ApiRequest } from '../shared/transport/request';
import type { Operation, Params } from './operation';
import { extrasOf } from './operation';

/** The two escape hatches every operation has, named once. */
export const EXTRA_QUERY = { parameter: 'additionalQueryParameters', label: 'Additional Query Parameters' };
export const EXTRA_BODY = { parameter: 'additionalBodyFields', label: 'Additional Body Fields' };

/** Integers longer than a number keeps exactly (e.g. numeric ids) stay text. */
const UNSAFE_INTEGER = /^-?\d{16,}$/;

/**
 * Name/value pairs of an "Additional ..." parameter. Query values are sent as
 * typed; body values that read as JSON (numbers, true/false, null, objects,
 * arrays, "quoted text") are sent as that JSON, anything else as text.
 */
function readPairs(p: Params, which: typeof EXTRA_QUERY, json: boolean): IDataObject | undefined {
	const rows = (p.fields(which.parameter).pair as IDataObject[] | undefined) ?? [];
	const out: IDataObject = {};
	for (const row of rows) {
		const name = typeof row.name === 'string' ? row.name.trim() : '';
		const raw = row.value === undefined || row.value === null ? '' : typeof row.value === 'string' ? row.value : JSON.stringify(row.value);
		if (name === '') {
			if (raw === '') continue;
			p.v.fail(`"${which.label}" has a value without a name`, 'Give every value the name the service expects, or remove the row.');
		}
		if (Object.prototype.hasOwnProperty.call(out, name)) p.v.fail(`"${which.label}" names "${name}" twice`);
		// Dropped on the way by JSON tooling, so refused rather than silently lost.
		if (name === '__proto__') p.v.fail(`"${which.label}" cannot send a field named __proto__`);
		let value: unknown = raw;
		if (json && raw.trim() !== '' && !UNSAFE_INTEGER.test(raw.trim())) {
			try {
				value = JSON.parse(raw) as unknown;
			} catch {
				value = raw;
			}
		}
		out[name] = value as IDataObject[string];
	}
	return Object.keys(out).length ? out : undefined;
}

/**
 * Merges Additional Query Parameters and Additional Body Fields over the
 * request the row built (a name given there replaces the node's own); then
 * refuses an empty body where the row needs one. They only ever reach the
 * query string and the JSON body: never a header, the host or the path.
 */
export function applyExtras(op: Operation, p: Params, request: ApiRequest): void {
	const offered = extrasOf(op);
	const query = offered.query ? readPairs(p, EXTRA_QUERY, false) : undefined;
	if (query) request.query = { ...request.query, ...query };
	const body = offered.body ? readPairs(p, EXTRA_BODY, true) : undefined;
	if (body) {
		if (Array.isArray(request.body)) p.v.fail(`"${EXTRA_BODY.label}" cannot be added to a body that is a list`);
		request.body = { ...request.body, ...body };
	}
	if (op.needsBody !== undefined) {
		const sent = request.body ?? {};
		const besides = op.needsBody.besides ?? [];
		if (!Array.isArray(sent) && Object.keys(sent).every((name) => besides.includes(name))) {
			p.v.fail(op.needsBody.message, `A field the node has no option for can be given under "${EXTRA_BODY.label}".`);
		}
	}
}
