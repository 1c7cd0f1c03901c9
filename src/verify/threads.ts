// `verify` of a program that starts threads: the lowering's threaded IMP is
// interleaved (threads/interleave.ts) and decided by the engines; a FALSE is
// replayed by gcc under the counterexample's schedule (replay/threads.ts)
// and written as a GraphML 1.0 witness with a `threadId` on every edge.
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describeIoError } from '../common/files.js';
import { formatLocation } from '../common/location.js';
import { bmc, EncodeError } from '../engines/index.js';
import type { Counterexample } from '../engines/index.js';
import type { ImpProgram } from '../ivl/ast.js';
import { goalOf, type GoalInfo, type LoweredProgram } from '../lower/index.js';
import { goalRolesOf, violationKinds, violationOf, type PropertyRow } from '../properties/index.js';
import { replaySchedule, type ThreadReplayProperty } from '../replay/threads.js';
import type { ReplayResult } from '../replay/index.js';
import type { PropertyKind, Verdict } from '../task/index.js';
import { interleave, InterleaveError, type Interleaved } from '../threads/interleave.js';
import { replaySteps, scheduleOf, type Schedule } from '../threads/schedule.js';
import { exploreInterleavings } from '../threads/explore.js';
import type { Metadata } from '../witness/model.js';
import { threadWitness } from './thread-witness.js';
import { nondetSteps, replayValues, type NondetStep } from './witness.js';
import { lintAgainstProgram } from './frontend.js';
import type { CProgram } from '../c/index.js';
import type { VerifyOptions, VerifyResult } from './verify.js';

export interface ThreadedVerification {
  readonly kind: PropertyKind;
  readonly row: PropertyRow;
  readonly c: CProgram;
  readonly program: string;
  readonly programAsWritten: string;
  readonly dataModel: 'ILP32' | 'LP64';
  readonly errorFunction: string;
  readonly options: VerifyOptions;
  /** The lowering at thread slots per looped pthread_create `n`. */
  readonly lowerAt: (n: number) => LoweredProgram;
  readonly first: LoweredProgram;
  /** CPU milliseconds left for the engines. */
  readonly deadline: () => number;
  readonly solverTimeoutMs: () => number;
  readonly metadataFor: (configuration: string) => Metadata;
  readonly log: (m: string) => void;
  readonly mark: (phase: string) => void;
  readonly done: (verdict: Verdict, reason: string, extra?: Partial<VerifyResult>) => VerifyResult;
}

/** Verifies a program that starts threads (see the header). */
export async function verifyThreaded(v: ThreadedVerification): Promise<VerifyResult> {
  const unknown = (reason: string, extra: Partial<VerifyResult> = {}) => v.done({ kind: 'unknown', reason }, reason, extra);
  const replayProperty = threadReplayProperty(v.row, v.kind);
  const interleavings = new Map<number, { lowered: LoweredProgram; it: Interleaved }>();
  const at = (n: number): { lowered: LoweredProgram; it: Interleaved } => {
    let x = interleavings.get(n);
    if (!x) {
      const lowered = n === 1 ? v.first : v.lowerAt(n);
      if (lowered.unsupported) throw new EncodeError(`unsupported with ${n} threads per pthread_create in a loop: ${lowered.unsupported.construct}`);
      x = { lowered, it: interleave(lowered.imp) };
      interleavings.set(n, x);
    }
    return x;
  };
  let first: Interleaved;
  try {
    first = at(1).it;
  } catch (e) {
    if (e instanceof InterleaveError) return unknown(`unsupported: ${e.message}`);
    throw e;
  }
  v.mark('interleave');
  // Thread slots grow with the bound when a pthread_create in a loop may start more threads.
  const bounded = v.first.sourceMap.goals.some((g) => g.kind === 'thread-bound');
  const roles = goalRolesOf(v.kind);

  // Small programs whose data the schedule alone decides: every interleaving, explicitly.
  if (!bounded) {
    const e = exploreInterleavings(first.program, { roles, budgetMs: Math.max(100, Math.min(v.deadline() / 3, 20_000)) });
    v.mark('explore');
    v.log(`explore: ${e.verdict}: ${e.reason}`);
    if (e.verdict === 'true') return v.done({ kind: 'true' }, `no violation in any interleaving (${e.reason})`);
  }

  const programOf = new Map<ImpProgram, { lowered: LoweredProgram; it: Interleaved }>();
  const result = await bmc(
    (bound: number) => {
      const x = at(bounded ? Math.max(1, bound) : 1);
      programOf.set(x.it.program, x);
      return x.it.program;
    },
    { deadline: v.deadline, solverTimeoutMs: v.solverTimeoutMs, roles, log: v.log, solver: v.options.solver, induction: false },
  );
  v.mark('bmc');
  v.log(`bmc: ${result.verdict} at bound ${result.bound}`);
  if (result.verdict === 'unknown') return unknown(result.reason, { bound: result.bound });
  if (result.verdict === 'true') {
    return v.done({ kind: 'true' }, `no violation in any interleaving: no execution takes more than ${result.bound} steps (BMC, complete unrolling)`, { bound: result.bound });
  }
  const used = programOf.get(result.program) ?? at(1);
  const cex = result.counterexample;
  const goal = goalOf(used.lowered.sourceMap, cex.goal.goal);
  if (!goal || !violationKinds(v.kind).includes(goal.kind)) {
    return unknown(`BMC found a failing assertion at ${formatLocation(cex.goal.loc)} that is not a ${violationKinds(v.kind).join('/')} goal`, { bound: result.bound });
  }
  const violated = violationOf(v.kind, goal.kind)!;
  const schedule = scheduleOf(cex.havocs, used.it.operations);
  const steps = nondetSteps(cex, used.lowered.sourceMap);
  if (!replayProperty) return unknown(`${violated.name} violation found at ${where(v, goal)} in an interleaving, but a program with threads cannot be replayed for it`, { bound: result.bound });
  const replay = replaySchedule(v.program, replayValues(steps), {
    property: replayProperty,
    dataModel: v.dataModel,
    errorFunction: v.errorFunction,
    steps: replaySteps(schedule).map((s) => ({ thread: s.thread, operations: s.operations.length })),
    created: schedule.created,
    nondetFunctions: [...new Set(used.lowered.sourceMap.nondets.map((n) => n.callee))],
    atomicFunctions: v.c.functions.filter((f) => f.body && f.builtin?.kind === 'atomic_function').map((f) => f.name),
  });
  v.mark('replay');
  v.log(`replay: ${replay.status}: ${replay.reason}`);
  if (replay.status !== 'confirmed') return unknown(`counterexample at bound ${result.bound} not confirmed: ${replay.reason}`, { bound: result.bound, replay });
  return refuted(v, goal, violated.name, schedule, steps, used.lowered, replay, cex, result.bound);
}

/** The replay that confirms a violation of the property in a program with threads (memory safety has none: ASan and the schedule's instrumentation exclude each other). */
function threadReplayProperty(row: PropertyRow, kind: PropertyKind): ThreadReplayProperty | undefined {
  void row;
  return kind === 'unreach-call' || kind === 'no-data-race' || kind === 'no-overflow' ? kind : undefined;
}

function where(v: ThreadedVerification, goal: GoalInfo): string {
  return formatLocation({ ...goal.loc, file: v.programAsWritten });
}

/** FALSE, replayed, with its GraphML witness (lint-clean, or the answer is UNKNOWN). */
function refuted(
  v: ThreadedVerification,
  goal: GoalInfo,
  violated: string,
  schedule: Schedule,
  steps: readonly NondetStep[],
  lowered: LoweredProgram,
  replay: ReplayResult,
  cex: Counterexample,
  bound: number,
): VerifyResult {
  void cex;
  let witnessPath: string | undefined;
  let witnessError: string | undefined;
  if (v.options.witnessPath !== null) {
    const text = threadWitness({ schedule, steps, goal, lowered, fileName: v.programAsWritten, metadata: v.metadataFor('bmc'), dataModel: v.dataModel });
    const problems = lintAgainstProgram(text, v.programAsWritten, readFileSync(v.program, 'utf8'), 'witness.graphml');
    v.mark('witness lint');
    if (problems.length > 0) return v.done({ kind: 'unknown', reason: '' }, `the violation witness does not lint clean: ${problems[0]}`, { bound, replay });
    const path = resolve(v.options.witnessPath ?? 'witness.graphml');
    try {
      writeFileSync(path, text);
      witnessPath = path;
    } catch (e) {
      witnessError = `cannot write the witness ${path}: ${describeIoError(e)}`;
    }
  }
  const threads = new Set(schedule.steps.map((s) => s.thread)).size;
  return v.done({ kind: 'false', property: violated }, `${goal.description} at ${where(v, goal)} (BMC bound ${bound}, ${threads} threads, ${schedule.steps.length} steps; ${replay.reason})`, {
    bound,
    replay,
    witnessPath,
    counterexample: replayValues(steps),
    ...(witnessError ? { witnessError } : {}),
  });
}
