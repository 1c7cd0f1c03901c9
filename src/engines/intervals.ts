// A proof of a loop-free program's goals by interval evaluation with
// bisection of its inputs: every havoc of a float or bit-vector is an input
// ranging over a box; the program is evaluated once per box with intervals
// (floats: analysis/float-interval.ts, exact bounds under round-to-nearest-
// even; bit-vectors: unsigned ranges; Booleans: three truth values), both
// branches of an undecided `if` joined. A box where every error and bound
// goal is definitely true is done; elsewhere the widest input is halved (a
// float's range in the order of its values, NaN a piece of its own) and the
// halves are tried, until every box is done (TRUE) or the time is up. The
// solvers bit-blast float arithmetic and time out on polynomials of one
// float input that a few thousand boxes decide.
import { BINARY32, BINARY64, fromInteger, toNumber, type FloatFormat } from '../common/ieee754.js';
import type { BuiltinName, Expr, ImpProgram, ImpType, Stmt } from '../ivl/ast.js';
import * as FI from '../analysis/float-interval.js';
import { freeVars } from '../ivl/walk.js';
import { roleOf, type GoalRoles } from './unroll.js';

export interface IntervalProofOptions {
  /** Milliseconds left; the search stops (undecided) when it reaches 0. */
  readonly deadline: () => number;
  readonly roles: GoalRoles;
}

export interface IntervalProof {
  readonly proved: boolean;
  /** Boxes evaluated. */
  readonly boxes: number;
  readonly reason: string;
}

type Abs =
  | { readonly k: 'float'; readonly f: FI.FloatFormatName; readonly iv: FI.FloatInterval }
  | { readonly k: 'bool'; readonly t: boolean; readonly f: boolean }
  /** Unsigned range. */
  | { readonly k: 'bv'; readonly w: number; readonly lo: bigint; readonly hi: bigint }
  | { readonly k: 'rm'; readonly mode: string }
  | { readonly k: 'top' };

/** A construct the evaluation does not handle: no proof is tried. */
class Outside extends Error {}

const TOP: Abs = { k: 'top' };
const EITHER: Abs = { k: 'bool', t: true, f: true };
const truth = (x: FI.Truth): Abs => ({ k: 'bool', t: x !== 'false', f: x !== 'true' });
const boolOf = (b: boolean): Abs => ({ k: 'bool', t: b, f: !b });

function fmtName(t: { eb: number; sb: number }): FI.FloatFormatName {
  if (t.eb === 8 && t.sb === 24) return 'fp32';
  if (t.eb === 11 && t.sb === 53) return 'fp64';
  throw new Outside('80-bit floats');
}
const formatOf = (f: FI.FloatFormatName): FloatFormat => (f === 'fp32' ? BINARY32 : BINARY64);

function topOf(t: ImpType): Abs {
  if (t.kind === 'float') return { k: 'float', f: fmtName(t), iv: FI.ANY_FLOAT };
  if (t.kind === 'bool') return EITHER;
  if (t.kind === 'bv') return { k: 'bv', w: t.width, lo: 0n, hi: (1n << BigInt(t.width)) - 1n };
  return TOP;
}

function join(a: Abs, b: Abs): Abs {
  if (a.k === 'float' && b.k === 'float') return { k: 'float', f: a.f, iv: FI.join(a.iv, b.iv) };
  if (a.k === 'bool' && b.k === 'bool') return { k: 'bool', t: a.t || b.t, f: a.f || b.f };
  if (a.k === 'bv' && b.k === 'bv') return { k: 'bv', w: a.w, lo: a.lo < b.lo ? a.lo : b.lo, hi: a.hi > b.hi ? a.hi : b.hi };
  if (a.k === 'rm' && b.k === 'rm' && a.mode === b.mode) return a;
  return TOP;
}

/** An input's range in one box: a float's, in the order of values (keys), or a bit-vector's. */
type Range = { readonly k: 'float'; readonly f: FI.FloatFormatName; readonly lo: bigint; readonly hi: bigint; readonly nan: boolean } | { readonly k: 'bv'; readonly w: number; readonly lo: bigint; readonly hi: bigint };

function signBit(f: FI.FloatFormatName): bigint {
  return f === 'fp32' ? 1n << 31n : 1n << 63n;
}
/** The bits of the value at a key: keys order the values, -0 just below +0. */
function bitsOfKey(f: FI.FloatFormatName, k: bigint): bigint {
  return k < 0n ? -(k + 1n) | signBit(f) : k;
}
function maxKey(f: FI.FloatFormatName): bigint {
  return f === 'fp32' ? 0x7f800000n : 0x7ff0000000000000n;
}

function rangeValue(r: Range): Abs {
  if (r.k === 'bv') return { k: 'bv', w: r.w, lo: r.lo, hi: r.hi };
  if (r.lo > r.hi) return { k: 'float', f: r.f, iv: FI.NAN_ONLY };
  const fmt = formatOf(r.f);
  return { k: 'float', f: r.f, iv: { lo: toNumber(fmt, bitsOfKey(r.f, r.lo)), hi: toNumber(fmt, bitsOfKey(r.f, r.hi)), nan: r.nan } };
}

function split(r: Range): [Range, Range] | undefined {
  if (r.k === 'float' && r.nan && r.lo <= r.hi) return [{ ...r, nan: false }, { ...r, lo: 1n, hi: 0n }];
  if (r.hi <= r.lo) return undefined;
  const mid = r.lo + (r.hi - r.lo) / 2n;
  return [
    { ...r, hi: mid },
    { ...r, lo: mid + 1n },
  ];
}

function span(r: Range): number {
  if (r.k === 'float' && r.nan && r.lo <= r.hi) return Infinity;
  return r.hi > r.lo ? (r.hi - r.lo).toString(2).length : 0;
}

class Evaluator {
  private failed = false;

  constructor(
    private readonly types: ReadonlyMap<string, ImpType>,
    private readonly roles: GoalRoles,
    private readonly box: ReadonlyMap<Stmt, Range>,
  ) {}

  /** Whether every error and bound goal holds on the box. */
  run(body: readonly Stmt[]): boolean {
    this.stmts(body, new Map());
    return !this.failed;
  }

  /** The state after ss, or undefined when no execution gets there. */
  private stmts(ss: readonly Stmt[], st: Map<string, Abs> | undefined): Map<string, Abs> | undefined {
    for (const s of ss) {
      if (!st || this.failed) return st;
      st = this.stmt(s, st);
    }
    return st;
  }

  private stmt(s: Stmt, st: Map<string, Abs>): Map<string, Abs> | undefined {
    switch (s.kind) {
      case 'skip':
        return st;
      case 'assign':
        st.set(s.target, this.eval(s.value, st));
        return st;
      case 'havoc': {
        const r = this.box.get(s);
        st.set(s.target, r ? rangeValue(r) : topOf(this.types.get(s.target)!));
        return st;
      }
      case 'assume': {
        const c = this.cond(s.cond, st);
        return c.t ? st : undefined;
      }
      case 'assert': {
        const c = this.cond(s.cond, st);
        if (roleOf(s, this.roles) !== 'assume' && c.f) this.failed = true;
        return c.t ? st : undefined;
      }
      case 'block':
        return this.stmts(s.body, st);
      case 'if': {
        const c = this.cond(s.cond, st);
        if (!c.f) return this.stmts(s.then, st);
        if (!c.t) return this.stmts(s.else, st);
        const a = this.stmts(s.then, new Map(st));
        const b = this.stmts(s.else, st);
        if (!a) return b;
        if (!b) return a;
        for (const [n, x] of a) b.set(n, b.has(n) ? join(x, b.get(n)!) : x);
        return b;
      }
      default:
        throw new Outside(`a ${s.kind} statement`);
    }
  }

  private cond(e: Expr, st: Map<string, Abs>): { t: boolean; f: boolean } {
    const c = this.eval(e, st);
    return c.k === 'bool' ? c : { t: true, f: true };
  }

  private eval(e: Expr, st: Map<string, Abs>): Abs {
    const ev = (x: Expr) => this.eval(x, st);
    switch (e.kind) {
      case 'bool_lit':
        return boolOf(e.value);
      case 'bv_lit':
        return { k: 'bv', w: e.width, lo: e.value, hi: e.value };
      case 'float_lit': {
        const f = fmtName(e);
        return { k: 'float', f, iv: FI.point(toNumber(formatOf(f), e.bits)) };
      }
      case 'rm_lit':
        return { k: 'rm', mode: e.mode };
      case 'var': {
        const v = st.get(e.name);
        if (v) return v;
        const t = this.types.get(e.name);
        return t ? topOf(t) : TOP;
      }
      case 'unary': {
        const a = ev(e.arg);
        if (e.op === '!') return a.k === 'bool' ? { k: 'bool', t: a.f, f: a.t } : EITHER;
        if (a.k === 'float' && e.op === '-') return { k: 'float', f: a.f, iv: FI.neg(a.iv) };
        if (a.k === 'bv' && a.lo === a.hi) {
          const m = (1n << BigInt(a.w)) - 1n;
          const v = e.op === '-' ? (-a.lo) & m : ~a.lo & m;
          return { k: 'bv', w: a.w, lo: v, hi: v };
        }
        return a.k === 'bv' ? topOf({ kind: 'bv', width: a.w as 8 }) : TOP;
      }
      case 'binary':
        return this.binary(e, ev(e.left), ev(e.right));
      case 'app':
        return this.app(e.fn, e.args.map(ev));
      case 'ite': {
        const c = this.cond(e.cond, st);
        if (!c.f) return ev(e.then);
        if (!c.t) return ev(e.else);
        return join(ev(e.then), ev(e.else));
      }
      default:
        throw new Outside(`a ${e.kind} expression`);
    }
  }

  private binary(e: Extract<Expr, { kind: 'binary' }>, l: Abs, r: Abs): Abs {
    if (l.k === 'bool' && r.k === 'bool') {
      switch (e.op) {
        case '&&':
          return { k: 'bool', t: l.t && r.t, f: l.f || r.f };
        case '||':
          return { k: 'bool', t: l.t || r.t, f: l.f && r.f };
        case '==>':
          return { k: 'bool', t: l.f || r.t, f: l.t && r.f };
        case '<==>':
        case '==':
          return { k: 'bool', t: (l.t && r.t) || (l.f && r.f), f: (l.t && r.f) || (l.f && r.t) };
        case '!=':
          return { k: 'bool', t: (l.t && r.f) || (l.f && r.t), f: (l.t && r.t) || (l.f && r.f) };
      }
    }
    if (l.k === 'float' && r.k === 'float') {
      switch (e.op) {
        case '<':
          return truth(FI.lt(l.iv, r.iv));
        case '<=':
          return truth(FI.le(l.iv, r.iv));
        case '>':
          return truth(FI.lt(r.iv, l.iv));
        case '>=':
          return truth(FI.le(r.iv, l.iv));
        case '==':
        case '!=': {
          // Identity of values: decided only for points (a NaN point equals itself).
          const isPoint = (x: FI.FloatInterval) => Object.is(x.lo, x.hi) && !x.nan;
          const same = isPoint(l.iv) && isPoint(r.iv) && Object.is(l.iv.lo, r.iv.lo);
          const apart = FI.eq(l.iv, r.iv) === 'false' && !(l.iv.nan && r.iv.nan);
          const t: FI.Truth = same ? 'true' : apart ? 'false' : 'either';
          return truth(e.op === '==' ? t : t === 'true' ? 'false' : t === 'false' ? 'true' : 'either');
        }
      }
    }
    if (l.k === 'bv' && r.k === 'bv') {
      if (e.op === '==' || e.op === '!=') {
        const t: FI.Truth = l.lo === l.hi && r.lo === r.hi && l.lo === r.lo ? 'true' : l.hi < r.lo || r.hi < l.lo ? 'false' : 'either';
        return truth(e.op === '==' ? t : t === 'true' ? 'false' : t === 'false' ? 'true' : 'either');
      }
      if (l.lo === l.hi && r.lo === r.hi) {
        const m = (1n << BigInt(l.w)) - 1n;
        const a = l.lo;
        const b = r.lo;
        const v = e.op === '+' ? a + b : e.op === '-' ? a - b : e.op === '*' ? a * b : e.op === '&' ? a & b : e.op === '|' ? a | b : e.op === '^' ? a ^ b : e.op === '<<' ? (b >= BigInt(l.w) ? 0n : a << b) : undefined;
        if (v !== undefined) return { k: 'bv', w: l.w, lo: v & m, hi: v & m };
      }
      return topOf({ kind: 'bv', width: l.w as 8 });
    }
    return ['==', '!=', '<', '<=', '>', '>=', '&&', '||', '==>', '<==>'].includes(e.op) ? EITHER : TOP;
  }

  private app(fn: BuiltinName, a: readonly Abs[]): Abs {
    const fl = (k: number) => {
      const x = a[k];
      if (x?.k !== 'float') throw new Outside(`${fn} of a value not known as a float`);
      return x;
    };
    const rne = () => {
      const m = a[0];
      if (m?.k !== 'rm' || m.mode !== 'RNE') throw new Outside('a rounding mode other than RNE');
    };
    const F = (f: FI.FloatFormatName, iv: FI.FloatInterval): Abs => ({ k: 'float', f, iv });
    switch (fn) {
      case 'fadd':
      case 'fsub':
      case 'fmul':
      case 'fdiv': {
        rne();
        const x = fl(1);
        const y = fl(2);
        const op = fn === 'fadd' ? FI.add : fn === 'fsub' ? FI.sub : fn === 'fmul' ? FI.mul : FI.div;
        return F(x.f, op(x.f, x.iv, y.iv));
      }
      case 'fabs':
        return F(fl(0).f, FI.abs(fl(0).iv));
      case 'feq':
        return truth(FI.eq(fl(0).iv, fl(1).iv));
      case 'fisnan':
        return truth(FI.isNan(fl(0).iv));
      case 'fiszero':
        return truth(FI.isZero(fl(0).iv));
      case 'fisinf':
        return truth(FI.isInf(fl(0).iv));
      case 'fisneg':
        return truth(FI.isNegative(fl(0).iv));
      case 'to_fp32':
      case 'to_fp64': {
        rne();
        const to: FI.FloatFormatName = fn === 'to_fp32' ? 'fp32' : 'fp64';
        return F(to, FI.convert(to, fl(1).iv));
      }
      case 'sbv_to_fp32':
      case 'sbv_to_fp64':
      case 'ubv_to_fp32':
      case 'ubv_to_fp64': {
        rne();
        const to: FI.FloatFormatName = fn.endsWith('32') ? 'fp32' : 'fp64';
        const b = a[1];
        if (b?.k !== 'bv') throw new Outside(`${fn} of a value not known as a bit-vector`);
        const signed = fn.startsWith('s');
        const half = 1n << BigInt(b.w - 1);
        // Signed values: monotone only within one sign.
        if (signed && b.lo < half && b.hi >= half) return F(to, { lo: -Number(half), hi: Number(half), nan: false });
        const val = (v: bigint) => toNumber(formatOf(to), fromInteger(formatOf(to), 'RNE', signed ? BigInt.asIntN(b.w, v) : v));
        const lo = val(b.lo);
        const hi = val(b.hi);
        return F(to, { lo: Math.min(lo, hi), hi: Math.max(lo, hi), nan: false });
      }
      default:
        break;
    }
    // Bit-vector built-ins: exact on points, else unknown of their type.
    if (a.every((x) => x.k === 'bv' && x.lo === x.hi)) {
      const r = pointBuiltin(fn, a as Array<Abs & { k: 'bv' }>);
      if (r) return r;
    }
    if (/^(slt|sle|sgt|sge|ult|ule|ugt|uge)$/.test(fn)) return rangeCompare(fn, a[0]!, a[1]!);
    const m = /^(zext|sext|trunc|int2bv)(\d+)$|^fp_to_[su]bv(\d+)$/.exec(fn);
    if (m) return topOf({ kind: 'bv', width: Number(m[2] ?? m[3]) as 8 });
    if (/^(sdiv|udiv|srem|urem|ashr|lshr)$/.test(fn) && a[0]?.k === 'bv') return topOf({ kind: 'bv', width: a[0].w as 8 });
    throw new Outside(`the built-in ${fn}`);
  }
}

/** A comparison of bit-vector ranges: decided when the ranges (read signed or unsigned) do not overlap. */
function rangeCompare(fn: string, x: Abs, y: Abs): Abs {
  if (x.k !== 'bv' || y.k !== 'bv') return EITHER;
  const signed = fn.startsWith('s');
  const half = 1n << BigInt(x.w - 1);
  const view = (r: Abs & { k: 'bv' }): [bigint, bigint] | undefined => {
    if (!signed) return [r.lo, r.hi];
    // Read signed, a range is monotone only within one sign.
    if (r.lo < half && r.hi >= half) return undefined;
    return [BigInt.asIntN(r.w, r.lo), BigInt.asIntN(r.w, r.hi)];
  };
  const a = view(x);
  const b = view(y);
  if (!a || !b) return EITHER;
  const lt = (p: [bigint, bigint], q: [bigint, bigint]): FI.Truth => (p[1] < q[0] ? 'true' : p[0] >= q[1] ? 'false' : 'either');
  const le = (p: [bigint, bigint], q: [bigint, bigint]): FI.Truth => (p[1] <= q[0] ? 'true' : p[0] > q[1] ? 'false' : 'either');
  const op = fn.slice(1);
  return truth(op === 'lt' ? lt(a, b) : op === 'le' ? le(a, b) : op === 'gt' ? lt(b, a) : le(b, a));
}

function pointBuiltin(fn: BuiltinName, a: ReadonlyArray<Abs & { k: 'bv' }>): Abs | undefined {
  const w = a[0]!.w;
  const x = a[0]!.lo;
  const y = a[1]?.lo ?? 0n;
  const sx = BigInt.asIntN(w, x);
  const sy = BigInt.asIntN(w, y);
  const bv = (v: bigint, width = w): Abs => ({ k: 'bv', w: width, lo: BigInt.asUintN(width, v), hi: BigInt.asUintN(width, v) });
  switch (fn) {
    case 'slt':
      return boolOf(sx < sy);
    case 'sle':
      return boolOf(sx <= sy);
    case 'sgt':
      return boolOf(sx > sy);
    case 'sge':
      return boolOf(sx >= sy);
    case 'ult':
      return boolOf(x < y);
    case 'ule':
      return boolOf(x <= y);
    case 'ugt':
      return boolOf(x > y);
    case 'uge':
      return boolOf(x >= y);
  }
  const m = /^(zext|sext|trunc)(\d+)$/.exec(fn);
  if (m) return bv(m[1] === 'sext' ? sx : x, Number(m[2]));
  return undefined;
}

/** The havocs of a loop-free body whose value is read (a local declared without initialiser and assigned before its use is not). */
function readHavocs(body: readonly Stmt[]): Set<Stmt> {
  const read = new Set<Stmt>();
  const live = (ss: readonly Stmt[], out: Set<string>): Set<string> => {
    let cur = out;
    for (let i = ss.length - 1; i >= 0; i--) {
      const s = ss[i]!;
      switch (s.kind) {
        case 'assign':
          cur = new Set(cur);
          cur.delete(s.target);
          freeVars(s.value, cur);
          break;
        case 'havoc':
          if (cur.has(s.target)) read.add(s);
          cur = new Set(cur);
          cur.delete(s.target);
          break;
        case 'assume':
        case 'assert':
          cur = freeVars(s.cond, new Set(cur));
          break;
        case 'if':
          cur = freeVars(s.cond, new Set([...live(s.then, cur), ...live(s.else, cur)]));
          break;
        case 'block':
          cur = live(s.body, cur);
          break;
        case 'skip':
          break;
        default:
          throw new Outside(`a ${s.kind} statement`);
      }
    }
    return cur;
  };
  live(body, new Set());
  return read;
}

/** The inputs (float and bit-vector havocs whose value is read) of a loop-free body, with their whole ranges. */
function inputsOf(body: readonly Stmt[], types: ReadonlyMap<string, ImpType>): Map<Stmt, Range> {
  const out = new Map<Stmt, Range>();
  const read = readHavocs(body);
  const walk = (ss: readonly Stmt[]) => {
    for (const s of ss) {
      if (s.kind === 'havoc') {
        const t = types.get(s.target);
        if (!read.has(s)) continue;
        if (t?.kind === 'float') {
          const f = fmtName(t);
          out.set(s, { k: 'float', f, lo: -maxKey(f) - 1n, hi: maxKey(f), nan: true });
        } else if (t?.kind === 'bv') out.set(s, { k: 'bv', w: t.width, lo: 0n, hi: (1n << BigInt(t.width)) - 1n });
      } else if (s.kind === 'if') {
        walk(s.then);
        walk(s.else);
      } else if (s.kind === 'block') walk(s.body);
      else if (s.kind === 'while' || s.kind === 'call') throw new Outside(`a ${s.kind} statement`);
    }
  };
  walk(body);
  return out;
}

/** Tries to prove every error and bound goal of a loop-free `main` by interval evaluation over bisected inputs. */
export function proveByIntervals(program: ImpProgram, options: IntervalProofOptions): IntervalProof {
  const proc = program.procedures.find((p) => p.name === 'main') ?? program.procedures[0];
  if (!proc?.body || program.procedures.length !== 1) return { proved: false, boxes: 0, reason: 'not one procedure' };
  const types = new Map<string, ImpType>([...program.globals, ...proc.params, ...proc.returns, ...proc.locals].map((d) => [d.name, d.type]));
  let boxes = 0;
  try {
    const work: Array<Map<Stmt, Range>> = [inputsOf(proc.body, types)];
    while (work.length > 0) {
      if (options.deadline() <= 0) return { proved: false, boxes, reason: `time limit reached after ${boxes} boxes` };
      const box = work.pop()!;
      boxes++;
      if (new Evaluator(types, options.roles, box).run(proc.body)) continue;
      let widest: Stmt | undefined;
      let best = 0;
      for (const [s, r] of box) {
        const w = span(r);
        if (w > best) {
          best = w;
          widest = s;
        }
      }
      const halves = widest && split(box.get(widest)!);
      if (!halves) return { proved: false, boxes, reason: 'a goal is not decided on a box of single values' };
      for (const h of halves) work.push(new Map(box).set(widest!, h));
    }
    return { proved: true, boxes, reason: `every goal holds on each of ${boxes} boxes of the inputs' values` };
  } catch (e) {
    if (e instanceof Outside) return { proved: false, boxes, reason: `not evaluated by intervals: ${e.message}` };
    throw e;
  }
}
