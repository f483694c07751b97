/**
 * Every check the node makes on its input before sending, with its source:
 * the spec's words (an error, nothing is sent) or the node's own rule (a
 * warning: an execution hint, the value is sent, "Skip Local Checks" turns it
 * off). The README's checks table is generated from this list
 * (scripts/operations-table.js) and test/checks-before-sending.test.ts runs an
 * example of every row, so the list, the README and the code cannot drift
 * apart. It is documentation, not node code: it lives outside nodes/ so it
 * never ships in the package.
 *
 * `input` rows are about what the node is given, not about a value the
 * service might accept (JSON that does not parse, a name given twice, two
 * options that contradict each other, nothing to send): errors.
 */
export interface Check {
	key: string;
	/** Operations it applies to. */
	where: string;
	field: string;
	rule: string;
	/** `spec`: the spec's words (quoted); `ours`: the node's own rule; `input`: about the node's input. */
	source: 'spec' | 'ours' | 'input';
	/** For `spec`: the words; for `ours` kept as an error: why. */
	words?: string;
	level: 'error' | 'warning';
	/**
	 * `trigger`: a check of the Vault Store Trigger and the credential test, not of the action node
	 * (no Skip Local Checks: a warning is logged); test/trigger-secrets.test.ts runs its examples.
	 */
	node?: 'trigger';
}

const spec = (key: string, where: string, field: string, rule: string, words: string): Check => ({
	key,
	where,
	field,
	rule,
	source: 'spec',
	words,
	level: 'error',
});
const ours = (key: string, where: string, field: string, rule: string): Check => ({ key, where, field, rule, source: 'ours', level: 'warning' });
/** The node's own rule, kept as an error: `why` says why. */
const kept = (key: string, where: string, field: string, rule: string, why: string): Check => ({
	key,
	where,
	field,
	rule,
	source: 'ours',
	words: why,
	level: 'error',
});
const input = (key: string, where: string, field: string, rule: string): Check => ({ key, where, field, rule, source: 'input', level: 'error' });

export const CHECKS_BEFORE_SENDING: Check[] = [
	// Every operation
	spec('pathId', 'every operation with an ID', 'store path IDs', 'prefix where given (License ID: lic_, from the license record); 12 to 48 characters', 'Path parameters: ... productId prefix `prd_`; orderId prefix `ord_` ... Every path id has length 12 to 48. License: id (prefix `lic_`)'),
	ours('pathIdChars', 'every operation with an ID', 'path IDs', 'letters, digits, _ and - only (the ID is sent encoded as one path segment; "." and ".." never pass the prefix and length rule)'),
	kept('pathIdRoute', 'every operation with an ID (every request)', 'path IDs', 'no slash, backslash, space, ";", "?", "#" or "%" (checked on the path as sent, decoded)', 'the route gate of every request (docs/money-safety.md): an ID must not change which route is called'),
	spec('vaultId', 'Token (all)', 'Token ID', 'starts with tok_', 'id | string | prefix `tok_`'),
	ours('fieldIdChars', 'Subscription Change Plan, License, Payout Create, Category, Product Update, Checkout, Dispute / Refund filters, Mandate', 'IDs in a body or a filter', 'letters, digits, _ and - only'),
	spec('idempotencyKey', 'refund, payout create, checkout pay, token create, custom call', 'Idempotency Key (Options)', '1 to 255 of A-Z a-z 0-9 _ -', 'Idempotency key | 1 to 255 chars from `A-Z a-z 0-9 _ -`'),
	input('extras', 'every operation', 'Additional Query Parameters / Additional Body Fields', 'a value has a name; a name is given once; not __proto__'),
	input('nothingToUpdate', 'Product / Meter / Token / Webhook Update, Subscription Change Plan', 'Update Fields', 'at least one field to send (Additional Body Fields count)'),
	input('nodeOptions', 'every operation', 'Limit, Options (Concurrency, Max Retries, Timeout, Return All Maximum, Maximum Amount)', 'ranges of the node\'s settings (never sent)'),
	// Token
	spec('tokenData', 'Token Create', 'Data', 'a JSON object (bank account, PII, custom)', '`data` (object, required, shape depends on type)'),
	spec('customData', 'Token Create (custom)', 'Data', 'at most 16 KiB as UTF-8 JSON', 'Custom token data | 16 KiB'),
	ours('emptyData', 'Token Create (bank account, PII)', 'Data', 'not an empty object'),
	spec('cardNumberRequired', 'Token Create (card)', 'Card Number', 'given', 'Card `data` fields: number, exp_month, exp_year, and optional cvc'),
	ours('cardDigits', 'Token Create (card)', 'Card Number', '12 to 19 digits'),
	ours('cardLuhn', 'Token Create (card)', 'Card Number', 'passes the Luhn check'),
	spec('expiryWhole', 'Token Create (card)', 'Expiry Month, Expiry Year', 'whole numbers', '`card`: brand, last4, exp_month (int), exp_year (int)'),
	ours('expiryMonth', 'Token Create (card)', 'Expiry Month', '1 to 12'),
	ours('expiryYear', 'Token Create (card)', 'Expiry Year', 'four digits'),
	ours('cardExpired', 'Token Create (card)', 'Expiry Month / Year', 'not in the past (a legacy import may be)'),
	ours('cvc', 'Token Create (card)', 'CVC', '3 or 4 digits'),
	ours('expiresAt', 'Token Create, Token Update', 'Expires At', 'in the future'),
	spec('fingerprint', 'Token Get Many', 'Fingerprint', 'starts with fp_', 'fingerprint | string | prefix `fp_`'),
	input('metadataKeys', 'Token Create, Token Update', 'Metadata, Set / Remove Metadata Keys, Clear Expiry', 'a key once; not both set and removed; Clear Expiry or Expires At'),
	// Checkout
	spec('estimateItems', 'Checkout Estimate', 'Items', '1 to 10', 'items | ... | required, 1 to 10 elements'),
	ours('sessionItems', 'Checkout Create Session', 'Items', '1 to 10 (the estimate\'s rule; a session\'s is not given)'),
	spec('itemQuantity', 'Checkout Estimate, Create Session', 'Items: Quantity', 'given, a whole number', 'quantity (integer)'),
	ours('itemQuantityMin', 'Checkout Estimate, Create Session', 'Items: Quantity', 'at least 1'),
	spec(
		'fieldIds',
		'Checkout items and Pay, Subscription Change Plan, License, Category, Product Update, Payout Create, Mandate, Dispute / Refund filters',
		'IDs in a body or a filter',
		'the prefix of their kind (prd_, ctg_, ord_, bnk_, cus_, tok_); 12 to 48 characters for store IDs (not the bank account ID)',
		'id | string | prefix `prd_`, length 12 to 48 ... Customer: id (prefix `cus_`) ... Payout bank account: id (prefix `bnk_`)',
	),
	spec('country', 'Checkout Estimate', 'Country', 'exactly 2 letters', 'country | string | required, exactly 2 chars, ISO 3166-1 alpha-2'),
	spec('estimateLengths', 'Checkout Estimate', 'State, Coupon Code, Tax ID', 'at most 64, 64, 32 characters', 'state | string | max 64 ... coupon_code | string | max 64 ... tax_id | string | max 32'),
	ours('urlForm', 'Checkout Create Session, Product Update, Webhook', 'URLs', 'an http(s) URL without spaces'),
	ours('email', 'Checkout Create Session', 'Customer Email', 'looks like an address (something@something)'),
	// Store records
	spec('productFields', 'Product Update', 'every field', 'lengths, >= 0 / >= 1, enums, at most 10 images, 20 variants, 20 options', 'title | string | 1 to 256 chars ... images | array of string | max 10 ... variants | array | max 20 (and the other rows of the Product table)'),
	ours('availability', 'Product Update', 'Available From / Until', 'From before Until'),
	spec('variantTypes', 'Product Update', 'Variants', 'images a list of text; inStock, trackStock true or false; quantity, position whole numbers', 'images (array of string), inStock (boolean), quantity (integer), trackStock (boolean), position (integer)'),
	ours('variantFields', 'Product Update', 'Variants', 'only the variant fields of the spec; quantity and position at least 0; price and compareAtPrice numbers of at least 0; id, title, slug, description, sku text'),
	ours('optionRows', 'Product Update', 'Options', 'a name, at least one value, position at least 0'),
	ours('subscriptionQuantity', 'Subscription Change Plan', 'Quantity', 'a whole number of at least 1'),
	ours('meterPrice', 'Meter Create, Update', 'Price Per Unit', 'at least 0'),
	spec('categoryFields', 'Category Create', 'every field', 'Name 1 to 128, Slug 2 to 128, Display Order 0 to 9999, Product IDs at most 100, ...', 'name | string | 1 to 128 ... displayOrder | integer | 0 to 9999 ... productIds | array of string | write only, max 100 (and the other rows of the Category table)'),
	ours('categoryNamed', 'Category Create', 'Name, Slug', 'given (an empty one is not sent)'),
	input('topLevel', 'Category Create', 'Top Level (No Parent) / Parent Category ID', 'not both'),
	spec('webhookUrl', 'Webhook Create, Update', 'URL', 'starts with https://, at most 512 characters', '`url` (string, required, max 512, must start with `https://`)'),
	spec('webhookEvents', 'Webhook Create, Update', 'Event Types, Note', 'at least one event; note at most 256', '`eventTypes` (array of event names, at least 1), `note` (string, max 256)'),
	spec('caseMessage', 'Case Add Message', 'Message', '1 to 4000 characters', '`body` (string, required, 1 to 4000)'),
	spec('licenseKey', 'License Verify', 'License Key', '1 to 512 characters', '`key` (string, required, 1 to 512)'),
	spec('searchText', 'Customer / Order Get Many', 'Search', 'at most 128 characters', 'a text filter (max 128 chars)'),
	spec('enums', 'every dropdown of a closed set (statuses the spec only saw are sent as typed)', 'enum fields', 'one of the listed values', 'productType | enum | `SUBSCRIPTION`, `DIGITAL_DOWNLOAD`, `LICENSE_KEY` (and every other enum the spec lists)'),
	spec('reportPeriod', 'Report Create', 'From, To', 'dates, at most 90 days apart', 'Report period | max 90 days per request'),
	ours('reportOrder', 'Report Create', 'From, To', 'From before To'),
	ours('overviewPeriod', 'Analytics Get Overview (custom)', 'From, To', 'From before To'),
	ours('months', 'Analytics Get Monthly Revenue', 'Months', 'at least 1'),
	spec('searchInputs', 'Search Resolve', 'Inputs', 'at least one input; sent 10 per request', 'up to 10 comma-separated inputs'),
	input('searchList', 'Search Resolve', 'Inputs', 'no empty entry'),
	ours('searchMany', 'Search Resolve', 'Inputs', 'at most 100 per item (more are sent too, 10 per request)'),
	ours('searchLength', 'Search Resolve', 'Inputs', 'each entry 1 to 256 characters'),
	ours('currency', 'Payout Create', 'Currency', 'three letters, upper case (sent as typed; a code in lower case is named as such: an ISO 4217 code the service shows in upper case)'),
	kept('amounts', 'Order Refund, Payout Create', 'Amount', 'more than 0', 'money safety (docs/money-safety.md): a refund or payout of 0 moves nothing and a negative one could move money the other way, and what the service does with either is not documented; the Maximum Amount and the budgets count only amounts more than 0'),
	kept('capAmounts', 'Order Refund, Payout Create, Checkout Pay and Custom API Call under a Maximum Amount or a budget', 'every amount-like field the body or query sends, Additional Body Fields and Query Parameters included', 'not below 0, and the write\'s own amount not 0 (checked on the request as sent)', 'money safety (docs/money-safety.md): a limit holds only amounts the node can count; a negative amount could move money the other way'),
	ours('refundMin', 'Order Refund', 'Amount', 'at least 0.01 (the field\'s two decimals)'),
	ours('bankAccountLength', 'Payout Create', 'Bank Account ID', '12 to 48 characters (the store\'s path IDs; the bank account record gives only its prefix)'),
	ours('payMethod', 'Checkout Pay', 'Payment Method', 'one of the methods an estimate offers (CARD, APPLE_PAY, ...)'),
	ours('caseStatus', 'Case Get Many', 'Status', 'upper case (sent as typed)'),
	ours('mandateFrequency', 'Mandate Create', 'Frequency', 'given (an empty one is not sent; a given one is one of the listed values)'),
	// The trigger and the credential test (node: 'trigger').
	{
		key: 'signingSecretShort',
		where: 'Vault Store Trigger (activation, deliveries)',
		field: 'Webhook Signing Secret, Previous Signing Secret',
		rule: 'at least 24 characters after an optional whsec_ (V2: at least 16 bytes), not one character repeated, no spaces (V1; a V2 key is base64, so a space fails activation, row below): else a warning in the log at activation (a short one typed in the credential dialog also shows a notice there); the secret is used as given, and the credential test passes',
		source: 'ours',
		level: 'warning',
		node: 'trigger',
	},
	{
		key: 'signingSecretEmpty',
		where: 'Vault Store Trigger (activation, deliveries), credential test',
		field: 'Webhook Signing Secret, Previous Signing Secret',
		rule: 'not blank and not only the whsec_ prefix (the credential test fails too, naming the field, with nothing sent)',
		source: 'input',
		level: 'error',
		node: 'trigger',
	},
	{
		...spec('signingSecretV2', 'Vault Store Trigger (activation, deliveries) with Signature Version V2', 'Webhook Signing Secret, Previous Signing Secret', 'base64 after an optional whsec_ (the V2 key)', 'Algorithm | Standard Webhooks v1 scheme'),
		node: 'trigger',
	},
	{
		...spec('endpointUrl', 'Vault Store Trigger (activation, with Manage Endpoint on)', "n8n's webhook URL (WEBHOOK_URL)", 'starts with https://, at most 512 characters (plain http:// only from a loopback n8n to a local stand-in of the service on a loopback Base URL)', '`url` (string, required, max 512, must start with `https://`)'),
		node: 'trigger',
	},
	input('customPath', 'Custom API Call', 'Path, Query Parameters, Body', 'below /v2/ (store) or the vault URL (vault), no traversal, no query in the path; JSON body'),
];
