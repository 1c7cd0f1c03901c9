import { test } from 'node:test';
import assert from 'node:assert/strict';
import { after } from 'node:test';
import { BitVecSort, createSolver, mkApp, mkBv, mkConst, mkEq, shutdownZ3Wasm, type Term } from '../../src/smt/index.js';

after(() => shutdownZ3Wasm());

test('a bit-vector operation with a neutral or absorbing constant simplifies to what folding the constants gives', () => {
  const w = 8;
  const x = mkConst('x', BitVecSort(w));
  const ops = ['bvadd', 'bvsub', 'bvmul', 'bvand', 'bvor', 'bvxor', 'bvshl', 'bvlshr', 'bvashr', 'bvudiv', 'bvurem', 'bvsdiv', 'bvsrem'];
  let simplified = 0;
  for (const op of ops) {
    for (const c of [0n, 1n, 255n]) {
      for (const constantFirst of [false, true]) {
        const sym = constantFirst ? mkApp(op, mkBv(c, w), x) : mkApp(op, x, mkBv(c, w));
        if (sym.op === op) continue; // left to the solver
        simplified++;
        for (const v of [0n, 1n, 2n, 7n, 128n, 200n, 255n]) {
          const concrete = constantFirst ? mkApp(op, mkBv(c, w), mkBv(v, w)) : mkApp(op, mkBv(v, w), mkBv(c, w));
          const value = (t: Term) => (t === x ? v : t.value);
          assert.equal(value(sym), concrete.value, `${op} with ${constantFirst ? `${c} first` : `${c} second`} at x = ${v}`);
        }
      }
    }
  }
  // x * 0, x + 0, x / 1 and the like: some identities must apply.
  assert.ok(simplified >= 15, `${simplified}`);
});
