// Candidate invariants that relate an accumulator to a loop's counter, and
// the counter to its bound. A loop that adds a bounded amount to a variable
// on every iteration, beside a counter it steps by a constant, keeps the sum
// within multiples of the counter: after `s := 0; i := 0`,
// `while (i < n) { v := nondet8; s := s + zext32(v); i := i + 1 }` keeps
// `s <= 255 * i`, `s >= v` and `i <= n`. The comparison templates (same-type
// variables, no coefficients) cannot say so. Guesses only: Houdini keeps
// the inductive ones, in the model's own (bit-vector) semantics.

import { findProcedure, typeEquals, type Expr, type ImpProgram, type ImpType, type Stmt, type WhileStmt } from '../ivl/ast.js';
import { loopsOf, visitStmts, writeCounts } from '../ivl/walk.js';
import { procedureScope, typeOfExpr } from '../ivl/typecheck.js';
import type { LoopCandidateSource } from './candidates.js';

/** `x := x + step` on every iteration: the step's range, and the statement's place in the body. */
interface Increment {
  readonly name: string;
  readonly type: ImpType;
  readonly step: Expr;
  readonly lo: bigint;
  readonly hi: bigint;
  readonly at: number;
}

const MAX_PER_LOOP = 16;

/** The candidates of each loop of `entry` (computed once per program). */
export function accumulatorCandidates(entry = 'main'): LoopCandidateSource {
  const cache = new WeakMap<ImpProgram, Map<Stmt, Expr[]>>();
  return (loop, program) => {
    let byLoop = cache.get(program);
    if (!byLoop) cache.set(program, (byLoop = candidatesOf(program, entry)));
    return byLoop.get(loop) ?? [];
  };
}

function candidatesOf(program: ImpProgram, entry: string): Map<Stmt, Expr[]> {
  const out = new Map<Stmt, Expr[]>();
  const proc = findProcedure(program, entry);
  if (!proc?.body) return out;
  const scope = procedureScope(program, proc);
  const typeOf = (e: Expr): ImpType | undefined => {
    try {
      return typeOfExpr(e, scope, { allowOld: false });
    } catch {
      return undefined;
    }
  };
  for (const [loop, before] of loopsWithPredecessors(proc.body)) {
    const exprs = [...boundCandidates(loop), ...accumulatorBounds(loop, before, typeOf)];
    if (exprs.length > 0) out.set(loop, exprs.slice(0, MAX_PER_LOOP));
  }
  return out;
}

/** Each while, with the statements before it in its own block (the last one nearest). */
function loopsWithPredecessors(body: readonly Stmt[]): Map<WhileStmt, readonly Stmt[]> {
  const out = new Map<WhileStmt, readonly Stmt[]>();
  const walk = (list: readonly Stmt[]) => {
    list.forEach((s, i) => {
      if (s.kind === 'while') out.set(s, list.slice(0, i));
      if (s.kind === 'if') {
        walk(s.then);
        walk(s.else);
      } else if (s.kind === 'while') walk(s.body);
      else if (s.kind === 'block') walk(s.body);
    });
  };
  walk(body);
  for (const w of loopsOf(body)) if (!out.has(w)) out.set(w, []);
  return out;
}

/** `a < b` as a loop condition: `a <= b` holds at the head while `a` steps up to `b`. */
function boundCandidates(loop: WhileStmt): Expr[] {
  const c = loop.cond;
  const loc = c.loc;
  if (c.kind === 'app' && (c.fn === 'ult' || c.fn === 'slt') && c.args.length === 2) {
    return [{ kind: 'app', fn: c.fn === 'ult' ? 'ule' : 'sle', args: c.args, loc }];
  }
  if (c.kind === 'binary' && c.op === '<') return [{ ...c, op: '<=' }];
  return [];
}

function accumulatorBounds(loop: WhileStmt, before: readonly Stmt[], typeOf: (e: Expr) => ImpType | undefined): Expr[] {
  const writes = writeCounts(loop.body);
  // Statements directly in the body run on every iteration that gets past them.
  const increments: Increment[] = [];
  loop.body.forEach((s, at) => {
    if (s.kind !== 'assign' || writes.get(s.target) !== 1) return;
    const v = s.value;
    if (v.kind !== 'binary' || v.op !== '+' || v.left.kind !== 'var' || v.left.name !== s.target) return;
    const type = typeOf(v.left);
    const range = type && rangeOf(v.right, typeOf);
    if (type && range) increments.push({ name: s.target, type, step: v.right, lo: range[0], hi: range[1], at });
  });
  const loc = loop.loc;
  const lit = (type: ImpType, value: bigint): Expr => (type.kind === 'bv' ? { kind: 'bv_lit', value: BigInt.asUintN(type.width, value), width: type.width, loc } : { kind: 'int_lit', value, loc });
  const v = (name: string): Expr => ({ kind: 'var', name, loc });
  const sub = (a: Expr, b: bigint, t: ImpType): Expr => (b === 0n ? a : { kind: 'binary', op: '-', left: a, right: lit(t, b), loc });
  const mul = (k: bigint, a: Expr, t: ImpType): Expr => (k === 1n ? a : { kind: 'binary', op: '*', left: lit(t, k), right: a, loc });
  const cmp = (t: ImpType, op: 'le' | 'ge', a: Expr, b: Expr): Expr[] =>
    t.kind === 'bv'
      ? [
          { kind: 'app', fn: op === 'le' ? 'ule' : 'uge', args: [a, b], loc },
          { kind: 'app', fn: op === 'le' ? 'sle' : 'sge', args: [a, b], loc },
        ]
      : [{ kind: 'binary', op: op === 'le' ? '<=' : '>=', left: a, right: b, loc }];
  const out: Expr[] = [];
  const counters = increments.filter((x) => x.lo === x.hi && x.lo > 0n);
  for (const acc of increments) {
    const x0 = initialValue(acc.name, before);
    if (x0 === undefined) continue;
    for (const counter of counters) {
      if (counter === acc || !typeEquals(counter.type, acc.type)) continue;
      const c0 = initialValue(counter.name, before);
      if (c0 === undefined) continue;
      // k * (x - x0) against hi * (c - c0) (and lo * (c - c0)), k the counter's step.
      const t = acc.type;
      const scaled = mul(counter.lo, sub(v(acc.name), x0, t), t);
      const steps = sub(v(counter.name), c0, t);
      if (acc.hi >= 0n) out.push(...cmp(t, 'le', scaled, mul(acc.hi, steps, t)));
      if (acc.lo > 0n) out.push(...cmp(t, 'ge', scaled, mul(acc.lo, steps, t)));
    }
    // The sum of nonnegative steps is at least the last one (a variable the body assigns before adding it).
    if (acc.lo >= 0n && x0 >= 0n && stepIsAssignedBefore(acc, loop.body)) out.push(...cmp(acc.type, 'ge', v(acc.name), acc.step));
  }
  return out;
}

/** The range of a step: a constant, or a narrower value zero-extended. */
function rangeOf(e: Expr, typeOf: (e: Expr) => ImpType | undefined): [bigint, bigint] | undefined {
  if (e.kind === 'bv_lit') return [BigInt.asIntN(e.width, e.value), BigInt.asIntN(e.width, e.value)];
  if (e.kind === 'int_lit') return [e.value, e.value];
  if (e.kind === 'app' && e.fn.startsWith('zext') && e.args.length === 1) {
    const t = typeOf(e.args[0]!);
    if (t?.kind === 'bv') return [0n, (1n << BigInt(t.width)) - 1n];
  }
  return undefined;
}

/** The step reads only variables the body assigns before the increment (so it is the last amount added). */
function stepIsAssignedBefore(acc: Increment, body: readonly Stmt[]): boolean {
  const read = acc.step.kind === 'app' ? acc.step.args[0] : undefined;
  if (read?.kind !== 'var') return false;
  return body.slice(0, acc.at).some((s) => (s.kind === 'assign' || s.kind === 'havoc') && s.target === read.name);
}

/** The constant `name` holds when the loop starts: its last assignment before it in the same block, if a literal and nothing else there assigns it. */
function initialValue(name: string, before: readonly Stmt[]): bigint | undefined {
  for (let i = before.length - 1; i >= 0; i--) {
    const s = before[i]!;
    if (s.kind === 'assign' && s.target === name) {
      if (s.value.kind === 'bv_lit') return BigInt.asIntN(s.value.width, s.value.value);
      if (s.value.kind === 'int_lit') return s.value.value;
      return undefined;
    }
    let touched = false;
    visitStmts([s], (x) => {
      if ((x.kind === 'assign' || x.kind === 'havoc') && x.target === name) touched = true;
      if (x.kind === 'call' && x.targets.includes(name)) touched = true;
    });
    if (touched) return undefined;
  }
  return undefined;
}
