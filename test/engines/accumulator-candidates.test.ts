import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseImp } from '../../src/ivl/index.js';
import { printExpr } from '../../src/ivl/printer.js';
import { loopsOf } from '../../src/ivl/walk.js';
import { executeImp, evalExpr } from '../../src/ivl/interp.js';
import { accumulatorCandidates, bmc } from '../../src/engines/index.js';
import { rng } from '../../src/common/random.js';

const soon = () => Date.now() + 600_000;

/** `s` sums `n` bytes read one per iteration, with `i` counting them; `after`: the assertion after the loop. */
const summing = (after: string, start = '0bv32') =>
  parseImp(
    `procedure main() { var n: bv8, v: bv8, s: bv32, i: bv32;
       n := havoc; v := 0bv8; s := ${start}; i := 0bv32;
       while (ult(i, zext32(n))) { v := havoc; s := s + zext32(v); i := i + 1bv32; }
       assert ${after}; }`,
    'sum.imp',
  );

test('an accumulator gets bounds in multiples of the counter, the last amount added, and the counter its bound; each holds at every loop head of random runs', () => {
  const program = summing('ule(s, 65025bv32)');
  const loop = loopsOf(program.procedures[0]!.body!)[0]!;
  const found = accumulatorCandidates()(loop, program);
  const texts = found.map(printExpr);
  for (const want of ['ule(s, 255bv32 * i)', 'uge(s, zext32(v))', 'ule(i, zext32(n))']) assert.ok(texts.includes(want), `${want} not in ${texts.join('; ')}`);
  const r = rng(7);
  for (let run = 0; run < 30; run++) {
    executeImp(program, 'main', {}, {
      havoc: (_name, t) => ({ kind: 'bv', width: t.kind === 'bv' ? t.width : 8, value: BigInt(Math.floor(r() * 256)) }),
      onLoopHead: (_loc, state) => {
        for (const e of found) assert.deepEqual(evalExpr(e, state), { kind: 'bool', value: true }, printExpr(e));
      },
    });
  }
});

test('no bounds without a known start, or for a variable the body also assigns elsewhere', () => {
  const unknownStart = parseImp(
    `procedure main() { var n: bv8, v: bv8, s: bv32, i: bv32;
       n := havoc; s := havoc; i := 0bv32;
       while (ult(i, zext32(n))) { v := havoc; s := s + zext32(v); i := i + 1bv32; } }`,
    'start.imp',
  );
  const twice = parseImp(
    `procedure main() { var n: bv8, v: bv8, s: bv32, i: bv32;
       n := havoc; s := 0bv32; i := 0bv32;
       while (ult(i, zext32(n))) { v := havoc; s := s + zext32(v); if (v == 3bv8) { s := 0bv32; } i := i + 1bv32; } }`,
    'twice.imp',
  );
  for (const p of [unknownStart, twice]) {
    const texts = accumulatorCandidates()(loopsOf(p.procedures[0]!.body!)[0]!, p).map(printExpr);
    assert.ok(!texts.some((t) => t.includes('255bv32')), texts.join('; '));
    assert.ok(texts.includes('ule(i, zext32(n))'));
  }
});

test('k-induction proves the sum\'s bound with them, and still finds the violation of a bound one less', async () => {
  const safe = await bmc(summing('ule(s, 65025bv32)'), { deadline: soon(), maxBound: 2, candidates: false, loopCandidates: accumulatorCandidates() });
  assert.equal(safe.verdict, 'true');
  const unsafe = await bmc(summing('ule(s, 65024bv32)'), { deadline: soon(), maxBound: 2, candidates: false, loopCandidates: accumulatorCandidates() });
  assert.notEqual(unsafe.verdict, 'true');
  // From 1, 255 bytes of 255 end above the bound: the guesses (now s - 1 <= 255 * i) prove nothing wrong.
  const shifted = await bmc(summing('ule(s, 65025bv32)', '1bv32'), { deadline: soon(), maxBound: 2, candidates: false, loopCandidates: accumulatorCandidates() });
  assert.notEqual(shifted.verdict, 'true');
});
