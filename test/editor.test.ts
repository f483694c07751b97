/**
 * What the editor shows is for n8n users: no displayed string speaks of "the
 * spec" or of "inferred" routes; every resource opens on a read; n8n adds no
 * second "Custom API Call" (it adds one to every resource and operation list of
 * a node whose credential has an `authenticate` block or extends OAuth); the
 * codex files carry the words users search for and links without a fragment.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

import type { ICredentialType, INodeTypeDescription } from 'n8n-workflow';

import { VaultStoreStoreApi } from '../credentials/VaultStoreStoreApi.credentials';
import { VaultStoreVaultApi } from '../credentials/VaultStoreVaultApi.credentials';
import { moneyRoutesOf } from '../nodes/VaultStore/moneyRoutes';
import { resources } from '../nodes/VaultStore/resources';
import { LATEST_VERSION } from '../nodes/VaultStore/versions';
import type { Route } from '../nodes/shared/money/routes';
import { routeOf } from '../nodes/shared/money/routes';
import { VaultStore } from '../nodes/VaultStore/VaultStore.node';
import { VaultStoreTrigger } from '../nodes/VaultStoreTrigger/VaultStoreTrigger.node';

// 'message': a credential test rule's message (what the Test button shows), an execution hint's.
const DISPLAYED = new Set(['displayName', 'description', 'action', 'placeholder', 'hint', 'name', 'subtitle', 'noDataExpression', 'message']);

/** Every displayed string of a description (property labels, descriptions, option names, notices, hints). */
function displayedStrings(value: unknown, key = '', out: string[] = []): string[] {
	if (typeof value === 'string') {
		if (DISPLAYED.has(key)) out.push(value);
	} else if (Array.isArray(value)) {
		for (const entry of value) displayedStrings(entry, key, out);
	} else if (value !== null && typeof value === 'object') {
		const record = value as Record<string, unknown>;
		for (const [k, v] of Object.entries(record)) {
			// A notice shows its displayName; an option shows name and description.
			displayedStrings(v, k === 'options' || k === 'values' || k === 'properties' || k === 'modes' ? '' : k, out);
		}
	}
	return out;
}

const descriptions: [string, INodeTypeDescription | ICredentialType][] = [
	['Vault Store', new VaultStore().description],
	['Vault Store Trigger', new VaultStoreTrigger().description],
	['Store API credential', new VaultStoreStoreApi()],
	['Vault API credential', new VaultStoreVaultApi()],
];

test.each(descriptions)('%s: no displayed string says "spec" or "inferred"', (_name, description) => {
	const strings = displayedStrings(description);
	expect(strings.length).toBeGreaterThan(5);
	expect(strings.filter((s) => /\bspec\b|\binferred\b|\bthe spec\b/i.test(s))).toEqual([]);
});

test('every resource opens on a read in new nodes: never on an operation that changes data or moves money (version 1 keeps 0.1.0\'s: test/description.test.ts)', () => {
	const node = new VaultStore().description;
	const withoutRead: Record<string, string> = { checkout: 'estimate', mandate: 'create' };
	for (const resource of resources) {
		const selector = node.properties.find(
			(p) =>
				p.name === 'operation' &&
				(p.displayOptions?.show?.resource as string[] | undefined)?.includes(resource.value) &&
				((p.displayOptions?.show?.['@version'] as number[] | undefined) ?? [LATEST_VERSION]).includes(LATEST_VERSION),
		);
		const op = resource.operations.find((o) => o.value === selector?.default);
		const acceptable = op?.method === 'GET' || withoutRead[resource.value] === op?.value;
		expect([resource.value, op?.value, acceptable]).toEqual([resource.value, op?.value, true]);
	}
});

test('n8n adds no "Custom API Call" of its own: no credential has an authenticate block or extends OAuth', () => {
	for (const credential of [new VaultStoreStoreApi(), new VaultStoreVaultApi()] as ICredentialType[]) {
		expect([credential.name, credential.authenticate]).toEqual([credential.name, undefined]);
		const parents = credential.extends ?? [];
		expect(parents.filter((p) => ['oAuth2Api', 'googleOAuth2Api', 'oAuth1Api'].includes(p))).toEqual([]);
	}
	const resource = new VaultStore().description.properties.find((p) => p.name === 'resource');
	const names = (resource?.options as { name: string }[]).map((o) => o.name);
	expect(names.filter((n) => n === 'Custom API Call')).toHaveLength(1);
});

test.each([
	['VaultStore', ['refund', 'chargeback', 'dispute', 'license', 'payout', 'subscription', 'card', 'tokenize', 'webhook']],
	['VaultStoreTrigger', ['webhook', 'signature', 'refund', 'dispute', 'subscription']],
])('%s codex: search aliases and documentation links without a fragment', (name, words) => {
	const codex = JSON.parse(readFileSync(path.join(__dirname, '..', 'nodes', name, `${name}.node.json`), 'utf8')) as {
		alias: string[];
		resources: Record<string, { url: string }[]>;
	};
	for (const word of words) expect(codex.alias).toContain(word);
	const links = Object.values(codex.resources).flat().map((r) => r.url);
	expect(links.length).toBeGreaterThan(0);
	for (const link of links) expect(link).not.toContain('#');
});

/** The parameters the editor shows for one operation of a new node (today's version), in the description's order (resource and operation excluded). */
function shownFor(resource: string, operation: string): { name: string; type: string }[] {
	const props = new VaultStore().description.properties;
	const inList = (list: unknown, value: string | number) => list === undefined || (Array.isArray(list) && list.includes(value));
	return props
		.filter((p) => p.name !== 'resource' && p.name !== 'operation')
		.filter((p) => inList(p.displayOptions?.show?.resource, resource) && inList(p.displayOptions?.show?.operation, operation))
		.filter((p) => inList(p.displayOptions?.show?.['@version'], LATEST_VERSION))
		.map((p) => ({ name: p.name, type: p.type }));
}

const EXTRAS = ['additionalQueryParameters', 'additionalBodyFields'];

test('Order → Refund shows the Order ID, then Additional Fields, then Options, then the escape hatches', () => {
	expect(shownFor('order', 'refund').map((p) => p.name)).toEqual([
		'orderId',
		'additionalFields',
		'options',
		'additionalQueryParameters',
		'additionalBodyFields',
	]);
});

test.each(resources.flatMap((r) => r.operations.map((op) => [r.value, op.value])))(
	'%s → %s: own fields first, then its collections (Additional Fields, Filters …), then Options, then Additional Query Parameters / Body Fields',
	(resource, operation) => {
		const shown = shownFor(resource, operation);
		const rank = (p: { name: string; type: string }) =>
			EXTRAS.includes(p.name) ? 3 : p.name === 'options' ? 2 : p.type === 'collection' ? 1 : 0;
		const ranks = shown.map(rank);
		expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
		expect(shown.filter((p) => p.name === 'options')).toHaveLength(1);
	},
);

test('Custom API Call\'s Path shows a harmless read route as its example: a GET route of an operation, no money route for any method', () => {
	const pathField = new VaultStore().description.properties.find((p) => p.name === 'path' && p.displayOptions?.show?.resource?.includes('custom'));
	expect(pathField).toBeDefined();
	const examples = [pathField!.placeholder as string, ...[...(pathField!.description ?? '').matchAll(/e\.g\. (\/v2\/[^\s,)]+)/g)].map((m) => m[1])];
	expect(examples.length).toBeGreaterThan(1);
	const readme = readFileSync(path.join(__dirname, '..', 'README.md'), 'utf8');
	const routes = moneyRoutesOf(resources);
	for (const example of new Set(examples)) {
		// An operation of the node reads it (the README's generated operations table).
		expect(readme).toContain(`| GET \`${example}\` |`);
		const route = routeOf('base', example);
		expect('refused' in route).toBe(false);
		for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) expect(routes.match(method, route as Route)).toBeUndefined();
	}
});

/** The Options collection the editor shows for one operation of a new node, by option name. */
function optionsShown(resource: string, operation: string): Map<string, { default: unknown; description?: string }> {
	const props = new VaultStore().description.properties;
	const inList = (list: unknown, value: string | number) => list === undefined || (Array.isArray(list) && list.includes(value));
	const options = props.find(
		(p) =>
			p.name === 'options' &&
			inList(p.displayOptions?.show?.resource, resource) &&
			inList(p.displayOptions?.show?.operation, operation) &&
			inList(p.displayOptions?.show?.['@version'], LATEST_VERSION),
	);
	return new Map(((options?.options ?? []) as { name: string; default: unknown; description?: string }[]).map((o) => [o.name, o]));
}

test('the names a money operation guesses are options where it sets them, opened at its own names: Total … on Pay, Recorded … on every money operation, neither elsewhere', () => {
	const TOTAL = ['totalReadRoute', 'totalAmountFields', 'totalCurrencyFields'];
	const RECORDED = ['recordedAmountFields', 'recordedCurrencyFields'];
	const names = (resource: string, operation: string) => [...optionsShown(resource, operation).keys()].filter((n) => [...TOTAL, ...RECORDED].includes(n)).sort();
	expect(names('checkout', 'pay')).toEqual([...TOTAL, ...RECORDED].sort());
	expect(names('order', 'refund')).toEqual(RECORDED.sort());
	expect(names('payout', 'create')).toEqual(RECORDED.sort());
	for (const [resource, operation] of [['order', 'get'], ['custom', 'request'], ['subscription', 'change'], ['checkout', 'estimate']]) expect([resource, operation, names(resource, operation)]).toEqual([resource, operation, []]);

	// Each opens at the operation's own names (today's), so adding it changes nothing until edited.
	const pay = optionsShown('checkout', 'pay');
	expect(pay.get('totalReadRoute')?.default).toBe('/checkouts/{sessionId}');
	expect(pay.get('totalAmountFields')?.default).toBe('amount, total, totalAmount');
	expect(pay.get('totalCurrencyFields')?.default).toBe('currency');
	expect(pay.get('recordedAmountFields')?.default).toBe('payment.amount, payment.totalAmount, amount, totalAmount');
	expect(optionsShown('order', 'refund').get('recordedAmountFields')?.default).toBe('amount, refund.amount');
	expect(optionsShown('payout', 'create').get('recordedAmountFields')?.default).toBe('amount, payout.amount');
	expect(optionsShown('payout', 'create').get('recordedCurrencyFields')?.default).toBe('currency, payout.currency');
	// The descriptions say the default and when to change it.
	for (const option of [...pay.values()].filter((o) => /^(total|recorded)/.test((o as { name?: string }).name ?? ''))) {
		expect(option.description).toMatch(/[Dd]efault/);
		expect(option.description).toMatch(/Change it when/);
	}
});

test('Product → Get and → Update say the webhook secret is left out of the output', () => {
	const product = resources.find((r) => r.value === 'product')!;
	for (const op of product.operations) {
		expect(op.hides).toContain('webhookSecret');
		expect([op.value, op.description]).toEqual([op.value, expect.stringMatching(/without its webhook secret|webhook secret is left out of the output/)]);
	}
});
