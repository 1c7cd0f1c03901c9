// The schedule of a counterexample of an interleaved program (interleave.ts):
// which thread ran each step, and the visible operations of each step, read
// from the havocs of the schedule variables in execution order.
import type { SourceLocation } from '../common/location.js';
import type { VisibleOperation } from './interleave.js';
import { SCHEDULE_VARS } from './interleave.js';

/** One step: a thread and the visible operations it made, in order. */
export interface ScheduleStep {
  readonly thread: number;
  readonly operations: readonly VisibleOperation[];
}

export interface Schedule {
  readonly steps: readonly ScheduleStep[];
  /** Threads in the order they were created. */
  readonly created: readonly number[];
  /**
   * The accesses other threads had announced (were about to make) when the
   * run stopped, by thread: for a data race, the other access is among them.
   */
  readonly pending: ReadonlyMap<number, VisibleOperation>;
}

/** A havoc of a counterexample (engines' TraceHavoc, reduced to what is read here). */
export interface ScheduleHavoc {
  readonly loc: SourceLocation;
  readonly target: string;
  readonly value: bigint;
}

/** Reads the schedule from a counterexample's havocs (see interleave.ts). */
export function scheduleOf(havocs: readonly ScheduleHavoc[], operations: readonly VisibleOperation[]): Schedule {
  const steps: Array<{ thread: number; operations: VisibleOperation[] }> = [];
  const created: number[] = [];
  const pending = new Map<number, VisibleOperation>();
  for (const h of havocs) {
    if (h.target === SCHEDULE_VARS.thread) {
      steps.push({ thread: Number(h.value), operations: [] });
      continue;
    }
    const op = h.target === SCHEDULE_VARS.op || h.target === SCHEDULE_VARS.next ? operations[Number(h.value)] : undefined;
    if (!op) continue;
    if (h.target === SCHEDULE_VARS.next) {
      pending.set(op.thread, op);
      continue;
    }
    const step = steps[steps.length - 1];
    if (!step || step.thread !== op.thread) throw new Error(`schedule: operation of thread ${op.thread} outside its step`);
    step.operations.push(op);
    if (op.kind === 'access') pending.delete(op.thread);
    if (op.kind === 'create' && op.created !== undefined) created.push(op.created);
  }
  return { steps, created, pending };
}

/**
 * The steps a replay enforces: the steps in which nothing visible happened
 * left out (they only run a thread's own code, which a replay runs as soon
 * as it can), consecutive steps of one thread joined; the last step (where
 * the violation happens) is kept, as it may have no visible operation
 * before the violation.
 */
export function replaySteps(s: Schedule): ScheduleStep[] {
  const out: ScheduleStep[] = [];
  s.steps.forEach((step, i) => {
    if (step.operations.length === 0 && i !== s.steps.length - 1) return;
    const last = out[out.length - 1];
    if (last && last.thread === step.thread) out[out.length - 1] = { thread: step.thread, operations: [...last.operations, ...step.operations] };
    else out.push(step);
  });
  return out;
}
