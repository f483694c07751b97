/** Names of the package's credential types, shared by both nodes. */
export const STORE_CREDENTIAL = 'vaultStoreStoreApi';
export const VAULT_CREDENTIAL = 'vaultStoreVaultApi';
export type CredentialName = typeof STORE_CREDENTIAL | typeof VAULT_CREDENTIAL;
