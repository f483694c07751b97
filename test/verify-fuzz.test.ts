/**
 * Verifier fuzzing with fast-check: 130,000 generated cases in `npm run test:long`, a quarter in `npm test`.
 *
 * Valid deliveries are signed with @noble/hashes (pure JS, independent of the
 * node:crypto code under test), then mutated: any byte of body, id, timestamp or
 * signature header changed, inserted or deleted; entries reordered, added,
 * duplicated, truncated; whitespace and unicode inserted; headers made huge, turned
 * into arrays, dropped or renamed. Plus random garbage.
 *
 * The expected verdict comes from an oracle written from the rules, not from the
 * implementation: a V2 delivery is valid exactly when id, timestamp and body bytes are
 * the signed ones and the signature header (every copy, joined with ", " as Node joins a
 * repeated header; at most 8 KiB) split on spaces, a trailing comma of an entry dropped, has
 * at most 20 entries, one of which is the exact canonical "v1,<base64>"
 * string of the HMAC. Canonical base64 is the only spelling of a 32-byte digest the
 * verifier decodes, so no other string can carry the right digest. A mutation that
 * leaves that true (reordering, an extra invalid entry, a changed decoy, extra spaces,
 * an array id or timestamp header whose first value is intact, a signature header array with
 * the entry in any copy) must be accepted; anything else must be
 * rejected.
 */
import { hmac } from '@noble/hashes/hmac';
import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex } from '@noble/hashes/utils';
import fc from 'fast-check';

import { verifyDelivery, type Verdict, type VerifyInput } from '../nodes/VaultStoreTrigger/verify';
import { LONG, runSize } from './support/run-size';

jest.setTimeout(180000);

const NOW_MS = 1_750_000_123_456;
const NOW_S = Math.floor(NOW_MS / 1000);
const TOLERANCE_S = 300;
const MAX_HEADER = 8192;
const MAX_ENTRIES = 20;

/** Full size (130,000 cases) in `npm run test:long`; a quarter in `npm test`. */
const RUNS = {
	validV2: runSize(6_250, 25_000),
	mutatedV2: runSize(17_500, 70_000),
	v1: runSize(2_500, 10_000),
	legacy: runSize(1_250, 5_000),
	garbage: runSize(5_000, 20_000),
};
const MIN_CASES = LONG ? 100_000 : 25_000;

const counts = {
	cases: 0,
	validAccepted: 0,
	mutatedStillValidAccepted: 0,
	mutatedRejected: 0,
	v1Accepted: 0,
	v1Rejected: 0,
	legacyAccepted: 0,
	legacyRejected: 0,
	garbageRejected: 0,
	falseAccepts: 0,
	falseRejects: 0,
	exceptions: 0,
};

type Headers = Record<string, string | string[] | undefined>;

// ---------------------------------------------------------------- helpers

function concatBytes(...parts: Uint8Array[]): Uint8Array {
	const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
	let offset = 0;
	for (const part of parts) {
		out.set(part, offset);
		offset += part.length;
	}
	return out;
}

const latin1 = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'latin1'));
const b64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
	if (a.length !== b.length) return false;
	for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
	return true;
}

/** Deterministic bytes from a seed (for large bodies: cheaper than generating each byte). */
function seededBytes(seed: number, length: number): Uint8Array {
	const out = new Uint8Array(length);
	let x = seed | 1;
	for (let i = 0; i < length; i++) {
		x ^= x << 13;
		x ^= x >>> 17;
		x ^= x << 5;
		out[i] = x & 0xff;
	}
	return out;
}

/** First value of a header as Node would hand it over; empty counts as missing. */
function firstValue(value: unknown): string | undefined {
	const first = Array.isArray(value) ? value[0] : value;
	return typeof first === 'string' && first.length > 0 ? first : undefined;
}

function isPlainId(id: string | undefined): boolean {
	return id !== undefined && id.length >= 1 && id.length <= 256 && /^[\x21-\x7e]+$/.test(id);
}

/** Runs the verifier, counting anything thrown (it must never throw). */
function run(input: unknown): Verdict | 'threw' {
	counts.cases++;
	try {
		return verifyDelivery(input as VerifyInput);
	} catch {
		counts.exceptions++;
		return 'threw';
	}
}

function describeCase(details: Record<string, unknown>): string {
	return JSON.stringify(details, (_k, v: unknown) =>
		v instanceof Uint8Array ? `bytes(${v.length}):${Buffer.from(v.subarray(0, 32)).toString('hex')}` : v,
	).slice(0, 4000);
}

// ---------------------------------------------------------------- arbitraries

const printable = fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c));
const idArb = fc
	.array(printable, { minLength: 1, maxLength: 48 })
	.map((chars) => chars.join(''));

/** Characters for mutations: base64 and hex symbols, separators, whitespace, unicode. */
const mutationChar = fc.oneof(
	fc.constantFrom(
		' ', '\t', '\n', '\r', '\u00a0', '\u200b', '\u0000', ',', '=', '.', '-', '+', '/', '_',
		'v', '1', '2', 'A', 'a', 'f', 'F', '0', '9', 'é', '😀', '\ud800',
	),
	printable,
	fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
	fc.integer({ min: 0x10000, max: 0x10ffff }).map((c) => String.fromCodePoint(c)),
);
const mutationText = fc.array(mutationChar, { minLength: 1, maxLength: 6 }).map((c) => c.join(''));

const keyArb = fc.uint8Array({ minLength: 1, maxLength: 80 });

const bodyArb = fc.oneof(
	{ weight: 10, arbitrary: fc.uint8Array({ maxLength: 64 }) },
	{ weight: 4, arbitrary: fc.fullUnicodeString({ maxLength: 48 }).map((s) => new Uint8Array(Buffer.from(s, 'utf8'))) },
	{
		weight: 4,
		arbitrary: fc
			.tuple(fc.integer(), fc.integer({ min: 0, max: 3000 }))
			.map(([seed, length]) => seededBytes(seed, length)),
	},
	{
		weight: 1,
		arbitrary: fc
			.tuple(fc.integer(), fc.integer({ min: 16000, max: 20000 }))
			.map(([seed, length]) => seededBytes(seed, length)),
	},
);

/** Entries that must never count: they stand next to the valid one. */
type Decoy =
	| { kind: 'otherKey'; key: Uint8Array }
	| { kind: 'randomDigest'; bytes: Uint8Array }
	| { kind: 'otherVersion'; version: string }
	| { kind: 'junk'; text: string }
	| { kind: 'validTruncated'; keep: number }
	| { kind: 'validChanged'; position: number; char: string }
	| { kind: 'validBareDigest' }
	| { kind: 'validHex' };

const decoyArb: fc.Arbitrary<Decoy> = fc.oneof(
	keyArb.map((key) => ({ kind: 'otherKey' as const, key })),
	fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => ({ kind: 'randomDigest' as const, bytes })),
	// The right digest under another version label: must not count.
	fc
		.constantFrom('v2', 'v1a', 'V1', 'v0', '', 'v11', 'v1x', 'v1;')
		.map((version) => ({ kind: 'otherVersion' as const, version })),
	fc
		.array(fc.oneof(printable, mutationChar), { minLength: 1, maxLength: 60 })
		.map((chars) => ({ kind: 'junk' as const, text: chars.join('').replace(/ /g, '') || 'x' })),
	fc.nat({ max: 46 }).map((keep) => ({ kind: 'validTruncated' as const, keep })),
	fc
		.record({ position: fc.nat(), char: fc.oneof(printable, mutationChar) })
		.map((r) => ({ kind: 'validChanged' as const, ...r })),
	fc.constant({ kind: 'validBareDigest' as const }),
	fc.constant({ kind: 'validHex' as const }),
);

interface Delivery {
	key: Uint8Array;
	secret: string;
	id: string;
	timestamp: string;
	body: Uint8Array;
	/** The one valid entry: "v1," + canonical base64 of the HMAC. */
	entry: string;
	headers: Headers;
}

function materializeDecoy(decoy: Decoy, d: Omit<Delivery, 'headers'>, digest: Uint8Array): string {
	switch (decoy.kind) {
		case 'otherKey':
			return `v1,${b64(hmac(sha256, decoy.key, concatBytes(latin1(`${d.id}.${d.timestamp}.`), d.body)))}`;
		case 'randomDigest':
			return `v1,${b64(decoy.bytes)}`;
		case 'otherVersion':
			return `${decoy.version},${b64(digest)}`;
		case 'junk':
			return decoy.text;
		case 'validTruncated':
			return d.entry.slice(0, decoy.keep) || 'v';
		case 'validChanged': {
			const i = decoy.position % d.entry.length;
			return (d.entry.slice(0, i) + decoy.char + d.entry.slice(i + 1)).replace(/ /g, '') || 'x';
		}
		case 'validBareDigest':
			return d.entry.slice(3);
		case 'validHex':
			return bytesToHex(digest);
	}
}

const deliveryArb: fc.Arbitrary<Delivery> = fc
	.record({
		key: keyArb,
		prefixed: fc.boolean(),
		id: idArb,
		offset: fc.integer({ min: -TOLERANCE_S + 1, max: TOLERANCE_S }), // NOW_MS is 456 ms past NOW_S
		body: bodyArb,
		decoys: fc.array(decoyArb, { maxLength: 6 }),
		position: fc.nat(),
		separators: fc.array(fc.constantFrom(' ', ' ', ' ', '  ', '   '), { minLength: 8, maxLength: 8 }),
		lead: fc.constantFrom('', '', '', ' ', '  '),
		trail: fc.constantFrom('', '', '', ' ', '  '),
		form: fc.constantFrom('string', 'string', 'string', 'array1', 'arrayJunk'),
	})
	.map((r) => {
		const timestamp = String(NOW_S + r.offset);
		const digest = hmac(sha256, r.key, concatBytes(latin1(`${r.id}.${timestamp}.`), r.body));
		const base = {
			key: r.key,
			secret: `${r.prefixed ? 'whsec_' : ''}${b64(r.key)}`,
			id: r.id,
			timestamp,
			body: r.body,
			entry: `v1,${b64(digest)}`,
		};
		const entries = r.decoys.slice(0, MAX_ENTRIES - 1).map((decoy) => materializeDecoy(decoy, base, digest));
		entries.splice(r.position % (entries.length + 1), 0, base.entry);
		let signature = r.lead;
		entries.forEach((entry, i) => {
			signature += (i > 0 ? r.separators[i % r.separators.length] : '') + entry;
		});
		signature += r.trail;
		const sigHeader =
			r.form === 'string' ? signature : r.form === 'array1' ? [signature] : [signature, 'v1,junk'];
		const headers: Headers = {
			'webhook-id': r.id,
			'webhook-timestamp': timestamp,
			'webhook-signature': sigHeader,
			'content-type': 'application/json',
		};
		return { ...base, headers };
	});

// ---------------------------------------------------------------- V2 mutations

type Mutation =
	| { t: 'bodyFlip'; pos: number; xor: number }
	| { t: 'bodyInsert'; pos: number; byte: number }
	| { t: 'bodyDelete'; pos: number }
	| { t: 'bodyTruncate'; len: number }
	| { t: 'strReplace'; target: HeaderName; pos: number; text: string }
	| { t: 'strInsert'; target: HeaderName; pos: number; text: string }
	| { t: 'strDelete'; target: HeaderName; pos: number; len: number }
	| { t: 'strTruncate'; target: HeaderName; len: number }
	| { t: 'tsShift'; delta: number }
	| { t: 'reorder'; seed: number }
	| { t: 'addEntries'; decoys: Decoy[]; pos: number }
	| { t: 'duplicateValid' }
	| { t: 'pad'; len: number; char: string }
	| { t: 'giant'; target: HeaderName; len: number }
	| { t: 'asArray'; target: HeaderName; junkFirst: boolean; junk: string }
	| { t: 'drop'; target: HeaderName }
	| { t: 'rename'; target: HeaderName }
	| { t: 'replaceWhole'; target: HeaderName; text: string };

type HeaderName = 'webhook-id' | 'webhook-timestamp' | 'webhook-signature';
const headerNameArb = fc.constantFrom<HeaderName>(
	'webhook-signature',
	'webhook-signature',
	'webhook-signature',
	'webhook-id',
	'webhook-timestamp',
);

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
	{ weight: 4, arbitrary: fc.record({ t: fc.constant('bodyFlip' as const), pos: fc.nat(), xor: fc.integer({ min: 1, max: 255 }) }) },
	{ weight: 1, arbitrary: fc.record({ t: fc.constant('bodyInsert' as const), pos: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }) },
	{ weight: 1, arbitrary: fc.record({ t: fc.constant('bodyDelete' as const), pos: fc.nat() }) },
	{ weight: 1, arbitrary: fc.record({ t: fc.constant('bodyTruncate' as const), len: fc.nat() }) },
	{ weight: 6, arbitrary: fc.record({ t: fc.constant('strReplace' as const), target: headerNameArb, pos: fc.nat(), text: mutationChar }) },
	{ weight: 3, arbitrary: fc.record({ t: fc.constant('strInsert' as const), target: headerNameArb, pos: fc.nat(), text: mutationText }) },
	{ weight: 3, arbitrary: fc.record({ t: fc.constant('strDelete' as const), target: headerNameArb, pos: fc.nat(), len: fc.integer({ min: 1, max: 4 }) }) },
	{ weight: 2, arbitrary: fc.record({ t: fc.constant('strTruncate' as const), target: headerNameArb, len: fc.nat() }) },
	{ weight: 2, arbitrary: fc.record({ t: fc.constant('tsShift' as const), delta: fc.integer({ min: -400_000, max: 400_000 }).filter((d) => d !== 0) }) },
	{ weight: 3, arbitrary: fc.record({ t: fc.constant('reorder' as const), seed: fc.integer() }) },
	{ weight: 3, arbitrary: fc.record({ t: fc.constant('addEntries' as const), decoys: fc.array(decoyArb, { minLength: 1, maxLength: 24 }), pos: fc.nat() }) },
	{ weight: 1, arbitrary: fc.constant({ t: 'duplicateValid' as const }) },
	{ weight: 1, arbitrary: fc.record({ t: fc.constant('pad' as const), len: fc.integer({ min: 1, max: 9000 }), char: fc.constantFrom(' ', 'A', '\t') }) },
	{ weight: 1, arbitrary: fc.record({ t: fc.constant('giant' as const), target: headerNameArb, len: fc.integer({ min: 8000, max: 200_000 }) }) },
	{ weight: 2, arbitrary: fc.record({ t: fc.constant('asArray' as const), target: headerNameArb, junkFirst: fc.boolean(), junk: mutationText }) },
	{ weight: 1, arbitrary: fc.record({ t: fc.constant('drop' as const), target: headerNameArb }) },
	{ weight: 1, arbitrary: fc.record({ t: fc.constant('rename' as const), target: headerNameArb }) },
	{ weight: 1, arbitrary: fc.record({ t: fc.constant('replaceWhole' as const), target: headerNameArb, text: mutationText }) },
);

interface State {
	headers: Headers;
	body: Uint8Array;
}

/** Applies fn to a header's (first) string value, keeping array form. */
function editHeader(headers: Headers, name: string, fn: (value: string) => string): void {
	const value = headers[name];
	if (typeof value === 'string') {
		headers[name] = fn(value);
	} else if (Array.isArray(value) && typeof value[0] === 'string') {
		headers[name] = [fn(value[0]), ...value.slice(1)];
	}
}

function shuffle<T>(items: T[], seed: number): T[] {
	const out = items.slice();
	let x = seed | 1;
	for (let i = out.length - 1; i > 0; i--) {
		x ^= x << 13;
		x ^= x >>> 17;
		x ^= x << 5;
		const j = (x >>> 0) % (i + 1);
		[out[i], out[j]] = [out[j], out[i]];
	}
	return out;
}

/** A copy of the body with one byte changed (or one byte added to an empty body). */
function flipByte(body: Uint8Array, pos: number, xor: number): Uint8Array {
	if (body.length === 0) return Uint8Array.of(xor);
	const copy = body.slice();
	copy[pos % copy.length] ^= xor;
	return copy;
}

function applyMutation(state: State, m: Mutation, d: Delivery): void {
	const body = state.body;
	switch (m.t) {
		case 'bodyFlip':
			state.body = flipByte(body, m.pos, m.xor);
			return;
		case 'bodyInsert': {
			const i = m.pos % (body.length + 1);
			state.body = concatBytes(body.subarray(0, i), Uint8Array.of(m.byte), body.subarray(i));
			return;
		}
		case 'bodyDelete':
			if (body.length > 0) {
				const i = m.pos % body.length;
				state.body = concatBytes(body.subarray(0, i), body.subarray(i + 1));
			}
			return;
		case 'bodyTruncate':
			state.body = body.slice(0, m.len % (body.length + 1));
			return;
		case 'strReplace':
			editHeader(state.headers, m.target, (v) => {
				const i = m.pos % Math.max(v.length, 1);
				return v.slice(0, i) + m.text + v.slice(i + 1);
			});
			return;
		case 'strInsert':
			editHeader(state.headers, m.target, (v) => {
				const i = m.pos % (v.length + 1);
				return v.slice(0, i) + m.text + v.slice(i);
			});
			return;
		case 'strDelete':
			editHeader(state.headers, m.target, (v) => {
				const i = m.pos % Math.max(v.length, 1);
				return v.slice(0, i) + v.slice(i + m.len);
			});
			return;
		case 'strTruncate':
			editHeader(state.headers, m.target, (v) => v.slice(0, m.len % (v.length + 1)));
			return;
		case 'tsShift':
			editHeader(state.headers, 'webhook-timestamp', (v) => String(Number(v) + m.delta));
			return;
		case 'reorder':
			editHeader(state.headers, 'webhook-signature', (v) =>
				shuffle(v.split(' ').filter((t) => t.length > 0), m.seed).join(' '),
			);
			return;
		case 'addEntries': {
			const digest = new Uint8Array(Buffer.from(d.entry.slice(3), 'base64'));
			const extra = m.decoys.map((decoy) => materializeDecoy(decoy, d, digest));
			editHeader(state.headers, 'webhook-signature', (v) => {
				const tokens = v.split(' ');
				tokens.splice(m.pos % (tokens.length + 1), 0, ...extra);
				return tokens.join(' ');
			});
			return;
		}
		case 'duplicateValid':
			editHeader(state.headers, 'webhook-signature', (v) => `${v} ${d.entry}`);
			return;
		case 'pad':
			editHeader(state.headers, 'webhook-signature', (v) => m.char.repeat(m.len) + (m.char === ' ' ? '' : ' ') + v);
			return;
		case 'giant':
			editHeader(state.headers, m.target, (v) => `${v}${'v1,AAAA '.repeat(Math.ceil(m.len / 8))}`);
			return;
		case 'asArray': {
			const value = state.headers[m.target];
			if (typeof value === 'string') {
				state.headers[m.target] = m.junkFirst ? [m.junk, value] : [value, m.junk];
			}
			return;
		}
		case 'drop':
			delete state.headers[m.target];
			return;
		case 'rename': {
			const value = state.headers[m.target];
			delete state.headers[m.target];
			state.headers[m.target.replace(/(^|-)([a-z])/g, (_s, dash: string, c: string) => dash + c.toUpperCase())] = value;
			return;
		}
		case 'replaceWhole':
			if (state.headers[m.target] !== undefined) state.headers[m.target] = m.text;
			return;
	}
}

/** The rules, stated directly: see the file comment. */
function oracleV2(state: State, d: Delivery): boolean {
	const id = firstValue(state.headers['webhook-id']);
	const timestamp = firstValue(state.headers['webhook-timestamp']);
	// Every copy of the signature header counts (a proxy may repeat it; Node joins copies with ", ").
	const copies = (Array.isArray(state.headers['webhook-signature']) ? state.headers['webhook-signature'] : [state.headers['webhook-signature']]).filter(
		(v): v is string => typeof v === 'string' && v.length > 0,
	);
	const signature = copies.length > 0 ? copies.join(', ') : undefined;
	if (id !== d.id || timestamp !== d.timestamp || !bytesEqual(state.body, d.body) || signature === undefined) {
		return false;
	}
	if (signature.length > MAX_HEADER) return false;
	const tokens = signature
		.split(' ')
		.filter((t) => t.length > 0)
		.map((t) => (t.endsWith(',') && t.length > 3 ? t.slice(0, -1) : t));
	return tokens.length <= MAX_ENTRIES && tokens.includes(d.entry);
}

function v2Input(d: Delivery, headers: Headers, body: Uint8Array): VerifyInput {
	return {
		rawBody: Buffer.from(body),
		headers,
		secret: d.secret,
		version: 'V2',
		nowMs: NOW_MS,
		toleranceSeconds: TOLERANCE_S,
	};
}

function cloneHeaders(headers: Headers): Headers {
	const out: Headers = {};
	for (const [k, v] of Object.entries(headers)) out[k] = Array.isArray(v) ? v.slice() : v;
	return out;
}

// ---------------------------------------------------------------- V1 and legacy

interface V1Delivery {
	secret: string;
	id: string;
	timestamp: string;
	body: Uint8Array;
	signature: string;
	legacySignature: string;
}

const v1SecretArb = fc.oneof(
	fc.string({ minLength: 1, maxLength: 40 }),
	fc.fullUnicodeString({ minLength: 1, maxLength: 20 }),
	fc.string({ minLength: 65, maxLength: 120 }),
);

const v1DeliveryArb: fc.Arbitrary<V1Delivery> = fc
	.record({
		secret: v1SecretArb,
		id: idArb,
		offset: fc.integer({ min: -TOLERANCE_S * 1000, max: TOLERANCE_S * 1000 }),
		body: bodyArb,
	})
	.map((r) => {
		const timestamp = String(NOW_MS + r.offset);
		const key = new TextEncoder().encode(r.secret);
		return {
			secret: r.secret,
			id: r.id,
			timestamp,
			body: r.body,
			signature: bytesToHex(hmac(sha256, key, concatBytes(latin1(`${timestamp}.`), r.body))),
			legacySignature: bytesToHex(hmac(sha256, key, r.body)),
		};
	});

type V1Mutation =
	| { t: 'none' }
	| { t: 'bodyFlip'; pos: number; xor: number }
	| { t: 'field'; field: 'webhook-id' | 'webhook-timestamp' | 'webhook-signature'; pos: number; text: string; mode: 'replace' | 'insert' | 'delete' }
	| { t: 'tsShift'; delta: number }
	| { t: 'upper' }
	| { t: 'wholeId'; id: string };

const v1MutationArb: fc.Arbitrary<V1Mutation> = fc.oneof(
	{ weight: 3, arbitrary: fc.constant({ t: 'none' as const }) },
	{ weight: 3, arbitrary: fc.record({ t: fc.constant('bodyFlip' as const), pos: fc.nat(), xor: fc.integer({ min: 1, max: 255 }) }) },
	{
		weight: 6,
		arbitrary: fc.record({
			t: fc.constant('field' as const),
			field: fc.constantFrom('webhook-id' as const, 'webhook-timestamp' as const, 'webhook-signature' as const),
			pos: fc.nat(),
			text: fc.oneof(fc.constantFrom('0', '1', 'a', 'f', 'A', 'g', ' '), mutationChar),
			mode: fc.constantFrom('replace' as const, 'insert' as const, 'delete' as const),
		}),
	},
	{ weight: 2, arbitrary: fc.record({ t: fc.constant('tsShift' as const), delta: fc.integer({ min: -400_000, max: 400_000 }).filter((x) => x !== 0) }) },
	{ weight: 1, arbitrary: fc.constant({ t: 'upper' as const }) },
	{ weight: 2, arbitrary: fc.record({ t: fc.constant('wholeId' as const), id: fc.oneof(idArb, mutationText, fc.constant('')) }) },
);

function editString(v: string, pos: number, text: string, mode: 'replace' | 'insert' | 'delete'): string {
	const i = pos % (v.length + (mode === 'insert' ? 1 : 0) || 1);
	if (mode === 'insert') return v.slice(0, i) + text + v.slice(i);
	if (mode === 'delete') return v.slice(0, i) + v.slice(i + 1);
	return v.slice(0, i) + text + v.slice(i + 1);
}

/** V1 and legacy signatures are hex of either case. */
function sameHex(value: string | undefined, expected: string): boolean {
	return value !== undefined && /^[0-9a-fA-F]{64}$/.test(value) && value.toLowerCase() === expected;
}

function withinWindowMs(timestamp: string | undefined): boolean {
	if (timestamp === undefined || !/^[0-9]{1,15}$/.test(timestamp)) return false;
	return Math.abs(NOW_MS - Number(timestamp)) <= TOLERANCE_S * 1000;
}

// ---------------------------------------------------------------- garbage

const garbageValue = fc.oneof(
	fc.string({ maxLength: 60 }),
	fc.fullUnicodeString({ maxLength: 30 }),
	fc.array(fc.string({ maxLength: 50 }), { maxLength: 3 }),
	fc.constant(undefined),
	fc.constant(null),
	fc.integer(),
	fc.tuple(fc.string({ minLength: 1, maxLength: 8 }), fc.integer({ min: 1, max: 3000 })).map(([s, n]) => s.repeat(n)),
	fc.array(fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => `v1,${b64(b)}`), { maxLength: 5 }).map((e) => e.join(' ')),
	fc.uint8Array({ minLength: 32, maxLength: 32 }).map(bytesToHex),
	fc.integer({ min: NOW_S - 300, max: NOW_S + 300 }).map(String),
	fc.integer({ min: NOW_MS - 300_000, max: NOW_MS + 300_000 }).map(String),
);

const garbageInputArb = fc.oneof(
	{
		weight: 8,
		arbitrary: fc.record({
			rawBody: fc.oneof(
				fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)),
				fc.constant(undefined),
				fc.string(),
				fc.constant(null),
				fc.integer(),
			),
			headers: fc.oneof(
				fc.dictionary(
					fc.oneof(
						fc.constantFrom(
							'webhook-id',
							'webhook-timestamp',
							'webhook-signature',
							'x-service-signature',
							'x-service-timestamp',
							'x-service-idempotency',
						),
						fc.string({ maxLength: 20 }),
					),
					garbageValue,
					{ maxKeys: 8 },
				),
				fc.constant(null),
				fc.constant({}),
				fc.string(),
			),
			secret: fc.oneof(
				fc.string({ maxLength: 60 }),
				fc.uint8Array({ minLength: 1, maxLength: 40 }).map((b) => `whsec_${b64(b)}`),
				fc.constant(''),
				fc.integer(),
				fc.constant(undefined),
			),
			version: fc.constantFrom('V1', 'V2', 'V2', 'v2', 'V3', undefined, 2),
			nowMs: fc.oneof(fc.constant(NOW_MS), fc.double(), fc.integer(), fc.constant(NaN), fc.constant(Infinity)),
			toleranceSeconds: fc.oneof(fc.constant(TOLERANCE_S), fc.double(), fc.constant(-1), fc.constant(Infinity)),
			acceptBodyOnlySignature: fc.oneof(fc.boolean(), fc.constant(undefined), fc.string()),
		}),
	},
	{ weight: 1, arbitrary: fc.oneof(fc.constant(null), fc.constant(undefined), fc.integer(), fc.string(), fc.constant([])) },
	{
		// Structurally valid V2 delivery whose signature entries are random: must reject.
		weight: 6,
		arbitrary: fc
			.record({
				key: keyArb,
				id: idArb,
				offset: fc.integer({ min: -TOLERANCE_S + 1, max: TOLERANCE_S }), // NOW_MS is 456 ms past NOW_S
				body: fc.uint8Array({ maxLength: 64 }),
				entries: fc.array(
					fc.oneof(
						fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => `v1,${b64(b)}`),
						fc.string({ maxLength: 50 }),
					),
					{ minLength: 1, maxLength: 25 },
				),
			})
			.map((r) => ({
				rawBody: Buffer.from(r.body),
				headers: {
					'webhook-id': r.id,
					'webhook-timestamp': String(NOW_S + r.offset),
					'webhook-signature': r.entries.join(' '),
				},
				secret: `whsec_${b64(r.key)}`,
				version: 'V2',
				nowMs: NOW_MS,
				toleranceSeconds: TOLERANCE_S,
			})),
	},
);

// ---------------------------------------------------------------- properties

describe('verifier fuzzing (fast-check)', () => {
	it('accepts every valid V2 delivery (key rotation decoys, spacing, array headers)', () => {
		fc.assert(
			fc.property(deliveryArb, (d) => {
				const verdict = run(v2Input(d, d.headers, d.body));
				if (verdict === 'threw' || !verdict.ok || verdict.id !== d.id || verdict.timestamp !== Number(d.timestamp)) {
					counts.falseRejects++;
					throw new Error(`valid delivery not accepted: ${describeCase({ verdict, d })}`);
				}
				counts.validAccepted++;
			}),
			{ numRuns: RUNS.validV2 },
		);
	});

	it('mutated V2 deliveries: rejected unless the mutation left them valid', () => {
		fc.assert(
			fc.property(deliveryArb, fc.array(mutationArb, { minLength: 1, maxLength: 3 }), (d, mutations) => {
				const state: State = { headers: cloneHeaders(d.headers), body: d.body };
				for (const m of mutations) applyMutation(state, m, d);
				const expected = oracleV2(state, d);
				const verdict = run(v2Input(d, state.headers, state.body));
				if (verdict === 'threw') {
					throw new Error(`threw: ${describeCase({ mutations, d })}`);
				}
				if (verdict.ok !== expected) {
					if (verdict.ok) counts.falseAccepts++;
					else counts.falseRejects++;
					throw new Error(
						`expected ${expected ? 'accept' : 'reject'}: ${describeCase({ verdict, mutations, headers: state.headers, d })}`,
					);
				}
				if (expected) counts.mutatedStillValidAccepted++;
				else counts.mutatedRejected++;
			}),
			{ numRuns: RUNS.mutatedV2 },
		);
	});

	it('V1 deliveries, valid and mutated', () => {
		fc.assert(
			fc.property(v1DeliveryArb, v1MutationArb, (d, m) => {
				const headers: Headers = {
					'webhook-id': d.id,
					'webhook-timestamp': d.timestamp,
					'webhook-signature': d.signature,
				};
				let body = d.body;
				switch (m.t) {
					case 'bodyFlip':
						body = flipByte(body, m.pos, m.xor);
						break;
					case 'field':
						headers[m.field] = editString(headers[m.field] as string, m.pos, m.text, m.mode);
						break;
					case 'tsShift':
						headers['webhook-timestamp'] = String(Number(d.timestamp) + m.delta);
						break;
					case 'upper':
						headers['webhook-signature'] = d.signature.toUpperCase();
						break;
					case 'wholeId':
						headers['webhook-id'] = m.id;
						break;
					case 'none':
						break;
				}
				// V1 signs "<ms>.<body>" only: the id is not covered, but must be a plain token.
				const expected =
					bytesEqual(body, d.body) &&
					sameHex(firstValue(headers['webhook-signature']), d.signature) &&
					firstValue(headers['webhook-timestamp']) === d.timestamp &&
					isPlainId(firstValue(headers['webhook-id']));
				const verdict = run({
					rawBody: Buffer.from(body),
					headers,
					secret: d.secret,
					version: 'V1',
					nowMs: NOW_MS,
					toleranceSeconds: TOLERANCE_S,
				});
				if (verdict === 'threw') throw new Error(`threw: ${describeCase({ m, d })}`);
				if (verdict.ok !== expected) {
					if (verdict.ok) counts.falseAccepts++;
					else counts.falseRejects++;
					throw new Error(`V1 expected ${expected ? 'accept' : 'reject'}: ${describeCase({ verdict, m, headers, d })}`);
				}
				if (expected) counts.v1Accepted++;
				else counts.v1Rejected++;
			}),
			{ numRuns: RUNS.v1 },
		);
	});

	it('legacy body-only V1 deliveries, valid and mutated, only with the option', () => {
		fc.assert(
			fc.property(v1DeliveryArb, v1MutationArb, fc.boolean(), (d, m, option) => {
				const headers: Headers = {
					'x-service-signature': d.legacySignature,
					'x-service-timestamp': d.timestamp,
					'x-service-idempotency': d.id,
				};
				let body = d.body;
				switch (m.t) {
					case 'bodyFlip':
						body = flipByte(body, m.pos, m.xor);
						break;
					case 'field': {
						const name = { 'webhook-id': 'x-service-idempotency', 'webhook-timestamp': 'x-service-timestamp', 'webhook-signature': 'x-service-signature' }[m.field];
						headers[name] = editString(headers[name] as string, m.pos, m.text, m.mode);
						break;
					}
					case 'tsShift':
						headers['x-service-timestamp'] = String(Number(d.timestamp) + m.delta);
						break;
					case 'upper':
						headers['x-service-signature'] = d.legacySignature.toUpperCase();
						break;
					case 'wholeId':
						headers['x-service-idempotency'] = m.id;
						break;
					case 'none':
						break;
				}
				// Only the body is signed; the timestamp is unsigned but must be in the window.
				const expected =
					option &&
					bytesEqual(body, d.body) &&
					sameHex(firstValue(headers['x-service-signature']), d.legacySignature) &&
					withinWindowMs(firstValue(headers['x-service-timestamp'])) &&
					isPlainId(firstValue(headers['x-service-idempotency']));
				const verdict = run({
					rawBody: Buffer.from(body),
					headers,
					secret: d.secret,
					version: 'V1',
					nowMs: NOW_MS,
					toleranceSeconds: TOLERANCE_S,
					acceptBodyOnlySignature: option,
				});
				if (verdict === 'threw') throw new Error(`threw: ${describeCase({ m, d })}`);
				if (verdict.ok !== expected || (verdict.ok && verdict.legacy !== true)) {
					if (verdict.ok) counts.falseAccepts++;
					else counts.falseRejects++;
					throw new Error(`legacy expected ${expected ? 'accept' : 'reject'}: ${describeCase({ verdict, m, option, headers, d })}`);
				}
				if (expected) counts.legacyAccepted++;
				else counts.legacyRejected++;
			}),
			{ numRuns: RUNS.legacy },
		);
	});

	it('random garbage: never throws, never accepts', () => {
		fc.assert(
			fc.property(garbageInputArb, (input) => {
				const verdict = run(input);
				if (verdict === 'threw') throw new Error(`threw: ${describeCase({ input })}`);
				if (verdict.ok) {
					counts.falseAccepts++;
					throw new Error(`garbage accepted: ${describeCase({ input })}`);
				}
				if (typeof verdict.reason !== 'string' || verdict.reason.length === 0 || verdict.reason.length > 200) {
					throw new Error(`bad reason: ${describeCase({ verdict })}`);
				}
				counts.garbageRejected++;
			}),
			{ numRuns: RUNS.garbage },
		);
	});

	afterAll(() => {
		const generated = Object.values(RUNS).reduce((a, b) => a + b, 0);
		console.log(
			[
				`verifier fuzz: ${counts.cases} cases run (${generated} generated by fast-check)`,
				`  valid V2 accepted:                    ${counts.validAccepted}`,
				`  mutated V2 rejected:                  ${counts.mutatedRejected}`,
				`  mutated V2 still valid, accepted:     ${counts.mutatedStillValidAccepted}`,
				`  V1 accepted / rejected:               ${counts.v1Accepted} / ${counts.v1Rejected}`,
				`  legacy accepted / rejected:           ${counts.legacyAccepted} / ${counts.legacyRejected}`,
				`  garbage rejected:                     ${counts.garbageRejected}`,
				`  false accepts:                        ${counts.falseAccepts}`,
				`  false rejects:                        ${counts.falseRejects}`,
				`  exceptions escaping verifyDelivery:  ${counts.exceptions}`,
			].join('\n'),
		);
	});

	it(`ran at least ${MIN_CASES.toLocaleString('en-US')} cases with zero false accepts and zero exceptions`, () => {
		// Declared last: jest runs tests in order, so the properties above have run.
		expect(counts.cases).toBeGreaterThanOrEqual(MIN_CASES);
		expect(counts.falseAccepts).toBe(0);
		expect(counts.falseRejects).toBe(0);
		expect(counts.exceptions).toBe(0);
		// The mutation model exercises both outcomes.
		expect(counts.mutatedRejected).toBeGreaterThan(RUNS.mutatedV2 / 2);
		expect(counts.mutatedStillValidAccepted).toBeGreaterThan(100);
	});
});
