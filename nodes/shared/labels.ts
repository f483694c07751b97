import type { INodePropertyOptions } from 'n8n-workflow';

/** `PAST_DUE` → `Past Due`: the one way an enum value becomes a label. */
export function titleCase(value: string): string {
	return value
		.toLowerCase()
		.split(/[_\s]+/)
		.filter(Boolean)
		.map((word) => word.charAt(0).toUpperCase() + word.slice(1))
		.join(' ');
}

/**
 * Dropdown options from the one constant that lists the values, labelled by
 * titleCase unless named, sorted by label as n8n's editor guidelines ask.
 */
export function enumOptions(values: readonly string[], names: Partial<Record<string, string>> = {}): INodePropertyOptions[] {
	return values.map((value) => ({ name: names[value] ?? titleCase(value), value })).sort((a, b) => a.name.localeCompare(b.name));
}
