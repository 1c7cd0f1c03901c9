import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { parseImp } from '../../src/ivl/parser.js';
import { encodeProcedure, LoopInEncodingError, modifiedGlobals } from '../../src/vc/encode.js';
import { assignedVars } from '../../src/ivl/walk.js';
import { checkGoal } from '../../src/vc/verify.js';
import { createZ3WasmSolver, shutdownZ3Wasm, termToSmt } from '../../src/smt/index.js';
import type { Stmt } from '../../src/ivl/ast.js';

after(() => shutdownZ3Wasm());

const prog = parseImp(
  `var g: int;
procedure bump() ensures g == old(g) + 1; { g := g + 1; }
procedure twice() { call bump(); call bump(); }
procedure f(n: int) returns (r: int)
  requires n > 0;
  ensures r >= n;
{
  r := n;
  while (r < 10) { r := r + 1; call twice(); }
  assert r >= 10;
}`,
  'e.imp',
);

test('modified globals are transitive; loop targets include them', () => {
  const mods = modifiedGlobals(prog);
  assert.deepEqual([...mods.get('twice')!], ['g']);
  const f = prog.procedures[2];
  const loop = f.body![1] as Extract<Stmt, { kind: 'while' }>;
  assert.deepEqual([...assignedVars(loop.body, (call) => mods.get(call.proc) ?? [])].sort(), ['g', 'r']);
});

test('encodeProcedure: goals with positions, prefixes, a replaced body, loops refused on request', async () => {
  const enc = encodeProcedure(prog, 'f', { prefix: 'u1!' });
  assert.deepEqual(
    enc.goals.map((g) => `${g.kind}@${g.loc.line}:${g.loc.column}`),
    ['assert@10:3', 'postcondition@6:11'],
  );
  assert.ok(enc.assertions.every((a) => !/\b(r|n)!\d/.test(termToSmt(a).replace(/u1!\w+!\d+/g, ''))), 'every name carries the prefix');
  assert.equal(enc.loops.length, 1);
  assert.equal(enc.loops[0].hasInvariants, false);
  assert.throws(() => encodeProcedure(prog, 'f', { loops: 'error' }), LoopInEncodingError);

  // A BMC-style body: the loop unrolled twice, then cut off by an assumption.
  const unrolled = parseImp(
    `var g: int;
procedure f(n: int) returns (r: int) requires n > 0; {
  r := n;
  if (r < 10) { r := r + 1; if (r < 10) { r := r + 1; assume !(r < 10); } }
  assert r >= 11;
}`,
    'u.imp',
  ).procedures[0];
  const enc2 = encodeProcedure(prog, 'f', { body: unrolled.body, loops: 'error', checkPostconditions: false });
  assert.deepEqual(enc2.goals.map((g) => g.kind), ['assert']);
  const s = createZ3WasmSolver();
  try {
    for (const a of enc2.assertions) await s.assert(a);
    const r = await checkGoal(s, enc2, enc2.goals[0], 10_000);
    // n = 8, 9 or 10 ends with r = 10 (after two, one or no increments).
    assert.equal(r.status, 'failed');
    const n = Number(r.counterexample!.entry.find((v) => v.name === 'n')!.value);
    assert.ok(n >= 8 && n <= 10, `n = ${n}`);
    assert.equal(r.counterexample!.steps[0].values[0].name, 'r');
  } finally {
    await s.dispose();
  }
});

test('equalities known on a path fold constants there, and only there', async () => {
  // Each goal's expected outcome; the leaks this guards against would turn a
  // failing goal into a proved one (an equality of one branch, of an assumption
  // inside a branch, or of a loop body, kept where it does not hold).
  const p = parseImp(
    `procedure main() {
  var x: bv32; var y: bv32; var c: bool; var b: bool; var done: bool;
  x := havoc; y := havoc; c := havoc; b := havoc;
  done := false;
  if (!(x == 0bv32 && y == 7bv32)) { done := true; }
  if (!done) { assert x + y == 7bv32; }
  x := havoc;
  if (c) { assume x == 3bv32; assert x == 3bv32; } else { b := b; }
  assert x == 3bv32;
  y := havoc;
  while (b) invariant true; { assume y == 5bv32; b := false; }
  assert y == 5bv32;
}`,
    'eq.imp',
  );
  const enc = encodeProcedure(p, 'main', { skipUnreachable: true });
  const s = createZ3WasmSolver();
  try {
    for (const a of enc.assertions) await s.assert(a);
    const outcomes: string[] = [];
    for (const g of enc.goals) outcomes.push(`${g.loc.line}:${(await checkGoal(s, enc, g, 10_000)).status}`);
    assert.deepEqual(outcomes, ['6:proved', '8:proved', '9:failed', '11:proved', '11:proved', '12:failed']);
    // The first assert folded to true: its violation is the constant false.
    assert.equal(enc.goals[0]!.violation.op === 'const' ? 'named' : enc.goals[0]!.violation.op, 'named');
  } finally {
    await s.dispose();
  }
});
