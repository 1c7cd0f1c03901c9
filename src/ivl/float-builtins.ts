// IMP's floating-point built-ins: their types and their values, by the exact
// arithmetic of common/ieee754.ts (SMT-LIB's FloatingPoint semantics, one NaN).
// Conversions to bit-vectors of a NaN, an infinity or a value out of range
// are unspecified in SMT-LIB; the interpreter gives 0 (callers check range).
import * as ieee from '../common/ieee754.js';
import { FLOAT_TYPES, boolType, floatName, typeToString, type BuiltinName, type BvWidth, type FloatName, type FloatType, type ImpType } from './ast.js';

export type FloatValue = { readonly kind: 'float'; readonly eb: number; readonly sb: number; readonly bits: bigint };
type Value =
  | FloatValue
  | { readonly kind: 'rmode'; readonly mode: ieee.RoundingMode }
  | { readonly kind: 'bv'; readonly value: bigint; readonly width: BvWidth }
  | { readonly kind: 'bool'; readonly value: boolean }
  | { readonly kind: string };

export function floatValue(t: { eb: number; sb: number }, bits: bigint): FloatValue {
  return { kind: 'float', eb: t.eb, sb: t.sb, bits: ieee.canonical(t, bits) };
}

/** `fp32(0x1.8p+1)`: the concrete syntax of a float value (also its canonical key). */
export function floatLiteralText(t: { eb: number; sb: number }, bits: bigint): string {
  return `${floatName(t)}(${ieee.toHexString(t, bits)})`;
}

const ARITH2 = new Set(['fadd', 'fsub', 'fmul', 'fdiv']);
const CLASSIFY = new Set(['fisnan', 'fisinf', 'fiszero', 'fisnormal', 'fissubnormal', 'fisneg', 'fispos']);

export function isFloatBuiltin(fn: BuiltinName): boolean {
  return floatArity(fn) !== undefined;
}

/** The number of arguments of a float built-in (undefined: not one). */
export function floatArity(fn: BuiltinName): number | undefined {
  if (ARITH2.has(fn)) return 3;
  if (fn === 'ffma') return 4;
  if (fn === 'fsqrt' || fn === 'fround' || /^(to_fp|[su]bv_to_fp|fp_to_[su]bv)\d+$/.test(fn)) return 2;
  if (fn === 'frem' || fn === 'feq') return 2;
  if (fn === 'fabs' || CLASSIFY.has(fn) || /^bits_to_fp\d+$/.test(fn)) return 1;
  return undefined;
}

/** The result type of a float built-in applied to arguments of these types; `fail` reports a type error. */
export function floatBuiltinType(fn: BuiltinName, ts: readonly ImpType[], fail: (msg: string) => never): ImpType {
  const needRm = () => {
    if (ts[0].kind !== 'rmode') fail(`the first argument of '${fn}' must be a rounding mode, not ${typeToString(ts[0])}`);
  };
  const needFloat = (k: number): FloatType => {
    const t = ts[k];
    if (t.kind !== 'float') return fail(`argument ${k + 1} of '${fn}' must be a float, not ${typeToString(t)}`);
    return t;
  };
  const sameFloats = (from: number): FloatType => {
    const t = needFloat(from);
    for (let k = from + 1; k < ts.length; k++) {
      const u = needFloat(k);
      if (u.eb !== t.eb || u.sb !== t.sb) fail(`arguments of '${fn}' have different types: ${typeToString(t)} and ${typeToString(u)}`);
    }
    return t;
  };
  if (ARITH2.has(fn) || fn === 'ffma' || fn === 'fsqrt' || fn === 'fround') {
    needRm();
    return sameFloats(1);
  }
  if (fn === 'frem' || fn === 'fabs') return sameFloats(0);
  if (fn === 'feq') {
    sameFloats(0);
    return boolType;
  }
  if (CLASSIFY.has(fn)) {
    needFloat(0);
    return boolType;
  }
  let m = /^to_(fp\d+)$/.exec(fn);
  if (m) {
    needRm();
    needFloat(1);
    return FLOAT_TYPES[m[1] as FloatName];
  }
  m = /^[su]bv_to_(fp\d+)$/.exec(fn);
  if (m) {
    needRm();
    if (ts[1].kind !== 'bv') fail(`argument 2 of '${fn}' must be a bit-vector, not ${typeToString(ts[1])}`);
    return FLOAT_TYPES[m[1] as FloatName];
  }
  m = /^fp_to_[su]bv(\d+)$/.exec(fn);
  if (m) {
    needRm();
    needFloat(1);
    return { kind: 'bv', width: Number(m[1]) as BvWidth };
  }
  m = /^bits_to_(fp\d+)$/.exec(fn);
  if (m) {
    const t = FLOAT_TYPES[m[1] as FloatName];
    const w = ieee.totalBits(t);
    if (ts[0].kind !== 'bv' || ts[0].width !== w) fail(`'${fn}' needs a bv${w} argument, not ${typeToString(ts[0])}`);
    return t;
  }
  return fail(`unknown function '${fn}'`);
}

/** The value of a float built-in on values (well-typed arguments). */
export function evalFloatBuiltin(fn: BuiltinName, args: readonly Value[]): Value {
  const rm = () => (args[0] as { mode: ieee.RoundingMode }).mode;
  const fl = (k: number) => args[k] as FloatValue;
  const bool = (value: boolean) => ({ kind: 'bool', value }) as const;
  if (ARITH2.has(fn)) {
    const a = fl(1);
    const op = fn === 'fadd' ? ieee.add : fn === 'fsub' ? ieee.sub : fn === 'fmul' ? ieee.mul : ieee.div;
    return floatValue(a, op(a, rm(), a.bits, fl(2).bits));
  }
  switch (fn) {
    case 'ffma':
      return floatValue(fl(1), ieee.fma(fl(1), rm(), fl(1).bits, fl(2).bits, fl(3).bits));
    case 'fsqrt':
      return floatValue(fl(1), ieee.sqrt(fl(1), rm(), fl(1).bits));
    case 'fround':
      return floatValue(fl(1), ieee.roundToIntegral(fl(1), rm(), fl(1).bits));
    case 'frem':
      return floatValue(fl(0), ieee.rem(fl(0), fl(0).bits, fl(1).bits));
    case 'fabs':
      return floatValue(fl(0), ieee.abs(fl(0), fl(0).bits));
    case 'feq':
      return bool(ieee.compare(fl(0), fl(0).bits, fl(1).bits) === 0);
    case 'fisnan':
      return bool(ieee.classify(fl(0), fl(0).bits) === 'nan');
    case 'fisinf':
      return bool(ieee.classify(fl(0), fl(0).bits) === 'infinite');
    case 'fiszero':
      return bool(ieee.classify(fl(0), fl(0).bits) === 'zero');
    case 'fisnormal':
      return bool(ieee.classify(fl(0), fl(0).bits) === 'normal');
    case 'fissubnormal':
      return bool(ieee.classify(fl(0), fl(0).bits) === 'subnormal');
    case 'fisneg':
      return bool(ieee.isNegative(fl(0), fl(0).bits));
    case 'fispos':
      return bool(!ieee.isNaN(fl(0), fl(0).bits) && !ieee.isNegative(fl(0), fl(0).bits));
    default:
      break;
  }
  let m = /^to_(fp\d+)$/.exec(fn);
  if (m) {
    const to = FLOAT_TYPES[m[1] as FloatName];
    return floatValue(to, ieee.convert(fl(1), to, rm(), fl(1).bits));
  }
  m = /^([su])bv_to_(fp\d+)$/.exec(fn);
  if (m) {
    const to = FLOAT_TYPES[m[2] as FloatName];
    const b = args[1] as { value: bigint; width: BvWidth };
    const n = m[1] === 's' ? BigInt.asIntN(b.width, b.value) : b.value;
    return floatValue(to, ieee.fromInteger(to, rm(), n));
  }
  m = /^fp_to_([su])bv(\d+)$/.exec(fn);
  if (m) {
    const w = Number(m[2]) as BvWidth;
    const inRange = fitsInteger(fl(1), rm(), fl(1).bits, w, m[1] === 's');
    return { kind: 'bv', value: inRange ? BigInt.asUintN(w, ieee.toInteger(fl(1), rm(), fl(1).bits)!) : 0n, width: w };
  }
  m = /^bits_to_(fp\d+)$/.exec(fn);
  if (m) {
    const to = FLOAT_TYPES[m[1] as FloatName];
    return floatValue(to, (args[0] as { value: bigint }).value);
  }
  throw new Error(`unknown float built-in '${fn}'`);
}

/** Whether a float-to-integer conversion by `rm` is defined (the value, rounded, fits the width). */
export function fitsInteger(t: { eb: number; sb: number }, rm: ieee.RoundingMode, bits: bigint, width: number, signed: boolean): boolean {
  const n = ieee.toInteger(t, rm, bits);
  if (n === undefined) return false;
  return signed ? n >= -(1n << BigInt(width - 1)) && n < 1n << BigInt(width - 1) : n >= 0n && n < 1n << BigInt(width);
}
