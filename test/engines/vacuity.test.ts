import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { parseImp } from '../../src/ivl/index.js';
import { vacuityOf } from '../../src/engines/index.js';
import { repoRoot } from '../helpers/shared.js';
import { needTools } from '../helpers/tools.js';
import { verify } from '../../src/verify/index.js';

const vacuous = (body: string, ends: number[] = []) =>
  vacuityOf(parseImp(`procedure main() {\n  var x: bv32, i: bv32;\n${body}\n}\n`, 'p.imp'), {
    bound: 4,
    endsRun: (s) => ends.includes(s.loc.line),
    deadline: () => 60_000,
    solver: 'z3-wasm',
  });

test('vacuity: a program whose every path is cut before a goal or its end admits no execution', async () => {
  // Line 3 is the first statement of the body.
  assert.match((await vacuous('  x := havoc;\n  assume false;\n  assert x == 0bv32;')) ?? '', /admits no execution.*bound 4\b/);
  assert.match((await vacuous('  x := havoc;\n  if (slt(x, 0bv32)) { assume false; } else { assume false; }')) ?? '', /admits no execution/);
  // After a loop that ends within the bound.
  assert.match((await vacuous('  i := 0bv32;\n  while (ult(i, 2bv32)) { i := i + 1bv32; }\n  assume false;')) ?? '', /admits no execution/);
});

test('vacuity: an execution that reaches a goal, the end, a place where C ends the run, or runs past the bound is enough', async () => {
  assert.equal(await vacuous('  x := havoc;\n  assume x != 0bv32;'), undefined);
  assert.equal(await vacuous('  x := havoc;\n  if (x == 0bv32) { assume false; }\n  assert x != 0bv32;'), undefined);
  // assume false at line 4 is where C ends the run (abort, a false __VERIFIER_assume).
  assert.equal(await vacuous('  x := havoc;\n  assume false;', [4]), undefined);
  // A loop that never ends: executions run on past the bound.
  assert.equal(await vacuous('  i := 0bv32;\n  while (true) { i := i + 1bv32; }'), undefined);
});

const noGcc = needTools('gcc -m32');
const fx = (name: string) => join(repoRoot, 'test', 'fixtures', 'vacuity', name);

test('verify: a VLA below size 1 on every path no longer empties the model (FALSE as gcc runs it); a false __VERIFIER_assume is still TRUE', { skip: noGcc }, async () => {
  // These were vacuous TRUEs when the model cut the path at the VLA; now it goes on, and the guard has nothing to catch.
  for (const name of ['vla-never-positive.c', 'loop-then-vla.c']) {
    const r = await verify(fx(name), { property: 'unreach-call', timeoutS: 30, witnessPath: null });
    assert.notEqual(r.verdict.kind, 'true', `${name}: ${r.reason}`);
    assert.doesNotMatch(r.reason, /admits no execution/, name);
  }
  const ok = await verify(fx('assume-false.c'), { property: 'unreach-call', timeoutS: 30, witnessPath: null });
  assert.equal(ok.verdict.kind, 'true', ok.reason);
});
