/**
 * Runs the sandbox until Ctrl-C:
 *   tsc -p tsconfig.dev.json && node out/sandbox/cli.js [--port 5858] [--seed 1] [--orders 250]
 *     [--latency-ms 0] [--allow-http-webhooks] [--webhook-time-scale 1] [--rate-limit 50 [--rate-burst 50]]
 *     [--disagree]   (the disagreeing mode, disagree.ts: every detail the spec does not show differs from the node's guess)
 */
import { SandboxOptions, startSandbox } from './server';

const USAGE =
	'usage: cli [--port N] [--seed N] [--orders N] [--latency-ms N] [--allow-http-webhooks] [--webhook-time-scale X] [--rate-limit PER_SECOND] [--rate-burst N] [--disagree]';

export function parseArgs(argv: string[]): SandboxOptions {
	const opts: SandboxOptions = { port: 5858 };
	const numeric: Record<string, keyof SandboxOptions> = {
		'--port': 'port',
		'--seed': 'seed',
		'--orders': 'orders',
		'--latency-ms': 'latencyMs',
		'--webhook-time-scale': 'webhookTimeScale',
		'--rate-limit': 'rateLimit',
		'--rate-burst': 'rateBurst',
	};
	for (let i = 0; i < argv.length; i++) {
		const [flag, inline] = argv[i].split('=', 2);
		if (flag === '--allow-http-webhooks') {
			opts.allowHttpWebhooks = true;
		} else if (flag === '--disagree') {
			opts.disagree = true;
		} else if (flag in numeric) {
			const raw = inline ?? argv[++i];
			const n = Number(raw);
			if (raw === undefined || !Number.isFinite(n) || n < 0) throw new Error(`${flag} needs a non-negative number\n${USAGE}`);
			(opts as Record<string, unknown>)[numeric[flag]] = n;
		} else if (flag === '--help' || flag === '-h') {
			console.log(USAGE);
			process.exit(0);
		} else {
			throw new Error(`unknown argument ${argv[i]}\n${USAGE}`);
		}
	}
	return opts;
}

async function main(): Promise<void> {
	const sandbox = await startSandbox(parseArgs(process.argv.slice(2)));
	const { vaultStoreStoreApi, vaultStoreVaultApi } = sandbox.credentials();
	console.log(`Vault & Store sandbox listening on ${sandbox.baseUrl}\n`);
	const { rateLimit, rateBurst } = sandbox.app.options;
	if (rateLimit > 0) console.log(`Rate limit: ${rateLimit} requests/s per key, burst ${rateBurst} (429 with Retry-After above it)\n`);
	if (sandbox.disagree.on) console.log('Disagreeing mode: every detail the spec does not show differs from the node\'s guess (sandbox/disagree.ts)\n');
	console.log('Store API credential (vaultStoreStoreApi):');
	console.log(JSON.stringify(vaultStoreStoreApi, null, 2));
	console.log(`  read-only store token (stk_): ${sandbox.store.storeTokenKey}\n`);
	console.log('Vault API credential (vaultStoreVaultApi):');
	console.log(JSON.stringify(vaultStoreVaultApi, null, 2));
	console.log(`  key without tokens:reveal: ${sandbox.vault.noRevealKey}\n`);
	console.log(`Dev: POST ${sandbox.baseUrl}/__dev/events {"eventType":"PAYMENT_COMPLETED","data":{}}`);
	console.log('Press Ctrl-C to stop.');
	const stop = () => {
		void sandbox.close().then(() => process.exit(0));
	};
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
}

if (require.main === module) {
	main().catch((err: unknown) => {
		console.error(err instanceof Error ? err.message : err);
		process.exit(1);
	});
}
