// Invariant selection on C programs: candidates from a YAML witness are bound
// to the C loops their locations name, translated (c-expr.ts) into IMP
// conditions at every lowered instance of the loop (a function inlined at
// several calls has several), selected on the lowered IMP program, and a
// candidate is selected only when it is selected at every instance.
import { TarsierError } from '../common/errors.js';
import type { SourceLocation } from '../common/location.js';
import {
  type CProgram,
  type Expr as CExpr,
  type FunctionDecl,
  type Stmt as CStmt,
  type VarDecl as CVarDecl,
  childExprs,
  forEachStatement,
  parseExpressionAt,
} from '../c/index.js';
import { guarded, type Expr, type Stmt } from '../ivl/ast.js';
import { stmtBodies, stmtTargets, visitStmts } from '../ivl/walk.js';
import { type LoweredProgram, goalOf, locKey } from '../lower/index.js';
import type { Entry, Location, WitnessDocument, WitnessPos } from '../witness/model.js';
import { toOneBasedColumn } from '../witness/model.js';
import type { Verdict, GoalResult } from '../vc/verify.js';
import { CandidateTranslator, UnsupportedCandidate } from './c-expr.js';
import type { Counterexample } from './houdini.js';
import { type Candidate, type CandidateOrigin, LoopTable } from './program.js';
import { type SelectOptions, type SelectResult, selectInvariants } from './select.js';

type CLoop = Extract<CStmt, { kind: 'While' | 'DoWhile' | 'For' }>;

/** A candidate read from the witness, bound to a C loop. */
export interface CCandidate {
  readonly index: number;
  /** The candidate's position in the YAML file. */
  readonly loc: SourceLocation;
  readonly text: string;
  readonly origin?: CandidateOrigin;
  /** The loop keyword it is attached to. */
  readonly loopLoc: SourceLocation;
  readonly function: string;
  /** The expression's format as the witness says (`C`, `c_expression`, `acsl_expression`, ...). */
  readonly format?: string;
}

export interface CCandidateVerdict {
  readonly candidate: number;
  readonly status: 'selected' | 'rejected';
  /** `not established on entry`, `not preserved`, `not forced`, `undecided`, `unsupported: ...` or `invalid: ...`. */
  readonly reason?: string;
  readonly detail?: string;
  /** Over the C integer variables in scope at the loop, as C values. */
  readonly counterexample?: Counterexample;
  /** The same over the IMP variables of the lowered program. */
  readonly impCounterexample?: Counterexample;
  /** Lowered instances of the loop the candidate was checked at. */
  readonly instances: number;
}

export interface CSelectResult {
  readonly candidates: readonly CCandidate[];
  readonly verdicts: readonly CCandidateVerdict[];
  /** With the selected candidates as invariants; UNKNOWN whenever the C program's verdict cannot be trusted. */
  readonly verdict: Verdict;
  /** Why the verdict is UNKNOWN (when it is). */
  readonly reason?: string;
  readonly proved: boolean;
  /** Goals of the lowered program not proved with the selected candidates. */
  readonly unproved: readonly GoalResult[];
  readonly solverCalls: number;
  readonly note?: string;
  /** The selection on the lowered program (undefined when nothing could be checked there). */
  readonly imp?: SelectResult;
}

export interface CSelectOptions extends SelectOptions {
  /** When the verification's property is not modelled by the lowering: the verdict is UNKNOWN with this reason. */
  readonly propertyUnsupported?: string;
}

function at(file: string, pos: WitnessPos | undefined): SourceLocation {
  return { file, line: pos?.line ?? 1, column: pos?.column ?? 1, offset: -1 };
}

/** Every loop statement of the program with its function, in source order. */
function cLoops(program: CProgram): Array<{ loop: CLoop; fn: FunctionDecl }> {
  const out: Array<{ loop: CLoop; fn: FunctionDecl }> = [];
  for (const d of program.declarations) {
    if (d.kind !== 'FunctionDefinition') continue;
    forEachStatement(d.body, (s) => {
      if (s.kind === 'While' || s.kind === 'DoWhile' || s.kind === 'For') out.push({ loop: s, fn: d.decl });
    });
  }
  return out;
}

/** The loop a witness location names: on its line, the first loop keyword at or after its (1-based) column. */
function loopAt(loops: ReturnType<typeof cLoops>, file: string, loc: Location): (typeof loops)[number] | undefined {
  const col = toOneBasedColumn(loc) ?? 1;
  return loops
    .filter((l) => l.loop.keywordLoc.line === loc.line && l.loop.keywordLoc.column >= col && l.loop.keywordLoc.file === file)
    .sort((a, b) => a.loop.keywordLoc.column - b.loop.keywordLoc.column)[0];
}

/** Candidates of a witness document bound to the loops of a C program; a location without a loop is an error. */
export function cCandidatesFromWitness(
  doc: WitnessDocument,
  program: CProgram,
  /** Called for a location without a loop instead of throwing (the candidate is then left out). */
  onUnbound?: (text: string, loc: Location, at: WitnessPos | undefined) => void,
): CCandidate[] {
  if (doc.format !== 'yaml') throw new TarsierError('candidates', 'candidates must be a YAML witness (0.1 loop_invariant entries or a 2.0 invariant_set)', { file: doc.file });
  const loops = cLoops(program);
  const out: CCandidate[] = [];
  const add = (text: string, exprAt: WitnessPos | undefined, entryAt: WitnessPos | undefined, loc: Location, origin: CandidateOrigin, format: string) => {
    const found = loopAt(loops, program.file, loc);
    if (!found && onUnbound) {
      onUnbound(text, loc, exprAt ?? entryAt);
      return;
    }
    if (!found) {
      const col = toOneBasedColumn(loc);
      throw new TarsierError('candidate-location', `no loop at line ${loc.line}${col === undefined ? '' : `, column ${col}`} of the program`, at(doc.file, loc.at ?? entryAt));
    }
    out.push({ index: out.length, loc: at(doc.file, exprAt ?? entryAt), text, origin, loopLoc: found.loop.keywordLoc, function: found.fn.name, format });
  };
  for (const e of doc.entries as Entry[]) {
    if ('unknown' in e) continue;
    if (e.entry_type === 'loop_invariant') {
      add(e.invariant.text, e.invariant.at, e.at, e.location, { entryType: 'loop_invariant', uuid: e.metadata.uuid, fileHash: e.location.file_hash }, e.invariant.format);
    } else if (e.entry_type === 'invariant_set') {
      for (const item of e.content) {
        if (item.kind !== 'loop_invariant') continue;
        add(item.value.text, item.value.at, item.at, item.location, { entryType: 'invariant_set', uuid: e.metadata.uuid }, item.value.format);
      }
    }
  }
  return out;
}

/** Functions that can call themselves (directly or through others). */
function recursiveFunctions(program: CProgram): Set<string> {
  const calls = new Map<string, Set<string>>();
  for (const d of program.declarations) {
    if (d.kind !== 'FunctionDefinition') continue;
    const callees = new Set<string>();
    const walk = (e: CExpr): void => {
      if (e.kind === 'Call' && e.function) callees.add(e.function.name);
      childExprs(e).forEach(walk);
    };
    forEachStatement(d.body, (s) => {
      for (const e of stmtExprs(s)) walk(e);
    });
    calls.set(d.decl.name, callees);
  }
  const out = new Set<string>();
  for (const f of calls.keys()) {
    const seen = new Set<string>();
    const stack = [...(calls.get(f) ?? [])];
    while (stack.length) {
      const g = stack.pop()!;
      if (g === f) {
        out.add(f);
        break;
      }
      if (seen.has(g)) continue;
      seen.add(g);
      stack.push(...(calls.get(g) ?? []));
    }
  }
  return out;
}

function stmtExprs(s: CStmt | { kind: string }): CExpr[] {
  const x = s as CStmt;
  switch (x.kind) {
    case 'ExprStmt': return [x.expr];
    case 'If': case 'While': case 'DoWhile': case 'Switch': return [x.condition];
    case 'For': {
      const out: CExpr[] = [];
      if (x.init && x.init.kind !== 'Declaration') out.push(x.init);
      if (x.init && x.init.kind === 'Declaration') for (const dc of x.init.declarators) if (dc.init && dc.init.kind !== 'InitList') out.push(dc.init);
      if (x.condition) out.push(x.condition);
      if (x.step) out.push(x.step);
      return out;
    }
    case 'Return': return x.value ? [x.value] : [];
    default: {
      const d = s as { kind: string; declaration?: { declarators: Array<{ init?: { kind: string } }> } };
      if (d.kind === 'DeclStmt' && d.declaration) return d.declaration.declarators.flatMap((dc) => (dc.init && dc.init.kind !== 'InitList' ? [dc.init as CExpr] : []));
      return [];
    }
  }
}

/** Pre-order positions of the IMP statements: first write of each variable, position of each while. */
function impPositions(stmts: readonly Stmt[]): { firstWrite: Map<string, number>; whilePos: Map<Stmt, number> } {
  const firstWrite = new Map<string, number>();
  const whilePos = new Map<Stmt, number>();
  let n = 0;
  visitStmts(stmts, (s) => {
    const i = n++;
    for (const t of stmtTargets(s)) if (!firstWrite.has(t)) firstWrite.set(t, i);
    if (s.kind === 'while') whilePos.set(s, i);
  });
  return { firstWrite, whilePos };
}

/**
 * Selects among C candidates on the lowered program. Each candidate becomes
 * one IMP candidate per lowered instance of its loop; the variables of an
 * instance are found as the copies (source map entries of the same
 * declaration) written last before the loop, which is that instance's copy
 * unless the function is recursive (then instances nest, and candidates of
 * loops with several instances are not supported).
 */
export async function selectCInvariants(
  program: CProgram,
  lowered: LoweredProgram,
  candidates: readonly CCandidate[],
  options: CSelectOptions,
): Promise<CSelectResult> {
  // Verdicts are by position in `candidates` (whatever their `index`).
  const position = new Map(candidates.map((c, i) => [c, i]));
  const verdicts: Array<CCandidateVerdict | undefined> = candidates.map(() => undefined);
  const reject = (c: CCandidate, reason: string, instances = 0) => {
    verdicts[position.get(c)!] = { candidate: position.get(c)!, status: 'rejected', reason, instances };
  };
  if (lowered.unsupported) {
    const u = lowered.unsupported;
    for (const c of candidates) reject(c, `unsupported: the program uses ${u.construct} (line ${u.loc.line})`);
    return finish(candidates, verdicts, undefined, lowered, `the program uses ${u.construct}, which the lowering does not model`);
  }
  if (lowered.sourceMap.goals.some((g) => g.kind === 'recursion')) {
    // Recursion is inlined to a bound and cut there; Houdini's checks would
    // not see the executions that go deeper, so nothing can be selected soundly.
    for (const c of candidates) reject(c, 'unsupported: the program recurses deeper than the lowering inlines');
    return finish(candidates, verdicts, undefined, lowered, 'the program is recursive (inlined to a bound)');
  }
  const table = new LoopTable(lowered.imp);
  const main = lowered.imp.procedures.find((p) => p.body);
  const { firstWrite, whilePos } = impPositions(main?.body ?? []);
  const recursive = recursiveFunctions(program);
  const loopsByKey = new Map(cLoops(program).map((l) => [locKey(l.loop.keywordLoc), l]));
  const entries = variableCopies(lowered);
  const impCandidates: Candidate[] = [];
  const instancesOf = new Map<CCandidate, number[]>();
  const viewsOf = new Map<CCandidate, CView[]>();
  const viewCache = new Map<number, CView>();
  for (const c of candidates) {
    const key = locKey(c.loopLoc);
    const cl = loopsByKey.get(key)!;
    const instances = table.loops.filter((l) => locKey(l.loop.loc) === key);
    if (instances.length === 0) {
      reject(c, 'unsupported: the loop is not in the lowered program (its function is never called)');
      continue;
    }
    if (instances.length > 1 && recursive.has(c.function)) {
      reject(c, `unsupported: a loop of the recursive function ${c.function}, inlined ${instances.length} times`, instances.length);
      continue;
    }
    if (c.format !== undefined && c.format !== 'C' && c.format !== 'c_expression') {
      reject(c, `unsupported: expression format ${c.format}`, instances.length);
      continue;
    }
    if (cl.loop.kind !== 'DoWhile' && cl.loop.condition && hasSideEffects(cl.loop.condition)) {
      // The lowered loop head comes after the condition's side effects; C's comes before them.
      reject(c, 'unsupported: the loop condition has side effects', instances.length);
      continue;
    }
    const parsed = parseCandidate(program, cl.loop, c.text);
    if ('error' in parsed) {
      reject(c, `invalid: ${parsed.error}`, instances.length);
      continue;
    }
    const ids: number[] = [];
    const views: CView[] = [];
    try {
      for (const inst of instances) {
        const resolve = instanceResolver(entries, firstWrite, whilePos.get(inst.loop) ?? Number.MAX_SAFE_INTEGER);
        const claim = new CandidateTranslator(program.dataModel, resolve, c.loc).condition(parsed.expr);
        // The head of a `while (1)` is reached only where the lowered loop's condition (no jump out yet) holds.
        const expr = isUnconditional(cl.loop) ? guarded(inst.loop.cond, claim) : claim;
        if (!viewCache.has(inst.id)) viewCache.set(inst.id, scopeView(program, cl.loop, c.function, lowered, resolve));
        views.push(viewCache.get(inst.id)!);
        ids.push(impCandidates.length);
        impCandidates.push({ index: impCandidates.length, loopId: inst.id, expr, loc: c.loc, text: c.text, ...(c.origin ? { origin: c.origin } : {}) });
      }
    } catch (e) {
      if (!(e instanceof UnsupportedCandidate)) throw e;
      impCandidates.splice(impCandidates.length - ids.length, ids.length);
      reject(c, `unsupported: ${e.message}`, instances.length);
      continue;
    }
    instancesOf.set(c, ids);
    viewsOf.set(c, views);
  }
  // A loop whose condition the lowering evaluates into a flag (`k := c`
  // before the loop and at the end of its body: a body with break or
  // return) needs `k ==> c` at its head to use the condition; it is offered
  // as one more candidate (selected only when it is invariant; not reported).
  const guards = loopGuards(main?.body ?? []);
  const used = new Set(impCandidates.map((c) => c.loopId));
  for (const l of table.loops) {
    const g = guards.get(l.loop);
    if (!used.has(l.id) || !g) continue;
    impCandidates.push({ index: impCandidates.length, loopId: l.id, expr: g, loc: l.loop.loc, text: '(loop condition flag)' });
  }
  const imp = await selectInvariants(lowered.imp, impCandidates, options);
  for (const c of candidates) {
    const ids = instancesOf.get(c);
    if (!ids) continue;
    const at = position.get(c)!;
    const vs = ids.map((i) => imp.verdicts[i]);
    const bad = vs.findIndex((v) => v.status !== 'selected');
    if (bad < 0) verdicts[at] = { candidate: at, status: 'selected', instances: ids.length };
    else {
      const v = vs[bad];
      const where = ids.length > 1 ? `at instance ${bad + 1} of ${ids.length} of the loop` : undefined;
      const detail = [where, v.detail].filter((x) => x).join('; ');
      verdicts[at] = {
        candidate: at,
        status: 'rejected',
        reason: v.reason ?? 'rejected',
        ...(detail ? { detail } : {}),
        ...(v.counterexample ? { counterexample: inC(v.counterexample, viewsOf.get(c)![bad]), impCounterexample: v.counterexample } : {}),
        instances: ids.length,
      };
    }
  }
  return finish(candidates, verdicts, imp, lowered, options.propertyUnsupported);
}

type Copies = ReadonlyMap<string, LoweredProgram['sourceMap']['variables'][number][]>;

/** The IMP copies of each C variable (by name and declaration). */
function variableCopies(lowered: LoweredProgram): Copies {
  const entries = new Map<string, LoweredProgram['sourceMap']['variables'][number][]>();
  for (const v of lowered.sourceMap.variables) {
    const k = `${v.name}|${locKey(v.declLoc)}`;
    entries.set(k, [...(entries.get(k) ?? []), v]);
  }
  return entries;
}

/** The IMP variable holding a C variable at a loop instance (pre-order position w): the copy written last before it. */
function instanceResolver(entries: Copies, firstWrite: ReadonlyMap<string, number>, w: number): (d: CVarDecl) => string | undefined {
  return (d) => {
    const list = entries.get(`${d.name}|${locKey(d.loc)}`) ?? [];
    if (list.length === 1 && (d.scope === 'file' || d.storage === 'static')) return list[0].imp;
    let best: { imp: string; pos: number } | undefined;
    for (const e of list) {
      const p = firstWrite.get(e.imp);
      if (p !== undefined && p < w && (!best || p > best.pos)) best = { imp: e.imp, pos: p };
    }
    return best?.imp;
  };
}

/** A lowered instance of a C loop: where the loop is, and the C variables in scope there. */
export interface LoopInstanceView {
  readonly loopLoc: SourceLocation;
  readonly function: string;
  readonly view: CView;
  /**
   * `while (1)` or `for (;;)`: its head is reached only to run an iteration
   * (the loop is left by a jump), so what holds where the lowered loop's
   * condition does holds at the C head.
   */
  readonly unconditional: boolean;
}

/**
 * The C integer variables in scope at each lowered instance of the C loops
 * (IMP whiles of the entry procedure made for a C loop), with the IMP
 * variables holding them there. Loops of recursive functions with several
 * instances are left out (their instances nest; see selectCInvariants).
 */
export function loopInstanceViews(program: CProgram, lowered: LoweredProgram): Map<Stmt, LoopInstanceView> {
  const out = new Map<Stmt, LoopInstanceView>();
  if (lowered.unsupported) return out;
  const main = lowered.imp.procedures.find((p) => p.body);
  const { firstWrite, whilePos } = impPositions(main?.body ?? []);
  const loopsByKey = new Map(cLoops(program).map((l) => [locKey(l.loop.keywordLoc), l]));
  const recursive = recursiveFunctions(program);
  const entries = variableCopies(lowered);
  const count = new Map<string, number>();
  for (const w of whilePos.keys()) count.set(locKey(w.loc), (count.get(locKey(w.loc)) ?? 0) + 1);
  for (const [w, pos] of whilePos) {
    const cl = loopsByKey.get(locKey(w.loc));
    if (!cl || (recursive.has(cl.fn.name) && count.get(locKey(w.loc))! > 1)) continue;
    if (cl.loop.kind !== 'DoWhile' && cl.loop.condition && hasSideEffects(cl.loop.condition)) continue;
    const view = scopeView(program, cl.loop, cl.fn.name, lowered, instanceResolver(entries, firstWrite, pos));
    out.set(w, { loopLoc: cl.loop.keywordLoc, function: cl.fn.name, view, unconditional: isUnconditional(cl.loop) });
  }
  return out;
}

/** The C integer variables in scope at a loop and the IMP variables holding them at one instance. */
export type CView = Array<{ name: string; imp: string; signed: boolean }>;

function scopeView(program: CProgram, loop: CLoop, fn: string, lowered: LoweredProgram, resolve: (d: CVarDecl) => string | undefined): CView {
  const out: CView = [];
  const seen = new Set<string>();
  for (const v of lowered.sourceMap.variables) {
    if ((v.function !== undefined && v.function !== fn) || seen.has(v.name)) continue;
    const r = parseCandidate(program, loop, v.name);
    if ('error' in r) continue;
    const e = r.expr.kind === 'ImplicitCast' ? r.expr.operand : r.expr;
    if (e.kind !== 'Identifier' || e.decl.kind !== 'Var') continue;
    const imp = resolve(e.decl);
    if (imp === undefined) continue;
    seen.add(v.name);
    out.push({ name: v.name, imp, signed: v.signed });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** A counterexample over IMP variables as C values of the variables in scope (`12bv32` read as int: `12`). */
function inC(cex: Counterexample, view: CView): Counterexample {
  const state = (s: Record<string, string> | undefined): Record<string, string> | undefined => {
    if (!s) return undefined;
    const out: Record<string, string> = {};
    for (const v of view) {
      const raw = s[v.imp];
      if (raw === undefined) continue;
      const m = /^(\d+)bv(\d+)$/.exec(raw);
      out[v.name] = m ? String(v.signed ? BigInt.asIntN(Number(m[2]), BigInt(m[1])) : BigInt(m[1])) : raw;
    }
    return out;
  };
  const entry = state(cex.entry);
  const before = state(cex.before);
  const after = state(cex.after);
  return { ...(entry ? { entry } : {}), ...(before ? { before } : {}), ...(after ? { after } : {}) };
}

/** For each `while (k)` preceded by `k := c`: the condition `k ==> c`. */
function loopGuards(stmts: readonly Stmt[]): Map<Stmt, Expr> {
  const out = new Map<Stmt, Expr>();
  const walk = (ss: readonly Stmt[]): void => {
    ss.forEach((s, i) => {
      const prev = ss[i - 1];
      if (s.kind === 'while' && s.cond.kind === 'var' && prev?.kind === 'assign' && prev.target === s.cond.name) {
        out.set(s, { kind: 'binary', op: '==>', left: s.cond, right: prev.value, loc: s.loc });
      }
      stmtBodies(s).forEach(walk);
    });
  };
  walk(stmts);
  return out;
}

/** `while (1)` or `for (;;)`: left only by a jump, so its head is reached only to run an iteration. */
function isUnconditional(loop: CLoop): boolean {
  if (loop.kind === 'DoWhile') return false;
  return loop.condition === undefined || (loop.condition.kind === 'IntegerLiteral' && loop.condition.value !== 0n);
}

/** Whether evaluating an expression may change a program variable (nondet calls do not). */
function hasSideEffects(e: CExpr): boolean {
  if (e.kind === 'Assign' || e.kind === 'IncDec' || e.kind === 'StatementExpr') return true;
  if (e.kind === 'Call' && e.function?.builtin?.kind !== 'nondet') return true;
  return childExprs(e).some(hasSideEffects);
}

function parseCandidate(program: CProgram, loop: CLoop, text: string): { expr: CExpr } | { error: string } {
  const first = parseExpressionAt(program, loop.keywordLoc, text);
  if (!('error' in first) || first.undeclared === undefined || loop.kind !== 'For' || loop.init?.kind !== 'Declaration') return first;
  // A variable declared in a for's init clause is in scope at the loop head (after the init), not at the keyword.
  const inner = loop.condition?.loc ?? loop.body.loc;
  const second = parseExpressionAt(program, inner, text);
  return 'error' in second ? first : second;
}

function finish(
  candidates: readonly CCandidate[],
  verdicts: ReadonlyArray<CCandidateVerdict | undefined>,
  imp: SelectResult | undefined,
  lowered: LoweredProgram,
  unsupportedReason: string | undefined,
): CSelectResult {
  const vs = verdicts.map((v, i) => v ?? { candidate: i, status: 'rejected' as const, reason: 'undecided', instances: 0 });
  const goals = imp?.verification?.goals ?? [];
  const unproved = goals.filter((g) => g.status !== 'proved');
  let verdict: Verdict = imp?.verification?.verdict ?? 'UNKNOWN';
  let reason: string | undefined = unsupportedReason;
  if (reason) verdict = 'UNKNOWN';
  else if (!imp) {
    verdict = 'UNKNOWN';
    reason = 'nothing was verified';
  } else if (verdict === 'FALSE') {
    // A failure of the lowered program is not confirmed on the C program
    // here (no replay): `tarsier verify` confirms violations. UNKNOWN, saying why.
    const real = unproved.some((g) => g.status === 'failed' && goalOf(lowered.sourceMap, g.goal)?.kind !== 'recursion');
    verdict = 'UNKNOWN';
    reason = real
      ? 'the lowered program has a failing path that select does not confirm on the C program (tarsier verify replays violations)'
      : 'a recursion bound was reached';
  } else if (verdict === 'UNKNOWN') reason = 'the selected candidates do not prove every assertion';
  void candidates;
  return {
    candidates,
    verdicts: vs,
    verdict,
    ...(reason ? { reason } : {}),
    proved: verdict === 'TRUE',
    unproved,
    solverCalls: imp?.solverCalls ?? 0,
    ...(imp?.note ? { note: imp.note } : {}),
    ...(imp ? { imp } : {}),
  };
}

