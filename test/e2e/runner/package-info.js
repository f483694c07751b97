// @ts-check
/**
 * What the e2e scripts know about this package: its folder, name and version, and the credentials
 * and owner the example workflows and the n8n instance are set up with.
 * Part of the e2e runner's library (lib.js gathers it).
 */
'use strict';

const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..', '..');
const PACKAGE = require(path.join(ROOT, 'package.json'));
const MARKER = '.vault-store-e2e-installed';
const PKG_NAME = PACKAGE.name;

/** Credential ids and names the example workflows reference. */
const CREDENTIALS = {
	store: { id: '1', name: 'Vault Store account', type: 'vaultStoreStoreApi' },
	vault: { id: '2', name: 'Vault Store vault', type: 'vaultStoreVaultApi' },
};

const OWNER = { email: 'owner@vault-store.test', password: 'VaultStore-e2e-1', firstName: 'Vault', lastName: 'Store' };

module.exports = { CREDENTIALS, MARKER, OWNER, PKG_NAME, ROOT, PACKAGE };
