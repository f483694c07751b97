import type { INode } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { LOOPBACK_HOST } from './credentialRoots';
import type { HttpContext, RawResponse } from './http';
import { readHeader } from '../headers';
import { backoffMs, lowerCaseHeaders, MAX_REDIRECTS, networkCode, redirectTarget } from './http';
import type { Deadline } from './deadlines';
import type { TransportOptions } from './request';

/**
 * GET of an absolute, pre-signed URL (report files): it is another origin by
 * design, so it is sent through the plain helper, with no credential at all.
 *
 * Only https URLs on the Base URL's host or a host the user allows are fetched
 * (redirects too, each checked again); plain http only to the Base URL's own
 * loopback origin (the local sandbox). The Timeout is a deadline for the whole
 * file (each attempt's from `startDeadline`, the transport's deadlines, which n8n's cancel also
 * ends), and a file larger than `maxBytes` is refused while it arrives.
 */
export async function downloadFile(
	ctx: HttpContext,
	options: TransportOptions,
	startDeadline: () => Deadline,
	baseUrl: string,
	finish: <E extends Error>(error: E) => Promise<E>,
	url: string,
	itemIndex?: number,
	limits: DownloadLimits = {},
): Promise<{ body: Buffer; contentType?: string }> {
	const maxBytes = limits.maxBytes ?? DEFAULT_MAX_DOWNLOAD_BYTES;
	let target = checkDownloadUrl(ctx.getNode(), url, baseUrl, limits.allowedHosts ?? [], itemIndex);
	for (let attempt = 0, redirects = 0; ; attempt++) {
		const deadline = startDeadline();
		let response: RawResponse | undefined;
		let body = Buffer.alloc(0);
		let failure: unknown;
		try {
			response = (await ctx.helpers.httpRequest({
				method: 'GET',
				url: target.href,
				encoding: 'stream',
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
				disableFollowRedirect: true,
				timeout: options.timeoutMs,
				abortSignal: deadline.signal,
			})) as RawResponse;
			const status = response.statusCode;
			if (status >= 300 && status < 400) {
				discard(response.body);
				const location = readHeader(lowerCaseHeaders(response.headers), 'location');
				const next = redirectTarget(location, target.href);
				if (next === undefined || redirects >= MAX_REDIRECTS) {
					throw new NodeOperationError(ctx.getNode(), `Could not download the file (HTTP ${status} redirect not followed)`, { itemIndex });
				}
				redirects++;
				attempt--;
				target = checkDownloadUrl(ctx.getNode(), next.href, baseUrl, limits.allowedHosts ?? [], itemIndex);
				continue;
			}
			if (status >= 300) {
				discard(response.body);
				body = Buffer.alloc(0);
			} else {
				body = await readCapped(ctx.getNode(), response, deadline.signal, maxBytes, itemIndex);
			}
		} catch (error) {
			failure = error;
		} finally {
			deadline.done();
		}
		if (failure !== undefined) {
			// The node's own refusals (host rule, size, redirect) are final; network failures are retried.
			if (failure instanceof NodeOperationError) throw failure;
			const code = deadline.timedOut ? 'ETIMEDOUT' : networkCode(failure);
			if (attempt < options.maxRetries) {
				await sleep(backoffMs(attempt));
				continue;
			}
			throw await finish(
				new NodeOperationError(ctx.getNode(), 'Could not download the file', {
					description:
						code === 'ETIMEDOUT'
							? `The file did not arrive completely within the Timeout of ${options.timeoutMs} ms.`
							: (code ?? 'network error'),
					itemIndex,
				}),
			);
		}
		if (response === undefined) continue;
		if (response.statusCode >= 500 && attempt < options.maxRetries) {
			await sleep(backoffMs(attempt));
			continue;
		}
		if (response.statusCode >= 300) {
			throw new NodeOperationError(
				ctx.getNode(),
				`Could not download the file (HTTP ${response.statusCode})`,
				{ description: 'Download URLs are valid for 5 minutes; run the operation again.', itemIndex },
			);
		}
		return { body, contentType: readHeader(lowerCaseHeaders(response.headers), 'content-type') };
	}
}

export interface DownloadLimits {
	/** Hosts (besides the Base URL's) a download may come from: `host`, `host:port` or `*.domain`. */
	allowedHosts?: string[];
	/** Largest file accepted, in bytes. */
	maxBytes?: number;
}

export const DEFAULT_MAX_DOWNLOAD_BYTES = 100 * 1024 * 1024;

/** Ends a response body the node does not read. */
function discard(body: unknown): void {
	const stream = body as { destroy?: () => void } | null;
	if (stream !== null && typeof stream === 'object' && typeof stream.destroy === 'function') stream.destroy();
}

/** Reads a streamed body, refusing it once it grows past `maxBytes`, and ending it at the deadline. */
async function readCapped(
	node: INode,
	response: RawResponse,
	deadline: AbortSignal,
	maxBytes: number,
	itemIndex: number | undefined,
): Promise<Buffer> {
	const tooLarge = (): NodeOperationError =>
		new NodeOperationError(node, `The file is larger than the maximum of ${maxBytes} bytes ("Max File Size")`, {
			description: 'Raise "Max File Size (MB)" of the operation if the file is expected to be this large.',
			itemIndex,
		});
	const declared = Number(readHeader(lowerCaseHeaders(response.headers), 'content-length'));
	const body = response.body;
	if (Buffer.isBuffer(body)) {
		if (body.length > maxBytes) throw tooLarge();
		return body;
	}
	const stream = body as (AsyncIterable<Buffer | string> & { destroy?: (error?: Error) => void }) | undefined;
	if (stream === undefined || stream === null || typeof (stream as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] !== 'function') {
		const rest = body as ArrayBuffer | string | undefined;
		const buffer = rest instanceof ArrayBuffer ? Buffer.from(new Uint8Array(rest)) : Buffer.from(rest ?? '');
		if (buffer.length > maxBytes) throw tooLarge();
		return buffer;
	}
	if (Number.isFinite(declared) && declared > maxBytes) {
		stream.destroy?.();
		throw tooLarge();
	}
	const stop = (): void => stream.destroy?.(new Error('deadline'));
	deadline.addEventListener('abort', stop, { once: true });
	try {
		const chunks: Buffer[] = [];
		let size = 0;
		for await (const chunk of stream) {
			const piece = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
			size += piece.length;
			if (size > maxBytes) {
				stream.destroy?.();
				throw tooLarge();
			}
			chunks.push(piece);
		}
		if (deadline.aborted) throw new Error('deadline');
		return Buffer.concat(chunks);
	} finally {
		deadline.removeEventListener('abort', stop);
	}
}

/**
 * The download URL as the node may fetch it, or a clear error: https only (plain http only
 * on a local setup: a loopback http Base URL and a loopback file host), no user or password,
 * and a host that is the Base URL's or in `allowed` (`host` means the scheme's default port,
 * `host:port`, `*.domain` any subdomain).
 */
export function checkDownloadUrl(node: INode, raw: string, baseUrl: string, allowed: string[], itemIndex?: number): URL {
	let url: URL;
	try {
		url = new URL(raw);
	} catch {
		throw new NodeOperationError(node, 'The service returned a download URL that is not a valid address', { itemIndex });
	}
	const base = new URL(baseUrl);
	const refuse = (why: string): NodeOperationError =>
		new NodeOperationError(node, `The download URL the service returned is not allowed: ${why}`, {
			description: `Report files are fetched only over https from the Base URL's host (${base.host}) and from the hosts in "Allowed Download Hosts". Add the host there if you trust it; internal addresses are never needed.`,
			itemIndex,
		});
	if (url.username !== '' || url.password !== '') throw refuse('it carries a user name or password');
	const sameOrigin = url.origin === base.origin;
	// Plain http only on a local setup: the Base URL itself is loopback http, and so is the file's host.
	const local = base.protocol === 'http:' && LOOPBACK_HOST.test(base.hostname) && LOOPBACK_HOST.test(url.hostname);
	if (url.protocol === 'http:' && !local) throw refuse(`it is not https (${url.protocol}//${url.host})`);
	if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refuse(`it is not https (${url.protocol})`);
	if (sameOrigin || url.host === base.host) return url;
	const host = url.hostname.toLowerCase();
	const port = url.port;
	for (const entry of allowed) {
		const rule = entry.trim().toLowerCase();
		if (rule === '') continue;
		const [ruleHost, rulePort] = rule.startsWith('[') ? [rule.slice(0, rule.indexOf(']') + 1), rule.slice(rule.indexOf(']') + 2)] : rule.split(':');
		const portOk = rulePort === undefined || rulePort === '' ? port === '' : rulePort === port;
		if (!portOk) continue;
		if (ruleHost.startsWith('*.') ? host.endsWith(ruleHost.slice(1)) && host.length > ruleHost.length - 1 : host === ruleHost) return url;
	}
	throw refuse(`its host ${url.host} is neither the Base URL's host nor in "Allowed Download Hosts"`);
}
