import type { IDataObject } from 'n8n-workflow';

import type { AdaptiveConcurrency, Permit } from './concurrency';
import type { ApiRequest, Transport } from './request';

/** The store API's page size bounds. */
export const MAX_PAGE_SIZE = 100;

/** Most items Return All reads unless the "Return All Maximum" option says otherwise. */
export const DEFAULT_MAX_ITEMS = 100_000;

export interface PageRequest {
	returnAll: boolean;
	limit: number;
	/** Most pages in flight at once (the node's ceiling); the transport's pool sets the pace below it. */
	concurrency: number;
	/** Return All fails rather than read more than this many items. */
	maxItems?: number;
}

interface Page {
	items: IDataObject[];
	totalPages?: number;
	total?: number;
}

/** The service answered something that is not what the API returns. */
export class UnexpectedAnswerError extends Error {
	constructor(detail: string) {
		super(`The service's answer was not what the API returns: ${detail}`);
		this.name = 'UnexpectedAnswerError';
	}
}

/** A list read had to stop: the service's pages do not end, or the ceiling was reached. */
export class PaginationError extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'PaginationError';
	}
}

function isRecord(value: unknown): value is IDataObject {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Checks that every entry of a list is an object; the error says which one is not. */
export function checkRecords(entries: unknown[]): IDataObject[] {
	entries.forEach((entry, index) => {
		if (!isRecord(entry)) {
			const kind = entry === null ? 'null' : Array.isArray(entry) ? 'a list' : typeof entry;
			throw new UnexpectedAnswerError(`entry ${index + 1} of the list is ${kind}, not an object`);
		}
	});
	return entries as IDataObject[];
}

function finite(value: unknown): number | undefined {
	const n = Number(value);
	return value !== undefined && value !== null && value !== '' && Number.isFinite(n) ? n : undefined;
}

/**
 * Reads a list body in any of the shapes the service uses: the store's
 * `{items, pagination}`, a plain array (bank accounts), or a vault-style
 * `{data: [...]}` / `{object: 'list', data}`. A single object is a list of one.
 */
export function readPage(data: unknown): Page {
	if (data === undefined || data === null) return { items: [] };
	if (Array.isArray(data)) return { items: checkRecords(data) };
	if (!isRecord(data)) throw new UnexpectedAnswerError(`expected a list, got ${typeof data}`);
	const list = data.items ?? data.data ?? data.results;
	if (!Array.isArray(list)) return { items: [data] };
	const pagination = isRecord(data.pagination) ? data.pagination : undefined;
	return {
		items: checkRecords(list),
		totalPages: finite(pagination?.totalPages),
		total: finite(pagination?.total),
	};
}

/** What identifies a page's content, to notice a service that sends the same page again. */
function signature(items: IDataObject[]): string {
	return items.map((item) => (typeof item.id === 'string' ? item.id : JSON.stringify(item))).join('\n');
}

/**
 * Walks `page`/`limit` pages. Return All asks for the largest pages and, once
 * the first page tells how many there are, fetches the rest through the
 * transport's adaptive pool (shared with every other request of the node
 * run), keeping page order. Limit N asks for no more than it needs.
 *
 * Every walk ends: on an empty or short page, once `total` items are read, on a
 * page the service already sent (an error), and past `maxItems` (an error that
 * names the option). A record (by id) that a shifting list repeats on a later
 * page is output once, with a warning that the list moved. No more pages are scheduled than the first page's
 * `totalPages` allows within that ceiling.
 */
export async function paginate(
	transport: Transport,
	req: ApiRequest,
	{ returnAll, limit, concurrency, maxItems = DEFAULT_MAX_ITEMS }: PageRequest,
): Promise<IDataObject[]> {
	const wanted = returnAll ? maxItems : limit;
	const pageSize = returnAll ? MAX_PAGE_SIZE : Math.min(MAX_PAGE_SIZE, Math.max(1, limit));
	const fetchPage = async (page: number, permit?: Permit): Promise<Page> => {
		const res = await transport.request({ ...req, query: { ...req.query, page, limit: pageSize } }, permit);
		return readPage(res.data);
	};
	const tooMany = (): PaginationError =>
		new PaginationError(
			`Return All stopped: the list has more than ${maxItems} items (option "Return All Maximum"). Raise the option or narrow the list with filters.`,
		);

	const first = await fetchPage(1);
	if (returnAll && first.total !== undefined && first.total > maxItems) throw tooMany();
	const out = [...first.items];
	/** The pages read, in order: records are de-duplicated only against earlier pages. */
	const pages: IDataObject[][] = [first.items];
	const seen = new Set([signature(first.items)]);
	// Return All reads past the ceiling by one page, to tell "exactly maxItems" from "more".
	const enough = (): boolean => (returnAll ? out.length > maxItems : out.length >= limit);
	const done = (page: Page): boolean =>
		page.items.length < pageSize || enough() || (first.total !== undefined && out.length >= first.total);
	const add = (page: Page, number: number): void => {
		const sig = signature(page.items);
		if (seen.has(sig)) {
			throw new PaginationError(
				`The service sent page ${number} with the same items as an earlier page; stopped reading the list so it cannot run forever.`,
			);
		}
		seen.add(sig);
		out.push(...page.items);
		pages.push(page.items);
	};

	if (!done(first)) {
		const pagesForWanted = Math.ceil(wanted / pageSize) + (returnAll ? 1 : 0);
		const lastPage = first.totalPages !== undefined ? Math.min(first.totalPages, pagesForWanted) : pagesForWanted;
		if (first.totalPages !== undefined) {
			const pages = await fetchPages(2, lastPage, transport.pool, concurrency, fetchPage, (page) => page.items.length < pageSize);
			for (let i = 0; i < pages.length; i++) {
				if (pages[i].items.length === 0) break;
				add(pages[i], i + 2);
				if (done(pages[i])) break;
			}
		} else {
			for (let number = 2; number <= lastPage; number++) {
				const page = await fetchPage(number);
				if (page.items.length === 0) break;
				add(page, number);
				if (done(page)) break;
			}
		}
	}
	if (returnAll && out.length > maxItems) throw tooMany();
	return withoutRepeats(transport, pages, wanted);
}

/** What tells two records that share an id apart: their kind (`object`, `type`, `kind`), else their content. */
function kindOf(record: IDataObject): string | undefined {
	const kind = record.object ?? record.type ?? record.kind;
	return typeof kind === 'string' && kind !== '' ? kind : undefined;
}

/**
 * Records a shifting list repeated from an earlier page are dropped; records on one page are
 * all kept, also when they share an id (a dispute and its fee debit). A record repeats one of an
 * earlier page when both have the same string `id` and the same kind (or, without a kind, the
 * same content).
 */
function dedupe(pages: IDataObject[][]): { items: IDataObject[]; repeated: number } {
	const earlier = new Map<string, Set<string>>();
	const items: IDataObject[] = [];
	let total = 0;
	for (const page of pages) {
		const onPage: [string, string][] = [];
		for (const record of page) {
			total++;
			const id = typeof record.id === 'string' && record.id !== '' ? record.id : undefined;
			if (id !== undefined) {
				const identity = kindOf(record) ?? JSON.stringify(record);
				if (earlier.get(id)?.has(identity)) continue;
				onPage.push([id, identity]);
			}
			items.push(record);
		}
		for (const [id, identity] of onPage) earlier.set(id, (earlier.get(id) ?? new Set<string>()).add(identity));
	}
	return { items, repeated: total - items.length };
}

/**
 * An offset-paged list read while it changes (an order inserted at the top) repeats records
 * across pages: each one is output once, and the list says it moved (an execution hint and
 * `listWarning` on its last item), since records may also have been skipped.
 */
function withoutRepeats(transport: Transport, pages: IDataObject[][], wanted: number): IDataObject[] {
	const { items: all, repeated } = dedupe(pages);
	const items = all.slice(0, wanted);
	if (repeated === 0 || items.length === 0) return items;
	const warning = `The list changed while it was read page by page: ${repeated} record(s) came twice and are output once. Records added or removed meanwhile may be missing; run it again, or narrow the list with filters (e.g. a date range), for a complete list.`;
	transport.hint(warning);
	items[items.length - 1] = { ...items[items.length - 1], listWarning: warning };
	return items;
}

/**
 * Fetches pages `from`..`to` in page order, at most `concurrency` at once and
 * no faster than `pool` allows: a page number is picked only once the pool
 * grants a slot, so when a page says it is the last (`isLast`) nothing beyond
 * it has been committed but the requests already in flight. The result ends
 * at the first page not fetched.
 */
async function fetchPages(
	from: number,
	to: number,
	pool: AdaptiveConcurrency,
	concurrency: number,
	fetchPage: (page: number, permit: Permit) => Promise<Page>,
	isLast: (page: Page) => boolean,
): Promise<Page[]> {
	const results: Page[] = [];
	let next = from;
	let stopAt = to;
	let failure: { error: unknown } | undefined;
	const more = (): boolean => next <= stopAt && !failure;
	const worker = async (): Promise<void> => {
		while (more()) {
			const permit = await pool.acquire();
			if (!more()) {
				pool.release(permit, 'neutral');
				return;
			}
			const number = next++;
			try {
				const page = await fetchPage(number, permit);
				results[number - from] = page;
				if (isLast(page)) stopAt = Math.min(stopAt, number);
			} catch (error) {
				failure ??= { error };
			}
		}
	};
	const workers = [];
	for (let w = 0; w < Math.min(Math.max(1, concurrency), to - from + 1); w++) workers.push(worker());
	await Promise.all(workers);
	if (failure) throw failure.error;
	const ordered: Page[] = [];
	for (let i = 0; i <= stopAt - from && results[i] !== undefined; i++) ordered.push(results[i]);
	return ordered;
}

export interface CursorWalk {
	returnAll: boolean;
	limit: number;
	maxItems?: number;
	/** The query name the next request carries the continuation in. */
	cursorParam: string;
}

export interface CursorResult {
	items: IDataObject[];
	/** Set when the service said there is more but gave no way to get it. */
	incomplete?: string;
}

function firstText(...values: unknown[]): string | undefined {
	return values.find((value): value is string => typeof value === 'string' && value !== '');
}

/**
 * Walks a list that continues by cursor (`{data, has_more, next_cursor}`,
 * vault style): follows `next_cursor` (or `nextCursor`, `next_page_token`)
 * in `cursorParam`, or a store-style `pagination` by page number. When the
 * answer says there is more but carries no continuation, sends an empty page,
 * or gives a continuation already followed (a cursor that does not advance:
 * it stops at the second request with it), the items read so far come back
 * with `incomplete` saying so: never a short list as if complete. A record
 * (by id) that comes twice is output once, and `incomplete` says the list
 * moved. Ends on a repeated page (an error) and past `maxItems` (an error).
 */
export async function walkCursor(
	transport: Transport,
	req: ApiRequest,
	{ returnAll, limit, maxItems = DEFAULT_MAX_ITEMS, cursorParam }: CursorWalk,
): Promise<CursorResult> {
	const wanted = returnAll ? maxItems : limit;
	const out: IDataObject[] = [];
	const pages: IDataObject[][] = [];
	const seen = new Set<string>();
	/** Continuations already followed: one that comes again would read the same pages for ever. */
	const followed = new Set<string>();
	let query: IDataObject = { ...req.query };
	const stop = (why: string): CursorResult => {
		const { items, repeated } = dedupe(pages);
		const twice = repeated > 0 ? ` ${repeated} record(s) came twice and are output once.` : '';
		return {
			items: items.slice(0, wanted),
			incomplete: `${why}${twice} The list may be incomplete: narrow it with filters, or use the Custom API Call resource with the service's own paging.`,
		};
	};
	for (let number = 1; ; number++) {
		// The list's wrapper is not shown: a bare array, {data}, {items} or {results} are all read.
		const res = await transport.request({ ...req, query, acceptArray: true });
		const page = readPage(res.data);
		const sig = signature(page.items);
		if (page.items.length > 0 && seen.has(sig)) {
			throw new PaginationError(
				`The service sent page ${number} with the same items as an earlier page; stopped reading the list so it cannot run forever.`,
			);
		}
		seen.add(sig);
		out.push(...page.items);
		pages.push(page.items);
		if (returnAll && out.length > maxItems) {
			throw new PaginationError(
				`Return All stopped: the list has more than ${maxItems} items (option "Return All Maximum"). Raise the option or narrow the list with filters.`,
			);
		}
		if (!returnAll && dedupe(pages).items.length >= wanted) break;
		const body = isRecord(res.data) ? res.data : {};
		const pagination = isRecord(body.pagination) ? body.pagination : undefined;
		const currentPage = finite(pagination?.page) ?? number;
		const pagesLeft = pagination !== undefined && currentPage < (finite(pagination.totalPages) ?? 0);
		const more = body.has_more === true || body.hasMore === true || pagesLeft;
		if (!more) break;
		if (page.items.length === 0) {
			return stop(`The service said there are more records after these ${out.length} but sent an empty page (page ${number}).`);
		}
		const cursor = firstText(body.next_cursor, body.nextCursor, body.next_page_token);
		let next: string;
		if (cursor !== undefined) {
			query = { ...req.query, [cursorParam]: cursor };
			next = `cursor:${cursor}`;
		} else if (pagination !== undefined) {
			query = { ...req.query, page: currentPage + 1 };
			next = `page:${currentPage + 1}`;
		} else {
			return {
				items: dedupe(pages).items.slice(0, wanted),
				incomplete: `The service said there are more than these ${out.length} records but gave no way to fetch the rest (no cursor or page in its answer). Narrow the list with filters, or use the Custom API Call resource with the service's own paging.`,
			};
		}
		if (followed.has(next)) {
			return stop(`The service gave the same continuation again after page ${number} (it does not advance); stopped reading after ${number} requests.`);
		}
		followed.add(next);
	}
	const { items, repeated } = dedupe(pages);
	if (repeated > 0) {
		return {
			items: items.slice(0, wanted),
			incomplete: `The list changed while it was read page by page: ${repeated} record(s) came twice and are output once. Records added or removed meanwhile may be missing; run it again for a complete list.`,
		};
	}
	return { items: items.slice(0, wanted) };
}
