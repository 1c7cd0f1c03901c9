import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseImp } from '../../src/ivl/parser.js';
import type { ImpType, WhileStmt } from '../../src/ivl/ast.js';
import { loopsOf } from '../../src/ivl/walk.js';
import { loopRelation } from '../../src/analysis/loop-relation.js';

/** A loop whose body tests `flags` flags one after the other (2^flags paths), as ControlFlow's locks programs do. */
function loopWithFlags(flags: number): { loop: WhileStmt; types: Map<string, ImpType> } {
  const names = Array.from({ length: flags }, (_, k) => `p${k}`);
  const text = `procedure main() {
  var c: bv32; var ${names.join(', ')}: bv32;
  while (c != 0bv32) {
    ${names.map((p) => `if (${p} != 0bv32) { ${p} := ${p} + 1bv32; } else { }`).join('\n    ')}
    c := c - 1bv32;
  }
}`;
  const proc = parseImp(text, 'flags.imp').procedures[0]!;
  const types = new Map<string, ImpType>(proc.locals.map((d) => [d.name, d.type]));
  return { loop: loopsOf(proc.body!)[0] as WhileStmt, types };
}

test('a loop body with few paths gives one constraint system per path', () => {
  const { loop, types } = loopWithFlags(3);
  const rel = loopRelation(loop, types);
  assert.ok(!('error' in rel));
  // Over the integers `x != 0` is `x < 0 or x > 0`: the loop's condition
  // two ways, each flag three (negative, positive, zero).
  assert.equal(rel.paths.length, 2 * 3 ** 3);
});

test('paths that multiply along a sequence of ifs stop at the limit instead of exploding', () => {
  // 2^22 paths: before the limit was checked after each if, this ran out of memory.
  const { loop, types } = loopWithFlags(22);
  const rel = loopRelation(loop, types, 256);
  assert.ok('error' in rel);
  assert.match(rel.error, /more than 256 paths/);
});

test('asserts lowered as `t := (if c then 1 else 0); if (t == 0) { assume false; }` add no paths', () => {
  // Nine asserts, as in loop-invgen/heapsort: when `t != 0` split into
  // `t < 0` and `t > 0` on a t of unknown value, they made 2^9 paths.
  const asserts = Array.from({ length: 9 }, (_, k) => `t${k} := (if sle(${k}bv32, j) then 1bv32 else 0bv32); if (t${k} == 0bv32) { assume false; } else { }`);
  const text = `procedure main() {
  var j, r: bv32; var ${asserts.map((_, k) => `t${k}`).join(', ')}: bv32;
  while (sle(j, r)) {
    ${asserts.join('\n    ')}
    j := j + 1bv32;
  }
}`;
  const proc = parseImp(text, 'asserts.imp').procedures[0]!;
  const types = new Map<string, ImpType>(proc.locals.map((d) => [d.name, d.type]));
  const rel = loopRelation(loopsOf(proc.body!)[0] as WhileStmt, types, 256);
  assert.ok(!('error' in rel), 'error' in rel ? rel.error : '');
  // One path: every assert holds (the paths where one fails end in `assume false`).
  assert.equal(rel.paths.length, 1);
  // Its constraints say that each assert's condition held: k <= j, i.e. k - j <= 0, for k = 0..8.
  const heldAsserts = rel.paths[0]!.filter((c) => c.kind === 'le' && c.expr.coeffs.size === 1 && [...c.expr.coeffs.values()][0] === -1n);
  assert.deepEqual([...new Set(heldAsserts.map((c) => c.expr.constant))].sort((x, y) => Number(x - y)), [0n, 1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n]);
});
