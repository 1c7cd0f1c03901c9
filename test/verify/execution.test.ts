import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/shared.js';
import { needTools } from '../helpers/tools.js';
import { verify } from '../../src/verify/index.js';
import { determinismOf, executeDeterministic } from '../../src/verify/execution.js';
import { validate } from '../../src/validate/index.js';
import { parseC, lowerC } from '../../src/verify/frontend.js';
import { passesOf } from '../../src/properties/index.js';

const fx = (name: string) => join(repoRoot, 'test', 'fixtures', 'execution', name);
const noGcc = needTools('gcc -m32', 'gcc -fsanitize');
const noValgrind = needTools('gcc', 'gcc -fsanitize', 'valgrind');

const deterministic = (name: string) => determinismOf(lowerC(parseC(fx(name), 'ILP32'), { passes: passesOf('unreach-call'), dataModel: 'ILP32', recursionDepth: 1 }));

test('a program is deterministic when its lowering reads no havocked or unassigned variable (a recursion cut does not count)', () => {
  assert.equal(deterministic('deep-recursion-safe.c'), 'deterministic');
  assert.equal(deterministic('overflow.c'), 'deterministic');
  assert.equal(deterministic('uninitialised.c'), 'nondeterministic');
  assert.equal(deterministic('assigned-before-use.c'), 'deterministic');
  assert.equal(deterministic('assigned-on-one-path.c'), 'nondeterministic');
  assert.equal(deterministic('initialised-arrays.c'), 'deterministic');
  // Arrays that start unwritten: whether a run depends on them is for valgrind to see.
  assert.equal(deterministic('array-written-before-read.c'), 'if-memory-defined');
  assert.equal(deterministic('array-read-unwritten.c'), 'if-memory-defined');
});

test('a run that depends on memory the program never wrote decides nothing; one that does not decides', { skip: noValgrind }, () => {
  const options = { property: 'unreach-call', dataModel: 'ILP32', errorFunction: 'reach_error', timeoutMs: 10_000, determinism: 'if-memory-defined' } as const;
  const unwritten = executeDeterministic(fx('array-read-unwritten.c'), options);
  assert.equal(unwritten.kind, 'undecided');
  assert.match(unwritten.kind === 'undecided' ? unwritten.reason : '', /memory the program has not written \(valgrind: Conditional jump/);
  const written = executeDeterministic(fx('array-written-before-read.c'), options);
  assert.equal(written.kind, 'holds', written.kind === 'undecided' ? written.reason : '');
  // The same program believed fully deterministic would have decided on the one run's value (a wrong TRUE): the valgrind run is what stops it.
  assert.equal(executeDeterministic(fx('array-read-unwritten.c'), { ...options, determinism: 'deterministic' }).kind, 'holds');
});

test('a run with undefined behaviour decides nothing', { skip: noGcc }, () => {
  // A fractional limit (a share of a budget) is fine too.
  const r = executeDeterministic(fx('shift-ub.c'), { property: 'unreach-call', dataModel: 'ILP32', errorFunction: 'reach_error', timeoutMs: 9_999.7, determinism: 'deterministic' });
  assert.equal(r.kind, 'undecided');
  assert.match(r.kind === 'undecided' ? r.reason : '', /shift exponent/);
});

test('a run is limited by its CPU time (a wall-clock limit ten times longer is only a safety net for a loaded machine)', { skip: noGcc }, () => {
  const r = executeDeterministic(fx('long-run.c'), { property: 'unreach-call', dataModel: 'ILP32', errorFunction: 'reach_error', timeoutMs: 800, determinism: 'deterministic' });
  assert.equal(r.kind, 'undecided');
  assert.match(r.kind === 'undecided' ? r.reason : '', /did not end within 1 s of CPU time/);
});

test('deterministic programs: the one execution answers past any unrolling, and validate confirms the witnesses', { skip: noGcc }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-execution-'));
  try {
    const cases: [string, string, string][] = [
      ['deep-recursion-safe.c', 'unreach-call', 'true'],
      ['deep-recursion-unsafe.c', 'unreach-call', 'false(unreach-call)'],
      ['overflow.c', 'no-overflow', 'false(no-overflow)'],
      ['overflow.c', 'unreach-call', 'true'],
      ['initialised-arrays.c', 'unreach-call', 'true'],
      ...(noValgrind ? [] : [['array-written-before-read.c', 'unreach-call', 'true'] as [string, string, string]]),
    ];
    for (const [name, property, expected] of cases) {
      const witness = join(dir, `${name}.${property}.yml`);
      const r = await verify(fx(name), { property, timeoutS: 30, witnessPath: witness, creationTime: '2026-01-01T00:00:00Z' });
      const got = r.verdict.kind === 'false' ? `false(${r.verdict.property})` : r.verdict.kind;
      assert.equal(got, expected, `${name} ${property}: ${r.reason}`);
      assert.match(r.reason, /only execution/, r.reason);
      const v = await validate(fx(name), witness, { property, timeoutS: 30 });
      assert.equal(v.outcome, 'confirmed', `${name} ${property}: ${v.reason}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('termination: a deterministic program whose one run ends terminates', { skip: noGcc }, async () => {
  const r = await verify(fx('deep-recursion-safe.c'), { property: 'termination', timeoutS: 30, witnessPath: null });
  assert.equal(r.verdict.kind, 'true', r.reason);
  assert.match(r.reason, /only execution ends/);
});
