/**
 * Idempotency-Key store shared by every route marked `idempotency`.
 * Scope of a key: credential + method + concrete path. Results are kept 24 h on the sandbox
 * clock; 5xx results are dropped so the next attempt runs again.
 */
import { HttpError, Reply } from './reply';
import { canonicalJson, Clock, sha256 } from './util';

const RETENTION_MS = 24 * 3_600_000;
const KEY_PATTERN = /^[A-Za-z0-9_-]{1,255}$/;

type Entry = { bodyHash: string; at: number } & ({ running: true } | { running: false; reply: Reply });

export type Begin = { run: true; finish(reply: Reply): void } | { run: false; reply: Reply };

export class IdempotencyStore {
	private entries = new Map<string, Entry>();
	constructor(private readonly clock: Clock) {}

	/** Validates the header value: undefined when absent, 400 when malformed or required and absent. */
	static parseKey(header: unknown, required: boolean): string | undefined {
		if (header === undefined) {
			if (required) throw new HttpError(400, 'idempotency_key_required', 'Idempotency-Key header is required', 'Idempotency-Key');
			return undefined;
		}
		if (typeof header !== 'string' || !KEY_PATTERN.test(header)) {
			throw new HttpError(400, 'validation_error', 'Idempotency-Key: must be 1 to 255 characters from A-Z a-z 0-9 _ -', 'Idempotency-Key');
		}
		return header;
	}

	/** Either run the handler (then call finish) or answer with a replay / 409 / 422. */
	begin(scope: string, key: string, body: unknown): Begin {
		const id = sha256(`${scope}\n${key}`);
		const bodyHash = sha256(canonicalJson(body ?? {}));
		const now = this.clock.now();
		const prior = this.entries.get(id);
		if (prior && !prior.running && now - prior.at >= RETENTION_MS) this.entries.delete(id);
		const entry = this.entries.get(id);
		if (entry?.running) {
			throw new HttpError(409, 'idempotency_conflict', 'A request with this Idempotency-Key is still being processed');
		}
		if (entry) {
			if (entry.bodyHash !== bodyHash) {
				throw new HttpError(422, 'idempotency_key_reused', 'This Idempotency-Key was used with a different request body');
			}
			return { run: false, reply: { ...entry.reply, headers: { ...entry.reply.headers, 'Idempotent-Replay': 'true' } } };
		}
		this.entries.set(id, { bodyHash, at: now, running: true });
		return {
			run: true,
			finish: (reply: Reply) => {
				if (reply.status >= 500) this.entries.delete(id);
				else this.entries.set(id, { bodyHash, at: this.clock.now(), running: false, reply });
			},
		};
	}

	clear(): void {
		this.entries.clear();
	}
}
