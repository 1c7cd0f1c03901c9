// Abstract interpretation of one IMP procedure: forward over the statements,
// with widening at loop heads (after two plain iterations) and two
// narrowing steps, in the domain of domain.ts. The result is, for every
// `while` of the procedure, an over-approximation of the states at its head
// (every visit, the first included), turned into facts (facts.ts).
import type { Expr, ImpProgram, ImpType, Procedure, Stmt } from '../ivl/ast.js';
import { visitExpr, visitStmts } from '../ivl/walk.js';
import { Domain, type AbsState, type AbsValue } from './domain.js';
import { flagVars, Partitions, type Part } from './partition.js';
import { factsOf, type LoopFact } from './facts.js';

export interface AnalysisOptions {
  /** Procedure to analyse (default `main`). */
  readonly entry?: string;
  /** Abstract statement executions before giving up (default 200 000). */
  readonly maxSteps?: number;
  /** Date.now() after which the analysis gives up. */
  readonly deadline?: number;
  /** Variables with difference bounds at most (default 16): the ones occurring most in conditions. */
  readonly maxRelational?: number;
}

export interface LoopResult {
  readonly loop: Stmt & { kind: 'while' };
  /** False when the analysis found the loop unreachable (then `facts` is empty). */
  readonly reachable: boolean;
  readonly facts: readonly LoopFact[];
}

export interface AnalysisResult {
  /** Per `while` statement of the procedure (inlined copies are distinct statements). */
  readonly loops: ReadonlyMap<Stmt, LoopResult>;
  /** Set when the analysis gave up (no loops are reported then). */
  readonly gaveUp?: string;
}

const WIDEN_DELAY = 2;
const NARROWING_STEPS = 2;
/** Iterations of one loop's fixpoint before giving up (widening ends far sooner). */
const MAX_ITERATIONS = 60;

class StepLimit extends Error {}

/** Occurrences of each variable in an expression, map reads left out. */
function varsOf(e: Expr, out: Map<string, number>): void {
  visitExpr(e, (x) => {
    if (x.kind === 'var') out.set(x.name, (out.get(x.name) ?? 0) + 1);
    return x.kind !== 'select' && x.kind !== 'store';
  });
}

const COMPARISONS = new Set(['slt', 'sle', 'sgt', 'sge', 'ult', 'ule', 'ugt', 'uge', '<', '<=', '>', '>=', '==', '!=']);

/** Variables compared inside an expression (C's comparisons become `ite`s of bit-vectors in the lowering). */
function comparedVars(e: Expr, out: Map<string, number>): void {
  switch (e.kind) {
    case 'unary':
      comparedVars(e.arg, out);
      break;
    case 'binary':
      if (COMPARISONS.has(e.op)) varsOf(e, out);
      else {
        comparedVars(e.left, out);
        comparedVars(e.right, out);
      }
      break;
    case 'app':
      if (COMPARISONS.has(e.fn)) varsOf(e, out);
      else e.args.forEach((a) => comparedVars(a, out));
      break;
    case 'ite':
      varsOf(e.cond, out);
      comparedVars(e.then, out);
      comparedVars(e.else, out);
      break;
    default:
      break;
  }
}

/** Variables of conditions (and of values assigned to bools, which the lowering uses as conditions, and of comparisons in any value), by frequency. */
function conditionVars(body: readonly Stmt[], types: ReadonlyMap<string, ImpType>): Map<string, number> {
  const out = new Map<string, number>();
  visitStmts(body, (s) => {
    if (s.kind === 'while' || s.kind === 'if' || s.kind === 'assume' || s.kind === 'assert') varsOf(s.cond, out);
    else if (s.kind === 'assign' && types.get(s.target)?.kind === 'bool') varsOf(s.value, out);
    else if (s.kind === 'assign') comparedVars(s.value, out);
  });
  return out;
}

/** Variables of loops, flags, and (transitively) the variables assigned to them. */
function loopCone(body: readonly Stmt[], types: ReadonlyMap<string, ImpType>): Set<string> {
  const cone = new Set<string>(flagVars(body, types));
  const inLoops = new Map<string, number>();
  const assigns: Array<{ target: string; reads: string[] }> = [];
  const collect = (ss: readonly Stmt[], inLoop: boolean): void => {
    for (const s of ss) {
      const reads = new Map<string, number>();
      if (s.kind === 'assign') {
        varsOf(s.value, reads);
        assigns.push({ target: s.target, reads: [...reads.keys()] });
        if (inLoop) cone.add(s.target);
      } else if ((s.kind === 'havoc' || s.kind === 'call') && inLoop) (s.kind === 'havoc' ? [s.target] : s.targets).forEach((t) => cone.add(t));
      else if (s.kind === 'assume' || s.kind === 'assert') varsOf(s.cond, reads);
      else if (s.kind === 'if') {
        varsOf(s.cond, reads);
        collect(s.then, inLoop);
        collect(s.else, inLoop);
      } else if (s.kind === 'while') {
        varsOf(s.cond, inLoops);
        collect(s.body, true);
      } else if (s.kind === 'block') collect(s.body, inLoop);
      if (inLoop) for (const v of reads.keys()) inLoops.set(v, 1);
    }
  };
  collect(body, false);
  for (const v of inLoops.keys()) cone.add(v);
  for (let changed = true; changed; ) {
    changed = false;
    for (const a of assigns) {
      if (!cone.has(a.target)) continue;
      for (const v of a.reads) {
        if (!cone.has(v)) {
          cone.add(v);
          changed = true;
        }
      }
    }
  }
  return cone;
}

/** Analyses a procedure of an IMP program; loops of other procedures are not reported. */
export function analyzeProgram(program: ImpProgram, options: AnalysisOptions = {}): AnalysisResult {
  const proc = program.procedures.find((p) => p.name === (options.entry ?? 'main'));
  if (!proc?.body) return { loops: new Map(), gaveUp: `no procedure ${options.entry ?? 'main'} with a body` };
  return analyzeProcedure(program, proc, options);
}

function analyzeProcedure(program: ImpProgram, proc: Procedure, options: AnalysisOptions): AnalysisResult {
  const allTypes = new Map<string, ImpType>();
  for (const d of [...program.globals, ...proc.params, ...proc.returns, ...proc.locals]) allTypes.set(d.name, d.type);
  // Only the variables that can matter at a loop head are tracked (the others are unknown values).
  const tracked = loopCone(proc.body!, allTypes);
  const types = new Map([...allTypes].filter(([n]) => tracked.has(n)));
  const scalar = (n: string) => {
    const k = types.get(n)?.kind;
    return k === 'bv' || k === 'int';
  };
  const freq = [...conditionVars(proc.body!, types)].filter(([n]) => scalar(n));
  freq.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const relational = freq.slice(0, options.maxRelational ?? 16).map(([n]) => n);
  const dom = new Domain(types, relational);
  const globals = program.globals.map((g) => g.name);
  const maxSteps = options.maxSteps ?? 200_000;
  let steps = 0;
  const heads = new Map<Stmt, Part>();
  const lastHead = new Map<Stmt, Part>();
  const flags = flagVars(proc.body!, types);
  const part = new Partitions(dom, flags);

  const exec = (ss: readonly Stmt[], st: Part, record: boolean): Part => {
    for (const s of ss) {
      if (st.size === 0) return st;
      st = stmt(s, st, record);
    }
    return st;
  };
  const each = (st: Part, f: (x: AbsValue) => AbsState): Part => part.of([...st.values()].map(f));
  const stmt = (s: Stmt, st: Part, record: boolean): Part => {
    if (++steps > maxSteps || (options.deadline !== undefined && (steps & 63) === 0 && Date.now() > options.deadline)) throw new StepLimit();
    switch (s.kind) {
      case 'skip':
        return st;
      case 'assign':
        if (flags.includes(s.target) && s.value.kind !== 'bool_lit') {
          // A flag set from a condition (the lowering's `$loop := i < n`):
          // one state per outcome, which the partition keeps apart, each
          // with what the condition says.
          const outcomes = [true, false].map((b) => ({ kind: 'bool_lit' as const, value: b, loc: s.loc }));
          return part.of([...st.values()].flatMap((x) => outcomes.map((b) => dom.assign(dom.assume(x, s.value, b.value), s.target, b))));
        }
        return each(st, (x) => dom.assign(x, s.target, s.value));
      case 'havoc':
        return each(st, (x) => dom.havoc(x, s.target));
      case 'assume':
      case 'assert':
        // After an assert only the runs where it held go on.
        return part.assume(st, s.cond, true);
      case 'if':
        return part.join(exec(s.then, part.assume(st, s.cond, true), record), exec(s.else, part.assume(st, s.cond, false), record));
      case 'block':
        return exec(s.body, st, record);
      case 'call':
        // Not followed: the callee may write its results and any global.
        return each(st, (x) => [...s.targets, ...globals].reduce<AbsState>((y, t) => dom.havoc(y, t), x));
      case 'while':
        return loop(s, st, record);
    }
  };
  const loop = (s: Stmt & { kind: 'while' }, entry: Part, record: boolean): Part => {
    const body = (x: Part) => part.join(entry, exec(s.body, part.assume(x, s.cond, true), false));
    // Inside an outer loop's iteration, start from this loop's last result:
    // a larger start is still sound, and nested loops then cost a few passes
    // each instead of a number exponential in the depth.
    const last = record ? undefined : lastHead.get(s);
    let x = last ? part.join(entry, last) : entry;
    for (let i = 0; ; i++) {
      if (i > MAX_ITERATIONS) throw new StepLimit();
      const y = body(x);
      if (part.leq(y, x)) break;
      x = i < WIDEN_DELAY ? part.join(x, y) : part.widen(x, y);
    }
    // x is a post-fixpoint; each step below stays above every reachable head state.
    for (let i = 0; i < NARROWING_STEPS; i++) x = part.meet(x, body(x));
    lastHead.set(s, x);
    if (record) {
      heads.set(s, x);
      // Inner loops are recorded from the final head state.
      exec(s.body, part.assume(x, s.cond, true), true);
    }
    return part.assume(x, s.cond, false);
  };

  try {
    exec(proc.body!, part.of([dom.top()]), true);
  } catch (e) {
    if (e instanceof StepLimit) return { loops: new Map(), gaveUp: steps > maxSteps ? `more than ${maxSteps} abstract steps` : 'out of time' };
    throw e;
  }
  const loops = new Map<Stmt, LoopResult>();
  for (const [s, st] of heads) {
    const w = s as Stmt & { kind: 'while' };
    const all = part.collapse(st);
    loops.set(s, { loop: w, reachable: all !== null, facts: all ? factsOf(dom, all) : [] });
  }
  return { loops };
}
