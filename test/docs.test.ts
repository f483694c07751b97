/**
 * The README and the pages under docs/ agree with the tree and with the node: every relative link
 * leads to a file (and a same-page or README anchor to a heading), every error message the
 * Troubleshooting table quotes is one the node can give, and the defaults and limits the pages
 * state are the node's own.
 */
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';

import { VaultStoreStoreApi } from '../credentials/VaultStoreStoreApi.credentials';
import { VaultStoreVaultApi } from '../credentials/VaultStoreVaultApi.credentials';
import { optionsProperty } from '../nodes/VaultStore/options';
import { resources } from '../nodes/VaultStore/resources';
import { VaultStore } from '../nodes/VaultStore/VaultStore.node';
import { VaultStoreTrigger } from '../nodes/VaultStoreTrigger/VaultStoreTrigger.node';
import { DEFAULT_MAX_CONCURRENCY, INITIAL_CONCURRENCY, START_GROWTH_FACTOR, TURN_GRANTS, TURN_MS } from '../nodes/shared/transport/concurrency';
import { DEFAULT_TOLERANCE, MAX_TOLERANCE } from '../nodes/VaultStoreTrigger/properties';
import { MAX_STALE_IDS } from '../nodes/VaultStoreTrigger/staticData';

const ROOT = path.resolve(__dirname, '..');
const PAGES = ['README.md', 'CONTRIBUTING.md', ...readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/**
 * Pages another branch of this change adds (performance):
 * linked already, checked once they exist. Remove an entry when its page lands.
 */
const ADDED_ELSEWHERE = new Set<string>([]);

/** GitHub's anchor for a heading. */
const slug = (heading: string) =>
	heading
		.trim()
		.toLowerCase()
		.replace(/[^\p{L}\p{N} _-]/gu, '')
		.replace(/ /g, '-');

function anchorsOf(file: string): Set<string> {
	const text = read(file).replace(/```[\s\S]*?```/g, '');
	return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1])));
}

describe.each(PAGES)('%s', (page) => {
	const text = read(page).replace(/```[\s\S]*?```/g, '');
	const links = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]).filter((href) => !/^[a-z]+:/i.test(href));

	test('every relative link leads to a file and, with an anchor, to a heading', () => {
		const broken: string[] = [];
		for (const href of links) {
			const [target, anchor] = href.split('#');
			const file = target === '' ? page : path.posix.normalize(path.posix.join(path.posix.dirname(page), target));
			if (ADDED_ELSEWHERE.has(file)) continue;
			if (!existsSync(path.join(ROOT, file))) {
				broken.push(`${href} (no file ${file})`);
				continue;
			}
			if (anchor && file.endsWith('.md') && !anchorsOf(file).has(anchor)) broken.push(`${href} (no heading #${anchor} in ${file})`);
		}
		expect(broken).toEqual([]);
	});
});

test('the pages link to one another: every page under docs/ is linked from the README', () => {
	const readme = read('README.md');
	const pages = readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md'));
	expect(pages.filter((f) => !readme.includes(`](docs/${f}`))).toEqual([]);
});

test('every message the Troubleshooting table quotes is one the node gives (each piece between "…" is in the built node)', () => {
	const readme = read('README.md');
	const section = readme.slice(readme.indexOf('## Troubleshooting'), readme.indexOf('## Compatibility'));
	const built = (dir: string): string[] =>
		readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? built(path.join(dir, e.name)) : e.name.endsWith('.js') ? [readFileSync(path.join(dir, e.name), 'utf8')] : []));
	const code = built(path.join(ROOT, 'dist', 'nodes')).join('\n');
	const quoted = [...section.matchAll(/^\| `([^`]+)`/gm)].map((m) => m[1]);
	expect(quoted.length).toBeGreaterThan(5);
	const pieces = quoted.flatMap((q) => q.split('…').map((s) => s.replace(/\(HTTP \d+\)/, '').trim()).filter((s) => s.length > 3));
	expect(pieces.filter((piece) => !code.includes(piece))).toEqual([]);
});

describe('defaults and limits stated in the docs are the node\'s', () => {
	const option = (name: string) => optionsProperty.options!.find((o) => 'name' in o && o.name === name) as { default: unknown; typeOptions?: { minValue?: number; maxValue?: number } };
	const number = (text: string) => Number(text.replace(/,/g, ''));

	test('Max Retries default (docs/reliability.md)', () => {
		const m = /Max Retries, default (\d+)/.exec(read('docs/reliability.md'));
		expect(m && number(m[1])).toBe(option('maxRetries').default);
	});

	test('Return All Maximum default (docs/reliability.md)', () => {
		const m = /\*\*Return All Maximum\*\* option \(default ([\d,]+)/.exec(read('docs/reliability.md'));
		expect(m && number(m[1])).toBe(option('maxItems').default);
	});

	test('Timestamp Tolerance default and maximum (docs/trigger.md)', () => {
		const m = /\*\*Timestamp Tolerance \(Seconds\)\*\* \(default and maximum (\d+) s/.exec(read('docs/trigger.md'));
		expect(m && [number(m[1]), number(m[1])]).toEqual([DEFAULT_TOLERANCE, MAX_TOLERANCE]);
	});

	test('stale endpoint ids kept (docs/trigger.md)', () => {
		const m = /static data \(up to (\d+)\)/.exec(read('docs/trigger.md'));
		expect(m && number(m[1])).toBe(MAX_STALE_IDS);
	});

	test('the Idempotency Key option names the operations the Reliability page names', () => {
		const editor = (optionsProperty.options!.find((o) => 'name' in o && o.name === 'idempotencyKey') as { description: string }).description;
		expect(editor).toMatch(/token create, refund, payout create, checkout pay, and a Custom API Call/);
		// The three sources of docs/reliability.md's table: option, event, execution.
		expect(editor).toMatch(/descends from a Vault Store Trigger event, one derived from that event/);
		expect(editor).toMatch(/otherwise one derived from the execution and item/);
		expect(read('docs/reliability.md')).toMatch(/\| `event` \| The item descends \(through n8n's paired items\) from a \*\*Vault Store Trigger\*\* delivery/);
		expect(read('docs/reliability.md')).toMatch(/\(token create, refund, payout create, checkout pay, and a Custom API Call/);
	});
});

test('the first install of n8n costs what the installer says (README Try it, docs/e2e-tests.md, the install log)', () => {
	const { FIRST_INSTALL, N8N_DEFAULT, N8N_LATEST } = require('./e2e/runner/n8n-install.js') as {
		FIRST_INSTALL: Record<string, { minutes: string; size: string }>; N8N_DEFAULT: string; N8N_LATEST: string;
	};
	const first = FIRST_INSTALL[N8N_DEFAULT];
	const latest = FIRST_INSTALL[N8N_LATEST];
	const flat = (file: string) => read(file).replace(/\s+/g, ' ');
	expect(flat('README.md')).toContain(`\`~/.cache/n8n-nodes-vault-store/n8n-${N8N_DEFAULT}\` (about ${first.size} and ${first.minutes} minutes;`);
	expect(flat('docs/e2e-tests.md')).toContain(`${N8N_LATEST}: about ${latest.minutes} minutes, ${latest.size}`);
	// No other figure for the first install of the default line.
	expect(flat('README.md')).not.toMatch(/about [\d.]+ GB and \d+ minutes/);
});

describe('CHANGELOG: one account of how the request pool starts, true to concurrency.ts', () => {
	const unreleased = (() => {
		const text = read('CHANGELOG.md');
		return text.slice(text.indexOf('## [Unreleased]'), text.indexOf('\n## [', text.indexOf('## [Unreleased]') + 1));
	})();
	const bullets = unreleased.split(/\n(?=- )/);

	test('exactly one entry describes the start, and it states the constants of the code', () => {
		const accounts = bullets.filter((b) => /How the request pool of a node run starts/.test(b));
		expect(accounts).toHaveLength(1);
		const account = accounts[0].replace(/\s+/g, ' ');
		expect(account).toContain(`with a Concurrency above ${INITIAL_CONCURRENCY} (the default is ${DEFAULT_MAX_CONCURRENCY})`);
		expect(account).toContain(`multiplied by ${START_GROWTH_FACTOR} each time a round's last request is answered`);
		expect(account).toContain(`never below ${INITIAL_CONCURRENCY}`);
		expect(account).toContain(`With a Concurrency of ${INITIAL_CONCURRENCY} or less the window starts at the Concurrency`);
		expect(unreleased.replace(/\s+/g, ' ')).toContain(`at most ${TURN_GRANTS} per turn, a ${TURN_MS} ms timer between turns`);
	});

	test('no other entry states a number the pool starts with', () => {
		const others = bullets.filter((b) => !/How the request pool of a node run starts/.test(b)).map((b) => b.replace(/\s+/g, ' '));
		expect(others.filter((b) => /\b(starts?|started) (with|at) \d|window starts at|start(s|ing)? (of|from) \d+ requests/i.test(b))).toEqual([]);
	});
});

test('docs/security.md states no hard-coded secret-scan count: it quotes the line the teardown prints', () => {
	const row = read('docs/security.md').split('\n').find((l) => l.startsWith('| Whole suite |'));
	expect(row).toBeDefined();
	expect(row).not.toMatch(/\d[\d,]* (output items[^|]*)?checked/);
	const teardown = read('test/support/global-teardown.ts');
	const printed = /console\.log\(`\\nSecret scan: \$\{scanned\}( [^`]*?), \$\{leaks\.length\} leaks\.`\)/.exec(teardown);
	expect(printed).not.toBeNull();
	expect(row).toContain(`Secret scan: N${printed![1]}, 0 leaks.`);
});

/**
 * Every name the editor shows, as it shows it: the nodes' and credentials' own names, every
 * parameter's and option's displayName at any depth (collections, fixed collections), and the
 * names of choices (resources, operations, events).
 */
function editorNames(): Set<string> {
	const names = new Set<string>();
	const walk = (entries: readonly unknown[] | undefined): void => {
		for (const entry of entries ?? []) {
			const e = entry as { displayName?: string; name?: string; value?: unknown; options?: unknown[]; values?: unknown[] };
			if (typeof e.displayName === 'string') names.add(e.displayName);
			// A choice of an options field: { name, value }; its name is what the editor shows.
			else if (typeof e.name === 'string' && 'value' in e) names.add(e.name);
			walk(e.options);
			walk(e.values);
		}
	};
	for (const node of [new VaultStore(), new VaultStoreTrigger()]) {
		names.add(node.description.displayName);
		walk(node.description.properties);
	}
	for (const credential of [new VaultStoreStoreApi(), new VaultStoreVaultApi()]) {
		names.add(credential.displayName);
		walk(credential.properties);
	}
	return names;
}

/**
 * Bold words of the pages that are not names of this package's editor: other products' names,
 * n8n's own buttons and nodes, and paragraph labels. A new one is added here on purpose.
 */
const BOLD_NOT_A_NAME = new Set(['Vault & Store', 'AI Agent', 'Uninstall', 'Money', 'Errors']);
const SMALL_WORDS = new Set(['a', 'an', 'and', 'as', 'at', 'by', 'for', 'from', 'in', 'of', 'on', 'or', 'the', 'to', 'with', 'when']);

/** A bold span written as a name: Title Case words, not a sentence label ("**Setup.**", "**Money writes**:"), no menu path. */
function looksLikeName(bold: string, after: string): boolean {
	if (/^ (option|field|parameter|setting)s?\b/i.test(after)) return true;
	if (/[.:→]$|→/.test(bold) || /^\s*:/.test(after)) return false;
	const words = bold.split(' ').filter((w) => /^\p{L}/u.test(w));
	return words.length > 0 && words.every((w) => /^\p{Lu}/u.test(w) || SMALL_WORDS.has(w)) && words.some((w) => /^\p{Lu}/u.test(w));
}

describe('option and field names the pages write in bold are the editor\'s', () => {
	const names = editorNames();
	const boldIn = (page: string) =>
		[...read(page).replace(/```[\s\S]*?```/g, '').matchAll(/\*\*([^*]+)\*\*(?=([^\n]{0,20}))/g)].map((m) => ({ bold: m[1].replace(/\s+/g, ' ').trim(), after: m[2] }));

	test.each(PAGES)('%s', (page) => {
		const wrong = boldIn(page)
			.filter(({ bold, after }) => looksLikeName(bold, after) && !names.has(bold) && !BOLD_NOT_A_NAME.has(bold))
			.map(({ bold }) => bold);
		expect(wrong).toEqual([]);
	});

	test('the check reads the names it should', () => {
		for (const name of ['Include Delivery Headers', 'Reject Duplicates', 'Send Test Event When Listening', 'Send Idempotency-Key', 'Timeout (Ms)', 'Webhook Signing Secret', 'Idempotency Key'])
			expect(names).toContain(name);
		expect(names).not.toContain('Include Headers');
		expect(looksLikeName('Include Headers', ' option')).toBe(true);
		expect(looksLikeName('Timeout', ' is a deadline')).toBe(true);
		expect(looksLikeName('Setup.', ' n8n')).toBe(false);
		expect(looksLikeName('Money writes', ': a')).toBe(false);
	});

	test('docs/trigger.md documents every trigger option under its editor name', () => {
		const trigger = new VaultStoreTrigger().description.properties.find((p) => p.name === 'options') as { options: Array<{ displayName: string }> };
		const page = read('docs/trigger.md');
		expect(trigger.options.map((o) => o.displayName).filter((name) => !page.includes(`**${name}**`))).toEqual([]);
	});
});

/**
 * Menu paths the pages write ("Order → Refund", "Options → Maximum Amount") name what the editor
 * shows: the resource's operation, or the option, under its editor name. Only the first step after
 * the arrow is read ("Subscription → Change Plan, Reactivate and Resume" checks Change Plan).
 */
describe('menu paths the pages write are the editor\'s', () => {
	const operationsOf = new Map<string, string[]>(resources.map((r) => [r.name, r.operations.map((op) => op.name)]));
	const optionNames = (optionsProperty.options ?? []).map((o) => (o as { displayName: string }).displayName);
	operationsOf.set('Options', optionNames);
	const pathsIn = (text: string) =>
		[...text.replace(/```[\s\S]*?```/g, '').matchAll(/(?<![\p{L}→] ?)(\p{Lu}[\p{L}]*(?: \p{Lu}[\p{L}]*)*) → \**([^\n]{0,60})/gu)].map((m) => ({ menu: m[1], rest: m[2] }));
	const wrongIn = (text: string) =>
		pathsIn(text)
			.filter(({ menu }) => operationsOf.has(menu))
			.filter(({ menu, rest }) => !operationsOf.get(menu)!.some((name) => rest.startsWith(name) && !/^[\p{L}]/u.test(rest.slice(name.length))))
			.map(({ menu, rest }) => `${menu} → ${rest.split(/[,.;:()*|]/)[0]}`);

	test.each(PAGES)('%s', (page) => {
		expect(wrongIn(read(page))).toEqual([]);
	});

	test('the check reads the paths it should', () => {
		expect(wrongIn('Use Subscription → Change Plan, Reactivate and Resume; Options → Maximum Amount.')).toEqual([]);
		expect(wrongIn('Subscription → Change and → Resume')).toEqual(['Subscription → Change and → Resume']);
		expect(wrongIn('Options → Include Headers')).toEqual(['Options → Include Headers']);
		expect(wrongIn('Settings → Community Nodes')).toEqual([]);
	});
});
