import type { IDataObject } from 'n8n-workflow';

import type { Params } from '../../operation';
import type { IdRule } from '../../validate';

/**
 * Small readers shared by the catalog and support resources: lists typed as
 * text (comma or line separated, or a JSON array), booleans, enum labels.
 */

/** `DIGITAL_DOWNLOAD` -> `Digital Download`. */
export function enumLabel(value: string): string {
	return value
		.toLowerCase()
		.split('_')
		.map((w) => w.charAt(0).toUpperCase() + w.slice(1))
		.join(' ');
}

/** Options for an enum, sorted by name as the editor lint asks. */
export function enumOptions(values: readonly string[]): Array<{ name: string; value: string }> {
	return values
		.map((value) => ({ name: enumLabel(value), value }))
		.sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * A list of strings typed as a JSON array (`["a","b"]`, `[]` to clear) or as
 * text separated by commas or new lines; an array from an expression is taken
 * as it is. Every entry is checked for type and length.
 */
export function stringList(
	p: Params,
	label: string,
	value: unknown,
	rule: { max?: number; itemMin?: number; itemMax?: number; separators?: RegExp; secret?: boolean } = {},
): string[] {
	let list: unknown = value;
	if (typeof value === 'string') {
		const text = value.trim();
		if (text.startsWith('[')) {
			list = p.v.json(label, text);
		} else {
			list = text
				.split(rule.separators ?? /[\n,]/)
				.map((s) => s.trim())
				.filter((s) => s !== '');
		}
	}
	const items = p.v.array<unknown>(label, list, { max: rule.max });
	items.forEach((item, index) => {
		if (typeof item !== 'string') p.v.fail(`"${label}" entry ${index + 1} must be text`);
		const length = [...item].length;
		const min = rule.itemMin ?? 1;
		const max = rule.itemMax ?? Infinity;
		if (length < min || length > max) {
			const range = max === Infinity ? `at least ${min}` : `${min} to ${max}`;
			p.v.fail(
				`"${label}" entry ${index + 1} must be ${range} characters long (got ${length})`,
				rule.secret ? undefined : `Value: ${item.length > 60 ? `${item.slice(0, 57)}...` : item}`,
			);
		}
	});
	return items as string[];
}

/** A list of path-style ids (prefix, 12 to 48 characters), at most `max`. */
export function idList(p: Params, label: string, value: unknown, rule: IdRule, max: number): string[] {
	const items = stringList(p, label, value, { max });
	return items.map((item, index) => p.v.id({ ...rule, label: `${label} entry ${index + 1}` }, item));
}

export function bool(p: Params, label: string, value: unknown): boolean | undefined {
	if (value === undefined || value === null || value === '') return undefined;
	if (typeof value === 'boolean') return value;
	if (value === 'true') return true;
	if (value === 'false') return false;
	p.v.fail(`"${label}" must be true or false`);
}

/** Reads an optional field of a collection with `read` only when it is set. */
export function opt<T>(f: IDataObject, key: string, read: (value: unknown) => T): T | undefined {
	const value = f[key];
	if (value === undefined || value === null || value === '') return undefined;
	return read(value);
}

/** Removes fields that hold secrets from records before they become items. */
export function withoutSecrets(fields: string[]) {
	return (records: IDataObject[]): IDataObject[] =>
		records.map((record) => {
			const out: IDataObject = { ...record };
			for (const field of fields) delete out[field];
			return out;
		});
}
