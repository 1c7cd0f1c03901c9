// The float engines: the sampling search finds violations at the edges of
// the ranges a program's constants make; the interval proof decides
// loop-free float programs, and never claims a goal that some input
// violates (NaN and the rounding of the last bit included).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCProgram } from '../../src/c/index.js';
import { proveByIntervals, sampleViolation } from '../../src/engines/index.js';
import { lowerProgram } from '../../src/lower/index.js';
import { goalRolesOf, passesOf } from '../../src/properties/index.js';
import { parseImp } from '../../src/ivl/parser.js';

const HEADER = 'extern float __VERIFIER_nondet_float(void);\nextern double __VERIFIER_nondet_double(void);\nextern void reach_error(void);\n';

function lowered(body: string) {
  const c = parseCProgram(HEADER + `int main(void) {\n${body}\n  return 0;\n}\n`, 'f.c', { dataModel: 'LP64' });
  const l = lowerProgram(c, { passes: passesOf('unreach-call'), dataModel: 'LP64' });
  assert.equal(l.unsupported, undefined);
  return l.imp;
}

const roles = goalRolesOf('unreach-call');
const budget = (ms: number) => {
  const end = Date.now() + ms;
  return () => end - Date.now();
};

test('sampling finds a violation at the edge of a range the constants give, and its values replay in the interpreter', () => {
  const imp = lowered('float x = __VERIFIER_nondet_float();\n  if (x >= 1.0f && x <= 2.0f) { if (x * x > 3.99f) reach_error(); }');
  const s = sampleViolation(imp, { deadline: budget(5000), roles, seed: 7 });
  assert.ok(s.counterexample, `no violation in ${s.runs} runs`);
  // The nondet call's value (the other havocs are the locals' initial values).
  const havoc = s.counterexample.havocs.find((h) => h.loc.line === 5)!;
  assert.deepEqual(havoc.type, { kind: 'float', eb: 8, sb: 24 });
  // The value found (its bits) lies in [1.9975, 2]: the only inputs that violate.
  const x = new Float32Array(new Uint32Array([Number(havoc.value)]).buffer)[0]!;
  assert.ok(x >= 1.9975 && x <= 2, String(x));
});

test('sampling reports no violation for a safe program (and proves nothing)', () => {
  const imp = lowered('float x = __VERIFIER_nondet_float();\n  if (x >= 1.0f && x <= 2.0f) { if (x * x > 4.0f) reach_error(); }');
  const s = sampleViolation(imp, { deadline: budget(300), roles, seed: 7 });
  assert.equal(s.counterexample, undefined);
  assert.ok(s.runs > 0);
});

test('intervals prove a loop-free float program whose goals hold on every input', () => {
  const imp = lowered('float x = __VERIFIER_nondet_float();\n  if (x >= 0.0f && x <= 10.0f) {\n    float y = x * 0.5f + 1.0f;\n    if (!(y >= 1.0f && y <= 6.0f)) reach_error();\n  }');
  const p = proveByIntervals(imp, { deadline: budget(10000), roles });
  assert.ok(p.proved, p.reason);
});

test('intervals do not prove a goal that one input (the largest) violates', () => {
  const imp = lowered('float x = __VERIFIER_nondet_float();\n  if (x >= 0.0f && x <= 10.0f) {\n    float y = x * 0.5f + 1.0f;\n    if (y >= 6.0f) reach_error();\n  }');
  const p = proveByIntervals(imp, { deadline: budget(3000), roles });
  assert.equal(p.proved, false, p.reason);
});

test('intervals do not prove a goal that only NaN violates', () => {
  const imp = lowered('double x = __VERIFIER_nondet_double();\n  if (!(x >= 0.0 || x < 0.0)) reach_error();');
  const p = proveByIntervals(imp, { deadline: budget(3000), roles });
  assert.equal(p.proved, false, p.reason);
  // And NaN does violate it in the interpreter's semantics.
  const s = sampleViolation(imp, { deadline: budget(3000), roles, seed: 1 });
  assert.ok(s.counterexample, `no violation in ${s.runs} runs`);
});

test('intervals do not prove a goal that rounding to nearest-even reaches only in the last bit', () => {
  // 1 + 2^-24 rounds to 1 in float: x + tiny == x for x = 1, which the check misses only if rounding is ignored.
  const imp = lowered('float x = __VERIFIER_nondet_float();\n  if (x >= 1.0f && x <= 1.0f) { float y = x + 5.9604645e-8f; if (y == 1.0f) reach_error(); }');
  const p = proveByIntervals(imp, { deadline: budget(3000), roles });
  assert.equal(p.proved, false, p.reason);
  const s = sampleViolation(imp, { deadline: budget(3000), roles, seed: 1 });
  assert.ok(s.counterexample, `no violation in ${s.runs} runs`);
});

const imp = (text: string) => parseImp(text, 'p.imp');

test('intervals: an interval of zeros does not decide the identity of values (the signs are not tracked)', () => {
  // -1 * x for x in [0, 1]: -0 or a negative value; identity with -0 is not certain.
  const p = imp(`procedure main() {
  var x: fp64; var y: fp64;
  x := havoc;
  assume fp64(0x0p+0) <= x && x <= fp64(0x1p+0);
  y := fmul(RNE, fp64(-0x1p+0), x);
  assume fp64(0x0p+0) <= y;
  assert y == fp64(-0x0p+0);
}`);
  const r = proveByIntervals(p, { deadline: budget(3000), roles });
  assert.equal(r.proved, false, r.reason);
});

test('intervals: a variable assigned on one branch only keeps its whole range on the other', () => {
  const p = imp(`procedure main() {
  var c: bool; var y: fp64;
  c := havoc;
  if (c) { y := fp64(0x1p+0); }
  assert feq(y, fp64(0x1p+0));
}`);
  const r = proveByIntervals(p, { deadline: budget(3000), roles });
  assert.equal(r.proved, false, r.reason);
});

test('sampling: a violation that needs every one of 300 nondet values nonzero is found (runs with one value per type)', () => {
  const c = parseCProgram(
    'extern int __VERIFIER_nondet_int(void);\nextern void reach_error(void);\nint main(void) {\n  int n = 0;\n  for (int i = 0; i < 300; i++) if (__VERIFIER_nondet_int() != 0) n++;\n  if (n == 300) reach_error();\n  return 0;\n}\n',
    'u.c',
    { dataModel: 'LP64' },
  );
  const l = lowerProgram(c, { passes: passesOf('unreach-call'), dataModel: 'LP64' });
  const s = sampleViolation(l.imp, { deadline: budget(5000), roles, seed: 3, maxRuns: 8 });
  assert.ok(s.counterexample, `no violation in ${s.runs} runs`);
  const values = s.counterexample.havocs.filter((h) => h.loc.line === 5).map((h) => h.value);
  assert.equal(values.length, 300);
  assert.ok(values.every((v) => v !== 0n));
});
