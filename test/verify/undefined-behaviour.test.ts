// Behaviour C leaves undefined never makes a path disappear (issue 25,
// docs/soundness.md): where the property has no goal for it, it is a place
// where the model is not exact, and reaching it makes TRUE impossible.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { repoRoot, sharedPath, skipWithoutShared } from '../helpers/shared.js';
import { needTools } from '../helpers/tools.js';
import { verify } from '../../src/verify/index.js';

const noGcc = needTools('gcc -m32', 'gcc -fsanitize');
const fx = (dir: string, name: string) => join(repoRoot, 'test', 'fixtures', dir, name);
const verdictOf = (r: Awaited<ReturnType<typeof verify>>) => (r.verdict.kind === 'false' ? `false(${r.verdict.property})` : r.verdict.kind);
const run = (file: string, property: string) => verify(file, { property, timeoutS: 10, witnessPath: null });

test('a VLA of size 0 goes on as an object of no elements: a write into it is FALSE(valid-deref), never TRUE', { skip: noGcc }, async () => {
  const mem = await run(fx('execution', 'vla-zero.c'), 'valid-memsafety');
  assert.equal(verdictOf(mem), 'false(valid-deref)', mem.reason);
  for (const property of ['unreach-call', 'no-overflow']) {
    const r = await run(fx('execution', 'vla-zero.c'), property);
    assert.notEqual(r.verdict.kind, 'true', `${property}: ${r.reason}`);
    if (r.verdict.kind === 'unknown') assert.match(r.reason, /variable-length array of size 0 or less \(undefined behaviour\)/, property);
  }
  // With a nondet size the path n == 0 goes on to reach_error, which gcc's run calls.
  const nondet = await run(fx('undefined', 'vla-nondet-zero.c'), 'unreach-call');
  assert.equal(verdictOf(nondet), 'false(unreach-call)', nondet.reason);
});

test('ldv-memsafety/ArraysOfVariableLength2: FALSE or UNKNOWN, never TRUE', { skip: skipWithoutShared || noGcc }, async () => {
  const r = await verify(sharedPath('bench', 'sv-benchmarks', 'c', 'ldv-memsafety', 'ArraysOfVariableLength2_-write.yml'), { timeoutS: 20, witnessPath: null });
  assert.ok(['false(valid-deref)', 'unknown'].includes(verdictOf(r)), r.reason);
});

test('a shift by the width and a division by zero on the path to reach_error: never TRUE; safe divisions: TRUE', { skip: noGcc }, async () => {
  for (const name of ['shift-by-width.c', 'division-by-zero.c']) {
    const r = await run(fx('undefined', name), 'unreach-call');
    assert.notEqual(r.verdict.kind, 'true', `${name}: ${r.reason}`);
    if (r.verdict.kind === 'unknown') assert.match(r.reason, /undefined behaviour/, name);
  }
  const safe = await run(fx('undefined', 'division-safe.c'), 'unreach-call');
  assert.equal(safe.verdict.kind, 'true', safe.reason);
});

test('an undefined __VERIFIER_assert with a false condition does not end the path under unreach-call: never TRUE', async () => {
  const r = await run(fx('undefined', 'verifier-assert-undefined.c'), 'unreach-call');
  assert.notEqual(r.verdict.kind, 'true', r.reason);
});

test('termination: a division by zero before a loop makes neither a ranking function nor a complete unrolling a proof; a safe divisor is proved', async () => {
  const r = await run(fx('undefined', 'termination-division.c'), 'termination');
  assert.notEqual(r.verdict.kind, 'true', r.reason);
  const safe = await run(fx('undefined', 'termination-division-safe.c'), 'termination');
  assert.equal(safe.verdict.kind, 'true', safe.reason);
});
