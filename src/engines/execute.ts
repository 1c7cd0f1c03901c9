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
import type { AssertStmt, AssumeStmt, Expr, Goal, HavocStmt, ImpProgram, Procedure, Stmt } from '../ivl/ast.js';
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
  /** The call a havoc stands for, if it stands for one (a recursive call the lowering did not inline). */
  readonly callAt?: (s: HavocStmt) => HavocCall | undefined;
  /** The program of a function a havoc's call calls (made when first called); undefined where there is none. */
  readonly programOf?: (callee: string) => CalledProgram | undefined;
  /** The jump over loop iterations whose havoc (`go` or `m`) this is, in a program with jumps (acceleration.ts). */
  readonly jumpAt?: (s: HavocStmt) => LoopJump | undefined;
}

/**
 * A jump over m iterations of a loop (acceleration.ts): `go := havoc; if
 * (go) { m := havoc; the definitions; assume each fact; the updates }`. The
 * facts make every one of the m iterations run as the loop runs them, each
 * assert and assume holding: a run that takes a jump only its facts allow
 * reaches the states the loop reaches, and skips no violation and no place
 * where the path ends. The run takes the longest jump it finds allowed.
 */
export interface LoopJump {
  readonly go: HavocStmt;
  readonly m: HavocStmt;
  /** Variables assigned after m is chosen, before the facts that read them. */
  readonly definitions: readonly { readonly name: string; readonly value: Expr }[];
  readonly facts: readonly Expr[];
  /** The most iterations one jump may cover. */
  readonly max: bigint;
  /** The iterations choose a nondet value (the run declines the jump: the loop reads that value itself). */
  readonly withChoice: boolean;
}

/** A call that a havoc stands for: `callee`'s program, run on the values of `args`, gives the havoc's value. */
export interface HavocCall {
  readonly callee: string;
  readonly args: readonly Expr[];
}

/**
 * The program of a called function: one procedure whose first havocs, of
 * `params`, take the arguments' values; its `result` is read where it
 * ends. The function must touch no state but its own (its result depends
 * on its arguments alone: the caller memoises it).
 */
export interface CalledProgram {
  readonly program: ImpProgram;
  readonly params: readonly string[];
  readonly result?: Expr;
  readonly isNondet: (s: HavocStmt) => boolean;
  readonly endsRun: (s: AssumeStmt) => boolean;
  readonly callAt?: (s: HavocStmt) => HavocCall | undefined;
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
   * there before (in the same call): the program is deterministic, so it
   * repeats that cycle forever, and every goal on it held.
   */
  | { readonly kind: 'repeats'; readonly loc: SourceLocation; readonly steps: number; readonly inCall?: boolean }
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
  const machine = new Machine(options);
  try {
    new Runner(machine, { program, params: [], ...options }, false).invoke([]);
    return { kind: 'holds', steps: machine.steps(), end: 'end' };
  } catch (e) {
    if (e instanceof Stop) return e.verdict.kind === 'ended' ? { kind: 'holds', steps: machine.steps(), end: 'exit' } : e.verdict;
    if (e instanceof Unsupported || e instanceof ImpStop) return { kind: 'undecided', reason: e.message, steps: machine.steps() };
    // Statements nested too deeply for the stack (recursion inlined, or calls, very deep).
    if (e instanceof RangeError) return { kind: 'undecided', reason: 'the program is nested too deeply to execute', steps: machine.steps() };
    throw e;
  }
}

/** What the programs of one run share: the step count and clock, the programs of called functions, the results of calls made. */
class Machine {
  /** Counts one step, and stops the run when the time is up (a closure over a local count: the run's hottest code). */
  readonly tick: () => void;
  /** The steps run so far. */
  readonly steps: () => number;
  private readonly runners = new Map<string, Runner>();
  private readonly results = new Map<string, Val>();

  constructor(readonly options: ExecuteOptions) {
    let steps = 0;
    this.steps = () => steps;
    this.tick = () => {
      if (++steps % CHECK_EVERY === 0 && options.deadline() <= 0) this.undecided(`time limit reached after ${steps} steps of the one execution`);
    };
  }

  undecided(reason: string, loc?: SourceLocation): never {
    throw new Stop({ kind: 'undecided', reason: loc ? `${reason} at ${loc.line}:${loc.column}` : reason, steps: this.steps() });
  }

  /**
   * The result of `callee` on `args`: its program run in a frame of its
   * own, once per arguments (the function depends on them alone; a second
   * run would repeat the first, goals and all).
   */
  call(callee: string, args: readonly Val[], loc: SourceLocation): Val {
    if (args.some((a) => a === INDET)) return this.undecided(`a call of ${callee} with an argument the program does not determine`, loc);
    const key = args.every((a) => typeof a !== 'object') ? `${callee}(${args.map(String).join(',')})` : undefined;
    const known = key === undefined ? undefined : this.results.get(key);
    if (known !== undefined) return known;
    let runner = this.runners.get(callee);
    if (!runner) {
      const p = this.options.programOf?.(callee);
      if (!p) return this.undecided(`a call of ${callee}, whose program the run does not have`, loc);
      this.runners.set(callee, (runner = new Runner(this, p, true)));
    }
    const result = runner.invoke(args);
    if (key !== undefined) this.results.set(key, result);
    return result;
  }
}

/**
 * One program of the run, compiled once into closures over its slots. A
 * call of it (`invoke`) saves the slots of the calls still active,
 * starts from fresh ones and restores them when it returns.
 */
class Runner {
  private readonly slots: Val[] = [];
  private readonly slotIndex = new Map<string, number>();
  /** The slots of declared variables, and of those the maps. */
  private readonly declared = new Set<number>();
  private readonly maps = new Set<number>();
  private readonly exprs: ExprCompiler;
  private readonly proc: Procedure;
  private body: (() => void) | undefined;
  private result: Thunk | undefined;
  private args: readonly Val[] = [];
  private cycles: CycleDetector;

  constructor(
    private readonly machine: Machine,
    private readonly p: CalledProgram,
    /** A called function's program, not the run's main. */
    private readonly called: boolean,
  ) {
    const proc = p.program.procedures.find((q) => q.name === 'main');
    if (!proc?.body || p.program.procedures.length !== 1) throw new Unsupported('the program is not one procedure');
    this.proc = proc;
    for (const d of [...p.program.globals, ...proc.params, ...proc.returns, ...proc.locals]) {
      const k = this.slotOf(d.name);
      this.declared.add(k);
      if (d.type.kind === 'map') this.maps.add(k);
      this.slots[k] = this.initial(k);
    }
    this.exprs = new ExprCompiler(this.slots, (name) => this.slotOf(name), procedureScope(p.program, proc));
    this.cycles = new CycleDetector(this.slots);
  }

  /** Runs the program on `args` (its parameters' values); its result (indeterminate where it has none). */
  invoke(args: readonly Val[]): Val {
    const slots = this.slots;
    const saved = slots.slice();
    const { cycles, args: savedArgs } = this;
    for (let k = 0; k < slots.length; k++) slots[k] = this.initial(k);
    this.args = args;
    this.cycles = new CycleDetector(slots);
    try {
      (this.body ??= this.block(this.proc.body!))();
      return this.p.result ? (this.result ??= this.exprs.compile(this.p.result).run)() : INDET;
    } finally {
      // Slots made while this call compiled more of the program start fresh in the callers too.
      for (let k = 0; k < slots.length; k++) slots[k] = k < saved.length ? saved[k]! : this.initial(k);
      this.cycles = cycles;
      this.args = savedArgs;
    }
  }

  /** A slot's value before the program assigns it: indeterminate (undefined for a name the program does not declare). */
  private initial(k: number): Val {
    if (this.maps.has(k)) return indeterminateMap();
    return this.declared.has(k) ? INDET : (undefined as unknown as Val);
  }

  private slotOf(name: string): number {
    let k = this.slotIndex.get(name);
    if (k === undefined) {
      this.slotIndex.set(name, (k = this.slots.length));
      this.slots.push(undefined as unknown as Val);
    }
    return k;
  }

  private decider(e: Expr, what: string): () => boolean {
    const run = this.exprs.compile(e).run;
    const machine = this.machine;
    return () => {
      const v = run();
      if (v === INDET) return machine.undecided(`${what} depends on a value the program does not determine`, e.loc);
      return v as boolean;
    };
  }

  // The statements of a list. The `if`, `while` and block statements below
  // ask for their lists the first time they run: a run that stops at its
  // first nondet call compiles little of a large program.
  private block(ss: readonly Stmt[]): () => void {
    const fs = ss.map((s) => this.compileStmt(s));
    if (fs.length === 1) return fs[0]!;
    return () => {
      for (const f of fs) f();
    };
  }

  // Each statement counts one step when it starts, a loop one more after each time round its body.
  private compileStmt(s: Stmt): () => void {
    const machine = this.machine;
    const slots = this.slots;
    const tick = machine.tick;
    switch (s.kind) {
      case 'skip':
        return tick;
      case 'assign': {
        const k = this.slotOf(s.target);
        const value = this.assigned(s.target, k, s.value);
        return () => {
          tick();
          slots[k] = value();
        };
      }
      case 'havoc': {
        const k = this.slotOf(s.target);
        const param = this.p.params.indexOf(s.target);
        if (param >= 0) {
          return () => {
            tick();
            slots[k] = this.args[param] ?? INDET;
          };
        }
        const call = this.p.callAt?.(s);
        if (call) {
          const args = call.args.map((a) => this.exprs.compile(a).run);
          return () => {
            tick();
            slots[k] = machine.call(call.callee, args.map((a) => a()), s.loc);
          };
        }
        const jump = machine.options.jumpAt?.(s);
        if (jump) return this.jumpChoice(s, jump, k);
        // Asked when the havoc runs (a lookup in the source map: not for every havoc of a large program).
        let nondet: boolean | undefined;
        return () => {
          tick();
          if ((nondet ??= this.p.isNondet(s))) machine.undecided('a nondet value is read', s.loc);
          slots[k] = slots[k] instanceof MapVal ? indeterminateMap() : INDET;
        };
      }
      case 'assume': {
        const holds = this.decider(s.cond, 'an assumption');
        const ends = this.p.endsRun(s);
        return () => {
          tick();
          if (holds()) return;
          if (ends) throw new Stop({ kind: 'ended' });
          throw new Stop({ kind: 'cut', loc: s.loc, steps: machine.steps() });
        };
      }
      case 'assert': {
        const holds = this.decider(s.cond, 'a goal');
        const role = roleOf(s, machine.options.roles);
        return () => {
          tick();
          if (holds()) return;
          if (role === 'error') throw new Stop({ kind: 'violated', loc: s.loc, ...(s.goal ? { goal: s.goal } : {}), steps: machine.steps() });
          if (role === 'bound') throw new Stop({ kind: 'undecided', reason: 'the execution goes beyond what the model unrolled', bound: s, steps: machine.steps() });
          // A goal of another property: the model ends the path there, which C need not.
          throw new Stop({ kind: 'cut', loc: s.loc, steps: machine.steps() });
        };
      }
      case 'if': {
        const cond = this.decider(s.cond, 'a branch');
        let then: (() => void) | undefined;
        let other: (() => void) | undefined;
        return () => {
          tick();
          if (cond()) (then ??= this.block(s.then))();
          else (other ??= this.block(s.else))();
        };
      }
      case 'while': {
        const cond = this.decider(s.cond, 'a loop condition');
        let compiled: (() => void) | undefined;
        return () => {
          tick();
          const body = (compiled ??= this.block(s.body));
          for (;;) {
            if (this.cycles.seenAgain(s)) throw new Stop({ kind: 'repeats', loc: s.loc, steps: machine.steps(), ...(this.called ? { inCall: true } : {}) });
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
          (body ??= this.block(s.body))();
        };
      }
      case 'call':
        return () => {
          tick();
          machine.undecided(`a call of procedure ${s.proc}`, s.loc);
        };
    }
  }

  /** The iterations the next jump covers: chosen at its `go`, read at its `m`. */
  private jumpLength = 0n;

  /**
   * A jump's havoc: at `go`, the longest jump its facts allow is searched
   * for (doubling m from 1, then bisecting between the last m allowed and
   * the first not), and `go` is whether there is one; at `m`, that length.
   * Only an m whose facts were seen to hold is taken; the facts' assumes,
   * which follow, check them again.
   */
  private jumpChoice(s: HavocStmt, jump: LoopJump, k: number): () => void {
    const tick = this.machine.tick;
    const slots = this.slots;
    if (s === jump.m) {
      return () => {
        tick();
        slots[k] = this.jumpLength;
      };
    }
    const m = this.slotOf(jump.m.target);
    const definitions = jump.definitions.map((d) => ({ k: this.slotOf(d.name), value: this.exprs.compile(d.value).run }));
    const facts = jump.facts.map((f) => this.exprs.compile(f).run);
    const touched = [m, ...definitions.map((d) => d.k)];
    const allowed = (length: bigint): boolean => {
      slots[m] = length;
      for (const d of definitions) slots[d.k] = d.value();
      return facts.every((f) => f() === true);
    };
    return () => {
      tick();
      let good = 0n;
      if (!jump.withChoice) {
        const saved = touched.map((t) => slots[t]!);
        let next = 1n;
        while (allowed(next)) {
          good = next;
          if (good === jump.max) break;
          next = good * 2n < jump.max ? good * 2n : jump.max;
        }
        // `next` is not allowed (unless good reached the most): bisect between them.
        for (let bad = next; good > 0n && good < jump.max && bad - good > 1n; ) {
          const mid = (good + bad) / 2n;
          if (allowed(mid)) good = mid;
          else bad = mid;
        }
        touched.forEach((t, i) => (slots[t] = saved[i]!));
      }
      this.jumpLength = good;
      slots[k] = good > 0n;
    };
  }

  /** The value `target := value` assigns: a store into `target`'s own map that nothing shares happens in place. */
  private assigned(target: string, k: number, value: Expr): Thunk {
    const slots = this.slots;
    const whole = this.exprs.compile(value).run;
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
    const inPlace = this.exprs.storesInPlace(chain.reverse());
    return () => {
      const own = slots[k];
      if (!(own instanceof MapVal) || own.shared) return general();
      inPlace(own);
      return own;
    };
  }
}

/** Beyond this many values in the state (map elements included), the run looks for no cycle: each comparison would cost more than it may save. */
const MAX_COMPARED_VALUES = 4096;

/**
 * Brent's cycle detection over the run's loop-head configurations: the
 * configuration at every visit is compared with one saved at the visits
 * numbered by powers of two, so a cycle is found within a few times its
 * start and length. A loop head and the state make the whole
 * configuration: the program is one procedure whose calls depend on their
 * arguments alone, so where the run goes on from a statement depends on
 * that statement alone. One detector per call: the frames below it are
 * not part of the state it compares.
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
