// Validation of a correctness witness, invariant by invariant:
//
// 1. confirmed: the loop invariants that Houdini keeps on the lowered program
//    (select on C: C semantics, every lowered instance of the loop), i.e.
//    inductive together — true at every visit of their loop heads;
// 2. refuted: an invariant for which BMC finds an execution reaching its loop
//    head in a state violating it (the program with the invariants as checks
//    that call the error function), replayed by gcc on the checked program,
//    with the original program not violating the property on that run
//    (otherwise the property itself is refuted);
// 3. unconfirmed: everything else (with the reason).
// Then the property: proved with the confirmed invariants, else by `verify`
// (Tarsier's own reasoning, with the confirmed invariants as loop candidates
// where the engine takes them; see proveProperty).

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parseExpressionAt, type CProgram } from '../c/index.js';
import { TarsierError } from '../common/errors.js';
import { cCandidatesFromWitness, selectCInvariants, type CCandidate } from '../invariants/index.js';
import { lowerProgram } from '../lower/index.js';
import { passesOf, propertyRow } from '../properties/index.js';
import { replayCounterexample, type NondetValue, type Symptom } from '../replay/index.js';
import { errorCallProperty } from '../task/index.js';
import { verify, type Resolved } from '../verify/index.js';
import { toOneBasedColumn, type Entry, type WitnessDocument, type WitnessPos } from '../witness/model.js';
import { beforeStatement, ProgramEdits } from './instrument.js';
import { isLabel, leftmostColumn, offsetOf, programPoints, statementAt, type CallPoint, type ProgramPoints, type StatementPoint } from './program-points.js';
import type { Outcome } from './violation.js';

export type InvariantStatus = 'confirmed' | 'refuted' | 'unconfirmed';

export interface InvariantResult {
  readonly index: number;
  /** `loop_invariant` or `location_invariant`. */
  readonly kind: string;
  readonly expression: string;
  /** The program location the witness names (1-based). */
  readonly line: number;
  readonly column: number;
  /** Where the invariant is written in the witness file. */
  readonly witnessAt?: WitnessPos;
  readonly status: InvariantStatus;
  readonly reason: string;
  /** For a refuted invariant: the nondet values of the replayed run that violates it. */
  readonly inputs?: readonly NondetValue[];
  /** Where the certificate points (0.1 entry UUID, or the invariant_set's UUID and the position in it). */
  readonly origin: { readonly uuid: string; readonly entryType: string; readonly position: number; readonly fileHash?: string };
}

export interface CorrectnessValidation {
  readonly outcome: Outcome;
  readonly reason: string;
  readonly invariants: readonly InvariantResult[];
  /** The program with every invariant as a check (for `--emit-program`). */
  readonly program: string;
  /** For a refutation by a property violation: the run's nondet values. */
  readonly inputs?: readonly NondetValue[];
}

export interface CorrectnessContext {
  readonly resolved: Resolved;
  readonly c: CProgram;
  readonly text: string;
  readonly doc: WitnessDocument;
  readonly budgetS: () => number;
  readonly log: (m: string) => void;
  /** The invariants claim more than the witness says (GraphML: every visit of a place, not only the automaton's states there): a violated one is unconfirmed, not refuted. */
  readonly claimsStronger?: string;
}

interface Claim {
  readonly result: Omit<InvariantResult, 'status' | 'reason'>;
  status?: InvariantStatus;
  reason?: string;
  inputs?: readonly NondetValue[];
  candidate?: CCandidate;
  /** A location invariant's statement. */
  statement?: StatementPoint;
  /** False when the witness gave no column (the leftmost statement of the line is meant). */
  columnGiven?: boolean;
}

/** Every invariant of the witness, in order, with where a certificate would point. */
function claimsOf(entries: readonly Entry[]): Claim[] {
  const out: Claim[] = [];
  for (const e of entries) {
    if ('unknown' in e) continue;
    if (e.entry_type === 'loop_invariant' || e.entry_type === 'location_invariant') {
      out.push({ columnGiven: e.location.column !== undefined, result: { index: out.length, kind: e.entry_type, expression: e.invariant.text, line: e.location.line, column: toOneBasedColumn(e.location) ?? 1, ...((e.invariant.at ?? e.at) ? { witnessAt: e.invariant.at ?? e.at } : {}), origin: { uuid: e.metadata.uuid, entryType: e.entry_type, position: 0, ...(e.location.file_hash ? { fileHash: e.location.file_hash } : {}) } } });
    } else if (e.entry_type === 'invariant_set') {
      e.content.forEach((item, position) => {
        const expression = item.kind === 'function_contract' ? `requires ${item.requires}; ensures ${item.ensures}` : item.value.text;
        const loc = 'location' in item ? item.location : undefined;
        const at = 'value' in item ? item.value.at ?? item.at : item.at;
        out.push({ columnGiven: loc?.column !== undefined, result: { index: out.length, kind: item.kind, expression, line: loc?.line ?? 0, column: loc ? toOneBasedColumn(loc) ?? 1 : 0, ...(at ? { witnessAt: at } : {}), origin: { uuid: e.metadata.uuid, entryType: 'invariant_set', position } } });
      });
    }
  }
  return out;
}

/** A decimal integer constant other than 0, optionally parenthesised: true in any state. */
const NONZERO_CONSTANT = /^\s*(\(\s*)*[1-9][0-9]*[uUlL]{0,3}\s*(\)\s*)*$/;

/** What the checks of a program with the invariants as checks violate: no call of reach_error. */
const CHECKS_PROPERTY = errorCallProperty('reach_error');

/** The program with the given invariants as checks (a violated one calls the error function): loop invariants before each evaluation of the loop condition, location invariants before their statement. */
function withChecks(
  text: string,
  points: ProgramPoints,
  claims: readonly Claim[],
  errorFunction: string,
  /** Proved loop invariants: assumed at their loop heads (they hold there in every execution), to help the proof of the others. */
  proved: readonly Claim[] = [],
  /** The program's own calls of an error function (under a property they do not violate, such as no-overflow: they end the run; in the checked program they must not count as a failed check). */
  cut: readonly CallPoint[] = [],
): { program: string; placed: Claim[] } {
  const edits = new ProgramEdits(text, points.firstDefinition);
  edits.declare(`void ${errorFunction}(); extern void __VERIFIER_assume(int);`);
  for (const call of cut) edits.wrap(call.start, call.end, '(__VERIFIER_assume(0), ', ')');
  const placed: Claim[] = [];
  const loopCondition = (cl: Claim) => {
    const loop = cl.candidate?.loopLoc;
    const b = loop && points.branches.find((x) => x.loc.line === loop.line && x.loc.column === loop.column && (x.keyword === 'while' || x.keyword === 'for'));
    return b?.condition;
  };
  for (const cl of proved) {
    const cond = loopCondition(cl);
    if (cond) edits.wrap(cond.start, cond.end, `(__VERIFIER_assume(${cl.result.expression}), (`, '))');
  }
  for (const cl of claims) {
    const check = `((${cl.result.expression}) ? 0 : (${errorFunction}(), 0))`;
    if (cl.statement) {
      beforeStatement(edits, cl.statement, `(void)${check};`);
      placed.push(cl);
      continue;
    }
    const cond = loopCondition(cl);
    if (!cond) continue;
    edits.wrap(cond.start, cond.end, `(${check}, (`, '))');
    placed.push(cl);
  }
  return { program: edits.render(), placed };
}

/** Binds a location invariant to the statement starting at its location, if its expression is C there. */
function bindLocationInvariant(c: CProgram, points: ProgramPoints, cl: Claim): void {
  const column = cl.columnGiven ? cl.result.column : leftmostColumn(points, cl.result.line, 'assumption');
  const offset = offsetOf(points, cl.result.line, column);
  const found = offset === undefined ? undefined : statementAt(points, offset);
  // A check in front of a label would be jumped over: not placed there.
  const st = found && !isLabel(found) ? found : undefined;
  if (!st) {
    cl.status = 'unconfirmed';
    cl.reason = `no statement starts at line ${cl.result.line}, column ${cl.result.column}`;
    return;
  }
  const parsed = parseExpressionAt(c, { line: cl.result.line, column }, cl.result.expression);
  if ('error' in parsed) {
    cl.status = 'unconfirmed';
    cl.reason = `invalid: ${parsed.error}`;
    return;
  }
  cl.statement = st;
  cl.reason = 'location invariant';
}

export async function validateCorrectness(ctx: CorrectnessContext): Promise<CorrectnessValidation> {
  const { resolved, c } = ctx;
  const kind = resolved.property.kind;
  const claims = claimsOf(ctx.doc.format === 'yaml' ? ctx.doc.entries : []);
  const points = programPoints(c, ctx.text);
  const errorFunction = resolved.property.errorFunction ?? 'reach_error';
  const finish = (outcome: Outcome, reason: string, extra: { program?: string; inputs?: readonly NondetValue[] } = {}): CorrectnessValidation => ({
    outcome,
    reason,
    invariants: claims.map((cl) => ({ ...cl.result, status: cl.status ?? 'unconfirmed', reason: cl.reason ?? 'not decided', ...(cl.inputs ? { inputs: cl.inputs } : {}) })),
    program: extra.program ?? withChecks(ctx.text, points, claims, errorFunction).program,
    ...(extra.inputs ? { inputs: extra.inputs } : {}),
  });
  // The property table says which properties' correctness witnesses are checked, and how a violation shows.
  const validation = propertyRow(kind).validation;
  if (!validation?.correctness) return finish('unconfirmed', `property ${kind} is not supported`);

  // 1. Bind the loop invariants to loops; everything else is not checked (yet).
  const unbound = new Set<string>();
  const candidates = cCandidatesFromWitness(ctx.doc, c, (_t, _l, at) => unbound.add(`${at?.line}:${at?.column}`));
  for (const cl of claims) {
    if (cl.result.kind === 'location_invariant') bindLocationInvariant(c, points, cl);
    else if (cl.result.kind !== 'loop_invariant') {
      cl.status = 'unconfirmed';
      cl.reason = `${cl.result.kind} entries are not checked (only loop and location invariants)`;
    } else if (unbound.has(`${cl.result.witnessAt?.line}:${cl.result.witnessAt?.column}`)) {
      cl.status = 'unconfirmed';
      cl.reason = `no loop at line ${cl.result.line}, column ${cl.result.column}`;
    }
  }
  const loopClaims = claims.filter((cl) => cl.result.kind === 'loop_invariant' && cl.status === undefined);
  loopClaims.forEach((cl, i) => (cl.candidate = candidates[i]));

  // 2. Houdini over the witness's invariants. Not when all are non-zero
  // constants (step 3 confirms those): the check of the property with
  // them alone is one with no loop invariant at all, which step 4's own
  // proof makes better (a 64-bit product took the whole budget there).
  let proved = false;
  if (candidates.length > 0 && loopClaims.some((cl) => !NONZERO_CONSTANT.test(cl.result.expression))) {
    const lowered = lowerProgram(c, { passes: passesOf(kind), dataModel: resolved.dataModel });
    // No wall-clock deadline: the budget is CPU time, and on a loaded machine
    // the wall clock would cut Houdini short long before it is spent. One
    // solver call gets at most what is left of it (else one slow call runs
    // into the hard limit, and nothing after Houdini gets a chance).
    const callMs = Math.min(10000, Math.max(1, Math.floor(ctx.budgetS() * 1000)));
    const sel = await selectCInvariants(c, lowered, candidates, { method: 'houdini', timeoutMs: callMs });
    proved = sel.proved;
    sel.verdicts.forEach((v, i) => {
      const cl = loopClaims[i]!;
      if (v.status === 'selected') {
        cl.status = 'confirmed';
        cl.reason = 'inductive together with the other confirmed invariants (Houdini)';
      } else {
        cl.reason = `${v.reason ?? 'rejected'}${v.detail ? ` (${v.detail})` : ''}`;
      }
    });
  }

  // 3. Check the others on the program with them as checks: a replayed
  // violation refutes, a proof confirms them all. A non-zero constant (the
  // `1` of a program without loops) holds wherever it is placed: nothing to check.
  for (const cl of claims) {
    if (cl.status !== undefined || !(cl.statement || cl.candidate) || !NONZERO_CONSTANT.test(cl.result.expression)) continue;
    cl.status = 'confirmed';
    cl.reason = 'a non-zero constant: true wherever it is placed';
  }
  const open = claims.filter((cl) => cl.status === undefined && (cl.statement || (cl.candidate && !/^(unsupported|invalid)/.test(cl.reason ?? ''))));
  const houdini = claims.filter((cl) => cl.status === 'confirmed');
  const checked = await checkClaims(ctx, points, open, houdini, errorFunction, { checksAreViolations: validation.violation === 'error-call', replay: validation.replay });
  if (checked.propertyViolation) return finish('refuted', checked.propertyViolation.reason, { inputs: checked.propertyViolation.inputs });
  for (const cl of claims) if (cl.status === undefined) cl.status = 'unconfirmed';
  const refuted = claims.filter((cl) => cl.status === 'refuted');
  if (refuted.length > 0) {
    const r = refuted[0]!;
    return finish('refuted', `invariant ${r.result.expression} at line ${r.result.line} is violated by a replayed execution${refuted.length > 1 ? ` (and ${refuted.length - 1} more)` : ''}`);
  }

  // 4. The property.
  const confirmed = claims.filter((cl) => cl.status === 'confirmed').length;
  const how = proved
    ? { verdict: 'true' as const, reason: `the property is proved with the ${confirmed} confirmed invariants` }
    : checked.propertyProved
      ? { verdict: 'true' as const, reason: `the property is proved together with the invariants (${checked.propertyProved})` }
      : await proveProperty(ctx);
  if (how.verdict === 'false') return finish('refuted', how.reason, { inputs: how.inputs });
  if (how.verdict !== 'true') return finish('unconfirmed', `the property is not proved: ${how.reason}`);
  const unconfirmed = claims.length - confirmed;
  if (unconfirmed > 0) return finish('unconfirmed', `the property holds (${how.reason}), but ${unconfirmed} of ${claims.length} invariants are unconfirmed`);
  return finish('confirmed', `${confirmed} of ${claims.length} invariants confirmed; ${how.reason}`);
}

/**
 * Proves the property without the witness's help: `verify` on the program.
 * (Not with the confirmed invariants assumed at their loop heads: written
 * into the loop condition, they hide the condition's bound from the
 * array-cell candidates, and array programs lost their proofs.)
 */
async function proveProperty(ctx: CorrectnessContext): Promise<{ verdict: 'true' | 'false' | 'unknown'; reason: string; inputs?: readonly NondetValue[] }> {
  const budget = ctx.budgetS();
  if (budget < 1) return { verdict: 'unknown', reason: 'no time left' };
  const v = await verify(ctx.resolved.program, { propertyDetails: ctx.resolved.property, dataModel: ctx.resolved.dataModel, timeoutS: budget, witnessPath: null, log: ctx.log, proofFirst: true });
  if (v.verdict.kind === 'true') return { verdict: 'true', reason: `proved by Tarsier without the witness (${v.reason})` };
  if (v.verdict.kind === 'false') return { verdict: 'false', reason: `the program violates the property: ${v.reason}`, ...(v.counterexample ? { inputs: v.counterexample } : {}) };
  return { verdict: 'unknown', reason: v.reason };
}

/**
 * `verify` on the program with the open invariants as checks. A run it finds
 * is replayed: a property violation of the original program is returned (it
 * refutes the witness as a whole); otherwise the invariants whose own check
 * fails on that run are refuted (which refutes the witness: the others are
 * not searched further). A
 * proof confirms every invariant still checked (and, when the checks'
 * calls are the property's violations, the property: the checked program
 * contains the original's error calls).
 */
async function checkClaims(
  ctx: CorrectnessContext,
  points: ProgramPoints,
  open: Claim[],
  proved: readonly Claim[],
  errorFunction: string,
  /**
   * `checksAreViolations`: the property's violations are calls of the error
   * function, as the checks' are (the table's `error-call`), so the checks
   * are searched under the property itself; `replay`: what a run violating
   * the property shows.
   */
  property: { readonly checksAreViolations: boolean; readonly replay: Symptom },
): Promise<{ propertyViolation?: { reason: string; inputs: readonly NondetValue[] }; propertyProved?: string }> {
  const { resolved } = ctx;
  const kind = resolved.property.kind;
  if (open.length === 0) return {};
  // Unless they are the property's violations, the checks call reach_error
  // and are searched as calls of it (CHECKS_PROPERTY). The
  // program's own calls of an error function it does not define end the run there (as
  // they do under the property): the path is cut before them. One it defines is an
  // ordinary function, which the checks cannot tell apart: then nothing is checked.
  const errorCalls = property.checksAreViolations ? [] : points.calls.filter((x) => x.callee === 'reach_error' || x.callee === '__VERIFIER_error');
  const defined = errorCalls.find((x) => points.functions.some((f) => f.name === x.callee));
  const searchProperty = property.checksAreViolations ? resolved.property : defined ? undefined : CHECKS_PROPERTY;
  if (!searchProperty) {
    for (const cl of open) cl.reason += `; not checked (the program defines ${defined?.callee} and calls it under ${kind})`;
    return {};
  }
  const checkFn = searchProperty.errorFunction ?? 'reach_error';
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-validate-'));
  try {
    if (ctx.budgetS() > 2) {
      const { program, placed } = withChecks(ctx.text, points, open, checkFn, proved, errorCalls);
      if (placed.length === 0) return {};
      const file = join(dir, basename(resolved.program));
      writeFileSync(file, program);
      let v;
      try {
        // When the checks' calls are the property's violations, the checked
        // program keeps the original's error calls: its proof proves the
        // property too, and without it the witness stays unconfirmed anyway,
        // so it gets the whole budget. Otherwise half: the property is proved
        // on its own after.
        const share = searchProperty === resolved.property ? 1 : 0.5;
        v = await verify(file, { propertyDetails: searchProperty, dataModel: resolved.dataModel, timeoutS: Math.max(1, ctx.budgetS() * share), witnessPath: null, log: ctx.log });
      } catch (e) {
        if (e instanceof TarsierError) {
          for (const cl of placed) cl.reason += `; the checked program cannot be analysed: ${e.message}`;
          return {};
        }
        throw e;
      }
      if (v.verdict.kind === 'true') {
        for (const cl of placed) {
          cl.status = 'confirmed';
          cl.reason = `no execution violates it (the program with the invariants as checks: ${v.reason})`;
        }
        return searchProperty === resolved.property ? { propertyProved: v.reason } : {};
      }
      if (v.verdict.kind !== 'false' || !v.counterexample) {
        for (const cl of placed) cl.reason += `; no violation found (${v.reason})`;
        return {};
      }
      const inputs = v.counterexample;
      const original = replayCounterexample(resolved.program, inputs, { symptom: property.replay, dataModel: resolved.dataModel, errorFunction });
      if (original.status === 'confirmed') return { propertyViolation: { reason: `the program violates the property: ${original.reason}`, inputs } };
      let hit = 0;
      for (const cl of placed) {
        const one = withChecks(ctx.text, points, [cl], checkFn, [], errorCalls).program;
        const f = join(dir, `one-${basename(resolved.program)}`);
        writeFileSync(f, one);
        const r = replayCounterexample(f, inputs, { symptom: 'error-call', dataModel: resolved.dataModel, errorFunction: checkFn });
        if (r.status === 'confirmed' && ctx.claimsStronger) {
          cl.reason += `; violated by a replayed execution (${inputs.length} nondet values), which refutes nothing: ${ctx.claimsStronger}`;
          cl.inputs = inputs;
        } else if (r.status === 'confirmed') {
          cl.status = 'refuted';
          cl.reason = `violated by a replayed execution (${inputs.length} nondet values)`;
          cl.inputs = inputs;
          hit++;
        }
      }
      if (hit === 0) {
        for (const cl of placed) if (!cl.inputs) cl.reason += '; a violating execution was found but not confirmed by replay';
        return {};
      }
      // One refuted invariant refutes the witness: the others need no more of the budget.
    }
    return {};
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
