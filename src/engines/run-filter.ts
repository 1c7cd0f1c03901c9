// Candidates filtered by runs: the program is run on small random inputs,
// and a candidate that some state at its loop's head violates (where the
// loop runs on: candidates are claimed as `cond ==> c`) is dropped before
// Houdini sees it. Houdini drops a false candidate per model, often one or
// two per round; a run drops most of them at once. Only a filter: what the
// runs keep is still proved or dropped by Houdini.
import { guarded, type Expr, type ImpProgram, type ImpType, type Stmt } from '../ivl/ast.js';
import { evalExpr, executeImp, type ImpState, type ImpValue } from '../ivl/interp.js';
import { rng } from '../common/random.js';
import { mapStmt, rewriteExpr, visitStmtExprs } from '../ivl/walk.js';
import type { LoopCandidateSource } from './candidates.js';

export interface RunFilterOptions {
  readonly runs?: number;
  /** Statements all runs together may execute. */
  readonly steps?: number;
  readonly seed?: number;
  /**
   * How a variable's arbitrary values are drawn: `index` from 0 to 15 or 63 (where
   * the cells a program writes are), `any` from the whole range, 0 and small
   * numbers alike (what memory holds before it is written), else small numbers.
   */
  readonly values?: (name: string) => 'index' | 'any' | undefined;
}

const STATES_PER_LOOP = 100;

/**
 * `source`'s candidates less those a run's state at their loop's head
 * violates. The runs are of the program with its large constants made small
 * (100000 as 24, 99999 as 23: order and small differences kept), so that a
 * loop over a large array ends and the loops after it are reached; a
 * candidate is evaluated with its constants made small the same way.
 */
export function filteredByRuns(source: LoopCandidateSource, options: RunFilterOptions = {}): LoopCandidateSource {
  const heads = new WeakMap<ImpProgram, { states: Map<string, ImpState[]>; small: (e: Expr) => Expr }>();
  return (loop, program) => {
    const candidates = source(loop, program);
    if (loop.kind !== 'while' || candidates.length === 0) return candidates;
    let runs = heads.get(program);
    if (!runs) {
      const small = smallConstants(program);
      heads.set(program, (runs = { states: loopHeadStates(mapProgramExprs(program, small), options), small }));
    }
    const seen = runs.states.get(locKey(loop)) ?? [];
    const { small } = runs;
    return candidates.filter((c) => {
      const claim = small(guarded(loop.cond, c));
      return seen.every((s) => holds(claim, s));
    });
  };
}

/** Bit-vector literals from this value on are large. */
const LARGE = 64n;
/** Large literals closer than this to the previous one keep their difference. */
const NEAR = 8n;

/** The rewriting of a program's large literals (and of candidates over it) into small ones. */
function smallConstants(program: ImpProgram): (e: Expr) => Expr {
  const large = new Set<bigint>();
  for (const proc of program.procedures) visitStmtExprs(proc.body ?? [], (x) => void (x.kind === 'bv_lit' && x.value >= LARGE && x.value < 1n << BigInt(x.width - 1) && large.add(x.value)));
  const sorted = [...large].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const to = new Map<bigint, bigint>();
  let base = 24n;
  sorted.forEach((value, i) => {
    const previous = sorted[i - 1];
    if (previous !== undefined) base += value - previous <= NEAR ? value - previous : 24n;
    to.set(value, base);
  });
  return (e) => rewriteExpr(e, (x) => (x.kind === 'bv_lit' && to.has(x.value) ? { ...x, value: to.get(x.value)! } : undefined));
}

function mapProgramExprs(program: ImpProgram, f: (e: Expr) => Expr): ImpProgram {
  const stmts = (ss: readonly Stmt[]): readonly Stmt[] => ss.map((s) => mapStmt(s, { expr: f, body: stmts }));
  return { ...program, procedures: program.procedures.map((p) => (p.body ? { ...p, body: stmts(p.body) } : p)) };
}

function locKey(s: Stmt): string {
  return `${s.loc.line}:${s.loc.column}:${s.loc.offset}`;
}

/** Whether `e` is true in `s` (true where it cannot be evaluated: only a state that shows it false drops it). */
function holds(e: Expr, s: ImpState): boolean {
  try {
    const v = evalExpr(e, s);
    return v.kind !== 'bool' || v.value;
  } catch {
    return true;
  }
}

function loopHeadStates(program: ImpProgram, options: RunFilterOptions): Map<string, ImpState[]> {
  const out = new Map<string, ImpState[]>();
  const r = rng(options.seed ?? 7);
  const kind = options.values ?? (() => undefined);
  const havoc = (name: string, t: ImpType): ImpValue => {
    if (t.kind === 'bool') return { kind: 'bool', value: r() < 0.7 };
    const how = kind(name);
    // Memory not yet written: 0 (a third of the time), a small number, or anything.
    if (how === 'any' && t.kind === 'bv') {
      const u = r();
      const value = u < 1 / 3 ? 0n : u < 2 / 3 ? BigInt(Math.floor(r() * 16)) : BigInt(Math.floor(r() * 2 ** 32)) << BigInt(Math.max(0, t.width - 32));
      return { kind: 'bv', width: t.width, value: BigInt.asUintN(t.width, value) };
    }
    const n = how === 'index' ? Math.floor(r() * (r() < 0.5 ? 16 : 64)) : r() < 0.5 ? Math.floor(r() * 12) - 2 : Math.floor(r() * 60);
    if (t.kind === 'bv') return { kind: 'bv', width: t.width, value: BigInt.asUintN(t.width, BigInt(n)) };
    if (t.kind === 'int') return { kind: 'int', value: BigInt(n) };
    throw new Error(`no random value of type ${t.kind}`);
  };
  const runs = options.runs ?? 100;
  let steps = options.steps ?? 200_000;
  for (let run = 0; run < runs && steps > 0; run++) {
    try {
      steps -= executeImp(program, 'main', {}, {
        maxSteps: Math.min(steps, 20_000),
        checkInvariants: false,
        havoc,
        onLoopHead: (loc, state) => {
          const key = `${loc.line}:${loc.column}:${loc.offset}`;
          const list = out.get(key) ?? [];
          if (list.length < STATES_PER_LOOP) list.push(state);
          out.set(key, list);
        },
      }).steps;
    } catch {
      // A value the interpreter cannot make (a float, a map): no runs.
      return out;
    }
  }
  return out;
}
