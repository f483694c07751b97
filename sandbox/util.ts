/**
 * Small shared utilities of the sandbox: a seeded random generator, canonical JSON,
 * a clock that tests can advance, and a timer registry that close() can empty.
 */
import { createHash } from 'node:crypto';

/** Deterministic pseudo-random generator (mulberry32). Same seed => same sequence. */
export class Rng {
	private s: number;
	constructor(seed: number) {
		this.s = seed >>> 0 || 0x9e3779b9;
	}
	/** Float in [0, 1). */
	next(): number {
		this.s = (this.s + 0x6d2b79f5) >>> 0;
		let t = this.s;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	}
	/** Integer in [min, max] inclusive. */
	int(min: number, max: number): number {
		return min + Math.floor(this.next() * (max - min + 1));
	}
	chance(p: number): boolean {
		return this.next() < p;
	}
	pick<T>(items: readonly T[]): T {
		return items[Math.floor(this.next() * items.length)];
	}
	chars(n: number, alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789'): string {
		let out = '';
		for (let i = 0; i < n; i++) out += alphabet[Math.floor(this.next() * alphabet.length)];
		return out;
	}
	bytes(n: number): Buffer {
		const b = Buffer.alloc(n);
		for (let i = 0; i < n; i++) b[i] = Math.floor(this.next() * 256);
		return b;
	}
	/** `prefix` + 24 random characters: 28..32 chars for the usual 4..8 char prefixes. */
	id(prefix: string): string {
		return prefix + this.chars(24);
	}
}

/** JSON with object keys sorted at every level: equal values give equal strings. */
export function canonicalJson(value: unknown): string {
	return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
	if (Array.isArray(value)) return value.map(sortKeys);
	if (value && typeof value === 'object') {
		const out: Record<string, unknown> = {};
		for (const k of Object.keys(value).sort()) out[k] = sortKeys((value as Record<string, unknown>)[k]);
		return out;
	}
	return value;
}

export function sha256(text: string): string {
	return createHash('sha256').update(text).digest('hex');
}

export function round2(n: number): number {
	return Math.round(n * 100) / 100;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
	return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Wall clock plus an offset that tests move forward with advance(ms); freeze() stops it at now. */
export class Clock {
	private offset = 0;
	private frozenAt: number | undefined;
	now(): number {
		return (this.frozenAt ?? Date.now()) + this.offset;
	}
	/** Stops the wall-clock part (tests whose outcome must not depend on how fast the machine is). */
	freeze(): void {
		this.frozenAt = Date.now();
	}
	iso(ms = this.now()): string {
		return new Date(ms).toISOString();
	}
	advance(ms: number): void {
		this.offset += ms;
	}
}

/** Every pending timeout of the sandbox, so close() stops them all. */
export class Timers {
	private pending = new Set<NodeJS.Timeout>();
	after(ms: number, fn: () => void): void {
		const t = setTimeout(() => {
			this.pending.delete(t);
			fn();
		}, Math.max(0, ms));
		this.pending.add(t);
	}
	sleep(ms: number): Promise<void> {
		return ms > 0 ? new Promise((resolve) => this.after(ms, resolve)) : Promise.resolve();
	}
	clear(): void {
		for (const t of this.pending) clearTimeout(t);
		this.pending.clear();
	}
}

/**
 * Parses a query string into an object. Repeated keys become arrays; bracket keys nest:
 * `metadata[k]=v` -> {metadata: {k: 'v'}}, `ids[]=a&ids[]=b` -> {ids: ['a', 'b']}.
 */
export function parseQuery(search: string): Record<string, unknown> {
	const out: Record<string, unknown> = {};
	for (const [rawKey, value] of new URLSearchParams(search)) {
		const m = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(rawKey);
		const path = m ? [m[1], ...[...m[2].matchAll(/\[([^[\]]*)\]/g)].map((x) => x[1])] : [rawKey];
		if (path.some((k) => k === '__proto__' || k === 'constructor' || k === 'prototype')) continue;
		let node: Record<string, unknown> = out;
		for (let i = 0; i < path.length; i++) {
			const key = path[i];
			if (i === path.length - 1) {
				const prev = node[key];
				if (prev === undefined) node[key] = value;
				else if (Array.isArray(prev)) prev.push(value);
				else if (typeof prev === 'string') node[key] = [prev, value];
				break;
			}
			if (path[i + 1] === '') {
				// `key[]=v`: append to an array
				if (!Array.isArray(node[key])) node[key] = [];
				(node[key] as unknown[]).push(value);
				break;
			}
			if (!isPlainObject(node[key])) node[key] = {};
			node = node[key] as Record<string, unknown>;
		}
	}
	return out;
}

/** Ascending order of two numbers, or of two strings by code unit (ISO timestamps sort by it), without locale rules. */
export function compare(a: string | number, b: string | number): number {
	return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * `items` in the order of `key` (descending when `descending`), sorted in place. A list already in
 * that order (the seeded orders are kept newest first) is returned as it is after one pass.
 */
export function sortByText<T>(items: T[], key: (item: T) => string, descending: boolean): T[] {
	const sign = descending ? -1 : 1;
	for (let i = 1; i < items.length; i++) {
		if (sign * compare(key(items[i - 1]), key(items[i])) > 0) {
			return items.sort((a, b) => sign * compare(key(a), key(b)));
		}
	}
	return items;
}
