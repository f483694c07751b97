import type { Operation, Resource } from '../../operation';
import { STORE_CREDENTIAL } from '../../../shared/credentials';
import { ID } from '../../../shared/ids';
import { enumOptions } from '../../../shared/labels';
import { opt } from '../../../shared/readers';
import { collectionField, locatorField, returnAllFields } from '../../properties';

/** License statuses the spec shows ("seen"): not the full set, so the filter sends any other value too. */
export const LICENSE_STATUSES = ['AVAILABLE', 'CLAIMED'] as const;

const verify: Operation = {
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
	fields: [
		{
			displayName: 'License Key',
			name: 'key',
			type: 'string',
			typeOptions: { password: true },
			required: true,
			default: '',
			description: 'The license key to verify (1 to 512 characters). It is never repeated in error messages.',
		},
		collectionField('additionalFields', [
			{
				displayName: 'Product ID',
				name: 'productId',
				type: 'string',
				default: '',
				placeholder: 'prd_1a2b3c4d5e6f',
				description: 'Only count the key as valid when it belongs to this product (prd_..., 12 to 48 characters)',
			},
		]),
	],
};

const get: Operation = {
	value: 'get',
	name: 'Get',
	action: 'Get a license',
	description:
		'Get one license by its ID: key, status (e.g. AVAILABLE, CLAIMED), product, variant, order, customer and when it was claimed',
	method: 'GET',
	family: 'core',
	path: '/licenses/{licenseId}',
	ids: { licenseId: ID.licenseId },
	fields: [
		locatorField('licenseId', ID.licenseId, {
			description: 'The license to get (ID starts with lic_, 12 to 48 characters)',
		}),
	],
};

/**
 * GET {store_url}/licenses. Licenses are among the store API resources, but no
 * list route is documented: the path, paging and the filter names status and
 * productId are inferred.
 */
const getAll: Operation = {
	value: 'getAll',
	name: 'Get Many',
	action: 'Get many licenses',
	description: 'List the licenses of the store, optionally only AVAILABLE or CLAIMED ones, or those of one product',
	method: 'GET',
	family: 'core',
	path: '/licenses',
	list: 'paged',
	inferred: true,
	notes: 'inferred filter names status, productId',
	guessedNames: { query: ['status', 'productId'] },
	query: (p) => {
		const f = p.fields('filters');
		return {
			status: opt(f, 'status', (v) => p.v.nonEmpty('Status', v)),
			productId: opt(f, 'productId', (v) => p.v.id(ID.productId, v)),
		};
	},
	fields: [
		...returnAllFields,
		collectionField('filters', [
			{
				displayName: 'Product ID',
				name: 'productId',
				type: 'string',
				default: '',
				placeholder: 'prd_...',
				description: 'Only licenses of this product (starts with prd_)',
			},
			{
				displayName: 'Status',
				name: 'status',
				type: 'options',
				options: enumOptions(LICENSE_STATUSES),
				default: 'AVAILABLE',
				description:
					'Only licenses with this status. The list shows the statuses known so far; another status can be given with an expression.',
			},
		], { description: 'Sent as the query parameters status and productId' }),
	],
};

export const license: Resource = {
	value: 'license',
	name: 'License',
	description: 'License keys sold by the store: verify a key or get a license',
	credential: STORE_CREDENTIAL,
	operations: [verify, get, getAll],
};
