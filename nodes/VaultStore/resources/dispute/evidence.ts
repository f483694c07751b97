import type { IBinaryData, IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { Params, RunContext } from '../../operation';

/** `data, receipt ,invoice` -> ['data', 'receipt', 'invoice'] (empty entries dropped, duplicates once). */
export function binaryPropertyNames(p: Params): string[] {
	const raw = p.get<unknown>('binaryProperties', '');
	if (raw === undefined || raw === null || raw === '') return [];
	const text = p.v.string('Binary Properties', raw);
	// The spec gives no file count or size limit for evidence: the service decides.
	return [...new Set(text.split(',').map((s) => s.trim()).filter((s) => s !== ''))];
}

/**
 * Submit Evidence: the text fields the row built, plus one entry per named
 * binary property of the input item as `{fileName, mimeType, data}` (base64).
 * Every property is checked to exist before the request is sent.
 */
export async function submitEvidence(rc: RunContext): Promise<INodeExecutionData[]> {
	const { p, request } = rc;
	const names = binaryPropertyNames(p);
	const binary = p.item?.binary ?? {};
	const found: Array<{ name: string; meta: IBinaryData }> = [];
	for (const name of names) {
		const meta = binary[name];
		if (!meta) {
			const available = Object.keys(binary);
			p.v.fail(
				`"Binary Properties": the input item has no binary property "${name}"`,
				available.length
					? `Binary properties of this item: ${available.join(', ')}`
					: 'This item has no binary data; connect a node that outputs files (e.g. Read/Write Files from Disk, HTTP Request).',
			);
		}
		found.push({ name, meta });
	}

	const files: IDataObject[] = [];
	for (const { name, meta } of found) {
		const buffer = await rc.ctx.helpers.getBinaryDataBuffer(p.itemIndex, name);
		files.push({
			fileName: meta.fileName ?? name,
			mimeType: meta.mimeType || 'application/octet-stream',
			data: buffer.toString('base64'),
		});
	}

	const text = (request.body ?? {}) as IDataObject;
	if (files.length === 0 && Object.keys(text).length === 0) {
		p.v.fail('Give some evidence: fill at least one of "Evidence Fields" or name a file in "Binary Properties"');
	}
	const body: IDataObject = files.length ? { ...text, files } : text;
	const res = await rc.transport.request({ ...request, body });
	const data = res.data;
	const json: IDataObject =
		data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as IDataObject) : { success: true };
	return [{ json, pairedItem: { item: p.itemIndex } }];
}
