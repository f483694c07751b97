import type { IDataObject, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { STORE_CREDENTIAL } from '../../../shared/credentials';
import { opt } from '../../../shared/readers';
import { ID } from '../../../shared/ids';
import { enumOptions } from '../../../shared/labels';
import { collectionField, locatorField, returnAllFields } from '../../properties';
import type { Operation, Params, Resource, RunContext } from '../../operation';

export const REPORT_TYPES = ['PAYMENT_ACTIVITY', 'PAYOUT_RECONCILIATION', 'BALANCE_LEDGER', 'REFUNDS_DISPUTES'] as const;
export const REPORT_STATUSES = ['PENDING', 'PROCESSING', 'SUCCEEDED', 'FAILED'] as const;
export const REPORT_FORMATS = ['CSV', 'JSON'] as const;

/** What each report type contains. */
const REPORT_TYPE_NOTES: Record<(typeof REPORT_TYPES)[number], string> = {
	BALANCE_LEDGER: 'Every balance movement: charges, fees and refunds',
	PAYMENT_ACTIVITY: 'Payments with method, card brand, last four and order metadata',
	PAYOUT_RECONCILIATION: 'Settled payments with fees and net amounts',
	REFUNDS_DISPUTES: 'Refunds and disputes of the period',
};

const typeOptions = enumOptions(REPORT_TYPES, { REFUNDS_DISPUTES: 'Refunds and Disputes' }).map((option) => ({
	...option,
	description: REPORT_TYPE_NOTES[option.value as (typeof REPORT_TYPES)[number]],
}));

const formatOptions = enumOptions(REPORT_FORMATS, { CSV: 'CSV', JSON: 'JSON' });

/** What Download does with a file holding full card numbers. */
const CARD_NUMBER_CHOICES = ['refuse', 'mask'] as const;

const DAY_MS = 86_400_000;
/** The spec's limit on the period of one report. */
export const MAX_PERIOD_DAYS = 90;
/**
 * Longest Retry-After report creation waits for. The concurrent-report limit
 * clears only when running reports finish, so a longer wait fails at once
 * with a clear message instead of keeping the workflow busy.
 */
const CREATE_MAX_RETRY_AFTER_MS = 10_000;

const LIMIT_HINT =
	'10 reports of this store are already PENDING or PROCESSING, the most the service allows. Wait for running reports to finish ' +
	'(Report > Get Many with Status filter PENDING or PROCESSING), then create this report again.';

const MIME_TYPES: Record<(typeof REPORT_FORMATS)[number], string> = {
	CSV: 'text/csv',
	JSON: 'application/json',
};

function createBody(p: Params): IDataObject {
	const type = p.v.oneOf('Type', p.get('type'), REPORT_TYPES);
	const from = p.v.timestamp('From', p.get('from'));
	const to = p.v.timestamp('To', p.get('to'));
	const fromMs = Date.parse(from);
	const toMs = Date.parse(to);
	// The period's order is not a rule the service states (only its 90 days): a warning.
	if (fromMs >= toMs) p.v.warn(`"From" is not before "To" (got From ${from}, To ${to})`);
	const days = (toMs - fromMs) / DAY_MS;
	if (days > MAX_PERIOD_DAYS) {
		p.v.fail(
			`The period from "From" to "To" must be at most ${MAX_PERIOD_DAYS} days (got ${Math.ceil(days)} days)`,
			'Split a longer period into several reports.',
		);
	}
	const f = p.fields('additionalFields');
	return {
		type,
		from,
		to,
		format: opt(f, 'format', (v) => p.v.oneOf('Format', v, REPORT_FORMATS)),
	};
}

async function runCreate(rc: RunContext): Promise<INodeExecutionData[]> {
	try {
		const res = await rc.transport.request({ ...rc.request, maxRetryAfterMs: CREATE_MAX_RETRY_AFTER_MS });
		return [{ json: (res.data ?? {}) as IDataObject, pairedItem: { item: rc.p.itemIndex } }];
	} catch (error) {
		throw limitError(rc, error);
	}
}

/** A 429 of report creation becomes a clear message; other errors pass unchanged. */
function limitError(rc: RunContext, error: unknown): unknown {
	if ((error as { httpCode?: string }).httpCode !== '429') return error;
	return new NodeOperationError(
		rc.ctx.getNode(),
		'Too many reports are being generated: wait for running reports to finish (HTTP 429)',
		{ description: LIMIT_HINT, itemIndex: rc.p.itemIndex },
	);
}

async function runDownload(rc: RunContext): Promise<INodeExecutionData[]> {
	const { p } = rc;
	const reportId = p.id('reportId', ID.reportId);
	const format = p.v.oneOf('Format', p.get('format', 'CSV'), REPORT_FORMATS);
	const downloadFile = p.get<boolean>('downloadFile', true) !== false;
	const binaryProperty = downloadFile
		? p.v.string('Put Output File in Field', p.get('binaryPropertyName', 'data'), { min: 1, max: 128 }).trim()
		: '';
	if (downloadFile && binaryProperty === '') p.v.fail('"Put Output File in Field" must not be empty');

	const res = await rc.transport.request({ ...rc.request, path: `${rc.request.path}/${format}` });
	const data = (res.data ?? {}) as IDataObject;
	const url = data.url ?? data.downloadUrl;
	if (typeof url !== 'string' || !/^https?:\/\//.test(url)) {
		throw new NodeOperationError(p.ctx.getNode(), 'The service did not return a download URL', {
			itemIndex: p.itemIndex,
		});
	}
	const json: IDataObject = {
		reportId,
		format: data.format ?? format,
		url,
		expiresAt: data.expiresAt ?? data.expires_at ?? null,
	};
	if (!downloadFile) return [{ json, pairedItem: { item: p.itemIndex } }];

	const hosts = p.v.string('Allowed Download Hosts', p.get('allowedDownloadHosts', ''), { max: 2048 });
	const allowedHosts = hosts.split(',').map((host) => host.trim()).filter((host) => host !== '');
	for (const host of allowedHosts) {
		if (!/^(\*\.)?[a-z0-9.-]+(:\d{1,5})?$/i.test(host) && !/^\[[0-9a-f:.]+\](:\d{1,5})?$/i.test(host)) {
			p.v.fail(`"Allowed Download Hosts" has "${host.slice(0, 80)}": give host names (files.example.com, *.example.com, host:port), separated by commas`);
		}
	}
	const maxMb = p.v.number('Max File Size (MB)', p.get('maxFileSizeMb', 100), { min: 1, max: 2048 });
	const cardNumbers = p.v.oneOf('Card Numbers in Files', p.get('cardNumbersInFiles', 'refuse'), CARD_NUMBER_CHOICES);
	const file = await rc.transport.download(url, p.itemIndex, { allowedHosts, maxBytes: Math.round(maxMb * 1024 * 1024) }, cardNumbers);
	const fileName = `report_${reportId}.${format.toLowerCase()}`;
	const mimeType = MIME_TYPES[format];
	const binary = await rc.ctx.helpers.prepareBinaryData(file.body, fileName, mimeType);
	return [
		{
			json: { ...json, fileName, mimeType, fileSize: file.body.length, ...(file.cardNumbersMasked > 0 ? { cardNumbersMasked: file.cardNumbersMasked } : {}) },
			binary: { [binaryProperty]: binary },
			pairedItem: { item: p.itemIndex },
		},
	];
}

const reportId = locatorField('reportId', ID.reportId, {
	description: 'The report to use (12 to 48 characters), as returned by Create or Get Many',
});

const create: Operation = {
	value: 'create',
	name: 'Create',
	action: 'Create a report',
	description:
		'Queue a report (payment activity, payout reconciliation, balance ledger, or refunds and disputes) for a period of at most 90 days. The report starts PENDING; poll it with Get until SUCCEEDED, then Download. At most 10 reports may be PENDING or PROCESSING at once.',
	method: 'POST',
	family: 'stores',
	path: '/reports',
	body: createBody,
	notes: 'inferred body names type, from, to, format; period checked (max 90 days is refused; from not before to warns); a 429 (10 running reports) that asks to wait more than 10 s fails at once with a clear message (a shorter wait is retried)',
	scope: 'REPORTS_WRITE',
	hints: { 429: LIMIT_HINT },
	run: runCreate,
	fields: [
		{
			displayName: 'Type',
			name: 'type',
			type: 'options',
			options: typeOptions,
			default: 'PAYMENT_ACTIVITY',
			required: true,
			description: 'Which report to generate',
		},
		{
			displayName: 'From',
			name: 'from',
			type: 'dateTime',
			default: '',
			required: true,
			description: `Start of the period (ISO 8601, e.g. 2026-01-01T00:00:00Z). Should be before "To" (the node warns otherwise); the period may be at most ${MAX_PERIOD_DAYS} days.`,
		},
		{
			displayName: 'To',
			name: 'to',
			type: 'dateTime',
			default: '',
			required: true,
			description: `End of the period (ISO 8601), at most ${MAX_PERIOD_DAYS} days after "From"`,
		},
		collectionField('additionalFields', [
			{
				displayName: 'Format',
				name: 'format',
				type: 'options',
				options: formatOptions,
				default: 'CSV',
				description: 'Preferred file format (both formats can be downloaded later)',
			},
		]) satisfies INodeProperties,
	],
};

const download: Operation = {
	value: 'download',
	name: 'Download',
	action: 'Download a report',
	description:
		'Get a 5-minute download URL for a finished (SUCCEEDED) report as CSV or JSON and, by default, fetch the file as binary data',
	method: 'GET',
	family: 'stores',
	path: '/reports/{reportId}/download',
	ids: { reportId: ID.reportId },
	notes: 'format is the last path segment; inferred response fields url, expiresAt; the file is fetched without credentials into binary data',
	scope: 'REPORTS_READ',
	run: runDownload,
	fields: [
		reportId,
		{
			displayName: 'Format',
			name: 'format',
			type: 'options',
			options: formatOptions,
			default: 'CSV',
			required: true,
			description: 'File format to download',
		},
		{
			displayName: 'Download File',
			name: 'downloadFile',
			type: 'boolean',
			default: true,
			description:
				'Whether to fetch the file and output it as binary data. When off, only the download URL (valid 5 minutes) and its expiry are returned.',
		},
		{
			displayName: 'Put Output File in Field',
			name: 'binaryPropertyName',
			type: 'string',
			default: 'data',
			required: true,
			hint: 'The name of the output binary field to put the file in',
			description: 'Name of the binary property the report file is written to',
			displayOptions: { show: { downloadFile: [true] } },
		},
		{
			displayName: 'Allowed Download Hosts',
			name: 'allowedDownloadHosts',
			type: 'string',
			default: '',
			placeholder: 'files.example.com, *.storage.example.com',
			description:
				'Hosts besides the Base URL\'s that report files may be fetched from, separated by commas (host, host:port or *.domain). Files are fetched only over https; any other host the service names is refused.',
			displayOptions: { show: { downloadFile: [true] } },
		},
		{
			displayName: 'Max File Size (MB)',
			name: 'maxFileSizeMb',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 2048 },
			default: 100,
			description: 'Largest report file accepted; a larger one stops the download with an error',
			displayOptions: { show: { downloadFile: [true] } },
		},
		{
			displayName: 'Card Numbers in Files',
			name: 'cardNumbersInFiles',
			type: 'options',
			options: [
				{
					name: 'Mask Them',
					value: 'mask',
					description: 'Replace each full card number by its last four digits (•••• 4242) and output the file, with the count in cardNumbersMasked',
				},
				{
					name: 'Refuse the File',
					value: 'refuse',
					description: 'Stop with an error and output no file',
				},
			],
			default: 'refuse',
			description:
				'What to do when the file holds full card numbers (report files carry only the last four digits). A file holding a key of the credential or a card security code is always refused.',
			displayOptions: { show: { downloadFile: [true] } },
		},
	],
};

const get: Operation = {
	value: 'get',
	name: 'Get',
	action: 'Get a report',
	description: 'Get the status (PENDING, PROCESSING, SUCCEEDED, FAILED) and metadata of a report',
	method: 'GET',
	family: 'stores',
	path: '/reports/{reportId}',
	ids: { reportId: ID.reportId },
	scope: 'REPORTS_READ',
	fields: [reportId],
};

const getAll: Operation = {
	value: 'getAll',
	name: 'Get Many',
	action: 'Get many reports',
	description: 'List reports of the store, optionally only those of one status or type',
	method: 'GET',
	family: 'stores',
	path: '/reports',
	list: 'paged',
	scope: 'REPORTS_READ',
	query: (p) => {
		const f = p.fields('filters');
		return {
			status: opt(f, 'status', (v) => p.v.oneOf('Status', v, REPORT_STATUSES)),
			type: opt(f, 'type', (v) => p.v.oneOf('Type', v, REPORT_TYPES)),
		};
	},
	fields: [
		...returnAllFields,
		collectionField('filters', [
			{
				displayName: 'Status',
				name: 'status',
				type: 'options',
				options: enumOptions(REPORT_STATUSES),
				default: 'PENDING',
				description: 'Only reports with this status',
			},
			{
				displayName: 'Type',
				name: 'type',
				type: 'options',
				options: typeOptions,
				default: 'PAYMENT_ACTIVITY',
				description: 'Only reports of this type',
			},
		]),
	],
};

export const report: Resource = {
	value: 'report',
	name: 'Report',
	description: 'Payment, payout, balance and refund reports of the store, generated as CSV or JSON files',
	credential: STORE_CREDENTIAL,
	operations: [create, download, get, getAll],
};
