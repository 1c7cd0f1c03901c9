// `verify` of a program that starts threads: the lowering's threaded IMP is
// interleaved (threads/interleave.ts) and decided by the engines; a FALSE is
// replayed by gcc under the counterexample's schedule (replay/threads.ts)
// and written as a GraphML 1.0 witness with a `threadId` on every edge.
import { readFileSync } from 'node:fs';
import { formatLocation } from '../common/location.js';
import { bmc, EncodeError } from '../engines/index.js';
import type { GoalInfo, LoweredProgram } from '../lower/index.js';
import type { ImpProgram } from '../ivl/ast.js';
import { goalOf } from '../lower/index.js';
import { goalRolesOf, violationKinds, violationOf, violationWitnessFormat } from '../properties/index.js';
import { replaySchedule, type ScheduleSymptom } from '../replay/threads.js';
import type { ReplayResult } from '../replay/index.js';
import { interleave, InterleaveError, isScheduleVar, type Interleaved } from '../threads/interleave.js';
import { replaySteps, scheduleOf, type Schedule, type ScheduleHavoc } from '../threads/schedule.js';
import { exploreInterleavings } from '../threads/explore.js';
import { lowerC } from './frontend.js';
import type { VerificationRun } from './run.js';
import { threadWitness } from './thread-witness.js';
import type { VerifyResult } from './types.js';
import { nondetStepsOf, replayValues, type NondetStep } from './witness.js';
import { emitWitness, witnessContext, witnessFields, witnessMetadata } from './witness-output.js';

/** Verifies a program that starts threads (see the header); `run.family` holds its lowering. */
export async function verifyThreaded(run: VerificationRun): Promise<VerifyResult> {
  const kind = run.r.property.kind;
  // The property table says which properties are decided for programs with threads, and their replay.
  const replaySymptom = run.row.threaded;
  // Termination and memory safety (a leak when main ends with pthread_exit, ASan beside the schedule's runtime) are not modelled for threads.
  if (!replaySymptom) return run.unknown(`${kind} of a program with threads is not supported`);
  // The parser reads thread-local storage as ordinary storage: one object all threads would share.
  if (/\b(__thread|_Thread_local)\b/.test(readFileSync(run.r.program, 'utf8'))) return run.unknown('thread-local storage (__thread, _Thread_local) is not modelled');
  const first = run.family!.first;
  const interleavings = new Map<number, { lowered: LoweredProgram; it: Interleaved }>();
  const at = (n: number): { lowered: LoweredProgram; it: Interleaved } => {
    let x = interleavings.get(n);
    if (!x) {
      const lowered = n === 1 ? first : lowerC(run.c, { passes: run.row.passes, dataModel: run.r.dataModel, recursionDepth: 1, threadInstances: n });
      if (lowered.unsupported) throw new EncodeError(`unsupported with ${n} threads per pthread_create in a loop: ${lowered.unsupported.construct}`);
      try {
        x = { lowered, it: interleave(lowered.imp) };
      } catch (e) {
        if (e instanceof InterleaveError) throw new EncodeError(`unsupported: ${e.message}`);
        throw e;
      }
      interleavings.set(n, x);
    }
    return x;
  };
  let interleaved: Interleaved;
  try {
    interleaved = at(1).it;
  } catch (e) {
    if (e instanceof EncodeError) return run.unknown(e.message);
    throw e;
  }
  run.profile.mark('interleave');
  // Thread slots grow with the bound when a pthread_create in a loop may start more threads.
  const bounded = first.sourceMap.goals.some((g) => g.kind === 'thread-bound');
  const roles = goalRolesOf(kind);

  // Every state, explicitly. With threads created in loops, the program with
  // two, three, four threads per site: violations only (a site may start more).
  for (const n of bounded ? [2, 3, 4] : [1]) {
    let x: { lowered: LoweredProgram; it: Interleaved };
    try {
      x = at(n);
    } catch (e) {
      if (e instanceof EncodeError) break;
      throw e;
    }
    const e = exploreInterleavings(x.it.program, { roles, budgetMs: Math.max(100, Math.min(run.deadline() / (bounded ? 6 : 3), 20_000)) });
    run.profile.mark('explore');
    run.log(`explore (${n} per site): ${e.verdict}: ${e.reason}`);
    if (e.verdict === 'true' && !bounded) return run.done({ kind: 'true' }, `no violation in any interleaving (${e.reason})`);
    if (e.verdict === 'false' && e.trace) {
      const goal = goalOf(x.lowered.sourceMap, e.trace.goal);
      const found = goal && violationKinds(kind).includes(goal.kind) ? confirm(run, replaySymptom, x, goal, e.trace.havocs, 'explicit exploration', undefined) : undefined;
      if (found?.verdict) return found.verdict;
    }
    // More threads per site matter only when the sites' slots ran out.
    if (!e.boundReached) break;
  }

  const programOf = new Map<ImpProgram, { lowered: LoweredProgram; it: Interleaved }>();
  const result = await bmc(
    (bound: number) => {
      const x = at(bounded ? Math.max(1, bound) : 1);
      programOf.set(x.it.program, x);
      return x.it.program;
    },
    { deadline: () => run.deadline(), solverTimeoutMs: () => run.solverTimeoutMs(), roles, log: run.log, solver: run.options.solver, induction: false },
  );
  run.profile.mark('bmc');
  run.log(`bmc: ${result.verdict} at bound ${result.bound}`);
  if (result.verdict === 'unknown') return run.unknown(result.reason, { bound: result.bound });
  if (result.verdict === 'true') {
    return run.done({ kind: 'true' }, `no violation in any interleaving: no execution takes more than ${result.bound} steps (BMC, complete unrolling)`, { bound: result.bound });
  }
  const used = programOf.get(result.program) ?? at(1);
  const cex = result.counterexample;
  const goal = goalOf(used.lowered.sourceMap, cex.goal.goal);
  if (!goal || !violationKinds(kind).includes(goal.kind)) {
    return run.unknown(`BMC found a failing assertion at ${formatLocation(cex.goal.loc)} that is not a ${violationKinds(kind).join('/')} goal`, { bound: result.bound });
  }
  const found = confirm(run, replaySymptom, used, goal, cex.havocs, `BMC bound ${result.bound}`, result.bound);
  return found.verdict ?? run.unknown(`counterexample at bound ${result.bound} not confirmed: ${found.replay.reason}`, { bound: result.bound, replay: found.replay });
}

/** Replays a path (its schedule and nondet values) by gcc; FALSE with its witness when the run shows the violation. */
function confirm(
  run: VerificationRun,
  symptom: ScheduleSymptom,
  x: { lowered: LoweredProgram; it: Interleaved },
  goal: GoalInfo,
  havocs: readonly ScheduleHavoc[],
  how: string,
  bound: number | undefined,
): { verdict?: VerifyResult; replay: ReplayResult } {
  const schedule = scheduleOf(havocs, x.it.operations);
  const steps = nondetStepsOf(havocs.filter((h) => !isScheduleVar(h.target)), x.lowered.sourceMap);
  const enforced = replaySteps(schedule);
  run.log(`schedule: ${enforced.map((s) => `${s.thread}:${s.operations.map((o) => `${o.kind}@${o.loc.line}`).join(',')}`).join(' ')}${steps.length ? `; nondet values ${steps.map((s) => s.value).join(', ')}` : ''}`);
  const replay = replaySchedule(run.r.program, replayValues(steps), {
    symptom,
    dataModel: run.r.dataModel,
    errorFunction: run.r.property.errorFunction ?? 'reach_error',
    steps: enforced.map((s) => ({ thread: s.thread, operations: s.operations.length })),
    created: schedule.created,
    nondetFunctions: [...new Set(x.lowered.sourceMap.nondets.map((n) => n.callee))],
    atomicFunctions: run.c.functions.filter((f) => f.body && f.builtin?.kind === 'atomic_function').map((f) => f.name),
  });
  run.profile.mark('replay');
  run.log(`replay: ${replay.status}: ${replay.reason}`);
  if (replay.status !== 'confirmed') return { replay };
  return { verdict: refuted(run, goal, violationOf(run.r.property.kind, goal.kind)!.name, schedule, steps, x.lowered, replay, how, bound), replay };
}

/** FALSE, replayed, with its GraphML witness (lint-clean, or the answer is UNKNOWN). */
function refuted(run: VerificationRun, goal: GoalInfo, violated: string, schedule: Schedule, steps: readonly NondetStep[], lowered: LoweredProgram, replay: ReplayResult, how: string, bound: number | undefined): VerifyResult {
  const r = run.r;
  const format = violationWitnessFormat(r.property.kind, violated, witnessContext(run.c));
  const metadata = witnessMetadata(r, run.options, '2.0', 'bmc');
  const text = () => threadWitness({ schedule, steps, goal, lowered, fileName: r.programAsWritten, metadata, dataModel: r.dataModel });
  const emitted = emitWitness(r, { ...run.options, log: run.log }, format, [{ label: 'witness', text }]);
  if (emitted.kind !== 'not-wanted') run.profile.mark('witness lint');
  if (emitted.kind === 'not-clean') return run.unknown(`the violation witness does not lint clean: ${emitted.problem}`, { bound, replay });
  const threads = new Set(schedule.steps.map((s) => s.thread)).size;
  const where = formatLocation({ ...goal.loc, file: r.programAsWritten });
  return run.done({ kind: 'false', property: violated }, `${goal.description} at ${where} (${how}, ${threads} threads, ${schedule.steps.length} steps; ${replay.reason})`, {
    bound,
    replay,
    counterexample: replayValues(steps),
    ...witnessFields(emitted),
  });
}
