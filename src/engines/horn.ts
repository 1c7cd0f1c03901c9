// The unbounded engine: the program as constrained Horn clauses (chc.ts),
// solved by z3's Horn engine (Spacer, IC3/PDR generalised to theories), its
// solution read back as loop invariants (chc-model.ts) and then proved on
// the IMP program itself by vc/ (each loop cut with its invariants: they
// hold on entry, one iteration keeps them, and with them no goal fails).
//
// The clauses are solved first over unbounded integers (no wrap-around, no
// ranges: not the program, but where Spacer answers in milliseconds), then
// with bit-vectors as integers (wrap-arounds as failures, or exact modulo
// 2^w, chc-semantics.ts), then as bit-vectors. Nothing
// the Horn solver says is trusted: a TRUE rests on the re-check alone, in
// vc/'s bit-vector semantics, the one every other engine uses.

import type { Expr, ImpProgram, ImpType, Procedure, Stmt, WhileStmt } from '../ivl/ast.js';
import { findProcedure, syntheticLoc } from '../ivl/ast.js';
import { printExpr } from '../ivl/printer.js';
import { loopsOf, rewriteStmts, visitStmts } from '../ivl/walk.js';
import { createSolver, findExecutable, mkOr, parseSExprs, runZ3Script, SolverError, type Solver } from '../smt/index.js';
import { encodeProcedure, type EncodedGoal } from '../vc/encode.js';
import type { LoopInvariants } from './bmc.js';
import type { LoopCandidateSource } from './candidates.js';
import { chcToSmtLib, encodeChc, type ChcHint, type ChcSystem } from './chc.js';
import { modelDefinitions, readInvariant, type ArgumentReading } from './chc-model.js';
import { bvSemantics, ChcUnsupported, intSemantics, type ChcSemantics, type View } from './chc-semantics.js';
import { roleOf, type GoalRoles } from './unroll.js';

export type HornSemantics = 'int-ideal' | 'int-check' | 'int-exact' | 'bv';

export interface HornOptions {
  /** Milliseconds of the budget left (the engine stops when it reaches 0). */
  readonly left: () => number;
  /** The same for checking a solution on the program (default: `left`); a solution found early may take longer to check. */
  readonly recheckLeft?: () => number;
  /** Wall-clock milliseconds a solver call may take for `budget` ms of the budget (default: the same). */
  readonly wallMs?: (budgetMs: number) => number;
  readonly entry?: string;
  readonly roles?: GoalRoles;
  /** The view of bit-vector variables whose C type is known (signed or unsigned). */
  readonly views?: ReadonlyMap<string, View>;
  /** Semantics tried, in order (default: int-ideal, int-check, int-exact, bv). */
  readonly semantics?: readonly HornSemantics[];
  /** The re-check's solver: `auto` (default), `z3`, `z3-wasm`, `cvc5` or a path. */
  readonly solver?: string;
  /** The Horn solver: `auto` (default), `z3-wasm`, `z3` or a path to a z3 binary (see hornBackend). */
  readonly hornSolver?: string;
  /** More candidate invariants for the re-check (the abstract interpretation's facts): kept where inductive. */
  readonly candidates?: LoopCandidateSource;
  readonly log?: (message: string) => void;
}

export type HornResult =
  | { readonly verdict: 'true'; readonly invariants: readonly LoopInvariants[]; readonly semantics: HornSemantics; readonly reason: string }
  | { readonly verdict: 'unknown'; readonly reason: string };

/**
 * The Horn solver and its options: a z3 process when there is one (it
 * answers in tens of milliseconds where the WebAssembly z3 takes a second
 * or more to start), else the WebAssembly z3 with Spacer's global guidance
 * (lemmas generalised across the levels of its search), which the process's
 * z3 has only from 4.8.13 on (Debian 12 ships 4.8.12). Both without the
 * eager inlining of predicates (the model of a predicate defined through an
 * inlined one comes back with `exists`, which no invariant can be read
 * from) and with the generalisation of lemmas by implied equalities (which
 * finds `k = i` in two counters; without it z3 4.8.12 diverges there).
 */
export function hornBackend(name = 'auto'): { name: string; options: string[] } {
  if (name === 'auto') name = findExecutable('z3') ? 'z3' : 'z3-wasm';
  const wasm = name === 'z3-wasm' || name === 'wasm';
  const common = ['(set-option :fp.xform.inline_eager false)', '(set-option :fp.spacer.use_euf_gen true)'];
  return { name, options: wasm ? ['(set-option :fp.spacer.global true)', ...common] : common };
}

/** The semantics tried in turn (chc-semantics.ts). */
const SEMANTICS_ORDER: readonly HornSemantics[] = ['int-ideal', 'int-check', 'int-exact', 'bv'];

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
  let extra: Map<WhileStmt, readonly Expr[]> | undefined;
  // A solution over unbounded integers holds in every execution of `check` (the same until a wrap-around, which fails there).
  let ideal: { hints: Map<string, ChcHint>; invariants: Map<WhileStmt, Expr[]> } | undefined;
  const backend = hornBackend(options.hornSolver);
  const order = options.semantics ?? SEMANTICS_ORDER;
  for (const sem of order) {
    if (options.left() < 200) break;
    let semantics: ChcSemantics;
    let system: ChcSystem;
    const t0 = Date.now();
    try {
      semantics = sem === 'bv' ? bvSemantics(types) : intSemantics(types, views, sem === 'int-check' ? 'check' : sem === 'int-ideal' ? 'ideal' : 'exact');
      system = encodeChc(program, semantics, { entry, roles: options.roles });
    } catch (e) {
      if (!(e instanceof ChcUnsupported)) throw e;
      reasons.push(`${sem}: ${e.message}`);
      log(`horn: ${sem}: not encodable: ${e.message}`);
      continue;
    }
    const hinted = sem === 'int-check' ? ideal : undefined;
    const script = chcToSmtLib(system, backend.options, hinted?.hints);
    // Half of what is left for each semantics but the last (the re-check needs little).
    const share = sem === order.at(-1) ? options.left() : options.left() / 2;
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
      if (status === 'unsat' && sem !== 'int-check' && sem !== 'int-ideal') break;
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
      invariants.set(pred.loop, [...(def ? readInvariant(def, pred, readings) : []), ...(hinted?.invariants.get(pred.loop) ?? [])]);
    }
    if (sem === 'int-ideal') ideal = { hints: defs, invariants };
    for (const [loop, exprs] of invariants) log(`horn: invariant at ${loop.loc.line}:${loop.loc.column}: ${exprs.map(printExpr).join(' && ') || 'true'}`);
    extra ??= new Map(loopsOf(proc.body).map((loop) => [loop, options.candidates?.(loop, program) ?? []]));
    const checked = await recheck(program, proc, invariants, extra, options);
    log(`horn: ${sem}: re-check: ${'proved' in checked ? 'proved' : checked.failed}`);
    if ('proved' in checked) {
      return {
        verdict: 'true',
        semantics: sem,
        reason: `proved by loop invariants from Horn clauses (${sem === 'bv' ? 'bit-vectors' : 'integers'}), checked on the program`,
        invariants: [...checked.proved].map(([loop, exprs]) => ({ loop, loc: loop.loc, exprs })),
      };
    }
    reasons.push(`${sem}: the invariants ${checked.failed}`);
  }
  return { verdict: 'unknown', reason: `no proof from Horn clauses (${reasons.join('; ') || 'no time'})` };
}

/** A candidate invariant of the re-check: its expression, tagged by a location of its own (the goals that check it carry it). */
interface Candidate {
  readonly expr: Expr;
  readonly tagged: Expr;
  readonly fromHorn: boolean;
}

const CANDIDATE_FILE = '<horn-candidate>';

/**
 * The invariants proved on the program (vc/, bit-vectors): every loop cut
 * with its invariants, every claim (and every invariant's entry and
 * preservation) a goal that must be unreachable. The Horn solver's
 * conjuncts come with the caller's candidates (facts of the abstract
 * interpretation: bounds that integers do not need and bit-vectors do);
 * Houdini drops each one some model shows not inductive, until the rest
 * are. Each goal is its own query: bit-blasted linear arithmetic is decided
 * goal by goal in a fraction of the time of their disjunction.
 */
async function recheck(
  program: ImpProgram,
  proc: Procedure,
  invariants: ReadonlyMap<WhileStmt, readonly Expr[]>,
  extra: ReadonlyMap<WhileStmt, readonly Expr[]>,
  options: HornOptions,
): Promise<{ proved: ReadonlyMap<WhileStmt, readonly Expr[]> } | { failed: string }> {
  // Asserts that only end executions become assumes; each loop gets its invariants.
  const body = rewriteStmts(proc.body!, (s) => {
    if (s.kind === 'assert' && !isClaim(s, options.roles)) return { kind: 'assume', cond: s.cond, loc: s.loc };
    return undefined;
  });
  let line = 0;
  const live = new Map<WhileStmt, Candidate[]>();
  for (const loop of loopsOf(proc.body!)) {
    const seen = new Set<string>();
    const out: Candidate[] = [];
    const add = (expr: Expr, fromHorn: boolean) => {
      const key = printExpr(expr);
      if (seen.has(key)) return;
      seen.add(key);
      out.push({ expr, fromHorn, tagged: { ...expr, loc: { ...syntheticLoc(CANDIDATE_FILE), line: ++line } } });
    };
    for (const e of invariants.get(loop) ?? []) add(e, true);
    for (const e of extra.get(loop) ?? []) add(e, false);
    live.set(loop, out);
  }
  const wall = options.wallMs ?? ((x: number) => x);
  const left = options.recheckLeft ?? options.left;
  let solver: Solver | undefined;
  try {
    solver = createSolver(options.solver ?? 'auto');
    for (let round = 1; ; round++) {
      if (left() <= 0) return { failed: 'could not be checked (time limit)' };
      const current = new Map([...live].map(([loop, cs]) => [loop, cs.map((c) => c.tagged)]));
      const checked: Procedure = { ...proc, body: attachInvariants(body, proc.body!, current) };
      const enc = encodeProcedure({ ...program, procedures: program.procedures.map((p) => (p === proc ? checked : p)) }, checked, { prefix: `horn${round}.`, loops: 'cut' });
      const inductive = enc.goals.filter((g) => g.kind === 'invariant-entry' || g.kind === 'invariant-preserved');
      const claims = enc.goals.filter((g) => g.kind !== 'invariant-entry' && g.kind !== 'invariant-preserved');
      await solver.push();
      try {
        for (const a of enc.assertions) await solver.assert(a);
        // Invariants first: a candidate that is not inductive goes, with every other one the same model refutes.
        // All goals in one query first (a model, or an easy proof, comes fast); goal by goal when that query is
        // not decided within its share (a disjunction of bit-blasted linear goals can take far longer than each
        // goal), and then a candidate whose goal takes more than a third of what is left goes too.
        const dropped = new Set<number>();
        const t0 = Date.now();
        let slowest = { ms: 0, what: '' };
        const check = async (goals: readonly EncodedGoal[], capMs: number) => {
          const t1 = Date.now();
          const r = await solver!.checkSat([mkOr(...goals.map((g) => g.violation))], { timeoutMs: Math.floor(Math.max(100, wall(capMs))) });
          if (Date.now() - t1 > slowest.ms) slowest = { ms: Date.now() - t1, what: goals.length === 1 ? `${goals[0]!.kind} ${goals[0]!.text}` : `${goals.length} goals at once` };
          if (r.status !== 'sat') return r.status;
          const values = await solver!.getValues(goals.map((g) => g.violation));
          return goals.filter((_, i) => values[i]?.kind === 'bool' && (values[i] as { value: boolean }).value);
        };
        const all = inductive.length === 0 ? 'unsat' : await check(inductive, Math.max(200, left() / 4));
        if (Array.isArray(all)) for (const g of all) dropped.add(g.loc.line);
        else if (all === 'unknown') {
          for (const g of inductive) {
            if (dropped.has(g.loc.line)) continue;
            const r = await check([g], Math.max(200, left() / 3));
            if (r === 'unsat') continue;
            if (left() <= 0) return { failed: 'could not be checked (time limit)' };
            dropped.add(g.loc.line);
            if (Array.isArray(r)) for (const x of r) dropped.add(x.loc.line);
          }
        }
        if (dropped.size === 0 && claims.length > 0) {
          let r = await check(claims, Math.max(200, left() / 2));
          if (r === 'unknown') {
            r = 'unsat';
            for (const g of claims) {
              const one = await check([g], left());
              if (one !== 'unsat') {
                r = one;
                break;
              }
            }
          }
          if (r === 'unknown') return { failed: 'could not be checked (time limit or solver gave up)' };
          if (Array.isArray(r)) return { failed: `do not prove the program (${r.map((g) => `${g.kind} at ${g.loc.line}:${g.loc.column}`).join(', ')})` };
        }
        options.log?.(`horn: re-check round ${round}: ${dropped.size > 0 ? inductive.length : inductive.length + claims.length} goals, ${Date.now() - t0} ms (slowest ${slowest.ms} ms: ${slowest.what.slice(0, 120)})`);
        if (dropped.size === 0) return { proved: new Map([...live].map(([loop, cs]) => [loop, cs.map((c) => c.expr)])) };
        const gone = [...live.values()].flat().filter((c) => dropped.has(c.tagged.loc.line));
        for (const [loop, cs] of live) live.set(loop, cs.filter((c) => !dropped.has(c.tagged.loc.line)));
        options.log?.(`horn: re-check round ${round}: ${dropped.size} candidates not inductive or not decided (${gone.map((c) => printExpr(c.expr)).join(', ').slice(0, 300)}), ${[...live.values()].flat().length} left`);
      } finally {
        await solver.pop();
      }
    }
  } catch (e) {
    if (e instanceof SolverError) return { failed: `could not be checked (${e.message})` };
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
