import type { INodeExecutionData } from 'n8n-workflow';

import { STORE_CREDENTIAL } from '../../../shared/credentials';
import { readPage } from '../../../shared/transport/paginate';
import type { Transport } from '../../../shared/transport/request';
import type { Operation, Params, Resource, RunContext } from '../../operation';
import { RequestWindow } from './window';

/** Inputs the service resolves in one request. */
export const SEARCH_BATCH = 10;
/** Inputs one item carries without a warning (10 requests); more are sent too, in more requests. */
export const MAX_INPUTS = 100;
export const MAX_INPUT_LENGTH = 256;
/** The service's search rate limit. */
export const SEARCH_PER_MINUTE = 30;

/** One budget per node run (the transport is per run), shared by every item. */
const windows = new WeakMap<Transport, RequestWindow>();

function windowFor(transport: Transport): RequestWindow {
	let w = windows.get(transport);
	if (!w) {
		w = new RequestWindow(SEARCH_PER_MINUTE, 60_000);
		windows.set(transport, w);
	}
	return w;
}

/** Splits and checks the comma-separated inputs (an array from an expression is accepted too). */
export function readInputs(p: Params): string[] {
	const raw = p.get<unknown>('inputs', '');
	let parts: string[];
	if (Array.isArray(raw)) {
		parts = raw.map((x) => (typeof x === 'string' || typeof x === 'number' ? String(x) : ''));
	} else if (typeof raw === 'string' || typeof raw === 'number') {
		const text = String(raw).trim();
		if (text === '') p.v.fail('"Inputs" is required: give at least 1 id, email or order number');
		parts = text.split(',');
	} else {
		p.v.fail('"Inputs" must be a comma-separated text or a list');
	}
	const inputs = parts.map((s) => s.trim());
	if (inputs.length === 0) p.v.fail('"Inputs" is required: give at least 1 id, email or order number');
	const empty = inputs.findIndex((s) => s === '');
	if (empty >= 0) {
		p.v.fail(`"Inputs" must not contain empty entries (entry ${empty + 1} of ${inputs.length} is empty)`, 'Remove doubled or trailing commas.');
	}
	if (inputs.length > MAX_INPUTS) {
		// The service's limit is per request (10), and the node batches: many inputs only take longer.
		p.v.warn(`"Inputs" has more than ${MAX_INPUTS} entries in one item (got ${inputs.length}: ${Math.ceil(inputs.length / SEARCH_BATCH)} requests, at most ${SEARCH_PER_MINUTE} a minute)`);
	}
	inputs.forEach((s, i) => {
		const length = [...s].length;
		if (length > MAX_INPUT_LENGTH) {
			// No length is given for an input: a long one only warns.
			p.v.warn(`"Inputs" entry ${i + 1} is longer than ${MAX_INPUT_LENGTH} characters (got ${length})`);
		}
	});
	return inputs;
}

async function runResolve(rc: RunContext): Promise<INodeExecutionData[]> {
	const inputs = readInputs(rc.p);
	const budget = windowFor(rc.transport);
	const out: INodeExecutionData[] = [];
	for (let i = 0; i < inputs.length; i += SEARCH_BATCH) {
		const batch = inputs.slice(i, i + SEARCH_BATCH);
		await budget.acquire();
		const res = await rc.transport.request({ ...rc.request, query: { q: batch.join(','), ...rc.request.query } });
		for (const json of readPage(res.data).items) out.push({ json, pairedItem: { item: rc.p.itemIndex } });
	}
	return out;
}

const resolve: Operation = {
	value: 'resolve',
	name: 'Resolve',
	action: 'Resolve ids, emails or order numbers',
	description:
		'Look up order, customer, product or subscription IDs, customer emails and order numbers (comma-separated; more than 100 per item warns). Returns one item per match with kind, ID, label, sublabel, link and createdAt; inputs that match nothing return nothing. Sent 10 inputs per request, at most 30 requests a minute.',
	method: 'GET',
	family: 'stores',
	path: '/search',
	notes: 'inferred response: data is an array of results; batches of 10 inputs per request, at most 30 requests a minute',
	run: runResolve,
	fields: [
		{
			displayName: 'Inputs',
			name: 'inputs',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'ord_..., jane@example.com, VS-10001',
			description:
				'Comma-separated IDs (orders, customers, products, subscriptions), customer emails or order numbers to resolve: at least 1 (more than 100 per item warns), each 1 to 256 characters, no empty entries',
		},
	],
};

export const search: Resource = {
	value: 'search',
	name: 'Search',
	description: 'Resolve IDs, customer emails and order numbers to the records they name',
	credential: STORE_CREDENTIAL,
	operations: [resolve],
};
