/**
 * The Base URL rule, one function for the node and for the credential test (issue 54 point 5).
 *
 * The node calls readBaseUrl through checkBaseUrl (credentialRoots.ts); the credential test runs the
 * very same function inside n8n's expression (credentials/testRequest.ts puts its text into the
 * test's URL), where no URL parser exists. So it is self-contained (nothing outside its own body;
 * no index that is not a literal number, which n8n's expressions read as undefined) and reads the address by hand, accepting only spellings that WHATWG's URL parser reads the same
 * way (test/base-url.test.ts checks this against `new URL` over generated spellings):
 *
 *  - scheme and host in any case (read in lower case), `https://` always, `http://` only for
 *    localhost, 127.x.x.x and [::1]; a port from 1 to 65535 (the default one is dropped);
 *  - an optional path of a gateway, trailing slashes dropped, of letters, digits and - . _ ~ ! $ &
 *    ' ( ) * + , ; = : @ only, without a doubled slash or a . or .. segment;
 *  - no user, query or fragment.
 *
 * What WHATWG would repair silently (a backslash for a slash, `https:host` without the slashes, an
 * encoded character, a dot segment, a doubled slash kept as an empty segment) is refused with the
 * reason, by the test and by the node alike, never guessed.
 */

/** Why a Base URL is refused, by the code readBaseUrl returns after "!". */
export const BASE_URL_REASONS: Record<string, string> = {
	'0': 'is empty',
	'1': 'contains spaces or line breaks',
	'2': 'is not an address of the form https://host, https://host:port or https://host/path (the host: a name of letters, digits, dots and hyphens, an IPv4 address, or an IPv6 address in [ ])',
	'3': 'must start with https:// (plain http:// only for localhost, 127.x.x.x or [::1]: to any other host it would send the secret key unencrypted)',
	'4': 'must not contain a user name or password',
	'5': 'must be the address (scheme, host, port and an optional path), without a query or fragment',
	'6': 'has a doubled slash in its path: write the path of the gateway with single slashes (https://gw.example.com/vault-store)',
	'7': 'has an encoded character (%), a backslash or another character a gateway path does not take: use letters, digits and - . _ ~ in the path',
	'8': 'has a . or .. segment in its path: write the path as the gateway serves it',
	'9': 'has a port that is not a number from 1 to 65535',
};

/** The example every Base URL refusal of the node gives. */
export const BASE_URL_EXAMPLE =
	'Example: https://api.example.com, or with the path of a gateway in front of the service, https://gw.example.com/vault-store (for the local sandbox, the URL `npm run sandbox` prints)';

/**
 * The credential's Base URL as a root (scheme and host in lower case, no default port, no trailing
 * slash), or "!" and the code of the reason it is refused (BASE_URL_REASONS). Self-contained: see
 * the file's comment.
 */
export function readBaseUrl(raw: unknown): string {
	const text = typeof raw === 'string' ? raw.trim() : '';
	if (text === '') return '!0';
	if (/\s/.test(text)) return '!1';
	const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(text);
	if (scheme === null) return '!2';
	const name = scheme[1].toLowerCase();
	const rest = text.slice(scheme[0].length);
	const cut = rest.search(/[/?#\\]/);
	const authority = cut < 0 ? rest : rest.slice(0, cut);
	const path = cut < 0 ? '' : rest.slice(cut);
	if (authority.indexOf('@') >= 0) return '!4';
	if (/[?#]/.test(path)) return '!5';
	const parts = /^([A-Za-z0-9.-]+|\[[0-9A-Fa-f:]+\])(?::([0-9]*))?$/.exec(authority);
	if (parts === null) return '!2';
	const host = parts[1].toLowerCase();
	let loopback = host === 'localhost' || host === '[::1]';
	if (host.charAt(0) === '[') {
		// Eight groups of 1 to 4 hex digits, or fewer around one "::".
		const halves = host.slice(1, -1).split('::');
		if (halves.length > 2) return '!2';
		const groups = halves.map((half) => (half === '' ? [] : half.split(':')));
		if (!groups.every((list) => list.every((group) => /^[0-9a-f]{1,4}$/.test(group)))) return '!2';
		const count = groups.reduce((sum, list) => sum + list.length, 0);
		if (halves.length === 2 ? count > 7 : count !== 8) return '!2';
	} else {
		const labels = host.split('.');
		if (labels.some((label) => label === '')) return '!2';
		// A name whose last label is a number is an IPv4 address to the URL parser: four decimal parts only.
		if (/^([0-9]+|0x[0-9a-f]*)$/.test(labels.slice(-1)[0])) {
			if (labels.length !== 4 || !labels.every((label) => /^(0|[1-9][0-9]{0,2})$/.test(label) && Number(label) <= 255)) return '!2';
			loopback = labels[0] === '127';
		}
	}
	if (name !== 'https' && !(name === 'http' && loopback)) return '!3';
	let port = '';
	if (parts[2] !== undefined) {
		if (!/^[0-9]+$/.test(parts[2]) || Number(parts[2]) < 1 || Number(parts[2]) > 65535) return '!9';
		port = String(Number(parts[2]));
		if ((name === 'https' && port === '443') || (name === 'http' && port === '80')) port = '';
	}
	const prefix = path.replace(/\/+$/, '');
	if (!/^[A-Za-z0-9\-._~!$&'()*+,;=:@/]*$/.test(prefix)) return '!7';
	if (prefix.indexOf('//') >= 0) return '!6';
	if (prefix.split('/').some((segment) => segment === '.' || segment === '..')) return '!8';
	return `${name}://${host}${port === '' ? '' : `:${port}`}${prefix}`;
}
