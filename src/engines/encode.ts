// Bounded symbolic encoding of an IMP procedure into SMT-LIB 2 text.
//
// The procedure is executed symbolically with loops unrolled `bound` times
// and calls inlined: each program point has a *guard* (the condition under
// which an execution reaches it, assumes included) and an environment (the
// SMT term of every variable). Branches are merged with `ite`. Each `assert`
// becomes a violation flag `guard ∧ ¬cond`; after it the guard carries
// `cond` (executions stop at the first violation). Loops that may run more
// than `bound` times hit an *unwinding goal* (`guard ∧ cond` after the last
// copy); a TRUE verdict needs every unwinding goal to be unreachable.
//
// Every intermediate value is bound to a declared constant so that the text
// stays linear in the size of the unrolled program, and so that the model
// gives the value of every havoc and guard.

import type { SourceLocation } from '../common/location.js';
import type { Expr, ImpProgram, ImpType, Procedure, Stmt } from '../ivl/ast.js';

/**
 * How the engine must treat an `assert` of the program: `error` a violation
 * (FALSE), `bound` an unwinding assertion (no TRUE while reachable), `assume`
 * not a claim of the property checked: executions stop where it fails.
 */
export type AssertRole = 'error' | 'bound' | 'assume';

export interface EncodeOptions {
  /** Copies of each loop body (k ≥ 0). */
  readonly bound: number;
  /** Inlining depth of (recursive) calls between IMP procedures. */
  readonly callDepth?: number;
  /** Role of each program assert (default: every assert is an error goal). */
  readonly assertRole?: (loc: SourceLocation) => AssertRole;
  /** Entry procedure (default `main`). */
  readonly entry?: string;
  /**
   * `bmc` (default): a loop still running after `bound` copies reaches an
   * unwinding goal. `induction`: it continues at an arbitrary state
   * (variables the loop assigns are havocked) from which `bound` iterations
   * run without violation (their asserts assumed), and one more iteration is
   * checked — an over-approximation of every execution, so no reachable goal
   * means no violation (k-induction). Bound goals stay goals in both modes.
   */
  readonly mode?: 'bmc' | 'induction';
  /**
   * Induction only: candidate loop invariants (by loop statement). They are
   * assumed at the arbitrary iteration and checked at every entry of the
   * loop and for preservation by one iteration (goals of role `candidate`).
   */
  readonly candidates?: ReadonlyMap<Stmt, readonly Candidate[]>;
}

/** A candidate loop invariant `op(a, b)` over two variables (or a variable and 0). */
export interface Candidate {
  readonly id: number;
  readonly op: 'sle' | 'sge' | 'ule' | 'uge' | 'eq' | '<=' | '>=';
  readonly a: string;
  /** A variable name, or undefined for the constant 0 of a's type. */
  readonly b?: string;
}

export interface GoalRecord {
  /** SMT constant that is true when this goal is violated. */
  readonly flag: string;
  readonly role: Exclude<AssertRole, 'assume'> | 'candidate';
  /** `assert`: an assert of the program; `unwinding`: a loop ran more than the bound; `call-depth`: inlining cut. */
  readonly origin: 'assert' | 'unwinding' | 'call-depth' | 'candidate';
  /** For candidate goals: the candidate's id. */
  readonly candidate?: number;
  readonly loc: SourceLocation;
  /** Position in execution order (compare with havocs). */
  readonly order: number;
}

export interface HavocRecord {
  readonly target: string;
  /** SMT constant holding the havocked value. */
  readonly value: string;
  /** SMT constant: the havoc is executed. */
  readonly guard: string;
  readonly type: ImpType;
  readonly loc: SourceLocation;
  readonly order: number;
}

export interface BranchRecord {
  /** SMT constant of the condition's value. */
  readonly cond: string;
  readonly guard: string;
  readonly loc: SourceLocation;
  readonly order: number;
}

export interface Encoding {
  /** Declarations and definitions (no goal assertion; the engine asserts disjunctions of flags). */
  readonly text: string;
  readonly goals: readonly GoalRecord[];
  readonly havocs: readonly HavocRecord[];
  readonly branches: readonly BranchRecord[];
  /** Number of SMT constants made (a size measure). */
  readonly size: number;
}

export class EncodeError extends Error {
  constructor(
    message: string,
    readonly loc?: SourceLocation,
  ) {
    super(message);
  }
}

export function sortOf(t: ImpType): string {
  switch (t.kind) {
    case 'bool':
      return 'Bool';
    case 'int':
      return 'Int';
    case 'real':
      return 'Real';
    case 'bv':
      return `(_ BitVec ${t.width})`;
    case 'map':
      return `(Array ${sortOf(t.key)} ${sortOf(t.value)})`;
  }
}

type Env = Map<string, { term: string; type: ImpType }>;

interface Frame {
  /** Pre-state for `old(...)` in ensures. */
  readonly old?: Env;
  /** Induction: inside an iteration assumed to be violation-free (error asserts are assumed). */
  readonly assumed?: boolean;
}

const MAX_CONSTS = 600_000;

class Encoder {
  private readonly out: string[] = [];
  private counter = 0;
  private order = 0;
  readonly goals: GoalRecord[] = [];
  readonly havocs: HavocRecord[] = [];
  readonly branches: BranchRecord[] = [];
  private readonly procs: Map<string, Procedure>;
  private readonly callStack: string[] = [];

  constructor(
    private readonly program: ImpProgram,
    private readonly opts: EncodeOptions,
  ) {
    this.procs = new Map(program.procedures.map((p) => [p.name, p]));
  }

  get size(): number {
    return this.counter;
  }

  text(): string {
    return this.out.join('\n') + '\n';
  }

  /** Declares a fresh constant, optionally equal to `def`. */
  fresh(prefix: string, sort: string, def?: string): string {
    if (++this.counter > MAX_CONSTS) throw new EncodeError(`the unrolled program is too large (more than ${MAX_CONSTS} terms)`);
    const name = `${prefix}!${this.counter}`;
    this.out.push(`(declare-const ${name} ${sort})`);
    if (def !== undefined) this.out.push(`(assert (= ${name} ${def}))`);
    return name;
  }

  /** A guard term, bound to a constant unless it is a literal. */
  guardTerm(def: string): string {
    if (def === 'true' || def === 'false') return def;
    return this.fresh('g', 'Bool', def);
  }

  run(): void {
    const entryName = this.opts.entry ?? 'main';
    const entry = this.procs.get(entryName);
    if (!entry) throw new EncodeError(`no procedure '${entryName}' to verify`);
    if (!entry.body) throw new EncodeError(`procedure '${entryName}' has no body`, entry.loc);
    const env: Env = new Map();
    for (const g of this.program.globals) env.set(g.name, { term: this.fresh('init', sortOf(g.type)), type: g.type });
    for (const d of [...entry.params, ...entry.returns, ...entry.locals]) {
      env.set(d.name, { term: this.fresh('init', sortOf(d.type)), type: d.type });
    }
    let guard = 'true';
    for (const r of entry.requires) guard = this.guardTerm(`(and ${guard} ${this.expr(r, env, {})})`);
    this.callStack.push(entryName);
    guard = this.stmts(entry.body, env, guard, {});
    for (const e of entry.ensures) this.goal(guard, this.expr(e, env, { old: undefined }), 'error', 'assert', e.loc);
  }

  private goal(guard: string, cond: string, role: Exclude<AssertRole, 'assume'>, origin: GoalRecord['origin'], loc: SourceLocation): string {
    const flag = this.fresh('viol', 'Bool', `(and ${guard} (not ${cond}))`);
    this.goals.push({ flag, role, origin, loc, order: this.order++ });
    return this.guardTerm(`(and ${guard} ${cond})`);
  }

  /** Executes `body` from `guard`; returns the guard at its end. `env` is updated in place. */
  stmts(body: readonly Stmt[], env: Env, guard: string, frame: Frame): string {
    for (const s of body) {
      if (guard === 'false') return guard;
      guard = this.stmt(s, env, guard, frame);
    }
    return guard;
  }

  private lookup(env: Env, name: string, loc: SourceLocation): { term: string; type: ImpType } {
    const v = env.get(name);
    if (!v) throw new EncodeError(`unknown variable '${name}'`, loc);
    return v;
  }

  private stmt(s: Stmt, env: Env, guard: string, frame: Frame): string {
    switch (s.kind) {
      case 'skip':
        return guard;
      case 'block':
        return this.stmts(s.body, env, guard, frame);
      case 'assign': {
        const v = this.lookup(env, s.target, s.loc);
        const term = this.fresh(safe(s.target), sortOf(v.type), this.expr(s.value, env, frame));
        env.set(s.target, { term, type: v.type });
        return guard;
      }
      case 'havoc': {
        const v = this.lookup(env, s.target, s.loc);
        const term = this.fresh(`h_${safe(s.target)}`, sortOf(v.type));
        const g = guard === 'true' ? 'true' : guard;
        this.havocs.push({ target: s.target, value: term, guard: g, type: v.type, loc: s.loc, order: this.order++ });
        env.set(s.target, { term, type: v.type });
        return guard;
      }
      case 'assume':
        return this.guardTerm(`(and ${guard} ${this.expr(s.cond, env, frame)})`);
      case 'assert': {
        const role = this.opts.assertRole?.(s.loc) ?? 'error';
        if (role === 'assume' || (role === 'error' && frame.assumed)) {
          return this.guardTerm(`(and ${guard} ${this.expr(s.cond, env, frame)})`);
        }
        return this.goal(guard, this.expr(s.cond, env, frame), role, 'assert', s.loc);
      }
      case 'if': {
        const c = this.fresh('c', 'Bool', this.expr(s.cond, env, frame));
        this.branches.push({ cond: c, guard, loc: s.loc, order: this.order++ });
        return this.branch(c, s.then, s.else, env, guard, frame);
      }
      case 'while':
        this.checkCandidates(s, env, guard);
        return this.loop(s, env, guard, frame, this.opts.bound);
      case 'call':
        return this.call(s, env, guard, frame);
    }
  }

  private branch(c: string, thenB: readonly Stmt[], elseB: readonly Stmt[], env: Env, guard: string, frame: Frame): string {
    const gThen = this.guardTerm(`(and ${guard} ${c})`);
    const gElse = this.guardTerm(`(and ${guard} (not ${c}))`);
    // Only the variables the branches assign need saving and merging.
    const vars = [...new Set([...this.assigned(thenB), ...this.assigned(elseB)])];
    const before = vars.map((v) => env.get(v));
    const endThen = this.stmts(thenB, env, gThen, frame);
    const afterThen = vars.map((v) => env.get(v));
    vars.forEach((v, i) => restore(env, v, before[i]));
    const endElse = this.stmts(elseB, env, gElse, frame);
    this.mergeVars(env, vars, afterThen, endThen, endElse);
    if (endThen === 'false') return endElse;
    if (endElse === 'false') return endThen;
    return this.guardTerm(`(or ${endThen} ${endElse})`);
  }

  /** For each of `vars`: env[v] := (gThen ? thenVals[i] : env[v]). */
  private mergeVars(
    env: Env,
    vars: readonly string[],
    thenVals: readonly ({ term: string; type: ImpType } | undefined)[],
    gThen: string,
    gElse: string,
  ): void {
    vars.forEach((name, i) => {
      const a = thenVals[i];
      const b = env.get(name);
      if (!a || !b) return;
      let term: string;
      if (a.term === b.term || gElse === 'false') term = a.term;
      else if (gThen === 'false') term = b.term;
      else term = this.fresh(safe(name), sortOf(a.type), `(ite ${gThen} ${a.term} ${b.term})`);
      env.set(name, { term, type: a.type });
    });
  }

  private readonly assignedCache = new WeakMap<readonly Stmt[], ReadonlySet<string>>();

  /** Variables a statement list may assign (calls: their targets and every global). */
  assigned(body: readonly Stmt[]): ReadonlySet<string> {
    const hit = this.assignedCache.get(body);
    if (hit) return hit;
    const out = new Set<string>();
    const walk = (ss: readonly Stmt[]): void => {
      for (const s of ss) {
        switch (s.kind) {
          case 'assign':
          case 'havoc':
            out.add(s.target);
            break;
          case 'call':
            s.targets.forEach((t) => out.add(t));
            this.program.globals.forEach((g) => out.add(g.name));
            break;
          case 'if':
            this.assigned(s.then).forEach((v) => out.add(v));
            this.assigned(s.else).forEach((v) => out.add(v));
            break;
          case 'while':
          case 'block':
            this.assigned(s.body).forEach((v) => out.add(v));
            break;
          default:
            break;
        }
      }
    };
    walk(body);
    this.assignedCache.set(body, out);
    return out;
  }

  private loop(s: Extract<Stmt, { kind: 'while' }>, env: Env, guard: string, frame: Frame, remaining: number): string {
    // A user invariant is a claim at every arrival at the loop head.
    for (const inv of s.invariants) guard = this.goal(guard, this.expr(inv, env, frame), 'error', 'assert', inv.loc);
    if (guard === 'false') return guard;
    const c = this.fresh('c', 'Bool', this.expr(s.cond, env, frame));
    this.branches.push({ cond: c, guard, loc: s.loc, order: this.order++ });
    if (remaining === 0) {
      if (this.opts.mode === 'induction') return this.deep(s, env, guard, frame, c);
      // Unwinding goal: the loop could run more often than the bound.
      const g = this.goal(guard, `(not ${c})`, 'bound', 'unwinding', s.loc);
      return g;
    }
    const gBody = this.guardTerm(`(and ${guard} ${c})`);
    const gExit = this.guardTerm(`(and ${guard} (not ${c}))`);
    const vars = [...this.assigned(s.body)];
    const before = vars.map((v) => env.get(v));
    let end = this.stmts(s.body, env, gBody, frame);
    if (end !== 'false') end = this.loop(s, env, end, frame, remaining - 1);
    const afterBody = vars.map((v) => env.get(v));
    vars.forEach((v, i) => restore(env, v, before[i]));
    this.mergeVars(env, vars, afterBody, end, gExit);
    if (end === 'false') return gExit;
    if (gExit === 'false') return end;
    return this.guardTerm(`(or ${end} ${gExit})`);
  }

  /**
   * Induction: the loop runs on after the checked copies (`c` holds). Jump to
   * an arbitrary iteration: havoc what the loop assigns, take `bound`
   * iterations assumed violation-free, then check one more (in a checked
   * context) and cut it; paths that leave the loop on the way go on.
   */
  private deep(s: Extract<Stmt, { kind: 'while' }>, env: Env, guard: string, frame: Frame, c: string): string {
    if (s.invariants.length > 0) throw new EncodeError('k-induction with loop invariants is not supported', s.loc);
    const gDeep = this.guardTerm(`(and ${guard} ${c})`);
    const gExit = this.guardTerm(`(and ${guard} (not ${c}))`);
    const vars = [...this.assigned(s.body)];
    const before = vars.map((v) => env.get(v));
    for (const v of vars) {
      const old = env.get(v);
      if (old) env.set(v, { term: this.fresh(`k_${safe(v)}`, sortOf(old.type)), type: old.type });
    }
    const inv = this.candidateTerm(s, env);
    let gStart = gDeep;
    if (inv !== 'true') {
      gStart = this.guardTerm(`(and ${gDeep} ${inv})`);
      // Preservation: one iteration from the arbitrary state keeps the candidates.
      const c1 = this.fresh('c', 'Bool', this.expr(s.cond, env, frame));
      const gPres = this.guardTerm(`(and ${gStart} ${c1})`);
      const havocked = vars.map((v) => env.get(v));
      const endPres = this.stmts(s.body, env, gPres, { ...frame, assumed: true });
      this.checkCandidates(s, env, endPres);
      vars.forEach((v, i) => restore(env, v, havocked[i]));
    }
    const end = this.assumedCopies(s, env, gStart, frame, this.opts.bound);
    const afterDeep = vars.map((v) => env.get(v));
    vars.forEach((v, i) => restore(env, v, before[i]));
    this.mergeVars(env, vars, afterDeep, end, gExit);
    if (end === 'false') return gExit;
    if (gExit === 'false') return end;
    return this.guardTerm(`(or ${end} ${gExit})`);
  }

  private candidateOf(c: Candidate, env: Env): string | undefined {
    const a = env.get(c.a);
    if (!a) return undefined;
    let b: string;
    if (c.b !== undefined) {
      const v = env.get(c.b);
      if (!v) return undefined;
      b = v.term;
    } else {
      b = a.type.kind === 'bv' ? `(_ bv0 ${a.type.width})` : '0';
    }
    switch (c.op) {
      case 'sle':
        return `(bvsle ${a.term} ${b})`;
      case 'ule':
        return `(bvule ${a.term} ${b})`;
      case 'sge':
        return `(bvsge ${a.term} ${b})`;
      case 'uge':
        return `(bvuge ${a.term} ${b})`;
      case 'eq':
        return `(= ${a.term} ${b})`;
      case '<=':
        return `(<= ${a.term} ${b})`;
      case '>=':
        return `(>= ${a.term} ${b})`;
    }
  }

  /** The conjunction of the loop's candidates in `env` ('true' when none). */
  private candidateTerm(s: Stmt, env: Env): string {
    const cs = this.opts.candidates?.get(s) ?? [];
    const terms = cs.map((c) => this.candidateOf(c, env)).filter((t): t is string => t !== undefined);
    if (terms.length === 0) return 'true';
    return terms.length === 1 ? terms[0]! : `(and ${terms.join(' ')})`;
  }

  /** A candidate goal per candidate of loop `s`: it fails where `guard` holds and the candidate does not. */
  private checkCandidates(s: Stmt, env: Env, guard: string): void {
    if (guard === 'false') return;
    for (const c of this.opts.candidates?.get(s) ?? []) {
      const t = this.candidateOf(c, env);
      if (t === undefined) continue;
      const flag = this.fresh('cand', 'Bool', `(and ${guard} (not ${t}))`);
      this.goals.push({ flag, role: 'candidate', origin: 'candidate', candidate: c.id, loc: s.loc, order: this.order++ });
    }
  }

  /** `j` assumed iterations then the checked (or, in an assumed context, cut) one; returns the guard of leaving the loop. */
  private assumedCopies(s: Extract<Stmt, { kind: 'while' }>, env: Env, guard: string, frame: Frame, j: number): string {
    if (guard === 'false') return guard;
    const c = this.fresh('c', 'Bool', this.expr(s.cond, env, frame));
    const gBody = this.guardTerm(`(and ${guard} ${c})`);
    const gExit = this.guardTerm(`(and ${guard} (not ${c}))`);
    const vars = [...this.assigned(s.body)];
    const before = vars.map((v) => env.get(v));
    if (j === 0) {
      // The iteration under check; whatever follows it is covered by induction.
      if (!frame.assumed) this.stmts(s.body, env, gBody, frame);
      vars.forEach((v, i) => restore(env, v, before[i]));
      return gExit;
    }
    let end = this.stmts(s.body, env, gBody, { ...frame, assumed: true });
    end = this.assumedCopies(s, env, end, frame, j - 1);
    const after = vars.map((v) => env.get(v));
    vars.forEach((v, i) => restore(env, v, before[i]));
    this.mergeVars(env, vars, after, end, gExit);
    if (end === 'false') return gExit;
    if (gExit === 'false') return end;
    return this.guardTerm(`(or ${end} ${gExit})`);
  }

  private call(s: Extract<Stmt, { kind: 'call' }>, env: Env, guard: string, frame: Frame): string {
    const p = this.procs.get(s.proc);
    if (!p) throw new EncodeError(`call of unknown procedure '${s.proc}'`, s.loc);
    if (this.opts.mode === 'induction') throw new EncodeError('k-induction with procedure calls is not supported', s.loc);
    if (p.params.length !== s.args.length || p.returns.length !== s.targets.length) {
      throw new EncodeError(`call of '${s.proc}' with the wrong number of arguments or results`, s.loc);
    }
    const inner: Env = new Map();
    for (const g of this.program.globals) inner.set(g.name, env.get(g.name)!);
    p.params.forEach((d, i) => inner.set(d.name, { term: this.fresh(safe(d.name), sortOf(d.type), this.expr(s.args[i]!, env, frame)), type: d.type }));
    const old: Env = new Map(inner);
    for (const r of p.requires) guard = this.goal(guard, this.expr(r, inner, frame), 'error', 'assert', r.loc);
    const depth = this.callStack.filter((n) => n === s.proc).length;
    if (p.body && depth <= (this.opts.callDepth ?? 3)) {
      for (const d of [...p.returns, ...p.locals]) inner.set(d.name, { term: this.fresh('init', sortOf(d.type)), type: d.type });
      this.callStack.push(s.proc);
      guard = this.stmts(p.body, inner, guard, { old });
      this.callStack.pop();
      for (const e of p.ensures) guard = this.goal(guard, this.expr(e, inner, { old }), 'error', 'assert', e.loc);
    } else {
      if (p.body) {
        // Recursion deeper than the bound: a bound goal, and the path is cut.
        guard = this.goal(guard, 'false', 'bound', 'call-depth', s.loc);
        return guard;
      }
      // Only the contract is known: results are arbitrary values satisfying it.
      for (const d of p.returns) inner.set(d.name, { term: this.fresh(safe(d.name), sortOf(d.type)), type: d.type });
      for (const g of this.program.globals) inner.set(g.name, { term: this.fresh(safe(g.name), sortOf(g.type)), type: g.type });
      for (const e of p.ensures) guard = this.guardTerm(`(and ${guard} ${this.expr(e, inner, { old })})`);
    }
    for (const g of this.program.globals) env.set(g.name, inner.get(g.name)!);
    s.targets.forEach((t, i) => {
      const v = this.lookup(env, t, s.loc);
      env.set(t, { term: inner.get(p.returns[i]!.name)!.term, type: v.type });
    });
    return guard;
  }

  // ---- expressions ----

  private readonly typeCache = new WeakMap<Expr, ImpType>();

  /** The type of an expression (cached: a variable's type never changes). */
  typeOf(e: Expr, env: Env): ImpType {
    let t = this.typeCache.get(e);
    if (!t) {
      t = this.computeType(e, env);
      this.typeCache.set(e, t);
    }
    return t;
  }

  private computeType(e: Expr, env: Env): ImpType {
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
        return this.lookup(env, e.name, e.loc).type;
      case 'unary':
        return e.op === '!' ? { kind: 'bool' } : this.typeOf(e.arg, env);
      case 'binary':
        switch (e.op) {
          case '+':
          case '-':
          case '*':
          case '/':
          case '%':
          case '&':
          case '|':
          case '^':
          case '<<':
            return this.typeOf(e.left, env);
          default:
            return { kind: 'bool' };
        }
      case 'app': {
        const m = /^(zext|sext|trunc|int2bv)(\d+)$/.exec(e.fn);
        if (m) return { kind: 'bv', width: Number(m[2]) as 8 | 16 | 32 | 64 };
        if (/^[su](lt|le|gt|ge)$/.test(e.fn)) return { kind: 'bool' };
        if (e.fn === 'ubv2int' || e.fn === 'sbv2int' || e.fn === 'to_int') return { kind: 'int' };
        if (e.fn === 'to_real') return { kind: 'real' };
        return this.typeOf(e.args[0]!, env);
      }
      case 'ite':
        return this.typeOf(e.then, env);
      case 'select': {
        const t = this.typeOf(e.map, env);
        if (t.kind !== 'map') throw new EncodeError('indexing a value that is not a map', e.loc);
        return t.value;
      }
      case 'store':
        return this.typeOf(e.map, env);
    }
  }

  expr(e: Expr, env: Env, frame: Frame): string {
    switch (e.kind) {
      case 'bool_lit':
        return e.value ? 'true' : 'false';
      case 'int_lit':
        return e.value.toString();
      case 'real_lit':
        return e.value.includes('.') ? e.value : `${e.value}.0`;
      case 'bv_lit':
        return `(_ bv${e.value} ${e.width})`;
      case 'var':
        return this.lookup(env, e.name, e.loc).term;
      case 'unary': {
        const a = this.expr(e.arg, env, frame);
        if (e.op === '!') return `(not ${a})`;
        const bv = this.typeOf(e.arg, env).kind === 'bv';
        if (e.op === '~') return `(bvnot ${a})`;
        return bv ? `(bvneg ${a})` : `(- ${a})`;
      }
      case 'binary':
        return this.binary(e, env, frame);
      case 'app':
        return this.app(e, env, frame);
      case 'ite':
        return `(ite ${this.expr(e.cond, env, frame)} ${this.expr(e.then, env, frame)} ${this.expr(e.else, env, frame)})`;
      case 'select':
        return `(select ${this.expr(e.map, env, frame)} ${this.expr(e.index, env, frame)})`;
      case 'store':
        return `(store ${this.expr(e.map, env, frame)} ${this.expr(e.index, env, frame)} ${this.expr(e.value, env, frame)})`;
    }
  }

  private binary(e: Extract<Expr, { kind: 'binary' }>, env: Env, frame: Frame): string {
    const l = this.expr(e.left, env, frame);
    const r = this.expr(e.right, env, frame);
    const t = this.typeOf(e.left, env);
    const bv = t.kind === 'bv';
    switch (e.op) {
      case '<==>':
      case '==':
        return `(= ${l} ${r})`;
      case '!=':
        return `(not (= ${l} ${r}))`;
      case '==>':
        return `(=> ${l} ${r})`;
      case '<==':
        return `(=> ${r} ${l})`;
      case '&&':
        return `(and ${l} ${r})`;
      case '||':
        return `(or ${l} ${r})`;
      case '<':
      case '<=':
      case '>':
      case '>=':
        if (bv) throw new EncodeError(`'${e.op}' on bit-vectors (use slt/ult and friends)`, e.loc);
        return `(${e.op} ${l} ${r})`;
      case '+':
        return bv ? `(bvadd ${l} ${r})` : `(+ ${l} ${r})`;
      case '-':
        return bv ? `(bvsub ${l} ${r})` : `(- ${l} ${r})`;
      case '*':
        return bv ? `(bvmul ${l} ${r})` : `(* ${l} ${r})`;
      case '/':
        if (bv) throw new EncodeError(`'/' on bit-vectors (use sdiv or udiv)`, e.loc);
        return t.kind === 'real' ? `(/ ${l} ${r})` : `(div ${l} ${r})`;
      case '%':
        if (bv) throw new EncodeError(`'%' on bit-vectors (use srem or urem)`, e.loc);
        return `(mod ${l} ${r})`;
      case '&':
        return bv ? `(bvand ${l} ${r})` : `(and ${l} ${r})`;
      case '|':
        return bv ? `(bvor ${l} ${r})` : `(or ${l} ${r})`;
      case '^':
        return bv ? `(bvxor ${l} ${r})` : `(xor ${l} ${r})`;
      case '<<':
        if (!bv) throw new EncodeError(`'<<' needs bit-vectors`, e.loc);
        return `(bvshl ${l} ${r})`;
    }
  }

  private app(e: Extract<Expr, { kind: 'app' }>, env: Env, frame: Frame): string {
    if (e.fn === 'old') {
      if (!frame.old) throw new EncodeError(`'old' outside of a procedure's ensures`, e.loc);
      return this.expr(e.args[0]!, frame.old, {});
    }
    const args = e.args.map((a) => this.expr(a, env, frame));
    const [a, b] = args;
    const simple: Record<string, string> = {
      sdiv: 'bvsdiv', udiv: 'bvudiv', srem: 'bvsrem', urem: 'bvurem',
      slt: 'bvslt', sle: 'bvsle', sgt: 'bvsgt', sge: 'bvsge',
      ult: 'bvult', ule: 'bvule', ugt: 'bvugt', uge: 'bvuge',
      ashr: 'bvashr', lshr: 'bvlshr',
    };
    const op = simple[e.fn];
    if (op) return `(${op} ${a} ${b})`;
    const m = /^(zext|sext|trunc|int2bv)(\d+)$/.exec(e.fn);
    if (m) {
      const n = Number(m[2]);
      if (m[1] === 'int2bv') return `((_ int2bv ${n}) ${a})`;
      const t = this.typeOf(e.args[0]!, env);
      if (t.kind !== 'bv') throw new EncodeError(`'${e.fn}' needs a bit-vector`, e.loc);
      const w = t.width;
      if (n === w) return a!;
      if (m[1] === 'trunc') {
        if (n > w) throw new EncodeError(`'${e.fn}' of a bv${w}`, e.loc);
        return `((_ extract ${n - 1} 0) ${a})`;
      }
      if (n < w) throw new EncodeError(`'${e.fn}' of a bv${w}`, e.loc);
      return `((_ ${m[1] === 'zext' ? 'zero_extend' : 'sign_extend'} ${n - w}) ${a})`;
    }
    switch (e.fn) {
      case 'ubv2int':
        return `(bv2nat ${a})`;
      case 'sbv2int': {
        const t = this.typeOf(e.args[0]!, env);
        if (t.kind !== 'bv') throw new EncodeError(`'sbv2int' needs a bit-vector`, e.loc);
        return `(ite (bvslt ${a} (_ bv0 ${t.width})) (- (bv2nat ${a}) ${1n << BigInt(t.width)}) (bv2nat ${a}))`;
      }
      case 'to_real':
        return `(to_real ${a})`;
      case 'to_int':
        return `(to_int ${a})`;
    }
    throw new EncodeError(`unknown built-in '${e.fn}'`, e.loc);
  }
}

function restore(env: Env, name: string, value: { term: string; type: ImpType } | undefined): void {
  if (value) env.set(name, value);
  else env.delete(name);
}

function safe(name: string): string {
  return name.replace(/[^A-Za-z0-9_.$]/g, '_');
}

/** Encodes `program` unrolled to `options.bound`. Throws EncodeError for programs outside the encoder's reach. */
export function encodeBounded(program: ImpProgram, options: EncodeOptions): Encoding {
  const enc = new Encoder(program, options);
  enc.run();
  return { text: enc.text(), goals: enc.goals, havocs: enc.havocs, branches: enc.branches, size: enc.size };
}
