// Differential test of jumps through the whole lowering: random functions full
// of goto (forward, backward, into blocks, loops and branches, out of loops),
// switch with case labels inside nested statements (Duff's device) and labels
// inside switch bodies (test/helpers/jump-programs.ts) are run by gcc and,
// lowered to IMP in both data models, by the IMP interpreter, for several
// inputs each; the results must agree on every run.
// TARSIER_FUZZ_COUNT=<n> (and TARSIER_FUZZ_SEED) runs more functions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCProgram } from '../../src/c/index.js';
import type { DataModel } from '../../src/c/types.js';
import type { ImpType } from '../../src/ivl/ast.js';
import { executeImp, zeroValue, type ImpValue } from '../../src/ivl/interp.js';
import { lowerProgram, nondetAt } from '../../src/lower/index.js';
import { passesOf } from '../../src/properties/index.js';
import { rng } from '../../src/invariants/random.js';
import { INPUTS, JumpGen } from '../helpers/jump-programs.js';
import { needTools } from '../helpers/tools.js';

const skipGcc = needTools('gcc');

/** The C program that runs `f` on inputs from __VERIFIER_nondet_int and keeps its result in `r`. */
function harnessed(fn: string): string {
  return `extern int __VERIFIER_nondet_int(void);\nint r;\n${fn}\nint main(void) {\n  int a = __VERIFIER_nondet_int(), b = __VERIFIER_nondet_int(), c = __VERIFIER_nondet_int();\n  r = f(a, b, c);\n  return 0;\n}\n`;
}

function fuzz(seed: number, count: number): { failures: string[]; declined: Map<string, number> } {
  const r = rng(seed);
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-goto-lower-'));
  const failures: string[] = [];
  const declined = new Map<string, number>();
  try {
    const fns = Array.from({ length: count }, () => new JumpGen(r).fn('f').join('\n'));
    // gcc: every function (renamed) on every input, in one program.
    const c = fns.map((f, k) => f.replace(/\bint f\(/, `int f${k}(`)).join('\n\n');
    const main = `#include <stdio.h>\nint main(void) {\n${fns.map((_, k) => INPUTS.map((v) => `  printf("%d\\n", f${k}(${v.join(', ')}));`).join('\n')).join('\n')}\n  return 0;\n}\n`;
    writeFileSync(join(dir, 'p.c'), `${c}\n${main}`);
    const cc = spawnSync('gcc', ['-O0', '-fwrapv', '-w', '-o', join(dir, 'p'), join(dir, 'p.c')], { encoding: 'utf8' });
    assert.equal(cc.status, 0, cc.stderr);
    const expected = spawnSync(join(dir, 'p'), [], { encoding: 'utf8', timeout: 60_000 }).stdout.trim().split('\n');
    assert.equal(expected.length, count * INPUTS.length);
    fns.forEach((fn, k) => {
      const text = harnessed(fn);
      for (const dm of ['ILP32', 'LP64'] as DataModel[]) {
        const l = lowerProgram(parseCProgram(text, 'p.c', { dataModel: dm }), { passes: passesOf('unreach-call'), dataModel: dm });
        if (l.unsupported) {
          declined.set(l.unsupported.construct, (declined.get(l.unsupported.construct) ?? 0) + 1);
          continue;
        }
        INPUTS.forEach((vec, i) => {
          let next = 0;
          const havoc = (_name: string, t: ImpType, loc: Parameters<typeof nondetAt>[1]): ImpValue => {
            if (t.kind !== 'bv' || !nondetAt(l.sourceMap, loc)) return zeroValue(t);
            return { kind: 'bv', width: t.width, value: BigInt.asUintN(t.width, BigInt(vec[next++] ?? 0)) };
          };
          const res = executeImp(l.imp, 'main', {}, { havoc, maxSteps: 5_000_000 });
          const v = res.status === 'returned' ? res.state.get('r') : undefined;
          const got = res.status !== 'returned' ? `${res.status}: ${res.message}` : v?.kind === 'bv' ? String(BigInt.asIntN(32, v.value)) : '?';
          const want = expected[k * INPUTS.length + i];
          if (got !== want && failures.length < 3) failures.push(`function ${k} (seed ${seed}), ${dm}, inputs ${vec.join(',')}: gcc ${want}, IMP ${got}\n${fn}`);
        });
      }
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { failures, declined };
}

test('random functions with goto and switch of every kind: gcc and the lowered IMP agree', { skip: skipGcc }, () => {
  const seed = Number(process.env.TARSIER_FUZZ_SEED ?? 20261129);
  const count = Number(process.env.TARSIER_FUZZ_COUNT ?? 40);
  const { failures, declined } = fuzz(seed, count);
  assert.deepEqual(failures, []);
  // Every jump is lowered: nothing is declined.
  assert.deepEqual(Object.fromEntries(declined), {});
});
