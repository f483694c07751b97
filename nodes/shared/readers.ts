import type { IDataObject } from 'n8n-workflow';

import type { IdRule, Validator } from './validate';

/**
 * Readers of typed-in values, shared by every resource: lists typed as text
 * (comma or line separated, or a JSON array), booleans, optional fields.
 * They take the item's Validator, so every failure names the field.
 */

/**
 * A list of strings typed as a JSON array (`["a","b"]`, `[]` to clear) or as
 * text separated by commas or new lines; an array from an expression is taken
 * as it is. Every entry is checked for type and length.
 */
export function stringList(
	v: Validator,
	label: string,
	value: unknown,
	rule: { max?: number; itemMin?: number; itemMax?: number; separators?: RegExp; secret?: boolean } = {},
): string[] {
	let list: unknown = value;
	if (typeof value === 'string') {
		const text = value.trim();
		list = text.startsWith('[')
			? v.json(label, text)
			: text
					.split(rule.separators ?? /[\n,]/)
					.map((s) => s.trim())
					.filter((s) => s !== '');
	}
	const items = v.array<unknown>(label, list, { max: rule.max });
	items.forEach((item, index) => {
		if (typeof item !== 'string') v.fail(`"${label}" entry ${index + 1} must be text`);
		const length = [...item].length;
		const min = rule.itemMin ?? 1;
		const max = rule.itemMax ?? Infinity;
		if (length < min || length > max) {
			const range = max === Infinity ? `at least ${min}` : `${min} to ${max}`;
			v.fail(
				`"${label}" entry ${index + 1} must be ${range} characters long (got ${length})`,
				rule.secret ? undefined : `Value: ${item.length > 60 ? `${item.slice(0, 57)}...` : item}`,
			);
		}
	});
	return items as string[];
}

/** A list of path-style ids (prefix, 12 to 48 characters), at most `max`. */
export function idList(v: Validator, label: string, value: unknown, rule: IdRule, max: number): string[] {
	return stringList(v, label, value, { max }).map((item, index) =>
		v.id({ ...rule, label: `${label} entry ${index + 1}` }, item),
	);
}

export function bool(v: Validator, label: string, value: unknown): boolean | undefined {
	if (value === undefined || value === null || value === '') return undefined;
	if (typeof value === 'boolean') return value;
	if (value === 'true') return true;
	if (value === 'false') return false;
	v.fail(`"${label}" must be true or false`);
}

/** Reads an optional field of a collection with `read` only when it is set. */
export function opt<T>(f: IDataObject, key: string, read: (value: unknown) => T): T | undefined {
	const value = f[key];
	if (value === undefined || value === null || value === '') return undefined;
	return read(value);
}

