/**
 * Section 6: the output gate's cost per MB of answer, next to `JSON.parse` of the same answer
 * (what n8n pays to read it at all), for plain and hostile text. Each answer is a store answer as
 * the node outputs it (`{ok, data}` unwrapped to a record whose fields hold the text), through
 * `gateOutput` with the store policy, the free-form vault policy and an error's reading. In a fresh
 * process (`node out/bench/gate.js`), every row interleaved over the rounds, median of them.
 */
import type { IDataObject } from 'n8n-workflow';

import { gateOutput } from '../nodes/shared/redaction/gate';
import { Redactor } from '../nodes/shared/redaction/secrets';

const SECRETS = ['sk_live_Q8fJ2kLmN4pR7sT1vW3xY5zA', 'whsec_c2VjcmV0LXNpZ25pbmcta2V5LTEyMzQ1Njc4'];
const MB = 1024 * 1024;
const ROUNDS = 9;

const fill = (unit: string, size: number): string => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);

/** An answer of about 1 MB: records of 1 KB text fields, as a list read would bring them. */
function answer(unit: string): string {
	const records = Array.from({ length: 1000 }, (_, i) => ({ id: `ord_${String(i).padStart(12, '0')}`, amount: i, note: fill(unit, 1000) }));
	return JSON.stringify({ ok: true, data: { items: records } });
}

const TEXTS: Array<[string, string]> = [
	['plain words', 'The order was shipped to the north warehouse today. '],
	['hyphenated words (the event-loop freeze)', 'abc-def-'],
	['security-code words', 'cvc-cvv-'],
	['hex checksums', 'deadbeef0123456789abcdef '],
	['base64 words', 'QUJDREVGR0hJSktMTU5PUA== '],
	['long digit runs', '4242424242424241'],
];

function time(run: () => void): number {
	const start = performance.now();
	run();
	return performance.now() - start;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (n: number, digits = 1) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

function main(): void {
	const redactor = new Redactor(SECRETS);
	const rows: string[] = [];
	for (const [name, unit] of TEXTS) {
		const text = answer(unit);
		const mb = Buffer.byteLength(text) / MB;
		const parsed = JSON.parse(text) as { data: { items: IDataObject[] } };
		const items = parsed.data.items.map((json) => ({ json }));
		const runs = {
			parse: [] as number[],
			store: [] as number[],
			vault: [] as number[],
			error: [] as number[],
		};
		// Warm the code, then interleave.
		gateOutput(items, 'store', redactor);
		gateOutput(items, 'vault-custom', redactor);
		for (let round = 0; round < ROUNDS; round++) {
			runs.parse.push(time(() => JSON.parse(text)));
			runs.store.push(time(() => gateOutput(items, 'store', redactor)));
			runs.vault.push(time(() => gateOutput(items, 'vault-custom', redactor)));
			runs.error.push(time(() => redactor.value({ description: parsed.data.items.map((item) => item.note) })));
		}
		const per = (ms: number) => ms / mb;
		const [p, s, v, e] = [runs.parse, runs.store, runs.vault, runs.error].map((xs) => per(median(xs)));
		rows.push(`| ${name} | ${fmt(mb, 2)} | ${fmt(p)} | ${fmt(s)} | ${(s / p).toFixed(1)}x | ${fmt(v)} | ${(v / p).toFixed(1)}x | ${fmt(e)} |`);
	}
	process.stdout.write(
		[
			'### 6. Output gate cost per MB of answer',
			'',
			`An answer of 1,000 records with a 1 KB text field each, through the output gate as the node's items pass it; median of ${ROUNDS} interleaved rounds in one fresh process. \`JSON.parse\` of the same answer is what reading it costs at all. An error keeps at most 8,000 characters per text and 200 entries per list (cut before the scan), so the error column reads the first 200 notes.`,
			'',
			'| text in the records | answer (MB) | `JSON.parse` (ms/MB) | gate, store policy (ms/MB) | store vs parse | gate, free-form vault policy (ms/MB) | vault vs parse | error reading (ms/MB of answer) |',
			'|---|---:|---:|---:|---:|---:|---:|---:|',
			...rows,
		].join('\n'),
	);
}

main();
