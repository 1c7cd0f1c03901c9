// The overflow instrumentation (pass `overflow`): the conditions under which a signed
// operation's mathematical result is representable, asserted as `overflow` goals.
// Methods of the Lowerer (lower.ts).
import type { BvWidth, Expr } from '../../ivl/ast.js';
import { and, andAll, app, bin, bv, eq, ite, type L, maxSigned, minSigned, or, resize, un } from '../imp-build.js';
import type { Lowerer } from '../lower.js';

export class OverflowChecks {
  /** Whether signed overflow is checked (pass `overflow`); otherwise signed arithmetic wraps. */
  checksOverflow(this: Lowerer): boolean {
    return this.passes.has('overflow');
  }

  /** The goal that the signed operation at `loc` has a representable result (`ok`). */
  overflowGoal(this: Lowerer, ok: Expr, loc: L, description: string): void {
    this.goal('overflow', ok, loc, description);
  }

  /** -x is representable: x is not the least value of its w-bit type. */
  negationOk(this: Lowerer, x: Expr, w: BvWidth, loc: L): Expr {
    return un('!', eq(x, bv(minSigned(w), w, loc), loc), loc);
  }

  /** E1 << E2 for signed E1 (the amount already in [0, w)): E1 >= 0 and E1 * 2^E2 representable. */
  shiftOk(this: Lowerer, a: Expr, amount: Expr, w: BvWidth, loc: L): Expr {
    const ZERO = bv(0n, w, loc);
    return and(app('sge', [a, ZERO], loc), eq(app('lshr', [a, bin('-', bv(BigInt(w - 1), w, loc), amount, loc)], loc), ZERO, loc), loc);
  }

  /** The mathematical result of a signed + - * fits in w bits. */
  noOverflow(this: Lowerer, op: '+' | '-' | '*', a: Expr, b: Expr, w: BvWidth, loc: L): Expr {
    if (w <= 32) {
      const W = (w * 2) as BvWidth;
      const aa = resize(a, w, W, true, loc);
      const bb = resize(b, w, W, true, loc);
      const r = bin(op, aa, bb, loc);
      return and(app('sge', [r, bv(minSigned(w), W, loc)], loc), app('sle', [r, bv(maxSigned(w), W, loc)], loc), loc);
    }
    const ZERO = bv(0n, w, loc);
    const neg = (x: Expr) => app('slt', [x, ZERO], loc);
    const r = bin(op, a, b, loc);
    if (op === '+') return un('!', and(eq(neg(a), neg(b), loc), un('!', eq(neg(r), neg(a), loc), loc), loc), loc);
    if (op === '-') return un('!', and(un('!', eq(neg(a), neg(b), loc), loc), un('!', eq(neg(r), neg(a), loc), loc), loc), loc);
    // 64-bit multiplication without a wider type: multiply the magnitudes in
    // 32-bit halves (a division-based check is far harder for the solver).
    const na = neg(a);
    const nb = neg(b);
    const ua = ite(na, un('-', a, loc), a, loc);
    const ub = ite(nb, un('-', b, loc), b, loc);
    const K32 = bv(32n, w, loc);
    const LOW = bv(0xffffffffn, w, loc);
    const ah = app('lshr', [ua, K32], loc);
    const bh = app('lshr', [ub, K32], loc);
    const al = bin('&', ua, LOW, loc);
    const bl = bin('&', ub, LOW, loc);
    const cross = bin('+', bin('*', ah, bl, loc), bin('*', al, bh, loc), loc);
    const hi = bin('<<', cross, K32, loc);
    const sum = bin('+', hi, bin('*', al, bl, loc), loc);
    const limit = ite(eq(na, nb, loc), bv(maxSigned(w), w, loc), bv(-minSigned(w), w, loc), loc);
    return andAll(
      [
        or(eq(ah, ZERO, loc), eq(bh, ZERO, loc), loc),
        app('ult', [cross, bv(1n << 32n, w, loc)], loc),
        app('uge', [sum, hi], loc),
        app('ule', [sum, limit], loc),
      ],
      loc,
    );
  }
}
