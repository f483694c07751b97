/**
 * Secret hygiene across the whole suite. The harness records every output
 * item, error message, error description and log line of every workflow run
 * (one JSON-lines file per jest worker); the global teardown scans them all
 * and fails the run on any secret key, signing secret, test card number
 * (outside a reveal output's data.number) or CVC.
 */
import { appendFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import type { IDataObject } from 'n8n-workflow';

export const SCAN_DIR_ENV = 'VS_SECRET_SCAN_DIR';

/** Card numbers the tests use (the usual brand test numbers). */
export const TEST_CARD_NUMBERS = [
	'4242424242424242',
	'4111111111111111',
	'4000056655665556',
	'5555555555554444',
	'5105105105105100',
	'378282246310005',
	'371449635398431',
	'6011111111111117',
];

/**
 * The sandbox's seeded product webhookSecrets all hold this (sandbox/resources/products.ts
 * SEEDED_WEBHOOK_SECRET): a declared secret field the node never outputs, on any path.
 */
export const SEEDED_PRODUCT_SECRET_TAG = '5d1f8a3c9e2b4760';

export interface ScanEntry {
	source: string;
	text: string;
	/** Secrets of the credentials used in that run. */
	secrets: string[];
}

export function record(entries: ScanEntry[]): void {
	const dir = process.env[SCAN_DIR_ENV];
	if (!dir || entries.length === 0) return;
	mkdirSync(dir, { recursive: true });
	appendFileSync(path.join(dir, `${process.pid}.jsonl`), entries.map((e) => JSON.stringify(e)).join('\n') + '\n');
}

function digitsPattern(number: string): RegExp {
	return new RegExp(number.split('').join('[ -]?'));
}

const CARD_PATTERNS = TEST_CARD_NUMBERS.map((n) => ({ n, re: digitsPattern(n) }));

/** What a text leaks, if anything: names of the findings, never the secrets themselves. */
export function findLeaks(entry: ScanEntry): string[] {
	const found: string[] = [];
	for (const secret of entry.secrets) {
		if (secret.length >= 6 && entry.text.includes(secret)) found.push(`secret ${secret.slice(0, 3)}…`);
	}
	for (const { n, re } of CARD_PATTERNS) if (re.test(entry.text)) found.push(`card number …${n.slice(-4)}`);
	if (entry.text.includes(SEEDED_PRODUCT_SECRET_TAG)) found.push("a product's webhookSecret");
	if (/"cvc"\s*:/i.test(entry.text) || /\bcvc\b[^a-z]{0,4}\d{3,4}\b/i.test(entry.text)) found.push('CVC');
	return found;
}

/** Output JSON as recorded: a reveal's data.number is the one place a card number may be. */
export function outputText(json: IDataObject, allowRevealedNumber: boolean): string {
	if (allowRevealedNumber && json.data && typeof json.data === 'object') {
		const data = { ...(json.data as IDataObject) };
		delete data.number;
		return JSON.stringify({ ...json, data });
	}
	return JSON.stringify(json);
}

export function scanDirectory(dir: string): { scanned: number; leaks: string[] } {
	let scanned = 0;
	const leaks: string[] = [];
	let files: string[] = [];
	try {
		files = readdirSync(dir).filter((f) => f.endsWith('.jsonl'));
	} catch {
		return { scanned, leaks };
	}
	for (const file of files) {
		for (const line of readFileSync(path.join(dir, file), 'utf8').split('\n')) {
			if (!line) continue;
			const entry = JSON.parse(line) as ScanEntry;
			scanned++;
			for (const leak of findLeaks(entry)) leaks.push(`${entry.source}: ${leak}`);
		}
	}
	return { scanned, leaks };
}

/** Everything of a value n8n could store or show, non-enumerable properties (message, stack) included. */
export function serialiseAll(value: unknown): string {
	const seen = new Set<unknown>();
	const walk = (v: unknown, depth: number): unknown => {
		if (v === null || typeof v !== 'object') return v;
		if (seen.has(v) || depth > 30) return '[seen]';
		seen.add(v);
		if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1));
		const out: Record<string, unknown> = {};
		for (const name of Object.getOwnPropertyNames(v)) out[name] = walk((v as Record<string, unknown>)[name], depth + 1);
		return out;
	};
	return JSON.stringify(walk(value, 0));
}

/**
 * Stricter than findLeaks, for tests where the service echoes requests back:
 * any 8-character piece of a secret counts, as do the given card numbers and
 * security codes. Returns names of findings, never the secrets.
 */
export function pieceLeaks(text: string, secrets: string[], cards: string[], codes: string[]): string[] {
	const found: string[] = [];
	for (const secret of secrets) {
		for (let i = 0; i + 8 <= secret.length; i++) {
			if (text.includes(secret.slice(i, i + 8))) {
				found.push(`piece of ${secret.slice(0, 3)}… at ${i}`);
				break;
			}
		}
	}
	for (const card of cards) if (digitsPattern(card).test(text)) found.push(`card number …${card.slice(-4)}`);
	for (const code of codes) if (new RegExp(`(cvc|cvv)\\W{0,8}${code}\\b`, 'i').test(text)) found.push('CVC');
	return found;
}
