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
// x == 0 and y == 0 under `x, y := y, x`) are not selected by this encoding;
// Houdini selects them. No encoding in which the flags are forced by one
// universally quantified verification run can compute the greatest fixpoint,
// which needs "for all states" under an "exists a set".
import type { Expr, ImpProgram, Stmt, WhileStmt } from '../ivl/ast.js';
import { EncoderBase, type EncodedProgram } from './encode-common.js';
import { type Candidate, type LoopInfo, and, assume, bin, falseE, havoc, ifS, not, renameExpr, v } from './program.js';

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
    const dup = (e: Expr) => renameExpr(e, T);
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
    const dup = (e: Expr) => renameExpr(e, T);
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
          const inThen = s.then.some((x) => x === target || contains(x, target));
          const cond = renameExpr(s.cond, T);
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

function contains(s: Stmt, target: WhileStmt): boolean {
  switch (s.kind) {
    case 'if':
      return [...s.then, ...s.else].some((x) => x === target || contains(x, target));
    case 'block':
    case 'while':
      return s.body.some((x) => x === target || contains(x, target));
    default:
      return false;
  }
}

export function encodeSound(program: ImpProgram, candidates: readonly Candidate[]): EncodedProgram {
  return new SoundEncoder(program, candidates).encode();
}
