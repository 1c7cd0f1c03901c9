// One IMP procedure to passive (SSA) form as SMT terms: a list of definitions
// to assert, and one goal per assert / call precondition / postcondition /
// invariant check. Calls are modular; loops with invariants are cut; a loop
// without invariants is cut with the invariant `true` and recorded as an
// abstraction, so goals whose failure needs it are not reported as failed.
import type { SourceLocation } from '../common/location.js';
import type { CallStmt, Expr, ImpProgram, Procedure, Stmt } from '../ivl/ast.js';
import { findProcedure } from '../ivl/ast.js';
import { printExpr } from '../ivl/printer.js';
import { assignedVars, stmtBodies, stmtTargets, visitStmts } from '../ivl/walk.js';
import { BoolSort, FALSE, TRUE, mkAnd, mkConst, mkEq, mkIte, mkNot, mkOr, type Term } from '../smt/terms.js';
import { sortOf, translateExpr, type TranslateEnv } from './translate.js';
import { PolynomialReader } from './polynomial.js';

export type GoalKind = 'assert' | 'precondition' | 'postcondition' | 'invariant-entry' | 'invariant-preserved';

export interface EncodedGoal {
  readonly id: number;
  readonly kind: GoalKind;
  /** Where the goal is written (the assert, the call, the ensures/invariant expression). */
  readonly loc: SourceLocation;
  /** For calls: the precondition that must hold. */
  readonly clauseLoc?: SourceLocation;
  /** Readable condition, e.g. `x > 0`. */
  readonly text: string;
  /** A Boolean constant, defined to be true exactly when the goal is violated. */
  readonly violation: Term;
  /** How many trace steps precede the goal (its counterexample shows these). */
  readonly traceLength: number;
  /** The `assert` statement the goal comes from (kind `assert` only). */
  readonly stmt?: Stmt;
}

/** An `if` condition evaluated on the path (for counterexamples that show branch outcomes). */
export interface BranchRecord {
  readonly loc: SourceLocation;
  /** True when the path reaches the `if`. */
  readonly reached: Term;
  /** The condition's value there. */
  readonly cond: Term;
  /** How many goals precede it (it comes before every goal whose id is at least this). */
  readonly goalsBefore: number;
}

/** A point of the path where variables got new values (for counterexamples). */
export interface TraceStep {
  readonly loc: SourceLocation;
  /** `assign`, `havoc`, `call`, `loop-head` (an arbitrary iteration). */
  readonly what: 'assign' | 'havoc' | 'call' | 'loop-head';
  /** True when the step is on the executed path. */
  readonly reached: Term;
  readonly updates: readonly { readonly name: string; readonly value: Term }[];
}

/** A loop replaced by its invariants (or by `true` when it has none). */
export interface LoopAbstraction {
  readonly loc: SourceLocation;
  readonly hasInvariants: boolean;
  /** True when the path reaches the loop head. */
  readonly reached: Term;
  /** Index of the loop's `loop-head` step in the trace. */
  readonly traceIndex: number;
}

export interface ProcedureEncoding {
  readonly proc: string;
  /** Definitions of the passive form; assert all of them (they are always satisfiable together). */
  readonly assertions: readonly Term[];
  readonly goals: readonly EncodedGoal[];
  /** Values of every variable at entry (parameters, globals, returns, locals). */
  readonly entry: ReadonlyMap<string, Term>;
  /** The globals and parameters, in declaration order (what a counterexample starts from). */
  readonly inputs: readonly string[];
  /** The path condition and the variables' terms at the end of the body. */
  readonly exit: { readonly reached: Term; readonly env: ReadonlyMap<string, Term> };
  readonly loops: readonly LoopAbstraction[];
  readonly trace: readonly TraceStep[];
  readonly branches: readonly BranchRecord[];
}

export interface EncodeOptions {
  /** Encode this body instead of the procedure's own (e.g. an unrolled one). */
  readonly body?: readonly Stmt[];
  /** Check the ensures clauses at the end (default true). */
  readonly checkPostconditions?: boolean;
  /** Assume the requires clauses at the start (default true). */
  readonly assumePreconditions?: boolean;
  /** Prefix of every SMT name (to keep several encodings in one solver apart). */
  readonly prefix?: string;
  /** What a `while` becomes: cut with its invariants (default), or an error (for callers that promise loop-free code). */
  readonly loops?: 'cut' | 'error';
  /** Leave out code that is unreachable by constant propagation (its goals are not listed). */
  readonly skipUnreachable?: boolean;
  /** Asserts that are only checked: executions go on past them whether they hold or not (e.g. candidate invariants). */
  readonly checkOnly?: ReadonlySet<Stmt>;
}

interface State {
  env: Map<string, Term>;
  pc: Term;
}

/** Globals each procedure may modify, directly or through calls (a procedure without a body modifies none). */
export function modifiedGlobals(program: ImpProgram): Map<string, Set<string>> {
  const globals = new Set(program.globals.map((g) => g.name));
  const direct = new Map<string, Set<string>>();
  const calls = new Map<string, Set<string>>();
  for (const p of program.procedures) {
    const mods = new Set<string>();
    const callees = new Set<string>();
    visitStmts(p.body ?? [], (s) => {
      for (const t of stmtTargets(s)) if (globals.has(t)) mods.add(t);
      if (s.kind === 'call') callees.add(s.proc);
    });
    direct.set(p.name, mods);
    calls.set(p.name, callees);
  }
  let changed = true;
  while (changed) {
    changed = false;
    for (const [p, callees] of calls) {
      const mine = direct.get(p)!;
      for (const c of callees) {
        for (const g of direct.get(c) ?? []) {
          if (!mine.has(g)) {
            mine.add(g);
            changed = true;
          }
        }
      }
    }
  }
  return direct;
}

export class LoopInEncodingError extends Error {}

function isLiteral(t: Term): boolean {
  return t.op === 'bv' || t.op === 'int' || t.op === 'fplit' || t === TRUE || t === FALSE;
}

export function encodeProcedure(program: ImpProgram, procOrName: Procedure | string, options: EncodeOptions = {}): ProcedureEncoding {
  const proc = typeof procOrName === 'string' ? findProcedure(program, procOrName) : procOrName;
  if (!proc) throw new Error(`no procedure '${String(procOrName)}'`);
  return new Encoder(program, proc, options).run();
}

class Encoder {
  private readonly assertions: Term[] = [];
  private readonly goals: EncodedGoal[] = [];
  private readonly loops: LoopAbstraction[] = [];
  private readonly trace: TraceStep[] = [];
  private readonly branches: BranchRecord[] = [];
  private readonly counters = new Map<string, number>();
  private readonly types = new Map<string, Term>();
  private readonly mods: Map<string, Set<string>>;
  private readonly prefix: string;
  private entry = new Map<string, Term>();
  /** Position of each variable in declaration order (the order merges name them in). */
  private readonly order = new Map<string, number>();
  /** What each statement list may assign (by the list's identity). */
  private readonly assignedIn = new WeakMap<readonly Stmt[], Set<string>>();
  /** The term each Boolean name made by `name` stands for. */
  private readonly defs = new Map<Term, Term>();
  /** The value each constant an assignment made stands for (the encoding asserts their equality). */
  private readonly values = new Map<Term, Term>();
  private readonly polynomials = new PolynomialReader(
    (c) => this.values.get(c),
    (lemma) => this.assertions.push(lemma),
  );
  /**
   * Per branch side being encoded (innermost last): the variables whose value
   * a known equality replaced there, with the value they had before. They
   * are put back when the side ends, so the replacement stays on its path.
   */
  private readonly replaced: Map<string, Term>[] = [];

  constructor(
    private readonly program: ImpProgram,
    private readonly proc: Procedure,
    private readonly options: EncodeOptions,
  ) {
    this.mods = modifiedGlobals(program);
    this.prefix = options.prefix ?? '';
    for (const d of [...program.globals, ...proc.params, ...proc.returns, ...proc.locals]) {
      // A representative constant per variable, only to know its sort.
      this.types.set(d.name, mkConst(`${this.prefix}${d.name}`, sortOf(d.type)));
    }
    for (const name of this.types.keys()) this.order.set(name, this.order.size);
  }

  /** What a call writes besides its results: the globals its procedure may modify. */
  private readonly callWrites = (call: CallStmt): Iterable<string> => this.mods.get(call.proc) ?? [];

  /** What a statement list may assign (`assignedVars`, remembered per list: nested branches ask again). */
  private assigned(ss: readonly Stmt[]): Set<string> {
    let out = this.assignedIn.get(ss);
    if (!out) {
      out = new Set();
      for (const s of ss) {
        for (const t of stmtTargets(s)) out.add(t);
        if (s.kind === 'call') for (const g of this.callWrites(s)) out.add(g);
        for (const b of stmtBodies(s)) for (const v of this.assigned(b)) out.add(v);
      }
      this.assignedIn.set(ss, out);
    }
    return out;
  }

  private fresh(name: string): Term {
    const k = (this.counters.get(name) ?? -1) + 1;
    this.counters.set(name, k);
    const sort = this.types.get(name)?.sort;
    if (!sort) throw new Error(`unknown variable '${name}'`);
    return mkConst(`${this.prefix}${name}!${k}`, sort);
  }

  private freshBool(kind: string): Term {
    const k = (this.counters.get(`#${kind}`) ?? 0) + 1;
    this.counters.set(`#${kind}`, k);
    return mkConst(`${this.prefix}tarsier!${kind}!${k}`, BoolSort);
  }

  /** A Boolean constant equal to t (constants and literals stay as they are). */
  private name(t: Term, kind = 'pc'): Term {
    if (t.op === 'const' || t === TRUE || t === FALSE) return t;
    const c = this.freshBool(kind);
    this.assertions.push(mkEq(c, t));
    this.defs.set(c, t);
    return c;
  }

  private tenv(env: ReadonlyMap<string, Term>, old: ReadonlyMap<string, Term>): TranslateEnv {
    return {
      lookup: (n) => {
        const t = env.get(n);
        if (!t) throw new Error(`unknown variable '${n}'`);
        return t;
      },
      lookupOld: (n) => {
        const t = old.get(n) ?? env.get(n);
        if (!t) throw new Error(`unknown variable '${n}'`);
        return t;
      },
    };
  }

  private tr(e: Expr, st: State): Term {
    return this.polynomials.rewrite(translateExpr(e, this.tenv(st.env, this.entry)));
  }

  private goal(kind: GoalKind, loc: SourceLocation, pc: Term, cond: Term, text: () => string, clauseLoc?: SourceLocation, stmt?: Stmt): void {
    const violation = this.freshBool('goal');
    this.assertions.push(mkEq(violation, mkAnd(pc, mkNot(cond))));
    const goal: EncodedGoal = { id: this.goals.length, kind, loc, clauseLoc, violation, traceLength: this.trace.length, stmt, text: '' };
    // The readable text is made on demand (an unrolled program has many goals).
    let made: string | undefined;
    Object.defineProperty(goal, 'text', { get: () => (made ??= text()), enumerable: true });
    this.goals.push(goal);
  }

  run(): ProcedureEncoding {
    const env = new Map<string, Term>();
    for (const name of this.types.keys()) env.set(name, this.fresh(name));
    this.entry = new Map(env);
    let st: State = { env, pc: TRUE };
    const preEnv = new Map([...env].filter(([n]) => !this.proc.returns.some((d) => d.name === n)));
    if (this.options.assumePreconditions !== false) {
      for (const r of this.proc.requires) st.pc = mkAnd(st.pc, translateExpr(r, this.tenv(preEnv, this.entry)));
      st.pc = this.name(st.pc);
    }
    const body = this.options.body ?? this.proc.body ?? [];
    st = this.stmts(body, st);
    if (this.options.checkPostconditions !== false) {
      for (const e of this.proc.ensures) {
        this.goal('postcondition', e.loc, st.pc, this.tr(e, st), () => printExpr(e));
      }
    }
    return {
      proc: this.proc.name,
      assertions: this.assertions,
      goals: this.goals,
      entry: this.entry,
      inputs: [...this.program.globals, ...this.proc.params].map((d) => d.name),
      exit: { reached: st.pc, env: st.env },
      loops: this.loops,
      trace: this.trace,
      branches: this.branches,
    };
  }

  private stmts(ss: readonly Stmt[], st: State): State {
    // Unreachable code is encoded too (its goals are then trivially proved),
    // unless the caller only wants reachable goals.
    for (const s of ss) {
      if (st.pc === FALSE && this.options.skipUnreachable) break;
      st = this.stmt(s, st);
    }
    return st;
  }

  private stmt(s: Stmt, st: State): State {
    switch (s.kind) {
      case 'skip':
        return st;
      case 'assign': {
        const v = this.tr(s.value, st);
        const x = v.op === 'const' || v.args.length === 0 ? v : this.fresh(s.target);
        if (x !== v) {
          this.assertions.push(mkEq(x, v));
          this.values.set(x, v);
        }
        // A state's env is owned by whoever holds the state: update in place.
        st.env.set(s.target, x);
        this.trace.push({ loc: s.loc, what: 'assign', reached: st.pc, updates: [{ name: s.target, value: x }] });
        return st;
      }
      case 'havoc': {
        const x = this.fresh(s.target);
        st.env.set(s.target, x);
        this.trace.push({ loc: s.loc, what: 'havoc', reached: st.pc, updates: [{ name: s.target, value: x }] });
        return st;
      }
      case 'assume': {
        const c = this.tr(s.cond, st);
        this.useEqualities(c, true, st.env);
        return { env: st.env, pc: this.name(mkAnd(st.pc, c)) };
      }
      case 'assert': {
        const c = this.tr(s.cond, st);
        this.goal('assert', s.loc, st.pc, c, () => printExpr(s.cond), undefined, s);
        if (this.options.checkOnly?.has(s)) return st;
        return { env: st.env, pc: this.name(mkAnd(st.pc, c)) };
      }
      case 'block':
        return this.stmts(s.body, st);
      case 'if':
        return this.branch(s, st);
      case 'while':
        return this.loop(s, st);
      case 'call':
        return this.call(s, st);
    }
  }

  /**
   * Where `t` is known to be `holds` (an assumption, a branch taken),
   * variables whose value is a constant that `t` fixes (`x == 5`, a flag
   * that must be true) get that literal instead, so constant propagation
   * goes on past `if (!(x == 0 && y == 0)) return;` and `assume(x == 0)`.
   * Sound because every later goal is conjoined with the path condition
   * that contains `t`.
   */
  private useEqualities(t: Term, holds: boolean, env: Map<string, Term>): void {
    const known = new Map<Term, Term>();
    this.equalities(t, holds, known, 0);
    if (known.size === 0) return;
    const replaced = this.replaced[this.replaced.length - 1];
    for (const [n, v] of env) {
      const lit = known.get(v);
      if (!lit) continue;
      if (replaced && !replaced.has(n)) replaced.set(n, v);
      env.set(n, lit);
    }
  }

  private equalities(t: Term, holds: boolean, out: Map<Term, Term>, depth: number): void {
    if (depth > 16) return;
    if (t.op === 'const') {
      if (t.sort.kind === 'Bool') out.set(t, holds ? TRUE : FALSE);
      const def = this.defs.get(t);
      if (def) this.equalities(def, holds, out, depth + 1);
    } else if (t.op === 'not') this.equalities(t.args[0]!, !holds, out, depth + 1);
    else if ((t.op === 'and' && holds) || (t.op === 'or' && !holds)) for (const a of t.args) this.equalities(a, holds, out, depth + 1);
    else if (t.op === '=' && holds) {
      const [x, y] = t.args as [Term, Term];
      if (x.op === 'const' && isLiteral(y)) out.set(x, y);
      else if (y.op === 'const' && isLiteral(x)) out.set(y, x);
    }
  }

  /**
   * An `if`: both branches run on the state's own env, one after the other
   * (the variables the then-branch may assign are put back in between), and
   * only the variables a branch may assign are merged. Copying the whole env
   * at every `if` made encoding quadratic in the program's size.
   */
  private branch(s: Extract<Stmt, { kind: 'if' }>, st: State): State {
    const cond = this.tr(s.cond, st);
    const c = this.name(cond, 'cond');
    this.branches.push({ loc: s.loc, reached: st.pc, cond: c, goalsBefore: this.goals.length });
    const names = [...new Set([...this.assigned(s.then), ...this.assigned(s.else)])].filter((n) => this.order.has(n));
    names.sort((x, y) => this.order.get(x)! - this.order.get(y)!);
    const before = names.map((n) => st.env.get(n)!);
    const side = (body: readonly Stmt[], holds: boolean, pc: Term): State => {
      this.replaced.push(new Map());
      this.useEqualities(cond, holds, st.env);
      const out = this.stmts(body, { env: st.env, pc });
      // A replaced variable the side does not assign still has its old value there.
      for (const [n, old] of this.replaced.pop()!) if (!names.includes(n)) out.env.set(n, old);
      return out;
    };
    const a = side(s.then, true, this.name(mkAnd(st.pc, c)));
    const thenValues = names.map((n) => a.env.get(n)!);
    names.forEach((n, k) => st.env.set(n, before[k]!));
    const b = side(s.else, false, this.name(mkAnd(st.pc, mkNot(c))));
    if (a.pc === FALSE) return b;
    const env = b.env;
    names.forEach((n, k) => {
      const va = thenValues[k]!;
      const vb = env.get(n)!;
      const merged = b.pc === FALSE || va === vb ? va : mkIte(c, va, vb);
      if (merged === va || merged.args.length === 0) env.set(n, merged);
      else {
        const x = this.fresh(n);
        this.assertions.push(mkEq(x, merged));
        this.values.set(x, merged);
        env.set(n, x);
      }
    });
    return b.pc === FALSE ? { env, pc: a.pc } : { env, pc: this.name(mkOr(a.pc, b.pc)) };
  }

  private loop(s: Extract<Stmt, { kind: 'while' }>, st: State): State {
    if (this.options.loops === 'error') throw new LoopInEncodingError(`loop at ${s.loc.line}:${s.loc.column} in loop-free encoding`);
    // Entry: each invariant holds (then it is assumed for the next checks).
    let pc = st.pc;
    for (const inv of s.invariants) {
      const t = this.tr(inv, { env: st.env, pc });
      this.goal('invariant-entry', inv.loc, pc, t, () => printExpr(inv));
      pc = this.name(mkAnd(pc, t));
    }
    // An arbitrary iteration: targets get arbitrary values satisfying the invariants.
    const env = new Map(st.env);
    const targets = [...assignedVars(s.body, this.callWrites)].filter((n) => env.has(n)).sort();
    const updates: { name: string; value: Term }[] = [];
    for (const n of targets) {
      const x = this.fresh(n);
      env.set(n, x);
      updates.push({ name: n, value: x });
    }
    const head: State = { env, pc };
    const invs = s.invariants.map((inv) => this.tr(inv, head));
    const headPc = this.name(mkAnd(pc, ...invs));
    this.loops.push({ loc: s.loc, hasInvariants: s.invariants.length > 0, reached: headPc, traceIndex: this.trace.length });
    this.trace.push({ loc: s.loc, what: 'loop-head', reached: headPc, updates });
    const c = this.name(this.tr(s.cond, head), 'cond');
    // The body's env is a copy: what an equality replaces there stays there.
    this.replaced.push(new Map());
    const end = this.stmts(s.body, { env: new Map(env), pc: this.name(mkAnd(headPc, c)) });
    this.replaced.pop();
    for (const inv of s.invariants) {
      this.goal('invariant-preserved', inv.loc, end.pc, this.tr(inv, end), () => printExpr(inv));
    }
    return { env, pc: this.name(mkAnd(headPc, mkNot(c))) };
  }

  private call(s: Extract<Stmt, { kind: 'call' }>, st: State): State {
    const callee = findProcedure(this.program, s.proc);
    if (!callee) throw new Error(`unknown procedure '${s.proc}'`);
    const args = s.args.map((a) => this.tr(a, st));
    // The callee's contract sees its parameters and the globals.
    const calleeEnv = new Map<string, Term>();
    for (const g of this.program.globals) calleeEnv.set(g.name, st.env.get(g.name)!);
    callee.params.forEach((p, k) => calleeEnv.set(p.name, args[k]));
    let pc = st.pc;
    for (const r of callee.requires) {
      const t = translateExpr(r, this.tenv(calleeEnv, calleeEnv));
      this.goal('precondition', s.loc, pc, t, () => `${s.proc}: ${printExpr(r)}`, r.loc);
      pc = this.name(mkAnd(pc, t));
    }
    const oldEnv = new Map(calleeEnv);
    const env = new Map(st.env);
    const updates: { name: string; value: Term }[] = [];
    for (const g of [...(this.mods.get(s.proc) ?? [])].sort()) {
      const x = this.fresh(g);
      env.set(g, x);
      calleeEnv.set(g, x);
      updates.push({ name: g, value: x });
    }
    const results: Term[] = [];
    s.targets.forEach((t, k) => {
      const x = this.fresh(t);
      results.push(x);
      calleeEnv.set(callee.returns[k].name, x);
    });
    const post = callee.ensures.map((e) => translateExpr(e, this.tenv(calleeEnv, oldEnv)));
    s.targets.forEach((t, k) => {
      env.set(t, results[k]);
      updates.push({ name: t, value: results[k] });
    });
    this.trace.push({ loc: s.loc, what: 'call', reached: pc, updates });
    return { env, pc: this.name(mkAnd(pc, ...post)) };
  }
}
