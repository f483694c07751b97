/**
 * Card data, recognised by context so that legitimate data is never touched. Names are matched
 * as whole words (scan.ts nameWords), never by a fragment:
 *
 * - a card number is a field named as one (card_number, cardNumber, PAN, cc_number; `number`
 *   and `account_number` only with a Luhn-valid value) whose value is 12 to 19 digits, or, in
 *   free-form text, what the card-data detector finds (detector.ts: an issuer's prefix and length,
 *   Luhn-valid, unseparated or grouped as the networks print it with one kind of separator,
 *   standing alone, never inside an identifier such as tok_…, fp_…, ord-…, a hex checksum or a
 *   timestamp); in free-form answers also a JSON number of that shape;
 * - a security code is the value of a field whose name holds a security-code name as a whole
 *   word (cvc, CVV2, card_cvn, securityCode, cvv_code, cvcValue, card_cvc_number) and whose value
 *   is shaped as one (3 or 4 digits: a flag such as `requireCvc: true` or `cvcCheck: "pass"` is
 *   the user's data), or 3 or 4 digits after such a word in text, filler words allowed ("cvc:
 *   123", "my CVC is 123", "CVV code: 1234").
 *
 * Every scanner is linear in its input (scan.ts). A value nested deeper than MAX_DEPTH is cut,
 * saying so, never passed on unchecked.
 */

import {
	cardNumberName,
	cardNumberValue,
	endsInSecurityCode,
	luhnValid,
	nameWords,
	REDACTED,
	redactCardNumberSpans,
	redactSensitiveText,
	cardNumberSpans,
} from './scan';
import { containsSecurityCode } from './detector';

export { luhnValid, REDACTED };

/** Read once (a global read per value is slow in a vm context, as under a test runner). */
const isArray = Array.isArray;
const entries = Object.entries;

/** How deep the gates read a value; what lies deeper is replaced by CUT_TOO_DEEP. */
export const MAX_DEPTH = 64;
export const CUT_TOO_DEEP = `[cut: nested deeper than ${MAX_DEPTH} levels]`;

/** What a field name is, by its words: read once per name (a service's records repeat their names). */
interface NameKind {
	/** Names a security code: ends in a code's name, or in one and `code`/`value`/`number` (cvv_code, cvcValue). */
	securityCode: boolean;
	/** Holds a code's name as a whole word anywhere (cvcCheck, requireCvc, card_cvc_status): a code only when the value is shaped as one. */
	mentionsCode: boolean;
	cardNumber: 'sure' | 'luhn' | undefined;
	/**
	 * Names another kind of number or id (giftCardNumber, orderNumber, trackingNumber, sku): its
	 * value is that id, never read as a card number in text.
	 */
	identifier: boolean;
}

/** Last words of names of ids and numbers that are not card numbers. */
const ID_WORDS = new Set(['number', 'num', 'no', 'nr', 'id', 'ids', 'code', 'ref', 'reference', 'sku', 'ean', 'upc', 'isbn', 'gtin', 'iban', 'bic']);

function identifierName(name: string): boolean {
	const words = nameWords(name);
	return words.length > 0 && ID_WORDS.has(words[words.length - 1]);
}

const nameKinds = new Map<string, NameKind>();

function kindOf(name: string): NameKind {
	let kind = nameKinds.get(name);
	if (kind === undefined) {
		const cardNumber = cardNumberName(name);
		const words = nameWords(name);
		kind = { securityCode: endsInSecurityCode(words), mentionsCode: containsSecurityCode(words), cardNumber, identifier: cardNumber === undefined && identifierName(name) };
		// Bounded: a service that sends endless distinct names only costs a read per name.
		if (nameKinds.size >= 4096) nameKinds.clear();
		if (name.length <= 128) nameKinds.set(name, kind);
	}
	return kind;
}

/** True when a field of this name is named as a card security code (errors: any value of it goes). */
export function isSecurityCodeName(name: string): boolean {
	return kindOf(name).securityCode;
}

/**
 * True when a field (or column) of this name is named as another kind of id or number than a card
 * number (order_number, invoice_id, sku, gift_card_number): a number under it is that id.
 */
export function isIdentifierName(name: string): boolean {
	return kindOf(name).identifier;
}

/** A value shaped as a security code: 3 or 4 digits (text or number), or a container holding one. */
function codeShaped(value: unknown, depth = 0): boolean {
	if (typeof value === 'string') {
		const trimmed = value.trim();
		return trimmed.length >= 3 && trimmed.length <= 4 && /^\d+$/.test(trimmed);
	}
	if (typeof value === 'number') return Number.isInteger(value) && value >= 0 && value <= 9999;
	if (value === null || typeof value !== 'object' || depth > 4) return false;
	return Object.values(value as Record<string, unknown>).some((inner) => codeShaped(inner, depth + 1));
}

/**
 * True when this field holds a card security code: a code's name among its words (cvc,
 * cvv_code, cvcValue, card_cvc_number) and its value shaped as one (3 or 4 digits): a flag such
 * as `requireCvc: true` or `cvcCheck: "pass"` stays.
 */
export function isSecurityCodeField(name: string, value: unknown): boolean {
	return kindOf(name).mentionsCode && codeShaped(value);
}

/** The fewest ASCII digits a card number (12 to 19) and a security code (3 or 4) have in the detector's specification (detector.ts). */
export const CARD_NUMBER_MIN_DIGITS = 12;
export const SECURITY_CODE_MIN_DIGITS = 3;

const DIGITS = '0123456789';

/**
 * True when the text holds at least `count` ASCII digits: one search per digit, stopped at
 * `count` (linear; a text with few digits, most of a record's texts, is passed over at the speed
 * of a native search instead of read by the detector).
 */
export function atLeastDigits(text: string, count: number): boolean {
	let found = 0;
	for (let d = 0; d < 10; d++) {
		const digit = DIGITS[d];
		for (let at = text.indexOf(digit); at !== -1; at = text.indexOf(digit, at + 1)) if (++found >= count) return true;
	}
	return false;
}

/** True when the text holds a card number standing alone. */
export function hasCardNumber(text: string): boolean {
	return text.length >= CARD_NUMBER_MIN_DIGITS && atLeastDigits(text, CARD_NUMBER_MIN_DIGITS) && cardNumberSpans(text, { mode: 'text' }).length > 0;
}

/** The text with every card number standing alone replaced. */
export function redactCardNumbers(text: string): string {
	return atLeastDigits(text, CARD_NUMBER_MIN_DIGITS) ? redactCardNumberSpans(text, { mode: 'text' }) : text;
}

/** The text with a security code after its name ("cvc: 123", "CVV2=1234") replaced. */
export function redactSecurityCodeText(text: string): string {
	return atLeastDigits(text, SECURITY_CODE_MIN_DIGITS) ? redactSensitiveText(text, { values: false }) : text;
}

/** The digits of a value shaped as a card number (12 to 19 digits, single spaces, dots or dashes between groups). */
function cardShapedDigits(value: string): string | undefined {
	const trimmed = value.trim();
	if (trimmed.length > 40 || !/^\d(?:[ .-]?\d){11,18}$/.test(trimmed)) return undefined;
	return trimmed.replace(/\D/g, '');
}

/** A card number by its field's kind: the value of a card-number field with 12 to 19 digits. */
function namedCardNumber(kind: NameKind | undefined, value: string | number): boolean {
	const card = kind?.cardNumber;
	if (card === undefined) return false;
	const digits = typeof value === 'number' ? (Number.isSafeInteger(value) ? String(value) : undefined) : cardShapedDigits(value);
	if (digits === undefined || digits.length < 12 || digits.length > 19) return false;
	return card === 'sure' || luhnValid(digits);
}

export interface CardDataOptions {
	/** Also card numbers standing alone in text (and as JSON numbers) and security codes after their name (free-form answers). */
	freeForm: boolean;
	/** Card numbers stay (Token → Reveal: what the user asked for); security-code fields still go. */
	keepCardNumbers?: boolean;
	/** A field named as a security code goes whatever its value but a flag (true/false) (revealed data: never a code, in any shape). */
	anyCodeName?: boolean;
}

/**
 * A copy without security-code fields, with card numbers replaced by REDACTED: in card-number
 * fields always, standing alone in text with `freeForm`. Nothing else changes; a value with
 * nothing to take out is returned as it is (no copy per record).
 */
export function withoutCardData(value: unknown, options: CardDataOptions, field?: string): unknown {
	return strip(value, options, field === undefined ? undefined : kindOf(field), 0);
}

/**
 * withoutCardData with the field's name already read: a name is read once where it stands (its
 * object's key), and the entries of a list under it take that reading, so a long name over a
 * long list costs one read, not one per entry.
 */
function strip(value: unknown, options: CardDataOptions, kind: NameKind | undefined, depth: number): unknown {
	if (typeof value === 'string') {
		if (options.keepCardNumbers === true) return value;
		if (namedCardNumber(kind, value)) return REDACTED;
		if (!options.freeForm || kind?.identifier === true) return value;
		return redactSecurityCodeText(redactCardNumbers(value));
	}
	if (typeof value === 'number') {
		if (options.keepCardNumbers === true) return value;
		if (namedCardNumber(kind, value)) return REDACTED;
		return options.freeForm && kind?.identifier !== true && cardNumberValue(value) ? REDACTED : value;
	}
	if (value === null || typeof value !== 'object') return value;
	if (depth >= MAX_DEPTH) return CUT_TOO_DEEP;
	if (isArray(value)) {
		let out: unknown[] | undefined;
		for (let i = 0; i < value.length; i++) {
			const kept = strip(value[i], options, kind, depth + 1);
			if (kept !== value[i] && out === undefined) out = value.slice(0, i);
			if (out !== undefined) out.push(kept);
		}
		return out ?? value;
	}
	const out: Record<string, unknown> = {};
	let changed = false;
	for (const [key, inner] of entries(value as Record<string, unknown>)) {
		const innerKind = kindOf(key);
		const code = (options.anyCodeName === true && innerKind.securityCode && typeof inner !== 'boolean') || (innerKind.mentionsCode && codeShaped(inner));
		if (code) {
			changed = true;
			continue;
		}
		const kept = strip(inner, options, innerKind, depth + 1);
		if (kept !== inner) changed = true;
		out[key] = kept;
	}
	return changed ? out : value;
}
