/**
 * Webhook delivery: signing per endpoint signatureVersion, retries, and the attempt record.
 *
 * Body: JSON {id: 'msg_...', event, createdAt, data}, sent byte for byte as signed.
 * V2 (Standard Webhooks): webhook-id = message id, webhook-timestamp = seconds,
 *   webhook-signature = `v1,<base64 HMAC-SHA256("<id>.<ts>.<body>")>`, key = base64-decoded part
 *   of the signing secret after `whsec_`.
 * V1 (deprecated): webhook-id = `<webhookId>/<jobId>`, webhook-timestamp = milliseconds,
 *   webhook-signature = lower-case hex HMAC-SHA256("<ts>.<body>"), key = the secret string's UTF-8
 *   bytes (our inference; the spec does not say); plus X-Service-Signature (hex HMAC of the body
 *   alone, same key), X-Service-Timestamp (ms), X-Service-Idempotency (= webhook-id).
 * Timestamps use the wall clock (receivers compare with theirs), not the advanceable sandbox clock.
 *
 * Success = any 2xx. Otherwise up to 9 attempts in all; the delays before attempts 2..9 are
 * RETRY_DELAYS_MS (5 s, 5 min, 30 min, 2 h, 8 h, 16 h, 24 h, 24 h = about 74.6 h), each with
 * +-10 % jitter and multiplied by webhookTimeScale. Every attempt is re-signed with a fresh
 * timestamp and keeps the message id. Retries stop when the endpoint is deleted.
 */
import { createHmac } from 'node:crypto';
import { EventEmitter } from 'node:events';
import axios from 'axios';
import type { WebhookEndpoint } from './state';
import { Clock, Rng, Timers } from './util';

export const WEBHOOK_EVENTS = [
	'PAYMENT_PENDING',
	'PAYMENT_PROCESSING',
	'PAYMENT_COMPLETED',
	'PAYMENT_FAILED',
	'PAYMENT_REFUNDED',
	'PAYMENT_DISPUTED',
	'PAYMENT_DISPUTE_WON',
	'PAYMENT_DISPUTE_LOST',
	'PAYMENT_DISPUTE_PREVENTED',
	'SUBSCRIPTION_UPDATED',
	'SUBSCRIPTION_TRIAL_ENDING',
	'SUBSCRIPTION_RENEWING',
] as const;

const S = 1000;
const H = 3_600_000;
export const RETRY_DELAYS_MS = [5 * S, 5 * 60 * S, 30 * 60 * S, 2 * H, 8 * H, 16 * H, 24 * H, 24 * H];
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
const ATTEMPT_TIMEOUT_MS = 10_000;

export interface DeliveryAttempt {
	endpointId: string;
	messageId: string;
	attempt: number;
	/** HTTP status of the receiver, or 0 when the request failed (connection refused, timeout). */
	status: number;
	error?: string;
	at: string;
	url: string;
	headers: Record<string, string>;
	body: string;
}

export function signV2(secret: string, id: string, timestamp: string, body: string): string {
	const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
	return 'v1,' + createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
}

export function hmacHex(secret: string, text: string): string {
	return createHmac('sha256', Buffer.from(secret, 'utf8')).update(text).digest('hex');
}

export function signedHeaders(endpoint: WebhookEndpoint, secret: string, messageId: string, jobId: string, body: string, nowMs: number): Record<string, string> {
	const base = { 'content-type': 'application/json', 'user-agent': 'VaultStore-Sandbox-Webhooks/1' };
	if (endpoint.signatureVersion === 'V2') {
		const ts = String(Math.floor(nowMs / 1000));
		return { ...base, 'webhook-id': messageId, 'webhook-timestamp': ts, 'webhook-signature': signV2(secret, messageId, ts, body) };
	}
	const ts = String(nowMs);
	const webhookId = `${endpoint.id}/${jobId}`;
	return {
		...base,
		'webhook-id': webhookId,
		'webhook-timestamp': ts,
		'webhook-signature': hmacHex(secret, `${ts}.${body}`),
		'x-service-signature': hmacHex(secret, body),
		'x-service-timestamp': ts,
		'x-service-idempotency': webhookId,
	};
}

export class Deliveries {
	readonly attempts: DeliveryAttempt[] = [];
	private events = new EventEmitter();
	private aborts = new Set<AbortController>();
	private closed = false;

	constructor(
		private readonly deps: {
			secret: string;
			clock: Clock;
			timers: Timers;
			rng: Rng;
			timeScale: number;
			isActive: (endpointId: string) => boolean;
		},
	) {
		this.events.setMaxListeners(0);
	}

	/** Starts delivering one event to one endpoint; returns the message id. */
	send(endpoint: WebhookEndpoint, event: string, data: unknown): string {
		const messageId = this.deps.rng.id('msg_');
		const jobId = this.deps.rng.id('job_');
		const body = JSON.stringify({ id: messageId, event, createdAt: this.deps.clock.iso(), data });
		void this.attempt(endpoint, messageId, jobId, body, 1);
		return messageId;
	}

	/** Resolves once at least n attempts are recorded; rejects after timeoutMs. */
	waitFor(n: number, timeoutMs = 5000): Promise<DeliveryAttempt[]> {
		if (this.attempts.length >= n) return Promise.resolve(this.attempts.slice());
		return new Promise((resolve, reject) => {
			const onAttempt = () => {
				if (this.attempts.length < n) return;
				clearTimeout(timer);
				this.events.off('attempt', onAttempt);
				resolve(this.attempts.slice());
			};
			const timer = setTimeout(() => {
				this.events.off('attempt', onAttempt);
				reject(new Error(`Timed out waiting for ${n} webhook deliveries (have ${this.attempts.length})`));
			}, timeoutMs);
			this.events.on('attempt', onAttempt);
		});
	}

	close(): void {
		this.closed = true;
		for (const a of this.aborts) a.abort();
	}

	private async attempt(endpoint: WebhookEndpoint, messageId: string, jobId: string, body: string, attempt: number): Promise<void> {
		if (this.closed || !this.deps.isActive(endpoint.id)) return;
		const headers = signedHeaders(endpoint, endpoint.secret ?? this.deps.secret, messageId, jobId, body, Date.now());
		const record: DeliveryAttempt = { endpointId: endpoint.id, messageId, attempt, status: 0, at: this.deps.clock.iso(), url: endpoint.url, headers, body };
		const abort = new AbortController();
		this.aborts.add(abort);
		try {
			const res = await axios.post(endpoint.url, body, {
				headers,
				timeout: ATTEMPT_TIMEOUT_MS,
				maxRedirects: 0,
				validateStatus: () => true,
				transformRequest: [(d: unknown) => d],
				responseType: 'text',
				signal: abort.signal,
			});
			record.status = res.status;
		} catch (err) {
			record.error = err instanceof Error ? err.message : String(err);
		} finally {
			this.aborts.delete(abort);
		}
		if (this.closed) return;
		this.attempts.push(record);
		this.events.emit('attempt', record);
		if (record.status >= 200 && record.status < 300) return;
		if (attempt >= MAX_ATTEMPTS) return;
		const jitter = 1 + (this.deps.rng.next() * 0.2 - 0.1);
		const delay = RETRY_DELAYS_MS[attempt - 1] * jitter * this.deps.timeScale;
		this.deps.timers.after(delay, () => void this.attempt(endpoint, messageId, jobId, body, attempt + 1));
	}
}
