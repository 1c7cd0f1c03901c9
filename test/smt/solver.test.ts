import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../helpers/shared.js';
import { join } from 'node:path';
import {
  BitVecSort,
  BoolSort,
  IntSort,
  createProcessSolver,
  createSolver,
  createZ3WasmSolver,
  findExecutable,
  formatValue,
  mkApp,
  mkBv,
  mkConst,
  mkEq,
  mkInt,
  mkNot,
  processSolverSpec,
  shutdownZ3Wasm,
  termToSmt,
} from '../../src/smt/index.js';

after(() => shutdownZ3Wasm());

test('terms are hash-consed and print as SMT-LIB', () => {
  const x = mkConst('x', IntSort);
  assert.equal(mkApp('+', x, mkInt(1)), mkApp('+', mkConst('x', IntSort), mkInt(1)));
  assert.notEqual(mkConst('x', IntSort), mkConst('x', BoolSort));
  assert.equal(termToSmt(mkApp('+', x, mkInt(-5))), '(+ x (- 5))');
  assert.equal(termToSmt(mkBv(-1, 8)), '#xff');
  assert.equal(termToSmt(mkConst("y'", IntSort)), "|y'|");
  assert.equal(termToSmt(mkNot(mkNot(mkConst('b', BoolSort)))), 'b');
});

test('z3-wasm: incremental checks, assumptions, models and push/pop', async () => {
  const s = createZ3WasmSolver();
  try {
    const x = mkConst('x', IntSort);
    const g = mkConst('g', BoolSort);
    await s.assert(mkApp('>', x, mkInt(10)));
    await s.assert(mkEq(g, mkApp('<', x, mkInt(12))));
    assert.equal((await s.checkSat([g])).status, 'sat');
    assert.equal(formatValue(await s.eval(x)), '11');
    const model = await s.getModel();
    assert.deepEqual([...model.keys()], ['x', 'g']);
    assert.equal(formatValue(model.get('g')!), 'true');
    assert.equal((await s.checkSat([g, mkApp('<', x, mkInt(11))])).status, 'unsat');
    await s.push();
    await s.assert(mkApp('<', x, mkInt(5)));
    assert.equal((await s.checkSat()).status, 'unsat');
    await s.pop();
    assert.equal((await s.checkSat()).status, 'sat');
    const b = mkConst('b', BitVecSort(8));
    await s.assert(mkEq(mkApp('bvadd', b, mkBv(1, 8)), mkBv(0, 8)));
    assert.equal((await s.checkSat()).status, 'sat');
    assert.equal(formatValue(await s.eval(b)), '255bv8');
  } finally {
    await s.dispose();
  }
});

test('z3-wasm: a timeout answers unknown quickly and the solver stays usable', async () => {
  const s = createZ3WasmSolver();
  try {
    const a = mkConst('a', IntSort);
    const b = mkConst('b', IntSort);
    await s.push();
    // A hard nonlinear equation (Z3 does not decide it in 300 ms).
    await s.assert(mkEq(mkApp('*', a, a, a, a), mkApp('+', mkApp('*', b, b, b, b, b), mkInt(2), mkApp('*', a, b, a, mkInt(9)))));
    await s.assert(mkApp('>', a, mkInt(1000)));
    const t0 = Date.now();
    const r = await s.checkSat([], { timeoutMs: 300 });
    assert.equal(r.status, 'unknown');
    assert.equal(r.reason, 'timeout');
    assert.ok(Date.now() - t0 < 30_000, 'stopped near the time limit');
    await s.pop();
    await s.assert(mkApp('>', a, mkInt(3)));
    const after = await s.checkSat();
    // Seen once as 'unknown' in a full test run under load (not reproduced alone): the reason says why.
    assert.equal(after.status, 'sat', after.status === 'unknown' ? after.reason : undefined);
  } finally {
    await s.dispose();
  }
});

// z3 keeps scopes by replaying text after a reset (a push costs it more
// than the replay); every back end must still drop what a pop or a check's
// assumptions leave behind, and allow a name to be declared again.
for (const backEnd of ['z3-wasm', 'z3', 'cvc5']) {
  test(`${backEnd}: scopes and assumptions leave nothing behind`, { skip: backEnd !== 'z3-wasm' && !findExecutable(backEnd) && `${backEnd} is not on PATH` }, async () => {
    const s = createSolver(backEnd);
    try {
      const b = mkConst('b', BitVecSort(8));
      const g = mkConst('g', BoolSort);
      await s.assert(mkApp('bvugt', b, mkBv(10, 8)));
      await s.push();
      const y = mkConst('y', BitVecSort(8));
      await s.assert(mkEq(y, mkApp('bvadd', b, mkBv(1, 8))));
      await s.assert(mkEq(g, mkEq(y, mkBv(0, 8))));
      assert.equal((await s.checkSat([g])).status, 'sat');
      assert.equal(formatValue(await s.eval(b)), '255bv8');
      // The assumption held for that check only.
      assert.equal((await s.checkSat([mkApp('bvult', b, mkBv(12, 8))])).status, 'sat');
      assert.equal(formatValue(await s.eval(b)), '11bv8');
      assert.equal((await s.checkSat([g, mkApp('bvult', b, mkBv(12, 8))])).status, 'unsat');
      await s.pop();
      await s.push();
      // y again, now with another definition.
      await s.assert(mkEq(y, mkApp('bvsub', b, mkBv(1, 8))));
      assert.equal((await s.checkSat([mkEq(y, mkBv(0, 8))])).status, 'unsat');
      assert.equal((await s.checkSat([mkEq(y, mkBv(10, 8))])).status, 'sat');
      assert.equal(formatValue(await s.eval(b)), '11bv8');
      await s.pop();
      assert.equal((await s.checkSat([mkEq(b, mkBv(11, 8))])).status, 'sat');
      assert.equal((await s.checkSat([mkEq(b, mkBv(10, 8))])).status, 'unsat');
      // y once more, of another sort.
      await s.push();
      const yb = mkConst('y', BoolSort);
      await s.assert(mkEq(yb, mkEq(b, mkBv(11, 8))));
      assert.equal((await s.checkSat([yb])).status, 'sat');
      assert.equal(formatValue(await s.eval(b)), '11bv8');
      await s.pop();
      // A model query names w, declared only in a scope that is gone.
      const w = mkConst('w', BitVecSort(8));
      await s.push();
      await s.assert(mkEq(w, b));
      assert.equal((await s.checkSat()).status, 'sat');
      await s.pop();
      assert.equal((await s.checkSat()).status, 'sat');
      assert.equal((await s.eval(w)).kind, 'bv');
    } finally {
      await s.dispose();
    }
  });
}

/** A stand-in SMT-LIB solver: answers sat after an odd number of asserts, unsat otherwise, and never answers when assuming `hang`. */
function fakeSolver(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-fake-solver-'));
  const js = join(dir, 'fake.cjs');
  writeFileSync(
    js,
    `let asserts = 0; let buf = ''; let stuck = false;
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => { buf += d; let k; while ((k = buf.indexOf('\\n')) >= 0) { const line = buf.slice(0, k); buf = buf.slice(k + 1); handle(line); } });
function handle(l) {
  if (stuck) return;
  if (l.startsWith('(assert')) asserts++;
  else if (l.startsWith('(check-sat')) { if (/\\bhang\\b/.test(l)) { stuck = true; return; } process.stdout.write(asserts % 2 ? 'sat\\n' : 'unsat\\n'); }
  else if (l.startsWith('(get-value')) process.stdout.write('((x (- 7)))\\n');
  else if (l.startsWith('(echo')) process.stdout.write(l.slice(7, -2) + '\\n');
  else if (l.startsWith('(exit')) process.exit(0);
}
`,
  );
  const sh = join(dir, 'fakesolver');
  writeFileSync(sh, `#!/bin/sh\nexec "${process.execPath}" "${js}" "$@"\n`);
  chmodSync(sh, 0o755);
  return sh;
}

test('process back end: answers, models, a hanging call killed at its deadline, state replayed', async () => {
  const s = createProcessSolver(processSolverSpec(fakeSolver()));
  try {
    const x = mkConst('x', IntSort);
    await s.assert(mkApp('>', x, mkInt(0)));
    assert.equal((await s.checkSat()).status, 'sat');
    assert.equal(formatValue(await s.eval(x)), '-7');
    const hang = mkConst('hang', BoolSort);
    const t0 = Date.now();
    const r = await s.checkSat([hang], { timeoutMs: 200 });
    assert.deepEqual([r.status, r.reason], ['unknown', 'timeout']);
    assert.ok(Date.now() - t0 < 30_000);
    // A new process gets the one assertion again: sat.
    assert.equal((await s.checkSat()).status, 'sat');
    await s.assert(mkApp('<', x, mkInt(9)));
    assert.equal((await s.checkSat()).status, 'unsat');
  } finally {
    await s.dispose();
  }
});

test('a process that made a WebAssembly solver exits by itself, used or not', () => {
  const index = pathToFileURL(join(repoRoot, 'dist', 'src', 'smt', 'index.js')).href;
  const scripts = [
    `import { createSolver } from '${index}'; createSolver(); await new Promise((r) => setTimeout(r, 300));`,
    `import { createSolver } from '${index}'; const s = createSolver(); await s.dispose();`,
    `import { createSolver, mkConst, BoolSort } from '${index}'; const s = createSolver(); await s.assert(mkConst('b', BoolSort)); console.log((await s.checkSat()).status);`,
  ];
  for (const code of scripts) {
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.signal, null, `hung: ${code}`);
    assert.equal(r.status, 0, r.stderr);
  }
});
