// A symbolic encoding of IMP procedures into SMT terms for invariant
// selection (an adapter over vc/'s expression translation): straight-line
// code in SSA form with path guards, goals as "reached and violated" terms,
// and loops cut at their heads (havoc the targets, assume the invariants and
// the *active* candidates, check entry and preservation goals). The states at
// a loop head and at a goal are kept, so a model gives the values before and
// after an iteration. One encoding serves a whole incremental solver session.
import type { SourceLocation } from '../common/location.js';
import type { Expr, ImpProgram, Procedure, Stmt, WhileStmt } from '../ivl/ast.js';
import { findProcedure } from '../ivl/ast.js';
import { procedureScope } from '../ivl/typecheck.js';
import { BoolSort, FALSE, TRUE, mkAnd, mkConst, mkEq, mkIte, mkNot, mkOr, mkImplies, type Term, type Sort } from '../smt/terms.js';
import { sortOf, translateExpr } from '../vc/translate.js';
import { modifiedGlobals } from '../vc/encode.js';
import { type Candidate, LoopTable, byLoop } from './program.js';

export type GoalKind = 'assert' | 'requires' | 'ensures' | 'invariant-entry' | 'invariant-preserved' | 'candidate-entry' | 'candidate-preserved';

export interface Goal {
  readonly kind: GoalKind;
  readonly loc: SourceLocation;
  /** Reached with the condition false. */
  readonly violated: Term;
  /** The candidate (index) for candidate goals. */
  readonly candidate?: number;
  /** Variable values where the goal is checked. */
  readonly state: ReadonlyMap<string, Term>;
  /** For preservation goals: the values at the loop head before the iteration. */
  readonly before?: ReadonlyMap<string, Term>;
}

export interface SymbolicProgram {
  /** Definitions (SSA equations); assert them all once. */
  readonly constraints: readonly Term[];
  readonly goals: readonly Goal[];
  /** Activation literal of each candidate (index -> Bool constant). */
  readonly activation: ReadonlyMap<number, Term>;
}

type Env = Map<string, Term>;

export class UnsupportedError extends Error {}

/**
 * Encodes every procedure with a body. Loops are cut; a candidate is assumed
 * at its loop head only under its activation literal. `candidates` lists
 * the candidates to treat as such (inline `candidate` clauses not listed are
 * ignored).
 */
export function encodeSymbolic(program: ImpProgram, candidates: readonly Candidate[]): SymbolicProgram {
  const enc = new SymEncoder(program, candidates);
  for (const p of program.procedures) if (p.body) enc.procedure(p);
  return { constraints: enc.constraints, goals: enc.goals, activation: enc.activation };
}

class SymEncoder {
  readonly constraints: Term[] = [];
  readonly goals: Goal[] = [];
  readonly activation = new Map<number, Term>();
  private readonly table: LoopTable;
  private readonly cands: Map<number, Candidate[]>;
  private counter = 0;
  private prefix = '';
  private sorts = new Map<string, Sort>();
  private old: Env = new Map();
  private readonly mods: Map<string, Set<string>>;

  constructor(
    private readonly program: ImpProgram,
    candidates: readonly Candidate[],
  ) {
    this.table = new LoopTable(program);
    this.cands = byLoop(candidates);
    this.mods = modifiedGlobals(program);
    for (const c of candidates) this.activation.set(c.index, mkConst(`act!${c.index}`, BoolSort));
  }

  private fresh(name: string): Term {
    const s = this.sorts.get(name);
    if (!s) throw new UnsupportedError(`unknown variable '${name}'`);
    return mkConst(`${this.prefix}${name}!${++this.counter}`, s);
  }

  /** Binds a value to a fresh constant (keeps terms linear in the program size). */
  private define(name: string, value: Term): Term {
    if (value.op === 'const' || value.op === 'int' || value.op === 'bv' || value.op === 'true' || value.op === 'false') return value;
    const c = this.fresh(name);
    this.constraints.push(mkEq(c, value));
    return c;
  }

  private guardConst(g: Term): Term {
    if (g.op === 'const' || g === TRUE || g === FALSE) return g;
    const c = mkConst(`${this.prefix}g!${++this.counter}`, BoolSort);
    this.constraints.push(mkEq(c, g));
    return c;
  }

  private tr(e: Expr, env: Env): Term {
    return translateExpr(e, {
      lookup: (n) => {
        const t = env.get(n);
        if (!t) throw new UnsupportedError(`unknown variable '${n}'`);
        return t;
      },
      lookupOld: (n) => {
        const t = this.old.get(n) ?? env.get(n);
        if (!t) throw new UnsupportedError(`unknown variable '${n}'`);
        return t;
      },
    });
  }

  procedure(p: Procedure): void {
    this.prefix = `${p.name}!`;
    this.sorts = new Map();
    const scope = procedureScope(this.program, p);
    for (const [n, info] of scope) this.sorts.set(n, sortOf(info.decl.type));
    const env: Env = new Map();
    for (const n of scope.keys()) env.set(n, mkConst(`${this.prefix}${n}!0`, this.sorts.get(n)!));
    this.old = new Map(env);
    let g: Term = mkAnd(...p.requires.map((r) => this.tr(r, env)));
    g = this.stmts(p.body ?? [], env, g);
    for (const e of p.ensures) this.goal('ensures', e.loc, g, this.tr(e, env), env);
  }

  private goal(kind: GoalKind, loc: SourceLocation, g: Term, cond: Term, env: Env, extra: Partial<Goal> = {}): void {
    const violated = mkAnd(g, mkNot(cond));
    if (violated === FALSE) return;
    this.goals.push({ kind, loc, violated, state: new Map(env), ...extra });
  }

  private stmts(ss: readonly Stmt[], env: Env, g: Term): Term {
    for (const s of ss) g = this.stmt(s, env, g);
    return g;
  }

  /** Executes one statement: updates env in place, returns the new guard. */
  private stmt(s: Stmt, env: Env, g: Term): Term {
    switch (s.kind) {
      case 'skip':
        return g;
      case 'assign':
        env.set(s.target, this.define(s.target, this.tr(s.value, env)));
        return g;
      case 'havoc':
        env.set(s.target, this.fresh(s.target));
        return g;
      case 'assume':
        return this.guardConst(mkAnd(g, this.tr(s.cond, env)));
      case 'assert': {
        const c = this.tr(s.cond, env);
        this.goal('assert', s.loc, g, c, env);
        return this.guardConst(mkAnd(g, c));
      }
      case 'block':
        return this.stmts(s.body, env, g);
      case 'if': {
        const c = this.tr(s.cond, env);
        const e1 = new Map(env);
        const e2 = new Map(env);
        const g1 = this.stmts(s.then, e1, this.guardConst(mkAnd(g, c)));
        const g2 = this.stmts(s.else, e2, this.guardConst(mkAnd(g, mkNot(c))));
        for (const n of new Set([...e1.keys(), ...e2.keys()])) {
          const a = e1.get(n)!;
          const b = e2.get(n)!;
          env.set(n, a === b ? a : this.define(n, mkIte(g1, a, b)));
        }
        return this.guardConst(mkOr(g1, g2));
      }
      case 'call':
        return this.call(s, env, g);
      case 'while':
        return this.loop(s, env, g);
    }
  }

  private call(s: Extract<Stmt, { kind: 'call' }>, env: Env, g: Term): Term {
    const callee = findProcedure(this.program, s.proc);
    if (!callee) throw new UnsupportedError(`unknown procedure '${s.proc}'`);
    const args = s.args.map((a) => this.tr(a, env));
    const cenv: Env = new Map();
    for (const gl of this.program.globals) cenv.set(gl.name, env.get(gl.name)!);
    callee.params.forEach((d, k) => cenv.set(d.name, args[k]));
    const savedOld = this.old;
    for (const r of callee.requires) {
      this.old = cenv;
      this.goal('requires', s.loc, g, this.tr(r, cenv), env);
    }
    const pre = new Map(cenv);
    // The callee writes the globals it (transitively) assigns, as in vc/.
    for (const gl of this.mods.get(s.proc) ?? []) {
      const t = this.fresh(gl);
      env.set(gl, t);
      cenv.set(gl, t);
    }
    callee.returns.forEach((d, k) => {
      const t = this.fresh(s.targets[k]);
      env.set(s.targets[k], t);
      cenv.set(d.name, t);
    });
    this.old = pre;
    const post = mkAnd(...callee.ensures.map((e) => this.tr(e, cenv)));
    this.old = savedOld;
    return this.guardConst(mkAnd(g, post));
  }

  /**
   * The cut loop: entry goals; havoc T(loop); assume invariants and active
   * candidates; one arbitrary iteration ending in preservation goals; exit
   * with the head state and !e.
   */
  private loop(w: WhileStmt, env: Env, g: Term): Term {
    const info = this.table.of(w);
    const cands = this.cands.get(info.id) ?? [];
    for (const c of cands) this.goal('candidate-entry', c.loc, g, this.tr(c.expr, env), env, { candidate: c.index });
    for (const inv of w.invariants) this.goal('invariant-entry', inv.loc, g, this.tr(inv, env), env);
    for (const t of info.targets) env.set(t, this.fresh(t));
    const assumed = [
      ...w.invariants.map((i) => this.tr(i, env)),
      ...cands.map((c) => mkImplies(this.activation.get(c.index)!, this.tr(c.expr, env))),
    ];
    const head = this.guardConst(mkAnd(g, ...assumed));
    const before = new Map(env);
    const benv = new Map(env);
    const gEnd = this.stmts(w.body, benv, this.guardConst(mkAnd(head, this.tr(w.cond, env))));
    for (const c of cands) this.goal('candidate-preserved', c.loc, gEnd, this.tr(c.expr, benv), benv, { candidate: c.index, before });
    for (const inv of w.invariants) this.goal('invariant-preserved', inv.loc, gEnd, this.tr(inv, benv), benv);
    return this.guardConst(mkAnd(head, mkNot(this.tr(w.cond, env))));
  }
}
