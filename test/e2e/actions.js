// @ts-check
/**
 * Action workflows of examples/, each run by a real n8n 2.8.4 (`n8n execute --id --rawOutput`)
 * with this package installed as a community package, against the in-process sandbox. Every
 * check reads both the workflow's output and what the sandbox received.
 *
 * One function per example file; scripts/e2e/run.js runs those whose nodes exist in the build.
 */
'use strict';

const { nodeOutput } = require('../../scripts/e2e/lib');

/**
 * @typedef {{
 *   inst: ReturnType<typeof import('../../scripts/e2e/lib').makeInstance>,
 *   sb: any,
 *   t: import('../../scripts/e2e/checks').Checks,
 *   example: {file: string, name: string, id: string, workflow: any},
 * }} ActionCtx
 */

/** Requests of the node (no dev routes), since `from`. */
function apiRequests(sb, from) {
	return sb.requests.slice(from).filter((/** @type {any} */ r) => !r.path.startsWith('/__dev'));
}

const json = (items) => items.map((/** @type {any} */ i) => i.json);

/** @type {Record<string, (ctx: ActionCtx) => Promise<void>>} */
const checks = {
	async 'list-and-refund.json'({ inst, sb, t, example }) {
		const from = sb.requests.length;
		const ledgerFrom = sb.ledger.length;
		const { run } = await inst.execute(example.id);
		t.equal('list-and-refund: execution finished without error', run.data?.resultData?.error?.message ?? null, null);

		const listed = json(nodeOutput(run, 'List completed orders'));
		t.equal('list-and-refund: Get Many returns limit 5 items', listed.length, 5);
		t.check('list-and-refund: every listed order is COMPLETED with an ord_ id', listed.every((o) => o.status === 'COMPLETED' && /^ord_/.test(o.id)), JSON.stringify(listed.map((o) => [o.id, o.status])));
		const sorted = listed.map((o) => o.createdAt);
		t.check('list-and-refund: newest first', sorted.every((c, i) => i === 0 || sorted[i - 1] >= c), JSON.stringify(sorted));

		const refunds = json(nodeOutput(run, 'Refund 1.00'));
		t.equal('list-and-refund: one refund item', refunds.length, 1);
		const refund = refunds[0] ?? {};
		t.check('list-and-refund: refund of 1.00 for the newest listed order', refund.amount === 1 && refund.orderId === listed[0]?.id && /^[a-z]+_/.test(String(refund.id)), JSON.stringify(refund));
		const refundItems = nodeOutput(run, 'Refund 1.00');
		t.equal('list-and-refund: refund item is paired with the Limit item', refundItems[0]?.pairedItem, { item: 0 });

		const got = json(nodeOutput(run, 'Get the refunded order'));
		t.equal('list-and-refund: Get returns the refunded order', got[0]?.id, listed[0]?.id);

		const reqs = apiRequests(sb, from);
		const summary = reqs.map((r) => `${r.method} ${r.path} ${r.status}`);
		const storeId = sb.store.storeId;
		t.equal('list-and-refund: sandbox saw exactly list, refund, get', summary, [
			`GET /v2/core/stores/${storeId}/orders/ 200`,
			`POST /v2/stores/${storeId}/orders/${listed[0]?.id}/refund 201`,
			`GET /v2/core/stores/${storeId}/orders/${listed[0]?.id} 200`,
		]);
		const list = reqs[0] ?? {};
		t.equal('list-and-refund: list query (status, sortDirection, page, limit)', { status: list.query?.status, sortDirection: list.query?.sortDirection, limit: list.query?.limit }, { status: 'COMPLETED', sortDirection: 'desc', limit: '5' });
		const post = reqs[1] ?? {};
		t.equal('list-and-refund: refund body', post.body, { amount: 1, reason: 'Refunded from the n8n example workflow' });
		t.check('list-and-refund: refund carries an Idempotency-Key', typeof post.headers?.['idempotency-key'] === 'string' && post.headers['idempotency-key'].length >= 8, JSON.stringify(post.headers));
		t.check('list-and-refund: bearer auth sent (redacted in the log)', reqs.every((r) => r.headers?.authorization === '[redacted]'), summary.join(', '));
		const ledger = sb.ledger.slice(ledgerFrom).filter((/** @type {any} */ e) => e.kind === 'refund');
		t.equal('list-and-refund: the sandbox ledger has exactly one refund', ledger.map((/** @type {any} */ e) => [e.orderId, e.amount]), [[listed[0]?.id, 1]]);
	},

	async 'tokenize-card.json'({ inst, sb, t, example }) {
		const from = sb.requests.length;
		const accessFrom = sb.vault.accessLog.length;
		const { run, stdout } = await inst.execute(example.id);
		t.equal('tokenize-card: execution finished without error', run.data?.resultData?.error?.message ?? null, null);

		const created = json(nodeOutput(run, 'Tokenize the card'))[0] ?? {};
		t.check('tokenize-card: Create returns a tok_ id, type card and the mask', /^tok_/.test(created.id) && created.type === 'card' && created.mask?.last4 === '4242' && created.mask?.brand, JSON.stringify(created));
		t.check('tokenize-card: Create output has no card data', created.data === undefined && !JSON.stringify(created).includes('4242424242424242'), JSON.stringify(created));
		t.equal('tokenize-card: Create keeps the metadata', created.metadata, { source: 'n8n example' });

		const got = json(nodeOutput(run, 'Get the token (mask only)'))[0] ?? {};
		t.check('tokenize-card: Get shows the same token with mask, without data', got.id === created.id && got.mask?.last4 === '4242' && got.data === undefined, JSON.stringify(got));

		const revealed = json(nodeOutput(run, 'Reveal the card'))[0] ?? {};
		const number = String(revealed.data?.number ?? '').replace(/\D/g, '');
		t.check('tokenize-card: Reveal returns the card number and no CVC', revealed.id === created.id && number === '4242424242424242' && !JSON.stringify(revealed).toLowerCase().includes('"cvc"'), JSON.stringify({ ...revealed, data: revealed.data && Object.keys(revealed.data) }));

		const reqs = apiRequests(sb, from);
		const { workspaceId, vaultId } = sb.vault;
		const base = `/v2/workspaces/${workspaceId}/vaults/${vaultId}/tokens`;
		t.equal('tokenize-card: sandbox saw create, get, reveal', reqs.map((r) => `${r.method} ${r.path} ${r.status}`), [
			`POST ${base} 201`,
			`GET ${base}/${created.id} 200`,
			`POST ${base}/${created.id}/reveal 200`,
		]);
		const create = reqs[0] ?? {};
		t.check('tokenize-card: create carries an Idempotency-Key', typeof create.headers?.['idempotency-key'] === 'string', JSON.stringify(create.headers));
		t.equal('tokenize-card: create body type and metadata', { type: create.body?.type, metadata: create.body?.metadata }, { type: 'card', metadata: { source: 'n8n example' } });
		t.equal('tokenize-card: exactly one reveal in the vault access log', sb.vault.accessLog.slice(accessFrom).map((/** @type {any} */ a) => [a.tokenId, a.action]), [[created.id, 'reveal']]);
		const secret = sb.vault.secretKey;
		t.check('tokenize-card: the vault key appears nowhere in n8n output', !stdout.includes(secret), 'vault secret key found in n8n execute output');
	},
};

module.exports = { checks, apiRequests };
