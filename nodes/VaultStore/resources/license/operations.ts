import type { Operation } from '../../operation';
import { ID } from '../../../shared/ids';
import { opt } from '../../../shared/readers';
import { licenseGetAll } from './getAll';

export const licenseOperations: Operation[] = [
	{
		value: 'verify',
		name: 'Verify',
		action: 'Verify a license key',
		description:
			'Check a license key: returns valid (true or false), status, productId, customerId and expiresAt. Give a Product ID to also check the key belongs to that product.',
		method: 'POST',
		family: 'core',
		path: '/licenses/verify',
		body: (p) => {
			const f = p.fields('additionalFields');
			return {
				key: p.v.string('License Key', p.get('key', ''), { min: 1, max: 512, secret: true }),
				productId: opt(f, 'productId', (v) => p.v.id(ID.productId, v)),
			};
		},
	},
	{
		value: 'get',
		name: 'Get',
		action: 'Get a license',
		description:
			'Get one license by its ID: key, status (e.g. AVAILABLE, CLAIMED), product, variant, order, customer and when it was claimed',
		method: 'GET',
		family: 'core',
		path: '/licenses/{licenseId}',
		ids: { licenseId: ID.licenseId },
	},
	licenseGetAll,
];
