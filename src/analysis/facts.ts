// What the analysis reports at a loop head, as data (for the C side to map
// back) and as IMP conditions (for Houdini, k-induction and the tests).
import type { Expr, ImpType } from '../ivl/ast.js';
import { syntheticLoc } from '../ivl/ast.js';
import type { AbsValue, Domain, View } from './domain.js';
import { keyId } from './domain.js';

export type LoopFact =
  /** `var op value` in a view (s: signed bit-vector, u: unsigned bit-vector, m: int). */
  | { readonly kind: 'bound'; readonly var: string; readonly view: View; readonly op: '<=' | '>=' | '=='; readonly value: bigint }
  /** `a - b <= bound`, both read in the same view, computed without wrap-around. */
  | { readonly kind: 'difference'; readonly a: string; readonly b: string; readonly view: View; readonly bound: bigint }
  /** `var ≡ residue (mod modulus)`, for a bit-vector on its unsigned value. */
  | { readonly kind: 'congruence'; readonly var: string; readonly modulus: bigint; readonly residue: bigint };

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
  for (const [name, cg] of [...st.cg].sort((p, q) => (p[0] < q[0] ? -1 : 1))) {
    if (cg.m <= 1n) continue;
    const t = dom.types.get(name);
    const x = dom.interval(st, keyId(name, t?.kind === 'bv' ? 'u' : 'm'));
    if (x.lo !== null && x.lo === x.hi) continue;
    out.push({ kind: 'congruence', var: name, modulus: cg.m, residue: cg.r });
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
      const read = (n: string): Expr | undefined => {
        const t = types.get(n);
        if (t?.kind === 'int' && f.view === 'm') return v(n);
        if (t?.kind === 'bv' && f.view !== 'm') return { kind: 'app', fn: f.view === 's' ? 'sbv2int' : 'ubv2int', args: [v(n)], loc };
        return undefined;
      };
      const a = read(f.a);
      const b = read(f.b);
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
  }
}

/** Every fact's condition, for a loop (the ones that have one). */
export function factsToExprs(facts: readonly LoopFact[], types: ReadonlyMap<string, ImpType>): Expr[] {
  return facts.map((f) => factToExpr(f, types)).filter((e): e is Expr => e !== undefined);
}
