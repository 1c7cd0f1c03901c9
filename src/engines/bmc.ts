// Bounded model checking over IMP with iterative deepening.
//
// For bound k = 1, 2, 4, ...: encode the program with every loop unrolled k
// times (encode.ts), then
//   1. is an error goal reachable?            yes → FALSE with the trace;
//   2. is an unwinding (bound) goal reachable? no  → TRUE (the unrolling is complete);
//   3. otherwise deepen.
// UNKNOWN when the time budget runs out or the solver gives up. TRUE is only
// answered when both checks are unsat at the same bound.

import type { SourceLocation } from '../common/location.js';
import { typeEquals, type Expr, type ImpProgram, type ImpType, type Stmt } from '../ivl/ast.js';
import { EncodeError, encodeBounded, type AssertRole, type Candidate, type Encoding, type GoalRecord } from './encode.js';
import { openSession, type ModelReader } from './z3.js';

export interface BmcOptions {
  /**
   * The time budget: an absolute deadline (ms since the epoch, `Date.now()`
   * clock), or a function giving the milliseconds left (e.g. of CPU time).
   */
  readonly deadline: number | (() => number);
  /** Time limit of one solver call in ms (default: what `deadline` leaves). */
  readonly solverTimeoutMs?: () => number;
  readonly assertRole?: (loc: SourceLocation) => AssertRole;
  readonly entry?: string;
  /** First bound (default 1) and largest bound tried (default 1 << 20). */
  readonly startBound?: number;
  readonly maxBound?: number;
  /** Inlining depth of recursive IMP procedure calls for bound k (default: k). */
  readonly callDepth?: (bound: number) => number;
  readonly log?: (message: string) => void;
  /** Also try k-induction at each bound (default true). */
  readonly induction?: boolean;
  /** Candidate invariants for k-induction (default true: generated per loop). */
  readonly candidates?: boolean;
}

/** One havoc executed on the counterexample path, in execution order. */
export interface TraceHavoc {
  readonly loc: SourceLocation;
  readonly target: string;
  readonly type: ImpType;
  /** Bit-vectors: unsigned value; int: mathematical value; bool: 0/1. */
  readonly value: bigint;
}

/** One `if`/`while` condition evaluated on the path. */
export interface TraceBranch {
  readonly loc: SourceLocation;
  readonly taken: boolean;
}

export interface Counterexample {
  /** The violated assert (its loc is the IMP assert's loc). */
  readonly goal: { readonly loc: SourceLocation; readonly origin: GoalRecord['origin'] };
  readonly havocs: readonly TraceHavoc[];
  /** Branch outcomes up to the violation, in execution order. */
  readonly branches: readonly TraceBranch[];
}

export type BmcResult =
  | { readonly verdict: 'false'; readonly bound: number; readonly counterexample: Counterexample }
  /** `method`: complete unrolling (no execution exceeds the bound) or k-induction. */
  | { readonly verdict: 'true'; readonly bound: number; readonly method?: 'unrolling' | 'k-induction' }
  | { readonly verdict: 'unknown'; readonly bound: number; readonly reason: string };

/** The program to check at bound k: a fixed program, or one built per bound (e.g. lowered with a deeper recursion cut). */
export type ProgramAtBound = ImpProgram | ((bound: number) => ImpProgram);

function or(flags: readonly string[]): string {
  if (flags.length === 0) return 'false';
  if (flags.length === 1) return flags[0]!;
  return `(or ${flags.join(' ')})`;
}

function readTrace(enc: Encoding, m: ModelReader): Counterexample {
  const errors = enc.goals.filter((g) => g.role === 'error');
  const hit = errors.find((g) => m.bool(g.flag));
  if (!hit) throw new Error('BMC: the model violates no goal');
  const havocs: TraceHavoc[] = [];
  for (const h of enc.havocs) {
    if (h.order > hit.order || !m.bool(h.guard)) continue;
    let value: bigint;
    if (h.type.kind === 'bv') value = m.int(h.value, { kind: 'bv', width: h.type.width });
    else if (h.type.kind === 'int') value = m.int(h.value, { kind: 'int' });
    else if (h.type.kind === 'bool') value = m.bool(h.value) ? 1n : 0n;
    else value = 0n; // maps and reals are not nondet call results; not replayed
    havocs.push({ loc: h.loc, target: h.target, type: h.type, value });
  }
  const branches: TraceBranch[] = [];
  for (const b of enc.branches) {
    if (b.order > hit.order || !m.bool(b.guard)) continue;
    branches.push({ loc: b.loc, taken: m.bool(b.cond) });
  }
  return { goal: { loc: hit.loc, origin: hit.origin }, havocs, branches };
}

/** Runs BMC with iterative deepening until a verdict, the deadline or `maxBound`. */
export async function bmc(program: ProgramAtBound, options: BmcOptions): Promise<BmcResult> {
  const log = options.log ?? (() => {});
  const deadline = options.deadline;
  const left = typeof deadline === 'function' ? deadline : () => deadline - Date.now();
  const solverMs = options.solverTimeoutMs ?? left;
  const maxBound = options.maxBound ?? 1 << 20;
  let bound = Math.max(0, options.startBound ?? 1);
  let lastReason = 'no bound was tried';
  // Candidate invariants that survived Houdini at the last bound (by candidate id).
  const survivors: { ids?: Set<number> } = {};
  for (;;) {
    if (left() <= 0) return { verdict: 'unknown', bound, reason: `time limit reached (${lastReason})` };
    const t0 = Date.now();
    let enc: Encoding;
    try {
      const p = typeof program === 'function' ? program(bound) : program;
      enc = encodeBounded(p, {
        bound,
        callDepth: options.callDepth ? options.callDepth(bound) : bound,
        assertRole: options.assertRole,
        entry: options.entry,
      });
    } catch (e) {
      if (e instanceof EncodeError) return { verdict: 'unknown', bound, reason: e.message };
      throw e;
    }
    const errorFlags = enc.goals.filter((g) => g.role === 'error').map((g) => g.flag);
    const boundFlags = enc.goals.filter((g) => g.role === 'bound').map((g) => g.flag);
    log(`bmc: bound ${bound}: ${enc.size} terms, ${errorFlags.length} error goals, ${boundFlags.length} unwinding goals (encoded in ${Date.now() - t0} ms)`);
    // No error goal at this bound: still check the unwinding goals (a cut
    // recursion may hide code with errors).
    const session = await openSession(enc.text);
    try {
    if (errorFlags.length > 0) {
      const t1 = Date.now();
      const r = await session.check(errorFlags, solverMs(), (m) => readTrace(enc, m));
      log(`bmc: bound ${bound}: error goals ${r.status} (${Date.now() - t1} ms)`);
      if (r.status === 'sat') return { verdict: 'false', bound, counterexample: r.value };
      if (r.status === 'unknown') {
        return { verdict: 'unknown', bound, reason: left() <= 0 ? `time limit reached at bound ${bound}` : `solver: ${r.reason}` };
      }
    }
    if (boundFlags.length === 0) return { verdict: 'true', bound, method: 'unrolling' };
    const t2 = Date.now();
    const u = await session.check(boundFlags, solverMs(), () => undefined);
    log(`bmc: bound ${bound}: unwinding goals ${u.status} (${Date.now() - t2} ms)`);
    if (u.status === 'unsat') return { verdict: 'true', bound, method: 'unrolling' };
    if (u.status === 'unknown') {
      return { verdict: 'unknown', bound, reason: left() <= 0 ? `time limit reached at bound ${bound}` : `solver: ${u.reason}` };
    }
    } finally {
      session.close();
    }
    lastReason = `no violation up to bound ${bound}, but loops or recursion can run longer`;
    if (options.induction !== false) {
      const k = await inductionStep(program, bound, options, solverMs, log, survivors);
      if (k === 'proved') return { verdict: 'true', bound, method: 'k-induction' };
    }
    if (bound >= maxBound) return { verdict: 'unknown', bound, reason: lastReason };
    bound = Math.min(maxBound, bound === 0 ? 1 : bound * 2);
  }
}

/**
 * The k-induction check at `bound`: every goal of the induction encoding
 * (encode.ts, mode `induction`) unreachable means no execution violates the
 * property. Any failure to decide is just "not proved".
 */
async function inductionStep(
  program: ProgramAtBound,
  bound: number,
  options: BmcOptions,
  solverMs: () => number,
  log: (m: string) => void,
  survivors: { ids?: Set<number> } = {},
): Promise<'proved' | 'not proved'> {
  let p: ImpProgram;
  try {
    p = typeof program === 'function' ? program(bound) : program;
  } catch (e) {
    if (e instanceof EncodeError) return 'not proved';
    throw e;
  }
  // Houdini: drop candidates that fail at a loop entry or are not preserved,
  // until the rest are inductive; then check the goals with them assumed.
  let candidates = options.candidates === false ? new Map<Stmt, Candidate[]>() : generateCandidates(p, options.entry ?? 'main');
  // Start from the survivors of the last bound: Houdini re-checks them here anyway.
  if (survivors.ids) {
    const keep = survivors.ids;
    candidates = new Map([...candidates].map(([l, cs]) => [l, cs.filter((c) => keep.has(c.id))] as [Stmt, Candidate[]]).filter(([, cs]) => cs.length > 0));
  }
  for (let round = 0; round < 40; round++) {
    let enc: Encoding;
    try {
      enc = encodeBounded(p, {
        bound,
        callDepth: options.callDepth ? options.callDepth(bound) : bound,
        assertRole: options.assertRole,
        entry: options.entry,
        mode: 'induction',
        candidates,
      });
    } catch (e) {
      if (e instanceof EncodeError) {
        log(`k-induction: not applicable: ${e.message}`);
        return 'not proved';
      }
      throw e;
    }
    const session = await openSession(enc.text);
    try {
      const cand = enc.goals.filter((g) => g.role === 'candidate');
      if (cand.length > 0) {
        const t = Date.now();
        const r = await session.check(
          cand.map((g) => g.flag),
          solverMs(),
          (m) => new Set(cand.filter((g) => m.bool(g.flag)).map((g) => g.candidate!)),
        );
        log(`k-induction: bound ${bound}: ${cand.length} candidate goals ${r.status} (${Date.now() - t} ms)`);
        if (r.status === 'unknown') {
          if (candidates.size === 0) return 'not proved';
          candidates = new Map();
          continue;
        }
        if (r.status === 'sat') {
          const failed = r.value;
          if (failed.size === 0) return 'not proved';
          const next = new Map<Stmt, Candidate[]>();
          for (const [loop, cs] of candidates) {
            const keep = cs.filter((c) => !failed.has(c.id));
            if (keep.length > 0) next.set(loop, keep);
          }
          candidates = next;
          continue;
        }
      }
      survivors.ids = new Set([...candidates.values()].flat().map((c) => c.id));
      const flags = enc.goals.filter((g) => g.role !== 'candidate').map((g) => g.flag);
      const t = Date.now();
      const r = await session.check(flags, solverMs(), () => undefined);
      const kept = [...candidates.values()].reduce((a, cs) => a + cs.length, 0);
      log(`k-induction: bound ${bound}: ${flags.length} goals ${r.status} with ${kept} invariants (${Date.now() - t} ms)`);
      return r.status === 'unsat' ? 'proved' : 'not proved';
    } finally {
      session.close();
    }
  }
  return 'not proved';
}

const MAX_CANDIDATES_PER_LOOP = 120;

/**
 * Candidate invariants of every loop: comparisons (signed and unsigned `<=`,
 * `==`) between a variable the loop assigns and another variable of the
 * same type that the loop reads or assigns, and with 0.
 */
export function generateCandidates(p: ImpProgram, entry: string): Map<Stmt, Candidate[]> {
  const proc = p.procedures.find((q) => q.name === entry);
  const out = new Map<Stmt, Candidate[]>();
  if (!proc?.body) return out;
  const types = new Map<string, ImpType>();
  for (const d of [...p.globals, ...proc.params, ...proc.returns, ...proc.locals]) types.set(d.name, d.type);
  let id = 0;
  const varsOf = (e: Expr, acc: Set<string>): void => {
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
  };
  const assignedIn = (ss: readonly Stmt[], acc: Set<string>, read: Set<string>): void => {
    for (const s of ss) {
      switch (s.kind) {
        case 'assign': acc.add(s.target); varsOf(s.value, read); break;
        case 'havoc': acc.add(s.target); break;
        case 'assume': case 'assert': varsOf(s.cond, read); break;
        case 'if': varsOf(s.cond, read); assignedIn(s.then, acc, read); assignedIn(s.else, acc, read); break;
        case 'while': varsOf(s.cond, read); assignedIn(s.body, acc, read); break;
        case 'block': assignedIn(s.body, acc, read); break;
        default: break;
      }
    }
  };
  const scalar = (t: ImpType | undefined) => t !== undefined && (t.kind === 'bv' || t.kind === 'int');
  const visit = (ss: readonly Stmt[]): void => {
    for (const s of ss) {
      if (s.kind === 'if') { visit(s.then); visit(s.else); }
      else if (s.kind === 'block') visit(s.body);
      else if (s.kind === 'while') {
        const assigned = new Set<string>();
        const read = new Set<string>();
        varsOf(s.cond, read);
        assignedIn(s.body, assigned, read);
        const all = [...new Set([...assigned, ...read])].filter((v) => scalar(types.get(v))).sort();
        const cs: Candidate[] = [];
        for (const a of [...assigned].filter((v) => scalar(types.get(v))).sort()) {
          const ta = types.get(a)!;
          const [le, ge] = ta.kind === 'bv' ? (['sle', 'sge'] as const) : (['<=', '>='] as const);
          cs.push({ id: id++, op: le, a }, { id: id++, op: ge, a });
          for (const b of all) {
            if (b === a || !typeEquals(types.get(b)!, ta)) continue;
            cs.push({ id: id++, op: le, a, b }, { id: id++, op: ge, a, b });
            if (a < b || !assigned.has(b)) cs.push({ id: id++, op: 'eq', a, b });
          }
        }
        if (cs.length > 0) out.set(s, cs.slice(0, MAX_CANDIDATES_PER_LOOP));
        visit(s.body);
      }
    }
  };
  visit(proc.body);
  return out;
}
