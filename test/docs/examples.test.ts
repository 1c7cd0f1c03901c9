// Every example of README.md and docs/*.md is run and its output compared
// with the page, so that the pages cannot drift from the tool. An example is
// a line `$ tarsier ...` (or `$ npx tarsier ...`) in a fenced block; the
// lines after it, up to the next `$` line or the end of the block, are what
// it prints (standard output and standard error, in order). In the shown
// output `…` stands for any text within a line (absolute paths, times).
// The commands of one page run in order, in a fresh folder holding a copy of
// examples/ and test/fixtures/ (so a page refers to `examples/FILE`, and may
// use what an earlier command of the same page wrote); `../shared/` names
// the competition material beside the repository (skipped where absent).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { cliPath, repoRoot, sharedDir } from '../helpers/shared.js';
import { needTools } from '../helpers/tools.js';
import { runsI386Programs } from '../../src/replay/i386.js';

export interface Example {
  readonly command: string;
  readonly output: readonly string[];
  /** 1-based line of the command in the page. */
  readonly line: number;
}

/** The examples of a Markdown page, in order. */
export function examplesOf(markdown: string): Example[] {
  const out: Example[] = [];
  let inBlock = false;
  let current: { command: string; output: string[]; line: number } | undefined;
  const close = () => {
    if (current) out.push(current);
    current = undefined;
  };
  markdown.split('\n').forEach((text, i) => {
    if (/^\s*```/.test(text)) {
      if (inBlock) close();
      inBlock = !inBlock;
      return;
    }
    if (!inBlock) return;
    const m = /^\$ (?:npx )?(tarsier\b.*)$/.exec(text);
    if (m) {
      close();
      current = { command: m[1]!, output: [], line: i + 1 };
    } else if (/^\$ /.test(text)) close();
    else current?.output.push(text);
  });
  return out;
}

/** Whether `actual` is what the page shows, `…` matching any text within a line. */
export function matchesShown(actual: string, shown: readonly string[]): boolean {
  const pattern = shown.map((l) => l.split('…').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')).join('\n');
  return new RegExp(`^${pattern}$`).test(actual.replace(/\n+$/, ''));
}

const pages = [join(repoRoot, 'README.md'), ...readdirSync(join(repoRoot, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => join(repoRoot, 'docs', f))];

test('the example parser reads commands, their output and placeholders', () => {
  const md = 'text\n```\n$ npx tarsier verify a.yml\nline 1\nline … 2\n$ tarsier parse b.c\n```\n$ tarsier outside\n';
  assert.deepEqual(examplesOf(md), [
    { command: 'tarsier verify a.yml', output: ['line 1', 'line … 2'], line: 3 },
    { command: 'tarsier parse b.c', output: [], line: 6 },
  ]);
  assert.ok(matchesShown('line 1\nline x/y 2\n', ['line 1', 'line … 2']));
  assert.ok(!matchesShown('line 1\nline 3\n', ['line 1', 'line … 2']));
  assert.ok(!matchesShown('line 1\n', ['line 1', 'line … 2']));
});

/** Commands that run until stopped (a server) cannot be compared: their examples are left out. */
const LONG_RUNNING = /^tarsier serve\b/;

/** Runs a page's examples in a fresh folder, each compared with what the page shows. */
function runExamples(name: string, examples: ReturnType<typeof examplesOf>): void {
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-docs-'));
  try {
    cpSync(join(repoRoot, 'examples'), join(dir, 'examples'), { recursive: true });
    cpSync(join(repoRoot, 'test', 'fixtures'), join(dir, 'test', 'fixtures'), { recursive: true });
    for (const ex of examples) {
      // An example on the competition material of ../shared runs only where it is present.
      if (ex.command.includes('../shared/') && !sharedDir) continue;
      const command = ex.command.replace(/^tarsier/, `"${process.execPath}" "${cliPath}"`).replaceAll('../shared/', `${sharedDir}/`);
      const r = spawnSync('bash', ['-c', `${command} 2>&1`], { cwd: dir, encoding: 'utf8', timeout: 300_000 });
      // The pages show a machine whose kernel runs -m32 programs; elsewhere a
      // replay's reason says it ran under qemu-i386, or natively as -m64 (an
      // ILP32 program that means the same in LP64).
      const printed = r.stdout.replaceAll(' under qemu-i386', '');
      const asIlp32 = runsI386Programs() ? printed : printed.replaceAll('(gcc -m64', '(gcc -m32');
      assert.ok(matchesShown(printed, ex.output) || matchesShown(asIlp32, ex.output), `${name}:${ex.line}: $ ${ex.command}\n--- the page shows:\n${ex.output.join('\n')}\n--- tarsier prints:\n${r.stdout}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

for (const page of pages) {
  const examples = examplesOf(readFileSync(page, 'utf8')).filter((ex) => !LONG_RUNNING.test(ex.command));
  if (examples.length === 0) continue;
  const name = page.slice(repoRoot.length + 1);
  // FALSE answers are replayed by gcc before they are printed. The examples
  // showing AddressSanitizer's -m32 replays are a test of their own: they
  // need a kernel that runs them (they hang under qemu-i386).
  const asan = examples.filter((ex) => ex.output.some((l) => l.includes('-m32 -fsanitize=address')));
  const plain = examples.filter((ex) => !asan.includes(ex));
  if (plain.length > 0) {
    test(`the examples of ${name} print what the page shows${asan.length ? " (AddressSanitizer's apart)" : ''}`, { skip: needTools('gcc', 'gcc -m32') }, () => runExamples(name, plain));
  }
  if (asan.length > 0) {
    test(`the AddressSanitizer examples of ${name} print what the page shows`, { skip: needTools('gcc', 'gcc -m32 -fsanitize=address') }, () => runExamples(name, asan));
  }
}

/** The JavaScript examples of a page (```js blocks), each with the output block (```output) that follows it, if any. */
export function scriptsOf(markdown: string): Array<{ code: string; output?: string[]; line: number }> {
  const out: Array<{ code: string; output?: string[]; line: number }> = [];
  const re = /^```(\w*)\n([\s\S]*?)^```$/gm;
  for (let m = re.exec(markdown); m; m = re.exec(markdown)) {
    const line = markdown.slice(0, m.index).split('\n').length;
    if (m[1] === 'js') out.push({ code: m[2]!, line });
    else if (m[1] === 'output' && out.length > 0 && out[out.length - 1]!.output === undefined) out[out.length - 1]!.output = m[2]!.replace(/\n$/, '').split('\n');
  }
  return out;
}

test('the script reader pairs code with its output', () => {
  const md = '```js\nconsole.log(1);\n```\n\n```output\n1\n```\n```js\nx();\n```\n';
  assert.deepEqual(scriptsOf(md), [
    { code: 'console.log(1);\n', output: ['1'], line: 1 },
    { code: 'x();\n', line: 8 },
  ]);
});

// The library's page: each example runs as an ES module importing the built package, in a folder with examples/.
test('the JavaScript examples of docs/library.md run and print what the page shows', { skip: needTools('gcc', 'gcc -m32') }, () => {
  const page = join(repoRoot, 'docs', 'library.md');
  const scripts = scriptsOf(readFileSync(page, 'utf8'));
  assert.ok(scripts.length >= 3);
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-library-'));
  try {
    cpSync(join(repoRoot, 'examples'), join(dir, 'examples'), { recursive: true });
    const entry = pathToFileURL(join(repoRoot, 'dist', 'src', 'index.js')).href;
    for (const s of scripts) {
      const file = join(dir, `example-${s.line}.mjs`);
      writeFileSync(file, s.code.replaceAll("from 'tarsier'", `from '${entry}'`));
      const r = spawnSync(process.execPath, [file], { cwd: dir, encoding: 'utf8', timeout: 300_000 });
      assert.equal(r.status, 0, `docs/library.md:${s.line}: ${r.stderr}`);
      if (s.output) assert.ok(matchesShown(r.stdout, s.output), `docs/library.md:${s.line}\n--- the page shows:\n${s.output.join('\n')}\n--- it prints:\n${r.stdout}`);
    }
    // The examples write nothing unless asked: the folder holds the copies and the scripts only.
    assert.deepEqual(readdirSync(dir).filter((f) => f !== 'examples' && !f.startsWith('example-')), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
