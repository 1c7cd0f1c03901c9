// The values of the one execution (engines/execute.ts) and its expressions,
// compiled once into closures over those values.
//
// A run of a deterministic program can take hundreds of millions of IMP
// steps; walking the expression tree with the interpreter's boxed bigint
// values cost about 100 ns a step. Here a bit-vector of up to 32 bits is a
// JS number, a 64-bit one or an int a bigint, a bool a boolean, and each
// node is a closure that knows its operand types: no dispatch on node kinds
// and no allocation for the common operators. Every operator keeps the IMP
// interpreter's semantics exactly (test/engines/execute.test.ts compares
// the two on edge and random values); the operators not specialised here
// (reals, floats, `<==>`, ...) go through the interpreter itself.

import type { SourceLocation } from '../common/location.js';
import type { BvWidth, Expr, ImpType } from '../ivl/ast.js';
import { boolType, bvType, intType } from '../ivl/ast.js';
import { evalExpr, ImpStop, valuesEqual, type ImpValue } from '../ivl/interp.js';
import { typeOfExpr, type Scope } from '../ivl/typecheck.js';

/** An indeterminate value. */
export const INDET: unique symbol = Symbol('indeterminate');
export type Indet = typeof INDET;

/**
 * A scalar: a boolean (bool), a number in [0, 2^w) (bv of width w <= 32),
 * a bigint (bv64 in [0, 2^64), or int), or the interpreter's value for the
 * other types (real, float, rounding mode).
 */
export type Scalar = boolean | number | bigint | ImpValue;
export type Val = Scalar | Indet | MapVal;

/** A map index: a number where the value is a safe integer (Map hashes numbers much faster than bigints), else the bigint; a bijection. */
type Key = number | bigint | boolean;

/**
 * A map value, updated in place while no other variable shares it. The
 * elements at 0, 1, 2, ... as far as all are stored are kept in an array
 * (C arrays are mostly filled from 0 upward: a JS Map of 100,000 entries
 * made most of such a run's time), the others in a Map.
 */
export class MapVal {
  /** Set once two variables (or a variable and an expression's result) may hold this object: the next store copies it. */
  shared = false;
  constructor(
    public fallback: Val,
    private readonly entries: Map<Key, Val> = new Map(),
    /** The elements at 0 .. dense.length - 1 (none of these indexes is in `entries`). */
    private readonly dense: Val[] = [],
  ) {}
  /** The element stored at `k`, undefined where none is (the fallback then holds). */
  lookup(k: Key): Val | undefined {
    return typeof k === 'number' && k >= 0 && k < this.dense.length ? this.dense[k] : this.entries.get(k);
  }
  get(k: Key): Val {
    const v = this.lookup(k);
    return v === undefined ? this.fallback : v;
  }
  /** Stores `v` at `k`; at an indeterminate index any element may change: all become indeterminate. */
  put(k: Key | Indet, v: Val): void {
    if (v instanceof MapVal) v.shared = true;
    if (k === INDET) {
      this.entries.clear();
      this.dense.length = 0;
      this.fallback = INDET;
    } else if (typeof k === 'number' && k >= 0 && k <= this.dense.length) {
      if (k === this.dense.length && this.entries.size > 0) this.entries.delete(k);
      this.dense[k] = v;
    } else this.entries.set(k, v);
  }
  /** The stored elements. */
  *stored(): Generator<[Key, Val]> {
    for (let i = 0; i < this.dense.length; i++) yield [i, this.dense[i]!];
    yield* this.entries;
  }
  copy(): MapVal {
    return new MapVal(this.fallback, new Map(this.entries), this.dense.slice());
  }
}

/** A map whose every element is indeterminate. */
export const indeterminateMap = (): MapVal => new MapVal(INDET);

/** A construct the one execution does not run: the run is undecided, with this message. */
export class Unsupported extends Error {}

/** Whether two values are the same (maps element by element). */
export function sameVal(a: Val, b: Val): boolean {
  if (a === b) return true;
  if (a === INDET || b === INDET) return false;
  if (a instanceof MapVal || b instanceof MapVal) {
    if (!(a instanceof MapVal && b instanceof MapVal) || !sameVal(a.fallback, b.fallback)) return false;
    let count = 0;
    for (const [k, e] of a.stored()) {
      const f = b.lookup(k);
      if (f === undefined || !sameVal(e, f)) return false;
      count++;
    }
    for (const _ of b.stored()) if (--count < 0) return false;
    return true;
  }
  // Primitives are equal exactly when ===; the interpreter's values by their canonical text.
  return typeof a === 'object' && typeof b === 'object' && valuesEqual(a, b);
}

/** An expression compiled: evaluates it in the current state. */
export type Thunk = () => Val;

/** A compiled expression, its type, and where it is a declared variable or a literal, its slot or value (operators on those read them directly). */
interface Compiled {
  readonly run: Thunk;
  readonly type: ImpType;
  readonly slot?: number;
  readonly constant?: Val;
}

/**
 * Compiles expressions over a state of slots (one per variable).
 * `slotOf` gives a variable's slot; a slot holding `undefined` is a
 * variable the program does not declare.
 */
export class ExprCompiler {
  constructor(
    private readonly slots: Val[],
    private readonly slotOf: (name: string) => number,
    private readonly scope: Scope,
  ) {}

  /** The closure evaluating `e`, and its type. */
  compile(e: Expr): Compiled {
    switch (e.kind) {
      case 'var': {
        const k = this.slotOf(e.name);
        const slots = this.slots;
        const declared = this.scope.get(e.name)?.decl.type;
        return {
          type: declared ?? boolType,
          ...(declared ? { slot: k } : {}),
          run: () => {
            const v = slots[k];
            if (v === undefined) throw new Unsupported(`unknown variable ${e.name}`);
            return v;
          },
        };
      }
      case 'select':
        return this.select(e.map, e.index);
      case 'store':
        return this.store(e.map, e.index, e.value);
      case 'ite':
        return this.ite(e.cond, e.then, e.else);
      case 'binary':
        if (e.op === '&&' || e.op === '||' || e.op === '==>') return { type: boolType, run: this.logical(e.op, e.left, e.right) };
        return this.binary(e);
      case 'unary':
        return this.unary(e);
      case 'app':
        if (e.fn === 'old') return { type: boolType, run: () => { throw new Unsupported('old() outside a contract'); } };
        return this.app(e);
      default: {
        // Literals: the same value every time.
        const v = fromImp(evalExpr(e, EMPTY));
        return { type: typeOfExpr(e, this.scope), constant: v, run: () => v };
      }
    }
  }

  /** `&&`, `||`, `==>` with an indeterminate operand: decided when the other one decides alone. */
  private logical(op: '&&' | '||' | '==>', left: Expr, right: Expr): Thunk {
    const l = this.compile(left).run;
    const r = this.compile(right).run;
    const absorbing = op === '||'; // the left value that decides alone (for ==>, a false left)
    return () => {
      const lv = l();
      if (lv !== INDET) {
        if (op === '==>') return lv ? r() : true;
        if (lv === absorbing) return lv;
        return r();
      }
      const rv = r();
      if (rv === INDET) return INDET;
      if (op === '==>') return rv ? true : INDET;
      return rv === absorbing ? rv : INDET;
    };
  }

  private select(mapExpr: Expr, indexExpr: Expr): { run: Thunk; type: ImpType } {
    const map = this.compile(mapExpr);
    const index = this.compile(indexExpr).run;
    const type = map.type.kind === 'map' ? map.type.value : boolType;
    return {
      type,
      run: () => {
        const m = map.run();
        if (m === INDET) return INDET;
        if (!(m instanceof MapVal)) throw new Unsupported('select on a value that is not a map');
        // At an indeterminate index, any element (or any value outside the object) may be read.
        const i = keyOf(index());
        return i === INDET ? INDET : m.get(i);
      },
    };
  }

  private store(mapExpr: Expr, indexExpr: Expr, valueExpr: Expr): { run: Thunk; type: ImpType } {
    const map = this.compile(mapExpr);
    const index = this.compile(indexExpr).run;
    const value = this.compile(valueExpr).run;
    return {
      type: map.type,
      run: () => {
        const m = map.run();
        const i = keyOf(index());
        const v = value();
        if (m !== INDET && !(m instanceof MapVal)) throw new Unsupported('store into a value that is not a map');
        const copy = m === INDET ? indeterminateMap() : m.copy();
        copy.put(i, v);
        return copy;
      },
    };
  }

  /** The updates of a chain of stores `m[i1 := v1][i2 := v2]...`, in place into `m` (the caller checks that nothing shares it): indexes and values read the state before any store. */
  storesInPlace(chain: readonly { index: Expr; value: Expr }[]): (into: MapVal) => void {
    const updates = chain.map((u) => ({ index: this.compile(u.index).run, value: this.compile(u.value).run }));
    if (updates.length === 1) {
      const { index, value } = updates[0]!;
      return (into) => {
        const k = keyOf(index());
        into.put(k, value());
      };
    }
    return (into) => {
      const computed = updates.map((u): { key: Key | Indet; value: Val } => ({ key: keyOf(u.index()), value: u.value() }));
      for (const u of computed) into.put(u.key, u.value);
    };
  }

  private ite(condExpr: Expr, thenExpr: Expr, elseExpr: Expr): { run: Thunk; type: ImpType } {
    const cond = this.compile(condExpr).run;
    const then = this.compile(thenExpr);
    const other = this.compile(elseExpr).run;
    return {
      type: then.type,
      run: () => {
        const c = cond();
        if (c === INDET) {
          const a = then.run();
          const b = other();
          return a !== INDET && b !== INDET && !(a instanceof MapVal) && !(b instanceof MapVal) && sameVal(a, b) ? a : INDET;
        }
        return c ? then.run() : other();
      },
    };
  }

  private binary(e: Expr & { kind: 'binary' }): { run: Thunk; type: ImpType } {
    const left = this.compile(e.left);
    const right = this.compile(e.right);
    const t = left.type;
    const direct = t.kind === 'bv' ? bitVectorBinary(e.op, t.width) : t.kind === 'int' ? intBinary(e.op, e.loc) : undefined;
    if (e.op === '==' || e.op === '!=') {
      // Equality of primitives is ===; of the interpreter's values (reals, floats) and maps, the interpreter's.
      if (t.kind === 'bool' || t.kind === 'bv' || t.kind === 'int') return { type: boolType, run: this.lifted2(left, right, e.op === '==' ? (a, b) => a === b : (a, b) => a !== b) };
    } else if (direct) return { type: COMPARISONS.has(e.op) ? boolType : t, run: this.lifted2(left, right, direct) };
    return this.generic(e, [left, right]);
  }

  private unary(e: Expr & { kind: 'unary' }): { run: Thunk; type: ImpType } {
    const arg = this.compile(e.arg);
    const t = arg.type;
    let direct: ((a: never) => Scalar) | undefined;
    if (t.kind === 'bool' && e.op === '!') direct = (a: boolean) => !a;
    else if (t.kind === 'int' && e.op === '-') direct = (a: bigint) => -a;
    else if (t.kind === 'bv' && t.width === 64) direct = e.op === '-' ? (a: bigint) => BigInt.asUintN(64, -a) : e.op === '~' ? (a: bigint) => BigInt.asUintN(64, ~a) : undefined;
    else if (t.kind === 'bv') {
      const wrap = wrapper(t.width);
      direct = e.op === '-' ? (a: number) => wrap(-a) : e.op === '~' ? (a: number) => wrap(~a) : undefined;
    }
    if (!direct) return this.generic(e, [arg]);
    const f = direct as (a: Scalar) => Scalar;
    const run = arg.run;
    return {
      type: t,
      run: () => {
        const a = run();
        if (a === INDET) return INDET;
        if (a instanceof MapVal) throw new Unsupported(`'${e.op}' on maps`);
        return f(a);
      },
    };
  }

  private app(e: Expr & { kind: 'app' }): { run: Thunk; type: ImpType } {
    const args = e.args.map((a) => this.compile(a));
    const t = args[0]?.type;
    if (t?.kind === 'bv' && args.length === 2) {
      const direct = bitVectorApp(e.fn, t.width);
      if (direct) return { type: BV_COMPARISONS.has(e.fn) ? boolType : t, run: this.lifted2(args[0]!, args[1]!, direct) };
    }
    if (args.length === 1 && t) {
      const conversion = convert(e.fn, t);
      if (conversion) {
        const run = args[0]!.run;
        const f = conversion.f as (a: Scalar) => Scalar;
        return {
          type: conversion.type,
          run: () => {
            const a = run();
            if (a === INDET) return INDET;
            if (a instanceof MapVal) throw new Unsupported(`'${e.fn}' on maps`);
            return f(a);
          },
        };
      }
    }
    return this.generic(e, args);
  }

  /**
   * A binary operator on primitives, lifted: indeterminate if an operand is
   * (both are evaluated first, as the interpreter does). A variable and a
   * literal operand (`x + 1`, `ult(i, n)`) are read directly, without their
   * closures: most of a loop's operators have that shape.
   */
  private lifted2(left: Compiled, right: Compiled, f: (a: never, b: never) => Scalar): Thunk {
    const g = f as (a: Scalar, b: Scalar) => Scalar;
    const slots = this.slots;
    const onMaps = (): never => {
      throw new Unsupported('an operator on maps');
    };
    const l = left.slot;
    const r = right.slot;
    const lc = left.constant;
    const rc = right.constant;
    if (l !== undefined && rc !== undefined) {
      return () => {
        const a = slots[l]!;
        if (a === INDET) return INDET;
        return a instanceof MapVal ? onMaps() : g(a, rc as Scalar);
      };
    }
    if (l !== undefined && r !== undefined) {
      return () => {
        const a = slots[l]!;
        const b = slots[r]!;
        if (a === INDET || b === INDET) return INDET;
        return a instanceof MapVal || b instanceof MapVal ? onMaps() : g(a, b);
      };
    }
    if (lc !== undefined && r !== undefined) {
      return () => {
        const b = slots[r]!;
        if (b === INDET) return INDET;
        return b instanceof MapVal ? onMaps() : g(lc as Scalar, b);
      };
    }
    const lr = left.run;
    const rr = right.run;
    return () => {
      const a = lr();
      const b = rr();
      if (a === INDET || b === INDET) return INDET;
      return a instanceof MapVal || b instanceof MapVal ? onMaps() : g(a, b);
    };
  }

  /** Any other operator: the interpreter's, on literals of the operands' values. */
  private generic(e: Expr & { kind: 'binary' | 'unary' | 'app' }, args: readonly { run: Thunk; type: ImpType }[]): { run: Thunk; type: ImpType } {
    let type: ImpType;
    try {
      type = typeOfExpr(e, this.scope);
    } catch {
      type = boolType;
    }
    return {
      type,
      run: () => {
        const values = args.map((a) => a.run());
        if (values.some((v) => v === INDET)) return INDET;
        if (values.some((v) => v instanceof MapVal)) throw new Unsupported(`'${e.kind === 'app' ? e.fn : e.op}' on maps`);
        const lits = (values as Scalar[]).map((v, k) => literal(toImp(v, args[k]!.type), e.loc));
        const node: Expr =
          e.kind === 'binary' ? { ...e, left: lits[0]!, right: lits[1]! } : e.kind === 'unary' ? { ...e, arg: lits[0]! } : { ...e, args: lits };
        return fromImp(evalExpr(node, EMPTY));
      },
    };
  }
}

const COMPARISONS = new Set(['<', '<=', '>', '>=']);
const BV_COMPARISONS = new Set(['ult', 'ule', 'ugt', 'uge', 'slt', 'sle', 'sgt', 'sge']);

/** Reduces an integer-valued number modulo 2^w into [0, 2^w). */
function wrapper(w: number): (x: number) => number {
  if (w === 32) return (x) => x >>> 0;
  const mask = 2 ** w - 1;
  return (x) => x & mask;
}

/** The two's-complement value of a number in [0, 2^w). */
function signer(w: number): (x: number) => number {
  if (w === 32) return (x) => x | 0;
  const shift = 32 - w;
  return (x) => (x << shift) >> shift;
}

type Op = (a: never, b: never) => Scalar;

/** `+ - * & | ^ <<` on bit-vectors of width `w`. */
function bitVectorBinary(op: string, w: BvWidth): Op | undefined {
  if (w === 64) {
    const wrap = (x: bigint) => BigInt.asUintN(64, x);
    switch (op) {
      case '+':
        return (a: bigint, b: bigint) => wrap(a + b);
      case '-':
        return (a: bigint, b: bigint) => wrap(a - b);
      case '*':
        return (a: bigint, b: bigint) => wrap(a * b);
      case '&':
        return (a: bigint, b: bigint) => a & b;
      case '|':
        return (a: bigint, b: bigint) => a | b;
      case '^':
        return (a: bigint, b: bigint) => a ^ b;
      case '<<':
        return (a: bigint, b: bigint) => (b >= 64n ? 0n : wrap(a << b));
      default:
        return undefined;
    }
  }
  const wrap = wrapper(w);
  switch (op) {
    case '+':
      return (a: number, b: number) => wrap(a + b);
    case '-':
      return (a: number, b: number) => wrap(a - b);
    case '*':
      return (a: number, b: number) => wrap(Math.imul(a, b));
    case '&':
      return (a: number, b: number) => (a & b) >>> 0;
    case '|':
      return (a: number, b: number) => (a | b) >>> 0;
    case '^':
      return (a: number, b: number) => (a ^ b) >>> 0;
    case '<<':
      return (a: number, b: number) => (b >= w ? 0 : wrap(a << b));
    default:
      return undefined;
  }
}

/** The bit-vector builtins of two operands of width `w` (division, shifts, comparisons), with SMT-LIB's results for division by zero. */
function bitVectorApp(fn: string, w: BvWidth): Op | undefined {
  if (w === 64) {
    const wrap = (x: bigint) => BigInt.asUintN(64, x);
    const s = (x: bigint) => BigInt.asIntN(64, x);
    const ones = (1n << 64n) - 1n;
    switch (fn) {
      case 'udiv':
        return (a: bigint, b: bigint) => (b === 0n ? ones : a / b);
      case 'urem':
        return (a: bigint, b: bigint) => (b === 0n ? a : a % b);
      case 'sdiv':
        return (a: bigint, b: bigint) => (b === 0n ? (s(a) < 0n ? 1n : ones) : wrap(s(a) / s(b)));
      case 'srem':
        return (a: bigint, b: bigint) => (b === 0n ? a : wrap(s(a) % s(b)));
      case 'ashr':
        return (a: bigint, b: bigint) => (b >= 64n ? (s(a) < 0n ? ones : 0n) : wrap(s(a) >> b));
      case 'lshr':
        return (a: bigint, b: bigint) => (b >= 64n ? 0n : a >> b);
      default:
        return comparison(fn, s);
    }
  }
  const wrap = wrapper(w);
  const s = signer(w);
  const ones = 2 ** w - 1;
  // Quotients of integers below 2^32 in magnitude are exact in doubles up to the rounding Math.floor/trunc removes.
  switch (fn) {
    case 'udiv':
      return (a: number, b: number) => (b === 0 ? ones : Math.floor(a / b));
    case 'urem':
      return (a: number, b: number) => (b === 0 ? a : a % b);
    case 'sdiv':
      return (a: number, b: number) => (b === 0 ? (s(a) < 0 ? 1 : ones) : wrap(Math.trunc(s(a) / s(b))));
    case 'srem':
      return (a: number, b: number) => (b === 0 ? a : wrap(s(a) % s(b)));
    case 'ashr':
      return (a: number, b: number) => (b >= w ? (s(a) < 0 ? ones : 0) : wrap(s(a) >> b));
    case 'lshr':
      return (a: number, b: number) => (b >= w ? 0 : a >>> b);
    default:
      return comparison(fn, s);
  }
}

/** The bit-vector comparisons, on numbers or bigints alike (`s`: an operand's signed value). */
function comparison<T extends number | bigint>(fn: string, s: (x: T) => T): Op | undefined {
  switch (fn) {
    case 'ult':
      return (a: T, b: T) => a < b;
    case 'ule':
      return (a: T, b: T) => a <= b;
    case 'ugt':
      return (a: T, b: T) => a > b;
    case 'uge':
      return (a: T, b: T) => a >= b;
    case 'slt':
      return (a: T, b: T) => s(a) < s(b);
    case 'sle':
      return (a: T, b: T) => s(a) <= s(b);
    case 'sgt':
      return (a: T, b: T) => s(a) > s(b);
    case 'sge':
      return (a: T, b: T) => s(a) >= s(b);
    default:
      return undefined;
  }
}

/** `+ - * / %` (Euclidean, as the interpreter) and the comparisons on ints. */
function intBinary(op: string, loc: SourceLocation): Op | undefined {
  switch (op) {
    case '+':
      return (a: bigint, b: bigint) => a + b;
    case '-':
      return (a: bigint, b: bigint) => a - b;
    case '*':
      return (a: bigint, b: bigint) => a * b;
    case '/':
    case '%':
      return (a: bigint, b: bigint) => {
        if (b === 0n) throw new ImpStop('error', loc, 'division by zero');
        const ab = b < 0n ? -b : b;
        const rem = ((a % ab) + ab) % ab;
        return op === '%' ? rem : (a - rem) / b;
      };
    default:
      // An int's order is the plain one: the "unsigned" comparisons on the values as they are.
      return op in INT_ORDER ? comparison(INT_ORDER[op]!, (x: bigint) => x) : undefined;
  }
}
const INT_ORDER: Readonly<Record<string, string>> = { '<': 'ult', '<=': 'ule', '>': 'ugt', '>=': 'uge' };

const CONVERSION = /^(zext|sext|trunc|int2bv)(8|16|32|64)$/;

/** The width conversions and the bit-vector/int conversions of an operand of type `t`. */
function convert(fn: string, t: ImpType): { f: (a: never) => Scalar; type: ImpType } | undefined {
  const m = CONVERSION.exec(fn);
  if (m) {
    const kind = m[1]!;
    const n = Number(m[2]) as BvWidth;
    const type = bvType(n);
    if (kind === 'int2bv') {
      if (t.kind !== 'int') return undefined;
      return { type, f: n === 64 ? (a: bigint) => BigInt.asUintN(64, a) : (a: bigint) => Number(BigInt.asUintN(n, a)) };
    }
    if (t.kind !== 'bv') return undefined;
    // The operand as an integer (signed for sext), then reduced modulo 2^n.
    const value: (a: never) => number | bigint = kind !== 'sext' ? (a: number | bigint) => a : t.width === 64 ? (a: bigint) => BigInt.asIntN(64, a) : signer(t.width);
    const reduce: (x: never) => Scalar =
      n === 64 ? (x: number | bigint) => BigInt.asUintN(64, BigInt(x)) : t.width === 64 ? (x: bigint) => Number(BigInt.asUintN(n, x)) : wrapper(n);
    return { type, f: (a: never) => reduce(value(a) as never) };
  }
  if (t.kind !== 'bv') return undefined;
  if (fn === 'ubv2int') return { type: intType, f: t.width === 64 ? (a: bigint) => a : (a: number) => BigInt(a) };
  if (fn === 'sbv2int') {
    if (t.width === 64) return { type: intType, f: (a: bigint) => BigInt.asIntN(64, a) };
    const s = signer(t.width);
    return { type: intType, f: (a: number) => BigInt(s(a)) };
  }
  return undefined;
}

/** The map index of a value. */
export function keyOf(v: Val): Key | Indet {
  if (v === INDET) return INDET;
  if (typeof v === 'boolean' || typeof v === 'number') return v;
  if (typeof v === 'bigint') return v >= MIN_SAFE && v <= MAX_SAFE ? Number(v) : v;
  if (v instanceof MapVal) throw new Unsupported('a map used as a map index');
  throw new Unsupported(`a ${v.kind} map index`);
}

/** The interpreter's value of a scalar of type `t`. */
function toImp(v: Scalar, t: ImpType): ImpValue {
  if (typeof v === 'boolean') return { kind: 'bool', value: v };
  if (typeof v === 'number') return { kind: 'bv', value: BigInt(v), width: (t as { width: BvWidth }).width };
  if (typeof v === 'bigint') return t.kind === 'bv' ? { kind: 'bv', value: v, width: t.width } : { kind: 'int', value: v };
  return v;
}

/** The scalar of an interpreter's value. */
export function fromImp(v: ImpValue): Scalar {
  switch (v.kind) {
    case 'bool':
      return v.value;
    case 'bv':
      return v.width === 64 ? v.value : Number(v.value);
    case 'int':
      return v.value;
    default:
      return v;
  }
}

/** An IMP literal of a scalar value (the interpreter's operators run on these). */
function literal(v: ImpValue, loc: SourceLocation): Expr {
  switch (v.kind) {
    case 'bool':
      return { kind: 'bool_lit', value: v.value, loc };
    case 'bv':
      return { kind: 'bv_lit', value: v.value, width: v.width, loc };
    case 'int':
      return v.value >= 0n ? { kind: 'int_lit', value: v.value, loc } : { kind: 'unary', op: '-', arg: { kind: 'int_lit', value: -v.value, loc }, loc };
    default:
      throw new Unsupported(`a ${v.kind} value`);
  }
}

const EMPTY: ReadonlyMap<string, ImpValue> = new Map();
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MIN_SAFE = -MAX_SAFE;
