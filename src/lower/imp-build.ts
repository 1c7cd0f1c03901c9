/**
 * Small constructors for IMP nodes used by the lowering. Every node gets the
 * C location it implements (see source-map.ts). Bit-vector constants and C
 * integer semantics helpers (conversions, range checks) live here too.
 */
import type { SourceLocation } from '../common/location.js';
import type { BinaryOp, BuiltinName, BvWidth, Expr, Goal, Stmt, UnaryOp } from '../ivl/ast.js';

export type L = SourceLocation;

export const bv = (value: bigint, width: BvWidth, loc: L): Expr => ({
  kind: 'bv_lit',
  value: BigInt.asUintN(width, value),
  width,
  loc,
});
export const boolLit = (value: boolean, loc: L): Expr => ({ kind: 'bool_lit', value, loc });
export const v = (name: string, loc: L): Expr => ({ kind: 'var', name, loc });
export const un = (op: UnaryOp, arg: Expr, loc: L): Expr => {
  if (op === '!' && arg.kind === 'bool_lit') return boolLit(!arg.value, loc);
  if (op === '!' && arg.kind === 'unary' && arg.op === '!') return arg.arg;
  return { kind: 'unary', op, arg, loc };
};
export const bin = (op: BinaryOp, left: Expr, right: Expr, loc: L): Expr => ({ kind: 'binary', op, left, right, loc });
export const app = (fn: BuiltinName, args: Expr[], loc: L): Expr => ({ kind: 'app', fn, args, loc });
export const ite = (cond: Expr, then: Expr, els: Expr, loc: L): Expr => {
  if (cond.kind === 'bool_lit') return cond.value ? then : els;
  return { kind: 'ite', cond, then, else: els, loc };
};
export const select = (map: Expr, index: Expr, loc: L): Expr => ({ kind: 'select', map, index, loc });
export const store = (map: Expr, index: Expr, value: Expr, loc: L): Expr => ({ kind: 'store', map, index, value, loc });

export function and(a: Expr, b: Expr, loc: L): Expr {
  if (a.kind === 'bool_lit') return a.value ? b : a;
  if (b.kind === 'bool_lit') return b.value ? a : b;
  return bin('&&', a, b, loc);
}
export function or(a: Expr, b: Expr, loc: L): Expr {
  if (a.kind === 'bool_lit') return a.value ? a : b;
  if (b.kind === 'bool_lit') return b.value ? b : a;
  return bin('||', a, b, loc);
}
export function andAll(xs: Expr[], loc: L): Expr {
  return xs.reduce((acc, x) => and(acc, x, loc), boolLit(true, loc));
}
export function orAll(xs: Expr[], loc: L): Expr {
  return xs.reduce((acc, x) => or(acc, x, loc), boolLit(false, loc));
}
export function eq(a: Expr, b: Expr, loc: L): Expr {
  return bin('==', a, b, loc);
}

export const assign = (target: string, value: Expr, loc: L): Stmt => ({ kind: 'assign', target, value, loc });
export const havoc = (target: string, loc: L): Stmt => ({ kind: 'havoc', target, loc });
export const assume = (cond: Expr, loc: L): Stmt => ({ kind: 'assume', cond, loc });
export const assert = (cond: Expr, loc: L, goal?: Goal): Stmt => ({ kind: 'assert', cond, ...(goal ? { goal } : {}), loc });
export const ifs = (cond: Expr, then: Stmt[], els: Stmt[], loc: L): Stmt => ({ kind: 'if', cond, then, else: els, loc });
export const whiles = (cond: Expr, body: Stmt[], loc: L): Stmt => ({
  kind: 'while',
  cond,
  invariants: [],
  candidates: [],
  body,
  loc,
});

/** Converts a bit-vector between widths as C does (sign extension when the source is signed). */
export function resize(e: Expr, from: BvWidth, to: BvWidth, signedSource: boolean, loc: L): Expr {
  if (from === to) return e;
  if (e.kind === 'bv_lit') {
    const val = signedSource ? BigInt.asIntN(from, e.value) : e.value;
    return bv(val, to, loc);
  }
  if (to < from) return app(`trunc${to}` as BuiltinName, [e], loc);
  return app(`${signedSource ? 'sext' : 'zext'}${to}` as BuiltinName, [e], loc);
}

export const minSigned = (w: BvWidth): bigint => -(1n << BigInt(w - 1));
export const maxSigned = (w: BvWidth): bigint => (1n << BigInt(w - 1)) - 1n;

/** True when the IMP expression has no variables (a literal tree). */
export function isLiteral(e: Expr): boolean {
  return e.kind === 'bv_lit' || e.kind === 'bool_lit' || e.kind === 'int_lit';
}
