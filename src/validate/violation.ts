// Validation of a violation witness: the waypoints become constraints on the
// program (waypoints.ts); when they pin every nondet value the program is
// simply run with them (execution-based); otherwise the constrained program
// goes through `verify` (BMC), whose counterexample is replayed by gcc on the
// constrained program (so the waypoints hold in the run) and then on the
// ORIGINAL program. Only a violation of the original program confirms.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { TarsierError } from '../common/errors.js';
import type { CProgram } from '../c/index.js';
import { replayCounterexample, type NondetValue, type ReplayResult } from '../replay/index.js';
import type { Resolved } from '../verify/index.js';
import { verify } from '../verify/index.js';
import type { ViolationSequenceEntry } from '../witness/model.js';
import { programPoints } from './program-points.js';
import { bindSequence, type WaypointReading } from './waypoints.js';

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
  /** The instrumented program (for `--emit-program`). */
  readonly program: string;
}

export interface ViolationContext {
  readonly resolved: Resolved;
  readonly c: CProgram;
  readonly text: string;
  readonly entry: ViolationSequenceEntry;
  /** CPU seconds left for the search. */
  readonly budgetS: () => number;
  readonly log: (m: string) => void;
}

export async function validateViolation(ctx: ViolationContext): Promise<ViolationValidation> {
  const { resolved } = ctx;
  const kind = resolved.property.kind;
  if (kind !== 'unreach-call' && kind !== 'no-overflow') {
    return { outcome: 'unconfirmed', reason: `property ${kind} is not supported`, readings: [], program: ctx.text };
  }
  const errorFunction = resolved.property.errorFunction ?? 'reach_error';
  const points = programPoints(ctx.c, ctx.text);
  const bound = bindSequence(ctx.c, ctx.text, points, ctx.entry, { property: kind, errorFunction });
  const base = { readings: bound.readings, program: bound.program };
  if (bound.unsupported) return { ...base, outcome: 'unconfirmed', reason: bound.unsupported };
  const replayOriginal = (values: readonly NondetValue[]) =>
    replayCounterexample(resolved.program, values, { property: kind, dataModel: resolved.dataModel, errorFunction });
  // A no-overflow violation must happen at the target statement (when it has one).
  const atTarget = (r: ReplayResult): boolean =>
    kind !== 'no-overflow' || !bound.target || !r.overflowAt || (bound.target.loc.line <= r.overflowAt.line && r.overflowAt.line <= (bound.target.loc.end?.line ?? bound.target.loc.line));

  if (bound.pinnedValues) {
    const r = replayOriginal(bound.pinnedValues);
    ctx.log(`execution-based: ${r.status}: ${r.reason}`);
    if (r.status === 'confirmed' && atTarget(r)) {
      return { ...base, outcome: 'confirmed', method: 'execution', inputs: bound.pinnedValues, replay: r, reason: `the witness's ${bound.pinnedValues.length} nondet values, run: ${r.reason}` };
    }
  }

  const dir = mkdtempSync(join(tmpdir(), 'tarsier-validate-'));
  const search = async (program: string, timeoutS: number) => {
    const file = join(dir, basename(resolved.program));
    writeFileSync(file, program);
    return verify(file, { propertyDetails: resolved.property, dataModel: resolved.dataModel, timeoutS: Math.max(1, timeoutS), witnessPath: null, log: ctx.log });
  };
  try {
    let v;
    try {
      // First with each constraint assumed at the first passing of its place
      // (values fixed early: fast), then matched greedily (the over-approximation).
      const strict = bindSequence(ctx.c, ctx.text, points, ctx.entry, { property: kind, errorFunction, strict: true });
      const s = await search(strict.program, ctx.budgetS() / 2);
      ctx.log(`search (strict reading): ${s.verdict.kind}: ${s.reason}`);
      const sr = s.verdict.kind === 'false' && s.counterexample ? replayOriginal(s.counterexample) : undefined;
      if (s.counterexample && sr?.status === 'confirmed' && atTarget(sr)) {
        return { ...base, outcome: 'confirmed', method: 'search', inputs: s.counterexample, replay: sr, reason: `an execution along the waypoints, ${s.counterexample.length} nondet values${s.bound === undefined ? "" : ` (BMC bound ${s.bound})`}; ${sr.reason}` };
      }
      v = await search(bound.program, ctx.budgetS());
    } catch (e) {
      if (e instanceof TarsierError) return { ...base, outcome: 'unconfirmed', reason: `the constrained program cannot be checked: ${e.message}` };
      throw e;
    }
    ctx.log(`search: ${v.verdict.kind}: ${v.reason}`);
    if (v.verdict.kind === 'false' && v.counterexample) {
      const r = replayOriginal(v.counterexample);
      if (r.status !== 'confirmed') {
        return { ...base, outcome: 'unconfirmed', method: 'search', replay: r, reason: `an execution along the waypoints was found, but its replay on the program failed: ${r.reason}` };
      }
      if (!atTarget(r)) {
        return { ...base, outcome: 'unconfirmed', method: 'search', replay: r, reason: `the execution found overflows at line ${r.overflowAt!.line}, not at the target (line ${bound.target!.loc.line})` };
      }
      return { ...base, outcome: 'confirmed', method: 'search', inputs: v.counterexample, replay: r, reason: `an execution along the waypoints, ${v.counterexample.length} nondet values${v.bound === undefined ? "" : ` (BMC bound ${v.bound})`}; ${r.reason}` };
    }
    if (v.verdict.kind === 'true') {
      if (bound.overApproximates) {
        return { ...base, outcome: 'refuted', method: 'search', reason: `no execution that follows the waypoints violates the property (${v.reason})` };
      }
      return { ...base, outcome: 'unconfirmed', method: 'search', reason: `no execution follows the waypoints as read here (some entries were read leniently, so this does not refute the witness): ${v.reason}` };
    }
    return { ...base, outcome: 'unconfirmed', method: 'search', reason: v.reason };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
