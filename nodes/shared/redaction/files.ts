/**
 * The output gate for downloaded files (report files): a file that holds a known secret or a full
 * card number never reaches binary data as it is. The service's reports carry no such data (the
 * Payment Activity export has card_brand and card_last_four only), so such a file comes from a
 * service that misbehaves: the item fails, naming what was found (never the value), and nothing
 * is stored.
 *
 * Card numbers are decided as in answers: a column or field named as a card number (whole words)
 * holding 12 to 19 digits (Luhn-valid for `number` and `account_number`), or a card number
 * standing alone in a text cell (one holding letters: a note, a metadata column), never a numeric
 * id or amount cell on its own. Every scan is linear in the file.
 */

import { cardNumberName, cardNumberSpans, luhnValid } from './scan';
import type { Redactor } from './secrets';

/** What a file holds that must not reach binary data: a list of findings, without values. */
export function fileFindings(body: Buffer, contentType: string | undefined, redactor: Redactor): string[] {
	const text = body.toString('utf8');
	const found = new Set<string>();
	if (redactor.holdsKnownSecret(text)) found.add('a key or signing secret of the credential');
	const json = (contentType ?? '').includes('json') || /^\s*[[{]/.test(text.slice(0, 64));
	if (json) {
		let parsed: unknown;
		try {
			parsed = JSON.parse(text);
		} catch {
			parsed = undefined;
		}
		if (parsed !== undefined) jsonCards(parsed, undefined, undefined, found, 0);
		else csvCards(text, found);
	} else {
		csvCards(text, found);
	}
	return [...found];
}

/** A field's (or column's) name as read once: the kind of card-number name it is, if any. */
type CardName = ReturnType<typeof cardNumberName>;

/** A value of a field (or column) of this kind that is a card number. */
function namedCard(kind: CardName, value: string): boolean {
	if (kind === undefined) return false;
	const digits = value.replace(/[\s.-]/g, '');
	if (!/^\d{12,19}$/.test(digits)) return false;
	return kind === 'sure' || luhnValid(digits);
}

/** A text cell (one with letters in it) holding a card number standing alone. */
function textCard(value: string): boolean {
	return /[A-Za-z]/.test(value) && cardNumberSpans(value, { mode: 'text' }).length > 0;
}

/** `kind`: the name's reading, made once where the name stands (a list's entries share it). */
function jsonCards(value: unknown, name: string | undefined, kind: CardName, found: Set<string>, depth: number): void {
	if (typeof value === 'string') {
		if (namedCard(kind, value) || textCard(value)) found.add(name === undefined ? 'a full card number' : `a full card number (field "${name.slice(0, 64)}")`);
		return;
	}
	if (typeof value === 'number') {
		if (Number.isSafeInteger(value) && namedCard(kind, String(value))) found.add(`a full card number (field "${(name ?? '').slice(0, 64)}")`);
		return;
	}
	if (value === null || typeof value !== 'object') return;
	if (depth >= 64) {
		found.add('data nested deeper than 64 levels (not read)');
		return;
	}
	if (Array.isArray(value)) for (const inner of value) jsonCards(inner, name, kind, found, depth + 1);
	else for (const [key, inner] of Object.entries(value)) jsonCards(inner, key, cardNumberName(key), found, depth + 1);
}

/** CSV: the first row names the columns (each name read once); quoted cells ("" inside them) read as one cell. One pass. */
function csvCards(text: string, found: Set<string>): void {
	const header: string[] = [];
	const kinds: CardName[] = [];
	let row = 0;
	let column = 0;
	let cell = '';
	let i = 0;
	const n = text.length;
	const endCell = (): void => {
		if (row === 0) {
			header.push(cell.trim());
			kinds.push(cardNumberName(cell.trim()));
		} else if (namedCard(kinds[column], cell) || textCard(cell)) {
			found.add(header[column] ? `a full card number (column "${header[column].slice(0, 64)}")` : 'a full card number');
		}
		cell = '';
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
					cell += text.slice(from);
					i = n;
					break;
				}
				if (text.charCodeAt(close + 1) === 34) {
					cell += text.slice(from, close + 1);
					i = close + 2;
					from = i;
					continue;
				}
				cell += text.slice(from, close);
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
		cell += text.slice(i, j);
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
