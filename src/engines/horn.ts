// The unbounded engine: the program as constrained Horn clauses (chc.ts),
// solved by z3's Horn engine (Spacer, IC3/PDR generalised to theories), its
// solution read back as loop invariants (chc-model.ts) and then proved on
// the IMP program itself by vc/ (each loop cut with its invariants: they
// hold on entry, one iteration keeps them, and with them no goal fails).
//
// The clauses are solved first with bit-vectors as integers (exact modulo
// 2^w, chc-semantics.ts), where Spacer's arithmetic reasoning finds linear
// and disjunctive invariants, then, if that fails, as bit-vectors. Nothing
// the Horn solver says is trusted: a TRUE rests on the re-check alone, in
// vc/'s bit-vector semantics, the one every other engine uses.

import type { Expr, ImpProgram, ImpType, Procedure, Stmt, WhileStmt } from '../ivl/ast.js';
import { findProcedure } from '../ivl/ast.js';
import { printExpr } from '../ivl/printer.js';
import { loopsOf, rewriteStmts, visitStmts } from '../ivl/walk.js';
import { createSolver, mkOr, parseSExprs, runZ3Script, SolverError, type Solver } from '../smt/index.js';
import { encodeProcedure } from '../vc/encode.js';
import type { LoopInvariants } from './bmc.js';
import { chcToSmtLib, encodeChc, type ChcSystem } from './chc.js';
import { modelDefinitions, readInvariant, type ArgumentReading } from './chc-model.js';
import { bvSemantics, ChcUnsupported, intSemantics, type ChcSemantics, type View } from './chc-semantics.js';
import { roleOf, type GoalRoles } from './unroll.js';

export type HornSemantics = 'int-check' | 'int-exact' | 'bv';

export interface HornOptions {
  /** Milliseconds of the budget left (the engine stops when it reaches 0). */
  readonly left: () => number;
  /** Wall-clock milliseconds a solver call may take for `budget` ms of the budget (default: the same). */
  readonly wallMs?: (budgetMs: number) => number;
  readonly entry?: string;
  readonly roles?: GoalRoles;
  /** The view of bit-vector variables whose C type is known (signed or unsigned). */
  readonly views?: ReadonlyMap<string, View>;
  /** Semantics tried, in order (default: int-check, int-exact, bv). */
  readonly semantics?: readonly HornSemantics[];
  /** The re-check's solver: `auto` (default), `z3`, `z3-wasm`, `cvc5` or a path. */
  readonly solver?: string;
  /** The Horn solver: `z3-wasm` (default), `z3` or a path to a z3 binary (see hornBackend). */
  readonly hornSolver?: string;
  readonly log?: (message: string) => void;
}

export type HornResult =
  | { readonly verdict: 'true'; readonly invariants: readonly LoopInvariants[]; readonly semantics: HornSemantics; readonly reason: string }
  | { readonly verdict: 'unknown'; readonly reason: string };

/**
 * The Horn solver and its options. Spacer's global guidance (lemmas
 * generalised across the levels of its search: convex closure,
 * subsumption) decides loops that count to an input, where plain Spacer
 * learns one bound per iteration forever; z3 has it from 4.8.13 on. The
 * WebAssembly z3 has it; Debian 12's z3 (4.8.12) does not, so the
 * WebAssembly one is the default.
 */
export function hornBackend(name = 'z3-wasm'): { name: string; options: string[] } {
  const globalGuidance = ['(set-option :fp.spacer.global true)'];
  return { name, options: name === 'z3-wasm' || name === 'wasm' ? globalGuidance : [] };
}

/** Variables whose view is not known take that of a variable copied into or from them, else signed. */
export function inferViews(proc: Procedure, program: ImpProgram, known: ReadonlyMap<string, View>): Map<string, View> {
  const views = new Map(known);
  const copies: [string, string][] = [];
  visitStmts(proc.body ?? [], (s) => {
    if (s.kind === 'assign' && s.value.kind === 'var') copies.push([s.target, s.value.name]);
  });
  for (let changed = true; changed; ) {
    changed = false;
    for (const [a, b] of copies) {
      const va = views.get(a);
      const vb = views.get(b);
      if (va && !vb) views.set(b, va);
      else if (vb && !va) views.set(a, vb);
      else continue;
      changed = true;
    }
  }
  for (const d of [...program.globals, ...proc.params, ...proc.returns, ...proc.locals]) {
    if (d.type.kind === 'map') views.set(d.name, 's');
    else if (d.type.kind === 'bv' && !views.has(d.name)) views.set(d.name, 's');
  }
  return views;
}

function typesOf(program: ImpProgram, proc: Procedure): Map<string, ImpType> {
  return new Map([...program.globals, ...proc.params, ...proc.returns, ...proc.locals].map((d) => [d.name, d.type]));
}

/** Whether an `assert` is a claim under `roles` (an error or bound goal) rather than the end of the executions that fail it. */
function isClaim(s: Stmt, roles: GoalRoles | undefined): boolean {
  return s.kind === 'assert' && roleOf(s, roles) !== 'assume';
}

/** Tries to prove every goal of the entry procedure with invariants from the Horn solver. */
export async function proveByHorn(program: ImpProgram, options: HornOptions): Promise<HornResult> {
  const log = options.log ?? (() => {});
  const entry = options.entry ?? 'main';
  const proc = findProcedure(program, entry);
  if (!proc?.body) return { verdict: 'unknown', reason: `no procedure '${entry}'` };
  if (loopsOf(proc.body).length === 0) return { verdict: 'unknown', reason: 'no loop' };
  const types = typesOf(program, proc);
  const views = inferViews(proc, program, options.views ?? new Map());
  const wall = options.wallMs ?? ((ms: number) => ms);
  const reasons: string[] = [];
  for (const sem of options.semantics ?? ['int-check', 'int-exact', 'bv']) {
    if (options.left() < 200) break;
    let semantics: ChcSemantics;
    let system: ChcSystem;
    const t0 = Date.now();
    try {
      semantics = sem === 'bv' ? bvSemantics(types) : intSemantics(types, views, sem === 'int-check' ? 'check' : 'exact');
      system = encodeChc(program, semantics, { entry, roles: options.roles });
    } catch (e) {
      if (!(e instanceof ChcUnsupported)) throw e;
      reasons.push(`${sem}: ${e.message}`);
      log(`horn: ${sem}: not encodable: ${e.message}`);
      continue;
    }
    const backend = hornBackend(options.hornSolver);
    const script = chcToSmtLib(system, backend.options);
    // Half of what is left for each semantics but the last (the re-check needs little).
    const share = sem === (options.semantics ?? ['bv']).at(-1) ? options.left() : options.left() / 2;
    const run = runZ3Script(backend.name, script, Math.max(100, wall(share)));
    if (!run) return { verdict: 'unknown', reason: 'no Horn solver (z3) available' };
    const reply = await run;
    if (!('output' in reply)) {
      reasons.push(`${sem}: ${'timedOut' in reply ? 'time limit' : reply.crashed}`);
      log(`horn: ${sem}: ${'timedOut' in reply ? 'time limit' : reply.crashed} after ${Date.now() - t0} ms (${system.clauses.length} clauses)`);
      continue;
    }
    const out = parseSExprs(reply.output);
    const status = out.find((x) => x === 'sat' || x === 'unsat' || x === 'unknown');
    log(`horn: ${sem}: ${status ?? 'no answer'} in ${Date.now() - t0} ms (${system.predicates.length} predicates, ${system.clauses.length} clauses)`);
    if (status !== 'sat') {
      reasons.push(`${sem}: ${status === 'unsat' ? 'a goal can fail in the clauses' : (status ?? reply.output.slice(0, 200))}`);
      // A failing goal in the exact semantics fails in the program (BMC finds it); in `check` mode it may be a wrap-around.
      if (status === 'unsat' && sem !== 'int-check') break;
      continue;
    }
    const defs = modelDefinitions(out);
    const invariants = new Map<WhileStmt, Expr[]>();
    for (const pred of system.predicates) {
      const def = defs.get(pred.name);
      const readings: ArgumentReading[] = pred.vars.map((name) => {
        const type = types.get(name)!;
        return { name, type, ...(semantics.name === 'int' && (type.kind === 'bv' || type.kind === 'map') ? { view: views.get(name) ?? 's' } : {}) };
      });
      invariants.set(pred.loop, def ? readInvariant(def, pred, readings) : []);
    }
    for (const [loop, exprs] of invariants) log(`horn: invariant at ${loop.loc.line}:${loop.loc.column}: ${exprs.map(printExpr).join(' && ') || 'true'}`);
    const checked = await recheck(program, proc, invariants, options);
    log(`horn: ${sem}: re-check: ${checked}`);
    if (checked === 'proved') {
      return {
        verdict: 'true',
        semantics: sem,
        reason: `proved by loop invariants from Horn clauses (${sem === 'bv' ? 'bit-vectors' : 'integers'}), checked on the program`,
        invariants: [...invariants].map(([loop, exprs]) => ({ loop, loc: loop.loc, exprs })),
      };
    }
    reasons.push(`${sem}: the invariants ${checked}`);
  }
  return { verdict: 'unknown', reason: `no proof from Horn clauses (${reasons.join('; ') || 'no time'})` };
}

/**
 * The invariants proved on the program (vc/, bit-vectors): every loop cut
 * with its invariants, every claim (and every invariant's entry and
 * preservation) a goal that must be unreachable.
 */
async function recheck(program: ImpProgram, proc: Procedure, invariants: ReadonlyMap<WhileStmt, readonly Expr[]>, options: HornOptions): Promise<'proved' | string> {
  // Asserts that only end executions become assumes; each loop gets its invariants.
  const body = rewriteStmts(proc.body!, (s) => {
    if (s.kind === 'assert' && !isClaim(s, options.roles)) return { kind: 'assume', cond: s.cond, loc: s.loc };
    return undefined;
  });
  const withInvariants = attachInvariants(body, proc.body!, invariants);
  const checked: Procedure = { ...proc, body: withInvariants };
  const enc = encodeProcedure({ ...program, procedures: program.procedures.map((p) => (p === proc ? checked : p)) }, checked, { prefix: 'horn.', loops: 'cut' });
  if (enc.goals.length === 0) return 'proved';
  let solver: Solver | undefined;
  try {
    solver = createSolver(options.solver ?? 'auto');
    for (const a of enc.assertions) await solver.assert(a);
    const ms = Math.max(100, (options.wallMs ?? ((x: number) => x))(options.left()));
    const r = await solver.checkSat([mkOr(...enc.goals.map((g) => g.violation))], { timeoutMs: Math.floor(ms) });
    if (r.status === 'unsat') return 'proved';
    if (r.status === 'unknown') return `could not be checked (${r.reason ?? 'unknown'})`;
    const values = await solver.getValues(enc.goals.map((g) => g.violation));
    const failed = enc.goals.filter((_, i) => values[i]?.kind === 'bool' && (values[i] as { value: boolean }).value);
    return `do not prove the program (${failed.map((g) => `${g.kind} at ${g.loc.line}:${g.loc.column}`).join(', ')})`;
  } catch (e) {
    if (e instanceof SolverError) return `could not be checked (${e.message})`;
    throw e;
  } finally {
    await solver?.dispose();
  }
}

/**
 * `body` (a rewriting of `original` with the same loops in the same order)
 * with each loop's invariants set; the loops are matched by position.
 */
function attachInvariants(body: readonly Stmt[], original: readonly Stmt[], invariants: ReadonlyMap<WhileStmt, readonly Expr[]>): Stmt[] {
  const loops = loopsOf(original);
  let k = 0;
  const put = (ss: readonly Stmt[]): Stmt[] =>
    rewriteStmts(ss, (s) => {
      if (s.kind !== 'while') return undefined;
      const inv = invariants.get(loops[k++]!) ?? [];
      return { ...s, invariants: inv, body: put(s.body) };
    });
  return put(body);
}
