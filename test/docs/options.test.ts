// The reference pages and the tool's own help must agree: every option a
// command's page documents (in its synopsis, or as the head of a bullet)
// exists in `tarsier COMMAND --help`, every option of the help is in the
// page's synopsis, and no option heads two bullets of one page (two
// descriptions drift apart: verify.md once had two `--timeout` bullets).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliPath, repoRoot } from '../helpers/shared.js';

/** The long options of a help text (commander's format: `  -x, --name <arg>  text`), without --help. */
export function helpOptions(help: string): string[] {
  const out = new Set<string>();
  for (const line of help.split('\n')) {
    const m = /^\s{2}(?:-\w, )?(--[a-z][\w-]*)/.exec(line);
    if (m && m[1] !== '--help') out.add(m[1]);
  }
  return [...out].sort();
}

/** The commands of a help text's `Commands:` list, without `help`. */
function helpCommands(help: string): string[] {
  const list = help.split('\nCommands:\n')[1] ?? '';
  return list
    .split('\n')
    .map((l) => /^\s{2}([a-z]+)\b/.exec(l)?.[1])
    .filter((c): c is string => c !== undefined && c !== 'help');
}

/** The options in a page's synopsis: the fenced blocks whose first line is `tarsier COMMAND ...`, with their continuation lines. */
export function synopsisOptions(markdown: string, command: string): string[] {
  const out = new Set<string>();
  const blocks = markdown.split(/^```.*$/m).filter((_, i) => i % 2 === 1);
  for (const b of blocks) {
    const lines = b.replace(/^\n/, '').split('\n');
    if (!lines[0]?.startsWith(`tarsier ${command} `) && lines[0] !== `tarsier ${command}`) continue;
    // A synopsis block holds the command's forms and their indented continuations.
    const synopsis = lines.filter((l, i) => i === 0 || l.startsWith(`tarsier ${command}`) || /^\s+\S/.test(l));
    for (const m of synopsis.join('\n').matchAll(/(?<![\w-])--[a-z][\w-]*/g)) out.add(m[0]);
  }
  return [...out].sort();
}

/** Options heading a bullet (`- \`--name ...\``), each with the lines of the bullets it heads. */
export function bulletHeads(markdown: string): Map<string, number[]> {
  const heads = new Map<string, number[]>();
  markdown.split('\n').forEach((line, i) => {
    const m = /^\s*- `(--[a-z][\w-]*)/.exec(line);
    if (m) heads.set(m[1], [...(heads.get(m[1]) ?? []), i + 1]);
  });
  return heads;
}

const help = (...args: string[]) => spawnSync(process.execPath, [cliPath, ...args, '--help'], { encoding: 'utf8' }).stdout;

/** Each command with the words that run it and its page. */
function commands(): Array<{ words: string[]; page: string }> {
  const out: Array<{ words: string[]; page: string }> = [];
  for (const c of helpCommands(help())) {
    const subs = helpCommands(help(c));
    if (subs.length === 0) out.push({ words: [c], page: join(repoRoot, 'docs', `${c}.md`) });
    else for (const s of subs) out.push({ words: [c, s], page: join(repoRoot, 'docs', `${c}.md`) });
  }
  return out;
}

test('the option readers find what the pages and the help hold', () => {
  assert.deepEqual(helpOptions('Options:\n  --a <x>     text\n  -q, --quiet  more\n                 --not-an-option in text\n  -h, --help  help\n'), ['--a', '--quiet']);
  const md = '# x\n\n```\ntarsier x IN [--a A]\n          [--b]\n$ tarsier x --c\n```\n\n- `--a` does\n- `--a` again\n';
  assert.deepEqual(synopsisOptions(md, 'x'), ['--a', '--b']);
  assert.deepEqual([...bulletHeads(md)], [['--a', [9, 10]]]);
});

test('every command has a page, and its page and its --help name the same options', () => {
  const problems: string[] = [];
  for (const { words, page } of commands()) {
    const name = words.join(' ');
    if (!existsSync(page)) {
      problems.push(`tarsier ${name}: no page ${page.slice(repoRoot.length + 1)}`);
      continue;
    }
    const md = readFileSync(page, 'utf8');
    const pageName = page.slice(repoRoot.length + 1);
    const inHelp = helpOptions(help(...words));
    const synopsis = synopsisOptions(md, name);
    if (synopsis.length === 0 && inHelp.length > 0) problems.push(`${pageName}: no synopsis block starting with 'tarsier ${name}'`);
    for (const o of inHelp) if (synopsis.length > 0 && !synopsis.includes(o)) problems.push(`${pageName}: ${o} of 'tarsier ${name} --help' is not in the page's synopsis`);
    for (const o of synopsis) if (!inHelp.includes(o)) problems.push(`${pageName}: ${o} is in the synopsis of 'tarsier ${name}' but not in its --help`);
  }
  assert.deepEqual(problems, []);
});

test('no option heads two bullets of one page, and every option heading a bullet exists', () => {
  const problems: string[] = [];
  const byPage = new Map<string, string[]>();
  for (const { words, page } of commands()) byPage.set(page, [...(byPage.get(page) ?? []), ...helpOptions(help(...words))]);
  for (const [page, options] of byPage) {
    if (!existsSync(page)) continue;
    for (const [o, lines] of bulletHeads(readFileSync(page, 'utf8'))) {
      const where = `${page.slice(repoRoot.length + 1)}:${lines.join(',')}`;
      if (lines.length > 1) problems.push(`${where}: ${o} heads ${lines.length} bullets`);
      if (!options.includes(o)) problems.push(`${where}: ${o} heads a bullet but no command of the page has it`);
    }
  }
  assert.deepEqual(problems, []);
});
