import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/shared.js';
import { needTools } from '../helpers/tools.js';
import { verify } from '../../src/verify/index.js';
import { isDeterministic, executeDeterministic } from '../../src/verify/execution.js';
import { validate } from '../../src/validate/index.js';
import { parseC, lowerC } from '../../src/verify/frontend.js';

const fx = (name: string) => join(repoRoot, 'test', 'fixtures', 'execution', name);
const noGcc = needTools('gcc -m32', 'gcc -fsanitize');

const deterministic = (name: string) => isDeterministic(lowerC(parseC(fx(name), 'ILP32'), { property: 'unreach-call', dataModel: 'ILP32', recursionDepth: 1 }));

test('a program is deterministic when its lowering reads no havocked or unassigned variable (a recursion cut does not count)', () => {
  assert.equal(deterministic('deep-recursion-safe.c'), true);
  assert.equal(deterministic('overflow.c'), true);
  assert.equal(deterministic('uninitialised.c'), false);
  assert.equal(deterministic('assigned-before-use.c'), true);
  assert.equal(deterministic('assigned-on-one-path.c'), false);
  assert.equal(deterministic('initialised-arrays.c'), true);
});

test('a run with undefined behaviour decides nothing', { skip: noGcc }, () => {
  // A fractional limit (a share of a budget) is fine too.
  const r = executeDeterministic(fx('shift-ub.c'), 'unreach-call', 'ILP32', 'reach_error', 9_999.7);
  assert.equal(r.kind, 'undecided');
  assert.match(r.kind === 'undecided' ? r.reason : '', /shift exponent/);
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
