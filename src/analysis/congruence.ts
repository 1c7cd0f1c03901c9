// Congruences `x ≡ r (mod m)`: m = 0 means the constant r, m = 1 no
// information. r is kept in [0, m) when m > 0.

export interface Congruence {
  readonly m: bigint;
  readonly r: bigint;
}

export const ANY: Congruence = { m: 1n, r: 0n };

function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a;
  b = b < 0n ? -b : b;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}
function mod(x: bigint, m: bigint): bigint {
  return ((x % m) + m) % m;
}

export function cong(m: bigint, r: bigint): Congruence {
  m = m < 0n ? -m : m;
  return m === 0n ? { m, r } : { m, r: mod(r, m) };
}
export function exactly(c: bigint): Congruence {
  return { m: 0n, r: c };
}
export function join(a: Congruence, b: Congruence): Congruence {
  return cong(gcd(gcd(a.m, b.m), a.r - b.r), a.r);
}
/** a ⊑ b */
export function leq(a: Congruence, b: Congruence): boolean {
  if (b.m === 1n) return true;
  if (b.m === 0n) return a.m === 0n && a.r === b.r;
  return a.m % b.m === 0n && mod(a.r, b.m) === b.r;
}
/** Meet; undefined when empty. Only the cases that refine cheaply: a constant, or one side ⊑ the other. */
export function meet(a: Congruence, b: Congruence): Congruence | undefined {
  if (leq(a, b)) return a;
  if (leq(b, a)) return b;
  if (a.m === 0n) return b.m !== 0n && mod(a.r, b.m) === b.r ? a : undefined;
  if (b.m === 0n) return a.m !== 0n && mod(b.r, a.m) === a.r ? b : undefined;
  // Both proper moduli: keep a (sound, as a meet may over-approximate).
  return gcd(a.m, b.m) > 0n && mod(a.r - b.r, gcd(a.m, b.m)) !== 0n ? undefined : a;
}
export function add(a: Congruence, b: Congruence): Congruence {
  return cong(gcd(a.m, b.m), a.r + b.r);
}
export function negate(a: Congruence): Congruence {
  return cong(a.m, -a.r);
}
export function scale(a: Congruence, c: bigint): Congruence {
  return cong(a.m * c, a.r * c);
}
/** The value taken modulo 2^w (bit-vector wrap-around): only a modulus dividing 2^w survives. */
export function wrap(a: Congruence, w: number): Congruence {
  return cong(gcd(a.m, 1n << BigInt(w)), a.r);
}
export function equal(a: Congruence, b: Congruence): boolean {
  return a.m === b.m && a.r === b.r;
}
export function contains(a: Congruence, x: bigint): boolean {
  return a.m === 0n ? x === a.r : mod(x, a.m) === a.r;
}
