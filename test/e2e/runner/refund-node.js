// @ts-check
/**
 * The Vault Store node the end-to-end workflows refund with (test/e2e/money.js, test/e2e/trigger.js,
 * test/e2e/queue/run.js): order refund of 1.00 (or `amount`), named "Refund 1.00" ("Refund <amount>";
 * the executions are read by that name), with the store credentials the examples use.
 */
'use strict';

const crypto = require('node:crypto');

const { PKG_NAME, CREDENTIALS } = require('./lib');

/**
 * @param {{orderExpr: string, reason: string, keyExpr?: string, timeoutMs?: number, amount?: number, options?: object, position?: [number, number], credentials?: object}} o
 *   orderExpr: the order id (an expression); keyExpr: the Idempotency Key option (left unset otherwise,
 *   so the node derives its key); timeoutMs: the Timeout option (default the node's); amount: the
 *   refund's amount (default 1); options: more of the node's Options (e.g. { maxTotalPerDay: 10 });
 *   credentials: default the store credentials of the examples.
 */
function refundNode({ orderExpr, reason, keyExpr, timeoutMs, amount = 1, options: more = {}, position = [240, 0], credentials }) {
	const options = { ...(keyExpr ? { idempotencyKey: keyExpr } : {}), ...(timeoutMs ? { timeout: timeoutMs } : {}), ...more };
	return {
		id: crypto.randomUUID(),
		name: `Refund ${amount.toFixed(2)}`,
		type: `${PKG_NAME}.vaultStore`,
		typeVersion: 2,
		position,
		parameters: {
			resource: 'order',
			operation: 'refund',
			orderId: { __rl: true, mode: 'id', value: orderExpr },
			additionalFields: { amount, reason },
			...(Object.keys(options).length ? { options } : {}),
		},
		credentials: credentials ?? { vaultStoreStoreApi: { id: CREDENTIALS.store.id, name: CREDENTIALS.store.name } },
	};
}

module.exports = { refundNode };
