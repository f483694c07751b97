import type { INodeProperties, INodePropertyModeValidation, INodePropertyOptions } from 'n8n-workflow';

import type { Operation, Resource } from './operation';
import { extrasOf } from './operation';
import { optionsFor } from './options';
import { perVersion, V1_CONCURRENCY, V1_DEFAULT_OPERATION } from './versions';
import type { IdRule } from '../shared/validate';

/**
 * The parameters of a resource, from its operations' own fields: each field
 * gets `resource` and `operation` display options from where it sits, merged
 * with its own conditions. A field that several operations declare alike
 * (e.g. the order ID of Get and Refund) becomes one parameter shown for all of
 * them, at the place of its first use.
 *
 * The escape hatches (Additional Query Parameters / Body Fields) are not among
 * them: resourceExtras gives those, and the node lists them after its Options,
 * so every operation shows its own fields, then its Additional Fields, then
 * Options, then the escape hatches, as n8n's own nodes order them.
 */
export function resourceParameters(resource: Resource): INodeProperties[] {
	return shownWhereDeclared(resource, (op) => op.fields ?? []);
}

/** The Options of a resource's operations, each showing the options that apply to it. */
export function resourceOptions(resource: Resource): INodeProperties[] {
	return shownWhereDeclared(resource, (op) => {
		const options = optionsFor(op, resource);
		// Version 1 offers Concurrency at 0.1.0's default (what it runs with when the option is not set).
		const v1 = (options.options ?? []).map((o) => ('name' in o && o.name === 'concurrency' ? { ...o, default: V1_CONCURRENCY } : o));
		return perVersion(options, { options: v1 as INodeProperties['options'] });
	});
}

/** Additional Query Parameters and Additional Body Fields of a resource, shown for the operations that offer them. */
export function resourceExtras(resource: Resource): INodeProperties[] {
	return shownWhereDeclared(resource, (op) => {
		const { query, body } = extrasOf(op);
		return [...(query ? [extraQueryField] : []), ...(body ? [extraBodyField] : [])];
	});
}

function shownWhereDeclared(resource: Resource, fieldsOf: (op: Operation) => INodeProperties[]): INodeProperties[] {
	const merged: { field: INodeProperties; key: string; operations: string[] }[] = [];
	for (const op of resource.operations) {
		for (const field of fieldsOf(op)) {
			const key = JSON.stringify(field);
			const same = merged.find((m) => m.key === key);
			if (same) same.operations.push(op.value);
			else merged.push({ field, key, operations: [op.value] });
		}
	}
	return merged.map(({ field, operations }) => ({
		...field,
		displayOptions: {
			...field.displayOptions,
			show: { resource: [resource.value], operation: operations, ...field.displayOptions?.show },
		},
	}));
}

/**
 * The regex n8n shows as the ID mode's validation, mirroring the Validator's errors (prefix, 12 to
 * 48 characters): other characters only warn when the node runs, so the pattern allows them.
 */
export function idPattern(rule: IdRule): string {
	if (rule.anyLength) return `^${rule.prefix ?? ''}\\S+$`;
	return rule.prefix ? `^${rule.prefix}\\S{${12 - rule.prefix.length},${48 - rule.prefix.length}}$` : '^\\S{12,48}$';
}

function idValidation(rule: IdRule): INodePropertyModeValidation[] {
	const errorMessage = rule.anyLength
		? rule.prefix
			? `Must start with ${rule.prefix}`
			: 'Must not contain spaces'
		: rule.prefix
			? `Must start with ${rule.prefix} and be 12 to 48 characters`
			: 'Must be 12 to 48 characters';
	return [{ type: 'regex', properties: { regex: idPattern(rule), errorMessage } }];
}

/**
 * A resource locator for an id: an ID mode validated against the spec's
 * prefix and (store path ids) 12 to 48 length, and a searchable list where a
 * list exists.
 */
export function locatorField(
	name: string,
	rule: IdRule,
	options: { searchMethod?: string; required?: boolean; description?: string } = {},
): INodeProperties {
	const base: INodeProperties = {
		displayName: rule.label,
		name,
		type: 'resourceLocator',
		default: { mode: options.searchMethod ? 'list' : 'id', value: '' },
		required: options.required ?? true,
		description:
			options.description ??
			(rule.prefix
				? `The ${rule.label.replace(/ ID$/, '').toLowerCase()} to use (ID starts with ${rule.prefix})`
				: `The ${rule.label.replace(/ ID$/, '').toLowerCase()} to use`),
	};
	const placeholder = rule.prefix ? `${rule.prefix}...` : 'ID';
	if (!options.searchMethod) {
		return {
			...base,
			modes: [{ displayName: 'ID', name: 'id', type: 'string', placeholder, validation: idValidation(rule) }],
		};
	}
	return {
		...base,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				typeOptions: { searchListMethod: options.searchMethod, searchable: true },
			},
			{ displayName: 'ID', name: 'id', type: 'string', placeholder, validation: idValidation(rule) },
		],
	};
}

const COLLECTIONS = {
	filters: { displayName: 'Filters', placeholder: 'Add Filter' },
	additionalFields: { displayName: 'Additional Fields', placeholder: 'Add Field' },
	updateFields: { displayName: 'Update Fields', placeholder: 'Add Field' },
} as const;

/** A collection of optional values (list filters, optional fields, fields to update): only its options differ. */
export function collectionField(
	name: keyof typeof COLLECTIONS,
	options: INodeProperties[],
	extra: Partial<INodeProperties> = {},
): INodeProperties {
	return { ...COLLECTIONS[name], name, type: 'collection', default: {}, options, ...extra };
}

/** Return All and Limit for a list operation. */
export const returnAllFields: INodeProperties[] = [
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
	},
	{
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 50,
		description: 'Max number of results to return',
		displayOptions: { show: { returnAll: [false] } },
	},
];

function pairsField(name: string, displayName: string, description: string, valueHint: string): INodeProperties {
	return {
		displayName,
		name,
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Add Pair',
		default: {},
		description,
		options: [
			{
				displayName: 'Pair',
				name: 'pair',
				values: [
					{ displayName: 'Name', name: 'name', type: 'string', default: '' },
					{ displayName: 'Value', name: 'value', type: 'string', default: '', description: valueHint },
				],
			},
		],
	};
}

/** Every operation: query parameters merged over the node's own. */
export const extraQueryField = pairsField(
	'additionalQueryParameters',
	'Additional Query Parameters',
	"Query parameters added to the request, names and values sent as typed; a name given here replaces the node's own parameter of that name, except page and limit on a list read page by page (the node sets them to read the pages Return All or Limit asks for; use those instead). Use them when your account's API reference names a filter differently, or has one the node has no field for.",
	'Sent as text, as typed',
);

/** Every operation that sends a body: body fields merged over the node's own. */
export const extraBodyField = pairsField(
	'additionalBodyFields',
	'Additional Body Fields',
	"Fields added to the request body, names as typed; a name given here replaces the node's own field of that name, and a body of only these fields is sent as it is. Use them when your account's API reference names a field differently, or has one the node has no field for.",
	'A value that reads as JSON (a number, true, false, null, an object or an array) is sent as that JSON, "quoted text" as the text inside the quotes, anything else as text. A whole number too long to keep every digit (more than 15 digits) is sent as text',
);

/** The resource selector, built from the resource rows. */
export function resourceProperty(resources: readonly Resource[]): INodeProperties {
	const firstResource = resources[0].value;
	return {
		displayName: 'Resource',
		name: 'resource',
		type: 'options',
		noDataExpression: true,
		options: resources.map((r) => ({ name: r.name, value: r.value, description: r.description })),
		default: firstResource,
	};
}

/** One operation selector per resource (two where version 1 opened on another operation). */
export function operationProperties(resource: Resource): INodeProperties[] {
	const property = operationProperty(resource);
	const v1 = V1_DEFAULT_OPERATION[resource.value];
	return v1 !== undefined && v1 !== property.default ? perVersion(property, { default: v1 }) : [property];
}

/** One operation selector per resource, built from its operation rows. */
function operationProperty(resource: Resource): INodeProperties {
	const options: INodePropertyOptions[] = resource.operations.map((op) => ({
		name: op.name,
		value: op.value,
		action: op.action,
		description: op.scope ? `${op.description} (scope ${op.scope})` : op.description,
	}));
	// A resource opens on a read: never on an operation that changes data or moves money.
	const firstOperation =
		resource.defaultOperation ?? (resource.operations.find((op) => op.method === 'GET') ?? resource.operations[0]).value;
	return {
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: [resource.value] } },
		options,
		default: firstOperation,
	};
}
