import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { paginate, readPage, walkCursor } from '../shared/transport/paginate';
import type { ApiRequest, Transport } from '../shared/transport/request';
import type { Operation, Params } from './operation';
import type { RunOptions } from './runOptions';

/** The query names a paged list reads pages by: the node sets them on every page it asks for. */
const PAGE_NAMES = ['page', 'limit'] as const;

/** Return All, or the Limit (at least 1). */
function wanted(p: Params, unlimited: number): { returnAll: boolean; limit: number } {
	const returnAll = p.get<boolean>('returnAll', false);
	return { returnAll, limit: returnAll ? unlimited : p.v.number('Limit', p.get('limit', 50), { min: 1, integer: true }) };
}

/**
 * The records of a list operation, by its strategy: `paged` walks page/limit, `cursor` follows
 * the continuation the answer carries (a list that ends early says so), `client` reads one
 * answer and applies the Limit here.
 */
export async function readList(
	ctx: IExecuteFunctions,
	op: Operation,
	p: Params,
	transport: Transport,
	request: ApiRequest,
	options: RunOptions,
	/** A warning of the run, shown once whatever the number of items (LocalChecks.note). */
	note: (messages: string[]) => void,
): Promise<IDataObject[]> {
	if (op.list === 'paged') {
		const { returnAll, limit } = wanted(p, 0);
		const given = PAGE_NAMES.filter((name) => request.query?.[name] !== undefined);
		if (given.length) note([`${given.join(' and ')} in Additional Query Parameters ${given.length > 1 ? 'were' : 'was'} not sent: the node sets page and limit itself to read the pages that Return All or Limit asks for. Use Limit (or Return All) to choose how many records come back.`]);
		return await paginate(transport, request, { returnAll, limit, concurrency: options.concurrency, maxItems: options.maxItems });
	}
	if (op.list === 'cursor') {
		const { returnAll, limit } = wanted(p, 0);
		const cursorParam = p.get<string>('cursorParameter', op.cursorParam ?? 'cursor') || (op.cursorParam ?? 'cursor');
		const walked = await walkCursor(transport, request, { returnAll, limit, maxItems: options.maxItems, cursorParam });
		let records = walked.items;
		if (walked.incomplete !== undefined) {
			note([walked.incomplete]);
			const last = records.length - 1;
			if (last >= 0) records = [...records.slice(0, last), { ...records[last], listWarning: walked.incomplete }];
			else records = [{ listWarning: walked.incomplete }];
		}
		return records;
	}
	const { limit } = wanted(p, Infinity);
	const res = await transport.request(request);
	return readPage(res.data).items.slice(0, limit);
}
