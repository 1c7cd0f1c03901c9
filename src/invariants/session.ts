// One incremental solver session for selection: counts calls, and reads
// everything needed from a model in ONE get-value, so that a retried query
// (the WebAssembly back end now and then answers a well-formed get-value with
// a parse error; the call is then repeated) still gives consistent values.
import { SolverError, formatValue, type CheckSatResult, type Solver, type SmtValue } from '../smt/solver.js';
import type { Term } from '../smt/terms.js';
import type { RoundingMode } from '../common/ieee754.js';

export interface SolverSession {
  readonly solver: Solver;
  /** Per-call timeout in ms (0: none). */
  readonly timeoutMs: number;
  /** Date.now() after which no call is made (each answers unknown). */
  readonly deadline?: number;
  /** check-sat(-assuming) calls made. */
  calls: number;
}

export function isLiteral(t: Term): boolean {
  return t.op === 'true' || t.op === 'false' || t.op === 'int' || t.op === 'bv' || t.op === 'real' || t.op === 'fplit' || t.op === 'rm';
}

function literalValue(t: Term): SmtValue {
  if (t.op === 'true' || t.op === 'false') return { kind: 'bool', value: t.op === 'true' };
  if (t.op === 'int') return { kind: 'int', value: t.value! };
  if (t.op === 'bv') return { kind: 'bv', value: t.value!, width: (t.sort as { width: number }).width };
  if (t.op === 'fplit') return { kind: 'float', eb: (t.sort as { eb: number }).eb, sb: (t.sort as { sb: number }).sb, bits: t.value! };
  if (t.op === 'rm') return { kind: 'rmode', mode: t.text as RoundingMode };
  return { kind: 'raw', text: t.text ?? '?' };
}

/** A model's values of a fixed set of terms. */
export class ModelSnapshot {
  constructor(private readonly values: ReadonlyMap<Term, SmtValue>) {}
  value(t: Term): SmtValue {
    if (isLiteral(t)) return literalValue(t);
    const v = this.values.get(t);
    if (!v) throw new Error('term not in the model snapshot');
    return v;
  }
  truth(t: Term): boolean {
    const v = this.value(t);
    return v.kind === 'bool' && v.value;
  }
  text(t: Term): string {
    return formatValue(this.value(t));
  }
}

/**
 * check-sat-assuming; on sat, the values of `wanted` in the model. A solver
 * error on get-value is retried (the same query again, counted as a call).
 */
export async function checkAndRead(
  session: SolverSession,
  assumptions: readonly Term[],
  wanted: readonly Term[],
  timeoutMs = session.timeoutMs,
): Promise<{ result: CheckSatResult; model?: ModelSnapshot }> {
  const ask = [...new Set(wanted.filter((t) => !isLiteral(t)))];
  for (let attempt = 0; ; attempt++) {
    const left = session.deadline === undefined ? Infinity : session.deadline - Date.now();
    if (left <= 0) return { result: { status: 'unknown', reason: 'time budget spent', timeMs: 0 } };
    session.calls++;
    // Whole milliseconds: solvers take no fractions (z3's try-for refuses them).
    const limit = timeoutMs > 0 ? Math.min(timeoutMs, left) : Number.isFinite(left) ? left : 0;
    const result = await session.solver.checkSat(assumptions, { timeoutMs: Math.max(limit > 0 ? 1 : 0, Math.floor(limit)) });
    if (result.status !== 'sat') return { result };
    try {
      const vals = ask.length > 0 ? await session.solver.getValues(ask) : [];
      return { result, model: new ModelSnapshot(new Map(ask.map((t, k) => [t, vals[k]]))) };
    } catch (e) {
      if (!(e instanceof SolverError) || attempt >= 2) throw e;
    }
  }
}
