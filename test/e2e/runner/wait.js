// @ts-check
'use strict';

/** @param {number} ms */
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Polls `fn` until it returns something truthy or the time is up; returns its last value.
 * @template T
 * @param {() => T | Promise<T>} fn
 */
async function waitUntil(fn, timeoutMs = 20_000, intervalMs = 250) {
	const end = Date.now() + timeoutMs;
	let last;
	while (Date.now() < end) {
		last = await fn();
		if (last) return last;
		await sleep(intervalMs);
	}
	return last;
}

module.exports = { sleep, waitUntil };
