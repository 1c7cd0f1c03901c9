import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseImp, parseImpExpr } from '../../src/ivl/parser.js';
import { printExpr, printImp } from '../../src/ivl/printer.js';
import { typecheckImp } from '../../src/ivl/typecheck.js';
import { evalExpr, executeImp, valueKey } from '../../src/ivl/interp.js';
import { TarsierError } from '../../src/common/errors.js';

const program = `procedure main(x: fp32) returns (r: fp64)
{
  var m: rmode, b: bv32;
  m := RTZ;
  r := to_fp64(RNE, fmul(m, x, fp32(0x1.8p+1)));
  b := fp_to_sbv32(RTZ, x);
  assert !fisnan(r) ==> feq(r, r);
  assert fp32(nan) == fp32(nan) && !feq(fp32(nan), fp32(nan)) && !(fp64(0x0p+0) == fp64(-0x0p+0));
}
`;

test('float types, literals and built-ins parse, print back and type-check', () => {
  const p = parseImp(program, 'f.imp');
  assert.deepEqual(typecheckImp(p), []);
  assert.equal(printImp(parseImp(printImp(p), 'g.imp')), printImp(p));
  assert.equal(printExpr(parseImpExpr('fp80(-0x1.8p-16400)', 'e')), 'fp80(-0x1.8p-16400)');
  assert.equal(printExpr(parseImpExpr('fp64(-inf)', 'e')), 'fp64(-inf)');
});

test('a float literal must be a value of its type', () => {
  assert.throws(() => parseImpExpr('fp32(0x1.000001p+0)', 'e'), (e: unknown) => e instanceof TarsierError && /not a value of fp32/.test(e.message));
  assert.throws(() => parseImpExpr('fp32(1.5)', 'e'), TarsierError);
});

test('ill-typed float expressions are reported', () => {
  const bad = (body: string) => typecheckImp(parseImp(`procedure p(x: fp32, y: fp64) { var b: bool; ${body} }`, 'p.imp')).map((d) => d.message);
  assert.match(bad('b := feq(x, y);')[0], /different types: fp32 and fp64/);
  assert.match(bad('b := fisnan(fadd(x, x, x));')[0], /rounding mode/);
  assert.match(bad('b := x + x == x;')[0], /needs int, real or bit-vector/);
  assert.match(bad('b := fisnan(bits_to_fp32(1bv64));')[0], /needs a bv32/);
});

test('the interpreter computes IEEE results and one NaN', () => {
  const r = executeImp(parseImp(program, 'f.imp'), 'main', { x: evalExpr(parseImpExpr('fp32(0x1.fffffep+1)', 'e'), new Map()) });
  assert.equal(r.status, 'returned');
  assert.equal(valueKey(r.state.get('r')!), 'fp64(0x1.7ffffep+3)'); // 3 * (4 - 2^-22) = 0x1.7ffffe8p+3, truncated to binary32
  assert.equal(valueKey(r.state.get('b')!), '3bv32');
  const nanBits = evalExpr(parseImpExpr('bits_to_fp32(4290772992bv32)', 'e'), new Map()); // 0xffc00000, the x86 default NaN
  assert.equal(valueKey(nanBits), 'fp32(nan)');
});
