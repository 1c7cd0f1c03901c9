// A program without nondeterminism has exactly one execution: running it
// with the model's semantics (engines/execute.ts) decides unreach-call,
// no-overflow and memory safety, however deep its loops go, where unrolling
// would have to reach the end of that one execution.
//
// A gcc run is only evidence for FALSE (gcc folds overflows away, keeps the
// old contents of re-entered block-local arrays, checks another data model
// under valgrind): it is used where the model's run ran out of time, and
// only a violation it shows counts, replayed as any counterexample.

import { readFileSync } from 'node:fs';
import type { SourceLocation } from '../common/location.js';
import { formatLocation } from '../common/location.js';
import { accelerateLoops, executeOnePath, type ExecuteOptions, type ExecutionVerdict, type GoalRoles, type LoopJump } from '../engines/index.js';
import type { AssumeStmt, HavocStmt } from '../ivl/ast.js';
import type { LoweredProgram } from '../lower/index.js';
import { goalOf, nondetAt, type GoalInfo, type GoalKind } from '../lower/source-map.js';
import { HARNESS_EXIT, replayCounterexample, type ReplayResult } from '../replay/index.js';
import { concreteRunOf } from '../properties/index.js';
import type { DataModel, PropertyKind } from '../task/index.js';

export interface OnePathInput {
  /** The program lowered with recursion inlined once, and a lowering at any depth. */
  readonly first: LoweredProgram;
  readonly lowerAt: (depth: number) => LoweredProgram;
  /** The goals that violate the property (`error`) and those where the model is cut or inexact (`bound`). */
  readonly roles: GoalRoles;
  /** Milliseconds of CPU time left for the run. */
  readonly deadline: () => number;
  readonly fileName: string;
  readonly log: (message: string) => void;
  /** The programs of a run with recursive calls made as calls (recursive-calls.ts), or why there are none; tried at the first recursion cut. */
  readonly withCalls?: () => CallingPrograms | string;
}

/** The programs of a run with calls (recursive-calls.ts): main's lowering, and each recursive function's, made when first called. */
export interface CallingPrograms {
  readonly main: LoweredProgram;
  readonly options: Pick<ExecuteOptions, 'isNondet' | 'endsRun' | 'callAt' | 'programOf'>;
}

export type OnePathOutcome =
  /** The one execution ends without violating the property. */
  | { readonly kind: 'holds'; readonly reason: string }
  /** The one execution comes back to the loop at `loc` in a state it had there, so it runs forever, every goal holding. */
  | { readonly kind: 'runs-forever'; readonly loc: SourceLocation; readonly reason: string }
  /** The one execution violates `goal` (of `lowered`'s source map) after `steps` IMP steps; it still has to be replayed. */
  | { readonly kind: 'violated'; readonly goal: GoalInfo; readonly lowered: LoweredProgram; readonly steps: number }
  /** The one execution reaches behaviour C leaves undefined, or a place the model does not know exactly: never TRUE. */
  | { readonly kind: 'undefined'; readonly reason: string }
  /** Not decided (nondeterminism, an indeterminate value, the model's bounds, the time). */
  /** `tooLong`: the one execution may be deterministic but longer than the model could run (time, recursion beyond the lowering's budget). */
  | { readonly kind: 'undecided'; readonly reason: string; readonly tooLong: boolean };

/**
 * The deepest recursion the execution asks the lowering for. The depth
 * doubles from 1 while the run reaches a cut. A recursion that branches
 * (fib) spends the lowering's budget of inlined bodies along its first
 * chain of calls when inlined far deeper than it recurses; from a depth
 * that spends it, the depth is bisected down toward the last one that did
 * not. Each step costs at most one lowering of that depth.
 */
const DEEPEST = 4096;

/** Runs the one execution of the lowered program, lowering recursion deeper while the run reaches a recursion cut. */
export function executeLowered(input: OnePathInput): OnePathOutcome {
  let lowered = input.first;
  // The deepest lowering whose run was cut, and the shallowest that spent the budget of inlined bodies.
  let cutAt = 0;
  let spentAt: number | undefined;
  let callsTried = false;
  for (let depth = 1; ; ) {
    const map = lowered.sourceMap;
    const options: ExecuteOptions = {
      deadline: input.deadline,
      roles: input.roles,
      isNondet: (s) => nondetAt(map, s.loc) !== undefined,
      endsRun: endsRunOf(lowered),
    };
    let run = runWithJumps(lowered, options);
    // A violation is retraced iteration by iteration (for the witness's trace), and so is a run stopped by
    // anything but the time or the model's bound (a nondet value stops the plain run as early).
    if (!run || run.kind === 'violated' || (run.kind === 'undecided' && !run.bound && !run.reason.startsWith('time limit'))) run = executeOnePath(lowered.imp, options);
    else input.log(`execution (recursion depth ${depth}): loops entered by their longest jumps`);
    input.log(`execution (recursion depth ${depth}): ${run.kind} after ${run.steps} steps${run.kind === 'undecided' ? `: ${run.reason}` : ''}`);
    switch (run.kind) {
      case 'holds':
      case 'repeats':
        return ending(run, `run with Tarsier's semantics of C, ${run.steps} steps`, input.fileName);
      case 'violated': {
        const goal = goalOf(map, run.goal);
        if (goal) return { kind: 'violated', goal, lowered, steps: run.steps };
        return { kind: 'undecided', reason: `the only execution fails an assertion at ${formatLocation(run.loc)} that is no goal`, tooLong: false };
      }
      case 'cut':
        return ending(run, '', input.fileName);
      case 'undecided': {
        // A place where the model is not exact, or C leaves the behaviour undefined (Lowerer.undefinedUnless).
        const inexact = run.bound?.goal?.kind === 'memory-unknown' ? goalOf(map, run.bound.goal) : undefined;
        if (inexact) return { kind: 'undefined', reason: `the only execution reaches ${inexact.description} at ${where(inexact.targetLoc, input.fileName)}` };
        const cut = run.bound?.goal?.kind === 'recursion';
        if (cut && !callsTried && input.withCalls) {
          callsTried = true;
          const decided = runWithCalls(input.withCalls(), input);
          if (decided) return decided;
        }
        if (cut && lowered.inliningBudgetSpent) spentAt = depth;
        else if (cut) cutAt = depth;
        const next = spentAt === undefined ? depth * 2 : Math.floor((cutAt + spentAt) / 2);
        if (!cut || next <= cutAt || next > DEEPEST) return { kind: 'undecided', reason: run.reason, tooLong: cut || run.reason.startsWith('time limit') };
        if (input.deadline() <= 0) return { kind: 'undecided', reason: `time limit reached before recursion ${next} deep was lowered`, tooLong: true };
        depth = next;
        try {
          lowered = input.lowerAt(depth);
        } catch (e) {
          if (e instanceof RangeError) return { kind: 'undecided', reason: `recursion ${depth} deep nests the program too deeply to lower`, tooLong: true };
          throw e;
        }
        if (lowered.unsupported) return { kind: 'undecided', reason: `unsupported at recursion depth ${depth}: ${lowered.unsupported.construct}`, tooLong: false };
      }
    }
  }
}

/**
 * The run of the program with jumps before its loops (acceleration.ts), each
 * taken as long as its facts allow: a loop that counts to 10^8 by
 * constant steps is a few jumps. Undefined where no loop has a jump.
 */
function runWithJumps(lowered: LoweredProgram, options: ExecuteOptions): ExecutionVerdict | undefined {
  const accelerated = accelerateLoops(lowered.imp);
  if (!accelerated) return undefined;
  const jumps = new Map<HavocStmt, LoopJump>();
  for (const j of accelerated.jumps) jumps.set(j.go, j).set(j.m, j);
  return executeOnePath(accelerated.program, { ...options, jumpAt: (s) => jumps.get(s) });
}

/**
 * The run with recursive calls made as calls: its proof (the run ends, or
 * repeats, without a violation), the behaviour C leaves undefined that it
 * reaches, or the time it spent; undefined where it decides nothing the
 * inlined runs could not (a violation is found again by them, with the
 * trace a witness needs; a nondet value; a program it cannot make).
 */
function runWithCalls(programs: CallingPrograms | string, input: OnePathInput): OnePathOutcome | undefined {
  if (typeof programs === 'string') {
    input.log(`execution with calls: ${programs}`);
    return undefined;
  }
  const run = executeOnePath(programs.main.imp, { deadline: input.deadline, roles: input.roles, ...programs.options });
  input.log(`execution with calls: ${run.kind} after ${run.steps} steps${run.kind === 'undecided' ? `: ${run.reason}` : ''}`);
  const how = `run with Tarsier's semantics of C, recursive calls made as calls, ${run.steps} steps`;
  switch (run.kind) {
    case 'repeats':
      // A cycle inside a call: no loop of main's lowering to name (a lasso) or to retrace.
      return run.inCall ? undefined : ending(run, how, input.fileName);
    case 'holds':
    case 'cut':
      return ending(run, how, input.fileName);
    case 'violated':
      return undefined;
    case 'undecided':
      if (run.bound?.goal?.kind === 'memory-unknown') return { kind: 'undefined', reason: `the only execution reaches behaviour C leaves undefined, or a place the model does not know exactly, at ${where(run.bound.loc, input.fileName)}` };
      return run.reason.startsWith('time limit') ? { kind: 'undecided', reason: run.reason, tooLong: true } : undefined;
  }
}

/** What a run that ended, came back to a loop head in a state it had there, or was cut decides; `how` says how it ran. */
function ending(run: Extract<ExecutionVerdict, { kind: 'holds' | 'repeats' | 'cut' }>, how: string, fileName: string): OnePathOutcome {
  switch (run.kind) {
    case 'holds':
      return { kind: 'holds', reason: `the program has no nondeterminism and its only execution ${run.end === 'exit' ? 'stops at a call that ends the program' : 'ends'} without a violation (${how})` };
    case 'repeats':
      return {
        kind: 'runs-forever',
        loc: run.loc,
        reason: `the program has no nondeterminism and its only execution comes back to the loop at ${where(run.loc, fileName)} in a state it had there, so it repeats that cycle forever without a violation (${how})`,
      };
    case 'cut':
      return { kind: 'undefined', reason: `the only execution reaches behaviour C leaves undefined at ${where(run.loc, fileName)}: the model ends the path there, so nothing after it was checked` };
  }
}

/**
 * Whether a failing assume of the lowering ends the run where C (or the
 * rules) end it (`abort`, `exit`, `__VERIFIER_assume`), rather than cutting
 * a path on undefined behaviour. Without the lowering's reasons, none does.
 */
export function endsRunOf(lowered: LoweredProgram): (s: AssumeStmt) => boolean {
  return (s) => {
    const why = lowered.assumptions?.get(s);
    return why === 'path-ends' || why === 'program';
  };
}

/** `endsRunOf` for the statements of several lowerings (one per recursion depth; more may come). */
export function endsRunOfAll(lowerings: () => Iterable<LoweredProgram>): (s: AssumeStmt) => boolean {
  return (s) => [...lowerings()].some((l) => endsRunOf(l)(s));
}

/** `file:line:column (`the C text there`)`. */
function where(loc: SourceLocation, fileName: string): string {
  let text = '';
  try {
    const line = readFileSync(loc.file, 'utf8').split('\n')[loc.line - 1] ?? '';
    const rest = line.slice(loc.column - 1).trim();
    text = rest.length > 40 ? `${rest.slice(0, 40)}…` : rest;
  } catch {
    // The location's file is gone: its position alone.
  }
  return `${formatLocation({ ...loc, file: fileName })}${text ? ` (\`${text}\`)` : ''}`;
}

/** The CPU time the gcc run may take: 30 % of the budget, at most 2 s. */
export function executionLimitMs(budgetMs: number): number {
  return Math.min(2000, 0.3 * budgetMs);
}

export interface GccRunOptions {
  /** A property with a concrete run in the property table (its replay, and the sanitizers under which the run must show no undefined behaviour). */
  readonly property: PropertyKind;
  readonly dataModel: DataModel;
  readonly errorFunction: string;
  /** CPU time limit of the run (rounded up to whole seconds); the wall-clock limit is ten times that. */
  readonly timeoutMs: number;
}

/**
 * Runs the program once with gcc (sanitizers on): its replay when it
 * violates the property (`reach_error` called, an overflow reported), else
 * undefined. A run that ends without a violation proves nothing.
 */
export function violationByGccRun(programPath: string, options: GccRunOptions): ReplayResult | undefined {
  const cpuS = Math.max(1, Math.ceil(options.timeoutMs / 1000));
  const check = concreteRunOf(options.property);
  const replay = replayCounterexample(programPath, [], {
    symptom: check.replay,
    dataModel: options.dataModel,
    errorFunction: options.errorFunction,
    timeoutMs: 10_000 * cpuS,
    runUnder: ['/bin/sh', '-c', 'ulimit -t "$0" && exec "$@"', String(cpuS)],
    extraFlags: [...check.sanitizers],
  });
  // A harness exit (a nondet call after all) shows no violation of the program.
  if (replay.status !== 'confirmed' || replay.exitCode === HARNESS_EXIT.diverged) return undefined;
  return replay;
}
