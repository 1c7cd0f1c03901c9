// C floating constants converted exactly: the decimal or hexadecimal text is
// read as a rational and rounded once to the constant's type (C11 6.4.4.2;
// gcc rounds to nearest, ties to even, whatever the run-time mode).
import { BINARY32, BINARY64, X87_EXTENDED, infBits, isNaN, nanBits, roundRational, roundToFormat, toHexString, zeroBits, type FloatFormat } from '../common/ieee754.js';
import type { FloatKind } from './types.js';

export function floatFormatOf(kind: FloatKind): FloatFormat {
  return kind === 'float' ? BINARY32 : kind === 'double' ? BINARY64 : X87_EXTENDED;
}

/** The type a constant's suffix gives it. */
export function floatLiteralKind(text: string): FloatKind {
  const s = text[text.length - 1];
  return s === 'f' || s === 'F' ? 'float' : s === 'l' || s === 'L' ? 'longdouble' : 'double';
}

/**
 * The bits of a floating constant (without sign) in its format, or
 * undefined when the text is not a floating constant.
 */
export function floatLiteralBits(text: string, format: FloatFormat = floatFormatOf(floatLiteralKind(text))): bigint | undefined {
  const body = text.replace(/[fFlL]$/, '');
  const hex = /^0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?[pP]([+-]?\d+)$/.exec(body);
  if (hex) {
    if (hex[1] === '' && (hex[2] ?? '') === '') return undefined;
    const mant = BigInt('0x' + (hex[1] + (hex[2] ?? '') || '0'));
    if (mant === 0n) return zeroBits(format, false);
    const e = clampExponent(Number(hex[3]) - 4 * (hex[2]?.length ?? 0), 1 << 20);
    return roundToFormat(format, false, mant, e, 'RNE');
  }
  const dec = /^(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(body);
  if (!dec || (dec[1] === '' && (dec[2] ?? '') === '') || (dec[2] === undefined && dec[3] === undefined)) return undefined;
  const digits = (dec[1] + (dec[2] ?? '')).replace(/^0+/, '');
  if (digits === '') return zeroBits(format, false);
  const e10 = Number(dec[3] ?? '0') - (dec[2]?.length ?? 0);
  // Far beyond every format's range: the result is already decided.
  const magnitude = e10 + digits.length;
  if (magnitude > 5000) return infBits(format, false);
  if (magnitude < -5000) return zeroBits(format, false);
  const d = BigInt(digits);
  return e10 >= 0 ? roundRational(format, false, d * 10n ** BigInt(e10), 1n, 'RNE') : roundRational(format, false, d, 10n ** BigInt(-e10), 'RNE');
}

function clampExponent(e: number, limit: number): number {
  return Math.max(-limit, Math.min(limit, Number.isFinite(e) ? e : limit));
}

/** The float kind of a C type name (`float`, `double`, `long double`). */
function kindOfName(type: string): FloatKind | undefined {
  return type === 'float' ? 'float' : type === 'double' ? 'double' : type === 'long double' ? 'longdouble' : undefined;
}

const SUFFIX: Record<FloatKind, string> = { float: 'f', double: '', longdouble: 'L' };

/**
 * A C expression whose value is exactly this one of the type: a hexadecimal
 * constant (`0x1.8p+1f`, `-0x0p+0`), `1.0f / 0.0f` for an infinity and
 * `0.0f / 0.0f` for NaN (gcc evaluates both as IEEE says).
 */
export function cFloatExpression(bits: bigint, kind: FloatKind): string {
  const f = floatFormatOf(kind);
  const s = SUFFIX[kind];
  const text = toHexString(f, bits);
  if (text === 'nan') return `(0.0${s} / 0.0${s})`;
  if (text === 'inf' || text === '-inf') return `(${text[0] === '-' ? '-' : ''}1.0${s} / 0.0${s})`;
  return `${text}${s}`;
}

/** A condition on `x` (a C expression of the type) that holds exactly for this value (NaN: `x != x`; a zero's sign is not told apart). */
export function floatValueCondition(x: string, bits: bigint, kind: FloatKind): string {
  return isNaN(floatFormatOf(kind), bits) ? `${x} != ${x}` : `${x} == ${cFloatExpression(bits, kind)}`;
}

/**
 * The bits of the value a witness constraint on a nondet call's float
 * result pins: `\result == <constant>` (decimal or hexadecimal, signed,
 * possibly parenthesised), `\result == ±1.0 / 0.0`, `\result != \result`.
 */
export function pinnedFloat(text: string, type: string): bigint | undefined {
  const kind = kindOfName(type);
  if (!kind) return undefined;
  const f = floatFormatOf(kind);
  const t = text.trim();
  if (/^\\result\s*!=\s*\\result$/.test(t)) return nanBits(f);
  const m = /^\\result\s*==\s*(.+)$/.exec(t) ?? /^(.+?)\s*==\s*\\result$/.exec(t);
  if (!m) return undefined;
  let e = m[1]!.trim();
  while (/^\(.*\)$/.test(e)) e = e.slice(1, -1).trim();
  const neg = e.startsWith('-');
  e = e.replace(/^[-+]\s*/, '');
  while (/^\(.*\)$/.test(e)) e = e.slice(1, -1).trim();
  const div = /^([0-9.]+[fFlL]?)\s*\/\s*(0*\.0*[fFlL]?|0\.0*[fFlL]?)$/.exec(e);
  if (div) {
    const num = floatLiteralBits(/[.eEpP]/.test(div[1]!) ? div[1]! : div[1]! + '.0', f);
    if (num === undefined) return undefined;
    return num === zeroBits(f, false) ? nanBits(f) : infBits(f, neg);
  }
  const lit = floatLiteralBits(/[.eEpPxX]/.test(e) ? e : /^\d+$/.test(e) ? e + '.0' : e, f);
  if (lit === undefined) return undefined;
  return neg ? lit ^ (1n << BigInt(f.eb + f.sb - 1)) : lit;
}
