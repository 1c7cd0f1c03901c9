// An IMP procedure as constrained Horn clauses (CHC): one uninterpreted
// predicate per `while` (its loop-head invariant, over the variables live
// there), and one clause per way from a cut point (the entry, a loop head)
// to the next (a loop head) or to a failing goal:
//
//   Inv_L(x) ∧ path(x, x')  ⇒  Inv_M(x')        (also: entry ⇒ Inv_M)
//   Inv_L(x) ∧ path(x, x') ∧ ¬goal(x')  ⇒  false
//
// The paths between cut points are encoded as one formula each, branches
// merged (if-then-else values, as vc/ does), so a loop body with n `if`s
// gives one clause, not 2^n; only an `if` that contains a loop splits the
// path (its branches reach different loop heads). The clauses have a
// solution (interpretations of the predicates making every clause valid)
// exactly when no goal can fail; the solution's interpretations are then
// inductive loop invariants.
//
// The semantics of expressions (bit-vectors as such, or as integers) is
// chc-semantics.ts's. The encoding is checked by nobody but the engine's own
// re-check (horn.ts proves the invariants it reads back on the IMP program
// through vc/), so a mistake here loses proofs but never makes one.

import type { Expr, ImpProgram, ImpType, Procedure, Stmt, WhileStmt } from '../ivl/ast.js';
import { findProcedure } from '../ivl/ast.js';
import { freeVars, someStmt } from '../ivl/walk.js';
import { FALSE, TRUE, freeConsts, mkAnd, mkConst, mkEq, mkIte, mkNot, quoteSymbol, sortToSmt, termToSmt, type Sort, type Term } from '../smt/terms.js';
import { sexprToString, type SExpr } from '../smt/index.js';
import { ChcUnsupported, type ChcSemantics, type TranslationContext } from './chc-semantics.js';
import { roleOf, type GoalRoles } from './unroll.js';

export interface ChcPredicate {
  readonly name: string;
  readonly loop: WhileStmt;
  /** The IMP variables it relates (those live at the loop head), in order. */
  readonly vars: readonly string[];
  readonly sorts: readonly Sort[];
}

export interface ChcAtom {
  readonly pred: ChcPredicate;
  readonly args: readonly Term[];
}

export interface ChcClause {
  /** The cut point the path starts from (none: the procedure's entry). */
  readonly body?: ChcAtom;
  readonly constraint: Term;
  /** The loop head the path reaches (none: a goal fails). */
  readonly head?: ChcAtom;
  /** For a failing goal: what fails (e.g. `assert at 12:5`). */
  readonly goal?: string;
}

export interface ChcSystem {
  readonly predicates: readonly ChcPredicate[];
  readonly clauses: readonly ChcClause[];
}

export interface ChcOptions {
  readonly entry?: string;
  /** Which asserts are claims (error, bound) and which only end executions. */
  readonly roles?: GoalRoles;
}

interface State {
  readonly env: Map<string, Term>;
  pc: Term;
  readonly defs: Term[];
}

/** What comes after the statement being encoded: the rest of a statement list, or the way back to a loop's head. */
type Continuation = { readonly frame: Frame; readonly next: Continuation } | undefined;
type Frame = { readonly kind: 'list'; readonly stmts: readonly Stmt[]; readonly index: number } | { readonly kind: 'back'; readonly loop: WhileStmt };

/** The variables live at each loop head (read on some path from there before they are written). */
export function liveAtLoopHeads(body: readonly Stmt[]): Map<WhileStmt, Set<string>> {
  const heads = new Map<WhileStmt, Set<string>>();
  const union = (...sets: Set<string>[]) => {
    const out = new Set<string>();
    for (const s of sets) for (const v of s) out.add(v);
    return out;
  };
  const before = (ss: readonly Stmt[], after: Set<string>): Set<string> => {
    let live = after;
    for (let i = ss.length - 1; i >= 0; i--) live = stmt(ss[i]!, live);
    return live;
  };
  const stmt = (s: Stmt, after: Set<string>): Set<string> => {
    switch (s.kind) {
      case 'skip':
        return after;
      case 'assign': {
        const out = new Set(after);
        out.delete(s.target);
        return freeVars(s.value, out);
      }
      case 'havoc': {
        const out = new Set(after);
        out.delete(s.target);
        return out;
      }
      case 'assume':
      case 'assert':
        return freeVars(s.cond, new Set(after));
      case 'if':
        return freeVars(s.cond, union(before(s.then, after), before(s.else, after)));
      case 'block':
        return before(s.body, after);
      case 'while': {
        let head = freeVars(s.cond, new Set(after));
        for (;;) {
          const next = union(head, before(s.body, head));
          if (next.size === head.size) break;
          head = next;
        }
        heads.set(s, head);
        return head;
      }
      case 'call':
        throw new ChcUnsupported('procedure calls');
    }
  };
  before(body, new Set());
  return heads;
}

const hasLoop = (ss: readonly Stmt[]): boolean => someStmt(ss, (s) => s.kind === 'while');

/** The Horn clauses of the entry procedure (see the module comment). Throws ChcUnsupported for programs outside their reach. */
export function encodeChc(program: ImpProgram, semantics: ChcSemantics, options: ChcOptions = {}): ChcSystem {
  const proc = findProcedure(program, options.entry ?? 'main');
  if (!proc?.body) throw new ChcUnsupported(`no procedure '${options.entry ?? 'main'}' with a body`);
  return new ChcEncoder(program, proc, semantics, options).run();
}

class ChcEncoder {
  private readonly types = new Map<string, ImpType>();
  private readonly predicates = new Map<WhileStmt, ChcPredicate>();
  private readonly clauses: ChcClause[] = [];
  /** What follows each loop once its condition is false. */
  private readonly after = new Map<WhileStmt, Continuation>();
  private fragment = 0;
  private counter = 0;

  constructor(
    program: ImpProgram,
    private readonly proc: Procedure,
    private readonly semantics: ChcSemantics,
    private readonly options: ChcOptions,
  ) {
    for (const d of [...program.globals, ...proc.params, ...proc.returns, ...proc.locals]) this.types.set(d.name, d.type);
  }

  run(): ChcSystem {
    const body = this.proc.body!;
    const live = liveAtLoopHeads(body);
    this.index(body, undefined);
    for (const [loop, vars] of live) {
      const names = [...vars].filter((v) => this.types.has(v)).sort();
      this.predicates.set(loop, {
        name: `inv${this.predicates.size + 1}`,
        loop,
        vars: names,
        sorts: names.map((v) => this.semantics.sort(this.types.get(v)!)),
      });
    }
    // The entry: every variable arbitrary (in its domain).
    this.fragment++;
    this.initial = new Map();
    const entry = this.state(new Map());
    this.exec(entry, { frame: { kind: 'list', stmts: body, index: 0 }, next: undefined }, undefined);
    // Each loop head: one more iteration, or the way out.
    for (const pred of this.predicates.values()) {
      this.fragment++;
      this.initial = new Map();
      const st = this.state(new Map());
      const args = pred.vars.map((v, i) => {
        const t = mkConst(`f${this.fragment}.${v}`, pred.sorts[i]!);
        st.env.set(v, t);
        const d = this.semantics.domain(v, this.types.get(v)!, t);
        if (d) st.defs.push(d);
        return t;
      });
      const from: ChcAtom = { pred, args };
      const cond = this.tr(pred.loop.cond, st);
      const inside = this.fork(st);
      inside.pc = mkAnd(st.pc, cond);
      this.exec(inside, { frame: { kind: 'list', stmts: pred.loop.body, index: 0 }, next: { frame: { kind: 'back', loop: pred.loop }, next: undefined } }, from);
      st.pc = mkAnd(st.pc, mkNot(cond));
      this.exec(st, this.after.get(pred.loop), from);
    }
    return { predicates: [...this.predicates.values()], clauses: this.clauses };
  }

  /** Records what follows each loop (the rest of its list, then what follows that list). */
  private index(ss: readonly Stmt[], k: Continuation): void {
    ss.forEach((s, i) => {
      const rest: Continuation = { frame: { kind: 'list', stmts: ss, index: i + 1 }, next: k };
      if (s.kind === 'while') {
        this.after.set(s, rest);
        this.index(s.body, { frame: { kind: 'back', loop: s }, next: undefined });
      } else if (s.kind === 'if') {
        this.index(s.then, rest);
        this.index(s.else, rest);
      } else if (s.kind === 'block') this.index(s.body, rest);
    });
  }

  private state(env: Map<string, Term>): State {
    return { env, pc: TRUE, defs: [] };
  }

  private fork(st: State): State {
    return { env: new Map(st.env), pc: st.pc, defs: [...st.defs] };
  }

  private fresh(sort: Sort, hint: string): Term {
    return mkConst(`f${this.fragment}.${hint}!${++this.counter}`, sort);
  }

  private freshVar(name: string, st: State): Term {
    const t = this.types.get(name)!;
    const v = this.fresh(this.semantics.sort(t), name);
    const d = this.semantics.domain(name, t, v);
    if (d) st.defs.push(d);
    return v;
  }

  private context(st: State): TranslationContext {
    return {
      fresh: (sort, hint) => this.fresh(sort, hint),
      define: (c) => st.defs.push(c),
      obligation: (c, what) => this.failing(st, mkNot(c), `${what} wraps around`),
    };
  }

  /** The value of a variable; one not written yet on the path (arbitrary at the entry, or not live at the loop head) gets a fresh one. */
  private value(n: string, st: State): Term {
    let t = st.env.get(n);
    if (!t) {
      const type = this.types.get(n);
      if (!type) throw new Error(`unknown variable '${n}'`);
      t = this.initial.get(n);
      if (!t) {
        t = this.fresh(this.semantics.sort(type), n);
        this.initial.set(n, t);
      }
      st.env.set(n, t);
      const d = this.semantics.domain(n, type, t);
      if (d && !st.defs.includes(d)) st.defs.push(d);
    }
    return t;
  }

  private tr(e: Expr, st: State, target?: string): Term {
    return this.semantics.translate(e, (n) => this.value(n, st), this.context(st), target);
  }

  /** The value of each variable not written on the way from the current fragment's start: one per fragment, shared by its paths. */
  private initial = new Map<string, Term>();

  /** The start of the path being encoded (undefined: the entry). */
  private from: ChcAtom | undefined;

  private failing(st: State, bad: Term, goal: string): void {
    const constraint = mkAnd(...st.defs, st.pc, bad);
    if (constraint === FALSE) return;
    this.clauses.push({ ...(this.from ? { body: this.from } : {}), constraint, goal });
  }

  private reach(st: State, loop: WhileStmt): void {
    const pred = this.predicates.get(loop)!;
    const constraint = mkAnd(...st.defs, st.pc);
    if (constraint === FALSE) return;
    const args = pred.vars.map((v) => this.value(v, st));
    this.clauses.push({ ...(this.from ? { body: this.from } : {}), constraint: mkAnd(...st.defs, st.pc), head: { pred, args } });
  }

  /** Encodes the paths from `st` through the continuation `k`, to loop heads and failing goals. */
  private exec(st: State, k: Continuation, from: ChcAtom | undefined): void {
    this.from = from;
    for (; k; k = k.next) {
      const f = k.frame;
      if (f.kind === 'back') {
        this.reach(st, f.loop);
        return;
      }
      for (let i = f.index; i < f.stmts.length; i++) {
        if (st.pc === FALSE) return;
        const s = f.stmts[i]!;
        const rest: Continuation = { frame: { kind: 'list', stmts: f.stmts, index: i + 1 }, next: k.next };
        if (s.kind === 'while') {
          this.reach(st, s);
          return;
        }
        if (s.kind === 'if' && (hasLoop(s.then) || hasLoop(s.else))) {
          // The branches reach different loop heads: one path each.
          const c = this.tr(s.cond, st);
          const other = this.fork(st);
          st.pc = mkAnd(st.pc, c);
          other.pc = mkAnd(other.pc, mkNot(c));
          this.exec(st, { frame: { kind: 'list', stmts: s.then, index: 0 }, next: rest }, from);
          this.exec(other, { frame: { kind: 'list', stmts: s.else, index: 0 }, next: rest }, from);
          return;
        }
        if (s.kind === 'block' && hasLoop(s.body)) {
          this.exec(st, { frame: { kind: 'list', stmts: s.body, index: 0 }, next: rest }, from);
          return;
        }
        this.straight(s, st);
      }
    }
  }

  /** A statement without loops inside, in place. */
  private straight(s: Stmt, st: State): void {
    switch (s.kind) {
      case 'skip':
        return;
      case 'assign':
        st.env.set(s.target, this.tr(s.value, st, s.target));
        return;
      case 'havoc':
        st.env.set(s.target, this.freshVar(s.target, st));
        return;
      case 'assume':
        st.pc = mkAnd(st.pc, this.tr(s.cond, st));
        return;
      case 'assert': {
        const c = this.tr(s.cond, st);
        if (roleOf(s, this.options.roles) !== 'assume') this.failing(st, mkNot(c), `assert at ${s.loc.line}:${s.loc.column}`);
        st.pc = mkAnd(st.pc, c);
        return;
      }
      case 'block':
        for (const x of s.body) this.straight(x, st);
        return;
      case 'if': {
        const c = this.tr(s.cond, st);
        const pc = st.pc;
        const then = this.fork(st);
        then.pc = mkAnd(pc, c);
        for (const x of s.then) this.straight(x, then);
        // The else branch runs on st itself, with the definitions the then branch made (they only define fresh constants).
        st.defs.splice(0, st.defs.length, ...then.defs);
        st.pc = mkAnd(pc, mkNot(c));
        for (const x of s.else) this.straight(x, st);
        for (const [n, v] of then.env) {
          const w = this.value(n, st);
          if (v !== w) st.env.set(n, this.name(mkIte(c, v, w), n, st));
        }
        st.pc = mkOrPc(then.pc, st.pc, c);
        return;
      }
      case 'while':
      case 'call':
        throw new Error(`${s.kind} in a straight-line part`);
    }
  }

  /** A merged value: named by a fresh constant when it is not small (keeps the clause a DAG of small definitions). */
  private name(t: Term, hint: string, st: State): Term {
    if (t.args.length === 0) return t;
    const x = this.fresh(t.sort, hint);
    st.defs.push(mkEq(x, t));
    return x;
  }
}

/** The path condition after an if: either branch's (simplified when both kept the condition as it was). */
function mkOrPc(thenPc: Term, elsePc: Term, c: Term): Term {
  if (thenPc === FALSE) return elsePc;
  if (elsePc === FALSE) return thenPc;
  return mkIte(c, thenPc, elsePc);
}

// ---------------------------------------------------------------------------
// SMT-LIB text

/** A term as SMT-LIB text whose shared sub-terms are `let`-bound once (hash-consed terms are DAGs; their trees can be exponential). */
export function sharedTermToSmt(t: Term): string {
  const uses = new Map<Term, number>();
  const order: Term[] = [];
  const visit = (x: Term): void => {
    const n = uses.get(x) ?? 0;
    uses.set(x, n + 1);
    if (n > 0 || x.args.length === 0) return;
    for (const a of x.args) visit(a);
    order.push(x);
  };
  visit(t);
  // One memo for the whole term: a bound term's entry becomes its name once its binding is written.
  const memo = new Map<Term, string>();
  const bindings: string[] = [];
  let n = 0;
  for (const x of order) {
    if (x === t || (uses.get(x) ?? 0) < 2) continue;
    const name = `tarsier.let.${n++}`;
    bindings.push(`(let ((${name} ${termToSmt(x, memo)})) `);
    memo.set(x, name);
  }
  return bindings.join('') + termToSmt(t, memo) + ')'.repeat(bindings.length);
}

/** A known invariant of a predicate (a solution of the clauses in a semantics with more executions): its parameters and body, SMT-LIB. */
export interface ChcHint {
  readonly params: readonly string[];
  readonly body: SExpr;
}

/**
 * The clauses as an SMT-LIB script for z3's Horn engine (Spacer), ending
 * with `(check-sat)` and `(get-model)`. `hints`: by predicate, a formula
 * every state the predicate stands for satisfies, added to each clause
 * where the predicate is the premise (the solver then only has to find
 * what is missing; the invariant is the predicate's solution and its hint).
 */
export function chcToSmtLib(system: ChcSystem, options: readonly string[] = [], hints: ReadonlyMap<string, ChcHint> = new Map()): string {
  const out: string[] = ['(set-logic HORN)', ...options];
  for (const p of system.predicates) out.push(`(declare-fun ${p.name} (${p.sorts.map(sortToSmt).join(' ')}) Bool)`);
  const hinted = new Set<string>();
  for (const p of system.predicates) {
    const h = hints.get(p.name);
    if (!h || h.params.length !== p.sorts.length) continue;
    out.push(`(define-fun ${quoteSymbol(`hint!${p.name}`)} (${h.params.map((x, i) => `(${quoteSymbol(x)} ${sortToSmt(p.sorts[i]!)})`).join(' ')}) Bool ${sexprToString(h.body)})`);
    hinted.add(p.name);
  }
  for (const c of system.clauses) {
    const parts: Term[] = [];
    let headText = 'false';
    if (c.head) {
      // Head arguments as variables, each equal to its term.
      const vars = c.head.args.map((a, i) => (a.op === 'const' && !c.head!.args.slice(0, i).includes(a) ? a : mkConst(`h.${i}`, a.sort)));
      vars.forEach((v, i) => {
        if (v !== c.head!.args[i]) parts.push(mkEq(v, c.head!.args[i]!));
      });
      headText = vars.length === 0 ? c.head.pred.name : `(${c.head.pred.name} ${vars.map((v) => termToSmt(v)).join(' ')})`;
    }
    const constraint = mkAnd(c.constraint, ...parts);
    const atom = (name: string, args: readonly Term[]) => (args.length === 0 ? name : `(${name} ${args.map((a) => termToSmt(a)).join(' ')})`);
    const bodyAtom = c.body ? (hinted.has(c.body.pred.name) ? `(and ${atom(c.body.pred.name, c.body.args)} ${atom(quoteSymbol(`hint!${c.body.pred.name}`), c.body.args)})` : atom(c.body.pred.name, c.body.args)) : undefined;
    const consts = new Map<string, Term>();
    freeConsts(constraint, consts);
    if (c.body) for (const a of c.body.args) freeConsts(a, consts);
    if (c.head) for (const a of c.head.args) freeConsts(a, consts);
    const premise = [bodyAtom, constraint === TRUE ? undefined : sharedTermToSmt(constraint)].filter((x): x is string => x !== undefined);
    const implication = `(=> ${premise.length === 0 ? 'true' : premise.length === 1 ? premise[0] : `(and ${premise.join(' ')})`} ${headText})`;
    const binder = [...consts.values()].map((x) => `(${quoteSymbol(x.name!)} ${sortToSmt(x.sort)})`).join(' ');
    out.push(binder ? `(assert (forall (${binder}) ${implication}))` : `(assert ${implication})`);
  }
  out.push('(check-sat)', '(get-model)');
  return out.join('\n') + '\n';
}
