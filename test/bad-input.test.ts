/**
 * Bad-input catalogue: every rule the node validates gives an error that names
 * the field and the rule, and the sandbox sees zero requests. The id cases are
 * generated from the operation rows themselves (every path id of every
 * operation: prefix, length 12 to 48 for store path ids, characters; vault
 * ids have their prefix as the only rule, so no length cases for them); the
 * rest is a table.
 */
import type { IDataObject } from 'n8n-workflow';

import { useSandbox } from './support/fixtures';
// The compiled rows, exactly what the node runs.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { resources } = require('../dist/nodes/VaultStore/resources') as typeof import('../nodes/VaultStore/resources');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { resourceParameters } = require('../dist/nodes/VaultStore/properties') as typeof import('../nodes/VaultStore/properties');

const f = useSandbox();

interface Case {
	name: string;
	parameters: IDataObject;
	error: RegExp;
}

const expr = (value: string) => ({ __rl: true, mode: 'id', value: `={{ ${JSON.stringify(value)} }}` });

function validId(prefix = ''): string {
	return `${prefix}${'a'.repeat(16 - prefix.length)}`;
}

type Resource = (typeof resources)[number];

/** Plausible values for the operation's other required fields, so that only the id is wrong. */
function requiredValues(resource: Resource, operation: string): IDataObject {
	const values: IDataObject = {};
	for (const field of resourceParameters(resource)) {
		const show = field.displayOptions?.show;
		if (!field.required || field.type === 'resourceLocator') continue;
		if (show?.operation && !(show.operation as string[]).includes(operation)) continue;
		if (field.type === 'options') values[field.name] = field.options?.[0] && 'value' in field.options[0] ? field.options[0].value : '';
		else if (field.type === 'multiOptions') values[field.name] = field.options?.[0] && 'value' in field.options[0] ? [field.options[0].value] : [];
		else if (field.type === 'number') values[field.name] = 1;
		else if (field.type === 'boolean') values[field.name] = true;
		else values[field.name] = 'text';
	}
	return values;
}

function idCases(): Case[] {
	const cases: Case[] = [];
	for (const resource of resources) {
		for (const op of resource.operations) {
			const ids = Object.entries(op.ids ?? {});
			for (const [param, rule] of ids) {
				const others: IDataObject = {};
				for (const [other, otherRule] of ids) if (other !== param) others[other] = expr(validId(otherRule.prefix));
				const base = { resource: resource.value, operation: op.value, ...requiredValues(resource, op.value), ...others };
				const label = rule.label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
				const bad: [string, string][] = [];
				if ('anyLength' in rule && rule.anyLength && rule.prefix) bad.push(['only the prefix', rule.prefix]);
				if (!('anyLength' in rule && rule.anyLength)) {
					bad.push(
						['11 characters', validId(rule.prefix).slice(0, 11)],
						['49 characters', `${rule.prefix ?? ''}${'b'.repeat(49 - (rule.prefix?.length ?? 0))}`],
					);
				}
				if (rule.prefix) bad.push(['the wrong prefix', `zz_${'c'.repeat(13)}`]);
				for (const [what, value] of bad) {
					cases.push({
						name: `${resource.value}.${op.value}: ${rule.label} with ${what}`,
						parameters: { ...base, [param]: expr(value) },
						error: new RegExp(`"${label}" (must|may)`),
					});
				}
			}
		}
	}
	return cases;
}

const tableCases: Case[] = [
	{
		name: 'idempotency key with a character outside A-Z a-z 0-9 _ -',
		parameters: { resource: 'order', operation: 'refund', orderId: expr(validId('ord_')), options: { idempotencyKey: 'bad key!' } },
		error: /"Idempotency Key" must be 1 to 255 characters of A-Z, a-z, 0-9, "_" and "-"/,
	},
	{
		name: 'idempotency key of 256 characters',
		parameters: { resource: 'order', operation: 'refund', orderId: expr(validId('ord_')), options: { idempotencyKey: 'k'.repeat(256) } },
		error: /"Idempotency Key" must be 1 to 255 characters/,
	},
	{
		name: 'refund amount of 0',
		parameters: { resource: 'order', operation: 'refund', orderId: expr(validId('ord_')), additionalFields: { amount: 0 } },
		error: /"Amount" must be greater than 0/,
	},
	{
		name: 'order search over 128 characters',
		parameters: { resource: 'order', operation: 'getAll', filters: { search: 's'.repeat(129) } },
		error: /"Search" must be at most 128 characters long/,
	},
	{
		name: 'concurrency of 1001',
		parameters: { resource: 'store', operation: 'get', options: { concurrency: 1001 } },
		error: /"Concurrency" must be at most 1000/,
	},
	{
		name: 'limit of 0',
		parameters: { resource: 'order', operation: 'getAll', returnAll: false, limit: 0 },
		error: /"Limit" must be at least 1/,
	},
];

const item = (productId: string, quantity = 1) => ({ productId, quantity });
const products = (n: number) => ({ item: Array.from({ length: n }, () => item(validId('prd_'))) });
const estimate = (extra: IDataObject) => ({ resource: 'checkout', operation: 'estimate', itemsInput: 'fields', items: products(1), country: 'US', ...extra });
const report = (from: string, to: string) => ({ resource: 'report', operation: 'create', type: 'PAYMENT_ACTIVITY', from, to });
const card = (extra: IDataObject) => ({ resource: 'token', operation: 'create', tokenType: 'card', cardNumber: '4242424242424242', expMonth: 12, expYear: 2031, ...extra });

tableCases.push(
	{ name: 'checkout estimate with 0 items', parameters: estimate({ items: products(0) }), error: /"Items" must have 1 to 10/ },
	{ name: 'checkout estimate with 11 items', parameters: estimate({ items: products(11) }), error: /"Items" must have 1 to 10/ },
	{ name: 'checkout estimate with 11 items as JSON', parameters: estimate({ itemsInput: 'json', itemsJson: JSON.stringify(Array.from({ length: 11 }, () => ({ product_id: validId('prd_'), quantity: 1 }))) }), error: /"Items" must have 1 to 10/ },
	{ name: 'checkout country of 3 letters', parameters: estimate({ country: 'USA' }), error: /"Country" must be/ },
	{ name: 'checkout country with a digit', parameters: estimate({ country: 'U1' }), error: /"Country" must be/ },
	{ name: 'checkout coupon over 64 characters', parameters: estimate({ additionalFields: { couponCode: 'c'.repeat(65) } }), error: /"Coupon Code" must be at most 64/ },
	{ name: 'checkout tax id over 32 characters', parameters: estimate({ additionalFields: { taxId: 't'.repeat(33) } }), error: /"Tax ID" must be at most 32/ },
	{ name: 'report period of 91 days', parameters: report('2026-01-01T00:00:00Z', '2026-04-02T00:00:00Z'), error: /90 days/ },
	{ name: 'report period with an unreadable date', parameters: report('yesterday-ish', '2026-01-01T00:00:00Z'), error: /"From" must be a date/ },
	{ name: 'webhook url over http', parameters: { resource: 'webhook', operation: 'create', url: 'http://example.com/hook', eventTypes: ['PAYMENT_COMPLETED'] }, error: /"URL" must start with https:\/\// },
	{ name: 'webhook url over 512 characters', parameters: { resource: 'webhook', operation: 'create', url: `https://example.com/${'p'.repeat(500)}`, eventTypes: ['PAYMENT_COMPLETED'] }, error: /"URL" must be .*512/ },
	{ name: 'webhook without events', parameters: { resource: 'webhook', operation: 'create', url: 'https://example.com/hook', eventTypes: '={{ [] }}' }, error: /"Event Types" must/ },
	{ name: 'search with an empty entry', parameters: { resource: 'search', operation: 'resolve', inputs: 'ord_aaaaaaaaaaaa,,cus_bbbbbbbbbbbb' }, error: /"Inputs"/ },
	{ name: 'custom token data over 16 KiB', parameters: { resource: 'token', operation: 'create', tokenType: 'custom', data: JSON.stringify({ blob: 'x'.repeat(16_400) }) }, error: /16 KiB|16384/ },
	{ name: 'product title over 256 characters', parameters: { resource: 'product', operation: 'update', productId: expr(validId('prd_')), updateFields: { title: 't'.repeat(257) } }, error: /"Title" must be 1 to 256/ },
	{ name: 'product price below 0', parameters: { resource: 'product', operation: 'update', productId: expr(validId('prd_')), updateFields: { price: -1 } }, error: /"Price" must be at least 0/ },
	{ name: 'product status outside the enum', parameters: { resource: 'product', operation: 'update', productId: expr(validId('prd_')), updateFields: { status: '={{ "ARCHIVED" }}' } }, error: /"Status" must be one of ACTIVE, DRAFT|"Status" must be one of DRAFT, ACTIVE/ },
	{ name: 'category display order 10000', parameters: { resource: 'category', operation: 'create', name: 'Shoes', slug: 'shoes', additionalFields: { displayOrder: 10000 } }, error: /"Display Order" must be at most 9999/ },
	{ name: 'case message over 4000 characters', parameters: { resource: 'case', operation: 'addMessage', caseId: expr(validId('cs_')), body: 'm'.repeat(4001) }, error: /4000/ },
	{ name: 'license key over 512 characters', parameters: { resource: 'license', operation: 'verify', key: 'k'.repeat(513) }, error: /"License Key" must be 1 to 512|512/ },
);

const cases = [...idCases(), ...tableCases];
let tried = 0;

afterAll(() => {
	// eslint-disable-next-line no-console
	console.log(`Bad-input catalogue: ${tried} inputs tried, each refused before any request.`);
});

test('the catalogue covers every path id of every operation', () => {
	const withIds = resources.flatMap((r) => r.operations).filter((op) => op.ids && Object.keys(op.ids).length > 0);
	expect(withIds.length).toBeGreaterThan(20);
	// Two cases per id at least (prefix or length), three for store path ids.
	expect(idCases().length).toBeGreaterThanOrEqual(withIds.length * 2);
});

test.each(cases)('$name', async ({ parameters, error }) => {
	const run = await f.run(parameters);
	tried++;
	const e = run.error();
	expect(e?.message).toMatch(error);
	expect(f.requests()).toHaveLength(0);
});

describe('path id characters beyond letters, digits, _ and - are sent, encoded as one segment, with a warning', () => {
	test.each([
		['a dot', 'ord_aaaa.aaaaaaaa', '/orders/ord_aaaa.aaaaaaaa'],
		['a colon, a plus and an at sign', 'ord_aa:aa+aa@aaaaaa', '/orders/ord_aa%3Aaa%2Baa%40aaaaaa'],
	])('%s', async (_what, id, path) => {
		const parameters = { resource: 'order', operation: 'get', orderId: expr(id) };
		const r = await f.run(parameters, undefined, { continueOnFail: true });
		expect(f.requests()).toHaveLength(1);
		expect(f.requests()[0].path).toMatch(new RegExp(`${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
		expect(r.hints()).toEqual([expect.objectContaining({ type: 'warning', message: expect.stringMatching(/"Order ID" has characters other than letters, digits/) })]);
		const quiet = await f.run({ ...parameters, options: { skipLocalChecks: true } }, undefined, { continueOnFail: true });
		expect(quiet.hints()).toEqual([]);
		expect(f.requests()).toHaveLength(1);
	});
});

// The route gate of every request (nodes/shared/money/routes.ts, docs/money-safety.md) still refuses a
// path whose decoded form has a slash, backslash, space, ";", "?", "#" or a bad %-escape: an ID cannot
// change which route is called. The checks table lists it as the node's own rule, kept as an error.
test.each([
	['a space', 'ord_abc def ghij', /the path has a ";", "\?", "#" or space/],
	['a slash', 'ord_abc/def/ghij', /the path has an encoded slash/],
	['a percent sign', 'ord_aaaa%aaaaaaaa', /invalid percent-encoding/],
])('a path id with %s is refused by the route gate, naming why', async (_what, id, message) => {
	const r = await f.run({ resource: 'order', operation: 'get', orderId: expr(id) });
	expect(r.error()?.message).toMatch(message);
	expect(f.requests()).toHaveLength(0);
});
