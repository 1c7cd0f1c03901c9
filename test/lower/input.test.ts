// Input from stdin (scanf, getchar) as nondeterministic input, and globals the
// program never reaches (a header's incomplete `extern struct _IO_FILE_plus`)
// left out of the lowering.
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
import { lowerProgram } from '../../src/lower/index.js';
import { passesOf } from '../../src/properties/index.js';
import { needTools } from '../helpers/tools.js';

const lower = (text: string, dm: DataModel = 'ILP32') =>
  lowerProgram(parseCProgram(text, 'p.c', { dataModel: dm }), { passes: passesOf('unreach-call'), dataModel: dm });

/**
 * Runs the lowered program with the havocs of the call at offset `call` taking
 * `values` in order (the others 0); the status and the named variables' signed values.
 */
function run(l: ReturnType<typeof lower>, call: number, values: bigint[], names: Array<[string, number]>): string {
  let next = 0;
  const havoc = (_n: string, t: ImpType, loc: { offset: number }): ImpValue =>
    t.kind === 'bv' && loc.offset === call ? { kind: 'bv', width: t.width, value: BigInt.asUintN(t.width, values[next++] ?? 0n) } : zeroValue(t);
  const res = executeImp(l.imp, 'main', {}, { havoc });
  if (res.status !== 'returned') return res.status;
  return names.map(([name, bits]) => {
    const x = res.state.get(name);
    return x?.kind === 'bv' ? String(BigInt.asIntN(bits, x.value)) : '?';
  }).join(' ');
}

const SCANF = `int scanf(const char *, ...);
int n, x = 5; short s = 1; char c = 'q';
int main(void) {
  n = scanf("%d %hd%*d %c", &x, &s, &c);
  return 0;
}
`;

test('scanf: the result is EOF or the number of items assigned; later items keep their values (as gcc runs it)', { skip: needTools('gcc') }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-scanf-'));
  try {
    writeFileSync(join(dir, 'p.c'), `#include <stdio.h>\n${SCANF.replace('int main(void)', 'int prog(void)')}int main(void) { prog(); printf("%d %d %d %d\\n", n, x, s, c); return 0; }\n`);
    const cc = spawnSync('gcc', ['-O0', '-w', '-o', join(dir, 'p'), join(dir, 'p.c')], { encoding: 'utf8' });
    assert.equal(cc.status, 0, cc.stderr);
    const l = lower(SCANF);
    assert.equal(l.unsupported, undefined, l.unsupported?.construct);
    for (const input of ['', '12', '-7 x', '-7 300 9 z', '40000 -2 1 A', 'b']) {
      const want = spawnSync(join(dir, 'p'), [], { input, encoding: 'utf8' }).stdout.trim();
      const [n, x, s, c] = want.split(' ').map(BigInt);
      // The havocs: the result, then the value of each item assigned.
      const got = run(l, SCANF.lastIndexOf('scanf('), [n, x, s, c].slice(0, 1 + Math.max(0, Number(n))), [['n', 32], ['x', 32], ['s', 16], ['c', 8]]);
      assert.equal(got, want, `stdin ${JSON.stringify(input)}`);
    }
    // A result above the number of conversions is no execution.
    assert.equal(run(l, SCANF.lastIndexOf('scanf('), [4n], []), 'assume-failed');
    assert.equal(run(l, SCANF.lastIndexOf('scanf('), [-2n], []), 'assume-failed');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('getchar returns EOF or an unsigned char', () => {
  const text = 'int getchar(void);\nint g;\nint main(void) { g = getchar(); return 0; }\n';
  const l = lower(text);
  const at = text.indexOf('getchar()');
  assert.equal(l.unsupported, undefined);
  assert.equal(run(l, at, [-1n], [['g', 32]]), '-1');
  assert.equal(run(l, at, [255n], [['g', 32]]), '255');
  assert.equal(run(l, at, [256n], []), 'assume-failed');
  assert.equal(run(l, at, [-2n], []), 'assume-failed');
});

test('scanf conversions the model does not know are unsupported, named', () => {
  for (const [fmt, arg] of [['%s', 'b'], ['%f', '&f'], ['%n', '&x'], ['%3c', 'b'], ['%ld', '&x']]) {
    const l = lower(`int scanf(const char *, ...);\nint main(void) { char b[4]; float f; int x; scanf("${fmt}", ${arg}); return 0; }\n`, 'LP64');
    assert.ok(l.unsupported && /scanf/.test(l.unsupported.construct), `${fmt}: ${l.unsupported?.construct}`);
  }
});

test('a global the program never reaches is not lowered (an incomplete extern struct from the headers)', () => {
  const decls = 'struct _IO_FILE_plus;\nextern struct _IO_FILE_plus _IO_2_1_stdin_;\nint unused_init = 3;\nint used;\n';
  const l = lower(`${decls}int f(void) { return used; }\nint main(void) { return f(); }\n`);
  assert.equal(l.unsupported, undefined, l.unsupported?.construct);
  const u = lower(`${decls}struct _IO_FILE_plus *p = &_IO_2_1_stdin_;\nint main(void) { return p != 0; }\n`);
  assert.match(u.unsupported?.construct ?? '', /incomplete struct/);
});
