/**
 * Payouts and payout bank accounts.
 *   GET  /v2/core/stores/:storeId/payouts                 list (page, limit), newest first
 *   GET  /v2/core/stores/:storeId/payouts/bank-accounts   plain array of bank accounts (no pagination wrapper)
 *   POST /v2/stores/:storeId/payouts                      {amount (> 0), bankAccountId? (bnk_, default the
 *        primary account), currency? (3 letters, default the store currency; must be supported by the
 *        account)} -> 201 payout + currency + fee_quote {standard_payout_fee, cross_border_payout_fee,
 *        foreign_exchange_fee, total_fee}; honours Idempotency-Key; also under /v2/core.
 *        Ledger kind 'payout' (one entry per effect); 422 insufficient_balance / currency_not_supported.
 * The create body names, payout ids (po_), status values and fee amounts are our choice (not shown).
 * Disagreeing (disagree.ts): the create answer's amount is the net amount (after the fee), the asked
 * one grossAmount.
 * Seed: collections 'payoutBankAccounts' (2 accounts: primary US/usd, secondary DE/eur+usd) and
 * 'payouts' (40 records) at fixed dates before the seed anchor.
 */
import { both, core, badRequest, ok, paginate, SandboxApp, unprocessable, v } from '../app';
import { SEED_ANCHOR } from '../state';
import { round2, Rng } from '../util';
import { answersDiffer } from '../disagree';

const DAY = 86_400_000;
const STANDARD_FEE = 0.25;
const CROSS_BORDER_RATE = 0.0025;
const FX_RATE = 0.01;
const STARTING_BALANCE = 25_000;
const PAYOUT_STATUSES = ['PAID', 'PAID', 'PAID', 'IN_TRANSIT', 'FAILED'] as const;

export interface BankAccount {
	id: string;
	isPrimary: boolean;
	status: string;
	last4: string;
	bankName: string;
	country: string;
	routingNumber: string;
	bankAccountType: string;
	supportedCurrencies: string[];
	availablePayoutSpeeds: string[];
	createdAt: string;
	updatedAt: string;
}

export interface PayoutRecord {
	id: string;
	amount: number;
	fee: number;
	currency: string;
	status: string;
	referenceId: string;
	bankAccountId: string;
	createdAt: string;
	updatedAt: string;
}

const iso = (ms: number) => new Date(ms).toISOString();

export function seedBankAccounts(rng: Rng): BankAccount[] {
	return [
		{
			id: rng.id('bnk_'),
			isPrimary: true,
			status: 'VERIFIED',
			last4: String(rng.int(1000, 9999)),
			bankName: 'First Sandbox Bank',
			country: 'US',
			routingNumber: '110000000',
			bankAccountType: 'checking',
			supportedCurrencies: ['usd'],
			availablePayoutSpeeds: ['standard', 'instant'],
			createdAt: iso(SEED_ANCHOR - 390 * DAY),
			updatedAt: iso(SEED_ANCHOR - 300 * DAY),
		},
		{
			id: rng.id('bnk_'),
			isPrimary: false,
			status: 'VERIFIED',
			last4: String(rng.int(1000, 9999)),
			bankName: 'Sandbox Bank Europe',
			country: 'DE',
			routingNumber: '10010010',
			bankAccountType: 'checking',
			supportedCurrencies: ['eur', 'usd'],
			availablePayoutSpeeds: ['standard'],
			createdAt: iso(SEED_ANCHOR - 200 * DAY),
			updatedAt: iso(SEED_ANCHOR - 200 * DAY),
		},
	];
}

export function seedPayouts(rng: Rng, accounts: BankAccount[]): PayoutRecord[] {
	const out: PayoutRecord[] = [];
	for (let i = 0; i < 40; i++) {
		const account = rng.chance(0.8) ? accounts[0] : accounts[1];
		const createdMs = SEED_ANCHOR - (i * 7 + rng.int(0, 3)) * DAY - rng.int(0, 23) * 3_600_000;
		const amount = round2(rng.int(20_000, 500_000) / 100);
		const status = i < 2 ? 'IN_TRANSIT' : rng.pick(PAYOUT_STATUSES);
		out.push({
			id: rng.id('po_'),
			amount,
			fee: round2(STANDARD_FEE + (account.country !== 'US' ? amount * CROSS_BORDER_RATE : 0)),
			currency: 'USD',
			status: i < 2 ? 'IN_TRANSIT' : status,
			referenceId: 'ref_' + rng.chars(16),
			bankAccountId: account.id,
			createdAt: iso(createdMs),
			updatedAt: iso(createdMs + (status === 'PAID' ? 2 * DAY : 3_600_000)),
		});
	}
	return out;
}

export function register(app: SandboxApp): void {
	const { state } = app;
	const accounts = () => app.collection<BankAccount>('payoutBankAccounts', seedBankAccounts);
	const payouts = () => app.collection<PayoutRecord>('payouts', (rng) => seedPayouts(rng, accounts()));
	let balance = STARTING_BALANCE;
	payouts(); // seed at start, so readers without an init see the records

	const view = (p: PayoutRecord) => {
		const account = accounts().find((a) => a.id === p.bankAccountId);
		return {
			id: p.id,
			amount: p.amount,
			fee: p.fee,
			status: p.status,
			referenceId: p.referenceId,
			payoutMethod: { id: p.bankAccountId, isPrimary: account?.isPrimary ?? false, status: account?.status ?? null },
			createdAt: p.createdAt,
			updatedAt: p.updatedAt,
		};
	};

	app.route('GET', core('/payouts'), (ctx) => ok(paginate(payouts(), ctx.query, view)));

	app.route('GET', core('/payouts/bank-accounts'), () => ok(accounts().map((a) => ({ ...a }))));

	app.route('POST', both('/payouts'), (ctx) => {
		const b = ctx.body;
		v.onlyFields(b, ['amount', 'bankAccountId', 'currency']);
		const amount = v.num(b.amount, 'amount', { required: true, gt: 0 })!;
		if (round2(amount) !== amount) throw badRequest('amount', 'must have at most 2 decimals');
		const bankAccountId = v.id(b.bankAccountId, 'bankAccountId', 'bnk_');
		const currency = (v.str(b.currency, 'currency', { pattern: /^[A-Za-z]{3}$/ }) ?? state.store.currency).toUpperCase();
		const account = bankAccountId === undefined ? accounts().find((a) => a.isPrimary) : accounts().find((a) => a.id === bankAccountId);
		if (!account) throw badRequest('bankAccountId', 'does not match a payout bank account of this store');
		if (!account.supportedCurrencies.includes(currency.toLowerCase())) {
			throw unprocessable('currency_not_supported', `The bank account does not support ${currency} (supported: ${account.supportedCurrencies.join(', ')})`);
		}
		if (amount > balance) throw unprocessable('insufficient_balance', `The available balance is ${round2(balance)} ${state.store.currency}`);
		const feeQuote = {
			standard_payout_fee: STANDARD_FEE,
			cross_border_payout_fee: account.country !== state.store.country ? round2(amount * CROSS_BORDER_RATE) : 0,
			foreign_exchange_fee: currency !== state.store.currency ? round2(amount * FX_RATE) : 0,
		};
		const fee = round2(feeQuote.standard_payout_fee + feeQuote.cross_border_payout_fee + feeQuote.foreign_exchange_fee);
		const now = ctx.iso();
		const payout: PayoutRecord = {
			id: app.newId('po_'),
			amount,
			fee,
			currency,
			status: 'PENDING',
			referenceId: app.newId('ref_'),
			bankAccountId: account.id,
			createdAt: now,
			updatedAt: now,
		};
		balance = round2(balance - amount);
		payouts().unshift(payout);
		ctx.commit('payout', { payoutId: payout.id, amount, currency, bankAccountId: account.id });
		const answer = { ...view(payout), currency, fee_quote: { ...feeQuote, total_fee: fee, currency } };
		return ok(answersDiffer(app.disagree) ? { ...answer, amount: round2(amount - fee), grossAmount: amount } : answer, 201);
	}, { idempotency: 'honoured' });
}
