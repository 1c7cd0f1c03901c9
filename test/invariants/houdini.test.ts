// Houdini over one incremental session, the corrected encoding's least
// fixpoint, rejection reasons with counterexample states, nested loops.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseImp } from '../../src/ivl/index.js';
import { createZ3WasmSolver, shutdownZ3Wasm } from '../../src/smt/index.js';
import { LoopTable, inlineCandidates } from '../../src/invariants/program.js';
import { readOffSelection, selectInvariants, type SelectMethod } from '../../src/invariants/select.js';
import { encodeSound } from '../../src/invariants/encoding.js';

after(() => shutdownZ3Wasm());

const SWAP = `procedure main()
{
  var x, y, t, i, n: int;
  x := 0;
  y := 0;
  i := 0;
  n := havoc;
  while (i < n)
    candidate x == 0;
    candidate y == 0;
    candidate i >= 0;
    candidate i < 0;
  {
    t := x;
    x := y;
    y := t;
    i := i + 1;
  }
  assert x + y == 0;
}
`;

const NESTED = `procedure main()
{
  var i, j, s, n: int;
  n := havoc;
  assume n >= 0;
  i := 0;
  s := 0;
  while (i < n)
    candidate s >= 0;
    candidate i >= 0;
    candidate s == 0;
  {
    j := 0;
    while (j < i)
      candidate j >= 0;
      candidate s >= j;
      candidate j == 0;
    {
      s := s + 1;
      j := j + 1;
    }
    i := i + 1;
  }
  assert s >= 0;
}
`;

async function leastFixpoint(text: string): Promise<Set<number>> {
  const p = parseImp(text, 't.imp');
  const solver = createZ3WasmSolver();
  try {
    return (await readOffSelection(encodeSound(p, inlineCandidates(new LoopTable(p))), { solver, timeoutMs: 10_000, calls: 0 })).forced;
  } finally {
    await solver.dispose();
  }
}

async function run(text: string, method: SelectMethod, rounds?: number) {
  const p = parseImp(text, 't.imp');
  return selectInvariants(p, inlineCandidates(new LoopTable(p)), { method, rounds });
}

test('a mutually inductive pair: Houdini and the rounds encoding select it, the least-fixpoint encoding does not', async () => {
  const h = await run(SWAP, 'houdini');
  assert.deepEqual(h.verdicts.map((v) => v.status), ['selected', 'selected', 'selected', 'rejected']);
  assert.equal(h.verdicts[3].reason, 'not established on entry');
  assert.deepEqual(h.verdicts[3].counterexample?.entry?.i, '0');
  // Round 1 drops i < 0; round 2 is unsat.
  assert.equal(h.selectionCalls, 2);
  assert.equal(h.proved, true);
  assert.equal(h.verification?.verdict, 'TRUE');
  const e = await run(SWAP, 'encoding', 2);
  assert.deepEqual(e.verdicts.map((v) => v.status), ['selected', 'selected', 'selected', 'rejected']);
  assert.equal(e.verification?.verdict, 'TRUE');
  assert.equal(e.note, undefined);
  const l = await run(SWAP, 'encoding');
  assert.deepEqual(l.verdicts.map((v) => v.status), ['rejected', 'rejected', 'selected', 'rejected']);
  assert.equal(l.verification?.verdict, 'UNKNOWN');
  assert.deepEqual([...(await leastFixpoint(SWAP))].sort(), [2]);
});

test('a rejected candidate names the states before and after the breaking iteration', async () => {
  const h = await run(NESTED, 'houdini');
  const [sPos, iPos, sZero, jPos, sGeJ, jZero] = h.verdicts;
  assert.equal(sPos.status, 'selected');
  assert.equal(iPos.status, 'selected');
  assert.equal(sZero.status, 'rejected');
  assert.equal(jPos.status, 'selected');
  assert.equal(sGeJ.status, 'selected');
  assert.equal(jZero.status, 'rejected');
  assert.equal(jZero.reason, 'not preserved');
  const cx = jZero.counterexample!;
  assert.equal(cx.before?.j, '0');
  assert.equal(cx.after?.j, '1');
  assert.equal(h.proved, true);
});

test('nested loops: the rounds encoding agrees with Houdini; the least fixpoint misses the outer/inner cycle', async () => {
  const e = await run(NESTED, 'encoding', 2);
  assert.deepEqual(e.verdicts.map((v) => v.status), ['selected', 'selected', 'rejected', 'selected', 'selected', 'rejected']);
  // One verification run (R = 2 suffices here): probe rounds, each refuting at least one flag.
  assert.ok(e.selectionCalls >= 1 && e.selectionCalls <= 13, `selection calls ${e.selectionCalls}`);
  assert.equal(e.note, undefined);
  assert.equal((await run(NESTED, 'encoding', 1)).note, undefined);
  // The example needs two Houdini rounds (x == 0 falls first, then y == 0).
  const ex = `procedure main()
{
  var x, y, n: int;
  x := 0;
  y := 0;
  n := havoc;
  assume n >= 2;
  while (n > 0)
    candidate x == 0;
    candidate y == 0;
  {
    y := y + x;
    x := x + 1;
    n := n - 1;
  }
}
`;
  const one = await run(ex, 'encoding', 1);
  assert.match(one.note ?? '', /no fixpoint within 1 rounds/);
  assert.deepEqual(one.verdicts.map((v) => v.status), ['rejected', 'rejected']);
  const two = await run(ex, 'encoding', 2);
  assert.equal(two.note, undefined);
  assert.deepEqual(two.verdicts.map((v) => v.status), ['rejected', 'rejected']);
  // s >= 0 (outer) is preserved only through the inner loop's s >= j, whose
  // entry needs the outer s >= 0: a cycle, so neither flag is forced there.
  assert.deepEqual([...(await leastFixpoint(NESTED))].sort(), [1, 3]);
});

test('declared invariants are checked as usual and candidates are selected beside them', async () => {
  const text = `procedure main()
{
  var x, n: int;
  x := 0;
  n := havoc;
  while (x < n)
    invariant x >= 0;
    candidate x >= 1;
    candidate x <= n || n < 0;
  {
    x := x + 1;
  }
  assert x >= 0;
}
`;
  for (const m of ['houdini', 'encoding'] as const) {
    const r = await run(text, m);
    assert.deepEqual(r.verdicts.map((v) => [v.status, v.reason ?? '']), [
      ['rejected', 'not established on entry'],
      ['selected', ''],
    ]);
    assert.equal(r.verification?.verdict, 'TRUE');
  }
});

test('one solver session serves several selections (push/pop keeps them apart)', async () => {
  const solver = createZ3WasmSolver();
  try {
    const p = parseImp(SWAP, 't.imp');
    const c = inlineCandidates(new LoopTable(p));
    const a = await selectInvariants(p, c, { method: 'houdini', solverInstance: solver });
    const b = await selectInvariants(p, c, { method: 'encoding-seed', solverInstance: solver });
    const d = await selectInvariants(p, c, { method: 'houdini', solverInstance: solver });
    assert.deepEqual(a.verdicts, d.verdicts);
    assert.deepEqual(b.verdicts.map((v) => v.status), ['selected', 'selected', 'selected', 'rejected']);
  } finally {
    await solver.dispose();
  }
});
