/**
 * Per-test fault injection. A fault matches by method and path (exact string after removing a
 * trailing slash, or a RegExp tested against the path) and fires for the next `count` matching
 * requests (default 1).
 *
 *   '429'               answer 429 with Retry-After (option retryAfter, seconds, default 0); handler not run
 *   '500'               answer 500 before the handler runs: nothing committed
 *   'drop'              destroy the socket before handling
 *   'drop-after-commit' run the handler and commit, then destroy the socket without answering
 *   'slow'              run the handler and commit, then hold the response delayMs (default 1000);
 *                       an idempotent retry arriving meanwhile gets 409, after it a replay
 *
 * Hostile mode (a service that misbehaves on purpose):
 *   'commit-then-500'   run the handler and commit, then answer 500 as if it had failed (the
 *                       500 is not stored under the Idempotency-Key, as the spec says: a repeat
 *                       under the same key runs again)
 *   'hang-then-commit'  hold the request delayMs (default 1000) with nothing done, then handle it as
 *                       usual (commit, its answer stored under the Idempotency-Key) and answer a
 *                       client that may have given up by then: when the node's attempt times out,
 *                       the write is not made yet, and it is made after all (a repeat under the
 *                       same key held as long gets the stored answer, a replay)
 *   'commit-then-gateway' run the handler and commit, store its answer under the Idempotency-Key,
 *                       then answer `status` (502 or 504, default 502) as a gateway in front that
 *                       lost the answer: a repeat under the same key gets the stored answer
 *   'redirect'          answer `status` (default 302) with Location `location` (e.g. another origin)
 *   'echo'              answer `status` (default 400) with an error body that echoes the request:
 *                       every header as received (Authorization included) and the raw body
 *   'html'              answer 200 with an HTML page
 *   'empty'             answer 200 with an empty body
 *   'reply'             answer `reply` (status, body or body(query), headers); handler not run
 *   'trickle'           the handler's answer (or `reply`), headers at once, body one byte every
 *                       `delayMs` (default 400); with `forever` the body never ends
 *   'echo-success'      run the handler; its success answer echoes the request into every record
 *                       (card number top-level and in the mask, CVC nested, Authorization)
 *   'digit-ids'         run the handler; token ids, fingerprints and metadata references in its
 *                       answer hold long Luhn-valid digit runs (legitimate data; hostileAnswers.ts)
 *   'echo-secrets'      run the handler; every record of its answer echoes the request's key as an
 *                       object key, split across a list, hex, hex of "Bearer <key>", base64url, %-escaped
 *
 * With `oncePerKey`, a fault fires on the first request of each distinct Idempotency-Key (and
 * never on its retries), as many times as `count` allows: one fault per input item of a run.
 */
import { normalizePath } from './app';

export type FaultKind =
	| '429'
	| '500'
	| 'drop'
	| 'drop-after-commit'
	| 'slow'
	| 'commit-then-500'
	| 'hang-then-commit'
	| 'commit-then-gateway'
	| 'redirect'
	| 'echo'
	| 'html'
	| 'empty'
	| 'reply'
	| 'echo-success'
	| 'digit-ids'
	| 'echo-secrets'
	| 'trickle';

export interface FaultSpec {
	match?: { method?: string; path?: string | RegExp };
	count?: number;
	kind: FaultKind;
	retryAfter?: number;
	delayMs?: number;
	oncePerKey?: boolean;
	/** 'redirect', 'echo', 'reply': the status to answer. */
	status?: number;
	/** 'trickle': send the body for ever. */
	forever?: boolean;
	/** 'redirect': the Location header. */
	location?: string;
	/** 'reply': the body (a function gets the parsed query) and extra headers. */
	reply?: { body: unknown | ((query: Record<string, unknown>) => unknown); headers?: Record<string, string> };
}

export class Faults {
	private list: (FaultSpec & { remaining: number; keys: Set<string> })[] = [];

	add(spec: FaultSpec): void {
		this.list.push({ ...spec, remaining: spec.count ?? 1, keys: new Set() });
	}

	clear(): void {
		this.list = [];
	}

	/** Number of fault firings still pending. */
	get pending(): number {
		return this.list.reduce((n, f) => n + f.remaining, 0);
	}

	/** The first fault matching this request (consumes one firing). */
	take(method: string, path: string, idempotencyKey?: string): FaultSpec | undefined {
		const p = normalizePath(path);
		const i = this.list.findIndex(
			(f) => matches(f, method, p) && (!f.oncePerKey || (idempotencyKey !== undefined && !f.keys.has(idempotencyKey))),
		);
		if (i < 0) return undefined;
		const f = this.list[i];
		if (f.oncePerKey && idempotencyKey !== undefined) f.keys.add(idempotencyKey);
		if (--f.remaining <= 0) this.list.splice(i, 1);
		return f;
	}
}

function matches(f: FaultSpec, method: string, path: string): boolean {
	const m = f.match;
	if (m?.method && m.method.toUpperCase() !== method) return false;
	if (m?.path instanceof RegExp) return m.path.test(path);
	if (typeof m?.path === 'string') return normalizePath(m.path) === path;
	return true;
}
