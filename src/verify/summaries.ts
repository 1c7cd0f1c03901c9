// Recursion summaries: proving unreach-call or no-overflow of a program
// whose recursion is unbounded (a nondeterministic argument) without
// inlining it to the end.
//
// A summary of a recursive function is a conjunction of conditions on its
// result (`result <= 3`, `result == x`). Houdini finds the strongest set
// of candidate conditions that holds for every recursive function at once:
// each function is lowered as the entry, called with arbitrary arguments,
// its inner recursive calls returning arbitrary results that satisfy the
// current summaries, and a condition that can fail where it returns is
// dropped, until none can. Then main, with its recursive calls summarised
// the same way, must not reach an error.
//
// Why this is sound: suppose an execution of the C program reaches an error
// or has a call return a result that breaks its summary, and take the first
// time this happens. It happens inside some call (of main, or of a
// recursive function with arguments a) while no deeper call is active; the
// deeper calls it made before returned results that satisfy their summaries.
// So the checked program of that function with arguments a can do the same,
// with those results for its summarised calls: but its check showed that
// none of its errors and summary conditions can fail. The functions must not
// touch memory or globals (checked here), so that arguments alone determine
// what a call does.

import type { CProgram, Expr as CExpr, FunctionDecl, Stmt as CStmt, BlockItem } from '../c/index.js';
import { childExprs, forEachStatement } from '../c/index.js';
import { integerRange, unqualified, type DataModel } from '../c/types.js';
import { checkSummaries, strongestSummaries, type Counterexample, type GoalRoles, type SummaryCheck } from '../engines/index.js';
import { goalOf, type GoalKind } from '../lower/source-map.js';
import { createSolver, type Solver } from '../smt/index.js';
import { intKindOf } from '../lower/memory.js';
import type { InstrumentationPass, RecursionSummaries, SummaryCondition } from '../lower/types.js';
import { lowerC } from './frontend.js';

export interface SummaryOptions {
  /** The instrumentation the property needs, and the goal kinds that violate it (the errors). */
  readonly passes: readonly InstrumentationPass[];
  readonly errorKinds: readonly GoalKind[];
  readonly dataModel: DataModel;
  /** Budget ms left (on the verifier's clock); the search stops when it is spent. */
  readonly left: () => number;
  /** The solver of the checks (one instance serves them all). */
  readonly solver?: string;
  readonly log?: (message: string) => void;
}

export interface SummaryProof {
  /** The summary of each recursive function (its conditions). */
  readonly summaries: ReadonlyMap<string, readonly SummaryCondition[]>;
  readonly reason: string;
}

/**
 * Proves the property with recursion summaries, or says why not (undefined
 * proof): the recursion does not qualify, an error is reachable with the
 * strongest summaries found, or the budget ran out.
 */
export async function proveBySummaries(c: CProgram, options: SummaryOptions): Promise<{ proof?: SummaryProof; reason: string }> {
  const recursive = recursiveFunctions(c);
  if (recursive.length === 0) return { reason: 'no recursion' };
  const impure = recursive.map((f) => impurity(f, c)).find((x) => x !== undefined);
  if (impure) return { reason: `recursion summaries need functions of integers without memory: ${impure}` };
  const conditions = new Map(recursive.map((f) => [f.name, candidates(f, c)] as const));
  const solver = createSolver(options.solver ?? 'auto');
  try {
    return await houdini(c, recursive, conditions, solver, options);
  } finally {
    await solver.dispose();
  }
}

async function houdini(c: CProgram, recursive: readonly FunctionDecl[], conditions: Map<string, readonly SummaryCondition[]>, solver: Solver, options: SummaryOptions): Promise<{ proof?: SummaryProof; reason: string }> {
  const log = options.log ?? (() => {});
  const check = async (summaries: RecursionSummaries): Promise<SummaryCheck> => {
    const lowered = lowerC(c, { passes: options.passes, dataModel: options.dataModel, recursionDepth: 1, summaries });
    if (lowered.unsupported) return { kind: 'unsupported', why: `${lowered.unsupported.construct}` };
    // The summary's conditions and the property's goals are the errors (another property's goals end the execution: no violation).
    const roles: GoalRoles = { error: ['summary', ...options.errorKinds], bound: ['recursion', 'memory-unknown'] };
    // A summary goal's column is its condition's index (1-based).
    const summaryOf = (g: Counterexample['goal']) => (goalOf(lowered.sourceMap, g.goal)?.kind === 'summary' ? g.loc.column - 1 : undefined);
    return checkSummaries({ imp: lowered.imp, roles, summaryOf }, { deadline: options.left, solver });
  };
  const found = await strongestSummaries(
    recursive.map((f) => f.name),
    conditions,
    (current, entry) => check({ conditions: current, entry }),
    options.left,
  );
  if ('timeout' in found) return { reason: 'recursion summaries: time limit reached' };
  if ('failed' in found) {
    const r = found.check;
    if (r.kind === 'error') return { reason: `recursion summaries: an error is reachable in ${found.failed} called with arbitrary arguments under its summary` };
    return { reason: `recursion summaries: the check of ${found.failed} is ${r.kind}: ${r.why}` };
  }
  const text = [...found.conditions].map(([f, cs]) => `${f}: ${cs.length ? cs.map((x) => describe(x, recursive.find((g) => g.name === f)!)).join(' && ') : 'true'}`).join('; ');
  log(`summaries: ${text}`);
  const main = await check({ conditions: found.conditions });
  if (main.kind === 'holds') return { proof: { summaries: found.conditions, reason: `no violation: proved with recursion summaries (${text})` }, reason: 'proved' };
  return { reason: `recursion summaries (${text}) do not prove main: ${main.kind === 'error' ? 'an error is reachable' : main.kind}` };
}

function describe(c: SummaryCondition, f: FunctionDecl): string {
  const terms = c.bound.params.map(({ index, sign }, i) => `${sign < 0 ? '- ' : i > 0 ? '+ ' : ''}${f.params[index]!.name}`);
  const constant = c.bound.constant === 0n && terms.length > 0 ? [] : [terms.length === 0 ? String(c.bound.constant) : c.bound.constant < 0n ? `- ${-c.bound.constant}` : `+ ${c.bound.constant}`];
  return `\\result ${c.op} ${[...terms, ...constant].join(' ')}`;
}

/** The functions main reaches that can call themselves (directly or through others). */
export function recursiveFunctions(c: CProgram): FunctionDecl[] {
  const main = c.functions.find((f) => f.name === 'main' && f.body);
  if (!main) return [];
  const reachable = new Set<FunctionDecl>();
  const todo = [main];
  while (todo.length) {
    const f = todo.pop()!;
    if (reachable.has(f)) continue;
    reachable.add(f);
    todo.push(...callees(f));
  }
  return [...reachable].filter((f) => reaches(f, f));
}

/** Whether a call of `from` can lead to a call of `to` (through any chain of calls). */
export function reaches(from: FunctionDecl, to: FunctionDecl): boolean {
  const seen = new Set<FunctionDecl>();
  const stack = callees(from);
  while (stack.length) {
    const g = stack.pop()!;
    if (g === to) return true;
    if (seen.has(g)) continue;
    seen.add(g);
    stack.push(...callees(g));
  }
  return false;
}

/** The defined functions a function calls directly. */
export function callees(f: FunctionDecl): FunctionDecl[] {
  const out = new Set<FunctionDecl>();
  if (f.body) forEachExpr(f.body, (e) => e.kind === 'Call' && e.function?.body && out.add(e.function));
  return [...out];
}

/** Why a recursive function's calls may depend on more than their arguments (undefined: they do not). */
export function impurity(f: FunctionDecl, c: CProgram, seen = new Set<FunctionDecl>()): string | undefined {
  if (seen.has(f)) return undefined;
  seen.add(f);
  if (f.name === 'main') return 'main is recursive';
  const ret = unqualified(f.type.returnType);
  if (ret.kind !== 'void' && intKindOf(ret) === undefined) return `${f.name} returns a non-integer`;
  for (const p of f.params) if (intKindOf(p.type) === undefined) return `${f.name} has a non-integer parameter '${p.name}'`;
  let why: string | undefined;
  const note = (w: string) => (why ??= `${f.name}: ${w}`);
  forEachExpr(f.body!, (e) => {
    switch (e.kind) {
      case 'Identifier':
        if (e.decl.kind === 'Var' && (e.decl.scope === 'file' || e.decl.storage === 'static')) note(`uses the variable '${e.name}' outside its calls`);
        if (e.decl.kind === 'Var' && intKindOf(e.decl.type) === undefined) note(`uses '${e.name}', which is not an integer`);
        return;
      case 'Call': {
        const g = e.function;
        if (!g) return note('calls through a pointer');
        if (g.body) {
          const inner = impurity(g, c, seen);
          if (inner) note(inner);
        } else if (!g.builtin && g.name !== 'abort' && g.name !== 'exit') note(`calls '${g.name}', whose effects are unknown`);
        return;
      }
      case 'Unary':
        if (e.op === '&' || e.op === '*') note('uses pointers');
        return;
      case 'Index':
      case 'Member':
      case 'StringLiteral':
        note('uses memory');
        return;
      default:
        return;
    }
  });
  return why;
}

/** Every expression of a function body (statement expressions included), with its sub-expressions. */
function forEachExpr(body: CStmt | BlockItem, visit: (e: CExpr) => void): void {
  const walk = (e: CExpr): void => {
    visit(e);
    childExprs(e).forEach(walk);
  };
  forEachStatement(body, (s) => {
    switch (s.kind) {
      case 'ExprStmt':
        return walk(s.expr);
      case 'If':
      case 'While':
      case 'DoWhile':
      case 'Switch':
        return walk(s.condition);
      case 'For':
        if (s.init && s.init.kind !== 'Declaration') walk(s.init);
        if (s.init && s.init.kind === 'Declaration') for (const d of s.init.declarators) if (d.init && d.init.kind !== 'InitList') walk(d.init);
        if (s.condition) walk(s.condition);
        if (s.step) walk(s.step);
        return;
      case 'Return':
        if (s.value) walk(s.value);
        return;
      case 'DeclStmt':
        for (const d of s.declaration.declarators) if (d.init && d.init.kind !== 'InitList') walk(d.init);
        return;
      default:
        return;
    }
  });
}

/**
 * Candidate conditions: the result against the constants of the function
 * (and their neighbours), against each parameter of its type (and that
 * parameter plus or minus one), and equal to the sum or difference of two.
 */
function candidates(f: FunctionDecl, c: CProgram): SummaryCondition[] {
  const ret = unqualified(f.type.returnType);
  const k = intKindOf(ret);
  if (k === undefined) return [];
  const { min, max } = integerRange(k, c.dataModel);
  const constants = new Set<bigint>([0n, 1n]);
  forEachExpr(f.body!, (e) => {
    if (e.kind === 'IntegerLiteral') for (const x of [e.value, e.value - 1n, e.value + 1n]) constants.add(x);
  });
  const out: SummaryCondition[] = [];
  const add = (op: SummaryCondition['op'], constant: bigint, ...params: Array<[number, 1 | -1]>) => out.push({ op, bound: { constant, params: params.map(([index, sign]) => ({ index, sign })) } });
  const same = f.params.flatMap((p, i) => (intKindOf(p.type) === k ? [i] : []));
  for (const i of same) {
    for (const op of ['==', '<=', '>='] as const) add(op, 0n, [i, 1]);
    add('==', 1n, [i, 1]);
    add('==', -1n, [i, 1]);
  }
  for (const i of same) {
    for (const j of same) {
      if (j <= i) continue;
      add('==', 0n, [i, 1], [j, 1]);
      add('==', 0n, [i, 1], [j, -1]);
      add('==', 0n, [j, 1], [i, -1]);
    }
  }
  for (const value of [...constants].filter((x) => x >= min && x <= max).sort((a, b) => (a < b ? -1 : 1))) {
    add('<=', value);
    add('>=', value);
  }
  return out;
}
