// @ts-check
/**
 * registry.npmjs.org served from the local registry, for n8n processes left on their default
 * registry setting.
 *
 * Every npm command n8n's community-packages service runs carries `--registry=<its setting>`
 * (default https://registry.npmjs.org), which beats npm's own settings (`npm_config_registry`, an
 * `.npmrc`); a registry setting other than the default needs a licensed n8n feature on every
 * process. What n8n and npm do honour is the standard proxy setting: `HTTPS_PROXY` (npm, and axios
 * in n8n) with the proxy's certificate authority trusted through `NODE_EXTRA_CA_CERTS`. This proxy
 * answers a CONNECT to registry.npmjs.org:443 with TLS under a certificate from a throw-away CA
 * (made with openssl for the run, in its folder) and hands each request to the local registry;
 * plain proxy requests for https://registry.npmjs.org/... (axios sends those) go the same way.
 * Every other host is refused (403), so nothing leaves the machine.
 */
'use strict';

const fs = require('node:fs');
const http = require('node:http');
const https = require('node:https');
const path = require('node:path');

const lib = require('./lib');
const { log, run } = lib;

const REGISTRY_HOST = 'registry.npmjs.org';

/** A CA and a certificate for registry.npmjs.org signed by it (P-256 keys, valid 2 days), in dir. */
async function makeCertificates(/** @type {string} */ dir) {
	fs.mkdirSync(dir, { recursive: true });
	const f = (/** @type {string} */ name) => path.join(dir, name);
	const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
	await run('openssl', ['req', '-x509', ...ec, '-keyout', f('ca.key'), '-out', f('ca.crt'), '-days', '2', '-subj', '/CN=vault-store e2e throw-away CA', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
	await run('openssl', ['req', ...ec, '-keyout', f('server.key'), '-out', f('server.csr'), '-subj', `/CN=${REGISTRY_HOST}`]);
	fs.writeFileSync(f('server.ext'), `subjectAltName=DNS:${REGISTRY_HOST}\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n`);
	await run('openssl', ['x509', '-req', '-in', f('server.csr'), '-CA', f('ca.crt'), '-CAkey', f('ca.key'), '-CAcreateserial', '-out', f('server.crt'), '-days', '2', '-extfile', f('server.ext')]);
	// Node reads one NODE_EXTRA_CA_CERTS file: the CAs the machine already adds there, then this one.
	const machine = process.env.NODE_EXTRA_CA_CERTS && fs.existsSync(process.env.NODE_EXTRA_CA_CERTS) ? fs.readFileSync(process.env.NODE_EXTRA_CA_CERTS, 'utf8') : '';
	fs.writeFileSync(f('ca-bundle.pem'), `${machine.trimEnd()}\n${fs.readFileSync(f('ca.crt'), 'utf8')}`);
	fs.rmSync(f('ca.key'));
	return { key: fs.readFileSync(f('server.key')), cert: fs.readFileSync(f('server.crt')), caFile: f('ca.crt'), bundle: f('ca-bundle.pem') };
}

/**
 * Starts the proxy in this process on a free loopback port, in front of registry (a running
 * test/e2e/runner/registry.js registry). `env` is what an n8n process needs to reach it.
 * @param {{registry: {url: string}, dir: string}} o
 */
async function startRegistryProxy({ registry, dir }) {
	const certs = await makeCertificates(dir);
	const upstream = new URL(registry.url);
	/** Every request handed to the registry, and every CONNECT or request refused. */
	const requests = /** @type {{method: string, path: string, status: number, via: 'tls' | 'plain'}[]} */ ([]);
	const refused = /** @type {string[]} */ ([]);

	/** Forwards one request for registry.npmjs.org to the local registry. */
	const forward = (/** @type {http.IncomingMessage} */ req, /** @type {http.ServerResponse} */ res, /** @type {string} */ p, /** @type {'tls' | 'plain'} */ via) => {
		const headers = { ...req.headers, host: REGISTRY_HOST, 'x-forwarded-proto': 'https' };
		delete headers['proxy-connection'];
		const up = http.request({ hostname: upstream.hostname, port: upstream.port, method: req.method, path: p, headers }, (r) => {
			requests.push({ method: String(req.method), path: p, status: Number(r.statusCode), via });
			res.writeHead(Number(r.statusCode), r.headers);
			r.pipe(res);
		});
		up.on('error', (err) => {
			requests.push({ method: String(req.method), path: p, status: 502, via });
			if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
			res.end(`registry proxy: ${err.message}`);
		});
		req.pipe(up);
	};

	// TLS side: the sockets of accepted CONNECTs, decrypted with the registry.npmjs.org certificate.
	const tlsServer = https.createServer({ key: certs.key, cert: certs.cert }, (req, res) => forward(req, res, String(req.url), 'tls'));
	const proxy = http.createServer((req, res) => {
		// A plain proxy request carries the absolute URL (axios sends https:// URLs this way).
		let target;
		try {
			target = new URL(String(req.url));
		} catch {
			target = undefined;
		}
		if (target?.hostname !== REGISTRY_HOST) {
			refused.push(`${req.method} ${req.url}`);
			res.writeHead(403, { 'content-type': 'text/plain' }).end('registry proxy: only registry.npmjs.org is served here');
			return;
		}
		forward(req, res, target.pathname + target.search, 'plain');
	});
	/** Sockets of accepted CONNECTs (closed on stop). */
	const tunnels = new Set();
	proxy.on('connect', (req, socket, head) => {
		if (req.url !== `${REGISTRY_HOST}:443`) {
			refused.push(`CONNECT ${req.url}`);
			socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
			return;
		}
		tunnels.add(socket);
		socket.on('close', () => tunnels.delete(socket));
		socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
		if (head.length) socket.unshift(head);
		tlsServer.emit('connection', socket);
	});
	const port = await lib.freePort();
	await new Promise((resolve) => proxy.listen(port, '127.0.0.1', () => resolve(undefined)));
	const url = `http://127.0.0.1:${port}`;
	log(`registry proxy on ${url}: https://${REGISTRY_HOST} served from ${registry.url} (throw-away CA ${certs.caFile})`);
	return {
		url,
		caFile: certs.caFile,
		requests,
		refused,
		/**
		 * The settings a self-hoster behind a TLS-inspecting proxy sets, here pointing at this one:
		 * HTTPS_PROXY for n8n and npm, the CA for Node (NODE_EXTRA_CA_CERTS) and for npm (its
		 * `cafile`: a machine-wide npmrc may set one, which replaces Node's list), loopback not proxied.
		 */
		env: { HTTPS_PROXY: url, https_proxy: url, NO_PROXY: '127.0.0.1,localhost', no_proxy: '127.0.0.1,localhost', NODE_EXTRA_CA_CERTS: certs.bundle, npm_config_cafile: certs.bundle },
		/** Requests for the tarball of a package (npm pack / npm install fetching it). */
		tarballs(/** @type {string} */ name) {
			return requests.filter((r) => r.method === 'GET' && r.path.startsWith(`/${name}/-/`));
		},
		async stop() {
			for (const s of tunnels) s.destroy();
			tlsServer.close();
			proxy.closeAllConnections();
			await new Promise((resolve) => proxy.close(() => resolve(undefined)));
		},
	};
}

module.exports = { startRegistryProxy, REGISTRY_HOST };
