/**
 * Card data, recognised by context so that legitimate data is never touched:
 *
 * - a card number is a field named as one (card_number, cardNumber, pan, number in a card
 *   object ...) whose value is 12 to 19 digits (spaces, dots or dashes between them), or a run of
 *   12 to 19 digits standing alone in text (not part of a word: never inside an identifier such
 *   as tok_..., fp_..., ord-..., a hex checksum or a timestamp), Luhn-valid and starting with 2
 *   to 6 as the card networks' numbers do (so millisecond timestamps, which start with 1, are not);
 * - a security code is the value of a field named like one (cvc, CVV2, card_cvc, securityCode)
 *   in any casing, or 3 or 4 digits right after such a word in text ("cvc: 123").
 */

export const REDACTED = '[redacted]';

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

/** Names of a card security code, compared without case and separators: ends in cvc, cvv, csc (optionally 2). */
const SECURITY_CODE_NAME = /(?:cvc|cvv|csc)2?$|securitycode|cardcode|cardverification(?:value|code)?/;

/** True when a field of this name holds a card security code. */
export function isSecurityCodeName(name: string): boolean {
	return SECURITY_CODE_NAME.test(name.toLowerCase().replace(/[^a-z0-9]/g, ''));
}

/** Names of a card number field (compared without case and separators). */
const CARD_NUMBER_NAME = /^(?:card|credit|debit|primary(?:account)?|account)?(?:number|num|no|pan)$|cardnumber|cardnum|^pan$/;
/** Names that say "card number" without doubt (Luhn not required). */
const SURE_CARD_NUMBER_NAME = /cardnumber|cardnum|^pan$|primaryaccountnumber/;

export function isCardNumberName(name: string): boolean {
	return CARD_NUMBER_NAME.test(name.toLowerCase().replace(/[^a-z0-9]/g, ''));
}

/** The digits of a value shaped as a card number (12 to 19 digits, single spaces, dots or dashes between groups). */
function cardShapedDigits(value: string): string | undefined {
	const trimmed = value.trim();
	if (!/^\d(?:[ .-]?\d){11,18}$/.test(trimmed)) return undefined;
	return trimmed.replace(/\D/g, '');
}

/**
 * A run of 12 to 19 digits (single space, dot or dash between groups) standing alone: not
 * preceded by a letter, digit, underscore or an identifier's joining character, not followed by
 * a letter, digit or underscore (nor by a separator and another digit: a longer number).
 */
const STANDALONE_RUN = /(?<![A-Za-z0-9_+])(?<![A-Za-z0-9_][-./:#+])\d(?:[ .-]?\d){11,18}(?![A-Za-z0-9_])(?![ .\-/:]\d)/g;

function networkCard(digits: string): boolean {
	return /^[2-6]/.test(digits) && luhnValid(digits);
}

/** True when the text holds a card number standing alone. */
export function hasCardNumber(text: string): boolean {
	for (const match of text.matchAll(STANDALONE_RUN)) {
		if (networkCard(match[0].replace(/\D/g, ''))) return true;
	}
	return false;
}

/** The text with every card number standing alone replaced. */
export function redactCardNumbers(text: string): string {
	if (text.length < 12) return text;
	return text.replace(STANDALONE_RUN, (match) => (networkCard(match.replace(/\D/g, '')) ? REDACTED : match));
}

const SECURITY_CODE_WORD = '[A-Za-z_-]*?(?:cvc|cvv|csc)2?|security[ _-]?code';
const SECURITY_CODE_NEAR = new RegExp(`(\\b(?:${SECURITY_CODE_WORD})\\b["']?\\W{0,8})\\d{3,4}\\b`, 'gi');

/** The text with a security code after its name ("cvc: 123", "CVV2=1234") replaced. */
export function redactSecurityCodeText(text: string): string {
	return text.replace(SECURITY_CODE_NEAR, (_, name: string) => `${name}${REDACTED}`);
}

/** A card number by its field's name: the value of a card-number field with 12 to 19 digits. */
function namedCardNumber(field: string | undefined, value: string | number): boolean {
	if (field === undefined || !isCardNumberName(field)) return false;
	const digits = typeof value === 'number' ? (Number.isSafeInteger(value) ? String(value) : undefined) : cardShapedDigits(value);
	if (digits === undefined) return false;
	const sure = SURE_CARD_NUMBER_NAME.test(field.toLowerCase().replace(/[^a-z0-9]/g, ''));
	return sure || luhnValid(digits);
}

export interface CardDataOptions {
	/** Also card numbers standing alone in text and security codes after their name (free-form answers). */
	freeForm: boolean;
	/** Card numbers stay (Token → Reveal: what the user asked for); security-code fields still go. */
	keepCardNumbers?: boolean;
}

/**
 * A copy without security-code fields, with card numbers replaced by REDACTED: in card-number
 * fields always, standing alone in text with `freeForm`. Nothing else changes.
 */
export function withoutCardData(value: unknown, options: CardDataOptions, field?: string, depth = 0): unknown {
	if (depth > 30) return value;
	if (options.keepCardNumbers === true && (typeof value === 'string' || typeof value === 'number')) return value;
	if (typeof value === 'string') {
		if (namedCardNumber(field, value)) return REDACTED;
		if (!options.freeForm) return value;
		return redactSecurityCodeText(redactCardNumbers(value));
	}
	if (typeof value === 'number') return namedCardNumber(field, value) ? REDACTED : value;
	// Copy on write: a value with nothing to take out is returned as it is (no copy per record).
	if (Array.isArray(value)) {
		const out = value.map((entry) => withoutCardData(entry, options, field, depth + 1));
		return out.every((entry, i) => entry === value[i]) ? value : out;
	}
	if (value !== null && typeof value === 'object') {
		const out: Record<string, unknown> = {};
		let changed = false;
		for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
			if (isSecurityCodeName(key)) {
				changed = true;
				continue;
			}
			const kept = withoutCardData(inner, options, key, depth + 1);
			if (kept !== inner) changed = true;
			out[key] = kept;
		}
		return changed ? out : value;
	}
	return value;
}
