/**
 * No secret leaves the node: a broad set of token workflows (and a few store
 * ones) is run, and every text a user could see is collected: output items,
 * error messages, error descriptions, whole serialized errors and every line
 * logged during the run. None may contain a card number (also with spaces or
 * dashes), a CVC, a vault or store secret key or the signing secret; the one
 * allowed place for the card number is `data.number` of a reveal output.
 *
 * collectTexts(run) is generic (any RunResult of the harness, any node), so the
 * scan can later be pointed at the whole suite.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { items, jsonOf, useSandbox } from './support/fixtures';
import type { CredentialSet, RunResult } from './support/harness';
import { logLines } from './support/harness';

const f = useSandbox({ orders: 5 });

const CARD = '4242424242424242';
const CARD_DASHED = '4242-4242-4242-4242';
const CARD_SPACED = '4242 4242 4242 4242';
const MISTYPED = '4242424242424241';
const CVC = '7391';
const BAD_CVC = '73915';
const YEAR = String(new Date().getUTCFullYear() + 2);
const WRONG_VAULT_KEY = 'vsk_wrong_0123456789abcdefXYZ';
const WRONG_STORE_KEY = 'sk_wrong_0123456789abcdefXYZ';

export interface CollectedText {
	/** Where the text came from: node, task, item or error part. */
	where: string;
	text: string;
}

export interface CollectOptions {
	/** Log lines written during the run. */
	logs?: string[];
	/** Nodes whose output is a reveal: `data.number` there is the revealed card and is left out. */
	revealNodes?: string[];
}

function outputTexts(node: string, run: number, output: number, list: INodeExecutionData[] | null, reveal: boolean): CollectedText[] {
	return (list ?? []).map((item, index) => {
		let json: IDataObject = item.json;
		if (reveal && json.data && typeof json.data === 'object' && !Array.isArray(json.data)) {
			const { number: _revealed, ...data } = json.data as IDataObject;
			json = { ...json, data };
		}
		return { where: `${node} run ${run} output ${output} item ${index}`, text: JSON.stringify({ json, binary: item.binary, error: item.error }) };
	});
}

function errorTexts(where: string, error: unknown): CollectedText[] {
	if (error === undefined || error === null) return [];
	const e = error as { message?: unknown; description?: unknown; stack?: unknown };
	let whole: string;
	try {
		whole = JSON.stringify(error);
	} catch {
		whole = String(error);
	}
	return [
		{ where: `${where} message`, text: String(e.message ?? '') },
		{ where: `${where} description`, text: String(e.description ?? '') },
		{ where: `${where} stack`, text: String(e.stack ?? '') },
		{ where: `${where} serialized`, text: whole },
	];
}

/** Every text a run shows: items of every output of every node and run, errors, and the given log lines. */
export function collectTexts(result: RunResult, options: CollectOptions = {}): CollectedText[] {
	const texts: CollectedText[] = [];
	const resultData = result.run.data.resultData;
	for (const [node, tasks] of Object.entries(resultData.runData)) {
		const reveal = options.revealNodes?.includes(node) ?? false;
		tasks.forEach((task, run) => {
			(task.data?.main ?? []).forEach((list, output) => texts.push(...outputTexts(node, run, output, list, reveal)));
			texts.push(...errorTexts(`${node} run ${run} error`, task.error));
			for (const hint of task.hints ?? []) texts.push({ where: `${node} run ${run} hint`, text: JSON.stringify(hint) });
		});
	}
	texts.push(...errorTexts('workflow error', resultData.error));
	for (const line of options.logs ?? []) texts.push({ where: 'log', text: line });
	return texts;
}

function separated(digits: string): RegExp {
	return new RegExp(digits.split('').join('[ -]?'));
}

/** What leaks in the texts, by name (the secret itself is never printed). */
export function findSecrets(texts: CollectedText[], secrets: Record<string, string>): string[] {
	const patterns: [string, RegExp][] = [
		['card number', separated(CARD)],
		['mistyped card number', separated(MISTYPED)],
		['CVC key', /"(cvc|cvv|csc)2?"\s*:/i],
		['CVC value', new RegExp(`(?<![\\w.:-])(${CVC}|${BAD_CVC})(?![\\w.:-])`)],
	];
	const found: string[] = [];
	for (const { where, text } of texts) {
		for (const [name, re] of patterns) if (re.test(text)) found.push(`${name} in ${where}`);
		for (const [name, secret] of Object.entries(secrets)) if (secret && text.includes(secret)) found.push(`${name} in ${where}`);
	}
	return found;
}

const all: CollectedText[] = [];
let revealedNumbers = 0;

function secrets(): Record<string, string> {
	const c = f.credentials;
	return {
		'vault secret key': String(c.vaultStoreVaultApi.secretKey),
		'vault no-reveal key': f.sb.vault.noRevealKey,
		'store secret key': String(c.vaultStoreStoreApi.secretKey),
		'store token key': f.sb.store.storeTokenKey,
		'signing secret': String(c.vaultStoreStoreApi.signingSecret),
		'wrong vault key': WRONG_VAULT_KEY,
		'wrong store key': WRONG_STORE_KEY,
	};
}

/** Runs a workflow, collects its texts, checks them, and keeps them for the final count. */
async function scanned(
	parameters: IDataObject,
	input?: INodeExecutionData[],
	options: { continueOnFail?: boolean; credentials?: CredentialSet } = {},
): Promise<RunResult> {
	const logStart = logLines.length;
	const r = await f.run(parameters, input, options);
	const reveal = parameters.operation === 'reveal';
	const texts = collectTexts(r, { logs: logLines.slice(logStart), revealNodes: reveal ? ['Vault Store'] : [] });
	all.push(...texts);
	if (reveal) {
		revealedNumbers += jsonOf(r).filter((o) => (o.data as IDataObject | undefined)?.number === CARD).length;
	}
	expect(findSecrets(texts, secrets())).toEqual([]);
	return r;
}

const card = (extra: IDataObject = {}): IDataObject => ({
	resource: 'token',
	operation: 'create',
	tokenType: 'card',
	cardNumber: CARD_SPACED,
	expMonth: '7',
	expYear: YEAR,
	cvc: CVC,
	...extra,
});
const byId = (value: string) => ({ __rl: true, mode: 'id', value });

function withVaultKey(secretKey: string): CredentialSet {
	return { ...f.credentials, vaultStoreVaultApi: { ...f.credentials.vaultStoreVaultApi, secretKey } };
}

describe('no secret in any output, error or log line of token workflows', () => {
	let tokenId = '';

	test('create (literal number with spaces, and from input items with dashes), get, getAll, update', async () => {
		const created = await scanned(card({ additionalFields: { metadata: { entries: [{ key: 'k', value: 'v' }] } } }));
		expect(created.error()).toBeUndefined();
		tokenId = String(jsonOf(created)[0].id);

		const fromItems = await scanned(
			card({ cardNumber: '={{ $json.card }}', cvc: '={{ $json.cvc }}' }),
			items({ card: CARD_DASHED, cvc: CVC }, { card: CARD, cvc: CVC }),
		);
		expect(jsonOf(fromItems)).toHaveLength(2);

		expect((await scanned({ resource: 'token', operation: 'get', tokenId: byId(tokenId) })).error()).toBeUndefined();
		expect(jsonOf(await scanned({ resource: 'token', operation: 'getAll', returnAll: true })).length).toBeGreaterThanOrEqual(3);
		const updated = await scanned({
			resource: 'token',
			operation: 'update',
			tokenId: byId(tokenId),
			updateFields: { setMetadata: { entries: [{ key: 'a', value: 'b' }] }, removeMetadataKeys: 'k', expiresAt: new Date(Date.now() + 86_400_000).toISOString() },
		});
		expect(updated.error()).toBeUndefined();
	});

	test('a retried 500 on create, and a replay of the same Idempotency-Key', async () => {
		f.sb.faults.add({ kind: '500', count: 1 });
		const first = await scanned(card({ cardNumber: CARD, options: { idempotencyKey: 'secrets-test-1' } }));
		expect(first.error()).toBeUndefined();
		const replay = await scanned(card({ cardNumber: CARD, options: { idempotencyKey: 'secrets-test-1' } }));
		expect(jsonOf(replay)[0].idempotentReplay).toBe(true);
	});

	test('reveal shows the number only in data.number, never the CVC', async () => {
		const r = await scanned({ resource: 'token', operation: 'reveal', tokenId: byId(tokenId) });
		expect(r.error()).toBeUndefined();
		expect((jsonOf(r)[0].data as IDataObject).number).toBe(CARD);
	});

	test.each([
		['Luhn failure', { cardNumber: MISTYPED }],
		['dashed Luhn failure', { cardNumber: '4242-4242-4242-4241' }],
		['short number', { cardNumber: '4242 4242 42' }],
		['bad month', { expMonth: '13' }],
		['past year', { expYear: '2001' }],
		['bad CVC', { cvc: BAD_CVC }],
		['expiry in the past', { additionalFields: { expiresAt: '2001-01-01T00:00:00Z' } }],
	])('doubtful card input (%s) is sent with a warning; no value in the warning, output or error', async (_, extra) => {
		const r = await scanned(card(extra), undefined, { continueOnFail: true });
		expect(f.requests()).toHaveLength(1);
		const hints = r.hints().map((h) => h.message);
		// scanned() has already scanned the hints with the rest; the typed values are checked here too.
		expect(hints).toHaveLength(1);
		for (const value of [MISTYPED, '4242-4242-4242-4241', '4242 4242 42', BAD_CVC]) expect(hints.join(' ')).not.toContain(value);
	});

	test.each([
		['no number', { cardNumber: '={{ "" }}' }],
		['a month that is not a number', { expMonth: 'July' }],
	])('bad card input (%s) fails before sending, without the values', async (_, extra) => {
		const r = await scanned(card(extra));
		expect(r.error()).toBeDefined();
		expect(f.requests()).toHaveLength(0);
	});

	test('bad token data: oversized or malformed custom/pii data holding a card number', async () => {
		const big = { number: CARD, cvc: CVC, pad: 'x'.repeat(17_000) };
		const r1 = await scanned({ resource: 'token', operation: 'create', tokenType: 'custom', data: JSON.stringify(big) });
		expect(r1.error()?.message).toMatch(/16 KiB/);
		const r2 = await scanned({ resource: 'token', operation: 'create', tokenType: 'pii', data: `{"value": "${CARD}", cvc: ${CVC}` });
		expect(r2.error()?.message).toMatch(/"Data" must be valid JSON/);
		const r3 = await scanned({ resource: 'token', operation: 'create', tokenType: 'custom', data: JSON.stringify({ number: CARD, cvc: CVC }) });
		expect(r3.error()).toBeUndefined();
		expect(jsonOf(r3)[0]).not.toHaveProperty('data');
	});

	test('wrong keys: a made-up vault key, the store key used on the vault, a key without tokens:reveal', async () => {
		const wrong = await scanned({ resource: 'token', operation: 'get', tokenId: byId(tokenId) }, undefined, { credentials: withVaultKey(WRONG_VAULT_KEY) });
		expect(wrong.error()?.message).toMatch(/401/);
		const storeKey = String(f.credentials.vaultStoreStoreApi.secretKey);
		const crossed = await scanned(card(), undefined, { credentials: withVaultKey(storeKey) });
		expect(crossed.error()?.message).toMatch(/401/);
		const noReveal = await scanned({ resource: 'token', operation: 'reveal', tokenId: byId(tokenId) }, undefined, {
			credentials: withVaultKey(f.sb.vault.noRevealKey),
		});
		expect(`${noReveal.error()?.message} ${noReveal.error()?.description}`).toMatch(/tokens:reveal/);
		const storeWrong = await scanned({ resource: 'store', operation: 'get' }, undefined, {
			credentials: { ...f.credentials, vaultStoreStoreApi: { ...f.credentials.vaultStoreStoreApi, secretKey: WRONG_STORE_KEY } },
		});
		expect(storeWrong.error()?.message).toMatch(/401/);
	});

	test('continueOnFail: error items for bad cards and a missing permission carry no secret', async () => {
		const r = await scanned(
			card({ cardNumber: '={{ $json.card }}', cvc: '={{ $json.cvc }}' }),
			items({ card: CARD, cvc: CVC }, { card: MISTYPED, cvc: CVC }, { card: CARD, cvc: BAD_CVC }, { card: CARD_DASHED, cvc: '' }),
			{ continueOnFail: true },
		);
		const out = jsonOf(r);
		expect(out.map((o) => (o.error ? 'error' : 'token'))).toEqual(['token', 'error', 'error', 'token']);
		const denied = await scanned({ resource: 'token', operation: 'reveal', tokenId: byId(tokenId) }, undefined, {
			continueOnFail: true,
			credentials: withVaultKey(f.sb.vault.noRevealKey),
		});
		expect(String(jsonOf(denied)[0].error)).toMatch(/403/);
	});

	test('delete, then get and reveal of the deleted token', async () => {
		expect(jsonOf(await scanned({ resource: 'token', operation: 'delete', tokenId: byId(tokenId) }))[0]).toMatchObject({ deleted: true });
		expect((await scanned({ resource: 'token', operation: 'get', tokenId: byId(tokenId) })).error()?.message).toMatch(/404/);
		expect((await scanned({ resource: 'token', operation: 'reveal', tokenId: byId(tokenId) })).error()?.message).toMatch(/404/);
	});

	test('the scan covered outputs, errors and the one revealed number', () => {
		expect(all.filter((t) => /output/.test(t.where)).length).toBeGreaterThanOrEqual(10);
		expect(all.filter((t) => /error (message|serialized)/.test(t.where) && t.text !== '').length).toBeGreaterThanOrEqual(20);
		expect(revealedNumbers).toBe(1);
		expect(findSecrets(all, secrets())).toEqual([]);
	});
});

describe('the scan itself finds what it looks for', () => {
	test('a reveal output without the reveal exception, a planted key and a CVC are found', async () => {
		const created = await f.run(card({ cardNumber: CARD }));
		const id = String(jsonOf(created)[0].id);
		const r = await f.run({ resource: 'token', operation: 'reveal', tokenId: byId(id) });
		expect(findSecrets(collectTexts(r, { revealNodes: ['Vault Store'] }), secrets())).toEqual([]);
		expect(findSecrets(collectTexts(r), secrets())).toEqual(['card number in Vault Store run 0 output 0 item 0']);
		const planted = [
			{ where: 'x', text: `Bearer ${f.sb.vault.noRevealKey}` },
			{ where: 'y', text: `number ${CARD_SPACED}` },
			{ where: 'z', text: `{"Cvc":"1"}` },
			{ where: 'w', text: `code ${CVC} was sent` },
		];
		expect(findSecrets(planted, secrets())).toEqual(['vault no-reveal key in x', 'card number in y', 'CVC key in z', 'CVC value in w']);
	});
});
