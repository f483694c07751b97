import type { Operation, Resource } from '../../operation';
import { STORE_CREDENTIAL } from '../../../shared/credentials';

const get: Operation = {
	value: 'get',
	name: 'Get',
	action: 'Get the store',
	description: 'Get the store of the credential',
	method: 'GET',
	family: 'core',
	path: '',
	fields: [],
};

export const store: Resource = {
	value: 'store',
	name: 'Store',
	description: 'The store the credential belongs to',
	credential: STORE_CREDENTIAL,
	operations: [get],
};
