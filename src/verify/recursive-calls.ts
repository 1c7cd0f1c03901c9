// The one execution of a program whose recursion is too deep to inline
// (fib(25) inlined 25 deep is 2^25 bodies): its recursive functions run as
// calls, each in a frame of its own, with their results remembered per
// arguments (engines/execute.ts).
//
// The lowering with recursion summaries (verify/summaries.ts) makes the
// programs: main with every recursive call that it did not inline standing
// as a havoc of the result, and each recursive function as the entry of a
// program of its own, its parameters havocs at the start. Running a callee's
// program on the arguments' values is exactly the inlined body the deeper
// lowering would run; only functions that touch no memory and no globals
// qualify (`impurity`), so that a call's arguments are all it depends on.

import type { CProgram } from '../c/index.js';
import type { CalledProgram } from '../engines/index.js';
import type { HavocStmt } from '../ivl/ast.js';
import type { InstrumentationPass, LoweredProgram } from '../lower/index.js';
import type { DataModel } from '../c/types.js';
import { nondetAt } from '../lower/source-map.js';
import { endsRunOf, type CallingPrograms } from './execution.js';
import { lowerC } from './frontend.js';
import { impurity, recursiveFunctions } from './summaries.js';

/**
 * The programs of a run with calls, or why the program has none: no
 * recursion, a recursive function that touches memory, or a lowering that
 * fails.
 */
export function callingPrograms(c: CProgram, options: { readonly passes: readonly InstrumentationPass[]; readonly dataModel: DataModel }): CallingPrograms | string {
  const recursive = recursiveFunctions(c);
  if (recursive.length === 0) return 'no recursion';
  const impure = recursive.map((f) => impurity(f, c)).find((x) => x !== undefined);
  if (impure) return `recursive calls run as calls need functions of integers without memory: ${impure}`;
  const conditions = new Map(recursive.map((f) => [f.name, []] as const));
  const lower = (entry?: string) => lowerC(c, { passes: options.passes, dataModel: options.dataModel, recursionDepth: 1, summaries: { conditions, ...(entry ? { entry } : {}) } });
  const main = lower();
  if (main.unsupported) return `unsupported: ${main.unsupported.construct}`;
  const programs = new Map<string, CalledProgram | undefined>();
  const programOf = (callee: string): CalledProgram | undefined => {
    if (!programs.has(callee)) {
      const l = lower(callee);
      programs.set(callee, l.unsupported || !l.entry ? undefined : { program: l.imp, params: l.entry.params, ...(l.entry.result ? { result: l.entry.result } : {}), ...runOptions(l) });
    }
    return programs.get(callee);
  };
  const runOptions = (l: LoweredProgram) => ({
    isNondet: (s: HavocStmt) => nondetAt(l.sourceMap, s.loc) !== undefined,
    endsRun: endsRunOf(l),
    callAt: (s: HavocStmt) => l.summarisedCalls?.get(s),
  });
  return { main, options: { ...runOptions(main), programOf } };
}
