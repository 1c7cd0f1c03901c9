// The seed's encoding, rule by rule, and the corrected encoding: exact
// transformed programs for small inputs (checked by hand against seed 003),
// plus the read-off on the two-candidate example.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseImp, printImp, checkImp } from '../../src/ivl/index.js';
import { encodeSeed } from '../../src/invariants/encoding-seed.js';
import { encodeRounds, encodeSound, roundBound } from '../../src/invariants/encoding.js';
import { LoopTable, inlineCandidates, loopTargets, FreshNames } from '../../src/invariants/program.js';
import { selectInvariants } from '../../src/invariants/select.js';

const RULES = `procedure p(a: int) returns (r: int);

procedure main(k: int)
{
  var x, y: int;
  var b: bool;
  x := 0;
  while (x < k)
    candidate x >= 0;
  {
    assume y > 0;
    assert x >= 0;
    b := havoc;
    if (b) {
      x := x + 1;
    } else {
      skip;
    }
    (y) := call p(x);
  }
}
`;
const RULES_SEED = `procedure p(a: int) returns (r: int);

procedure main(k: int)
{
  var x: int;
  var y: int;
  var b: bool;
  var b': bool;
  var x': int;
  var y': int;
  var on_L1_1: bool;
  var on_b_L1_1: bool;
  var on_a_L1_1: bool;
  var probe: bool;
  var star_L1: bool;
  b' := havoc;
  x' := havoc;
  y' := havoc;
  x := 0;
  on_L1_1 := havoc;
  on_b_L1_1 := havoc;
  on_a_L1_1 := havoc;
  assume x >= 0 <==> on_b_L1_1;
  b' := havoc;
  x' := havoc;
  y' := havoc;
  assume on_a_L1_1 ==> x' >= 0;
  assume on_b_L1_1 ==> x' >= 0;
  if (x < k) {
    assume x' < k;
    assume y' > 0;
    skip;
    b' := havoc;
    if (b') {
      x' := x' + 1;
    } else {
      skip;
    }
    (y') := call p(x');
    assume on_b_L1_1 && (on_a_L1_1 ==> x' >= 0) ==> on_L1_1;
  } else {
    assume on_b_L1_1 <==> on_L1_1;
  }
  probe := havoc;
  probe := havoc;
  if (probe) {
    assert on_L1_1;
    assume false;
  }
  star_L1 := havoc;
  b := havoc;
  x := havoc;
  y := havoc;
  assume on_L1_1 ==> x >= 0;
  if (star_L1) {
    assume x < k;
    assume y > 0;
    assert x >= 0;
    b := havoc;
    if (b) {
      x := x + 1;
    } else {
      skip;
    }
    (y) := call p(x);
    assume false;
  } else {
    assume !(x < k);
  }
}

`;
const NESTED = `procedure main()
{
  var i, j, s: int;
  i := 0;
  s := 0;
  while (i < 3)
    candidate i >= 0;
  {
    j := 0;
    while (j < i)
      candidate j <= i;
    {
      s := s + 1;
      j := j + 1;
    }
    i := i + 1;
  }
}
`;
const NESTED_SEED = `procedure main()
{
  var i: int;
  var j: int;
  var s: int;
  var i': int;
  var j': int;
  var s': int;
  var on_L1_1: bool;
  var on_b_L1_1: bool;
  var on_a_L1_1: bool;
  var on_L2_1: bool;
  var on_b_L2_1: bool;
  var on_a_L2_1: bool;
  var lc_L2: bool;
  var probe: bool;
  var star_L1: bool;
  var star_L2: bool;
  i' := havoc;
  j' := havoc;
  s' := havoc;
  i := 0;
  s := 0;
  on_L1_1 := havoc;
  on_b_L1_1 := havoc;
  on_a_L1_1 := havoc;
  on_L2_1 := havoc;
  on_b_L2_1 := havoc;
  on_a_L2_1 := havoc;
  assume i >= 0 <==> on_b_L1_1;
  i' := havoc;
  j' := havoc;
  s' := havoc;
  assume on_a_L1_1 ==> i' >= 0;
  assume on_b_L1_1 ==> i' >= 0;
  if (i < 3) {
    assume i' < 3;
    j' := 0;
    assume j' <= i' <==> on_b_L2_1;
    lc_L2 := havoc;
    assume j' < i' <==> lc_L2;
    j' := havoc;
    s' := havoc;
    assume on_a_L2_1 ==> j' <= i';
    assume on_b_L2_1 ==> j' <= i';
    if (lc_L2) {
      assume j' < i';
      s' := s' + 1;
      j' := j' + 1;
      assume on_b_L2_1 && (on_a_L2_1 ==> j' <= i') ==> on_L2_1;
    } else {
      assume on_b_L2_1 <==> on_L2_1;
    }
    assume !(j' < i');
    i' := i' + 1;
    assume on_b_L1_1 && (on_a_L1_1 ==> i' >= 0) ==> on_L1_1;
  } else {
    assume on_b_L1_1 <==> on_L1_1;
  }
  probe := havoc;
  probe := havoc;
  if (probe) {
    assert on_L1_1;
    assume false;
  }
  probe := havoc;
  if (probe) {
    assert on_L2_1;
    assume false;
  }
  star_L1 := havoc;
  i := havoc;
  j := havoc;
  s := havoc;
  assume on_L1_1 ==> i >= 0;
  if (star_L1) {
    assume i < 3;
    j := 0;
    star_L2 := havoc;
    j := havoc;
    s := havoc;
    assume on_L2_1 ==> j <= i;
    if (star_L2) {
      assume j < i;
      s := s + 1;
      j := j + 1;
      assume false;
    } else {
      assume !(j < i);
    }
    i := i + 1;
    assume false;
  } else {
    assume !(i < 3);
  }
}

`;
const NESTED_SOUND = `procedure main()
{
  var i: int;
  var j: int;
  var s: int;
  var i': int;
  var j': int;
  var s': int;
  var on_L1_1: bool;
  var on_L2_1: bool;
  var entry_L2: bool;
  var probe: bool;
  var star_L1: bool;
  var star_L2: bool;
  i' := havoc;
  j' := havoc;
  s' := havoc;
  i := 0;
  s := 0;
  on_L1_1 := havoc;
  on_L2_1 := havoc;
  if (!on_L1_1 && i >= 0) {
    assume i < 3;
    i' := havoc;
    j' := havoc;
    s' := havoc;
    assume i' < 3 && i' >= 0;
    j' := 0;
    j' := havoc;
    s' := havoc;
    assume on_L2_1 ==> j' <= i';
    assume !(j' < i');
    i' := i' + 1;
    assume !(i' >= 0);
  }
  if (!on_L2_1) {
    entry_L2 := havoc;
    if (entry_L2) {
      i' := havoc;
      j' := havoc;
      s' := havoc;
      assume i' < 3 && (on_L1_1 ==> i' >= 0);
      j' := 0;
      assume !(j' <= i');
    } else {
      i' := havoc;
      j' := havoc;
      s' := havoc;
      assume j' < i' && j' <= i';
      s' := s' + 1;
      j' := j' + 1;
      assume !(j' <= i');
    }
  }
  probe := havoc;
  probe := havoc;
  if (probe) {
    assert on_L1_1;
    assume false;
  }
  probe := havoc;
  if (probe) {
    assert on_L2_1;
    assume false;
  }
  star_L1 := havoc;
  i := havoc;
  j := havoc;
  s := havoc;
  assume on_L1_1 ==> i >= 0;
  if (star_L1) {
    assume i < 3;
    j := 0;
    star_L2 := havoc;
    j := havoc;
    s := havoc;
    assume on_L2_1 ==> j <= i;
    if (star_L2) {
      assume j < i;
      s := s + 1;
      j := j + 1;
      assume false;
    } else {
      assume !(j < i);
    }
    i := i + 1;
    assume false;
  } else {
    assume !(i < 3);
  }
}

`;
export const EXAMPLE = `procedure main()
{
  var x, y, n: int;
  x := 0;
  y := 0;
  n := havoc;
  assume n >= 2;
  while (n > 0)
    candidate x == 0;
    candidate y == 0;
  {
    y := y + x;
    x := x + 1;
    n := n - 1;
  }
  assert y == 0;
}
`;

function enc(text: string, which: 'seed' | 'lfp' | 'rounds1'): string {
  const p = parseImp(text, 't.imp');
  const cands = inlineCandidates(new LoopTable(p));
  const e = which === 'seed' ? encodeSeed(p, cands) : which === 'lfp' ? encodeSound(p, cands) : encodeRounds(p, cands, 1);
  const out = printImp(e.program);
  // The transformed program is ordinary IMP: it parses and type-checks.
  checkImp(parseImp(out, 'out.imp'));
  return out;
}

test('seed: every statement rule inside and outside a loop (2.1-2.10) on one program', () => {
  assert.equal(enc(RULES, 'seed'), RULES_SEED.trimEnd() + '\n');
});

test('seed 2.1: duplicates M(locals) are declared with their types and havocked first', () => {
  const out = enc(RULES, 'seed').split('\n');
  assert.ok(out.includes("  var b': bool;") && out.includes("  var x': int;") && out.includes("  var y': int;"));
  const body = out.indexOf("  b' := havoc;");
  assert.ok(body >= 0 && body < out.indexOf('  x := 0;'));
});

test('seed 2.6/2.8/2.7/2.5/2.4/2.9 in a simulated iteration: renamed, assert dropped', () => {
  const out = enc(RULES, 'seed');
  const sim = out.slice(out.indexOf('  if (x < k) {'), out.indexOf('\n  } else {'));
  assert.match(sim, /assume y' > 0;\n    skip;\n    b' := havoc;\n    if \(b'\) {\n      x' := x' \+ 1;/);
  assert.match(sim, /\(y'\) := call p\(x'\);/);
  assert.doesNotMatch(sim, /assert/);
});

test('seed 2.10: the actual loop keeps asserts ([[.]]_NL is the identity) and ends in assume false', () => {
  const out = enc(RULES, 'seed');
  const actual = out.slice(out.indexOf('  if (star_L1) {'));
  assert.match(actual, /assume x < k;\n    assume y > 0;\n    assert x >= 0;/);
  assert.match(actual, /assume false;\n  } else {\n    assume !\(x < k\);/);
});

test('seed choice 3: the else branch of the outer loop sets on_i from on_b_i', () => {
  assert.match(enc(RULES, 'seed'), /} else {\n    assume on_b_L1_1 <==> on_L1_1;\n  }/);
});

test('seed: nested loops ([[while]]_IL with lc_id, flags of nested ids declared by the outer loop)', () => {
  assert.equal(enc(NESTED, 'seed'), NESTED_SEED.trimEnd() + '\n');
});

test('corrected encoding (least fixpoint): per-candidate refutations on duplicates, nested entry and iteration', () => {
  assert.equal(enc(NESTED, 'lfp'), NESTED_SOUND.trimEnd() + '\n');
});

const EXAMPLE_ROUNDS1 = `procedure main()
{
  var x: int;
  var y: int;
  var n: int;
  var n': int;
  var x': int;
  var y': int;
  var star_L1: bool;
  var on_L1_1_r1: bool;
  var on_L1_2_r1: bool;
  var entry_L1: bool;
  var on_L1_1_r2: bool;
  var on_L1_2_r2: bool;
  var probe: bool;
  n' := havoc;
  x' := havoc;
  y' := havoc;
  on_L1_1_r1 := havoc;
  on_L1_2_r1 := havoc;
  if (!on_L1_1_r1) {
    n' := havoc;
    x' := havoc;
    y' := havoc;
    x' := 0;
    y' := 0;
    n' := havoc;
    assume n' >= 2;
    entry_L1 := havoc;
    if (entry_L1) {
      assume !(x' == 0);
    } else {
      n' := havoc;
      x' := havoc;
      y' := havoc;
      assume n' > 0 && x' == 0 && y' == 0;
      y' := y' + x';
      x' := x' + 1;
      n' := n' - 1;
      assume !(x' == 0);
    }
  }
  if (!on_L1_2_r1) {
    n' := havoc;
    x' := havoc;
    y' := havoc;
    x' := 0;
    y' := 0;
    n' := havoc;
    assume n' >= 2;
    entry_L1 := havoc;
    if (entry_L1) {
      assume !(y' == 0);
    } else {
      n' := havoc;
      x' := havoc;
      y' := havoc;
      assume n' > 0 && x' == 0 && y' == 0;
      y' := y' + x';
      x' := x' + 1;
      n' := n' - 1;
      assume !(y' == 0);
    }
  }
  on_L1_1_r2 := havoc;
  on_L1_2_r2 := havoc;
  assume on_L1_1_r2 ==> on_L1_1_r1;
  if (on_L1_1_r1 && !on_L1_1_r2) {
    n' := havoc;
    x' := havoc;
    y' := havoc;
    x' := 0;
    y' := 0;
    n' := havoc;
    assume n' >= 2;
    entry_L1 := havoc;
    if (entry_L1) {
      assume !(x' == 0);
    } else {
      n' := havoc;
      x' := havoc;
      y' := havoc;
      assume n' > 0 && (on_L1_1_r1 ==> x' == 0) && (on_L1_2_r1 ==> y' == 0);
      y' := y' + x';
      x' := x' + 1;
      n' := n' - 1;
      assume !(x' == 0);
    }
  }
  assume on_L1_2_r2 ==> on_L1_2_r1;
  if (on_L1_2_r1 && !on_L1_2_r2) {
    n' := havoc;
    x' := havoc;
    y' := havoc;
    x' := 0;
    y' := 0;
    n' := havoc;
    assume n' >= 2;
    entry_L1 := havoc;
    if (entry_L1) {
      assume !(y' == 0);
    } else {
      n' := havoc;
      x' := havoc;
      y' := havoc;
      assume n' > 0 && (on_L1_1_r1 ==> x' == 0) && (on_L1_2_r1 ==> y' == 0);
      y' := y' + x';
      x' := x' + 1;
      n' := n' - 1;
      assume !(y' == 0);
    }
  }
  probe := havoc;
  probe := havoc;
  if (probe) {
    assert on_L1_1_r1;
    assume false;
  }
  probe := havoc;
  if (probe) {
    assert on_L1_1_r2;
    assume false;
  }
  probe := havoc;
  if (probe) {
    assert on_L1_2_r1;
    assume false;
  }
  probe := havoc;
  if (probe) {
    assert on_L1_2_r2;
    assume false;
  }
  x := 0;
  y := 0;
  n := havoc;
  assume n >= 2;
  star_L1 := havoc;
  n := havoc;
  x := havoc;
  y := havoc;
  assume on_L1_1_r1 ==> x == 0;
  assume on_L1_2_r1 ==> y == 0;
  if (star_L1) {
    assume n > 0;
    y := y + x;
    x := x + 1;
    n := n - 1;
    assume false;
  } else {
    assume !(n > 0);
  }
  assert y == 0;
}
`;

test('rounds encoding (Houdini precision): round r refutes only under round r-1 flags, on duplicates of all variables', () => {
  assert.equal(enc(EXAMPLE, 'rounds1'), EXAMPLE_ROUNDS1);
  const p = parseImp(NESTED, 't.imp');
  assert.equal(roundBound(p, inlineCandidates(new LoopTable(p))), 2);
});

test('T(loop) and fresh names', () => {
  const p = parseImp(NESTED, 't.imp');
  const t = new LoopTable(p);
  assert.deepEqual(t.loops.map((l) => [l.id, l.parent, l.nested, l.targets]), [
    [1, undefined, [2], ['i', 'j', 's']],
    [2, 1, [], ['j', 's']],
  ]);
  assert.deepEqual(loopTargets(p, t.get(2).loop.body), ['j', 's']);
  const q = parseImp("procedure main() { var x, x', on_L1_1: int; x := 0; }", 'n.imp');
  const f = new FreshNames(q);
  assert.equal(f.fresh("x'"), "x'_1");
  assert.equal(f.fresh('on_L1_1'), 'on_L1_1_1');
  assert.equal(f.fresh('while'), 'while_1');
});

test('the issue example: the seed selects y == 0 (not invariant); Houdini and the corrected encoding do not', async () => {
  const p = parseImp(EXAMPLE, 'ex.imp');
  const cands = inlineCandidates(new LoopTable(p));
  const status = async (method: 'houdini' | 'encoding' | 'encoding-seed') =>
    (await selectInvariants(p, cands, { method })).verdicts.map((v) => v.status);
  assert.deepEqual(await status('encoding-seed'), ['rejected', 'selected']);
  assert.deepEqual(await status('encoding'), ['rejected', 'rejected']);
  const h = await selectInvariants(p, cands, { method: 'houdini' });
  assert.deepEqual(h.verdicts.map((v) => [v.status, v.reason]), [
    ['rejected', 'not preserved'],
    ['rejected', 'not preserved'],
  ]);
  // x == 0 falls in round 1 (x goes 0 -> 1); y == 0 in round 2 once x == 0 is gone.
  assert.equal(h.verdicts[0].counterexample?.before?.x, '0');
  assert.equal(h.verdicts[0].counterexample?.after?.x, '1');
  assert.equal(h.selectionCalls, 2);
  assert.equal(h.proved, false);
  // `assert y == 0` is false (y == 1 after two iterations): vc/ finds it with the loop unrolled.
  assert.equal(h.verification?.verdict, 'FALSE');
});
