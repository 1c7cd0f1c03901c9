import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as ieee from '../../src/common/ieee754.js';
import { floatLiteralBits } from '../../src/c/float-literal.js';

const S = ieee.BINARY32;
const D = ieee.BINARY64;
const X = ieee.X87_EXTENDED;
const hex = (f: ieee.FloatFormat, t: string) => ieee.parseHexFloat(f, t)!;
const show = (f: ieee.FloatFormat, b: bigint) => ieee.toHexString(f, b);

test('signed zeros: exact zero sums are +0, -0 under RTN; (-0) + (-0) is -0', () => {
  const one = hex(D, '0x1p+0');
  assert.equal(show(D, ieee.sub(D, 'RNE', one, one)), '0x0p+0');
  assert.equal(show(D, ieee.sub(D, 'RTN', one, one)), '-0x0p+0');
  assert.equal(show(D, ieee.add(D, 'RNE', hex(D, '-0x0p+0'), hex(D, '-0x0p+0'))), '-0x0p+0');
  assert.equal(show(D, ieee.add(D, 'RNE', hex(D, '-0x0p+0'), hex(D, '0x0p+0'))), '0x0p+0');
  assert.equal(show(D, ieee.add(D, 'RTN', hex(D, '-0x0p+0'), hex(D, '0x0p+0'))), '-0x0p+0');
  // fma: the exact zero of a * b + c takes the sign rule of the sum.
  assert.equal(show(D, ieee.fma(D, 'RNE', hex(D, '-0x0p+0'), one, hex(D, '-0x0p+0'))), '-0x0p+0');
  assert.equal(show(D, ieee.fma(D, 'RNE', one, one, hex(D, '-0x1p+0'))), '0x0p+0');
  assert.equal(show(D, ieee.sqrt(D, 'RNE', hex(D, '-0x0p+0'))), '-0x0p+0');
});

test('rounding at the boundaries: ties to even, directed modes, overflow, subnormals', () => {
  // 2^24 + 1 is a tie in binary32: to even (2^24); RTP goes up.
  assert.equal(show(S, ieee.fromInteger(S, 'RNE', (1n << 24n) + 1n)), '0x1p+24');
  assert.equal(show(S, ieee.fromInteger(S, 'RTP', (1n << 24n) + 1n)), '0x1.000002p+24');
  assert.equal(show(S, ieee.fromInteger(S, 'RNA', (1n << 24n) + 1n)), '0x1.000002p+24');
  assert.equal(show(S, ieee.fromInteger(S, 'RNE', (1n << 24n) + 3n)), '0x1.000004p+24');
  // Overflow: RNE to infinity, RTZ to the largest finite value.
  const max = ieee.maxFiniteBits(D, false);
  assert.equal(show(D, ieee.add(D, 'RNE', max, max)), 'inf');
  assert.equal(show(D, ieee.add(D, 'RTZ', max, max)), '0x1.fffffffffffffp+1023');
  assert.equal(show(D, ieee.mul(D, 'RTN', max, hex(D, '-0x1p+1'))), '-inf');
  // The least subnormal halved: a tie to even gives +0; RTP keeps it.
  const tiny = 1n;
  assert.equal(show(D, ieee.div(D, 'RNE', tiny, hex(D, '0x1p+1'))), '0x0p+0');
  assert.equal(show(D, ieee.div(D, 'RTP', tiny, hex(D, '0x1p+1'))), '0x1p-1074');
  assert.equal(show(D, hex(D, '0x1.8p-1074')), '0x1p-1073'); // 1.5 quanta round to even: 2 quanta
});

test('remainder, roundToIntegral and conversions to integers', () => {
  assert.equal(show(D, ieee.rem(D, hex(D, '0x1.4p+2'), hex(D, '0x1p+1'))), '0x1p+0'); // 5 rem 2 = 1 (5/2 = 2.5 -> 2)
  assert.equal(show(D, ieee.rem(D, hex(D, '0x1.cp+2'), hex(D, '0x1p+1'))), '-0x1p+0'); // 7 rem 2 = -1 (3.5 -> 4)
  assert.equal(show(D, ieee.rem(D, hex(D, '-0x1p+2'), hex(D, '0x1p+1'))), '-0x0p+0');
  assert.equal(show(D, ieee.rem(D, hex(D, 'inf'), hex(D, '0x1p+1'))), 'nan');
  assert.equal(show(D, ieee.roundToIntegral(D, 'RNA', hex(D, '0x1.4p+1'))), '0x1.8p+1'); // round(2.5) = 3
  assert.equal(show(D, ieee.roundToIntegral(D, 'RNE', hex(D, '0x1.4p+1'))), '0x1p+1'); // rint(2.5) = 2
  assert.equal(show(D, ieee.roundToIntegral(D, 'RTZ', hex(D, '-0x1.3333333333333p-2'))), '-0x0p+0'); // trunc(-0.3) = -0
  assert.equal(ieee.toInteger(D, 'RTZ', hex(D, '-0x1.fffffffffffffp+0')), -1n);
  assert.equal(ieee.toInteger(D, 'RTZ', hex(D, 'nan')), undefined);
});

test('the x87 80-bit layout: explicit integer bit, pseudo-denormals read as their values', () => {
  const one = hex(X, '0x1p+0');
  assert.equal(ieee.packedToX87(one).toString(16), '3fff8000000000000000');
  assert.equal(ieee.x87ToPacked(ieee.packedToX87(one)), one);
  const sub = 5n; // a subnormal
  assert.equal(ieee.x87ToPacked(ieee.packedToX87(sub)), sub);
  // A pseudo-denormal (exponent 0, integer bit 1) has the value of the least normal.
  assert.equal(show(X, ieee.x87ToPacked(1n << 63n)), '0x1p-16382');
  // An unnormal is an invalid operand.
  assert.equal(show(X, ieee.x87ToPacked((0x3fffn << 64n) | 1n)), 'nan');
});

test('C floating constants are converted exactly (one rounding, not through double)', () => {
  // 1.00000005960464477550 is just above the midpoint between 1 and 1 + 2^-23:
  // rounding through double first lands on the midpoint and then to even (1.0).
  assert.equal(show(S, floatLiteralBits('1.00000005960464477550f')!), '0x1.000002p+0');
  assert.equal(show(D, floatLiteralBits('0.1')!), '0x1.999999999999ap-4');
  assert.equal(show(X, floatLiteralBits('0.1L')!), '0x1.999999999999999ap-4');
  assert.equal(show(S, floatLiteralBits('0x1.fffffep127f')!), '0x1.fffffep+127');
  assert.equal(show(S, floatLiteralBits('1e39f')!), 'inf');
  assert.equal(show(D, floatLiteralBits('4.9e-324')!), '0x1p-1074');
  assert.equal(show(D, floatLiteralBits('2e-324')!), '0x0p+0');
  assert.equal(show(D, floatLiteralBits('1.e5')!), '0x1.86ap+16');
  assert.equal(show(D, floatLiteralBits('.5e1')!), '0x1.4p+2');
  assert.equal(floatLiteralBits('1'), undefined);
  assert.equal(floatLiteralBits('0x1.8'), undefined);
});

test('hexadecimal text round-trips every value', () => {
  for (const f of [S, D, X]) {
    for (const b of [0n, 1n, 12345n, ieee.maxFiniteBits(f, true), ieee.infBits(f, true), (1n << BigInt(f.sb - 1)) - 1n]) {
      assert.equal(ieee.parseHexFloat(f, show(f, b)), b, show(f, b));
    }
  }
});
