// Verifies every procedure of an IMP program against its contract, goal by
// goal, with one incremental solver.
import { TarsierError } from '../common/errors.js';
import type { SourceLocation } from '../common/location.js';
import type { Goal, ImpProgram, Procedure, Stmt } from '../ivl/ast.js';
import { typecheckImp } from '../ivl/typecheck.js';
import { rewriteStmts } from '../ivl/walk.js';
import { createSolver } from '../smt/index.js';
import { SolverError, formatValue, type Solver } from '../smt/solver.js';
import { mkNot, type Term } from '../smt/terms.js';
import { encodeProcedure, type EncodedGoal, type GoalKind, type ProcedureEncoding } from './encode.js';

export type GoalStatus = 'proved' | 'failed' | 'unknown';
export type Verdict = 'TRUE' | 'FALSE' | 'UNKNOWN';

export interface NamedValue {
  readonly name: string;
  readonly value: string;
}

export interface CounterexampleStep {
  readonly loc: SourceLocation;
  readonly what: 'assign' | 'havoc' | 'call' | 'loop-head';
  readonly values: readonly NamedValue[];
}

/** The path to a failing goal: the initial values, then every update along the path. */
export interface Counterexample {
  readonly entry: readonly NamedValue[];
  readonly steps: readonly CounterexampleStep[];
}

export interface GoalResult {
  readonly proc: string;
  readonly kind: GoalKind;
  readonly loc: SourceLocation;
  /** The goal of the assert (kind `assert`), if it has one. */
  readonly goal?: Goal;
  readonly text: string;
  readonly status: GoalStatus;
  readonly counterexample?: Counterexample;
  /** Why a goal is unknown, or a note on a failure found under an abstraction. */
  readonly reason?: string;
  readonly timeMs: number;
}

export interface ImpVerificationResult {
  readonly goals: readonly GoalResult[];
  readonly verdict: Verdict;
}

export interface VerifyImpOptions {
  /** Back end name for createSolver (`auto` default, `z3-wasm`, `z3`, `cvc5`, a path). */
  readonly solver?: string;
  /** Use this solver instead (not disposed afterwards). */
  readonly solverInstance?: Solver;
  /** Time limit of each solver call in milliseconds (default 10 000). */
  readonly timeoutMs?: number;
  /** Verify only these procedures. */
  readonly procedures?: readonly string[];
  /**
   * Goals left unknown by loops without invariants are searched for real
   * failures with those loops unrolled this many times (default 3; 0: no search).
   */
  readonly unroll?: number;
}

export function verdictOf(goals: readonly { status: GoalStatus }[]): Verdict {
  if (goals.some((g) => g.status === 'failed')) return 'FALSE';
  if (goals.some((g) => g.status === 'unknown')) return 'UNKNOWN';
  return 'TRUE';
}

function where(loc: SourceLocation): string {
  return `${loc.line}:${loc.column}`;
}

export async function verifyImp(program: ImpProgram, options: VerifyImpOptions = {}): Promise<ImpVerificationResult> {
  const diags = typecheckImp(program);
  if (diags.length > 0) {
    const d = diags[0];
    throw new TarsierError('imp-type', d.message, { file: d.loc.file, line: d.loc.line, column: d.loc.column });
  }
  const solver = options.solverInstance ?? createSolver(options.solver);
  const timeoutMs = options.timeoutMs ?? 10_000;
  const results: GoalResult[] = [];
  try {
    for (const proc of program.procedures) {
      if (!proc.body) continue;
      if (options.procedures && !options.procedures.includes(proc.name)) continue;
      const enc = encodeProcedure(program, proc);
      if (enc.goals.length === 0) continue;
      await solver.push();
      try {
        for (const a of enc.assertions) await solver.assert(a);
        for (const g of enc.goals) {
          const t0 = Date.now();
          try {
            results.push(await checkGoal(solver, enc, g, timeoutMs));
          } catch (e) {
            // A solver that rejects a query or loses its model decides nothing.
            if (!(e instanceof SolverError)) throw e;
            results.push({ ...goalBase(enc, g), status: 'unknown', reason: e.message, timeMs: Date.now() - t0 });
          }
        }
      } finally {
        await solver.pop();
      }
      const depth = options.unroll ?? 3;
      const open = results.filter((r) => r.proc === proc.name && r.status === 'unknown' && r.reason?.startsWith(LOOP_REASON));
      if (depth > 0 && open.length > 0) {
        const found = await searchUnrolled(solver, program, proc, depth, open, timeoutMs);
        for (const o of open) {
          const hit = found.find((f) => f.open === o);
          const k = results.indexOf(o);
          results[k] = hit ? hit.result : { ...o, reason: `${o.reason}; no failure with at most ${depth} iteration${depth === 1 ? '' : 's'}` };
        }
      }
    }
  } finally {
    if (!options.solverInstance) await solver.dispose();
  }
  return { goals: results, verdict: verdictOf(results) };
}

const LOOP_REASON = 'depends on a loop without invariant';

/**
 * Loops without invariants unrolled `depth` times; paths that need more
 * iterations are cut off (`assume !cond`). Every path that remains is a path
 * of the original program, so a failure found here is real.
 */
export function unrollLoops(stmts: readonly Stmt[], depth: number): Stmt[] {
  return rewriteStmts(stmts, (s) => {
    if (s.kind !== 'while') return undefined;
    const body = unrollLoops(s.body, depth);
    if (s.invariants.length > 0) return { ...s, body };
    let tail: Stmt = { kind: 'assume', cond: { kind: 'unary', op: '!', arg: s.cond, loc: s.cond.loc }, loc: s.loc };
    for (let k = 0; k < depth; k++) tail = { kind: 'if', cond: s.cond, then: [...body, tail], else: [], loc: s.loc };
    return tail;
  });
}

/** Looks for real failures of goals left unknown by loops without invariants, in the unrolled procedure. */
async function searchUnrolled(
  solver: Solver,
  program: ImpProgram,
  proc: Procedure,
  depth: number,
  open: readonly GoalResult[],
  timeoutMs: number,
): Promise<{ open: GoalResult; result: GoalResult }[]> {
  const enc = encodeProcedure(program, proc, { body: unrollLoops(proc.body ?? [], depth) });
  const out: { open: GoalResult; result: GoalResult }[] = [];
  await solver.push();
  try {
    for (const a of enc.assertions) await solver.assert(a);
    for (const o of open) {
      const start = Date.now();
      // Every copy of the goal in the unrolled body (one per iteration it sits in).
      const copies = enc.goals.filter((g) => g.kind === o.kind && g.loc.offset === o.loc.offset && g.loc.line === o.loc.line && g.loc.column === o.loc.column);
      for (const g of copies) {
        try {
          const r = await solver.checkSat([g.violation], { timeoutMs });
          if (r.status !== 'sat') continue;
          const counterexample = await extractCounterexample(solver, enc, g);
          const result: GoalResult = {
            ...o,
            status: 'failed',
            counterexample,
            reason: `found with the loops without invariants unrolled (at most ${depth} iterations)`,
            timeMs: o.timeMs + Date.now() - start,
          };
          out.push({ open: o, result });
          break;
        } catch (e) {
          if (!(e instanceof SolverError)) throw e;
        }
      }
    }
  } finally {
    await solver.pop();
  }
  return out;
}

/** What a result says of the goal it is about. */
function goalBase(enc: ProcedureEncoding, g: EncodedGoal): Pick<GoalResult, 'proc' | 'kind' | 'loc' | 'goal' | 'text'> {
  const goal = g.stmt?.kind === 'assert' ? g.stmt.goal : undefined;
  return { proc: enc.proc, kind: g.kind, loc: g.loc, ...(goal ? { goal } : {}), text: g.text };
}

/** Decides one goal of an encoding whose assertions the solver holds. */
export async function checkGoal(solver: Solver, enc: ProcedureEncoding, g: EncodedGoal, timeoutMs: number): Promise<GoalResult> {
  const start = Date.now();
  const base = goalBase(enc, g);
  const done = (r: Omit<GoalResult, 'proc' | 'kind' | 'loc' | 'goal' | 'text' | 'timeMs'>): GoalResult => ({ ...base, ...r, timeMs: Date.now() - start });
  // Loops without invariants before this goal were cut with `true`: a failure
  // that passes through one of them may be spurious.
  const abstracted = enc.loops.filter((l) => !l.hasInvariants && l.traceIndex < g.traceLength);
  const avoid = abstracted.map((l) => mkNot(l.reached));
  const r1 = await solver.checkSat([g.violation, ...avoid], { timeoutMs });
  if (r1.status === 'sat') {
    const counterexample = await extractCounterexample(solver, enc, g);
    // The path avoids loops without invariants, so its loop heads are cut with user invariants.
    const viaLoop = counterexample.steps.some((s) => s.what === 'loop-head');
    const viaCall = counterexample.steps.some((s) => s.what === 'call');
    const note =
      g.kind === 'invariant-preserved'
        ? 'the invariant is not inductive: an iteration from a state that satisfies the invariants breaks it'
        : viaLoop || viaCall
          ? `the path passes ${viaLoop ? 'a loop replaced by its invariants' : ''}${viaLoop && viaCall ? ' and ' : ''}${viaCall ? 'a call replaced by its contract' : ''}; ${viaLoop && viaCall ? 'they' : viaLoop ? 'the invariants' : 'the contract'} may be too weak`
          : undefined;
    return done({ status: 'failed', counterexample, ...(note ? { reason: note } : {}) });
  }
  if (r1.status === 'unknown') return done({ status: 'unknown', reason: r1.reason ?? 'the solver answered unknown' });
  if (avoid.length === 0) return done({ status: 'proved' });
  const r2 = await solver.checkSat([g.violation], { timeoutMs });
  if (r2.status === 'unsat') return done({ status: 'proved' });
  if (r2.status === 'unknown') return done({ status: 'unknown', reason: r2.reason ?? 'the solver answered unknown' });
  const loops = abstracted.map((l) => where(l.loc)).join(', ');
  return done({ status: 'unknown', reason: `${LOOP_REASON} (at ${loops})` });
}

async function extractCounterexample(solver: Solver, enc: ProcedureEncoding, g: EncodedGoal): Promise<Counterexample> {
  const steps = enc.trace.slice(0, g.traceLength);
  const entryNames = [...enc.inputs];
  const terms: Term[] = [...entryNames.map((n) => enc.entry.get(n)!)];
  for (const s of steps) {
    terms.push(s.reached);
    for (const u of s.updates) terms.push(u.value);
  }
  const values = (await solver.getValues(terms)).map(formatValue);
  let k = 0;
  const entry = entryNames.map((name) => ({ name, value: values[k++] }));
  const out: CounterexampleStep[] = [];
  for (const s of steps) {
    const reached = values[k++] === 'true';
    const vs = s.updates.map((u) => ({ name: u.name, value: values[k++] }));
    if (reached) out.push({ loc: s.loc, what: s.what, values: vs });
  }
  return { entry, steps: out };
}

/** Readable lines: `entry: x = 1, y = -2` then `12:5: r = 3` per step. */
export function formatCounterexample(cx: Counterexample, indent = '  '): string[] {
  const lines: string[] = [];
  const show = (vs: readonly NamedValue[]) => vs.map((v) => `${v.name} = ${v.value}`).join(', ');
  if (cx.entry.length > 0) lines.push(`${indent}entry: ${show(cx.entry)}`);
  for (const s of cx.steps) {
    const label = s.what === 'loop-head' ? ' (loop head, arbitrary iteration)' : s.what === 'call' ? ' (after call)' : s.what === 'havoc' ? ' (havoc)' : '';
    lines.push(`${indent}${where(s.loc)}: ${s.values.length > 0 ? show(s.values) : '(no change)'}${label}`);
  }
  return lines;
}
