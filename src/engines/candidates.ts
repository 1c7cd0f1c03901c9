// Candidate loop invariants for k-induction: the built-in comparison
// templates, and the caller's candidates checked against the loop's scope.

import { findProcedure, typeEquals, type Expr, type ImpProgram, type ImpType, type Stmt, type WhileStmt } from '../ivl/ast.js';
import { assignedVars, freeVars, loopsOf, rewriteExpr, visitStmtExprs, visitStmts, writeCounts } from '../ivl/walk.js';
import { procedureScope, typeOfExpr } from '../ivl/typecheck.js';
import { printExpr } from '../ivl/printer.js';
import type { LoopCandidate } from './unroll.js';

const MAX_BUILTIN_PER_LOOP = 120;

/** Caller-supplied candidates of one IMP while (see `BmcOptions.loopCandidates`). */
export type LoopCandidateSource = (loop: Stmt, program: ImpProgram) => readonly Expr[];

/** Variables a loop body assigns, and those it (or its condition) reads. */
function footprint(s: WhileStmt): { assigned: Set<string>; read: Set<string> } {
  const read = freeVars(s.cond);
  visitStmtExprs(s.body, (e) => void (e.kind === 'var' && read.add(e.name)), false);
  return { assigned: assignedVars(s.body), read };
}

function zero(t: ImpType, loc: Expr['loc']): Expr {
  return t.kind === 'bv' ? { kind: 'bv_lit', value: 0n, width: t.width, loc } : { kind: 'int_lit', value: 0n, loc };
}

/**
 * The built-in templates of one loop: signed `<=`/`>=` (int `<=`/`>=`)
 * between a variable the loop assigns and 0 or another variable of the same
 * type that the loop reads or assigns, `==` between two such variables, and
 * each Boolean variable the loop assigns, and its negation.
 */
function templates(s: WhileStmt, types: ReadonlyMap<string, ImpType>, ghosts: ReadonlySet<string> = new Set()): Expr[] {
  const footprinted = footprint(s);
  const assigned = new Set([...footprinted.assigned].filter((x) => !ghosts.has(x)));
  const read = new Set([...footprinted.read].filter((x) => !ghosts.has(x)));
  const scalar = (v: string) => {
    const t = types.get(v);
    return t !== undefined && (t.kind === 'bv' || t.kind === 'int');
  };
  const all = [...new Set([...assigned, ...read])].filter(scalar).sort();
  const loc = s.loc;
  const out: Expr[] = [];
  // A flag the loop sets (a `break` lowered to `$brk := true`) is often constant while it runs on.
  for (const b of [...assigned].sort()) {
    if (types.get(b)?.kind !== 'bool') continue;
    const vb: Expr = { kind: 'var', name: b, loc };
    out.push(vb, { kind: 'unary', op: '!', arg: vb, loc });
  }
  const cmp = (t: ImpType, op: 'le' | 'ge', a: Expr, b: Expr): Expr =>
    t.kind === 'bv'
      ? { kind: 'app', fn: op === 'le' ? 'sle' : 'sge', args: [a, b], loc }
      : { kind: 'binary', op: op === 'le' ? '<=' : '>=', left: a, right: b, loc };
  for (const a of [...assigned].filter(scalar).sort()) {
    const ta = types.get(a)!;
    const va: Expr = { kind: 'var', name: a, loc };
    out.push(cmp(ta, 'le', va, zero(ta, loc)), cmp(ta, 'ge', va, zero(ta, loc)));
    for (const b of all) {
      if (b === a || !typeEquals(types.get(b)!, ta)) continue;
      const vb: Expr = { kind: 'var', name: b, loc };
      out.push(cmp(ta, 'le', va, vb), cmp(ta, 'ge', va, vb));
      if (a < b || !assigned.has(b)) out.push({ kind: 'binary', op: '==', left: va, right: vb, loc });
    }
  }
  return out.slice(0, MAX_BUILTIN_PER_LOOP);
}

/**
 * The built-in templates as a candidate source, over the variables other
 * than `ghosts` (those an abstraction adds): for a caller that filters them
 * before Houdini (bmc's own are not filtered).
 */
export function templateCandidates(ghosts: ReadonlySet<string>, entry = 'main'): LoopCandidateSource {
  const typesOf = new WeakMap<ImpProgram, Map<string, ImpType>>();
  return (loop, program) => {
    const proc = findProcedure(program, entry);
    if (loop.kind !== 'while' || !proc) return [];
    let types = typesOf.get(program);
    if (!types) typesOf.set(program, (types = new Map([...procedureScope(program, proc)].map(([n, v]) => [n, v.decl.type] as [string, ImpType]))));
    return templates(loop, types, ghosts);
  };
}

/** Every while of the entry procedure (nested ones included), in program order. */
export function whilesOf(program: ImpProgram, entry: string): WhileStmt[] {
  return loopsOf(findProcedure(program, entry)?.body ?? []);
}

/**
 * The candidates of every loop of the entry procedure: the built-in
 * templates (when `builtin`) and the caller's, each given a fresh id.
 * Caller candidates that are not Boolean expressions over the variables in
 * scope are dropped.
 */
export function loopCandidates(program: ImpProgram, entry: string, builtin: boolean, extra?: LoopCandidateSource): Map<Stmt, LoopCandidate[]> {
  const proc = program.procedures.find((q) => q.name === entry);
  const out = new Map<Stmt, LoopCandidate[]>();
  if (!proc?.body) return out;
  const scope = procedureScope(program, proc);
  const types = new Map([...scope].map(([n, v]) => [n, v.decl.type] as [string, ImpType]));
  let id = 0;
  for (const loop of whilesOf(program, entry)) {
    const exprs = builtin ? templates(loop, types) : [];
    for (const e of extra?.(loop, program) ?? []) {
      try {
        if (typeOfExpr(e, scope, { allowOld: false }).kind === 'bool') exprs.push(e);
      } catch {
        // not an expression over this scope: not a candidate
      }
    }
    if (exprs.length > 0) out.set(loop, exprs.map((expr) => ({ id: id++, loop, expr })));
  }
  return out;
}

/**
 * Houdini's check one candidate at a time, for when the one check of all
 * violations together was undecided: a disjunction of many violations can
 * be far harder for the solver than each alone (bit-blasted divisions). The
 * budget is shared (at least 200 ms each, none once it is spent). Returns each candidate's status;
 * dropping the `sat` and the `unknown` ones is sound (fewer invariants), and
 * when all are `unsat` the candidates are inductive together.
 */
export async function checkOneByOne(
  ids: readonly number[],
  check: (id: number, timeoutMs: number) => Promise<'sat' | 'unsat' | 'unknown'>,
  budgetMs: number,
): Promise<Map<number, 'sat' | 'unsat' | 'unknown'>> {
  const out = new Map<number, 'sat' | 'unsat' | 'unknown'>();
  const end = Date.now() + budgetMs;
  for (const id of ids) {
    const left = end - Date.now();
    // Once the budget is spent the rest stay undecided (200 ms each for 120 candidates outlived a 10 s limit).
    out.set(id, left <= 0 ? 'unknown' : await check(id, Math.max(200, left / Math.max(1, ids.length - out.size))));
  }
  return out;
}

/** At most this many of the program's own conditions per program (each becomes a candidate at every loop). */
const MAX_ASSERTION_CANDIDATES = 8;

/** `ite(c, 1, 0) == 0` is `!c`, `ite(c, 1, 0) != 0` is `c`, `!!c` is `c`: the shapes a lowered C condition takes. */
function simplify(e: Expr): Expr {
  const isBool01 = (x: Expr): x is Extract<Expr, { kind: 'ite' }> =>
    x.kind === 'ite' && x.then.kind === 'bv_lit' && x.then.value === 1n && x.else.kind === 'bv_lit' && x.else.value === 0n;
  if (e.kind === 'unary' && e.op === '!') {
    const a = simplify(e.arg);
    if (a.kind === 'unary' && a.op === '!') return a.arg;
    return { ...e, arg: a };
  }
  if (e.kind === 'binary' && (e.op === '==' || e.op === '!=')) {
    const l = simplify(e.left);
    const r = simplify(e.right);
    if (isBool01(l) && r.kind === 'bv_lit' && r.value === 0n) return e.op === '!=' ? l.cond : simplify({ kind: 'unary', op: '!', arg: l.cond, loc: e.loc });
    return { ...e, left: l, right: r };
  }
  return e;
}

/**
 * The program's own conditions as candidates at every loop of the entry
 * procedure: the condition of each assert (`assert e`, or `if (c) { assert
 * false; ... }` as `!c`), read through the temporaries the lowering
 * computed it in (variables assigned once). An asserted property is often
 * inductive at the loops before it (or around it); Houdini decides.
 */
export function assertionCandidates(entry = 'main'): LoopCandidateSource {
  const cache = new WeakMap<ImpProgram, Expr[]>();
  return (_loop, program) => {
    let out = cache.get(program);
    if (!out) {
      out = assertionConditions(program.procedures.find((p) => p.name === entry)?.body ?? []);
      cache.set(program, out);
    }
    return out;
  };
}

function assertionConditions(body: readonly Stmt[]): Expr[] {
  const writes = writeCounts(body);
  const definition = new Map<string, Expr>();
  const conditions: Expr[] = [];
  visitStmts(body, (s) => {
    switch (s.kind) {
      case 'assign':
        definition.set(s.target, s.value);
        break;
      case 'assert':
        if (!(s.cond.kind === 'bool_lit' && !s.cond.value)) conditions.push(s.cond);
        break;
      case 'if': {
        const first = s.then[0];
        if (first?.kind === 'assert' && first.cond.kind === 'bool_lit' && !first.cond.value) conditions.push({ kind: 'unary', op: '!', arg: s.cond, loc: s.cond.loc });
        break;
      }
      default:
        break;
    }
  });
  // A variable assigned once, except one that only names a nondet value (`n := $nd`): a program variable, kept.
  const havocked = new Set([...writes.keys()].filter((v) => !definition.has(v)));
  const temporary = (v: string) => {
    const d = definition.get(v);
    return writes.get(v) === 1 && d !== undefined && !(d.kind === 'var' && havocked.has(d.name));
  };
  // Temporaries are replaced by their definitions (to a depth); reads of maps are left as written.
  const substitute = (e: Expr, depth: number): Expr =>
    depth > 8
      ? e
      : rewriteExpr(e, (x) => {
          if (x.kind === 'var') return temporary(x.name) ? substitute(definition.get(x.name)!, depth + 1) : x;
          return x.kind === 'select' || x.kind === 'store' ? x : undefined;
        });
  const byText = new Map<string, Expr>();
  for (const c of conditions) {
    const e = simplify(substitute(c, 0));
    // A condition still over temporaries is about the state after the loops, not at them.
    const vars = freeVars(e);
    if (vars.size === 0 || [...vars].some(temporary)) continue;
    byText.set(printExpr(e), e);
  }
  return [...byText.values()].slice(0, MAX_ASSERTION_CANDIDATES);
}

/** Several candidate sources as one (each expression once). */
export function candidateSources(...sources: readonly LoopCandidateSource[]): LoopCandidateSource {
  return (loop, program) => {
    const byText = new Map<string, Expr>();
    for (const s of sources) for (const e of s(loop, program)) if (!byText.has(printExpr(e))) byText.set(printExpr(e), e);
    return [...byText.values()];
  };
}
