import { STORE_CREDENTIAL } from '../../../shared/credentials';
import { opt } from '../../../shared/readers';
import { collectionField, returnAllFields } from '../../properties';
import { perVersion } from '../../versions';
import type { Operation, Params, Resource } from '../../operation';

/**
 * Bank account ids of payouts start with bnk_ (the bank account record gives only the prefix). It is
 * sent in the body, not the path, so the 12 to 48 of path ids only warns (bankAccountId below).
 */
export const BANK_ACCOUNT_ID = { label: 'Bank Account ID', prefix: 'bnk_', anyLength: true };

function bankAccountId(p: Params, value: unknown): string {
	const id = p.v.id(BANK_ACCOUNT_ID, value);
	if (id.length < 12 || id.length > 48) {
		p.v.warn(`"Bank Account ID" is not 12 to 48 characters long, the length of the store's IDs (got ${id.length})`);
	}
	return id;
}

/** The smallest amount the Amount field offers (two decimals); the request needs more than 0. */
const AMOUNT_MIN = 0.01;

const create: Operation = {
	value: 'create',
	name: 'Create',
	action: 'Create a payout',
	description:
		'Request a payout of the store balance to a bank account. The output carries the fee quote (standard_payout_fee, cross_border_payout_fee, foreign_exchange_fee). Sends an Idempotency-Key, so a retry never pays out twice.',
	money: {
		amount: 'amount',
		currency: 'currency',
		amountParameter: 'amount',
		answerAmount: ['amount', 'payout.amount'],
		answerCurrency: ['currency', 'payout.currency'],
		// Currency left empty is the store currency: a spending budget counts it there.
		currencyRead: { path: '', currency: ['currency'] },
	},
	method: 'POST',
	family: 'stores',
	path: '/payouts',
	idempotent: 'honoured',
	notes: 'inferred body names amount, bankAccountId, currency',
	body: (p) => {
		const f = p.fields('additionalFields');
		const currency =
			opt(f, 'currency', (v) => p.v.string('Currency', v).trim());
		if (currency !== undefined && !/^[A-Za-z]{3}$/.test(currency)) {
			p.v.warn(`"Currency" is not a three-letter currency code such as USD (got ${currency.slice(0, 20)})`);
		} else if (currency !== undefined && currency !== currency.toUpperCase()) {
			p.v.warn(
				`"Currency" ${currency} is a currency code (ISO 4217, three letters) written in lower case: the service shows these codes in upper case (${currency.toUpperCase()}), only the supportedCurrencies of Get Bank Accounts in lower case. It was sent as typed (${currency}); if the service refuses it, type ${currency.toUpperCase()}`,
			);
		}
		const amount = p.v.number('Amount', p.get('amount'), { min: 0 });
		if (amount <= 0) p.v.fail(`"Amount" must be greater than 0 (got ${amount})`);
		return {
			amount,
			bankAccountId: opt(f, 'bankAccountId', (v) => bankAccountId(p, v)),
			currency,
		};
	},
	fields: [
		// Version 1 opened the field at 0 (refused when run): a saved version-1 node left at it keeps 0.
		...perVersion(
			{
				displayName: 'Amount',
				name: 'amount',
				type: 'number',
				required: true,
				typeOptions: { minValue: AMOUNT_MIN, numberPrecision: 2 },
				default: AMOUNT_MIN,
				description: 'Amount to pay out, greater than 0, in the payout currency',
			},
			{ default: 0, typeOptions: { minValue: 0, numberPrecision: 2 } },
		),
		collectionField('additionalFields', [
			{
				displayName: 'Bank Account ID',
				name: 'bankAccountId',
				type: 'string',
				default: '',
				placeholder: 'bnk_...',
				description:
					'Bank account to pay out to (starts with bnk_; see Get Bank Accounts). Leave empty for the primary account.',
			},
			{
				displayName: 'Currency',
				name: 'currency',
				type: 'string',
				default: '',
				placeholder: 'USD',
				description:
					'Three-letter currency code of the payout; must be one the bank account supports. Leave empty for the store currency.',
			},
		]),
	],
};

const getAll: Operation = {
	value: 'getAll',
	name: 'Get Many',
	action: 'Get many payouts',
	description: 'List the payouts of the store with amount, fee, status, reference and payout method',
	method: 'GET',
	family: 'core',
	path: '/payouts',
	list: 'paged',
	fields: returnAllFields,
};

const getBankAccounts: Operation = {
	value: 'getBankAccounts',
	name: 'Get Bank Accounts',
	action: 'Get the payout bank accounts',
	description:
		'List the bank accounts payouts can go to, one item per account: primary flag, status, last 4 digits, bank, country, supported currencies and payout speeds',
	method: 'GET',
	family: 'core',
	path: '/payouts/bank-accounts',
	list: 'client',
	fields: returnAllFields,
};

/** Credits to and debits from the payout balance (settlements, refunds, fees). */
function balanceList(direction: 'credit' | 'debit'): Operation {
	const plural = direction === 'credit' ? 'Credits' : 'Debits';
	return {
		value: direction === 'credit' ? 'getCredits' : 'getDebits',
		name: `Get Many ${plural}`,
		action: `Get many payout balance ${plural.toLowerCase()}`,
		description:
			direction === 'credit'
				? 'List what was added to the payout balance (e.g. settlements), with amount, reason and date'
				: 'List what was taken from the payout balance (e.g. refunds and dispute fees), with amount, reason and date',
		method: 'GET',
		family: 'core',
		path: `/payouts/${plural.toLowerCase()}`,
		list: 'paged',
		inferred: true,
		notes: 'route and record fields inferred',
		fields: returnAllFields,
	};
}

/** Payouts of the store balance, and the bank accounts they go to. */
export const payout: Resource = {
	value: 'payout',
	name: 'Payout',
	description: 'Payouts of the store balance and the bank accounts they go to',
	credential: STORE_CREDENTIAL,
	operations: [create, getAll, getBankAccounts, balanceList('credit'), balanceList('debit')],
};
