// Recursion summaries, the engine's part: each check is BMC on a program in
// which the recursive procedures' calls are summarised, and Houdini over
// the summary conditions of every procedure at once finds the strongest
// summaries that hold. The caller makes the checked programs (verify/ lowers
// C with the summaries) and says how their asserts count; why the method is
// sound is told in verify/summaries.ts.
import type { ImpProgram } from '../ivl/ast.js';
import type { Solver } from '../smt/solver.js';
import { bmc, type Counterexample } from './bmc.js';
import type { GoalRoles } from './unroll.js';

/** A program that checks one procedure (or main) under the summaries of the others. */
export interface SummaryCheckProgram {
  readonly imp: ImpProgram;
  /** How the program's asserts count, by their goals' kinds (an error, a bound, or neither). */
  readonly roles: GoalRoles;
  /** The summary condition a violated goal checks (its index in the checked procedure's list), if it checks one. */
  readonly summaryOf: (goal: Counterexample['goal']) => number | undefined;
}

/** What a check found. */
export type SummaryCheck =
  | { readonly kind: 'holds' }
  | { readonly kind: 'summary-fails'; readonly index: number }
  | { readonly kind: 'error' }
  | { readonly kind: 'unknown' | 'unsupported'; readonly why: string };

/** A check that ends the search for summaries: an error, or no answer. */
export type FailedSummaryCheck = Exclude<SummaryCheck, { kind: 'holds' } | { kind: 'summary-fails' }>;

/** One check: BMC (complete unrolling or k-induction) on the program, its counterexample read as a failing summary condition or an error. */
export async function checkSummaries(p: SummaryCheckProgram, options: { readonly deadline: () => number; readonly solver: Solver }): Promise<SummaryCheck> {
  const r = await bmc(p.imp, { deadline: options.deadline, roles: p.roles, solver: options.solver });
  if (r.verdict === 'true') return { kind: 'holds' };
  if (r.verdict === 'unknown') return { kind: 'unknown', why: r.reason };
  const index = p.summaryOf(r.counterexample.goal);
  return index === undefined ? { kind: 'error' } : { kind: 'summary-fails', index };
}

/**
 * The strongest summaries (Houdini): every procedure's conditions are
 * checked under the current summaries of all; a condition that fails is
 * dropped and the checks start again, until each check holds. A check that
 * finds an error, or cannot decide, ends the search; so does the budget
 * (`left`, ms).
 */
export async function strongestSummaries<C>(
  procedures: readonly string[],
  conditions: ReadonlyMap<string, readonly C[]>,
  check: (conditions: ReadonlyMap<string, readonly C[]>, entry: string) => Promise<SummaryCheck>,
  left: () => number,
): Promise<{ readonly conditions: ReadonlyMap<string, readonly C[]> } | { readonly failed: string; readonly check: FailedSummaryCheck } | { readonly timeout: true }> {
  const current = new Map(conditions);
  for (let changed = true; changed; ) {
    changed = false;
    for (const f of procedures) {
      if (left() <= 0) return { timeout: true };
      const r = await check(current, f);
      if (r.kind === 'summary-fails') {
        current.set(f, (current.get(f) ?? []).filter((_, i) => i !== r.index));
        changed = true;
        break;
      }
      if (r.kind !== 'holds') return { failed: f, check: r };
    }
  }
  return { conditions: current };
}
