// The model's run of a violation witness's nondet values: where Tarsier's
// semantics of C (the lowered program, run by the IMP interpreter) sees the
// run's first violation. The validator asks it only where gcc's run shows
// that a violation happens but cannot place it: gcc folds arithmetic even at
// -O0 (`16 * n * p * q` becomes `16 * (n * p * q)`), so its sanitizer may
// report a later overflow than the first one C has on that run.

import type { SourceLocation } from '../common/location.js';
import type { CProgram } from '../c/index.js';
import type { ImpType } from '../ivl/ast.js';
import { executeImp, zeroValue, type ImpValue } from '../ivl/interp.js';
import { lowerProgram } from '../lower/index.js';
import { locKey, nondetAt } from '../lower/source-map.js';
import { visitStmts } from '../ivl/walk.js';
import { passesOf, violationKinds } from '../properties/index.js';
import type { NondetValue } from '../replay/index.js';
import type { DataModel, PropertyKind } from '../task/index.js';
import { impValue } from '../verify/trace.js';

/** Steps the run may take: the validator's budget is seconds, the interpreter does about a million steps a second. */
const MAX_STEPS = 2_000_000;

/**
 * Where the model's run with `values` (one per nondet call, in order)
 * violates `kind` first; undefined when it does not (it ends, runs out
 * of steps or of time, or its end depends on a value C leaves
 * indeterminate).
 */
export function modelViolationAt(c: CProgram, kind: PropertyKind, dataModel: DataModel, values: readonly NondetValue[], outOfTime: () => boolean): SourceLocation | undefined {
  const lowered = lowerProgram(c, { passes: passesOf(kind), dataModel });
  if (lowered.unsupported) return undefined;
  const proc = lowered.imp.procedures.find((p) => p.name === 'main') ?? lowered.imp.procedures[0];
  if (!proc) return undefined;
  // The havoc statements; the interpreter's other havocs are the initial
  // values of IMP variables, which the lowering writes before reading.
  const statements = new Set<string>();
  visitStmts(proc.body ?? [], (s) => {
    if (s.kind === 'havoc') statements.add(`${s.target}|${locKey(s.loc)}`);
  });
  // A value C leaves indeterminate need not be gcc's: the run is made with
  // all such bits clear and with all set, and must end alike.
  const run = (indeterminate: (type: ImpType) => ImpValue): SourceLocation | undefined => {
    let next = 0;
    const result = executeImp(lowered.imp, proc.name, {}, {
      maxSteps: MAX_STEPS,
      outOfTime,
      havoc(name, type, loc) {
        if (nondetAt(lowered.sourceMap, loc) !== undefined && next < values.length) return impValue(values[next++]!.value, type);
        return statements.has(`${name}|${locKey(loc)}`) ? indeterminate(type) : zeroValue(type);
      },
    });
    if (result.status !== 'assertion-failed' || !result.goal) return undefined;
    const goal = lowered.sourceMap.goals[result.goal.id];
    return goal && violationKinds(kind).includes(goal.kind) ? goal.loc : undefined;
  };
  const clear = run(zeroValue);
  // All bits set: -1 read into a bit-vector; a float's bits as an unsigned number.
  const set = clear && run((type) => impValue(type.kind === 'float' ? (1n << BigInt(type.eb + type.sb)) - 1n : -1n, type));
  return clear && set && locKey(clear) === locKey(set) ? clear : undefined;
}
