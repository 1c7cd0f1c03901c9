// The differential soundness test: random programs with (nested) loops and
// random candidate sets; every selected candidate is checked against concrete
// runs of the original program. Fixed seed, small count (bench:select runs more).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createZ3WasmSolver, shutdownZ3Wasm } from '../../src/smt/index.js';
import { differential, falsifiedByRuns } from '../../src/invariants/differential.js';
import { randomProgram } from '../../src/invariants/random.js';
import { parseImp } from '../../src/ivl/index.js';
import { LoopTable, inlineCandidates } from '../../src/invariants/program.js';

after(() => shutdownZ3Wasm());

test('random programs are deterministic, parse, and have nested loops and candidates', () => {
  assert.equal(randomProgram(5), randomProgram(5));
  let nested = 0;
  for (let s = 30; s < 42; s++) {
    const p = parseImp(randomProgram(s), 'r.imp');
    const t = new LoopTable(p);
    if (t.loops.some((l) => l.parent !== undefined)) nested++;
    assert.equal(inlineCandidates(t).length, 3 * t.loops.length);
  }
  assert.ok(nested >= 3, `only ${nested} programs with nested loops`);
});

test('concrete runs falsify exactly the candidates that fail at some loop head', () => {
  const p = parseImp(
    `procedure main()
{
  var x, i, n: int;
  x := 0;
  i := 0;
  n := havoc;
  assume 0 <= n && n <= 3;
  while (i < n)
    candidate x == i;
    candidate x == 0;
    candidate x <= 2;
  {
    x := x + 1;
    i := i + 1;
  }
}
`,
    'f.imp',
  );
  const c = inlineCandidates(new LoopTable(p));
  assert.deepEqual([...falsifiedByRuns(p, c, 40, 1)].sort(), [1, 2]);
});

test('differential: Houdini and the corrected encoding never select a falsified candidate; the seed does', async () => {
  const solver = createZ3WasmSolver();
  try {
    const r = await differential(34, 8, ['houdini', 'encoding', 'encoding-seed'], solver);
    assert.ok(r.falsifiedCount > 0 && r.selectedCount.get('houdini')! > 0);
    assert.deepEqual(r.unsound.get('houdini'), []);
    assert.deepEqual(r.unsound.get('encoding'), []);
    // Seed 37: x := x + z; z := z + 1 from x = z = 1 with candidates z == 1 and z == x.
    const seed = r.unsound.get('encoding-seed')!;
    assert.ok(seed.some((u) => u.seed === 37 && u.candidate === 'z == x'), JSON.stringify(seed.map((u) => [u.seed, u.candidate])));
  } finally {
    await solver.dispose();
  }
});

test('differential: the rounds encoding (--rounds 2) never selects a falsified candidate and agrees with Houdini', async () => {
  const solver = createZ3WasmSolver();
  try {
    const r = await differential(34, 8, ['houdini', 'encoding'], solver, { rounds: 2 });
    assert.deepEqual(r.unsound.get('encoding'), []);
    for (const c of r.cases) assert.deepEqual([...c.selected.get('encoding')!].sort(), [...c.selected.get('houdini')!].sort(), `seed ${c.seed}`);
  } finally {
    await solver.dispose();
  }
});
