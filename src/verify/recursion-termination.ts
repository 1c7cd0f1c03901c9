// Termination of programs whose recursion is unbounded: every recursive
// call makes a measure (one integer parameter) decrease, well-founded.
//
// The argument: each recursive function is loop-free (and so is everything
// it calls), so one call runs finitely many statements besides its calls,
// and makes finitely many calls. An infinite chain of nested calls would
// end up inside one cycle of mutually recursive functions (they call
// functions of their own cycle or of cycles below it); but each call from a
// function of a cycle to one of the same cycle has a smaller measure
// (unsigned, or signed with the caller's at least 0), so no such chain is
// infinite, and by König's lemma every call's tree of calls is finite:
// every call returns. Main then ends if its loops have ranking functions
// with each recursive call returning an arbitrary result (within the
// recursion summaries, which hold for every call).
//
// The measures are checked on bit-vectors, where signed arithmetic wraps;
// that agrees with C only without signed overflow, so the recursion
// summaries must first prove the program free of it. The lowering is
// termination's: the error function is an ordinary call there, and the
// execution goes on after it as in C.

import type { CProgram, FunctionDecl } from '../c/index.js';
import { forEachStatement } from '../c/index.js';
import { intKindOf } from '../lower/memory.js';
import { isSignedKind, unqualified, type DataModel } from '../c/types.js';
import { bmc } from '../engines/index.js';
import type { ImpProgram } from '../ivl/ast.js';
import type { RecursionMeasure, SummaryCondition } from '../lower/types.js';
import { createSolver } from '../smt/index.js';
import { lowerC } from './frontend.js';
import { callees, impurity, proveBySummaries, reaches, recursiveFunctions } from './summaries.js';

export interface RecursionTerminationOptions {
  readonly dataModel: DataModel;
  /** Budget ms left (on the verifier's clock). */
  readonly left: () => number;
  readonly solver?: string;
  readonly log?: (message: string) => void;
}

export type RecursionTermination =
  | {
      /** Main lowered with every recursive call summarised: it ends if its loops do. */
      readonly main: ImpProgram;
      /** Each recursive function's measure, e.g. `id: x (unsigned)`. */
      readonly measures: string;
    }
  | { readonly reason: string };

/** Measures for every recursive function, or why there are none. */
export async function recursionMeasures(c: CProgram, options: RecursionTerminationOptions): Promise<RecursionTermination> {
  const log = options.log ?? (() => {});
  const recursive = recursiveFunctions(c);
  if (recursive.length === 0) return { reason: 'no recursion' };
  const shape = recursive.map(unfit).find((x) => x !== undefined);
  if (shape) return { reason: `recursion measures: ${shape}` };
  const impure = recursive.map((f) => impurity(f, c)).find((x) => x !== undefined);
  if (impure) return { reason: `recursion measures need functions of integers without memory: ${impure}` };
  // At most half of the budget for the proof that nothing overflows.
  const stopAt = options.left() / 2;
  const noOverflow = await proveBySummaries(c, { passes: ['overflow'], errorKinds: ['overflow'], dataModel: options.dataModel, left: () => options.left() - stopAt, solver: options.solver, log });
  if (!noOverflow.proof) return { reason: `recursion measures need a proof that nothing overflows: ${noOverflow.reason}` };
  const conditions = noOverflow.proof.summaries;
  const found: string[] = [];
  for (const cycle of cycles(recursive)) {
    const measures = await measuresOf(c, cycle, conditions, options);
    if (!measures) return { reason: `no parameter of ${cycle.map((f) => f.name).join(', ')} decreases at each call in ${cycle.length > 1 ? 'their' : 'its'} recursion` };
    for (const f of cycle) {
      const m = measures.get(f.name)!;
      found.push(`${f.name}: ${f.params[m.index]!.name} (${m.signed ? 'signed, from at least 0' : 'unsigned'})`);
    }
  }
  const lowered = lowerC(c, { passes: [], dataModel: options.dataModel, recursionDepth: 1, summaries: { conditions } });
  if (lowered.unsupported) return { reason: `unsupported: ${lowered.unsupported.construct}` };
  log(`termination: recursion measures: ${found.join('; ')}`);
  return { main: lowered.imp, measures: found.join('; ') };
}

/** Why a recursive function does not fit the argument above (undefined: it does). */
function unfit(f: FunctionDecl): string | undefined {
  const seen = new Set<FunctionDecl>();
  const todo = [f];
  while (todo.length > 0) {
    const g = todo.pop()!;
    if (seen.has(g)) continue;
    seen.add(g);
    let loop: string | undefined;
    forEachStatement(g.body!, (s) => {
      if (s.kind === 'While' || s.kind === 'DoWhile' || s.kind === 'For' || s.kind === 'Goto') loop ??= `${g.name} has a loop or goto`;
    });
    if (loop) return loop;
    todo.push(...callees(g));
  }
  return undefined;
}

/** The recursive functions grouped by cycle of mutual recursion (functions that call one another, directly or not). */
function cycles(recursive: readonly FunctionDecl[]): FunctionDecl[][] {
  const out: FunctionDecl[][] = [];
  for (const f of recursive) {
    if (out.some((c) => c.includes(f))) continue;
    out.push(recursive.filter((g) => g === f || (reaches(f, g) && reaches(g, f))));
  }
  return out;
}

/** Measure combinations tried per cycle at most (each costs one check per function). */
const MAX_COMBINATIONS = 16;

/** A measure per function of a cycle such that every call in the cycle decreases it (signed readings first), or undefined. */
async function measuresOf(c: CProgram, cycle: readonly FunctionDecl[], conditions: ReadonlyMap<string, readonly SummaryCondition[]>, options: RecursionTerminationOptions): Promise<ReadonlyMap<string, RecursionMeasure> | undefined> {
  const choices = cycle.map((f) =>
    f.params.flatMap((p, index): RecursionMeasure[] => {
      const k = intKindOf(unqualified(p.type));
      if (k === undefined) return [];
      return isSignedKind(k) ? [{ index, signed: true }, { index, signed: false }] : [{ index, signed: false }];
    }),
  );
  let combinations: RecursionMeasure[][] = [[]];
  for (const list of choices) combinations = combinations.flatMap((done) => list.map((m) => [...done, m]));
  const solver = createSolver(options.solver ?? 'auto');
  try {
    for (const combination of combinations.slice(0, MAX_COMBINATIONS)) {
      const measures = new Map(cycle.map((f, i) => [f.name, combination[i]!] as const));
      let holds = true;
      for (const f of cycle) {
        if (options.left() <= 0) return undefined;
        const lowered = lowerC(c, { passes: [], dataModel: options.dataModel, recursionDepth: 1, summaries: { conditions, entry: f.name, measures } });
        if (lowered.unsupported) return undefined;
        // Only the decrease goals count.
        const r = await bmc(lowered.imp, { deadline: options.left, roles: { error: ['decrease'], bound: ['recursion', 'memory-unknown'], unlabelled: 'assume' }, solver });
        const m = measures.get(f.name)!;
        options.log?.(`termination: ${f.name}: measure ${f.params[m.index]!.name} (${m.signed ? 'signed' : 'unsigned'}): ${r.verdict}`);
        if (r.verdict !== 'true') {
          holds = false;
          break;
        }
      }
      if (holds) return measures;
    }
    return undefined;
  } finally {
    await solver.dispose();
  }
}
