// Integer intervals with unbounded ends (`null` = infinite), over bigint.

export interface Interval {
  /** Lower bound; null = minus infinity. */
  readonly lo: bigint | null;
  /** Upper bound; null = plus infinity. */
  readonly hi: bigint | null;
}

export const TOP: Interval = { lo: null, hi: null };

export function iv(lo: bigint | null, hi: bigint | null): Interval {
  return { lo, hi };
}
export function constant(c: bigint): Interval {
  return { lo: c, hi: c };
}

export function isEmpty(a: Interval): boolean {
  return a.lo !== null && a.hi !== null && a.lo > a.hi;
}

const minLo = (a: bigint | null, b: bigint | null) => (a === null || b === null ? null : a < b ? a : b);
const maxHi = (a: bigint | null, b: bigint | null) => (a === null || b === null ? null : a > b ? a : b);
const maxLo = (a: bigint | null, b: bigint | null) => (a === null ? b : b === null ? a : a > b ? a : b);
const minHi = (a: bigint | null, b: bigint | null) => (a === null ? b : b === null ? a : a < b ? a : b);

export function join(a: Interval, b: Interval): Interval {
  return { lo: minLo(a.lo, b.lo), hi: maxHi(a.hi, b.hi) };
}
export function meet(a: Interval, b: Interval): Interval {
  return { lo: maxLo(a.lo, b.lo), hi: minHi(a.hi, b.hi) };
}
/** a ⊑ b */
export function leq(a: Interval, b: Interval): boolean {
  const loOk = b.lo === null || (a.lo !== null && a.lo >= b.lo);
  const hiOk = b.hi === null || (a.hi !== null && a.hi <= b.hi);
  return loOk && hiOk;
}
export function equal(a: Interval, b: Interval): boolean {
  return a.lo === b.lo && a.hi === b.hi;
}
/** Widening: a bound that grew goes to the given limit (infinite by default). */
export function widen(a: Interval, b: Interval, limit: Interval = TOP): Interval {
  const lo = a.lo !== null && (b.lo === null || b.lo < a.lo) ? (limit.lo !== null && a.lo > limit.lo ? limit.lo : null) : a.lo;
  const hi = a.hi !== null && (b.hi === null || b.hi > a.hi) ? (limit.hi !== null && a.hi < limit.hi ? limit.hi : null) : a.hi;
  return { lo, hi };
}

export function contains(a: Interval, x: bigint): boolean {
  return (a.lo === null || a.lo <= x) && (a.hi === null || x <= a.hi);
}
/** a ⊆ [lo, hi] (finite bounds) */
export function within(a: Interval, lo: bigint, hi: bigint): boolean {
  return a.lo !== null && a.hi !== null && a.lo >= lo && a.hi <= hi;
}

export function add(a: Interval, b: Interval): Interval {
  return { lo: a.lo === null || b.lo === null ? null : a.lo + b.lo, hi: a.hi === null || b.hi === null ? null : a.hi + b.hi };
}
export function neg(a: Interval): Interval {
  return { lo: a.hi === null ? null : -a.hi, hi: a.lo === null ? null : -a.lo };
}
export function sub(a: Interval, b: Interval): Interval {
  return add(a, neg(b));
}
export function shift(a: Interval, c: bigint): Interval {
  return { lo: a.lo === null ? null : a.lo + c, hi: a.hi === null ? null : a.hi + c };
}
export function mul(a: Interval, b: Interval): Interval {
  if (a.lo === null || a.hi === null || b.lo === null || b.hi === null) {
    if (a.lo === 0n && a.hi === 0n) return constant(0n);
    if (b.lo === 0n && b.hi === 0n) return constant(0n);
    return TOP;
  }
  const ps = [a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi];
  return { lo: ps.reduce((x, y) => (x < y ? x : y)), hi: ps.reduce((x, y) => (x > y ? x : y)) };
}
/** Division by a positive constant with the given rounding (monotone in the dividend). */
export function divBy(a: Interval, c: bigint, round: (x: bigint, c: bigint) => bigint): Interval {
  return { lo: a.lo === null ? null : round(a.lo, c), hi: a.hi === null ? null : round(a.hi, c) };
}
export const truncDiv = (x: bigint, c: bigint): bigint => x / c;
export const floorDiv = (x: bigint, c: bigint): bigint => {
  const q = x / c;
  return x % c !== 0n && x < 0n ? q - 1n : q;
};
