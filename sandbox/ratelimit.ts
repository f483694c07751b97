/**
 * The service-wide rate limit (off unless `rateLimit` is set): a token bucket per API key that
 * refills `perSecond` tokens a second up to `burst`. A request without a token gets 429 with
 * Retry-After: whole seconds until the next token (at least 1), as a real service sends it.
 * Refused requests take no token.
 */
import { HttpError } from './reply';
import { Clock } from './util';

export class TokenBucketLimiter {
	private readonly buckets = new Map<string, { tokens: number; at: number }>();
	/** Requests refused so far. */
	refused = 0;

	constructor(
		readonly perSecond: number,
		readonly burst: number,
		private readonly clock: Clock,
	) {
		if (!(perSecond > 0)) throw new Error('rate limit: requests per second must be above 0');
		if (!(burst >= 1)) throw new Error('rate limit: burst must be at least 1');
	}

	/** Takes one token of `key`'s bucket, or throws the 429. */
	take(key: string): void {
		const now = this.clock.now();
		const bucket = this.buckets.get(key) ?? { tokens: this.burst, at: now };
		bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) * this.perSecond) / 1000);
		bucket.at = now;
		this.buckets.set(key, bucket);
		if (bucket.tokens >= 1) {
			bucket.tokens -= 1;
			return;
		}
		this.refused++;
		const seconds = Math.max(1, Math.ceil((1 - bucket.tokens) / this.perSecond));
		throw new HttpError(429, 'rate_limited', `Rate limit of ${this.perSecond} requests per second exceeded`, undefined, {
			'Retry-After': String(seconds),
		});
	}
}
