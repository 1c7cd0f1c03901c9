// Houdini (Flanagan and Leino, 2001) and the read-off of the encodings, both
// over ONE incremental solver session.
//
// Houdini: the cut program (symbolic.ts) is asserted once. Each candidate i
// has an activation literal act_i; its loop head assumes act_i ==> inv_i. A
// round asks, under check-sat-assuming(act_alive, q_r) with a fresh literal
// q_r ==> OR(violated goals of alive candidates), whether some alive candidate
// fails on entry or is not preserved. The model names every failing goal;
// their candidates are dropped (with the model's states as counterexample),
// and the next round runs with fewer activation literals. Unsat: the alive
// set is the largest inductive subset. Solver calls = rounds + 1, unless a
// round is undecided: then the candidates are checked one at a time.
import { BoolSort, mkConst, mkImplies, mkOr, type Term } from '../smt/terms.js';
import { type ModelSnapshot, type SolverSession, checkAndRead } from './session.js';
import type { ImpProgram } from '../ivl/ast.js';
import type { Candidate } from './program.js';
import { encodeSymbolic, type Goal } from './symbolic.js';

export type RejectReason = 'not established on entry' | 'not preserved' | 'not forced' | 'undecided';

export interface Counterexample {
  /** Entry failure: the state on reaching the loop. */
  readonly entry?: Record<string, string>;
  /** Preservation failure: the state at the loop head before the iteration ... */
  readonly before?: Record<string, string>;
  /** ... and after it. */
  readonly after?: Record<string, string>;
}

export interface CandidateVerdict {
  readonly candidate: number;
  readonly status: 'selected' | 'rejected';
  readonly reason?: RejectReason;
  readonly counterexample?: Counterexample;
  /** Extra text, e.g. why a candidate is undecided. */
  readonly detail?: string;
}

export type { SolverSession } from './session.js';

export interface HoudiniResult {
  readonly verdicts: CandidateVerdict[];
  readonly solverCalls: number;
}

function stateOf(model: ModelSnapshot, state: ReadonlyMap<string, Term>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of [...state.keys()].sort()) out[n] = model.text(state.get(n)!);
  return out;
}

/** The terms a counterexample of a goal needs from the model. */
export function goalTerms(g: Goal): Term[] {
  return [g.violated, ...g.state.values(), ...(g.before?.values() ?? [])];
}

export function counterexampleOf(model: ModelSnapshot, g: Goal): Counterexample {
  if (g.kind === 'candidate-entry') return { entry: stateOf(model, g.state) };
  return { before: stateOf(model, g.before ?? new Map()), after: stateOf(model, g.state) };
}

/** Each alive candidate checked alone (all alive ones assumed): its failing goals, or undecided. */
interface Failure {
  readonly g: Goal;
  readonly model: ModelSnapshot;
}

async function oneByOne(session: SolverSession, round: number, alive: readonly number[], live: readonly Goal[], acts: readonly Term[]): Promise<{ failing: Failure[]; undecided: number[] }> {
  const failing: Failure[] = [];
  const undecided: number[] = [];
  const end = Date.now() + session.timeoutMs;
  for (const [k, i] of alive.entries()) {
    const mine = live.filter((g) => g.candidate === i);
    if (mine.length === 0) continue;
    const q = mkConst(`houdini!q${round}!${i}`, BoolSort);
    await session.solver.assert(mkImplies(q, mkOr(...mine.map((g) => g.violated))));
    const ms = Math.max(200, Math.floor((end - Date.now()) / (alive.length - k)));
    const { result, model } = await checkAndRead(session, [...acts, q], mine.flatMap(goalTerms), ms);
    if (result.status === 'sat' && model) failing.push(...mine.filter((g) => model.truth(g.violated)).map((g) => ({ g, model })));
    else if (result.status !== 'unsat') undecided.push(i);
  }
  return { failing, undecided };
}

export async function houdini(program: ImpProgram, candidates: readonly Candidate[], session: SolverSession): Promise<HoudiniResult> {
  const sym = encodeSymbolic(program, candidates);
  for (const c of sym.constraints) await session.solver.assert(c);
  const goals = sym.goals.filter((g) => g.candidate !== undefined);
  const alive = new Set(candidates.map((c) => c.index));
  const rejected = new Map<number, CandidateVerdict>();
  for (let round = 0; ; round++) {
    const live = goals.filter((g) => alive.has(g.candidate!));
    if (live.length === 0) break;
    const q = mkConst(`houdini!q${round}`, BoolSort);
    await session.solver.assert(mkImplies(q, mkOr(...live.map((g) => g.violated))));
    const acts = [...alive].sort((a, b) => a - b).map((i) => sym.activation.get(i)!);
    const { result: r, model } = await checkAndRead(session, [...acts, q], live.flatMap(goalTerms));
    if (r.status === 'unsat') break;
    let failing: Failure[];
    if (r.status === 'unknown' || !model) {
      // One disjunction of many violations can be far harder for the solver
      // than each alone: the candidates one at a time, sharing the budget.
      const one = await oneByOne(session, round, [...alive], live, acts);
      // Soundness first: what is not decided is not selected.
      for (const i of one.undecided) rejected.set(i, { candidate: i, status: 'rejected', reason: 'undecided', detail: r.reason });
      for (const i of one.undecided) alive.delete(i);
      if (one.failing.length === 0) {
        if (one.undecided.length === 0) break;
        continue;
      }
      failing = one.failing;
    } else failing = live.filter((g) => model.truth(g.violated)).map((g) => ({ g, model }));
    // Entry failures first, so that a candidate failing both is reported as not established.
    failing.sort((a, b) => (a.g.kind === b.g.kind ? 0 : a.g.kind === 'candidate-entry' ? -1 : 1));
    for (const { g, model: m } of failing) {
      const i = g.candidate!;
      if (rejected.has(i)) continue;
      rejected.set(i, {
        candidate: i,
        status: 'rejected',
        reason: g.kind === 'candidate-entry' ? 'not established on entry' : 'not preserved',
        counterexample: counterexampleOf(m, g),
      });
    }
    for (const { g } of failing) alive.delete(g.candidate!);
    if (failing.length === 0) throw new Error('houdini: sat without a failing goal');
  }
  const verdicts = candidates.map(
    (c): CandidateVerdict => rejected.get(c.index) ?? { candidate: c.index, status: 'selected' },
  );
  return { verdicts, solverCalls: session.calls };
}

