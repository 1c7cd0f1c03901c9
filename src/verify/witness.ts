// Turns a BMC counterexample into a violation witness 2.0
// (`violation_sequence`): one segment per nondet call on the path, pinning
// the returned value with a `function_return` waypoint at the call's closing
// parenthesis, and a final segment with the `target` at the violation.

import type { SourceLocation } from '../common/location.js';
import type { Counterexample, TraceHavoc } from '../engines/index.js';
import { nondetAt, type GoalInfo, type LoopInfo, type NondetInfo, type SourceMap } from '../lower/source-map.js';
import { nondetValue, type NondetValue } from '../replay/index.js';
import { floatValueCondition } from '../c/float-literal.js';
import type { Location, Metadata, Segment, ViolationSequenceEntry, Waypoint } from '../witness/model.js';
import { violationSequenceToGraphml, writeGraphml } from '../witness/index.js';

/** One nondet call on the counterexample path with the value it returned (as C reads it; a float's IEEE bits). */
export interface NondetStep {
  readonly info: NondetInfo;
  readonly value: bigint;
  /** How many calls in a row return the value (absent: one): a loop's iterations jumped over. */
  readonly repeat?: bigint;
}

/** The nondet calls of the path, in order, with their C values. */
export function nondetSteps(cex: Counterexample, sourceMap: SourceMap): NondetStep[] {
  return nondetStepsOf(cex.havocs, sourceMap);
}

/** The havocs that are nondet calls, with their C values (other havocs, e.g. of uninitialised locals, are left out). */
export function nondetStepsOf(havocs: readonly (Pick<TraceHavoc, 'loc' | 'value'> & { readonly repeat?: bigint })[], sourceMap: SourceMap): NondetStep[] {
  const out: NondetStep[] = [];
  for (const h of havocs) {
    const info = nondetAt(sourceMap, h.loc);
    if (!info) continue;
    let v = h.value;
    if (info.isFloat) v = BigInt.asUintN(info.width, v);
    else if (info.isBool) v = v === 0n ? 0n : 1n;
    else if (info.signed) v = BigInt.asIntN(info.width, v);
    else v = BigInt.asUintN(info.width, v);
    out.push(h.repeat !== undefined && h.repeat !== 1n ? { info, value: v, repeat: h.repeat } : { info, value: v });
  }
  return out;
}

export function replayValues(steps: readonly NondetStep[]): NondetValue[] {
  return steps.map((s) => nondetValue(s.info.callee, s.value, s.repeat));
}

function location(loc: SourceLocation, fileName: string, fn: string): Location {
  return { file_name: fileName, line: loc.line, column: loc.column, function: fn, columnBase: 1 };
}

export interface WitnessInput {
  readonly steps: readonly NondetStep[];
  readonly goal: GoalInfo;
  /** The program's name as the witness must spell it (`task.input_files`). */
  readonly fileName: string;
  readonly metadata: Metadata;
}

/** Builds the violation sequence; steps without a known `)` location are left out (the witness is then less guiding, not wrong). */
export function buildViolationWitness(input: WitnessInput): ViolationSequenceEntry {
  const segments = returnSegments(pinnedSteps(input.steps), input.fileName, 'follow');
  segments.push({
    waypoints: [
      {
        type: 'target',
        action: 'follow',
        location: location(input.goal.targetLoc, input.fileName, input.goal.function),
      },
    ],
  });
  return { entry_type: 'violation_sequence', metadata: input.metadata, content: segments };
}

/**
 * The violation sequence as a GraphML 1.0 violation witness (the format the
 * rules ask for where the violation has no location, as a leak). A
 * `\result` assumption names the called nondet function.
 */
export function violationGraphml(entry: ViolationSequenceEntry, programFile: string, callees: readonly string[]): string {
  const { graphml } = violationSequenceToGraphml(entry, programFile);
  let i = 0;
  for (const e of graphml.edges) {
    if (e.data['assumption.resultfunction'] !== undefined) e.data['assumption.resultfunction'] = callees[i++] ?? e.data['assumption.resultfunction'];
  }
  return writeGraphml(graphml);
}

/**
 * The steps a violation witness can pin: those before the first call at a
 * place whose value repeats. A witness has no waypoint for "the next n
 * calls", and a waypoint at that place would put a check into the loop a
 * validator must jump over; after the steps pinned, it finds the way to
 * the target itself.
 */
export function pinnedSteps(steps: readonly NondetStep[]): readonly NondetStep[] {
  const repeating = new Set(steps.filter((s) => s.repeat !== undefined).map((s) => s.info));
  const first = steps.findIndex((s) => repeating.has(s.info));
  return first < 0 ? steps : steps.slice(0, first);
}

/** One segment per nondet step with a known `)`: a `function_return` waypoint pinning the value. */
function returnSegments(steps: readonly NondetStep[], fileName: string, action: 'follow' | 'cycle'): Segment[] {
  const segments: Segment[] = [];
  for (const s of steps) {
    if (!s.info.closeParenLoc) continue;
    const w: Waypoint = {
      type: 'function_return',
      action,
      location: location(s.info.closeParenLoc, fileName, s.info.function),
      constraint: { value: s.info.isFloat ? floatValueCondition('\\result', s.value, s.info.cType === 'float' ? 'float' : 'double') : `\\result == ${s.value}`, format: 'acsl_expression' },
    };
    segments.push({ waypoints: [w] });
  }
  return segments;
}

export interface LassoWitnessInput {
  readonly stem: readonly NondetStep[];
  readonly cycle: readonly NondetStep[];
  /**
   * Where the cycle returns to: a C loop (its condition is true at each
   * iteration), or the statement after the label a `goto` loop jumps back to
   * (passed at each iteration).
   */
  readonly head: { readonly kind: 'loop' | 'label'; readonly loc: SourceLocation; readonly function: string };
  readonly fileName: string;
  /** Metadata of format version 2.1 (cycle segments exist only there). */
  readonly metadata: Metadata;
}

/**
 * A non-termination witness (2.1): the stem's nondet values as `follow`
 * segments, then cycle segments repeated forever: the loop's condition is
 * true (or, for a loop made of a `goto`, the statement after its label is
 * passed), then the values of the nondet calls of one iteration.
 */
export function buildLassoWitness(input: LassoWitnessInput): ViolationSequenceEntry {
  const head: Segment = {
    waypoints: [
      input.head.kind === 'loop'
        ? { type: 'branching', action: 'cycle', location: location(input.head.loc, input.fileName, input.head.function), constraint: { value: true } }
        : { type: 'assumption', action: 'cycle', location: location(input.head.loc, input.fileName, input.head.function), constraint: { value: '1', format: 'c_expression' } },
    ],
  };
  const content = [...returnSegments(input.stem, input.fileName, 'follow'), head, ...returnSegments(input.cycle, input.fileName, 'cycle')];
  return { entry_type: 'violation_sequence', metadata: input.metadata, content };
}
