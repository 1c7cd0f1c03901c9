// Linear and lexicographic ranking functions by Farkas' lemma.
//
// A loop's iterations are given as a disjunction of linear constraint
// systems ("paths") over pre-state variables x, post-state variables x' and
// auxiliary values. A linear ranking function f(x) = r·x + r0 for a set of
// paths satisfies on every path: f(x) >= 0 (bounded) and f(x) - f(x') >= 1
// (decreasing). Each implication "path constraints ⇒ t·z <= d" holds over the
// rationals iff non-negative multipliers λ (free for equalities) combine the
// path's rows into it (affine Farkas lemma, the path being non-empty), which
// makes the search for r, r0 and all λ one linear program (Podelski and
// Rybalchenko). Lexicographic functions are built component by component
// (Alias, Darte, Feautrier, Gonnord): each component is bounded and
// non-increasing on the remaining paths and decreasing on as many as the
// greedy search finds; those paths are dropped and the next component ranks
// the rest.
//
// The result holds over the rationals for the given relation only; a caller
// with a more precise semantics (bit-vectors) must check it there.

import type { Solver } from '../smt/solver.js';
import { RealSort, mkApp, mkConst, mkEq, mkAnd, mkReal, type Term } from '../smt/terms.js';
import type { LinearConstraint, LinearExpr } from './linear.js';

export interface RankingProblem {
  /** Pre-state names (the variables a ranking function may use) and their post-state names. */
  readonly vars: readonly { readonly pre: string; readonly post: string }[];
  readonly paths: readonly (readonly LinearConstraint[])[];
}

/** One component: an integer-coefficient linear function of the pre-state names. */
export type RankingComponent = LinearExpr;

export interface RankingOptions {
  /** Largest coefficient magnitude accepted after scaling to integers (default 2^24; the constant may reach 2^64). */
  readonly maxCoefficient?: bigint;
  /** Time limit of one solver call in ms. */
  readonly timeoutMs?: number;
}

function real(v: bigint): Term {
  return mkReal(`${v}.0`);
}

function sum(ts: Term[]): Term {
  if (ts.length === 0) return real(0n);
  return ts.length === 1 ? ts[0]! : mkApp('+', ...ts);
}

function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a;
  b = b < 0n ? -b : b;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

let problemCounter = 0;

class FarkasEncoder {
  readonly r = new Map<string, Term>();
  readonly r0: Term;
  private mult = 0;
  private readonly id = problemCounter++;

  constructor(readonly problem: RankingProblem) {
    for (const v of problem.vars) this.r.set(v.pre, mkConst(`rk${this.id}.r.${v.pre}`, RealSort));
    this.r0 = mkConst(`rk${this.id}.r0`, RealSort);
  }

  /**
   * Constraints saying that the path implies `Σ target[z]·z <= bound`,
   * where target and bound are terms over the unknowns.
   */
  implies(path: readonly LinearConstraint[], target: ReadonlyMap<string, Term>, bound: Term): Term {
    const out: Term[] = [];
    const lambdas = path.map((row) => {
      const l = mkConst(`rk${this.id}.l${this.mult++}`, RealSort);
      if (row.kind === 'le') out.push(mkApp('>=', l, real(0n)));
      return l;
    });
    const names = new Set<string>(target.keys());
    for (const row of path) for (const v of row.expr.coeffs.keys()) names.add(v);
    for (const z of names) {
      const combo: Term[] = [];
      path.forEach((row, i) => {
        const c = row.expr.coeffs.get(z);
        if (c !== undefined) combo.push(mkApp('*', real(c), lambdas[i]!));
      });
      out.push(mkEq(sum(combo), target.get(z) ?? real(0n)));
    }
    // Rows are `a·z + c <= 0`, i.e. `a·z <= -c`.
    const rhs: Term[] = [];
    path.forEach((row, i) => {
      if (row.expr.constant !== 0n) rhs.push(mkApp('*', real(-row.expr.constant), lambdas[i]!));
    });
    out.push(mkApp('<=', sum(rhs), bound));
    return mkAnd(...out);
  }

  /** f(x) >= 0 on the path: -r·x <= r0. */
  bounded(path: readonly LinearConstraint[]): Term {
    const t = new Map<string, Term>();
    for (const v of this.problem.vars) t.set(v.pre, mkApp('-', this.r.get(v.pre)!));
    return this.implies(path, t, this.r0);
  }

  /** f(x) - f(x') >= delta on the path: -r·x + r·x' <= -delta. */
  decreases(path: readonly LinearConstraint[], delta: bigint): Term {
    const t = new Map<string, Term>();
    for (const v of this.problem.vars) {
      t.set(v.pre, mkApp('-', this.r.get(v.pre)!));
      t.set(v.post, this.r.get(v.pre)!);
    }
    return this.implies(path, t, real(-delta));
  }
}

async function valueOf(solver: Solver, t: Term): Promise<{ num: bigint; den: bigint }> {
  const [v] = await solver.getValues([t]);
  if (v?.kind === 'real') return { num: v.num, den: v.den };
  if (v?.kind === 'int') return { num: v.value, den: 1n };
  throw new Error(`ranking: unexpected model value ${JSON.stringify(v)}`);
}

/**
 * One component: bounded and non-increasing on every path of `paths`,
 * decreasing by at least 1 on those of `strict`. Undefined when the linear
 * program is infeasible (or the solver gives up).
 */
async function component(
  solver: Solver,
  problem: RankingProblem,
  paths: readonly (readonly LinearConstraint[])[],
  strict: ReadonlySet<number>,
  options: RankingOptions,
): Promise<RankingComponent | undefined> {
  const enc = new FarkasEncoder(problem);
  const parts: Term[] = [];
  paths.forEach((p, i) => {
    parts.push(enc.bounded(p), enc.decreases(p, strict.has(i) ? 1n : 0n));
  });
  await solver.push();
  try {
    await solver.assert(mkAnd(...parts));
    const r = await solver.checkSat(undefined, { timeoutMs: options.timeoutMs });
    if (r.status !== 'sat') return undefined;
    const coeffs: [string, { num: bigint; den: bigint }][] = [];
    for (const v of problem.vars) coeffs.push([v.pre, await valueOf(solver, enc.r.get(v.pre)!)]);
    const c0 = await valueOf(solver, enc.r0);
    // Scale to integers: multiply by the lcm of the denominators (a positive factor keeps both conditions).
    let lcm = c0.den;
    for (const [, q] of coeffs) lcm = (lcm / gcd(lcm, q.den)) * q.den;
    const ints = new Map<string, bigint>();
    for (const [name, q] of coeffs) if (q.num !== 0n) ints.set(name, (q.num * lcm) / q.den);
    let constant = (c0.num * lcm) / c0.den;
    // Divide by the gcd of the variable coefficients, rounding the constant down:
    // f >= 0 and integer steps of at least 1 survive (coefficients integer, values integer).
    let g = 0n;
    for (const c of ints.values()) g = gcd(g, c);
    if (g > 1n) {
      for (const [k, c] of ints) ints.set(k, c / g);
      constant = constant >= 0n ? constant / g : -((-constant + g - 1n) / g);
    }
    const max = options.maxCoefficient ?? 1n << 24n;
    for (const c of ints.values()) if (c > max || -c > max) return undefined;
    if (constant > 1n << 64n || -constant > 1n << 64n) return undefined;
    return { coeffs: ints, constant };
  } finally {
    await solver.pop();
  }
}

/**
 * A lexicographic linear ranking function (list of components, most
 * significant first) for the paths, or undefined when none is found.
 * Paths must be satisfiable over the rationals (drop empty ones first with
 * `feasiblePaths`).
 */
export async function synthesizeRanking(solver: Solver, problem: RankingProblem, options: RankingOptions = {}): Promise<RankingComponent[] | undefined> {
  let remaining = [...problem.paths];
  const components: RankingComponent[] = [];
  while (remaining.length > 0) {
    const all = new Set(remaining.map((_, i) => i));
    let f = await component(solver, problem, remaining, all, options);
    let strict = all;
    if (!f) {
      // Greedy: grow the set of paths on which the component decreases.
      strict = new Set<number>();
      for (let i = 0; i < remaining.length; i++) {
        const tryStrict = new Set([...strict, i]);
        const g = await component(solver, problem, remaining, tryStrict, options);
        if (g) {
          strict = tryStrict;
          f = g;
        }
      }
    }
    if (!f || strict.size === 0) return undefined;
    components.push(f);
    remaining = remaining.filter((_, i) => !strict.has(i));
  }
  return components;
}

/** The paths that are satisfiable over the rationals (an empty path ranks nothing and breaks Farkas' lemma). */
export async function feasiblePaths(
  solver: Solver,
  paths: readonly (readonly LinearConstraint[])[],
  timeoutMs?: number,
): Promise<(readonly LinearConstraint[])[]> {
  const out: (readonly LinearConstraint[])[] = [];
  for (const p of paths) {
    await solver.push();
    try {
      const consts = new Map<string, Term>();
      const term = (e: LinearExpr): Term => {
        const parts: Term[] = [real(e.constant)];
        for (const [v, c] of e.coeffs) {
          let x = consts.get(v);
          if (!x) consts.set(v, (x = mkConst(`fp.${v}`, RealSort)));
          parts.push(mkApp('*', real(c), x));
        }
        return sum(parts);
      };
      for (const row of p) {
        const t = term(row.expr);
        await solver.assert(row.kind === 'le' ? mkApp('<=', t, real(0n)) : mkEq(t, real(0n)));
      }
      const r = await solver.checkSat(undefined, { timeoutMs });
      // Keep the path unless it is surely empty.
      if (r.status !== 'unsat') out.push(p);
    } finally {
      await solver.pop();
    }
  }
  return out;
}
