// Supporting invariants for ranking functions: simple bounds at each loop
// head (a variable against a constant of the program, two variables against
// each other), kept when inductive. Houdini over the whole procedure: the
// candidates become the loops' invariants, vc/ cuts every loop with them
// (checking that they hold at entry and are preserved by an iteration), and
// the candidates some model violates are dropped until none is.
//
// Deliberately small: a stronger source (an abstract interpreter) can be
// plugged in through TerminationOptions.supportingInvariants.

import { syntheticLoc, type BvWidth, type Expr, type ImpProgram, type ImpType, type Procedure, type Stmt, type WhileStmt } from '../ivl/ast.js';
import { loopsOf, mentionedVars, rewriteStmts, visitStmtExprs, visitStmts } from '../ivl/walk.js';
import { printExpr } from '../ivl/printer.js';
import type { Solver } from '../smt/solver.js';
import { mkAnd, mkOr } from '../smt/terms.js';
import { encodeProcedure } from '../vc/encode.js';

const CANDIDATE_FILE = '<termination-invariant>';
/** At most this many constants of the program are used in bounds. */
const MAX_CONSTANTS = 8;

/** The bit-vector constants of the statements, read as signed (a negated literal counts as negative). */
function literals(ss: readonly Stmt[], out: Set<bigint>): void {
  visitStmtExprs(ss, (e) => {
    if (e.kind === 'bv_lit') out.add(BigInt.asIntN(e.width, e.value));
    else if (e.kind === 'unary' && e.op === '-' && e.arg.kind === 'bv_lit') {
      out.add(-BigInt.asIntN(e.arg.width, e.arg.value));
      return false;
    }
    return true;
  }, false);
}

/** Candidate bounds for one loop: each scalar bit-vector variable it mentions against the constants and against the others. */
function candidates(loop: WhileStmt, types: ReadonlyMap<string, ImpType>, constants: readonly bigint[], next: () => number): Expr[] {
  const vars = [...mentionedVars([loop], false)].filter((v) => types.get(v)?.kind === 'bv' && !v.startsWith('$')).sort();
  const out: Expr[] = [];
  const mk = (fn: 'sle' | 'ule', a: Expr, b: Expr): Expr => {
    const loc = syntheticLoc(CANDIDATE_FILE);
    return { kind: 'app', fn, args: [a, b], loc: { ...loc, line: next() } };
  };
  for (const v of vars) {
    const width = (types.get(v) as { width: BvWidth }).width;
    const ref: Expr = { kind: 'var', name: v, loc: loop.loc };
    for (const c of constants) {
      const lit: Expr = { kind: 'bv_lit', value: BigInt.asUintN(width, c), width, loc: loop.loc };
      out.push(mk('sle', lit, ref), mk('sle', ref, lit));
      if (c >= 0n) out.push(mk('ule', ref, lit));
    }
    for (const w of vars) {
      if (w !== v && (types.get(w) as { width: number }).width === width) out.push(mk('sle', ref, { kind: 'var', name: w, loc: loop.loc }));
    }
  }
  // A loop run by a flag (`while ($loop) { ...; $loop := cond }`): a bound often holds only while the flag is set.
  if (loop.cond.kind === 'var' && types.get(loop.cond.name)?.kind === 'bool') {
    const flag = loop.cond;
    const guarded = out.map<Expr>((c) => ({ kind: 'binary', op: '==>', left: flag, right: c, loc: { ...c.loc, line: next() } }));
    out.push(...guarded);
  }
  return out;
}

/**
 * For a loop run by a flag that the body sets to one condition c (or to
 * false, to leave), the candidate `flag ==> c`: at the head, an iteration
 * runs only where c holds (the ranking check starts from any state with the
 * flag set, where `i < n` is otherwise unknown and `i + 1` may wrap).
 */
function flagCandidates(loop: WhileStmt, next: () => number): Expr[] {
  const flag = loop.cond;
  if (flag.kind !== 'var') return [];
  const set = new Map<string, Expr>();
  let other = false;
  visitStmts(loop.body, (s) => {
    if (s.kind === 'assign' && s.target === flag.name) {
      if (s.value.kind === 'bool_lit' && !s.value.value) return;
      set.set(printExpr(s.value), s.value);
    } else if (s.kind === 'havoc' && s.target === flag.name) other = true;
  });
  if (other || set.size !== 1) return [];
  const c = [...set.values()][0]!;
  return [{ kind: 'binary', op: '==>', left: flag, right: c, loc: { ...syntheticLoc(CANDIDATE_FILE), line: next() } }];
}

/** The statements with `invs` added to the invariants of their loops. */
export function withInvariants(ss: readonly Stmt[], invs: ReadonlyMap<WhileStmt, readonly Expr[]>): Stmt[] {
  return rewriteStmts(ss, (s) =>
    s.kind === 'while' ? { ...s, invariants: [...s.invariants, ...(invs.get(s) ?? [])], body: withInvariants(s.body, invs) } : undefined,
  );
}

/**
 * The inductive subset of the candidate bounds of every loop of `proc`, by
 * loop. Undefined when the time runs out or the solver gives up (then no
 * candidate is trusted).
 */
export async function inductiveBounds(
  program: ImpProgram,
  proc: Procedure,
  solver: Solver,
  deadline: () => number,
): Promise<Map<WhileStmt, Expr[]> | undefined> {
  const types = new Map<string, ImpType>();
  for (const d of [...program.globals, ...proc.params, ...proc.returns, ...proc.locals]) types.set(d.name, d.type);
  const lits = new Set<bigint>([0n, 1n]);
  literals(proc.body ?? [], lits);
  const constants = [...lits].filter((c) => c >= -(1n << 20n) && c <= 1n << 20n).sort((a, b) => (a < b ? -1 : 1)).slice(0, MAX_CONSTANTS + 2);
  return inductiveSubset(program, proc, solver, deadline, (loop, next) => [...flagCandidates(loop, next), ...candidates(loop, types, constants, next)]);
}

/** The inductive subset of the flag candidates alone (few, and quick to check): undefined as for `inductiveBounds`. */
export function inductiveFlagConditions(program: ImpProgram, proc: Procedure, solver: Solver, deadline: () => number): Promise<Map<WhileStmt, Expr[]> | undefined> {
  return inductiveSubset(program, proc, solver, deadline, flagCandidates);
}

/** Houdini over the candidates `make` gives each loop of `proc` (numbered by `next`, in CANDIDATE_FILE). */
async function inductiveSubset(
  program: ImpProgram,
  proc: Procedure,
  solver: Solver,
  deadline: () => number,
  make: (loop: WhileStmt, next: () => number) => Expr[],
): Promise<Map<WhileStmt, Expr[]> | undefined> {
  let id = 1;
  const live = new Map<WhileStmt, Expr[]>();
  for (const loop of loopsOf(proc.body ?? [])) live.set(loop, make(loop, () => id++));
  for (;;) {
    if (deadline() <= 0) return undefined;
    const annotated: Procedure = { ...proc, body: withInvariants(proc.body ?? [], live) };
    const enc = encodeProcedure(program, annotated, { checkPostconditions: false, prefix: `H${id++}.` });
    const goals = enc.goals.filter((g) => g.kind === 'invariant-entry' || g.kind === 'invariant-preserved');
    if (goals.length === 0) return live;
    await solver.push();
    try {
      await solver.assert(mkAnd(...enc.assertions, mkOr(...goals.map((g) => g.violation))));
      const r = await solver.checkSat(undefined, { timeoutMs: Math.floor(Math.max(500, Math.min(deadline(), 5000))) });
      if (r.status === 'unsat') return live;
      if (r.status !== 'sat') return undefined;
      const values = await solver.getValues(goals.map((g) => g.violation));
      const failed = new Set(goals.filter((_, i) => values[i]?.kind === 'bool' && values[i].value).map((g) => g.loc.line));
      if (failed.size === 0) return undefined;
      for (const [loop, cands] of live) live.set(loop, cands.filter((c) => c.loc.file !== CANDIDATE_FILE || !failed.has(c.loc.line)));
    } finally {
      await solver.pop();
    }
  }
}
