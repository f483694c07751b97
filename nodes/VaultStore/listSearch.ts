import type {
	IDataObject,
	ILoadOptionsFunctions,
	INodeListSearchItems,
	INodeListSearchResult,
} from 'n8n-workflow';

import type { Gated } from '../shared/redaction/gate';
import { gateSearchResults } from '../shared/redaction/gate';
import { readPage } from '../shared/transport/paginate';
import type { Family } from '../shared/transport/request';
import { STORE_CREDENTIAL } from '../shared/credentials';
import { Transport } from '../shared/transport/request';

interface ListSource {
	family: Family;
	path: string;
	/** Name of the list's text-filter query parameter, if it has one. */
	searchParam?: string;
	label: (record: IDataObject) => string;
}

const PAGE = 50;

async function searchList(
	ctx: ILoadOptionsFunctions,
	source: ListSource,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult & { results: Array<Gated<INodeListSearchItems>> }> {
	const transport = new Transport(ctx, STORE_CREDENTIAL);
	const page = paginationToken ? Number(paginationToken) : 1;
	const query: IDataObject = { page, limit: PAGE };
	if (filter && source.searchParam) query[source.searchParam] = filter.slice(0, 128);
	const res = await transport.request({ family: source.family, method: 'GET', path: source.path, query });
	const { items, totalPages } = readPage(res.data);
	let results: INodeListSearchItems[] = items.map((record) => ({
		name: source.label(record),
		value: String(record.id),
	}));
	if (filter && !source.searchParam) {
		const needle = filter.toLowerCase();
		results = results.filter((r) => r.name.toLowerCase().includes(needle) || String(r.value).includes(needle));
	}
	const more = totalPages !== undefined ? page < totalPages : items.length === PAGE;
	// The labels are the service's text: through the output gate, as every item is.
	return { results: gateSearchResults(results, await transport.redactor()), paginationToken: more ? String(page + 1) : undefined };
}

function customerName(c: IDataObject | undefined): string {
	if (!c) return '';
	const name = [c.firstName, c.lastName].filter(Boolean).join(' ');
	return name ? `${name} <${String(c.email ?? '')}>` : String(c.email ?? c.id ?? '');
}

export const listSearch = {
	async searchOrders(this: ILoadOptionsFunctions, filter?: string, token?: string) {
		return await searchList(
			this,
			{
				family: 'core',
				path: '/orders/',
				searchParam: 'search',
				label: (o) =>
					`#${String(o.orderNumber ?? o.id)} · ${String(o.amount ?? '')} ${String(o.currency ?? '')} · ${customerName(o.customer as IDataObject)}`,
			},
			filter,
			token,
		);
	},
	async searchCustomers(this: ILoadOptionsFunctions, filter?: string, token?: string) {
		return await searchList(
			this,
			{ family: 'core', path: '/customers', searchParam: 'search', label: (c) => customerName(c) },
			filter,
			token,
		);
	},
	async searchSubscriptions(this: ILoadOptionsFunctions, filter?: string, token?: string) {
		return await searchList(
			this,
			{
				family: 'core',
				path: '/subscriptions',
				label: (s) =>
					`${String((s.product as IDataObject)?.title ?? s.id)} · ${customerName(s.customer as IDataObject)} · ${String(s.status ?? '')}`,
			},
			filter,
			token,
		);
	},
};
