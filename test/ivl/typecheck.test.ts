import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseImp } from '../../src/ivl/parser.js';
import { checkImp, typecheckImp } from '../../src/ivl/typecheck.js';
import { TarsierError } from '../../src/common/errors.js';
import type { AssertStmt } from '../../src/ivl/ast.js';

function errors(body: string, decls = ''): string[] {
  const p = parseImp(`${decls}procedure f(p: int, c: bv32) returns (r: int) {\n${body}\n}\nprocedure h(x: int) returns (y: bv8);\n`, 't.imp');
  return typecheckImp(p).map((d) => `${d.loc.line}:${d.loc.column}: ${d.message}`);
}

test('well-typed programs have no diagnostics', () => {
  assert.deepEqual(errors('var b: bool; var m: [bv32]bv8; var y: bv8;\nb := slt(c, 0bv32) ==> r >= p;\nm[c] := trunc8(c);\n(y) := call h(r);\nr := ubv2int(zext64(y)) / 2 % 3;'), []);
});

test('type errors with positions', () => {
  assert.deepEqual(errors('r := q;'), ["2:6: unknown variable 'q'"]);
  assert.deepEqual(errors('p := 1;'), ["2:1: parameter 'p' cannot be assigned (parameters are immutable; copy it into a local)"]);
  assert.deepEqual(errors('assert c < 0bv32;'), ["2:8: '<' is not defined on bit-vectors: use the signed (slt, sle, sgt, sge) or unsigned (ult, ule, ugt, uge) comparison"]);
  assert.deepEqual(errors('assert sdiv(c, 2bv32) == c / c;'), ["2:26: '/' is not defined on bit-vectors: use sdiv (signed) or udiv (unsigned)"]);
  assert.deepEqual(errors('assert c + 1 == c;'), ["2:8: operands of '+' have different types: bv32 and int"]);
  assert.deepEqual(errors('r := true;'), ["2:6: cannot assign a bool to 'r' of type int"]);
  assert.deepEqual(errors('if (r) { skip; }'), ["2:5: the condition of 'if' must be bool, not int"]);
  assert.deepEqual(errors('(r) := call h(1);'), ["2:1: result 1 of 'h' is bv8, but 'r' is int"]);
  assert.deepEqual(errors('call h(1, 2);'), ["2:1: 'h' takes 1 argument(s), not 2", "2:1: 'h' returns 1 value(s), but 0 target(s) are given"]);
  assert.deepEqual(errors('call nope();'), ["2:1: unknown procedure 'nope'"]);
  assert.deepEqual(errors('assert trunc64(c) == trunc64(c);'), ["2:8: 'trunc64' cannot truncate a bv32 to bv64"]);
  assert.deepEqual(errors('assert zext8(c) == zext8(c);'), ["2:8: 'zext8' cannot extend a bv32 to bv8"]);
  assert.deepEqual(errors('skip;', 'var p: int;\n'), ["2:13: 'p' hides the global variable of that name"]);
});

test('old() only in postconditions and bodies; requires cannot see results', () => {
  const p = parseImp('var g: int;\nprocedure f() returns (r: int)\n  requires old(g) == 0;\n  requires r == 0;\n  ensures r == old(g);\n{ r := g; }', 't.imp');
  assert.deepEqual(typecheckImp(p).map((d) => `${d.loc.line}:${d.loc.column}: ${d.message}`), ["3:12: 'old' is not allowed here", "4:12: unknown variable 'r'"]);
});

test('checkImp throws the first error as a TarsierError', () => {
  const p = parseImp('procedure f() { assert 1; }', 'x.imp');
  assert.throws(() => checkImp(p), (e: unknown) => e instanceof TarsierError && e.format() === "x.imp:1:24: error: the condition of 'assert' must be bool, not int");
});

test('a goal the printer could not write back is a type error', () => {
  const p = parseImp('procedure main() { assert {:goal overflow 2} true; }', 'g.imp');
  assert.deepEqual(typecheckImp(p), []);
  const proc = p.procedures[0]!;
  const assertion = proc.body![0] as AssertStmt;
  const bad = (goal: { kind: string; id: number }) => ({ ...p, procedures: [{ ...proc, body: [{ ...assertion, goal }] }] });
  for (const goal of [{ kind: 'two words', id: 1 }, { kind: 'overflow', id: -1 }, { kind: 'overflow', id: 1.5 }, { kind: '-x', id: 0 }]) {
    assert.match(typecheckImp(bad(goal)).map((d) => d.message).join(), /cannot be written in IMP/, goal.kind);
  }
});
