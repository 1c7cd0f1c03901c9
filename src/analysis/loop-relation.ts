// The transition relation of one iteration of an IMP loop, abstracted to a
// disjunction of linear constraint systems (one per path through the body)
// over the integers, for ranking-function synthesis.
//
// Bit-vectors are read as integers (signed or unsigned, guessed from how the
// loop compares them) and their arithmetic as integer arithmetic, ignoring
// wrap-around; anything non-linear becomes an unconstrained value. The
// abstraction is therefore NOT sound for bit-vectors: it only proposes
// candidates. Whoever uses a ranking function found on it must check it
// against the exact bit-vector semantics (the termination engine does).

import type { Expr, ImpType, Stmt, WhileStmt } from '../ivl/ast.js';
import { assignedVars, mentionedVars, visitStmtExprs } from '../ivl/walk.js';
import { eq, le, linAdd, linConst, linConstantValue, linScale, linVar, lt, type LinearConstraint, type LinearExpr } from './linear.js';

/** How a state variable is read as an integer. */
export type Reading = 'signed' | 'unsigned' | 'bool';

export interface StateVar {
  readonly name: string;
  readonly reading: Reading;
  /** Bit width (1 for bool). */
  readonly width: number;
}

export interface LoopRelation {
  /** The scalar variables the loop mentions (its state as far as ranking goes). */
  readonly vars: readonly StateVar[];
  /** One constraint system per feasible-looking path: over `preName(v)`, `postName(v)` and fresh names. */
  readonly paths: readonly (readonly LinearConstraint[])[];
  /**
   * The ranges of the pre-state readings (true facts of bit-vectors). Kept
   * apart: with them, "x grows up to its maximum" ranks a loop over the
   * integers, which wrap-around defeats; try without them first.
   */
  readonly ranges: readonly LinearConstraint[];
}

export const preName = (v: string): string => `pre:${v}`;
export const postName = (v: string): string => `post:${v}`;

const UNSIGNED_OPS = new Set(['ult', 'ule', 'ugt', 'uge', 'udiv', 'urem', 'lshr']);
const COMPARISONS: Record<string, { op: '<' | '<=' | '>' | '>='; signed: boolean }> = {
  slt: { op: '<', signed: true },
  sle: { op: '<=', signed: true },
  sgt: { op: '>', signed: true },
  sge: { op: '>=', signed: true },
  ult: { op: '<', signed: false },
  ule: { op: '<=', signed: false },
  ugt: { op: '>', signed: false },
  uge: { op: '>=', signed: false },
};

class TooManyPaths extends Error {}

interface PathState {
  readonly constraints: LinearConstraint[];
  readonly env: Map<string, LinearExpr>;
}

/** Disjunctive normal form of a condition: a list of conjunctions; `[[]]` is true, `[]` is false. */
type Dnf = LinearConstraint[][];

/** Variables compared, divided or zero-extended as unsigned somewhere in the statements. */
function unsignedVars(ss: readonly Stmt[]): Set<string> {
  const out = new Set<string>();
  visitStmtExprs(ss, (e) => {
    if (e.kind === 'app' && (UNSIGNED_OPS.has(e.fn) || e.fn.startsWith('zext'))) {
      for (const a of e.args) if (a.kind === 'var') out.add(a.name);
    }
  }, false);
  return out;
}

class Builder {
  private freshCount = 0;

  constructor(
    private readonly types: ReadonlyMap<string, ImpType>,
    private readonly readings: ReadonlyMap<string, Reading>,
    private readonly maxPaths: number,
  ) {}

  private fresh(): LinearExpr {
    return linVar(`fresh:${this.freshCount++}`);
  }

  private isBoolExpr(e: Expr): boolean {
    switch (e.kind) {
      case 'bool_lit':
        return true;
      case 'var':
        return this.types.get(e.name)?.kind === 'bool';
      case 'unary':
        return e.op === '!';
      case 'binary':
        return ['<==>', '==>', '<==', '||', '&&', '==', '!=', '<', '<=', '>', '>='].includes(e.op);
      case 'app':
        return e.fn in COMPARISONS;
      default:
        return false;
    }
  }

  /** The integer value of a scalar expression, or a fresh unknown. `signed`: how literals are read. */
  value(e: Expr, env: ReadonlyMap<string, LinearExpr>, signed: boolean): LinearExpr {
    switch (e.kind) {
      case 'bool_lit':
        return linConst(e.value ? 1n : 0n);
      case 'int_lit':
        return linConst(e.value);
      case 'bv_lit':
        return linConst(signed ? BigInt.asIntN(e.width, e.value) : e.value);
      case 'var':
        return env.get(e.name) ?? this.fresh();
      case 'unary':
        if (e.op === '-') return linScale(this.value(e.arg, env, signed), -1n);
        return this.fresh();
      case 'binary': {
        if (e.op === '+' || e.op === '-') {
          return linAdd(this.value(e.left, env, signed), this.value(e.right, env, signed), e.op === '+' ? 1n : -1n);
        }
        if (e.op === '*') {
          const a = this.value(e.left, env, signed);
          const b = this.value(e.right, env, signed);
          const ka = linConstantValue(a);
          const kb = linConstantValue(b);
          if (kb !== undefined) return linScale(a, kb);
          if (ka !== undefined) return linScale(b, ka);
        }
        return this.fresh();
      }
      case 'app':
        if (/^(sext|zext|trunc)\d+$/.test(e.fn)) return this.value(e.args[0]!, env, signed);
        return this.fresh();
      default:
        return this.fresh();
    }
  }

  private signedContext(e: Expr): boolean {
    if (e.kind === 'var') return this.readings.get(e.name) !== 'unsigned';
    if (e.kind === 'binary') return this.signedContext(e.left) && this.signedContext(e.right);
    if (e.kind === 'unary') return this.signedContext(e.arg);
    return true;
  }

  private cap(d: Dnf): Dnf {
    if (d.length > this.maxPaths) throw new TooManyPaths();
    return d;
  }

  private and(a: Dnf, b: Dnf): Dnf {
    const out: Dnf = [];
    for (const x of a) for (const y of b) out.push([...x, ...y]);
    return this.cap(out);
  }

  private compare(op: '<' | '<=' | '>' | '>=' | '==' | '!=', a: LinearExpr, b: LinearExpr, positive: boolean): Dnf {
    let o = op;
    if (!positive) o = ({ '<': '>=', '<=': '>', '>': '<=', '>=': '<', '==': '!=', '!=': '==' } as const)[op];
    // Two constants compare now: a path that cannot be taken is not counted
    // (`x != 0` on a known x would otherwise split it in two).
    const ka = linConstantValue(a);
    const kb = linConstantValue(b);
    if (ka !== undefined && kb !== undefined) {
      const holds = { '<': ka < kb, '<=': ka <= kb, '>': ka > kb, '>=': ka >= kb, '==': ka === kb, '!=': ka !== kb }[o];
      return holds ? [[]] : [];
    }
    switch (o) {
      case '<':
        return [[lt(a, b)]];
      case '<=':
        return [[le(a, b)]];
      case '>':
        return [[lt(b, a)]];
      case '>=':
        return [[le(b, a)]];
      case '==':
        return [[eq(a, b)]];
      case '!=':
        return [[lt(a, b)], [lt(b, a)]];
    }
  }

  /** The condition `e` (or its negation) as a DNF of linear constraints; what cannot be expressed is dropped (true). */
  cond(e: Expr, env: ReadonlyMap<string, LinearExpr>, positive: boolean): Dnf {
    switch (e.kind) {
      case 'bool_lit':
        return e.value === positive ? [[]] : [];
      case 'var':
        if (this.types.get(e.name)?.kind !== 'bool') return [[]];
        return [[eq(this.value(e, env, true), linConst(positive ? 1n : 0n))]];
      case 'unary':
        return e.op === '!' ? this.cond(e.arg, env, !positive) : [[]];
      case 'binary': {
        const { op } = e;
        if (op === '&&' || op === '||') {
          const conj = (op === '&&') === positive;
          const a = this.cond(e.left, env, positive);
          const b = this.cond(e.right, env, positive);
          return conj ? this.and(a, b) : this.cap([...a, ...b]);
        }
        if (op === '==>') {
          const neg = { kind: 'unary', op: '!', arg: e.left, loc: e.loc } as const;
          return this.cond({ kind: 'binary', op: '||', left: neg, right: e.right, loc: e.loc }, env, positive);
        }
        if (op === '==' || op === '!=' || op === '<' || op === '<=' || op === '>' || op === '>=') {
          if (this.isBoolExpr(e.left) !== this.isBoolExpr(e.right)) return [[]];
          if (this.isBoolExpr(e.left) && !(e.left.kind === 'var' || e.left.kind === 'bool_lit') ) return [[]];
          if (this.isBoolExpr(e.right) && !(e.right.kind === 'var' || e.right.kind === 'bool_lit')) return [[]];
          const s = this.signedContext(e.left) && this.signedContext(e.right);
          return this.compare(op, this.value(e.left, env, s), this.value(e.right, env, s), positive);
        }
        return [[]];
      }
      case 'app': {
        const c = COMPARISONS[e.fn];
        if (!c) return [[]];
        return this.compare(c.op, this.value(e.args[0]!, env, c.signed), this.value(e.args[1]!, env, c.signed), positive);
      }
      default:
        return [[]];
    }
  }

  private split(paths: PathState[], d: Dnf): PathState[] {
    const out: PathState[] = [];
    for (const p of paths) {
      for (const conj of d) out.push({ constraints: [...p.constraints, ...conj], env: new Map(p.env) });
    }
    return this.bounded(out);
  }

  /** The paths, unless there are more than the limit (each `if` in sequence doubles them). */
  private bounded(paths: PathState[]): PathState[] {
    if (paths.length > this.maxPaths) throw new TooManyPaths();
    return paths;
  }

  stmts(ss: readonly Stmt[], paths: PathState[]): PathState[] {
    for (const s of ss) paths = this.stmt(s, paths);
    return paths;
  }

  private stmt(s: Stmt, paths: PathState[]): PathState[] {
    switch (s.kind) {
      case 'skip':
        return paths;
      case 'assign': {
        const t = this.types.get(s.target);
        if (!t || (t.kind !== 'bv' && t.kind !== 'bool' && t.kind !== 'int')) return paths;
        if (t.kind === 'bool' && !(s.value.kind === 'var' || s.value.kind === 'bool_lit')) {
          // b := cond: split on the condition, so that later tests of b keep their meaning.
          const out: PathState[] = [];
          for (const p of paths) {
            for (const [positive, v] of [[true, 1n], [false, 0n]] as const) {
              for (const conj of this.cond(s.value, p.env, positive)) {
                const env = new Map(p.env);
                env.set(s.target, linConst(v));
                out.push({ constraints: [...p.constraints, ...conj], env });
              }
            }
          }
          return this.bounded(out);
        }
        const signed = this.readings.get(s.target) !== 'unsigned';
        const v = s.value;
        if (v.kind === 'ite' && isLiteral(v.then) && isLiteral(v.else)) {
          // x := (if c then 1 else 0), as an assert's condition is lowered: split on c, so that a later test of x is decided.
          const out: PathState[] = [];
          for (const p of paths) {
            for (const [positive, arm] of [[true, v.then], [false, v.else]] as const) {
              for (const conj of this.cond(v.cond, p.env, positive)) {
                const env = new Map(p.env);
                env.set(s.target, this.value(arm, env, signed));
                out.push({ constraints: [...p.constraints, ...conj], env });
              }
            }
          }
          return this.bounded(out);
        }
        for (const p of paths) p.env.set(s.target, this.value(v, p.env, signed));
        return paths;
      }
      case 'havoc':
        for (const p of paths) if (p.env.has(s.target)) p.env.set(s.target, this.fresh());
        return paths;
      case 'assume':
      case 'assert':
        // A failing assert ends the execution (reach_error): only the paths where it holds go on.
        return this.bounded(paths.flatMap((p) => this.split([p], this.cond(s.cond, p.env, true))));
      case 'block':
        return this.stmts(s.body, paths);
      case 'if':
        return this.bounded(
          paths.flatMap((p) => [
            ...this.stmts(s.then, this.split([p], this.cond(s.cond, p.env, true))),
            ...this.stmts(s.else, this.split([p], this.cond(s.cond, p.env, false))),
          ]),
        );
      case 'while': {
        // An inner loop (proved to end separately): its variables get arbitrary values, and its condition is false.
        const assigned = assignedVars(s.body);
        for (const p of paths) for (const v of assigned) if (p.env.has(v)) p.env.set(v, this.fresh());
        return this.bounded(paths.flatMap((p) => this.split([p], this.cond(s.cond, p.env, false))));
      }
      case 'call':
        for (const p of paths) for (const t of s.targets) if (p.env.has(t)) p.env.set(t, this.fresh());
        return paths;
    }
  }
}

function isLiteral(e: Expr): boolean {
  return e.kind === 'bv_lit' || e.kind === 'int_lit' || e.kind === 'bool_lit';
}

/** `c ==> e` when `c` is the loop's condition (a flag variable) is just `e` in an iteration. */
function underCondition(inv: Expr, cond: Expr): Expr {
  if (inv.kind === 'binary' && inv.op === '==>' && inv.left.kind === 'var' && cond.kind === 'var' && inv.left.name === cond.name) return inv.right;
  return inv;
}

/** The range of a state variable's integer reading. */
export function readingRange(v: StateVar): { min: bigint; max: bigint } {
  if (v.reading === 'bool') return { min: 0n, max: 1n };
  const w = BigInt(v.width);
  return v.reading === 'signed' ? { min: -(1n << (w - 1n)), max: (1n << (w - 1n)) - 1n } : { min: 0n, max: (1n << w) - 1n };
}

/**
 * The linear relation of one iteration of `loop` (condition true, then the
 * body) from states satisfying its `invariants`, or a reason why there is none (too many paths, no scalar state).
 * `types` gives the type of every variable in scope.
 */
export function loopRelation(
  loop: WhileStmt,
  types: ReadonlyMap<string, ImpType>,
  maxPaths = 256,
): LoopRelation | { readonly error: string } {
  // The loop's invariants (proved elsewhere) narrow the pre-states; disjunctive ones are left out.
  const mentioned = mentionedVars([loop], false);
  const unsigned = unsignedVars([loop]);
  const vars: StateVar[] = [];
  const readings = new Map<string, Reading>();
  for (const name of [...mentioned].sort()) {
    const t = types.get(name);
    if (!t) continue;
    if (t.kind === 'bool') vars.push({ name, reading: 'bool', width: 1 });
    else if (t.kind === 'bv') vars.push({ name, reading: unsigned.has(name) ? 'unsigned' : 'signed', width: t.width });
    else continue;
    readings.set(name, vars[vars.length - 1]!.reading);
  }
  if (vars.length === 0) return { error: 'the loop has no integer state' };
  const builder = new Builder(types, readings, maxPaths);
  const env = new Map<string, LinearExpr>();
  const ranges: LinearConstraint[] = [];
  for (const v of vars) {
    env.set(v.name, linVar(preName(v.name)));
    const r = readingRange(v);
    ranges.push(le(linConst(r.min), linVar(preName(v.name))), le(linVar(preName(v.name)), linConst(r.max)));
  }
  let paths: PathState[];
  try {
    paths = builder.stmts([{ kind: 'assume', cond: loop.cond, loc: loop.loc }, ...loop.body], [{ constraints: loop.invariants.flatMap((inv) => {
      const d = builder.cond(underCondition(inv, loop.cond), env, true);
      return d.length === 1 ? d[0]! : [];
    }), env }]);
  } catch (e) {
    if (e instanceof TooManyPaths) return { error: `the loop body has more than ${maxPaths} paths` };
    throw e;
  }
  return {
    vars,
    ranges,
    paths: paths.map((p) => [...p.constraints, ...vars.map((v) => eq(linVar(postName(v.name)), p.env.get(v.name)!))]),
  };
}
