// Termination and non-termination of one IMP procedure (the lowered `main`).
//
// Proving termination:
//   1. bounded: BMC shows that no execution runs longer than the unrolling
//      (every loop and recursion ends within the bound);
//   2. ranking: every loop gets a lexicographic linear ranking function,
//      synthesised by Farkas' lemma on a linear abstraction of one iteration
//      (analysis/) and then CHECKED on the exact bit-vector transition
//      relation of the iteration (wrap-around included) under the supporting
//      invariants; inner loops are summarised by havocking what they assign.
// Finding non-termination: per loop, BMC searches a stem to the loop head and
// one iteration that returns to exactly the same state (a fixed point); the
// lasso is then executed concretely (IMP interpreter) with the stem's nondet
// values and the cycle's values repeated, and only a state that repeats
// exactly at the loop head, at the same place of the repeated values, counts.

import type { SourceLocation } from '../common/location.js';
import {
  boolType,
  syntheticLoc,
  type Expr,
  type Goal,
  type ImpProgram,
  type ImpType,
  type Procedure,
  type Stmt,
  type VarDecl,
  type WhileStmt,
} from '../ivl/ast.js';
import { assignedVars, findStmt, loopsOf, rewriteStmts, someStmt, visitStmts } from '../ivl/walk.js';
import { boolValue, bvValue, executeImp, intValue, valueKey, zeroValue, type ImpState, type ImpValue } from '../ivl/interp.js';
import { linToString } from '../analysis/linear.js';
import { loopRelation, postName, preName, type StateVar } from '../analysis/loop-relation.js';
import { feasiblePaths, synthesizeRanking, type RankingComponent } from '../analysis/ranking.js';
import type { Solver } from '../smt/solver.js';
import { mkAnd, mkApp, mkBv, mkIte, mkNot, mkOr, mkSignExtend, mkZeroExtend, type Term } from '../smt/terms.js';
import { encodeProcedure } from '../vc/encode.js';
import { translateExpr } from '../vc/translate.js';
import { bmc, type ProgramAtBound, type TraceHavoc } from './bmc.js';
import { EncodeError } from './unroll.js';
import { inductiveBounds, inductiveFlagConditions, withInvariants } from './supporting-invariants.js';
import { printExpr } from '../ivl/printer.js';
import { closedRecurrentSet, havocKey } from './recurrent-set.js';

export interface TerminationOptions {
  /** Milliseconds left of the time budget. */
  readonly deadline: () => number;
  /** A fresh solver (for the ranking programs and checks). */
  readonly solver: () => Solver;
  /** The goal kinds of the asserts that cut recursion (unwinding assertions), not program checks. */
  readonly cutKinds?: readonly string[];
  /**
   * The goal kinds of places where the model is not exact (behaviour C
   * leaves undefined, constructs beyond the model): the model ends the path
   * there, so a ranking function would rank only the executions that avoid
   * them, and a program with one is not proved by ranking.
   */
  readonly inexactKinds?: readonly string[];
  /**
   * Hook for invariants proved elsewhere (abstract interpretation, Houdini):
   * conditions that hold at every visit of the loop's head. They only narrow
   * the states a ranking function must rank; they must be sound.
   */
  readonly supportingInvariants?: (loop: WhileStmt) => readonly Expr[];
  readonly entry?: string;
  readonly log?: (message: string) => void;
}

/** The ranking function proved for one loop, components most significant first. */
export interface LoopRanking {
  readonly loc: SourceLocation;
  readonly components: readonly string[];
}

export type TerminationProof =
  | { readonly proved: true; readonly method: 'bounded' | 'ranking'; readonly bound?: number; readonly loops: readonly LoopRanking[] }
  | { readonly proved: false; readonly reason: string; readonly loops: readonly LoopRanking[] };

const RANK_WIDTH = 128;

function entryProcedure(program: ImpProgram, entry: string): Procedure {
  const p = program.procedures.find((q) => q.name === entry);
  if (!p || !p.body) throw new Error(`termination: no procedure '${entry}' with a body`);
  return p;
}

/** The loops of a statement list, inner loops before the loops containing them. */
function loopsInsideOut(ss: readonly Stmt[]): WhileStmt[] {
  const out: WhileStmt[] = [];
  visitStmts(ss, () => {}, (s) => s.kind === 'while' && out.push(s));
  return out;
}

function typesOf(program: ImpProgram, proc: Procedure): Map<string, ImpType> {
  const m = new Map<string, ImpType>();
  for (const d of [...program.globals, ...proc.params, ...proc.returns, ...proc.locals]) m.set(d.name, d.type);
  return m;
}

/**
 * Every execution ends within the unrolling: BMC finds no reachable unwinding
 * goal, and no reachable assert of the `violationKinds` (e.g. a signed
 * overflow, whose wrap-around the model would otherwise take as the way out
 * of a loop, where C has undefined behaviour).
 */
export async function provedBounded(
  program: ProgramAtBound,
  options: TerminationOptions & { readonly maxBound?: number; readonly violationKinds?: readonly string[] },
): Promise<number | undefined> {
  const r = await bmc(program, {
    deadline: options.deadline,
    // A failing program assert is reach_error (the execution ends); a cut is an unwinding goal.
    roles: { error: options.violationKinds ?? [], bound: options.cutKinds ?? [], unlabelled: 'assume' },
    induction: false,
    candidates: false,
    maxBound: options.maxBound ?? 64,
    entry: options.entry,
    log: options.log,
  });
  return r.verdict === 'true' && r.method !== 'k-induction' ? r.bound : undefined;
}

/** The integer value of a ranking component at a state, in RANK_WIDTH-bit arithmetic (no overflow: coefficients are bounded). */
function rankTerm(f: RankingComponent, vars: readonly StateVar[], state: ReadonlyMap<string, Term>): Term {
  let t = mkBv(f.constant, RANK_WIDTH);
  for (const v of vars) {
    const c = f.coeffs.get(preName(v.name));
    if (c === undefined) continue;
    const x = state.get(v.name)!;
    const wide =
      v.reading === 'bool'
        ? mkIte(x, mkBv(1, RANK_WIDTH), mkBv(0, RANK_WIDTH))
        : v.reading === 'signed'
          ? mkSignExtend(RANK_WIDTH - v.width, x)
          : mkZeroExtend(RANK_WIDTH - v.width, x);
    t = mkApp('bvadd', t, mkApp('bvmul', mkBv(c, RANK_WIDTH), wide));
  }
  return t;
}

/**
 * Checks the lexicographic ranking function on the exact (bit-vector)
 * transition relation of one iteration: every iteration from a state
 * satisfying the loop's invariants (proved inductive; inner loops are cut
 * with theirs) decreases some component i that was >= 0,
 * while components before i do not increase. That makes iterations
 * well-founded (each component can decrease only finitely often while the
 * earlier ones stay put or fall).
 */
async function checkRanking(
  solver: Solver,
  program: ImpProgram,
  proc: Procedure,
  loop: WhileStmt,
  vars: readonly StateVar[],
  components: readonly RankingComponent[],
  prefix: string,
  timeoutMs: number,
): Promise<boolean> {
  const enc = encodeProcedure(program, proc, {
    body: [{ kind: 'assume', cond: loop.cond, loc: loop.loc }, ...loop.body],
    checkPostconditions: false,
    assumePreconditions: false,
    prefix,
  });
  const pre = enc.entry;
  const post = enc.exit.env;
  const lookup = (n: string) => {
    const t = pre.get(n);
    if (!t) throw new Error(`unknown variable '${n}'`);
    return t;
  };
  const inv = loop.invariants.map((e) => translateExpr(e, { lookup, lookupOld: lookup }));
  const cases: Term[] = [];
  const kept: Term[] = [];
  const zero = mkBv(0, RANK_WIDTH);
  for (const f of components) {
    const a = rankTerm(f, vars, pre);
    const b = rankTerm(f, vars, post);
    cases.push(mkAnd(...kept, mkApp('bvslt', b, a), mkApp('bvsge', a, zero)));
    kept.push(mkApp('bvsle', b, a));
  }
  await solver.push();
  try {
    await solver.assert(mkAnd(...enc.assertions, enc.exit.reached, ...inv, mkNot(mkOr(...cases))));
    const r = await solver.checkSat(undefined, { timeoutMs });
    return r.status === 'unsat';
  } finally {
    await solver.pop();
  }
}

function describe(f: RankingComponent): string {
  return linToString(f, (v) => v.slice(preName('').length));
}

/** Ranks every loop of the entry procedure (inner loops first); stops at the first loop without a checked ranking function. */
export async function provedByRanking(program: ImpProgram, options: TerminationOptions): Promise<TerminationProof> {
  const log = options.log ?? (() => {});
  const proc = entryProcedure(program, options.entry ?? 'main');
  const cuts = options.cutKinds ?? [];
  if (someStmt(proc.body!, (s) => s.kind === 'assert' && s.goal !== undefined && cuts.includes(s.goal.kind))) {
    return { proved: false, reason: 'the program is recursive beyond the unrolled depth (no ranking functions for recursion)', loops: [] };
  }
  const inexact = options.inexactKinds ?? [];
  const where = findStmt(proc.body!, (s) => s.kind === 'assert' && s.goal !== undefined && inexact.includes(s.goal.kind));
  if (where) {
    return { proved: false, reason: `the model is not exact at ${where.loc.line}:${where.loc.column} (undefined behaviour or a construct beyond it): a ranking function would cover only the executions that avoid it`, loops: [] };
  }
  if (proc.body!.some((s) => s.kind === 'call') || program.procedures.length > 1) {
    return { proved: false, reason: 'calls are not inlined', loops: [] };
  }
  const solver = options.solver();
  const ranker = new LoopRanker(program, solver, log);
  try {
    const hook = (loop: WhileStmt) => options.supportingInvariants?.(loop) ?? [];
    // First with the hook's invariants only (cheap); for the loops left, also with inductive bounds found here.
    const first = await ranker.rankAll({ ...proc, body: withInvariants(proc.body!, new Map(loopsInsideOut(proc.body!).map((l) => [l, hook(l)]))) }, options.deadline);
    if (first.proved) return first;
    // Then with the loops' flag conditions (few candidates, quick to prove; a quarter of what is left at most), before the costly search for bounds.
    const flagsUntil = options.deadline() * 0.75;
    const flags = await inductiveFlagConditions(program, proc, solver, () => options.deadline() - flagsUntil);
    if (flags && [...flags.values()].some((invs) => invs.length > 0)) {
      const withFlags = new Map(loopsInsideOut(proc.body!).map((l) => [l, [...hook(l), ...(flags.get(l) ?? [])]]));
      const second = await ranker.rankAll({ ...proc, body: withInvariants(proc.body!, withFlags) }, options.deadline);
      if (second.proved) return second;
    }
    const until = options.deadline() * 0.6;
    const bounds = await inductiveBounds(program, proc, solver, () => options.deadline() - until);
    if (!bounds) {
      log('termination: no inductive bounds found in the time (solver gave up or time ran out)');
      return first;
    }
    const supporting = new Map(loopsInsideOut(proc.body!).map((l) => [l, [...hook(l), ...(bounds.get(l) ?? [])]]));
    return await ranker.rankAll({ ...proc, body: withInvariants(proc.body!, supporting) }, options.deadline);
  } finally {
    await solver.dispose();
  }
}

/** Ranks the loops of one procedure, its loops annotated with their supporting invariants; remembers the loops already proved. */
class LoopRanker {
  private readonly proved = new Map<string, LoopRanking>();
  private index = 0;

  constructor(
    private readonly program: ImpProgram,
    private readonly solver: Solver,
    private readonly log: (message: string) => void,
  ) {}

  async rankAll(annotated: Procedure, deadline: () => number): Promise<TerminationProof> {
    const types = typesOf(this.program, annotated);
    const loops: LoopRanking[] = [];
    for (const loop of loopsInsideOut(annotated.body!)) {
      const key = `${loop.loc.line}:${loop.loc.column}:${loop.loc.offset}`;
      const known = this.proved.get(key);
      if (known) {
        loops.push(known);
        continue;
      }
      const where = `${loop.loc.line}:${loop.loc.column}`;
      const left = deadline();
      if (left <= 0) return { proved: false, reason: 'time limit reached while ranking loops', loops };
      const rel = loopRelation(loop, types);
      if ('error' in rel) return { proved: false, reason: `loop at ${where}: ${rel.error}`, loops };
      const timeoutMs = Math.floor(Math.max(1000, Math.min(left / 4, 10000)));
      if (loop.invariants.length > 0) this.log(`termination: loop at ${where}: supporting invariants ${loop.invariants.map(printExpr).join(', ')}`);
      const problemVars = rel.vars.map((v) => ({ pre: preName(v.name), post: postName(v.name) }));
      let found: string[] | undefined;
      let tried: string[] | undefined;
      // First without the bit-vector ranges (their rankings tend to count up to a maximum, which wraps), then with them.
      for (const withRanges of [false, true]) {
        const paths = await feasiblePaths(this.solver, withRanges ? rel.paths.map((p) => [...rel.ranges, ...p]) : rel.paths, timeoutMs);
        const components = paths.length === 0 ? [] : await synthesizeRanking(this.solver, { vars: problemVars, paths }, { timeoutMs });
        if (!components) continue;
        const printed = components.map(describe);
        // No feasible path: the loop body cannot run; the constant 0 "decreases" vacuously iff no iteration exists.
        const toCheck = components.length > 0 ? components : [{ coeffs: new Map(), constant: 0n }];
        const checked = await checkRanking(this.solver, this.program, annotated, loop, rel.vars, toCheck, `T${this.index++}.`, timeoutMs);
        this.log(`termination: loop at ${where}: ranking [${printed.join(', ')}] ${checked ? 'holds' : 'fails'} on bit-vectors`);
        if (checked) {
          found = printed;
          break;
        }
        tried = printed;
      }
      if (!found) {
        const why = tried
          ? `the ranking function [${tried.join(', ')}] does not hold with bit-vector semantics (wrap-around)`
          : 'no linear or lexicographic ranking function found';
        return { proved: false, reason: `loop at ${where}: ${why}`, loops };
      }
      const ranking = { loc: loop.loc, components: found };
      this.proved.set(key, ranking);
      loops.push(ranking);
    }
    return { proved: true, method: 'ranking', loops };
  }
}

// ---------------------------------------------------------------- lassos

/** A confirmed infinite execution: the stem's havoc values, then the cycle's repeated forever. */
export interface Lasso {
  /** The loop whose head the cycle returns to. */
  readonly loopLoc: SourceLocation;
  readonly stem: readonly TraceHavoc[];
  readonly cycle: readonly TraceHavoc[];
  /** One line: how it was confirmed. */
  readonly proof: string;
}

const LASSO_FILE = '<termination-lasso>';
/** The goal of the assert the lasso search makes (every other assert ends the path). */
const LASSO_GOAL: Goal = { kind: 'lasso', id: 0 };
const ARM = '$lasso_arm';
const snapshot = (v: string) => `$lasso_s_${v}`;

/** What the iteration chosen by the lasso search must do: come back to its start state, or just stay in the loop. */
type LassoGoal = 'fixed-point' | 'continues';

/**
 * The program with `loop` instrumented: an iteration chosen by a nondet flag
 * records the variables the loop assigns, and an assert after that
 * iteration fails when they are all back to the recorded values
 * (`fixed-point`) or when the loop's condition still holds (`continues`).
 */
function lassoProgram(program: ImpProgram, proc: Procedure, loop: WhileStmt, goal: LassoGoal): ImpProgram | undefined {
  const types = typesOf(program, proc);
  const assigned = [...assignedVars(loop.body)];
  const tracked = assigned.filter((v) => {
    const t = types.get(v);
    return t && t.kind !== 'map' && t.kind !== 'real';
  });
  if (assigned.some((v) => types.get(v)?.kind === 'map')) return undefined;
  const loc = syntheticLoc(LASSO_FILE);
  const v = (name: string): Expr => ({ kind: 'var', name, loc });
  const same = tracked.map<Expr>((x) => ({ kind: 'binary', op: '==', left: v(x), right: v(snapshot(x)), loc }));
  const allSame = same.reduce<Expr>((a, b) => ({ kind: 'binary', op: '&&', left: a, right: b, loc }), { kind: 'bool_lit', value: true, loc });
  const body: Stmt[] = [
    { kind: 'havoc', target: ARM, loc },
    { kind: 'if', cond: v(ARM), then: tracked.map((x) => ({ kind: 'assign', target: snapshot(x), value: v(x), loc })), else: [], loc },
    ...loop.body,
    { kind: 'if', cond: v(ARM), then: [{ kind: 'assert', cond: { kind: 'unary', op: '!', arg: goal === 'fixed-point' ? allSame : loop.cond, loc }, goal: LASSO_GOAL, loc }], else: [], loc },
  ];
  const instrumented: WhileStmt = { ...loop, body };
  const locals: VarDecl[] = [
    ...proc.locals,
    { kind: 'var_decl', name: ARM, type: boolType, loc },
    ...tracked.map<VarDecl>((x) => ({ kind: 'var_decl', name: snapshot(x), type: types.get(x)!, loc })),
  ];
  const p: Procedure = { ...proc, locals, body: rewriteStmts(proc.body!, (s) => (s === loop ? instrumented : undefined)) };
  return { ...program, procedures: program.procedures.map((q) => (q === proc ? p : q)) };
}

function sameLoc(a: SourceLocation, b: SourceLocation): boolean {
  return a.file === b.file && a.line === b.line && a.column === b.column && a.offset === b.offset;
}

function havocValue(h: TraceHavoc): ImpValue {
  switch (h.type.kind) {
    case 'bv':
      return bvValue(h.value, h.type.width);
    case 'bool':
      return boolValue(h.value !== 0n);
    case 'int':
      return intValue(h.value);
    default:
      throw new NotConfirmed(`a havoc of ${h.type.kind} cannot be replayed`);
  }
}

class NotConfirmed extends Error {}
class StopRun extends Error {}

function stateKey(state: ImpState): string {
  return [...state.keys()].sort().map((k) => `${k}=${valueKey(state.get(k)!)}`).join(';');
}

interface LassoRun {
  /** Visits of the loop head after the stem at which the same state and position in the cycle came back. */
  readonly repeat?: { readonly first: number; readonly again: number };
  /** Loop-head visits after the stem. */
  readonly visits: number;
  /** The loop-head state where the first cycle iteration starts. */
  readonly start?: ImpState;
  /** How the run ended, if it did. */
  readonly ended?: string;
}

/**
 * Runs the program with the stem's values and then the cycle's values over
 * and over, watching the loop's head after the stem: stops when a state
 * comes back at the same position in the repeated values (from then on the
 * run repeats forever), after `maxVisits` visits, or when the run ends.
 */
function runLasso(program: ImpProgram, entry: string, loopLoc: SourceLocation, stem: readonly TraceHavoc[], cycle: readonly TraceHavoc[], maxVisits: number): LassoRun {
  const proc = entryProcedure(program, entry);
  if (loopsOf(proc.body!).filter((l) => sameLoc(l.loc, loopLoc)).length !== 1) throw new NotConfirmed('the loop location is not unique in the program');
  const inputs = new Map<string, ImpValue>();
  for (const d of [...program.globals, ...proc.params, ...proc.returns, ...proc.locals]) inputs.set(d.name, zeroValue(d.type));
  let consumed = 0;
  const next = (name: string): ImpValue => {
    let h: TraceHavoc | undefined;
    if (consumed < stem.length) h = stem[consumed];
    else if (cycle.length > 0) h = cycle[(consumed - stem.length) % cycle.length];
    if (!h) throw new NotConfirmed('the run needs more nondet values than the lasso has');
    if (h.target !== name) throw new NotConfirmed(`the run took another path (havoc of ${name}, expected ${h.target})`);
    consumed++;
    return havocValue(h);
  };
  const seen = new Map<string, number>();
  let visits = 0;
  let start: ImpState | undefined;
  let repeat: LassoRun['repeat'];
  try {
    const r = executeImp(program, entry, inputs, {
      maxSteps: 20_000_000,
      checkInvariants: false,
      havoc: (name) => next(name),
      onLoopHead: (loc, state) => {
        if (!sameLoc(loc, loopLoc) || consumed < stem.length) return;
        visits++;
        // The last visit before the cycle's first value is taken (the first visit when the cycle takes none).
        if (consumed === stem.length && (cycle.length > 0 || !start)) start = state;
        const phase = cycle.length === 0 ? 0 : (consumed - stem.length) % cycle.length;
        const key = `${phase}|${stateKey(state)}`;
        const first = seen.get(key);
        if (first !== undefined) {
          repeat = { first, again: visits };
          throw new StopRun();
        }
        if (seen.size < 100_000) seen.set(key, visits);
        if (visits >= maxVisits) throw new StopRun();
      },
    });
    return { visits, start, ended: `${r.status}${r.message ? ': ' + r.message : ''} after ${r.steps} steps` };
  } catch (e) {
    if (e instanceof StopRun) return { visits, start, repeat };
    throw e;
  }
}

/** The proof line of a lasso whose run repeats a state exactly; throws NotConfirmed otherwise. */
export function confirmLasso(program: ImpProgram, entry: string, loopLoc: SourceLocation, stem: readonly TraceHavoc[], cycle: readonly TraceHavoc[]): string {
  const run = runLasso(program, entry, loopLoc, stem, cycle, 1_000_000);
  if (!run.repeat) throw new NotConfirmed(run.ended ? `the concrete run ended (${run.ended})` : `no state repeated in ${run.visits} iterations`);
  return `the state at the loop head repeats exactly (visit ${run.repeat.first} and ${run.repeat.again} after the stem)`;
}

/** Visits of the loop head a lasso proved by a recurrent set must also survive concretely. */
const RECURRENT_VISITS = 500;

/**
 * A lasso proved by a closed recurrent set: the run's state at the start of
 * the cycle lies in a set that one iteration with the cycle's values never
 * leaves; the run is also executed for hundreds of iterations.
 */
async function recurrentLasso(
  program: ImpProgram,
  entry: string,
  loop: WhileStmt,
  stem: readonly TraceHavoc[],
  cycle: readonly TraceHavoc[],
  solver: Solver,
  timeoutMs: number,
): Promise<string> {
  const run = runLasso(program, entry, loop.loc, stem, cycle, RECURRENT_VISITS);
  if (run.ended) throw new NotConfirmed(`the concrete run ended (${run.ended})`);
  if (run.repeat) return `the state at the loop head repeats exactly (visit ${run.repeat.first} and ${run.repeat.again} after the stem)`;
  if (!run.start) throw new NotConfirmed('the run did not reach the cycle');
  const fixed = new Map<string, ImpValue>();
  for (const h of cycle) {
    const key = havocKey(h.loc, h.target);
    const v = havocValue(h);
    const old = fixed.get(key);
    if (old && valueKey(old) !== valueKey(v)) throw new NotConfirmed('one nondet call returns different values within the cycle');
    fixed.set(key, v);
  }
  const proc = entryProcedure(program, entry);
  const set = await closedRecurrentSet(program, proc, loop, run.start, fixed, solver, timeoutMs);
  if (!set) throw new NotConfirmed('no closed recurrent set found');
  const shown = set.length === 0 ? 'true' : set.map(printExpr).join(' && ');
  return `closed recurrent set {${shown}} with the cycle's values fixed; ${run.visits} iterations run concretely`;
}

/** Searches a lasso through each loop (outer loops first); undefined with the reason when none is confirmed. */
export async function findLasso(
  programAt: (bound: number) => ImpProgram,
  options: TerminationOptions & { readonly maxBound?: number },
): Promise<Lasso | { readonly reason: string }> {
  const log = options.log ?? (() => {});
  const entry = options.entry ?? 'main';
  const base = programAt(1);
  const proc = entryProcedure(base, entry);
  const loops = loopsInsideOut(proc.body!).reverse();
  if (loops.length === 0) return { reason: 'the program has no loop' };
  const reasons: string[] = [];
  for (let i = 0; i < loops.length; i++) {
    const loop = loops[i]!;
    const where = `${loop.loc.line}:${loop.loc.column}`;
    const share = options.deadline() / (loops.length - i);
    if (share <= 0) break;
    const start = Date.now();
    const instrumented = (bound: number, goal: LassoGoal): ImpProgram => {
      const p = programAt(bound);
      const q = entryProcedure(p, entry);
      const l = loopsInsideOut(q.body!).find((x) => sameLoc(x.loc, loop.loc));
      const out = l && lassoProgram(p, q, l, goal);
      if (!out) throw new EncodeError('the loop cannot be instrumented at this bound');
      return out;
    };
    if (!lassoProgram(base, proc, loop, 'fixed-point')) {
      reasons.push(`loop at ${where}: assigns arrays`);
      continue;
    }
    // The fixed-point search gets 60 % of the loop's share, the search for a continuing iteration the rest.
    const search = async (goal: LassoGoal, until: number) =>
      bmc((bound) => instrumented(bound, goal), {
        deadline: () => Math.min(options.deadline(), share * until - (Date.now() - start)),
        // Program asserts (reach_error) and recursion cuts end the path: not part of an infinite run.
        roles: { error: [LASSO_GOAL.kind], unlabelled: 'assume' },
        induction: false,
        candidates: false,
        maxBound: options.maxBound ?? 32,
        entry,
        log: options.log,
      });
    const split = (havocs: readonly TraceHavoc[]) => {
      let armed = -1;
      havocs.forEach((h, k) => {
        if (h.target === ARM && h.value !== 0n) armed = k;
      });
      const own = (h: TraceHavoc) => h.target !== ARM;
      return { stem: havocs.slice(0, Math.max(0, armed)).filter(own), cycle: havocs.slice(armed + 1).filter(own) };
    };
    const r = await search('fixed-point', 0.6);
    if (r.verdict === 'false') {
      const { stem, cycle } = split(r.counterexample.havocs);
      try {
        const proof = confirmLasso(programAt(r.bound), entry, loop.loc, stem, cycle);
        log(`termination: lasso at loop ${where}: ${proof}`);
        return { loopLoc: loop.loc, stem, cycle, proof };
      } catch (e) {
        if (!(e instanceof NotConfirmed)) throw e;
        reasons.push(`loop at ${where}: fixed point not confirmed: ${e.message}`);
      }
    } else reasons.push(`loop at ${where}: no fixed point found (${r.verdict === 'unknown' ? r.reason : 'none reachable'})`);
    // No fixed point: an iteration that stays in the loop, generalised to a closed recurrent set.
    const c = await search('continues', 1);
    if (c.verdict !== 'false') continue;
    const { stem, cycle } = split(c.counterexample.havocs);
    const solver = options.solver();
    try {
      const p = programAt(c.bound);
      const l = loopsInsideOut(entryProcedure(p, entry).body!).find((x) => sameLoc(x.loc, loop.loc))!;
      const proof = await recurrentLasso(p, entry, l, stem, cycle, solver, Math.floor(Math.max(1000, Math.min(10000, options.deadline() / 4))));
      log(`termination: lasso at loop ${where}: ${proof}`);
      return { loopLoc: loop.loc, stem, cycle, proof };
    } catch (e) {
      if (!(e instanceof NotConfirmed)) throw e;
      reasons.push(`loop at ${where}: ${e.message}`);
    } finally {
      await solver.dispose();
    }
  }
  return { reason: reasons.join('; ') || 'no loop was searched (time limit)' };
}
