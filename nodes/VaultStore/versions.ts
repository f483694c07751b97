import type { INodeProperties } from 'n8n-workflow';

/**
 * The node's versions. A saved workflow keeps the version it was made with, and n8n does not
 * store a parameter left at its default: so a default that changes behaviour changes only in a
 * new version, and version 1 (0.1.0's) keeps its own.
 *
 * | Default | Version 1 (0.1.0) | Version 2 |
 * |---|---|---|
 * | the operation a resource opens on | the first of the resource (often a write) | a read |
 * | Payout → Create, Amount | 0 | 0.01 |
 * | Options → Concurrency, when not set | 5 | 1000 (the ceiling of an adaptive pool) |
 */
// Whole numbers: n8n keeps a community package's node version in an integer column (PostgreSQL
// refuses 1.1 when the package is installed).
export const NODE_VERSIONS = [1, 2];
export const LATEST_VERSION = 2;

/** The operation each resource opened on in version 1, where it differs from today's. */
export const V1_DEFAULT_OPERATION: Readonly<Record<string, string>> = {
	analytics: 'getMrr',
	case: 'addMessage',
	category: 'create',
	license: 'verify',
	meter: 'create',
	payout: 'create',
	report: 'create',
	subscription: 'cancel',
	token: 'create',
	webhook: 'create',
};

/** Options → Concurrency when it is not set, in version 1. */
export const V1_CONCURRENCY = 5;

/**
 * A property whose default differs in version 1: two copies, one shown for version 1 with the
 * old values, one for the later versions.
 */
export function perVersion(property: INodeProperties, v1: Partial<INodeProperties>): INodeProperties[] {
	const show = property.displayOptions?.show ?? {};
	return [
		{ ...property, ...v1, displayOptions: { ...property.displayOptions, show: { ...show, '@version': [1] } } },
		{ ...property, displayOptions: { ...property.displayOptions, show: { ...show, '@version': NODE_VERSIONS.filter((v) => v !== 1) } } },
	];
}
