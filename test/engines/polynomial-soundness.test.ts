import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseImp } from '../../src/ivl/parser.js';
import { executeImp } from '../../src/ivl/interp.js';
import { bmc } from '../../src/engines/index.js';
import { rng } from '../../src/common/random.js';

/** A random polynomial over x and y (8-bit), as IMP text. */
function polynomial(r: () => number, depth: number): string {
  if (depth === 0 || r() < 0.3) return r() < 0.4 ? `${Math.floor(r() * 8)}bv8` : r() < 0.5 ? 'x' : 'y';
  const op = r() < 0.4 ? '*' : r() < 0.7 ? '+' : '-';
  return `(${polynomial(r, depth - 1)} ${op} ${polynomial(r, depth - 1)})`;
}

/**
 * A loop that asserts p at its top, is left by a flag, and updates x and y;
 * the same assertion after it. Three kinds: random updates and p (mostly
 * unsafe), p an identity (safe), and Gauss's sum (2x = y*y - y, an
 * invariant unless x starts off it).
 */
function program(seed: number): string {
  const r = rng(seed);
  const kind = r();
  let p: string;
  let update: string;
  let start: string;
  if (kind < 0.4) {
    p = `(${polynomial(r, 2)}) - (${polynomial(r, 2)})`;
    update = `x := x + ${polynomial(r, 2)}; y := y + ${polynomial(r, 2)};`;
    start = `x := ${Math.floor(r() * 5)}bv8; y := ${Math.floor(r() * 5)}bv8;`;
  } else if (kind < 0.6) {
    p = `(x * y - y * x) + (${polynomial(r, 1)}) * 0bv8`;
    update = `x := x + ${polynomial(r, 2)}; y := y + ${polynomial(r, 2)};`;
    start = `x := ${Math.floor(r() * 5)}bv8; y := ${Math.floor(r() * 5)}bv8;`;
  } else {
    p = '2bv8 * x - y * y + y';
    update = 'x := x + y; y := y + 1bv8;';
    start = `x := ${r() < 0.5 ? 0 : Math.floor(r() * 3)}bv8; y := 0bv8;`;
  }
  return `procedure main() { var x: bv8, y: bv8, i: bv8, n: bv8, go: bool;
    n := havoc; ${start} i := 0bv8; go := true;
    while (go) {
      assert ${p} == 0bv8;
      if (!ult(i, n)) { go := false; } else { i := i + 1bv8; ${update} }
    }
    assert ${p} == 0bv8; }`;
}

test('k-induction with the polynomial normal form never proves a program some run shows unsafe (random 8-bit polynomial loops)', async () => {
  let unsafe = 0;
  let proved = 0;
  for (let seed = 1; seed <= 30; seed++) {
    const text = program(seed);
    const p = parseImp(text, `poly-${seed}.imp`);
    let failed = false;
    for (let n = 0n; n < 256n && !failed; n++) {
      const run = executeImp(p, 'main', {}, { havoc: () => ({ kind: 'bv', width: 8, value: n }) });
      failed = run.status === 'assertion-failed';
    }
    const r = await bmc(p, { deadline: Date.now() + 20_000, maxBound: 4 });
    if (failed) {
      unsafe++;
      assert.notEqual(r.verdict, 'true', `seed ${seed} proved, but a run fails:\n${text}`);
    } else if (r.verdict === 'true') proved++;
  }
  // Both kinds occur: the test is not vacuous.
  assert.ok(unsafe > 0 && proved > 0, `unsafe ${unsafe}, proved ${proved}`);
});
