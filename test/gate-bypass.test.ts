/**
 * Issue 52, paths by construction: whatever leaves the node is typed `Gated<…>` and only the output
 * gate (nodes/shared/redaction/gate.ts) makes one. This test compiles code that skips the gate on
 * each output path (an item changed after the gate, a trigger item built by hand, service text in
 * a hint, what the once record stores, locator labels) against the node's real modules, and
 * expects the compiler to refuse every one; the same code through the gate (the control) compiles.
 * Adding an output path that takes plain values makes its bypass row compile, and this test fail.
 */
import path from 'node:path';

import ts from 'typescript';

const ROOT = path.resolve(__dirname, '..');

const PRELUDE = `
import type { IExecuteFunctions, INodeExecutionData, INodeListSearchItems } from 'n8n-workflow';
import type { Gated } from '../nodes/shared/redaction/gate';
import { emitHints, gateAnswerText, gateOutput, gateSearchResults, gateText, gateTriggerItem } from '../nodes/shared/redaction/gate';
import type { Redactor } from '../nodes/shared/redaction/secrets';
import type { OnceRecord } from '../nodes/shared/money/record';
import type { DeliveryAnswer } from '../nodes/VaultStoreTrigger/receive';
declare const redactor: Redactor;
declare const ctx: IExecuteFunctions;
declare const record: OnceRecord;
declare const serviceText: string;
declare const headers: Record<string, string>;
export const used = [emitHints, gateAnswerText, gateOutput, gateSearchResults, gateText, gateTriggerItem, ctx, record, serviceText, headers, redactor];
export type Used = [Gated<string>, INodeExecutionData, INodeListSearchItems, DeliveryAnswer];
`;

/** Each path: code that skips the gate (must not compile) and the same through the gate (must). */
const PATHS: Array<{ path: string; bypass: string; gated: string }> = [
	{
		path: 'action items: a field added to an item after the gate',
		bypass: `const out: Array<Gated<INodeExecutionData>> = gateOutput([{ json: {} }], 'store', redactor).map((item) => ({ ...item, json: { ...item.json, note: serviceText } }));`,
		gated: `const out: Array<Gated<INodeExecutionData>> = gateOutput([{ json: { note: serviceText } }], 'store', redactor);`,
	},
	{
		path: 'action items: an item made without the gate',
		bypass: `const out: Array<Gated<INodeExecutionData>> = [{ json: { note: serviceText } }];`,
		gated: `const out: Array<Gated<INodeExecutionData>> = gateOutput([{ json: { note: serviceText } }], 'store-agent', redactor);`,
	},
	{
		path: 'trigger items: headers added after the gate',
		bypass: `const gatedItem = gateTriggerItem({ event: 'PAYMENT_COMPLETED' }, redactor); const answer: DeliveryAnswer = { workflowData: [[{ ...gatedItem, json: { ...gatedItem.json, headers } }]] };`,
		gated: `const answer: DeliveryAnswer = { workflowData: [[gateTriggerItem({ event: 'PAYMENT_COMPLETED', meta: { headers } }, redactor)]] };`,
	},
	{
		path: 'execution hints: service text in a hint',
		bypass: `emitHints(ctx, [{ message: \`The service said \${serviceText}\`, type: 'warning' }]);`,
		gated: `emitHints(ctx, [{ message: gateText(\`The service said \${serviceText}\`, redactor), type: 'warning' }]);`,
	},
	{
		path: 'execution hints: service text appended to a gated hint',
		bypass: `emitHints(ctx, [{ message: gateText('The service said', redactor) + serviceText, type: 'warning' }]);`,
		gated: `emitHints(ctx, [{ message: gateText('The service said ' + serviceText, redactor), type: 'warning' }]);`,
	},
	{
		path: 'the once record: the service\u2019s text stored as it came',
		bypass: `void record.confirm({ key: 'k', at: 1, recordId: serviceText, mismatch: \`recorded \${serviceText}\` });`,
		gated: `void record.confirm({ key: 'k', at: 1, recordId: gateAnswerText(serviceText, redactor), mismatch: gateText(\`recorded \${serviceText}\`, redactor) });`,
	},
	{
		path: 'resource locator labels: a label made without the gate',
		bypass: `const results: Array<Gated<INodeListSearchItems>> = [{ name: serviceText, value: 'ord_1' }];`,
		gated: `const results: Array<Gated<INodeListSearchItems>> = gateSearchResults([{ name: serviceText, value: 'ord_1' }], redactor);`,
	},
];

/** Compiles each snippet as a file of its own in one program; the errors per file. */
function compile(snippets: string[]): string[][] {
	const config = ts.getParsedCommandLineOfConfigFile(path.join(ROOT, 'tsconfig.dev.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
	if (!config) throw new Error('tsconfig.dev.json could not be read');
	const files = snippets.map((_, i) => path.join(ROOT, 'test', `__gate_bypass_${i}__.ts`));
	const sources = new Map(files.map((file, i) => [file, `${PRELUDE}\n${snippets[i]}\n`]));
	const host = ts.createCompilerHost(config.options);
	const readFile = host.readFile.bind(host);
	const fileExists = host.fileExists.bind(host);
	const getSourceFile = host.getSourceFile.bind(host);
	host.readFile = (file) => sources.get(path.resolve(file)) ?? readFile(file);
	host.fileExists = (file) => sources.has(path.resolve(file)) || fileExists(file);
	host.getSourceFile = (file, language, ...rest) => {
		const text = sources.get(path.resolve(file));
		return text !== undefined ? ts.createSourceFile(file, text, language) : getSourceFile(file, language, ...rest);
	};
	const program = ts.createProgram({ rootNames: files, options: { ...config.options, noEmit: true, noUnusedLocals: false }, host });
	return files.map((file) => {
		const source = program.getSourceFile(file);
		return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)].map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
	});
}

describe('a path that skips the output gate does not compile', () => {
	const errors = compile(PATHS.flatMap((p) => [p.bypass, p.gated]));

	test.each(PATHS.map((p, i) => [p.path, i] as const))('%s: refused by the compiler; through the gate it compiles (control)', (_path, i) => {
		const [bypass, gated] = [errors[2 * i], errors[2 * i + 1]];
		expect(gated).toEqual([]);
		expect(bypass.length).toBeGreaterThan(0);
		expect(bypass.join('\n')).toMatch(/OutputGateStamp|Gated/);
	});
});

describe('the sinks n8n offers are reached only through the gate', () => {
	const { readdirSync, readFileSync, statSync } = jest.requireActual<typeof import('node:fs')>('node:fs');
	const files = (dir: string): string[] =>
		readdirSync(dir).flatMap((name) => {
			const full = path.join(dir, name);
			return statSync(full).isDirectory() ? files(full) : full.endsWith('.ts') ? [full] : [];
		});
	const sources = files(path.join(ROOT, 'nodes')).map((file) => ({ file: path.relative(ROOT, file), text: readFileSync(file, 'utf8') }));

	test('execution hints are added in one place, which takes gated text only (emitHints)', () => {
		const callers = sources.filter((s) => /\.addExecutionHints\b/.test(s.text)).map((s) => s.file);
		expect(callers).toEqual(['nodes/shared/redaction/gate.ts']);
	});

	test('control: the scan sees the node files', () => {
		expect(sources.length).toBeGreaterThan(50);
		expect(sources.some((s) => s.file === 'nodes/VaultStore/executor.ts')).toBe(true);
	});
});
