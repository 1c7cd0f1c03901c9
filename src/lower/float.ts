// C floating point in IMP (docs/verify.md, "Floating point"): float, double
// and long double as fp32, fp64 and fp80, every operation rounded once to its
// own type in the program's current rounding mode, conversions as C and gcc
// do them, and the <math.h> functions modelled exactly. Pure functions over
// lowered operands; what needs a statement (an arbitrary value, the bits of
// a float) the caller provides through FloatHost.
import * as ieee from '../common/ieee754.js';
import type { DataModel, FloatKind } from '../c/types.js';
import { floatLiteralBits, floatFormatOf } from '../c/float-literal.js';
import { FLOAT_TYPES, type BuiltinName, type BvWidth, type Expr, type FloatType, type ImpType } from '../ivl/ast.js';
import { and, app, bin, boolLit, bv, ite, or, un, type L } from './imp-build.js';

export function floatImpType(fk: FloatKind): FloatType {
  return fk === 'float' ? FLOAT_TYPES.fp32 : fk === 'double' ? FLOAT_TYPES.fp64 : FLOAT_TYPES.fp80;
}

const fpName = (fk: FloatKind) => (fk === 'float' ? 'fp32' : fk === 'double' ? 'fp64' : 'fp80');

export function floatConst(bits: bigint, fk: FloatKind, loc: L): Expr {
  const t = floatImpType(fk);
  return { kind: 'float_lit', bits: ieee.canonical(t, bits), eb: t.eb, sb: t.sb, loc };
}

/** A value of the float type given as a JavaScript number (exact for integers and dyadic constants). */
export function floatNumber(x: number, fk: FloatKind, loc: L): Expr {
  return floatConst(ieee.fromNumber(floatImpType(fk), x), fk, loc);
}

/** A C floating constant (its exact text, e.g. `0.1f`, `0x1p-3L`) of type fk. */
export function floatLiteral(text: string, fk: FloatKind, loc: L): Expr | undefined {
  const bits = floatLiteralBits(text, floatFormatOf(fk));
  return bits === undefined ? undefined : floatConst(bits, fk, loc);
}

export const RNE = (loc: L): Expr => ({ kind: 'rm_lit', mode: 'RNE', loc });
const rmLit = (mode: ieee.RoundingMode, loc: L): Expr => ({ kind: 'rm_lit', mode, loc });

export function arith(op: '+' | '-' | '*' | '/', a: Expr, b: Expr, rm: Expr, loc: L): Expr {
  const fn = ({ '+': 'fadd', '-': 'fsub', '*': 'fmul', '/': 'fdiv' } as const)[op];
  return app(fn, [rm, a, b], loc);
}

/** C's comparison of two floats of one type: IEEE's (every ordered comparison with a NaN false, `!=` true). */
export function compare(op: '<' | '<=' | '>' | '>=' | '==' | '!=', a: Expr, b: Expr, loc: L): Expr {
  if (op === '==') return app('feq', [a, b], loc);
  if (op === '!=') return un('!', app('feq', [a, b], loc), loc);
  return bin(op, a, b, loc);
}

/** A float as a condition: not equal to zero (a NaN is true). */
export function truthy(e: Expr, fk: FloatKind, loc: L): Expr {
  return un('!', app('fiszero', [e], loc), loc);
}

export function negate(e: Expr, loc: L): Expr {
  return un('-', e, loc);
}

/** An integer (a bit-vector read signed or unsigned) converted to a float type, rounded by rm. */
export function fromInteger(e: Expr, signed: boolean, to: FloatKind, rm: Expr, loc: L): Expr {
  return app(`${signed ? 's' : 'u'}bv_to_${fpName(to)}` as BuiltinName, [rm, e], loc);
}

/** A float converted to another float type (exact when widening). */
export function toFloat(e: Expr, from: FloatKind, to: FloatKind, rm: Expr, loc: L): Expr {
  if (from === to) return e;
  return app(`to_${fpName(to)}` as BuiltinName, [rm, e], loc);
}

/** C's conversion of a float to an integer type: truncation (the value must be in range: see `toIntegerDefined`). */
export function toInteger(e: Expr, width: BvWidth, signed: boolean, loc: L): Expr {
  return app(`fp_to_${signed ? 's' : 'u'}bv${width}` as BuiltinName, [rmLit('RTZ', loc), e], loc);
}

/**
 * When C defines the conversion of e (of type fk) to a width-bit integer:
 * the value truncated toward zero fits (C11 6.3.1.4: otherwise undefined).
 * Written with exact constants of the float type: x < 2^(w-1) (signed) or
 * x < 2^w (unsigned), and above the last integer out of range below.
 */
export function toIntegerDefined(e: Expr, fk: FloatKind, width: number, signed: boolean, loc: L): Expr {
  const f = floatImpType(fk);
  const pow = (n: number) => floatConst(ieee.fromInteger(f, 'RNE', 1n << BigInt(n)), fk, loc);
  const upper = bin('<', e, pow(signed ? width - 1 : width), loc);
  if (!signed) return and(bin('>', e, floatConst(ieee.fromInteger(f, 'RNE', -1n), fk, loc), loc), upper, loc);
  // trunc(x) >= -2^(w-1)  <=>  x > -2^(w-1) - 1: that constant is exact when the format has w bits of precision;
  // otherwise no float lies between it and -2^(w-1), and x >= -2^(w-1) says the same.
  const min = -(1n << BigInt(width - 1));
  const lower = f.sb >= width ? bin('>', e, floatConst(ieee.fromInteger(f, 'RNE', min - 1n), fk, loc), loc) : bin('>=', e, floatConst(ieee.fromInteger(f, 'RNE', min), fk, loc), loc);
  return and(lower, upper, loc);
}

// ---- <math.h> ----

/** What the math lowering needs of the lowerer. */
export interface FloatHost {
  /** The current rounding mode (an `rmode` expression). */
  rm(loc: L): Expr;
  /** A fresh arbitrary value of the type (a havoc'd temporary). */
  arbitrary(t: ImpType, loc: L): Expr;
  /** The IEEE bits of a float (fp32: bv32, fp64: bv64): any NaN pattern for a NaN. */
  bitsOf(e: Expr, fk: FloatKind, loc: L): Expr;
  readonly dataModel: DataModel;
}

/** One argument of a math call: its lowered value and its kind. */
export type MathArg = { readonly k: 'float'; readonly e: Expr; readonly fk: FloatKind } | { readonly k: 'int'; readonly e: Expr; readonly width: BvWidth; readonly signed: boolean } | { readonly k: 'other' };

export type MathResult =
  | { readonly k: 'float'; readonly e: Expr; readonly fk: FloatKind }
  /** A condition (C: int 0/1). */
  | { readonly k: 'bool'; readonly e: Expr }
  | { readonly k: 'int'; readonly e: Expr; readonly width: BvWidth; readonly signed: boolean };

/** A math call that also writes through a pointer argument (modf, frexp): the argument index and the value. */
export interface MathCall {
  readonly result: MathResult;
  readonly stores?: ReadonlyArray<{ readonly arg: number; readonly value: MathResult }>;
}

/** Functions of <math.h> with float arguments and a float result (the double name; `f` and `l` suffixes give the others). */
const FLOAT_FUNCTIONS = new Set([
  'fabs', 'sqrt', 'floor', 'ceil', 'trunc', 'round', 'rint', 'nearbyint', 'fmod', 'remainder', 'fmin', 'fmax', 'fdim',
  'copysign', 'fma', 'nan', 'inf', 'huge_val', 'modf', 'frexp', 'ldexp', 'scalbn',
]);
/** Functions with an integer result (the double name). */
const INT_FUNCTIONS = new Set(['lround', 'llround', 'lrint', 'llrint', 'signbit', '__signbit', '__isnan', '__isinf', '__finite', '__fpclassify', 'isnan', 'isinf', 'finite']);
/** Type-generic classification built-ins (the argument's type decides). */
const GENERIC = new Set(['isnan', 'isinf', 'isinf_sign', 'isfinite', 'isnormal', 'signbit', 'fpclassify', 'isgreater', 'isgreaterequal', 'isless', 'islessequal', 'islessgreater', 'isunordered']);
/**
 * Functions whose result is over-approximated by an arbitrary value (of the
 * right class where C says which: a NaN argument gives NaN): sound for a
 * TRUE; a FALSE is replayed by gcc as every FALSE is.
 */
const APPROXIMATED = new Set(['sin', 'cos', 'tan', 'asin', 'acos', 'atan', 'atan2', 'sinh', 'cosh', 'tanh', 'exp', 'exp2', 'expm1', 'log', 'log2', 'log10', 'log1p', 'pow', 'cbrt', 'hypot']);

export interface MathName {
  /** The double-precision name (`floor` for `floorf`, `__builtin_floorl`). */
  readonly base: string;
  /** The float kind its name says (double for the unsuffixed and the type-generic ones). */
  readonly fk: FloatKind;
  readonly generic: boolean;
  readonly approximated: boolean;
}

/** Whether `name` (possibly `__builtin_`-prefixed, with an `f`/`l` suffix) is a math function modelled here. */
export function mathName(name: string): MathName | undefined {
  const n = name.startsWith('__builtin_') ? name.slice('__builtin_'.length) : name;
  if (name.startsWith('__builtin_') && GENERIC.has(n)) return { base: n, fk: 'double', generic: true, approximated: false };
  for (const [suffix, fk] of [['', 'double'], ['f', 'float'], ['l', 'longdouble']] as const) {
    if (suffix && !n.endsWith(suffix)) continue;
    const base = suffix ? n.slice(0, -1) : n;
    if (FLOAT_FUNCTIONS.has(base) || INT_FUNCTIONS.has(base)) return { base, fk, generic: false, approximated: false };
    if (APPROXIMATED.has(base)) return { base, fk, generic: false, approximated: true };
  }
  return undefined;
}

const FP_CLASS = { nan: 0n, infinite: 1n, zero: 2n, subnormal: 3n, normal: 4n };

/**
 * A math call on lowered arguments. Undefined when the arguments do not have
 * the kinds the function takes (the caller reports it as unsupported).
 * `intWidth` is the width of C's `int`, `longWidth` of `long`.
 */
export function mathCall(name: MathName, args: readonly MathArg[], host: FloatHost, loc: L): MathCall | undefined {
  const fl = (k: number) => (args[k]?.k === 'float' ? (args[k] as MathArg & { k: 'float' }) : undefined);
  const x = fl(0);
  const fk = name.generic ? x?.fk : name.fk;
  if (fk === undefined) return undefined;
  const t = floatImpType(fk);
  const F = (e: Expr): MathCall => ({ result: { k: 'float', e, fk } });
  const B = (e: Expr): MathCall => ({ result: { k: 'bool', e } });
  const I = (e: Expr, width: BvWidth, signed: boolean): MathCall => ({ result: { k: 'int', e, width, signed } });
  const zero = (neg: boolean) => floatConst(ieee.zeroBits(t, neg), fk, loc);
  const nan = () => floatConst(ieee.nanBits(t), fk, loc);
  const a = x?.e;
  const b = fl(1)?.e;
  const rm = () => host.rm(loc);
  const intW: BvWidth = 32;
  const longW: BvWidth = host.dataModel === 'LP64' ? 64 : 32;
  const needs = (n: number) => args.length === n && args.slice(0, n).every((q, i) => i >= 1 && (name.base === 'ldexp' || name.base === 'scalbn' || name.base === 'frexp' || name.base === 'modf') ? true : q.k === 'float' && q.fk === fk);
  // The sign bit of a value whose NaN sign is not modelled: arbitrary for a NaN.
  const signOf = (e: Expr) => ite(app('fisnan', [e], loc), host.arbitrary({ kind: 'bool' }, loc), app('fisneg', [e], loc), loc);
  switch (name.base) {
    case 'nan':
      return F(nan());
    case 'inf':
    case 'huge_val':
      return F(floatConst(ieee.infBits(t, false), fk, loc));
  }
  if (name.approximated) {
    if (!args.every((q) => q.k === 'float' && q.fk === fk)) return undefined;
    // An arbitrary value, NaN when an argument is NaN (every one of these propagates a NaN, except pow(1, NaN) and pow(NaN, 0)).
    const r = host.arbitrary(t, loc);
    if (name.base === 'pow') return F(r);
    const anyNan = args.map((q) => app('fisnan', [(q as { e: Expr }).e], loc)).reduce((p, q) => or(p, q, loc));
    return F(ite(anyNan, nan(), r, loc));
  }
  switch (name.base) {
    case 'fabs':
      return needs(1) ? F(app('fabs', [a!], loc)) : undefined;
    case 'sqrt':
      return needs(1) ? F(app('fsqrt', [rm(), a!], loc)) : undefined;
    case 'floor':
      return needs(1) ? F(app('fround', [rmLit('RTN', loc), a!], loc)) : undefined;
    case 'ceil':
      return needs(1) ? F(app('fround', [rmLit('RTP', loc), a!], loc)) : undefined;
    case 'trunc':
      return needs(1) ? F(app('fround', [rmLit('RTZ', loc), a!], loc)) : undefined;
    case 'round':
      return needs(1) ? F(app('fround', [rmLit('RNA', loc), a!], loc)) : undefined;
    case 'rint':
    case 'nearbyint':
      return needs(1) ? F(app('fround', [rm(), a!], loc)) : undefined;
    case 'remainder':
      return needs(2) ? F(app('frem', [a!, b!], loc)) : undefined;
    case 'fmod': {
      if (!needs(2)) return undefined;
      // fmod(x, y) = x - trunc(x / y) y: the IEEE remainder r, moved by |y| toward x's sign where r has the other sign. Exact.
      const r = app('frem', [a!, b!], loc);
      const ay = app('fabs', [b!], loc);
      const other = and(un('!', app('fiszero', [r], loc), loc), un('!', bin('==', app('fisneg', [r], loc), app('fisneg', [a!], loc), loc), loc), loc);
      return F(ite(other, app('fadd', [RNE(loc), r, ite(app('fisneg', [a!], loc), negate(ay, loc), ay, loc)], loc), r, loc));
    }
    case 'fmin':
    case 'fmax': {
      if (!needs(2)) return undefined;
      // A NaN argument gives the other one; equal zeros of either sign may give either (C leaves it open).
      const first = name.base === 'fmin' ? bin('<', a!, b!, loc) : bin('>', a!, b!, loc);
      const either = ite(host.arbitrary({ kind: 'bool' }, loc), a!, b!, loc);
      const ordered = ite(first, a!, ite(app('feq', [a!, b!], loc), either, b!, loc), loc);
      return F(ite(app('fisnan', [a!], loc), b!, ite(app('fisnan', [b!], loc), a!, ordered, loc), loc));
    }
    case 'fdim': {
      if (!needs(2)) return undefined;
      const d = app('fsub', [rm(), a!, b!], loc);
      const anyNan = or(app('fisnan', [a!], loc), app('fisnan', [b!], loc), loc);
      return F(ite(anyNan, nan(), ite(bin('>', a!, b!, loc), d, zero(false), loc), loc));
    }
    case 'copysign': {
      if (!needs(2)) return undefined;
      const m = app('fabs', [a!], loc);
      return F(ite(app('fisnan', [a!], loc), a!, ite(signOf(b!), negate(m, loc), m, loc), loc));
    }
    case 'fma':
      return needs(3) ? F(app('ffma', [rm(), a!, b!, fl(2)!.e], loc)) : undefined;
    case 'signbit':
    case '__signbit':
      return x ? B(signOf(a!)) : undefined;
    case 'isnan':
    case '__isnan':
      return x ? B(app('fisnan', [a!], loc)) : undefined;
    case 'isinf':
    case '__isinf':
      // glibc's __isinf gives -1 for -inf; gcc's __builtin_isinf only promises non-zero: the sign is given too.
      return x ? I(ite(app('fisinf', [a!], loc), ite(app('fisneg', [a!], loc), bv(-1n, intW, loc), bv(1n, intW, loc), loc), bv(0n, intW, loc), loc), intW, true) : undefined;
    case 'isinf_sign':
      return x ? I(ite(app('fisinf', [a!], loc), ite(app('fisneg', [a!], loc), bv(-1n, intW, loc), bv(1n, intW, loc), loc), bv(0n, intW, loc), loc), intW, true) : undefined;
    case 'isfinite':
    case 'finite':
    case '__finite':
      return x ? B(un('!', or(app('fisnan', [a!], loc), app('fisinf', [a!], loc), loc), loc)) : undefined;
    case 'isnormal':
      return x ? B(app('fisnormal', [a!], loc)) : undefined;
    case '__fpclassify':
    case 'fpclassify': {
      // glibc's FP_* values; __builtin_fpclassify takes them as its first five arguments.
      let codes = FP_CLASS as Record<keyof typeof FP_CLASS, bigint | Expr>;
      let arg = x;
      if (name.generic) {
        const consts = args.slice(0, 5);
        arg = fl(5);
        if (!arg || consts.some((c) => c.k !== 'int')) return undefined;
        const c = consts.map((q) => resizeInt(q as MathArg & { k: 'int' }, intW, loc));
        codes = { nan: c[0]!, infinite: c[1]!, normal: c[2]!, subnormal: c[3]!, zero: c[4]! };
      }
      if (!arg) return undefined;
      const code = (k: keyof typeof FP_CLASS): Expr => {
        const q = codes[k];
        return typeof q === 'bigint' ? bv(q, intW, loc) : q;
      };
      const e = arg.e;
      return I(ite(app('fisnan', [e], loc), code('nan'), ite(app('fisinf', [e], loc), code('infinite'), ite(app('fiszero', [e], loc), code('zero'), ite(app('fissubnormal', [e], loc), code('subnormal'), code('normal'), loc), loc), loc), loc), intW, true);
    }
    case 'isgreater':
    case 'isgreaterequal':
    case 'isless':
    case 'islessequal': {
      const y = fl(1);
      if (!x || !y || y.fk !== x.fk) return undefined;
      const op = ({ isgreater: '>', isgreaterequal: '>=', isless: '<', islessequal: '<=' } as const)[name.base];
      return B(bin(op, a!, y.e, loc));
    }
    case 'islessgreater':
    case 'isunordered': {
      const y = fl(1);
      if (!x || !y || y.fk !== x.fk) return undefined;
      const unordered = or(app('fisnan', [a!], loc), app('fisnan', [y.e], loc), loc);
      return B(name.base === 'isunordered' ? unordered : or(bin('<', a!, y.e, loc), bin('>', a!, y.e, loc), loc));
    }
    case 'lround':
    case 'llround':
    case 'lrint':
    case 'llrint': {
      if (!needs(1)) return undefined;
      // Out of range (NaN, infinities included) the result is unspecified (a domain error), not undefined.
      const w: BvWidth = name.base.startsWith('ll') ? 64 : longW;
      const mode = name.base.endsWith('round') ? rmLit('RNA', loc) : rm();
      const rounded = app('fround', [mode, a!], loc);
      const inRange = toIntegerDefined(rounded, fk, w, true, loc);
      return I(ite(inRange, toInteger(rounded, w, true, loc), host.arbitrary({ kind: 'bv', width: w }, loc), loc), w, true);
    }
    case 'modf': {
      if (args.length !== 2 || !x || x.fk !== fk) return undefined;
      // The integral part (through the pointer) and the fraction, both with x's sign; inf gives ±0, NaN NaN.
      const ip = app('fround', [rmLit('RTZ', loc), a!], loc);
      const diff = app('fsub', [RNE(loc), a!, ip], loc);
      const signedZero = ite(app('fisneg', [a!], loc), zero(true), zero(false), loc);
      const frac = ite(app('fisinf', [a!], loc), signedZero, ite(app('fiszero', [diff], loc), signedZero, diff, loc), loc);
      return { result: { k: 'float', e: frac, fk }, stores: [{ arg: 1, value: { k: 'float', e: ip, fk } }] };
    }
    case 'ldexp':
    case 'scalbn': {
      const n = args[1];
      if (args.length !== 2 || !x || x.fk !== fk || n?.k !== 'int' || fk === 'longdouble') return undefined;
      return F(scale(a!, resizeInt(n, 32, loc), fk, rm(), loc));
    }
    case 'frexp': {
      if (args.length !== 2 || !x || x.fk !== fk || fk === 'longdouble') return undefined;
      const r = frexp(a!, fk, host, loc);
      return { result: { k: 'float', e: r.mantissa, fk }, stores: [{ arg: 1, value: { k: 'int', e: r.exponent, width: 32, signed: true } }] };
    }
  }
  return undefined;
}

function resizeInt(q: { e: Expr; width: BvWidth; signed: boolean }, to: BvWidth, loc: L): Expr {
  if (q.width === to) return q.e;
  if (q.e.kind === 'bv_lit') return bv(q.signed ? BigInt.asIntN(q.width, q.e.value) : q.e.value, to, loc);
  if (to < q.width) return app(`trunc${to}` as BuiltinName, [q.e], loc);
  return app(`${q.signed ? 'sext' : 'zext'}${to}` as BuiltinName, [q.e], loc);
}

/** Bit-level facts of the binary32 and binary64 layouts. */
function layout(fk: FloatKind): { width: 32 | 64; frac: number; bias: number; emin: number; qmin: number } {
  return fk === 'float' ? { width: 32, frac: 23, bias: 127, emin: -126, qmin: -149 } : { width: 64, frac: 52, bias: 1023, emin: -1022, qmin: -1074 };
}

/** 2^n as a float of kind fk, for n (bv32, signed) in [qmin, emax]: built from its bits. */
function powerOfTwo(n: Expr, fk: 'float' | 'double', loc: L): Expr {
  const { width, frac, bias, emin, qmin } = layout(fk);
  const w = width as BvWidth;
  const n64 = app(`sext${w}` as BuiltinName, [n], loc);
  const wide = w === 32 ? n : n64;
  const normal = bin('<<', bin('+', wide, bv(BigInt(bias), w, loc), loc), bv(BigInt(frac), w, loc), loc);
  const sub = bin('<<', bv(1n, w, loc), bin('-', wide, bv(BigInt(qmin), w, loc), loc), loc);
  const bitsToFp = `bits_to_${fk === 'float' ? 'fp32' : 'fp64'}` as BuiltinName;
  return app(bitsToFp, [ite(app('sge', [n, bv(BigInt(emin), 32, loc)], loc), normal, sub, loc)], loc);
}

/**
 * x * 2^n, rounded once (ldexp, scalbn). n is clamped to where the result no
 * longer changes; the power is applied in steps that are exact until the last
 * (or until the value is so small that every later rounding agrees).
 */
function scale(x: Expr, n: Expr, fk: FloatKind, rm: Expr, loc: L): Expr {
  if (fk === 'longdouble') throw new Error('scale: no 80-bit layout');
  const { bias, qmin } = layout(fk);
  const emax = bias;
  const limit = 2 * (emax - qmin) + 8;
  const c = (k: number) => bv(BigInt(k), 32, loc);
  const clamped = ite(app('sgt', [n, c(limit)], loc), c(limit), ite(app('slt', [n, c(-limit)], loc), c(-limit), n, loc), loc);
  const mul = (a: Expr, k: Expr) => app('fmul', [rm, a, powerOfTwo(k, fk, loc)], loc);
  const one = mul(x, clamped);
  // Upward: emax at a time (exact until it overflows, and then the result overflows too).
  const up = mul(mul(mul(x, c(emax)), c(emax)), bin('-', clamped, c(2 * emax), loc));
  const upTwo = mul(mul(x, c(emax)), bin('-', clamped, c(emax), loc));
  // Downward: bring the value near the bottom first, then the two last steps of -emax.
  const down = mul(mul(mul(x, bin('+', clamped, c(2 * emax), loc)), c(-emax)), c(-emax));
  const inOne = and(app('sge', [clamped, c(qmin)], loc), app('sle', [clamped, c(emax)], loc), loc);
  return ite(inOne, one, ite(app('sgt', [clamped, c(emax)], loc), ite(app('sle', [clamped, c(2 * emax)], loc), upTwo, up, loc), down, loc), loc);
}

/** frexp: x = m 2^e with 0.5 <= |m| < 1 (x finite, not zero); zero gives (x, 0); inf and NaN give (x, arbitrary). */
function frexp(x: Expr, fk: FloatKind, host: FloatHost, loc: L): { mantissa: Expr; exponent: Expr } {
  if (fk === 'longdouble') throw new Error('frexp: no 80-bit layout');
  const { width, frac, bias } = layout(fk);
  const w = width as BvWidth;
  // A subnormal is first scaled into the normal range by 2^(frac + 2) (exact).
  const lift = frac + 2;
  const sub = app('fissubnormal', [x], loc);
  const scaled = ite(sub, app('fmul', [RNE(loc), x, powerOfTwo(bv(BigInt(lift), 32, loc), fk as 'float' | 'double', loc)], loc), x, loc);
  const bits = host.bitsOf(scaled, fk, loc);
  const expMask = (1n << BigInt(w - frac - 1)) - 1n;
  const field = bin('&', app('lshr', [bits, bv(BigInt(frac), w, loc)], loc), bv(expMask, w, loc), loc);
  const field32 = w === 32 ? field : app('trunc32', [field], loc);
  // m: the same bits with the exponent field of 2^-1.
  const clearExp = bin('&', bits, bv(~(expMask << BigInt(frac)) & ((1n << BigInt(w)) - 1n), w, loc), loc);
  const m = app(`bits_to_${fk === 'float' ? 'fp32' : 'fp64'}` as BuiltinName, [bin('|', clearExp, bv(BigInt(bias - 1) << BigInt(frac), w, loc), loc)], loc);
  const e = bin('-', bin('-', field32, bv(BigInt(bias - 1), 32, loc), loc), ite(sub, bv(BigInt(lift), 32, loc), bv(0n, 32, loc), loc), loc);
  const special = or(app('fisnan', [x], loc), app('fisinf', [x], loc), loc);
  const isZero = app('fiszero', [x], loc);
  return {
    mantissa: ite(or(special, isZero, loc), x, m, loc),
    exponent: ite(isZero, bv(0n, 32, loc), ite(special, host.arbitrary({ kind: 'bv', width: 32 }, loc), e, loc), loc),
  };
}

/** A boolean as a C int 0/1 of the width. */
export function boolToInt(c: Expr, width: BvWidth, loc: L): Expr {
  if (c.kind === 'bool_lit') return bv(c.value ? 1n : 0n, width, loc);
  return ite(c, bv(1n, width, loc), bv(0n, width, loc), loc);
}

export { boolLit };
