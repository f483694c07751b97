/**
 * A canonical form of the Vault Store node's parameters, per resource and
 * operation: what a saved workflow depends on (names, types, option values,
 * defaults, limits, locator modes, and the extra conditions a field has
 * besides resource/operation), not the wording. Two descriptions with the
 * same canonical form accept exactly the same saved workflows.
 */
import type { INodeProperties, INodePropertyCollection, INodeTypeDescription } from 'n8n-workflow';

export type Canon = Record<string, Record<string, unknown>>;

type Show = Record<string, unknown[] | undefined>;

function conditionsHold(conditions: Show | undefined, values: Record<string, string | number>, negate: boolean): boolean {
	for (const [key, allowed] of Object.entries(conditions ?? {})) {
		if (!(key in values) || !Array.isArray(allowed)) continue;
		const hit = allowed.includes(values[key]);
		if (negate ? hit : !hit) return false;
	}
	return true;
}

/** Conditions on parameters other than resource and operation, kept as data. */
function otherConditions(property: INodeProperties): unknown {
	const strip = (conditions: Show | undefined) => {
		const out: Record<string, unknown> = {};
		for (const [key, allowed] of Object.entries(conditions ?? {})) {
			if (key !== 'resource' && key !== 'operation' && key !== '@version') out[key] = allowed;
		}
		return Object.keys(out).length ? out : undefined;
	};
	const show = strip(property.displayOptions?.show as Show | undefined);
	const hide = strip(property.displayOptions?.hide as Show | undefined);
	return show || hide ? { show, hide } : undefined;
}

function canonProperty(property: INodeProperties | INodePropertyCollection): Record<string, unknown> {
	const p = property as INodeProperties & { values?: INodeProperties[] };
	const out: Record<string, unknown> = { type: p.type };
	if (p.default !== undefined) out.default = p.default;
	if (p.required) out.required = true;
	if (p.noDataExpression) out.noDataExpression = true;
	const limits = p.typeOptions as { minValue?: number; maxValue?: number; multipleValues?: boolean } | undefined;
	if (limits?.minValue !== undefined) out.minValue = limits.minValue;
	if (limits?.maxValue !== undefined) out.maxValue = limits.maxValue;
	if (limits?.multipleValues) out.multipleValues = true;
	const when = otherConditions(p);
	if (when) out.when = when;
	if (p.type === 'options' || p.type === 'multiOptions') {
		// The values, not their order: reordering a dropdown breaks no saved workflow.
		out.options = (p.options ?? []).map((o) => String((o as { value: unknown }).value)).sort();
	}
	if (p.type === 'collection' || p.type === 'fixedCollection') {
		const children: Record<string, unknown> = {};
		for (const child of (p.options ?? []) as (INodeProperties | INodePropertyCollection)[]) {
			const c = child as INodePropertyCollection & INodeProperties;
			children[c.name] = c.values ? { values: Object.fromEntries(c.values.map((v) => [v.name, canonProperty(v)])) } : canonProperty(c);
		}
		out.children = children;
	}
	if (p.type === 'resourceLocator') {
		out.modes = (p.modes ?? []).map((m) => `${m.name}${m.typeOptions?.searchListMethod ? `:${m.typeOptions.searchListMethod}` : ''}`);
	}
	return out;
}

/** For every resource:operation, its visible parameters in canonical form, in a node version (default: the default version). */
export function canonical(description: INodeTypeDescription, version: number = description.defaultVersion ?? 1): Canon {
	const props = description.properties;
	const resource = props.find((p) => p.name === 'resource')!;
	const out: Canon = {};
	for (const r of resource.options as { value: string }[]) {
		const opProp = props.find((p) => p.name === 'operation' && conditionsHold(p.displayOptions?.show as Show, { resource: r.value, '@version': version }, false));
		for (const o of (opProp?.options ?? []) as { value: string }[]) {
			const values = { resource: r.value, operation: o.value, '@version': version };
			const byName = new Map<string, Record<string, unknown>[]>();
			for (const p of props) {
				if (p.name === 'resource' || p.name === 'operation') continue;
				if (!conditionsHold(p.displayOptions?.show as Show, values, false)) continue;
				if (!conditionsHold(p.displayOptions?.hide as Show, values, true)) continue;
				byName.set(p.name, [...(byName.get(p.name) ?? []), canonProperty(p)]);
			}
			// A name shown twice (under different extra conditions) is keyed in a stable order.
			const visible: Record<string, unknown> = {};
			for (const name of [...byName.keys()].sort()) {
				const variants = byName.get(name)!.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
				variants.forEach((v, i) => (visible[i === 0 ? name : `${name}#${i + 1}`] = v));
			}
			out[`${r.value}:${o.value}`] = visible;
		}
	}
	return out;
}

/** The operation each resource opens on, in a node version. */
export function operationDefaults(description: INodeTypeDescription, version: number): Record<string, unknown> {
	const props = description.properties;
	const resource = props.find((p) => p.name === 'resource')!;
	return Object.fromEntries(
		(resource.options as { value: string }[]).map((r) => [
			r.value,
			props.find((p) => p.name === 'operation' && conditionsHold(p.displayOptions?.show as Show, { resource: r.value, '@version': version }, false))?.default,
		]),
	);
}
