import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  scoreResult,
  metaCategoryScore,
  rankByScore,
  tally,
  parseResultLine,
  findResult,
  verdictString,
  parseVerdictString,
  type Verdict,
} from '../../src/task/index.js';

const T: Verdict = { kind: 'true' };
const F = (p?: string): Verdict => (p ? { kind: 'false', property: p } : { kind: 'false' });
const U: Verdict = { kind: 'unknown' };

test("the rules' scoring table", () => {
  const holds = { verdict: true };
  const violated = { verdict: false };
  const s = (e: { verdict: boolean; subproperty?: string }, v: Verdict) => {
    const r = scoreResult(e, v, { property: 'unreach-call' });
    return [r.category, r.points];
  };
  assert.deepEqual(s(holds, T), ['correct', 2]);
  assert.deepEqual(s(violated, F('unreach-call')), ['correct', 1]);
  assert.deepEqual(s(violated, F()), ['correct', 1]);
  assert.deepEqual(s(violated, T), ['wrong', -32]);
  assert.deepEqual(s(holds, F('unreach-call')), ['wrong', -16]);
  assert.deepEqual(s(holds, U), ['unknown', 0]);
  assert.deepEqual(s(violated, { kind: 'unknown', reason: 'timeout' }), ['unknown', 0]);
  // A violation of another property is no answer for this one.
  assert.deepEqual(s(violated, F('no-overflow')), ['unknown', 0]);
  // No expected verdict: not scored.
  assert.deepEqual([scoreResult(undefined, T).category, scoreResult(undefined, T).points], ['missing', 0]);
  // Unconfirmed witnesses give nothing for right answers, but wrong ones still cost.
  assert.deepEqual([scoreResult(holds, T, { confirmed: false }).category, scoreResult(holds, T, { confirmed: false }).points], ['correct-unconfirmed', 0]);
  assert.equal(scoreResult(holds, F(), { confirmed: false }).points, -16);
});

test('a FALSE with the wrong sub-property is incorrect', () => {
  const expected = { verdict: false, subproperty: 'valid-deref' };
  const opts = { property: 'valid-memsafety' as const };
  assert.deepEqual(scoreResult(expected, F('valid-deref'), opts), { category: 'correct', points: 1 });
  const wrong = scoreResult(expected, F('valid-free'), opts);
  assert.equal(wrong.category, 'wrong');
  assert.equal(wrong.points, -16);
  assert.equal(scoreResult(expected, F('valid-memtrack'), opts).points, -16);
  assert.equal(scoreResult(expected, T, opts).points, -32);
  // Without naming the sub-property, it is not an answer for it.
  assert.equal(scoreResult(expected, F(), opts).category, 'unknown');
  // A memory-safety task that holds: any named violation is wrong.
  assert.equal(scoreResult({ verdict: true }, F('valid-free'), opts).points, -16);
  // A memory-safety file may have a fourth line, valid-memcleanup (the property table's mayInclude).
  const cleanup = { verdict: false, subproperty: 'valid-memcleanup' };
  assert.deepEqual(scoreResult(cleanup, F('valid-memcleanup'), opts), { category: 'correct', points: 1 });
  assert.equal(scoreResult(cleanup, F('valid-memtrack'), opts).points, -16);
  assert.equal(scoreResult({ verdict: true }, F('valid-memcleanup'), opts).points, -16);
  // valid-memcleanup's own file includes no memory-safety line.
  assert.equal(scoreResult({ verdict: false }, F('valid-memtrack'), { property: 'valid-memcleanup' }).category, 'unknown');
});

test("meta categories: the rules' worked example (A 15, B 20, C 10, D 24)", () => {
  // Category 1: 10 tasks, all TRUE (2 points each); category 2: 10 tasks, all FALSE (1 point each).
  const solved = { A: [5, 5], B: [10, 0], C: [0, 10], D: [8, 8] } as const;
  const scores = Object.entries(solved).map(([name, [c1, c2]]) => ({
    name,
    score: metaCategoryScore([
      { tasks: 10, score: c1 * 2 },
      { tasks: 10, score: c2 * 1 },
    ]),
    cpuTimeCorrect: 0,
  }));
  assert.deepEqual(
    scores.map((s) => [s.name, s.score]),
    [
      ['A', 15],
      ['B', 20],
      ['C', 10],
      ['D', 24],
    ],
  );
  assert.deepEqual(rankByScore(scores).map((s) => s.name), ['D', 'B', 'A', 'C']);
  // Different sizes: a task of the small category weighs more.
  assert.equal(metaCategoryScore([{ tasks: 2, score: 2 }, { tasks: 8, score: 2 }]), (1 + 0.25) * 5);
});

test('ties are ranked by success run time', () => {
  const r = rankByScore([
    { name: 'slow', score: 3, cpuTimeCorrect: 10 },
    { name: 'fast', score: 3, cpuTimeCorrect: 2 },
    { name: 'best', score: 4, cpuTimeCorrect: 99 },
  ]);
  assert.deepEqual(r.map((x) => x.name), ['best', 'fast', 'slow']);
});

test('tallies count correct, wrong and unknown answers and the success run time', () => {
  const t = tally([
    { answer: 'true', category: 'correct', points: 2, cpuTime: 1.5 },
    { answer: 'false', category: 'correct', points: 1, cpuTime: 0.5 },
    { answer: 'true', category: 'wrong', points: -32, cpuTime: 7 },
    { answer: 'false', category: 'wrong', points: -16, cpuTime: 7 },
    { answer: 'unknown', category: 'unknown', points: 0, cpuTime: 30 },
    { answer: 'true', category: 'correct-unconfirmed', points: 0, cpuTime: 3 },
  ]);
  assert.equal(t.score, -45);
  assert.deepEqual(
    [t.correctTrue, t.correctFalse, t.incorrectTrue, t.incorrectFalse, t.unknown, t.unconfirmedTrue, t.cpuTimeCorrect, t.tasks],
    [1, 1, 1, 1, 1, 1, 2, 6],
  );
});

test('result lines', () => {
  assert.deepEqual(parseResultLine('Verification result: TRUE'), T);
  assert.deepEqual(parseResultLine('Verification result: FALSE(valid-deref)'), F('valid-deref'));
  assert.deepEqual(parseResultLine('Verification result: FALSE'), F());
  assert.deepEqual(parseResultLine('Verification result: UNKNOWN'), U);
  assert.deepEqual(parseResultLine('Verification result: TRUE. No property violation found by chosen configuration.'), T);
  assert.deepEqual(parseResultLine('Verification result: UNKNOWN, incomplete analysis.'), { kind: 'unknown', reason: 'incomplete analysis.' });
  assert.equal(parseResultLine('Verification result: MAYBE'), undefined);
  assert.equal(parseResultLine('Verification result: TRUEISH'), undefined);
  assert.equal(parseResultLine('result: TRUE'), undefined);
  assert.deepEqual(findResult('Verification result: TRUE\nnoise\nVerification result: FALSE(unreach-call)\n'), F('unreach-call'));
  assert.equal(findResult('segmentation fault\n'), undefined);
  assert.equal(verdictString(F('no-overflow')), 'false(no-overflow)');
  assert.deepEqual(parseVerdictString('false(termination)'), F('termination'));
  assert.equal(parseVerdictString('TIMEOUT'), undefined);
});
