import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseImp, parseImpExpr } from '../../src/ivl/index.js';
import { executeImp } from '../../src/ivl/interp.js';
import { bmc } from '../../src/engines/index.js';
import { rng } from '../../src/common/random.js';

const VARS = ['x', 'y', 'n'];

function atom(r: () => number): string {
  return r() < 0.5 ? VARS[Math.floor(r() * VARS.length)]! : `${Math.floor(r() * 40)}bv8`;
}

/** A random comparison of two variables or a variable and a constant (8-bit, signed or unsigned). */
function comparison(r: () => number): string {
  const op = ['sle', 'slt', 'ule', 'ult'][Math.floor(r() * 4)]!;
  return r() < 0.2 ? `${VARS[Math.floor(r() * 3)]} == ${atom(r)}` : `${op}(${VARS[Math.floor(r() * 3)]}, ${atom(r)})`;
}

/**
 * A loop left in its middle by a flag (`while (1) { A; if (c) break; B }`),
 * so that the state leaving it differs from every state that starts an
 * iteration, with assertions inside it and after it.
 */
function program(r: () => number): string {
  const update = () => `${VARS[Math.floor(r() * 2)]} := ${VARS[Math.floor(r() * 3)]} ${r() < 0.7 ? '+' : '-'} ${1 + Math.floor(r() * 3)}bv8;`;
  return `procedure main() { var x: bv8, y: bv8, n: bv8, go: bool;
    n := havoc; x := ${Math.floor(r() * 4)}bv8; y := ${Math.floor(r() * 4)}bv8; go := true;
    while (go) {
      ${update()}
      if (${comparison(r)}) { go := false; } else { ${update()} assert ${comparison(r)}; }
    }
    assert ${comparison(r)}; }`;
}

test('candidates claimed where the loop runs on never prove a program some run shows unsafe (random 8-bit loops left by a flag)', async () => {
  let unsafe = 0;
  let proved = 0;
  for (let seed = 1; seed <= 40; seed++) {
    const r = rng(seed);
    const text = program(r);
    const cands = Array.from({ length: 6 }, () => comparison(r));
    const p = parseImp(text, `flag-${seed}.imp`);
    let failed = false;
    for (let n = 0n; n < 256n && !failed; n++) {
      const run = executeImp(p, 'main', {}, { havoc: () => ({ kind: 'bv', width: 8, value: n }), maxSteps: 20_000 });
      failed = run.status === 'assertion-failed';
    }
    const result = await bmc(p, { deadline: Date.now() + 10_000, maxBound: 2, loopCandidates: () => cands.map((c) => parseImpExpr(c, 'cand')) });
    if (failed) {
      unsafe++;
      assert.notEqual(result.verdict, 'true', `seed ${seed} proved, but a run fails:\n${text}\ncandidates: ${cands.join(', ')}`);
    } else if (result.verdict === 'true') proved++;
  }
  // Both kinds occur: the test is not vacuous.
  assert.ok(unsafe > 0 && proved > 0, `unsafe ${unsafe}, proved ${proved}`);
});
