// The one execution of a program without nondeterminism, run with the
// verifier's own semantics: the lowered IMP program executed along its one
// path, every goal checked on the way.
//
// A gcc run is evidence for a violation, never a proof of its absence: gcc
// folds overflows away before a sanitizer sees them, keeps the old contents
// of a block-local array re-entered in a loop, and valgrind checks another
// data model. The IMP program is C's semantics as the verifier models it, so
// its one run decides exactly what a complete unrolling would decide.
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
import { compareBitVectors, evalExpr, ImpStop, valuesEqual, type ImpValue } from '../ivl/interp.js';
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

/** An indeterminate value. */
const INDET: unique symbol = Symbol('indeterminate');
type Indet = typeof INDET;

/** A map index: a number where the value is a safe integer (Map hashes numbers much faster than bigints), else the bigint; a bijection. */
type Key = number | bigint | boolean;

/**
 * A map value, updated in place while no other variable shares it. The
 * elements at 0, 1, 2, ... as far as all are stored are kept in an array
 * (C arrays are mostly filled from 0 upward: a JS Map of 100,000 entries
 * made most of such a run's time), the others in a Map.
 */
class MapVal {
  /** Set once two variables (or a variable and an expression's result) may hold this object: the next store copies it. */
  shared = false;
  constructor(
    public fallback: Val,
    private readonly entries: Map<Key, Val> = new Map(),
    /** The elements at 0 .. dense.length - 1 (none of these indexes is in `entries`). */
    private readonly dense: Val[] = [],
  ) {}
  /** The element stored at `k`, undefined where none is (the fallback then holds). */
  lookup(k: Key): Val | undefined {
    return typeof k === 'number' && k >= 0 && k < this.dense.length ? this.dense[k] : this.entries.get(k);
  }
  get(k: Key): Val {
    const v = this.lookup(k);
    return v === undefined ? this.fallback : v;
  }
  /** Stores `v` at `k`; at an indeterminate index any element may change: all become indeterminate. */
  put(k: Key | Indet, v: Val): void {
    if (v instanceof MapVal) v.shared = true;
    if (k === INDET) {
      this.entries.clear();
      this.dense.length = 0;
      this.fallback = INDET;
    } else if (typeof k === 'number' && k >= 0 && k <= this.dense.length) {
      if (k === this.dense.length && this.entries.size > 0) this.entries.delete(k);
      this.dense[k] = v;
    } else this.entries.set(k, v);
  }
  /** The stored elements. */
  *stored(): Generator<[Key, Val]> {
    for (let i = 0; i < this.dense.length; i++) yield [i, this.dense[i]!];
    yield* this.entries;
  }
  copy(): MapVal {
    return new MapVal(this.fallback, new Map(this.entries), this.dense.slice());
  }
}
/** A map whose every element is indeterminate. */
const indeterminateMap = () => new MapVal(INDET);
type Val = ImpValue | Indet | MapVal;

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
  const state = new Map<string, Val>();
  for (const d of [...program.globals, ...proc.params, ...proc.returns, ...proc.locals]) state.set(d.name, d.type.kind === 'map' ? indeterminateMap() : INDET);
  let steps = 0;
  const undecided = (reason: string, loc?: SourceLocation): never => {
    throw new Stop({ kind: 'undecided', reason: loc ? `${reason} at ${loc.line}:${loc.column}` : reason, steps });
  };
  const ev = new Evaluator(state);
  const cycles = new CycleDetector(state);
  const decide = (e: Expr, what: string): boolean => {
    const v = ev.eval(e);
    if (v === INDET) return undecided(`${what} depends on a value the program does not determine`, e.loc);
    return (v as { value: boolean }).value;
  };
  const run = (ss: readonly Stmt[]): void => {
    for (const s of ss) step(s);
  };
  const step = (s: Stmt): void => {
    if (++steps % CHECK_EVERY === 0 && options.deadline() <= 0) undecided(`time limit reached after ${steps} steps of the one execution`);
    switch (s.kind) {
      case 'skip':
        return;
      case 'assign':
        state.set(s.target, ev.assigned(s.target, s.value));
        return;
      case 'havoc':
        if (options.isNondet(s)) undecided('a nondet value is read', s.loc);
        state.set(s.target, state.get(s.target) instanceof MapVal ? indeterminateMap() : INDET);
        return;
      case 'assume':
        if (!decide(s.cond, 'an assumption')) {
          if (options.endsRun(s)) throw new Stop({ kind: 'ended' });
          throw new Stop({ kind: 'cut', loc: s.loc, steps });
        }
        return;
      case 'assert': {
        if (decide(s.cond, 'a goal')) return;
        const role = roleOf(s, options.roles);
        if (role === 'error') throw new Stop({ kind: 'violated', loc: s.loc, ...(s.goal ? { goal: s.goal } : {}), steps });
        if (role === 'bound') throw new Stop({ kind: 'undecided', reason: 'the execution goes beyond what the model unrolled', bound: s, steps });
        // A goal of another property: the model ends the path there, which C need not.
        throw new Stop({ kind: 'cut', loc: s.loc, steps });
      }
      case 'if':
        run(decide(s.cond, 'a branch') ? s.then : s.else);
        return;
      case 'while':
        for (;;) {
          if (cycles.seenAgain(s)) throw new Stop({ kind: 'repeats', loc: s.loc, steps });
          if (!decide(s.cond, 'a loop condition')) break;
          run(s.body);
          if (++steps % CHECK_EVERY === 0 && options.deadline() <= 0) undecided(`time limit reached after ${steps} steps of the one execution`);
        }
        return;
      case 'block':
        run(s.body);
        return;
      case 'call':
        return undecided(`a call of procedure ${s.proc}`, s.loc);
    }
  };
  try {
    run(proc.body);
    return { kind: 'holds', steps, end: 'end' };
  } catch (e) {
    if (e instanceof Stop) return e.verdict.kind === 'ended' ? { kind: 'holds', steps, end: 'exit' } : e.verdict;
    if (e instanceof Unsupported || e instanceof ImpStop) return { kind: 'undecided', reason: e.message, steps };
    // Statements nested too deeply for the stack (recursion inlined very deep).
    if (e instanceof RangeError) return { kind: 'undecided', reason: 'the program is nested too deeply to execute', steps };
    throw e;
  }
}

class Unsupported extends Error {}

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
  private saved: { loop: Stmt; state: Map<string, Val> } | undefined;
  private visits = 0;
  private nextSave = 1;
  private off = false;
  // The variable that differed last time: usually a counter, so usually the first to differ again.
  private lastDifference: string | undefined;

  constructor(private readonly state: Map<string, Val>) {}

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

  private sameAsSaved(saved: Map<string, Val>): boolean {
    const first = this.lastDifference;
    if (first !== undefined && !sameVal(saved.get(first)!, this.state.get(first)!)) return false;
    for (const [name, v] of this.state) {
      if (!sameVal(saved.get(name)!, v)) {
        this.lastDifference = name;
        return false;
      }
    }
    return true;
  }
}

/** A deep copy of the state (maps are updated in place), or undefined when it holds too many values to compare. */
function snapshot(state: Map<string, Val>): Map<string, Val> | undefined {
  let count = 0;
  const copy = (v: Val): Val => {
    count++;
    if (!(v instanceof MapVal)) return v;
    const out = new MapVal(copy(v.fallback));
    for (const [k, e] of v.stored()) out.put(k, copy(e));
    return out;
  };
  const out = new Map<string, Val>();
  for (const [name, v] of state) out.set(name, copy(v));
  return count > MAX_COMPARED_VALUES ? undefined : out;
}

function sameVal(a: Val, b: Val): boolean {
  if (a === b) return true;
  if (a === INDET || b === INDET) return false;
  if (a instanceof MapVal || b instanceof MapVal) {
    if (!(a instanceof MapVal && b instanceof MapVal) || !sameVal(a.fallback, b.fallback)) return false;
    let count = 0;
    for (const [k, e] of a.stored()) {
      const f = b.lookup(k);
      if (f === undefined || !sameVal(e, f)) return false;
      count++;
    }
    for (const _ of b.stored()) if (--count < 0) return false;
    return true;
  }
  if ((a.kind === 'bv' && b.kind === 'bv') || (a.kind === 'int' && b.kind === 'int') || (a.kind === 'bool' && b.kind === 'bool')) return a.value === b.value;
  return valuesEqual(a, b);
}

/** Evaluates IMP expressions over values that may be indeterminate; the operators' semantics are the IMP interpreter's. */
class Evaluator {
  constructor(private readonly state: Map<string, Val>) {}

  /** The value `target := value` assigns: a store into `target`'s own map that nothing shares happens in place. */
  assigned(target: string, value: Expr): Val {
    if (value.kind === 'store') {
      const chain: { index: Expr; value: Expr }[] = [];
      let base: Expr = value;
      while (base.kind === 'store') {
        chain.push({ index: base.index, value: base.value });
        base = base.map;
      }
      const own = base.kind === 'var' && base.name === target ? this.state.get(target) : undefined;
      if (own instanceof MapVal && !own.shared) {
        // Indexes and values read the state before any of the stores.
        const updates = chain.reverse().map((u): { key: Key | Indet; value: Val } => ({ key: this.key(this.eval(u.index)), value: this.eval(u.value) }));
        for (const u of updates) own.put(u.key, u.value);
        return own;
      }
    }
    const v = this.eval(value);
    // A store's result is a fresh copy; anything else may be held elsewhere too.
    if (v instanceof MapVal && value.kind !== 'store') v.shared = true;
    return v;
  }

  eval(e: Expr): Val {
    switch (e.kind) {
      case 'var': {
        const v = this.state.get(e.name);
        if (v === undefined) throw new Unsupported(`unknown variable ${e.name}`);
        return v;
      }
      case 'select': {
        const m = this.eval(e.map);
        if (m === INDET) return INDET;
        if (!(m instanceof MapVal)) throw new Unsupported('select on a value that is not a map');
        // At an indeterminate index, any element (or any value outside the object) may be read.
        const i = this.key(this.eval(e.index));
        return i === INDET ? INDET : m.get(i);
      }
      case 'store': {
        const m = this.eval(e.map);
        const i = this.key(this.eval(e.index));
        const v = this.eval(e.value);
        if (m !== INDET && !(m instanceof MapVal)) throw new Unsupported('store into a value that is not a map');
        const copy = m === INDET ? indeterminateMap() : m.copy();
        copy.put(i, v);
        return copy;
      }
      case 'ite': {
        const c = this.eval(e.cond);
        if (c === INDET) {
          const a = this.eval(e.then);
          const b = this.eval(e.else);
          return a !== INDET && b !== INDET && !(a instanceof MapVal) && !(b instanceof MapVal) && sameScalar(a, b) ? a : INDET;
        }
        return (c as { value: boolean }).value ? this.eval(e.then) : this.eval(e.else);
      }
      case 'binary':
        if (e.op === '&&' || e.op === '||' || e.op === '==>') return this.logical(e.op, e.left, e.right);
        return this.apply(e, [e.left, e.right]);
      case 'unary':
        return this.apply(e, [e.arg]);
      case 'app':
        if (e.fn === 'old') throw new Unsupported('old() outside a contract');
        return this.apply(e, e.args);
      default: {
        // Literals and the like: the same value every time (nodes are never changed).
        let v = constants.get(e);
        if (v === undefined) constants.set(e, (v = evalExpr(e, EMPTY)));
        return v;
      }
    }
  }

  /** `&&`, `||`, `==>` with an indeterminate operand: decided when the other one decides alone. */
  private logical(op: '&&' | '||' | '==>', left: Expr, right: Expr): Val {
    const l = this.eval(left);
    const absorbing = op === '||'; // the left value that decides alone (for ==>, a false left)
    if (l !== INDET) {
      const lv = (l as { value: boolean }).value;
      if (op === '==>') return lv ? this.eval(right) : TRUE;
      if (lv === absorbing) return l;
      return this.eval(right);
    }
    const r = this.eval(right);
    if (r === INDET) return INDET;
    const rv = (r as { value: boolean }).value;
    if (op === '==>') return rv ? TRUE : INDET;
    return rv === absorbing ? r : INDET;
  }

  /** An operator on scalar operands: indeterminate if one is, else the interpreter's result. */
  private apply(e: Expr & { kind: 'binary' | 'unary' | 'app' }, args: readonly Expr[]): Val {
    if (args.length === 2) {
      // The usual case first, without building arrays (most of a long run's time).
      const a = this.eval(args[0]!);
      const b = this.eval(args[1]!);
      if (a === INDET || b === INDET) return INDET;
      if (!(a instanceof MapVal) && !(b instanceof MapVal)) {
        const direct = bitVectorOp(e, a, b);
        if (direct !== undefined) return direct;
      }
      return this.applyValues(e, [a, b]);
    }
    return this.applyValues(
      e,
      args.map((a) => this.eval(a)),
    );
  }

  private applyValues(e: Expr & { kind: 'binary' | 'unary' | 'app' }, values: readonly Val[]): Val {
    if (values.some((v) => v === INDET)) return INDET;
    if (values.some((v) => v instanceof MapVal)) throw new Unsupported(`'${e.kind === 'app' ? e.fn : e.op}' on maps`);
    const lits = (values as ImpValue[]).map((v) => literal(v, e.loc));
    const node: Expr =
      e.kind === 'binary' ? { ...e, left: lits[0]!, right: lits[1]! } : e.kind === 'unary' ? { ...e, arg: lits[0]! } : { ...e, args: lits };
    return evalExpr(node, EMPTY);
  }

  private key(v: Val): Key | Indet {
    if (v === INDET) return INDET;
    if (v instanceof MapVal) throw new Unsupported('a map used as a map index');
    if (v.kind === 'bool') return v.value;
    if (v.kind === 'bv' || v.kind === 'int') return v.value >= MIN_SAFE && v.value <= MAX_SAFE ? Number(v.value) : v.value;
    throw new Unsupported(`a ${v.kind} map index`);
  }
}

const EMPTY: ReadonlyMap<string, ImpValue> = new Map();
/** The values of the expressions without variables that `eval` leaves to the interpreter (literals), by node. */
const constants = new WeakMap<Expr, ImpValue>();
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MIN_SAFE = -MAX_SAFE;
const TRUE: ImpValue = { kind: 'bool', value: true };
const FALSE: ImpValue = { kind: 'bool', value: false };

/**
 * The most frequent operators on two bit-vectors, computed directly with
 * the interpreter's semantics (test/engines/execute.test.ts compares the
 * two); undefined for every other operator, which goes through literal
 * nodes and `evalExpr` (building those dominated the run's time).
 */
function bitVectorOp(e: Expr & { kind: 'binary' | 'unary' | 'app' }, a: ImpValue, b: ImpValue): ImpValue | undefined {
  if (a.kind !== 'bv' || b.kind !== 'bv' || a.width !== b.width) return undefined;
  const w = a.width;
  const bv = (v: bigint): ImpValue => ({ kind: 'bv', value: BigInt.asUintN(w, v), width: w });
  const bool = (c: boolean): ImpValue => (c ? TRUE : FALSE);
  if (e.kind === 'binary') {
    switch (e.op) {
      case '+':
        return bv(a.value + b.value);
      case '-':
        return bv(a.value - b.value);
      case '*':
        return bv(a.value * b.value);
      case '&':
        return bv(a.value & b.value);
      case '|':
        return bv(a.value | b.value);
      case '^':
        return bv(a.value ^ b.value);
      case '==':
        return bool(a.value === b.value);
      case '!=':
        return bool(a.value !== b.value);
      default:
        return undefined;
    }
  }
  if (e.kind !== 'app') return undefined;
  const compared = compareBitVectors(e.fn, a.value, b.value, w);
  return compared === undefined ? undefined : bool(compared);
}

function sameScalar(a: ImpValue, b: ImpValue): boolean {
  return a.kind === b.kind && (a as { value: unknown }).value === (b as { value: unknown }).value;
}

/** An IMP literal of a scalar value. */
function literal(v: ImpValue, loc: SourceLocation): Expr {
  switch (v.kind) {
    case 'bool':
      return { kind: 'bool_lit', value: v.value, loc };
    case 'bv':
      return { kind: 'bv_lit', value: v.value, width: v.width, loc };
    case 'int':
      return v.value >= 0n ? { kind: 'int_lit', value: v.value, loc } : { kind: 'unary', op: '-', arg: { kind: 'int_lit', value: -v.value, loc }, loc };
    default:
      throw new Unsupported(`a ${v.kind} value`);
  }
}
