/**
 * Concurrency of the action node in n8n: never more requests in flight than
 * the Concurrency ceiling (the adaptive pool decides below it; its rules are
 * tested on a fake clock in adaptive-concurrency.test.ts), output order and
 * pairedItem as with 1, and a 429 slowing every item down.
 * The peer is a tiny counting server (the sandbox does not count in-flight
 * requests); the node runs inside n8n-core as everywhere else.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { runNode } from './harness';
import { items } from './fixtures';

interface Peer {
	url: string;
	maxInFlight: number;
	arrivals: { id: string; at: number }[];
	rateLimitOnce?: boolean;
	close(): Promise<void>;
}

async function countingServer(delayMs: number): Promise<Peer> {
	let inFlight = 0;
	const peer: Peer = { url: '', maxInFlight: 0, arrivals: [], close: async () => {} };
	const server = http.createServer((req, res) => {
		const id = decodeURIComponent(String(req.url).split('/').pop() ?? '');
		peer.arrivals.push({ id, at: Date.now() });
		if (peer.rateLimitOnce) {
			peer.rateLimitOnce = false;
			res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
			res.end(JSON.stringify({ ok: false, error: { code: 'rate_limited', message: 'slow down' } }));
			return;
		}
		inFlight++;
		peer.maxInFlight = Math.max(peer.maxInFlight, inFlight);
		setTimeout(() => {
			inFlight--;
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ ok: true, data: { id, status: 'COMPLETED' } }));
		}, delayMs);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	peer.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	peer.close = async () => await new Promise<void>((resolve) => server.close(() => resolve()));
	return peer;
}

const orderIds = Array.from({ length: 23 }, (_, i) => `ord_${String(i).padStart(10, '0')}`);

async function runOrders(peer: Peer, options: Record<string, unknown>) {
	const credentials = {
		vaultStoreStoreApi: { baseUrl: peer.url, storeId: 'shp_concurrency1', secretKey: 'sk_concurrency_test', signingSecret: '' },
	};
	return await runNode(
		{
			resource: 'order',
			operation: 'get',
			orderId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
			options,
		},
		credentials,
		items(...orderIds.map((id) => ({ id }))),
	);
}

describe('concurrency option', () => {
	test.each([
		['default (ceiling 64)', {}, 64],
		['1: one at a time', { concurrency: 1 }, 1],
		['12', { concurrency: 12 }, 12],
	])('%s: never more in flight than the ceiling, order and pairedItem kept', async (_, options, ceiling) => {
		const peer = await countingServer(25);
		try {
			const run = await runOrders(peer, options);
			expect(run.error()).toBeUndefined();
			const out = run.output();
			expect(out.map((i) => i.json.id)).toEqual(orderIds);
			expect(out.map((i) => (i.pairedItem as { item: number }).item)).toEqual(orderIds.map((_, i) => i));
			expect(peer.maxInFlight).toBeLessThanOrEqual(ceiling);
			if (ceiling === 1) expect(peer.maxInFlight).toBe(1);
		} finally {
			await peer.close();
		}
	});

	test('a 429 pauses every item of the node, not just the one that got it', async () => {
		const peer = await countingServer(5);
		peer.rateLimitOnce = true;
		try {
			const run = await runOrders(peer, { concurrency: 4 });
			expect(run.error()).toBeUndefined();
			expect(run.output()).toHaveLength(orderIds.length);
			const limitedAt = peer.arrivals[0].at;
			// The other three first-wave requests were already in flight; every request that
			// started after them waited for the shared Retry-After (1 s).
			expect(peer.arrivals).toHaveLength(orderIds.length + 1);
			const later = peer.arrivals.slice(4);
			expect(later.every((a) => a.at - limitedAt >= 950)).toBe(true);
		} finally {
			await peer.close();
		}
	});
});
