// A program without nondeterminism has exactly one execution: running it
// decides unreach-call, no-overflow and termination, however deep its loops
// or recursion go, where unrolling would have to reach the end of that one
// execution.
//
// The lowering turns every source of nondeterminism of the competition's
// semantics into an IMP `havoc` (nondet calls, uninitialised locals and heap
// memory, extern variables, calls of functions without a body, main's
// parameters), so a lowering that never reads a havocked (or unassigned)
// variable stands for a deterministic program. The havocs of objects
// written whole right after (initialised arrays, string literals; the
// lowering lists them) count as assignments. The run is compiled with
// AddressSanitizer and UBSan: a run with undefined behaviour decides nothing.

import type { Expr, Stmt } from '../ivl/ast.js';
import type { LoweredProgram } from '../lower/index.js';
import { HARNESS_EXIT, replayCounterexample, type ReplayResult } from '../replay/index.js';
import type { DataModel } from '../task/index.js';

/**
 * Whether the lowered program never reads an undetermined value: a variable
 * before its first assignment, or after a havoc. Then its C program is
 * deterministic (every C source of nondeterminism is a havoc whose value the
 * program reads). A variable declared without initialiser and assigned before
 * its first use (`int i; for (i = 0; ...)`) is fine; an array is undetermined
 * until assigned whole. Calls between IMP procedures are not followed (the
 * lowering inlines C functions): a program with one is not deterministic here.
 */
export function isDeterministic(lowered: LoweredProgram): boolean {
  const { imp } = lowered;
  const filled = lowered.filledHavocs ?? new Set<Stmt>();
  if (imp.procedures.length !== 1) return false;
  const proc = imp.procedures[0]!;
  const undetermined = new Set([...imp.globals, ...proc.params, ...proc.returns, ...proc.locals].map((d) => d.name));
  try {
    run(proc.body ?? [], undetermined, filled);
    return true;
  } catch (e) {
    if (e instanceof ReadsUndetermined) return false;
    throw e;
  }
}

class ReadsUndetermined extends Error {}

function check(e: Expr, undetermined: ReadonlySet<string>): void {
  switch (e.kind) {
    case 'var':
      if (undetermined.has(e.name)) throw new ReadsUndetermined(e.name);
      return;
    case 'unary':
      return check(e.arg, undetermined);
    case 'binary':
      check(e.left, undetermined);
      return check(e.right, undetermined);
    case 'app':
      return e.args.forEach((a) => check(a, undetermined));
    case 'ite':
      check(e.cond, undetermined);
      check(e.then, undetermined);
      return check(e.else, undetermined);
    case 'select':
      check(e.map, undetermined);
      return check(e.index, undetermined);
    case 'store':
      check(e.map, undetermined);
      check(e.index, undetermined);
      return check(e.value, undetermined);
    default:
      return;
  }
}

/** The undetermined variables after `ss` (null: no execution gets past it); throws ReadsUndetermined. */
function run(ss: readonly Stmt[], undetermined: Set<string>, filled: ReadonlySet<Stmt>): Set<string> | null {
  let u: Set<string> | null = undetermined;
  for (const s of ss) {
    if (u === null) return null;
    u = step(s, u, filled);
  }
  return u;
}

function step(s: Stmt, u: Set<string>, filled: ReadonlySet<Stmt>): Set<string> | null {
  switch (s.kind) {
    case 'assign':
      check(s.value, u);
      u.delete(s.target);
      return u;
    case 'havoc':
      // A filled object's havoc stands for indexes C never reads (AddressSanitizer checks that).
      if (filled.has(s)) u.delete(s.target);
      else u.add(s.target);
      return u;
    case 'assume':
    case 'assert':
      check(s.cond, u);
      return s.kind === 'assume' && s.cond.kind === 'bool_lit' && !s.cond.value ? null : u;
    case 'if': {
      check(s.cond, u);
      const a = run(s.then, new Set(u), filled);
      const b = run(s.else, new Set(u), filled);
      return a === null ? b : b === null ? a : new Set([...a, ...b]);
    }
    case 'while': {
      // The loop head sees what holds on entry and after any number of iterations.
      let head = u;
      for (;;) {
        check(s.cond, head);
        const after = run(s.body, new Set(head), filled);
        const next = new Set([...head, ...(after ?? [])]);
        if (next.size === head.size) return head;
        head = next;
      }
    }
    case 'block':
      return run(s.body, u, filled);
    case 'call':
      throw new ReadsUndetermined(s.proc);
    default:
      return u;
  }
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

/** How long the one run may take: 30 % of the budget, at most 2 s (a deterministic program that runs longer is left to the engines). */
export function executionLimitMs(budgetMs: number): number {
  return Math.min(2000, 0.3 * budgetMs);
}

/** Runs a deterministic program once (compiled by gcc) under `timeoutMs` of wall time. */
export function executeDeterministic(
  programPath: string,
  property: 'unreach-call' | 'no-overflow',
  dataModel: DataModel,
  errorFunction: string,
  timeoutMs: number,
): ExecutionOutcome {
  // A process time limit must be a whole number of milliseconds.
  timeoutMs = Math.max(1, Math.round(timeoutMs));
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
