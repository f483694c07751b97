/**
 * Scanners of service text, written by hand so that each runs in time linear in its input
 * (no regular expression with overlapping repeats: a pattern such as `[a-z-]*?cvc` over a
 * text of hyphenated words takes quadratic time, and one hostile error message stalls n8n).
 *
 * - names: a field name or a word of text split into its words (camelCase, `_`, `-`, digits
 *   kept with their letters), so that names are matched whole, never by a fragment
 *   (`giftCardNumber` is not a card number, `cvcCheck` is not a security code);
 * - security codes in text: 3 or 4 digits after a security-code word, filler words allowed
 *   ("cvc: 123", "my CVC is 123", "CVV code: 1234"; detector.ts), and the value after
 *   `<security code word>:` or `authorization=`;
 * - declared secret fields in error text (hidden.ts): the value after a declared name, the name
 *   matched whole (`"webhookSecret":"…"`, `webhookSecret=…`), in the same pass;
 * - card numbers: the card-data detector (detector.ts) in text; in errors also a broader reading.
 */

import { cardNumberValue, cardSpans, codeDigitsAfter, endsInSecurityCode, luhnValid, redactCards, replaceSpans } from './detector';

export { cardNumberValue, luhnValid };


/**
 * Math's functions, read once: a global read in a hot loop is slow where the code runs in a vm
 * context (a test runner's).
 */
const min = Math.min;
const max = Math.max;

/** What a redacted value or text part is replaced with. */
export const REDACTED = '[redacted]';

const enum Ch {
	Tab = 9,
	Newline = 10,
	Return = 13,
	Space = 32,
	Quote = 34,
	Apostrophe = 39,
	Comma = 44,
	Dash = 45,
	Dot = 46,
	Slash = 47,
	Zero = 48,
	Nine = 57,
	Colon = 58,
	Equals = 61,
	Backslash = 92,
	Underscore = 95,
	Ampersand = 38,
	OpenBracket = 91,
	CloseBracket = 93,
	OpenBrace = 123,
	CloseBrace = 125,
	Pipe = 124,
}

function isDigit(c: number): boolean {
	return c >= Ch.Zero && c <= Ch.Nine;
}

function isUpper(c: number): boolean {
	return c >= 65 && c <= 90;
}

function isLower(c: number): boolean {
	return c >= 97 && c <= 122;
}

function isLetter(c: number): boolean {
	return isUpper(c) || isLower(c);
}

/** A word character of a regular expression's `\w`: letter, digit or underscore. */
export function isWordChar(c: number): boolean {
	return isLetter(c) || isDigit(c) || c === Ch.Underscore;
}

function isSpace(c: number): boolean {
	return c === Ch.Space || c === Ch.Tab || c === Ch.Newline || c === Ch.Return || c === 12 || c === 11;
}

/**
 * The words of a name, lower case: split at every character that is not a letter or digit and
 * where a lower-case letter meets an upper-case one (`cardCvc` → card, cvc; `CVV2` → cvv2).
 */
export function nameWords(name: string): string[] {
	const words: string[] = [];
	let start = -1;
	for (let i = 0; i <= name.length; i++) {
		const c = i < name.length ? name.charCodeAt(i) : 0;
		const inWord = isLetter(c) || isDigit(c);
		if (inWord && start >= 0 && isUpper(c) && isLower(name.charCodeAt(i - 1))) {
			words.push(name.slice(start, i).toLowerCase());
			start = i;
		}
		if (inWord && start < 0) start = i;
		if (!inWord && start >= 0) {
			words.push(name.slice(start, i).toLowerCase());
			start = -1;
		}
	}
	return words;
}

export { endsInSecurityCode };

/** Qualifiers a card-number name may start with (credit card number, primary account number). */
const CARD_QUALIFIERS = new Set(['card', 'credit', 'debit', 'cc', 'primary', 'account', 'payment']);
const CARD_NUMBER_ENDS = new Set(['number', 'num', 'no', 'nr', 'pan']);

/**
 * The kind of card-number name: 'sure' (says card number without doubt: card number, PAN,
 * cc_number, primary account number), 'luhn' (number, account number: a card number only when
 * the value passes the Luhn check), or undefined (anything else, `giftCardNumber` and
 * `orderNumber` included: whole words are compared, never fragments).
 */
export function cardNumberName(name: string): 'sure' | 'luhn' | undefined {
	let words = nameWords(name);
	// Written as one word: cardnumber, ccnumber, cardnum, creditcardnumber.
	if (words.length === 1) {
		const one = /^(creditcard|debitcard|card|cc)(number|num|no|nr)$/.exec(words[0]);
		if (one) words = [one[1] === 'creditcard' || one[1] === 'debitcard' ? 'card' : one[1], one[2]];
	}
	const n = words.length;
	if (n === 0 || !CARD_NUMBER_ENDS.has(words[n - 1])) return undefined;
	for (let i = 0; i < n - 1; i++) if (!CARD_QUALIFIERS.has(words[i])) return undefined;
	if (words[n - 1] === 'pan' || words.includes('card') || words.includes('cc') || words.includes('primary')) return 'sure';
	return words[n - 1] === 'number' ? 'luhn' : undefined;
}

/** Last characters of the names redactSensitiveText looks for, by code (both cases). */
const NAME_END = (() => {
	const out = new Uint8Array(128);
	for (const c of 'cvnder23CVNDER') out[c.charCodeAt(0)] = 1;
	return out;
})();

/** How the names redactSensitiveText looks for end (both cases; tested on a word's last 13 characters). */
const NAME_TAIL = /(?:cvc|cvv|csc|cvn|cvd|cid|cav|cve|spc)[23]?$|code$|value$|number$|verification$|authorization$/i;

/** The last three letters of every NAME_TAIL ending (lower case, as one number), read before the expression. */
const NAME_TAIL_LAST3 = new Set(['cvc', 'cvv', 'csc', 'cvn', 'cvd', 'cid', 'cav', 'cve', 'spc', 'ode', 'lue', 'ber', 'ion'].map((t) => (t.charCodeAt(0) << 16) | (t.charCodeAt(1) << 8) | t.charCodeAt(2)));

/** False when the word from `start` to `end` cannot end as NAME_TAIL says (its last three letters, after a `2` or `3`). */
function mayEndInName(text: string, start: number, end: number): boolean {
	const last = text.charCodeAt(end - 1);
	const e = last === 50 || last === 51 ? end - 1 : end;
	if (e - start < 3) return false;
	return NAME_TAIL_LAST3.has(((text.charCodeAt(e - 3) | 0x20) << 16) | ((text.charCodeAt(e - 2) | 0x20) << 8) | (text.charCodeAt(e - 1) | 0x20));
}

/** Word characters (isWordChar) by code below 128: one read per character in the scans' loops. */
const WORD = Uint8Array.from({ length: 128 }, (_, c) => (isWordChar(c) ? 1 : 0));

export interface SensitiveText {
	/** Errors: `<name>: <value>` pairs of security-code words and `authorization` too (a false alarm costs little there). */
	values: boolean;
	/**
	 * Declared secret fields (hidden.ts): the value after one of these names, the name matched
	 * whole (a word of the text equal to it: `webhookSecretHint` is not `webhookSecret`), becomes
	 * "[redacted]": `"webhookSecret":"…"`, `webhookSecret = …`, also in JSON quoted in a JSON string
	 * (`\"webhookSecret\":\"…\"`). Names are words (letters, digits, `_`).
	 */
	names?: ReadonlySet<string>;
}

/**
 * A text with the values of security codes and authorization headers replaced, in one pass:
 *
 * - with `values`, `<name>: <value>` or `<name>=<value>` (quotes around the name allowed), where the name is a
 *   security-code word or `authorization`: the value (a quoted string, or up to a space, `,`,
 *   `}` or `&`) becomes "[redacted]";
 * - 3 or 4 digits standing alone within 9 non-word characters after a security-code word.
 *
 * Each word of the text is looked at once, and what follows it at most up to the end of the
 * value it names: linear in the text.
 */
export function redactSensitiveText(text: string, options: SensitiveText): string {
	let out = '';
	let copied = 0;
	// The word before this one: its span, read only when a two-word name needs it.
	let prevStart = -1;
	let prevEnd = -2;
	let i = 0;
	const n = text.length;
	// Declared names: a word is compared only when its length is one of theirs.
	const names = options.names !== undefined && options.names.size > 0 ? options.names : undefined;
	let shortest = Infinity;
	let longest = 0;
	if (names !== undefined) {
		for (const name of names) {
			shortest = min(shortest, name.length);
			longest = max(longest, name.length);
		}
	}
	/** Replaces `span` with `replacement` and goes on after it (no name runs over a cut). */
	const cut = (span: { from: number; to: number }, replacement: string): void => {
		out += text.slice(copied, span.from) + replacement;
		copied = span.to;
		i = span.to;
		prevEnd = -2;
	};
	while (i < n) {
		const c = text.charCodeAt(i);
		if (c >= 128 || WORD[c] !== 1) {
			i++;
			continue;
		}
		const start = i;
		while (i < n) {
			const w = text.charCodeAt(i);
			if (w >= 128 || WORD[w] !== 1) break;
			i++;
		}
		const before = { start: prevStart, end: prevEnd };
		prevStart = start;
		prevEnd = i;
		if (names !== undefined && i - start >= shortest && i - start <= longest && names.has(text.slice(start, i))) {
			const value = namedValue(text, i, true);
			if (value !== undefined) {
				cut(value, `"${REDACTED}"`);
				continue;
			}
		}
		// Every name this scan looks for ends in one of these letters and these words (cvc, cvv2,
		// security code, verification value, authorization): other words are passed at once.
		if (!NAME_END[text.charCodeAt(i - 1) & 0x7f] || !mayEndInName(text, start, i) || !NAME_TAIL.test(text.slice(max(start, i - 13), i))) continue;
		const words = nameWords(text.slice(start, min(i, start + 64)));
		// "security code", "card verification value": a name of two words with one space or dash between.
		const joined = before.end === start - 1 && before.start >= 0 ? [...nameWords(text.slice(max(before.start, before.end - 64), before.end)).slice(-1), ...words] : words;
		const code = endsInSecurityCode(joined);
		const auth = !code && options.values && words.length === 1 && words[0] === 'authorization';
		if (!code && !auth) continue;
		const value = options.values ? namedValue(text, i) : undefined;
		if (value !== undefined) {
			cut(value, `"${REDACTED}"`);
			continue;
		}
		if (!code) continue;
		const digits = codeDigitsAfter(text, i);
		if (digits !== undefined) cut(digits, REDACTED);
	}
	return copied === 0 ? text : out + text.slice(copied);
}

/**
 * The span of the value after a name ending at `at`: `["']?\s*[:=]\s*` then a quoted string or a
 * bare run. `escaped` (a declared secret field's name): also JSON quoted inside a JSON string,
 * `\"name\": \"value\"`, and a list or object value whole, to its matching close.
 */
function namedValue(text: string, at: number, escaped = false): { from: number; to: number } | undefined {
	const n = text.length;
	let i = at;
	if (escaped && i + 1 < n && text.charCodeAt(i) === Ch.Backslash && text.charCodeAt(i + 1) === Ch.Quote) i++;
	if (i < n && (text.charCodeAt(i) === Ch.Quote || text.charCodeAt(i) === Ch.Apostrophe)) i++;
	while (i < n && isSpace(text.charCodeAt(i))) i++;
	if (i >= n || (text.charCodeAt(i) !== Ch.Colon && text.charCodeAt(i) !== Ch.Equals)) return undefined;
	i++;
	while (i < n && isSpace(text.charCodeAt(i))) i++;
	if (i >= n) return undefined;
	const from = i;
	if (escaped && i + 1 < n && text.charCodeAt(i) === Ch.Backslash && text.charCodeAt(i + 1) === Ch.Quote) {
		// An escaped quote opens the value: it ends at the next escaped quote (an escaped backslash skipped).
		i += 2;
		while (i < n) {
			const c = text.charCodeAt(i);
			if (c === Ch.Backslash && i + 1 < n && text.charCodeAt(i + 1) === Ch.Quote) return { from, to: i + 2 };
			i += c === Ch.Backslash ? 2 : 1;
		}
		return { from, to: n };
	}
	const open = text.charCodeAt(i);
	if (escaped && (open === Ch.OpenBracket || open === Ch.OpenBrace)) {
		// A declared field holding a list or an object: the value runs to its matching close (quotes skipped).
		let depth = 0;
		let quoted = false;
		while (i < n) {
			const c = text.charCodeAt(i);
			if (quoted) {
				if (c === Ch.Backslash) i++;
				else if (c === Ch.Quote) quoted = false;
			} else if (c === Ch.Quote) quoted = true;
			else if (c === Ch.OpenBracket || c === Ch.OpenBrace) depth++;
			else if ((c === Ch.CloseBracket || c === Ch.CloseBrace) && --depth === 0) return { from, to: i + 1 };
			i++;
		}
		return { from, to: n };
	}
	if (open === Ch.Quote || open === Ch.Apostrophe) {
		i++;
		while (i < n) {
			const c = text.charCodeAt(i);
			if (c === Ch.Backslash && open === Ch.Quote) {
				i += 2;
				continue;
			}
			if (c === open) return { from, to: i + 1 };
			i++;
		}
		// An unclosed quote: the rest of the text is the value.
		return { from, to: n };
	}
	const bare = (at: number): number => {
		let j = at;
		while (j < n) {
			const c = text.charCodeAt(j);
			if (isSpace(c) || c === Ch.Comma || c === Ch.CloseBrace || c === Ch.Ampersand) break;
			j++;
		}
		return j;
	};
	i = bare(i);
	// "Authorization: Bearer <token>": the scheme and its token are the value.
	if (i - from <= 6 && /^(?:bearer|basic)$/i.test(text.slice(from, i))) {
		let j = i;
		while (j < n && text.charCodeAt(j) === Ch.Space) j++;
		if (j > i && j < n) i = bare(j);
	}
	return i > from ? { from, to: i } : undefined;
}

/**
 * Separators an error's card number may be written with between its digit groups (besides what
 * the detector reads): a comma too (a number the service cut up), `_`, `/`, `|`.
 */
function isErrorSeparator(c: number): boolean {
	return c === Ch.Space || c === Ch.Tab || c === Ch.Dash || c === Ch.Dot || c === Ch.Underscore || c === Ch.Slash || c === Ch.Pipe || c === Ch.Comma || c === 0xa0;
}

export interface CardScan {
	/**
	 * 'text': free-form answers, where a false alarm changes the user's data: the card-data
	 * detector (detector.ts: issuer prefix and length, Luhn, printed grouping, standing alone).
	 * 'error': errors, where a false alarm costs little: what the detector finds, and any 12 to
	 * 19 Luhn-valid digits of a chain of groups (up to three of space, tab, `.`, `-`, `_`, `/`,
	 * `|`, `,` between them), from a group's start to a group's end.
	 */
	mode: 'text' | 'error';
}

/** The spans of card numbers in a text, left to right, not overlapping: linear in the text. */
export function cardNumberSpans(text: string, scan: CardScan): Array<{ from: number; to: number }> {
	const found = cardSpans(text);
	if (scan.mode === 'text') return found;
	return merged(found, errorChainSpans(text));
}

/** Two lists of spans (each left to right) as one, overlapping spans joined: one pass over both (no sort). */
function merged(a: Array<{ from: number; to: number }>, b: Array<{ from: number; to: number }>): Array<{ from: number; to: number }> {
	if (b.length === 0) return a;
	if (a.length === 0) return b;
	const out: Array<{ from: number; to: number }> = [];
	let i = 0;
	let j = 0;
	while (i < a.length || j < b.length) {
		const span = j >= b.length || (i < a.length && a[i].from <= b[j].from) ? a[i++] : b[j++];
		const last = out[out.length - 1];
		if (last !== undefined && span.from < last.to) last.to = max(last.to, span.to);
		else out.push({ from: span.from, to: span.to });
	}
	return out;
}

/**
 * Error mode's broad reading: chains of digit groups (up to three separators between groups);
 * each group start is tried with at most 19 digits after it: linear in the text. The groups of a
 * chain are kept in two reused number arrays and the Luhn sum is carried digit by digit, so a long
 * chain (a megabyte of digit groups) makes no object per group and no string per try.
 */
function errorChainSpans(text: string): Array<{ from: number; to: number }> {
	const spans: Array<{ from: number; to: number }> = [];
	const starts: number[] = [];
	const ends: number[] = [];
	const n = text.length;
	let i = 0;
	while (i < n) {
		if (!isDigit(text.charCodeAt(i))) {
			i++;
			continue;
		}
		const chainStart = i;
		starts.length = 0;
		ends.length = 0;
		let digits = 0;
		for (;;) {
			const from = i;
			while (i < n && isDigit(text.charCodeAt(i))) i++;
			starts.push(from);
			ends.push(i);
			digits += i - from;
			let j = i;
			while (j < n && j - i < 3 && isErrorSeparator(text.charCodeAt(j))) j++;
			if (j > i && j < n && isDigit(text.charCodeAt(j))) {
				i = j;
				continue;
			}
			break;
		}
		if (digits >= 12) findInChain(text, starts, ends, spans);
		if (i === chainStart) i++;
	}
	return spans;
}

/** A digit doubled as Luhn doubles it (9 at most). */
function doubled(d: number): number {
	return d < 5 ? 2 * d : 2 * d - 9;
}

/**
 * A Luhn-valid run of 12 to 19 digits from a group's start to a group's end, leftmost first.
 * Luhn doubles every second digit from the right: with the digits read left to right, `even`
 * doubles those at even places and `odd` those at odd places, and a run of L digits is valid when
 * the sum that doubles the right ones (`even` for an even L) is a multiple of 10.
 */
function findInChain(text: string, starts: number[], ends: number[], spans: Array<{ from: number; to: number }>): void {
	let g = 0;
	while (g < starts.length) {
		let count = 0;
		let found = -1;
		let even = 0;
		let odd = 0;
		for (let h = g; h < starts.length; h++) {
			if (count + ends[h] - starts[h] > 19) break;
			for (let k = starts[h]; k < ends[h]; k++, count++) {
				const d = text.charCodeAt(k) - 48;
				if (count % 2 === 0) {
					even += doubled(d);
					odd += d;
				} else {
					even += d;
					odd += doubled(d);
				}
			}
			if (count >= 12 && (count % 2 === 0 ? even : odd) % 10 === 0) found = h;
		}
		if (found >= 0) {
			spans.push({ from: starts[g], to: ends[found] });
			g = found + 1;
		} else g++;
	}
}

/** The text with every card number found in `scan` mode replaced. */
export function redactCardNumberSpans(text: string, scan: CardScan): string {
	if (scan.mode === 'text') return redactCards(text, REDACTED);
	if (text.length < 12) return text;
	return replaceSpans(text, cardNumberSpans(text, scan), REDACTED);
}
