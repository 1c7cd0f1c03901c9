// The interpreter and the SMT translation must give every operator the same
// meaning: random closed expressions are evaluated concretely, and the
// verifier must prove `e == value` for each.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import type { BvWidth, Expr } from '../../src/ivl/ast.js';
import { evalExpr, valueKey, type ImpValue } from '../../src/ivl/interp.js';
import { parseImp } from '../../src/ivl/parser.js';
import { printExpr } from '../../src/ivl/printer.js';
import { verifyImp } from '../../src/vc/verify.js';
import { shutdownZ3Wasm } from '../../src/smt/index.js';

after(() => shutdownZ3Wasm());

const loc = { file: 'gen', line: 0, column: 0, offset: -1 };

function rng(seed: number) {
  let s = seed >>> 0;
  return (n: number) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s % n;
  };
}

function literal(v: ImpValue): Expr {
  if (v.kind === 'int') {
    const lit: Expr = { kind: 'int_lit', value: v.value < 0n ? -v.value : v.value, loc };
    return v.value < 0n ? { kind: 'unary', op: '-', arg: lit, loc } : lit;
  }
  if (v.kind === 'bv') return { kind: 'bv_lit', value: v.value, width: v.width, loc };
  if (v.kind === 'bool') return { kind: 'bool_lit', value: v.value, loc };
  throw new Error('unexpected value');
}

function genInt(r: (n: number) => number, depth: number): Expr {
  if (depth === 0 || r(4) === 0) {
    const n = BigInt(r(41)) - 20n;
    return literal({ kind: 'int', value: n });
  }
  const ops = ['+', '-', '*', '/', '%'] as const;
  const op = ops[r(ops.length)];
  let right = genInt(r, depth - 1);
  if (op === '/' || op === '%') right = { kind: 'int_lit', value: BigInt(r(9) + 1), loc }; // never zero
  if ((op === '/' || op === '%') && r(2) === 0) right = { kind: 'unary', op: '-', arg: right, loc };
  return { kind: 'binary', op, left: genInt(r, depth - 1), right, loc };
}

function genBv(r: (n: number) => number, w: BvWidth, depth: number): Expr {
  if (depth === 0 || r(4) === 0) {
    const choices = [0n, 1n, 2n, 7n, (1n << BigInt(w - 1)) - 1n, 1n << BigInt(w - 1), (1n << BigInt(w)) - 1n, (1n << BigInt(w)) - 7n, BigInt(r(1000))];
    return { kind: 'bv_lit', value: choices[r(choices.length)] % (1n << BigInt(w)), width: w, loc };
  }
  const a = genBv(r, w, depth - 1);
  const b = genBv(r, w, depth - 1);
  switch (r(12)) {
    case 0:
      return { kind: 'binary', op: '+', left: a, right: b, loc };
    case 1:
      return { kind: 'binary', op: '-', left: a, right: b, loc };
    case 2:
      return { kind: 'binary', op: '*', left: a, right: b, loc };
    case 3:
      return { kind: 'binary', op: r(2) ? '&' : '|', left: a, right: b, loc };
    case 4:
      return { kind: 'unary', op: r(2) ? '-' : '~', arg: a, loc };
    case 5:
      return { kind: 'app', fn: (['sdiv', 'udiv', 'srem', 'urem'] as const)[r(4)], args: [a, b], loc };
    case 6: {
      const amount: Expr = { kind: 'bv_lit', value: BigInt(r(w + 2)), width: w, loc };
      return r(3) === 0 ? { kind: 'binary', op: '<<', left: a, right: amount, loc } : { kind: 'app', fn: r(2) ? 'ashr' : 'lshr', args: [a, amount], loc };
    }
    case 7: {
      // Through another width and back.
      const other = ([8, 16, 32, 64] as const)[r(4)];
      if (other > w) return { kind: 'app', fn: `trunc${w}`, args: [{ kind: 'app', fn: r(2) ? `zext${other}` : `sext${other}`, args: [a], loc }], loc };
      return { kind: 'app', fn: r(2) ? `zext${w}` : `sext${w}`, args: [{ kind: 'app', fn: `trunc${other}`, args: [a], loc }], loc };
    }
    case 8:
      return { kind: 'ite', cond: { kind: 'app', fn: (['slt', 'ult', 'sge', 'uge'] as const)[r(4)], args: [a, b], loc }, then: a, else: b, loc };
    case 9:
      return { kind: 'app', fn: `int2bv${w}`, args: [{ kind: 'app', fn: r(2) ? 'sbv2int' : 'ubv2int', args: [a], loc }], loc };
    default:
      return { kind: 'binary', op: '^', left: a, right: b, loc };
  }
}

test('interpreter and SMT encoding agree on random int and bit-vector expressions', async () => {
  const r = rng(20261121);
  const asserts: string[] = [];
  for (let k = 0; k < 60; k++) {
    const e = genInt(r, 4);
    asserts.push(`${printExpr(e)} == ${printExpr(literal(evalExpr(e, new Map())))}`);
  }
  for (const w of [8, 16, 32, 64] as const) {
    for (let k = 0; k < 35; k++) {
      const e = genBv(r, w, 3);
      asserts.push(`${printExpr(e)} == ${printExpr(literal(evalExpr(e, new Map())))}`);
    }
  }
  // Each in its own procedure, so that one disagreement cannot hide others.
  const text = asserts.map((a, k) => `procedure p${k}() { assert ${a}; }`).join('\n');
  const res = await verifyImp(parseImp(text, 'random.imp'), { timeoutMs: 20_000 });
  const bad = res.goals.filter((g) => g.status !== 'proved').map((g) => `${g.status}: ${g.text}`);
  assert.deepEqual(bad, []);
  assert.equal(res.goals.length, 200);
  // The generated values are not all trivial.
  assert.ok(new Set(asserts.map((a) => a.split(' == ').pop())).size > 50);
  void valueKey;
});
