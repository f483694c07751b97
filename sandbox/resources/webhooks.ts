/**
 * Webhook endpoints. Deliveries are signed with the store's signing secret (see ../deliveries.ts),
 * so no response carries a secret; in hostile mode `registrationSecret` (sb.hostile) each new
 * endpoint gets a secret of its own, returned once as `secret` in the creation answer and used
 * for its deliveries; sb.rotateEndpointSecret(id) replaces it, as a dashboard rotation would.
 * In hostile mode `normaliseWebhookUrls` the URL is stored (and answered, and read) in WHATWG
 * normal form: `https://N8N.Example.com:443/x` becomes `https://n8n.example.com/x`.
 *   POST   /v2/core/stores/:storeId/webhooks             {url, eventTypes, note?, signatureVersion?} -> 201
 *   GET    /v2/core/stores/:storeId/webhooks             list (inferred; page/limit)
 *   GET    /v2/stores/:storeId/webhooks/:webhookId       (also under /v2/core)
 *   PATCH  /v2/core/stores/:storeId/webhooks/:webhookId  url, eventTypes, note, signatureVersion (inferred path;
 *          also under /v2/stores, and disagreeing there only: disagree.ts UNPLACED_ROOTS)
 *   DELETE /v2/core/stores/:storeId/webhooks/:webhookId  -> {id, deleted: true} (also under /v2/stores)
 *   POST   /v2/stores/:storeId/webhooks/:webhookId/test  {eventType} -> sends one test delivery
 */
import { randomBytes } from 'node:crypto';

import { badRequest, both, core, Ctx, notFound, ok, paginate, SandboxApp, stores, v } from '../app';
import { WEBHOOK_EVENTS } from '../deliveries';
import { SIGNATURE_VERSIONS, WebhookEndpoint } from '../state';

export function register(app: SandboxApp): void {
	const { state } = app;

	app.route('POST', core('/webhooks'), (ctx) => {
		v.onlyFields(ctx.body, ['url', 'eventTypes', 'note', 'signatureVersion']);
		const now = ctx.iso();
		const endpoint: WebhookEndpoint = {
			id: app.newId('whk_'),
			storeId: state.store.id,
			url: parseUrl(app, ctx.body.url, true)!,
			eventTypes: parseEventTypes(ctx.body.eventTypes, true)!,
			note: v.str(ctx.body.note, 'note', { max: 256 }) ?? null,
			signatureVersion: v.oneOf(ctx.body.signatureVersion, 'signatureVersion', SIGNATURE_VERSIONS) ?? 'V2',
			createdAt: now,
			updatedAt: now,
		};
		if (app.hostile.registrationSecret) endpoint.secret = newEndpointSecret();
		state.webhooks.push(endpoint);
		return ok(endpoint.secret === undefined ? view(endpoint) : { ...view(endpoint), secret: endpoint.secret }, 201);
	});

	app.route('GET', core('/webhooks'), (ctx) => ok(paginate(state.webhooks, ctx.query, view)));

	app.route('GET', both('/webhooks/:webhookId'), (ctx) => ok(view(find(ctx))));

	app.route('PATCH', both('/webhooks/:webhookId'), (ctx) => {
		const endpoint = find(ctx);
		v.onlyFields(ctx.body, ['url', 'eventTypes', 'note', 'signatureVersion']);
		const b = ctx.body;
		endpoint.url = parseUrl(app, b.url) ?? endpoint.url;
		endpoint.eventTypes = parseEventTypes(b.eventTypes) ?? endpoint.eventTypes;
		if ('note' in b) endpoint.note = v.str(b.note, 'note', { max: 256 }) ?? null;
		endpoint.signatureVersion = v.oneOf(b.signatureVersion, 'signatureVersion', SIGNATURE_VERSIONS) ?? endpoint.signatureVersion;
		endpoint.updatedAt = ctx.iso();
		return ok(view(endpoint));
	});

	app.route('DELETE', both('/webhooks/:webhookId'), (ctx) => {
		const endpoint = find(ctx);
		state.webhooks.splice(state.webhooks.indexOf(endpoint), 1);
		return ok({ id: endpoint.id, deleted: true });
	});

	app.route('POST', stores('/webhooks/:webhookId/test'), (ctx) => {
		const endpoint = find(ctx);
		v.onlyFields(ctx.body, ['eventType']);
		const eventType = v.oneOf(ctx.body.eventType, 'eventType', WEBHOOK_EVENTS, { required: true })!;
		const messageId = app.deliver(endpoint.id, eventType, sampleData(eventType, ctx));
		return ok({ id: messageId, webhookId: endpoint.id, eventType, test: true });
	});

	function find(ctx: Ctx): WebhookEndpoint {
		const endpoint = state.webhooks.find((w) => w.id === ctx.params.webhookId);
		if (!endpoint) throw notFound('Webhook endpoint');
		return endpoint;
	}
}

/** A fresh V2-style signing secret (32 random bytes). */
export function newEndpointSecret(): string {
	return `whsec_${randomBytes(32).toString('base64')}`;
}

const view = (w: WebhookEndpoint) => ({
	id: w.id,
	url: w.url,
	eventTypes: w.eventTypes,
	note: w.note,
	signatureVersion: w.signatureVersion,
	createdAt: w.createdAt,
	updatedAt: w.updatedAt,
});

function parseUrl(app: SandboxApp, raw: unknown, required = false): string | undefined {
	const url = v.str(raw, 'url', { required, max: 512 });
	if (url === undefined) return undefined;
	const local = /^http:\/\/(127\.0\.0\.1|localhost)(:\d{1,5})?(\/|$)/.test(url);
	if (!url.startsWith('https://') && !(app.options.allowHttpWebhooks && local)) {
		throw badRequest('url', app.options.allowHttpWebhooks ? 'must start with https:// (or http://127.0.0.1 / http://localhost)' : 'must start with https://');
	}
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		throw badRequest('url', 'is not a valid URL');
	}
	return app.hostile.normaliseWebhookUrls ? parsed.href : url;
}

function parseEventTypes(raw: unknown, required = false): string[] | undefined {
	const list = v.arr(raw, 'eventTypes', { required, min: 1, max: WEBHOOK_EVENTS.length * 2 });
	return list && [...new Set(list.map((e, i) => v.oneOf(e, `eventTypes[${i}]`, WEBHOOK_EVENTS, { required: true })!))];
}

function sampleData(eventType: string, ctx: Ctx): Record<string, unknown> {
	const order = ctx.state.orders[0];
	if (eventType.startsWith('SUBSCRIPTION_')) return { test: true, subscriptionId: 'sub_test000000000000', status: 'ACTIVE' };
	return { test: true, orderId: order?.id ?? null, paymentId: order?.payment.id ?? null, amount: order?.amount ?? 0, currency: 'USD' };
}
