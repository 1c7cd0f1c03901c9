import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { parseImp } from '../../src/ivl/parser.js';
import { verifyImp } from '../../src/vc/verify.js';
import { shutdownZ3Wasm } from '../../src/smt/index.js';

after(() => shutdownZ3Wasm());

test('a goal the solver cannot decide in time is unknown (timeout), and the verdict UNKNOWN', async () => {
  const p = parseImp(
    `procedure hard(a: int, b: int)
  requires a > 1000;
{
  assert a * a * a * a != b * b * b * b * b + 2 + 9 * a * b * a;
  assert a > 999;
}`,
    'hard.imp',
  );
  const t0 = Date.now();
  const r = await verifyImp(p, { timeoutMs: 300 });
  assert.ok(Date.now() - t0 < 60_000);
  assert.deepEqual([r.goals[0].loc.line, r.goals[0].status, r.goals[0].reason], [4, 'unknown', 'timeout']);
  // The easy goal is proved (or, on a badly overloaded machine, also out of time; never failed).
  assert.equal(r.goals[1].loc.line, 5);
  assert.notEqual(r.goals[1].status, 'failed');
  assert.equal(r.verdict, 'UNKNOWN');
});
