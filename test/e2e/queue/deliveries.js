// @ts-check
/**
 * Signed V2 (Standard Webhooks) deliveries built here with node:crypto, the way the service signs
 * them: webhook-signature = `v1,` + base64 HMAC-SHA256 of `<id>.<timestamp>.<raw body>`, key = the
 * base64-decoded signing secret after `whsec_`, timestamp in seconds. Plus a small bounded-
 * concurrency sender.
 */
'use strict';

const crypto = require('node:crypto');

/** `v1,<base64>` for one message. */
function signV2(/** @type {string} */ secret, /** @type {string} */ id, /** @type {string} */ ts, /** @type {string} */ body) {
	const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
	return `v1,${crypto.createHmac('sha256', key).update(`${id}.${ts}.${body}`).digest('base64')}`;
}

const nowSeconds = () => String(Math.floor(Date.now() / 1000));

/**
 * One event as the service would send it.
 * @param {{secret: string, id?: string, event?: string, data?: object, ts?: string}} o
 * @returns {{id: string, body: string, headers: Record<string, string>}}
 */
function signedDelivery({ secret, id = `msg_q${crypto.randomBytes(9).toString('hex')}`, event = 'PAYMENT_COMPLETED', data = {}, ts = nowSeconds() }) {
	const body = JSON.stringify({ id, event, createdAt: new Date().toISOString(), data });
	return { id, body, headers: resign(secret, id, body, ts) };
}

/** Headers for a body signed (again) with a timestamp: what a sender retry looks like. */
function resign(/** @type {string} */ secret, /** @type {string} */ id, /** @type {string} */ body, ts = nowSeconds()) {
	return {
		'content-type': 'application/json',
		'user-agent': 'vault-store-e2e-queue',
		'webhook-id': id,
		'webhook-timestamp': ts,
		'webhook-signature': signV2(secret, id, ts, body),
	};
}

/** POST one delivery; never throws (a network error is status 0). */
async function post(/** @type {string} */ url, /** @type {Record<string, string>} */ headers, /** @type {string} */ body) {
	const t = Date.now();
	try {
		const res = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(30_000) });
		const text = await res.text();
		return { status: res.status, text, ms: Date.now() - t };
	} catch (err) {
		return { status: 0, text: String(err), ms: Date.now() - t };
	}
}

/**
 * Runs fn over items with at most `concurrency` in flight; results in input order.
 * @template T, R
 * @param {T[]} items @param {number} concurrency @param {(item: T, index: number) => Promise<R>} fn
 * @returns {Promise<{results: R[], maxInFlight: number}>}
 */
async function pool(items, concurrency, fn) {
	/** @type {R[]} */
	const results = new Array(items.length);
	let next = 0;
	let inFlight = 0;
	let maxInFlight = 0;
	const lane = async () => {
		while (next < items.length) {
			const i = next++;
			inFlight++;
			maxInFlight = Math.max(maxInFlight, inFlight);
			try {
				results[i] = await fn(items[i], i);
			} finally {
				inFlight--;
			}
		}
	};
	await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, lane));
	return { results, maxInFlight };
}

module.exports = { signV2, signedDelivery, resign, post, pool, nowSeconds };
