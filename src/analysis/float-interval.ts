// Intervals of binary32 and binary64 values under round-to-nearest-even, in
// JavaScript numbers (every binary32 and binary64 value is one). Rounding is
// monotone, so the rounded results of an operation on a box lie between
// the rounded results at its corners: each bound is computed exactly as the
// program computes it (binary64 arithmetic is JavaScript's own; a binary32
// sum, difference, product or quotient of binary32 values rounded once to
// binary64 and then to binary32 is the correctly rounded one, 53 >= 2 * 24 + 2).
// -0 and +0 are one point of the order (as IEEE comparisons see them); a NaN
// is a flag of its own.

export type FloatFormatName = 'fp32' | 'fp64';

export interface FloatInterval {
  /** Bounds of the values that are not NaN (lo > hi: none). */
  readonly lo: number;
  readonly hi: number;
  /** A NaN is possible. */
  readonly nan: boolean;
}

/** Three-valued truth: definitely true, definitely false, or either. */
export type Truth = 'true' | 'false' | 'either';

export const NAN_ONLY: FloatInterval = { lo: Infinity, hi: -Infinity, nan: true };
export const ANY_FLOAT: FloatInterval = { lo: -Infinity, hi: Infinity, nan: true };

export function round(f: FloatFormatName, x: number): number {
  return f === 'fp32' ? Math.fround(x) : x;
}

export function point(x: number): FloatInterval {
  return Number.isNaN(x) ? NAN_ONLY : { lo: x, hi: x, nan: false };
}

export function hasValues(a: FloatInterval): boolean {
  return a.lo <= a.hi;
}

export function join(a: FloatInterval, b: FloatInterval): FloatInterval {
  return { lo: Math.min(a.lo, b.lo), hi: Math.max(a.hi, b.hi), nan: a.nan || b.nan };
}

function contains(a: FloatInterval, x: number): boolean {
  return a.lo <= x && x <= a.hi;
}

/** The hull of the corner results (NaN corners left out), and whether a NaN may arise. */
function hull(f: FloatFormatName, corners: readonly number[], nan: boolean): FloatInterval {
  let lo = Infinity;
  let hi = -Infinity;
  for (const c of corners) {
    if (Number.isNaN(c)) continue;
    const r = round(f, c);
    if (r < lo) lo = r;
    if (r > hi) hi = r;
  }
  return { lo, hi, nan };
}

export function add(f: FloatFormatName, a: FloatInterval, b: FloatInterval): FloatInterval {
  if (!hasValues(a) || !hasValues(b)) return NAN_ONLY;
  // inf + -inf is NaN.
  const nan = a.nan || b.nan || (contains(a, Infinity) && contains(b, -Infinity)) || (contains(a, -Infinity) && contains(b, Infinity));
  return hull(f, [a.lo + b.lo, a.lo + b.hi, a.hi + b.lo, a.hi + b.hi], nan);
}

export function neg(a: FloatInterval): FloatInterval {
  return { lo: -a.hi, hi: -a.lo, nan: a.nan };
}

export function sub(f: FloatFormatName, a: FloatInterval, b: FloatInterval): FloatInterval {
  return add(f, a, neg(b));
}

const hasZero = (a: FloatInterval) => contains(a, 0);
const hasInf = (a: FloatInterval) => contains(a, Infinity) || contains(a, -Infinity);

export function mul(f: FloatFormatName, a: FloatInterval, b: FloatInterval): FloatInterval {
  if (!hasValues(a) || !hasValues(b)) return NAN_ONLY;
  // 0 * inf is NaN.
  const nan = a.nan || b.nan || (hasZero(a) && hasInf(b)) || (hasInf(a) && hasZero(b));
  return hull(f, [a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi], nan);
}

export function div(f: FloatFormatName, a: FloatInterval, b: FloatInterval): FloatInterval {
  if (!hasValues(a) || !hasValues(b)) return NAN_ONLY;
  // A divisor that may be zero (of either sign): any value.
  if (hasZero(b)) return ANY_FLOAT;
  const nan = a.nan || b.nan || (hasInf(a) && hasInf(b));
  return hull(f, [a.lo / b.lo, a.lo / b.hi, a.hi / b.lo, a.hi / b.hi], nan);
}

export function abs(a: FloatInterval): FloatInterval {
  if (!hasValues(a)) return a;
  if (a.lo >= 0) return a;
  if (a.hi <= 0) return neg(a);
  return { lo: 0, hi: Math.max(-a.lo, a.hi), nan: a.nan };
}

/** Conversion between the formats (to binary32: rounding, monotone; to binary64: exact). */
export function convert(to: FloatFormatName, a: FloatInterval): FloatInterval {
  if (!hasValues(a)) return a;
  return { lo: round(to, a.lo), hi: round(to, a.hi), nan: a.nan };
}

export function lt(a: FloatInterval, b: FloatInterval): Truth {
  if (!hasValues(a) || !hasValues(b)) return 'false';
  if (a.hi < b.lo) return a.nan || b.nan ? 'either' : 'true';
  if (a.lo >= b.hi) return 'false';
  return 'either';
}

export function le(a: FloatInterval, b: FloatInterval): Truth {
  if (!hasValues(a) || !hasValues(b)) return 'false';
  if (a.hi <= b.lo) return a.nan || b.nan ? 'either' : 'true';
  if (a.lo > b.hi) return 'false';
  return 'either';
}

/** IEEE equality. */
export function eq(a: FloatInterval, b: FloatInterval): Truth {
  if (!hasValues(a) || !hasValues(b)) return 'false';
  if (a.hi < b.lo || b.hi < a.lo) return 'false';
  if (a.lo === a.hi && b.lo === b.hi && a.lo === b.lo) return a.nan || b.nan ? 'either' : 'true';
  return 'either';
}

export function isNan(a: FloatInterval): Truth {
  return !a.nan ? 'false' : hasValues(a) ? 'either' : 'true';
}

/** Whether the value is ±0 (a NaN is not). */
export function isZero(a: FloatInterval): Truth {
  if (!hasZero(a)) return 'false';
  return a.lo === 0 && a.hi === 0 && !a.nan ? 'true' : 'either';
}

export function isInf(a: FloatInterval): Truth {
  if (!hasInf(a)) return 'false';
  return (a.lo === Infinity || a.hi === -Infinity) && !a.nan ? 'true' : 'either';
}

/** Truth of a value whose sign bit is asked (fp.isNegative: false for NaN); zeros of both signs count as either. */
export function isNegative(a: FloatInterval): Truth {
  if (!hasValues(a)) return 'false';
  if (a.hi < 0) return a.nan ? 'either' : 'true';
  if (a.lo > 0) return 'false';
  return 'either';
}
