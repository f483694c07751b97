/*
 * Asset steps of `npm run build` (run after `tsc`, which emits the .js files):
 *
 *   - icons/*.svg              -> dist/icons/
 *   - nodes|credentials/**.{svg,png} (icons kept next to a node, if any)
 *                              -> same relative place under dist/
 *   - nodes/**\/*.node.json (codex files) -> dist/nodes/** (n8n reads the codex
 *     from `<compiled node file>.json`, i.e. `Foo.node.js` + "on")
 *   - every `file:` icon referenced by a compiled *.node.js / *.credentials.js
 *     must exist under dist/: a missing one is copied from icons/ when a file of
 *     that name is there (so a node may also reference an icon placed next to
 *     it), otherwise the build fails.
 *   - dist/**.js indented with tabs, as the sources are (tsc indents with 4 spaces): only the
 *     indentation of lines outside template literals changes, and every string and template
 *     literal is checked to be the same after it (the packed tarball is about 4 KB smaller).
 *
 * Node and credential files are expected to use
 *   icon: { light: 'file:../../icons/vaultStore.svg', dark: 'file:../../icons/vaultStore.dark.svg' }  (nodes/<Name>/<Name>.node.ts)
 *   icon = { light: 'file:../icons/vaultStore.svg', dark: 'file:../icons/vaultStore.dark.svg' }       (credentials/<Name>.credentials.ts)
 * which resolve to icons/ in the source tree (what the lint rule checks) and to
 * dist/icons/ in the compiled package (what n8n loads).
 */
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { src, dest, series, parallel } = require('gulp');

const ROOT = __dirname;
const DIST = path.join(ROOT, 'dist');
const ICONS = path.join(ROOT, 'icons');

// Gulp 5 reads files as utf8 by default, which corrupts binary images.
const binary = { encoding: false, allowEmpty: true };

function copyIcons() {
	return src('icons/*.svg', binary).pipe(dest('dist/icons'));
}

function copyNodeAssets() {
	return src(['nodes/**/*.{svg,png}', 'credentials/**/*.{svg,png}'], { ...binary, base: '.' }).pipe(
		dest('dist'),
	);
}

function copyCodex() {
	return src('nodes/**/*.node.json', { allowEmpty: true, base: '.' }).pipe(dest('dist'));
}

function listFiles(dir, accept) {
	if (!fs.existsSync(dir)) return [];
	const out = [];
	for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) out.push(...listFiles(full, accept));
		else if (accept(entry.name)) out.push(full);
	}
	return out;
}

const ICON_REF = /(["'`])file:([^"'`\s]+\.(?:svg|png))\1/g;

/** Every `file:` icon a compiled node/credential points at must be shipped. */
async function checkIconReferences() {
	const entryFiles = [
		...listFiles(path.join(DIST, 'nodes'), (n) => n.endsWith('.node.js')),
		...listFiles(path.join(DIST, 'credentials'), (n) => n.endsWith('.credentials.js')),
	];
	const problems = [];
	for (const file of entryFiles) {
		const code = fs.readFileSync(file, 'utf8');
		for (const [, , ref] of code.matchAll(ICON_REF)) {
			const target = path.resolve(path.dirname(file), ref);
			const where = `${path.relative(ROOT, file)}: "file:${ref}"`;
			if (!target.startsWith(DIST + path.sep)) {
				problems.push(`${where} resolves outside dist/ (n8n refuses icons outside the package)`);
				continue;
			}
			if (fs.existsSync(target)) continue;
			const fallback = path.join(ICONS, path.basename(ref));
			if (fs.existsSync(fallback)) {
				fs.mkdirSync(path.dirname(target), { recursive: true });
				fs.copyFileSync(fallback, target);
			} else {
				problems.push(`${where} -> ${path.relative(ROOT, target)} does not exist and icons/${path.basename(ref)} is missing`);
			}
		}
	}
	if (problems.length) {
		throw new Error(`Unresolved icon references:\n  ${problems.join('\n  ')}`);
	}
}

/** The string and template literals of a JavaScript text, in order (what indentation must not change). */
function literals(ts, file, code) {
	const out = [];
	const templates = [];
	const visit = (node) => {
		if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node)) {
			out.push(node.getText());
			if (!ts.isStringLiteral(node)) templates.push([node.getStart(), node.end]);
		}
		ts.forEachChild(node, visit);
	};
	visit(ts.createSourceFile(file, code, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS));
	return { out, templates };
}

/** Indents dist/**.js with tabs; fails the build if any literal would change. */
async function indentWithTabs() {
	const ts = require('typescript');
	for (const file of listFiles(DIST, (n) => n.endsWith('.js'))) {
		const code = fs.readFileSync(file, 'utf8');
		const before = literals(ts, file, code);
		const inTemplate = (at) => before.templates.some(([from, to]) => at > from && at < to);
		let at = 0;
		const lines = code.split('\n').map((line) => {
			const start = at;
			at += line.length + 1;
			if (inTemplate(start)) return line;
			const spaces = /^(?: {4})+/.exec(line)?.[0].length ?? 0;
			return spaces === 0 ? line : '\t'.repeat(spaces / 4) + line.slice(spaces);
		});
		const out = lines.join('\n');
		const after = literals(ts, file, out);
		if (after.out.length !== before.out.length || after.out.some((text, i) => text !== before.out[i])) {
			throw new Error(`${path.relative(ROOT, file)}: indenting with tabs would change a literal`);
		}
		fs.writeFileSync(file, out);
	}
}

function clean(done) {
	fs.rmSync(DIST, { recursive: true, force: true });
	done();
}

exports.clean = clean;
exports.build = series(parallel(copyIcons, copyNodeAssets, copyCodex, indentWithTabs), checkIconReferences);
exports.default = exports.build;
