import type { CheckoutSession, Paylink } from '../sandbox/resources/checkout';
import { jsonOf, items, useSandbox } from './support/fixtures';

const f = useSandbox({ orders: 50 });

const rl = (value: string) => ({ __rl: true, mode: 'id', value });
const paylinks = () => f.sb.state.collections.checkoutPaylinks as Paylink[];
const sessions = () => (f.sb.state.collections.checkoutSessions ?? []) as CheckoutSession[];
const product = (title: string) => f.sb.state.products.find((p) => p.title === title)!;

async function openSession(paylinkId = paylinks()[0].id): Promise<string> {
	const r = await f.run({ resource: 'checkout', operation: 'paylinkCheckout', paylinkId: rl(paylinkId) });
	expect(r.error()).toBeUndefined();
	return String(jsonOf(r)[0].id);
}

describe('checkout estimate', () => {
	test('items from the fields: POST /v2/stores/{storeId}/checkouts/estimate with the snake_case body and the credential', async () => {
		const icons = product('Icon Pack');
		const fonts = product('Font Bundle');
		const r = await f.run({
			resource: 'checkout',
			operation: 'estimate',
			itemsInput: 'fields',
			items: { item: [{ productId: icons.id, quantity: 2 }, { productId: fonts.id, quantity: 1, variantId: '' }] },
			country: ' de ',
			additionalFields: { couponCode: 'SAVE10', state: '', taxId: '' },
		});
		expect(r.error()).toBeUndefined();
		const reqs = f.requests();
		expect(reqs).toHaveLength(1);
		expect(reqs[0].method).toBe('POST');
		expect(reqs[0].path).toBe(`/v2/stores/${f.sb.store.storeId}/checkouts/estimate`);
		expect(reqs[0].headers.authorization).toBe('[redacted]');
		expect(reqs[0].body).toEqual({
			items: [
				{ product_id: icons.id, quantity: 2 },
				{ product_id: fonts.id, quantity: 1 },
			],
			country: 'DE',
			coupon_code: 'SAVE10',
		});
		const [out] = jsonOf(r);
		// 2 x 12.50 + 45 = 70; 10 % off = 7; 19 % of 63 = 11.97.
		expect(out).toMatchObject({
			subtotal: 70,
			discount: { code: 'SAVE10', amount: 7, type: 'PERCENTAGE', value: 10 },
			tax: { rate: 19, amount: 11.97 },
			total: 74.97,
		});
		expect(out.items).toEqual([
			{ name: 'Icon Pack', amount: 12.5, quantity: 2, image: expect.any(String) },
			{ name: 'Font Bundle', amount: 45, quantity: 1, image: expect.any(String) },
		]);
		expect((out.merchant as { id: string }).id).toBe(f.sb.store.storeId);
		expect(out.available_payment_methods).toEqual(expect.arrayContaining(['CARD']));
	});

	test('items from JSON, with state and tax id', async () => {
		const plan = product('Team Plan');
		const r = await f.run({
			resource: 'checkout',
			operation: 'estimate',
			itemsInput: 'json',
			itemsJson: JSON.stringify([{ product_id: plan.id, quantity: 3 }]),
			country: 'US',
			additionalFields: { state: 'TX', taxId: 'US123456789' },
		});
		expect(r.error()).toBeUndefined();
		expect(f.requests()[0].body).toEqual({
			items: [{ product_id: plan.id, quantity: 3 }],
			country: 'US',
			state: 'TX',
			tax_id: 'US123456789',
		});
		expect(jsonOf(r)[0]).toMatchObject({ subtotal: 147, tax: { rate: 6.25, amount: 9.19 }, total: 156.19, discount: null });
	});

	test('a variant id is sent as variant_id and priced by the variant', async () => {
		const catalog = f.sb.state.collections.catalogProducts as { id: string; title: string; variants: { id: string; title: string; price: number }[] }[];
		const withVariants = catalog.find((p) => p.variants.length > 0)!;
		const variant = withVariants.variants[withVariants.variants.length - 1];
		const r = await f.run({
			resource: 'checkout',
			operation: 'estimate',
			items: { item: [{ productId: withVariants.id, quantity: 1, variantId: variant.id }] },
			country: 'ZZ',
		});
		expect(r.error()).toBeUndefined();
		expect(f.requests()[0].body).toEqual({ items: [{ product_id: withVariants.id, quantity: 1, variant_id: variant.id }], country: 'ZZ' });
		expect(jsonOf(r)[0]).toMatchObject({ subtotal: variant.price, total: variant.price, tax: { rate: 0, amount: 0 } });
	});

	test('a variant id over 128 characters is not refused by the node: the service decides (here: no such variant)', async () => {
		const product = (f.sb.state.collections.catalogProducts as { id: string }[])[0];
		const variantId = `var_${'v'.repeat(200)}`;
		const r = await f.run({
			resource: 'checkout',
			operation: 'estimate',
			items: { item: [{ productId: product.id, quantity: 1, variantId }] },
			country: 'ZZ',
		});
		expect(f.requests().map((q) => [q.status, q.body])).toEqual([[400, { items: [{ product_id: product.id, quantity: 1, variant_id: variantId }], country: 'ZZ' }]]);
		expect(r.error()?.description).toMatch(/variant not found/);
	});

	test('a VAT number in the EU exempts from tax; local payment methods follow the country', async () => {
		const r = await f.run({
			resource: 'checkout',
			operation: 'estimate',
			itemsInput: 'json',
			itemsJson: [{ product_id: product('Theme Kit').id, quantity: 1 }],
			country: 'NL',
			additionalFields: { taxId: 'NL123456789B01' },
		});
		expect(r.error()).toBeUndefined();
		const [out] = jsonOf(r);
		expect(out.tax).toEqual({ rate: 0, amount: 0 });
		expect(out.available_payment_methods).toEqual(expect.arrayContaining(['CARD', 'IDEAL']));
	});

	test('an unknown coupon is the service error with its field', async () => {
		const r = await f.run({
			resource: 'checkout',
			operation: 'estimate',
			items: { item: [{ productId: product('Icon Pack').id, quantity: 1 }] },
			country: 'US',
			additionalFields: { couponCode: 'NOPE' },
		});
		expect(r.error()?.message).toMatch(/HTTP 400/);
		expect(r.error()?.description).toMatch(/coupon_code: is not a valid coupon/);
	});

	describe('validation before any request', () => {
		const prd = () => product('Icon Pack').id;
		const cases: [string, () => Record<string, unknown>, RegExp][] = [
			['no items', () => ({ items: {} }), /"Items" must have 1 to 10 entries \(got 0\)/],
			[
				'11 items',
				() => ({ itemsInput: 'json', itemsJson: JSON.stringify(Array.from({ length: 11 }, () => ({ product_id: prd(), quantity: 1 }))) }),
				/"Items" must have 1 to 10 entries \(got 11\)/,
			],
			['JSON that is not an array', () => ({ itemsInput: 'json', itemsJson: '{"product_id":"x"}' }), /"Items \(JSON\)" must be a JSON array/],
			['invalid JSON', () => ({ itemsInput: 'json', itemsJson: '[{' }), /"Items \(JSON\)" must be valid JSON/],
			['a bad product id', () => ({ items: { item: [{ productId: 'ord_123456789012', quantity: 1 }] } }), /"Items 1: Product ID" must start with "prd_"/],
			['quantity 1.5', () => ({ items: { item: [{ productId: prd(), quantity: 1.5 }] } }), /"Items 1: Quantity" must be a whole number \(got 1.5\)/],
			['no quantity in JSON', () => ({ itemsInput: 'json', itemsJson: JSON.stringify([{ product_id: prd() }]) }), /"Items 1: Quantity" is required/],
			['a 3-letter country', () => ({ country: 'USA' }), /"Country" must be exactly 2 letters, an ISO 3166-1 alpha-2 code .* \(got "USA"\)/],
			['a numeric country', () => ({ country: '12' }), /"Country" must be exactly 2 letters/],
			['a long state', () => ({ additionalFields: { state: 's'.repeat(65) } }), /"State" must be at most 64 characters long \(got 65\)/],
			['a long coupon', () => ({ additionalFields: { couponCode: 'C'.repeat(65) } }), /"Coupon Code" must be at most 64 characters long \(got 65\)/],
			['a long tax id', () => ({ additionalFields: { taxId: 'T'.repeat(33) } }), /"Tax ID" must be at most 32 characters long \(got 33\)/],
		];
		test.each(cases)('%s', async (_, params, message) => {
			const r = await f.run({
				resource: 'checkout',
				operation: 'estimate',
				itemsInput: 'fields',
				items: { item: [{ productId: prd(), quantity: 1 }] },
				country: 'US',
				...params(),
			});
			expect(r.error()?.message).toMatch(message);
			expect(f.requests()).toHaveLength(0);
		});
	});
});

describe('paylink checkout', () => {
	test('POST /v2/storefront/paylinks/{paylinkId}/checkout without credentials opens a session', async () => {
		const link = paylinks()[0];
		const r = await f.run({ resource: 'checkout', operation: 'paylinkCheckout', paylinkId: rl(link.id) });
		expect(r.error()).toBeUndefined();
		const [req] = f.requests();
		expect(f.requests()).toHaveLength(1);
		expect(req.method).toBe('POST');
		expect(req.path).toBe(`/v2/storefront/paylinks/${link.id}/checkout`);
		expect(req.headers.authorization).toBeUndefined();
		expect(req.body).toBeUndefined();
		const [out] = jsonOf(r);
		expect(out).toMatchObject({ status: 'OPEN', paylinkId: link.id });
		expect(String(out.url)).toMatch(/^https:\/\//);
		expect(sessions().map((s) => s.id)).toContain(out.id);
	});

	test('an inactive paylink gives the service error', async () => {
		const inactive = paylinks().find((p) => !p.active)!;
		const r = await f.run({ resource: 'checkout', operation: 'paylinkCheckout', paylinkId: rl(inactive.id) });
		expect(r.error()?.message).toMatch(/HTTP 410/);
		expect(r.error()?.description).toMatch(/no longer active/);
	});

	test('a short paylink id fails before any request', async () => {
		const r = await f.run({ resource: 'checkout', operation: 'paylinkCheckout', paylinkId: rl('={{ "pl_1" }}') });
		expect(r.error()?.message).toMatch(/"Paylink ID" must be 12 to 48 characters long/);
		expect(f.requests()).toHaveLength(0);
	});
});

describe('checkout pay', () => {
	test('POST /v2/stores/{storeId}/checkouts/{sessionId}/pay with an Idempotency-Key; one ledger entry; PAYMENT_COMPLETED', async () => {
		const sessionId = await openSession();
		const emit = jest.spyOn(f.sb.app, 'emit');
		const before = f.sb.ledger.length;
		try {
			const r = await f.run({
				resource: 'checkout',
				operation: 'pay',
				sessionId: rl(sessionId),
				additionalFields: { paymentMethod: 'IDEAL' },
			});
			expect(r.error()).toBeUndefined();
			const [req] = f.requests();
			expect(f.requests()).toHaveLength(1);
			expect(req.method).toBe('POST');
			expect(req.path).toBe(`/v2/stores/${f.sb.store.storeId}/checkouts/${sessionId}/pay`);
			expect(req.body).toEqual({ paymentMethod: 'IDEAL' });
			expect(String(req.headers['idempotency-key'])).toMatch(/^[A-Za-z0-9_-]{1,255}$/);
			const [out] = jsonOf(r);
			expect(out).toMatchObject({ id: sessionId, status: 'PAID', payment: { status: 'COMPLETED', paymentMethod: { type: 'ideal' } } });
			expect(f.sb.ledger.slice(before)).toEqual([expect.objectContaining({ kind: 'checkoutPay', sessionId, key: req.headers['idempotency-key'] })]);
			expect(emit).toHaveBeenCalledWith('PAYMENT_COMPLETED', expect.objectContaining({ checkoutSessionId: sessionId }));
		} finally {
			emit.mockRestore();
		}
	});

	test('pay with a vault card token sends it and shows the card brand and last four', async () => {
		const sessionId = await openSession(paylinks()[1].id);
		const tokenId = 'tok_checkouttest0000000001';
		f.sb.state.tokens.set(tokenId, {
			id: tokenId,
			type: 'card',
			data: {},
			mask: { brand: 'mastercard', last4: '4444' },
			fingerprint: 'fp_checkouttest',
			metadata: {},
			expiresAt: null,
			createdAt: f.sb.clock.now(),
			updatedAt: f.sb.clock.now(),
		});
		const r = await f.run({
			resource: 'checkout',
			operation: 'pay',
			sessionId: rl(sessionId),
			additionalFields: { vaultCardId: tokenId },
		});
		expect(r.error()).toBeUndefined();
		expect(f.requests()[0].body).toEqual({ token: tokenId });
		expect(jsonOf(r)[0]).toMatchObject({ payment: { paymentMethod: { type: 'card', cardBrand: 'mastercard', cardLastFour: '4444' } } });
	});

	test('the same key again replays the payment; a new key is a clear "already paid" error; one payment', async () => {
		const sessionId = await openSession();
		const before = f.sb.ledger.length;
		const pay = (key: string) =>
			f.run({ resource: 'checkout', operation: 'pay', sessionId: rl(sessionId), options: { idempotencyKey: key } });

		const first = await pay('pay-key-1');
		expect(first.error()).toBeUndefined();
		const replay = await pay('pay-key-1');
		expect(replay.error()).toBeUndefined();
		expect(jsonOf(replay)[0]).toMatchObject({ id: sessionId, status: 'PAID', idempotentReplay: true });
		expect((jsonOf(replay)[0].payment as { id: string }).id).toBe((jsonOf(first)[0].payment as { id: string }).id);

		const again = await pay('pay-key-2');
		const error = again.error();
		expect(error?.message).toBe('This checkout session is already paid (HTTP 422)');
		expect(error?.description).toMatch(/paid once/);
		expect(f.requests().map((q) => q.status)).toEqual([422]);
		expect(f.sb.ledger.slice(before).filter((e) => e.kind === 'checkoutPay')).toHaveLength(1);
	});

	test('a 503 (the service did nothing) is retried with the same Idempotency-Key and pays once', async () => {
		const sessionId = await openSession();
		const before = f.sb.ledger.length;
		f.sb.faults.add({ kind: 'reply', status: 503, count: 1, match: { path: /\/pay$/ }, reply: { body: { ok: false, error: { code: 'unavailable', message: 'down (injected)' } } } });
		const r = await f.run({ resource: 'checkout', operation: 'pay', sessionId: rl(sessionId) });
		expect(r.error()).toBeUndefined();
		const reqs = f.requests();
		expect(reqs.filter((q) => q.method === 'POST').map((q) => q.status)).toEqual([503, 200]);
		expect(new Set(reqs.filter((q) => q.method === 'POST').map((q) => q.headers['idempotency-key'])).size).toBe(1);
		expect(f.sb.ledger.length - before).toBe(1);
	});

	test('each input item pays its own session with its own key', async () => {
		const ids = [await openSession(), await openSession()];
		const r = await f.run(
			{ resource: 'checkout', operation: 'pay', sessionId: rl('={{ $json.id }}') },
			items(...ids.map((id) => ({ id }))),
		);
		expect(r.error()).toBeUndefined();
		expect(jsonOf(r).map((x) => x.id)).toEqual(ids);
		expect(new Set(f.requests().map((q) => q.headers['idempotency-key'])).size).toBe(2);
	});

	test('bad inputs fail before any request', async () => {
		const sessionId = await openSession();
		const cases: [Record<string, unknown>, RegExp][] = [
			[{ sessionId: rl('={{ "cks_1" }}') }, /"Checkout Session ID" must be 12 to 48 characters long/],
			[{ sessionId: rl(sessionId), additionalFields: { vaultCardId: 'card_1234567890123' } }, /"Card Token ID" must start with "tok_"/],
		];
		for (const [params, message] of cases) {
			const r = await f.run({ resource: 'checkout', operation: 'pay', ...params });
			expect(r.error()?.message).toMatch(message);
			expect(f.requests()).toHaveLength(0);
		}
	});

	test('a payment method outside the known list is sent as given, with a warning (the list is what an estimate offers, not a rule of Pay)', async () => {
		const sessionId = await openSession();
		const parameters = { resource: 'checkout', operation: 'pay', sessionId: rl(sessionId), additionalFields: { paymentMethod: '={{ "SEPA_DEBIT" }}' } };
		const r = await f.run(parameters, undefined, { continueOnFail: true });
		const pay = f.requests().filter((q) => q.method === 'POST' && q.path.endsWith('/pay'));
		expect(pay).toHaveLength(1);
		expect(pay[0].body).toMatchObject({ paymentMethod: 'SEPA_DEBIT' });
		expect(r.hints()).toEqual([expect.objectContaining({ type: 'warning', message: expect.stringMatching(/"Payment Method" is not one the node knows .*\(got SEPA_DEBIT\)/) })]);
		const quiet = await f.run({ ...parameters, sessionId: rl(await openSession()), options: { skipLocalChecks: true } }, undefined, { continueOnFail: true });
		expect(quiet.hints()).toEqual([]);
	});
});
