import type { IHttpRequestMethods } from 'n8n-workflow';

import type { Family } from './transport/request';

/**
 * The webhook endpoint routes of the service, written once: the Vault Store node's Webhook resource
 * (nodes/VaultStore/resources/webhook) spreads them into its operation rows, and the trigger's lifecycle
 * (nodes/VaultStoreTrigger/webhookMethods.ts) registers, reads, updates, tests and deletes its endpoint through
 * them. `{webhookId}` is filled from the endpoint's id (webhookPath).
 */
export interface WebhookRoute {
	readonly family: Family;
	readonly method: IHttpRequestMethods;
	readonly path: string;
}

export const WEBHOOK_ROUTES = {
	create: { family: 'core', method: 'POST', path: '/webhooks' },
	get: { family: 'stores', method: 'GET', path: '/webhooks/{webhookId}' },
	update: { family: 'core', method: 'PATCH', path: '/webhooks/{webhookId}' },
	delete: { family: 'core', method: 'DELETE', path: '/webhooks/{webhookId}' },
	sendTest: { family: 'stores', method: 'POST', path: '/webhooks/{webhookId}/test' },
} as const satisfies Record<string, WebhookRoute>;

/** A route's path with the endpoint id filled in (one path segment, encoded). */
export function webhookPath(route: WebhookRoute, webhookId: string): string {
	return route.path.replace('{webhookId}', encodeURIComponent(webhookId));
}

/** The family, method and filled-in path of a route: the start of a transport request. */
export function webhookRequest(route: WebhookRoute, webhookId: string): { family: Family; method: IHttpRequestMethods; path: string } {
	return { family: route.family, method: route.method, path: webhookPath(route, webhookId) };
}
