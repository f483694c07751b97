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
	readFirst?: {
		/** Path below the same root, with the route's `{ids}`, e.g. `/checkouts/{sessionId}`. */
		path: string;
		/** Where its answer carries the amount and the currency. */
		amount: string[];
		currency?: string[];
	};
}
