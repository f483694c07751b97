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

import { DEFAULT_MAX_CONCURRENCY, INITIAL_CONCURRENCY } from '../nodes/shared/transport/concurrency';
import { runNode, runNodes } from './support/harness';
import { items } from './support/fixtures';

interface Peer {
	url: string;
	maxInFlight: number;
	/** Each request as it arrives, with the requests in flight then (itself included). */
	arrivals: { id: string; at: number; inFlight: number }[];
	rateLimitOnce?: boolean;
	/** Answers one 429 (Retry-After 1 s) to the first request that arrives with this many in flight. */
	rateLimitAtInFlight?: number;
	close(): Promise<void>;
}

async function countingServer(delayMs: number): Promise<Peer> {
	let inFlight = 0;
	const peer: Peer = { url: '', maxInFlight: 0, arrivals: [], close: async () => {} };
	const server = http.createServer((req, res) => {
		const id = decodeURIComponent(String(req.url).split('/').pop() ?? '');
		peer.arrivals.push({ id, at: Date.now(), inFlight: inFlight + 1 });
		const overloaded = peer.rateLimitAtInFlight !== undefined && inFlight + 1 >= peer.rateLimitAtInFlight;
		if (peer.rateLimitOnce || overloaded) {
			peer.rateLimitOnce = false;
			peer.rateLimitAtInFlight = undefined;
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

async function runOrders(peer: Peer, options: Record<string, unknown>, ids = orderIds) {
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
		items(...ids.map((id) => ({ id }))),
	);
}

describe('concurrency option', () => {
	test.each([
		[`default (ceiling ${DEFAULT_MAX_CONCURRENCY})`, {}, DEFAULT_MAX_CONCURRENCY],
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

	test('a node saved with version 1 (0.1.0) keeps its default of 5 in flight when Concurrency is not set; version 2 goes past it', async () => {
		const peer = await countingServer(25);
		const credentials = { vaultStoreStoreApi: { baseUrl: peer.url, storeId: 'shp_concurrency1', secretKey: 'sk_concurrency_test', signingSecret: '' } };
		const parameters = { resource: 'order', operation: 'get', orderId: { __rl: true, mode: 'id', value: '={{ $json.id }}' } };
		try {
			const v1 = await runNodes([{ parameters, typeVersion: 1 }], credentials, items(...orderIds.map((id) => ({ id }))));
			expect(v1.error()).toBeUndefined();
			expect(v1.output()).toHaveLength(orderIds.length);
			expect(peer.maxInFlight).toBe(5);
			peer.maxInFlight = 0;
			const latest = await runNodes([{ parameters, typeVersion: 2 }], credentials, items(...orderIds.map((id) => ({ id }))));
			expect(latest.error()).toBeUndefined();
			expect(peer.maxInFlight).toBeGreaterThan(5);
		} finally {
			await peer.close();
		}
	});

	test('default settings: on a healthy service the window grows past its start (and past the old fixed ceiling of 64); a 429 shrinks it', async () => {
		// 300 items at 600 ms: no timing is asserted, only how many requests the node had in flight
		// (the long latency leaves the node several milliseconds per item even on a busy machine).
		const many = Array.from({ length: 300 }, (_, i) => `ord_${String(i).padStart(10, '0')}`);
		const peer = await countingServer(600);
		peer.rateLimitAtInFlight = 80;
		try {
			const run = await runOrders(peer, {}, many);
			expect(run.error()).toBeUndefined();
			expect(run.output().map((i) => i.json.id)).toEqual(many);
			// It started at INITIAL_CONCURRENCY and grew to 80 in flight (the service then answered one 429)...
			expect(Math.max(...peer.arrivals.slice(0, INITIAL_CONCURRENCY).map((a) => a.inFlight))).toBeLessThanOrEqual(INITIAL_CONCURRENCY);
			const limited = peer.arrivals.findIndex((a) => a.inFlight >= 80);
			expect(limited).toBeGreaterThan(0);
			// ...then, after the Retry-After, it sent with fewer in flight than before the 429.
			const after = peer.arrivals.filter((a) => a.at - peer.arrivals[limited].at >= 950);
			expect(after.length).toBeGreaterThan(0);
			expect(Math.max(...after.map((a) => a.inFlight))).toBeLessThan(80);
			expect(peer.arrivals).toHaveLength(many.length + 1);
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
