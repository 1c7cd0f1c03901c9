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
  assert.ok(Date.now() - t0 < 15_000);
  assert.deepEqual(
    r.goals.map((g) => [g.loc.line, g.status, g.reason]),
    [
      [4, 'unknown', 'timeout'],
      [5, 'proved', undefined],
    ],
  );
  assert.equal(r.verdict, 'UNKNOWN');
});
