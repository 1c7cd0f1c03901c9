// Explicit exploration of every interleaving of an interleaved program
// (interleave.ts): from the state after its initialisation, every running
// thread's step is executed concretely (the IMP interpreter's semantics),
// and every state reached is visited once (states are compared whole). When
// the exploration ends without a failing goal, every execution of the
// program has been covered, however long (spinning loops revisit states):
// a TRUE for every schedule.
//
// Data the schedule does not decide (a nondet call, an uninitialised
// variable, heap contents before they are written) is *unknown*: copied and
// combined freely. A branch on unknown data takes both ways (the step is
// run again for each sequence of choices), an assumption on it passes, a
// goal on it may fail: more executions than the program has, so a TRUE
// still covers them all, but a goal that depends on unknown data is no TRUE
// (and a violation on a path through such choices is only a candidate, for
// the replay to confirm). An assumption `x == c` of an unknown x makes x c.
import { evalExpr, ImpStop, valueKey, type ImpValue } from '../ivl/interp.js';
import type { Expr, ImpProgram, Stmt } from '../ivl/ast.js';
import { roleOf, type GoalRoles } from '../engines/unroll.js';
import { SCHEDULE_VARS } from './interleave.js';
import type { ScheduleHavoc } from './schedule.js';
import type { SourceLocation } from '../common/location.js';
import type { Goal } from '../ivl/ast.js';

export interface ExploreOptions {
  readonly roles: GoalRoles;
  /** Wall-clock budget in milliseconds. */
  readonly budgetMs: number;
  /** States visited at most (default 200 000). */
  readonly maxStates?: number;
  /** Called with each state where the program has ended (the scheduler loop's exit), unknown values undefined. */
  readonly onEnd?: (values: ReadonlyMap<string, ImpValue | undefined>) => void;
}

export interface ExploreResult {
  /** `true`: no goal fails in any interleaving; `false`: a violation is reachable; `unknown`: the exploration gave up. */
  readonly verdict: 'true' | 'false' | 'unknown';
  readonly reason: string;
  readonly states: number;
  /** A bound goal was reached (the verdict is then never `true`). */
  readonly boundReached?: boolean;
  /** For `false`: the path to the violation. */
  readonly trace?: ExploreTrace;
}

/**
 * A path to a violation, as a counterexample's havocs: the scheduler's
 * choice of each step, the schedule's operations, and every other havoc
 * (nondet calls) with value 0, or the value an assumption pinned later
 * when the havocked variable itself was pinned (data the exploration never
 * branched on, so other values take the same path unless copies were pinned:
 * the replay decides).
 */
export interface ExploreTrace {
  readonly havocs: readonly ScheduleHavoc[];
  /** The failing assert's goal. */
  readonly goal: Goal | undefined;
  readonly loc: SourceLocation;
}

/** The unknown value (see the header). */
const UNKNOWN: unique symbol = Symbol('unknown');
type Value = ImpValue | typeof UNKNOWN;
type State = Map<string, Value>;

class GiveUp extends Error {}
/** A branch on unknown data with no choice given for it yet (outside a step: give up). */
class NeedChoice extends GiveUp {}
class Blocked extends Error {}

/** Choices of unknown branches in one step at most. */
const MAX_CHOICES = 16;
class Failed extends Error {
  constructor(
    readonly role: 'error' | 'bound',
    message: string,
    readonly assert: Extract<Stmt, { kind: 'assert' }>,
  ) {
    super(message);
  }
}

/** A havoc on the path, its value settled once the step is over. */
interface Event {
  readonly loc: SourceLocation;
  readonly target: string;
  value: bigint;
}

/** A state reached, with the step that led there (for the trace). */
interface Node {
  readonly state: State;
  readonly parent: Node | undefined;
  readonly events: readonly Event[];
}

const SKIPPED_IN_KEYS = new Set<string>([SCHEDULE_VARS.thread, SCHEDULE_VARS.op, SCHEDULE_VARS.next, '$sched.run']);

/** Explores the interleavings of an interleaved program (the output of `interleave`). */
export function exploreInterleavings(program: ImpProgram, options: ExploreOptions): ExploreResult {
  const main = program.procedures.find((p) => p.name === 'main');
  const body = main?.body ?? [];
  const loop = body[body.length - 1];
  if (!main || loop?.kind !== 'while') return { verdict: 'unknown', reason: 'not an interleaved program', states: 0 };
  const threads = threadNumbers(loop.body);
  const x = new Explorer(options);
  const stop = Date.now() + options.budgetMs;
  const maxStates = options.maxStates ?? 200_000;
  let node: Node | undefined;
  const seen = new Set<string>();
  // A bound goal reached: that path is cut (it may still lead to a violation elsewhere), but no TRUE.
  let bound: string | undefined;
  try {
    const init: State = new Map();
    x.run(body.slice(0, -1), init);
    const root: Node = { state: init, parent: undefined, events: x.takeEvents() };
    seen.add(stateKey(init));
    const todo: Node[] = [root];
    while (todo.length > 0) {
      if (Date.now() > stop) return { verdict: 'unknown', reason: `time budget spent after ${seen.size} states`, states: seen.size };
      if (seen.size > maxStates) return { verdict: 'unknown', reason: `more than ${maxStates} states`, states: seen.size };
      node = todo.pop()!;
      const s = node.state;
      if (!x.truth(loop.cond, s)) {
        options.onEnd?.(new Map([...s].map(([k, v]) => [k, v === UNKNOWN ? undefined : v])));
        continue;
      }
      // Each thread's step, once per sequence of choices of the unknown branches it meets.
      const runs: Array<{ t: number; choices: boolean[] }> = threads.map((t) => ({ t, choices: [] })).reverse();
      while (runs.length > 0) {
        const { t, choices } = runs.pop()!;
        const next = new Map(s);
        next.set(SCHEDULE_VARS.thread, { kind: 'bv', value: BigInt(t), width: 32 });
        x.choose(choices);
        try {
          x.run(loop.body, next);
        } catch (e) {
          x.takeEvents();
          if (e instanceof NeedChoice) {
            if (choices.length >= MAX_CHOICES) throw new GiveUp(`more than ${MAX_CHOICES} branches on unknown data in one step (${e.message})`);
            runs.push({ t, choices: [...choices, false] }, { t, choices: [...choices, true] });
            continue;
          }
          if (e instanceof Blocked) continue;
          if (e instanceof Failed && e.role === 'bound') {
            bound ??= e.message;
            continue;
          }
          throw e;
        } finally {
          x.choose([]);
        }
        const k = stateKey(next);
        const events = x.takeEvents();
        if (!seen.has(k)) {
          seen.add(k);
          todo.push({ state: next, parent: node, events });
        }
      }
    }
    if (bound) return { verdict: 'unknown', reason: bound, states: seen.size, boundReached: true };
    if (x.possible) return { verdict: 'unknown', reason: x.possible, states: seen.size };
    return { verdict: 'true', reason: `${seen.size} states explored`, states: seen.size };
  } catch (e) {
    if (e instanceof GiveUp) return { verdict: 'unknown', reason: e.message, states: seen.size };
    if (e instanceof Failed) {
      // The failing step's events, after those of the steps that led to its state.
      const steps: (readonly Event[])[] = [x.takeEvents()];
      for (let n = node; n; n = n.parent) steps.unshift(n.events);
      const havocs = steps.flat().map((h) => ({ loc: h.loc, target: h.target, value: h.value }));
      return { verdict: 'false', reason: e.message, states: seen.size, trace: { havocs, goal: e.assert.goal, loc: e.assert.loc } };
    }
    throw e;
  }
}

/** The thread numbers the scheduler chooses among (`if ($sched.thread == k)` chain). */
function threadNumbers(ss: readonly Stmt[]): number[] {
  const out: number[] = [];
  let s: Stmt | undefined = ss.find((x) => x.kind === 'if');
  while (s?.kind === 'if') {
    const c = s.cond;
    if (c.kind === 'binary' && c.op === '==' && c.right.kind === 'bv_lit') out.push(Number(c.right.value));
    s = s.else[0];
  }
  return out;
}

function stateKey(s: State): string {
  const parts: string[] = [];
  for (const [k, v] of [...s.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    if (SKIPPED_IN_KEYS.has(k)) continue;
    parts.push(`${k}=${key(v)}`);
  }
  return parts.join(';');
}

/** Whether a value is unknown or a map with an unknown part. */
function hasUnknown(v: Value): boolean {
  if (v === UNKNOWN) return true;
  if (v.kind !== 'map') return false;
  if (hasUnknown(v.default as Value)) return true;
  for (const e of v.entries.values()) if (hasUnknown(e.value as Value)) return true;
  return false;
}

function key(v: Value): string {
  if (v === UNKNOWN) return '?';
  if (v.kind !== 'map') return valueKey(v);
  const d = v.default as Value;
  const es = [...v.entries.values()].map((e) => `${valueKey(e.index)}:${key(e.value as Value)}`).sort();
  return `{${es.join(',')}|${key(d)}}`;
}

class Explorer {
  private steps = 0;
  /** The havocs of the step being run; `pinned`: the event of each variable still unknown since its havoc. */
  private events: Event[] = [];
  private pinned = new Map<string, Event>();
  constructor(private readonly options: ExploreOptions) {}

  /** The choices of the unknown branches of the step to run. */
  private choices: readonly boolean[] = [];
  private choiceIndex = 0;
  /** A goal that depends on unknown data: it may fail. */
  possible: string | undefined;

  choose(choices: readonly boolean[]): void {
    this.choices = choices;
    this.choiceIndex = 0;
  }

  takeEvents(): Event[] {
    const e = this.events;
    this.events = [];
    this.pinned.clear();
    return e;
  }

  run(ss: readonly Stmt[], st: State): void {
    for (const s of ss) this.stmt(s, st);
  }

  truth(e: Expr, st: State): boolean {
    const v = this.eval(e, st);
    if (v === UNKNOWN) {
      if (this.choiceIndex < this.choices.length) return this.choices[this.choiceIndex++]!;
      throw new NeedChoice(`a condition at ${e.loc.line}:${e.loc.column} depends on unknown data`);
    }
    return v.kind === 'bool' && v.value;
  }

  private stmt(s: Stmt, st: State): void {
    if (++this.steps > 50_000_000) throw new GiveUp('too many statements executed');
    switch (s.kind) {
      case 'skip':
        return;
      case 'assign':
        st.set(s.target, this.eval(s.value, st));
        this.pinned.delete(s.target);
        return;
      case 'havoc':
        // The scheduler's choice is the explorer's: each thread in turn (exploreInterleavings).
        if (s.target === SCHEDULE_VARS.thread) {
          const t = st.get(s.target);
          this.events.push({ loc: s.loc, target: s.target, value: t !== undefined && t !== UNKNOWN && t.kind === 'bv' ? t.value : 0n });
          return;
        }
        st.set(s.target, UNKNOWN);
        {
          const e: Event = { loc: s.loc, target: s.target, value: 0n };
          this.events.push(e);
          this.pinned.set(s.target, e);
        }
        return;
      case 'assume': {
        const c = s.cond;
        const v = this.eval(c, st);
        if (v === UNKNOWN) {
          // `x == c` of an unknown x: x is c from here on.
          if (c.kind === 'binary' && c.op === '==' && c.left.kind === 'var' && st.get(c.left.name) === UNKNOWN) {
            const r = this.eval(c.right, st);
            if (r !== UNKNOWN) {
              st.set(c.left.name, r);
              const e = this.pinned.get(c.left.name);
              if (e && (r.kind === 'bv' || r.kind === 'int')) e.value = r.value;
              else if (e && r.kind === 'bool') e.value = r.value ? 1n : 0n;
              return;
            }
          }
          // Unknown data may satisfy it: the path goes on (more executions than the program has).
          return;
        }
        if (!(v.kind === 'bool' && v.value)) throw new Blocked();
        return;
      }
      case 'assert': {
        const role = roleOf(s, this.options.roles);
        const v = this.eval(s.cond, st);
        if (v === UNKNOWN) {
          // It may fail: no TRUE (the exploration goes on, for a violation that does not depend on unknown data).
          if (role === 'error') this.possible ??= `a goal (${s.goal?.kind ?? 'assert'}) at ${s.loc.line}:${s.loc.column} depends on unknown data`;
          if (role === 'bound') throw new Failed('bound', `a bound (${s.goal?.kind ?? 'assert'}) at ${s.loc.line}:${s.loc.column} may be reachable`, s);
          return;
        }
        if (v.kind === 'bool' && v.value) return;
        if (role === 'assume') throw new Blocked();
        throw new Failed(role, `${role === 'error' ? 'a violation' : 'a bound'} (${s.goal?.kind ?? 'assert'}) at ${s.loc.line}:${s.loc.column} is reachable`, s);
      }
      case 'if':
        this.run(this.truth(s.cond, st) ? s.then : s.else, st);
        return;
      case 'while':
        while (this.truth(s.cond, st)) {
          this.run(s.body, st);
          if (++this.steps > 50_000_000) throw new GiveUp('too many statements executed');
        }
        return;
      case 'block':
        this.run(s.body, st);
        return;
      case 'call':
        throw new GiveUp(`a call of ${s.proc}`);
    }
  }

  eval(e: Expr, st: State): Value {
    switch (e.kind) {
      case 'var': {
        const v = st.get(e.name);
        return v === undefined ? UNKNOWN : v;
      }
      case 'select': {
        const m = this.eval(e.map, st);
        const i = this.eval(e.index, st);
        if (m === UNKNOWN || i === UNKNOWN || m.kind !== 'map') return UNKNOWN;
        const hit = m.entries.get(valueKey(i));
        return (hit ? hit.value : m.default) as Value;
      }
      case 'store': {
        const m = this.eval(e.map, st);
        const i = this.eval(e.index, st);
        const val = this.eval(e.value, st);
        if (m === UNKNOWN || i === UNKNOWN || m.kind !== 'map') return m === UNKNOWN || m.kind !== 'map' ? UNKNOWN : { kind: 'map', default: UNKNOWN as unknown as ImpValue, entries: new Map() };
        const entries = new Map(m.entries);
        entries.set(valueKey(i), { index: i, value: val as ImpValue });
        return { kind: 'map', default: m.default, entries };
      }
      case 'ite': {
        const c = this.eval(e.cond, st);
        if (c !== UNKNOWN) return c.kind === 'bool' && c.value ? this.eval(e.then, st) : this.eval(e.else, st);
        const a = this.eval(e.then, st);
        const b = this.eval(e.else, st);
        return a !== UNKNOWN && b !== UNKNOWN && key(a) === key(b) ? a : UNKNOWN;
      }
      case 'binary':
        if (e.op === '&&' || e.op === '||' || e.op === '==>') {
          const l = this.eval(e.left, st);
          const decisive = e.op === '||';
          if (l !== UNKNOWN && l.kind === 'bool' && l.value === decisive) return l;
          if (l !== UNKNOWN && l.kind === 'bool' && e.op === '==>' && !l.value) return { kind: 'bool', value: true };
          const r = this.eval(e.right, st);
          if (r !== UNKNOWN && r.kind === 'bool' && r.value === (e.op === '&&' ? false : true)) return r;
          if (l === UNKNOWN || r === UNKNOWN) return UNKNOWN;
          return this.apply(e, [l, r]);
        }
        return this.apply(e, [this.eval(e.left, st), this.eval(e.right, st)]);
      case 'unary':
        return this.apply(e, [this.eval(e.arg, st)]);
      case 'app':
        return this.apply(
          e,
          e.args.map((a) => this.eval(a, st)),
        );
      default:
        return evalExpr(e, new Map());
    }
  }

  /** An operator on known values (the interpreter's semantics), unknown if an operand is. */
  private apply(e: Expr, args: Value[]): Value {
    if (args.some(hasUnknown)) return UNKNOWN;
    const names = args.map((_, i) => `$${i}`);
    const vars = names.map((name): Expr => ({ kind: 'var', name, loc: e.loc }));
    let node: Expr;
    if (e.kind === 'binary') node = { ...e, left: vars[0]!, right: vars[1]! };
    else if (e.kind === 'unary') node = { ...e, arg: vars[0]! };
    else if (e.kind === 'app') node = { ...e, args: vars };
    else return UNKNOWN;
    try {
      return evalExpr(node, new Map(names.map((n, i) => [n, args[i] as ImpValue])));
    } catch (err) {
      if (err instanceof ImpStop) throw new GiveUp(`${err.message} at ${e.loc.line}:${e.loc.column}`);
      throw err;
    }
  }
}
