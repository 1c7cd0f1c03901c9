// IMP invariants (of the analysis and of k-induction's templates) written in
// C for a correctness witness: only the shapes with a C form that means the
// same and cannot overflow.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseImpExpr } from '../../src/ivl/index.js';
import { exprToC } from '../../src/verify/index.js';

const vars = new Map([
  ['x@main', { name: 'x', signed: true, width: 32 }],
  ['y@main', { name: 'y', signed: true, width: 32 }],
  ['u@main', { name: 'u', signed: false, width: 32 }],
  ['c@main', { name: 'c', signed: true, width: 8 }],
  ['b@main', { name: 'b', signed: false, width: 8 }],
  ['l@main', { name: 'l', signed: true, width: 64 }],
]);
const c = (imp: string) => exprToC(parseImpExpr(imp, 't.imp'), vars);

test('comparisons whose signedness is the C variable\'s', () => {
  assert.equal(c('sle(x@main, 5bv32)'), 'x <= 5');
  assert.equal(c('sge(x@main, y@main)'), 'x >= y');
  assert.equal(c('x@main == 4294967295bv32'), 'x == -1');
  assert.equal(c('ule(u@main, 4294967295bv32)'), 'u <= 4294967295U');
  assert.equal(c('sgt(l@main, 5000000000bv64)'), 'l > 5000000000LL');
  // A signed comparison of an unsigned variable, or of variables of two signednesses or widths: no C form.
  assert.equal(c('sle(u@main, 0bv32)'), undefined);
  assert.equal(c('sle(c@main, sext8(x@main))'), undefined);
  // An unsigned one compares bit patterns: the conversions to unsigned int (modulo 2^32) have them.
  assert.equal(c('ule(x@main, u@main)'), '((unsigned int)x) <= ((unsigned int)u)');
  // Multiples and sums wrap in unsigned int as in the bit-vectors; a narrower unsigned value zero-extended keeps its value, a signed one does not.
  assert.equal(c('ule(u@main, 255bv32 * x@main)'), '((unsigned int)u) <= (255U * ((unsigned int)x))');
  assert.equal(c('uge(u@main, zext32(b@main))'), '((unsigned int)u) >= ((unsigned int)b)');
  assert.equal(c('uge(u@main, zext32(c@main))'), undefined);
  // The type's minimum has no negation that fits.
  assert.equal(c('sge(x@main, 2147483648bv32)'), undefined);
  // An unknown variable (not in scope at the loop).
  assert.equal(c('sle(z@main, 0bv32)'), undefined);
});

test('differences in long long and remainders by a constant', () => {
  assert.equal(c('sbv2int(x@main) - sbv2int(y@main) <= -3'), '(long long)x - (long long)y <= -3');
  assert.equal(c('sbv2int(x@main) - sbv2int(y@main) <= 0'), 'x <= y');
  assert.equal(c('sbv2int(l@main) - sbv2int(x@main) <= 2'), undefined);
  assert.equal(c('urem(u@main, 4bv32) == 1bv32'), 'u % 4 == 1');
  // C's % of a negative int is negative: no form without a known lower bound.
  assert.equal(c('urem(x@main, 4bv32) == 1bv32'), undefined);
  // A bit-vector equality with arithmetic: C's unsigned arithmetic wraps as the bit-vectors do.
  assert.equal(c('x@main + 1bv32 == y@main'), '(((unsigned int)x) + 1U) == ((unsigned int)y)');
});
