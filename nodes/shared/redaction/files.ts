/**
 * The output gate for downloaded files (report files): a file that holds a known secret, a full
 * card number or a card security code never reaches binary data as it is. The service's reports
 * carry no such data (the Payment Activity export has card_brand and card_last_four only), so such
 * a file comes from a service that misbehaves: the item fails, naming what was found (never the
 * value), and nothing is stored. With "Mask Them" (the operation's Card Numbers in Files), card
 * numbers are masked instead (`•••• 4242`) and the file is delivered; anything else still refuses it.
 *
 * The file is read as text in its encoding: UTF-8 (a byte-order mark left out), UTF-16 little or
 * big endian by its byte-order mark, or without one when most of its even or odd bytes are zero.
 *
 * Card numbers are decided as in answers: a column or field named as a card number (whole words)
 * holding 12 to 19 digits (Luhn-valid for `number` and `account_number`); a cell that is only a
 * number (no letters) in a column not named as another kind of id or number (order_number,
 * invoice_id, sku, gift_card_number stay), when the card-data detector reads it as a card number
 * (issuer prefix and length, Luhn, grouping: detector.ts); a card number standing alone in a text
 * cell (one holding letters: a note, a metadata column), by the detector too. A security code is
 * 3 or 4 digits in a column or field named as one (cvc, cvv2, security_code, card_cvc). Every scan
 * is linear in the file.
 */

import { isIdentifierName, isSecurityCodeName } from './cardData';
import { cardNumberValue } from './detector';
import { cardNumberName, cardNumberSpans, luhnValid } from './scan';
import type { Redactor } from './secrets';

/** What the operation does with card numbers in a file: refuse the file (the default) or mask them and deliver it. */
export type FileCardNumbers = 'refuse' | 'mask';

/** The gate's answer: the file to store (masked or as it came), or what was found in it. */
export type FileGate = { ok: true; body: Buffer; cardNumbersMasked: number } | { ok: false; findings: string[]; notMasked?: string };

/** What a file holds that must not reach binary data: a list of findings, without values. */
export function fileFindings(body: Buffer, contentType: string | undefined, redactor: Redactor): string[] {
	const scan = scanText(decodeFile(body).text, contentType, redactor);
	return [...scan.found, ...scan.cards];
}

/**
 * The file as it may be stored: as it came when nothing was found; with `mask`, when card numbers
 * are all that was found, the file with each one masked (the rest of it byte for byte), read
 * again to make sure nothing is left; otherwise the findings.
 */
export function gateFile(body: Buffer, contentType: string | undefined, redactor: Redactor, cardNumbers: FileCardNumbers): FileGate {
	const decoded = decodeFile(body);
	const scan = scanText(decoded.text, contentType, redactor);
	if (scan.found.size === 0 && scan.cards.size === 0) return { ok: true, body, cardNumbersMasked: 0 };
	const findings = [...scan.found, ...scan.cards];
	if (cardNumbers !== 'mask' || scan.found.size > 0) return { ok: false, findings };
	if (!encodeFile(decoded.text, decoded.encoding).equals(body)) {
		return { ok: false, findings, notMasked: `the file is not valid ${decoded.encoding.startsWith('utf16') ? 'UTF-16' : 'UTF-8'} text, so it cannot be rewritten with the card numbers masked` };
	}
	const masked = scan.json ? maskJson(decoded.text, scan.values, scan.numbers) : maskSpans(decoded.text, scan.spans);
	const again = scanText(masked.text, contentType, redactor);
	if (again.found.size > 0 || again.cards.size > 0) {
		return { ok: false, findings, notMasked: 'a card number is written in a form that could not be masked where it stands' };
	}
	return { ok: true, body: encodeFile(masked.text, decoded.encoding), cardNumbersMasked: masked.count };
}

// ---------------------------------------------------------------------------------------------
// Encodings.

/** How a file's bytes were read as text, so that a masked file is written back the same way. */
type Encoding = 'utf8' | 'utf8-bom' | 'utf16le' | 'utf16le-bom' | 'utf16be' | 'utf16be-bom';

/** The file's text: by its byte-order mark (UTF-8, UTF-16 LE, UTF-16 BE), by its zero bytes (UTF-16 without one), else UTF-8. */
export function decodeFile(body: Buffer): { text: string; encoding: Encoding } {
	if (body.length >= 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return { text: body.toString('utf8', 3), encoding: 'utf8-bom' };
	if (body.length >= 2 && body[0] === 0xff && body[1] === 0xfe) return { text: body.toString('utf16le', 2), encoding: 'utf16le-bom' };
	if (body.length >= 2 && body[0] === 0xfe && body[1] === 0xff) return { text: utf16be(body.subarray(2)), encoding: 'utf16be-bom' };
	const guess = utf16Guess(body);
	if (guess === 'le') return { text: body.toString('utf16le'), encoding: 'utf16le' };
	if (guess === 'be') return { text: utf16be(body), encoding: 'utf16be' };
	return { text: body.toString('utf8'), encoding: 'utf8' };
}

function utf16be(bytes: Buffer): string {
	const copy = Buffer.from(bytes.subarray(0, bytes.length - (bytes.length % 2)));
	return copy.swap16().toString('utf16le');
}

/** UTF-16 without a byte-order mark: most of the odd bytes (little endian) or even bytes (big endian) of the first KB are zero. */
function utf16Guess(body: Buffer): 'le' | 'be' | undefined {
	const pairs = Math.min(body.length, 1024) >> 1;
	if (pairs === 0) return undefined;
	let even = 0;
	let odd = 0;
	for (let i = 0; i < pairs; i++) {
		if (body[2 * i] === 0) even++;
		if (body[2 * i + 1] === 0) odd++;
	}
	if (odd * 2 > pairs && odd > even) return 'le';
	if (even * 2 > pairs && even > odd) return 'be';
	return undefined;
}

function encodeFile(text: string, encoding: Encoding): Buffer {
	if (encoding === 'utf8') return Buffer.from(text, 'utf8');
	if (encoding === 'utf8-bom') return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, 'utf8')]);
	const le = Buffer.from(text, 'utf16le');
	if (encoding === 'utf16le') return le;
	if (encoding === 'utf16le-bom') return Buffer.concat([Buffer.from([0xff, 0xfe]), le]);
	le.swap16();
	return encoding === 'utf16be' ? le : Buffer.concat([Buffer.from([0xfe, 0xff]), le]);
}

// ---------------------------------------------------------------------------------------------
// Reading the text.

interface Scan {
	/** Findings that refuse the file whatever the option: a known secret, a security code, data too deep to read. */
	found: Set<string>;
	/** Card-number findings (masked with "Mask Them"). */
	cards: Set<string>;
	/** Read as JSON (else as CSV). */
	json: boolean;
	/** CSV: where each card number stands in the text, and its masked form. */
	spans: Span[];
	/** JSON: each string holding a card number (as JSON writes it) and the string masked. */
	values: Map<string, Masked>;
	/** JSON: each number that is a card number (as written) and its masked form (a JSON string). */
	numbers: Map<string, Masked>;
}

interface Span {
	from: number;
	to: number;
	masked: string;
}

interface Masked {
	text: string;
	cards: number;
}

function scanText(text: string, contentType: string | undefined, redactor: Redactor): Scan {
	const scan: Scan = { found: new Set(), cards: new Set(), json: false, spans: [], values: new Map(), numbers: new Map() };
	if (redactor.holdsKnownSecret(text)) scan.found.add('a key or signing secret of the credential');
	if ((contentType ?? '').includes('json') || /^\s*[[{]/.test(text.slice(0, 64))) {
		let parsed: unknown;
		try {
			parsed = JSON.parse(text);
		} catch {
			parsed = undefined;
		}
		if (parsed !== undefined) {
			scan.json = true;
			jsonCards(parsed, columnOf(undefined), scan, 0);
			return scan;
		}
	}
	csvCards(text, scan);
	return scan;
}

/** A field's (or column's) name as read once (a list's entries, a column's cells share the reading). */
interface Column {
	name: string | undefined;
	card: ReturnType<typeof cardNumberName>;
	/** Named as another kind of id or number: a bare number under it is that id. */
	identifier: boolean;
	/** Named as a security code. */
	code: boolean;
}

function columnOf(name: string | undefined): Column {
	if (name === undefined || name === '') return { name, card: undefined, identifier: false, code: false };
	return { name, card: cardNumberName(name), identifier: isIdentifierName(name), code: isSecurityCodeName(name) };
}

const cardLabel = (column: Column, what: string): string =>
	column.name ? `a full card number (${what} "${column.name.slice(0, 64)}")` : 'a full card number';

const codeLabel = (column: Column, what: string): string => `a card security code (${what} "${(column.name ?? '').slice(0, 64)}")`;

/** 3 or 4 digits (spaces around them allowed). */
function codeShaped(value: string): boolean {
	const trimmed = value.trim();
	return trimmed.length >= 3 && trimmed.length <= 4 && /^\d+$/.test(trimmed);
}

/** Where a value of this column holds card numbers (offsets in the value), none when it holds none. */
function cellCards(column: Column, value: string): Array<{ from: number; to: number }> {
	if (column.card !== undefined) {
		const from = value.length - value.trimStart().length;
		const to = value.trimEnd().length;
		const digits = value.slice(from, to).replace(/[\s.-]/g, '');
		if (/^\d{12,19}$/.test(digits) && (column.card === 'sure' || luhnValid(digits))) return [{ from, to }];
	}
	if (value.length < 12) return [];
	// A text cell (letters in it): a card number standing alone. A number alone: the detector decides, unless the column names another id.
	if (/[A-Za-z]/.test(value) || !column.identifier) return cardNumberSpans(value, { mode: 'text' });
	return [];
}

/** `•••• 4242`: the last four digits of a card number kept. */
function maskOf(number: string): string {
	let last = '';
	for (let i = number.length - 1; i >= 0 && last.length < 4; i--) {
		const c = number.charCodeAt(i);
		if (c >= 48 && c <= 57) last = number[i] + last;
	}
	return `•••• ${last}`;
}

function maskValue(value: string, spans: ReadonlyArray<{ from: number; to: number }>): string {
	let out = '';
	let copied = 0;
	for (const span of spans) {
		out += value.slice(copied, span.from) + maskOf(value.slice(span.from, span.to));
		copied = span.to;
	}
	return out + value.slice(copied);
}

function jsonCards(value: unknown, column: Column, scan: Scan, depth: number): void {
	if (typeof value === 'string') {
		if (column.code && codeShaped(value)) scan.found.add(codeLabel(column, 'field'));
		const spans = cellCards(column, value);
		if (spans.length > 0) {
			scan.cards.add(cardLabel(column, 'field'));
			scan.values.set(JSON.stringify(value), { text: JSON.stringify(maskValue(value, spans)), cards: spans.length });
		}
		return;
	}
	if (typeof value === 'number') {
		if (column.code && Number.isInteger(value) && value >= 0 && value <= 9999) scan.found.add(codeLabel(column, 'field'));
		const digits = Number.isSafeInteger(value) ? String(value) : '';
		const named = column.card !== undefined && digits.length >= 12 && digits.length <= 19 && (column.card === 'sure' || luhnValid(digits));
		if (named || (!column.identifier && cardNumberValue(value))) {
			scan.cards.add(cardLabel(column, 'field'));
			scan.numbers.set(String(value), { text: JSON.stringify(maskOf(String(value))), cards: 1 });
		}
		return;
	}
	if (value === null || typeof value !== 'object') return;
	if (depth >= 64) {
		scan.found.add('data nested deeper than 64 levels (not read)');
		return;
	}
	if (Array.isArray(value)) for (const inner of value) jsonCards(inner, column, scan, depth + 1);
	else for (const [key, inner] of Object.entries(value)) jsonCards(inner, columnOf(key), scan, depth + 1);
}

/**
 * CSV: the first row names the columns (each name read once); quoted cells ("" inside them) read
 * as one cell, each piece of a cell remembered with where it stands in the text (a card number's
 * place, for masking). One pass.
 */
function csvCards(text: string, scan: Scan): void {
	const columns: Column[] = [];
	let row = 0;
	let column = 0;
	let cell = '';
	// Pieces of the cell: [offset in the cell, offset in the text], in order.
	const pieces: number[] = [];
	const add = (from: number, to: number): void => {
		if (to <= from) return;
		pieces.push(cell.length, from);
		cell += text.slice(from, to);
	};
	// Asked in order within a cell (each span's start, then its last character): the cursor only moves on.
	let k = 0;
	const inText = (at: number): number => {
		while (k + 2 < pieces.length && pieces[k + 2] <= at) k += 2;
		return pieces[k + 1] + (at - pieces[k]);
	};
	let i = 0;
	const n = text.length;
	const endCell = (): void => {
		if (row === 0) {
			columns.push(columnOf(cell.trim()));
		} else {
			const col = columns[column] ?? columnOf(undefined);
			if (col.code && codeShaped(cell)) scan.found.add(codeLabel(col, 'column'));
			const spans = cellCards(col, cell);
			if (spans.length > 0) scan.cards.add(cardLabel(col, 'column'));
			for (const span of spans) scan.spans.push({ from: inText(span.from), to: inText(span.to - 1) + 1, masked: maskOf(cell.slice(span.from, span.to)) });
		}
		cell = '';
		pieces.length = 0;
		k = 0;
		column++;
	};
	while (i < n) {
		if (text.charCodeAt(i) === 34 /* " */ && cell === '') {
			// A quoted cell, to its closing quote ("" inside it is one quote).
			i++;
			let from = i;
			for (;;) {
				const close = text.indexOf('"', i);
				if (close < 0) {
					add(from, n);
					i = n;
					break;
				}
				if (text.charCodeAt(close + 1) === 34) {
					add(from, close + 1);
					i = close + 2;
					from = i;
					continue;
				}
				add(from, close);
				i = close + 1;
				break;
			}
			continue;
		}
		// An unquoted run, to the next comma or line end.
		let j = i;
		while (j < n) {
			const c = text.charCodeAt(j);
			if (c === 44 || c === 10 || c === 13) break;
			j++;
		}
		add(i, j);
		i = j;
		if (i >= n) break;
		const c = text.charCodeAt(i);
		endCell();
		if (c !== 44) {
			if (c === 13 && text.charCodeAt(i + 1) === 10) i++;
			row++;
			column = 0;
		}
		i++;
	}
	if (cell !== '' || column > 0) endCell();
}

// ---------------------------------------------------------------------------------------------
// Masking.

/** The text with each span replaced by its masked form (spans in order, not overlapping). */
function maskSpans(text: string, spans: readonly Span[]): { text: string; count: number } {
	let out = '';
	let copied = 0;
	for (const span of spans) {
		out += text.slice(copied, span.from) + span.masked;
		copied = span.to;
	}
	return { text: out + text.slice(copied), count: spans.length };
}

/** JSON text with each string and number found to hold a card number replaced by its masked form: one pass over the tokens. */
function maskJson(text: string, values: ReadonlyMap<string, Masked>, numbers: ReadonlyMap<string, Masked>): { text: string; count: number } {
	let out = '';
	let copied = 0;
	let count = 0;
	const n = text.length;
	let i = 0;
	const replace = (from: number, to: number, masked: Masked | undefined): void => {
		if (masked === undefined) return;
		out += text.slice(copied, from) + masked.text;
		copied = to;
		count += masked.cards;
	};
	while (i < n) {
		const c = text.charCodeAt(i);
		if (c === 34) {
			let j = i + 1;
			while (j < n) {
				const d = text.charCodeAt(j);
				if (d === 92) j += 2;
				else if (d === 34) break;
				else j++;
			}
			const end = Math.min(j + 1, n);
			replace(i, end, values.get(text.slice(i, end)));
			i = end;
		} else if (c === 45 || (c >= 48 && c <= 57)) {
			let j = i + 1;
			while (j < n && numberChar(text.charCodeAt(j))) j++;
			if (numbers.size > 0) replace(i, j, numbers.get(text.slice(i, j)));
			i = j;
		} else i++;
	}
	return { text: out + text.slice(copied), count };
}

const numberChar = (c: number): boolean => (c >= 48 && c <= 57) || c === 46 || c === 101 || c === 69 || c === 43 || c === 45;
