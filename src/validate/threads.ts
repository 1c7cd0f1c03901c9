// Validation of a violation witness of a program with threads (GraphML 1.0
// with `threadId` on its edges): the path from the entry to the violation
// is read as a schedule and the program is run under it by gcc
// (replay/threads.ts). Each edge is one visible operation of its thread, as
// `verify` writes them (verify/thread-witness.ts); consecutive edges of one
// thread are one step; `createThread` numbers the threads in the order they
// are created; an assumption `\result == v;` gives a nondet call's value.
// Only a run that shows the violation confirms; a schedule the run cannot
// follow (another tool's edges need not be visible operations) leaves the
// witness unconfirmed.
import type { CProgram } from '../c/index.js';
import type { NondetValue, ReplayResult } from '../replay/index.js';
import { propertyRow } from '../properties/index.js';
import { replaySchedule, type ThreadScheduleStep } from '../replay/threads.js';
import type { Resolved } from '../verify/index.js';
import { graphmlViolationPath } from '../witness/graphml.js';
import type { GraphmlEdge, GraphmlWitness } from '../witness/model.js';
import { MAIN_THREAD } from '../threads/markers.js';
import type { Outcome } from './violation.js';

export interface ThreadWitnessValidation {
  readonly outcome: Outcome;
  readonly reason: string;
  readonly inputs?: readonly NondetValue[];
  readonly replay?: ReplayResult;
}

/** Whether a GraphML witness speaks of threads (an edge with a `threadId`). */
export function hasThreadIds(w: GraphmlWitness): boolean {
  return w.edges.some((e) => value(w, e, 'threadId') !== undefined);
}

export function validateThreadWitness(w: GraphmlWitness, resolved: Resolved, c: CProgram): ThreadWitnessValidation {
  // The property table's replay of a schedule: the properties decided for programs with threads.
  const symptom = propertyRow(resolved.property.kind).threaded;
  if (!symptom) return { outcome: 'unconfirmed', reason: `${resolved.property.kind} witnesses of programs with threads are not validated` };
  const path = graphmlViolationPath(w);
  if (!path || path.length === 0) return { outcome: 'unconfirmed', reason: 'the witness has no path from its entry to a violation node' };
  // Thread numbers: main is MAIN_THREAD, the others count up in the order of their creation.
  const numbers = new Map<string, number>([['0', MAIN_THREAD]]);
  const created: number[] = [];
  const steps: ThreadScheduleStep[] = [];
  const values: NondetValue[] = [];
  // The last edge leads to the violation: it is where the last step stops, no operation of its own.
  for (const [i, e] of path.entries()) {
    const id = value(w, e, 'threadId') ?? '0';
    const k = numbers.get(id);
    if (k === undefined) return { outcome: 'unconfirmed', reason: `thread ${id} acts before an edge creates it` };
    const made = value(w, e, 'createThread');
    if (made !== undefined && !numbers.has(made)) {
      numbers.set(made, MAIN_THREAD + numbers.size);
      created.push(numbers.get(made)!);
    }
    const assumption = value(w, e, 'assumption');
    const fn = value(w, e, 'assumption.resultfunction');
    const m = assumption && fn ? /^\s*\\result\s*==\s*(-?\d+)\s*;?\s*$/.exec(assumption) : null;
    if (m && fn) values.push({ function: fn, value: BigInt(m[1]!) });
    const ops = i === path.length - 1 ? 0 : 1;
    const last = steps[steps.length - 1];
    if (last && last.thread === k) steps[steps.length - 1] = { thread: k, operations: last.operations + ops };
    else steps.push({ thread: k, operations: ops });
  }
  const replay = replaySchedule(resolved.program, values, {
    symptom,
    dataModel: resolved.dataModel,
    errorFunction: resolved.property.errorFunction ?? 'reach_error',
    steps,
    created,
    nondetFunctions: [...new Set(c.functions.filter((f) => f.builtin?.kind === 'nondet').map((f) => f.name))],
    atomicFunctions: c.functions.filter((f) => f.body && f.builtin?.kind === 'atomic_function').map((f) => f.name),
  });
  if (replay.status === 'confirmed') return { outcome: 'confirmed', reason: `the witness's schedule (${steps.length} steps, ${values.length} nondet values), run: ${replay.reason}`, inputs: values, replay };
  return { outcome: 'unconfirmed', reason: `the witness's schedule, run: ${replay.reason}`, inputs: values, replay };
}

/** An edge's data by the key's attribute name (key ids may differ from the names). */
function value(w: GraphmlWitness, e: GraphmlEdge, name: string): string | undefined {
  if (e.data[name] !== undefined) return e.data[name];
  const key = w.keys.find((k) => k.attrName === name && k.for === 'edge');
  return key ? e.data[key.id] : undefined;
}
