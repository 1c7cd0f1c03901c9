// The seed's invariant-selection encoding (seed 003), implemented as written.
//
// Rules (seed section -> code):
//   2.1 procedure      EncoderBase.procedure: `x' := havoc` for every x' in
//                      locals' = M(locals), locals = union of T(loop); the
//                      duplicates are declared as locals of the same type.
//   2.2-2.9 outside loops  [[s]]_I is the identity (EncoderBase.top).
//   2.2-2.9 inside loops   [[s]]_IL(targets) (EncoderBase.simStmt): targets
//                      renamed through M, `assert e` becomes `skip`, x := e
//                      becomes M(x) := e[targets/M(targets)], and so on.
//   2.10 [[while]]_I   SeedEncoder.loop (outermost loops),
//        [[while]]_IL  SeedEncoder.innerSim (loops inside a simulated iteration),
//        [[while]]_NL  EncoderBase.actualLoop (the actual loop and the loops in its body).
//
// Choices where the seed's text is ambiguous or looks like a typo:
//   1. Candidates are per loop (a candidate belongs to the loop its location or
//      header names); the seed's single set I' is the list of one loop's
//      candidates. Every loop, outermost ones included, gets an identifier,
//      and all its flags carry it (`on_L3_2` is the seed's on_id_i for loop 3,
//      candidate 2), so two loops of one procedure cannot share flags.
//   2. `id := get_id(loop)` is meta-level (it names the flags); it emits no code.
//   3. The `else` branch of the outer loop reads `on_b_i <==> inv_i`, which is
//      already assumed above it (a tautology that leaves on_i free); the nested
//      rule and the comment ("we still have to set invariant flags") say
//      `on_b_i <==> on_i`, which is what we emit, as an `assume`.
//   4. In [[while]]_IL the flag lines without a verb (`on_b_id_i <==> on_id_i`)
//      are `assume`s, and `assume !e` ("we are out of the loop here") follows
//      the whole if/else and is on the duplicates, e[targets/M(targets)].
//   5. get_nested_id returns the loops at every depth, so the outermost loop
//      declares (havocs) the flags of all loops inside it.
//   6. The `if (e)` guarding the outer simulation reads the original variables
//      (the seed says the duplicates are not needed there); `if (lc_id)` of a
//      nested loop is e on the duplicates, as written.
//   7. Declared `invariant e;` clauses (not in the seed's IMP) are checked in
//      the actual loops (entry, preservation) and are not assumed in simulations.
//
// Selection read-off: a probe goal `assert on_id_i` per candidate is placed
// before the actual outermost loop (EncoderBase.probeGoals); a candidate is
// selected iff its probe is proved, i.e. its flag is forced true in every
// execution. See encoding.ts for why this is unsound and what was changed.
import type { Stmt, WhileStmt } from '../ivl/ast.js';
import { EncoderBase, type EncodedProgram } from './encode-common.js';
import { type Candidate, type LoopInfo, assume, bin, havoc, ifS, not, renameFree, v } from './program.js';
import type { ImpProgram } from '../ivl/ast.js';

export class SeedEncoder extends EncoderBase {
  constructor(program: ImpProgram, candidates: readonly Candidate[]) {
    super(program, candidates, true);
  }

  /** [[while(e) do {s}]]_I */
  protected loop(info: LoopInfo): Stmt[] {
    const l = info.loop;
    const out: Stmt[] = [];
    // boolean variables to infer whether an invariant holds, for this loop
    // and for every loop nested in it
    for (const id of [info.id, ...info.nested]) {
      const f = this.flags(id);
      out.push(...f.on.map(havoc), ...f.onB.map(havoc), ...f.onA.map(havoc));
    }
    const f = this.flags(info.id);
    const cs = this.candidatesOf(info.id);
    const T = this.dupMap(info.targets);
    const dup = (e: Parameters<typeof renameFree>[0]) => renameFree(e, T);
    // check whether an invariant holds before the loop
    cs.forEach((c, i) => out.push(assume(bin('<==>', c.expr, v(f.onB[i])))));
    // simulate an arbitrary iteration
    out.push(...info.targets.map((x) => havoc(T.get(x)!)));
    cs.forEach((c, i) => out.push(assume(bin('==>', v(f.onA[i]), dup(c.expr)))));
    cs.forEach((c, i) => out.push(assume(bin('==>', v(f.onB[i]), dup(c.expr)))));
    const then: Stmt[] = [assume(dup(l.cond)), ...l.body.flatMap((s) => this.simStmt(s, T, (w) => this.innerSim(w, T)))];
    cs.forEach((c, i) =>
      then.push(assume(bin('==>', bin('&&', v(f.onB[i]), bin('==>', v(f.onA[i]), dup(c.expr))), v(f.on[i])))),
    );
    // choice 3: on_b_i <==> on_i (the seed's text: on_b_i <==> inv_i)
    const els: Stmt[] = cs.map((_, i) => assume(bin('<==>', v(f.onB[i]), v(f.on[i]))));
    out.push(ifS(l.cond, then, els));
    out.push(...this.probeGoals(info));
    out.push(...this.actualLoop(info));
    return out;
  }

  /** [[while(e) do {s}]]_IL(targets) */
  private innerSim(w: WhileStmt, targets: ReadonlyMap<string, string>): Stmt[] {
    const info = this.table.of(w);
    const f = this.flags(info.id);
    const cs = this.candidatesOf(info.id);
    const dup = (e: Parameters<typeof renameFree>[0]) => renameFree(e, targets);
    const lc = this.loopVar('lc', info.id);
    const out: Stmt[] = [];
    // check whether an invariant holds before the loop
    cs.forEach((c, i) => out.push(assume(bin('<==>', dup(c.expr), v(f.onB[i])))));
    // check the inner loop condition
    out.push(havoc(lc), assume(bin('<==>', dup(w.cond), v(lc))));
    // simulate an arbitrary iteration
    out.push(...info.targets.map((x) => havoc(targets.get(x)!)));
    cs.forEach((c, i) => out.push(assume(bin('==>', v(f.onA[i]), dup(c.expr)))));
    cs.forEach((c, i) => out.push(assume(bin('==>', v(f.onB[i]), dup(c.expr)))));
    const then: Stmt[] = [assume(dup(w.cond)), ...w.body.flatMap((s) => this.simStmt(s, targets, (x) => this.innerSim(x, targets)))];
    cs.forEach((c, i) =>
      then.push(assume(bin('==>', bin('&&', v(f.onB[i]), bin('==>', v(f.onA[i]), dup(c.expr))), v(f.on[i])))),
    );
    const els: Stmt[] = cs.map((_, i) => assume(bin('<==>', v(f.onB[i]), v(f.on[i]))));
    out.push(ifS(v(lc), then, els));
    // choice 4: we are out of the loop here (after both branches, on duplicates)
    out.push(assume(not(dup(w.cond))));
    return out;
  }
}

export function encodeSeed(program: ImpProgram, candidates: readonly Candidate[]): EncodedProgram {
  return new SeedEncoder(program, candidates).encode();
}
