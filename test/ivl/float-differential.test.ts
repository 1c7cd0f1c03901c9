// Differential test of IMP's floating-point semantics against gcc: random
// expressions over float, double, long double and the integer types (inputs
// from the interesting values, several rounding modes) evaluated by gcc in
// both data models with the replay's flags, by the IMP interpreter and by
// z3's and cvc5's models: every result bit-identical (NaN as a class: one NaN
// is modelled). A larger run: `npm run bench:float`. Also shows what the
// flags are for: gcc -m32 without them evaluates on the x87 unit with excess
// precision, and disagrees.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataModel } from '../../src/c/types.js';
import { rng } from '../../src/invariants/random.js';
import { needTools, spawnProgram } from '../helpers/tools.js';
import { floatFlags } from '../../src/replay/replay.js';
import { describeCase, gccFloatFlags, generateCases, interpret, runGcc, solve } from '../helpers/float-exprs.js';

const skip = needTools('gcc', 'gcc -m32', 'z3', 'cvc5');

for (const dm of ['ILP32', 'LP64'] as DataModel[]) {
  test(`float expressions agree bit for bit: gcc ${gccFloatFlags(dm).join(' ')}, the interpreter, z3, cvc5`, { skip }, async () => {
    const cases = generateCases(rng(dm === 'ILP32' ? 26 : 2026), 40, dm);
    const gcc = runGcc(cases, gccFloatFlags(dm));
    for (const c of cases) assert.equal(interpret(c, dm), gcc[c.id], `interpreter: ${describeCase(c, dm)}`);
    const z3 = await solve(cases, dm, 'z3');
    for (const c of cases) assert.equal(z3[c.id], gcc[c.id], `z3: ${describeCase(c, dm)}`);
    // cvc5 has no 80-bit floats (without its experimental solver).
    const narrow = generateCases(rng(dm === 'ILP32' ? 27 : 2027), 30, dm, { longDouble: false });
    const gccNarrow = runGcc(narrow, gccFloatFlags(dm));
    const cvc5 = await solve(narrow, dm, 'cvc5');
    for (const c of narrow) assert.equal(cvc5[c.id], gccNarrow[c.id], `cvc5: ${describeCase(c, dm)}`);
  });
}

function compileAndRun(program: string, flags: readonly string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-x87-'));
  try {
    writeFileSync(join(dir, 'p.c'), program);
    const cc = spawnSync('gcc', ['-O0', ...flags, '-o', join(dir, 'p'), join(dir, 'p.c')], { encoding: 'utf8' });
    assert.equal(cc.status, 0, cc.stderr);
    return spawnProgram(join(dir, 'p'), [], flags.includes('-m32'), { encoding: 'utf8' }).stdout.trim();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('gcc -m32 without the replay flags evaluates with x87 excess precision and disagrees', { skip }, () => {
  // (a * 2) / 2 overflows in double (IEEE: inf); the x87 unit keeps the
  // intermediate in extended range and gives a back.
  const program = `#include <stdio.h>
volatile double a = 0x1.fffffffffffffp+1023;
int main(void) { double r = (a * 2.0) / 2.0; printf("%a\\n", r); return 0; }
`;
  assert.equal(compileAndRun(program, ['-m32']), '0x1.fffffffffffffp+1023');
  assert.equal(compileAndRun(program, gccFloatFlags('ILP32')), 'inf');
  assert.equal(compileAndRun(program, gccFloatFlags('LP64')), 'inf');
  // The replay's flags are what makes -m32 agree.
  assert.deepEqual(floatFlags('-m32').slice(0, 2), ['-msse2', '-mfpmath=sse']);
  // And on random expressions: some disagree without the flags, none with them.
  const cases = generateCases(rng(87), 150, 'ILP32');
  const x87 = runGcc(cases, ['-m32']);
  assert.ok(cases.some((c) => interpret(c, 'ILP32') !== x87[c.id]), 'x87 evaluation agreed everywhere: the example set is too weak');
});
