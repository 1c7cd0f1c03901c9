import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expandRuns, fillTemplate, readAnswer, Progress, type RunRecord } from '../../src/bench/index.js';
import { TarsierError } from '../../src/common/errors.js';
import { sharedPath, skipWithoutShared } from '../helpers/shared.js';
import { makeBench } from './fixtures.js';

test('sets: folders, task files and .set files give one run per verification property', () => {
  const root = makeBench([
    { dir: 'loops', name: 'a', expected: 'true' },
    { dir: 'loops', name: 'b', expected: 'false' },
    { dir: 'heap', name: 'c', expected: 'false(valid-deref)', property: 'valid-memsafety' },
  ]);
  const set = join(root, 'set');
  const { runs, warnings } = expandRuns([set]);
  assert.deepEqual(
    runs.map((r) => [r.id, r.directory, r.property, r.expected]),
    [
      ['heap/c.yml#valid-memsafety', 'heap', 'valid-memsafety', { verdict: false, subproperty: 'valid-deref' }],
      ['loops/a.yml#unreach-call', 'loops', 'unreach-call', { verdict: true }],
      ['loops/b.yml#unreach-call', 'loops', 'unreach-call', { verdict: false }],
    ],
  );
  // The coverage property of each task file is absent: skipped with one warning for all tasks, not an error.
  const coverage = join(set, 'properties', 'coverage-error-call.prp');
  assert.deepEqual(warnings, [
    { file: coverage, message: `${coverage}: property entry skipped in 3 tasks: property file '../properties/coverage-error-call.prp' does not exist` },
  ]);
  writeFileSync(join(set, 'Loops.set'), '# loops only\nloops/*.yml\n\n');
  assert.deepEqual(expandRuns([join(set, 'Loops.set')]).runs.map((r) => r.task), ['a.yml', 'b.yml']);
  assert.deepEqual(expandRuns([set], { properties: ['valid-memsafety'] }).runs.map((r) => r.id), ['heap/c.yml#valid-memsafety']);
  writeFileSync(join(set, 'Bad.set'), 'loops/*.yml\nnowhere/*.yml\n');
  assert.throws(() => expandRuns([join(set, 'Bad.set')]), (e: unknown) => e instanceof TarsierError && e.format() === `${join(set, 'Bad.set')}:2:1: error: pattern 'nowhere/*.yml' matches no task file`);
  // A broken task file is reported, the others still run.
  writeFileSync(join(set, 'loops', 'z.yml'), "format_version: '2.0'\ninput_files: missing.c\n");
  const r = expandRuns([set]);
  assert.equal(r.runs.length, 3);
  assert.deepEqual(r.warnings.map((w) => w.message), [
    `${join(set, 'loops', 'z.yml')}:2:14: error: input file 'missing.c' does not exist`,
    `${coverage}: property entry skipped in 3 tasks: property file '../properties/coverage-error-call.prp' does not exist`,
  ]);
  const run = r.runs[1];
  assert.equal(
    fillTemplate('v --prop {prop} --{bits} --dm {data_model} {program} {task} {timeout} {unknown}', run, { timeout: 30, runDir: '/r' }),
    `v --prop ${join(set, 'properties', 'unreach-call.prp')} --32 --dm ILP32 ${join(set, 'loops', 'a.c')} ${join(set, 'loops', 'a.yml')} 30 {unknown}`,
  );
});

test('output adapters read the last answer line', () => {
  assert.deepEqual(readAnswer('Verification result: FALSE(no-overflow)\nbye\n', 'auto'), { kind: 'false', property: 'no-overflow' });
  assert.deepEqual(readAnswer('SV-COMP result: false(valid-memtrack)\n', 'auto'), { kind: 'false', property: 'valid-memtrack' });
  assert.equal(readAnswer('SV-COMP result: true\n', 'verification-result'), undefined);
  assert.deepEqual(readAnswer('Verification result: TRUE\nSV-COMP result: unknown\n', 'auto'), { kind: 'unknown' });
  assert.deepEqual(readAnswer('loop bound 8 reached\nVerification result: UNKNOWN\n', 'verification-result'), { kind: 'unknown', reason: 'loop bound 8 reached' });
  assert.equal(readAnswer('SV-COMP result: ERROR (parse)\n', 'sv-comp-result'), undefined);
});

test('sets: the shared sv-benchmarks folder gives one run per row of its MANIFEST.csv, with the expected verdict', { skip: skipWithoutShared }, () => {
  const { runs, warnings } = expandRuns([sharedPath('bench', 'sv-benchmarks', 'c')]);
  // The manifest lists every (task, property) pair with its verdict: the expansion must find the same pairs.
  const manifest = readFileSync(sharedPath('bench', 'sv-benchmarks', 'MANIFEST.csv'), 'utf8').trim().split('\n').slice(1);
  const key = (task: string, property: string, expected: string) => `${task.replace(/^c\//, '')} ${property} ${expected}`;
  const listed = manifest.map((l) => l.split(',')).map((f) => key(f[0]!, f[2]!, f[4]!)).sort();
  const found = runs.map((r) => key(r.task, r.property, String(r.expected?.verdict))).sort();
  assert.deepEqual(found, listed);
  // Test-Comp coverage entries are skipped, one warning per property file.
  assert.deepEqual(
    warnings.map((w) => w.message.replace(/^.*\//, '').replace(/ \d+ tasks?/, ' N tasks')),
    ['branches', 'conditions', 'statements', 'error-call'].map(
      (c) => `coverage-${c}.prp: property entry skipped in N tasks: a Test-Comp coverage property (COVER) is not a verification property`,
    ),
  );
});

test('progress: plain lines when not a terminal, one rewritten status line on a terminal', () => {
  const record = (id: string, category: 'correct' | 'wrong', points: number) =>
    ({ id, status: 'true', category, points, cpuTime: 1.5 }) as unknown as RunRecord;
  let plain = '';
  const p = new Progress(3, { write: (s: string) => ((plain += s), true) } as unknown as NodeJS.WritableStream, false);
  p.started('a');
  p.finished(record('a', 'correct', 2));
  p.finished(record('b', 'wrong', -32));
  p.close();
  assert.equal(plain, '[1/3] a: true (correct, +2) 1.50 s\n[2/3] b: true (wrong, -32) 1.50 s WRONG\n');
  let tty = '';
  const q = new Progress(2, { write: (s: string) => ((tty += s), true), columns: 200 } as unknown as NodeJS.WritableStream, true);
  q.started('a');
  q.finished(record('a', 'wrong', -32));
  q.close();
  const parts = tty.split('\r\x1b[K');
  assert.match(parts[1], /^0\/2 done, 1 running \| correct 0, incorrect 0, other 0 \| 00:00:0\d$/);
  assert.equal(parts[2], '[1/2] a: true (wrong, -32) 1.50 s WRONG\n');
  assert.match(parts[parts.length - 1], /^1\/2 done, 0 running \| correct 0, incorrect 1, other 0 \| 00:00:0\d\n$/);
});
