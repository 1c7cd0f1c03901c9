import { test } from 'node:test';
import assert from 'node:assert/strict';
import { after } from 'node:test';
import { BitVecSort, abstractExpensive, createSolver, mkApp, mkBv, mkConst, mkEq, shutdownZ3Wasm, type Term } from '../../src/smt/index.js';

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

test('the abstraction of divisions and products over-approximates: what it refutes stays refuted, a fact of the product alone is lost', async () => {
  const w = 16;
  const [x, y, z] = ['x', 'y', 'z'].map((n) => mkConst(n, BitVecSort(w)));
  assert.equal(abstractExpensive([mkEq(mkApp('bvadd', x!, y!), z!)]), undefined, 'nothing to abstract');
  // x * y == 6 with x == 2, y == 4 is false; with the product arbitrary it is satisfiable.
  const product = [mkEq(mkApp('bvmul', x!, y!), mkBv(6, w)), mkEq(x!, mkBv(2, w)), mkEq(y!, mkBv(4, w))];
  // A contradiction that does not depend on the remainder survives the abstraction.
  const contradiction = [mkEq(mkApp('bvurem', x!, y!), z!), mkApp('bvult', x!, z!), mkApp('bvult', z!, x!)];
  // A product with a constant is cheap: kept exact.
  assert.equal(abstractExpensive([mkEq(mkApp('bvmul', x!, mkBv(3, w)), z!)]), undefined);
  const s = createSolver('z3-wasm');
  try {
    const check = async (fs: Term[]) => {
      await s.push();
      for (const f of fs) await s.assert(f);
      const r = (await s.checkSat()).status;
      await s.pop();
      return r;
    };
    assert.equal(await check(product), 'unsat');
    assert.equal(await check(abstractExpensive(product)!), 'sat');
    assert.equal(await check(abstractExpensive(contradiction)!), 'unsat');
  } finally {
    await s.dispose();
  }
});
