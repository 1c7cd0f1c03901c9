// `verify`: a task (or a program and a property file) in, a verdict out.
//
// task/ → c/ (parse) → lower/ (C → IMP) → engines/ (BMC) → replay/ (gcc) →
// witness/ (violation witness). FALSE is answered only when gcc replays the
// counterexample and sees the violation; TRUE only when BMC proves the
// unrolling complete; everything else is UNKNOWN with the reason.

import { resolve } from 'node:path';
import { readFileSync, writeFileSync } from 'node:fs';
import { TarsierError, usageError } from '../common/errors.js';
import { describeIoError } from '../common/files.js';
import type { SourceLocation } from '../common/location.js';
import { formatLocation } from '../common/location.js';
import { assertionCandidates, bmc, candidateSources, EncodeError, type AssertRole, type LoopCandidateSource, type LoopInvariants } from '../engines/index.js';
import { programSize, type ImpProgram } from '../ivl/ast.js';
import { goalAt, type GoalInfo, type GoalKind, type SourceMap } from '../lower/source-map.js';
import type { LowerProperty } from '../lower/index.js';
import { replayCounterexample, type MemoryProperty, type NondetValue, type ReplayResult } from '../replay/index.js';
import type { DataModel, Property, PropertyKind, Verdict } from '../task/index.js';
import { processTreeCpuMs } from '../smt/index.js';
import { makeMetadata, sha256OfFile, writeWitness } from '../witness/index.js';
import { lowerC, parseC, lintAgainstProgram } from './frontend.js';
import { buildViolationWitness, nondetSteps, replayValues, violationGraphml } from './witness.js';
import { verifyTermination, type RankingFunctionReport } from './termination.js';
import { buildCorrectnessWitness } from './correctness-witness.js';
import { determinismOf, executeDeterministic, executionLimitMs } from './execution.js';
import { proveBySummaries } from './summaries.js';
import { analysisCandidates } from '../analysis/index.js';
import type { LoweredProgram } from '../lower/index.js';

export { TOOL_NAME } from '../common/tool.js';
export { resolveInput, type Resolved } from '../task/resolve.js';
import { resolveInput } from '../task/resolve.js';
import { TOOL_NAME } from '../common/tool.js';

export interface VerifyOptions {
  /** With a task file: the property to check (default: unreach-call or no-overflow if the task has it, else its first). */
  readonly property?: string;
  /** With a bare program: the property file. */
  readonly prp?: string;
  /** With a bare program: the property itself, already read (instead of `prp`). */
  readonly propertyDetails?: Property;
  /** With a bare program: the data model (default ILP32). Overrides the task's. */
  readonly dataModel?: DataModel;
  /** CPU-time budget in seconds (default 900). */
  readonly timeoutS?: number;
  /** Where to write the violation witness (default `witness.yml`); `null`: do not write. */
  readonly witnessPath?: string | null;
  /** Pins the witness's creation time (tests, reproducible output). */
  readonly creationTime?: string;
  readonly toolVersion?: string;
  readonly log?: (message: string) => void;
  /** Solver back end: `auto` (default: z3 on PATH, else the built-in one), `z3-wasm`, `z3`, `cvc5`. */
  readonly solver?: string;
  /** Called with the largest bound up to which no violation exists, each time it grows. */
  readonly onBound?: (bound: number) => void;
}

export interface VerifyResult {
  readonly verdict: Verdict;
  /** One line: why this verdict. */
  readonly reason: string;
  readonly property: PropertyKind;
  readonly program: string;
  readonly dataModel: DataModel;
  /** The witness written for a FALSE answer. */
  readonly witnessPath?: string;
  readonly bound?: number;
  readonly replay?: ReplayResult;
  /** For FALSE: the nondet values of the replayed counterexample, in call order. */
  readonly counterexample?: readonly NondetValue[];
  /** Termination TRUE by ranking: the ranking function proved for each loop. */
  readonly rankingFunctions?: readonly RankingFunctionReport[];
  /** CPU seconds used during the call by this process and the processes it started (solvers, gcc). */
  readonly cpuTimeS: number;
  readonly wallTimeS: number;
  /** Why the witness of a FALSE answer could not be written (the verdict stands). */
  readonly witnessError?: string;
}

export { timeLimitReason } from './time-limit.js';
import { timeLimitReason } from './time-limit.js';

const MAX_PROGRAM_SIZE = 400_000;

/** Properties the lowering instruments. */
const LOWERED: readonly LowerProperty[] = ['unreach-call', 'no-overflow', 'valid-memsafety', 'valid-memcleanup'];

/** The lowering's goals that violate a property. */
function goalKindsOf(kind: PropertyKind): readonly GoalKind[] {
  switch (kind) {
    case 'unreach-call':
      return ['reach_error'];
    case 'no-overflow':
      return ['overflow'];
    case 'valid-memsafety':
      return ['valid-deref', 'valid-free', 'valid-memtrack'];
    default:
      return kind === 'valid-memcleanup' ? ['valid-memcleanup'] : [];
  }
}

function cpuSeconds(startMs: number): number {
  return (processTreeCpuMs() - startMs) / 1000;
}

/** Verifies one property of one program. Throws TarsierError for bad input (missing file, unparsable program, usage). */
export async function verify(input: string, options: VerifyOptions = {}): Promise<VerifyResult> {
  const cpu0 = processTreeCpuMs();
  const wall0 = Date.now();
  const log = options.log ?? (() => {});
  const profile = new PhaseProfile(cpu0);
  try {
    return await verifyProfiled(input, options, profile, cpu0, wall0, log);
  } finally {
    log(profile.summary());
  }
}

/** The candidate source, its CPU time charged to `phase`. */
function profiled(profile: PhaseProfile, phase: string, source: LoopCandidateSource): LoopCandidateSource {
  return (loop, program) => {
    profile.mark('bmc');
    try {
      return source(loop, program);
    } finally {
      profile.mark(phase);
    }
  };
}

/**
 * CPU time (this process and its solver and gcc processes) per phase of a
 * run, for `--verbose`: `start-up` is what the process used before `verify`
 * began (loading modules, starting the worker thread).
 */
class PhaseProfile {
  private readonly phases = new Map<string, number>();
  private last: number;
  constructor(private readonly start: number) {
    this.last = start;
  }
  /** Charges the CPU time since the last mark to `phase`. */
  mark(phase: string): void {
    const now = processTreeCpuMs();
    this.phases.set(phase, (this.phases.get(phase) ?? 0) + now - this.last);
    this.last = now;
  }
  summary(): string {
    const parts = [`start-up ${Math.round(this.start)}`, ...[...this.phases].map(([k, v]) => `${k} ${Math.round(v)}`)];
    return `profile (CPU ms): ${parts.join(', ')}; total ${Math.round(this.last)}`;
  }
}

async function verifyProfiled(input: string, options: VerifyOptions, profile: PhaseProfile, cpu0: number, wall0: number, log: (m: string) => void): Promise<VerifyResult> {
  const timeoutS = options.timeoutS ?? 900;
  if (!(timeoutS > 0)) throw usageError('--timeout must be a positive number of seconds');
  const r = resolveInput(input, options);
  const kind = r.property.kind;
  // What the lowering says about its model of the program, appended to the reason once.
  let notes = '';
  const done = (verdict: Verdict, reason: string, extra: Partial<VerifyResult> = {}): VerifyResult => ({
    verdict: verdict.kind === 'unknown' ? { kind: 'unknown', reason: reason + notes } : verdict,
    reason: reason + notes,
    property: kind,
    program: r.program,
    dataModel: r.dataModel,
    cpuTimeS: cpuSeconds(cpu0),
    wallTimeS: (Date.now() - wall0) / 1000,
    ...extra,
  });
  const unknown = (reason: string, extra: Partial<VerifyResult> = {}) => done({ kind: 'unknown', reason }, reason, extra);

  // Parse first: an unparsable program is an input error whatever the property.
  let c: ReturnType<typeof parseC>;
  try {
    c = parseC(r.program, r.dataModel);
    profile.mark('parse');
  } catch (e) {
    // A construct the front end knows but does not support is no input error: UNKNOWN, saying what and where.
    if (e instanceof TarsierError && e.code === 'c-unsupported') {
      return unknown(`${e.message.replace(/^unsupported construct: /, 'unsupported: ')} at ${e.location && 'line' in e.location ? formatLocation({ ...e.location, file: r.programAsWritten }) : r.programAsWritten}`);
    }
    throw e;
  }
  if (kind === 'termination' && r.property.entryFunction === 'main') {
    const reserve = Math.min(15000, Math.max(500, timeoutS * 1000 * 0.1));
    const o = await verifyTermination({
      ...r,
      c,
      deadline: () => timeoutS * 1000 - reserve - cpuSeconds(cpu0) * 1000,
      log,
      options,
      toolName: TOOL_NAME,
    });
    profile.mark('termination');
    return done(o.verdict, o.reason, o);
  }
  if (!LOWERED.includes(kind as LowerProperty)) return unknown(`property ${kind} is not supported yet`);
  if (kind === 'unreach-call' && r.property.errorFunction !== 'reach_error' && r.property.errorFunction !== '__VERIFIER_error') {
    return unknown(`unreach-call of '${r.property.errorFunction}' is not supported (only reach_error and __VERIFIER_error)`);
  }
  if (r.property.entryFunction !== 'main') return unknown(`entry function '${r.property.entryFunction}' is not supported (only main)`);

  // Keep a reserve for replay and the witness; the rest goes to BMC.
  const reserveMs = Math.min(15000, Math.max(500, timeoutS * 1000 * 0.1));
  // The budget is CPU time (of this process and its solver processes).
  const deadline = () => timeoutS * 1000 - reserveMs - cpuSeconds(cpu0) * 1000;

  const lowerAt = (depth: number) => lowerC(c, { property: kind as LowerProperty, dataModel: r.dataModel, recursionDepth: depth });
  const first = lowerAt(1);
  profile.mark('lower');
  if (first.notes?.length) notes = ` (${first.notes.join('; ')})`;
  if (first.unsupported) {
    const u = first.unsupported;
    return unknown(`unsupported: ${u.construct} at ${formatLocation(u.loc)}`);
  }
  // Lowerings per bound share the source map's keys (C locations); keep the last one.
  let sourceMap: SourceMap = first.sourceMap;
  const programs = new Map<number, ImpProgram>([[1, first.imp]]);
  // BMC asks for the bounds in increasing order: asking for a larger one means the last one showed no violation.
  let checking = 0;
  let established = 0;
  // The lowering of each program, for the witness (its source map ties the engine's loops to C).
  const lowerings = new Map<ImpProgram, LoweredProgram>([[first.imp, first]]);
  const sizes = new Map<number, number>([[1, programSize(first.imp)]]);
  // Without a recursion cut at depth 1 there is no recursion: every depth gives the same program.
  const recursive = first.sourceMap.goals.some((g) => g.kind === 'recursion');
  const programAt = (bound: number): ImpProgram => {
    if (bound > checking) {
      established = checking;
      checking = bound;
      if (established > 0) options.onBound?.(established);
    }
    if (!recursive) return first.imp;
    let p = programs.get(bound);
    if (!p) {
      // Recursion inlined deeper grows the program, maybe exponentially:
      // extrapolate from the last two depths and stop before it explodes.
      const known = [...sizes.keys()].sort((a, b) => a - b);
      const last = sizes.get(known[known.length - 1]!)!;
      const prev = known.length > 1 ? sizes.get(known[known.length - 2]!)! : last;
      if (last * Math.max(1, last / Math.max(1, prev)) > MAX_PROGRAM_SIZE) {
        throw new EncodeError(`inlining recursion deeper than ${known[known.length - 1]} makes the program too large`);
      }
      profile.mark('bmc');
      const l = lowerAt(bound);
      profile.mark('lower');
      if (l.unsupported) throw new EncodeError(`unsupported at recursion depth ${bound}: ${l.unsupported.construct}`);
      p = l.imp;
      sizes.set(bound, programSize(p));
      // The same size at a greater depth: the lowering's budget of inlined
      // bodies is spent, deeper depths change nothing, and without loops no
      // greater bound can either.
      if (sizes.get(bound) === last && first.sourceMap.loops.length === 0) {
        throw new EncodeError(`recursion deeper than ${known[known.length - 1]} exceeds the lowering's budget of inlined function bodies`);
      }
      sourceMap = l.sourceMap;
      programs.set(bound, p);
      lowerings.set(p, l);
    }
    return p;
  };
  const metadataFor = (configuration: string) =>
    makeMetadata({
      formatVersion: '2.0',
      producer: { name: TOOL_NAME, version: options.toolVersion ?? '0.1.0', configuration },
      task: {
        inputFiles: [r.programAsWritten],
        inputFileHashes: { [r.programAsWritten]: sha256OfFile(r.program) },
        specification: r.property.specification,
        dataModel: r.dataModel,
        language: 'C',
      },
      creationTime: options.creationTime,
    });
  const wanted = goalKindsOf(kind);
  const assertRole = (loc: SourceLocation): AssertRole => {
    const g = goalAt(sourceMap, loc);
    if (!g) return 'error'; // not made for a goal: treat as a claim; replay guards FALSE
    if (g.kind === 'recursion' || g.kind === 'memory-unknown') return 'bound';
    // A goal of the other property: the program stops there (reach_error aborts), it is no violation.
    return wanted.includes(g.kind) ? 'error' : 'assume';
  };
  // Z3 measures wall time: on a loaded machine give it the CPU time left
  // scaled by how much slower than CPU time the wall clock has run so far.
  const solverTimeoutMs = () => {
    const cpu = Math.max(0.05, cpuSeconds(cpu0));
    const ratio = Math.min(4, Math.max(1, (Date.now() - wall0) / 1000 / cpu));
    return Math.max(1, deadline()) * ratio;
  };
  // Recursion that branches makes the program grow exponentially with the
  // inlining depth: there the depth grows by one (each step doubles the
  // program, as doubling the bound doubles an unrolled loop).
  const nextBound = (bound: number): number => {
    const known = [...sizes.keys()].filter((b) => b < bound).sort((a, b) => a - b);
    const prev = known[known.length - 1];
    const now = sizes.get(bound);
    if (!recursive || prev === undefined || now === undefined) return bound * 2;
    const growthPerStep = Math.pow(now / Math.max(1, sizes.get(prev)!), 1 / (bound - prev));
    return growthPerStep >= 1.4 ? bound + 1 : bound * 2;
  };
  /** FALSE(violated), replayed already, with its violation witness (the nondet values of `steps`, and the target `goal`). */
  const refuted = (goal: GoalInfo, violated: PropertyKind | MemoryProperty, steps: ReturnType<typeof nondetSteps>, replay: ReplayResult, configuration: string, how: string, bound?: number): VerifyResult => {
    let witnessPath: string | undefined;
    let witnessError: string | undefined;
    if (options.witnessPath !== null) {
      const metadata = metadataFor(configuration);
      const programText = readFileSync(r.program, 'utf8');
      // The full witness pins every nondet value; if it does not lint clean,
      // fall back to the target alone (valid, only less guiding).
      let text = '';
      let problems: string[] = [];
      // Leaks have no location of their own: the rules ask for GraphML there.
      const graphml = violated === 'valid-memtrack' || violated === 'valid-memcleanup';
      for (const withValues of [true, false]) {
        const entry = buildViolationWitness({ steps: withValues ? steps : [], goal, fileName: r.programAsWritten, metadata });
        const callees = (withValues ? steps : []).filter((x) => x.info.closeParenLoc).map((x) => x.info.callee);
        text = graphml ? violationGraphml(entry, r.programAsWritten, callees) : writeWitness({ format: 'yaml', entries: [entry] });
        problems = lintAgainstProgram(text, r.programAsWritten, programText, graphml ? 'witness.graphml' : 'witness.yml');
        if (problems.length > 0) log(`witness${withValues ? '' : ' (target only)'}: ${problems.join('; ')}`);
        if (problems.length === 0) break;
      }
      profile.mark('witness lint');
      if (problems.length > 0) {
        return unknown(`the violation witness does not lint clean: ${problems[0]}`, { bound, replay });
      }
      const path = resolve(options.witnessPath ?? (graphml ? 'witness.graphml' : 'witness.yml'));
      try {
        writeFileSync(path, text);
        witnessPath = path;
      } catch (e) {
        // The verdict stands without its witness; the caller reports the failure.
        witnessError = `cannot write the witness ${path}: ${describeIoError(e)}`;
      }
    }
    const where = formatLocation({ ...goal.loc, file: r.programAsWritten });
    return done(
      { kind: 'false', property: violated },
      `${goal.description} at ${where} (${how}, ${steps.length} nondet values; ${replay.reason})`,
      { bound, replay, witnessPath, counterexample: replayValues(steps), ...(witnessError ? { witnessError } : {}) },
    );
  };
  /** TRUE, with its correctness witness (the invariants the engine's proof used, if any). */
  // `engine`: the invariants the proof used; `null`: a proof that needs none (an execution), so none are looked for.
  const proved = async (how: string, configuration: string, engine: { lowered: LoweredProgram; invariants: readonly LoopInvariants[] } | undefined | null, bound?: number): Promise<VerifyResult> => {
    let witnessPath: string | undefined;
    let witnessError: string | undefined;
    let note = '';
    const witnessLeft = () => timeoutS * 1000 - 400 - cpuSeconds(cpu0) * 1000;
    if (options.witnessPath !== null) {
      const w = await buildCorrectnessWitness({
        program: c,
        // Without recursion every depth lowers to the same program: the first one serves.
        lowered: recursive ? lowerC(c, { property: kind as LowerProperty, dataModel: r.dataModel }) : first,
        fileName: r.programAsWritten,
        metadata: metadataFor(configuration),
        // What is left of the hard CPU limit (the verdict is lost if the witness overruns it).
        timeoutMs: Math.round(Math.max(100, Math.min(witnessLeft() / 4, 60_000))),
        analysisMs: Math.round(Math.max(100, Math.min(witnessLeft() / 4, 5000))),
        check: engine !== null && witnessLeft() > 400,
        engine: engine ?? undefined,
        log,
      });
      profile.mark('correctness witness');
      const text = writeWitness({ format: 'yaml', entries: [w.entry] });
      const problems = lintAgainstProgram(text, r.programAsWritten, readFileSync(r.program, 'utf8'));
      profile.mark('witness lint');
      if (problems.length > 0) {
        // A bug of the witness writer: the answer stands, the witness is not written.
        log(`correctness witness: ${problems.join('; ')}`);
        note = `; no witness: it does not lint clean: ${problems[0]}`;
      } else {
        const path = resolve(options.witnessPath ?? 'witness.yml');
        try {
          writeFileSync(path, text);
          witnessPath = path;
        } catch (e) {
          // The verdict stands without its witness; the caller reports the failure.
          witnessError = `cannot write the witness ${path}: ${describeIoError(e)}`;
        }
      }
    }
    return done({ kind: 'true' }, how + note, {
      bound,
      witnessPath,
      ...(witnessError ? { witnessError } : {}),
    });
  };
  // A deterministic program: its one execution decides, if it ends soon.
  const determinism = determinismOf(first);
  if ((kind === 'unreach-call' || kind === 'no-overflow') && determinism !== 'nondeterministic') {
    const run = executeDeterministic(r.program, { property: kind, dataModel: r.dataModel, errorFunction: r.property.errorFunction ?? 'reach_error', timeoutMs: executionLimitMs(timeoutS * 1000), determinism });
    profile.mark('execution');
    log(`execution: ${run.kind}: ${run.kind === 'violated' ? run.replay.reason : run.reason}`);
    if (run.kind === 'holds') return proved(`no violation: ${run.reason}`, 'execution', null);
    const goal = run.kind === 'violated' ? violatedGoal(first.sourceMap, wanted, run.replay) : undefined;
    // Without nondet values the witness is its target alone.
    if (run.kind === 'violated' && goal) return refuted(goal, kind, [], run.replay, 'execution', 'the only execution of a program without nondeterminism');
  }
  /** BMC (with k-induction) until `left` ms are spent; its solver calls get the share of their usual limit that `left` is of the budget. */
  const runBmc = (left: () => number) =>
    bmc(programAt, {
      nextBound,
      // A block lost in a run that never ends is a memtrack violation no goal
      // sees: with heap blocks, TRUE only when every run ends within the bound.
      induction: !(kind === 'valid-memsafety' && first.allocates),
      deadline: left,
      solverTimeoutMs: () => (solverTimeoutMs() * Math.max(1, left())) / Math.max(1, deadline()),
      assertRole,
      log,
      solver: options.solver,
      // The abstract interpreter's loop-head facts and the program's own asserted conditions as candidate invariants.
      loopCandidates: candidateSources(profiled(profile, 'analysis', analysisCandidates({ budgetMs: Math.max(200, Math.min(3000, timeoutS * 50)) })), assertionCandidates()),
    });
  let result: Awaited<ReturnType<typeof bmc>> | undefined;
  if (recursive && (kind === 'unreach-call' || kind === 'no-overflow')) {
    // Bounded recursion is decided by BMC at once: a tenth of the budget
    // (at most 1 s) for it, then recursion summaries (a quarter of what is
    // left), then BMC again with the rest if its time share stopped it.
    const firstEnd = deadline() - Math.min(1000, deadline() / 10);
    result = await runBmc(() => deadline() - firstEnd);
    profile.mark('bmc');
    if (result.verdict === 'unknown') {
      const stopAt = deadline() * 0.75;
      const s = await proveBySummaries(c, { property: kind, dataModel: r.dataModel, left: () => deadline() - stopAt, solver: options.solver, log });
      profile.mark('summaries');
      log(`summaries: ${s.reason}`);
      if (s.proof) return proved(s.proof.reason, 'summaries', null);
      // BMC goes on where only its time share ended it.
      if (result.reason.startsWith('time limit reached')) result = undefined;
    }
  }
  result ??= await runBmc(deadline);
  profile.mark('bmc');
  log(`bmc: ${result.verdict} at bound ${result.bound}`);
  if (result.verdict === 'unknown') {
    // One wording for every time-out, naming the bound established.
    const timedOut = result.reason.startsWith('time limit reached');
    const reason = (timedOut ? timeLimitReason(established) : result.reason) + inexactPlaces(sourceMap);
    // On a time-out, the bound is the one the reason names (as after the hard limit).
    return unknown(reason, { bound: timedOut ? established : result.bound });
  }
  if (result.verdict === 'true') {
    const how =
      result.method === 'k-induction'
        ? `no violation: proved by ${result.bound}-induction`
        : `no violation, and no execution exceeds the unrolling bound ${result.bound} (BMC, complete unrolling)`;
    const engine = lowerings.has(result.program) ? { lowered: lowerings.get(result.program)!, invariants: result.invariants } : undefined;
    return proved(how, result.method === 'k-induction' ? 'k-induction' : 'bmc', engine, result.bound);
  }

  const cex = result.counterexample;
  const goal = goalAt(sourceMap, cex.goal.loc);
  if (!goal || !wanted.includes(goal.kind)) {
    return unknown(`BMC found a failing assertion at ${formatLocation(cex.goal.loc)} that is not a ${wanted.join('/')} goal`, { bound: result.bound });
  }
  // The violated (sub-)property: for memory safety the goal's kind.
  const violated = kind === 'unreach-call' || kind === 'no-overflow' ? kind : (goal.kind as MemoryProperty);
  const steps = nondetSteps(cex, sourceMap);
  const counterexample = replayValues(steps);
  const replay = replayCounterexample(r.program, counterexample, {
    property: violated,
    dataModel: r.dataModel,
    errorFunction: r.property.errorFunction ?? 'reach_error',
  });
  profile.mark('replay');
  log(`replay: ${replay.status}: ${replay.reason}`);
  if (replay.status !== 'confirmed') {
    return unknown(`counterexample at bound ${result.bound} not confirmed: ${replay.reason}`, { bound: result.bound, replay });
  }

  return refuted(goal, violated, steps, replay, 'bmc', `BMC bound ${result.bound}`, result.bound);
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

/** The places where the memory model is not exact (a TRUE is impossible once one is reached), for an UNKNOWN's reason. */
function inexactPlaces(map: SourceMap): string {
  const seen = new Map<string, SourceLocation>();
  for (const g of map.goals) if (g.kind === 'memory-unknown' && !seen.has(g.description)) seen.set(g.description, g.targetLoc);
  if (seen.size === 0) return '';
  const list = [...seen].slice(0, 3).map(([d, l]) => `${d} at ${l.line}:${l.column}`);
  return `; places where the memory model is not exact: ${list.join('; ')}${seen.size > 3 ? ` (and ${seen.size - 3} more)` : ''}`;
}
