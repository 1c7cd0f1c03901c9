import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/shared.js';
import { guarded, parseImp, parseImpExpr } from '../../src/ivl/index.js';
import { assertionCandidates, bmc } from '../../src/engines/index.js';
import { createSolver, findExecutable, type Solver } from '../../src/smt/index.js';

function load(name: string) {
  const file = join(repoRoot, 'test', 'fixtures', 'engines', name);
  return parseImp(readFileSync(file, 'utf8'), file);
}
const soon = () => Date.now() + 600_000;

/** `real` with its check-sat replaced (a solver under test conditions: stalls, slow rounds). */
function withCheckSat(real: Solver, checkSat: Solver['checkSat']): Solver {
  return {
    name: real.name,
    push: () => real.push(),
    pop: (n) => real.pop(n),
    assert: (t) => real.assert(t),
    checkSat,
    getValues: (ts) => real.getValues(ts),
    eval: (t) => real.eval(t),
    getModel: () => real.getModel(),
    setTimeout: (ms) => real.setTimeout(ms),
    dispose: () => real.dispose(),
  };
}

test('a loop with a constant bound is proved by complete unrolling', async () => {
  const r = await bmc(load('count-safe.imp'), { deadline: soon(), induction: false });
  assert.equal(r.verdict, 'true');
  // 10 iterations need bound 16 in the sequence 1, 2, 4, 8, 16.
  assert.equal(r.bound, 16);
});

test('a reachable assert gives FALSE with the havoc value and the failing assert', async () => {
  const r = await bmc(load('count-bug.imp'), { deadline: soon() });
  assert.equal(r.verdict, 'false');
  if (r.verdict !== 'false') return;
  assert.equal(r.bound, 8);
  assert.equal(r.counterexample.goal.loc.line, 9);
  assert.equal(r.counterexample.havocs.length, 1);
  const n = r.counterexample.havocs[0]!;
  assert.equal(n.target, 'n');
  assert.equal(n.loc.line, 5);
  assert.ok(n.value >= 6n && n.value <= 100n, `n = ${n.value}`);
  // Loop condition evaluated 6 times, true each time.
  assert.deepEqual(r.counterexample.branches.map((b) => b.taken), [true, true, true, true, true, true]);
});

test('an unbounded loop: BMC alone gives UNKNOWN, k-induction proves it', async () => {
  const r = await bmc(load('unbounded.imp'), { deadline: soon(), maxBound: 8, induction: false });
  assert.equal(r.verdict, 'unknown');
  if (r.verdict === 'unknown') assert.match(r.reason, /bound 8/);
  // After k checked iterations n > k >= 0 holds, and leaving the loop needs x >= n.
  const k = await bmc(load('unbounded.imp'), { deadline: soon(), maxBound: 8 });
  assert.equal(k.verdict, 'true');
  if (k.verdict === 'true') assert.equal(k.method, 'k-induction');
});

test('k-induction does not prove violations beyond the bound', async () => {
  // Inside the loop: fails in iteration 1000.
  const inLoop = parseImp('procedure main() { var x: bv32; x := 0bv32; while (true) { x := x + 1bv32; assert x != 1000bv32; } }', 'a.imp');
  assert.equal((await bmc(inLoop, { deadline: soon(), maxBound: 16, candidates: false })).verdict, 'unknown');
  // After the loop: fails once the loop ran 20 times.
  const after = parseImp('procedure main() { var i: bv32; i := 0bv32; while (ult(i, 20bv32)) { i := i + 1bv32; } assert i != 20bv32; }', 'b.imp');
  assert.equal((await bmc(after, { deadline: soon(), maxBound: 16 })).verdict, 'unknown');
  const found = await bmc(after, { deadline: soon(), maxBound: 32, candidates: false });
  assert.equal(found.verdict, 'false');
  // Nested loop: the inner one violates only when the outer has run 10 times.
  const nested = parseImp(
    `procedure main() { var i: bv32, j: bv32, s: bv32;
       i := 0bv32; s := 0bv32;
       while (true) { i := i + 1bv32; j := 0bv32;
         while (ult(j, 3bv32)) { j := j + 1bv32; s := s + 1bv32; }
         assert s != 30bv32; } }`,
    'c.imp',
  );
  assert.equal((await bmc(nested, { deadline: soon(), maxBound: 8, candidates: false })).verdict, 'unknown');
});

test('calls are inlined and contracts assumed', async () => {
  const r = await bmc(load('calls.imp'), { deadline: soon() });
  assert.equal(r.verdict, 'false');
  if (r.verdict === 'false') assert.equal(r.counterexample.goal.loc.line, 12);
});

test('an assert classified as a bound goal never makes FALSE', async () => {
  const p = parseImp('procedure main() { var x: bv8; x := havoc; if (x == 3bv8) { assert {:goal cut 0} false; } }', 'cut.imp');
  const asBound = await bmc(p, { deadline: soon(), roles: { error: [], bound: ['cut'] }, maxBound: 4 });
  assert.equal(asBound.verdict, 'unknown');
  const asError = await bmc(p, { deadline: soon() });
  assert.equal(asError.verdict, 'false');
  if (asError.verdict === 'false') assert.equal(asError.counterexample.havocs[0]!.value, 3n);
});

test('a program the encoding cannot take is UNKNOWN with the reason', async () => {
  const p = parseImp('procedure main() { assert y == 1; }', 'bad.imp');
  const r = await bmc(p, { deadline: soon() });
  assert.equal(r.verdict, 'unknown');
  if (r.verdict === 'unknown') assert.match(r.reason, /unknown variable 'y'/);
});

test('candidate invariants (Houdini) make a relational property k-inductive', async () => {
  // After the loop j == n needs the invariant i == j (a candidate): the
  // loop's condition bounds i, and nothing else relates j to n.
  const p = parseImp(
    `procedure main() { var i: bv32, j: bv32, n: bv32;
       n := havoc; assume sle(0bv32, n); assume sle(n, 1000bv32); i := 0bv32; j := 0bv32;
       while (slt(i, n)) { i := i + 1bv32; j := j + 1bv32; }
       assert j == n; }`,
    'h.imp',
  );
  assert.equal((await bmc(p, { deadline: soon(), maxBound: 4, candidates: false })).verdict, 'unknown');
  const r = await bmc(p, { deadline: soon(), maxBound: 4 });
  assert.equal(r.verdict, 'true');
  if (r.verdict === 'true') assert.equal(r.method, 'k-induction');
  // The same loop with the wrong claim is not proved.
  const bad = parseImp(
    `procedure main() { var i: bv32, n: bv32;
       n := havoc; assume sle(0bv32, n); assume sle(n, 1000bv32); i := 0bv32;
       while (slt(i, n)) { i := i + 1bv32; }
       assert i != 500bv32; }`,
    'h2.imp',
  );
  assert.equal((await bmc(bad, { deadline: soon(), maxBound: 4 })).verdict, 'unknown');
});

test('caller candidates (loopCandidates) go through Houdini; a TRUE reports the survivors per loop', async () => {
  // x + y == 10 is no built-in template; with it the loop is 1-inductive.
  const p = parseImp(
    `procedure main() { var x: bv32, y: bv32;
       x := 0bv32; y := 10bv32;
       while (ult(x, 10bv32)) { x := x + 1bv32; y := y - 1bv32; if (x == 5bv32) { x := x + 0bv32; } }
       assert x + y == 10bv32; }`,
    'c.imp',
  );
  const base = await bmc(p, { deadline: soon(), maxBound: 4 });
  assert.equal(base.verdict, 'unknown');
  const [good, wrong, illTyped, unknownVar] = [
    parseImpExpr('x + y == 10bv32', 'cand'),
    parseImpExpr('y == 10bv32', 'cand'),
    parseImpExpr('x + 1bv32', 'cand'),
    parseImpExpr('z == 1bv32', 'cand'),
  ];
  const asked: string[] = [];
  const r = await bmc(p, {
    deadline: soon(),
    maxBound: 4,
    candidates: false,
    loopCandidates: (loop, program) => {
      assert.equal(loop.kind, 'while');
      assert.ok(program.procedures.length > 0);
      asked.push(`${loop.loc.line}`);
      return [good, wrong, illTyped, unknownVar];
    },
  });
  assert.equal(r.verdict, 'true');
  if (r.verdict !== 'true') return;
  assert.equal(r.method, 'k-induction');
  assert.ok(asked.length >= 1);
  assert.equal(r.invariants.length, 1);
  const inv = r.invariants[0]!;
  assert.equal(inv.loop.kind, 'while');
  assert.equal(inv.loc.line, 3);
  // Only the real invariant survives (y == 10 fails after one iteration; the others are not Boolean over the scope),
  // reported where it was checked: where the loop's condition holds.
  assert.deepEqual(inv.exprs, [guarded(inv.loop.kind === 'while' ? inv.loop.cond : good, good)]);
  assert.ok(r.program.procedures.some((q) => q.body?.includes(inv.loop)));
});

test("caller candidates undecided in one check (a loaded machine) are tried again once an attempt has more time, not dropped for good", async () => {
  // x + y == 10 (the caller's) proves the unbounded loop; no built-in template does.
  const p = parseImp(
    `procedure main() { var x: bv32, y: bv32, n: bv32;
       x := 0bv32; y := 10bv32; n := havoc;
       while (ult(x, n)) { x := x + 1bv32; y := y - 1bv32; }
       assert x + y == 10bv32; }`,
    'r.imp',
  );
  // The first checks with candidates answer unknown, as z3 does when it gets no CPU in its time limit.
  const real = createSolver();
  let stalls = 0;
  const solver = withCheckSat(real, (assumptions, options) => {
    if ((assumptions?.length ?? 0) > 1 && stalls < 3) {
      stalls++;
      return Promise.resolve({ status: 'unknown', reason: 'timeout', timeMs: 0 });
    }
    // Other checks get all the time they need: only the stalls above may be undecided, however loaded the machine.
    return real.checkSat(assumptions, { ...options, timeoutMs: 60_000 });
  });
  try {
    // The engine believes its checks have 100 ms, so that a stalled attempt had time left (not cut short).
    const r = await bmc(p, { deadline: Date.now() + 120_000, maxBound: 64, solverTimeoutMs: () => 100, solver, loopCandidates: () => [parseImpExpr('x + y == 10bv32', 'cand')] });
    assert.ok(stalls > 0, 'no check was made to stall: the test tests nothing');
    assert.equal(r.verdict, 'true', r.verdict === 'unknown' ? r.reason : undefined);
  } finally {
    await real.dispose();
  }
});

test("the check of the goals after Houdini's fixpoint gets a call of its own when the attempt's time is spent", async () => {
  const p = parseImp(
    `procedure main() { var x: bv32, y: bv32;
       x := 0bv32; y := 10bv32;
       while (ult(x, 10bv32)) { x := x + 1bv32; y := y - 1bv32; }
       assert y == 0bv32; }`,
    'fixpoint.imp',
  );
  // Houdini's first round takes longer than the attempt's allowance (300 ms), as on a loaded machine.
  const real = createSolver();
  const limits: number[] = [];
  let slowed = false;
  const solver = withCheckSat(real, async (assumptions, options) => {
    limits.push(options?.timeoutMs ?? Infinity);
    if ((assumptions?.length ?? 0) >= 2 && !slowed) {
      slowed = true;
      await new Promise((r) => setTimeout(r, 400));
    }
    return real.checkSat(assumptions, options);
  });
  try {
    // Bound 1 cannot unroll the loop: only induction with both candidates proves it.
    const r = await bmc(p, { deadline: soon(), maxBound: 1, candidates: false, solver, loopCandidates: () => [parseImpExpr('x + y == 10bv32', 'cand'), parseImpExpr('ule(x, 10bv32)', 'cand')] });
    assert.ok(slowed, 'no Houdini round was slowed: the test tests nothing');
    assert.equal(r.verdict, 'true', r.verdict === 'unknown' ? r.reason : undefined);
    assert.ok(limits.at(-1)! >= 250, `the last check had ${limits.at(-1)} ms`);
  } finally {
    await real.dispose();
  }
});

test('a survivor holds on every arrival: a candidate true at entry but broken by an iteration is dropped', async () => {
  // j <= 3 holds at entry and is preserved only while j < 3; the loop runs to 10.
  const p = parseImp(
    `procedure main() { var i: bv32, j: bv32;
       i := 0bv32; j := 0bv32;
       while (ult(i, 10bv32)) { i := i + 1bv32; j := j + 1bv32; }
       assert j == 10bv32; }`,
    's.imp',
  );
  const r = await bmc(p, { deadline: soon(), maxBound: 1, candidates: false, loopCandidates: () => [parseImpExpr('ule(j, 3bv32)', 'cand'), parseImpExpr('i == j', 'cand')] });
  assert.equal(r.verdict, 'true');
  if (r.verdict !== 'true') return;
  assert.equal(r.method, 'k-induction');
  assert.deepEqual(r.invariants[0]!.exprs.map((e) => JSON.stringify(e, (k, v) => (k === 'loc' ? undefined : typeof v === 'bigint' ? String(v) : v))), [
    JSON.stringify(parseImpExpr('ult(i, 10bv32) ==> i == j', 'cand'), (k, v) => (k === 'loc' ? undefined : typeof v === 'bigint' ? String(v) : v)),
  ]);
});

test('a candidate is claimed where the loop runs on: one that the state leaving a flag loop breaks still proves what follows, a wrong claim is still found', async () => {
  // while (1) { k--; j++; if (j >= n) break; } assert k >= -1: k >= 0 and k + j == n hold while the loop runs
  // on, not in the state that leaves it (n == 0 leaves with k == -1).
  const program = (after: string) =>
    parseImp(
      `procedure main() { var j: bv32, k: bv32, n: bv32, go: bool;
         n := havoc; assume sle(0bv32, n) && sle(n, 1000bv32); j := 0bv32; k := n; go := true;
         while (go) { k := k - 1bv32; j := j + 1bv32; go := !sge(j, n); }
         assert ${after}; }`,
      'flag.imp',
    );
  const cands = () => [parseImpExpr('k + j == n', 'cand'), parseImpExpr('sge(k, 0bv32)', 'cand')];
  const r = await bmc(program('sge(k, 4294967295bv32)'), { deadline: soon(), maxBound: 2, candidates: false, loopCandidates: cands });
  assert.equal(r.verdict, 'true');
  if (r.verdict === 'true') assert.deepEqual(r.invariants[0]!.exprs.map((e) => e.kind === 'binary' && e.op), ['==>', '==>']);
  // k >= 0 after the loop is wrong (n == 0): found, never proved.
  const wrong = await bmc(program('sge(k, 0bv32)'), { deadline: soon(), maxBound: 2, candidates: false, loopCandidates: cands });
  assert.equal(wrong.verdict, 'false');
});

test('every solver back end present gives the same verdicts and bounds', async () => {
  const backends = ['z3-wasm', ...['z3', 'cvc5'].filter((s) => findExecutable(s) !== undefined)];
  const cases: Array<[string, string, number]> = [
    // One iteration from any state below 10 that leaves the loop leaves it at 10: 1-induction.
    ['count-safe.imp', 'true', 1],
    ['count-bug.imp', 'false', 8],
    ['unbounded.imp', 'true', 1],
    ['calls.imp', 'false', 1],
  ];
  for (const solver of backends) {
    for (const [file, verdict, bound] of cases) {
      const r = await bmc(load(file), { deadline: soon(), maxBound: 16, solver });
      assert.equal(r.verdict, verdict, `${file} on ${solver}`);
      assert.equal(r.bound, bound, `${file} on ${solver}`);
    }
  }
});

test("the program's own asserted condition, read through the lowering's temporaries, is a candidate that proves the loop", async () => {
  // The shape lowered C gives `__VERIFIER_assert(m < n || n <= 0)` after a loop:
  // the condition in a temporary, tested against 0 before `assert false`.
  const p = parseImp(
    `procedure main() { var x: bv32, m: bv32, n: bv32, nd: bv32, t: bv32, cond: bv32;
       x := 0bv32; m := 0bv32; n := havoc;
       while (slt(x, n)) { nd := havoc; if (nd != 0bv32) { m := x; } x := x + 1bv32; }
       t := (if slt(m, n) || sle(n, 0bv32) then 1bv32 else 0bv32);
       cond := t;
       if (cond == 0bv32) { assert false; assume false; } }`,
    'a.imp',
  );
  const source = assertionCandidates();
  const loop = p.procedures[0]!.body!.find((s) => s.kind === 'while')!;
  const strip = (e: unknown) => JSON.stringify(e, (k, v) => (k === 'loc' ? undefined : typeof v === 'bigint' ? String(v) : v));
  // The condition itself, over program variables only (t and cond substituted, the test against 0 undone).
  assert.deepEqual(source(loop, p).map(strip), [strip(parseImpExpr('slt(m, n) || sle(n, 0bv32)', 'cand'))]);
  assert.equal((await bmc(p, { deadline: soon(), maxBound: 2, candidates: false })).verdict, 'unknown');
  const r = await bmc(p, { deadline: soon(), maxBound: 2, candidates: false, loopCandidates: source });
  assert.equal(r.verdict, 'true');
  if (r.verdict === 'true') assert.equal(r.method, 'k-induction');
});

test('a polynomial invariant asserted at the top of a loop left by a break proves itself and what follows the loop (1-induction, 64-bit)', async () => {
  const program = (poly: string) =>
    parseImp(
      `procedure main() { var y: bv64, x: bv64, c: bv64, k: bv64, go: bool;
         k := havoc; y := 0bv64; x := 0bv64; c := 0bv64; go := true;
         while (go) {
           assert ${poly} == 0bv64;
           if (!slt(c, k)) { go := false; } else { c := c + 1bv64; y := y + 1bv64; x := y + x; }
         }
         assert ${poly} == 0bv64; }`,
      'ps2.imp',
    );
  const r = await bmc(program('y * y - 2bv64 * x + y'), { deadline: soon(), maxBound: 2, candidates: false });
  assert.equal(r.verdict, 'true');
  if (r.verdict === 'true') assert.equal(r.method, 'k-induction');
  // Not an invariant (fails at y = 1): found, never proved.
  const wrong = await bmc(program('y * y - 2bv64 * x - y'), { deadline: soon(), maxBound: 4, candidates: false });
  assert.equal(wrong.verdict, 'false');
});

test('k-induction starts the arbitrary state at an iteration that runs: a loop left after more iterations than the depth still fails its check', async () => {
  // The assert after the loop fails only when the loop ran 40 times; no proof at any depth up to 16.
  const p = parseImp(
    `procedure main() { var i: bv32, go: bool;
       i := 0bv32; go := true;
       while (go) { i := i + 1bv32; if (i == 40bv32) { go := false; } }
       assert i != 40bv32; }`,
    'exit.imp',
  );
  assert.notEqual((await bmc(p, { deadline: soon(), maxBound: 16, candidates: false })).verdict, 'true');
  assert.equal((await bmc(p, { deadline: soon(), maxBound: 64, candidates: false })).verdict, 'false');
});

test('inductionOnly (no BMC) checks the goals before, between and after loops and inside them: it proves none that fails, and proves a safe loop', async () => {
  const unsafe = {
    before: 'x := havoc; assert x != 5bv8; i := 0bv8; while (ult(i, 10bv8)) { i := i + 1bv8; }',
    after: 'x := havoc; i := 0bv8; while (ult(i, 10bv8)) { i := i + 1bv8; } assert x != 5bv8;',
    between: 'i := 0bv8; while (ult(i, 10bv8)) { i := i + 1bv8; } assert i == 9bv8; while (ult(i, 20bv8)) { i := i + 1bv8; }',
    inside: 'i := 0bv8; while (ult(i, 10bv8)) { assert i != 3bv8; i := i + 1bv8; }',
  };
  const prove = (body: string, name: string) => bmc(parseImp(`procedure main() { var x: bv8, i: bv8; ${body} }`, `${name}.imp`), { deadline: Date.now() + 5000, inductionOnly: true });
  for (const [name, body] of Object.entries(unsafe)) assert.notEqual((await prove(body, name)).verdict, 'true', name);
  assert.equal((await prove('i := 0bv8; while (ult(i, 10bv8)) { assert ule(i, 10bv8); i := i + 1bv8; }', 'safe')).verdict, 'true');
});
