// IEEE 754 binary floating point, exact to the bit, in BigInt arithmetic:
// the operations of SMT-LIB's FloatingPoint theory (and of C on x86 with SSE
// for binary32/binary64, x87 for the 80-bit extended format) for any format,
// every rounding mode, subnormals, signed zeros, infinities. There is one NaN
// (SMT-LIB's): every NaN result is the canonical quiet NaN, payloads are not
// modelled. Values are their packed bits: sign, eb exponent bits, sb-1
// fraction bits (the 80-bit format's explicit integer bit is not stored; see
// `x87ToPacked`).

export interface FloatFormat {
  /** Exponent bits. */
  readonly eb: number;
  /** Significand bits, the hidden bit included. */
  readonly sb: number;
}

export const BINARY32: FloatFormat = { eb: 8, sb: 24 };
export const BINARY64: FloatFormat = { eb: 11, sb: 53 };
/** x87 extended precision as a value set: 15 exponent bits, 64 significand bits. */
export const X87_EXTENDED: FloatFormat = { eb: 15, sb: 64 };

export type RoundingMode = 'RNE' | 'RNA' | 'RTP' | 'RTN' | 'RTZ';
export const ROUNDING_MODES: readonly RoundingMode[] = ['RNE', 'RNA', 'RTP', 'RTN', 'RTZ'];

export type Decoded =
  | { readonly kind: 'nan' }
  | { readonly kind: 'inf'; readonly neg: boolean }
  | { readonly kind: 'zero'; readonly neg: boolean }
  /** The value (-1)^neg * m * 2^e, m > 0. */
  | { readonly kind: 'finite'; readonly neg: boolean; readonly m: bigint; readonly e: number };

const bias = (f: FloatFormat) => (1 << (f.eb - 1)) - 1;
const emin = (f: FloatFormat) => 1 - bias(f);
const emax = (f: FloatFormat) => bias(f);
/** Exponent of the unit in the last place of the subnormals. */
const qmin = (f: FloatFormat) => emin(f) - (f.sb - 1);
const fracBits = (f: FloatFormat) => f.sb - 1;
const expMask = (f: FloatFormat) => (1n << BigInt(f.eb)) - 1n;

export function totalBits(f: FloatFormat): number {
  return f.eb + f.sb;
}

function pack(f: FloatFormat, neg: boolean, exp: bigint, frac: bigint): bigint {
  return ((neg ? 1n : 0n) << BigInt(f.eb + f.sb - 1)) | (exp << BigInt(fracBits(f))) | frac;
}

export function nanBits(f: FloatFormat): bigint {
  return pack(f, false, expMask(f), 1n << BigInt(fracBits(f) - 1));
}
export function infBits(f: FloatFormat, neg: boolean): bigint {
  return pack(f, neg, expMask(f), 0n);
}
export function zeroBits(f: FloatFormat, neg: boolean): bigint {
  return pack(f, neg, 0n, 0n);
}
export function maxFiniteBits(f: FloatFormat, neg: boolean): bigint {
  return pack(f, neg, expMask(f) - 1n, (1n << BigInt(fracBits(f))) - 1n);
}

export function decode(f: FloatFormat, bits: bigint): Decoded {
  const fb = BigInt(fracBits(f));
  const neg = (bits >> BigInt(f.eb + f.sb - 1)) & 1n ? true : false;
  const exp = (bits >> fb) & expMask(f);
  const frac = bits & ((1n << fb) - 1n);
  if (exp === expMask(f)) return frac === 0n ? { kind: 'inf', neg } : { kind: 'nan' };
  if (exp === 0n) return frac === 0n ? { kind: 'zero', neg } : { kind: 'finite', neg, m: frac, e: qmin(f) };
  return { kind: 'finite', neg, m: frac | (1n << fb), e: Number(exp) - bias(f) - fracBits(f) };
}

/** The bits of a value, NaN made canonical (the one NaN of the semantics). */
export function canonical(f: FloatFormat, bits: bigint): bigint {
  return decode(f, bits).kind === 'nan' ? nanBits(f) : bits;
}

export function isNaN(f: FloatFormat, bits: bigint): boolean {
  return decode(f, bits).kind === 'nan';
}

function bitLength(n: bigint): number {
  return n === 0n ? 0 : n.toString(2).length;
}

/**
 * Whether a magnitude q + rest/2^k (0 <= rest < 2^k, `sticky`: something
 * below rest) rounds up to q + 1 under `rm` for a value of sign `neg`.
 */
function roundsUp(q: bigint, rest: bigint, k: number, sticky: boolean, neg: boolean, rm: RoundingMode): boolean {
  const inexact = rest !== 0n || sticky;
  if (!inexact) return false;
  switch (rm) {
    case 'RTZ':
      return false;
    case 'RTP':
      return !neg;
    case 'RTN':
      return neg;
    default: {
      const half = k === 0 ? 0n : 1n << BigInt(k - 1);
      if (k === 0) return false; // only sticky: below half
      if (rest > half || (rest === half && sticky)) return true;
      if (rest < half) return false;
      return rm === 'RNA' || (q & 1n) === 1n;
    }
  }
}

/**
 * Rounds (-1)^neg * (m * 2^e + δ) to the format, where 0 < δ < 2^e when
 * `sticky` (the value is a little above m * 2^e) and δ = 0 otherwise. With
 * `sticky`, m must carry at least two bits below the result's precision.
 */
export function roundToFormat(f: FloatFormat, neg: boolean, m: bigint, e: number, rm: RoundingMode, sticky = false): bigint {
  if (m === 0n) {
    if (!sticky) return zeroBits(f, neg);
    throw new Error('roundToFormat: a sticky bit needs a significand');
  }
  const top = e + bitLength(m) - 1;
  const ulp = Math.max(top, emin(f)) - fracBits(f);
  let q: bigint;
  if (e >= ulp) {
    if (sticky) throw new Error('roundToFormat: not enough precision for a sticky bit');
    q = m << BigInt(e - ulp);
  } else {
    const k = ulp - e;
    q = m >> BigInt(k);
    const rest = m - (q << BigInt(k));
    if (roundsUp(q, rest, k, sticky, neg, rm)) q += 1n;
  }
  return encodeMagnitude(f, neg, q, ulp, rm);
}

/** Bits of (-1)^neg * q * 2^ulp where q fits the precision at ulp (possibly one carry above it); overflow by `rm`. */
function encodeMagnitude(f: FloatFormat, neg: boolean, q: bigint, ulp: number, rm: RoundingMode): bigint {
  if (q === 0n) return zeroBits(f, neg);
  const hidden = 1n << BigInt(fracBits(f));
  while (q >= hidden << 1n) {
    // A carry out of the top: the value stays exact (q is even then).
    q >>= 1n;
    ulp += 1;
  }
  if (q < hidden) {
    // Subnormal (ulp is the subnormal quantum).
    return pack(f, neg, 0n, q);
  }
  const exp = ulp + fracBits(f);
  if (exp > emax(f)) return overflow(f, neg, rm);
  return pack(f, neg, BigInt(exp + bias(f)), q - hidden);
}

function overflow(f: FloatFormat, neg: boolean, rm: RoundingMode): bigint {
  const toInf = rm === 'RNE' || rm === 'RNA' || (rm === 'RTP' && !neg) || (rm === 'RTN' && neg);
  return toInf ? infBits(f, neg) : maxFiniteBits(f, neg);
}

/** Rounds (-1)^neg * p/q (p, q > 0) to the format. */
export function roundRational(f: FloatFormat, neg: boolean, p: bigint, q: bigint, rm: RoundingMode): bigint {
  if (p === 0n) return zeroBits(f, neg);
  // Scale so that the quotient has at least sb + 2 bits.
  const k = f.sb + 3 - (bitLength(p) - bitLength(q));
  const num = k >= 0 ? p << BigInt(k) : p;
  const den = k >= 0 ? q : q << BigInt(-k);
  const quo = num / den;
  const sticky = quo * den !== num;
  return roundToFormat(f, neg, quo, -k, rm, sticky);
}

/** An exact rational of the value (finite values only): [num, den], den > 0 a power of two. */
export function toRational(f: FloatFormat, bits: bigint): [bigint, bigint] | undefined {
  const d = decode(f, bits);
  if (d.kind === 'zero') return [0n, 1n];
  if (d.kind !== 'finite') return undefined;
  const s = d.neg ? -d.m : d.m;
  return d.e >= 0 ? [s << BigInt(d.e), 1n] : [s, 1n << BigInt(-d.e)];
}

// ---- arithmetic ----

/** Sign of an exact zero sum: -0 only for (-0) + (-0), or under RTN. */
function zeroSumSign(aNeg: boolean, bNeg: boolean, rm: RoundingMode): boolean {
  return aNeg && bNeg ? true : aNeg !== bNeg ? rm === 'RTN' : aNeg;
}

export function add(f: FloatFormat, rm: RoundingMode, a: bigint, b: bigint): bigint {
  return addDecoded(f, rm, decode(f, a), decode(f, b));
}

function addDecoded(f: FloatFormat, rm: RoundingMode, x: Decoded, y: Decoded): bigint {
  if (x.kind === 'nan' || y.kind === 'nan') return nanBits(f);
  if (x.kind === 'inf' && y.kind === 'inf') return x.neg === y.neg ? infBits(f, x.neg) : nanBits(f);
  if (x.kind === 'inf') return infBits(f, x.neg);
  if (y.kind === 'inf') return infBits(f, y.neg);
  if (x.kind === 'zero' && y.kind === 'zero') return zeroBits(f, zeroSumSign(x.neg, y.neg, rm));
  return sumRound(f, rm, signedDyadic(x), signedDyadic(y), x.neg, y.neg);
}

function signedDyadic(d: Decoded): { s: bigint; e: number } {
  if (d.kind === 'zero') return { s: 0n, e: 0 };
  if (d.kind !== 'finite') throw new Error('signedDyadic of a non-finite value');
  return { s: d.neg ? -d.m : d.m, e: d.e };
}

/** Rounds the exact sum of two dyadic values; an exact zero gets the sign IEEE gives it. */
function sumRound(f: FloatFormat, rm: RoundingMode, x: { s: bigint; e: number }, y: { s: bigint; e: number }, xNeg: boolean, yNeg: boolean): bigint {
  const e = x.s === 0n ? y.e : y.s === 0n ? x.e : Math.min(x.e, y.e);
  const s = (x.s << BigInt(x.e - e)) + (y.s << BigInt(y.e - e));
  if (s === 0n) return zeroBits(f, x.s === 0n && y.s === 0n ? zeroSumSign(xNeg, yNeg, rm) : rm === 'RTN');
  return roundToFormat(f, s < 0n, s < 0n ? -s : s, e, rm);
}

export function neg(f: FloatFormat, a: bigint): bigint {
  if (isNaN(f, a)) return nanBits(f);
  return a ^ (1n << BigInt(f.eb + f.sb - 1));
}

export function abs(f: FloatFormat, a: bigint): bigint {
  if (isNaN(f, a)) return nanBits(f);
  return a & ((1n << BigInt(f.eb + f.sb - 1)) - 1n);
}

export function sub(f: FloatFormat, rm: RoundingMode, a: bigint, b: bigint): bigint {
  return add(f, rm, a, neg(f, b));
}

export function mul(f: FloatFormat, rm: RoundingMode, a: bigint, b: bigint): bigint {
  const x = decode(f, a);
  const y = decode(f, b);
  if (x.kind === 'nan' || y.kind === 'nan') return nanBits(f);
  const sign = (x as { neg: boolean }).neg !== (y as { neg: boolean }).neg;
  if (x.kind === 'inf' || y.kind === 'inf') return x.kind === 'zero' || y.kind === 'zero' ? nanBits(f) : infBits(f, sign);
  if (x.kind === 'zero' || y.kind === 'zero') return zeroBits(f, sign);
  return roundToFormat(f, sign, x.m * y.m, x.e + y.e, rm);
}

export function div(f: FloatFormat, rm: RoundingMode, a: bigint, b: bigint): bigint {
  const x = decode(f, a);
  const y = decode(f, b);
  if (x.kind === 'nan' || y.kind === 'nan') return nanBits(f);
  const sign = (x as { neg: boolean }).neg !== (y as { neg: boolean }).neg;
  if (x.kind === 'inf') return y.kind === 'inf' ? nanBits(f) : infBits(f, sign);
  if (y.kind === 'inf') return zeroBits(f, sign);
  if (y.kind === 'zero') return x.kind === 'zero' ? nanBits(f) : infBits(f, sign);
  if (x.kind === 'zero') return zeroBits(f, sign);
  // m_x 2^e_x / (m_y 2^e_y)
  const d = x.e - y.e;
  const p = d >= 0 ? x.m << BigInt(d) : x.m;
  const q = d >= 0 ? y.m : y.m << BigInt(-d);
  return roundRational(f, sign, p, q, rm);
}

/** a * b + c with one rounding. */
export function fma(f: FloatFormat, rm: RoundingMode, a: bigint, b: bigint, c: bigint): bigint {
  const x = decode(f, a);
  const y = decode(f, b);
  const z = decode(f, c);
  if (x.kind === 'nan' || y.kind === 'nan' || z.kind === 'nan') return nanBits(f);
  const pNeg = (x as { neg: boolean }).neg !== (y as { neg: boolean }).neg;
  if (x.kind === 'inf' || y.kind === 'inf') {
    if (x.kind === 'zero' || y.kind === 'zero') return nanBits(f);
    if (z.kind === 'inf' && z.neg !== pNeg) return nanBits(f);
    return infBits(f, pNeg);
  }
  if (z.kind === 'inf') return infBits(f, z.neg);
  const prod = x.kind === 'zero' || y.kind === 'zero' ? { s: 0n, e: 0 } : { s: pNeg ? -(x.m * y.m) : x.m * y.m, e: x.e + y.e };
  if (prod.s === 0n && z.kind === 'zero') return zeroBits(f, zeroSumSign(pNeg, z.neg, rm));
  return sumRound(f, rm, prod, signedDyadic(z), pNeg, z.neg);
}

function isqrt(n: bigint): bigint {
  if (n < 2n) return n;
  let x = 1n << BigInt(Math.ceil(bitLength(n) / 2));
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) return x;
    x = y;
  }
}

export function sqrt(f: FloatFormat, rm: RoundingMode, a: bigint): bigint {
  const x = decode(f, a);
  if (x.kind === 'nan') return nanBits(f);
  if (x.kind === 'zero') return a;
  if (x.neg) return nanBits(f);
  if (x.kind === 'inf') return a;
  // Make the exponent even and the radicand wide enough for sb + 2 result bits.
  let m = x.m;
  let e = x.e;
  let shift = Math.max(0, 2 * (f.sb + 3) - bitLength(m));
  if ((e - shift) % 2 !== 0) shift += 1;
  m <<= BigInt(shift);
  e -= shift;
  const r = isqrt(m);
  return roundToFormat(f, false, r, e / 2, rm, r * r !== m);
}

/** The integer nearest to (-1)^neg m 2^e by `rm` (e < 0), as a magnitude. */
function roundToInteger(neg: boolean, m: bigint, e: number, rm: RoundingMode): bigint {
  if (e >= 0) return m << BigInt(e);
  const k = -e;
  const q = m >> BigInt(k);
  const rest = m - (q << BigInt(k));
  return roundsUp(q, rest, k, false, neg, rm) ? q + 1n : q;
}

/** IEEE roundToIntegral: the integral value of the format nearest by `rm`; a zero keeps the operand's sign. */
export function roundToIntegral(f: FloatFormat, rm: RoundingMode, a: bigint): bigint {
  const x = decode(f, a);
  if (x.kind === 'nan') return nanBits(f);
  if (x.kind !== 'finite' || x.e >= 0) return a;
  return roundToFormat(f, x.neg, roundToInteger(x.neg, x.m, x.e, rm), 0, rm);
}

/** IEEE remainder: a - n b with n the integer nearest a / b (ties to even). Exact. */
export function rem(f: FloatFormat, a: bigint, b: bigint): bigint {
  const x = decode(f, a);
  const y = decode(f, b);
  if (x.kind === 'nan' || y.kind === 'nan' || x.kind === 'inf' || y.kind === 'zero') return nanBits(f);
  if (y.kind === 'inf' || x.kind === 'zero') return a;
  const e = Math.min(x.e, y.e);
  const xm = x.m << BigInt(x.e - e);
  const ym = y.m << BigInt(y.e - e);
  // n = nearest integer to xm / ym, ties to even.
  let n = xm / ym;
  const r2 = 2n * (xm - n * ym);
  if (r2 > ym || (r2 === ym && (n & 1n) === 1n)) n += 1n;
  const r = xm - n * ym;
  if (r === 0n) return zeroBits(f, x.neg);
  const rNeg = x.neg !== r < 0n;
  return roundToFormat(f, rNeg, r < 0n ? -r : r, e, 'RNE');
}

// ---- comparisons and classification ----

/** -1, 0, 1, or undefined when unordered (a NaN). -0 equals +0. */
export function compare(f: FloatFormat, a: bigint, b: bigint): -1 | 0 | 1 | undefined {
  const x = toOrdered(decode(f, a));
  const y = toOrdered(decode(f, b));
  if (x === undefined || y === undefined) return undefined;
  if (x.inf !== y.inf) return x.inf < y.inf ? -1 : 1;
  if (x.inf !== 0) return 0;
  // Cross-multiply-free comparison of dyadic values.
  const e = Math.min(x.e, y.e);
  const xs = x.s << BigInt(x.e - e);
  const ys = y.s << BigInt(y.e - e);
  return xs < ys ? -1 : xs > ys ? 1 : 0;
}

function toOrdered(d: Decoded): { inf: number; s: bigint; e: number } | undefined {
  switch (d.kind) {
    case 'nan':
      return undefined;
    case 'inf':
      return { inf: d.neg ? -1 : 1, s: 0n, e: 0 };
    case 'zero':
      return { inf: 0, s: 0n, e: 0 };
    case 'finite':
      return { inf: 0, s: d.neg ? -d.m : d.m, e: d.e };
  }
}

export type FloatClass = 'nan' | 'infinite' | 'zero' | 'subnormal' | 'normal';

export function classify(f: FloatFormat, a: bigint): FloatClass {
  const d = decode(f, a);
  if (d.kind === 'nan') return 'nan';
  if (d.kind === 'inf') return 'infinite';
  if (d.kind === 'zero') return 'zero';
  return bitLength(d.m) < f.sb ? 'subnormal' : 'normal';
}

/** The sign bit of a value that is not NaN (SMT-LIB's fp.isNegative: false for NaN). */
export function isNegative(f: FloatFormat, a: bigint): boolean {
  const d = decode(f, a);
  return d.kind !== 'nan' && d.neg;
}

// ---- conversions ----

export function convert(from: FloatFormat, to: FloatFormat, rm: RoundingMode, a: bigint): bigint {
  const x = decode(from, a);
  switch (x.kind) {
    case 'nan':
      return nanBits(to);
    case 'inf':
      return infBits(to, x.neg);
    case 'zero':
      return zeroBits(to, x.neg);
    case 'finite':
      return roundToFormat(to, x.neg, x.m, x.e, rm);
  }
}

/** An integer (any size) rounded to the format; 0 is +0. */
export function fromInteger(f: FloatFormat, rm: RoundingMode, n: bigint): bigint {
  return n === 0n ? zeroBits(f, false) : roundToFormat(f, n < 0n, n < 0n ? -n : n, 0, rm);
}

/** The integer a value rounds to by `rm` (undefined for NaN and infinities). */
export function toInteger(f: FloatFormat, rm: RoundingMode, a: bigint): bigint | undefined {
  const x = decode(f, a);
  if (x.kind === 'zero') return 0n;
  if (x.kind !== 'finite') return undefined;
  const n = roundToInteger(x.neg, x.m, x.e, rm);
  return x.neg ? -n : n;
}

/** The least value above a (IEEE nextUp): +inf stays, NaN stays, -0 and +0 go to the least subnormal. */
export function nextUp(f: FloatFormat, a: bigint): bigint {
  const d = decode(f, a);
  if (d.kind === 'nan' || (d.kind === 'inf' && !d.neg)) return a;
  if (d.kind === 'zero') return 1n;
  if (d.kind === 'inf') return maxFiniteBits(f, true);
  return d.neg ? a - 1n : a + 1n;
}

export function nextDown(f: FloatFormat, a: bigint): bigint {
  return neg(f, nextUp(f, neg(f, a)));
}

// ---- text ----

/**
 * C's hexadecimal notation of a value, normalised: `0x1.8p+1`, `-0x0p+0`;
 * subnormals too are written `0x1.xxxp-N`. `inf`, `-inf`, `nan` otherwise.
 */
export function toHexString(f: FloatFormat, bits: bigint): string {
  const d = decode(f, bits);
  if (d.kind === 'nan') return 'nan';
  if (d.kind === 'inf') return d.neg ? '-inf' : 'inf';
  if (d.kind === 'zero') return d.neg ? '-0x0p+0' : '0x0p+0';
  const len = bitLength(d.m);
  const exp = d.e + len - 1;
  let frac = d.m - (1n << BigInt(len - 1));
  // Fraction digits: (len - 1) bits padded to whole hex digits, trailing zeros dropped.
  const fbits = len - 1;
  const digits = Math.ceil(fbits / 4);
  frac <<= BigInt(digits * 4 - fbits);
  let hex = digits > 0 ? frac.toString(16).padStart(digits, '0').replace(/0+$/, '') : '';
  const sign = d.neg ? '-' : '';
  return `${sign}0x1${hex ? '.' + hex : ''}p${exp >= 0 ? '+' : ''}${exp}`;
}

/** Parses a (signed) hexadecimal floating constant exactly, rounding to the format by `rm`; `inf`, `nan` too. */
export function parseHexFloat(f: FloatFormat, text: string, rm: RoundingMode = 'RNE'): bigint | undefined {
  const t = text.trim();
  const sign = t.startsWith('-');
  const body = t.replace(/^[+-]/, '');
  if (body === 'inf') return infBits(f, sign);
  if (body === 'nan') return nanBits(f);
  const m = /^0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?[pP]([+-]?\d+)$/.exec(body);
  if (!m || (m[1] === '' && (m[2] ?? '') === '')) return undefined;
  const digits = m[1] + (m[2] ?? '');
  const mant = BigInt('0x' + (digits === '' ? '0' : digits));
  const e = Number(m[3]) - 4 * (m[2]?.length ?? 0);
  if (mant === 0n) return zeroBits(f, sign);
  return roundToFormat(f, sign, mant, e, rm);
}

/** The value as a JavaScript number (exact for binary64 and narrower). */
export function toNumber(f: FloatFormat, bits: bigint): number {
  const d = decode(f, bits);
  switch (d.kind) {
    case 'nan':
      return NaN;
    case 'inf':
      return d.neg ? -Infinity : Infinity;
    case 'zero':
      return d.neg ? -0 : 0;
    case 'finite': {
      const b = roundToFormat(BINARY64, d.neg, d.m, d.e, 'RNE');
      const view = new DataView(new ArrayBuffer(8));
      view.setBigUint64(0, b);
      return view.getFloat64(0);
    }
  }
}

/** The bits of a JavaScript number rounded to the format. */
export function fromNumber(f: FloatFormat, x: number, rm: RoundingMode = 'RNE'): bigint {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  return convert(BINARY64, f, rm, view.getBigUint64(0));
}

// ---- the x87 80-bit memory format ----

/** The 80-bit x87 memory bits of a packed X87_EXTENDED value (the integer bit made explicit). */
export function packedToX87(bits: bigint): bigint {
  const sign = bits >> 78n;
  const exp = (bits >> 63n) & 0x7fffn;
  const frac = bits & ((1n << 63n) - 1n);
  const integer = exp === 0n ? 0n : 1n; // 1 for normals, infinities and NaN
  return (sign << 79n) | (exp << 64n) | (integer << 63n) | frac;
}

/**
 * The packed value of 80-bit x87 memory bits, as the x87 unit reads them:
 * pseudo-denormals are the subnormals' values; unnormals, pseudo-infinities
 * and pseudo-NaNs are invalid operands (NaN).
 */
export function x87ToPacked(bits: bigint): bigint {
  const sign = (bits >> 79n) & 1n;
  const exp = (bits >> 64n) & 0x7fffn;
  const integer = (bits >> 63n) & 1n;
  const frac = bits & ((1n << 63n) - 1n);
  const f = X87_EXTENDED;
  if (exp === 0n) {
    // Denormal (integer bit 0) or pseudo-denormal (integer bit 1: the value 1.frac * 2^emin).
    if (integer === 0n) return (sign << 78n) | frac;
    return roundToFormat(f, sign === 1n, (1n << 63n) | frac, qmin(f), 'RNE');
  }
  if (integer === 0n) return nanBits(f);
  return (sign << 78n) | (exp << 63n) | frac;
}
