// Bounded unrolling: an IMP program to one loop-free procedure that
// vc/encode.ts turns into SMT terms (the engine has no encoder of its own).
//
// Loops become `bound` copies of `if (cond) { body }` in sequence (once the
// condition is false it stays false, so the flat form equals the nested
// one and needs no deep recursion). Calls of procedures with a body are
// inlined with fresh names per call, up to a recursion depth. Asserts keep
// their statement objects so that goals map back to their roles (`tags`).
//
// `bmc` mode: a loop still running after the copies reaches an unwinding
// goal `assert !cond`. `induction` mode: it goes on from an arbitrary state
// (what the loop assigns is havocked, active candidate invariants assumed:
// each is claimed where the loop condition holds, see checkCandidates),
// runs `bound` iterations whose asserts are assumed, and one more that is
// checked and then cut — an over-approximation of every execution (k-induction).
// A side branch checks that one iteration from that arbitrary state keeps
// every candidate (preservation); each arrival at the loop checks them too.

import type { SourceLocation } from '../common/location.js';
import {
  guarded,
  syntheticLoc,
  type AssertStmt,
  type Expr,
  type Goal,
  type ImpProgram,
  type ImpType,
  type Procedure,
  type Stmt,
  type VarDecl,
  type WhileStmt,
} from '../ivl/ast.js';
import { assignedVars, mapStmt, renameExpr } from '../ivl/walk.js';

/**
 * How the engine treats an `assert` of the program: `error` a violation
 * (FALSE), `bound` an unwinding assertion (no TRUE while reachable),
 * `assume` not a claim of the property checked: executions stop where it fails.
 */
export type AssertRole = 'error' | 'bound' | 'assume';

/**
 * The role of the program's asserts by the kind of their goal: the `error`
 * kinds are violations, the `bound` kinds unwinding assertions, any other
 * kind is `assume`. An assert without a goal is `unlabelled` (default: an
 * error goal).
 */
export interface GoalRoles {
  readonly error: readonly string[];
  readonly bound?: readonly string[];
  readonly unlabelled?: AssertRole;
}

/** The role of an assert under `roles` (default: every assert is an error goal). */
export function roleOf(s: AssertStmt, roles: GoalRoles | undefined): AssertRole {
  if (roles === undefined) return 'error';
  const kind = s.goal?.kind;
  if (kind === undefined) return roles.unlabelled ?? 'error';
  if (roles.error.includes(kind)) return 'error';
  return roles.bound?.includes(kind) ? 'bound' : 'assume';
}

/** What an assert of the unrolled procedure stands for. */
export interface GoalTag {
  readonly role: 'error' | 'bound' | 'candidate';
  readonly origin: 'assert' | 'unwinding' | 'call-depth' | 'candidate';
  /** Candidate goals: the candidate's id. */
  readonly candidate?: number;
  /** Program asserts: the goal of the assert. */
  readonly goal?: Goal;
}

/** A candidate invariant of one IMP while (an expression over the variables in scope there). */
export interface LoopCandidate {
  readonly id: number;
  readonly loop: WhileStmt;
  readonly expr: Expr;
}

export interface UnrollOptions {
  /** Copies of each loop body (k ≥ 0). */
  readonly bound: number;
  /** Inlining depth of (recursive) calls between IMP procedures (default 3). */
  readonly callDepth?: number;
  /** Role of the program's asserts by their goals' kinds (default: every assert is an error goal). */
  readonly roles?: GoalRoles;
  /** Entry procedure (default `main`). */
  readonly entry?: string;
  readonly mode?: 'bmc' | 'induction';
  /** Induction only: candidate invariants by loop statement. */
  readonly candidates?: ReadonlyMap<Stmt, readonly LoopCandidate[]>;
}

export interface Unrolled {
  /** The input program with the entry procedure replaced by its unrolled form. */
  readonly program: ImpProgram;
  readonly proc: Procedure;
  /** Every assert of `proc` (by statement object) and what it stands for. */
  readonly tags: ReadonlyMap<Stmt, GoalTag>;
  /** The candidate checks: asserts that do not stop the executions that fail them. */
  readonly checkOnly: ReadonlySet<Stmt>;
  /** Induction: the Boolean variable that switches each candidate's assumption on (by candidate id). */
  readonly activation: ReadonlyMap<number, string>;
  /** Statements made (a size measure). */
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

const MAX_STATEMENTS = 400_000;

type Rename = ReadonlyMap<string, string>;

interface Frame {
  readonly rename: Rename;
  /** Names of the pre-state copies for `old(...)` in an inlined ensures. */
  readonly old?: Rename;
  /** Inside an iteration assumed violation-free (error asserts become assumes). */
  readonly assumed: boolean;
  /** Inlined procedures on the way here (recursion depth). */
  readonly calls: readonly string[];
}

const loc0 = syntheticLoc('<unroll>');

function not(e: Expr): Expr {
  return { kind: 'unary', op: '!', arg: e, loc: e.loc };
}

class Unroller {
  private readonly procs: Map<string, Procedure>;
  private readonly tags = new Map<Stmt, GoalTag>();
  private readonly checkOnly = new Set<Stmt>();
  private readonly extra: VarDecl[] = [];
  private readonly activation = new Map<number, string>();
  private readonly assignedCache = new WeakMap<readonly Stmt[], ReadonlySet<string>>();
  private instances = 0;
  private size = 0;

  constructor(
    private readonly program: ImpProgram,
    private readonly opts: UnrollOptions,
  ) {
    this.procs = new Map(program.procedures.map((p) => [p.name, p]));
  }

  run(): Unrolled {
    const entryName = this.opts.entry ?? 'main';
    const entry = this.procs.get(entryName);
    if (!entry) throw new EncodeError(`no procedure '${entryName}' to verify`);
    if (!entry.body) throw new EncodeError(`procedure '${entryName}' has no body`, entry.loc);
    for (const cs of this.opts.candidates?.values() ?? []) {
      for (const c of cs) {
        const name = `tarsier.active.${c.id}`;
        this.activation.set(c.id, name);
        this.declare(name, { kind: 'bool' }, loc0);
      }
    }
    const body = this.stmts(entry.body, { rename: new Map(), assumed: false, calls: [entryName] });
    const proc: Procedure = { ...entry, locals: [...entry.locals, ...this.extra], body };
    const program: ImpProgram = { ...this.program, procedures: this.program.procedures.map((p) => (p === entry ? proc : p)) };
    return { program, proc, tags: this.tags, checkOnly: this.checkOnly, activation: this.activation, size: this.size };
  }

  private declare(name: string, type: ImpType, loc: SourceLocation): void {
    this.extra.push({ kind: 'var_decl', name, type, loc });
  }

  private count(n = 1): void {
    this.size += n;
    if (this.size > MAX_STATEMENTS) throw new EncodeError(`the unrolled program is too large (more than ${MAX_STATEMENTS} statements)`);
  }

  private goal(cond: Expr, tag: GoalTag, loc: SourceLocation): AssertStmt {
    const s: AssertStmt = { kind: 'assert', cond, loc };
    this.tags.set(s, tag);
    // A program's assert of role bound (a recursion cut, a place where the
    // model is not exact) marks the executions that reach it and does not
    // end them: where the path ends, the program has an assume of its own.
    if (tag.role === 'candidate' || (tag.role === 'bound' && tag.origin === 'assert')) this.checkOnly.add(s);
    return s;
  }

  private stmts(ss: readonly Stmt[], f: Frame): Stmt[] {
    const out: Stmt[] = [];
    for (const s of ss) this.stmt(s, f, out);
    return out;
  }

  private stmt(s: Stmt, f: Frame, out: Stmt[]): void {
    this.count();
    const tr = (e: Expr) => renameExpr(e, f.rename);
    const name = (n: string) => f.rename.get(n) ?? n;
    switch (s.kind) {
      case 'skip':
        return;
      case 'assign':
      case 'havoc':
      case 'assume':
        out.push(mapStmt(s, { expr: tr, target: name }));
        return;
      case 'assert': {
        const role = roleOf(s, this.opts.roles);
        if (role === 'assume' || (role === 'error' && f.assumed)) out.push({ kind: 'assume', cond: tr(s.cond), loc: s.loc });
        else out.push(this.goal(tr(s.cond), { role, origin: 'assert', ...(s.goal ? { goal: s.goal } : {}) }, s.loc));
        return;
      }
      case 'block':
        out.push(...this.stmts(s.body, f));
        return;
      case 'if':
        out.push(mapStmt(s, { expr: tr, body: (b) => this.stmts(b, f) }));
        return;
      case 'while':
        this.loop(s, f, out);
        return;
      case 'call':
        this.call(s, f, out);
        return;
    }
  }

  private candidatesOf(s: Stmt): readonly LoopCandidate[] {
    return this.opts.mode === 'induction' ? (this.opts.candidates?.get(s) ?? []) : [];
  }

  /**
   * `assert cond ==> cand` for each candidate of the loop (a candidate goal
   * each). A candidate is claimed where the loop's condition holds, at the
   * head of an iteration that runs: the induction (every state that starts
   * an iteration satisfies it, and one iteration keeps that) needs no more,
   * and a loop left by a flag (`while (1) { ... if (c) break; }` lowers to
   * `while ($loop)`) keeps invariants such as `k >= 0` that its last state
   * breaks.
   */
  private checkCandidates(s: WhileStmt, f: Frame, out: Stmt[]): void {
    const cond = renameExpr(s.cond, f.rename);
    for (const c of this.candidatesOf(s)) {
      out.push(this.goal(guarded(cond, renameExpr(c.expr, f.rename)), { role: 'candidate', origin: 'candidate', candidate: c.id }, s.loc));
    }
  }

  private loop(s: WhileStmt, f: Frame, out: Stmt[]): void {
    const cond = renameExpr(s.cond, f.rename);
    const invariants = () => s.invariants.map((inv) => this.goal(renameExpr(inv, f.rename), { role: 'error', origin: 'assert' }, inv.loc));
    this.checkCandidates(s, f, out);
    // A user invariant is a claim at every arrival at the loop head.
    out.push(...invariants());
    for (let k = 0; k < this.opts.bound; k++) {
      out.push({ kind: 'if', cond, then: [...this.stmts(s.body, f), ...invariants()], else: [], loc: s.loc });
    }
    if (this.opts.mode === 'induction') {
      out.push({ kind: 'if', cond, then: this.deep(s, f, cond), else: [], loc: s.loc });
    } else {
      // Unwinding goal: the loop could run more often than the bound.
      out.push(this.goal(not(cond), { role: 'bound', origin: 'unwinding' }, s.loc));
    }
  }

  /** Induction: the loop runs on after the checked copies (its condition holds here). */
  private deep(s: WhileStmt, f: Frame, cond: Expr): Stmt[] {
    if (s.invariants.length > 0) throw new EncodeError('k-induction with loop invariants is not supported', s.loc);
    const out: Stmt[] = [];
    for (const v of [...this.assigned(s.body)].sort()) {
      out.push({ kind: 'havoc', target: f.rename.get(v) ?? v, loc: s.loc });
    }
    // The arbitrary state starts an iteration that runs. Not a fact of C: a
    // narrowing of the induction step that loses no execution (docs/
    // soundness.md, "Assumptions of the proofs"). A run that leaves the loop
    // after T > bound iterations is this part from the start of iteration
    // T - bound + 1 (which runs), followed by `bound` assumed iterations; one
    // with T <= bound is the checked copies above. With bound 0 no assumed
    // iteration would follow, and a run leaving the loop would be lost.
    if (this.opts.bound >= 1) out.push({ kind: 'assume', cond, loc: s.loc });
    const cands = this.candidatesOf(s);
    for (const c of cands) {
      const act: Expr = { kind: 'var', name: this.activation.get(c.id)!, loc: s.loc };
      const fact = renameExpr(c.expr, f.rename);
      out.push({ kind: 'assume', cond: { kind: 'binary', op: '==>', left: act, right: this.opts.bound >= 1 ? fact : guarded(cond, fact), loc: s.loc }, loc: s.loc });
    }
    const assumed: Frame = { ...f, assumed: true };
    if (cands.length > 0) {
      // Preservation, on a side branch that ends there: one iteration keeps the candidates.
      const side = `tarsier.side.${++this.instances}`;
      this.declare(side, { kind: 'bool' }, s.loc);
      const pres: Stmt[] = [...this.stmts(s.body, assumed)];
      this.checkCandidates(s, f, pres);
      out.push({ kind: 'havoc', target: side, loc: s.loc });
      const sideVar: Expr = { kind: 'var', name: side, loc: s.loc };
      out.push({ kind: 'if', cond: sideVar, then: [{ kind: 'if', cond, then: pres, else: [], loc: s.loc }, assumeFalse(s.loc)], else: [], loc: s.loc });
    }
    for (let k = 0; k < this.opts.bound; k++) out.push({ kind: 'if', cond, then: this.stmts(s.body, assumed), else: [], loc: s.loc });
    // The iteration under check (cut in an assumed context); what follows it is covered by induction.
    const checked = f.assumed ? [] : this.stmts(s.body, f);
    out.push({ kind: 'if', cond, then: [...checked, assumeFalse(s.loc)], else: [], loc: s.loc });
    return out;
  }

  /** Variables a statement list may assign (calls: their targets and every global). */
  private assigned(body: readonly Stmt[]): ReadonlySet<string> {
    let out = this.assignedCache.get(body);
    if (!out) this.assignedCache.set(body, (out = assignedVars(body, () => this.program.globals.map((g) => g.name))));
    return out;
  }

  private call(s: Extract<Stmt, { kind: 'call' }>, f: Frame, out: Stmt[]): void {
    const p = this.procs.get(s.proc);
    if (!p) throw new EncodeError(`call of unknown procedure '${s.proc}'`, s.loc);
    if (p.params.length !== s.args.length || p.returns.length !== s.targets.length) {
      throw new EncodeError(`call of '${s.proc}' with the wrong number of arguments or results`, s.loc);
    }
    const args = s.args.map((a) => renameExpr(a, f.rename));
    const targets = s.targets.map((t) => f.rename.get(t) ?? t);
    if (!p.body) {
      // Only the contract is known: vc/ assumes it (results arbitrary values satisfying it).
      out.push({ ...s, args, targets });
      return;
    }
    const depth = f.calls.filter((n) => n === s.proc).length;
    if (depth > (this.opts.callDepth ?? 3)) {
      // Recursion deeper than the bound: a bound goal, and the path is cut.
      out.push(this.goal({ kind: 'bool_lit', value: false, loc: s.loc }, { role: 'bound', origin: 'call-depth' }, s.loc));
      return;
    }
    // Fresh names for this call's parameters, results and locals.
    const inst = ++this.instances;
    const rename = new Map<string, string>();
    for (const d of [...p.params, ...p.returns, ...p.locals]) {
      const n = `${p.name}.${inst}.${d.name}`;
      rename.set(d.name, n);
      this.declare(n, d.type, d.loc);
    }
    const inner: Frame = { rename, assumed: f.assumed, calls: [...f.calls, s.proc] };
    p.params.forEach((d, i) => out.push({ kind: 'assign', target: rename.get(d.name)!, value: args[i]!, loc: s.loc }));
    // The pre-state for `old(...)`: copies of the globals and parameters.
    const old = new Map<string, string>();
    if (p.ensures.length > 0) {
      for (const d of [...this.program.globals, ...p.params]) {
        const n = `${p.name}.${inst}.old.${d.name}`;
        old.set(d.name, n);
        this.declare(n, d.type, d.loc);
        out.push({ kind: 'assign', target: n, value: { kind: 'var', name: rename.get(d.name) ?? d.name, loc: s.loc }, loc: s.loc });
      }
    }
    // Results and locals start unconstrained at every call (fresh names per call, so nothing to reset).
    const checkOrAssume = (e: Expr, ren: Expr) =>
      f.assumed ? ({ kind: 'assume', cond: ren, loc: e.loc } as Stmt) : this.goal(ren, { role: 'error', origin: 'assert' }, e.loc);
    for (const r of p.requires) out.push(checkOrAssume(r, renameExpr(r, rename)));
    out.push(...this.stmts(p.body, inner));
    for (const e of p.ensures) out.push(checkOrAssume(e, renameExpr(e, rename, old)));
    targets.forEach((t, i) => out.push({ kind: 'assign', target: t, value: { kind: 'var', name: rename.get(p.returns[i]!.name)!, loc: s.loc }, loc: s.loc }));
  }
}

function assumeFalse(loc: SourceLocation): Stmt {
  return { kind: 'assume', cond: { kind: 'bool_lit', value: false, loc }, loc };
}

/** The program unrolled to `options.bound`. Throws EncodeError for programs outside the engine's reach. */
export function unrollProgram(program: ImpProgram, options: UnrollOptions): Unrolled {
  return new Unroller(program, options).run();
}
