// docs/ARCHITECTURE.md is the maintainers' map of the code: every folder of
// src/ must have its section there, and every page the README links must exist.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { repoRoot } from '../helpers/shared.js';

test('every folder of src/ has a section in docs/ARCHITECTURE.md', () => {
  const doc = readFileSync(join(repoRoot, 'docs', 'ARCHITECTURE.md'), 'utf8');
  const folders = readdirSync(join(repoRoot, 'src'), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name);
  assert.ok(folders.length > 5, 'src/ has its folders');
  const missing = folders.filter((f) => !doc.includes(`### \`src/${f}/\``));
  assert.deepEqual(missing, [], `folders of src/ without a section in docs/ARCHITECTURE.md: ${missing.join(', ')}`);
});

test('every local link of README.md and docs/ points at a file that exists', () => {
  const pages = ['README.md', ...readdirSync(join(repoRoot, 'docs')).filter((f) => f.endsWith('.md')).map((f) => join('docs', f))];
  const broken: string[] = [];
  for (const page of pages) {
    const text = readFileSync(join(repoRoot, page), 'utf8');
    for (const m of text.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
      const target = m[1]!;
      if (/^[a-z]+:/.test(target)) continue;
      const base = page.includes('/') ? join(repoRoot, 'docs') : repoRoot;
      if (!existsSync(join(base, target))) broken.push(`${page}: ${target}`);
    }
  }
  assert.deepEqual(broken, []);
});

// ---------------------------------------------------------------------------
// The dependency table of docs/ARCHITECTURE.md against the import lines of
// every file of src/ (TypeScript's own parser reads them).

/** One import of a file: what it names, and whether it is erased at run time (types only). */
interface Import {
  readonly from: string;
  readonly spec: string;
  readonly typeOnly: boolean;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : e.name.endsWith('.ts') ? [p] : [];
  });
}

/** Static imports and re-exports with a module name, and `import('...')` calls. */
function importsOf(file: string): Import[] {
  const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const out: Import[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      let typeOnly = false;
      if (ts.isImportDeclaration(node)) {
        const c = node.importClause;
        const named = c?.namedBindings && ts.isNamedImports(c.namedBindings) ? c.namedBindings.elements : undefined;
        // Erased: `import type`, or only `type` names (and no default or namespace import).
        typeOnly = !!c && (c.isTypeOnly || (!c.name && !!named && named.length > 0 && named.every((e) => e.isTypeOnly)));
      } else typeOnly = node.isTypeOnly;
      out.push({ from: file, spec: node.moduleSpecifier.text, typeOnly });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) {
      out.push({ from: file, spec: node.arguments[0].text, typeOnly: false });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

const srcDir = join(repoRoot, 'src');
const srcFiles = sourceFiles(srcDir);
/** The folder of src/ a file belongs to; `index.ts` for src/index.ts. */
const folderOf = (file: string): string => relative(srcDir, file).split(sep)[0]!;
/** A package as the table names it: `node:fs`, `yaml`, `z3-solver` (not its sub-path). */
const packageOf = (spec: string): string => (spec.startsWith('node:') ? spec : spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);

/** The rows of the table: folder (without `src/` and `/`, or `index.ts`) to its folders and packages. */
function dependencyTable(): Map<string, { folders: Set<string>; packages: Set<string> }> {
  const doc = readFileSync(join(repoRoot, 'docs', 'ARCHITECTURE.md'), 'utf8');
  const section = doc.split(/^## /m).find((s) => s.startsWith('Dependencies'));
  assert.ok(section, 'docs/ARCHITECTURE.md has a section "## Dependencies"');
  const rows = new Map<string, { folders: Set<string>; packages: Set<string> }>();
  const names = (cell: string) => new Set(cell.split(',').map((x) => x.trim().replace(/^`|`$/g, '').replace(/\/$/, '')).filter((x) => x && x !== '—'));
  for (const line of section.split('\n')) {
    const cells = line.split('|').slice(1, -1).map((c) => c.trim());
    if (cells.length !== 3 || !cells[0]!.startsWith('`')) continue;
    rows.set(cells[0]!.replace(/`/g, '').replace(/^src\//, '').replace(/\/$/, ''), { folders: names(cells[1]!), packages: names(cells[2]!) });
  }
  return rows;
}

test('every folder of src/ imports exactly the folders and packages of its row in the dependency table', () => {
  const table = dependencyTable();
  const actual = new Map<string, { folders: Map<string, string>; packages: Map<string, string> }>();
  for (const file of srcFiles) {
    const me = folderOf(file);
    const row = actual.get(me) ?? { folders: new Map(), packages: new Map() };
    actual.set(me, row);
    for (const i of importsOf(file)) {
      const where = relative(repoRoot, file);
      if (i.spec.startsWith('.')) {
        const target = resolve(dirname(file), i.spec);
        if (!target.startsWith(srcDir + sep)) continue; // e.g. package.json beside src/
        const folder = folderOf(target);
        if (folder !== me) row.folders.set(folder, where);
      } else row.packages.set(packageOf(i.spec), where);
    }
  }
  const problems: string[] = [];
  for (const [folder, row] of actual) {
    const allowed = table.get(folder);
    if (!allowed) {
      problems.push(`${folder}: no row in the dependency table`);
      continue;
    }
    for (const [f, where] of row.folders) if (!allowed.folders.has(f)) problems.push(`${where} imports ${f}/, which the row of ${folder} does not list`);
    for (const [p, where] of row.packages) if (!allowed.packages.has(p)) problems.push(`${where} imports the package ${p}, which the row of ${folder} does not list`);
    for (const f of allowed.folders) if (!row.folders.has(f)) problems.push(`the row of ${folder} lists ${f}/, which no file of ${folder} imports`);
    for (const p of allowed.packages) if (!row.packages.has(p)) problems.push(`the row of ${folder} lists the package ${p}, which no file of ${folder} imports`);
  }
  for (const folder of table.keys()) if (!actual.has(folder)) problems.push(`the dependency table has a row for ${folder}, which is not in src/`);
  assert.deepEqual(problems, [], `docs/ARCHITECTURE.md's dependency table and the code disagree:\n${problems.join('\n')}`);
});

/**
 * Circles of imports between folders, each a defect to remove (listed so
 * that a new one fails): task/score.ts asks properties/ for the names of a
 * FALSE while properties/ takes task/'s types.
 */
const KNOWN_FOLDER_CIRCLES: string[][] = [];

/**
 * Circles of imports between files whose imports are only of types (erased
 * at run time) are defects too, accepted only where they are known: inside
 * lower/ (the lowering's modules take the `Lowerer` they are parts of as a
 * type, and it names theirs) and inside a known circle of folders.
 */
const typeCircleKnown = (files: readonly string[]): boolean =>
  files.every((f) => f.startsWith('src/lower/')) || KNOWN_FOLDER_CIRCLES.some((k) => files.every((f) => k.includes(folderOf(join(repoRoot, f)))));

/** The strongly connected components with more than one file of a graph of files. */
function circles(graph: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const out: string[][] = [];
  const connect = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const c: string[] = [];
    for (let w = ''; w !== v; ) c.push((w = stack.pop()!));
    if (c.length > 1) out.push(c.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) connect(v);
  return out;
}

test('no import circle: none between folders and none of types but the known ones, none between files at run time', () => {
  const files = new Map<string, Set<string>>();
  const runtime = new Map<string, Set<string>>();
  const folders = new Map<string, Set<string>>();
  for (const file of srcFiles) {
    const me = relative(repoRoot, file);
    files.set(me, new Set());
    runtime.set(me, new Set());
    for (const i of importsOf(file)) {
      if (!i.spec.startsWith('.')) continue;
      const target = resolve(dirname(file), i.spec).replace(/\.js$/, '.ts');
      if (!target.startsWith(srcDir + sep) || !existsSync(target)) continue;
      const to = relative(repoRoot, target);
      files.get(me)!.add(to);
      if (!i.typeOnly) runtime.get(me)!.add(to);
      const [a, b] = [folderOf(file), folderOf(target)];
      if (a !== b && a !== 'index.ts') (folders.get(a) ?? folders.set(a, new Set()).get(a)!).add(b);
    }
  }
  assert.deepEqual(circles(folders), KNOWN_FOLDER_CIRCLES, 'folders of src/ import each other in a circle (KNOWN_FOLDER_CIRCLES lists the ones not yet removed)');
  assert.deepEqual(circles(runtime), [], 'files of src/ import each other in a circle');
  const typeCircles = circles(files).filter((c) => !typeCircleKnown(c));
  assert.deepEqual(typeCircles, [], 'circles of type imports');
});
