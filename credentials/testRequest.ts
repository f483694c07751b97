import type { IAuthenticateRuleResponseSuccessBody, ICredentialTestRequest, IHttpRequestOptions } from 'n8n-workflow';

import { BASE_URL_REASONS, readBaseUrl } from '../nodes/shared/transport/baseUrl';

/**
 * What the credential tests share: the request n8n sends when the user clicks Test (or saves),
 * and how its outcome becomes a message that names the field to fix.
 *
 * n8n's credential tester shows either the message of an error or, for an answer, the message of
 * the first `responseSuccessBody` rule whose value equals the answer body's value at its key
 * (n8n gives HTTP errors its generic texts, e.g. "Authorization failed - please check your
 * credentials", and `responseCode` rules do not apply to them). So:
 *
 *  - A field whose shape is wrong is refused before anything is sent: the test "requests" the
 *    address `data:,X` instead, which n8n's HTTP client answers itself (status 200, the bytes
 *    after the comma as the body), never over the network. The body's first byte (key '0', a
 *    number) says which field: one rule each. A server's text answer has a character there, never
 *    a number, and a JSON answer would need a member named "0": these rules match the refusals.
 *  - With answer rules, `ignoreHttpStatusErrors` lets the service's answer reach them whatever its
 *    status, and they fail every answer that is not a success (first match wins). Without (a
 *    credential whose success answer is not documented well enough to recognise), HTTP errors
 *    stay errors and n8n shows its own text for them.
 *
 * test/credential-test.test.ts runs these as n8n's tester does; test/e2e/credential-test.js in a
 * real n8n.
 */

/** Expression text: credential field `name` as a string, '' when not set. */
export function field(name: string): string {
	return `String($credentials.${name} ?? "")`;
}

/**
 * Expression text: the Base URL read by the node's own rule. readBaseUrl's code itself runs in the
 * expression (n8n's expressions have no URL parser; the function needs nothing outside its body):
 * the root the node sends to, or "!" and the code of the reason the node refuses it.
 */
export const READ_BASE_URL = `(${readBaseUrl.toString()})`;
export const BASE_URL_ROOT = `${READ_BASE_URL}(${field('baseUrl')})`;

/** A field check: expression text true when the field is refused, the byte naming it, the message. */
export interface Refusal {
	when: string;
	code: string;
	message: string;
}

/** The answer rules of the Base URL refusals: one per reason, in the node's words (codes are digits). */
const BASE_URL_RULES = Object.entries(BASE_URL_REASONS).map(([code, reason]) =>
	rule('0', code.charCodeAt(0), `Base URL: the address ${reason}. Nothing was sent.`),
);

/** A rule failing the test with `message` when the answer body's value at `key` is `value`. */
export function rule(key: string, value: unknown, message: string): IAuthenticateRuleResponseSuccessBody {
	return { type: 'responseSuccessBody', properties: { key, value, message } };
}

/**
 * The test: the Base URL read as the node reads it, then `refusals` checked in order (the first
 * that holds is answered locally, nothing is sent), else GET `path` (expression text) below the
 * Base URL with the key; `answerRules` judge the service's answer.
 */
export function credentialTest(
	refusals: Refusal[],
	path: string,
	answerRules: IAuthenticateRuleResponseSuccessBody[] = [],
): ICredentialTestRequest {
	let url = `root + ${path}`;
	for (const refusal of [...refusals].reverse()) url = `(${refusal.when}) ? "data:,${refusal.code}" : ${url}`;
	url = `((root) => root.charAt(0) === "!" ? "data:," + root.slice(1) : ${url})(${BASE_URL_ROOT})`;
	const request: IHttpRequestOptions = {
		url: `={{ ${url} }}`,
		method: 'GET',
		// The header is set here and by the node's transport, not by an `authenticate` block: n8n adds
		// its own "Custom API Call" entry to every operation of nodes whose credential has one.
		headers: { Authorization: `=Bearer {{${field('secretKey')}}}` },
		// A redirect could carry the key to another host.
		disableFollowRedirect: true,
	};
	// Every answer, whatever its status, reaches the rules (which name the field).
	if (answerRules.length > 0) request.ignoreHttpStatusErrors = true;
	return {
		request,
		rules: [
			...BASE_URL_RULES,
			...refusals.map((r) => rule('0', r.code.charCodeAt(0), r.message)),
			...answerRules,
		],
	};
}
