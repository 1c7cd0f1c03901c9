import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseImp } from '../../src/ivl/index.js';
import { printImp } from '../../src/ivl/printer.js';
import { executeImp, type ImpValue } from '../../src/ivl/interp.js';
import { abstractArrayCells, bmc, candidateSources, templateCandidates, type CellAbstraction } from '../../src/engines/index.js';
import { rng } from '../../src/common/random.js';

function abstracted(text: string): CellAbstraction {
  const a = abstractArrayCells(parseImp(text, 't.imp'));
  assert.ok('program' in a, 'reason' in a ? a.reason : '');
  return a;
}

test('the array-cell abstraction: writes update the cell at k, reads elsewhere are arbitrary, checks skip a read elsewhere', () => {
  const a = abstracted(`procedure main() { var a: [bv32]bv32, i: bv32;
    i := havoc; a := a[i := 5bv32]; assert a[i] == 5bv32; }`);
  const text = printImp(a.program);
  assert.match(text, /a\$cell := \(if i == \$cell_k_bv32 then 5bv32 else a\$cell\);/);
  assert.match(text, /\$cell_miss := !\(i == \$cell_k_bv32\);\n\s*assert \(if i == \$cell_k_bv32 then a\$cell else \$cell_read0_bv32\) == 5bv32 \|\| \$cell_miss;/);
  assert.ok(!/\[bv32\]bv32/.test(text), 'no array is left');
  assert.deepEqual([...a.cells], [['a', 'a$cell']]);
});

test('the array-cell abstraction does not apply to programs without arrays, with calls, comparing arrays or two cells', () => {
  const reason = (text: string) => {
    const a = abstractArrayCells(parseImp(text, 't.imp'));
    return 'reason' in a ? a.reason : 'applies';
  };
  assert.equal(reason('procedure main() { var x: bv32; x := 1bv32; }'), 'no arrays');
  assert.match(reason('procedure f() { } procedure main() { var a: [bv32]bv32; call f(); }'), /call of f/);
  assert.match(reason('procedure main() { var a: [bv32]bv32, b: [bv32]bv32; assert a == b; }'), /used as a whole/);
  // One of two cells read at once is always arbitrary: such a check could never be proved.
  assert.match(reason('procedure main() { var a: [bv32]bv32, i: bv32, j: bv32; assert a[i] == a[j]; }'), /two cells read at once at 1:/);
  assert.equal(reason('procedure main() { var a: [bv32]bv32, i: bv32; a := a[i := a[i + 1bv32]]; assert a[i] == a[i]; }'), 'applies');
});

test('a check on a cell that the model follows by an assumption (undefined behaviour) is not made to vanish: its violation is still found', async () => {
  // a[5] == 5 when n > 5: the check fails there; when the abstraction skips it (the read is not at k), the assume cuts that path, but not for k == 5.
  const prove = (check: string) => {
    const a = abstracted(`procedure main() { var a: [bv8]bv8, i: bv8, n: bv8;
      n := havoc; assume ule(n, 20bv8); i := 0bv8;
      while (ult(i, n)) { a := a[i := i]; i := i + 1bv8; }
      i := 0bv8;
      while (ult(i, n)) { ${check} assume a[i] != 5bv8; assert {:goal reach_error 1} ule(a[i], 20bv8); i := i + 1bv8; }
    }`);
    return bmc(a.program, { deadline: Date.now() + 5000, inductionOnly: true, candidates: false, loopCandidates: candidateSources(templateCandidates(a.ghosts), a.candidates) });
  };
  assert.notEqual((await prove('assert {:goal memory-unknown 0} a[i] != 5bv8;')).verdict, 'true');
  // Without the check the rest is proved: the UNKNOWN above is the check's.
  assert.equal((await prove('')).verdict, 'true');
});

/**
 * A random program that fills an 8-bit array in one loop and checks its
 * cells in another; the bounds, start points and values make some safe and
 * some unsafe (a cell read that was never written holds what memory held).
 */
function program(r: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const value = pick(['3bv8', 'i', 'v', 'i + 1bv8']);
  const check = pick(['ule(a[i], 3bv8)', 'a[i] == 3bv8', 'uge(a[i], i)', 'a[i] == i', 'a[i] == v', 'ule(a[i], i + 1bv8)']);
  return `procedure main() { var a: [bv8]bv8, i: bv8, n: bv8, v: bv8;
    n := havoc; assume ule(n, 20bv8); v := havoc; a := havoc;
    i := ${pick(['0bv8', '1bv8'])};
    while (ult(i, n)) { a := a[i := ${value}]; i := i + 1bv8; }
    i := ${pick(['0bv8', '1bv8', '2bv8'])};
    while (ult(i, ${pick(['n', 'n', 'n + 1bv8'])})) { assert ${check}; i := i + 1bv8; }
  }`;
}

/** Whether some run fails an assert: every n up to 20, v and the memory's initial contents from a few values. */
function someRunFails(text: string): boolean {
  const p = parseImp(text, 'fill.imp');
  const bv = (value: number): ImpValue => ({ kind: 'bv', width: 8, value: BigInt(value) });
  for (let n = 0; n <= 20; n++) {
    for (const v of [0, 3, 7, 200]) {
      for (const memory of [0, 3, 5, 255]) {
        const inputs = new Map<string, ImpValue>([
          ['n', bv(n)],
          ['v', bv(v)],
          ['a', { kind: 'map', default: bv(memory), entries: new Map() }],
        ]);
        const run = executeImp(p, 'main', {}, { havoc: (name) => inputs.get(name) ?? bv(0), maxSteps: 10_000 });
        if (run.status === 'assertion-failed') return true;
      }
    }
  }
  return false;
}

test('k-induction on the array-cell abstraction never proves a program some run shows unsafe (random 8-bit fill-and-check loops)', async () => {
  let unsafe = 0;
  let proved = 0;
  for (let seed = 1; seed <= 14; seed++) {
    const text = program(rng(seed));
    const a = abstracted(text);
    const result = await bmc(a.program, { deadline: Date.now() + 5000, inductionOnly: true, candidates: false, loopCandidates: candidateSources(templateCandidates(a.ghosts), a.candidates) });
    if (someRunFails(text)) {
      unsafe++;
      assert.notEqual(result.verdict, 'true', `seed ${seed} proved, but a run fails:\n${text}`);
    } else if (result.verdict === 'true') proved++;
  }
  // Both kinds occur: the test is not vacuous.
  assert.ok(unsafe > 0 && proved > 0, `unsafe ${unsafe}, proved ${proved}`);
});
