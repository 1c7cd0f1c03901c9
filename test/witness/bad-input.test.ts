// Bad input to `tarsier lint`: one clear line, a non-zero exit, bounded time; never a stack trace.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliPath } from '../helpers/shared.js';
import { lintWitness, readWitness } from '../../src/witness/index.js';
import { TarsierError } from '../../src/common/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'tarsier-bad-input-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

function lint(name: string, content?: string | Buffer): { status: number | null; lines: string[]; ms: number } {
  const path = join(dir, name);
  if (content !== undefined) writeFileSync(path, content);
  const start = Date.now();
  const r = spawnSync(process.execPath, [cliPath, 'lint', path], { encoding: 'utf8', timeout: 60_000 });
  const lines = (r.stdout + r.stderr).split('\n').filter((l) => l.length > 0);
  return { status: r.status, lines, ms: Date.now() - start };
}

function expectOneLine(r: ReturnType<typeof lint>, status: number, pattern: RegExp): void {
  assert.equal(r.lines.length, 1, r.lines.join('\n'));
  assert.match(r.lines[0], pattern);
  assert.doesNotMatch(r.lines[0], /\bat .*\.js:\d+/); // no stack trace
  assert.equal(r.status, status);
  assert.ok(r.ms < 20_000, `took ${r.ms} ms`);
}

const BOMB = [
  '- a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
  ...'bcdefghi'.split('').map((c, i) => `  ${c}: &${c} [${Array(9).fill(`*${'abcdefghi'[i]}`).join(',')}]`),
].join('\n');

test('malformed YAML: one line with the position of the syntax error, exit 1', () => {
  expectOneLine(lint('malformed.yml', '- entry_type: [unclosed\n  metadata: x\n'), 1, /malformed\.yml:2:3: error: .*\[yaml-syntax\]$/);
});

test('not UTF-8: one line naming the offset of the first bad byte, exit 2', () => {
  const bytes = Buffer.concat([Buffer.from('- entry_type: "invariant_set"\n  metadata: '), Buffer.from([0xff, 0xfe]), Buffer.from('\n')]);
  expectOneLine(lint('latin.yml', bytes), 2, /latin\.yml:2:13: error: file is not valid UTF-8 \(byte 0xff at offset 42\)$/);
});

test('duplicate keys: one line at the second key, exit 1', () => {
  expectOneLine(lint('dup.yml', '- entry_type: "a"\n  entry_type: "b"\n'), 1, /dup\.yml:2:3: error: duplicate key 'entry_type' .*\[duplicate-key\]$/);
});

test('billion laughs: stopped by the alias limit, exit 1, little time', () => {
  const r = lint('bomb.yml', BOMB);
  expectOneLine(r, 1, /bomb\.yml:1:1: error: aliases expand too much .*\[yaml-syntax\]$/);
  assert.throws(() => readWitness(BOMB, 'bomb.yml'), (e: unknown) => e instanceof TarsierError && /alias/.test(e.message));
});

test('a 100 MB file: refused by size before reading, exit 2', () => {
  const r = lint('big.yml', Buffer.alloc(100 * 1024 * 1024, 0x61));
  expectOneLine(r, 2, /big\.yml: error: file is too large \(104857600 bytes; the limit is \d+\)$/);
});

test('deeply nested flow collections: one line, exit 1', () => {
  expectOneLine(lint('deep.yml', '['.repeat(100_000) + ']'.repeat(100_000) + '\n'), 1, /deep\.yml:1:65: error: collections are nested more than 64 levels deep \[yaml-syntax\]$/);
});

test('deeply nested block collections: one line, exit 1', () => {
  const text = Array.from({ length: 3000 }, (_, i) => ' '.repeat(2 * i) + '- ').join('\n') + '\n';
  expectOneLine(lint('deepblock.yml', text), 1, /deepblock\.yml:\d+:\d+: error: .*nested.*\[yaml-syntax\]$/);
});

test('an empty file: one line, exit 1', () => {
  expectOneLine(lint('empty.yml', ''), 1, /empty\.yml:1:1: error: the witness is empty.*\[root-not-sequence\]$/);
});

test('a directory instead of a file: one line, exit 2', () => {
  mkdirSync(join(dir, 'adir'));
  expectOneLine(lint('adir'), 2, /adir: error: is a directory, not a file$/);
});

test('a missing file and a missing argument: exit 2', () => {
  expectOneLine(lint('missing.yml'), 2, /missing\.yml: error: no such file$/);
  const r = spawnSync(process.execPath, [cliPath, 'lint'], { encoding: 'utf8' });
  assert.equal(r.status, 2);
});

test('malformed GraphML: one line with the position, exit 1', () => {
  expectOneLine(lint('bad.graphml', '<graphml>\n  <graph>\n</graphml>\n'), 1, /bad\.graphml:3:1: error: end tag <\/graphml> does not match <graph> .*\[xml-syntax\]$/);
});

test('the library API reports the same problems without a process', () => {
  assert.deepEqual(
    lintWitness('- a: 1\n  a: 2\n', 'w.yml').map((d) => [d.rule, d.line, d.column]),
    [['duplicate-key', 2, 3]],
  );
  assert.throws(() => readWitness('[[[', 'w.yml'), (e: unknown) => e instanceof TarsierError && e.format().startsWith('w.yml:'));
  assert.throws(() => readWitness('a: 1\n', 'w.yml'), (e: unknown) => e instanceof TarsierError && e.code === 'root-not-sequence');
});
