// The abstract states of the analysis: a reduced product of intervals,
// congruences, difference bounds and affine equalities over the scalar
// variables of one IMP procedure, with IMP's semantics (bit-vectors wrap
// around).
//
// A bit-vector variable has two numeric *views*: its signed value (`s`) and
// its unsigned value (`u`); an int or bool variable one (`m`, bools as 0/1).
// Intervals are kept for every view, congruences for the unsigned view (or
// the int), difference bounds between the views of the variables that occur
// in conditions (the relational keys), and affine equalities (Karr) between
// the same keys. An operation whose mathematical result may leave a view's
// range gives no information for that view.
import * as A from './affine.js';
import * as C from './congruence.js';
import { Dbm } from './dbm.js';
import * as I from './interval.js';
import type { Expr, ImpType } from '../ivl/ast.js';

export type View = 's' | 'u' | 'm';

/** One numeric view of one variable. */
export interface Key {
  readonly name: string;
  readonly view: View;
  /** Bit-vector width, undefined for int and bool. */
  readonly width?: number;
}

export function keyId(name: string, view: View): string {
  return `${name}#${view}`;
}

export interface AbsValue {
  readonly iv: ReadonlyMap<string, I.Interval>;
  readonly cg: ReadonlyMap<string, C.Congruence>;
  readonly dbm: Dbm;
  /** Affine equalities between the relational keys (dimension = DBM node - 1). */
  readonly eq: A.Affine;
}
/** null: no reachable state. */
export type AbsState = AbsValue | null;

/** An expression's value in each of its views. */
interface Val {
  readonly s?: I.Interval;
  readonly u?: I.Interval;
  readonly m?: I.Interval;
  readonly cg?: C.Congruence;
}

/** `key + c`, or the constant c when key is undefined. */
interface Linear {
  readonly key?: string;
  readonly c: bigint;
}

type Cmp = '<=' | '<' | '==' | '!=';

const SIGNED_CMP: Record<string, [Cmp, boolean]> = { slt: ['<', false], sle: ['<=', false], sgt: ['<', true], sge: ['<=', true] };
const UNSIGNED_CMP: Record<string, [Cmp, boolean]> = { ult: ['<', false], ule: ['<=', false], ugt: ['<', true], uge: ['<=', true] };
const INT_CMP: Record<string, [Cmp, boolean]> = { '<': ['<', false], '<=': ['<=', false], '>': ['<', true], '>=': ['<=', true] };

/** Sub-conditions one top-level assume may look at. */
const ASSUME_BUDGET = 64;

export class Domain {
  /** Every tracked key by id. */
  readonly keys = new Map<string, Key>();
  /** DBM node (1-based) of each relational key. */
  readonly node = new Map<string, number>();
  readonly relational: string[] = [];

  constructor(
    readonly types: ReadonlyMap<string, ImpType>,
    relationalVars: readonly string[],
  ) {
    for (const [name, t] of types) {
      if (t.kind === 'bv') {
        this.keys.set(keyId(name, 's'), { name, view: 's', width: t.width });
        this.keys.set(keyId(name, 'u'), { name, view: 'u', width: t.width });
      } else if (t.kind === 'int' || t.kind === 'bool') this.keys.set(keyId(name, 'm'), { name, view: 'm' });
    }
    for (const v of relationalVars) {
      const t = types.get(v);
      if (!t) continue;
      const views: View[] = t.kind === 'bv' ? ['s', 'u'] : t.kind === 'int' ? ['m'] : [];
      for (const view of views) {
        const id = keyId(v, view);
        this.relational.push(id);
        this.node.set(id, this.relational.length);
      }
    }
  }

  // ---- ranges and basic access ----------------------------------------------

  range(id: string): I.Interval {
    const k = this.keys.get(id);
    if (!k) return I.TOP;
    if (k.width === undefined) return this.types.get(k.name)?.kind === 'bool' ? I.iv(0n, 1n) : I.TOP;
    const w = BigInt(k.width);
    return k.view === 's' ? I.iv(-(1n << (w - 1n)), (1n << (w - 1n)) - 1n) : I.iv(0n, (1n << w) - 1n);
  }

  top(): AbsValue {
    return { iv: new Map(), cg: new Map(), dbm: Dbm.top(this.relational.length), eq: A.top(this.relational.length) };
  }

  interval(st: AbsValue, id: string): I.Interval {
    return st.iv.get(id) ?? this.range(id);
  }
  congruence(st: AbsValue, name: string): C.Congruence {
    return st.cg.get(name) ?? C.ANY;
  }

  /** Narrows a key's interval (to its meet with v), then reduces the variable's views and the DBM. */
  private setInterval(st: AbsValue, id: string, v: I.Interval): AbsState {
    const r = I.meet(v, this.interval(st, id));
    if (I.isEmpty(r)) return null;
    const iv = new Map(st.iv);
    if (I.equal(r, this.range(id))) iv.delete(id);
    else iv.set(id, r);
    return this.reduceVar({ ...st, iv }, this.keys.get(id)!.name);
  }

  /** Makes the two views of a bit-vector, its congruence and its DBM bounds agree. */
  private reduceVar(st: AbsValue, name: string): AbsState {
    const t = this.types.get(name);
    if (!t) return st;
    const iv = new Map(st.iv);
    const put = (id: string, x: I.Interval): boolean => {
      const r = I.meet(x, this.range(id));
      if (I.isEmpty(r)) return false;
      if (I.equal(r, this.range(id))) iv.delete(id);
      else iv.set(id, r);
      return true;
    };
    const get = (id: string) => iv.get(id) ?? this.range(id);
    const cg = st.cg.get(name);
    const mainId = keyId(name, t.kind === 'bv' ? 'u' : 'm');
    if (cg) {
      const x = get(mainId);
      if (cg.m === 0n) {
        if (!put(mainId, I.meet(x, I.constant(cg.r)))) return null;
      } else if (cg.m > 1n) {
        const lo = x.lo === null ? null : x.lo + ((cg.r - x.lo) % cg.m + cg.m) % cg.m;
        const hi = x.hi === null ? null : x.hi - ((x.hi - cg.r) % cg.m + cg.m) % cg.m;
        if (!put(mainId, I.iv(lo, hi))) return null;
      }
    }
    if (t.kind === 'bv') {
      const sId = keyId(name, 's');
      const uId = keyId(name, 'u');
      const half = 1n << BigInt(t.width - 1);
      const full = 1n << BigInt(t.width);
      for (let round = 0; round < 2; round++) {
        const s = get(sId);
        const u = get(uId);
        if (I.within(u, 0n, half - 1n) && !put(sId, I.meet(s, u))) return null;
        if (I.within(u, half, full - 1n) && !put(sId, I.meet(s, I.shift(u, -full)))) return null;
        const s2 = get(sId);
        if (I.within(s2, 0n, half - 1n) && !put(uId, I.meet(u, s2))) return null;
        if (I.within(s2, -half, -1n) && !put(uId, I.meet(u, I.shift(s2, full)))) return null;
      }
    }
    // Interval bounds into the DBM, and what its closure implies back.
    let dbm = st.dbm;
    for (const view of ['s', 'u', 'm'] as const) {
      const id = keyId(name, view);
      const i = this.node.get(id);
      if (i === undefined) continue;
      const x = get(id);
      if (x.hi !== null) dbm = dbm.constrain(i, 0, x.hi);
      if (x.lo !== null) dbm = dbm.constrain(0, i, -x.lo);
    }
    if (dbm.isEmpty()) return null;
    if (dbm !== st.dbm) {
      for (const id of this.relational) {
        const i = this.node.get(id)!;
        const hi = dbm.get(i, 0);
        const nlo = dbm.get(0, i);
        const x = I.meet(get(id), I.iv(nlo === null ? null : -nlo, hi));
        if (!put(id, x)) return null;
      }
    }
    return { iv, cg: st.cg, dbm, eq: st.eq };
  }

  // ---- lattice operations ---------------------------------------------------

  join(a: AbsState, b: AbsState): AbsState {
    if (!a) return b;
    if (!b) return a;
    const iv = new Map<string, I.Interval>();
    for (const [id, x] of a.iv) {
      const y = b.iv.get(id);
      if (!y) continue;
      const j = I.join(x, y);
      if (!I.equal(j, this.range(id))) iv.set(id, j);
    }
    const cg = new Map<string, C.Congruence>();
    for (const [n, x] of a.cg) {
      const y = b.cg.get(n);
      if (!y) continue;
      const j = C.join(x, y);
      if (j.m !== 1n) cg.set(n, j);
    }
    return { iv, cg, dbm: a.dbm.join(b.dbm), eq: A.join(this.withConstants(a), this.withConstants(b)) };
  }

  meet(a: AbsState, b: AbsState): AbsState {
    if (!a || !b) return null;
    const eq = A.meet(a.eq, b.eq);
    if (!eq) return null;
    let st: AbsState = { iv: new Map(a.iv), cg: new Map(a.cg), dbm: a.dbm.meet(b.dbm), eq };
    if (st.dbm.isEmpty()) return null;
    const names = new Set<string>();
    for (const [id, y] of b.iv) {
      const x = st.iv.get(id) ?? this.range(id);
      const r = I.meet(x, y);
      if (I.isEmpty(r)) return null;
      (st.iv as Map<string, I.Interval>).set(id, r);
      names.add(this.keys.get(id)!.name);
    }
    for (const [n, y] of b.cg) {
      const r = C.meet(this.congruence(st, n), y);
      if (!r) return null;
      (st.cg as Map<string, C.Congruence>).set(n, r);
      names.add(n);
    }
    for (const n of names) {
      st = this.reduceVar(st, n);
      if (!st) return null;
    }
    return st;
  }

  widen(a: AbsState, b: AbsState): AbsState {
    if (!a) return b;
    if (!b) return a;
    const iv = new Map<string, I.Interval>();
    for (const [id, x] of a.iv) {
      const w = I.meet(I.widen(x, b.iv.get(id) ?? this.range(id)), this.range(id));
      if (!I.equal(w, this.range(id))) iv.set(id, w);
    }
    // Congruences have no infinite ascending chains: the join is a widening.
    const cg = this.join(a, b)!.cg;
    // Affine spaces grow at most n + 1 times: the join is a widening too.
    return { iv, cg, dbm: a.dbm.widen(b.dbm), eq: A.join(this.withConstants(a), this.withConstants(b)) };
  }

  leq(a: AbsState, b: AbsState): boolean {
    if (!a) return true;
    if (!b) return false;
    for (const [id, y] of b.iv) if (!I.leq(a.iv.get(id) ?? this.range(id), y)) return false;
    for (const [n, y] of b.cg) if (!C.leq(this.congruence(a, n), y)) return false;
    return a.dbm.leq(b.dbm) && A.leq(this.withConstants(a), b.eq);
  }

  /** The equalities of a state with the constants its intervals know (Karr's join needs them to relate two constants). */
  private withConstants(st: AbsValue): A.Affine {
    const n = this.relational.length;
    const rows: A.Row[] = [];
    this.relational.forEach((id, d) => {
      const x = this.interval(st, id);
      if (x.lo === null || x.lo !== x.hi) return;
      const row = new Array<bigint>(n + 1).fill(0n);
      row[d] = 1n;
      row[n] = -x.lo;
      rows.push(row);
    });
    return rows.length === 0 ? st.eq : (A.canonical(n, [...st.eq.rows, ...rows]) ?? st.eq);
  }

  /** Interval bounds the equalities imply (each equation solved for each of its keys). */
  private fromEqualities(st: AbsState): AbsState {
    if (!st) return null;
    const n = this.relational.length;
    let out: AbsState = st;
    for (const row of st.eq.rows) {
      const dims = [];
      for (let d = 0; d < n; d++) if (row[d] !== 0n) dims.push(d);
      if (dims.length < 2) continue;
      for (const d of dims) {
        if (!out) return null;
        // a_d·x_d = -(c + Σ_{i≠d} a_i·x_i)
        let rest = I.constant(row[n]!);
        for (const i of dims) if (i !== d) rest = I.add(rest, I.mul(I.constant(row[i]!), this.interval(out, this.relational[i]!)));
        const a = row[d]!;
        const v = a > 0n ? I.neg(rest) : rest;
        const k = a > 0n ? a : -a;
        const x = I.iv(v.lo === null ? null : -I.floorDiv(-v.lo, k), v.hi === null ? null : I.floorDiv(v.hi, k));
        const id = this.relational[d]!;
        if (!I.leq(this.interval(out, id), x)) out = this.setInterval(out, id, x);
      }
    }
    return out;
  }

  // ---- transfer functions ---------------------------------------------------

  /** Forgets everything about a variable. */
  havoc(st: AbsState, name: string): AbsState {
    if (!st) return null;
    const iv = new Map(st.iv);
    let dbm = st.dbm;
    for (const view of ['s', 'u', 'm'] as const) {
      const id = keyId(name, view);
      iv.delete(id);
      const i = this.node.get(id);
      if (i !== undefined) dbm = dbm.forget(i);
    }
    let eq = st.eq;
    for (const view of ['s', 'u', 'm'] as const) {
      const i = this.node.get(keyId(name, view));
      if (i !== undefined) eq = A.forget(eq, i - 1);
    }
    const cg = new Map(st.cg);
    cg.delete(name);
    return { iv, cg, dbm, eq };
  }

  assign(st: AbsState, name: string, e: Expr): AbsState {
    if (!st) return null;
    const t = this.types.get(name);
    if (!t || (t.kind !== 'bv' && t.kind !== 'int' && t.kind !== 'bool')) return st;
    if (t.kind === 'bool') {
      const canT = this.assume(st, e, true) !== null;
      const canF = this.assume(st, e, false) !== null;
      const h = this.havoc(st, name);
      return this.setInterval(h!, keyId(name, 'm'), I.iv(canF ? 0n : 1n, canT ? 1n : 0n));
    }
    const val = this.eval(st, e);
    const views: View[] = t.kind === 'bv' ? ['s', 'u'] : ['m'];
    // Relations first (they need the old value of the variable).
    let dbm = st.dbm;
    let eq = st.eq;
    for (const view of views) {
      const id = keyId(name, view);
      const i = this.node.get(id);
      if (i === undefined) continue;
      const row = this.affine(st, e, view);
      eq = row ? A.assign(eq, i - 1, row) : A.forget(eq, i - 1);
      const lin = this.linear(st, e, view);
      if (lin?.key === id) dbm = dbm.shift(i, lin.c);
      else if (lin?.key !== undefined && this.node.has(lin.key)) dbm = dbm.assignFrom(i, this.node.get(lin.key)!, lin.c);
      else dbm = dbm.forget(i);
    }
    const iv = new Map(st.iv);
    for (const view of views) iv.delete(keyId(name, view));
    const cg = new Map(st.cg);
    if (val.cg && val.cg.m !== 1n) cg.set(name, val.cg);
    else cg.delete(name);
    let out: AbsState = { iv, cg, dbm, eq };
    for (const view of views) {
      const x = val[view];
      if (!x) continue;
      const r = I.meet(x, this.range(keyId(name, view)));
      if (I.isEmpty(r)) return null;
      if (!I.equal(r, this.range(keyId(name, view)))) iv.set(keyId(name, view), r);
    }
    // Bounds implied by the DBM (e.g. x := y + 1 with y known) come back through reduceVar.
    out = this.reduceVar(out, name);
    if (out && dbm !== st.dbm) {
      for (const view of views) {
        const i = this.node.get(keyId(name, view));
        if (i === undefined || !out) continue;
        const hi = out.dbm.get(i, 0);
        const nlo = out.dbm.get(0, i);
        out = this.setInterval(out, keyId(name, view), I.iv(nlo === null ? null : -nlo, hi));
      }
    }
    return eq.rows.length > 0 ? this.fromEqualities(out) : out;
  }

  /** Steps left to the current top-level `assume` (boolean structure can branch exponentially). */
  private budget = 0;
  private depth = 0;

  /** The states where `e` is true (positive) or false (an over-approximation; big conditions are followed only in part). */
  assume(st: AbsState, e: Expr, positive = true): AbsState {
    if (!st) return null;
    if (this.depth === 0) this.budget = ASSUME_BUDGET;
    if (this.budget-- <= 0) return st;
    this.depth++;
    try {
      return this.assumeStep(st, e, positive);
    } finally {
      this.depth--;
    }
  }

  private assumeStep(st: AbsValue, e: Expr, positive: boolean): AbsState {
    switch (e.kind) {
      case 'bool_lit':
        return e.value === positive ? st : null;
      case 'var': {
        if (this.types.get(e.name)?.kind !== 'bool') return st;
        return this.setInterval(st, keyId(e.name, 'm'), I.constant(positive ? 1n : 0n));
      }
      case 'unary':
        return e.op === '!' ? this.assume(st, e.arg, !positive) : st;
      case 'ite': {
        const a = this.assume(this.assume(st, e.cond, true), e.then, positive);
        const b = this.assume(this.assume(st, e.cond, false), e.else, positive);
        return this.join(a, b);
      }
      case 'binary': {
        const { op, left, right } = e;
        const conj = (x: Expr, y: Expr) => this.assume(this.assume(st, x, true), y, true);
        const disj = (xs: [Expr, boolean][]) => xs.map(([x, p]) => this.assume(st, x, p)).reduce((a, b) => this.join(a, b), null as AbsState);
        if (op === '&&') return positive ? conj(left, right) : disj([[left, false], [right, false]]);
        if (op === '||') return positive ? disj([[left, true], [right, true]]) : this.assume(this.assume(st, left, false), right, false);
        if (op === '==>') return positive ? disj([[left, false], [right, true]]) : this.assume(this.assume(st, left, true), right, false);
        if (op === '<==') return this.assume(st, { ...e, op: '==>', left: right, right: left }, positive);
        if (op === '<==>' || ((op === '==' || op === '!=') && this.isBool(left))) {
          const same = op !== '!=' ? positive : !positive;
          const a = this.assume(this.assume(st, left, true), right, same);
          const b = this.assume(this.assume(st, left, false), right, !same);
          return this.join(a, b);
        }
        if (op === '==' || op === '!=') {
          const eq = (op === '==') === positive;
          const t = this.typeOf(left);
          const views: View[] = t?.kind === 'bv' ? ['u', 's'] : t?.kind === 'int' ? ['m'] : [];
          let out: AbsState = st;
          // Equality holds in every view; a disequality refines only at interval ends (in one view suffices).
          for (const v of eq ? views : views.slice(0, 1)) out = this.compare(out, left, right, eq ? '==' : '!=', v);
          return out;
        }
        const cmp = INT_CMP[op];
        if (cmp) return this.compareDir(st, left, right, cmp, 'm', positive);
        return st;
      }
      case 'app': {
        const s = SIGNED_CMP[e.fn];
        const u = UNSIGNED_CMP[e.fn];
        if ((s || u) && e.args.length === 2) return this.compareDir(st, e.args[0]!, e.args[1]!, (s ?? u)!, s ? 's' : 'u', positive);
        return st;
      }
      default:
        return st;
    }
  }

  private isBool(e: Expr): boolean {
    return this.typeOf(e)?.kind === 'bool';
  }

  /** `left op right` (flipped: `right op left`), negated when not positive. */
  private compareDir(st: AbsState, left: Expr, right: Expr, [op, flip]: [Cmp, boolean], view: View, positive: boolean): AbsState {
    let [a, b] = flip ? [right, left] : [left, right];
    let o: Cmp = op;
    if (!positive) {
      // !(a < b) = b <= a; !(a <= b) = b < a
      [a, b] = [b, a];
      o = op === '<' ? '<=' : '<';
    }
    return this.compare(st, a, b, o, view);
  }

  /** Refines with `a op b` read in one view. */
  private compare(st: AbsState, a: Expr, b: Expr, op: Cmp, view: View): AbsState {
    if (!st) return null;
    const va = this.eval(st, a)[view];
    const vb = this.eval(st, b)[view];
    if (!va || !vb) return st;
    // Feasibility on intervals.
    if (op === '<' || op === '<=') {
      const strict = op === '<' ? 1n : 0n;
      if (va.lo !== null && vb.hi !== null && va.lo + strict > vb.hi) return null;
    } else if (op === '==') {
      if (I.isEmpty(I.meet(va, vb))) return null;
    } else if (va.lo !== null && va.lo === va.hi && vb.lo === va.lo && vb.hi === va.lo) return null;
    const la = this.linear(st, a, view);
    const lb = this.linear(st, b, view);
    let out: AbsState = st;
    const bound = (lin: Linear | undefined, x: I.Interval) => {
      if (!out || !lin?.key) return;
      out = this.setInterval(out, lin.key, I.meet(this.interval(out, lin.key), I.shift(x, -lin.c)));
    };
    if (op === '<' || op === '<=') {
      const strict = op === '<' ? 1n : 0n;
      // a + strict <= b
      bound(la, I.iv(null, vb.hi === null ? null : vb.hi - strict));
      bound(lb, I.iv(va.lo === null ? null : va.lo + strict, null));
      this.relate(la, lb, -strict, (r) => (out = r), () => out);
    } else if (op === '==') {
      bound(la, vb);
      bound(lb, va);
      this.relate(la, lb, 0n, (r) => (out = r), () => out);
      this.relate(lb, la, 0n, (r) => (out = r), () => out);
      const ra = out && this.affine(out, a, view);
      const rb = ra && this.affine(out!, b, view);
      if (out && ra && rb) {
        const eq = A.addEquation(out.eq, ra.map((x, i) => x - rb[i]!));
        out = eq && this.fromEqualities({ ...out, eq });
      }
      if (out && la?.key && lb && lb.key === undefined) out = this.meetCongruence(out, la.key, lb.c - la.c);
      if (out && lb?.key && la && la.key === undefined) out = this.meetCongruence(out, lb.key, la.c - lb.c);
    } else {
      // a != b with b a constant at an end of a's interval.
      const ne = (lin: Linear | undefined, other: I.Interval) => {
        if (!out || !lin?.key || other.lo === null || other.lo !== other.hi) return;
        const c = other.lo - lin.c;
        const x = this.interval(out, lin.key);
        if (x.lo === c) out = this.setInterval(out, lin.key, I.iv(c + 1n, x.hi));
        else if (x.hi === c) out = this.setInterval(out, lin.key, I.iv(x.lo, c - 1n));
      };
      ne(la, vb);
      ne(lb, va);
    }
    return out;
  }

  /** The congruence of an equality with a constant (unsigned or int view). */
  private meetCongruence(st: AbsValue, id: string, c: bigint): AbsState {
    const k = this.keys.get(id)!;
    if (k.view === 's') return st;
    const r = C.meet(this.congruence(st, k.name), C.exactly(c));
    if (!r) return null;
    const cg = new Map(st.cg);
    cg.set(k.name, r);
    return this.reduceVar({ ...st, cg }, k.name);
  }

  /** Adds `la - lb <= c` to the DBM (both relational keys). */
  private relate(la: Linear | undefined, lb: Linear | undefined, c: bigint, set: (s: AbsState) => void, get: () => AbsState): void {
    const st = get();
    if (!st || !la?.key || !lb?.key) return;
    const i = this.node.get(la.key);
    const j = this.node.get(lb.key);
    if (i === undefined || j === undefined) return;
    // (xa + ca) - (xb + cb) <= c  ⇔  xa - xb <= c - ca + cb
    const dbm = st.dbm.constrain(i, j, c - la.c + lb.c);
    if (dbm.isEmpty()) return set(null);
    let out: AbsState = { ...st, dbm };
    out = this.reduceVar(out, this.keys.get(la.key)!.name);
    out = out && this.reduceVar(out, this.keys.get(lb.key)!.name);
    set(out);
  }

  // ---- expressions ----------------------------------------------------------

  typeOf(e: Expr): ImpType | undefined {
    switch (e.kind) {
      case 'bool_lit':
        return { kind: 'bool' };
      case 'int_lit':
        return { kind: 'int' };
      case 'real_lit':
        return { kind: 'real' };
      case 'bv_lit':
        return { kind: 'bv', width: e.width };
      case 'var':
        return this.types.get(e.name);
      case 'unary':
        return e.op === '!' ? { kind: 'bool' } : this.typeOf(e.arg);
      case 'binary':
        return ['+', '-', '*', '/', '%', '&', '|', '^', '<<'].includes(e.op) ? this.typeOf(e.left) : { kind: 'bool' };
      case 'ite':
        return this.typeOf(e.then);
      case 'app': {
        const m = /^(zext|sext|trunc|int2bv)(\d+)$/.exec(e.fn);
        if (m) return { kind: 'bv', width: Number(m[2]) as 8 | 16 | 32 | 64 };
        if (e.fn === 'ubv2int' || e.fn === 'sbv2int' || e.fn === 'to_int') return { kind: 'int' };
        if (e.fn === 'to_real') return { kind: 'real' };
        if (SIGNED_CMP[e.fn] || UNSIGNED_CMP[e.fn]) return { kind: 'bool' };
        return e.args[0] ? this.typeOf(e.args[0]) : undefined;
      }
      case 'select': {
        const t = this.typeOf(e.map);
        return t?.kind === 'map' ? t.value : undefined;
      }
      case 'store':
        return this.typeOf(e.map);
    }
  }

  /** `e` as `key + c` in a view, when no wrap-around can happen on the way. */
  linear(st: AbsValue, e: Expr, view: View): Linear | undefined {
    const t = this.typeOf(e);
    if (view === 'm' ? t?.kind !== 'int' : t?.kind !== 'bv') return undefined;
    const fits = (lin: Linear): Linear | undefined => {
      if (!lin.key) return lin;
      const x = I.shift(this.interval(st, lin.key), lin.c);
      const r = this.range(lin.key);
      if (view !== 'm' && !I.leq(x, this.rangeOf(view, t!))) return undefined;
      void r;
      return lin;
    };
    switch (e.kind) {
      case 'var':
        return this.keys.has(keyId(e.name, view)) ? { key: keyId(e.name, view), c: 0n } : undefined;
      case 'bv_lit':
        return { c: view === 's' ? BigInt.asIntN(e.width, e.value) : e.value };
      case 'int_lit':
        return { c: e.value };
      case 'binary': {
        if (e.op !== '+' && e.op !== '-') return undefined;
        const a = this.linear(st, e.left, view);
        const b = this.linear(st, e.right, view);
        if (!a || !b) return undefined;
        if (e.op === '+' && a.key && b.key) return undefined;
        if (e.op === '-' && b.key) return undefined;
        const c = e.op === '+' ? a.c + b.c : a.c - b.c;
        return fits({ key: a.key ?? b.key, c });
      }
      case 'unary':
        if (e.op === '-') {
          const a = this.linear(st, e.arg, view);
          return a && !a.key ? fits({ c: -a.c }) : undefined;
        }
        return undefined;
      default:
        return undefined;
    }
  }

  /**
   * `e` in a view as an affine combination of the relational keys (n + 1
   * coefficients, the constant last), when its value is that combination's
   * mathematical value: bit-vector operations agree with it modulo 2^w, so
   * a value that lies in the view's range cannot have wrapped around.
   */
  affine(st: AbsValue, e: Expr, view: View): bigint[] | undefined {
    const t = this.typeOf(e);
    if (!t || (view === 'm' ? t.kind !== 'int' : t.kind !== 'bv')) return undefined;
    const row = this.affineMod(st, e, view);
    if (!row || view === 'm') return row;
    const n = this.relational.length;
    let x = I.constant(row[n]!);
    for (let d = 0; d < n; d++) if (row[d] !== 0n) x = I.add(x, I.mul(I.constant(row[d]!), this.interval(st, this.relational[d]!)));
    return I.leq(x, this.rangeOf(view, t)) ? row : undefined;
  }

  /** `e` as an affine combination that agrees with its value modulo 2^w (exactly for ints), not yet checked for range. */
  private affineMod(st: AbsValue, e: Expr, view: View): bigint[] | undefined {
    const n = this.relational.length;
    const constant = (c: bigint) => {
      const r = new Array<bigint>(n + 1).fill(0n);
      r[n] = c;
      return r;
    };
    const isConstant = (r: bigint[]) => r.every((x, i) => i === n || x === 0n);
    switch (e.kind) {
      case 'var': {
        const i = this.node.get(keyId(e.name, view));
        if (i === undefined) return undefined;
        const r = constant(0n);
        r[i - 1] = 1n;
        return r;
      }
      case 'bv_lit':
        return constant(view === 's' ? BigInt.asIntN(e.width, e.value) : e.value);
      case 'int_lit':
        return constant(e.value);
      case 'unary':
        return e.op === '-' ? this.affineMod(st, e.arg, view)?.map((x) => -x) : undefined;
      case 'binary': {
        if (e.op !== '+' && e.op !== '-' && e.op !== '*') return undefined;
        const a = this.affineMod(st, e.left, view);
        const b = a && this.affineMod(st, e.right, view);
        if (!a || !b) return undefined;
        if (e.op === '+') return a.map((x, i) => x + b[i]!);
        if (e.op === '-') return a.map((x, i) => x - b[i]!);
        if (isConstant(a)) return b.map((x) => x * a[n]!);
        if (isConstant(b)) return a.map((x) => x * b[n]!);
        return undefined;
      }
      case 'app': {
        const arg = e.args[0];
        if (!arg) return undefined;
        if (view === 'm') return e.fn === 'sbv2int' || e.fn === 'ubv2int' ? this.affine(st, arg, e.fn === 'sbv2int' ? 's' : 'u') : undefined;
        const m = /^(zext|sext|trunc|int2bv)\d+$/.exec(e.fn);
        if (!m) return undefined;
        // zext and sext keep the argument's value in its unsigned or signed
        // view (which must not have wrapped at its own width); trunc and
        // int2bv keep it modulo 2^w.
        if (m[1] === 'zext' || m[1] === 'sext') return this.affine(st, arg, m[1] === 'zext' ? 'u' : 's');
        return m[1] === 'trunc' ? this.affineMod(st, arg, view) : this.affine(st, arg, 'm');
      }
      default:
        return undefined;
    }
  }

  private rangeOf(view: View, t: ImpType): I.Interval {
    if (t.kind !== 'bv') return I.TOP;
    const w = BigInt(t.width);
    return view === 's' ? I.iv(-(1n << (w - 1n)), (1n << (w - 1n)) - 1n) : I.iv(0n, (1n << w) - 1n);
  }

  /** The value of an expression in every view of its type. */
  eval(st: AbsValue, e: Expr): Val {
    const t = this.typeOf(e);
    if (!t) return {};
    if (t.kind === 'bool') {
      const canT = this.assume(st, e, true) !== null;
      const canF = this.assume(st, e, false) !== null;
      return { m: I.iv(canF ? 0n : 1n, canT ? 1n : 0n) };
    }
    if (t.kind === 'int') return this.evalInt(st, e);
    if (t.kind === 'bv') return this.evalBv(st, e, t.width);
    return {};
  }

  private evalInt(st: AbsValue, e: Expr): Val {
    const m = (x: Val) => x.m ?? I.TOP;
    switch (e.kind) {
      case 'int_lit':
        return { m: I.constant(e.value), cg: C.exactly(e.value) };
      case 'var':
        return { m: this.interval(st, keyId(e.name, 'm')), cg: this.congruence(st, e.name) };
      case 'unary':
        if (e.op === '-') {
          const a = this.evalInt(st, e.arg);
          return { m: I.neg(m(a)), cg: a.cg && C.negate(a.cg) };
        }
        return { m: I.TOP };
      case 'binary': {
        const a = this.evalInt(st, e.left);
        const b = this.evalInt(st, e.right);
        const cga = a.cg ?? C.ANY;
        const cgb = b.cg ?? C.ANY;
        if (e.op === '+') return { m: I.add(m(a), m(b)), cg: C.add(cga, cgb) };
        if (e.op === '-') return { m: I.sub(m(a), m(b)), cg: C.add(cga, C.negate(cgb)) };
        if (e.op === '*') {
          const c = cgb.m === 0n ? cgb.r : cga.m === 0n ? cga.r : undefined;
          const cg = c === undefined ? C.ANY : C.scale(cgb.m === 0n ? cga : cgb, c);
          return { m: I.mul(m(a), m(b)), cg };
        }
        const d = m(b);
        if ((e.op === '/' || e.op === '%') && d.lo !== null && d.lo === d.hi && d.lo > 0n) {
          if (e.op === '/') return { m: I.divBy(m(a), d.lo, I.floorDiv) };
          return { m: I.iv(0n, d.lo - 1n) };
        }
        return { m: I.TOP };
      }
      case 'app': {
        if (e.fn === 'sbv2int' || e.fn === 'ubv2int') {
          const a = this.eval(st, e.args[0]!);
          return { m: (e.fn === 'sbv2int' ? a.s : a.u) ?? I.TOP, cg: e.fn === 'ubv2int' ? a.cg : undefined };
        }
        return { m: I.TOP };
      }
      case 'ite':
        return this.joinVal(this.evalInt(st, e.then), this.evalInt(st, e.else));
      default:
        return { m: I.TOP };
    }
  }

  private joinVal(a: Val, b: Val): Val {
    const j = (x?: I.Interval, y?: I.Interval) => (x && y ? I.join(x, y) : undefined);
    return { s: j(a.s, b.s), u: j(a.u, b.u), m: j(a.m, b.m), cg: a.cg && b.cg ? C.join(a.cg, b.cg) : undefined };
  }

  private evalBv(st: AbsValue, e: Expr, w: number): Val {
    const W = BigInt(w);
    const sR = I.iv(-(1n << (W - 1n)), (1n << (W - 1n)) - 1n);
    const uR = I.iv(0n, (1n << W) - 1n);
    const fit = (x: I.Interval | undefined, r: I.Interval) => (x && I.leq(x, r) ? x : r);
    const sOf = (v: Val) => v.s ?? sR;
    const uOf = (v: Val) => v.u ?? uR;
    // The congruence of a result taken modulo 2^w; exact when the unsigned sum did not wrap.
    const wrapCg = (cg: C.Congruence, u: I.Interval | undefined) => (u && I.leq(u, uR) ? cg : C.wrap(cg, w));
    const out = (s: I.Interval | undefined, u: I.Interval | undefined, cg: C.Congruence = C.ANY): Val => ({ s: fit(s, sR), u: fit(u, uR), cg: wrapCg(cg, u) });
    switch (e.kind) {
      case 'bv_lit':
        return { s: I.constant(BigInt.asIntN(w, e.value)), u: I.constant(e.value), cg: C.exactly(e.value) };
      case 'var':
        return { s: this.interval(st, keyId(e.name, 's')), u: this.interval(st, keyId(e.name, 'u')), cg: this.congruence(st, e.name) };
      case 'unary': {
        if (e.op !== '-') return out(undefined, undefined);
        const a = this.evalBv(st, e.arg, w);
        return out(I.neg(sOf(a)), I.neg(uOf(a)), C.negate(a.cg ?? C.ANY));
      }
      case 'binary': {
        const a = this.evalBv(st, e.left, w);
        const b = this.evalBv(st, e.right, w);
        const ca = a.cg ?? C.ANY;
        const cb = b.cg ?? C.ANY;
        switch (e.op) {
          case '+':
            return out(I.add(sOf(a), sOf(b)), I.add(uOf(a), uOf(b)), C.add(ca, cb));
          case '-':
            return out(I.sub(sOf(a), sOf(b)), I.sub(uOf(a), uOf(b)), C.add(ca, C.negate(cb)));
          case '*': {
            const c = cb.m === 0n ? cb.r : ca.m === 0n ? ca.r : undefined;
            const cg = c === undefined ? C.ANY : C.scale(cb.m === 0n ? ca : cb, c);
            return out(I.mul(sOf(a), sOf(b)), I.mul(uOf(a), uOf(b)), cg);
          }
          case '&': {
            const ua = uOf(a);
            const ub = uOf(b);
            return out(undefined, I.iv(0n, ua.hi! < ub.hi! ? ua.hi : ub.hi));
          }
          default:
            return out(undefined, undefined);
        }
      }
      case 'app': {
        const args = e.args.map((x) => this.eval(st, x));
        const a = args[0] ?? {};
        const cst = (v: Val) => (v.u && v.u.lo !== null && v.u.lo === v.u.hi ? v.u.lo : undefined);
        const m = /^(zext|sext|trunc|int2bv)(\d+)$/.exec(e.fn);
        if (m) {
          if (m[1] === 'zext') return out(undefined, a.u, a.cg);
          if (m[1] === 'sext') return out(a.s, undefined);
          if (m[1] === 'int2bv') return out(a.m, a.m, a.m && a.cg);
          // trunc: the value survives when it fits.
          return out(a.s && I.leq(a.s, sR) ? a.s : undefined, a.u && I.leq(a.u, uR) ? a.u : undefined, a.u && I.leq(a.u, uR) ? a.cg : a.cg && C.wrap(a.cg, w));
        }
        const d = args[1] ? cst(args[1]) : undefined;
        const divisor = d !== undefined && d > 0n ? d : undefined;
        switch (e.fn) {
          case 'udiv':
            return divisor ? out(undefined, I.divBy(uOf(a), divisor, I.truncDiv)) : out(undefined, undefined);
          case 'urem':
            return divisor ? out(undefined, I.iv(0n, uOf(a).hi! < divisor - 1n ? uOf(a).hi : divisor - 1n)) : out(undefined, undefined);
          case 'sdiv': {
            const sd = args[1]?.s;
            if (!sd || sd.lo === null || sd.lo !== sd.hi || sd.lo <= 0n) return out(undefined, undefined);
            return out(I.divBy(sOf(a), sd.lo, I.truncDiv), undefined);
          }
          case 'srem': {
            const sd = args[1]?.s;
            if (!sd || sd.lo === null || sd.lo !== sd.hi || sd.lo <= 0n) return out(undefined, undefined);
            const s = sOf(a);
            const k = sd.lo - 1n;
            return out(I.iv(s.lo !== null && s.lo >= 0n ? 0n : -k, s.hi !== null && s.hi <= 0n ? 0n : k), undefined);
          }
          case 'lshr':
            return divisor !== undefined || d === 0n ? out(undefined, I.divBy(uOf(a), 1n << (d ?? 0n), I.truncDiv)) : out(undefined, undefined);
          case 'ashr':
            return d !== undefined && d < W ? out(I.divBy(sOf(a), 1n << d, I.floorDiv), undefined) : out(undefined, undefined);
          default:
            return out(undefined, undefined);
        }
      }
      case 'ite':
        return this.joinVal(this.evalBv(st, e.then, w), this.evalBv(st, e.else, w));
      default:
        return out(undefined, undefined);
    }
  }
}
