// The meaning of IMP expressions in the Horn clauses of chc.ts, in one of two
// semantics:
//
// - `bv`: bit-vectors as bit-vectors (vc/'s own translation);
// - `int`: every bit-vector is a mathematical integer, its value read in one
//   *view* (signed, in [-2^(w-1), 2^(w-1)), or unsigned, in [0, 2^w)), and
//   every operation exact modulo 2^w: a result r that may leave the view's
//   range becomes r - 2^w·k with a fresh integer k and the range asserted
//   (`exact`), or stays r with an obligation that it is in range (`check`:
//   simpler clauses, and a proof then also shows that nothing wraps).
//
// Soundness of `int`: map each bit-vector state to the integers of its
// views; every bit-vector execution maps to an integer execution of the
// clauses (each constraint the translation adds holds of the image: ranges,
// quotients, the unique k), so an integer proof is a proof of the program.
// Operations without an exact linear or polynomial form (bitwise `|`, `^`,
// shifts by variables, floats) make the translation fail (ChcUnsupported).

import type { BvWidth, Expr, ImpType } from '../ivl/ast.js';
import { ArraySort, BoolSort, IntSort, RealSort, mkAnd, mkApp, mkEq, mkImplies, mkInt, mkIte, mkNot, mkOr, mkSelect, mkStore, type Sort, type Term } from '../smt/terms.js';
import { sortOf, translateExpr } from '../vc/translate.js';

/** A program the Horn encoding cannot express (the engine then has no answer). */
export class ChcUnsupported extends Error {}

/** How a bit-vector variable is read as an integer in the `int` semantics. */
export type View = 's' | 'u';

/** What a translation may add where the expression is evaluated. */
export interface TranslationContext {
  /** A fresh constant of the clause (existential in its body). */
  fresh(sort: Sort, hint: string): Term;
  /** A constraint that holds of every execution's image here (definitions of fresh constants, ranges). */
  define(c: Term): void;
  /** A condition the proof must show (`check` wrap mode): an error clause if it can fail here. */
  obligation(c: Term, what: string): void;
}

export interface ChcSemantics {
  readonly name: 'bv' | 'int';
  sort(t: ImpType): Sort;
  /** What every value of a variable of type `t` satisfies (int: its view's range), or undefined. */
  domain(name: string, t: ImpType, v: Term): Term | undefined;
  /** The term of `e`; `target`: the variable it is assigned to (its view, in `int`). */
  translate(e: Expr, lookup: (name: string) => Term, ctx: TranslationContext, target?: string): Term;
}

function unsupported(what: string): never {
  throw new ChcUnsupported(what);
}

/** Bit-vectors as bit-vectors: vc/'s translation (floats excepted: the Horn engine has no floating point). */
export function bvSemantics(types: ReadonlyMap<string, ImpType>): ChcSemantics {
  const noFloat = (t: ImpType): void => {
    if (t.kind === 'float' || t.kind === 'rmode') unsupported('floating point');
    if (t.kind === 'map') {
      noFloat(t.key);
      noFloat(t.value);
    }
  };
  for (const t of types.values()) noFloat(t);
  return {
    name: 'bv',
    sort: (t) => sortOf(t),
    domain: () => undefined,
    translate: (e, lookup) => translateExpr(e, { lookup, lookupOld: lookup }),
  };
}

/** A bit-vector value of the `int` semantics: an integer term in a view of width w. */
interface BvValue {
  readonly t: Term;
  readonly w: number;
  readonly view: View;
}

const pow2 = (n: number): bigint => 1n << BigInt(n);

function lo(w: number, view: View): bigint {
  return view === 's' ? -pow2(w - 1) : 0n;
}
function hi(w: number, view: View): bigint {
  return view === 's' ? pow2(w - 1) - 1n : pow2(w) - 1n;
}

function inRange(t: Term, w: number, view: View): Term {
  return mkAnd(mkApp('<=', mkInt(lo(w, view)), t), mkApp('<=', t, mkInt(hi(w, view))));
}

const isLit = (t: Term): boolean => t.op === 'int';

function add(a: Term, b: Term): Term {
  if (isLit(b) && b.value === 0n) return a;
  if (isLit(a) && a.value === 0n) return b;
  return mkApp('+', a, b);
}
function sub(a: Term, b: Term): Term {
  if (isLit(b) && b.value === 0n) return a;
  return mkApp('-', a, b);
}
function mul(a: Term, b: Term): Term {
  if (isLit(a) && a.value === 1n) return b;
  if (isLit(b) && b.value === 1n) return a;
  if (isLit(b) && !isLit(a)) return mkApp('*', b, a);
  return mkApp('*', a, b);
}

/** The canonical view of map keys and values (a map's elements are read and written through one representation). */
const MAP_VIEW: View = 's';

/**
 * Integers for bit-vectors. `views` gives each bit-vector variable's view
 * (a variable it does not name is signed).
 */
export function intSemantics(types: ReadonlyMap<string, ImpType>, views: ReadonlyMap<string, View>, wrap: 'exact' | 'check'): ChcSemantics {
  const viewOf = (name: string): View => views.get(name) ?? 's';
  const sort = (t: ImpType): Sort => {
    switch (t.kind) {
      case 'bool':
        return BoolSort;
      case 'int':
      case 'bv':
        return IntSort;
      case 'real':
        return RealSort;
      case 'map':
        return ArraySort(sort(t.key), sort(t.value));
      default:
        return unsupported('floating point');
    }
  };
  for (const t of types.values()) sort(t);

  /** The value of a map element of type t read at the canonical view, with its range. */
  const elementDomain = (t: ImpType, v: Term): Term | undefined => (t.kind === 'bv' ? inRange(v, t.width, MAP_VIEW) : undefined);

  const translate = (e: Expr, lookup: (name: string) => Term, ctx: TranslationContext, target?: string): Term => {
    const typeOfVar = (name: string): ImpType => {
      const t = types.get(name);
      if (!t) throw new Error(`unknown variable '${name}'`);
      return t;
    };

    /** r, known ≡ the result mod 2^w, as a value in `view`. */
    const wrapTo = (r: Term, w: number, view: View, what: string): BvValue => {
      if (isLit(r)) {
        const m = pow2(w);
        let v = ((r.value! % m) + m) % m;
        if (view === 's' && v > hi(w, 's')) v -= m;
        return { t: mkInt(v), w, view };
      }
      if (wrap === 'check') {
        ctx.obligation(inRange(r, w, view), what);
        return { t: r, w, view };
      }
      const k = ctx.fresh(IntSort, 'k');
      const out = sub(r, mul(mkInt(pow2(w)), k));
      ctx.define(inRange(out, w, view));
      return { t: out, w, view };
    };

    const toView = (v: BvValue, view: View): BvValue => {
      if (v.view === view) return v;
      if (isLit(v.t)) return wrapTo(v.t, v.w, view, 'conversion');
      const m = mkInt(pow2(v.w));
      if (view === 'u') return { t: mkIte(mkApp('<', v.t, mkInt(0)), add(v.t, m), v.t), w: v.w, view };
      return { t: mkIte(mkApp('>=', v.t, mkInt(pow2(v.w - 1))), sub(v.t, m), v.t), w: v.w, view };
    };

    /** a = d·q + r with 0 <= r < d (d > 0 a constant): fresh q and r. */
    const divMod = (a: Term, d: bigint): { q: Term; r: Term } => {
      const q = ctx.fresh(IntSort, 'q');
      const r = ctx.fresh(IntSort, 'r');
      ctx.define(mkEq(a, add(mul(mkInt(d), q), r)));
      ctx.define(mkAnd(mkApp('<=', mkInt(0), r), mkApp('<', r, mkInt(d))));
      return { q, r };
    };

    const constant = (v: BvValue): bigint | undefined => (isLit(v.t) ? v.t.value! : undefined);

    const bool = (x: Expr): Term => {
      const t = go(x);
      if ('w' in t) throw new Error('bit-vector where a Boolean is expected');
      return t;
    };
    const bv = (x: Expr): BvValue => {
      const t = go(x);
      if (!('w' in t)) throw new Error('expected a bit-vector');
      return t;
    };
    const plain = (x: Expr): Term => {
      const t = go(x);
      return 'w' in t ? t.t : t;
    };

    const go = (x: Expr): BvValue | Term => {
      switch (x.kind) {
        case 'bool_lit':
        case 'int_lit':
        case 'real_lit':
          return translateExpr(x, { lookup, lookupOld: lookup });
        case 'bv_lit':
          return wrapTo(mkInt(x.value), x.width, 's', 'literal');
        case 'float_lit':
        case 'rm_lit':
          return unsupported('floating point');
        case 'var': {
          const t = typeOfVar(x.name);
          const v = lookup(x.name);
          return t.kind === 'bv' ? { t: v, w: t.width, view: viewOf(x.name) } : v;
        }
        case 'unary': {
          if (x.op === '!') return mkNot(bool(x.arg));
          const a = go(x.arg);
          if (!('w' in a)) return x.op === '-' ? (isLit(a) ? mkInt(-a.value!) : mkApp('-', a)) : unsupported(`~ on ${a.sort.kind}`);
          // -a and ~a = -a - 1, modulo 2^w.
          const r = x.op === '-' ? mkApp('-', a.t) : sub(mkApp('-', a.t), mkInt(1));
          return wrapTo(isLit(a.t) ? mkInt(x.op === '-' ? -a.t.value! : -a.t.value! - 1n) : r, a.w, a.view, x.op === '-' ? 'negation' : 'complement');
        }
        case 'binary':
          return binary(x);
        case 'app':
          return app(x);
        case 'ite': {
          const c = bool(x.cond);
          const a = go(x.then);
          const b = go(x.else);
          if ('w' in a && 'w' in b) {
            const b2 = toView(b, a.view);
            return { t: mkIte(c, a.t, b2.t), w: a.w, view: a.view };
          }
          return mkIte(c, a as Term, b as Term);
        }
        case 'select': {
          const m = plain(x.map);
          const i = mapIndex(x.index);
          const v = mkSelect(m, i);
          const mt = mapTypeOf(x.map);
          if (mt.value.kind === 'bv') {
            ctx.define(elementDomain(mt.value, v)!);
            return { t: v, w: mt.value.width, view: MAP_VIEW };
          }
          return v;
        }
        case 'store': {
          const m = plain(x.map);
          const i = mapIndex(x.index);
          const val = go(x.value);
          return mkStore(m, i, 'w' in val ? toView(val, MAP_VIEW).t : val);
        }
      }
    };

    const mapIndex = (x: Expr): Term => {
      const i = go(x);
      return 'w' in i ? toView(i, MAP_VIEW).t : i;
    };

    const mapTypeOf = (x: Expr): Extract<ImpType, { kind: 'map' }> => {
      // Maps are variables, stores over them, or selects from maps of maps.
      if (x.kind === 'var') {
        const t = typeOfVar(x.name);
        if (t.kind === 'map') return t;
      } else if (x.kind === 'store') return mapTypeOf(x.map);
      else if (x.kind === 'select') {
        const outer = mapTypeOf(x.map);
        if (outer.value.kind === 'map') return outer.value;
      } else if (x.kind === 'ite') return mapTypeOf(x.then);
      return unsupported('a map expression of an unknown shape');
    };

    const binary = (x: Extract<Expr, { kind: 'binary' }>): BvValue | Term => {
      switch (x.op) {
        case '<==>':
          return mkEq(bool(x.left), bool(x.right));
        case '==>':
          return mkImplies(bool(x.left), bool(x.right));
        case '<==':
          return mkImplies(bool(x.right), bool(x.left));
        case '&&':
          return mkAnd(bool(x.left), bool(x.right));
        case '||':
          return mkOr(bool(x.left), bool(x.right));
        case '==':
        case '!=': {
          const a = go(x.left);
          const b = go(x.right);
          const eq = 'w' in a && 'w' in b ? mkEq(a.t, toView(b, a.view).t) : mkEq(a as Term, b as Term);
          return x.op === '==' ? eq : mkNot(eq);
        }
        default:
          break;
      }
      const a = go(x.left);
      const b = go(x.right);
      if (!('w' in a) || !('w' in b)) {
        // Integer and real arithmetic: as vc/ translates it.
        const l = a as Term;
        const r = b as Term;
        switch (x.op) {
          case '<':
          case '<=':
          case '>':
          case '>=':
            return mkApp(x.op, l, r);
          case '+':
            return mkApp('+', l, r);
          case '-':
            return mkApp('-', l, r);
          case '*':
            return mkApp('*', l, r);
          case '/':
            return mkApp(l.sort.kind === 'Real' ? '/' : 'div', l, r);
          case '%':
            return mkApp('mod', l, r);
          default:
            return unsupported(`${x.op} on integers`);
        }
      }
      const ca = constant(a);
      const cb = constant(b);
      // As C's usual conversions: unsigned if an operand is (a constant takes the other's view).
      const view: View = (ca === undefined && a.view === 'u') || (cb === undefined && b.view === 'u') ? 'u' : 's';
      switch (x.op) {
        case '+':
          return wrapTo(ca !== undefined && cb !== undefined ? mkInt(ca + cb) : add(a.t, b.t), a.w, view, 'addition');
        case '-':
          return wrapTo(ca !== undefined && cb !== undefined ? mkInt(ca - cb) : sub(a.t, b.t), a.w, view, 'subtraction');
        case '*':
          return wrapTo(ca !== undefined && cb !== undefined ? mkInt(ca * cb) : mul(a.t, b.t), a.w, view, 'multiplication');
        case '<<': {
          const s = cb === undefined ? unsupported('a shift by a variable amount') : cb;
          if (s >= BigInt(a.w)) return { t: mkInt(0), w: a.w, view: a.view };
          return wrapTo(ca !== undefined ? mkInt(ca << s) : mul(mkInt(1n << s), a.t), a.w, a.view, 'shift');
        }
        case '&': {
          // x & (2^c - 1) is x mod 2^c (unsigned); x & 0 is 0.
          const [v, mask] = cb !== undefined ? [a, cb] : ca !== undefined ? [b, ca] : [undefined, undefined];
          if (v === undefined || mask === undefined) return unsupported('& of two variables');
          if (mask === 0n) return { t: mkInt(0), w: a.w, view: 's' };
          if ((mask & (mask + 1n)) !== 0n) return unsupported('& with a mask that is not 2^c - 1');
          if (mask === pow2(a.w) - 1n) return v;
          const u = toView(v, 'u');
          return { t: divMod(u.t, mask + 1n).r, w: a.w, view: 'u' };
        }
        case '|':
        case '^': {
          if (cb === 0n) return a;
          if (ca === 0n) return b;
          return unsupported(`${x.op} on bit-vectors`);
        }
        default:
          return unsupported(`${x.op} on bit-vectors`);
      }
    };

    const app = (x: Extract<Expr, { kind: 'app' }>): BvValue | Term => {
      const CMP: Record<string, [string, View]> = {
        slt: ['<', 's'], sle: ['<=', 's'], sgt: ['>', 's'], sge: ['>=', 's'],
        ult: ['<', 'u'], ule: ['<=', 'u'], ugt: ['>', 'u'], uge: ['>=', 'u'],
      };
      const cmp = CMP[x.fn];
      if (cmp) return mkApp(cmp[0], toView(bv(x.args[0]!), cmp[1]).t, toView(bv(x.args[1]!), cmp[1]).t);
      const m = /^(zext|sext|trunc|int2bv)(\d+)$/.exec(x.fn);
      if (m) {
        const n = Number(m[2]) as BvWidth;
        if (m[1] === 'int2bv') return wrapTo(plain(x.args[0]!), n, 's', 'conversion');
        const a = bv(x.args[0]!);
        if (m[1] === 'zext') return { t: toView(a, 'u').t, w: n, view: 'u' };
        if (m[1] === 'sext') return { t: toView(a, 's').t, w: n, view: 's' };
        return n >= a.w ? a : wrapTo(a.t, n, a.view, 'truncation');
      }
      switch (x.fn) {
        case 'ubv2int':
          return toView(bv(x.args[0]!), 'u').t;
        case 'sbv2int':
          return toView(bv(x.args[0]!), 's').t;
        case 'sdiv':
        case 'srem':
        case 'udiv':
        case 'urem':
          return division(x.fn, bv(x.args[0]!), bv(x.args[1]!));
        case 'ashr':
        case 'lshr': {
          const a = toView(bv(x.args[0]!), x.fn === 'ashr' ? 's' : 'u');
          const s = constant(bv(x.args[1]!));
          if (s === undefined) return unsupported('a shift by a variable amount');
          if (s === 0n) return a;
          if (s >= BigInt(a.w)) return x.fn === 'lshr' ? { t: mkInt(0), w: a.w, view: 'u' } : { t: mkIte(mkApp('<', a.t, mkInt(0)), mkInt(-1), mkInt(0)), w: a.w, view: 's' };
          // Floor division by 2^s: the quotient stays in the view's range.
          return { t: divMod(a.t, 1n << s).q, w: a.w, view: a.view };
        }
        case 'to_real':
        case 'to_int':
          return mkApp(x.fn, plain(x.args[0]!));
        case 'old':
          return go(x.args[0]!);
        default:
          return unsupported(`${x.fn} in Horn clauses`);
      }
    };

    /** C's truncating division (sdiv, srem) or unsigned division, with SMT-LIB's results for a zero divisor. */
    const division = (fn: string, a0: BvValue, b0: BvValue): BvValue => {
      const signed = fn === 'sdiv' || fn === 'srem';
      const view: View = signed ? 's' : 'u';
      const a = toView(a0, view);
      const b = toView(b0, view);
      const w = a.w;
      const quotient = fn === 'sdiv' || fn === 'udiv';
      const d = constant(b);
      if (d !== undefined && d !== 0n) {
        if (!signed) {
          const { q, r } = divMod(a.t, d);
          return { t: quotient ? q : r, w, view };
        }
        if (d === -1n) return quotient ? wrapTo(mkApp('-', a.t), w, 's', 'division') : { t: mkInt(0), w, view };
        // a = d·q + r, |r| < |d|, r of a's sign (or 0): truncation toward zero.
        const q = ctx.fresh(IntSort, 'q');
        const r = ctx.fresh(IntSort, 'r');
        const ad = d < 0n ? -d : d;
        ctx.define(mkEq(a.t, add(mul(mkInt(d), q), r)));
        ctx.define(mkImplies(mkApp('>=', a.t, mkInt(0)), mkAnd(mkApp('<=', mkInt(0), r), mkApp('<', r, mkInt(ad)))));
        ctx.define(mkImplies(mkApp('<', a.t, mkInt(0)), mkAnd(mkApp('<', mkInt(-ad), r), mkApp('<=', r, mkInt(0)))));
        return { t: quotient ? q : r, w, view };
      }
      if (d === 0n) {
        // bvudiv x 0 = all ones, bvurem x 0 = x; bvsdiv x 0 = (x < 0 ? 1 : -1), bvsrem x 0 = x.
        if (!quotient) return a;
        return signed ? { t: mkIte(mkApp('<', a.t, mkInt(0)), mkInt(1), mkInt(-1)), w, view } : { t: mkInt(pow2(w) - 1n), w, view };
      }
      // A variable divisor: SMT's Euclidean div/mod on magnitudes (non-linear).
      const zero = mkEq(b.t, mkInt(0));
      if (!signed) {
        const q = mkIte(zero, mkInt(pow2(w) - 1n), mkApp('div', a.t, b.t));
        const r = mkIte(zero, a.t, mkApp('mod', a.t, b.t));
        return { t: quotient ? q : r, w, view };
      }
      const abs = (t: Term) => mkIte(mkApp('<', t, mkInt(0)), mkApp('-', t), t);
      const qa = mkApp('div', abs(a.t), abs(b.t));
      const negative = mkNot(mkEq(mkApp('<', a.t, mkInt(0)), mkApp('<', b.t, mkInt(0))));
      const q = mkIte(zero, mkIte(mkApp('<', a.t, mkInt(0)), mkInt(1), mkInt(-1)), mkIte(negative, mkApp('-', qa), qa));
      if (quotient) return wrapTo(q, w, 's', 'division');
      return { t: mkIte(zero, a.t, sub(a.t, mul(b.t, q))), w, view };
    };

    const out = go(e);
    if (!('w' in out)) return out;
    const t = target !== undefined ? typeOfVar(target) : undefined;
    return toView(out, t?.kind === 'bv' && target !== undefined ? viewOf(target) : MAP_VIEW).t;
  };

  return {
    name: 'int',
    sort,
    domain: (name, t, v) => (t.kind === 'bv' ? inRange(v, t.width, viewOf(name)) : undefined),
    translate,
  };
}
