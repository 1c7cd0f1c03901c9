// Candidate loop invariants for k-induction: the built-in comparison
// templates, and the caller's candidates checked against the loop's scope.

import { typeEquals, type Expr, type ImpProgram, type ImpType, type Stmt, type WhileStmt } from '../ivl/ast.js';
import { procedureScope, typeOfExpr } from '../ivl/typecheck.js';
import type { LoopCandidate } from './unroll.js';

const MAX_BUILTIN_PER_LOOP = 120;

/** Caller-supplied candidates of one IMP while (see `BmcOptions.loopCandidates`). */
export type LoopCandidateSource = (loop: Stmt, program: ImpProgram) => readonly Expr[];

function varsOf(e: Expr, acc: Set<string>): void {
  switch (e.kind) {
    case 'var': acc.add(e.name); break;
    case 'unary': varsOf(e.arg, acc); break;
    case 'binary': varsOf(e.left, acc); varsOf(e.right, acc); break;
    case 'app': e.args.forEach((a) => varsOf(a, acc)); break;
    case 'ite': varsOf(e.cond, acc); varsOf(e.then, acc); varsOf(e.else, acc); break;
    case 'select': varsOf(e.map, acc); varsOf(e.index, acc); break;
    case 'store': varsOf(e.map, acc); varsOf(e.index, acc); varsOf(e.value, acc); break;
    default: break;
  }
}

/** Variables a loop body assigns, and those it (or its condition) reads. */
function footprint(s: WhileStmt): { assigned: Set<string>; read: Set<string> } {
  const assigned = new Set<string>();
  const read = new Set<string>();
  varsOf(s.cond, read);
  const walk = (ss: readonly Stmt[]): void => {
    for (const x of ss) {
      switch (x.kind) {
        case 'assign': assigned.add(x.target); varsOf(x.value, read); break;
        case 'havoc': assigned.add(x.target); break;
        case 'assume': case 'assert': varsOf(x.cond, read); break;
        case 'if': varsOf(x.cond, read); walk(x.then); walk(x.else); break;
        case 'while': varsOf(x.cond, read); walk(x.body); break;
        case 'block': walk(x.body); break;
        default: break;
      }
    }
  };
  walk(s.body);
  return { assigned, read };
}

function zero(t: ImpType, loc: Expr['loc']): Expr {
  return t.kind === 'bv' ? { kind: 'bv_lit', value: 0n, width: t.width, loc } : { kind: 'int_lit', value: 0n, loc };
}

/**
 * The built-in templates of one loop: signed `<=`/`>=` (int `<=`/`>=`)
 * between a variable the loop assigns and 0 or another variable of the same
 * type that the loop reads or assigns, and `==` between two such variables.
 */
function templates(s: WhileStmt, types: ReadonlyMap<string, ImpType>): Expr[] {
  const { assigned, read } = footprint(s);
  const scalar = (v: string) => {
    const t = types.get(v);
    return t !== undefined && (t.kind === 'bv' || t.kind === 'int');
  };
  const all = [...new Set([...assigned, ...read])].filter(scalar).sort();
  const loc = s.loc;
  const out: Expr[] = [];
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

/** Every while of the entry procedure (nested ones included), in program order. */
export function whilesOf(program: ImpProgram, entry: string): WhileStmt[] {
  const proc = program.procedures.find((q) => q.name === entry);
  const out: WhileStmt[] = [];
  const visit = (ss: readonly Stmt[]): void => {
    for (const s of ss) {
      if (s.kind === 'if') { visit(s.then); visit(s.else); }
      else if (s.kind === 'block') visit(s.body);
      else if (s.kind === 'while') { out.push(s); visit(s.body); }
    }
  };
  visit(proc?.body ?? []);
  return out;
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
 * budget is shared (at least 200 ms each). Returns each candidate's status;
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
  for (const id of ids) out.set(id, await check(id, Math.max(200, (end - Date.now()) / Math.max(1, ids.length - out.size))));
  return out;
}
