/**
 * CONTRIBUTING's layout is the tree: every file under the folders it covers is listed there, and
 * every file it lists exists. A new file without a line in the layout fails `npm test`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
const COVERED = ['credentials', 'nodes', 'scripts', 'docs', 'test/support', 'test/e2e'];

function filesUnder(dir: string): string[] {
	const abs = path.join(ROOT, dir);
	return readdirSync(abs).flatMap((name) => {
		const rel = `${dir}/${name}`;
		return statSync(path.join(ROOT, rel)).isDirectory() ? filesUnder(rel) : [rel];
	});
}

/** The layout block: a line at column 0 ending in "/" opens a folder; an indented line's first word is a path in it. */
function listedPaths(): string[] {
	const text = readFileSync(path.join(ROOT, 'CONTRIBUTING.md'), 'utf8');
	const section = text.slice(text.indexOf('## Layout'));
	const block = section.split('```')[1] ?? '';
	const listed: string[] = [];
	let folder = '';
	for (const line of block.split('\n')) {
		const word = line.trim().split(/\s+/)[0] ?? '';
		if (/^\S+\/$/.test(line.split(/\s+/)[0] ?? '')) folder = line.split(/\s+/)[0];
		else if (/^ {2}\S/.test(line) && /\.\w+$/.test(word)) listed.push(`${folder}${word}`);
	}
	return listed;
}

const listed = listedPaths();
const asPattern = (entry: string) => new RegExp(`^${entry.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/<name>/g, '[^/]+')}$`);

test('the layout lists files at all (the parser found the block)', () => {
	expect(listed.length).toBeGreaterThan(50);
});

test.each(COVERED)('every file under %s/ is in CONTRIBUTING\'s layout', (dir) => {
	const missing = filesUnder(dir).filter((file) => !listed.some((entry) => asPattern(entry).test(file)));
	expect(missing).toEqual([]);
});

test('every file the layout lists exists', () => {
	const all = COVERED.flatMap(filesUnder);
	const gone = listed.filter((entry) => !all.some((file) => asPattern(entry).test(file)));
	expect(gone).toEqual([]);
});
