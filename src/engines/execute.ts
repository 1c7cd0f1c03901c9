// The one execution of a program without nondeterminism, run with the
// verifier's own semantics: the lowered IMP program executed along its one
// path, every goal checked on the way.
//
// A gcc run is evidence for a violation, never a proof of its absence: gcc
// folds overflows away before a sanitizer sees them, keeps the old contents
// of a block-local array re-entered in a loop, and valgrind checks another
// data model. The IMP program is C's semantics as the verifier models it, so
// its one run decides exactly what a complete unrolling would decide.
// Statements and expressions are compiled once into closures
// (execute-values.ts) and then run, as often as the loops say.
//
// Values that the program does not determine are *indeterminate*: the
// contents of a `havoc` that is not a nondet call (uninitialised variables
// and memory, a block-local array entered again, the result of a function
// without a body) and every variable before its first assignment. They are
// carried through the run; the moment one of them decides anything (a
// branch, an assert, an assume, a map index of a goal), the program has more
// than one execution and the run stops undecided, as it does at the first
// nondet call: the other engines decide such a program.
//
// An `assume` that fails ends the run. Where the C program ends there (abort,
// exit, `__VERIFIER_assume`), the run ended normally; elsewhere the model cut
// a path on behaviour C leaves undefined (a VLA size that is not positive,
// a division by zero, ...): the answer must not be TRUE, since the program's
// rest was never looked at.

import type { SourceLocation } from '../common/location.js';
import type { AssertStmt, AssumeStmt, Expr, Goal, HavocStmt, ImpProgram, Stmt } from '../ivl/ast.js';
import { ImpStop } from '../ivl/interp.js';
import { procedureScope } from '../ivl/typecheck.js';
import { ExprCompiler, INDET, indeterminateMap, MapVal, sameVal, Unsupported, type Thunk, type Val } from './execute-values.js';
import { roleOf, type GoalRoles } from './unroll.js';

export interface ExecuteOptions {
  /** Milliseconds left (CPU time); the run stops undecided when it reaches 0. */
  readonly deadline: () => number;
  /** What a failing assert means, by its goal (as for BMC): a violation (`error`), a cut of the model (`bound`), or the end of the path (`assume`). */
  readonly roles?: GoalRoles;
  /** Whether a havoc is a nondet call (the program is then not deterministic). */
  readonly isNondet: (s: HavocStmt) => boolean;
  /** Whether a failing assume ends the run where C (or the rules) end it: abort, exit, `__VERIFIER_assume`. */
  readonly endsRun: (s: AssumeStmt) => boolean;
}

export type ExecutionVerdict =
  /** The run reached the end of the program, or a place where C ends it, with every goal on the way holding. */
  | { readonly kind: 'holds'; readonly steps: number; readonly end: 'end' | 'exit' }
  /** The assert at `loc` (of `goal`) fails on the one path (role `error`). */
  | { readonly kind: 'violated'; readonly loc: SourceLocation; readonly goal?: Goal; readonly steps: number }
  /** The model cuts the one path at `loc` on behaviour C leaves undefined: no answer but UNKNOWN. */
  | { readonly kind: 'cut'; readonly loc: SourceLocation; readonly steps: number }
  /**
   * The run came back to the head of the loop at `loc` in a state it had
   * there before: the program is deterministic, so it repeats that cycle
   * forever, and every goal on it held.
   */
  | { readonly kind: 'repeats'; readonly loc: SourceLocation; readonly steps: number }
  /** Nothing decided: the program is not deterministic, the model's bound was reached (`bound`: the assert of role `bound` that failed), or the time ran out. */
  | { readonly kind: 'undecided'; readonly reason: string; readonly bound?: AssertStmt; readonly steps: number };

/** Why the run stops early. */
class Stop extends Error {
  constructor(readonly verdict: Exclude<ExecutionVerdict, { kind: 'holds' }> | { readonly kind: 'ended' }) {
    super(verdict.kind);
  }
}

const CHECK_EVERY = 4096;

/** Runs the entry procedure `main` of a program lowered to one procedure. */
export function executeOnePath(program: ImpProgram, options: ExecuteOptions): ExecutionVerdict {
  const proc = program.procedures.find((p) => p.name === 'main');
  if (!proc?.body || program.procedures.length !== 1) return { kind: 'undecided', reason: 'the program is not one procedure', steps: 0 };
  // The state: one slot per variable (undefined for a name the program does not declare).
  const slots: Val[] = [];
  const slotIndex = new Map<string, number>();
  const slotOf = (name: string): number => {
    let k = slotIndex.get(name);
    if (k === undefined) {
      slotIndex.set(name, (k = slots.length));
      slots.push(undefined as unknown as Val);
    }
    return k;
  };
  for (const d of [...program.globals, ...proc.params, ...proc.returns, ...proc.locals]) slots[slotOf(d.name)] = d.type.kind === 'map' ? indeterminateMap() : INDET;
  const exprs = new ExprCompiler(slots, slotOf, procedureScope(program, proc));
  let steps = 0;
  const undecided = (reason: string, loc?: SourceLocation): never => {
    throw new Stop({ kind: 'undecided', reason: loc ? `${reason} at ${loc.line}:${loc.column}` : reason, steps });
  };
  const tick = (): void => {
    if (++steps % CHECK_EVERY === 0 && options.deadline() <= 0) undecided(`time limit reached after ${steps} steps of the one execution`);
  };
  const cycles = new CycleDetector(slots);
  const decider = (e: Expr, what: string): (() => boolean) => {
    const run = exprs.compile(e).run;
    return () => {
      const v = run();
      if (v === INDET) return undecided(`${what} depends on a value the program does not determine`, e.loc);
      return v as boolean;
    };
  };
  // The statements of a list. The `if`, `while` and block statements below
  // ask for their lists the first time they run: a run that stops at its
  // first nondet call compiles little of a large program.
  const block = (ss: readonly Stmt[]): (() => void) => {
    const fs = ss.map(compileStmt);
    if (fs.length === 1) return fs[0]!;
    return () => {
      for (const f of fs) f();
    };
  };
  // Each statement counts one step when it starts, a loop one more after each time round its body.
  const compileStmt = (s: Stmt): (() => void) => {
    switch (s.kind) {
      case 'skip':
        return tick;
      case 'assign': {
        const k = slotOf(s.target);
        const value = assigned(s.target, k, s.value);
        return () => {
          tick();
          slots[k] = value();
        };
      }
      case 'havoc': {
        const k = slotOf(s.target);
        // Asked when the havoc runs (a lookup in the source map: not for every havoc of a large program).
        let nondet: boolean | undefined;
        return () => {
          tick();
          if ((nondet ??= options.isNondet(s))) undecided('a nondet value is read', s.loc);
          slots[k] = slots[k] instanceof MapVal ? indeterminateMap() : INDET;
        };
      }
      case 'assume': {
        const holds = decider(s.cond, 'an assumption');
        const ends = options.endsRun(s);
        return () => {
          tick();
          if (holds()) return;
          if (ends) throw new Stop({ kind: 'ended' });
          throw new Stop({ kind: 'cut', loc: s.loc, steps });
        };
      }
      case 'assert': {
        const holds = decider(s.cond, 'a goal');
        const role = roleOf(s, options.roles);
        return () => {
          tick();
          if (holds()) return;
          if (role === 'error') throw new Stop({ kind: 'violated', loc: s.loc, ...(s.goal ? { goal: s.goal } : {}), steps });
          if (role === 'bound') throw new Stop({ kind: 'undecided', reason: 'the execution goes beyond what the model unrolled', bound: s, steps });
          // A goal of another property: the model ends the path there, which C need not.
          throw new Stop({ kind: 'cut', loc: s.loc, steps });
        };
      }
      case 'if': {
        const cond = decider(s.cond, 'a branch');
        let then: (() => void) | undefined;
        let other: (() => void) | undefined;
        return () => {
          tick();
          if (cond()) (then ??= block(s.then))();
          else (other ??= block(s.else))();
        };
      }
      case 'while': {
        const cond = decider(s.cond, 'a loop condition');
        let compiled: (() => void) | undefined;
        return () => {
          tick();
          const body = (compiled ??= block(s.body));
          for (;;) {
            if (cycles.seenAgain(s)) throw new Stop({ kind: 'repeats', loc: s.loc, steps });
            if (!cond()) break;
            body();
            tick();
          }
        };
      }
      case 'block': {
        let body: (() => void) | undefined;
        return () => {
          tick();
          (body ??= block(s.body))();
        };
      }
      case 'call':
        return () => {
          tick();
          undecided(`a call of procedure ${s.proc}`, s.loc);
        };
    }
  };
  /** The value `target := value` assigns: a store into `target`'s own map that nothing shares happens in place. */
  const assigned = (target: string, k: number, value: Expr): Thunk => {
    const whole = exprs.compile(value).run;
    // A store's result is a fresh copy; anything else may be held elsewhere too.
    const fresh = value.kind === 'store';
    const general: Thunk = () => {
      const v = whole();
      if (v instanceof MapVal && !fresh) v.shared = true;
      return v;
    };
    if (!fresh) return general;
    const chain: { index: Expr; value: Expr }[] = [];
    let base: Expr = value;
    while (base.kind === 'store') {
      chain.push({ index: base.index, value: base.value });
      base = base.map;
    }
    if (base.kind !== 'var' || base.name !== target) return general;
    const inPlace = exprs.storesInPlace(chain.reverse());
    return () => {
      const own = slots[k];
      if (!(own instanceof MapVal) || own.shared) return general();
      inPlace(own);
      return own;
    };
  };
  try {
    const main = block(proc.body);
    main();
    return { kind: 'holds', steps, end: 'end' };
  } catch (e) {
    if (e instanceof Stop) return e.verdict.kind === 'ended' ? { kind: 'holds', steps, end: 'exit' } : e.verdict;
    if (e instanceof Unsupported || e instanceof ImpStop) return { kind: 'undecided', reason: e.message, steps };
    // Statements nested too deeply for the stack (recursion inlined very deep).
    if (e instanceof RangeError) return { kind: 'undecided', reason: 'the program is nested too deeply to execute', steps };
    throw e;
  }
}

/** Beyond this many values in the state (map elements included), the run looks for no cycle: each comparison would cost more than it may save. */
const MAX_COMPARED_VALUES = 4096;

/**
 * Brent's cycle detection over the run's loop-head configurations: the
 * configuration at every visit is compared with one saved at the visits
 * numbered by powers of two, so a cycle is found within a few times its
 * start and length. A loop head and the state make the whole
 * configuration: the program is one procedure without calls, so where the
 * run goes on from a statement depends on that statement alone.
 */
class CycleDetector {
  private saved: { loop: Stmt; state: Val[] } | undefined;
  private visits = 0;
  private nextSave = 1;
  private off = false;
  // The slot that differed last time: usually a counter, so usually the first to differ again.
  private lastDifference = 0;

  constructor(private readonly state: Val[]) {}

  seenAgain(loop: Stmt): boolean {
    if (this.off) return false;
    const saved = this.saved;
    if (saved && saved.loop === loop && this.sameAsSaved(saved.state)) return true;
    if (++this.visits === this.nextSave) {
      const copy = snapshot(this.state);
      if (copy === undefined) this.off = true;
      else this.saved = { loop, state: copy };
      this.nextSave *= 2;
    }
    return false;
  }

  private sameAsSaved(saved: readonly Val[]): boolean {
    const state = this.state;
    const first = this.lastDifference;
    if (first < state.length && !sameVal(saved[first]!, state[first]!)) return false;
    for (let k = 0; k < state.length; k++) {
      if (!sameVal(saved[k]!, state[k]!)) {
        this.lastDifference = k;
        return false;
      }
    }
    return true;
  }
}

/** A deep copy of the state (maps are updated in place), or undefined when it holds too many values to compare. */
function snapshot(state: readonly Val[]): Val[] | undefined {
  let count = 0;
  const copy = (v: Val): Val => {
    count++;
    if (!(v instanceof MapVal)) return v;
    const out = new MapVal(copy(v.fallback));
    for (const [k, e] of v.stored()) out.put(k, copy(e));
    return out;
  };
  const out = state.map(copy);
  return count > MAX_COMPARED_VALUES ? undefined : out;
}
