// C floating constants converted exactly: the decimal or hexadecimal text is
// read as a rational and rounded once to the constant's type (C11 6.4.4.2;
// gcc rounds to nearest, ties to even, whatever the run-time mode).
import { BINARY32, BINARY64, X87_EXTENDED, infBits, roundRational, roundToFormat, zeroBits, type FloatFormat } from '../common/ieee754.js';
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
