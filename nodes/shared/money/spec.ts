/**
 * What a money-moving route declares: where its amount and currency sit in the request and in
 * the answer. An operation row declares it once (`money`); the route table (routes.ts) carries
 * it to every path that reaches the route, Custom API Call included.
 */
export interface MoneySpec {
	/** Body key of the operation's own amount (absent: the request carries no amount). */
	amount?: string;
	/** Body key of the currency in the request. */
	currency?: string;
	/** Where the answer carries the amount / currency the service recorded (dot paths, first found wins). */
	answerAmount: string[];
	answerCurrency: string[];
	/** The amount is the largest number at the declared places (a total with tax over an amount), not the first found. */
	largest?: true;
	/** Id prefixes of records the answer may be instead of this write's own (the spec's `ord_`: the order): not compared. */
	otherRecords?: Record<string, string>;
	/** What the request means without an amount, for messages ("a full refund"). */
	withoutAmount?: string;
	/**
	 * The request carries no amount, but the amount it will move can be read first (Pay: the
	 * session's total): under a Maximum Amount that read comes before the write, and the write is
	 * refused when it fails or shows no amount.
	 */
	/**
	 * Where the currency the write moves is read when the request does not state one (a refund: its
	 * order's; a payout left in the store currency: the store's), so a spending budget counts it in
	 * that currency. Read only under a budget, once per route and run. `path` is below the store
	 * API's root (the store's record routes: `/orders/{orderId}`; '' the store itself).
	 */
	currencyRead?: { path: string; currency: string[] };
	readFirst?: {
		/** Path below the same root, with the route's `{ids}`, e.g. `/checkouts/{sessionId}`. */
		path: string;
		/** Where its answer carries the amount and the currency. */
		amount: string[];
		currency?: string[];
	};
}

/**
 * The user's corrections of the names a row's money declaration guesses (the node's Options), for
 * the row's own route: where the answer states what the service recorded, and (a `readFirst`
 * row) the route the amount is read from first and where its answer states it. Absent: the row's own.
 */
export interface MoneyNames {
	answerAmount?: string[];
	answerCurrency?: string[];
	readPath?: string;
	readAmount?: string[];
	readCurrency?: string[];
}

/** The options that set each correction, as the editor names them (messages point at them). */
export const CORRECTING_OPTIONS = {
	answerAmount: 'Recorded Amount Fields',
	answerCurrency: 'Recorded Currency Fields',
	readPath: 'Total Read Route',
	readAmount: 'Total Amount Fields',
	readCurrency: 'Total Currency Fields',
} as const satisfies Record<keyof MoneyNames, string>;

/** A declaration with the user's corrections applied; the declaration itself when there are none. */
export function correctedSpec(spec: MoneySpec, names: MoneyNames | undefined): MoneySpec {
	if (names === undefined) return spec;
	const read = spec.readFirst;
	return {
		...spec,
		answerAmount: names.answerAmount ?? spec.answerAmount,
		answerCurrency: names.answerCurrency ?? spec.answerCurrency,
		...(read !== undefined
			? {
					readFirst: {
						path: names.readPath ?? read.path,
						amount: names.readAmount ?? read.amount,
						...(names.readCurrency ?? read.currency ? { currency: names.readCurrency ?? read.currency } : {}),
					},
				}
			: {}),
	};
}
