// Validation of a violation witness: the waypoints become constraints on the
// program (waypoints.ts); when they pin every nondet value the program is
// simply run with them (execution-based); otherwise the constrained program
// goes through `verify` (BMC), whose counterexample is replayed by gcc on the
// constrained program (so the waypoints hold in the run) and then on the
// ORIGINAL program. Only a violation of the original program confirms.
//
// How the run must show the violation is the property table's
// (`validation`): a call of the error function at the target (`error-call`),
// a violation the replay locates in the target statement (`at-target`), or
// memory safety (`memory`): the run must show the violation with the sanitizers, as
// `verify` replays its own (AddressSanitizer for invalid accesses and
// frees, LeakSanitizer for lost blocks, a counting allocator for blocks
// still allocated at exit). The instrumented program is replayed too, so the
// run is known to pass the waypoints: an invalid access or free must happen
// in the target statement with every waypoint passed; a leak must come after
// the run passed the target with every waypoint passed. As the rules ask, a
// 2.x witness stands only for valid-deref and valid-free, and the leak
// properties need GraphML 1.0.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { TarsierError } from '../common/errors.js';
import type { CProgram } from '../c/index.js';
import { propertyRow, violationWitnessFormat, type WitnessContext } from '../properties/index.js';
import { nondetCalls, replayCounterexample, shownAtExit, type MemoryProperty, type NondetValue, type ReplayResult, type Symptom } from '../replay/index.js';
import type { PropertyKind } from '../task/index.js';
import type { Resolved } from '../verify/index.js';
import { verify } from '../verify/index.js';
import type { ViolationSequenceEntry } from '../witness/model.js';
import { modelViolationAt } from './model-run.js';
import { programPoints } from './program-points.js';
import { bindSequence, type BoundSequence, type WaypointCheck, type WaypointReading } from './waypoints.js';

export type Outcome = 'confirmed' | 'refuted' | 'unconfirmed';

export interface ViolationValidation {
  readonly outcome: Outcome;
  readonly reason: string;
  readonly readings: readonly WaypointReading[];
  /** `execution` (the witness's values run directly) or `search` (BMC on the constrained program). */
  readonly method?: 'execution' | 'search';
  /** The nondet values of the confirmed run. */
  readonly inputs?: readonly NondetValue[];
  readonly replay?: ReplayResult;
  /** Memory safety: the sub-property the confirmed run violates. */
  readonly violated?: MemoryProperty;
  /** The instrumented program (for `--emit-program`). */
  readonly program: string;
}

export interface ViolationContext {
  readonly resolved: Resolved;
  readonly c: CProgram;
  readonly text: string;
  readonly entry: ViolationSequenceEntry;
  /** The witness's format (memory safety: it limits the sub-properties it can stand for). */
  readonly format: 'yaml' | 'graphml';
  /** CPU seconds left for the search. */
  readonly budgetS: () => number;
  readonly log: (m: string) => void;
}

/** What a run with some nondet values shows: whether it confirms the witness, and why. */
interface RunCheck {
  readonly ok: boolean;
  readonly reason: string;
  readonly replay: ReplayResult;
  readonly violated?: MemoryProperty;
}

/** The property's violations as the property table has them: how a witness is checked, and what its runs must show. */
interface HowChecked {
  readonly violation: WaypointCheck;
  readonly replay: Symptom;
}

/** The rules' witness table for a program without threads (one with threads is validated by threads.ts). */
const SEQUENTIAL: WitnessContext = { concurrent: false };

/** Whether the rules ask for GraphML 1.0 for a violation of `violated`, a (sub-)property of `kind`. */
function needsGraphml(kind: PropertyKind, violated: string): boolean {
  return violationWitnessFormat(kind, violated, SEQUENTIAL).version === '1.0';
}

export async function validateViolation(ctx: ViolationContext): Promise<ViolationValidation> {
  const { resolved } = ctx;
  const kind = resolved.property.kind;
  const row = propertyRow(kind);
  const how = row.validation;
  if (!how || how.violation === 'cycle') {
    return { outcome: 'unconfirmed', reason: `property ${kind} is not supported`, readings: [], program: ctx.text };
  }
  const checked: HowChecked = { violation: how.violation, replay: how.replay };
  const memory = checked.violation === 'memory';
  if (ctx.format !== 'graphml' && Object.values(row.violations).every((v) => v && needsGraphml(kind, v.name))) {
    return { outcome: 'unconfirmed', reason: `the rules ask for GraphML 1.0 violation witnesses for ${kind}, not 2.x`, readings: [], program: ctx.text };
  }
  const errorFunction = resolved.property.errorFunction ?? 'reach_error';
  const points = programPoints(ctx.c, ctx.text);
  const bound = bindSequence(ctx.c, ctx.text, points, ctx.entry, { violation: checked.violation, errorFunction });
  const base = { readings: bound.readings, program: bound.program };
  if (bound.unsupported) return { ...base, outcome: 'unconfirmed', reason: bound.unsupported };
  if (memory && !bound.target && !bound.targetEndOf) return { ...base, outcome: 'unconfirmed', reason: 'the target is not at a statement of the program' };
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-validate-'));
  const file = join(dir, basename(resolved.program));
  const traced = tracedProgram(ctx, checked.violation, join(dir, 'traced'));
  const check = memory ? memoryRun(ctx, checked, bound, traced) : (values: readonly NondetValue[]) => plainRun(ctx, checked, bound, traced, values);

  const search = async (program: string, timeoutS: number) => {
    writeFileSync(file, program);
    return verify(file, { propertyDetails: resolved.property, dataModel: resolved.dataModel, timeoutS: Math.max(1, timeoutS), witnessPath: null, log: ctx.log });
  };
  const confirmed = (method: 'execution' | 'search', values: readonly NondetValue[], c: RunCheck, how: string): ViolationValidation =>
    // A waypoint that could not be bound was not checked in the run: it may exclude every violating run.
    bound.unbound
      ? { ...base, outcome: 'unconfirmed', method, replay: c.replay, reason: `${how} violates the property, but ${bound.unbound} could not be read, so the run is not known to follow the witness` }
      : {
          ...base,
          outcome: 'confirmed',
          method,
          inputs: values,
          replay: c.replay,
          ...(c.violated ? { violated: c.violated } : {}),
          reason: `${how}${method === 'execution' ? ':' : ';'} ${c.reason}`,
        };
  try {
    if (bound.pinnedValues) {
      const c = check(bound.pinnedValues);
      ctx.log(`execution-based: ${c.ok ? 'confirmed' : 'not confirmed'}: ${c.reason}`);
      if (c.ok) return confirmed('execution', bound.pinnedValues, c, `the witness's ${bound.pinnedValues.length} nondet values, run`);
    }
    let v;
    try {
      // First with each constraint assumed at the first passing of its place
      // (values fixed early: fast), then matched greedily (the over-approximation).
      const strict = bindSequence(ctx.c, ctx.text, points, ctx.entry, { violation: checked.violation, errorFunction, strict: true });
      const s = await search(strict.program, ctx.budgetS() / 2);
      ctx.log(`search (strict reading): ${s.verdict.kind}: ${s.reason}`);
      const sc = s.verdict.kind === 'false' && s.counterexample ? check(s.counterexample) : undefined;
      if (s.counterexample && sc?.ok) {
        return confirmed('search', s.counterexample, sc, `an execution along the waypoints, ${nondetCalls(s.counterexample)} nondet values${s.bound === undefined ? '' : ` (BMC bound ${s.bound})`}`);
      }
      v = await search(bound.program, ctx.budgetS());
    } catch (e) {
      if (e instanceof TarsierError) return { ...base, outcome: 'unconfirmed', reason: `the constrained program cannot be checked: ${e.message}` };
      throw e;
    }
    ctx.log(`search: ${v.verdict.kind}: ${v.reason}`);
    if (v.verdict.kind === 'false' && v.counterexample) {
      const c = check(v.counterexample);
      if (!c.ok) return { ...base, outcome: 'unconfirmed', method: 'search', replay: c.replay, reason: `an execution along the waypoints was found, but ${c.reason}` };
      return confirmed('search', v.counterexample, c, `an execution along the waypoints, ${nondetCalls(v.counterexample)} nondet values${v.bound === undefined ? '' : ` (BMC bound ${v.bound})`}`);
    }
    if (v.verdict.kind === 'true') {
      if (bound.overApproximates) {
        return { ...base, outcome: 'refuted', method: 'search', reason: `no execution that follows the waypoints violates the property (${v.reason})` };
      }
      return { ...base, outcome: 'unconfirmed', method: 'search', reason: `no execution follows the waypoints as read here (${bound.notRefuting ?? 'the reading does not admit every execution of the witness'}, so this does not refute the witness): ${v.reason}` };
    }
    return { ...base, outcome: 'unconfirmed', method: 'search', reason: v.reason };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The program instrumented to tell, when replayed, how far along the waypoints a run got (`tracePath`); its file. */
function tracedProgram(ctx: ViolationContext, violation: WaypointCheck, dir: string): string {
  const traced = bindSequence(ctx.c, ctx.text, programPoints(ctx.c, ctx.text), ctx.entry, { violation, errorFunction: ctx.resolved.property.errorFunction ?? 'reach_error', tracePath: true });
  mkdirSync(dir, { recursive: true });
  const file = join(dir, basename(ctx.resolved.program));
  writeFileSync(file, traced.program);
  return file;
}

/**
 * `error-call` and `at-target`: the instrumented program, run with the
 * values, passes every waypoint at its place and in its order and then
 * violates the property at the target (an error call not at the target is
 * cut off; an `at-target` violation, such as an overflow, must come after
 * the target was passed); then the original program, run with them,
 * violates it too (`at-target`: on the target statement's lines).
 */
function plainRun(ctx: ViolationContext, checked: HowChecked, bound: BoundSequence, tracedFile: string, values: readonly NondetValue[]): RunCheck {
  const { resolved } = ctx;
  const atTarget = checked.violation === 'at-target';
  const opts = { symptom: checked.replay, dataModel: resolved.dataModel, errorFunction: resolved.property.errorFunction ?? 'reach_error' };
  const t = bound.target;
  const w = replayCounterexample(tracedFile, values, { ...opts, tracePath: true });
  const fail = (replay: ReplayResult, reason: string): RunCheck => ({ ok: false, replay, reason });
  if (w.status !== 'confirmed') return fail(w, `the run along the waypoints shows no violation at the target: ${w.reason}`);
  if (w.path?.atError !== bound.follows) return fail(w, `${w.path?.atError ?? 'no'} of the ${bound.follows} waypoints were passed at the violation; ${w.reason}`);
  if (atTarget && !(t && w.path.targetPassed)) return fail(w, `the overflow does not come after the target was passed (${t ? `line ${t.loc.line}` : 'no target statement'}); ${w.reason}`);
  const r = replayCounterexample(resolved.program, values, opts);
  if (r.status !== 'confirmed') return fail(r, `its replay on the program failed: ${r.reason}`);
  const at = r.overflowAt;
  const lastLine = t?.loc.end?.line ?? t?.loc.line ?? 0;
  if (atTarget && t && !(at && t.loc.line <= at.line && at.line <= lastLine)) {
    // gcc reports a later line: it may have folded the target's arithmetic
    // away (the run did pass the target); the model's run places the first violation.
    const model = at && at.line > lastLine ? modelViolationAt(ctx.c, resolved.property.kind, resolved.dataModel, values, () => ctx.budgetS() <= 0) : undefined;
    if (!model || model.line < t.loc.line || model.line > lastLine) {
      return fail(r, `the execution overflows at line ${at?.line ?? '?'}, not at the target (line ${t.loc.line})${model ? `; in Tarsier's semantics, at line ${model.line}` : ''}`);
    }
    return { ok: true, replay: r, reason: `${r.reason}; the first violation, in Tarsier's semantics of C, at ${model.line}:${model.column}, the target (gcc folds arithmetic even at -O0, so its report may come later)` };
  }
  return { ok: true, replay: r, reason: r.reason };
}

/**
 * Memory safety: the instrumented program, run with the values, passes the
 * waypoints and violates a sub-property the witness's format can stand for
 * at its target; then the original program, run with them, violates it too.
 */
function memoryRun(ctx: ViolationContext, checked: HowChecked, bound: BoundSequence, tracedFile: string): (values: readonly NondetValue[]) => RunCheck {
  const { resolved } = ctx;
  const kind = resolved.property.kind;
  const t = bound.target;
  const lines = t ? `line${t.loc.end && t.loc.end.line !== t.loc.line ? `s ${t.loc.line}-${t.loc.end.line}` : ` ${t.loc.line}`}` : `the end of ${bound.targetEndOf}`;
  return (values) => {
    const opts = { symptom: checked.replay, dataModel: resolved.dataModel, tracePath: true } as const;
    const r = replayCounterexample(tracedFile, values, opts);
    const fail = (reason: string): RunCheck => ({ ok: false, replay: r, reason });
    if (r.status !== 'confirmed' || !r.violated) return fail(`its replay shows no violation: ${r.reason}`);
    const v = r.violated;
    if (ctx.format === 'yaml' && needsGraphml(kind, v)) return fail(`its replay shows ${v} (${r.reason}), and a 2.x witness stands only for valid-deref or valid-free (the rules ask for GraphML 1.0 for ${v})`);
    const path = r.path;
    if (!path?.targetPassed) return fail(`the run never passed the target (${lines}) after the waypoints before it; ${r.reason}`);
    if (shownAtExit(v)) {
      if (path.atExit !== bound.follows) return fail(`${path.atExit ?? 'no'} of the ${bound.follows} waypoints were passed when the run ended; ${r.reason}`);
    } else {
      if (!t) return fail(`${v} needs a target statement, not the end of ${bound.targetEndOf}`);
      const at = r.violationLine;
      if (at === undefined || at < t.loc.line || at > (t.loc.end?.line ?? t.loc.line)) {
        return fail(`the ${v} violation happens ${at === undefined ? 'at no known line' : `at line ${at}`}, not at the target (${lines}); ${r.reason}`);
      }
      if (path.atError !== bound.follows) return fail(`${path.atError ?? 'no'} of the ${bound.follows} waypoints were passed at the violation; ${r.reason}`);
    }
    // The original program, with the same values, violates the same sub-property at the same place.
    const o = replayCounterexample(resolved.program, values, { ...opts, symptom: v });
    if (o.status !== 'confirmed' || o.violated !== v || o.violationLine !== r.violationLine) {
      return { ok: false, replay: o, reason: `the instrumented program violates ${v}${r.violationLine ? ` at line ${r.violationLine}` : ''}, but the program's own replay does not: ${o.reason}` };
    }
    return { ok: true, replay: o, violated: v, reason: o.reason };
  };
}
