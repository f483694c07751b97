/**
 * Reports.
 *   POST /v2/stores/:storeId/reports            {type, from, to, format?}; scope REPORTS_WRITE -> 201 report (PENDING).
 *        type PAYMENT_ACTIVITY | PAYOUT_RECONCILIATION | BALANCE_LEDGER | REFUNDS_DISPUTES; from/to ISO 8601,
 *        from < to, at most 90 days; format CSV | JSON (default CSV). 429 (Retry-After 30) when 10 reports of
 *        the store are already PENDING or PROCESSING.
 *   GET  /v2/stores/:storeId/reports            list (page, limit, status, type), newest first; REPORTS_READ
 *   GET  /v2/stores/:storeId/reports/:reportId  the report; REPORTS_READ
 *   GET  /v2/stores/:storeId/reports/:reportId/download/:format  (CSV | JSON) -> {reportId, format, url,
 *        expiresAt}; the url is /__files/<token> on this server, valid 5 minutes of sandbox clock;
 *        400 report_not_ready unless SUCCEEDED; 410 report_expired 30 days after completion; REPORTS_READ
 *   GET  /__files/:token   the file (no auth): text/csv or application/json; 403 url_expired after 5 minutes,
 *        404 unknown token.
 * Every route above is served under /v2/stores and /v2/core.
 * Disagreeing (disagree.ts): the download url is on another host (a second listener of the sandbox).
 *
 * Lifecycle PENDING -> PROCESSING -> SUCCEEDED (or FAILED), one step per GET of the report by id, and one
 * step per 60 s of sandbox clock since creation (whichever gives more steps). The list does not move
 * reports. A report whose period starts before the store was created FAILS (failureReason set).
 * Files are generated when the report succeeds, from the seeded orders and refunds of the period:
 * PAYMENT_ACTIVITY columns end with payment_method, card_brand, card_last_four, order.metadata.
 * Body names (type, from, to, format), the record fields, the download response fields and the
 * not-ready status are our choice (the spec does not show them).
 */
import { randomBytes } from 'node:crypto';

import { badRequest, both, Ctx, HttpError, notFound, ok, paginate, Reply, SandboxApp, single, v } from '../app';
import type { Order, SandboxState } from '../state';

export const REPORT_TYPES = ['PAYMENT_ACTIVITY', 'PAYOUT_RECONCILIATION', 'BALANCE_LEDGER', 'REFUNDS_DISPUTES'] as const;
export const REPORT_STATUSES = ['PENDING', 'PROCESSING', 'SUCCEEDED', 'FAILED'] as const;
export const REPORT_FORMATS = ['CSV', 'JSON'] as const;
type ReportType = (typeof REPORT_TYPES)[number];
type ReportStatus = (typeof REPORT_STATUSES)[number];
type ReportFormat = (typeof REPORT_FORMATS)[number];

const DAY = 86_400_000;
export const MAX_ACTIVE_REPORTS = 10;
export const STEP_MS = 60_000;
export const URL_TTL_MS = 5 * 60_000;
export const FILE_RETENTION_MS = 30 * DAY;
export const LIMIT_RETRY_AFTER_S = 30;

export interface ReportRecord {
	id: string;
	storeId: string;
	type: ReportType;
	status: ReportStatus;
	from: string;
	to: string;
	format: ReportFormat;
	rowCount: number | null;
	failureReason: string | null;
	createdAt: string;
	startedAt: string | null;
	completedAt: string | null;
	filesExpireAt: string | null;
	/** Steps taken by reads (not in responses). */
	reads: number;
}

export interface ReportFile {
	reportId: string;
	format: ReportFormat;
	contentType: string;
	bytes: Buffer;
}

export interface DownloadLink {
	token: string;
	reportId: string;
	format: ReportFormat;
	expiresAt: number;
}

const CONTENT_TYPES: Record<ReportFormat, string> = {
	CSV: 'text/csv; charset=utf-8',
	JSON: 'application/json; charset=utf-8',
};

export function register(app: SandboxApp): void {
	const reports = () => app.collection<ReportRecord>('reports');
	const files = () => app.collection<ReportFile>('reportFiles');
	const links = () => app.collection<DownloadLink>('reportDownloadLinks');
	const read = { scope: 'REPORTS_READ' } as const;

	/** Moves a report along by clock and reads; generates its files when it succeeds. */
	const advance = (r: ReportRecord, now: number): ReportRecord => {
		const created = Date.parse(r.createdAt);
		const steps = Math.max(r.reads, Math.floor((now - created) / STEP_MS));
		if (r.status === 'PENDING' && steps >= 1) {
			r.status = 'PROCESSING';
			r.startedAt = app.clock.iso(Math.min(now, created + STEP_MS));
		}
		if (r.status === 'PROCESSING' && steps >= 2) {
			r.completedAt = app.clock.iso(Math.min(now, created + 2 * STEP_MS));
			if (Date.parse(r.from) < Date.parse(app.state.store.createdAt)) {
				r.status = 'FAILED';
				r.failureReason = 'The period starts before the store was created';
			} else {
				const rows = reportRows(app.state, r);
				r.status = 'SUCCEEDED';
				r.rowCount = rows.rows.length;
				r.filesExpireAt = app.clock.iso(Date.parse(r.completedAt) + FILE_RETENTION_MS);
				files().push(
					{ reportId: r.id, format: 'CSV', contentType: CONTENT_TYPES.CSV, bytes: toCsv(rows) },
					{ reportId: r.id, format: 'JSON', contentType: CONTENT_TYPES.JSON, bytes: toJson(r, rows) },
				);
			}
		}
		return r;
	};

	const find = (ctx: Ctx): ReportRecord => {
		const r = reports().find((x) => x.id === ctx.params.reportId);
		if (!r) throw notFound('Report');
		return advance(r, ctx.now());
	};

	app.route('POST', both('/reports'), (ctx) => {
		v.onlyFields(ctx.body, ['type', 'from', 'to', 'format']);
		const type = v.oneOf(ctx.body.type, 'type', REPORT_TYPES, { required: true })!;
		const from = v.timestamp(ctx.body.from, 'from', { required: true })!;
		const to = v.timestamp(ctx.body.to, 'to', { required: true })!;
		if (from >= to) throw badRequest('from', 'must be before to');
		if (to - from > 90 * DAY) throw badRequest('to', 'the period must be at most 90 days');
		const format = v.oneOf(ctx.body.format, 'format', REPORT_FORMATS) ?? 'CSV';
		const now = ctx.now();
		const active = reports().filter((r) => ['PENDING', 'PROCESSING'].includes(advance(r, now).status)).length;
		if (active >= MAX_ACTIVE_REPORTS) {
			throw new HttpError(
				429,
				'too_many_reports',
				`At most ${MAX_ACTIVE_REPORTS} reports may be PENDING or PROCESSING; wait for running reports to finish`,
				undefined,
				{ 'Retry-After': String(LIMIT_RETRY_AFTER_S) },
			);
		}
		const report: ReportRecord = {
			id: app.newId('rpt_'),
			storeId: app.state.store.id,
			type,
			status: 'PENDING',
			from: new Date(from).toISOString(),
			to: new Date(to).toISOString(),
			format,
			rowCount: null,
			failureReason: null,
			createdAt: ctx.iso(now),
			startedAt: null,
			completedAt: null,
			filesExpireAt: null,
			reads: 0,
		};
		reports().unshift(report);
		return ok(view(report), 201);
	}, { scope: 'REPORTS_WRITE' });

	app.route('GET', both('/reports'), (ctx) => {
		const status = v.oneOf(single(ctx.query.status, 'status'), 'status', REPORT_STATUSES);
		const type = v.oneOf(single(ctx.query.type, 'type'), 'type', REPORT_TYPES);
		const now = ctx.now();
		const found = reports()
			.map((r) => advance(r, now))
			.filter((r) => (!status || r.status === status) && (!type || r.type === type));
		return ok(paginate(found, ctx.query, view));
	}, read);

	app.route('GET', both('/reports/:reportId'), (ctx) => {
		const r = find(ctx);
		r.reads += 1;
		return ok(view(advance(r, ctx.now())));
	}, read);

	app.route('GET', both('/reports/:reportId/download/:format'), async (ctx) => {
		const format = v.oneOf(ctx.params.format, 'format', REPORT_FORMATS, { required: true })!;
		const r = find(ctx);
		if (r.status !== 'SUCCEEDED') {
			throw new HttpError(400, 'report_not_ready', `The report is ${r.status}; files can be downloaded once it has SUCCEEDED`);
		}
		if (r.filesExpireAt && ctx.now() > Date.parse(r.filesExpireAt)) {
			throw new HttpError(410, 'report_expired', 'Report files are kept 30 days; create the report again');
		}
		const link: DownloadLink = {
			token: randomBytes(24).toString('base64url'),
			reportId: r.id,
			format,
			expiresAt: ctx.now() + URL_TTL_MS,
		};
		links().push(link);
		const origin = app.disagree.on ? await app.otherOrigin() : `http://${String(ctx.headers.host ?? '127.0.0.1')}`;
		return ok({ reportId: r.id, format, url: `${origin}/__files/${link.token}`, expiresAt: ctx.iso(link.expiresAt) });
	}, read);

	app.route('GET', '/__files/:token', (ctx): Reply => {
		const link = links().find((l) => l.token === ctx.params.token);
		if (!link) throw notFound('File');
		if (ctx.now() > link.expiresAt) throw new HttpError(403, 'url_expired', 'This download URL has expired (valid 5 minutes)');
		const file = files().find((f) => f.reportId === link.reportId && f.format === link.format);
		if (!file) throw notFound('File');
		return {
			status: 200,
			body: file.bytes,
			headers: {
				'content-type': file.contentType,
				'content-disposition': `attachment; filename="report_${link.reportId}.${link.format.toLowerCase()}"`,
			},
		};
	}, { auth: 'none' });
}

function view(r: ReportRecord) {
	const { reads: _reads, ...rest } = r;
	return rest;
}

// ---------------------------------------------------------------- file contents

interface Rows {
	columns: string[];
	rows: (string | number | null)[][];
}

const inPeriod = (at: string, r: ReportRecord) => at >= r.from && at < r.to;

function reportRows(state: SandboxState, r: ReportRecord): Rows {
	const orders = state.orders.filter((o) => inPeriod(o.createdAt, r)).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
	const email = (o: Order) => state.customers.find((c) => c.id === o.customerId)?.email ?? null;
	switch (r.type) {
		case 'PAYMENT_ACTIVITY':
			return {
				columns: [
					'created_at', 'order_id', 'order_number', 'payment_id', 'status', 'currency', 'amount', 'discount_amount',
					'tax_amount', 'total_amount', 'customer_email', 'payment_method', 'card_brand', 'card_last_four', 'order.metadata',
				],
				rows: orders.map((o) => [
					o.createdAt, o.id, o.orderNumber, o.payment.id, o.payment.status, o.currency, o.payment.amount,
					o.payment.discountAmount, o.payment.taxAmount, o.payment.totalAmount, email(o), o.paymentMethod.type,
					o.paymentMethod.cardBrand, o.paymentMethod.cardLastFour, JSON.stringify(o.customFields ?? {}),
				]),
			};
		case 'PAYOUT_RECONCILIATION':
			return {
				columns: ['settled_at', 'order_id', 'payment_id', 'currency', 'gross_amount', 'psp_fee', 'platform_fee', 'net_amount'],
				rows: orders
					.filter((o) => o.payment.status === 'COMPLETED')
					.map((o) => [o.updatedAt, o.id, o.payment.id, o.currency, o.payment.totalAmount, o.payment.pspFeeAmount, o.payment.platformFeeAmount, o.payment.settledAmount]),
			};
		case 'BALANCE_LEDGER': {
			const entries: [string, string, string, number, string][] = [];
			for (const o of orders.filter((x) => x.payment.status === 'COMPLETED')) {
				entries.push([o.createdAt, 'charge', o.payment.id, o.payment.totalAmount, o.currency]);
				entries.push([o.createdAt, 'fee', o.payment.id, -(o.payment.pspFeeAmount + o.payment.platformFeeAmount), o.currency]);
			}
			for (const f of state.refunds.filter((x) => inPeriod(x.createdAt, r))) entries.push([f.createdAt, 'refund', f.id, -f.amount, f.currency]);
			entries.sort((a, b) => a[0].localeCompare(b[0]));
			let balance = 0;
			return {
				columns: ['created_at', 'entry_type', 'reference_id', 'amount', 'currency', 'balance_after'],
				rows: entries.map(([at, kind, ref, amount, currency]) => {
					balance = Math.round((balance + amount) * 100) / 100;
					return [at, kind, ref, Math.round(amount * 100) / 100, currency, balance];
				}),
			};
		}
		case 'REFUNDS_DISPUTES':
			return {
				columns: ['created_at', 'kind', 'id', 'order_id', 'amount', 'currency', 'status', 'reason'],
				rows: state.refunds
					.filter((f) => inPeriod(f.createdAt, r))
					.map((f) => [f.createdAt, 'refund', f.id, f.orderId, f.amount, f.currency, f.status, f.reason]),
			};
	}
}

function csvCell(value: string | number | null): string {
	if (value === null) return '';
	const text = String(value);
	return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function toCsv({ columns, rows }: Rows): Buffer {
	const lines = [columns, ...rows].map((row) => row.map(csvCell).join(','));
	return Buffer.from(lines.join('\r\n') + '\r\n', 'utf8');
}

function toJson(r: ReportRecord, { columns, rows }: Rows): Buffer {
	const records = rows.map((row) => Object.fromEntries(columns.map((c, i) => [c, row[i]])));
	const doc = { report: { id: r.id, type: r.type, from: r.from, to: r.to }, columns, rows: records };
	return Buffer.from(JSON.stringify(doc, null, 2), 'utf8');
}
