import type { Resource } from '../../operation';
import { VAULT_CREDENTIAL } from '../../../shared/credentials';
import { tokenFields } from './fields';
import { tokenOperations } from './operations';

export const token: Resource = {
	value: 'token',
	name: 'Token',
	description: 'Vault tokens: store sensitive data, look it up, reveal it (tokens:reveal) and delete it',
	credential: VAULT_CREDENTIAL,
	operations: tokenOperations,
	fields: tokenFields,
	// Password fields (card number, expiry, CVC) are kept out of errors anyway; token data too.
	secretParameters: ['data'],
};
