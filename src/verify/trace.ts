// The counterexample of a FALSE answer as a programmer reads it: the path
// through the source, step by step (function calls and returns, branches,
// loop iterations, the values the nondet calls return and the values C
// variables get), ending at the violation. It comes from a run of the
// lowered program on the counterexample's values (the IMP interpreter, C's
// bit-vector semantics); a run that does not end at the violated goal gives
// no trace rather than a wrong one.

import type { SourceLocation } from '../common/location.js';
import type { TraceHavoc } from '../engines/index.js';
import type { ImpProgram, ImpType } from '../ivl/ast.js';
import { boolValue, bvValue, executeImp, intValue, zeroValue, type ImpValue } from '../ivl/interp.js';
import { branchAt, locKey, loopAt, nondetAt, type GoalInfo, type SourceMap, type VariableInfo } from '../lower/source-map.js';

/** One step of a counterexample trace (plain JSON: values are C values written in decimal). */
export interface TraceStep {
  /**
   * `call`: the path enters `function`; `return`: it is back in `function`;
   * `input`: a nondet call returns `value`; `assign`: the C variable
   * `variable` gets `value`; `branch`: an `if` or `?:` goes the way `taken`
   * says; `loop`: the path is at a loop's head for the `iteration`-th time
   * (from 1: `iteration - 1` iterations are done; the condition is tested
   * next); `violation`: the property is violated here.
   */
  readonly kind: 'call' | 'return' | 'input' | 'assign' | 'branch' | 'loop' | 'violation';
  readonly line: number;
  readonly column: number;
  /** The C function the step is in. */
  readonly function: string;
  /** `input`: the nondet function called; `assign`: the C variable. */
  readonly variable?: string;
  readonly value?: string;
  readonly taken?: boolean;
  readonly iteration?: number;
  /** `violation`: what is violated (the goal's description). */
  readonly text?: string;
}

/** Steps a trace may hold: a longer run keeps its first and last steps. */
const MAX_STEPS = 2000;

/**
 * The trace of the run of `program` (lowered with `map`) whose havocs give
 * the counterexample's `havocs` in order; undefined if it does not reach
 * `goal`, or if `outOfTime` says so first (a run of millions of steps, which
 * gcc's run showed violating, is no reason to miss the time limit).
 */
export function counterexampleTrace(program: ImpProgram, havocs: readonly TraceHavoc[], map: SourceMap, goal: GoalInfo, outOfTime?: () => boolean): TraceStep[] | undefined {
  const proc = program.procedures.find((p) => p.name === 'main') ?? program.procedures[0];
  if (!proc) return undefined;
  const variables = new Map<string, VariableInfo>(map.variables.map((v) => [v.imp, v]));
  // The run starts in main, at its definition.
  const steps: TraceStep[] = [{ kind: 'call', line: proc.loc.line, column: proc.loc.column, function: 'main' }];
  const stack: string[] = ['main'];
  // The function a step is in: a change of function is a call (new on the stack) or a return to a caller.
  const enter = (fn: string | undefined, loc: SourceLocation) => {
    if (fn === undefined || stack[stack.length - 1] === fn) return;
    const at = stack.lastIndexOf(fn);
    if (at >= 0) {
      stack.length = at + 1;
      steps.push({ kind: 'return', line: loc.line, column: loc.column, function: fn });
    } else {
      stack.push(fn);
      steps.push({ kind: 'call', line: loc.line, column: loc.column, function: fn });
    }
  };
  // Memory stays bounded on long runs: the middle is dropped as the run goes.
  const keepEnds = () => {
    if (steps.length > 2 * MAX_STEPS) steps.splice(MAX_STEPS / 4, steps.length - MAX_STEPS / 4 - (MAX_STEPS * 3) / 4);
  };
  const push = (fn: string, loc: SourceLocation, step: Omit<TraceStep, 'line' | 'column' | 'function'>) => {
    enter(fn, loc);
    steps.push({ ...step, line: loc.line, column: loc.column, function: fn });
    keepEnds();
  };
  let next = 0;
  const result = executeImp(program, proc.name, {}, {
    maxSteps: 5_000_000,
    outOfTime,
    havoc(name, type, loc) {
      const h = havocs[next];
      if (!h || h.target !== name || locKey(h.loc) !== locKey(loc)) return zeroValue(type);
      next++;
      const value = impValue(h.value, type);
      const nondet = nondetAt(map, loc);
      if (nondet) push(nondet.function, loc, { kind: 'input', variable: nondet.callee, value: cText(value, nondet.signed) });
      return value;
    },
    onAssign(target, value, loc) {
      const v = variables.get(target);
      if (v && v.function !== undefined) push(v.function, loc, { kind: 'assign', variable: v.name, value: cText(value, v.signed) });
      else if (v) {
        steps.push({ kind: 'assign', line: loc.line, column: loc.column, function: stack[stack.length - 1] ?? goal.function, variable: v.name, value: cText(value, v.signed) });
        keepEnds();
      }
    },
    onBranch(loc, taken) {
      const b = branchAt(map, loc);
      if (b) push(b.function, loc, { kind: 'branch', taken });
    },
    onLoopHead(loc, _state, iteration) {
      const l = loopAt(map, loc);
      if (l) push(l.function, loc, { kind: 'loop', iteration: iteration + 1 });
    },
  });
  if (result.status !== 'assertion-failed' || result.goal?.id !== goal.id) return undefined;
  push(goal.function, goal.loc, { kind: 'violation', text: goal.description });
  return steps.length > MAX_STEPS ? [...steps.slice(0, MAX_STEPS / 4), ...steps.slice(steps.length - (MAX_STEPS * 3) / 4)] : steps;
}

/** A model value of the counterexample (or a nondet call's value, as the C type reads it) as the interpreter's value of `type`. */
export function impValue(v: bigint, type: ImpType): ImpValue {
  if (type.kind === 'bv') return bvValue(v, type.width);
  if (type.kind === 'int') return intValue(v);
  if (type.kind === 'bool') return boolValue(v !== 0n);
  if (type.kind === 'float') return { kind: 'float', eb: type.eb, sb: type.sb, bits: v };
  return zeroValue(type);
}

/** A scalar's value as C prints it (signed or unsigned decimal). */
function cText(v: ImpValue, signed: boolean): string {
  if (v.kind === 'bv') return String(signed ? BigInt.asIntN(v.width, v.value) : v.value);
  if (v.kind === 'bool') return v.value ? '1' : '0';
  if (v.kind === 'int') return String(v.value);
  return '?';
}

/**
 * The trace in lines for the text output: `line:column  function  what`,
 * a loop head only after an iteration, and long runs shortened
 * to their first and last steps.
 */
export function formatTrace(steps: readonly TraceStep[], programLines: readonly string[], max = 60): string[] {
  // Branches inside a macro's expansion (assert()'s own `if`) are not at a condition of the source.
  const shown = steps.filter((s) => !(s.kind === 'loop' && s.iteration === 1) && !(s.kind === 'branch' && !atCondition(programLines[s.line - 1] ?? '', s.column)));
  const lines = shown.map((s) => `  ${`${s.line}:${s.column}`.padEnd(7)} ${s.function.padEnd(10)} ${describe(s, programLines)}`);
  if (lines.length <= max) return lines;
  const head = Math.floor(max / 4);
  return [...lines.slice(0, head), `  ... ${lines.length - max} steps left out ...`, ...lines.slice(lines.length - (max - head))];
}

function describe(s: TraceStep, programLines: readonly string[]): string {
  switch (s.kind) {
    case 'call':
      return `enters ${s.function}`;
    case 'return':
      return `back in ${s.function}`;
    case 'input':
      return `${s.variable}() returns ${s.value}`;
    case 'assign':
      return `${s.variable} = ${s.value}`;
    case 'branch':
      return `${condition(programLines[s.line - 1] ?? '', s.column)}: ${s.taken ? 'true' : 'false'}`;
    case 'loop':
      return `loop head, ${s.iteration! - 1} iteration${s.iteration === 2 ? '' : 's'} done`;
    case 'violation':
      return `${s.text}`;
  }
}

function atCondition(line: string, column: number): boolean {
  return /^(if\b|\?)/.test(line.slice(column - 1));
}

/** The condition of the `if` (or the text before `?`) starting at `column`, as written, shortened. */
function condition(line: string, column: number): string {
  const from = line.slice(column - 1);
  let depth = 0;
  for (let i = 0; i < from.length; i++) {
    if (from[i] === '(') depth++;
    else if (from[i] === ')' && --depth === 0) return clip(from.slice(0, i + 1));
  }
  return clip(from.trim());
}

function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
