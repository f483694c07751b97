import type { IDataObject } from 'n8n-workflow';

import type { ApiRequest, Transport } from './request';
import { mapLimit } from './concurrency';

/** The store API's page size bounds. */
export const MAX_PAGE_SIZE = 100;

export interface PageRequest {
	returnAll: boolean;
	limit: number;
	concurrency: number;
}

interface Page {
	items: IDataObject[];
	totalPages?: number;
}

/**
 * Reads a list body in any of the shapes the service uses: the store's
 * `{items, pagination}`, a plain array (bank accounts), or a vault-style
 * `{data: [...]}` / `{object: 'list', data}` (its pagination is not shown).
 */
export function readPage(data: unknown): Page {
	if (Array.isArray(data)) return { items: data as IDataObject[] };
	if (data !== null && typeof data === 'object') {
		const record = data as IDataObject;
		const list = record.items ?? record.data ?? record.results;
		if (Array.isArray(list)) {
			const pagination = record.pagination as IDataObject | undefined;
			const totalPages = Number(pagination?.totalPages);
			return {
				items: list as IDataObject[],
				totalPages: Number.isFinite(totalPages) ? totalPages : undefined,
			};
		}
	}
	return { items: data === undefined || data === null ? [] : [data as IDataObject] };
}

/**
 * Walks `page`/`limit` pages. Return All asks for the largest pages and, once
 * the first page tells how many there are, fetches the rest with bounded
 * concurrency, keeping page order. Limit N asks for no more than it needs.
 */
export async function paginate(
	transport: Transport,
	req: ApiRequest,
	{ returnAll, limit, concurrency }: PageRequest,
): Promise<IDataObject[]> {
	const wanted = returnAll ? Infinity : limit;
	const pageSize = returnAll ? MAX_PAGE_SIZE : Math.min(MAX_PAGE_SIZE, Math.max(1, limit));
	const fetchPage = async (page: number): Promise<Page> => {
		const res = await transport.request({ ...req, query: { ...req.query, page, limit: pageSize } });
		return readPage(res.data);
	};

	const first = await fetchPage(1);
	const out = [...first.items];
	if (out.length >= wanted || first.items.length < pageSize) return out.slice(0, wanted);

	if (first.totalPages !== undefined) {
		const lastPage = Math.min(first.totalPages, Math.ceil(wanted / pageSize));
		const pages = [];
		for (let p = 2; p <= lastPage; p++) pages.push(p);
		const results = await mapLimit(pages, concurrency, fetchPage);
		for (const page of results) out.push(...page.items);
		return out.slice(0, wanted);
	}

	for (let page = 2; out.length < wanted; page++) {
		const next = await fetchPage(page);
		out.push(...next.items);
		if (next.items.length < pageSize) break;
	}
	return out.slice(0, wanted);
}
