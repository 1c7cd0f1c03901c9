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
// - target (unreach-call): before each call of the error function, the
//   counter must have passed every waypoint; a call that is not the target
//   is cut off (`__VERIFIER_assume(0)`);
// - target (memory safety): nothing is cut off (the sanitizers decide where
//   the violation happened); with `tracePath`, the place calls the replay
//   harness's `__tarsier_target` when every waypoint before the target
//   statement has been passed. A leak has no statement of its own: a target
//   on a function's header or closing brace reads as the function's end
//   (each `return` of it and its closing brace).
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
import { NONDET_FLOAT_TYPES, NONDET_TYPES } from '../replay/harness.js';
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
  /** True when the instrumentation admits every execution the witness represents (no lenient reading, every error call handled), so a proof on it refutes the witness. */
  readonly overApproximates: boolean;
  /** The target statement (for checking where a no-overflow or memory violation happened). */
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

/** The integer a `\result == N` constraint pins, if it is that simple. */
export function pinnedResult(text: string): bigint | undefined {
  const m = /^\s*\\result\s*==\s*\(?\s*(-?)\s*(0[xX][0-9a-fA-F]+|\d+)\s*\)?\s*[uUlL]*\s*$/.exec(text) ??
    /^\s*\(?\s*(-?)\s*(0[xX][0-9a-fA-F]+|\d+)\s*\)?\s*[uUlL]*\s*==\s*\\result\s*$/.exec(text);
  if (!m) return undefined;
  const v = BigInt(m[2]!);
  return m[1] ? -v : v;
}

export type BindProperty = 'unreach-call' | 'no-overflow' | 'valid-memsafety' | 'valid-memcleanup';

export interface BindOptions {
  readonly property: BindProperty;
  readonly errorFunction: string;
  /** Assume each constraint at the first passing of its place (fixes values early: a faster search, but not an over-approximation). */
  readonly strict?: boolean;
  /** Memory safety: call the replay harness's `__tarsier_target` where the target is passed after the waypoints before it (a program to replay, not to verify). */
  readonly tracePath?: boolean;
}

const isMemory = (p: BindProperty) => p === 'valid-memsafety' || p === 'valid-memcleanup';

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
  const drop = (w: Waypoint, note: string) => readings.push({ waypoint: w, reading: 'dropped', note });
  // The counter advances past waypoint i at the first passing of its place
  // where its constraint holds (greedy matching: every execution the strict
  // reading admits is admitted, so a proof on this program still refutes).
  // Guards at one place run in order, so one passing may match consecutive
  // waypoints there (ESBMC puts `x1 == 0`, `x2 == 1` on one declaration).
  const places = new Map<string, { place: (chain: string) => void; guards: string[] }>();
  const guard = (key: string, place: (chain: string) => void, cond: string) => {
    let p = places.get(key);
    if (!p) places.set(key, (p = { place, guards: [] }));
    p.guards.push(
      options.strict
        ? `if (${SEG} == ${follows}u) { __VERIFIER_assume(${cond}); ${SEG} = ${follows + 1}u; }`
        : `if (${SEG} == ${follows}u && (${cond})) ${SEG} = ${follows + 1}u;`,
    );
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
        if (fn === options.errorFunction && options.property === 'unreach-call') {
          targetAnyCall = true;
          // Reaching its body is calling it: the same executions, so this reading keeps refutations sound.
          readings.push({ waypoint: w, reading: 'lenient', note: `inside ${fn}: read as any call of ${fn}` });
        } else if (st && !(isMemory(options.property) && endOfFunction(points, offset, st))) {
          target = st;
          readings.push({ waypoint: w, reading: statementAt(points, offset) ? 'exact' : 'lenient', ...(statementAt(points, offset) ? {} : { note: 'not at a statement start: read as the statement containing it' }) });
        } else if (isMemory(options.property) && (targetEndOf = endOfFunction(points, offset, st))) {
          readings.push({ waypoint: w, reading: 'lenient', note: `not in a statement of ${targetEndOf.name}: read as the end of ${targetEndOf.name} (where a block still allocated is judged)` });
        } else {
          drop(w, 'no statement at the target location');
        }
        continue;
      }
      if (w.action !== 'follow') {
        drop(w, `${w.action} waypoints are not enforced (the search is wider, never narrower)`);
        pins = undefined;
        continue;
      }
      const value = w.constraint?.value;
      if (w.type === 'assumption') {
        pins = undefined;
        const cText = typeof value === 'string' ? value : String(value);
        const exact = statementAt(points, offset);
        const st = exact ?? statementContaining(points, offset);
        if (!st) { drop(w, 'no statement at this location'); continue; }
        // A guard in front of a label would be jumped over (and then block the later waypoints).
        if (isLabel(st)) { drop(w, 'at a label: a constraint there would be jumped over'); continue; }
        const assigned = assignedBy(st);
        const after = [...identifiers(cText)].some((n) => assigned.has(n));
        const parseAt = after ? points.lines.position(st.end) : { line, column };
        const parsed = parseExpressionAt(program, parseAt, cText);
        if ('error' in parsed) { drop(w, `constraint '${cText}' is not a C expression here: ${parsed.error}`); continue; }
        if (!exact && !after) { drop(w, 'not at a statement start, and not at an assignment of a variable it names'); continue; }
        const cond = `(${cText}) != 0`;
        if (after) {
          if (st.stmt.kind === 'DeclStmt') guard(`after:${st.end}`, (code) => edits.after(st.end, ` ${code}`), cond);
          else if (st.stmt.kind === 'ExprStmt') guard(`after:${st.end}`, (code) => edits.wrap(st.start, st.end, '{ ', ` ${code} }`), cond);
          else { drop(w, 'an assignment inside a condition: cannot place the assumption after it'); continue; }
          lenient = true;
          readings.push({ waypoint: w, reading: 'lenient', note: `at a statement that assigns ${[...identifiers(cText)].filter((n) => assigned.has(n)).join(', ')}: read as the state after it` });
        } else {
          guard(`before:${st.start}`, (code) => beforeStatement(edits, st, code), cond);
          readings.push({ waypoint: w, reading: 'exact' });
        }
        followAt.push(offset);
        follows++;
        continue;
      }
      if (w.type === 'function_return') {
        const call = points.calls.find((c) => c.rparen.line === line && c.rparen.column === column);
        if (!call) { drop(w, 'no call ends at this location'); pins = undefined; continue; }
        const type = call.callee && NONDET_TYPES[call.callee] ? NONDET_TYPES[call.callee]! : typeToString(call.call.type);
        const floating = call.callee ? NONDET_FLOAT_TYPES[call.callee]?.type : undefined;
        const pinned = typeof value !== 'string' ? undefined : floating ? pinnedFloat(value, floating) : pinnedResult(value);
        if (pinned === undefined || type === 'void' || /\*/.test(type)) {
          drop(w, `constraint '${String(value)}' is not '\\result == <integer>'`);
          pins = undefined;
          continue;
        }
        if (pins && call.callee && (NONDET_TYPES[call.callee] || floating)) pins.push({ function: call.callee, value: pinned });
        else pins = undefined;
        const place = (chain: string) => {
          const name = `__tarsier_ret_${helpers++}`;
          edits.declare(`static ${type} ${name}(${type} r) { ${chain} return r; }`);
          edits.wrap(call.start, call.end, `${name}(`, ')');
        };
        guard(`call:${call.start}`, place, floating ? floatValueCondition('r', pinned, floating === 'float' ? 'float' : 'double') : `r == (${type})(${cLiteral(pinned)})`);
        readings.push({ waypoint: w, reading: 'exact' });
        followAt.push(offset);
        follows++;
        continue;
      }
      if (w.type === 'branching') {
        pins = undefined;
        const b = points.branches.find((x) => x.loc.line === line && x.loc.column === column);
        const want = value === true || value === 'true' ? 1 : value === false || value === 'false' ? 0 : undefined;
        if (!b || !b.condition) { drop(w, 'no if, while, for or do with a condition at this location'); continue; }
        if (want === undefined) { drop(w, `branch value '${String(value)}' is not true or false`); continue; }
        const cnd = b.condition;
        const place = (chain: string) => {
          const name = `__tarsier_branch_${helpers++}`;
          edits.declare(`static int ${name}(int b) { ${chain} return b; }`);
          edits.wrap(cnd.start, cnd.end, `${name}(!!(`, '))');
        };
        guard(`branch:${cnd.start}`, place, `b == ${want}`);
        readings.push({ waypoint: w, reading: 'exact' });
        followAt.push(offset);
        follows++;
        continue;
      }
      drop(w, `${w.type} waypoints are not enforced (the search is wider, never narrower)`);
      pins = undefined;
    }
  }

  for (const p of places.values()) p.place(p.guards.join(' '));

  // The violation must happen after the last follow waypoint, at the target.
  let everyErrorCallHandled = true;
  if (options.property === 'unreach-call') {
    const errorCalls = points.calls.filter((c) => c.callee === options.errorFunction);
    for (const c of errorCalls) {
      const atTarget = !target || targetAnyCall || within(c, target);
      if (!c.isStatement) { everyErrorCallHandled = false; continue; }
      beforeStatement(edits, c.statement, `__VERIFIER_assume(${atTarget ? `${SEG} == ${follows}u` : '0'});`);
    }
  }
  if (isMemory(options.property) && options.tracePath) {
    // The target is passed once the waypoints before its statement are
    // (those inside it, such as a nondet call's return, come during it).
    let before = follows;
    while (target && before > 0 && target.start <= followAt[before - 1]! && followAt[before - 1]! < target.end) before--;
    edits.declare('extern void __tarsier_target(void);');
    const mark = `if (${SEG} >= ${before}u) __tarsier_target();`;
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
    // Memory safety cuts nothing off: the program has all its executions.
    overApproximates: !options.strict && targetSeen && !unsupported && (isMemory(options.property) || (!lenient && everyErrorCallHandled && options.property === 'unreach-call')),
    ...(target ? { target } : {}),
    ...(unsupported ? { unsupported } : {}),
  };
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
