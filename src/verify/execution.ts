// A program without nondeterminism has exactly one execution: running it
// decides unreach-call and no-overflow, however deep its loops or recursion
// go, where unrolling would have to reach the end of that one execution.
//
// The lowering turns every source of nondeterminism of the competition's
// semantics into an IMP `havoc` (nondet calls, uninitialised locals and heap
// memory, extern variables, calls of functions without a body, main's
// parameters), so a lowering without any havoc stands for a deterministic
// program. (It also havocs in a few places where the value is then fixed,
// e.g. string literals: those programs are simply not run here.) The run is
// compiled with AddressSanitizer and UBSan: a run with undefined behaviour
// decides nothing.

import type { ImpProgram, Stmt } from '../ivl/ast.js';
import { HARNESS_EXIT, replayCounterexample, type ReplayResult } from '../replay/index.js';
import type { DataModel } from '../task/index.js';

/** Whether the lowered program havocs nothing (then its C program is deterministic). */
export function isDeterministic(imp: ImpProgram): boolean {
  const pure = (ss: readonly Stmt[]): boolean => {
    for (const s of ss) {
      // Nothing after `assume false` runs (a recursion cut havocs its result there).
      if (s.kind === 'assume' && s.cond.kind === 'bool_lit' && !s.cond.value) return true;
      if (s.kind === 'havoc') return false;
      if (s.kind === 'if' && !(pure(s.then) && pure(s.else))) return false;
      if ((s.kind === 'while' || s.kind === 'block') && !pure(s.body)) return false;
    }
    return true;
  };
  return imp.procedures.every((p) => pure(p.body ?? []));
}

export type ExecutionOutcome =
  /** The only execution ends normally, without a violation. */
  | { readonly kind: 'holds'; readonly reason: string }
  /** The only execution violates the property (the run showed it). */
  | { readonly kind: 'violated'; readonly replay: ReplayResult }
  /** Nothing learnt (time limit, a crash, a sanitizer report, no gcc). */
  | { readonly kind: 'undecided'; readonly reason: string };

/**
 * Undefined behaviour the run must not show for its outcome to count. Under
 * unreach-call signed arithmetic wraps, as in the model (replay adds -fwrapv).
 */
const SANITIZERS = {
  'unreach-call': ['-fsanitize=address,undefined', '-fno-sanitize=signed-integer-overflow', '-fno-sanitize-recover=all'],
  'no-overflow': ['-fsanitize=address,undefined', '-fno-sanitize-recover=all'],
};
const SANITIZER_REPORT = /runtime error:|ERROR: AddressSanitizer|ERROR: LeakSanitizer/;

/** Runs a deterministic program once (compiled by gcc) under `timeoutMs` of wall time. */
export function executeDeterministic(
  programPath: string,
  property: 'unreach-call' | 'no-overflow',
  dataModel: DataModel,
  errorFunction: string,
  timeoutMs: number,
): ExecutionOutcome {
  const replay = replayCounterexample(programPath, [], { property, dataModel, errorFunction, timeoutMs, extraFlags: SANITIZERS[property] });
  if (replay.status === 'confirmed') return { kind: 'violated', replay };
  if (replay.status === 'unavailable') return { kind: 'undecided', reason: replay.reason };
  if (replay.timedOut) return { kind: 'undecided', reason: `the run did not end within ${timeoutMs} ms` };
  const stderr = replay.stderr ?? '';
  if (SANITIZER_REPORT.test(stderr)) return { kind: 'undecided', reason: `the run has undefined behaviour: ${stderr.split('\n').find((l) => SANITIZER_REPORT.test(l))!.trim()}` };
  // A signal (abort, a crash) or a harness exit (a nondet call after all) decides nothing.
  if (typeof replay.exitCode !== 'number' || replay.exitCode === HARNESS_EXIT.diverged || replay.exitCode === HARNESS_EXIT.reached) {
    return { kind: 'undecided', reason: `the run ended abnormally (${replay.reason})` };
  }
  return { kind: 'holds', reason: `the program has no nondeterminism and its only execution ends (exit ${replay.exitCode}) without a violation (gcc ${replay.mode}, with AddressSanitizer and UBSan)` };
}
