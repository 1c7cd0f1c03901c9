// A solution of the Horn clauses (z3's model: one `define-fun` per
// predicate) read back as IMP loop invariants over the program's variables.
//
// In the `int` semantics a predicate argument standing for a bit-vector x is
// the integer of x's view: it becomes `sbv2int(x)` or `ubv2int(x)`, and the
// arithmetic stays in IMP's integers, so the invariant means in IMP exactly
// what it meant in the clauses. Conjuncts of shapes not read here
// (quantifiers, rationals) are left out: the invariant is then weaker, and
// the re-check on the program decides whether it is still enough.

import type { BvWidth, Expr, ImpType } from '../ivl/ast.js';
import { syntheticLoc } from '../ivl/ast.js';
import type { SExpr } from '../smt/sexpr.js';
import type { ChcPredicate } from './chc.js';
import type { View } from './chc-semantics.js';

const loc = syntheticLoc('<horn>');

/** How a predicate argument is read in IMP. */
export interface ArgumentReading {
  readonly name: string;
  readonly type: ImpType;
  /** Int semantics: the view of a bit-vector (its argument is that integer). */
  readonly view?: View;
}

/** The `define-fun`s of a model by name: parameters and body. */
export function modelDefinitions(model: readonly SExpr[]): Map<string, { params: string[]; body: SExpr }> {
  const out = new Map<string, { params: string[]; body: SExpr }>();
  const visit = (e: SExpr): void => {
    if (!Array.isArray(e)) return;
    if (e[0] === 'define-fun' && typeof e[1] === 'string' && Array.isArray(e[2]) && e.length >= 5) {
      const params = (e[2] as SExpr[]).map((p) => (Array.isArray(p) && typeof p[0] === 'string' ? unquote(p[0]) : ''));
      out.set(unquote(e[1]), { params, body: e[4]! });
      return;
    }
    for (const x of e) visit(x);
  };
  for (const e of model) visit(e);
  return out;
}

function unquote(s: string): string {
  return s.startsWith('|') && s.endsWith('|') ? s.slice(1, -1) : s;
}

class Unreadable extends Error {}

/** An expression and its IMP type; `intMap`: a map whose keys and values the clauses read as integers (signed views). */
type Typed = { readonly e: Expr; readonly type: ImpType; readonly intMap?: boolean };

const bool: ImpType = { kind: 'bool' };
const int: ImpType = { kind: 'int' };

function v(name: string): Expr {
  return { kind: 'var', name, loc };
}
function bin(op: Extract<Expr, { kind: 'binary' }>['op'], left: Expr, right: Expr): Expr {
  return { kind: 'binary', op, left, right, loc };
}
function app(fn: Extract<Expr, { kind: 'app' }>['fn'], ...args: Expr[]): Expr {
  return { kind: 'app', fn, args, loc };
}
function intLit(n: bigint): Expr {
  return n < 0n ? { kind: 'unary', op: '-', arg: { kind: 'int_lit', value: -n, loc }, loc } : { kind: 'int_lit', value: n, loc };
}

const BV_OPS: Record<string, Extract<Expr, { kind: 'binary' }>['op']> = { bvadd: '+', bvsub: '-', bvmul: '*', bvand: '&', bvor: '|', bvxor: '^', bvshl: '<<' };
const BV_APPS: Record<string, Extract<Expr, { kind: 'app' }>['fn']> = {
  bvsle: 'sle', bvslt: 'slt', bvsge: 'sge', bvsgt: 'sgt', bvule: 'ule', bvult: 'ult', bvuge: 'uge', bvugt: 'ugt',
  bvsdiv: 'sdiv', bvudiv: 'udiv', bvsrem: 'srem', bvurem: 'urem', bvashr: 'ashr', bvlshr: 'lshr',
};

/**
 * The conjuncts of a predicate's interpretation as IMP expressions over the
 * variables the predicate relates (those that could not be read are left out).
 */
export function readInvariant(def: { params: readonly string[]; body: SExpr }, pred: ChcPredicate, readings: readonly ArgumentReading[]): Expr[] {
  const params = new Map<string, Typed>();
  def.params.forEach((p, i) => {
    const r = readings[i];
    if (!r) return;
    if (r.type.kind === 'bv' && r.view) params.set(p, { e: app(r.view === 's' ? 'sbv2int' : 'ubv2int', v(r.name)), type: int });
    else params.set(p, { e: v(r.name), type: r.type, ...(r.type.kind === 'map' && r.view ? { intMap: true } : {}) });
  });
  void pred;
  const widths = new Map(readings.map((r) => [r.name, r.type.kind === 'bv' ? r.type.width : undefined]));
  const out: Expr[] = [];
  for (const c of conjuncts(def.body)) {
    try {
      const t = read(c, params, new Map());
      if (t.type.kind === 'bool' && !(t.e.kind === 'bool_lit' && t.e.value)) out.push(toBitVectorForm(t.e, (n) => widths.get(n)));
    } catch (e) {
      if (!(e instanceof Unreadable)) throw e;
    }
  }
  return out;
}

/** The top-level conjuncts, also under `let` (z3 shares sub-terms of a model that way): each keeps the bindings around it. */
function conjuncts(e: SExpr): SExpr[] {
  if (Array.isArray(e) && e[0] === 'and') return e.slice(1).flatMap(conjuncts);
  if (Array.isArray(e) && e[0] === 'let' && e.length === 3) return conjuncts(e[2]!).map((c) => ['let', e[1]!, c]);
  return [e];
}

function read(e: SExpr, params: ReadonlyMap<string, Typed>, lets: ReadonlyMap<string, Typed>): Typed {
  const r = (x: SExpr) => read(x, params, lets);
  if (typeof e === 'string') {
    if (e === 'true' || e === 'false') return { e: { kind: 'bool_lit', value: e === 'true', loc }, type: bool };
    if (/^[0-9]+$/.test(e)) return { e: intLit(BigInt(e)), type: int };
    const bv = /^#x([0-9a-fA-F]+)$/.exec(e) ?? /^#b([01]+)$/.exec(e);
    if (bv) {
      const hex = e.startsWith('#x');
      const width = bv[1]!.length * (hex ? 4 : 1);
      if (![8, 16, 32, 64].includes(width)) throw new Unreadable();
      return { e: { kind: 'bv_lit', value: BigInt(hex ? `0x${bv[1]}` : `0b${bv[1]}`), width: width as BvWidth, loc }, type: { kind: 'bv', width: width as BvWidth } };
    }
    const name = unquote(e);
    const hit = lets.get(name) ?? params.get(name);
    if (hit) return hit;
    throw new Unreadable();
  }
  const [head, ...args] = e;
  if (Array.isArray(head)) {
    // (_ bvN w)
    if (head.length === 0) throw new Unreadable();
    throw new Unreadable();
  }
  if (head === '_' && typeof args[0] === 'string' && /^bv[0-9]+$/.test(args[0]) && typeof args[1] === 'string') {
    const width = Number(args[1]);
    if (![8, 16, 32, 64].includes(width)) throw new Unreadable();
    return { e: { kind: 'bv_lit', value: BigInt(args[0].slice(2)), width: width as BvWidth, loc }, type: { kind: 'bv', width: width as BvWidth } };
  }
  switch (head) {
    case 'let': {
      const bindings = args[0];
      if (!Array.isArray(bindings)) throw new Unreadable();
      const inner = new Map(lets);
      for (const b of bindings) {
        if (!Array.isArray(b) || typeof b[0] !== 'string') throw new Unreadable();
        inner.set(unquote(b[0]), r(b[1]!));
      }
      return read(args[1]!, params, inner);
    }
    case 'and':
    case 'or': {
      const xs = args.map(r);
      return { e: xs.map((x) => x.e).reduce((a, b) => bin(head === 'and' ? '&&' : '||', a, b)), type: bool };
    }
    case 'not':
      return { e: { kind: 'unary', op: '!', arg: r(args[0]!).e, loc }, type: bool };
    case '=>':
      return { e: bin('==>', r(args[0]!).e, r(args[1]!).e), type: bool };
    case '=': {
      const [a, b] = [r(args[0]!), r(args[1]!)];
      return { e: bin(a.type.kind === 'bool' ? '<==>' : '==', a.e, b.e), type: bool };
    }
    case 'distinct': {
      const [a, b] = [r(args[0]!), r(args[1]!)];
      if (args.length !== 2) throw new Unreadable();
      return { e: bin('!=', a.e, b.e), type: bool };
    }
    case 'ite': {
      const [c, a, b] = [r(args[0]!), r(args[1]!), r(args[2]!)];
      return { e: { kind: 'ite', cond: c.e, then: a.e, else: b.e, loc }, type: a.type };
    }
    case '<=':
    case '<':
    case '>=':
    case '>':
      return { e: bin(head, r(args[0]!).e, r(args[1]!).e), type: bool };
    case '+':
    case '*': {
      const xs = args.map(r);
      return { e: xs.map((x) => x.e).reduce((a, b) => bin(head, a, b)), type: xs[0]!.type };
    }
    case '-': {
      const xs = args.map(r);
      if (xs.length === 1) {
        const a = xs[0]!.e;
        return { e: a.kind === 'int_lit' ? intLit(-a.value) : { kind: 'unary', op: '-', arg: a, loc }, type: xs[0]!.type };
      }
      return { e: xs.map((x) => x.e).reduce((a, b) => bin('-', a, b)), type: xs[0]!.type };
    }
    case 'div':
    case 'mod': {
      const [a, b] = [r(args[0]!), r(args[1]!)];
      return { e: bin(head === 'div' ? '/' : '%', a.e, b.e), type: int };
    }
    case 'select': {
      const m = r(args[0]!);
      if (m.type.kind !== 'map') throw new Unreadable();
      const index = r(args[1]!);
      if (!m.intMap) return { e: { kind: 'select', map: m.e, index: index.e, loc }, type: m.type.value };
      // Keys and values of an integer map are signed views of the bit-vectors.
      const key = m.type.key.kind === 'bv' ? app(`int2bv${m.type.key.width}` as 'int2bv32', index.e) : index.e;
      const sel: Expr = { kind: 'select', map: m.e, index: key, loc };
      if (m.type.value.kind === 'bv') return { e: app('sbv2int', sel), type: int };
      return { e: sel, type: m.type.value, ...(m.type.value.kind === 'map' ? { intMap: true } : {}) };
    }
    default:
      break;
  }
  if (typeof head === 'string' && BV_OPS[head]) {
    const xs = args.map(r);
    return { e: xs.map((x) => x.e).reduce((a, b) => bin(BV_OPS[head]!, a, b)), type: xs[0]!.type };
  }
  if (typeof head === 'string' && BV_APPS[head]) {
    const [a, b] = [r(args[0]!), r(args[1]!)];
    const cmp = /^bv[su](le|lt|ge|gt)$/.test(head);
    return { e: app(BV_APPS[head]!, a.e, b.e), type: cmp ? bool : a.type };
  }
  if (head === 'bvneg') {
    const a = r(args[0]!);
    return { e: { kind: 'unary', op: '-', arg: a.e, loc }, type: a.type };
  }
  if (head === 'bvnot') {
    const a = r(args[0]!);
    return { e: { kind: 'unary', op: '~', arg: a.e, loc }, type: a.type };
  }
  throw new Unreadable();
}

// ---------------------------------------------------------------------------
// Integer invariants in 64-bit bit-vector form

type Interval = readonly [bigint, bigint];
const I64: Interval = [-(1n << 63n), (1n << 63n) - 1n];
const fits = (i: Interval | undefined): i is Interval => i !== undefined && i[0] >= I64[0] && i[1] <= I64[1];

function bv64(value: bigint): Expr {
  return { kind: 'bv_lit', value: BigInt.asUintN(64, value), width: 64, loc };
}

/**
 * `e` with its integer arithmetic over `sbv2int`/`ubv2int` of bit-vectors
 * done in 64-bit bit-vectors instead, wherever every intermediate value
 * provably fits in a signed 64-bit integer (then the two agree exactly).
 * Solvers decide the bit-vector form far faster than `bv2nat`; parts that
 * do not fit (64-bit variables, large products) keep the integer form.
 */
export function toBitVectorForm(e: Expr, widthOf: (name: string) => number | undefined): Expr {
  /** The 64-bit form of an integer expression and its interval, when it fits. */
  const arith = (x: Expr): { e: Expr; range: Interval } | undefined => {
    switch (x.kind) {
      case 'int_lit':
        return fits([x.value, x.value]) ? { e: bv64(x.value), range: [x.value, x.value] } : undefined;
      case 'unary': {
        if (x.op !== '-') return undefined;
        const a = arith(x.arg);
        const range: Interval | undefined = a && [-a.range[1], -a.range[0]];
        return a && fits(range) ? { e: { kind: 'unary', op: '-', arg: a.e, loc }, range } : undefined;
      }
      case 'app': {
        if ((x.fn !== 'sbv2int' && x.fn !== 'ubv2int') || x.args[0]?.kind !== 'var') return undefined;
        const w = widthOf(x.args[0].name);
        if (w === undefined || w >= 64) return undefined;
        const signed = x.fn === 'sbv2int';
        const range: Interval = signed ? [-(1n << BigInt(w - 1)), (1n << BigInt(w - 1)) - 1n] : [0n, (1n << BigInt(w)) - 1n];
        return { e: app(`${signed ? 'sext' : 'zext'}64` as 'sext64', x.args[0]), range };
      }
      case 'binary': {
        if (x.op !== '+' && x.op !== '-' && x.op !== '*') return undefined;
        const a = arith(x.left);
        const b = a && arith(x.right);
        if (!a || !b) return undefined;
        const [al, ah] = a.range;
        const [bl, bh] = b.range;
        const products = [al * bl, al * bh, ah * bl, ah * bh];
        const range: Interval =
          x.op === '+' ? [al + bl, ah + bh] : x.op === '-' ? [al - bh, ah - bl] : [products.reduce((m, v) => (v < m ? v : m)), products.reduce((m, v) => (v > m ? v : m))];
        return fits(range) ? { e: bin(x.op, a.e, b.e), range } : undefined;
      }
      case 'ite': {
        const a = arith(x.then);
        const b = a && arith(x.else);
        if (!a || !b) return undefined;
        return { e: { kind: 'ite', cond: go(x.cond), then: a.e, else: b.e, loc }, range: [a.range[0] < b.range[0] ? a.range[0] : b.range[0], a.range[1] > b.range[1] ? a.range[1] : b.range[1]] };
      }
      default:
        return undefined;
    }
  };
  const CMP: Record<string, 'sle' | 'slt' | 'sge' | 'sgt'> = { '<=': 'sle', '<': 'slt', '>=': 'sge', '>': 'sgt' };
  const go = (x: Expr): Expr => {
    if (x.kind === 'binary' && (CMP[x.op] || x.op === '==' || x.op === '!=')) {
      const [l, r] = withPositiveCoefficients(x.left, x.right) ?? [x.left, x.right];
      const a = arith(l);
      const b = a && arith(r);
      if (a && b) return CMP[x.op] ? app(CMP[x.op]!, a.e, b.e) : bin(x.op, a.e, b.e);
    }
    if (x.kind === 'binary' && ['&&', '||', '==>', '<==>'].includes(x.op)) return bin(x.op, go(x.left), go(x.right));
    if (x.kind === 'unary' && x.op === '!') return { kind: 'unary', op: '!', arg: go(x.arg), loc };
    if (x.kind === 'ite') return { kind: 'ite', cond: go(x.cond), then: go(x.then), else: go(x.else), loc };
    return x;
  };
  return go(e);
}

/** A linear integer expression: coefficients of its atoms (`sbv2int(x)`, `ubv2int(x)`, by text) and a constant. */
interface Linear {
  readonly terms: Map<string, { atom: Expr; coeff: bigint }>;
  readonly constant: bigint;
}

function linear(x: Expr): Linear | undefined {
  const scale = (a: Linear, k: bigint): Linear => ({ terms: new Map([...a.terms].map(([key, t]) => [key, { atom: t.atom, coeff: t.coeff * k }])), constant: a.constant * k });
  const add = (a: Linear, b: Linear): Linear => {
    const terms = new Map(a.terms);
    for (const [key, t] of b.terms) terms.set(key, { atom: t.atom, coeff: (terms.get(key)?.coeff ?? 0n) + t.coeff });
    return { terms, constant: a.constant + b.constant };
  };
  switch (x.kind) {
    case 'int_lit':
      return { terms: new Map(), constant: x.value };
    case 'unary': {
      const a = x.op === '-' ? linear(x.arg) : undefined;
      return a && scale(a, -1n);
    }
    case 'app':
      if ((x.fn !== 'sbv2int' && x.fn !== 'ubv2int') || x.args[0]?.kind !== 'var') return undefined;
      return { terms: new Map([[`${x.fn}(${x.args[0].name})`, { atom: x, coeff: 1n }]]), constant: 0n };
    case 'binary': {
      if (x.op !== '+' && x.op !== '-' && x.op !== '*') return undefined;
      const a = linear(x.left);
      const b = a && linear(x.right);
      if (!a || !b) return undefined;
      if (x.op === '+') return add(a, b);
      if (x.op === '-') return add(a, scale(b, -1n));
      if (a.terms.size === 0) return scale(b, a.constant);
      if (b.terms.size === 0) return scale(a, b.constant);
      return undefined;
    }
    default:
      return undefined;
  }
}

/**
 * A comparison of linear terms rewritten with every coefficient positive
 * (`a - b - c < -2` as `a + 2 < b + c`): the same relation over the
 * integers, and in 64-bit bit-vectors a sum with no negated terms, which
 * a bit-blasting solver decides in a fraction of the time.
 */
function withPositiveCoefficients(left: Expr, right: Expr): [Expr, Expr] | undefined {
  const a = linear(left);
  const b = a && linear(right);
  if (!a || !b) return undefined;
  const sides: [Expr | undefined, Expr | undefined] = [undefined, undefined];
  const put = (side: 0 | 1, term: Expr) => (sides[side] = sides[side] === undefined ? term : bin('+', sides[side]!, term));
  const terms = new Map(a.terms);
  for (const [key, t] of b.terms) terms.set(key, { atom: t.atom, coeff: (terms.get(key)?.coeff ?? 0n) - t.coeff });
  for (const { atom, coeff } of terms.values()) {
    if (coeff === 0n) continue;
    const k = coeff < 0n ? -coeff : coeff;
    put(coeff > 0n ? 0 : 1, k === 1n ? atom : bin('*', intLit(k), atom));
  }
  const c = a.constant - b.constant;
  if (c !== 0n) put(c > 0n ? 0 : 1, intLit(c > 0n ? c : -c));
  return [sides[0] ?? intLit(0n), sides[1] ?? intLit(0n)];
}
