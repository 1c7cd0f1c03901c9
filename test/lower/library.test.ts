// The C library functions the lowering models without effect on the
// properties (output functions) and <assert.h>'s failure function.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verify } from '../../src/verify/index.js';
import { probeGcc } from '../../src/replay/index.js';
import { needTools } from '../helpers/tools.js';

const PROPERTY_TEXT = {
  'unreach-call': 'CHECK( init(main()), LTL(G ! call(reach_error())) )\n',
  'valid-memsafety':
    'CHECK( init(main()), LTL(G valid-free) )\nCHECK( init(main()), LTL(G valid-deref) )\nCHECK( init(main()), LTL(G valid-memtrack) )\n',
  'valid-memcleanup': 'CHECK( init(main()), LTL(G valid-memcleanup) )\n',
} as const;

async function verifyText(text: string, property: keyof typeof PROPERTY_TEXT = 'unreach-call') {
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-lib-'));
  try {
    const file = join(dir, 'p.c');
    writeFileSync(file, text);
    const prp = join(dir, 'p.prp');
    writeFileSync(prp, PROPERTY_TEXT[property]);
    return await verify(file, { prp, timeoutS: 60, witnessPath: null });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const HEAD = `#include <stdio.h>
#include <assert.h>
extern int __VERIFIER_nondet_int(void);
extern void abort(void);
void reach_error(void) { abort(); }
`;

test('printf, puts, putchar and fprintf have no effect on unreach-call; their arguments are still evaluated', async () => {
  const ok = await verifyText(`${HEAD}int main(void) {
  int x = __VERIFIER_nondet_int();
  int n = 0;
  printf("x=%d %s\\n", x, "s");
  puts("hello");
  putchar('a');
  fprintf(stderr, "n=%d\\n", n++);
  if (n != 1) reach_error();
  return 0;
}
`);
  assert.equal(ok.verdict.kind, 'true', ok.reason);
  const bad = await verifyText(`${HEAD}int main(void) {
  int n = 0;
  printf("%d\\n", n++);
  if (n == 1) reach_error();
  return 0;
}
`);
  assert.equal(bad.verdict.kind, probeGcc().gcc ? 'false' : 'unknown', bad.reason);
});

test('printf with %n or a non-literal format is UNKNOWN, naming it', async () => {
  const n = await verifyText(`${HEAD}int main(void) {
  int k;
  printf("ab%n", &k);
  return 0;
}
`);
  assert.equal(n.verdict.kind, 'unknown');
  assert.match(n.reason, /printf with %n at .*p\.c:8:3/);
  const f = await verifyText(`${HEAD}int main(void) {
  const char *fmt = 0;
  printf(fmt);
  return 0;
}
`);
  assert.match(f.reason, /printf with a format that is not a string literal/);
});

test('a failing assert() ends the path without violating unreach-call, and the reason says so once', async () => {
  const r = await verifyText(`${HEAD}int main(void) {
  int x = __VERIFIER_nondet_int();
  assert(x != 3);
  assert(x != 4);
  if (x == 3) reach_error();
  return 0;
}
`);
  assert.equal(r.verdict.kind, 'true', r.reason);
  const mentions = r.reason.match(/failing assert\(\) aborts/g) ?? [];
  assert.equal(mentions.length, 1, r.reason);
  const plain = await verifyText(`${HEAD}int main(void) { return 0; }\n`);
  assert.doesNotMatch(plain.reason, /assert/);
});

test('memset through a void pointer: each type the pointer may point to; a count ending inside an element beyond the object is a violation, inside it UNKNOWN', { skip: needTools('gcc', 'gcc -m32') }, async () => {
  const prog = (count: string, check: string) => `${HEAD}#include <string.h>
struct s { int a; double d; char c[3]; };
int main(void) {
  struct s x = { 1, 2.5, { 'a', 'b', 'c' } };
  int y = 7;
  void *p = __VERIFIER_nondet_int() ? (void *)&x : (void *)&y;
  memset(p, 0, ${count});
  ${check}
  return 0;
}
`;
  const zeroed = await verifyText(prog('p == &x ? sizeof x : sizeof y', 'if (x.a != 0 && y != 0) reach_error(); if (p == &x && (x.d != 0.0 || x.c[2] != 0 || y != 7)) reach_error();'));
  assert.equal(zeroed.verdict.kind, 'true', zeroed.reason);
  const wrong = await verifyText(prog('sizeof y', 'if (y == 0) reach_error();'));
  assert.equal(wrong.verdict.kind, probeGcc().gcc ? 'false' : 'unknown', wrong.reason);
  // Past the object: never TRUE. Known gap: the inexact access the model
  // reports first (a bound goal) makes this UNKNOWN where FALSE is right.
  const beyond = await verifyText(prog('sizeof x + 1', ''), 'valid-memsafety');
  assert.notEqual(beyond.verdict.kind, 'true', beyond.reason);
  const inside = await verifyText(prog('2', ''), 'valid-memsafety');
  assert.equal(inside.verdict.kind, 'unknown', inside.reason);
});
