// @ts-check
/**
 * Action workflows of examples/, each run by a real n8n 2.8.4 (`n8n execute --id --rawOutput`)
 * with this package installed as a community package, against the in-process sandbox. Every
 * check reads both the workflow's output and what the sandbox received.
 *
 * One function per example file; test/e2e/runner/run.js runs those whose nodes exist in the build.
 */
'use strict';

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const { log, nodeOutput } = require('./runner/lib');

/**
 * @typedef {{
 *   inst: ReturnType<typeof import('../../test/e2e/runner/lib').makeInstance>,
 *   sb: any,
 *   t: import('./runner/results').Results,
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

	async 'correct-a-guess.json'({ inst, sb, t, example }) {
		const from = sb.requests.length;
		const ledgerFrom = sb.ledger.length;
		const { run } = await inst.execute(example.id);
		t.equal('correct-a-guess: execution finished without error', run.data?.resultData?.error?.message ?? null, null);
		const order = json(nodeOutput(run, 'Newest completed order'))[0] ?? {};
		const reqs = apiRequests(sb, from);
		const storeId = sb.store.storeId;
		const refund = reqs.find((r) => r.method === 'POST' && r.path === `/v2/stores/${storeId}/orders/${order.id}/refund`) ?? {};
		t.equal('correct-a-guess: the refund body carries the Additional Body Field', refund.body, { amount: 1, reason: 'Duplicate charge (sent as an Additional Body Field)' });
		t.equal('correct-a-guess: the refund was answered 201', refund.status, 201);
		const ledger = sb.ledger.slice(ledgerFrom).filter((/** @type {any} */ e) => e.kind === 'refund');
		t.equal('correct-a-guess: one refund in the ledger', ledger.map((/** @type {any} */ e) => [e.orderId, e.amount]), [[order.id, 1]]);

		const token = json(nodeOutput(run, 'Store a personal value'))[0] ?? {};
		const read = json(nodeOutput(run, 'Read it with a vault custom call'));
		const vaultRoot = `/v2/workspaces/${sb.vault.workspaceId}/vaults/${sb.vault.vaultId}`;
		const call = reqs.find((r) => r.method === 'GET' && r.path === `${vaultRoot}/tokens/${token.id}`) ?? {};
		t.equal('correct-a-guess: the vault custom call went to the vault URL with the vault key (200)', [call.status, call.headers?.authorization], [200, '[redacted]']);
		t.check('correct-a-guess: the custom call returned the token without its data', read.length === 1 && read[0].id === token.id && !('data' in read[0]), JSON.stringify(read));
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

	async 'report-download.json'({ inst, sb, t, example }) {
		const from = sb.requests.length;
		const { run } = await inst.execute(example.id);
		t.equal('report-download: execution finished without error', run.data?.resultData?.error?.message ?? null, null);
		const runData = run.data?.resultData?.runData ?? {};

		const created = json(nodeOutput(run, 'Create payment activity report'))[0] ?? {};
		t.check('report-download: Create returns a PENDING PAYMENT_ACTIVITY report', created.id && created.status === 'PENDING' && created.type === 'PAYMENT_ACTIVITY', JSON.stringify(created));
		const polls = (runData['Get report status'] ?? []).map((/** @type {any} */ r) => r.data?.main?.[0]?.[0]?.json?.status);
		t.check('report-download: the loop polled Get until SUCCEEDED (one step per read)', polls.length >= 2 && polls[polls.length - 1] === 'SUCCEEDED' && polls.slice(0, -1).every((s) => s === 'PROCESSING' || s === 'PENDING'), JSON.stringify(polls));
		t.equal('report-download: the Wait node ran once per unfinished poll', (runData['Wait 1 second'] ?? []).length, polls.length - 1);

		const dl = nodeOutput(run, 'Download CSV')[0] ?? {};
		t.check('report-download: Download outputs the URL, file name and size', dl.json?.reportId === created.id && /\/__files\//.test(dl.json?.url) && dl.json?.fileName === `report_${created.id}.csv` && dl.json?.fileSize > 0, JSON.stringify(dl.json));
		const bin = dl.binary?.data ?? {};
		t.check('report-download: the file is binary data "data" (text/csv, report_<id>.csv)', bin.mimeType === 'text/csv' && bin.fileName === `report_${created.id}.csv`, JSON.stringify({ ...bin, data: bin.data ? `${String(bin.data).length} chars` : undefined }));
		const reqs = apiRequests(sb, from);
		const fileReq = reqs.find((/** @type {any} */ r) => r.path.startsWith('/__files/'));
		const served = fileReq ? await fetch(`${sb.baseUrl}${fileReq.path}`).then((r) => r.text()) : '';
		let content = '';
		if (bin.data && !String(bin.id ?? '').includes(':')) content = Buffer.from(bin.data, 'base64').toString('utf8');
		else if (bin.id) {
			// n8n 2.x default binary mode "filesystem-v2": <N8N_USER_FOLDER>/.n8n/storage/<path in the id>
			const rel = String(bin.id).split(':').slice(1).join(':');
			const file = path.join(inst.userFolder, '.n8n', 'storage', rel);
			content = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
		}
		const header = content.split('\n')[0] ?? '';
		t.check('report-download: the file n8n holds is the CSV the sandbox served (header + rows)', content.length > 0 && content === served && bin.bytes === Buffer.byteLength(served) && /payment_method/.test(header) && content.trim().split('\n').length > 1, `${content.length} bytes vs ${served.length} served; header ${header.slice(0, 120)}`);

		const storeId = sb.store.storeId;
		const base = `/v2/stores/${storeId}/reports`;
		const lines = reqs.map((r) => `${r.method} ${r.path.replace(created.id, '{id}').replace(/\/__files\/.+$/, '/__files/{token}')} ${r.status}`);
		t.equal('report-download: sandbox saw create, the polls, the download URL and the file', lines, [
			`POST ${base} 201`,
			...polls.map(() => `GET ${base}/{id} 200`),
			`GET ${base}/{id}/download/CSV 200`,
			'GET /__files/{token} 200',
		]);
		t.equal('report-download: create body', reqs[0]?.body, { type: 'PAYMENT_ACTIVITY', from: '2025-12-01T00:00:00.000Z', to: '2026-01-15T12:00:00.000Z', format: 'CSV' });
		t.check('report-download: the file URL was fetched without the API key', fileReq && !fileReq.headers?.authorization, JSON.stringify(fileReq?.headers));
	},

	/**
	 * A Schedule Trigger workflow. n8n 2.8's `n8n execute` refuses a workflow without a Manual Trigger
	 * (or an Execute Workflow Trigger): "Missing node to start execution". So the example is imported
	 * once more, unchanged except for a Manual Trigger wired to the same two nodes, and that copy is
	 * executed; n8n 2.8.4 then runs it from the Schedule Trigger (which emits one empty item in a
	 * non-scheduled run), the Manual Trigger stays idle. Before the run, payouts are added at the
	 * sandbox until both lists span two pages of 100, so Return All has to page.
	 */
	async 'nightly-licenses-payouts.json'({ inst, sb, t, example }) {
		const { storeId, secretKey } = sb.credentials().vaultStoreStoreApi;
		const storeApi = async (method, p, body) => {
			const res = await fetch(`${sb.baseUrl}/v2${p}`, {
				method,
				headers: { authorization: `Bearer ${secretKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
				body: body ? JSON.stringify(body) : undefined,
			});
			const parsed = /** @type {any} */ (await res.json());
			if (!res.ok) throw new Error(`${method} ${p}: HTTP ${res.status} ${JSON.stringify(parsed).slice(0, 300)}`);
			return parsed.data;
		};
		const total = async (what) => (await storeApi('GET', `/core/stores/${storeId}/${what}?limit=1`)).pagination.total;
		let payouts = await total('payouts');
		for (let i = 0; payouts + i < 101; i++) await storeApi('POST', `/stores/${storeId}/payouts`, { amount: 1 });
		const licenses = await total('licenses');
		payouts = await total('payouts');
		t.must('nightly: the sandbox has more than one page (100) of licenses and of payouts', licenses > 100 && payouts > 100, JSON.stringify({ licenses, payouts }));

		const wf = JSON.parse(JSON.stringify(example.workflow));
		const schedule = wf.nodes.find((/** @type {any} */ n) => n.type === 'n8n-nodes-base.scheduleTrigger');
		t.must('nightly: the example starts with a Schedule Trigger', schedule, JSON.stringify(wf.nodes.map((/** @type {any} */ n) => n.type)));
		const manual = { id: crypto.randomUUID(), name: 'Run now', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [schedule.position[0], schedule.position[1] + 200], parameters: {} };
		const variant = { ...wf, id: `${example.id}Run`, name: `${wf.name} (run now)`, nodes: [...wf.nodes, manual], connections: { ...wf.connections, [manual.name]: wf.connections[schedule.name] } };
		const dir = fs.mkdtempSync(path.join(inst.userFolder, 'nightly-'));
		fs.writeFileSync(path.join(dir, 'nightly-run-now.json'), JSON.stringify(variant));
		await inst.importWorkflows(dir);
		fs.rmSync(dir, { recursive: true, force: true });

		const from = sb.requests.length;
		const { run } = await inst.execute(variant.id);
		t.equal('nightly: execution (n8n execute, Manual Trigger beside the schedule) finished without error', run.data?.resultData?.error?.message ?? null, null);
		const runData = run.data?.resultData?.runData ?? {};
		t.check('nightly: every node of the example ran exactly once, from the Schedule Trigger (one item)', wf.nodes.every((/** @type {any} */ n) => runData[n.name]?.length === 1) && (runData[schedule.name][0].data?.main?.[0] ?? []).length === 1, JSON.stringify(Object.fromEntries(Object.entries(runData).map(([k, v]) => [k, /** @type {any[]} */ (v).length]))));

		const merged = json(nodeOutput(run, 'One list'));
		t.equal('nightly: the merged list has as many items as the sandbox has licenses + payouts', { items: merged.length, licenses: merged.filter((i) => i.kind === 'license').length, payouts: merged.filter((i) => i.kind === 'payout').length }, { items: licenses + payouts, licenses, payouts });
		t.check('nightly: licenses first, then payouts (Merge append), ids unique and of their kind', merged.every((i, n) => (n < licenses ? i.kind === 'license' && /^lic_/.test(i.id) : i.kind === 'payout' && /^po_/.test(i.id))) && new Set(merged.map((i) => i.id)).size === merged.length, JSON.stringify(merged.slice(0, 3)));
		const dayAgo = Date.now() - 86_400_000;
		const wrongMark = merged.filter((i) => i.newSinceYesterday !== Date.parse(i.createdAt) >= dayAgo - 60_000 && i.newSinceYesterday !== Date.parse(i.createdAt) >= dayAgo + 60_000);
		t.check('nightly: every item is marked newSinceYesterday from its createdAt', merged.every((i) => typeof i.newSinceYesterday === 'boolean') && wrongMark.length === 0, JSON.stringify(wrongMark.slice(0, 3).map((i) => [i.id, i.createdAt, i.newSinceYesterday])));
		t.check('nightly: the payouts created just now are marked new, seeded licenses are not all new', merged.some((i) => i.kind === 'payout' && i.newSinceYesterday) && merged.some((i) => !i.newSinceYesterday), `${merged.filter((i) => i.newSinceYesterday).length} new`);

		const reqs = apiRequests(sb, from);
		log(`nightly: ${merged.length} merged items (${licenses} licenses, ${payouts} payouts) from ${reqs.length} list requests`);
		const lines = reqs.map((r) => `${r.method} ${r.path} page=${r.query?.page} limit=${r.query?.limit} ${r.status}`).sort();
		const pages = (n) => Array.from({ length: Math.ceil(n / 100) }, (_, i) => i + 1);
		t.equal('nightly: the sandbox saw each list paged with limit=100 (page 1, then the rest), nothing else', lines, [
			...pages(licenses).map((p) => `GET /v2/core/stores/${storeId}/licenses page=${p} limit=100 200`),
			...pages(payouts).map((p) => `GET /v2/core/stores/${storeId}/payouts page=${p} limit=100 200`),
		].sort());
	},
};

module.exports = { checks, apiRequests };
