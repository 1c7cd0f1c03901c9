// The steps of a verification strategy. The property table lists, per
// property, the steps that decide it, in order; `runStrategy` runs them,
// each an engine with its share of the CPU budget, until one gives a
// verdict. `--verbose` prints the CPU time per step (PhaseProfile).

import { formatLocation } from '../common/location.js';
import { analysisCandidates } from '../analysis/index.js';
import { abstractArrayCells, accelerateLoops, expandRepeats, jumpsOf, accumulatorCandidates, assertionCandidates, bmc, candidateSources, filteredByRuns, polynomialCandidates, templateCandidates, proveByHorn, proveByIntervals, sampleViolation, vacuityOf, type BmcResult, type CellAbstraction, type Counterexample, type LoopCandidateSource } from '../engines/index.js';
import type { ImpProgram } from '../ivl/ast.js';
import { freeVars, loopsOf } from '../ivl/walk.js';
import { goalOf, type GoalInfo, type GoalKind, type SourceMap } from '../lower/source-map.js';
import { goalRolesOf, violationKinds, violationOf, type StepName } from '../properties/index.js';
import { replayCounterexample, type ReplayResult } from '../replay/index.js';
import { endsRunOfAll, executeLowered, executionLimitMs, violationByGccRun, type OnePathOutcome } from './execution.js';
import { LoweredFamily } from './family.js';
import { lowerC } from './frontend.js';
import type { PhaseProfile } from './profile.js';
import { VerificationRun } from './run.js';
import { proveBySummaries } from './summaries.js';
import { callingPrograms } from './recursive-calls.js';
import { verifyTermination } from './termination.js';
import { timeLimitReason } from './time-limit.js';
import { counterexampleTrace, type TraceStep } from './trace.js';
import type { VerifyResult } from './types.js';
import { nondetSteps, replayValues, type NondetStep } from './witness.js';
import { startsThreads } from '../lower/threads.js';
import { verifyThreaded } from './threads.js';

export interface Step {
  /** The step needs the program lowered with the property's passes (done once, before the first such step). */
  readonly lowered: boolean;
  /** Whether the step can decide anything for this program (it is skipped otherwise). */
  applies(run: VerificationRun): boolean;
  /** Runs within its share of the budget: a verdict, or undefined to go on with the next step. */
  run(run: VerificationRun): Promise<VerifyResult | undefined>;
}

/** Runs the property's strategy: its steps in order until one gives a verdict. */
export async function runStrategy(run: VerificationRun): Promise<VerifyResult> {
  const strategy = run.row.strategy;
  // A program that starts threads: interleavings (threads.ts) whatever the property; a property only threads violate holds without them.
  if (startsThreads(run.c) || run.row.onlyWithThreads) {
    const failed = lower(run);
    if (failed) return failed;
    if (run.family!.first.threads) return verifyThreaded(run);
    return run.done({ kind: 'true' }, `the program starts no threads, and only threads violate ${run.r.property.kind}`);
  }
  for (const name of strategy) {
    const step = STEPS[name];
    if (step.lowered && !run.family) {
      const failed = lower(run);
      if (failed) return failed;
    }
    if (!step.applies(run)) continue;
    const result = await step.run(run);
    if (result) return result;
  }
  return run.unknown(`no step of the strategy (${strategy.join(', ')}) decided`);
}

/** Lowers the program with the property's passes (recursion inlined per bound later); UNKNOWN when it uses what the lowering does not model. */
function lower(run: VerificationRun): VerifyResult | undefined {
  const lowerAt = (depth: number) => lowerC(run.c, { passes: run.row.passes, dataModel: run.r.dataModel, recursionDepth: depth });
  const first = lowerAt(1);
  run.profile.mark('lower');
  if (first.notes?.length) run.notes = ` (${first.notes.join('; ')})`;
  if (first.unsupported) return run.unknown(`unsupported: ${first.unsupported.construct} at ${formatLocation(first.unsupported.loc)}`);
  run.family = new LoweredFamily(first, lowerAt, run.options.onBound, (during, phase) => {
    run.profile.mark(phase);
    const l = during();
    run.profile.mark('lower');
    return l;
  });
  return undefined;
}

/** The long-runs step: runs at most, statements per run, and CPU ms at most (a fortieth of what is left if less). */
const LONG_RUNS = { runs: 32, steps: 30_000, ms: 200 };

/** CPU ms the model's run of a program without nondeterminism gets before gcc's run is tried. */
const FIRST_SLICE_MS = 500;

const STEPS: Readonly<Record<StepName, Step>> = {
  /**
   * A program without nondeterminism: its one execution, run with the
   * model's semantics (execution.ts), decides, if it ends within half of
   * the budget (the other engines seldom decide a one-path program that
   * runs longer). A long run is paused after a short slice: gcc's run (much
   * faster) may show a violation, replayed, before the model's run goes on
   * to the end of its half. A validation (`proofFirst`) looks for a proof:
   * one run with half the budget, no gcc.
   */
  execution: {
    lowered: true,
    applies: () => true,
    async run(run) {
      const { r, family } = run;
      const kind = r.property.kind;
      const proofFirst = run.options.proofFirst === true;
      const share = run.deadline() / 2;
      // The table's concrete run: the properties one gcc run can show violated.
      const byGcc = run.row.concreteRun !== undefined;
      const useGcc = byGcc && !proofFirst;
      const errorFunction = r.property.errorFunction ?? 'reach_error';
      const tooLong = (o: OnePathOutcome) => o.kind === 'undecided' && o.tooLong;
      // gcc's run, tried at most once; the violation it shows, if any.
      let gccTried = false;
      let shown: { goal: GoalInfo; gccRun: ReplayResult } | undefined;
      const tryGcc = () => {
        gccTried = true;
        run.profile.mark('execution');
        const gccRun = violationByGccRun(r.program, { property: kind, dataModel: r.dataModel, errorFunction, timeoutMs: executionLimitMs(run.timeoutS * 1000) });
        run.profile.mark('replay');
        const goal = gccRun && violatedGoal(family!.first.sourceMap, violationKinds(kind), gccRun);
        if (goal) shown = { goal, gccRun: gccRun! };
      };
      const slice = useGcc ? Math.min(share, FIRST_SLICE_MS) : share;
      let stopAt = run.deadline() - slice;
      const deadline = () => {
        // One reading of the clock: two could fall either side of the slice's end.
        const left = run.deadline() - stopAt;
        if (left > 0 || !useGcc || gccTried) return left;
        // The slice is over: gcc's run, then the rest of the half (not the time gcc took).
        tryGcc();
        if (shown) return 0;
        stopAt = run.deadline() - (share - slice);
        return share - slice;
      };
      const withCalls = () => callingPrograms(run.c, { passes: run.row.passes, dataModel: r.dataModel });
      const outcome = executeLowered({ first: family!.first, lowerAt: (depth) => family!.loweringAt(depth, 'execution'), roles: goalRolesOf(kind), deadline, fileName: r.programAsWritten, log: run.log, withCalls });
      run.profile.mark('execution');
      // Behaviour C leaves undefined on the one path: never TRUE. gcc's run
      // may still show a violation after it; for memory safety BMC may.
      if (useGcc && !gccTried && (outcome.kind === 'undefined' || tooLong(outcome))) tryGcc();
      // Too long for the model to run: too long to retrace as well.
      if (shown) return run.refuted(shown.goal, violationOf(kind, shown.goal.kind)!.name, [], shown.gccRun, 'execution', 'the only execution of a program without nondeterminism');
      if (outcome.kind === 'holds') return run.proved(`no violation: ${outcome.reason}`, 'execution', null);
      if (outcome.kind === 'runs-forever') {
        // A block lost before a run that never ends is a violation no goal sees (as for k-induction, valid-memtrack).
        if (run.row.induction === 'without-heap' && family!.first.allocates) return undefined;
        return run.proved(`no violation: ${outcome.reason}`, 'execution', null);
      }
      if (outcome.kind === 'undefined') return byGcc ? run.unknown(outcome.reason) : undefined;
      if (outcome.kind !== 'violated') return undefined;
      const { goal } = outcome;
      const violated = violationOf(kind, goal.kind)!;
      const replay = replayCounterexample(r.program, [], { symptom: violated.replay, dataModel: r.dataModel, errorFunction });
      run.profile.mark('replay');
      // Without nondet values the witness is its target alone. The trace
      // retraces the run with the (slower) interpreter: not a run it cannot finish in its time.
      let trace: TraceStep[] | undefined;
      if (outcome.steps <= TRACEABLE_STEPS) trace = counterexampleTrace(family!.first.imp, [], family!.first.sourceMap, goal, traceOutOfTime(run));
      else run.log(`trace: none; the run is ${outcome.steps} steps long (the witness and the replay show the violation)`);
      run.profile.mark('trace');
      if (replay.status === 'confirmed') return run.refuted(goal, violated.name, [], replay, 'execution', 'the only execution of a program without nondeterminism', undefined, trace);
      return run.unknown(`the only execution violates the property at ${formatLocation({ ...goal.loc, file: r.programAsWritten })} (${goal.description}), but the replay does not show it: ${replay.reason}`);
    },
  },
  /**
   * Recursion: bounded recursion is decided by BMC at once (a tenth of the
   * budget, at most 1 s), then recursion summaries get a quarter of what is
   * left; the bmc step goes on where only its time share stopped it.
   * A validation (`proofFirst`) needs the proof: summaries at once, with 60 %.
   */
  summaries: {
    lowered: true,
    applies: (run) => run.family!.recursive,
    async run(run) {
      const result = await firstBmc(run, 1000, 1 / 10);
      if (result && result.verdict !== 'unknown') return bmcVerdict(run, result);
      const stopAt = run.deadline() * (run.options.proofFirst ? 0.4 : 0.75);
      const kind = run.r.property.kind;
      const s = await proveBySummaries(run.c, { passes: run.row.passes, errorKinds: violationKinds(kind), dataModel: run.r.dataModel, left: () => run.deadline() - stopAt, solver: run.options.solver, log: run.log });
      run.profile.mark('summaries');
      run.log(`summaries: ${s.reason}`);
      if (s.proof) return run.proved(s.proof.reason, 'summaries', null);
      return !result || result.reason.startsWith('time limit reached') ? undefined : bmcVerdict(run, result);
    },
  },
  /**
   * Float programs with nondet values: runs on sampled values (the
   * program's constants, their neighbours, values between them) for at most
   * half a second, where the solvers' float queries are slow; a run that
   * violates a goal is replayed like any counterexample.
   */
  sampling: {
    lowered: true,
    applies: (run) => run.family!.first.sourceMap.nondets.some((n) => n.isFloat),
    run: async (run) => runsOnSampledValues(run, 'sampling', Math.min(500, run.deadline() / 10)),
  },
  /**
   * Programs with loops and integer nondets only: runs on sampled values (the
   * program's constants, their neighbours, the ends of each type's range,
   * random values) within LONG_RUNS' limits, before BMC: a violation after
   * more iterations than BMC unrolls within the budget (a counter up to an
   * input at INT_MAX) shows in one run. Cheap where it finds nothing (the
   * rows that BMC decides later pay it). Evidence only, replayed like any
   * counterexample.
   */
  'long-runs': {
    lowered: true,
    applies: (run) => {
      // A program with float nondets had the sampling step already: the same search (same seed), with more time.
      const { nondets } = run.family!.first.sourceMap;
      return nondets.length > 0 && !nondets.some((n) => n.isFloat) && run.family!.first.imp.procedures.some((p) => loopsOf(p.body ?? []).length > 0);
    },
    run: async (run) => runsOnSampledValues(run, 'long-runs', Math.min(LONG_RUNS.ms, run.deadline() / 40), { maxRuns: LONG_RUNS.runs, maxSteps: LONG_RUNS.steps }),
  },
  /**
   * Loop-free float programs: interval evaluation over the inputs' values,
   * halving the widest input's range where a goal is not decided (at most a
   * quarter of the budget, 3 s): TRUE when every goal holds on every box.
   */
  intervals: {
    lowered: true,
    applies: (run) => {
      const first = run.family!.first;
      return first.sourceMap.nondets.some((n) => n.isFloat) && !run.family!.recursive && first.sourceMap.loops.length === 0;
    },
    async run(run) {
      const stop = run.deadline() - Math.min(3000, run.deadline() / 4);
      const p = proveByIntervals(run.family!.first.imp, { deadline: () => run.deadline() - stop, roles: goalRolesOf(run.r.property.kind) });
      run.profile.mark('intervals');
      run.log(`intervals: ${p.reason}`);
      if (!p.proved) return undefined;
      const vacuous = await vacuity(run);
      return vacuous ? run.unknown(vacuous) : run.proved(`no violation: ${p.reason}`, 'intervals', null);
    },
  },
  /**
   * Loops: BMC first for a sixth of the budget (at most 1.5 s), which finds
   * the quick violations and complete unrollings; then loop invariants from
   * Horn clauses get up to 20 % of what is left (Spacer answers fast or not
   * at all here, and a longer attempt cost k-induction its proofs), and the
   * check of a solution on the program up to half of it (bit-blasted goals
   * take seconds where Spacer took milliseconds); not for programs with
   * arrays that the cells step abstracts. The bmc step goes on where
   * only its time share stopped it. With `proofFirst`, no BMC here.
   */
  horn: {
    lowered: true,
    applies: (run) => {
      const first = run.family!.first;
      const main = first.imp.procedures.find((p) => p.name === 'main');
      // As k-induction: with heap blocks under memtrack, only a complete unrolling proves.
      return !run.family!.recursive && !(run.row.induction === 'without-heap' && first.allocates) && loopsOf(main?.body ?? []).length > 0;
    },
    async run(run) {
      const undecided = await firstBmc(run, 1500, 1 / 6);
      if (undecided && undecided.verdict !== 'unknown') return bmcVerdict(run, undecided);
      // BMC's UNKNOWN for another reason than its time share is the step's answer when Horn clauses prove nothing.
      const afterBmc = () => (undecided && !undecided.reason.startsWith('time limit reached') ? bmcVerdict(run, undecided) : undefined);
      // Spacer finds no invariant over arrays in its time here: the cells step's abstraction of them gets it.
      if (STEPS.cells.applies(run)) return afterBmc();
      const stopAt = run.deadline() * 0.8;
      const recheckStopAt = run.deadline() * 0.5;
      const first = run.family!.first;
      const h = await proveByHorn(first.imp, {
        left: () => run.deadline() - stopAt,
        recheckLeft: () => run.deadline() - recheckStopAt,
        wallMs: (ms) => (run.solverTimeoutMs() * ms) / Math.max(1, run.deadline()),
        roles: goalRolesOf(run.r.property.kind),
        views: new Map(first.sourceMap.variables.map((v) => [v.imp, v.signed ? 's' : 'u'] as const)),
        solver: run.options.solver,
        candidates: loopCandidatesOf(run, 'horn'),
        log: run.log,
      });
      run.profile.mark('horn');
      run.log(`horn: ${h.reason}`);
      if (h.verdict === 'true') {
        const vacuous = await vacuity(run);
        return vacuous ? run.unknown(vacuous) : run.proved(`no violation: ${h.reason}`, 'horn', { lowered: first, invariants: h.invariants });
      }
      return afterBmc();
    },
  },
  /**
   * Loops that step variables by constants: BMC on the program that may
   * jump over m iterations of such a loop at once (engines/acceleration.ts)
   * up to bound 2, for a tenth of the budget, at most 1 s: a violation after 2^31
   * iterations shows at bound 1. Only a replayed counterexample counts (the
   * replay runs every iteration); no proof is taken from this step. After
   * the Horn step: its short BMC run finds the shallow violations first,
   * whose runs are short (a jump may pick a run of 2^32 iterations for
   * one that two would show).
   */
  acceleration: {
    lowered: true,
    applies: (run) => !run.options.proofFirst && !run.family!.recursive && acceleratedOf(run) !== undefined,
    async run(run) {
      const accelerated = acceleratedOf(run)!;
      const stopAt = run.deadline() - Math.min(1000, run.deadline() / 10);
      const left = () => run.deadline() - stopAt;
      const result = await bmc(() => accelerated.program, {
        induction: false,
        candidates: false,
        // The jumps make deep violations shallow; deeper bounds are the bmc step's.
        maxBound: ACCELERATED_BOUND,
        deadline: left,
        solverTimeoutMs: () => (run.solverTimeoutMs() * Math.max(1, left())) / Math.max(1, run.deadline()),
        roles: goalRolesOf(run.r.property.kind),
        log: run.log,
        solver: run.options.solver,
      });
      run.profile.mark('acceleration');
      run.log(`acceleration (${accelerated.loops} loops): ${result.verdict}${result.verdict === 'unknown' ? `: ${result.reason}` : ''}`);
      if (result.verdict !== 'false') return undefined;
      const first = run.family!.first;
      const cex = result.counterexample;
      // The havocs of the original program: a nondet call in the iterations jumped over repeats one value.
      const jumps = jumpsOf(cex.havocs);
      const found = confirmedViolation(run, { ...cex, havocs: jumps.others }, first.sourceMap);
      if (found.kind !== 'confirmed') return undefined;
      // The trace retraces the original program (every iteration); not a run too long to retrace.
      let trace: TraceStep[] | undefined;
      if (jumps.iterations <= TRACEABLE_STEPS) trace = traceOf(run, first.imp, { ...cex, havocs: expandRepeats(jumps.others) }, first.sourceMap, found.goal);
      else run.log(`trace: none; the jumps did ${jumps.iterations} iterations (the witness and the replay show the violation)`);
      const jumped = jumps.iterations > 0n;
      const how = `BMC bound ${result.bound}${jumped ? ` with ${jumps.iterations} loop iterations jumped over` : ''}`;
      return run.refuted(found.goal, found.violated, found.steps, found.replay, jumped ? 'acceleration' : 'bmc', how, result.bound, trace);
    },
  },
  /**
   * Arrays: k-induction on the array-cell abstraction (engines/array-cells.ts),
   * where a fact about every cell is one about the cell at a symbolic index,
   * with 60 % of what is left (85 % in a validation; the Horn step
   * leaves Horn clauses out for such programs). Only a proof counts: the abstraction reads arbitrary
   * values, so a failure there shows nothing.
   */
  cells: {
    lowered: true,
    applies: (run) => {
      const family = run.family!;
      return !family.recursive && !(run.row.induction === 'without-heap' && family.first.allocates) && 'program' in cellAbstractionOf(run);
    },
    async run(run) {
      const cells = cellAbstractionOf(run) as CellAbstraction;
      // A validation needs the proof, which BMC after this step rarely gives over arrays.
      const stopAt = run.deadline() * (run.options.proofFirst ? 0.15 : 0.4);
      const left = () => run.deadline() - stopAt;
      const analysis = analysisOf(run);
      const isGhost = (name: string) => cells.ghosts.has(name);
      const result = await bmc(() => cells.program, {
        inductionOnly: true,
        deadline: left,
        solverTimeoutMs: () => (run.solverTimeoutMs() * Math.max(1, left())) / Math.max(1, run.deadline()),
        roles: goalRolesOf(run.r.property.kind),
        log: run.log,
        solver: run.options.solver,
        // The templates too go through the runs' filter (most of the rounds of Houdini were theirs).
        candidates: false,
        loopCandidates: candidateSources(
          profiled(run.profile, 'cells', analysis),
          profiled(run.profile, 'cells', filteredByRuns(candidateSources(templateCandidates(cells.ghosts), cells.candidates), { values: (name) => (cells.indices.has(name) ? 'index' : isGhost(name) ? 'any' : undefined) })),
        ),
      });
      run.profile.mark('cells');
      run.log(`cells: ${result.verdict}${result.verdict === 'unknown' ? `: ${result.reason}` : ''}`);
      if (result.verdict !== 'true') return undefined;
      const vacuous = await vacuity(run);
      if (vacuous) return run.unknown(vacuous);
      // The proof's invariants over the program's own variables hold in it (the abstraction over-approximates them).
      const first = run.family!.first;
      const invariants = result.invariants.map((i) => ({ ...i, exprs: i.exprs.filter((e) => ![...freeVars(e)].some(isGhost)) }));
      return run.proved(`no violation: proved by ${result.bound}-induction on one cell of each array at a symbolic index`, 'k-induction', { lowered: { ...first, imp: cells.program }, invariants }, result.bound);
    },
  },
  /** BMC with k-induction until the budget is spent. */
  bmc: {
    lowered: true,
    applies: () => true,
    async run(run) {
      // The bounds an earlier step's BMC showed free of violations are not checked again.
      const family = run.family!;
      const result = await runBmc(run, () => run.deadline(), family.established > 0 ? family.nextBound(family.established) : 1);
      run.profile.mark('bmc');
      return bmcVerdict(run, result);
    },
  },
  /** Termination: ranking functions, recursion measures, lassos and a complete unrolling (termination.ts). */
  termination: {
    lowered: false,
    applies: (run) => run.r.property.entryFunction === 'main',
    async run(run) {
      const o = await verifyTermination({ ...run.r, c: run.c, deadline: () => run.deadline(), log: run.log, options: run.options });
      run.profile.mark('termination');
      return run.done(o.verdict, o.reason, o);
    },
  },
};

/**
 * The short BMC run before an unbounded engine: a `part` of the budget, at
 * most `capMs`; none when the run looks for a proof (`proofFirst`).
 */
async function firstBmc(run: VerificationRun, capMs: number, part: number): Promise<BmcResult | undefined> {
  if (run.options.proofFirst) return undefined;
  const firstEnd = run.deadline() - Math.min(capMs, run.deadline() * part);
  const result = await runBmc(run, () => run.deadline() - firstEnd, 1, true);
  run.profile.mark('bmc');
  return result;
}

/** BMC (with k-induction) until `left` ms are spent; its solver calls get the share of their usual limit that `left` is of the budget. */
function runBmc(run: VerificationRun, left: () => number, startBound = 1, inductionWithinAllowance = false): Promise<BmcResult> {
  const family = run.family!;
  return bmc((bound) => family.programAt(bound), {
    startBound,
    onNoViolation: (bound) => family.noViolationUpTo(bound),
    nextBound: (bound) => family.nextBound(bound),
    // A block lost in a run that never ends is a violation no goal sees
    // (valid-memtrack): with heap blocks, TRUE only when every run ends within the bound.
    induction: !(run.row.induction === 'without-heap' && family.first.allocates),
    inductionWithinAllowance,
    deadline: left,
    solverTimeoutMs: () => (run.solverTimeoutMs() * Math.max(1, left())) / Math.max(1, run.deadline()),
    // An assert made for no goal is a claim (replay guards FALSE).
    roles: goalRolesOf(run.r.property.kind),
    log: run.log,
    solver: run.options.solver,
    // The abstract interpreter's loop-head facts and the program's own asserted conditions as candidate invariants.
    loopCandidates: loopCandidatesOf(run, 'bmc'),
  });
}

/** The largest BMC bound of the acceleration step. */
const ACCELERATED_BOUND = 2;

/** The run's program with its loops accelerated, or undefined where no loop qualifies. */
function acceleratedOf(run: VerificationRun): ReturnType<typeof accelerateLoops> {
  return accelerateLoops(run.family!.first.imp);
}

/** One analysis per run (its facts are cached per program), shared by the steps that use candidates. */
const analyses = new WeakMap<VerificationRun, LoopCandidateSource>();
/** The array-cell abstraction of a run's program, or why there is none. */
const cellAbstractions = new WeakMap<VerificationRun, CellAbstraction | { readonly reason: string }>();

function cellAbstractionOf(run: VerificationRun): CellAbstraction | { readonly reason: string } {
  let a = cellAbstractions.get(run);
  if (!a) cellAbstractions.set(run, (a = abstractArrayCells(run.family!.first.imp)));
  return a;
}

/** The run's analysis; 1.5 s of 10: three nested loops take a second in a fresh process (the analysis gives nothing when it runs out). */
function analysisOf(run: VerificationRun): LoopCandidateSource {
  let analysis = analyses.get(run);
  if (!analysis) analyses.set(run, (analysis = analysisCandidates({ budgetMs: Math.max(200, Math.min(3000, run.timeoutS * 150)) })));
  return analysis;
}
/** The same for the polynomial equalities guessed from runs. */
const polynomialSources = new WeakMap<VerificationRun, LoopCandidateSource>();
/** The bounds of accumulators: one source for every run (its cache is per program). */
const accumulators = accumulatorCandidates();

/**
 * The abstract interpreter's loop-head facts and the program's own asserted
 * conditions as candidate invariants (for k-induction also the bounds of
 * accumulators and the polynomial equalities guessed from runs: the Horn
 * re-check, which has little time, does without them); analysis time is
 * charged as such, the rest to `during`.
 */
function loopCandidatesOf(run: VerificationRun, during: 'bmc' | 'horn'): LoopCandidateSource {
  const analysis = analysisOf(run);
  if (during === 'horn') return candidateSources(profiled(run.profile, during, analysis), assertionCandidates());
  let polynomials = polynomialSources.get(run);
  if (!polynomials) polynomialSources.set(run, (polynomials = polynomialCandidates()));
  return candidateSources(profiled(run.profile, during, analysis), assertionCandidates(), accumulators, profiled(run.profile, during, polynomials));
}

/** The verdict of BMC's result: TRUE with its witness, FALSE once gcc replays the counterexample, else UNKNOWN with the reason. */
async function bmcVerdict(run: VerificationRun, result: BmcResult): Promise<VerifyResult> {
  const { r, log } = run;
  const family = run.family!;
  const kind = r.property.kind;
  log(`bmc: ${result.verdict} at bound ${result.bound}`);
  if (result.verdict === 'unknown') {
    // One wording for every time-out, naming the bound established.
    const timedOut = result.reason.startsWith('time limit reached');
    const reason = (timedOut ? timeLimitReason(family.established) : result.reason) + inexactPlaces(family.sourceMap);
    // On a time-out, the bound is the one the reason names (as after the hard limit).
    return run.unknown(reason, { bound: timedOut ? family.established : result.bound });
  }
  if (result.verdict === 'true') {
    const vacuous = await vacuity(run);
    if (vacuous) return run.unknown(vacuous, { bound: result.bound });
    const how =
      result.method === 'k-induction'
        ? `no violation: proved by ${result.bound}-induction`
        : `no violation, and no execution exceeds the unrolling bound ${result.bound} (BMC, complete unrolling)`;
    const lowered = family.lowerings.get(result.program);
    return run.proved(how, result.method === 'k-induction' ? 'k-induction' : 'bmc', lowered ? { lowered, invariants: result.invariants } : undefined, result.bound);
  }
  const cex = result.counterexample;
  // The goals and nondets of the lowering BMC checked at that bound.
  const map = family.lowerings.get(result.program)?.sourceMap ?? family.sourceMap;
  const found = confirmedViolation(run, cex, map);
  if (found.kind === 'not-a-violation') {
    return run.unknown(`BMC found a failing assertion at ${formatLocation(cex.goal.loc)} that is not a ${violationKinds(kind).join('/')} goal`, { bound: result.bound });
  }
  if (found.kind === 'not-confirmed') {
    return run.unknown(`counterexample at bound ${result.bound} not confirmed: ${found.replay.reason}`, { bound: result.bound, replay: found.replay });
  }
  return run.refuted(found.goal, found.violated, found.steps, found.replay, 'bmc', `BMC bound ${result.bound}`, result.bound, traceOf(run, result.program, cex, map, found.goal));
}

/** The counterexample's trace (trace.ts), or undefined (logged) when the lowered program's run does not retrace it. */
function traceOf(run: VerificationRun, program: ImpProgram, cex: Counterexample, map: SourceMap, goal: GoalInfo): TraceStep[] | undefined {
  const trace = counterexampleTrace(program, cex.havocs, map, goal, traceOutOfTime(run));
  run.profile.mark('trace');
  if (!trace) run.log('trace: the run of the lowered program on the counterexample does not reach the violation in the time it may take');
  return trace;
}

/**
 * The trace is a nicety beside the verdict: it may use half of what is left
 * of the engines' time, and at most TRACE_MS (about a million steps of the
 * interpreter; a run longer than that is shown by its witness and replay).
 */
function traceOutOfTime(run: VerificationRun): () => boolean {
  const stopAt = run.deadline() - Math.min(run.deadline() / 2, TRACE_MS);
  return () => run.deadline() < stopAt;
}
const TRACE_MS = 1000;
/** The longest one execution retraced for its trace (the interpreter takes about TRACE_MS for a million steps). */
const TRACEABLE_STEPS = 1_000_000;

type Confirmation =
  | { readonly kind: 'not-a-violation' }
  | { readonly kind: 'not-confirmed'; readonly replay: ReplayResult }
  | { readonly kind: 'confirmed'; readonly goal: GoalInfo; readonly violated: string; readonly steps: NondetStep[]; readonly replay: ReplayResult };

/** A counterexample's goal and its replay by gcc, for the violated (sub-)property (for memory safety the goal's sub-property). */
function confirmedViolation(run: VerificationRun, cex: Counterexample, map: SourceMap): Confirmation {
  const { r, log } = run;
  const goal = goalOf(map, cex.goal.goal);
  const violated = goal && violationOf(r.property.kind, goal.kind);
  if (!goal || !violated) return { kind: 'not-a-violation' };
  const steps = nondetSteps(cex, map);
  const replay = replayCounterexample(r.program, replayValues(steps), {
    symptom: violated.replay,
    dataModel: r.dataModel,
    errorFunction: r.property.errorFunction ?? 'reach_error',
  });
  run.profile.mark('replay');
  log(`replay: ${replay.status}: ${replay.reason}`);
  if (replay.status !== 'confirmed') return { kind: 'not-confirmed', replay };
  return { kind: 'confirmed', goal, violated: violated.name, steps, replay };
}

/** Runs on sampled nondet values for `ms` of the budget (engines/sample.ts); a violation they show is replayed. */
function runsOnSampledValues(run: VerificationRun, step: 'sampling' | 'long-runs', ms: number, limits: { maxRuns?: number; maxSteps?: number } = {}): VerifyResult | undefined {
  const family = run.family!;
  const stopAt = run.deadline() - ms;
  const s = sampleViolation(family.first.imp, { deadline: () => run.deadline() - stopAt, roles: goalRolesOf(run.r.property.kind), ...limits });
  run.profile.mark(step);
  run.log(`${step}: ${s.runs} runs, ${s.counterexample ? 'a violation' : 'no violation'}`);
  if (!s.counterexample) return undefined;
  const found = confirmedViolation(run, s.counterexample, family.first.sourceMap);
  if (found.kind !== 'confirmed') return undefined;
  return run.refuted(found.goal, found.violated, found.steps, found.replay, step, `a run on sampled values (${s.runs} runs)`, undefined, traceOf(run, family.first.imp, s.counterexample, family.first.sourceMap, found.goal));
}

/**
 * The vacuity guard, before a TRUE of an engine that proves over the
 * lowered program: why the model admits no execution at all (every path
 * cut before a goal or the end of main), else undefined. A quarter of what is left.
 */
async function vacuity(run: VerificationRun): Promise<string | undefined> {
  const family = run.family!;
  const vacuityEnd = run.deadline() * 0.75;
  const vacuous = await vacuityOf((bound) => family.programAt(bound), {
    bound: 1,
    endsRun: endsRunOfAll(() => family.lowerings.values()),
    deadline: () => run.deadline() - vacuityEnd,
    solver: run.options.solver,
    log: run.log,
    nextBound: (bound) => family.nextBound(bound),
  });
  run.profile.mark('vacuity');
  return vacuous;
}

/** The candidate source, its CPU time charged to `analysis` (what came before to `during`). */
function profiled(profile: PhaseProfile, during: string, source: LoopCandidateSource): LoopCandidateSource {
  return (loop, program) => {
    profile.mark(during);
    try {
      return source(loop, program);
    } finally {
      profile.mark('analysis');
    }
  };
}

/**
 * The goal a run of a deterministic program violated: for an overflow the
 * only operation on the line the sanitizer names (its columns are not
 * precise enough to choose among several); for an error call the only call
 * site. Otherwise the run does not tell which (BMC may find it).
 */
function violatedGoal(map: SourceMap, wanted: readonly GoalKind[], replay: ReplayResult): GoalInfo | undefined {
  const at = replay.overflowAt;
  const goals = map.goals.filter((g) => wanted.includes(g.kind) && (!at || (g.loc.line <= at.line && at.line <= (g.loc.end?.line ?? g.loc.line))));
  return goals.length === 1 ? goals[0] : undefined;
}

/** The places where the model is not exact or C leaves the behaviour undefined (a TRUE is impossible once one is reached), for an UNKNOWN's reason. */
function inexactPlaces(map: SourceMap): string {
  const seen = new Map<string, { line: number; column: number }>();
  for (const g of map.goals) if (g.kind === 'memory-unknown' && !seen.has(g.description)) seen.set(g.description, g.targetLoc);
  if (seen.size === 0) return '';
  const list = [...seen].slice(0, 3).map(([d, l]) => `${d} at ${l.line}:${l.column}`);
  return `; places where the model is not exact: ${list.join('; ')}${seen.size > 3 ? ` (and ${seen.size - 3} more)` : ''}`;
}
