/**
 * Guards what `npm publish` would ship. Runs `npm pack --dry-run` against the
 * current working tree (so `npm run build` must have run; jest's globalSetup
 * already checks that) and inspects the file list plus the files on disk.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..');

interface PackFile {
	path: string;
	size: number;
}
interface PackResult {
	name: string;
	version: string;
	filename: string;
	size: number;
	unpackedSize: number;
	entryCount: number;
	files: PackFile[];
}
interface PackageJson {
	name: string;
	dependencies?: Record<string, string>;
	peerDependencies?: Record<string, string>;
	scripts?: Record<string, string>;
	n8n: { nodes?: string[]; credentials?: string[] };
}

const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as PackageJson;

function npmPackDryRun(): PackResult {
	const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
	const res = spawnSync(npm, ['pack', '--dry-run', '--json', '--ignore-scripts'], {
		cwd: ROOT,
		encoding: 'utf8',
		shell: process.platform === 'win32',
	});
	if (res.status !== 0) {
		throw new Error(`npm pack --dry-run failed (${res.status}):\n${res.stderr}`);
	}
	const parsed = JSON.parse(res.stdout) as PackResult[];
	expect(parsed).toHaveLength(1);
	return parsed[0];
}

/** Whole-path patterns a published file may match (and nothing else). */
const ALLOWED: RegExp[] = [
	/^package\.json$/,
	/^README\.md$/,
	/^LICENSE$/,
	/^dist\/nodes\/.+\.js$/,
	/^dist\/credentials\/.+\.js$/,
	/^dist\/nodes\/.+\.node\.json$/,
	/^dist\/icons\/[^/]+\.svg$/,
	/^dist\/(?:nodes|credentials)\/.+\.(?:svg|png)$/,
];

/** Mirrors @n8n/eslint-plugin-community-nodes no-forbidden-lifecycle-scripts. */
const FORBIDDEN_SCRIPTS = [
	'preinstall',
	'install',
	'postinstall',
	'prepare',
	'preprepare',
	'postprepare',
	'prepublish',
];

/**
 * Modules a compiled file may load at runtime: the n8n Cloud allow-list of
 * @n8n/eslint-plugin-community-nodes no-restricted-imports. Unlike that rule
 * this does NOT exempt devDependencies: they are not installed with the
 * package, so requiring one from dist/ breaks on a real n8n instance.
 */
const RUNTIME_MODULES = new Set([
	'n8n-workflow',
	'ai-node-sdk',
	'@n8n/ai-node-sdk',
	'lodash',
	'moment',
	'p-limit',
	'luxon',
	'zod',
	'crypto',
	'node:crypto',
]);

/** Secret-looking values that must never be published. */
const SECRET_PATTERNS: RegExp[] = [
	/-----BEGIN [A-Z ]*(?:PRIVATE KEY|CERTIFICATE)-----/,
	/\bBEGIN [A-Z ]*PRIVATE KEY\b/,
	/sk_test/,
	// sandbox-style keys: sk_sandbox_..., stk_sandbox_..., sk_vault_..., sk_live_...
	/\b(?:sk|stk|pk|rk)_(?:test|live|sandbox|vault)_[A-Za-z0-9]{8,}/,
	/\bwhsec_[A-Za-z0-9+/=]{16,}/,
];

function walk(dir: string, out: string[] = []): string[] {
	if (!fs.existsSync(dir)) return out;
	for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
		if (entry.name === 'node_modules') continue;
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) walk(full, out);
		else if (entry.isFile()) out.push(full);
	}
	return out;
}

/**
 * Literal secret-like tokens used by the sandbox and test fixtures (fake API
 * keys, webhook secrets): none of them may leak into the published files.
 */
function fixtureSecrets(): string[] {
	const token = /\b(?:sk|stk|pk|rk|whsec)_[A-Za-z0-9_+/=-]{12,}/g;
	const found = new Set<string>();
	for (const dir of ['sandbox', 'test', 'bench', 'examples']) {
		for (const file of walk(path.join(ROOT, dir))) {
			if (!/\.(?:[cm]?[jt]s|json|env|txt|ya?ml)$/.test(file)) continue;
			if (file === __filename) continue;
			for (const match of fs.readFileSync(file, 'utf8').matchAll(token)) found.add(match[0]);
		}
	}
	return [...found];
}

describe('npm package contents', () => {
	let pack: PackResult;
	let files: string[];

	beforeAll(() => {
		pack = npmPackDryRun();
		files = pack.files.map((f) => f.path.split(path.sep).join('/')).sort();
		const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
		process.stdout.write(
			`[pack] ${pack.filename}: ${pack.entryCount} files, tarball ${kib(pack.size)}, ` +
				`unpacked ${kib(pack.unpackedSize)}\n`,
		);
	});

	it('reports the tarball size', () => {
		expect(pack.name).toBe(pkg.name);
		expect(pack.unpackedSize).toBeGreaterThan(0);
		// Generous budget: a jump past it usually means something got bundled by mistake.
		expect(pack.unpackedSize).toBeLessThan(2 * 1024 * 1024);
	});

	it('ships only compiled dist/ files, README.md, LICENSE and package.json', () => {
		const unexpected = files.filter((f) => !ALLOWED.some((re) => re.test(f)));
		expect(unexpected).toEqual([]);
		expect(files).toEqual(expect.arrayContaining(['package.json', 'README.md', 'LICENSE']));
	});

	it('ships no sources, source maps, tests, sandbox, bench or build leftovers', () => {
		const bad = files.filter(
			(f) =>
				/\.(?:ts|mts|cts|map|tsbuildinfo|tgz|log)$/.test(f) ||
				/(?:^|\/)(?:test|tests|__tests__|sandbox|bench|out|examples|coverage|node_modules|\.e2e|screenshots)(?:\/|$)/.test(
					f,
				) ||
				/\.(?:test|spec)\.js$/.test(f),
		);
		expect(bad).toEqual([]);
	});

	it('contains every file listed in the package.json "n8n" section, each with its codex and icons', () => {
		const declared = [...(pkg.n8n.nodes ?? []), ...(pkg.n8n.credentials ?? [])];
		expect(pkg.n8n.nodes?.length).toBeGreaterThan(0);
		expect(declared.filter((p) => !files.includes(p))).toEqual([]);

		for (const nodeFile of pkg.n8n.nodes ?? []) {
			expect(files).toContain(`${nodeFile}on`); // Foo.node.js -> Foo.node.json
		}

		const missingIcons: string[] = [];
		for (const entry of declared) {
			const code = fs.readFileSync(path.join(ROOT, entry), 'utf8');
			const refs = [...code.matchAll(/(["'`])file:([^"'`\s]+)\1/g)].map((m) => m[2]);
			expect(refs.length).toBeGreaterThan(0);
			for (const ref of refs) {
				const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(entry), ref));
				if (!files.includes(resolved)) missingIcons.push(`${entry}: file:${ref} -> ${resolved}`);
			}
		}
		expect(missingIcons).toEqual([]);
	});

	it('has valid codex files', () => {
		for (const codexPath of files.filter((f) => f.endsWith('.node.json'))) {
			const codex = JSON.parse(fs.readFileSync(path.join(ROOT, codexPath), 'utf8'));
			expect(codex.node).toMatch(new RegExp(`^${pkg.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.`));
			expect(codex.nodeVersion).toBe('1.0');
			expect(codex.codexVersion).toBe('1.0');
			expect(Array.isArray(codex.categories)).toBe(true);
			expect(codex.resources.primaryDocumentation[0].url).toMatch(/^https:\/\//);
		}
	});

	it('ships no secret-looking values (keys, sk_test tokens, sandbox/test fixture secrets)', () => {
		const fixtures = fixtureSecrets();
		const leaks: string[] = [];
		for (const f of files) {
			const text = fs.readFileSync(path.join(ROOT, f), 'utf8');
			for (const re of SECRET_PATTERNS) if (re.test(text)) leaks.push(`${f}: ${re}`);
			for (const s of fixtures) if (text.includes(s)) leaks.push(`${f}: fixture value ${s.slice(0, 8)}...`);
		}
		expect(leaks).toEqual([]);
	});

	it('compiled files only load relative modules or ones n8n provides at runtime', () => {
		const offenders: string[] = [];
		for (const f of files.filter((p) => p.endsWith('.js'))) {
			const code = fs.readFileSync(path.join(ROOT, f), 'utf8');
			const specs = [
				...code.matchAll(/\brequire\(\s*(["'`])([^"'`]+)\1\s*\)/g),
				...code.matchAll(/\bimport\(\s*(["'`])([^"'`]+)\1\s*\)/g),
			].map((m) => m[2]);
			for (const spec of specs) {
				if (spec.startsWith('./') || spec.startsWith('../')) continue;
				const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
				if (!RUNTIME_MODULES.has(name)) offenders.push(`${f}: ${spec}`);
			}
		}
		expect(offenders).toEqual([]);
	});
});

describe('package.json publishing rules', () => {
	it('has no runtime dependencies', () => {
		expect(pkg.dependencies).toBeUndefined();
	});

	it('declares exactly n8n-workflow as a peer dependency', () => {
		expect(pkg.peerDependencies).toEqual({ 'n8n-workflow': '*' });
	});

	it('marks the n8n-workflow peer optional, so a manual npm install does not fetch a second n8n-workflow', () => {
		expect((pkg as unknown as { peerDependenciesMeta?: unknown }).peerDependenciesMeta).toEqual({ 'n8n-workflow': { optional: true } });
	});

	it('names no entry point the tarball lacks (n8n loads the files listed under "n8n")', () => {
		const { main } = pkg as unknown as { main?: string };
		if (main === undefined) return;
		const packed = npmPackDryRun().files.map((f) => f.path);
		expect(packed).toContain(path.posix.normalize(main));
	});

	it('has no install-time lifecycle scripts', () => {
		const scripts = Object.keys(pkg.scripts ?? {});
		expect(scripts.filter((s) => FORBIDDEN_SCRIPTS.includes(s))).toEqual([]);
	});

	it('publishes only dist/', () => {
		expect((pkg as unknown as { files: string[] }).files).toEqual(['dist']);
	});
});
