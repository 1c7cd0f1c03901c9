/** The public types of the C → IMP lowering. */
import type { SourceLocation } from '../common/location.js';
import type { DataModel } from '../c/types.js';
import type { Expr, ImpProgram, Stmt } from '../ivl/ast.js';
import type { SourceMap } from './source-map.js';

/**
 * The checks the lowering adds to the program's semantics (the property
 * table, properties/, says which a property needs):
 * - `error-calls`: a call of the error function (`reach_error`) is a
 *   `reach_error` goal and ends the path. Without it the error function is
 *   an ordinary call: a body of the program's own is inlined (it may return
 *   and the execution goes on, as in C); one it does not define ends the path.
 * - `assertions`: a failing `assert()` (the call of `__assert_fail` and
 *   friends, an undefined `__VERIFIER_assert`) is an `assertion` goal; it
 *   ends the path either way (the program aborts).
 * - `division-by-zero`: every integer division and remainder is a
 *   `div-by-zero` goal (without it the path ends there: undefined behaviour).
 * - `overflow`: every signed arithmetic operation is an `overflow` goal.
 * - `memory-safety`: accesses (`valid-deref`), frees (`valid-free`) and
 *   blocks lost at the end of main (`valid-memtrack`).
 * - `memory-cleanup`: accesses and frees as above, and blocks still
 *   allocated at the end of main (`valid-memcleanup`).
 * - `data-race`: in a program that starts threads, every access to an
 *   object other threads can reach is a `data-race` goal (threads/markers.ts).
 * With none of them arithmetic wraps and the program has no goals but its
 * recursion cuts and the places where the model is not exact.
 */
export type InstrumentationPass = 'error-calls' | 'assertions' | 'division-by-zero' | 'overflow' | 'memory-safety' | 'memory-cleanup' | 'data-race';

export interface LowerOptions {
  readonly passes: readonly InstrumentationPass[];
  readonly dataModel: DataModel;
  /** How deep recursive calls are inlined before they are cut (default 3). */
  readonly recursionDepth?: number;
  /** Thread slots per pthread_create call site inside a loop (default 1); more creations there are `thread-bound` goals. */
  readonly threadInstances?: number;
  /** Recursion summaries to assume at cuts, and the function whose summary is checked (see RecursionSummaries). */
  readonly summaries?: RecursionSummaries;
}

/**
 * Summaries of recursive functions (integer parameters and result, no
 * memory): a cut call of a summarised function returns an arbitrary result
 * that satisfies its summary, and the execution goes on (instead of
 * ending there). With `entry`, the lowered program is that function called
 * with arbitrary arguments instead of main, and every condition of its
 * summary is a `summary` goal where it returns: a program whose goals
 * cannot fail shows that the summary holds for every call (by induction on
 * the calls that return).
 */
export interface RecursionSummaries {
  readonly conditions: ReadonlyMap<string, readonly SummaryCondition[]>;
  readonly entry?: string;
  /**
   * With `entry`: a measure per function of the entry's recursion cycle.
   * Inside the entry's body, every call of a function that has a measure
   * is summarised and is a `decrease` goal: the callee's measure of the
   * arguments is below the entry's measure of its own (unsigned, or signed
   * with the entry's at least 0). Programs whose goals cannot fail show
   * that the measure decreases, well-founded, along every chain of calls
   * in the cycle.
   */
  readonly measures?: ReadonlyMap<string, RecursionMeasure>;
}

/** A parameter of a recursive function read as a signed or unsigned integer (see RecursionSummaries). */
export interface RecursionMeasure {
  readonly index: number;
  readonly signed: boolean;
}

/**
 * `result op bound`: the bound is a constant plus or minus parameters, all
 * of the result's type and computed in it (wrapping, as the model does).
 */
export interface SummaryCondition {
  readonly op: '<=' | '>=' | '==';
  readonly bound: { readonly constant: bigint; readonly params: ReadonlyArray<{ readonly index: number; readonly sign: 1 | -1 }> };
}

/** The location of the `summary` goal of condition `index` of the entry function (line 0: no source position). */
export function summaryGoalLoc(file: string, index: number): SourceLocation {
  return { file, line: 0, column: index + 1, offset: -1 };
}

/** A C construct the lowering does not model: the verdict must be UNKNOWN, naming it. */
export interface Unsupported {
  readonly construct: string;
  readonly loc: SourceLocation;
}

export interface LoweredProgram {
  /** One procedure `main` (no parameters, no results) with every call inlined. */
  readonly imp: ImpProgram;
  readonly sourceMap: SourceMap;
  /** Set when the program uses something not modelled; `imp` is then not to be verified. */
  readonly unsupported?: Unsupported;
  /**
   * Over-approximations made (e.g. a large zero-initialised array whose
   * elements start arbitrary): a TRUE stays sound, a FALSE may be spurious
   * and must be confirmed (replay) before it is reported.
   */
  readonly approximations?: readonly string[];
  /**
   * Havocs that only stand for the indexes outside an object whose every
   * element is written right after (initialised arrays, string literals):
   * in C, the object is determined.
   */
  readonly filledHavocs?: ReadonlySet<Stmt>;
  /**
   * Havocs that stand for the contents of C memory not yet written
   * (automatic arrays without initialiser, heap blocks, large static arrays
   * that the model does not zero): a run under a checker of uninitialised
   * reads (valgrind) shows whether the program's behaviour depends on them.
   */
  readonly memoryHavocs?: ReadonlySet<Stmt>;
  /** Facts about how the program was modelled that the verdict's reason mentions (e.g. assert() aborts). */
  readonly notes?: readonly string[];
  /**
   * Memory-safety properties: the program allocates heap blocks. Leaks are
   * judged where a run ends, so a proof must show that every run ends.
   */
  readonly allocates?: boolean;
  /**
   * A program that starts threads: `imp` is in the threaded form
   * (threads/markers.ts), one procedure per thread slot listed here.
   */
  readonly threads?: readonly ThreadInfo[];
  /** Every `assume` statement the lowering added, with what guarantees it (absent when the lowering failed). */
  readonly assumptions?: ReadonlyMap<Stmt, AssumptionReason>;
  /** A recursive call was cut by the budget of inlined bodies, not by the depth: a deeper lowering cuts as early. */
  readonly inliningBudgetSpent?: boolean;
  /** With recursion summaries: the havoc that stands for the result of each summarised call (see SummarisedCall). */
  readonly summarisedCalls?: ReadonlyMap<Stmt, SummarisedCall>;
  /** With a summary's entry: the havocs of its parameters' values, in order, and its result (see SummarisedCall). */
  readonly entry?: { readonly params: readonly string[]; readonly result?: Expr };
}

/**
 * A call of a recursive function that the lowering with summaries did not
 * inline: its result is a havoc (void functions get one of a dummy
 * variable, so that every such call has its statement). Running the
 * entry program of `callee` with `args` (each converted to its parameter's
 * type, as the call does) gives the call's effect and result: the
 * summaries' functions touch no memory (verify/summaries.ts).
 */
export interface SummarisedCall {
  readonly callee: string;
  readonly args: readonly Expr[];
}

/**
 * What guarantees an `assume` of the lowering (every one is made by
 * `Lowerer.assumeThat`):
 * - `checked`: the condition was just asserted, as a goal of the property
 *   or as a place where the model is not exact (`memory-unknown`, which
 *   includes behaviour C leaves undefined, `Lowerer.undefinedUnless`):
 *   later goals concern only the executions where it held;
 * - `path-ends`: the C program stops here (`abort`, `exit`, an assert()
 *   failure, the error function): `false`;
 * - `recursion-cut`: beyond the inlining depth, after the unwinding assertion;
 * - `summary`: a recursion summary proved separately holds at a cut call;
 * - `program`: `__VERIFIER_assume` (the rules' assumption);
 * - `c-value`: a value C guarantees (a `_Bool` nondet is 0 or 1);
 * - `blocked`: a thread waits here until the condition holds (a mutex is
 *   free); the other threads run meanwhile (threads/interleave.ts);
 * - `thread-bound`: more threads than the model's slots, after the bound goal.
 * Behaviour C leaves undefined is never a reason of its own: it is checked
 * first (`Lowerer.undefinedUnless`; docs/soundness.md lists every
 * assumption and why it holds).
 */
export type AssumptionReason = 'checked' | 'path-ends' | 'recursion-cut' | 'summary' | 'program' | 'c-value' | 'blocked' | 'thread-bound';

/** A thread slot of a program that starts threads. */
export interface ThreadInfo {
  /** Its number (pthread_t value; main is 1). */
  readonly index: number;
  /** Its start routine. */
  readonly function: string;
  /** The pthread_create call that starts it. */
  readonly createLoc: SourceLocation;
  /** The thread that starts it. */
  readonly parent: number;
}
