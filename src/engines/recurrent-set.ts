// Closed recurrent sets: a set S of loop-head states, containing a state the
// stem reaches, such that from every state of S one iteration with the
// cycle's nondet values fixed stays inside the loop, violates no assert or
// assume, and ends in S again. Then the execution through the stem repeats
// the cycle forever. S is a conjunction of simple facts about the reached
// state (a variable's value, its bounds, its order with another variable),
// weakened Houdini-style until closed.

import type { Expr, ImpProgram, ImpType, Procedure, Stmt, WhileStmt } from '../ivl/ast.js';
import { syntheticLoc } from '../ivl/ast.js';
import { evalExpr, type ImpState, type ImpValue } from '../ivl/interp.js';
import { mentionedVars } from '../ivl/walk.js';
import type { Solver } from '../smt/solver.js';
import { mkAnd, mkOr } from '../smt/terms.js';
import { encodeProcedure } from '../vc/encode.js';
import type { SourceLocation } from '../common/location.js';

const ATOM_FILE = '<recurrent-atom>';
const CHECK_FILE = '<recurrent-check>';

/** Key of a havoc statement: its location and target. */
export function havocKey(loc: SourceLocation, target: string): string {
  return `${loc.file}:${loc.line}:${loc.column}:${loc.offset}|${target}`;
}

function literal(v: ImpValue, loc: SourceLocation): Expr | undefined {
  if (v.kind === 'bv') return { kind: 'bv_lit', value: v.value, width: v.width, loc };
  if (v.kind === 'bool') return { kind: 'bool_lit', value: v.value, loc };
  if (v.kind === 'int') return v.value >= 0n ? { kind: 'int_lit', value: v.value, loc } : { kind: 'unary', op: '-', arg: { kind: 'int_lit', value: -v.value, loc }, loc };
  return undefined;
}

/** Facts about `s0` over the loop's scalar variables, each with its own location (to find it among the goals). */
function atoms(vars: readonly string[], types: ReadonlyMap<string, ImpType>, s0: ImpState): Expr[] {
  const out: Expr[] = [];
  let id = 1;
  const loc = () => ({ ...syntheticLoc(ATOM_FILE), line: id++ });
  const add = (e: Expr) => {
    try {
      const v = evalExpr(e, s0);
      if (v.kind === 'bool' && v.value) out.push(e);
    } catch {
      // not evaluable: not a candidate
    }
  };
  for (const v of vars) {
    const value = s0.get(v);
    const t = types.get(v);
    if (!value || !t || (t.kind !== 'bv' && t.kind !== 'bool')) continue;
    const ref: Expr = { kind: 'var', name: v, loc: loc() };
    const lit = literal(value, ref.loc)!;
    add({ kind: 'binary', op: '==', left: ref, right: lit, loc: loc() });
    if (t.kind !== 'bv') continue;
    for (const fn of ['sle', 'sge', 'ule', 'uge'] as const) add({ kind: 'app', fn, args: [ref, lit], loc: loc() });
    for (const w of vars) {
      if (w === v || types.get(w)?.kind !== 'bv' || (types.get(w) as { width: number }).width !== t.width) continue;
      for (const fn of ['sle', 'ule'] as const) add({ kind: 'app', fn, args: [ref, { kind: 'var', name: w, loc: ref.loc }], loc: loc() });
    }
  }
  return out;
}

/**
 * One iteration as checks: assumes become asserts (an abort or undefined
 * behaviour would end the execution), havocs get the fixed values (a havoc
 * without one must be unreachable).
 */
function checkedBody(ss: readonly Stmt[], fixed: ReadonlyMap<string, ImpValue>): Stmt[] | undefined {
  const out: Stmt[] = [];
  for (const s of ss) {
    switch (s.kind) {
      case 'assume':
        out.push({ kind: 'assert', cond: s.cond, loc: { ...s.loc, file: CHECK_FILE } });
        break;
      case 'havoc': {
        const v = fixed.get(havocKey(s.loc, s.target));
        const lit = v && literal(v, s.loc);
        out.push(lit ? { kind: 'assign', target: s.target, value: lit, loc: s.loc } : { kind: 'assert', cond: { kind: 'bool_lit', value: false, loc: s.loc }, loc: { ...s.loc, file: CHECK_FILE } });
        break;
      }
      case 'if': {
        const a = checkedBody(s.then, fixed);
        const b = checkedBody(s.else, fixed);
        if (!a || !b) return undefined;
        out.push({ ...s, then: a, else: b });
        break;
      }
      case 'block': {
        const a = checkedBody(s.body, fixed);
        if (!a) return undefined;
        out.push({ ...s, body: a });
        break;
      }
      case 'while':
      case 'call':
        return undefined;
      case 'assert':
        out.push({ ...s, loc: { ...s.loc, file: CHECK_FILE } });
        break;
      default:
        out.push(s);
    }
  }
  return out;
}

/**
 * A closed recurrent set containing `s0` for the loop with the havocs of one
 * iteration fixed to `fixed` (by havocKey), as a conjunction of facts;
 * undefined when none is found (loops with inner loops or calls are not tried).
 */
export async function closedRecurrentSet(
  program: ImpProgram,
  proc: Procedure,
  loop: WhileStmt,
  s0: ImpState,
  fixed: ReadonlyMap<string, ImpValue>,
  solver: Solver,
  timeoutMs: number,
): Promise<Expr[] | undefined> {
  const body = checkedBody(loop.body, fixed);
  if (!body) return undefined;
  const types = new Map<string, ImpType>();
  for (const d of [...program.globals, ...proc.params, ...proc.returns, ...proc.locals]) types.set(d.name, d.type);
  let set = atoms([...mentionedVars([loop], false)].sort(), types, s0);
  const endLoc = { ...syntheticLoc(CHECK_FILE), line: 0 };
  for (let round = 0; round < 200; round++) {
    const check: Stmt[] = [
      ...set.map<Stmt>((a) => ({ kind: 'assume', cond: a, loc: a.loc })),
      { kind: 'assume', cond: loop.cond, loc: loop.loc },
      ...body,
      { kind: 'assert', cond: loop.cond, loc: endLoc },
      ...set.map<Stmt>((a) => ({ kind: 'assert', cond: a, loc: a.loc })),
    ];
    const enc = encodeProcedure(program, proc, { body: check, checkPostconditions: false, assumePreconditions: false, prefix: `R${round}.` });
    const goals = enc.goals.filter((g) => g.kind === 'assert');
    await solver.push();
    try {
      await solver.assert(mkAnd(...enc.assertions, mkOr(...goals.map((g) => g.violation))));
      const r = await solver.checkSat(undefined, { timeoutMs });
      if (r.status === 'unsat') return set;
      if (r.status !== 'sat') return undefined;
      const values = await solver.getValues(goals.map((g) => g.violation));
      const failed = goals.filter((_, i) => values[i]?.kind === 'bool' && values[i].value);
      const atomsFailed = new Set(failed.filter((g) => g.loc.file === ATOM_FILE).map((g) => g.loc.line));
      // Only the set's own facts can be dropped; any other failing check means this set does not work.
      if (atomsFailed.size === 0) return undefined;
      set = set.filter((a) => !atomsFailed.has(a.loc.line));
    } finally {
      await solver.pop();
    }
  }
  return undefined;
}
