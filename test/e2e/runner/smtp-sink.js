// @ts-check
/**
 * A tiny SMTP server on 127.0.0.1 that keeps every message it is sent (node:net, no dependency),
 * for the Human Review phase (test/e2e/review.js): n8n's Send Email node (and its Human Review tool)
 * reaches it through an `smtp` credential (host 127.0.0.1, its port, SSL/TLS off, no user).
 *
 * Speaks what nodemailer needs in plain text: EHLO/HELO (no STARTTLS, no AUTH offered), MAIL FROM,
 * RCPT TO, DATA (dot-stuffing undone), RSET, NOOP, QUIT. Each message is kept as
 * { at, from, to, raw, subject, html, text, links }: the body decoded (quoted-printable or base64, the
 * first text/html part, else the first part), its HTML entities undone in `text`, and `links` the
 * href values of its anchors (HTML entities undone).
 */
'use strict';

const net = require('node:net');

/** Undoes quoted-printable (soft line breaks and =XX) into UTF-8 text. */
function fromQuotedPrintable(/** @type {string} */ s) {
	const bytes = [];
	const text = s.replace(/=\r?\n/g, '');
	for (let i = 0; i < text.length; i++) {
		const c = text[i];
		if (c === '=' && /^[0-9A-Fa-f]{2}$/.test(text.slice(i + 1, i + 3))) {
			bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
			i += 2;
		} else bytes.push(...Buffer.from(c, 'utf8'));
	}
	return Buffer.from(bytes).toString('utf8');
}

/** HTML entities a mail body uses (&amp; &lt; &gt; &quot; &#39; &#NN; &#xNN;). */
function unescapeHtml(/** @type {string} */ s) {
	return s
		.replace(/&#x([0-9a-f]+);/gi, (_, h) => String.fromCodePoint(parseInt(h, 16)))
		.replace(/&#(\d+);/g, (_, d) => String.fromCodePoint(Number(d)))
		.replace(/&quot;/g, '"')
		.replace(/&lt;/g, '<')
		.replace(/&gt;/g, '>')
		.replace(/&nbsp;/g, ' ')
		.replace(/&amp;/g, '&');
}

/** Splits a message into headers (lower-cased names, folded lines joined) and body. */
function splitMessage(/** @type {string} */ raw) {
	const at = raw.search(/\r?\n\r?\n/);
	const head = at < 0 ? raw : raw.slice(0, at);
	const body = at < 0 ? '' : raw.slice(at).replace(/^\r?\n\r?\n/, '');
	/** @type {Record<string, string>} */
	const headers = {};
	for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
		const m = /^([^:]+):\s*(.*)$/.exec(line);
		if (m) headers[m[1].toLowerCase()] = m[2];
	}
	return { headers, body };
}

/** The decoded body of a (single-part) entity. */
function decodeEntity(/** @type {Record<string, string>} */ headers, /** @type {string} */ body) {
	const enc = (headers['content-transfer-encoding'] ?? '').toLowerCase();
	if (enc === 'quoted-printable') return fromQuotedPrintable(body);
	if (enc === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
	return body;
}

/** The first text/html part of a message (else its first part), decoded. */
function htmlOf(/** @type {string} */ raw) {
	const { headers, body } = splitMessage(raw);
	const type = headers['content-type'] ?? 'text/plain';
	const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
	if (!/^multipart\//i.test(type) || !boundary) return decodeEntity(headers, body);
	const parts = body.split(`--${boundary}`).slice(1).filter((p) => !p.startsWith('--'));
	const decoded = parts.map((p) => {
		const part = splitMessage(p.replace(/^\r?\n/, ''));
		return { type: part.headers['content-type'] ?? '', text: decodeEntity(part.headers, part.body) };
	});
	return (decoded.find((p) => /text\/html/i.test(p.type)) ?? decoded[0])?.text ?? '';
}

/** A header value with RFC 2047 encoded words (=?utf-8?Q?…?= / =?utf-8?B?…?=) undone. */
function decodeHeader(/** @type {string} */ v) {
	// Whitespace between two encoded words is not part of the text.
	return v.replace(/(\?=)\s+(?==\?)/g, '$1').replace(/=\?[^?]+\?([QqBb])\?([^?]*)\?=/g, (_, enc, text) => (enc.toUpperCase() === 'B' ? Buffer.from(text, 'base64').toString('utf8') : fromQuotedPrintable(text.replace(/_/g, ' '))));
}

/**
 * @param {{ port?: number }} [o]
 */
async function startSmtpSink({ port = 0 } = {}) {
	/** @type {{ at: number, from: string, to: string[], raw: string, subject: string, html: string, text: string, links: string[] }[]} */
	const messages = [];
	/** @type {Set<net.Socket>} */
	const sockets = new Set();
	const server = net.createServer((socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
		socket.on('error', () => {});
		socket.setEncoding('utf8');
		const reply = (/** @type {string} */ line) => socket.write(`${line}\r\n`);
		let buffer = '';
		let inData = false;
		/** @type {string[]} */
		let data = [];
		let from = '';
		/** @type {string[]} */
		let to = [];
		reply('220 vault-store-e2e SMTP sink');
		socket.on('data', (chunk) => {
			buffer += chunk;
			let nl;
			while ((nl = buffer.indexOf('\n')) >= 0) {
				const line = buffer.slice(0, nl).replace(/\r$/, '');
				buffer = buffer.slice(nl + 1);
				if (inData) {
					if (line === '.') {
						inData = false;
						const raw = data.join('\r\n');
						const { headers } = splitMessage(raw);
						const html = htmlOf(raw);
						const links = [...html.matchAll(/href="([^"]*)"/g)].map((m) => unescapeHtml(m[1]));
						const text = unescapeHtml(html.replace(/<[^>]*>/g, ' ')).replace(/[ \t]+/g, ' ');
						messages.push({ at: Date.now(), from, to, raw, subject: decodeHeader(headers.subject ?? ''), html, text, links });
						data = [];
						reply('250 2.0.0 kept');
					} else data.push(line.startsWith('..') ? line.slice(1) : line);
					continue;
				}
				const verb = line.slice(0, 4).toUpperCase();
				if (verb === 'EHLO') socket.write('250-vault-store-e2e\r\n250-8BITMIME\r\n250-SMTPUTF8\r\n250 SIZE 10485760\r\n');
				else if (verb === 'HELO') reply('250 vault-store-e2e');
				else if (verb === 'MAIL') {
					from = /<([^>]*)>/.exec(line)?.[1] ?? '';
					to = [];
					reply('250 2.1.0 ok');
				} else if (verb === 'RCPT') {
					to.push(/<([^>]*)>/.exec(line)?.[1] ?? '');
					reply('250 2.1.5 ok');
				} else if (verb === 'DATA') {
					inData = true;
					reply('354 end with <CRLF>.<CRLF>');
				} else if (verb === 'RSET') {
					from = '';
					to = [];
					data = [];
					reply('250 2.0.0 ok');
				} else if (verb === 'NOOP') reply('250 2.0.0 ok');
				else if (verb === 'QUIT') {
					reply('221 2.0.0 bye');
					socket.end();
				} else reply('502 5.5.2 not implemented');
			}
		});
	});
	await new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(undefined)));
	const address = /** @type {net.AddressInfo} */ (server.address());
	return {
		host: '127.0.0.1',
		port: address.port,
		messages,
		close: () =>
			new Promise((resolve) => {
				for (const s of sockets) s.destroy();
				server.close(() => resolve(undefined));
			}),
	};
}

module.exports = { startSmtpSink, fromQuotedPrintable, unescapeHtml };
