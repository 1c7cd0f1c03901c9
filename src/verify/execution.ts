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

import { readFileSync } from 'node:fs';
import type { Expr, Stmt } from '../ivl/ast.js';
import type { LoweredProgram } from '../lower/index.js';
import { HARNESS_EXIT, dataModelDependence, replayCounterexample, type ReplayResult } from '../replay/index.js';
import { findExecutable } from '../smt/index.js';
import { concreteRunOf } from '../properties/index.js';
import type { DataModel, PropertyKind } from '../task/index.js';

/**
 * Whether the lowered program stands for a deterministic C program:
 * - `deterministic`: it never reads an undetermined value (a variable
 *   before its first assignment, or after a havoc). Every C source of
 *   nondeterminism is a havoc whose value the program reads. A variable
 *   declared without initialiser and assigned before its first use
 *   (`int i; for (i = 0; ...)`) is fine.
 * - `if-memory-defined`: the same, except that it reads arrays whose C
 *   memory starts unwritten (an uninitialised local array, a heap block).
 *   It is deterministic when its run never depends on an unwritten element
 *   (an array initialised by a loop before it is read); a run under
 *   valgrind shows that (see executeDeterministic).
 * - `nondeterministic`: anything else.
 * Calls between IMP procedures are not followed (the lowering inlines C
 * functions): a program with one is nondeterministic here.
 */
export type Determinism = 'deterministic' | 'if-memory-defined' | 'nondeterministic';

export function determinismOf(lowered: LoweredProgram): Determinism {
  const { imp } = lowered;
  if (imp.procedures.length !== 1) return 'nondeterministic';
  const proc = imp.procedures[0]!;
  const walk = new Walk(lowered.filledHavocs ?? new Set(), lowered.memoryHavocs ?? new Set());
  const start: Flow = { undetermined: new Set([...imp.globals, ...proc.params, ...proc.returns, ...proc.locals].map((d) => d.name)), unwritten: new Set() };
  try {
    walk.run(proc.body ?? [], start);
  } catch (e) {
    if (e instanceof ReadsUndetermined) return 'nondeterministic';
    throw e;
  }
  return walk.readsUnwritten ? 'if-memory-defined' : 'deterministic';
}

class ReadsUndetermined extends Error {}

/** What is not determined at a point: variables, and arrays whose C memory is not yet written. */
interface Flow {
  readonly undetermined: Set<string>;
  readonly unwritten: Set<string>;
}

const copy = (f: Flow): Flow => ({ undetermined: new Set(f.undetermined), unwritten: new Set(f.unwritten) });
const join = (a: Flow, b: Flow): Flow => ({ undetermined: new Set([...a.undetermined, ...b.undetermined]), unwritten: new Set([...a.unwritten, ...b.unwritten]) });
const size = (f: Flow) => f.undetermined.size + f.unwritten.size;

class Walk {
  /** Whether an array with unwritten C memory is read (or written into: a store reads the array). */
  readsUnwritten = false;

  constructor(
    private readonly filled: ReadonlySet<Stmt>,
    private readonly memory: ReadonlySet<Stmt>,
  ) {}

  private check(e: Expr, f: Flow): void {
    switch (e.kind) {
      case 'var':
        if (f.undetermined.has(e.name)) throw new ReadsUndetermined(e.name);
        if (f.unwritten.has(e.name)) this.readsUnwritten = true;
        return;
      case 'unary':
        return this.check(e.arg, f);
      case 'binary':
        this.check(e.left, f);
        return this.check(e.right, f);
      case 'app':
        return e.args.forEach((a) => this.check(a, f));
      case 'ite':
        this.check(e.cond, f);
        this.check(e.then, f);
        return this.check(e.else, f);
      case 'select':
        this.check(e.map, f);
        return this.check(e.index, f);
      case 'store':
        this.check(e.map, f);
        this.check(e.index, f);
        return this.check(e.value, f);
      default:
        return;
    }
  }

  /** What is undetermined after `ss` (null: no execution gets past it); throws ReadsUndetermined. */
  run(ss: readonly Stmt[], flow: Flow): Flow | null {
    let f: Flow | null = flow;
    for (const s of ss) {
      if (f === null) return null;
      f = this.step(s, f);
    }
    return f;
  }

  private step(s: Stmt, f: Flow): Flow | null {
    switch (s.kind) {
      case 'assign':
        this.check(s.value, f);
        f.undetermined.delete(s.target);
        f.unwritten.delete(s.target);
        return f;
      case 'havoc':
        f.undetermined.delete(s.target);
        f.unwritten.delete(s.target);
        // A filled object's havoc stands for indexes C never reads (AddressSanitizer checks that).
        if (this.memory.has(s) && !this.filled.has(s)) f.unwritten.add(s.target);
        else if (!this.filled.has(s)) f.undetermined.add(s.target);
        return f;
      case 'assume':
      case 'assert':
        this.check(s.cond, f);
        return s.kind === 'assume' && s.cond.kind === 'bool_lit' && !s.cond.value ? null : f;
      case 'if': {
        this.check(s.cond, f);
        const a = this.run(s.then, copy(f));
        const b = this.run(s.else, copy(f));
        return a === null ? b : b === null ? a : join(a, b);
      }
      case 'while': {
        // The loop head sees what holds on entry and after any number of iterations.
        let head = f;
        for (;;) {
          this.check(s.cond, head);
          const after = this.run(s.body, copy(head));
          const next = after ? join(head, after) : head;
          if (size(next) === size(head)) return head;
          head = next;
        }
      }
      case 'block':
        return this.run(s.body, f);
      case 'call':
        throw new ReadsUndetermined(s.proc);
      default:
        return f;
    }
  }
}

export type ExecutionOutcome =
  /** The only execution ends normally, without a violation. */
  | { readonly kind: 'holds'; readonly reason: string }
  /** The only execution violates the property (the run showed it). */
  | { readonly kind: 'violated'; readonly replay: ReplayResult }
  /** Nothing learnt (time limit, a crash, a sanitizer report, no gcc). */
  | { readonly kind: 'undecided'; readonly reason: string };

const SANITIZER_REPORT = /runtime error:|ERROR: AddressSanitizer|ERROR: LeakSanitizer/;

/** The CPU time the one run may take: 30 % of the budget, at most 2 s (a deterministic program that runs longer is left to the engines). */
export function executionLimitMs(budgetMs: number): number {
  return Math.min(2000, 0.3 * budgetMs);
}

export interface ExecutionOptions {
  /** The property whose concrete run (the property table's `concreteRun`) the run is. */
  readonly property: PropertyKind;
  readonly dataModel: DataModel;
  readonly errorFunction: string;
  /** CPU time limit of each run (rounded up to whole seconds); the wall-clock limit is ten times that, so that a loaded machine does not decide. */
  readonly timeoutMs: number;
  /** The program's determinism (determinismOf); `if-memory-defined` adds a run under valgrind. */
  readonly determinism: Exclude<Determinism, 'nondeterministic'>;
}

/** Runs a deterministic program once (compiled by gcc, with sanitizers); a program that reads unwritten memory once more under valgrind. */
export function executeDeterministic(programPath: string, options: ExecutionOptions): ExecutionOutcome {
  const { dataModel, errorFunction } = options;
  const check = concreteRunOf(options.property);
  const limit = runLimits(options.timeoutMs);
  const replay = replayCounterexample(programPath, [], { property: check.replay, dataModel, errorFunction, timeoutMs: limit.wallMs, runUnder: limit.runUnder, extraFlags: [...check.sanitizers] });
  const outcome = outcomeOf(replay, limit.cpuS);
  if (outcome.kind === 'undecided' || options.determinism === 'deterministic') return outcome;
  const unwritten = readsOfUnwrittenMemory(programPath, options);
  if (unwritten) return { kind: 'undecided', reason: unwritten };
  if (outcome.kind === 'violated') return outcome;
  return { kind: 'holds', reason: `${outcome.reason}; under valgrind, no unwritten memory decides anything in it` };
}

/** A run's CPU limit in whole seconds (through the shell's `ulimit -t`), and a wall-clock limit ten times that. */
function runLimits(cpuMs: number): { cpuS: number; wallMs: number; runUnder: string[] } {
  const cpuS = Math.max(1, Math.ceil(cpuMs / 1000));
  return { cpuS, wallMs: 10_000 * cpuS, runUnder: ['/bin/sh', '-c', 'ulimit -t "$0" && exec "$@"', String(cpuS)] };
}

function outcomeOf(replay: ReplayResult, cpuS: number): ExecutionOutcome {
  if (replay.status === 'confirmed') return { kind: 'violated', replay };
  if (replay.status === 'unavailable') return { kind: 'undecided', reason: replay.reason };
  if (replay.timedOut || /SIGXCPU|SIGKILL/.test(replay.reason)) return { kind: 'undecided', reason: `the run did not end within ${cpuS} s of CPU time` };
  const stderr = replay.stderr ?? '';
  if (SANITIZER_REPORT.test(stderr)) return { kind: 'undecided', reason: `the run has undefined behaviour: ${stderr.split('\n').find((l) => SANITIZER_REPORT.test(l))!.trim()}` };
  // A signal (abort, a crash) or a harness exit (a nondet call after all) decides nothing.
  if (typeof replay.exitCode !== 'number' || replay.exitCode === HARNESS_EXIT.diverged || replay.exitCode === HARNESS_EXIT.reached) {
    return { kind: 'undecided', reason: `the run ended abnormally (${replay.reason})` };
  }
  return { kind: 'holds', reason: `the program has no nondeterminism and its only execution ends (exit ${replay.exitCode}) without a violation (gcc ${replay.mode}, with AddressSanitizer and UBSan)` };
}

/** valgrind's exit code when it saw an error (none of the harness's). */
const VALGRIND_ERROR_EXIT = 97;

/**
 * Why the run's outcome may depend on memory the program has not written
 * (undefined: it does not). valgrind's memcheck reports every branch,
 * address and system call that depends on an unwritten bit; UBSan's checks
 * are branches too, so an overflow computed from unwritten values is seen.
 * Its 32-bit libraries are not installed here: a program whose meaning
 * differs between ILP32 and LP64 is not checked.
 */
function readsOfUnwrittenMemory(programPath: string, options: ExecutionOptions): string | undefined {
  const valgrind = findExecutable('valgrind');
  if (!valgrind) return 'the program reads arrays it may not have written, and valgrind, which would check that, is not installed (scripts/install-system-tools.sh installs it)';
  const dep = options.dataModel === 'ILP32' ? dataModelDependence(readFileSync(programPath, 'utf8')) : undefined;
  if (dep) return `the program reads arrays it may not have written, and uses '${dep}', whose meaning differs in the 64-bit run valgrind checks`;
  const check = concreteRunOf(options.property);
  const flags = check.sanitizers.map((f) => f.replace('-fsanitize=address,undefined', '-fsanitize=undefined'));
  const limit = runLimits(options.timeoutMs);
  const replay = replayCounterexample(programPath, [], {
    property: check.replay,
    dataModel: 'LP64',
    errorFunction: options.errorFunction,
    timeoutMs: limit.wallMs,
    extraFlags: flags,
    runUnder: [...limit.runUnder, valgrind, '-q', `--error-exitcode=${VALGRIND_ERROR_EXIT}`, '--exit-on-first-error=yes'],
  });
  if (replay.exitCode === VALGRIND_ERROR_EXIT) {
    const first = (replay.stderr ?? '').split('\n').find((l) => /==\d+== \S/.test(l));
    return `the run depends on memory the program has not written (valgrind: ${first?.replace(/^==\d+== /, '').trim() ?? 'an error'})`;
  }
  const outcome = outcomeOf(replay, limit.cpuS);
  return outcome.kind === 'undecided' ? `the run under valgrind decides nothing: ${outcome.reason}` : undefined;
}
