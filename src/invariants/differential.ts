// The differential soundness check: random programs with loops and random
// candidate sets; every method's selection is checked against concrete runs
// of the original program (each candidate evaluated at every loop-head visit).
// A selected candidate that a concrete run falsifies is a soundness bug.
import type { ImpProgram, ImpType } from '../ivl/ast.js';
import { evalExpr, executeImp, type ImpValue } from '../ivl/interp.js';
import { parseImp } from '../ivl/parser.js';
import type { Solver } from '../smt/solver.js';
import { type Candidate, LoopTable, inlineCandidates } from './program.js';
import { randomProgram, rng, type RandomProgramOptions } from './random.js';
import { type SelectMethod, selectInvariants } from './select.js';

/** Candidates (indices) falsified by `runs` concrete executions from random inputs. */
export function falsifiedByRuns(program: ImpProgram, candidates: readonly Candidate[], runs: number, seed: number): Set<number> {
  const table = new LoopTable(program);
  const byLoc = new Map(table.loops.map((l) => [`${l.loop.loc.line}:${l.loop.loc.column}`, l.id]));
  const r = rng(seed);
  const falsified = new Set<number>();
  const havoc = (_n: string, t: ImpType): ImpValue =>
    t.kind === 'bool' ? { kind: 'bool', value: r() < 0.5 } : { kind: 'int', value: BigInt(Math.floor(r() * 7) - 2) };
  for (let k = 0; k < runs; k++) {
    executeImp(program, 'main', {}, {
      maxSteps: 20_000,
      havoc,
      onLoopHead: (loc, state) => {
        const id = byLoc.get(`${loc.line}:${loc.column}`);
        for (const c of candidates) {
          if (c.loopId !== id || falsified.has(c.index)) continue;
          const v = evalExpr(c.expr, state);
          if (!(v.kind === 'bool' && v.value)) falsified.add(c.index);
        }
      },
    });
  }
  return falsified;
}

export interface DifferentialCase {
  readonly seed: number;
  readonly text: string;
  readonly candidates: readonly Candidate[];
  readonly falsified: ReadonlySet<number>;
  /** Per method: the selected candidates. */
  readonly selected: ReadonlyMap<SelectMethod, ReadonlySet<number>>;
}

export interface DifferentialReport {
  readonly cases: DifferentialCase[];
  /** Per method: selected candidates that a concrete run falsifies (must be empty for a sound method). */
  readonly unsound: ReadonlyMap<SelectMethod, { seed: number; candidate: string; text: string }[]>;
  readonly selectedCount: ReadonlyMap<SelectMethod, number>;
  readonly candidateCount: number;
  readonly falsifiedCount: number;
}

export async function differential(
  firstSeed: number,
  count: number,
  methods: readonly SelectMethod[],
  solver: Solver,
  opts: RandomProgramOptions & { runs?: number; rounds?: number } = {},
): Promise<DifferentialReport> {
  const cases: DifferentialCase[] = [];
  const unsound = new Map<SelectMethod, { seed: number; candidate: string; text: string }[]>(methods.map((m) => [m, []]));
  const selectedCount = new Map<SelectMethod, number>(methods.map((m) => [m, 0]));
  let candidateCount = 0;
  let falsifiedCount = 0;
  for (let k = 0; k < count; k++) {
    const seed = firstSeed + k;
    const text = randomProgram(seed, opts);
    const program = parseImp(text, `random-${seed}.imp`);
    const candidates = inlineCandidates(new LoopTable(program));
    const falsified = falsifiedByRuns(program, candidates, opts.runs ?? 40, seed * 7919);
    candidateCount += candidates.length;
    falsifiedCount += falsified.size;
    const selected = new Map<SelectMethod, Set<number>>();
    for (const m of methods) {
      const r = await selectInvariants(program, candidates, { method: m, solverInstance: solver, skipVerification: true, rounds: m === 'encoding' ? opts.rounds : undefined });
      const sel = new Set(r.verdicts.filter((v) => v.status === 'selected').map((v) => v.candidate));
      selected.set(m, sel);
      selectedCount.set(m, selectedCount.get(m)! + sel.size);
      for (const i of sel) if (falsified.has(i)) unsound.get(m)!.push({ seed, candidate: candidates[i].text, text });
    }
    cases.push({ seed, text, candidates, falsified, selected });
  }
  return { cases, unsound, selectedCount, candidateCount, falsifiedCount };
}
