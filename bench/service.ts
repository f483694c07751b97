/**
 * The light stand-in service of the item bench (section 3), in a process of its own so that its
 * CPU is not the contenders' and theirs is not its: `GET .../orders/{id}` answers a small order
 * after a fixed latency (a timer, no work per request beyond writing a prepared body). Optionally
 * a token bucket (requests per second, burst) answers 429 with Retry-After, as the sandbox does.
 *
 * Usage (from bench/run.ts): node out/bench/service.js '{"storeId":"shp_…","secretKey":"sk_…"}'
 * prints one JSON line {"port": n}. Control routes, for the bench only:
 *   POST /__reset?latencyMs=20&rate=0&burst=0   new settings, counters and bucket cleared
 *   GET  /__stats                                {"requests": n, "r429": n, "peakInFlight": n, "connections": n}
 */
import http from 'node:http';

interface Settings {
	storeId: string;
	secretKey: string;
}

const settings = JSON.parse(process.argv[2] ?? '{}') as Settings;
const prefix = `/v2/core/stores/${settings.storeId}/orders/`;
const authorization = `Bearer ${settings.secretKey}`;

let latencyMs = 20;
let rate = 0;
let burst = 0;
let tokens = 0;
let tokensAt = 0;
let requests = 0;
let r429 = 0;
let inFlight = 0;
let peakInFlight = 0;
/** TCP connections accepted since the last reset (a client that reuses its sockets opens few). */
let connections = 0;

function send(res: http.ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
	res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), ...headers });
	res.end(body);
}

/** A token of the bucket, or the whole seconds until the next one (at least 1). */
function takeToken(): number {
	if (rate <= 0) return 0;
	const now = performance.now();
	tokens = Math.min(burst, tokens + ((now - tokensAt) * rate) / 1000);
	tokensAt = now;
	if (tokens >= 1) {
		tokens -= 1;
		return 0;
	}
	return Math.max(1, Math.ceil((1 - tokens) / rate));
}

const server = http.createServer({ keepAliveTimeout: 30_000 }, (req, res) => {
	const url = req.url ?? '/';
	if (url.startsWith('/__')) {
		if (url.startsWith('/__reset')) {
			const q = new URL(url, 'http://x').searchParams;
			latencyMs = Number(q.get('latencyMs') ?? 20);
			rate = Number(q.get('rate') ?? 0);
			burst = Number(q.get('burst') ?? 0);
			tokens = burst;
			tokensAt = performance.now();
			requests = 0;
			r429 = 0;
			peakInFlight = 0;
			connections = 0;
			send(res, 200, '{}');
		} else {
			send(res, 200, JSON.stringify({ requests, r429, peakInFlight, connections }));
		}
		req.resume();
		return;
	}
	requests++;
	inFlight++;
	peakInFlight = Math.max(peakInFlight, inFlight);
	req.resume();
	const answer = (status: number, body: string, headers?: Record<string, string>) =>
		setTimeout(() => {
			inFlight--;
			send(res, status, body, headers);
		}, latencyMs);
	if (req.headers.authorization !== authorization) {
		answer(401, '{"ok":false,"error":{"code":"unauthorized","message":"Invalid API key"}}');
		return;
	}
	const wait = takeToken();
	if (wait > 0) {
		r429++;
		answer(429, '{"ok":false,"error":{"code":"rate_limited","message":"Rate limit exceeded"}}', { 'Retry-After': String(wait) });
		return;
	}
	if (req.method !== 'GET' || !url.startsWith(prefix)) {
		answer(404, '{"ok":false,"error":{"code":"not_found","message":"No such route"}}');
		return;
	}
	const id = url.slice(prefix.length);
	answer(
		200,
		`{"ok":true,"data":{"id":"${id}","object":"order","number":"VS-${id.slice(-5)}","status":"paid","currency":"USD","total":4200,"items":1,"customerEmail":"jane@example.com","createdAt":"2026-01-01T00:00:00.000Z"}}`,
	);
});

server.on('connection', () => connections++);

server.listen(0, '127.0.0.1', () => {
	const address = server.address();
	process.stdout.write(`${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 })}\n`);
});
