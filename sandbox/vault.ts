/**
 * Vault token storage: records, fingerprints, masks, the CVC side store and the access log.
 * HTTP routes live in resources/tokens.ts; this file holds what tests also reach directly
 * (sandbox.vault.useCvc, sandbox.vault.accessLog).
 */
import { createHmac } from 'node:crypto';
import { badRequest, tooLarge } from './reply';
import { canonicalJson, Clock, isPlainObject } from './util';
import * as v from './validate';

export const TOKEN_TYPES = ['card', 'bank_account', 'pii', 'custom'] as const;
export type TokenType = (typeof TOKEN_TYPES)[number];

export interface TokenRecord {
	id: string;
	type: TokenType;
	data: Record<string, unknown>; // never contains cvc
	mask?: Record<string, unknown>;
	fingerprint: string;
	metadata: Record<string, unknown>;
	expiresAt: number | null;
	createdAt: number;
	updatedAt: number;
}

export interface AccessLogEntry {
	tokenId: string;
	action: 'reveal';
	at: string;
	keyId: string;
}

const CVC_TTL_MS = 3_600_000;
const CUSTOM_MAX_BYTES = 16 * 1024;

export class Vault {
	readonly accessLog: AccessLogEntry[] = [];
	private cvcs = new Map<string, { cvc: string; storedAt: number }>();

	constructor(
		readonly tokens: Map<string, TokenRecord>,
		private readonly clock: Clock,
		private readonly fingerprintKey: Buffer,
	) {}

	fingerprint(type: TokenType, data: Record<string, unknown>): string {
		return 'fp_' + createHmac('sha256', this.fingerprintKey).update(`${type}:${canonicalJson(data)}`).digest('hex').slice(0, 32);
	}

	/** A live token (expired ones are deleted on access), or undefined. */
	get(id: string): TokenRecord | undefined {
		this.purgeExpired();
		return this.tokens.get(id);
	}

	/** Live tokens, newest first. */
	list(): TokenRecord[] {
		this.purgeExpired();
		// Newest first; tokens made in the same millisecond, the later one first (a stable sort of the reversed insertion order).
		return [...this.tokens.values()].reverse().sort((a, b) => b.createdAt - a.createdAt);
	}

	delete(id: string): void {
		this.tokens.delete(id);
		this.cvcs.delete(id);
	}

	storeCvc(tokenId: string, cvc: string): void {
		this.cvcs.set(tokenId, { cvc, storedAt: this.clock.now() });
	}

	/** What a proxy request would do: take the CVC once. Undefined once used, after 1 h or after delete. */
	useCvc = (tokenId: string): string | undefined => {
		const held = this.cvcs.get(tokenId);
		this.cvcs.delete(tokenId);
		if (!held || this.clock.now() - held.storedAt >= CVC_TTL_MS || !this.get(tokenId)) return undefined;
		return held.cvc;
	};

	private purgeExpired(): void {
		const now = this.clock.now();
		for (const t of this.tokens.values()) if (t.expiresAt !== null && t.expiresAt <= now) this.delete(t.id);
		for (const [id, held] of this.cvcs) if (now - held.storedAt >= CVC_TTL_MS) this.cvcs.delete(id);
	}
}

/** Public view of a token (no data). */
export function tokenView(t: TokenRecord): Record<string, unknown> {
	return {
		object: 'token',
		id: t.id,
		type: t.type,
		fingerprint: t.fingerprint,
		...(t.mask ? { mask: t.mask } : {}),
		metadata: t.metadata,
		expires_at: t.expiresAt === null ? null : new Date(t.expiresAt).toISOString(),
		created_at: new Date(t.createdAt).toISOString(),
		updated_at: new Date(t.updatedAt).toISOString(),
	};
}

export function cardBrand(number: string): string {
	const n2 = Number(number.slice(0, 2));
	const n4 = Number(number.slice(0, 4));
	if (number.startsWith('4')) return 'visa';
	if ((n2 >= 51 && n2 <= 55) || (n4 >= 2221 && n4 <= 2720)) return 'mastercard';
	if (n2 === 34 || n2 === 37) return 'amex';
	if (number.startsWith('6011') || number.startsWith('65')) return 'discover';
	return 'unknown';
}

export function luhnValid(number: string): boolean {
	let sum = 0;
	for (let i = 0; i < number.length; i++) {
		let d = Number(number[number.length - 1 - i]);
		if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
		sum += d;
	}
	return sum % 10 === 0;
}

export interface ParsedTokenData {
	data: Record<string, unknown>;
	mask?: Record<string, unknown>;
	cvc?: string;
}

/**
 * Validates `data` for a token type and derives its mask. Field names of bank_account and pii
 * data are not given by the spec; the sandbox uses:
 *   bank_account: {account_number (required), routing_number?, bank_name?, country? (2 letters, default US)}
 *   pii: {value (required)}
 * Nor are the mask names of those two types: bank_name, last4, country and last4; disagreeing
 * (disagree.ts) bankName, lastFour, countryCode and lastChars.
 */
export function parseTokenData(type: TokenType, raw: unknown, disagree = false): ParsedTokenData {
	const data = v.obj(raw, 'data', { required: true })!;
	switch (type) {
		case 'card': {
			v.onlyFields(data, ['number', 'exp_month', 'exp_year', 'cvc'], 'card data');
			const number = v.str(data.number, 'data.number', { required: true, pattern: /^\d{12,19}$/ })!;
			if (!luhnValid(number)) throw badRequest('data.number', 'fails the Luhn check');
			const expMonth = v.int(data.exp_month, 'data.exp_month', { required: true, min: 1, max: 12 })!;
			const expYear = v.int(data.exp_year, 'data.exp_year', { required: true, min: 2000, max: 2100 })!;
			const cvc = v.str(data.cvc, 'data.cvc', { pattern: /^\d{3,4}$/ });
			return {
				data: { number, exp_month: expMonth, exp_year: expYear },
				mask: { brand: cardBrand(number), last4: number.slice(-4), exp_month: expMonth, exp_year: expYear, funding: 'credit', country: 'US' },
				cvc,
			};
		}
		case 'bank_account': {
			v.onlyFields(data, ['account_number', 'routing_number', 'bank_name', 'country'], 'bank_account data');
			const accountNumber = v.str(data.account_number, 'data.account_number', { required: true, pattern: /^[A-Za-z0-9]{4,34}$/ })!;
			const routingNumber = v.str(data.routing_number, 'data.routing_number', { max: 34 });
			const bankName = v.str(data.bank_name, 'data.bank_name', { max: 128 }) ?? null;
			const country = v.str(data.country, 'data.country', { pattern: /^[A-Z]{2}$/ }) ?? 'US';
			return {
				data: { account_number: accountNumber, ...(routingNumber ? { routing_number: routingNumber } : {}), bank_name: bankName, country },
				mask: disagree
					? { bankName, lastFour: accountNumber.slice(-4), countryCode: country }
					: { bank_name: bankName, last4: accountNumber.slice(-4), country },
			};
		}
		case 'pii': {
			v.onlyFields(data, ['value'], 'pii data');
			const value = v.str(data.value, 'data.value', { required: true, max: 1024 })!;
			return { data: { value }, mask: disagree ? { lastChars: value.slice(-4) } : { last4: value.slice(-4) } };
		}
		case 'custom': {
			if (Buffer.byteLength(JSON.stringify(data), 'utf8') > CUSTOM_MAX_BYTES) {
				throw tooLarge('data: custom token data must be at most 16 KiB as UTF-8 JSON');
			}
			return { data };
		}
	}
}

/** Metadata: an object; values of any JSON type (list filters match top-level strings only); no key limit. */
export function parseMetadata(raw: unknown, field = 'metadata'): Record<string, unknown> | undefined {
	const m = v.obj(raw, field);
	return m && isPlainObject(m) ? m : undefined;
}
