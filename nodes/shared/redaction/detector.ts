/**
 * The card-data detector: card numbers and security codes in service text, by one written
 * specification (docs/security.md, "Card-data detector"). Every function is linear in its input
 * and written by hand (no regular expression over service text).
 *
 * A card number is a candidate of 12 to 19 digits that
 * - starts with an issuer's prefix and has one of that issuer's lengths (ISSUERS);
 * - passes the Luhn check;
 * - is written with no separator, or in groups as the networks print them (4-4-4-4, 4-4-4-4-3 and
 *   every run of fours with a last group of 1 to 4, Amex 4-6-5, Diners 4-6-4), every separator of
 *   the candidate the same (one to three of: ASCII space, tab, `-`, `.`, any Unicode space or
 *   dash); one line break may stand for one separator after the second group or later, or at
 *   the end of a line of 40 characters or more (a wrapped line), where it may also split an
 *   unseparated number once;
 *   zero-width characters (U+200B/C/D, U+2060, U+FEFF, soft hyphen) are read as if absent;
 * - stands alone: not glued to letters, digits or `_` (a card label such as `card:` or `PAN` may
 *   touch it), not after an identifier's joiner (`tok_…`, `ord-…`, `sku:…`, `#…`), not a part of a
 *   longer run of groups joined by the same separator (an IBAN's "GB29 NWBK 6016 …" included);
 *   after it the text may go on with an expiry, a code or a second card number.
 *
 * A security code is 3 or 4 digits after a security-code word or name (CODE_WORDS, CODE_PAIRS,
 * a name whose words end in one, or in one and `code`/`value`/`number`), with up to three filler
 * words (`is`, `code`, …) and a few punctuation marks between.
 */

/** Issuers: name, prefix ranges (inclusive, compared on as many digits as the bound has), lengths. */
export const ISSUERS: ReadonlyArray<{ name: string; prefixes: ReadonlyArray<readonly [string, string]>; lengths: readonly number[] }> = [
	{ name: 'Visa', prefixes: [['4', '4']], lengths: [13, 16, 19] },
	{ name: 'Mastercard', prefixes: [['51', '55'], ['2221', '2720']], lengths: [16] },
	{ name: 'American Express', prefixes: [['34', '34'], ['37', '37']], lengths: [15] },
	{ name: 'Discover', prefixes: [['6011', '6011'], ['644', '649'], ['65', '65'], ['622126', '622925']], lengths: [16, 17, 18, 19] },
	{ name: 'JCB', prefixes: [['3528', '3589']], lengths: [16, 17, 18, 19] },
	{ name: 'Diners Club', prefixes: [['300', '305'], ['36', '36'], ['38', '39']], lengths: [14, 15, 16, 17, 18, 19] },
	{ name: 'UnionPay', prefixes: [['62', '62']], lengths: [16, 17, 18, 19] },
	{ name: 'Maestro', prefixes: [['50', '50'], ['56', '69']], lengths: [12, 13, 14, 15, 16, 17, 18, 19] },
];

/** The issuer whose prefix and length the digits have, or undefined. */
export function issuerOf(digits: string): string | undefined {
	for (const issuer of ISSUERS) {
		if (!issuer.lengths.includes(digits.length)) continue;
		for (const [low, high] of issuer.prefixes) {
			const head = digits.slice(0, low.length);
			if (head >= low && head <= high) return issuer.name;
		}
	}
	return undefined;
}

/** Luhn check of a digit string. */
export function luhnValid(digits: string): boolean {
	let sum = 0;
	for (let i = 0; i < digits.length; i++) {
		let d = digits.charCodeAt(digits.length - 1 - i) - 48;
		if (i % 2 === 1) {
			d *= 2;
			if (d > 9) d -= 9;
		}
		sum += d;
	}
	return sum % 10 === 0;
}

/** A digit string that is a card number by issuer, length and Luhn. */
export function cardDigits(digits: string): boolean {
	return digits.length >= 12 && digits.length <= 19 && issuerOf(digits) !== undefined && luhnValid(digits);
}

const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const isLetter = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isWordChar = (c: number): boolean => isLetter(c) || isDigit(c) || c === 95;

/** Read as if absent: zero-width space, non-joiner, joiner, word joiner, byte-order mark, soft hyphen. */
export function isIgnorable(c: number): boolean {
	return c === 0x200b || c === 0x200c || c === 0x200d || c === 0x2060 || c === 0xfeff || c === 0xad;
}

/** A space between digit groups: ASCII space, tab and every Unicode space (NBSP, U+2000–U+200A, narrow NBSP, …). */
export function isSpaceSeparator(c: number): boolean {
	return c === 0x20 || c === 0x09 || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x202f || c === 0x205f || c === 0x3000;
}

/** A separator between digit groups: a space, `-`, `.`, or a Unicode dash (U+2010–U+2015, U+2212). */
function isSeparator(c: number): boolean {
	return isSpaceSeparator(c) || c === 0x2d || c === 0x2e || (c >= 0x2010 && c <= 0x2015) || c === 0x2212;
}

const isLineBreak = (c: number): boolean => c === 10 || c === 13 || c === 0x2028 || c === 0x2029;

interface Group {
	from: number;
	to: number;
	/** The digits (up to 20 of them: a longer group is no card number's part). */
	digits: string;
	/** How many digits. */
	count: number;
}

interface Gap {
	/** The separator, zero-width characters left out; '\n' for a line break (with any spaces around it). */
	sep: string;
	line: boolean;
}

/** The group of digits starting at `at` (zero-width characters inside it skipped). */
function readGroup(text: string, at: number): Group {
	let digits = '';
	let count = 0;
	let i = at;
	let end = at;
	while (i < text.length) {
		const c = text.charCodeAt(i);
		if (isDigit(c)) {
			if (count < 20) digits += text[i];
			count++;
			end = ++i;
		} else if (isIgnorable(c)) i++;
		else break;
	}
	return { from: at, to: end, digits, count };
}

/** The gap after a group ending at `at` when a digit follows it: its separator and where the next group starts. */
function readGap(text: string, at: number): { gap: Gap; next: number } | undefined {
	let i = at;
	let sep = '';
	let seps = 0;
	let line = false;
	// At most 16 characters are read past a group: linear in the text.
	const limit = Math.min(text.length, at + 16);
	while (i < limit) {
		const c = text.charCodeAt(i);
		if (isDigit(c)) break;
		if (isIgnorable(c)) {
			i++;
			continue;
		}
		if (isLineBreak(c) && !line) {
			line = true;
			if (c === 13 && text.charCodeAt(i + 1) === 10) i++;
		} else if (isLineBreak(c) || !isSeparator(c)) return undefined;
		else if (!line) {
			sep += text[i];
			seps++;
		} else if (!isSpaceSeparator(c)) return undefined;
		i++;
	}
	if (i >= text.length || !isDigit(text.charCodeAt(i))) return undefined;
	if (line) {
		// Spaces before a line break are its indent: only spaces may stand with it.
		for (let k = 0; k < sep.length; k++) if (!isSpaceSeparator(sep.charCodeAt(k))) return undefined;
		return { gap: { sep: '\n', line: true }, next: i };
	}
	return seps >= 1 && seps <= 3 ? { gap: { sep, line: false }, next: i } : undefined;
}

/** The group sizes the networks print: runs of four with a last group of 1 to 4 (three groups or more), 4-6-5, 4-6-4. */
function printedGrouping(sizes: readonly number[]): boolean {
	const k = sizes.length;
	if (k === 3 && sizes[0] === 4 && sizes[1] === 6 && (sizes[2] === 5 || sizes[2] === 4)) return true;
	if (k < 3) return false;
	for (let g = 0; g < k - 1; g++) if (sizes[g] !== 4) return false;
	return sizes[k - 1] >= 1 && sizes[k - 1] <= 4;
}

/** Whether the line ending at `end` is 40 characters or more (a long line wrapped, not a list of numbers one a line). */
function wrappedLine(text: string, end: number): boolean {
	if (end < 40) return false;
	for (let i = end - 1; i >= end - 40; i--) if (isLineBreak(text.charCodeAt(i))) return false;
	return true;
}

/** Card labels that may touch the digits ("PAN4242…", "card:4242…", "card#4242…"). */
const CARD_LABELS = new Set(['card', 'pan', 'cc', 'ccn', 'number', 'num', 'no', 'nr', 'cardno', 'cardnum', 'cardnumber', 'ccnum', 'ccnumber', 'creditcard', 'debitcard', 'visa', 'mastercard', 'mc', 'amex', 'discover', 'jcb', 'diners', 'maestro', 'unionpay']);

/** Whether the letters ending at `end` form a card label that starts a word. */
function labelBefore(text: string, end: number): boolean {
	let start = end;
	while (start > 0 && end - start < 12 && isLetter(text.charCodeAt(start - 1))) start--;
	if (start === end || (start > 0 && isWordChar(text.charCodeAt(start - 1)))) return false;
	return CARD_LABELS.has(text.slice(start, end).toLowerCase());
}

/** The character before `at`, zero-width characters skipped (-1 at the text's start), and where it is. */
function before(text: string, at: number): { c: number; at: number } {
	let i = at - 1;
	while (i >= 0 && at - i < 8 && isIgnorable(text.charCodeAt(i))) i--;
	return { c: i >= 0 ? text.charCodeAt(i) : -1, at: i };
}

/**
 * Whether a chain starting at `from` stands alone on its left: the text's start, or a character
 * that is not a letter, digit, `_`, `+` or `#` and not an identifier's joiner (`- . / :`) right
 * after a letter or digit; or a card label, with or without `:` or `#` after it.
 */
function aloneBefore(text: string, from: number): boolean {
	const b = before(text, from);
	if (b.c < 0) return true;
	if (isWordChar(b.c) || b.c === 43) return isLetter(b.c) && labelBefore(text, b.at + 1);
	const joiner = b.c === 0x2d || b.c === 0x2e || b.c === 0x2f || b.c === 0x3a || b.c === 0x23;
	if (!joiner) return true;
	const b2 = before(text, b.at);
	// "#5362": a number of a list or an order, unless a card label stands before the `#`.
	if (b2.c < 0 || !isWordChar(b2.c)) return b.c !== 0x23;
	return (b.c === 0x3a || b.c === 0x23) && isLetter(b2.c) && labelBefore(text, b2.at + 1);
}

/** Whether a chain ending at `to` stands alone on its right: no letter, digit or `_` right after it. */
function aloneAfter(text: string, to: number): boolean {
	let i = to;
	while (i < text.length && i - to < 8 && isIgnorable(text.charCodeAt(i))) i++;
	return i >= text.length || !isWordChar(text.charCodeAt(i));
}

/**
 * Whether the text before `at` is `sep` after a 4-character group of letters and digits holding
 * a digit, or after a group of four letters that follows one (an IBAN's groups: "GB29 NWBK 6016 …").
 */
function codeGroupsBefore(text: string, at: number, sep: string): boolean {
	let end = at;
	for (let k = 0; k < 2; k++) {
		const start = end - sep.length - 4;
		if (start < 0 || text.slice(end - sep.length, end) !== sep) return false;
		let digit = false;
		for (let i = start; i < start + 4; i++) {
			const c = text.charCodeAt(i);
			if (!isLetter(c) && !isDigit(c)) return false;
			digit = digit || isDigit(c);
		}
		if (start > 0 && isWordChar(text.charCodeAt(start - 1))) return false;
		if (digit) return true;
		end = start;
	}
	return false;
}

/** A gap that is one bare joiner (`-` or `.`, no space): an identifier's or a decimal number's. */
const bareJoiner = (gap: Gap): boolean => gap.sep === '-' || gap.sep === '.';

/**
 * The card numbers of the chain starting at group `g` (up to five groups), as the indexes of their
 * last groups, shortest first.
 */
function cardEnds(text: string, groups: readonly Group[], gaps: readonly Gap[], g: number): number[] {
	const ends: number[] = [];
	let digits = '';
	let sep: string | undefined;
	let lines = 0;
	const sizes: number[] = [];
	for (let h = g; h < groups.length && h < g + 5; h++) {
		if (h > g) {
			const gap = gaps[h - 1];
			// A line break after the candidate's second group or later, or where a long line was wrapped.
			if (gap.line && h - g < 2 && !wrappedLine(text, groups[h - 1].to)) break;
			if (gap.line) lines++;
			else if (sep === undefined) sep = gap.sep;
			else if (sep !== gap.sep) break;
			if (lines > 1) break;
		}
		digits += groups[h].digits;
		sizes.push(groups[h].count);
		if (digits.length > 19 || groups[h].count > 19) break;
		if (digits.length < 12) continue;
		// One line break alone splits an unseparated number once (at a wrapped line, as above).
		const shaped = h === g || (sep === undefined ? h === g + 1 && sizes[0] >= 4 && sizes[1] >= 4 : printedGrouping(sizes));
		if (shaped && cardDigits(digits)) ends.push(h);
	}
	return ends;
}

/**
 * The card number starting at group `g`: the longest, unless a shorter one lets the next group
 * start a card number reaching further (a 12-digit Maestro number before a second card number).
 */
function cardAt(text: string, groups: readonly Group[], gaps: readonly Gap[], g: number): number {
	const ends = cardEnds(text, groups, gaps, g);
	if (ends.length === 0) return -1;
	const longest = ends[ends.length - 1];
	for (let k = 0; k < ends.length - 1; k++) {
		const next = cardEnds(text, groups, gaps, ends[k] + 1);
		if (next.length > 0 && next[next.length - 1] > longest) return ends[k];
	}
	return longest;
}

/**
 * The spans of card numbers in a text, left to right. One pass reads chains of digit groups
 * (each group and gap once); each group is tried as a start with at most five groups after it.
 */
export function cardSpans(text: string): Array<{ from: number; to: number }> {
	const spans: Array<{ from: number; to: number }> = [];
	const n = text.length;
	let i = 0;
	while (i < n) {
		if (!isDigit(text.charCodeAt(i))) {
			i++;
			continue;
		}
		const groups: Group[] = [];
		const gaps: Gap[] = [];
		let at = i;
		for (;;) {
			const group = readGroup(text, at);
			groups.push(group);
			const gap = readGap(text, group.to);
			if (gap === undefined) break;
			gaps.push(gap.gap);
			at = gap.next;
		}
		findCards(text, groups, gaps, spans);
		i = groups[groups.length - 1].to;
	}
	return spans;
}

/** The card numbers of one chain, leftmost longest first. */
function findCards(text: string, groups: readonly Group[], gaps: readonly Gap[], spans: Array<{ from: number; to: number }>): void {
	let lastEnd = -1;
	const last = groups.length - 1;
	for (let g = 0; g <= last; g++) {
		const h = cardAt(text, groups, gaps, g);
		if (h < 0) continue;
		const single = h === g;
		const sep = single ? undefined : gaps.slice(g, h).find((gap) => !gap.line)?.sep;
		if (g === 0) {
			if (!aloneBefore(text, groups[0].from) || (sep !== undefined && codeGroupsBefore(text, groups[0].from, sep))) continue;
		} else if (lastEnd !== g - 1) {
			const gap = gaps[g - 1];
			// Not a part of a longer run of groups joined alike, nor a group after an identifier's joiner.
			if (!gap.line && sep !== undefined && gap.sep === sep) continue;
			if (bareJoiner(gap) && groups[g - 1].count < 12) continue;
		}
		if (h === last) {
			if (!aloneAfter(text, groups[h].to)) continue;
		} else if (single && bareJoiner(gaps[h]) && groups[h + 1].count < 12 && cardAt(text, groups, gaps, h + 1) < 0) {
			// A code may follow ("4000000000006-123"), or a second card number; another group is an id's or a decimal's part.
			const next = groups[h + 1].count;
			if (next < 3 || next > 4 || (h + 1 < last && bareJoiner(gaps[h + 1]))) continue;
		}
		spans.push({ from: groups[g].from, to: groups[h].to });
		lastEnd = h;
		g = h;
	}
}

/** The text with every card number replaced by `replacement`. */
export function redactCards(text: string, replacement: string): string {
	if (text.length < 12) return text;
	return replaceSpans(text, cardSpans(text), replacement);
}

/** The text with each span (in order, not overlapping) replaced by `replacement`. */
export function replaceSpans(text: string, spans: ReadonlyArray<{ from: number; to: number }>, replacement: string): string {
	if (spans.length === 0) return text;
	let out = '';
	let copied = 0;
	for (const span of spans) {
		out += text.slice(copied, span.from) + replacement;
		copied = span.to;
	}
	return out + text.slice(copied);
}

/** A number value that is a card number (issuer, length, Luhn): a JSON number in a free-form answer. */
export function cardNumberValue(value: number): boolean {
	if (!Number.isInteger(value) || value < 1e11 || value >= 1e19) return false;
	return cardDigits(BigInt(value).toString());
}

// ---------------------------------------------------------------------------------------------
// Security codes.

/** Words that name a card security code by themselves (the networks' names, with their 2 or 3). */
export const CODE_WORDS: ReadonlySet<string> = new Set(['cvc', 'cvv', 'csc', 'cvn', 'cvd', 'cid', 'cav', 'cve', 'spc', 'cvc2', 'cvv2', 'csc2', 'cvn2', 'cvd2', 'cav2', 'cvc3', 'cvv3']);

/** Two-word names of a security code. */
export const CODE_PAIRS: ReadonlySet<string> = new Set(['security code', 'card code', 'verification code', 'verification value', 'verification number', 'card verification', 'security number']);

/** Words that may follow a code's name in a field name and still name the code (cvv_code, cvcValue, card_cvc_number). */
const VALUE_WORDS = new Set(['code', 'value', 'number']);

/** A name of a security code written as one word: securitycode, cardcode, cardverificationvalue. */
function oneWordCode(word: string): boolean {
	const w = word.startsWith('card') && word.length > 4 && word !== 'cardcode' ? word.slice(4) : word;
	return w === 'securitycode' || w === 'cardcode' || w === 'verificationcode' || w === 'verificationvalue' || w === 'verificationnumber';
}

/** Whether the words name a code when read up to word `end` (exclusive). */
function namesCodeAt(words: readonly string[], end: number): boolean {
	if (end <= 0) return false;
	const w = words[end - 1];
	if (CODE_WORDS.has(w) || oneWordCode(w)) return true;
	return end >= 2 && CODE_PAIRS.has(`${words[end - 2]} ${w}`);
}

/**
 * True when the words name a security code: they end in a code's name (cvc, CVV2, card
 * verification value), or in one followed by `code`, `value` or `number` (cvv_code, cvcValue,
 * card_cvc_number).
 */
export function endsInSecurityCode(words: readonly string[]): boolean {
	const n = words.length;
	if (namesCodeAt(words, n)) return true;
	return n >= 2 && VALUE_WORDS.has(words[n - 1]) && namesCodeAt(words, n - 1);
}

/** True when a code's name is among the words, whole, anywhere (cvcCheck, requireCvc, cvc_status). */
export function containsSecurityCode(words: readonly string[]): boolean {
	for (let i = 1; i <= words.length; i++) if (namesCodeAt(words, i)) return true;
	return false;
}

/** Filler words between a code's name and its digits ("my CVC is 123", "CVV code: 1234"). */
const FILLERS = new Set(['is', 'was', 'code', 'number', 'no', 'nr', 'num', 'value', 'the', 'of']);

/** Punctuation that may stand between a code's name, its filler words and its digits. */
const isFillerMark = (c: number): boolean =>
	isSpaceSeparator(c) || isIgnorable(c) || c === 0x3a || c === 0x3d || c === 0x2d || c === 0x23 || c === 0x22 || c === 0x27 || c === 0x28 || c === 0x29 || c === 0x2e || c === 0x2c;

/**
 * The span of the 3 or 4 digits of a security code after its name ending at `at`: up to three
 * filler words and 40 characters between, the digits standing alone.
 */
export function codeDigitsAfter(text: string, at: number): { from: number; to: number } | undefined {
	const n = text.length;
	const limit = Math.min(n, at + 40);
	let i = at;
	let words = 0;
	while (i < limit) {
		const c = text.charCodeAt(i);
		if (isDigit(c)) break;
		if (isFillerMark(c)) {
			i++;
			continue;
		}
		if (!isLetter(c) || words === 3) return undefined;
		const start = i;
		while (i < limit && isLetter(text.charCodeAt(i))) i++;
		if (!FILLERS.has(text.slice(start, i).toLowerCase())) return undefined;
		words++;
	}
	if (i >= n || !isDigit(text.charCodeAt(i))) return undefined;
	const from = i;
	while (i < n && i - from < 5 && isDigit(text.charCodeAt(i))) i++;
	if (i - from < 3 || i - from > 4) return undefined;
	if (i < n && isWordChar(text.charCodeAt(i))) return undefined;
	return { from, to: i };
}
