/**
 * A value read as its leaves: the string and number leaves in order (with where they sit, to
 * replace one), every object key, and a secret or card number cut into several leaves found by
 * reading the leaves joined. The Redactor (secrets.ts) decides what is found; this file walks.
 */

import { MAX_DEPTH, REDACTED } from './cardData';

/** A leaf of a copied value: where it sits, and its text. */
interface Leaf {
	parent: Record<string, unknown> | unknown[];
	key: string | number;
	text: string;
}

/** The string and number leaves of a value, in order, with where they sit (every leaf: no size limit). */
function leavesOf(value: unknown, out: Leaf[] = [], depth = 0, seen = new Set<object>()): Leaf[] {
	if (value === null || typeof value !== 'object' || depth >= MAX_DEPTH || seen.has(value)) return out;
	seen.add(value);
	const entries: Array<[string | number, unknown]> = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
	for (const [key, inner] of entries) {
		if (typeof inner === 'string') out.push({ parent: value as Leaf['parent'], key, text: inner });
		else if (typeof inner === 'number') out.push({ parent: value as Leaf['parent'], key, text: String(inner) });
		else leavesOf(inner, out, depth + 1, seen);
	}
	return out;
}

/** The texts of a value's string and number leaves, in order (as leavesOf, without where they sit: the quick test). */
export function leafTexts(value: unknown): string[] {
	const out: string[] = [];
	eachLeafText(value, (text) => out.push(text));
	return out;
}

/** Every object key of a value (every key: no size limit). */
export function keysOf(value: unknown): string[] {
	const out: string[] = [];
	eachKey(value, (key) => out.push(key));
	return out;
}

/** Calls `visit` with the text of each string and number leaf, in leafTexts' order, making no copy of the value. */
export function eachLeafText(value: unknown, visit: (text: string) => void, depth = 0, seen = new Set<object>()): void {
	if (value === null || typeof value !== 'object' || depth >= MAX_DEPTH || seen.has(value)) return;
	seen.add(value);
	if (Array.isArray(value)) {
		for (const inner of value) {
			if (typeof inner === 'string') visit(inner);
			else if (typeof inner === 'number') visit(String(inner));
			else if (inner !== null && typeof inner === 'object') eachLeafText(inner, visit, depth + 1, seen);
		}
		return;
	}
	for (const key in value) {
		const inner = (value as Record<string, unknown>)[key];
		if (typeof inner === 'string') visit(inner);
		else if (typeof inner === 'number') visit(String(inner));
		else if (inner !== null && typeof inner === 'object') eachLeafText(inner, visit, depth + 1, seen);
	}
}

/** Calls `visit` with every object key of a value, in keysOf's order. */
export function eachKey(value: unknown, visit: (key: string) => void, depth = 0, seen = new Set<object>()): void {
	if (value === null || typeof value !== 'object' || depth >= MAX_DEPTH || seen.has(value)) return;
	seen.add(value);
	if (Array.isArray(value)) {
		for (const inner of value) if (inner !== null && typeof inner === 'object') eachKey(inner, visit, depth + 1, seen);
		return;
	}
	for (const [key, inner] of Object.entries(value)) {
		visit(key);
		eachKey(inner, visit, depth + 1, seen);
	}
}

/**
 * A secret or card number cut into several leaves (the entries of a list, the values of an
 * object, at any depth) is read joined up, once for the whole value: every leaf that holds a
 * part of one is replaced. `find` marks the positions of the joined text that belong to one.
 * Linear in the value: one join, one scan.
 */
export function blankSpreadLeaves(root: unknown, find: (joined: string) => Uint8Array | undefined): void {
	const leaves = leavesOf(root);
	if (leaves.length < 2) return;
	const joined = leaves.map((leaf) => leaf.text).join('');
	const marked = find(joined);
	if (marked === undefined) return;
	let at = 0;
	for (const leaf of leaves) {
		const end = at + leaf.text.length;
		for (let i = at; i < end; i++) {
			if (marked[i] === 1) {
				(leaf.parent as Record<string | number, unknown>)[leaf.key] = REDACTED;
				break;
			}
		}
		at = end;
	}
}
