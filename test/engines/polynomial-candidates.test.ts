import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseImp } from '../../src/ivl/parser.js';
import { printExpr } from '../../src/ivl/printer.js';
import { loopsOf } from '../../src/ivl/walk.js';
import { executeImp, evalExpr } from '../../src/ivl/interp.js';
import { polynomialCandidates } from '../../src/engines/polynomial-candidates.js';
import { kernel } from '../../src/analysis/affine.js';

test('the null space of a sample matrix is the set of relations its rows satisfy', () => {
  // Rows (1, y, y^2, x) of x = y^2 + 2: the relation 2·1 + y^2 - x = 0 (up to sign).
  const rows = [0n, 1n, 2n, 3n, 5n].map((y) => [1n, y, y * y, y * y + 2n]);
  const basis = kernel(rows, 4);
  assert.equal(basis.length, 1);
  const v = basis[0]!;
  const sign = v[3]! < 0n ? 1n : -1n;
  assert.deepEqual(v.map((c) => c * sign), [2n, 0n, 1n, -1n]);
});

test('equalities guessed from runs hold at every loop head of other runs; a linear program gets its linear relation only', () => {
  // afnp2014's loop: x - 1 is the sum 0 + 1 + … + (y - 1), so 2x = y*y - y + 2.
  const program = parseImp(
    `procedure main() { var x: bv32, y: bv32, go: bool;
       x := 1bv32; y := 0bv32; go := havoc;
       while (slt(y, 1000bv32) && go) { x := x + y; y := y + 1bv32; go := havoc; }
       assert sge(x, y); }`,
    'afnp.imp',
  );
  const loop = loopsOf(program.procedures[0]!.body!)[0]!;
  const found = polynomialCandidates()(loop, program);
  assert.ok(found.length >= 1, 'no candidate');
  assert.ok(found.some((e) => /y \* y|y\) \* y/.test(printExpr(e))), found.map(printExpr).join('; '));
  // Each holds in runs the guess did not see (other choices of `go`).
  for (const stop of [3, 17, 60]) {
    let n = 0;
    executeImp(program, 'main', {}, {
      havoc: (_name, t) => (t.kind === 'bool' ? { kind: 'bool', value: n++ < stop } : { kind: 'bv', width: 32, value: 0n }),
      onLoopHead: (_loc, state) => {
        for (const e of found) assert.deepEqual(evalExpr(e, state), { kind: 'bool', value: true }, printExpr(e));
      },
    });
  }
  const linear = parseImp(
    `procedure main() { var i: bv32, j: bv32, n: bv32;
       n := havoc; i := 0bv32; j := 5bv32;
       while (slt(i, n)) { i := i + 1bv32; j := j + 2bv32; } }`,
    'linear.imp',
  );
  const found2 = polynomialCandidates()(loopsOf(linear.procedures[0]!.body!)[0]!, linear);
  assert.equal(found2.length, 1, found2.map(printExpr).join('; '));
  assert.doesNotMatch(printExpr(found2[0]!), /[ij] \* [ij]/);
  // j == 2i + 5 at every head: 0 <= i <= 3.
  for (let i = 0n; i <= 3n; i++) {
    const state = new Map([['i', { kind: 'bv' as const, width: 32 as const, value: i }], ['j', { kind: 'bv' as const, width: 32 as const, value: 2n * i + 5n }], ['n', { kind: 'bv' as const, width: 32 as const, value: 3n }]]);
    assert.deepEqual(evalExpr(found2[0]!, state), { kind: 'bool', value: true });
    state.set('j', { kind: 'bv', width: 32, value: 2n * i + 6n });
    assert.deepEqual(evalExpr(found2[0]!, state), { kind: 'bool', value: false });
  }
});
