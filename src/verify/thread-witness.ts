// The GraphML 1.0 violation witness of a program with threads (the rules'
// format for concurrency): a chain of edges, one per visible operation of the
// counterexample's schedule, each with the line of the operation and the
// `threadId` of the thread that makes it; a pthread_create's edge names the
// thread it starts (`createThread`), and that thread's first edge the start
// routine it enters (`enterFunction`); a nondet call's edge pins the value
// it returns. The last edge leads to the violation node.
import type { GoalInfo, LoweredProgram } from '../lower/index.js';
import { MAIN_THREAD } from '../threads/markers.js';
import type { Schedule } from '../threads/schedule.js';
import { writeGraphml, type GraphmlEdge, type GraphmlNode, type GraphmlWitness } from '../witness/index.js';
import type { Metadata } from '../witness/model.js';
import type { NondetStep } from './witness.js';

export interface ThreadWitnessInput {
  readonly schedule: Schedule;
  /** The nondet calls of the path with their values, in execution order. */
  readonly steps: readonly NondetStep[];
  readonly goal: GoalInfo;
  readonly lowered: LoweredProgram;
  readonly fileName: string;
  readonly metadata: Metadata;
  readonly dataModel: 'ILP32' | 'LP64';
}

/** A GraphML thread id: main is 0, the others count up as the program numbers them. */
function threadId(k: number): string {
  return String(k - MAIN_THREAD);
}

export function threadWitness(input: ThreadWitnessInput): string {
  const md = input.metadata;
  const task = md.task;
  const graphData: GraphmlWitness['graphData'] = [
    { key: 'witness-type', value: 'violation_witness' },
    { key: 'sourcecodelang', value: 'C' },
    { key: 'producer', value: [md.producer.name, md.producer.version].filter(Boolean).join(' ') },
    { key: 'specification', value: task?.specification ?? '' },
    { key: 'programfile', value: input.fileName },
    { key: 'programhash', value: task?.input_file_hashes[input.fileName] ?? '' },
    { key: 'architecture', value: input.dataModel === 'LP64' ? '64bit' : '32bit' },
    { key: 'creationtime', value: md.creation_time.replace(/\.\d+/, '') },
  ];
  const startRoutine = new Map((input.lowered.threads ?? []).map((t) => [t.index, t.function]));
  const nodes: GraphmlNode[] = [{ id: 'N0', data: { entry: 'true' } }];
  const edges: GraphmlEdge[] = [];
  const entered = new Set<number>([MAIN_THREAD]);
  const nondets = [...input.steps];
  const nondetKey = (l: { line: number; column: number }) => `${l.line}:${l.column}`;
  const add = (data: Record<string, string>) => {
    const id = `N${nodes.length}`;
    edges.push({ source: nodes[nodes.length - 1]!.id, target: id, data });
    nodes.push({ id, data: {} });
  };
  let lastThread = MAIN_THREAD;
  for (const step of input.schedule.steps) {
    for (const op of step.operations) {
      const data: Record<string, string> = { startline: String(op.loc.line), threadId: threadId(op.thread) };
      if (!entered.has(op.thread)) {
        const fn = startRoutine.get(op.thread);
        if (fn) data.enterFunction = fn;
        entered.add(op.thread);
      }
      if (op.kind === 'create' && op.created !== undefined) data.createThread = threadId(op.created);
      // A nondet call is a visible operation at its own location: its value.
      if (op.kind === 'sync' && nondets[0] && nondetKey(nondets[0].info.loc) === nondetKey(op.loc)) {
        const n = nondets.shift()!;
        data.assumption = `\\result == ${n.value};`;
        data['assumption.resultfunction'] = n.info.callee;
      }
      add(data);
      lastThread = op.thread;
    }
  }
  const violator = input.schedule.steps.at(-1)?.thread ?? lastThread;
  const id = `N${nodes.length}`;
  edges.push({ source: nodes[nodes.length - 1]!.id, target: id, data: { startline: String(input.goal.targetLoc.line), threadId: threadId(violator) } });
  nodes.push({ id, data: { violation: 'true' } });
  return writeGraphml({ witnessType: 'violation_witness', keys: [], graphData, nodes, edges });
}
