import type { INode, INodeProperties, NodeParameterValueType } from 'n8n-workflow';

import type { Resource } from '../../VaultStore/operation';
import { CUT_TOO_DEEP, MAX_DEPTH } from './cardData';

/**
 * n8n errors carry the node they were thrown for, parameters included, and
 * n8n keeps that copy in the execution data. Before an error leaves the node,
 * secret parameters (password fields, and the ones a resource names in
 * `secretParameters`, e.g. token data) are left out of that copy.
 */

function visit(props: readonly unknown[] | undefined, names: Set<string>): void {
	for (const entry of props ?? []) {
		if (entry === null || typeof entry !== 'object') continue;
		const prop = entry as Partial<INodeProperties> & { values?: unknown[] };
		if (typeof prop.name === 'string' && prop.typeOptions?.password === true) names.add(prop.name);
		if (Array.isArray(prop.options)) visit(prop.options, names);
		if (Array.isArray(prop.values)) visit(prop.values, names);
	}
}

/** Names of the parameters whose values never go into an error. */
export function secretParameterNames(resources: readonly Resource[]): Set<string> {
	const names = new Set<string>();
	for (const resource of resources) {
		for (const op of resource.operations) visit(op.fields, names);
		for (const name of resource.secretParameters ?? []) names.add(name);
	}
	return names;
}

function redactValue(value: unknown, names: Set<string>, depth = 0): unknown {
	if (value === null || typeof value !== 'object') return value;
	// Deeper than the gates read: cut, saying so, never passed on unread.
	if (depth >= MAX_DEPTH) return CUT_TOO_DEEP;
	if (Array.isArray(value)) return value.map((v) => redactValue(v, names, depth + 1));
	const out: Record<string, unknown> = {};
	for (const [key, inner] of Object.entries(value)) {
		if (!names.has(key)) out[key] = redactValue(inner, names, depth + 1);
	}
	return out;
}

export function redactedNode(node: INode, names: Set<string>): INode {
	return { ...node, parameters: redactValue(node.parameters, names) as Record<string, NodeParameterValueType> };
}

/** Replaces the node copy of an error (and of its causes) by one without secret parameter values. */
export function withRedactedNode<E>(error: E, node: INode, names: Set<string>): E {
	if (names.size === 0) return error;
	const seen = new Set<unknown>();
	let current: unknown = error;
	while (current !== null && typeof current === 'object' && !seen.has(current) && seen.size < 10) {
		seen.add(current);
		const record = current as { node?: unknown; cause?: unknown };
		if (record.node !== null && typeof record.node === 'object') {
			// The error's own copy (already free of secret values) if it has parameters, else the node.
			const copy = (record.node as Partial<INode>).parameters ? (record.node as INode) : node;
			try {
				Object.defineProperty(record, 'node', {
					value: redactedNode(copy, names),
					writable: true,
					enumerable: true,
					configurable: true,
				});
			} catch {
				// a frozen error keeps its node; nothing else to do
			}
		}
		current = record.cause;
	}
	return error;
}
