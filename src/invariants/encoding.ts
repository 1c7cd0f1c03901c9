// The corrected selection encoding (`--method encoding`).
//
// Why the seed's encoding is unsound. In the seed, the simulated iteration
// starts from a state that satisfies every candidate that held on *entry*
// (`assume on_b_i ==> inv_i[M]`), whether or not that candidate is itself
// invariant. A candidate can then be "preserved" only because a non-invariant
// candidate was assumed. Example (test/invariants/encoding.test.ts): loop
// `while (n > 0) { y := y + x; x := x + 1; n := n - 1 }` entered with x = 0,
// y = 0, n >= 2, candidates x == 0 and y == 0. Both hold on entry, so the
// simulation assumes x' == 0 and y' == 0; then y' stays 0 and on_2 is forced:
// y == 0 is selected, but after two iterations y == 1. With `assert y == 0`
// after the loop the seed's transformed program verifies: a wrong TRUE.
//
// What was changed. A flag on_i is forced true exactly when every way to
// leave it false is refuted, so each flag gets its own refutation:
//
//   if (!on_L_i && inv_i) {            // inv_i holds on entry (else: refuted)
//     assume e;                         // loop not entered: entry is the only head
//     havoc M(T(L));                    // a fresh iteration, on the duplicates,
//     assume e[M] && inv_i[M] && AND_{j != i} (on_L_j ==> inv_j[M]);
//     [[s]]_sim;                        // inner loops: havoc, assume their on-flags, !e
//     assume !inv_i[M];                 // ... that breaks inv_i
//   }
//
// and a candidate of a nested loop N (parent P) is refuted either on entry
// (from any head state of P satisfying P's on-flags and e_P, the part of P's
// body that leads to N reaches N with !inv) or by an iteration of N as above.
// The pre-state now assumes the *flags* (on_j) of the same execution, not the
// entry values, and each flag has its own copy of the iteration, so one
// execution can refute every non-invariant candidate at once.
//
// Why it is sound. For a fixed entry state, an assignment of the flags survives
// iff every flag that is false has a refutation that assumes the true flags;
// that is, iff the flag set v is a pre-fixpoint F(v) ⊆ v of the monotone map
// F(v) = {candidates with no refutation assuming v}. The flags forced true are
// the intersection of all pre-fixpoints, the least fixpoint of F (Knaster-
// Tarski), which is reached from the empty set by adding candidates that are
// established and preserved assuming candidates already added; by induction
// each of them holds at every reachable loop head. The least fixpoint itself
// survives, so the actual loop is also checked under a flag set of true
// invariants only: the transformed program's verdict is sound too.
//
// The price: a forced flag is a least fixpoint, Houdini's result a greatest
// one. Candidates that are inductive only together (each needs the other, as
// x == 0 and y == 0 under `x, y := y, x`, or an outer-loop invariant needed by
// an inner loop's entry and vice versa) are not selected by this encoding;
// Houdini selects them. Getting the greatest fixpoint from forced flags needs
// Houdini's rounds unrolled into the program: RoundsEncoder below (--rounds).
import type { Expr, ImpProgram, Procedure, Stmt, WhileStmt } from '../ivl/ast.js';
import { someStmt, stmtBodies } from '../ivl/walk.js';
import { EncoderBase, type EncodedProgram } from './encode-common.js';
import { type Candidate, type LoopInfo, LoopTable, and, assume, bin, falseE, havoc, ifS, not, renameFree, v } from './program.js';

export class SoundEncoder extends EncoderBase {
  constructor(program: ImpProgram, candidates: readonly Candidate[]) {
    super(program, candidates, false);
  }

  protected loop(info: LoopInfo): Stmt[] {
    const out: Stmt[] = [];
    for (const id of [info.id, ...info.nested]) out.push(...this.flags(id).on.map(havoc));
    // Every copy starts from fresh values of all duplicates of the outermost
    // loop's targets: a nested loop's head can see any value of them.
    const T = this.dupMap(info.targets);
    const dup = (e: Expr) => renameFree(e, T);
    const fresh = info.targets.map((x) => havoc(T.get(x)!));
    const sim = (stmts: readonly Stmt[]) => stmts.flatMap((s) => this.simStmt(s, T, (w) => this.abstractLoop(w, T)));
    const l = info.loop;
    const f = this.flags(info.id);
    const cs = this.candidatesOf(info.id);
    cs.forEach((c, i) => {
      const others = cs.flatMap((d, j) => (j === i ? [] : [bin('==>', v(f.on[j]), dup(d.expr))]));
      out.push(
        ifS(bin('&&', not(v(f.on[i])), c.expr), [
          assume(l.cond),
          ...fresh,
          assume(and([dup(l.cond), dup(c.expr), ...others])),
          ...sim(l.body),
          assume(not(dup(c.expr))),
        ]),
      );
    });
    for (const id of info.nested) {
      const n = this.table.get(id);
      const p = this.table.get(n.parent!);
      const fn = this.flags(id);
      const fp = this.flags(p.id);
      const pHead = and([dup(p.loop.cond), ...this.candidatesOf(p.id).map((d, j) => bin('==>', v(fp.on[j]), dup(d.expr)))]);
      const choose = this.loopVar('entry', id);
      this.candidatesOf(id).forEach((c, i) => {
        const others = this.candidatesOf(id).flatMap((d, j) => (j === i ? [] : [bin('==>', v(fn.on[j]), dup(d.expr))]));
        const onEntry: Stmt[] = [...fresh, assume(pHead), ...this.prefix(p.loop.body, n.loop, T, assume(not(dup(c.expr))))];
        const byIteration: Stmt[] = [
          ...fresh,
          assume(and([dup(n.loop.cond), dup(c.expr), ...others])),
          ...sim(n.loop.body),
          assume(not(dup(c.expr))),
        ];
        out.push(ifS(not(v(fn.on[i])), [havoc(choose), ifS(v(choose), onEntry, byIteration)]));
      });
    }
    out.push(...this.probeGoals(info));
    out.push(...this.actualLoop(info));
    return out;
  }

  /** A loop inside a simulated iteration: any exit state its on-flags allow. */
  private abstractLoop(w: WhileStmt, T: ReadonlyMap<string, string>): Stmt[] {
    const info = this.table.of(w);
    const f = this.flags(info.id);
    const dup = (e: Expr) => renameFree(e, T);
    return [
      ...info.targets.map((x) => havoc(T.get(x)!)),
      ...this.candidatesOf(info.id).map((c, i) => assume(bin('==>', v(f.on[i]), dup(c.expr)))),
      assume(not(dup(w.cond))),
    ];
  }

  /**
   * The part of a loop body that leads to the nested loop `target`, on
   * duplicates, ending with `atTarget` there. Paths that do not reach the
   * target end in `assume false` (they refute nothing).
   */
  private prefix(stmts: readonly Stmt[], target: WhileStmt, T: ReadonlyMap<string, string>, atTarget: Stmt): Stmt[] {
    const out: Stmt[] = [];
    for (const s of stmts) {
      if (s === target) return [...out, atTarget];
      if (contains(s, target)) {
        if (s.kind === 'if') {
          const inThen = someStmt(s.then, (x) => x === target);
          const cond = renameFree(s.cond, T);
          return [...out, inThen ? assume(cond) : assume(not(cond)), ...this.prefix(inThen ? s.then : s.else, target, T, atTarget)];
        }
        if (s.kind === 'block') return [...out, ...this.prefix(s.body, target, T, atTarget)];
        throw new Error('a loop between a nested loop and its parent');
      }
      out.push(...this.simStmt(s, T, (w) => this.abstractLoop(w, T)));
    }
    return [...out, assume(falseE)];
  }
}

/** Whether `target` is inside `s` (at any depth). */
function contains(s: Stmt, target: WhileStmt): boolean {
  return stmtBodies(s).some((b) => someStmt(b, (x) => x === target));
}

/** `--method encoding`: the least-fixpoint encoding described at the head of this file. */
export function encodeSound(program: ImpProgram, candidates: readonly Candidate[]): EncodedProgram {
  return new SoundEncoder(program, candidates).encode();
}

/**
 * The corrected encoding with Houdini's precision (`--method encoding
 * --rounds R`): sound, selects exactly Houdini's set when it confirms the
 * fixpoint, but R rounds of K refutation paths make it far more expensive
 * (see README, bench:select).
 *
 * The flags of round r (on_L_i_rR) say "candidate i is still alive after r
 * Houdini rounds". A flag may turn false in round r only with a refutation
 * that assumes the flags of round r - 1 (round 0: every candidate):
 *
 *   assume on_r ==> on_(r-1);
 *   if (on_(r-1) && !on_r) { a path of the cut program, on duplicates of
 *     ALL variables, from the procedure's entry to the loop (other loops
 *     abstracted by their round r - 1 flags), that breaks inv_i on entry or
 *     in one iteration from a head state satisfying the round r - 1 flags }
 *
 * Everything is independent of the actual state, so the flags forced true
 * in round r (the intersection over all surviving executions) are exactly
 * Houdini's set after r rounds: every surviving execution keeps at least
 * those (a refutation under more assumptions is one under fewer), and the
 * execution that drops every refutable candidate keeps no more. When the
 * forced sets of rounds R and R + 1 agree, Houdini has reached its fixpoint,
 * whose candidates are inductive: the selection is the forced set, read off
 * one verification run (probes on both rounds). The actual loops assume the
 * round-R flags; the greedy execution then assumes true invariants only, so
 * the transformed program's own assertions are checked soundly too. With R
 * at least the number of candidates, the fixpoint is always reached; a
 * smaller R that does not reach it is reported (the least-fixpoint encoding
 * then decides).
 */
export class RoundsEncoder extends EncoderBase {
  private readonly roundFlags = new Map<string, string[]>();

  constructor(
    program: ImpProgram,
    candidates: readonly Candidate[],
    /** R: the round whose flags are selected; round R + 1 is probed to confirm the fixpoint. */
    readonly rounds: number,
  ) {
    super(program, candidates, false, 'all');
  }

  private at(loopId: number, r: number): string[] {
    const key = `${loopId}/${r}`;
    let f = this.roundFlags.get(key);
    if (!f) {
      f = this.candidatesOf(loopId).map((_, i) => this.boolVar(`on_L${loopId}_${i + 1}_r${r}`));
      this.roundFlags.set(key, f);
    }
    return f;
  }

  /** The actual loops use the round-R flags. */
  protected override flags(loopId: number) {
    return { on: this.at(loopId, this.rounds), onB: [], onA: [] };
  }

  protected loop(info: LoopInfo): Stmt[] {
    return this.actualLoop(info);
  }

  protected override prologue(proc: Procedure): Stmt[] {
    const loops = this.table.loops.filter((l) => l.proc === proc.name && this.candidatesOf(l.id).length > 0);
    if (loops.length === 0) return [];
    const out: Stmt[] = [];
    for (let r = 1; r <= this.rounds + 1; r++) {
      for (const l of loops) {
        const now = this.at(l.id, r);
        out.push(...now.map(havoc));
        this.candidatesOf(l.id).forEach((c, i) => {
          const before = r === 1 ? undefined : v(this.at(l.id, r - 1)[i]);
          if (before) out.push(assume(bin('==>', v(now[i]), before)));
          const gate = before ? bin('&&', before, not(v(now[i]))) : not(v(now[i]));
          out.push(ifS(gate, this.refutation(proc, l, c, r - 1)));
        });
      }
    }
    out.push(...this.probePoint());
    for (const l of loops) {
      this.candidatesOf(l.id).forEach((c, i) => {
        out.push(...this.probe(this.at(l.id, this.rounds)[i], c.index, 0));
        out.push(...this.probe(this.at(l.id, this.rounds + 1)[i], c.index, 1));
      });
    }
    return out;
  }

  /** "Loop `l` is at a head": its candidates alive in round q hold (round 0: all). */
  private heads(l: LoopInfo, q: number): Expr[] {
    return this.candidatesOf(l.id).map((c, j) => {
      const e = renameFree(c.expr, this.m);
      return q === 0 ? e : bin('==>', v(this.at(l.id, q)[j]), e);
    });
  }

  private sim(stmts: readonly Stmt[], q: number): Stmt[] {
    return stmts.flatMap((s) =>
      this.simStmt(s, this.m, (w) => {
        const info = this.table.of(w);
        return [...info.targets.map((x) => havoc(this.m.get(x)!)), assume(and(this.heads(info, q))), assume(not(renameFree(w.cond, this.m)))];
      }),
    );
  }

  /** The cut program's path from the procedure's entry to the entry of `target`, on duplicates. */
  private path(stmts: readonly Stmt[], target: WhileStmt, q: number): Stmt[] {
    const out: Stmt[] = [];
    for (const s of stmts) {
      if (s === target) return out;
      if (!contains(s, target)) {
        out.push(...this.sim([s], q));
        continue;
      }
      switch (s.kind) {
        case 'if': {
          const inThen = someStmt(s.then, (x) => x === target);
          const cond = renameFree(s.cond, this.m);
          return [...out, assume(inThen ? cond : not(cond)), ...this.path(inThen ? s.then : s.else, target, q)];
        }
        case 'block':
          return [...out, ...this.path(s.body, target, q)];
        case 'while': {
          const info = this.table.of(s);
          return [
            ...out,
            ...info.targets.map((x) => havoc(this.m.get(x)!)),
            assume(and([renameFree(s.cond, this.m), ...this.heads(info, q)])),
            ...this.path(s.body, target, q),
          ];
        }
        default:
          throw new Error('unreachable');
      }
    }
    return [...out, assume(falseE)];
  }

  /** A refutation of candidate c of loop l assuming the round-q flags: on entry, or by one iteration. */
  private refutation(proc: Procedure, l: LoopInfo, c: Candidate, q: number): Stmt[] {
    const fresh = [...this.m.values()].map(havoc);
    const start = [...fresh, ...proc.requires.map((e) => assume(renameFree(e, this.m)))];
    const toLoop = this.path(proc.body ?? [], l.loop, q);
    const broken = assume(not(renameFree(c.expr, this.m)));
    const choose = this.loopVar('entry', l.id);
    const iteration: Stmt[] = [
      ...l.targets.map((x) => havoc(this.m.get(x)!)),
      assume(and([renameFree(l.loop.cond, this.m), ...this.heads(l, q)])),
      ...this.sim(l.loop.body, q),
      broken,
    ];
    return [...start, ...toLoop, havoc(choose), ifS(v(choose), [broken], iteration)];
  }
}

/** Rounds that always reach Houdini's fixpoint: one per candidate of the largest procedure (at least 1). */
export function roundBound(program: ImpProgram, candidates: readonly Candidate[]): number {
  const table = new LoopTable(program);
  const per = new Map<string, number>();
  for (const c of candidates) {
    const proc = table.get(c.loopId).proc;
    per.set(proc, (per.get(proc) ?? 0) + 1);
  }
  return Math.max(1, ...per.values());
}

/** `--method encoding --rounds R`: the rounds encoding (R defaults to the bound that always reaches the fixpoint). */
export function encodeRounds(program: ImpProgram, candidates: readonly Candidate[], rounds = roundBound(program, candidates)): EncodedProgram {
  return new RoundsEncoder(program, candidates, rounds).encode();
}
