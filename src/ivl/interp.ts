// A concrete interpreter for IMP with the verifier's semantics (Euclidean int
// division, C's signed/unsigned bit-vector operations, SMT-LIB's results for
// bit-vector division by zero), for concrete runs and differential tests.
import type { SourceLocation } from '../common/location.js';
import * as ieee from '../common/ieee754.js';
import { findProcedure, type BvWidth, type Expr, type Goal, type ImpProgram, type ImpType, type Procedure, type Stmt } from './ast.js';
import { evalFloatBuiltin, floatLiteralText, floatValue, isFloatBuiltin } from './float-builtins.js';

export type ImpValue =
  | { readonly kind: 'bool'; readonly value: boolean }
  | { readonly kind: 'int'; readonly value: bigint }
  /** num/den in lowest terms, den > 0 */
  | { readonly kind: 'real'; readonly num: bigint; readonly den: bigint }
  /** 0 <= value < 2^width */
  | { readonly kind: 'bv'; readonly value: bigint; readonly width: BvWidth }
  /** Packed IEEE bits of a float type (a NaN is the canonical one). */
  | { readonly kind: 'float'; readonly eb: number; readonly sb: number; readonly bits: bigint }
  | { readonly kind: 'rmode'; readonly mode: ieee.RoundingMode }
  /** A total map: `entries` (by valueKey of the index) override `default`. */
  | { readonly kind: 'map'; readonly default: ImpValue; readonly entries: ReadonlyMap<string, { readonly index: ImpValue; readonly value: ImpValue }> };

export type ImpState = ReadonlyMap<string, ImpValue>;

export interface ExecuteOptions {
  /** Statements executed before giving up (default 1 000 000). */
  readonly maxSteps?: number;
  /** Asked every 256 statements (a store copies its map: a statement may be slow): true stops the run (as out of steps). */
  readonly outOfTime?: () => boolean;
  /** Value of `x := havoc`, of an input not given, and of a bodiless callee's results (default: zero/false). */
  readonly havoc?: (name: string, type: ImpType, loc: SourceLocation) => ImpValue;
  /** Called at every visit of a loop head (before the condition is evaluated), the first one included; `iteration` counts from 0 at each entry of the loop. */
  readonly onLoopHead?: (loopLoc: SourceLocation, state: ImpState, iteration: number) => void;
  /** Called after every assignment, with the value assigned (counterexample traces). */
  readonly onAssign?: (target: string, value: ImpValue, loc: SourceLocation) => void;
  /** Called at every `if`, with the branch taken. */
  readonly onBranch?: (loc: SourceLocation, taken: boolean) => void;
  /** Check `invariant` clauses at every loop-head visit (default true). */
  readonly checkInvariants?: boolean;
}

export type ExecutionStatus =
  /** The procedure returned normally. */
  | 'returned'
  /** An assert, precondition, postcondition or invariant is false. */
  | 'assertion-failed'
  /** An assume is false: the run is not a program execution. */
  | 'assume-failed'
  | 'out-of-steps'
  /** Division by zero on int/real, a bodiless procedure, ... */
  | 'error';

export interface ExecutionResult {
  readonly status: ExecutionStatus;
  /** Where the run stopped (for every status but `returned`). */
  readonly loc?: SourceLocation;
  readonly message?: string;
  /** `assertion-failed` at an assert with a goal: that goal. */
  readonly goal?: Goal;
  /** The variables of the executed procedure (globals included) when the run ended. */
  readonly state: ImpState;
  readonly returns?: readonly ImpValue[];
  readonly steps: number;
}

export function boolValue(value: boolean): ImpValue {
  return { kind: 'bool', value };
}
export function intValue(value: bigint | number): ImpValue {
  return { kind: 'int', value: BigInt(value) };
}
export function bvValue(value: bigint | number, width: BvWidth): ImpValue {
  const m = 1n << BigInt(width);
  return { kind: 'bv', value: ((BigInt(value) % m) + m) % m, width };
}
export function realValue(num: bigint, den = 1n): ImpValue {
  if (den < 0n) [num, den] = [-num, -den];
  const g = gcd(num, den) || 1n;
  return { kind: 'real', num: num / g, den: den / g };
}

export function zeroValue(t: ImpType): ImpValue {
  switch (t.kind) {
    case 'bool':
      return boolValue(false);
    case 'int':
      return intValue(0);
    case 'real':
      return realValue(0n);
    case 'bv':
      return bvValue(0, t.width);
    case 'map':
      return { kind: 'map', default: zeroValue(t.value), entries: new Map() };
    case 'float':
      return floatValue(t, 0n);
    case 'rmode':
      return { kind: 'rmode', mode: 'RNE' };
  }
}

/** A canonical text of a value (map keys, comparisons, display). */
export function valueKey(v: ImpValue): string {
  switch (v.kind) {
    case 'bool':
      return String(v.value);
    case 'int':
      return v.value.toString();
    case 'real':
      return v.den === 1n ? `${v.num}.0` : `${v.num}/${v.den}`;
    case 'bv':
      return `${v.value}bv${v.width}`;
    case 'float':
      return floatLiteralText(v, v.bits);
    case 'rmode':
      return v.mode;
    case 'map': {
      const es = [...v.entries.values()].filter((e) => valueKey(e.value) !== valueKey(v.default));
      es.sort((a, b) => (valueKey(a.index) < valueKey(b.index) ? -1 : 1));
      return `{${es.map((e) => `${valueKey(e.index)}: ${valueKey(e.value)}`).join(', ')}${es.length ? ', ' : ''}else: ${valueKey(v.default)}}`;
    }
  }
}

export function valuesEqual(a: ImpValue, b: ImpValue): boolean {
  return valueKey(a) === valueKey(b);
}

function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a;
  b = b < 0n ? -b : b;
  while (b) [a, b] = [b, a % b];
  return a;
}

/** Why a run stopped; `evalExpr` throws it for division by zero and ill-formed values. */
export class ImpStop extends Error {
  constructor(
    readonly status: ExecutionStatus,
    readonly loc: SourceLocation,
    message: string,
    /** The goal of the failed assert, if it had one. */
    readonly goal?: Goal,
  ) {
    super(message);
    this.name = 'ImpStop';
  }
}
const Stop = ImpStop;

const toSigned = (v: bigint, w: number): bigint => (v >= 1n << BigInt(w - 1) ? v - (1n << BigInt(w)) : v);
const floorDiv = (a: bigint, b: bigint): bigint => {
  const q = a / b;
  return (a % b !== 0n && (a < 0n) !== (b < 0n)) ? q - 1n : q;
};

/** Evaluates an expression in a state (`old` reads `oldState`). Throws an ImpStop on int/real division by zero. */
export function evalExpr(e: Expr, state: ImpState, oldState: ImpState = state): ImpValue {
  const ev = (x: Expr) => evalExpr(x, state, oldState);
  const fail = (msg: string): never => {
    throw new Stop('error', e.loc, msg);
  };
  switch (e.kind) {
    case 'bool_lit':
      return boolValue(e.value);
    case 'int_lit':
      return intValue(e.value);
    case 'real_lit': {
      const [i, f] = e.value.split('.');
      return realValue(BigInt(i + f), 10n ** BigInt(f.length));
    }
    case 'bv_lit':
      return bvValue(e.value, e.width);
    case 'float_lit':
      return floatValue(e, e.bits);
    case 'rm_lit':
      return { kind: 'rmode', mode: e.mode };
    case 'var': {
      const v = state.get(e.name);
      return v ?? fail(`unknown variable '${e.name}'`);
    }
    case 'unary': {
      const a = ev(e.arg);
      if (a.kind === 'bool') return boolValue(!a.value);
      if (a.kind === 'int') return intValue(-a.value);
      if (a.kind === 'real') return realValue(-a.num, a.den);
      if (a.kind === 'bv') return e.op === '~' ? bvValue(~a.value, a.width) : bvValue(-a.value, a.width);
      if (a.kind === 'float') return floatValue(a, ieee.neg(a, a.bits));
      return fail('bad operand');
    }
    case 'binary': {
      // Short-circuit forms give the same result as the logical ones (expressions have no effects).
      const l = ev(e.left);
      if (l.kind === 'bool' && (e.op === '&&' || e.op === '||' || e.op === '==>')) {
        if (e.op === '&&' && !l.value) return l;
        if (e.op === '||' && l.value) return l;
        if (e.op === '==>' && !l.value) return boolValue(true);
        return ev(e.right);
      }
      const r = ev(e.right);
      switch (e.op) {
        case '<==>':
        case '==':
          return boolValue(valuesEqual(l, r));
        case '!=':
          return boolValue(!valuesEqual(l, r));
        case '<==':
          return boolValue((l as { value: boolean }).value || !(r as { value: boolean }).value);
        default:
          break;
      }
      if (l.kind === 'int' && r.kind === 'int') {
        const a = l.value;
        const b = r.value;
        switch (e.op) {
          case '+':
            return intValue(a + b);
          case '-':
            return intValue(a - b);
          case '*':
            return intValue(a * b);
          case '/':
          case '%': {
            if (b === 0n) return fail('division by zero');
            const ab = b < 0n ? -b : b;
            const rem = ((a % ab) + ab) % ab;
            return intValue(e.op === '%' ? rem : (a - rem) / b);
          }
          case '<':
            return boolValue(a < b);
          case '<=':
            return boolValue(a <= b);
          case '>':
            return boolValue(a > b);
          case '>=':
            return boolValue(a >= b);
        }
      }
      if (l.kind === 'real' && r.kind === 'real') {
        const cmp = l.num * r.den - r.num * l.den;
        switch (e.op) {
          case '+':
            return realValue(l.num * r.den + r.num * l.den, l.den * r.den);
          case '-':
            return realValue(l.num * r.den - r.num * l.den, l.den * r.den);
          case '*':
            return realValue(l.num * r.num, l.den * r.den);
          case '/':
            if (r.num === 0n) return fail('division by zero');
            return realValue(l.num * r.den, l.den * r.num);
          case '<':
            return boolValue(cmp < 0n);
          case '<=':
            return boolValue(cmp <= 0n);
          case '>':
            return boolValue(cmp > 0n);
          case '>=':
            return boolValue(cmp >= 0n);
        }
      }
      if (l.kind === 'float' && r.kind === 'float') {
        const c = ieee.compare(l, l.bits, r.bits);
        switch (e.op) {
          case '<':
            return boolValue(c === -1);
          case '<=':
            return boolValue(c === -1 || c === 0);
          case '>':
            return boolValue(c === 1);
          case '>=':
            return boolValue(c === 1 || c === 0);
        }
      }
      if (l.kind === 'bv' && r.kind === 'bv') {
        const w = l.width;
        switch (e.op) {
          case '+':
            return bvValue(l.value + r.value, w);
          case '-':
            return bvValue(l.value - r.value, w);
          case '*':
            return bvValue(l.value * r.value, w);
          case '&':
            return bvValue(l.value & r.value, w);
          case '|':
            return bvValue(l.value | r.value, w);
          case '^':
            return bvValue(l.value ^ r.value, w);
          case '<<':
            return r.value >= BigInt(w) ? bvValue(0, w) : bvValue(l.value << r.value, w);
        }
      }
      return fail(`cannot apply '${e.op}' to ${l.kind} and ${r.kind}`);
    }
    case 'app': {
      if (e.fn === 'old') return evalExpr(e.args[0], oldState, oldState);
      const a = e.args.map(ev);
      if (isFloatBuiltin(e.fn)) return evalFloatBuiltin(e.fn, a) as ImpValue;
      const m = /^(zext|sext|trunc|int2bv)(\d+)$/.exec(e.fn);
      if (m) {
        const n = Number(m[2]) as BvWidth;
        const x = a[0];
        if (m[1] === 'int2bv') return bvValue((x as { value: bigint }).value, n);
        const bx = x as { value: bigint; width: BvWidth };
        if (m[1] === 'sext') return bvValue(toSigned(bx.value, bx.width), n);
        return bvValue(bx.value, n);
      }
      if (e.fn === 'to_real') return realValue((a[0] as { value: bigint }).value);
      if (e.fn === 'to_int') {
        const x = a[0] as { num: bigint; den: bigint };
        return intValue(floorDiv(x.num, x.den));
      }
      const x = a[0] as { value: bigint; width: BvWidth };
      if (e.fn === 'ubv2int') return intValue(x.value);
      if (e.fn === 'sbv2int') return intValue(toSigned(x.value, x.width));
      const y = a[1] as { value: bigint; width: BvWidth };
      const w = x.width;
      const sx = toSigned(x.value, w);
      const sy = toSigned(y.value, w);
      switch (e.fn) {
        case 'udiv':
          return y.value === 0n ? bvValue(-1, w) : bvValue(x.value / y.value, w);
        case 'urem':
          return y.value === 0n ? bvValue(x.value, w) : bvValue(x.value % y.value, w);
        case 'sdiv':
          // SMT-LIB: bvsdiv by zero is -1 for x >= 0 and 1 for x < 0; else truncating, as C.
          return sy === 0n ? bvValue(sx < 0n ? 1 : -1, w) : bvValue(sx / sy, w);
        case 'srem':
          return sy === 0n ? bvValue(x.value, w) : bvValue(sx % sy, w);
        case 'ashr':
          return bvValue(y.value >= BigInt(w) ? (sx < 0n ? -1n : 0n) : sx >> y.value, w);
        case 'lshr':
          return y.value >= BigInt(w) ? bvValue(0, w) : bvValue(x.value >> y.value, w);
      }
      const compared = compareBitVectors(e.fn, x.value, y.value, w);
      return compared === undefined ? fail(`unknown function '${e.fn}'`) : boolValue(compared);
    }
    case 'ite': {
      const c = ev(e.cond) as { value: boolean };
      return c.value ? ev(e.then) : ev(e.else);
    }
    case 'select': {
      const mv = ev(e.map);
      if (mv.kind !== 'map') return fail('select on a non-map');
      const hit = mv.entries.get(valueKey(ev(e.index)));
      return hit ? hit.value : mv.default;
    }
    case 'store': {
      const mv = ev(e.map);
      if (mv.kind !== 'map') return fail('store on a non-map');
      const index = ev(e.index);
      const entries = new Map(mv.entries);
      entries.set(valueKey(index), { index, value: ev(e.value) });
      return { kind: 'map', default: mv.default, entries };
    }
  }
}

const truth = (v: ImpValue): boolean => v.kind === 'bool' && v.value;

/** The bit-vector comparison `fn` (slt, sle, sgt, sge, ult, ule, ugt, uge) of two values of width `w`; undefined for any other name. */
export function compareBitVectors(fn: string, x: bigint, y: bigint, w: number): boolean | undefined {
  switch (fn) {
    case 'slt':
      return BigInt.asIntN(w, x) < BigInt.asIntN(w, y);
    case 'sle':
      return BigInt.asIntN(w, x) <= BigInt.asIntN(w, y);
    case 'sgt':
      return BigInt.asIntN(w, x) > BigInt.asIntN(w, y);
    case 'sge':
      return BigInt.asIntN(w, x) >= BigInt.asIntN(w, y);
    case 'ult':
      return x < y;
    case 'ule':
      return x <= y;
    case 'ugt':
      return x > y;
    case 'uge':
      return x >= y;
    default:
      return undefined;
  }
}

/** The variables of a running procedure (its frame before the globals), read live: what `evalExpr` reads. */
class LiveScope implements ImpState {
  constructor(
    private readonly frame: ReadonlyMap<string, ImpValue>,
    private readonly globals: ReadonlyMap<string, ImpValue>,
  ) {}
  get(name: string): ImpValue | undefined {
    return this.frame.get(name) ?? this.globals.get(name);
  }
  has(name: string): boolean {
    return this.frame.has(name) || this.globals.has(name);
  }
  private merged(): Map<string, ImpValue> {
    return new Map([...this.globals, ...this.frame]);
  }
  get size(): number {
    return this.merged().size;
  }
  forEach(f: (value: ImpValue, key: string, map: ReadonlyMap<string, ImpValue>) => void): void {
    this.merged().forEach((v, k) => f(v, k, this));
  }
  entries(): MapIterator<[string, ImpValue]> {
    return this.merged().entries();
  }
  keys(): MapIterator<string> {
    return this.merged().keys();
  }
  values(): MapIterator<ImpValue> {
    return this.merged().values();
  }
  [Symbol.iterator](): MapIterator<[string, ImpValue]> {
    return this.merged()[Symbol.iterator]();
  }
}

/** Runs a procedure on concrete inputs (parameters and globals by name). */
export function executeImp(
  program: ImpProgram,
  procName: string,
  inputs: Readonly<Record<string, ImpValue>> | ReadonlyMap<string, ImpValue>,
  options: ExecuteOptions = {},
): ExecutionResult {
  const proc = findProcedure(program, procName);
  if (!proc) throw new Error(`no procedure '${procName}'`);
  const given = inputs instanceof Map ? (inputs as ReadonlyMap<string, ImpValue>) : new Map(Object.entries(inputs));
  const maxSteps = options.maxSteps ?? 1_000_000;
  const havoc = options.havoc ?? ((_n: string, t: ImpType) => zeroValue(t));
  const checkInvariants = options.checkInvariants !== false;
  let steps = 0;
  const globals = new Map<string, ImpValue>();
  for (const g of program.globals) globals.set(g.name, given.get(g.name) ?? havoc(g.name, g.type, g.loc));

  // One frame: the procedure's own variables; globals are shared.
  type Frame = Map<string, ImpValue>;
  let topLive: Frame | undefined;
  // A copy of the variables in scope (the state handed out), and a live
  // view of them to evaluate in (a copy at every statement cost more than
  // the evaluation on programs with many variables).
  const view = (f: Frame): Map<string, ImpValue> => new Map([...globals, ...f]);
  const live = (f: Frame): ImpState => new LiveScope(f, globals);
  const setVar = (f: Frame, name: string, v: ImpValue) => {
    if (f.has(name)) f.set(name, v);
    else globals.set(name, v);
  };
  const typeOfVar = (p: Procedure, name: string): ImpType => {
    const d = [...p.params, ...p.returns, ...p.locals, ...program.globals].find((x) => x.name === name);
    return d!.type;
  };
  const tick = (loc: SourceLocation) => {
    if (++steps > maxSteps) throw new Stop('out-of-steps', loc, `more than ${maxSteps} steps`);
    if ((steps & 255) === 0 && options.outOfTime?.()) throw new Stop('out-of-steps', loc, `out of time after ${steps} steps`);
  };

  const runProc = (p: Procedure, args: ImpValue[], callLoc: SourceLocation | undefined, top: boolean): { frame: Frame; results: ImpValue[] } => {
    const frame: Frame = new Map();
    if (top) topLive = frame;
    p.params.forEach((d, k) => frame.set(d.name, args[k]));
    for (const d of [...p.returns, ...p.locals]) frame.set(d.name, top && given.has(d.name) ? given.get(d.name)! : havoc(d.name, d.type, d.loc));
    const old = view(frame);
    for (const r of p.requires) {
      if (!truth(evalExpr(r, old))) {
        if (top) throw new Stop('assume-failed', r.loc, 'the precondition does not hold for these inputs');
        throw new Stop('assertion-failed', callLoc ?? r.loc, `precondition of '${p.name}' is false`);
      }
    }
    if (!p.body) {
      if (top) throw new Stop('error', p.loc, `procedure '${p.name}' has no body`);
      for (const d of p.returns) frame.set(d.name, havoc(d.name, d.type, callLoc ?? d.loc));
      for (const e of p.ensures) {
        if (!truth(evalExpr(e, view(frame), old))) throw new Stop('assume-failed', e.loc, `postcondition of bodiless '${p.name}' is false for the chosen results`);
      }
      return { frame, results: p.returns.map((d) => frame.get(d.name)!) };
    }
    const scope = live(frame);
    const exec = (ss: readonly Stmt[]): void => {
      for (const s of ss) stmt(s);
    };
    const stmt = (s: Stmt): void => {
      tick(s.loc);
      switch (s.kind) {
        case 'skip':
          return;
        case 'assign': {
          const v = evalExpr(s.value, scope, old);
          setVar(frame, s.target, v);
          options.onAssign?.(s.target, v, s.loc);
          return;
        }
        case 'havoc':
          setVar(frame, s.target, havoc(s.target, typeOfVar(p, s.target), s.loc));
          return;
        case 'assume':
          if (!truth(evalExpr(s.cond, scope, old))) throw new Stop('assume-failed', s.loc, 'assumption is false');
          return;
        case 'assert':
          if (!truth(evalExpr(s.cond, scope, old))) throw new Stop('assertion-failed', s.loc, 'assertion is false', s.goal);
          return;
        case 'block':
          exec(s.body);
          return;
        case 'if': {
          const taken = truth(evalExpr(s.cond, scope, old));
          options.onBranch?.(s.loc, taken);
          exec(taken ? s.then : s.else);
          return;
        }
        case 'while':
          for (let iteration = 0; ; iteration++) {
            if (options.onLoopHead) options.onLoopHead(s.loc, view(frame), iteration);
            if (checkInvariants) {
              for (const inv of s.invariants) {
                if (!truth(evalExpr(inv, scope, old))) throw new Stop('assertion-failed', inv.loc, 'loop invariant is false');
              }
            }
            if (!truth(evalExpr(s.cond, scope, old))) return;
            exec(s.body);
            tick(s.loc);
          }
        case 'call': {
          const callee = findProcedure(program, s.proc);
          if (!callee) throw new Stop('error', s.loc, `unknown procedure '${s.proc}'`);
          const args = s.args.map((a) => evalExpr(a, scope, old));
          const r = runProc(callee, args, s.loc, false);
          s.targets.forEach((t, k) => setVar(frame, t, r.results[k]));
          return;
        }
      }
    };
    exec(p.body);
    const fin = view(frame);
    for (const e of p.ensures) {
      if (!truth(evalExpr(e, fin, old))) throw new Stop('assertion-failed', e.loc, `postcondition of '${p.name}' is false`);
    }
    return { frame, results: p.returns.map((d) => frame.get(d.name)!) };
  };

  const args = proc.params.map((d) => given.get(d.name) ?? havoc(d.name, d.type, d.loc));
  try {
    const r = runProc(proc, args, undefined, true);
    return { status: 'returned', state: view(r.frame), returns: r.results, steps };
  } catch (e) {
    if (e instanceof Stop) return { status: e.status, loc: e.loc, message: e.message, ...(e.goal ? { goal: e.goal } : {}), state: lastState(), steps };
    if (e instanceof RangeError) return { status: 'error', loc: proc.loc, message: 'calls nested too deeply', state: lastState(), steps };
    throw e;
  }
  function lastState(): ImpState {
    return topLive ? view(topLive) : new Map(globals);
  }
}
