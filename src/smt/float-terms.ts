// Terms of SMT-LIB's FloatingPoint theory, folded by the exact arithmetic of
// common/ieee754.ts when every argument is a literal (so that programs whose
// float values are constants collapse while they are encoded).
import * as ieee from '../common/ieee754.js';
import { BitVecSort, BoolSort, FloatSort, mkBool, mkBv, mkFloatLit, mkSorted, type Term } from './terms.js';

type Fmt = { eb: number; sb: number };

function fmt(t: Term): Fmt {
  if (t.sort.kind !== 'FloatingPoint') throw new Error(`ill-sorted term: a float operation on ${t.sort.kind}`);
  return t.sort;
}

const lit = (t: Term) => t.op === 'fplit';
const rmOf = (t: Term) => (t.op === 'rm' ? (t.text as ieee.RoundingMode) : undefined);
const value = (f: Fmt, bits: bigint) => mkFloatLit(ieee.canonical(f, bits), f.eb, f.sb);

export type FpArith = 'fp.add' | 'fp.sub' | 'fp.mul' | 'fp.div';

/** `(fp.add rm a b)` and the other rounded binary operations. */
export function mkFpArith(op: FpArith, rm: Term, a: Term, b: Term): Term {
  const f = fmt(a);
  const mode = rmOf(rm);
  if (mode && lit(a) && lit(b)) {
    const fn = op === 'fp.add' ? ieee.add : op === 'fp.sub' ? ieee.sub : op === 'fp.mul' ? ieee.mul : ieee.div;
    return value(f, fn(f, mode, a.value!, b.value!));
  }
  return mkSorted(op, [rm, a, b], a.sort);
}

export function mkFpFma(rm: Term, a: Term, b: Term, c: Term): Term {
  const f = fmt(a);
  const mode = rmOf(rm);
  if (mode && lit(a) && lit(b) && lit(c)) return value(f, ieee.fma(f, mode, a.value!, b.value!, c.value!));
  return mkSorted('fp.fma', [rm, a, b, c], a.sort);
}

/** `fp.sqrt` and `fp.roundToIntegral`. */
export function mkFpRounded1(op: 'fp.sqrt' | 'fp.roundToIntegral', rm: Term, a: Term): Term {
  const f = fmt(a);
  const mode = rmOf(rm);
  if (mode && lit(a)) return value(f, op === 'fp.sqrt' ? ieee.sqrt(f, mode, a.value!) : ieee.roundToIntegral(f, mode, a.value!));
  return mkSorted(op, [rm, a], a.sort);
}

export function mkFpRem(a: Term, b: Term): Term {
  const f = fmt(a);
  if (lit(a) && lit(b)) return value(f, ieee.rem(f, a.value!, b.value!));
  return mkSorted('fp.rem', [a, b], a.sort);
}

export function mkFpNeg(a: Term): Term {
  const f = fmt(a);
  if (lit(a)) return value(f, ieee.neg(f, a.value!));
  if (a.op === 'fp.neg') return a.args[0];
  return mkSorted('fp.neg', [a], a.sort);
}

export function mkFpAbs(a: Term): Term {
  const f = fmt(a);
  if (lit(a)) return value(f, ieee.abs(f, a.value!));
  return mkSorted('fp.abs', [a], a.sort);
}

export type FpCompare = 'fp.eq' | 'fp.lt' | 'fp.leq' | 'fp.gt' | 'fp.geq';

export function mkFpCompare(op: FpCompare, a: Term, b: Term): Term {
  const f = fmt(a);
  if (lit(a) && lit(b)) {
    const c = ieee.compare(f, a.value!, b.value!);
    const holds = { 'fp.eq': c === 0, 'fp.lt': c === -1, 'fp.leq': c === -1 || c === 0, 'fp.gt': c === 1, 'fp.geq': c === 1 || c === 0 }[op];
    return mkBool(holds);
  }
  return mkSorted(op, [a, b], BoolSort);
}

export type FpClass = 'fp.isNaN' | 'fp.isInfinite' | 'fp.isZero' | 'fp.isNormal' | 'fp.isSubnormal' | 'fp.isNegative' | 'fp.isPositive';

export function mkFpClass(op: FpClass, a: Term): Term {
  const f = fmt(a);
  if (lit(a)) {
    const c = ieee.classify(f, a.value!);
    const negative = ieee.isNegative(f, a.value!);
    const holds = {
      'fp.isNaN': c === 'nan',
      'fp.isInfinite': c === 'infinite',
      'fp.isZero': c === 'zero',
      'fp.isNormal': c === 'normal',
      'fp.isSubnormal': c === 'subnormal',
      'fp.isNegative': negative,
      'fp.isPositive': c !== 'nan' && !negative,
    }[op];
    return mkBool(holds);
  }
  return mkSorted(op, [a], BoolSort);
}

/** A float of another format, rounded by rm. */
export function mkFpToFp(rm: Term, a: Term, to: Fmt): Term {
  const f = fmt(a);
  if (f.eb === to.eb && f.sb === to.sb) return a;
  const mode = rmOf(rm);
  if (mode && lit(a)) return value(to, ieee.convert(f, to, mode, a.value!));
  return mkSorted('to_fp', [rm, a], FloatSort(to.eb, to.sb), [to.eb, to.sb]);
}

/** A signed (`to_fp`) or unsigned (`to_fp_unsigned`) bit-vector as a float, rounded by rm. */
export function mkBvToFp(rm: Term, a: Term, signed: boolean, to: Fmt): Term {
  const mode = rmOf(rm);
  if (mode && a.op === 'bv') {
    const w = (a.sort as { width: number }).width;
    const n = signed ? BigInt.asIntN(w, a.value!) : a.value!;
    return value(to, ieee.fromInteger(to, mode, n));
  }
  return mkSorted(signed ? 'to_fp' : 'to_fp_unsigned', [rm, a], FloatSort(to.eb, to.sb), [to.eb, to.sb]);
}

/** A float's value rounded by rm to a width-bit integer; unspecified for NaN, infinities and values out of range. */
export function mkFpToBv(rm: Term, a: Term, signed: boolean, width: number): Term {
  const f = fmt(a);
  const mode = rmOf(rm);
  if (mode && lit(a)) {
    const n = ieee.toInteger(f, mode, a.value!);
    const lo = signed ? -(1n << BigInt(width - 1)) : 0n;
    const hi = signed ? 1n << BigInt(width - 1) : 1n << BigInt(width);
    if (n !== undefined && n >= lo && n < hi) return mkBv(n, width);
  }
  return mkSorted(signed ? 'fp.to_sbv' : 'fp.to_ubv', [rm, a], BitVecSort(width), [width]);
}

/** The float whose IEEE bits are the bit-vector (every NaN pattern is NaN). */
export function mkBitsToFp(a: Term, to: Fmt): Term {
  if (a.op === 'bv') return value(to, a.value!);
  return mkSorted('to_fp', [a], FloatSort(to.eb, to.sb), [to.eb, to.sb]);
}
