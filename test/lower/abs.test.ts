// abs, labs and llabs: the lowering's values against gcc's (both data models,
// the most negative values included), and the overflow goal no-overflow gets.
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
import { needTools, spawnProgram } from '../helpers/tools.js';

const PROGRAM = `extern int __VERIFIER_nondet_int(void);
extern long __VERIFIER_nondet_long(void);
int abs(int); long labs(long); long long llabs(long long);
int r1, r2, r3; long r4; long long r5;
int main(void) {
  int x = __VERIFIER_nondet_int();
  long y = __VERIFIER_nondet_long();
  r1 = abs(x);
  r2 = abs(x / 2) + (abs(-x) == x);
  r3 = __builtin_abs(x - 1);
  r4 = labs(y);
  r5 = llabs((long long)y * 3);
  return 0;
}
`;
const OUT: Array<[string, number]> = [['r1', 32], ['r2', 32], ['r3', 32], ['r4', 0], ['r5', 64]];
const INPUTS: Array<[bigint, bigint]> = [[0n, 0n], [5n, -7n], [-5n, 7n], [-2147483648n, -2147483648n], [2147483647n, 123456789n], [-1n, -9223372036854775808n], [-2147483647n, 9223372036854775807n]];

test('abs, labs and llabs compute what gcc computes (both data models, the most negative values included)', { skip: needTools('gcc', 'gcc -m32') }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-abs-'));
  try {
    for (const dm of ['ILP32', 'LP64'] as DataModel[]) {
      const longBits = dm === 'LP64' ? 64 : 32;
      const harness = `#undef main\n#include <stdio.h>\n#include <stdlib.h>\nextern int r1, r2, r3; extern long r4; extern long long r5;\nint prog_main(void);\nstatic char **in;\nint __VERIFIER_nondet_int(void) { return (int)strtoll(*in++, 0, 10); }\nlong __VERIFIER_nondet_long(void) { return (long)strtoll(*in++, 0, 10); }\nint main(int argc, char **argv) { for (int k = 1; k < argc; k += 2) { in = argv + k; prog_main(); printf("%d %d %d %ld %lld\\n", r1, r2, r3, r4, r5); } return 0; }\n`;
      writeFileSync(join(dir, 'p.c'), PROGRAM);
      writeFileSync(join(dir, 'h.c'), harness);
      const cc = spawnSync('gcc', [dm === 'LP64' ? '-m64' : '-m32', '-O0', '-fwrapv', '-fno-builtin', '-w', '-Dmain=prog_main', '-o', join(dir, 'p'), join(dir, 'p.c'), join(dir, 'h.c')], { encoding: 'utf8' });
      if (cc.status !== 0 && /multilib|cannot find|skipping incompatible/.test(cc.stderr)) continue;
      assert.equal(cc.status, 0, cc.stderr);
      const run = spawnProgram(join(dir, 'p'), INPUTS.flat().map(String), dm === 'ILP32', { encoding: 'utf8' });
      const expected = run.stdout.trim().split('\n');
      const l = lowerProgram(parseCProgram(PROGRAM, 'p.c', { dataModel: dm }), { passes: passesOf('unreach-call'), dataModel: dm });
      assert.equal(l.unsupported, undefined, l.unsupported?.construct);
      INPUTS.forEach((vec, i) => {
        let next = 0;
        const havoc = (_n: string, t: ImpType, loc: Parameters<typeof nondetAt>[1]): ImpValue => {
          if (t.kind !== 'bv' || !nondetAt(l.sourceMap, loc)) return zeroValue(t);
          return { kind: 'bv', width: t.width, value: BigInt.asUintN(t.width, vec[next++] ?? 0n) };
        };
        const res = executeImp(l.imp, 'main', {}, { havoc });
        assert.equal(res.status, 'returned');
        const got = OUT.map(([name, bits]) => {
          const v = res.state.get(name);
          return v?.kind === 'bv' ? String(BigInt.asIntN(bits || longBits, v.value)) : '?';
        }).join(' ');
        assert.equal(got, expected[i], `${dm}, inputs ${vec.join(',')}`);
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('no-overflow: abs of the most negative int is a checked overflow', () => {
  const text = 'extern int __VERIFIER_nondet_int(void);\nint abs(int);\nint main(void) { int x = __VERIFIER_nondet_int(); return abs(x) > 0; }\n';
  const l = lowerProgram(parseCProgram(text, 'p.c', { dataModel: 'ILP32' }), { passes: passesOf('no-overflow'), dataModel: 'ILP32' });
  assert.equal(l.unsupported, undefined);
  assert.ok(l.sourceMap.goals.some((g) => g.kind === 'overflow' && /abs/.test(g.description)), 'an overflow goal for abs');
  const u = lowerProgram(parseCProgram(text, 'p.c', { dataModel: 'ILP32' }), { passes: passesOf('unreach-call'), dataModel: 'ILP32' });
  assert.ok(!u.sourceMap.goals.some((g) => g.kind === 'overflow'));
});
