// @ts-check
/**
 * The Vault Store node the end-to-end workflows refund with (test/e2e/money.js, test/e2e/trigger.js,
 * test/e2e/queue/run.js): order refund of 1.00, named "Refund 1.00" (the executions are read by
 * that name), with the store credentials the examples use.
 */
'use strict';

const crypto = require('node:crypto');

const { PKG_NAME, CREDENTIALS } = require('./lib');

/**
 * @param {{orderExpr: string, reason: string, keyExpr?: string, timeoutMs?: number, position?: [number, number], credentials?: object}} o
 *   orderExpr: the order id (an expression); keyExpr: the Idempotency Key option (left unset otherwise,
 *   so the node derives its key); timeoutMs: the Timeout option (default the node's);
 *   credentials: default the store credentials of the examples.
 */
function refundNode({ orderExpr, reason, keyExpr, timeoutMs, position = [240, 0], credentials }) {
	const options = { ...(keyExpr ? { idempotencyKey: keyExpr } : {}), ...(timeoutMs ? { timeout: timeoutMs } : {}) };
	return {
		id: crypto.randomUUID(),
		name: 'Refund 1.00',
		type: `${PKG_NAME}.vaultStore`,
		typeVersion: 1.1,
		position,
		parameters: {
			resource: 'order',
			operation: 'refund',
			orderId: { __rl: true, mode: 'id', value: orderExpr },
			additionalFields: { amount: 1, reason },
			...(Object.keys(options).length ? { options } : {}),
		},
		credentials: credentials ?? { vaultStoreStoreApi: { id: CREDENTIALS.store.id, name: CREDENTIALS.store.name } },
	};
}

module.exports = { refundNode };
