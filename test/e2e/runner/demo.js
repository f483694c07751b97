#!/usr/bin/env node
// @ts-check
/**
 * npm run demo — try the nodes in a real n8n, locally, in one command:
 *   the sandbox service (seeded data, http webhooks allowed) on 127.0.0.1:5858 (or a free port),
 *   n8n 2.8.4 (installed once into VS_N8N_HOME) on 127.0.0.1:5678 (or a free port) with this
 *   package installed as a community package, the two credentials, the example workflows (the
 *   trigger one published), and an owner login. Prints the editor URL, the login and what to click.
 *   Ctrl-C stops both.
 *
 * Options: --port N (n8n), --sandbox-port N, --no-build (reuse dist/ and out/), --keep (keep the
 * n8n data in .e2e/demo between runs; by default it is made anew each time), --n8n <version> or
 * --latest (another n8n than 2.8.4, e.g. the newest line the e2e suite tests; installed with the
 * Node it needs, see lib.js).
 */
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const lib = require('./lib');
const { log, ROOT } = lib;

function arg(name) {
	const i = process.argv.indexOf(name);
	return i > 0 ? process.argv[i + 1] : undefined;
}

async function portOr(preferred) {
	const net = require('node:net');
	const free = await new Promise((resolve) => {
		const srv = net.createServer();
		srv.once('error', () => resolve(false));
		srv.listen(preferred, '127.0.0.1', () => srv.close(() => resolve(true)));
	});
	return free ? preferred : await lib.freePort();
}

async function main() {
	lib.selectN8n(lib.n8nFromArgs());
	const build = !process.argv.includes('--no-build');
	const demoDir = path.join(ROOT, '.e2e', 'demo');
	const userFolder = path.join(demoDir, 'n8n');
	if (!process.argv.includes('--keep')) fs.rmSync(demoDir, { recursive: true, force: true });
	fs.mkdirSync(userFolder, { recursive: true });

	/** @type {any} */
	let sb;
	/** @type {ReturnType<typeof lib.makeInstance> | undefined} */
	let inst;
	let stopping = false;
	lib.installCleanup(async () => {
		stopping = true;
		await inst?.stop();
		await sb?.close();
		log('demo stopped: n8n and the sandbox shut down cleanly. `npm run demo` starts it again with the example workflows as shipped.');
	});

	const [home, tgz] = await Promise.all([lib.ensureN8n(), lib.buildAndPack(path.join(demoDir, 'pack'), { build })]);
	const { startSandbox } = await lib.loadSandbox({ build });
	sb = await startSandbox({ allowHttpWebhooks: true, port: Number(arg('--sandbox-port')) || (await portOr(5858)) });
	log(`sandbox on ${sb.baseUrl}`);

	await lib.installPackage(userFolder, tgz);
	// A kept folder needs the same encryption key as before: it is saved beside it.
	const keyFile = path.join(demoDir, 'encryption-key');
	const encryptionKey = fs.existsSync(keyFile) ? fs.readFileSync(keyFile, 'utf8').trim() : undefined;
	inst = lib.makeInstance({ userFolder, logDir: path.join(demoDir, 'logs'), home, encryptionKey });
	fs.writeFileSync(keyFile, inst.encryptionKey, { mode: 0o600 });

	await inst.importCredentials(lib.credentialsFor(sb));
	const importDir = path.join(demoDir, 'import');
	fs.rmSync(importDir, { recursive: true, force: true });
	fs.mkdirSync(importDir);
	// Every example in examples/; the two with a Vault Store Trigger are published (listening).
	const examples = lib.exampleWorkflows();
	const ready = [];
	for (const e of examples) {
		const missing = lib.missingInBuild(ROOT, e.workflow);
		if (missing.length) log(`example ${e.name} skipped: this build lacks ${missing.join('; ')}`);
		else {
			fs.copyFileSync(e.file, path.join(importDir, e.name));
			ready.push(e);
		}
	}
	await inst.importWorkflows(importDir);
	const trigger = ready.find((e) => e.name === 'trigger-events.json');
	if (trigger) await inst.cli(['publish:workflow', `--id=${trigger.id}`]);
	const dispute = ready.find((e) => e.name === 'dispute-evidence.json');
	if (dispute) await inst.cli(['publish:workflow', `--id=${dispute.id}`]);

	const port = Number(arg('--port')) || (await portOr(5678));
	log('starting n8n ...');
	await inst.start({ port });
	const rest = lib.restClient(inst.url);
	await rest.ownerLogin();

	if (trigger) {
		// One event up front, so the trigger workflow has an execution to look at.
		await new Promise((r) => setTimeout(r, 1000));
		await fetch(`${sb.baseUrl}/__dev/events`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ eventType: 'PAYMENT_COMPLETED', data: { orderId: sb.state.orders[0]?.id, amount: sb.state.orders[0]?.amount, currency: 'USD', note: 'sent by npm run demo' } }),
		});
	}

	const wfUrl = (e) => `${inst.url}/workflow/${e.id}`;
	const byName = Object.fromEntries(ready.map((e) => [e.name, e]));
	const lines = [
		'',
		'==================================================================================',
		' Vault Store nodes in n8n — ready',
		'',
		` Editor:    ${inst.url}`,
		` Login:     ${lib.OWNER.email}`,
		` Password:  ${lib.OWNER.password}`,
		` Sandbox:   ${sb.baseUrl}  (the service the credentials point at; seeded test data)`,
		'',
		' What to click:',
	];
	if (byName['list-and-refund.json'])
		lines.push(`  - "${byName['list-and-refund.json'].title}"`, `      ${wfUrl(byName['list-and-refund.json'])}`, '      Execute workflow: lists 5 completed orders, refunds 1.00 of the newest, reads it back.');
	if (byName['tokenize-card.json'])
		lines.push(`  - "${byName['tokenize-card.json'].title}"`, `      ${wfUrl(byName['tokenize-card.json'])}`, '      Execute workflow: stores a test card in the vault (output: token id and mask only),', '      reads the token, then reveals the card (a key with tokens:reveal).');
	if (byName['report-download.json'])
		lines.push(`  - "${byName['report-download.json'].title}"`, `      ${wfUrl(byName['report-download.json'])}`, '      Execute workflow: requests a report and downloads it; open the last node, Binary tab.');
	if (byName['correct-a-guess.json'])
		lines.push(
			`  - "${byName['correct-a-guess.json'].title}"`,
			`      ${wfUrl(byName['correct-a-guess.json'])}`,
			'      Execute workflow: refunds 1.00 with the reason sent as an Additional Body Field, then stores',
			'      a value in the vault and reads it back with a Custom API Call on the Vault API.',
		);
	if (byName['agent-refunds-with-budget.json'])
		lines.push(
			`  - "${byName['agent-refunds-with-budget.json'].title}"`,
			`      ${wfUrl(byName['agent-refunds-with-budget.json'])}`,
			'      Connect your chat model (OpenAI credential), then Open chat: the agent refunds within 20 a call,',
			'      50 a conversation and 200 a day (the tool\'s Options); ask for more and it is refused.',
		);
	if (byName['agent-refunds-with-review.json'])
		lines.push(
			`  - "${byName['agent-refunds-with-review.json'].title}"`,
			`      ${wfUrl(byName['agent-refunds-with-review.json'])}`,
			'      Connect your chat model and an SMTP credential on "Ask a person by email", then Open chat:',
			'      up to 20 the agent refunds at once; above that the execution waits until a person clicks',
			'      Approve or Decline in the email (the node still holds its caps and budgets after the wait).',
		);
	if (byName['trigger-events.json'])
		lines.push(
			`  - "${byName['trigger-events.json'].title}" (published, listening)`,
			`      ${wfUrl(byName['trigger-events.json'])}  -> Executions tab`,
			'      One PAYMENT_COMPLETED event was sent already. Refunding (first workflow) sends PAYMENT_REFUNDED;',
			`      or send one: curl -X POST ${sb.baseUrl}/__dev/events -H 'content-type: application/json' \\`,
			`                     -d '{"eventType":"PAYMENT_FAILED","data":{"orderId":"ord_demo"}}'`,
		);
	if (byName['dispute-evidence.json'])
		lines.push(
			`  - "${byName['dispute-evidence.json'].title}" (published, listening)`,
			`      ${wfUrl(byName['dispute-evidence.json'])}  -> Executions tab`,
			`      Open a dispute on a paid order: curl -X POST ${sb.baseUrl}/__dev/disputes -H 'content-type: application/json' \\`,
			`                     -d '{"orderId":"${sb.state.orders.find((/** @type {any} */ o) => o.payment?.status === 'COMPLETED')?.id ?? '<paid order id>'}"}'`,
		);
	if (byName['nightly-licenses-payouts.json'])
		lines.push(`  - "${byName['nightly-licenses-payouts.json'].title}"`, `      ${wfUrl(byName['nightly-licenses-payouts.json'])}`, '      Scheduled (not published); Execute workflow runs it now: licenses and payouts in one list.');
	lines.push(
		'  - n8n autosaves your edits to these workflows; restarting the demo restores them as shipped',
		'    (unless --keep).',
		'  - Credentials: Overview -> Credentials: "Vault Store account" (store API) and "Vault Store vault".',
		'  - Node picker: open any workflow, press Tab, type "Vault Store".',
		'',
		` n8n data: ${path.relative(ROOT, userFolder)} (made anew each run; --keep to keep it)   logs: ${path.relative(ROOT, path.join(demoDir, 'logs'))}`,
		' Press Ctrl-C to stop n8n and the sandbox.',
		'==================================================================================',
		'',
	);
	console.log(lines.join('\n'));

	const server = /** @type {NonNullable<typeof inst.server>} */ (inst.server);
	const ended = await server.exited;
	if (stopping) return; // Ctrl-C: the cleanup handler reports and exits
	log(`n8n exited (${ended.code ?? ended.signal}); see ${path.join(demoDir, 'logs', 'n8n-start.log')}`);
	await sb.close();
	process.exit(ended.code === 0 ? 0 : 1);
}

main().catch(async (err) => {
	console.error(err instanceof Error ? err.stack ?? err.message : err);
	await lib.stopAll();
	process.exit(1);
});
