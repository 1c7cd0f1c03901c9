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
// combined freely, it makes the exploration give up as soon as a branch,
// an assumption, a goal or a loop condition depends on it (then some other
// engine must decide). An assumption `x == c` of an unknown x makes x c.
import { evalExpr, ImpStop, valueKey, type ImpValue } from '../ivl/interp.js';
import type { Expr, ImpProgram, Stmt } from '../ivl/ast.js';
import { roleOf, type GoalRoles } from '../engines/unroll.js';
import { SCHEDULE_VARS } from './interleave.js';

export interface ExploreOptions {
  readonly roles: GoalRoles;
  /** Wall-clock budget in milliseconds. */
  readonly budgetMs: number;
  /** States visited at most (default 200 000). */
  readonly maxStates?: number;
}

export interface ExploreResult {
  /** `true`: no goal fails in any interleaving; `false`: a violation is reachable; `unknown`: the exploration gave up. */
  readonly verdict: 'true' | 'false' | 'unknown';
  readonly reason: string;
  readonly states: number;
}

/** The unknown value (see the header). */
const UNKNOWN: unique symbol = Symbol('unknown');
type Value = ImpValue | typeof UNKNOWN;
type State = Map<string, Value>;

class GiveUp extends Error {}
class Blocked extends Error {}
class Failed extends Error {
  constructor(
    readonly role: 'error' | 'bound',
    message: string,
  ) {
    super(message);
  }
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
  try {
    const init: State = new Map();
    x.run(body.slice(0, -1), init);
    const seen = new Set<string>([stateKey(init)]);
    const todo: State[] = [init];
    while (todo.length > 0) {
      if (Date.now() > stop) return { verdict: 'unknown', reason: `time budget spent after ${seen.size} states`, states: seen.size };
      if (seen.size > maxStates) return { verdict: 'unknown', reason: `more than ${maxStates} states`, states: seen.size };
      const s = todo.pop()!;
      if (!x.truth(loop.cond, s)) continue;
      for (const t of threads) {
        const next = new Map(s);
        next.set(SCHEDULE_VARS.thread, { kind: 'bv', value: BigInt(t), width: 32 });
        try {
          x.run(loop.body, next);
        } catch (e) {
          if (e instanceof Blocked) continue;
          throw e;
        }
        const k = stateKey(next);
        if (!seen.has(k)) {
          seen.add(k);
          todo.push(next);
        }
      }
    }
    return { verdict: 'true', reason: `${seen.size} states explored`, states: seen.size };
  } catch (e) {
    if (e instanceof GiveUp) return { verdict: 'unknown', reason: e.message, states: 0 };
    if (e instanceof Failed) return { verdict: e.role === 'error' ? 'false' : 'unknown', reason: e.message, states: 0 };
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
  constructor(private readonly options: ExploreOptions) {}

  run(ss: readonly Stmt[], st: State): void {
    for (const s of ss) this.stmt(s, st);
  }

  truth(e: Expr, st: State): boolean {
    const v = this.eval(e, st);
    if (v === UNKNOWN) throw new GiveUp(`a condition at ${e.loc.line}:${e.loc.column} depends on unknown data`);
    return v.kind === 'bool' && v.value;
  }

  private stmt(s: Stmt, st: State): void {
    if (++this.steps > 50_000_000) throw new GiveUp('too many statements executed');
    switch (s.kind) {
      case 'skip':
        return;
      case 'assign':
        st.set(s.target, this.eval(s.value, st));
        return;
      case 'havoc':
        // The scheduler's choice is the explorer's: each thread in turn (exploreInterleavings).
        if (s.target === SCHEDULE_VARS.thread) return;
        st.set(s.target, UNKNOWN);
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
              return;
            }
          }
          throw new GiveUp(`an assumption at ${s.loc.line}:${s.loc.column} depends on unknown data`);
        }
        if (!(v.kind === 'bool' && v.value)) throw new Blocked();
        return;
      }
      case 'assert': {
        const role = roleOf(s, this.options.roles);
        const v = this.eval(s.cond, st);
        if (v === UNKNOWN) throw new GiveUp(`a goal at ${s.loc.line}:${s.loc.column} depends on unknown data`);
        if (v.kind === 'bool' && v.value) return;
        if (role === 'assume') throw new Blocked();
        throw new Failed(role, `${role === 'error' ? 'a violation' : 'a bound'} (${s.goal?.kind ?? 'assert'}) at ${s.loc.line}:${s.loc.column} is reachable`);
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
