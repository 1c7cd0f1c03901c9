// `verify` for the property termination (`LTL(F end)`): TRUE when every
// execution provably ends, FALSE(termination) with a non-termination witness
// (format 2.1, cycle segments) when a lasso is confirmed concretely and by gcc.
//
// Order: complete unrolling (BMC: no execution longer than the bound), then
// ranking functions per loop (checked on bit-vectors), then the lasso search.

import { readFileSync } from 'node:fs';
import { forEachStatement, type CProgram } from '../c/index.js';
import { formatLocation, type SourceLocation } from '../common/location.js';
import { EncodeError, findLasso, provedBounded, provedByRanking, type Lasso, type TerminationOptions } from '../engines/index.js';
import { programSize, type ImpProgram } from '../ivl/ast.js';
import { loopAt, type SourceMap } from '../lower/source-map.js';
import type { InstrumentationPass } from '../lower/index.js';
import { violationOf, violationWitnessFormat } from '../properties/index.js';
import { replayCounterexample } from '../replay/index.js';
import { availableProcessSolver, createSolver } from '../smt/index.js';
import type { DataModel, Property } from '../task/index.js';
import { writeWitness } from '../witness/index.js';
import { lowerC } from './frontend.js';
import { recursionMeasures } from './recursion-termination.js';
import { buildLassoWitness, nondetStepsOf, replayValues } from './witness.js';
import { executeLowered } from './execution.js';
import { callingPrograms } from './recursive-calls.js';
import type { RankingFunctionReport, VerifyOptions, VerifyResult } from './types.js';
import { emitWitness, witnessContext, witnessFields, witnessMetadata } from './witness-output.js';

export interface TerminationTask {
  readonly c: CProgram;
  readonly program: string;
  readonly programAsWritten: string;
  readonly property: Property;
  readonly dataModel: DataModel;
  /** CPU milliseconds left. */
  readonly deadline: () => number;
  readonly log: (message: string) => void;
  readonly options: VerifyOptions;
}

type Outcome = Pick<VerifyResult, 'verdict' | 'reason'> & Partial<VerifyResult>;

function unknown(reason: string, extra: Partial<VerifyResult> = {}): Outcome {
  return { verdict: { kind: 'unknown', reason }, reason, ...extra };
}

/** Largest recursion depth lowered for the bounded proof (the inlined program grows with it). */
const MAX_RECURSION_DEPTH = 32;
const MAX_STATEMENTS = 200_000;

/**
 * The program lowered with the instrumentation `passes`, with recursion inlined deeper on demand
 * (per bound), and the source map of the last lowering (its loops' keys are
 * C locations, the same at every depth).
 */
function loweredFamily(t: TerminationTask, passes: readonly InstrumentationPass[]) {
  const lowerAt = (depth: number) => lowerC(t.c, { passes, dataModel: t.dataModel, recursionDepth: depth });
  const first = lowerAt(1);
  let sourceMap: SourceMap = first.sourceMap;
  const programs = new Map<number, ImpProgram>([[1, first.imp]]);
  const programAt = (bound: number): ImpProgram => {
    const depth = Math.min(bound, MAX_RECURSION_DEPTH);
    let p = programs.get(depth);
    if (!p) {
      const l = lowerAt(depth);
      if (l.unsupported) throw new EncodeError(`unsupported at recursion depth ${depth}: ${l.unsupported.construct}`);
      if (programSize(l.imp) > MAX_STATEMENTS) throw new EncodeError(`inlining recursion ${depth} deep makes the program too large`);
      p = l.imp;
      sourceMap = l.sourceMap;
      programs.set(depth, p);
    }
    return p;
  };
  return { first, programAt, sourceMap: () => sourceMap };
}

export async function verifyTermination(t: TerminationTask): Promise<Outcome> {
  // Ranking functions and lassos work on the program as it runs (signed
  // arithmetic wraps; the bit-vector check of a ranking function sees that;
  // a call of the error function goes on, as in C).
  const wrapping = loweredFamily(t, []);
  const first = wrapping.first;
  if (first.unsupported) return unknown(`unsupported: ${first.unsupported.construct} at ${formatLocation(first.unsupported.loc)}`);
  const programAt = wrapping.programAt;
  const solverName = availableProcessSolver(['z3']) ?? 'z3-wasm';
  // The budget is CPU time of this process; the solver runs in another process, so also bound the wall-clock time.
  const wall0 = Date.now();
  const budget = t.deadline();
  const deadline = () => Math.min(t.deadline(), budget - (Date.now() - wall0));
  const base: TerminationOptions = { deadline, solver: () => createSolver(solverName), cutKinds: ['recursion'], inexactKinds: ['memory-unknown'], log: t.log };
  // __VERIFIER_assume(0) loops forever by the rules: an execution the model cuts there does not end.
  const text = readFileSync(t.program, 'utf8');
  const cutsByAssume = /\b__VERIFIER_assume\s*\(/.test(text);
  const reasons: string[] = [];

  // Without nondeterminism there is one execution: if it ends (without an
  // overflow, which would not be a way to end: lowered with the overflow
  // checks, no goal is wanted, so one that fails is undefined behaviour), every execution does.
  if (!cutsByAssume) {
    const lowerChecked = (depth: number) => lowerC(t.c, { passes: ['overflow'], dataModel: t.dataModel, recursionDepth: depth });
    const checked = lowerChecked(1);
    const executionEnd = deadline() * 0.75;
    const withCalls = () => callingPrograms(t.c, { passes: ['overflow'], dataModel: t.dataModel });
    const run = checked.unsupported ? undefined : executeLowered({ first: checked, lowerAt: lowerChecked, roles: { error: [], bound: ['recursion', 'memory-unknown'] }, deadline: () => deadline() - executionEnd, fileName: t.programAsWritten, log: t.log, withCalls });
    if (run?.kind === 'holds') return { verdict: { kind: 'true' }, reason: `every execution ends: ${run.reason}` };
    // The one execution repeats a cycle: no nondet value on the stem or in the cycle (gcc's run confirms it, as any lasso).
    if (run?.kind === 'runs-forever') return lassoVerdict(t, { loopLoc: run.loc, stem: [], cycle: [], proof: 'the only execution comes back to the loop head in a state it had there' }, checked.sourceMap);
  }

  if (!cutsByAssume) {
    const ranked = await provedByRanking(first.imp, base);
    const rankingFunctions: RankingFunctionReport[] = ranked.loops.map((l) => ({
      loop: formatLocation({ ...l.loc, file: t.programAsWritten }),
      components: l.components,
    }));
    for (const r of rankingFunctions) t.log(`termination: ranking function of the loop at ${r.loop}: [${r.components.join(', ')}]`);
    if (ranked.proved) {
      return {
        verdict: { kind: 'true' },
        reason: `every loop has a ranking function checked on bit-vectors (${rankingFunctions.length} loop${rankingFunctions.length === 1 ? '' : 's'})`,
        rankingFunctions,
      };
    }
    reasons.push(ranked.reason);
    if (hasRecursionCut(first)) {
      // Unbounded recursion: a decreasing measure per recursive function, then main's loops.
      const until = deadline() * 0.5;
      const rec = await recursionMeasures(t.c, { dataModel: t.dataModel, left: () => deadline() - until, solver: solverName, log: t.log });
      if ('main' in rec) {
        const main = await provedByRanking(rec.main, base);
        if (main.proved) {
          return {
            verdict: { kind: 'true' },
            reason: `every recursive call decreases a measure (${rec.measures}) and every loop has a ranking function checked on bit-vectors`,
          };
        }
        reasons.push(`with recursion measures (${rec.measures}): ${main.reason}`);
      } else reasons.push(rec.reason);
    }
  } else {
    reasons.push('the program calls __VERIFIER_assume, which loops forever when its condition is false');
  }

  // Half of what is left for lassos, the rest for a complete unrolling (recursion, loops without ranking function).
  const lassoUntil = deadline() * 0.5;
  const lasso = await findLasso(programAt, { ...base, deadline: () => deadline() - lassoUntil });
  if (!('reason' in lasso)) return lassoVerdict(t, lasso, wrapping.sourceMap());
  reasons.push(`non-termination not found (${lasso.reason})`);
  if (!cutsByAssume) {
    // The bounded proof is lowered with the overflow checks: a signed overflow
    // or other behaviour C leaves undefined (a division by zero, ...: the
    // lowering's memory-unknown goals) must not count as the way an
    // execution ends.
    const checked = loweredFamily(t, ['overflow']);
    const bounded = checked.first.unsupported
      ? undefined
      : await provedBounded(checked.programAt, { ...base, violationKinds: ['overflow', 'memory-unknown'] });
    if (bounded !== undefined) {
      return { verdict: { kind: 'true' }, reason: `every execution ends: none runs longer than the unrolling bound ${bounded} (BMC, complete unrolling)`, bound: bounded };
    }
    reasons.push('BMC found executions longer than the bounds tried');
  }
  return unknown(`termination not proved: ${reasons.join('; ')}`);
}

/**
 * A loop made of a `goto` back to a label (the front end turns it into a
 * loop of its own, at the label): the statement after the label, which each
 * iteration passes, and its function.
 */
function labelledHead(c: CProgram, loc: SourceLocation): { kind: 'label'; loc: SourceLocation; function: string } | undefined {
  for (const d of c.declarations) {
    if (d.kind !== 'FunctionDefinition') continue;
    let found: SourceLocation | undefined;
    forEachStatement(d.body, (s) => {
      if (!found && s.kind === 'Label' && s.loc.line === loc.line && s.loc.column === loc.column) found = s.body.loc;
    });
    if (found) return { kind: 'label', loc: found, function: d.decl.name };
  }
  return undefined;
}

/** Whether the lowering cut a recursive call (the recursion may go deeper than it was inlined). */
function hasRecursionCut(lowered: { sourceMap: SourceMap }): boolean {
  return lowered.sourceMap.goals.some((g) => g.kind === 'recursion');
}

/** FALSE(termination) for a lasso that gcc confirms too, with its witness; UNKNOWN otherwise. */
function lassoVerdict(t: TerminationTask, lasso: Lasso, sourceMap: SourceMap): Outcome {
  const loop = loopAt(sourceMap, lasso.loopLoc);
  const head = loop ? { kind: 'loop' as const, loc: loop.loc, function: loop.function } : labelledHead(t.c, lasso.loopLoc);
  if (!head) return unknown(`a lasso was found at a loop without C location (${formatLocation(lasso.loopLoc)})`);
  const violation = violationOf(t.property.kind, 'lasso');
  if (!violation) return unknown(`a lasso is no violation of ${t.property.kind}`);
  const stem = nondetStepsOf(lasso.stem, sourceMap);
  const cycle = nondetStepsOf(lasso.cycle, sourceMap);
  const replay = replayCounterexample(t.program, replayValues([...stem, ...cycle]), {
    symptom: violation.replay,
    dataModel: t.dataModel,
    cycleStart: stem.length,
    // The recurrent set is the proof; the run checks that gcc's program
    // follows the cycle (a diverging value or an overflow shows at once), so
    // it may be shorter where the budget is: half of what is left, 0.5-3 s.
    timeoutMs: Math.round(Math.min(3000, Math.max(500, t.deadline() / 2))),
  });
  t.log(`replay: ${replay.status}: ${replay.reason}`);
  if (replay.status !== 'confirmed') return unknown(`lasso not confirmed by gcc: ${replay.reason}`, { replay });

  const format = violationWitnessFormat(t.property.kind, violation.name, witnessContext(t.c));
  const metadata = witnessMetadata(t, t.options, '2.1', t.property.kind);
  const emitted = emitWitness(t, { ...t.options, log: t.log }, format, [
    { label: 'non-termination witness', text: () => writeWitness({ format: 'yaml', entries: [buildLassoWitness({ stem, cycle, head, fileName: t.programAsWritten, metadata })] }) },
  ]);
  if (emitted.kind === 'not-clean') return unknown(`the non-termination witness does not lint clean: ${emitted.problem}`, { replay });
  const where = formatLocation({ ...head.loc, file: t.programAsWritten });
  return {
    verdict: { kind: 'false', property: violation.name },
    reason: `the ${head.kind === 'loop' ? 'loop' : 'goto loop'} at ${where} runs forever after a stem of ${stem.length} nondet values (${lasso.proof}; ${replay.reason})`,
    replay,
    ...witnessFields(emitted),
  };
}
