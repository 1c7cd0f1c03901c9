// The engine part of recursion summaries: Houdini over the conditions of
// every procedure, and one BMC check read as a failing condition or an error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseImp } from '../../src/ivl/index.js';
import { checkSummaries, strongestSummaries, type SummaryCheck } from '../../src/engines/index.js';
import { createSolver } from '../../src/smt/index.js';

const plenty = () => 600_000;

test('strongestSummaries drops each failing condition and checks every procedure again', async () => {
  // f's condition 'b' fails while g still has 'y'; once 'y' is gone, everything holds.
  const calls: string[] = [];
  const check = async (cs: ReadonlyMap<string, readonly string[]>, entry: string): Promise<SummaryCheck> => {
    calls.push(`${entry}:${cs.get(entry)!.join('')}`);
    const list = cs.get(entry)!;
    if (entry === 'g' && list.includes('y')) return { kind: 'summary-fails', index: list.indexOf('y') };
    if (entry === 'f' && list.includes('b') && cs.get('g')!.includes('y')) return { kind: 'summary-fails', index: list.indexOf('b') };
    return { kind: 'holds' };
  };
  const r = await strongestSummaries(['f', 'g'], new Map([['f', ['a', 'b', 'c']], ['g', ['x', 'y']]]), check, plenty);
  assert.ok('conditions' in r);
  assert.deepEqual([...r.conditions], [['f', ['a', 'c']], ['g', ['x']]]);
  assert.deepEqual(calls, ['f:abc', 'f:ac', 'g:xy', 'f:ac', 'g:x']);
});

test('strongestSummaries stops at an error, an undecided check, or the end of the budget', async () => {
  const conditions = new Map([['f', [1]], ['g', [2]]]);
  const error = await strongestSummaries(['f', 'g'], conditions, async (_, e) => (e === 'g' ? { kind: 'error' } : { kind: 'holds' }), plenty);
  assert.deepEqual(error, { failed: 'g', check: { kind: 'error' } });
  const unknown = await strongestSummaries(['f', 'g'], conditions, async () => ({ kind: 'unknown', why: 'solver gave up' }), plenty);
  assert.deepEqual(unknown, { failed: 'f', check: { kind: 'unknown', why: 'solver gave up' } });
  let budget = 1;
  const timeout = await strongestSummaries(['f', 'g'], conditions, async () => (budget--, { kind: 'holds' }), () => budget);
  assert.deepEqual(timeout, { timeout: true });
  // The caller's map is not changed.
  assert.deepEqual([...conditions], [['f', [1]], ['g', [2]]]);
});

test('checkSummaries: BMC on the program, a counterexample read as a failing condition or an error', async () => {
  // The goal of kind summary checks summary condition 0, the reach_error goal is an error goal.
  const p = (x: string) =>
    parseImp(
      `procedure main() { var r: bv32, n: bv32;
         n := havoc; assume ule(n, 5bv32);
         r := n + ${x};
         assert {:goal summary 0} ule(r, 6bv32);
         assert {:goal reach_error 1} r != 9bv32;
       }`,
      'summary.imp',
    );
  const summaryOf = (g: { goal?: { kind: string } }) => (g.goal?.kind === 'summary' ? 0 : undefined);
  const both = { error: ['summary', 'reach_error'] };
  const solver = createSolver('z3-wasm');
  try {
    const run = (x: string) => checkSummaries({ imp: p(x), roles: both, summaryOf }, { deadline: plenty, solver });
    assert.deepEqual(await run('1bv32'), { kind: 'holds' });
    assert.deepEqual(await run('2bv32'), { kind: 'summary-fails', index: 0 });
    // Without the summary goal (an assumption), only the error goal can fail.
    const assumed = await checkSummaries({ imp: p('4bv32'), roles: { error: ['reach_error'] }, summaryOf }, { deadline: plenty, solver });
    assert.deepEqual(assumed, { kind: 'holds' });
    const error = await checkSummaries({ imp: p('4bv32'), roles: both, summaryOf: () => undefined }, { deadline: plenty, solver });
    assert.deepEqual(error, { kind: 'error' });
  } finally {
    await solver.dispose();
  }
});
