// Bounded model checking over IMP with iterative deepening, and k-induction.
//
// For bound k = 1, 2, 4, ...: unroll the program (unroll.ts), encode it with
// vc/ (the one IMP-to-SMT encoding), and ask the solver
//   1. is an error goal reachable?            yes → FALSE with the trace;
//   2. is an unwinding (bound) goal reachable? no  → TRUE (the unrolling is complete);
//   3. otherwise try k-induction (with Houdini over candidate invariants), then deepen.
// UNKNOWN when the time budget runs out or the solver gives up. One solver
// session serves every bound: each bound's encoding lives in its own scope,
// goals are checked with `check-sat-assuming`.

import type { SourceLocation } from '../common/location.js';
import { guarded, type Expr, type Goal, type ImpProgram, type ImpType, type Stmt } from '../ivl/ast.js';
import { printExpr } from '../ivl/printer.js';
import { someStmt, visitStmtExprs } from '../ivl/walk.js';
import { createSolver, SolverError, mkNot, mkOr, type Solver, type SmtValue, type Term } from '../smt/index.js';
import { encodeProcedure, type EncodedGoal, type ProcedureEncoding } from '../vc/encode.js';
import { productsAsUnknowns } from '../vc/polynomial.js';
import { checkOneByOne, loopCandidates, whilesOf, type LoopCandidateSource } from './candidates.js';
import { EncodeError, unrollProgram, type GoalRoles, type GoalTag, type LoopCandidate, type Unrolled, type UnrollOptions } from './unroll.js';

export interface BmcOptions {
  /**
   * The time budget: an absolute deadline (ms since the epoch, `Date.now()`
   * clock), or a function giving the milliseconds left (e.g. of CPU time).
   */
  readonly deadline: number | (() => number);
  /** Time limit of one solver call in ms (default: what `deadline` leaves). */
  readonly solverTimeoutMs?: () => number;
  /** Role of the program's asserts by their goals' kinds (default: every assert is an error goal). */
  readonly roles?: GoalRoles;
  readonly entry?: string;
  /** First bound (default 1) and largest bound tried (default 1 << 20). */
  readonly startBound?: number;
  readonly maxBound?: number;
  /** The bound after k (default 2k; at most `maxBound`). */
  readonly nextBound?: (bound: number) => number;
  /** Inlining depth of recursive IMP procedure calls for bound k (default: k). */
  readonly callDepth?: (bound: number) => number;
  /** Called with each bound whose error goals showed no violation (a later search may start after it). */
  readonly onNoViolation?: (bound: number) => void;
  readonly log?: (message: string) => void;
  /** Also try k-induction (default true). */
  readonly induction?: boolean;
  /**
   * k-induction alone, with the whole budget (default false): for a program
   * that over-approximates another, where a counterexample would show
   * nothing. Its base case is the induction's own.
   */
  readonly inductionOnly?: boolean;
  /**
   * k-induction's later attempts at a bound only while its allowance lasts
   * (default false: each attempt has its own time): for a short search for
   * violations, which deeper bounds serve better than a long attempt.
   */
  readonly inductionWithinAllowance?: boolean;
  /** Built-in candidate invariants (comparison templates) for k-induction (default true). */
  readonly candidates?: boolean;
  /**
   * Extra candidate invariants per IMP while (Boolean IMP expressions over
   * the variables in scope there). A C loop inlined several times gives
   * several whiles with the same `loc` (= the source map's LoopInfo.loc).
   * They go through Houdini with the built-in ones and strengthen k-induction.
   */
  readonly loopCandidates?: LoopCandidateSource;
  /** The solver back end (`createSolver` name: `auto` default, `z3-wasm`, `z3`, `cvc5`), or a solver to use (not disposed). */
  readonly solver?: string | Solver;
}

/** One havoc executed on the counterexample path, in execution order. */
export interface TraceHavoc {
  readonly loc: SourceLocation;
  readonly target: string;
  readonly type: ImpType;
  /** Bit-vectors: unsigned value; int: mathematical value; bool: 0/1. */
  readonly value: bigint;
}

/** One `if`/`while` condition evaluated on the path. */
export interface TraceBranch {
  readonly loc: SourceLocation;
  readonly taken: boolean;
}

export interface Counterexample {
  /** The violated assert: its loc and goal are the IMP assert's. */
  readonly goal: { readonly loc: SourceLocation; readonly origin: GoalTag['origin']; readonly goal?: Goal };
  readonly havocs: readonly TraceHavoc[];
  /** Branch outcomes up to the violation, in execution order. */
  readonly branches: readonly TraceBranch[];
}

/** Invariants of one IMP while that the proof assumed (Houdini survivors). */
export interface LoopInvariants {
  readonly loop: Stmt;
  readonly loc: SourceLocation;
  readonly exprs: readonly Expr[];
}

export type BmcResult =
  | {
      readonly verdict: 'false';
      readonly bound: number;
      readonly counterexample: Counterexample;
      /** The program checked at that bound (its goals are those the counterexample names). */
      readonly program: ImpProgram;
    }
  | {
      readonly verdict: 'true';
      readonly bound: number;
      /** Complete unrolling (no execution exceeds the bound) or k-induction. */
      readonly method: 'unrolling' | 'k-induction';
      /** Per while of `program`: the candidates that survived Houdini and were assumed (may be empty for 'unrolling'). */
      readonly invariants: readonly LoopInvariants[];
      /** The program checked at the final bound. */
      readonly program: ImpProgram;
    }
  | { readonly verdict: 'unknown'; readonly bound: number; readonly reason: string };

/** The program to check at bound k: a fixed program, or one built per bound (e.g. lowered with a deeper recursion cut). */
export type ProgramAtBound = ImpProgram | ((bound: number) => ImpProgram);

interface Encoded {
  readonly unrolled: Unrolled;
  readonly enc: ProcedureEncoding;
  readonly tagOf: (g: EncodedGoal) => GoalTag;
}

let encodings = 0;

/** Unrolls and encodes; errors of the encoding (a program outside its reach) become EncodeError. */
function encode(p: ImpProgram, options: UnrollOptions): Encoded {
  const unrolled = unrollProgram(p, options);
  let enc: ProcedureEncoding;
  try {
    enc = encodeProcedure(unrolled.program, unrolled.proc, { prefix: `b${++encodings}.`, loops: 'error', checkOnly: unrolled.checkOnly, skipUnreachable: true });
  } catch (e) {
    if (e instanceof Error) throw new EncodeError(e.message);
    throw e;
  }
  const error: GoalTag = { role: 'error', origin: 'assert' };
  return { unrolled, enc, tagOf: (g) => (g.stmt && unrolled.tags.get(g.stmt)) || error };
}

function asBigint(v: SmtValue): bigint {
  if (v.kind === 'bool') return v.value ? 1n : 0n;
  if (v.kind === 'bv' || v.kind === 'int') return v.value;
  if (v.kind === 'float') return v.bits;
  return 0n; // maps and reals are not nondet call results; not replayed
}

/** Reads the counterexample of a sat answer on the error goals. */
async function readTrace(solver: Solver, e: Encoded, errors: readonly EncodedGoal[]): Promise<Counterexample> {
  const { enc } = e;
  const havocs = enc.trace.filter((s) => s.what === 'havoc');
  const terms: Term[] = [...errors.map((g) => g.violation)];
  for (const h of havocs) terms.push(h.reached, h.updates[0]!.value);
  for (const b of enc.branches) terms.push(b.reached, b.cond);
  const values = await solver.getValues(terms);
  const hitIndex = errors.findIndex((_, i) => values[i]!.kind === 'bool' && (values[i] as { value: boolean }).value);
  if (hitIndex < 0) throw new SolverError('the model violates no goal');
  const hit = errors[hitIndex]!;
  const isTrue = (v: SmtValue | undefined) => v?.kind === 'bool' && v.value;
  const decl = new Map([...e.unrolled.program.globals, ...e.unrolled.proc.locals, ...e.unrolled.proc.params, ...e.unrolled.proc.returns].map((d) => [d.name, d.type]));
  let k = errors.length;
  const outHavocs: TraceHavoc[] = [];
  for (const h of havocs) {
    const reached = values[k++];
    const value = values[k++]!;
    if (enc.trace.indexOf(h) >= hit.traceLength || !isTrue(reached)) continue;
    const u = h.updates[0]!;
    outHavocs.push({ loc: h.loc, target: u.name, type: decl.get(u.name) ?? { kind: 'bool' }, value: asBigint(value) });
  }
  const branches: TraceBranch[] = [];
  for (const b of enc.branches) {
    const reached = values[k++];
    const cond = values[k++];
    if (b.goalsBefore > hit.id || !isTrue(reached)) continue;
    branches.push({ loc: b.loc, taken: isTrue(cond) });
  }
  const tag = e.tagOf(hit);
  return { goal: { loc: hit.loc, origin: tag.origin, ...(tag.goal ? { goal: tag.goal } : {}) }, havocs: outHavocs, branches };
}

/** Asserts an encoding's definitions in a new scope of the session. */
async function load(solver: Solver, e: Encoded): Promise<void> {
  await solver.push();
  for (const a of e.enc.assertions) await solver.assert(a);
}

type Check = { status: 'sat' } | { status: 'unsat' } | { status: 'unknown'; reason: string };

async function check(solver: Solver, assumptions: readonly Term[], goals: readonly EncodedGoal[], timeoutMs: number): Promise<Check> {
  const r = await solver.checkSat([...assumptions, mkOr(...goals.map((g) => g.violation))], { timeoutMs: Math.max(1, Math.floor(timeoutMs)) });
  if (r.status === 'unknown') return { status: 'unknown', reason: r.reason ?? 'the solver gave up' };
  return { status: r.status };
}

/** Runs BMC with iterative deepening until a verdict, the deadline or `maxBound`. */
export async function bmc(program: ProgramAtBound, options: BmcOptions): Promise<BmcResult> {
  const solver = typeof options.solver === 'object' ? options.solver : createSolver(options.solver ?? 'auto');
  try {
    return await search(program, options, solver);
  } catch (e) {
    if (e instanceof SolverError) return { verdict: 'unknown', bound: 0, reason: `solver: ${e.message}` };
    throw e;
  } finally {
    if (typeof options.solver !== 'object') await solver.dispose();
  }
}

async function search(program: ProgramAtBound, options: BmcOptions, solver: Solver): Promise<BmcResult> {
  const log = options.log ?? (() => {});
  const deadline = options.deadline;
  const left = typeof deadline === 'function' ? deadline : () => deadline - Date.now();
  const solverMs = options.solverTimeoutMs ?? left;
  const maxBound = options.maxBound ?? 1 << 20;
  let bound = Math.max(0, options.startBound ?? 1);
  let lastReason = 'no bound was tried';
  const survivors: Survivors = {};
  // Time spent on BMC and on induction so far (ms), to balance the two.
  // Measured on the budget's own clock (CPU time when `deadline` is a function of it):
  // on a loaded machine the wall clock would starve induction.
  const used = () => -left();
  const start = { used: used(), wall: Date.now() };
  // Wall-clock ms per budget ms so far (solver time limits are wall time), between 1 and 4.
  const wallPerBudget = () => Math.min(4, Math.max(1, (Date.now() - start.wall) / Math.max(50, used() - start.used)));
  let bmcMs = 0;
  let inductionMs = 0;
  // The depth of the next k-induction attempt: it grows only when an attempt was decided, not when it ran out of time.
  let inductionDepth = 1;
  const inducible = (p: ImpProgram) => options.induction !== false && whilesOf(p, options.entry ?? 'main').length > 0;
  /** One k-induction attempt at the current depth with `allowance` ms of the budget (see below); the proof if it succeeded. */
  const induction = async (p: ImpProgram, allowance: number): Promise<BmcResult | undefined> => {
    const u3 = used();
    const k = inductionDepth;
    const attemptWith = (set: CandidateSet, allowanceMs: number, products: Products, surviving: Survivors) => {
      const end = used() + allowanceMs;
      // One check may not take the whole budget: a quarter of what is left (at least 1 s), nor more than the
      // allowance; with induction alone, all of it (a hard check that is decided is the proof there).
      const attemptLeft = () => (end - used()) * wallPerBudget();
      // A call starts only while the attempt has time (the check of the goals
      // after Houdini's fixpoint, its payoff, always), and gets at least
      // MIN_CALL_MS: one cut at a few ms loses all its work.
      const callMs = (payoff = false) => {
        const mine = attemptLeft();
        if (mine <= 0 && !payoff) return 0;
        return Math.min(solverMs(), options.inductionOnly ? Infinity : Math.max(1000, solverMs() / 4), Math.max(mine, MIN_CALL_MS));
      };
      const opts =
        set === 'none'
          ? { ...options, candidates: false, loopCandidates: undefined }
          : set === 'caller'
            ? { ...options, candidates: false }
            : set === 'built-in'
              ? { ...options, loopCandidates: undefined }
              : options;
      return inductionStep(solver, p, k, opts, callMs, attemptLeft, log, surviving, set, products);
    };
    // On a program that multiplies variables, each attempt is first made
    // with the products as unknowns (see `productsAsUnknowns`), with half its
    // time and a copy of the survivors (its models may be spurious, so what
    // it drops is kept): a proof there is a proof, found without
    // bit-blasting a multiplier. The exact attempt then has its own time.
    const nonlinear = multipliesVariables(p);
    const attempt = async (set: CandidateSet, allowanceMs: number): Promise<Attempt> => {
      if (nonlinear) {
        const abstract = await attemptWith(set, allowanceMs / 2, 'unknowns', { ...survivors });
        if (abstract.kind === 'proved') return abstract;
      }
      return attemptWith(set, allowanceMs, 'exact', survivors);
    };
    const proof = (r: Attempt): BmcResult | undefined => (r.kind === 'proved' ? { verdict: 'true', bound: k, method: 'k-induction', invariants: r.invariants, program: p } : undefined);
    // Plain k-induction first: where the program's own assertions are
    // inductive no candidate is needed, and a Houdini round over many
    // candidates (a model of the whole encoding each) can cost far more,
    // above all with nonlinear arithmetic. A refuted check is quick; one
    // that is hard gets half the allowance or a tenth of what is left (up to
    // 1 s), and is tried again only with twice the time it had.
    const plainMs = Math.max(allowance / 2, Math.min(1000, left() / 10));
    if (survivors.plainRefutedAt !== k && plainMs >= 2 * (survivors.plainSpentMs ?? 0)) {
      const plain = await attempt('none', plainMs);
      if (plain.kind === 'proved') {
        inductionMs += used() - u3;
        return proof(plain);
      }
      if (plain.kind === 'refuted') survivors.plainRefutedAt = k;
      else survivors.plainSpentMs = plainMs;
    }
    // With `inductionWithinAllowance`, the later attempts only while the
    // allowance lasts (each call gets at least MIN_CALL_MS: four attempts
    // overran a 300-ms allowance fourfold and kept BMC from the next bound);
    // the next attempt, with more time, goes on from the survivors.
    const within = () => !options.inductionWithinAllowance || used() - u3 < allowance;
    const hasCaller = options.loopCandidates !== undefined;
    // A set that was too hard for one check is tried again once an attempt has twice the time that check had.
    const timeFor = (tooHardMs: number | undefined) => allowance >= 2 * (tooHardMs ?? 0);
    const withCaller = hasCaller && timeFor(survivors.callerTooHardMs);
    // (Not when induction has the whole budget: the second attempt would start over.)
    if (hasCaller && options.candidates !== false && !options.inductionOnly && timeFor(survivors.callerAloneTooHardMs) && within()) {
      // The caller's candidates alone first: few, so Houdini needs few rounds,
      // and they are often the whole proof; the templates only when they are not.
      const alone = await attempt('caller', allowance / 2);
      if (alone.kind === 'caller-too-hard') survivors.callerAloneTooHardMs = alone.limitMs;
      if (alone.kind === 'proved') {
        inductionMs += used() - u3;
        return proof(alone);
      }
    }
    if (!within()) {
      inductionMs += used() - u3;
      return undefined;
    }
    const rest = () => Math.max(INDUCTION_FLOOR_MS, allowance - (used() - u3));
    let r = await attempt(withCaller ? 'all' : 'built-in', rest());
    if (r.kind === 'caller-too-hard') {
      // The caller's candidates made a check undecidable in its time: the built-in ones alone until an attempt has twice that time.
      log(`k-induction: depth ${k}: retrying without the caller's candidates`);
      survivors.callerTooHardMs = r.limitMs;
      r = await attempt('built-in', rest());
    } else if (r.kind === 'spent' && withCaller && !options.inductionOnly && within()) {
      // The built-in candidates alone are often quicker to decide (and enough): what is left for them.
      const alone = await attempt('built-in', rest());
      if (alone.kind === 'proved') r = alone;
    }
    inductionMs += used() - u3;
    if (r.kind === 'refuted') inductionDepth = Math.min(maxBound, k * 2);
    return proof(r);
  };
  // The last program BMC checked (induction may go on with it when a deeper bound cannot be encoded).
  let lastProgram: ImpProgram | undefined;
  /** What is left of the budget in attempts of half of it each (all of it with `inductionOnly`, and a floor), or an UNKNOWN with `reason`. */
  const inductionToTheEnd = async (p: ImpProgram, reason: string): Promise<BmcResult> => {
    for (let tries = 0; tries < 6 && inducible(p) && left() > INDUCTION_FLOOR_MS; tries++) {
      const proof = await induction(p, Math.max(INDUCTION_FLOOR_MS, options.inductionOnly ? left() : left() / 2));
      if (proof) return proof;
    }
    return { verdict: 'unknown', bound, reason };
  };
  if (options.inductionOnly) {
    const p = typeof program === 'function' ? program(bound) : program;
    return inductionToTheEnd(p, inducible(p) ? 'not proved by k-induction' : 'no loop to prove by induction');
  }
  /** `wholeBudget`: the call's limit was at least what the budget had left. */
  const gaveUp = (what: string, reason: string, wholeBudget: boolean): BmcResult => ({
    verdict: 'unknown',
    bound,
    // A time-out of a call that had the rest of the budget is the budget's
    // end (solver limits are wall time, the budget may be CPU time, and on a
    // loaded machine the solver gets less CPU than the wall clock runs).
    reason: left() <= 0 || (wholeBudget && reason === 'timeout') ? `time limit reached at bound ${bound}` : `solver (${what}): ${reason}`,
  });
  /** A BMC check with the per-call limit; whether that limit was the whole budget left. */
  const bmcCheck = async (goals: readonly EncodedGoal[]): Promise<[Check, boolean]> => {
    const limit = solverMs();
    const wholeBudget = options.solverTimeoutMs === undefined || limit >= left();
    return [await check(solver, [], goals, limit), wholeBudget];
  };
  for (;;) {
    if (left() <= 0) return { verdict: 'unknown', bound, reason: `time limit reached (${lastReason})` };
    const t0 = Date.now();
    const u0 = used();
    let p: ImpProgram;
    let e: Encoded;
    try {
      p = typeof program === 'function' ? program(bound) : program;
      e = encode(p, { bound, callDepth: options.callDepth ? options.callDepth(bound) : bound, roles: options.roles, entry: options.entry });
    } catch (err) {
      if (err instanceof EncodeError) {
        // No deeper bound: induction gets the rest of the time.
        if (lastProgram) return inductionToTheEnd(lastProgram, err.message);
        return { verdict: 'unknown', bound, reason: err.message };
      }
      throw err;
    }
    const errors = e.enc.goals.filter((g) => e.tagOf(g).role === 'error');
    const unwinding = e.enc.goals.filter((g) => e.tagOf(g).role === 'bound');
    log(`bmc: bound ${bound}: ${e.unrolled.size} statements, ${e.enc.assertions.length} definitions, ${errors.length} error goals, ${unwinding.length} unwinding goals (encoded in ${Date.now() - t0} ms)`);
    await load(solver, e);
    try {
      // No error goal at this bound: still check the unwinding goals (a cut recursion may hide code with errors).
      if (errors.length > 0) {
        const t1 = Date.now();
        const [r, wholeBudget] = await bmcCheck(errors);
        log(`bmc: bound ${bound}: error goals ${r.status} (${Date.now() - t1} ms)`);
        if (r.status === 'sat') return { verdict: 'false', bound, counterexample: await readTrace(solver, e, errors), program: p };
        if (r.status === 'unknown') return gaveUp('error goals', r.reason, wholeBudget);
      }
      options.onNoViolation?.(bound);
      const done: BmcResult = { verdict: 'true', bound, method: 'unrolling', invariants: [], program: p };
      if (unwinding.length === 0) return done;
      const t2 = Date.now();
      const [u, uWholeBudget] = await bmcCheck(unwinding);
      log(`bmc: bound ${bound}: unwinding goals ${u.status} (${Date.now() - t2} ms)`);
      if (u.status === 'unsat') return done;
      if (u.status === 'unknown') return gaveUp('unwinding goals', u.reason, uWholeBudget);
    } finally {
      await solver.pop();
    }
    bmcMs += used() - u0;
    // The same loop-free program, without calls, unrolls the same at every
    // bound: a bound goal that failed (a place where the model is not exact)
    // fails at every deeper one.
    if (p === lastProgram && unrollsAlike(p)) return { verdict: 'unknown', bound, reason: `a goal where the model is cut or not exact can fail, at every bound (the program has no loops)` };
    lastProgram = p;
    lastReason = `no violation up to bound ${bound}, but loops or recursion can run longer`;
    // Induction only where it can prove something (a loop), and never taking
    // much more time than BMC: deeper bounds find the violations and complete
    // unrollings, often sooner than a hard induction check. An attempt may
    // use what BMC has used more than induction so far (at least
    // INDUCTION_FLOOR_MS). One cut short is tried again at the same depth
    // after the next bound, with more time and without the candidates
    // Houdini had dropped by then; a depth is left only when refuted (a
    // shallow induction is cheaper to decide than a deep one, and the
    // induction encoding checks its own base case).
    if (inducible(p) && (bound <= 1 || inductionMs <= bmcMs)) {
      const proof = await induction(p, Math.max(INDUCTION_FLOOR_MS, bmcMs - inductionMs));
      if (proof) return proof;
    }
    if (bound >= maxBound) return { verdict: 'unknown', bound, reason: lastReason };
    bound = Math.min(maxBound, bound === 0 ? 1 : Math.max(bound + 1, options.nextBound?.(bound) ?? bound * 2));
  }
}

/** Whether a program unrolls the same at every bound: no loops and no calls between procedures. */
function unrollsAlike(p: ImpProgram): boolean {
  return p.procedures.every((proc) => !someStmt(proc.body ?? [], (s) => s.kind === 'while' || s.kind === 'call'));
}

/** The least time (ms) one k-induction attempt may take, however little BMC has taken. */
const INDUCTION_FLOOR_MS = 300;

/** The least time (ms) a k-induction call gets while its attempt has time left (the budget's own limit still applies). */
const MIN_CALL_MS = 250;

/** Which candidates an attempt starts from: none, the caller's alone, the caller's and the built-in ones, or the built-in ones alone. */
type CandidateSet = 'none' | 'caller' | 'all' | 'built-in';

/** Candidates that survived Houdini so far, by loop location and text, per candidate set. */
interface Survivors {
  none?: Set<string>;
  /** The depth at which plain k-induction (no candidates) was refuted. */
  plainRefutedAt?: number;
  /** The time of the last plain attempt that ran out of it. */
  plainSpentMs?: number;
  caller?: Set<string>;
  all?: Set<string>;
  'built-in'?: Set<string>;
  /** A check with the caller's candidates was undecided within this many ms: the built-in ones only, until an attempt has twice that. */
  callerTooHardMs?: number;
  /** The same with the caller's candidates alone: that attempt is skipped until then. */
  callerAloneTooHardMs?: number;
}

/** How one k-induction attempt ended. */
type Attempt =
  | { readonly kind: 'proved'; readonly invariants: LoopInvariants[] }
  /** Not inductive at this depth (or the solver could not decide, without the caller's candidates). */
  | { readonly kind: 'refuted' }
  /** The attempt's time ran out first. */
  | { readonly kind: 'spent' }
  /** A check with the caller's candidates was undecided within the solver's own limit. */
  | { readonly kind: 'caller-too-hard'; readonly limitMs: number };

function candidateKey(c: LoopCandidate): string {
  const l = c.loop.loc;
  return `${l.file}:${l.line}:${l.column}:${l.offset}|${printExpr(c.expr)}`;
}

/** Whether an expression node multiplies two terms neither of which is a literal. */
function isProduct(x: Expr): boolean {
  const literal = (y: Expr) => y.kind === 'bv_lit' || y.kind === 'int_lit';
  return x.kind === 'binary' && x.op === '*' && !literal(x.left) && !literal(x.right);
}

const multipliesIn = new WeakMap<ImpProgram, boolean>();

/** Whether the program multiplies two terms neither of which is a literal. */
function multipliesVariables(p: ImpProgram): boolean {
  let out = multipliesIn.get(p);
  if (out === undefined) {
    out = false;
    for (const proc of p.procedures) visitStmtExprs(proc.body ?? [], (e) => void (isProduct(e) && (out = true)), false);
    multipliesIn.set(p, out);
  }
  return out;
}

/** How an attempt reads nonlinear products: exactly, or each as an unknown value of its own (an over-approximation). */
type Products = 'exact' | 'unknowns';

/**
 * The k-induction check at depth `depth`. Houdini first: candidates that
 * fail at a loop arrival or are not kept by one iteration from a state
 * satisfying all active ones are switched off (activation literals: one
 * encoding for every round), until the rest are inductive; then every error
 * and bound goal is checked with them assumed. Any failure to decide is
 * just "not proved"; `solverMs` below 1 means the attempt's time is spent,
 * and so does an undecided check whose time limit was what the attempt had
 * left (`attemptLeft`).
 */
async function inductionStep(
  solver: Solver,
  p: ImpProgram,
  depth: number,
  options: BmcOptions,
  /** The next call's limit (ms); `payoff`: the check of the goals after Houdini's fixpoint. */
  solverMs: (payoff?: boolean) => number,
  attemptLeft: () => number,
  log: (m: string) => void,
  survivors: Survivors,
  set: CandidateSet,
  products: Products,
): Promise<Attempt> {
  const entry = options.entry ?? 'main';
  const all = loopCandidates(p, entry, options.candidates !== false, options.loopCandidates);
  // Start from the survivors of the last attempt: Houdini re-checks them here anyway.
  let cands = [...all.values()].flat();
  const keep = survivors[set];
  if (keep) cands = cands.filter((c) => keep.has(candidateKey(c)));
  // Without candidates of its own, the caller's set would be plain k-induction: the next attempt does that with more.
  if (set === 'caller' && cands.length === 0) return { kind: 'refuted' };
  const remember = (active: ReadonlySet<number>) => {
    const keys = new Set(cands.filter((c) => active.has(c.id)).map(candidateKey));
    survivors[set] = keys;
  };
  let e: Encoded;
  try {
    const byLoop = new Map<Stmt, LoopCandidate[]>();
    for (const c of cands) byLoop.set(c.loop, [...(byLoop.get(c.loop) ?? []), c]);
    e = encode(p, {
      bound: depth,
      callDepth: options.callDepth ? options.callDepth(depth) : depth,
      roles: options.roles,
      entry,
      mode: 'induction',
      candidates: byLoop,
    });
  } catch (err) {
    if (err instanceof EncodeError) {
      log(`k-induction: not applicable: ${err.message}`);
      return { kind: 'refuted' };
    }
    throw err;
  }
  const activation = (c: LoopCandidate): Term => e.enc.entry.get(e.unrolled.activation.get(c.id)!)!;
  const goalsOf = new Map<number, EncodedGoal[]>();
  const others: EncodedGoal[] = [];
  for (const g of e.enc.goals) {
    const tag = e.tagOf(g);
    if (tag.role === 'candidate') goalsOf.set(tag.candidate!, [...(goalsOf.get(tag.candidate!) ?? []), g]);
    else others.push(g);
  }
  const spent = (what: string): Attempt => {
    log(`k-induction: depth ${depth}: the attempt's time ran out in ${what}`);
    return { kind: 'spent' };
  };
  const assertions = products === 'exact' ? e.enc.assertions : productsAsUnknowns(e.enc.assertions);
  // Nothing to read as unknowns: the exact attempt decides.
  if (!assertions) return { kind: 'refuted' };
  const mode = products === 'exact' ? '' : ' (products as unknowns)';
  await solver.push();
  for (const a of assertions) await solver.assert(a);
  try {
    let active = new Set(cands.map((c) => c.id));
    const literals = () => cands.map((c) => (active.has(c.id) ? activation(c) : mkNot(activation(c))));
    for (let round = 0; active.size > 0; round++) {
      const goals = cands.filter((c) => active.has(c.id)).flatMap((c) => goalsOf.get(c.id) ?? []);
      if (goals.length === 0) break;
      const t = Date.now();
      const ms = solverMs();
      if (ms < 1) return spent(`Houdini round ${round}`);
      const capped = attemptLeft() <= ms;
      const r = await check(solver, literals(), goals, ms);
      log(`k-induction: depth ${depth}: Houdini round ${round}${mode}: ${active.size} candidates, ${r.status} (${Date.now() - t} ms)`);
      if (r.status === 'unsat') break;
      // Undecided over the over-approximation: the exact attempt takes over.
      if (r.status === 'unknown' && products === 'unknowns') return { kind: 'spent' };
      if (r.status === 'unknown' && set !== 'all' && !capped && solverMs() >= 1) {
        // One candidate set alone, undecided but not out of time: one candidate at a time before giving up.
        const ids = [...active];
        const each = await checkOneByOne(ids, async (id, t) => (await check(solver, literals(), goalsOf.get(id) ?? [], t)).status, solverMs());
        const kept = ids.filter((id) => each.get(id) === 'unsat');
        log(`k-induction: depth ${depth}: Houdini round ${round} one by one: ${kept.length} of ${ids.length} kept`);
        if (kept.length === ids.length) break;
        if ([...each.values()].some((x) => x !== 'unknown')) {
          active = new Set(kept);
          remember(active);
          continue;
        }
      }
      if (r.status === 'unknown') {
        // Out of this attempt's time: the survivors so far are kept for the next one.
        if (capped || solverMs() < 1) return spent(`Houdini round ${round}`);
        // The caller's candidates can make the checks hard.
        if (set !== 'built-in') return { kind: 'caller-too-hard', limitMs: ms };
        active = new Set();
        break;
      }
      const values = await solver.getValues(goals.map((g) => g.violation));
      const failed = new Set(goals.filter((_, i) => values[i]!.kind === 'bool' && (values[i] as { value: boolean }).value).map((g) => e.tagOf(g).candidate!));
      if (failed.size === 0) return { kind: 'refuted' };
      active = new Set([...active].filter((id) => !failed.has(id)));
      remember(active);
    }
    remember(active);
    if (others.length === 0) return { kind: 'proved', invariants: invariantsOf(p, entry, cands, active) };
    const t = Date.now();
    const ms = solverMs(true);
    if (ms < 1) return spent('the check of the goals');
    const capped = attemptLeft() <= ms;
    const r = await check(solver, literals(), others, ms);
    log(`k-induction: depth ${depth}: ${others.length} goals ${r.status} with ${active.size} invariants${mode} (${Date.now() - t} ms)`);
    if (r.status === 'unsat') return { kind: 'proved', invariants: invariantsOf(p, entry, cands, active) };
    if (r.status === 'unknown' && (capped || solverMs() < 1)) return spent('the check of the goals');
    return { kind: 'refuted' };
  } finally {
    await solver.pop();
  }
}

function invariantsOf(p: ImpProgram, entry: string, cands: readonly LoopCandidate[], active: ReadonlySet<number>): LoopInvariants[] {
  return whilesOf(p, entry).map((loop) => ({
    loop,
    loc: loop.loc,
    // Each holds where the loop's condition does (unroll.ts, checkCandidates).
    exprs: cands.filter((c) => c.loop === loop && active.has(c.id)).map((c) => guarded(loop.cond, c.expr)),
  }));
}
