// Binds the waypoints of a violation sequence to the C program and turns
// them into constraints on it (C-level instrumentation):
//
// - a ghost counter `__tarsier_seg` counts the follow waypoints matched; the
//   i-th waypoint is matched at the first passing of its place, while the
//   counter is i, where its constraint holds (witness-formats.md §6.2 asks
//   it to hold at the first passing: this admits more, never fewer, runs);
// - assumption: before the statement at the location; function_return:
//   around the call ending at the location, on the returned value;
//   branching: around the condition of the `if`/loop at the location;
// - target, by how the property table says a violation is checked:
//   `error-call` (unreach-call): before each call of the error function, the
//   counter must have passed every waypoint; a call that is not the target
//   is cut off (`__VERIFIER_assume(0)`);
//   `at-target` (an overflow) and `memory` (memory safety): nothing is cut
//   off (the sanitizers decide where the violation happened); with
//   `tracePath`, the place calls the replay harness's `__tarsier_target`
//   when every waypoint before the target statement has been passed. A
//   leak has no statement of its own: under `memory` a target on a
//   function's header or closing brace reads as the function's end (each
//   `return` of it and its closing brace).
//
// Readings of real witnesses (documented in docs/validate.md):
// - an assumption at a statement that assigns a variable the constraint
//   names means the state after the statement (ESBMC); an assumption inside
//   such a statement (at its nondet call) likewise;
// - a target inside the body of the error function means "any call of it"
//   (ESBMC places it at `__assert_fail` inside `reach_error`);
// - anything else that does not bind exactly is dropped with a warning
//   (dropping widens the search; a confirmation is still a replayed run).

import { parseExpressionAt, type CProgram, type Expr, typeToString } from '../c/index.js';
import type { ViolationCheck } from '../properties/index.js';
import { NONDET_FLOAT_TYPES, NONDET_TYPES, nondetValue } from '../replay/harness.js';
import { floatValueCondition, pinnedFloat } from '../c/float-literal.js';
import type { NondetValue } from '../replay/index.js';
import { toOneBasedColumn, type ViolationSequenceEntry, type Waypoint } from '../witness/model.js';
import { beforeStatement, ProgramEdits } from './instrument.js';
import {
  functionContaining,
  isLabel,
  leftmostColumn,
  offsetOf,
  statementAt,
  statementContaining,
  type CallPoint,
  type ProgramPoints,
  type StatementPoint,
} from './program-points.js';

export type Reading = 'exact' | 'lenient' | 'dropped';

export interface WaypointReading {
  readonly waypoint: Waypoint;
  readonly reading: Reading;
  /** Why it was read leniently or dropped. */
  readonly note?: string;
}

export interface BoundSequence {
  readonly readings: readonly WaypointReading[];
  /** The instrumented program (waypoints as assumptions). */
  readonly program: string;
  /** The nondet values the witness pins, in order, when every follow waypoint before the target is such a pin (none: a run that calls no nondet function). */
  readonly pinnedValues?: readonly NondetValue[];
  /** True when the instrumentation admits every execution the witness represents (nothing cut off, or no lenient reading), so a proof on it refutes the witness. */
  readonly overApproximates: boolean;
  /** Why a proof on the instrumented program would not refute the witness (when it does not over-approximate). */
  readonly notRefuting?: string;
  /**
   * A waypoint whose constraint could not be bound to the program (its
   * location, what it says): no run can be checked against it, so the
   * witness cannot be confirmed (a proof on the wider program still refutes).
   */
  readonly unbound?: string;
  /** The target statement (for checking where an `at-target` or memory violation happened). */
  readonly target?: StatementPoint;
  /** The target read as the end of this function (memory safety: a leak's target outside any statement). */
  readonly targetEndOf?: string;
  /** Follow waypoints before the target: a violation at the target must happen with this many passed. */
  readonly follows: number;
  /** Cycles (non-termination) are not supported. */
  readonly unsupported?: string;
}

const SEG = '__tarsier_seg';

function identifiers(text: string): Set<string> {
  return new Set(text.match(/[A-Za-z_]\w*/g) ?? []);
}

function stripCasts(e: Expr): Expr {
  return e.kind === 'ImplicitCast' || e.kind === 'Cast' ? stripCasts(e.operand) : e;
}

/** Variables a statement assigns (`x = e;`, `int x = e;`, `a = b = e;`). */
function assignedBy(st: StatementPoint): Set<string> {
  const out = new Set<string>();
  const s = st.stmt;
  if (s.kind === 'DeclStmt') {
    for (const d of s.declaration.declarators) if (d.init) out.add(d.decl.name);
  } else if (s.kind === 'ExprStmt') {
    const visit = (e: Expr): void => {
      const x = stripCasts(e);
      if (x.kind === 'Comma') { visit(x.left); visit(x.right); return; }
      if (x.kind === 'Assign') {
        const t = stripCasts(x.target);
        if (t.kind === 'Identifier') out.add(t.name);
        visit(x.value);
      }
    };
    visit(s.expr);
  }
  return out;
}

/** Where a waypoint's guard is placed, and what it tests. */
interface Place {
  /** Guards with one key share one place (run in order there). */
  readonly key: string;
  readonly place: (chain: string) => void;
  /** The condition under which the waypoint is passed (absent: whenever the place is). */
  readonly cond?: string;
  /** A nondet value the waypoint pins (`\result == N` on a nondet call). */
  readonly pin?: NondetValue;
  /** Why the place is read leniently. */
  readonly lenient?: string;
}

const FLIPPED: Readonly<Record<string, string>> = { '==': '==', '!=': '!=', '<': '>', '<=': '>=', '>': '<', '>=': '<=' };

/** `\result <op> N` (or `N <op> \result`) as an operator and an integer, if it is that simple. */
export function resultConstraint(text: string): { op: string; value: bigint } | undefined {
  const num = '\\(?\\s*(-?)\\s*(0[xX][0-9a-fA-F]+|\\d+)\\s*\\)?\\s*[uUlL]*';
  const op = '(==|!=|<=|>=|<|>)';
  const m = new RegExp(`^\\s*\\\\result\\s*${op}\\s*${num}\\s*$`).exec(text);
  if (m) return { op: m[1]!, value: m[2] ? -BigInt(m[3]!) : BigInt(m[3]!) };
  const r = new RegExp(`^\\s*${num}\\s*${op}\\s*\\\\result\\s*$`).exec(text);
  if (r) return { op: FLIPPED[r[3]!]!, value: r[1] ? -BigInt(r[2]!) : BigInt(r[2]!) };
  return undefined;
}

/** The checks of violation witnesses that read waypoints (the property table's; a cycle is read by cycle.ts). */
export type WaypointCheck = Exclude<ViolationCheck, 'cycle'>;

export interface BindOptions {
  /** How the property's violation is checked, which says how the target is read. */
  readonly violation: WaypointCheck;
  readonly errorFunction: string;
  /** Assume each constraint at the first passing of its place (fixes values early: a faster search, but not an over-approximation). */
  readonly strict?: boolean;
  /**
   * A program to replay, not to verify: call the replay harness's
   * `__tarsier_target` where the target is passed after the waypoints before
   * it (`memory`, `at-target`), so the run tells where it was.
   */
  readonly tracePath?: boolean;
}

/** Reads the waypoints against the program and instruments it. */
export function bindSequence(program: CProgram, text: string, points: ProgramPoints, entry: ViolationSequenceEntry, options: BindOptions): BoundSequence {
  const edits = new ProgramEdits(text, points.firstDefinition);
  // Not static: the replay harness reads the counter (memory safety).
  edits.declare(`extern void __VERIFIER_assume(int); unsigned int ${SEG} = 0;`);
  const readings: WaypointReading[] = [];
  let follows = 0;
  let helpers = 0;
  let lenient = false;
  let pins: NondetValue[] | undefined = [];
  let target: StatementPoint | undefined;
  let targetEndOf: { name: string; start: number; end: number } | undefined;
  let targetAnyCall = false;
  /** Where each follow waypoint is (its offset), in order. */
  const followAt: number[] = [];
  let targetSeen = false;
  let unsupported: string | undefined;
  let unbound: string | undefined;
  const drop = (w: Waypoint, note: string) => {
    readings.push({ waypoint: w, reading: 'dropped', note });
    // A follow or avoid waypoint, or the target, constrains the run: without it a run cannot be checked against the witness.
    if (!unbound && (w.type === 'target' || w.action === 'follow' || w.action === 'avoid')) unbound = `the ${w.type} waypoint at ${w.location.line}:${toOneBasedColumn(w.location) ?? '?'} (${note})`;
  };
  // The counter advances past waypoint i at the first passing of its place
  // where its constraint holds (greedy matching: every execution the strict
  // reading admits is admitted, so a proof on this program still refutes).
  // Guards at one place run in order, so one passing may match consecutive
  // waypoints there (ESBMC puts `x1 == 0`, `x2 == 1` on one declaration).
  // Avoid guards run first at a place: a passing that matches a follow
  // waypoint ends that waypoint's segment, so it is not in the next one's.
  const places = new Map<string, { place: (chain: string) => void; avoids: string[]; guards: string[] }>();
  /** A follow waypoint advances the counter where it is passed; an avoid waypoint passed in its segment cuts the run off. */
  const guard = (w: Waypoint, at: Place) => {
    let p = places.get(at.key);
    if (!p) places.set(at.key, (p = { place: at.place, avoids: [], guards: [] }));
    const cond = at.cond ?? '1';
    (w.action === 'avoid' ? p.avoids : p.guards).push(
      w.action === 'avoid'
        ? `if (${SEG} == ${follows}u && (${cond})) __VERIFIER_assume(0);`
        : options.strict
          ? `if (${SEG} == ${follows}u) { __VERIFIER_assume(${cond}); ${SEG} = ${follows + 1}u; }`
          : `if (${SEG} == ${follows}u && (${cond})) ${SEG} = ${follows + 1}u;`,
    );
  };
  /** Where a waypoint's guard goes and what it tests (`cond` over the place's value `r` or `b`), or why it does not bind. */
  const bindPlace = (w: Waypoint, line: number, column: number, offset: number): Place | { drop: string } => {
    const value = w.constraint?.value;
    if (w.type === 'assumption') {
      const cText = typeof value === 'string' ? value : String(value);
      const exact = statementAt(points, offset);
      const st = exact ?? statementContaining(points, offset);
      if (!st) return { drop: 'no statement at this location' };
      // A guard in front of a label would be jumped over (and then block the later waypoints).
      if (isLabel(st)) return { drop: 'at a label: a constraint there would be jumped over' };
      const assigned = assignedBy(st);
      const after = [...identifiers(cText)].some((n) => assigned.has(n));
      const parseAt = after ? points.lines.position(st.end) : { line, column };
      const parsed = parseExpressionAt(program, parseAt, cText);
      if ('error' in parsed) return { drop: `constraint '${cText}' is not a C expression here: ${parsed.error}` };
      if (!exact && !after) return { drop: 'not at a statement start, and not at an assignment of a variable it names' };
      const cond = `(${cText}) != 0`;
      if (!after) return { key: `before:${st.start}`, place: (code) => beforeStatement(edits, st, code), cond };
      const note = `at a statement that assigns ${[...identifiers(cText)].filter((n) => assigned.has(n)).join(', ')}: read as the state after it`;
      if (st.stmt.kind === 'DeclStmt') return { key: `after:${st.end}`, place: (code) => edits.after(st.end, ` ${code}`), cond, lenient: note };
      if (st.stmt.kind === 'ExprStmt') return { key: `after:${st.end}`, place: (code) => edits.wrap(st.start, st.end, '{ ', ` ${code} }`), cond, lenient: note };
      return { drop: 'an assignment inside a condition: cannot place the assumption after it' };
    }
    if (w.type === 'function_return' || w.type === 'function_enter') {
      const call = points.calls.find((c) => c.rparen.line === line && c.rparen.column === column);
      if (!call) return { drop: 'no call ends at this location' };
      if (w.type === 'function_enter') {
        // Entered once its arguments are evaluated: the guard runs just before the call.
        const place = (chain: string) => {
          const name = `__tarsier_enter_${helpers++}`;
          edits.declare(`static void ${name}(void) { ${chain} }`);
          edits.wrap(call.start, call.end, `(${name}(), `, ')');
        };
        return { key: `enter:${call.start}`, place };
      }
      const type = call.callee && NONDET_TYPES[call.callee] ? NONDET_TYPES[call.callee]! : typeToString(call.call.type);
      const place = (chain: string) => {
        const name = `__tarsier_ret_${helpers++}`;
        edits.declare(`static ${type} ${name}(${type} r) { ${chain} return r; }`);
        edits.wrap(call.start, call.end, `${name}(`, ')');
      };
      // A float nondet's value: `\result == <constant>` (its bits), or NaN.
      const floating = call.callee ? NONDET_FLOAT_TYPES[call.callee]?.type : undefined;
      if (floating) {
        const bits = typeof value === 'string' ? pinnedFloat(value, floating) : undefined;
        if (bits === undefined) return { drop: `constraint '${String(value)}' is not '\\result == <float constant>'` };
        return { key: `call:${call.start}`, place, cond: floatValueCondition('r', bits, floating === 'float' ? 'float' : 'double'), pin: nondetValue(call.callee!, bits) };
      }
      const c = typeof value === 'string' ? resultConstraint(value) : undefined;
      if (c === undefined || type === 'void' || /\*/.test(type)) return { drop: `constraint '${String(value)}' is not '\\result <op> <integer>'` };
      const pin = c.op === '==' && call.callee && NONDET_TYPES[call.callee] ? nondetValue(call.callee, c.value) : undefined;
      return { key: `call:${call.start}`, place, cond: `r ${c.op} (${type})(${cLiteral(c.value)})`, ...(pin ? { pin } : {}) };
    }
    if (w.type === 'branching') {
      const b = points.branches.find((x) => x.loc.line === line && x.loc.column === column);
      const want = value === true || value === 'true' ? 1 : value === false || value === 'false' ? 0 : undefined;
      if (!b || !b.condition) return { drop: 'no if, while, for or do with a condition at this location' };
      if (want === undefined) return { drop: `branch value '${String(value)}' is not true or false` };
      const cnd = b.condition;
      const place = (chain: string) => {
        const name = `__tarsier_branch_${helpers++}`;
        edits.declare(`static int ${name}(int b) { ${chain} return b; }`);
        edits.wrap(cnd.start, cnd.end, `${name}(!!(`, '))');
      };
      return { key: `branch:${cnd.start}`, place, cond: `b == ${want}` };
    }
    return { drop: `${w.type} waypoints are not enforced` };
  };

  for (const segment of entry.content) {
    for (const w of segment.waypoints) {
      const line = w.location.line;
      const column = toOneBasedColumn(w.location) ?? leftmostColumn(points, line, w.type);
      const offset = offsetOf(points, line, column);
      if (w.action === 'cycle') {
        unsupported = 'cycle waypoints (non-termination) are not supported';
        drop(w, unsupported);
        continue;
      }
      if (offset === undefined) {
        drop(w, `line ${line}, column ${column} is outside the program`);
        continue;
      }
      if (w.type === 'target') {
        targetSeen = true;
        const fn = functionContaining(points, offset);
        const st = statementAt(points, offset) ?? statementContaining(points, offset);
        if (fn === options.errorFunction && options.violation === 'error-call') {
          targetAnyCall = true;
          // Reaching its body is calling it: the same executions, so this reading keeps refutations sound.
          readings.push({ waypoint: w, reading: 'lenient', note: `inside ${fn}: read as any call of ${fn}` });
        } else if (st && !(options.violation === 'memory' && endOfFunction(points, offset, st))) {
          target = st;
          readings.push({ waypoint: w, reading: statementAt(points, offset) ? 'exact' : 'lenient', ...(statementAt(points, offset) ? {} : { note: 'not at a statement start: read as the statement containing it' }) });
        } else if (options.violation === 'memory' && (targetEndOf = endOfFunction(points, offset, st))) {
          readings.push({ waypoint: w, reading: 'lenient', note: `not in a statement of ${targetEndOf.name}: read as the end of ${targetEndOf.name} (where a block still allocated is judged)` });
        } else {
          drop(w, 'no statement at the target location');
        }
        continue;
      }
      const at = bindPlace(w, line, column, offset);
      if (w.action === 'follow' && !('pin' in at && at.pin)) pins = undefined;
      if ('drop' in at) {
        drop(w, at.drop);
        pins = undefined;
        continue;
      }
      if (at.pin && pins) pins.push(at.pin);
      guard(w, at);
      if (at.lenient) lenient = true;
      readings.push(at.lenient ? { waypoint: w, reading: 'lenient', note: at.lenient } : { waypoint: w, reading: 'exact' });
      if (w.action === 'follow') {
        followAt.push(offset);
        follows++;
      }
    }
  }

  for (const p of places.values()) p.place([...p.avoids, ...p.guards].join(' '));

  // The violation must happen after the last follow waypoint, at the target:
  // every error call (in a statement or inside an expression) not at the
  // target is cut off, the one at the target needs every waypoint passed.
  const targetBound = target !== undefined || targetAnyCall || targetEndOf !== undefined;
  if (options.violation === 'error-call') {
    const errorCalls = points.calls.filter((c) => c.callee === options.errorFunction);
    for (const c of errorCalls) {
      const atTarget = targetAnyCall || (target !== undefined && within(c, target));
      edits.wrap(c.start, c.end, `(__VERIFIER_assume(${atTarget ? `${SEG} == ${follows}u` : '0'}), `, ')');
    }
  }
  if (options.tracePath && (options.violation === 'memory' || options.violation === 'at-target')) {
    // The target is passed once the waypoints before its statement are
    // (those inside it, such as a nondet call's return, come during it).
    let before = follows;
    while (target && before > 0 && target.start <= followAt[before - 1]! && followAt[before - 1]! < target.end) before--;
    // Told once: a target in a loop of 2^30 iterations would otherwise call (and print) each time.
    edits.declare('extern void __tarsier_target(void); static int __tarsier_target_told = 0;');
    const mark = `if (!__tarsier_target_told && ${SEG} >= ${before}u) { __tarsier_target_told = 1; __tarsier_target(); }`;
    if (target) beforeStatement(edits, target, mark);
    if (targetEndOf) {
      const fn = targetEndOf;
      for (const st of points.statements) if (st.function === fn.name && st.stmt.kind === 'Return') beforeStatement(edits, st, mark);
      edits.before(fn.end - 1, `${mark} `);
    }
  }
  return {
    readings,
    program: edits.render(),
    follows,
    ...(targetEndOf ? { targetEndOf: targetEndOf.name } : {}),
    ...(pins ? { pinnedValues: pins } : {}),
    ...refutation(options, { targetSeen, targetBound, lenient, unsupported }),
    ...(unbound ? { unbound } : {}),
    ...(target ? { target } : {}),
    ...(unsupported ? { unsupported } : {}),
  };
}

/**
 * Whether a proof on the instrumented program refutes the witness.
 * `memory` and `at-target` cut nothing off (the program keeps all its
 * executions); under `error-call` error calls are cut where the waypoints
 * say, which a lenient reading may get wrong.
 */
function refutation(options: BindOptions, r: { targetSeen: boolean; targetBound: boolean; lenient: boolean; unsupported?: string }): { overApproximates: boolean; notRefuting?: string } {
  const why = options.strict
    ? 'the strict reading admits fewer executions than the witness'
    : !r.targetSeen
      ? 'the witness has no target'
      : r.unsupported
        ? r.unsupported
        : options.violation === 'error-call' && !r.targetBound
          ? 'its target is not bound to the program'
          : options.violation === 'error-call' && r.lenient
            ? 'some entries were read leniently'
            : undefined;
  return why ? { overApproximates: false, notRefuting: why } : { overApproximates: true };
}

function cLiteral(v: bigint): string {
  return v < 0n ? `(${v}LL)` : `${v}ULL`;
}

function within(c: CallPoint, st: StatementPoint): boolean {
  return st.start <= c.start && c.end <= st.end;
}

/**
 * The function whose end a target outside its statements stands for: the
 * target is in the function's header (where its definition starts, before
 * the body) or on the line of its closing brace after the last statement.
 */
function endOfFunction(points: ProgramPoints, offset: number, st: StatementPoint | undefined): { name: string; start: number; end: number } | undefined {
  for (const f of points.functions) {
    if (f.header <= offset && offset < f.start) return f;
    const closing = points.lines.position(f.end - 1).line;
    if (offset >= f.end - 1 && offset < f.end + 1 && points.lines.position(offset).line === closing && !st) return f;
  }
  return undefined;
}
