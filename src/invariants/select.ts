// Invariant selection: given an IMP program and candidate invariants per loop,
// decide which candidates are selected (Houdini, the corrected encoding, or
// the seed's encoding as written), explain every rejection, and verify the
// program with the selected candidates used as invariants.
import type { ImpProgram, Stmt } from '../ivl/ast.js';
import { checkImp } from '../ivl/typecheck.js';
import { rewriteStmts } from '../ivl/walk.js';
import { createSolver } from '../smt/index.js';
import type { Solver } from '../smt/solver.js';
import { BoolSort, mkAnd, mkConst, mkImplies, mkNot, mkOr, type Term } from '../smt/terms.js';
import { encodeProcedure } from '../vc/encode.js';
import { verifyImp, type GoalResult, type Verdict } from '../vc/verify.js';
import { PROBE_FILE, type EncodedProgram } from './encode-common.js';
import { encodeRounds, encodeSound } from './encoding.js';
import { encodeSeed } from './encoding-seed.js';
import { type CandidateVerdict, counterexampleOf, goalTerms, houdini } from './houdini.js';
import { type SolverSession, checkAndRead } from './session.js';
import { type Candidate, LoopTable, byLoop } from './program.js';
import { encodeSymbolic } from './symbolic.js';

export type SelectMethod = 'houdini' | 'encoding' | 'encoding-seed';
export const SELECT_METHODS: readonly SelectMethod[] = ['houdini', 'encoding', 'encoding-seed'];

export interface SelectOptions {
  readonly method: SelectMethod;
  /** Solver back end name (createSolver), default auto: z3 on PATH, else the built-in one. */
  readonly solver?: string;
  /** Use this solver (not disposed). */
  readonly solverInstance?: Solver;
  /** Per solver call, ms (default 10 000). */
  readonly timeoutMs?: number;
  /** Date.now() after which no solver call is made (what is undecided then is not selected). */
  readonly deadline?: number;
  /** Skip the final verification with the selected candidates (benchmarks). */
  readonly skipVerification?: boolean;
  /** `encoding` only: try the rounds encoding (Houdini's precision) with this many rounds first. */
  readonly rounds?: number;
}

export interface SelectResult {
  readonly method: SelectMethod;
  readonly candidates: readonly Candidate[];
  /** Per candidate, in candidate order. */
  readonly verdicts: readonly CandidateVerdict[];
  /** Solver calls that decided the selection. */
  readonly selectionCalls: number;
  /** Time to decide the selection (without explaining rejections or verifying), ms. */
  readonly selectionMs: number;
  /** When the rounds encoding did not reach its fixpoint. */
  readonly note?: string;
  /** Those plus the calls that explained rejections. */
  readonly solverCalls: number;
  /** Verification of the program with the selected candidates as invariants. */
  readonly verification?: { readonly verdict: Verdict; readonly goals: readonly GoalResult[] };
  /** Every assertion proved with the selected candidates. */
  readonly proved: boolean;
  readonly timeMs: number;
}

/** The program with the given candidates as declared invariants and no `candidate` clauses. */
export function withInvariants(program: ImpProgram, candidates: readonly Candidate[], chosen: ReadonlySet<number>): ImpProgram {
  const table = new LoopTable(program);
  const per = byLoop(candidates.filter((c) => chosen.has(c.index)));
  const stmts = (ss: readonly Stmt[]): Stmt[] =>
    rewriteStmts(ss, (s) => {
      if (s.kind !== 'while') return undefined;
      const extra = (per.get(table.of(s).id) ?? []).map((c) => c.expr);
      return { ...s, invariants: [...s.invariants, ...extra], candidates: [], body: stmts(s.body) };
    });
  return { ...program, procedures: program.procedures.map((p) => (p.body ? { ...p, body: stmts(p.body) } : p)) };
}

export function encodeFor(method: 'encoding' | 'encoding-seed', program: ImpProgram, candidates: readonly Candidate[]): EncodedProgram {
  return method === 'encoding' ? encodeSound(program, candidates) : encodeSeed(program, candidates);
}

/**
 * Reads the selection off one verification run of an encoded program: its
 * procedures are encoded by vc/ (loop-free) and asserted once. At each probe
 * point, a flag is forced iff no execution reaches the point with the flag
 * false. Rounds of check-sat-assuming ask for an execution that reaches a
 * point with some still-open flag false; every flag false in that model is
 * refuted (one model often refutes many); unsat: the open flags are forced.
 * (The probe goals `assert flag` of the program say the same to a reader;
 * they are isolated from each other, so each model would refute only one.)
 */
export async function readOffSelection(
  enc: EncodedProgram,
  session: SolverSession,
): Promise<{ forced: Set<number>; forcedBySlot: Map<number, Set<number>>; undecided?: string }> {
  const assertions: Term[] = [];
  const reached = new Map<number, Term>();
  const flagTerm = new Map<string, Term>();
  enc.program.procedures.forEach((p, k) => {
    if (!p.body) return;
    const e = encodeProcedure(enc.program, p, { loops: 'error', prefix: `sel${k}!`, checkPostconditions: false });
    const markers = e.trace.filter((t) => t.loc.file === PROBE_FILE && t.loc.line === 0);
    if (markers.length === 0) return;
    assertions.push(...e.assertions);
    for (const m of markers) reached.set(m.loc.column - 1, m.reached);
    for (const t of e.trace) for (const u of t.updates) if (!flagTerm.has(`${k}/${u.name}`)) flagTerm.set(`${k}/${u.name}`, u.value);
    for (const pr of enc.probes) if (reached.has(pr.point) && !flagTerm.has(pr.flag)) flagTerm.set(pr.flag, flagTerm.get(`${k}/${pr.flag}`)!);
  });
  for (const a of assertions) await session.solver.assert(a);
  // A probe whose point vc/ did not reach stays open: vacuously forced.
  const open = new Set(enc.probes.filter((p) => reached.has(p.point) && flagTerm.get(p.flag) !== undefined));
  const refuted = new Set<(typeof enc.probes)[number]>();
  for (let round = 0; open.size > 0; round++) {
    const live = [...open];
    const byPoint = new Map<number, Term[]>();
    for (const p of live) byPoint.set(p.point, [...(byPoint.get(p.point) ?? []), mkNot(flagTerm.get(p.flag)!)]);
    const q = mkConst(`readoff!q${round}`, BoolSort);
    await session.solver.assert(mkImplies(q, mkOr(...[...byPoint].map(([pt, negs]) => mkAnd(reached.get(pt)!, mkOr(...negs))))));
    const wanted = [...[...byPoint.keys()].map((pt) => reached.get(pt)!), ...live.map((p) => flagTerm.get(p.flag)!)];
    const { result: r, model } = await checkAndRead(session, [q], wanted);
    if (r.status === 'unsat') break;
    if (r.status === 'unknown' || !model) return { forced: new Set(), forcedBySlot: new Map(), undecided: r.reason ?? 'the solver answered unknown' };
    for (const p of live) {
      if (model.truth(reached.get(p.point)!) && !model.truth(flagTerm.get(p.flag)!)) {
        open.delete(p);
        refuted.add(p);
      }
    }
  }
  const forcedBySlot = new Map<number, Set<number>>();
  for (const p of enc.probes) {
    if (!forcedBySlot.has(p.slot)) forcedBySlot.set(p.slot, new Set());
    if (!refuted.has(p)) forcedBySlot.get(p.slot)!.add(p.candidate);
  }
  return { forced: forcedBySlot.get(0) ?? new Set(), forcedBySlot };
}

/**
 * The selection by an encoding, read off one verification run. With
 * `rounds`, the corrected encoding with Houdini's precision runs first; if
 * its rounds R and R + 1 force different sets (the fixpoint is not reached
 * within R rounds), the least-fixpoint encoding decides instead.
 */
async function encodingSelection(
  method: 'encoding' | 'encoding-seed',
  program: ImpProgram,
  candidates: readonly Candidate[],
  session: SolverSession,
  rounds?: number,
): Promise<{ forced: Set<number>; undecided?: string; note?: string }> {
  if (method === 'encoding-seed') return readOffSelection(encodeSeed(program, candidates), session);
  if (rounds !== undefined) {
    await session.solver.push();
    try {
      const r = await readOffSelection(encodeRounds(program, candidates, rounds), session);
      const a = r.forcedBySlot.get(0) ?? new Set<number>();
      const b = r.forcedBySlot.get(1) ?? new Set<number>();
      if (!r.undecided && a.size === b.size && [...a].every((i) => b.has(i))) return { forced: a };
    } finally {
      await session.solver.pop();
    }
  }
  const r = await readOffSelection(encodeSound(program, candidates), session);
  return rounds !== undefined ? { ...r, note: `no fixpoint within ${rounds} rounds: the least-fixpoint encoding decided` } : r;
}

/**
 * Why a candidate the encoding did not select fails, on the cut program, in
 * Houdini-like rounds (one model explains many candidates): first entry
 * goals assuming the selected candidates; then preservation assuming the
 * selected and all still unexplained candidates (a violation under more
 * assumptions is one under fewer, so the model's states are a valid
 * counterexample for "selected and the candidate itself"); the rest one by one.
 */
async function explain(
  program: ImpProgram,
  candidates: readonly Candidate[],
  selected: ReadonlySet<number>,
  rejected: readonly number[],
  session: SolverSession,
): Promise<Map<number, CandidateVerdict>> {
  const out = new Map<number, CandidateVerdict>();
  if (rejected.length === 0) return out;
  const sym = encodeSymbolic(program, candidates);
  for (const c of sym.constraints) await session.solver.assert(c);
  const open = new Set(rejected);
  const acts = (ids: Iterable<number>) => [...ids].sort((a, b) => a - b).map((j) => sym.activation.get(j)!);
  let round = 0;
  const rounds = async (kind: 'candidate-entry' | 'candidate-preserved', assumed: () => Iterable<number>, only?: number) => {
    for (;;) {
      const gs = sym.goals.filter((g) => g.kind === kind && open.has(g.candidate!) && (only === undefined || g.candidate === only));
      if (gs.length === 0) return;
      const q = mkConst(`explain!${round++}`, BoolSort);
      await session.solver.assert(mkImplies(q, mkOr(...gs.map((g) => g.violated))));
      const { model } = await checkAndRead(session, [...acts(assumed()), q], gs.flatMap(goalTerms));
      if (!model) return;
      for (const g of gs) {
        if (!open.has(g.candidate!) || !model.truth(g.violated)) continue;
        open.delete(g.candidate!);
        out.set(g.candidate!, {
          candidate: g.candidate!,
          status: 'rejected',
          reason: kind === 'candidate-entry' ? 'not established on entry' : 'not preserved',
          counterexample: counterexampleOf(model, g),
        });
      }
    }
  };
  await rounds('candidate-entry', () => selected);
  await rounds('candidate-preserved', () => [...selected, ...open]);
  for (const i of [...open]) await rounds('candidate-preserved', () => [...selected, i], i);
  for (const i of open) {
    out.set(i, {
      candidate: i,
      status: 'rejected',
      reason: 'not forced',
      detail: 'established and preserved only together with other candidates that were not selected',
    });
  }
  return out;
}

export async function selectInvariants(program: ImpProgram, candidates: readonly Candidate[], options: SelectOptions): Promise<SelectResult> {
  checkImp(program);
  const start = Date.now();
  const solver = options.solverInstance ?? createSolver(options.solver);
  const session: SolverSession = { solver, timeoutMs: options.timeoutMs ?? 10_000, calls: 0, ...(options.deadline !== undefined ? { deadline: options.deadline } : {}) };
  try {
    let verdicts: CandidateVerdict[];
    let selectionCalls: number;
    let selectionMs = 0;
    let roundsNote: string | undefined;
    await solver.push();
    try {
      if (options.method === 'houdini') {
        verdicts = (await houdini(program, candidates, session)).verdicts;
        selectionCalls = session.calls;
        selectionMs = Date.now() - start;
      } else {
        const { forced, undecided, note } = await encodingSelection(options.method, program, candidates, session, options.rounds);
        roundsNote = note;
        selectionCalls = session.calls;
        selectionMs = Date.now() - start;
        await solver.pop();
        await solver.push();
        const rejected = candidates.map((c) => c.index).filter((i) => !forced.has(i));
        const why = undecided ? new Map<number, CandidateVerdict>() : await explain(program, candidates, forced, rejected, session);
        verdicts = candidates.map(
          (c): CandidateVerdict =>
            forced.has(c.index)
              ? { candidate: c.index, status: 'selected' }
              : (why.get(c.index) ?? { candidate: c.index, status: 'rejected', reason: 'undecided', detail: undecided }),
        );
      }
    } finally {
      await solver.pop();
    }
    const chosen = new Set(verdicts.filter((v) => v.status === 'selected').map((v) => v.candidate));
    let verification: SelectResult['verification'];
    if (!options.skipVerification) {
      const r = await verifyImp(withInvariants(program, candidates, chosen), { solverInstance: solver, timeoutMs: session.timeoutMs });
      // A goal that fails only through a loop replaced by its invariants or a
      // call replaced by its contract (vc/ then adds a note) is no
      // counterexample: the candidates may be too weak. A failure vc/ found
      // with the loops without invariants unrolled is one, unless its path
      // also passes a cut loop or a call.
      const real = r.goals.some(
        (g) =>
          g.status === 'failed' &&
          (!g.reason ||
            (g.reason.startsWith('found with the loops without invariants unrolled') &&
              !(g.counterexample?.steps ?? []).some((st) => st.what === 'loop-head' || st.what === 'call'))),
      );
      verification = { verdict: r.verdict === 'FALSE' && !real ? 'UNKNOWN' : r.verdict, goals: r.goals };
    }
    const proved = verification ? verification.goals.every((g) => g.status === 'proved') : false;
    return {
      method: options.method,
      candidates,
      verdicts,
      selectionCalls,
      selectionMs,
      ...(roundsNote ? { note: roundsNote } : {}),
      solverCalls: session.calls,
      verification,
      proved,
      timeMs: Date.now() - start,
    };
  } finally {
    if (!options.solverInstance) await solver.dispose();
  }
}
