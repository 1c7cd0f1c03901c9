// What the analysis reports at a loop head, as data (for the C side to map
// back) and as IMP conditions (for Houdini, k-induction and the tests).
import type { Expr, ImpType } from '../ivl/ast.js';
import { syntheticLoc } from '../ivl/ast.js';
import type { AbsValue, Domain, View } from './domain.js';
import { keyId } from './domain.js';
import { canonical } from './affine.js';

export type LoopFact =
  /** `var op value` in a view (s: signed bit-vector, u: unsigned bit-vector, m: int). */
  | { readonly kind: 'bound'; readonly var: string; readonly view: View; readonly op: '<=' | '>=' | '=='; readonly value: bigint }
  /** `a - b <= bound`, both read in the same view, computed without wrap-around. */
  | { readonly kind: 'difference'; readonly a: string; readonly b: string; readonly view: View; readonly bound: bigint }
  /** `var ≡ residue (mod modulus)`, for a bit-vector on its unsigned value. */
  | { readonly kind: 'congruence'; readonly var: string; readonly modulus: bigint; readonly residue: bigint }
  /** `Σ coeff·var + constant == 0`, each variable read in its view, computed without wrap-around. */
  | { readonly kind: 'equality'; readonly terms: readonly EqualityTerm[]; readonly constant: bigint };

export interface EqualityTerm {
  readonly var: string;
  readonly view: View;
  readonly coeff: bigint;
  /** The variable is a bit-vector whose signed and unsigned values are equal here (it is known non-negative): either read is right. */
  readonly sameViews?: boolean;
}

/** The facts a state implies that are worth stating (not the ranges of the types themselves). */
export function factsOf(dom: Domain, st: AbsValue): LoopFact[] {
  const out: LoopFact[] = [];
  const ids = [...dom.keys.keys()].sort();
  for (const id of ids) {
    const k = dom.keys.get(id)!;
    if (dom.types.get(k.name)?.kind === 'bool') continue;
    const x = dom.interval(st, id);
    const r = dom.range(id);
    if (x.lo !== null && x.lo === x.hi) {
      out.push({ kind: 'bound', var: k.name, view: k.view, op: '==', value: x.lo });
      continue;
    }
    if (x.lo !== null && (r.lo === null || x.lo > r.lo)) out.push({ kind: 'bound', var: k.name, view: k.view, op: '>=', value: x.lo });
    if (x.hi !== null && (r.hi === null || x.hi < r.hi)) out.push({ kind: 'bound', var: k.name, view: k.view, op: '<=', value: x.hi });
  }
  for (const a of dom.relational) {
    for (const b of dom.relational) {
      const ka = dom.keys.get(a)!;
      const kb = dom.keys.get(b)!;
      if (a === b || ka.view !== kb.view || ka.name === kb.name) continue;
      const c = st.dbm.get(dom.node.get(a)!, dom.node.get(b)!);
      if (c === null) continue;
      const xa = dom.interval(st, a);
      const xb = dom.interval(st, b);
      // Implied by the intervals: nothing new.
      if (xa.hi !== null && xb.lo !== null && xa.hi - xb.lo <= c) continue;
      out.push({ kind: 'difference', a: ka.name, b: kb.name, view: ka.view, bound: c });
    }
  }
  out.push(...equalitiesOf(dom, st));
  for (const [name, cg] of [...st.cg].sort((p, q) => (p[0] < q[0] ? -1 : 1))) {
    if (cg.m <= 1n) continue;
    const t = dom.types.get(name);
    const x = dom.interval(st, keyId(name, t?.kind === 'bv' ? 'u' : 'm'));
    if (x.lo !== null && x.lo === x.hi) continue;
    out.push({ kind: 'congruence', var: name, modulus: cg.m, residue: cg.r });
  }
  return out;
}

/**
 * The affine equalities between two or more variables (an equation of one
 * variable is a constant, already a bound); none that relates two views of
 * one variable (the intervals imply those).
 */
function equalitiesOf(dom: Domain, st: AbsValue): LoopFact[] {
  const n = dom.relational.length;
  const out: LoopFact[] = [];
  // Echelon form with the columns reversed: each equation solves for a
  // variable that occurs in conditions less often (the relational keys come
  // most frequent first), in terms of the ones that occur more often.
  const reverse = (row: readonly bigint[]) => [...row.slice(0, n).reverse(), row[n]!];
  const rows = (canonical(n, st.eq.rows.map(reverse))?.rows ?? []).map(reverse);
  for (const row of rows) {
    const terms: EqualityTerm[] = [];
    row.forEach((coeff, d) => {
      if (d === n || coeff === 0n) return;
      const k = dom.keys.get(dom.relational[d]!)!;
      const nonNegative = k.view !== 'm' && (dom.interval(st, keyId(k.name, 's')).lo ?? -1n) >= 0n;
      terms.push({ var: k.name, view: k.view, coeff, ...(nonNegative ? { sameViews: true } : {}) });
    });
    if (terms.length < 2 || new Set(terms.map((t) => t.var)).size < terms.length) continue;
    out.push({ kind: 'equality', terms, constant: row[n]! });
  }
  return out;
}

const loc = syntheticLoc('<analysis>');

function intLit(v: bigint): Expr {
  const lit: Expr = { kind: 'int_lit', value: v < 0n ? -v : v, loc };
  return v < 0n ? { kind: 'unary', op: '-', arg: lit, loc } : lit;
}
function bvLit(v: bigint, width: 8 | 16 | 32 | 64): Expr {
  return { kind: 'bv_lit', value: BigInt.asUintN(width, v), width, loc };
}
function v(name: string): Expr {
  return { kind: 'var', name, loc };
}

/** A fact as an IMP condition over the program's variables (undefined when a variable's type does not fit). */
export function factToExpr(f: LoopFact, types: ReadonlyMap<string, ImpType>): Expr | undefined {
  switch (f.kind) {
    case 'bound': {
      const t = types.get(f.var);
      if (t?.kind === 'bv') {
        const op = f.op === '==' ? undefined : f.view === 's' ? (f.op === '<=' ? 'sle' : 'sge') : f.op === '<=' ? 'ule' : 'uge';
        const lit = bvLit(f.value, t.width);
        if (!op) return { kind: 'binary', op: '==', left: v(f.var), right: lit, loc };
        return { kind: 'app', fn: op, args: [v(f.var), lit], loc };
      }
      if (t?.kind === 'int') return { kind: 'binary', op: f.op, left: v(f.var), right: intLit(f.value), loc };
      return undefined;
    }
    case 'difference': {
      const narrow = differenceInBv64(f, types);
      if (narrow) return narrow;
      const a = read(f.a, f.view, types);
      const b = read(f.b, f.view, types);
      if (!a || !b) return undefined;
      return { kind: 'binary', op: '<=', left: { kind: 'binary', op: '-', left: a, right: b, loc }, right: intLit(f.bound), loc };
    }
    case 'congruence': {
      const t = types.get(f.var);
      if (t?.kind === 'bv') {
        const rem: Expr = { kind: 'app', fn: 'urem', args: [v(f.var), bvLit(f.modulus, t.width)], loc };
        return { kind: 'binary', op: '==', left: rem, right: bvLit(f.residue, t.width), loc };
      }
      if (t?.kind === 'int') {
        const rem: Expr = { kind: 'binary', op: '%', left: v(f.var), right: intLit(f.modulus), loc };
        return { kind: 'binary', op: '==', left: rem, right: intLit(f.residue), loc };
      }
      return undefined;
    }
    case 'equality': {
      // Over bit-vectors of one width, the equation modulo 2^w: implied by
      // the exact one, and far cheaper for the solver (the bounds facts say
      // that nothing wraps).
      const widths = new Set(f.terms.map((t) => types.get(t.var)).map((t) => (t?.kind === 'bv' ? t.width : 0)));
      const [w] = widths;
      const modular = widths.size === 1 && w !== 0 && w !== undefined;
      const lit = (c: bigint): Expr => (modular ? bvLit(c, w as 8 | 16 | 32 | 64) : intLit(c));
      // Positive terms on the left, the others and the constant on the right.
      const side = (sign: bigint): Expr | undefined => {
        let sum: Expr | undefined;
        for (const t of f.terms) {
          if ((t.coeff > 0n) !== (sign > 0n)) continue;
          const x = modular ? v(t.var) : read(t.var, t.view, types);
          if (!x) return undefined;
          const k = t.coeff * sign;
          const term: Expr = k === 1n ? x : { kind: 'binary', op: '*', left: lit(k), right: x, loc };
          sum = sum ? { kind: 'binary', op: '+', left: sum, right: term, loc } : term;
        }
        return sum;
      };
      const left = side(1n);
      const right = side(-1n);
      if (!left && f.terms.some((t) => t.coeff > 0n)) return undefined;
      if (!right && f.terms.some((t) => t.coeff < 0n)) return undefined;
      const c = f.constant;
      const l = left ?? lit(0n);
      const r = c === 0n ? (right ?? lit(0n)) : right ? { kind: 'binary' as const, op: c > 0n ? ('-' as const) : ('+' as const), left: right, right: lit(c > 0n ? c : -c), loc } : lit(-c);
      return { kind: 'binary', op: '==', left: l, right: r, loc };
    }
  }
}

/**
 * A difference of two bit-vectors of at most 32 bits, extended to 64 bits
 * (where the subtraction cannot wrap): the same fact without conversions to
 * integers, which solvers handle slowly.
 */
function differenceInBv64(f: LoopFact & { kind: 'difference' }, types: ReadonlyMap<string, ImpType>): Expr | undefined {
  const ta = types.get(f.a);
  const tb = types.get(f.b);
  if (ta?.kind !== 'bv' || tb?.kind !== 'bv' || ta.width > 32 || tb.width > 32 || f.view === 'm') return undefined;
  // `a - b <= 0` is `a <= b`: no extension, half the solver's work in an induction check.
  if (f.bound === 0n && ta.width === tb.width) return { kind: 'app', fn: f.view === 's' ? 'sle' : 'ule', args: [v(f.a), v(f.b)], loc };
  const ext = (name: string): Expr => ({ kind: 'app', fn: f.view === 's' ? 'sext64' : 'zext64', args: [v(name)], loc });
  const diff: Expr = { kind: 'binary', op: '-', left: ext(f.a), right: ext(f.b), loc };
  return { kind: 'app', fn: 'sle', args: [diff, bvLit(f.bound, 64)], loc };
}

/** A variable's value in a view as an IMP int (undefined when the view does not fit its type). */
function read(name: string, view: View, types: ReadonlyMap<string, ImpType>): Expr | undefined {
  const t = types.get(name);
  if (t?.kind === 'int' && view === 'm') return v(name);
  if (t?.kind === 'bv' && view !== 'm') return { kind: 'app', fn: view === 's' ? 'sbv2int' : 'ubv2int', args: [v(name)], loc };
  return undefined;
}

/** Every fact's condition, for a loop (the ones that have one). */
export function factsToExprs(facts: readonly LoopFact[], types: ReadonlyMap<string, ImpType>): Expr[] {
  return facts.map((f) => factToExpr(f, types)).filter((e): e is Expr => e !== undefined);
}
