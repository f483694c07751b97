import type { INodeProperties } from 'n8n-workflow';

import { STORE_CREDENTIAL } from '../../../shared/credentials';
import { ID } from '../../../shared/ids';
import { PRODUCT_SECRET_FIELDS } from '../../../shared/redaction/hidden';
import { collectionField, locatorField } from '../../properties';
import { productUpdateBody, updateFieldOptions } from './fields';
import type { Operation, Resource } from '../../operation';

const productId = locatorField('productId', ID.productId);

const updateFields: INodeProperties = collectionField('updateFields', updateFieldOptions);

const get: Operation = {
	value: 'get',
	name: 'Get',
	action: 'Get a product',
	description:
		'Get one product by its ID (prd_...): title, prices, type, fulfillment and license settings, variants, options, categories and the number of available license keys. Its webhook secret is left out of the output.',
	method: 'GET',
	family: 'core',
	path: '/products/{productId}',
	ids: { productId: ID.productId },
	// A product's webhookSecret (declared in shared/redaction/hidden.ts): out of every answer and error, at any depth.
	hides: PRODUCT_SECRET_FIELDS,
	fields: [productId],
};

const update: Operation = {
	value: 'update',
	name: 'Update',
	action: 'Update a product',
	agent: { confirm: 'it can change what customers pay (price, pricing model, variants)' },
	description:
		'Change the fields of a product that are added under Update Fields; other fields keep their values. Returns what the service answers (usually the updated product), without its webhook secret.',
	method: 'PATCH',
	family: 'core',
	path: '/products/{productId}',
	ids: { productId: ID.productId },
	body: productUpdateBody,
	needsBody: { message: 'Add at least one field to "Update Fields" (only the fields you add are changed)' },
	// A product's webhookSecret (declared in shared/redaction/hidden.ts): out of every answer and error, at any depth.
	hides: PRODUCT_SECRET_FIELDS,
	fields: [productId, updateFields],
};

export const product: Resource = {
	value: 'product',
	name: 'Product',
	description: 'Products of the store, with variants, options and license settings',
	credential: STORE_CREDENTIAL,
	operations: [get, update],
};
