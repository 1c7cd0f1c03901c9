// The memory-safety properties: each sub-property found where it is
// violated (and replayed by AddressSanitizer), correct programs proved, and
// what the model lacks answered UNKNOWN with the construct and its place.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verify, type VerifyResult } from '../../src/verify/index.js';
import { probeGcc } from '../../src/replay/index.js';
import { lintWitness } from '../../src/witness/index.js';
import { needTools } from '../helpers/tools.js';

const PRP = {
  'valid-memsafety':
    'CHECK( init(main()), LTL(G valid-free) )\nCHECK( init(main()), LTL(G valid-deref) )\nCHECK( init(main()), LTL(G valid-memtrack) )\n',
  'valid-memcleanup': 'CHECK( init(main()), LTL(G valid-memcleanup) )\n',
  'unreach-call': 'CHECK( init(main()), LTL(G ! call(reach_error())) )\n',
} as const;

const HEAD = `#include <stdlib.h>
extern int __VERIFIER_nondet_int(void);
`;

/** Verifies the program; for a FALSE also returns the lint findings of its witness. */
async function run(body: string, property: keyof typeof PRP = 'valid-memsafety'): Promise<VerifyResult & { lint: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-mem-'));
  try {
    const file = join(dir, 'p.c');
    const text = HEAD + body;
    writeFileSync(file, text);
    writeFileSync(join(dir, 'p.prp'), PRP[property]);
    const witnessPath = join(dir, 'witness');
    const r = await verify(file, { prp: join(dir, 'p.prp'), timeoutS: 20, witnessPath });
    const lint =
      r.verdict.kind === 'false'
        ? lintWitness(readFileSync(witnessPath, 'utf8'), 'witness', { programText: text, programFile: 'p.c' })
            .filter((d) => d.severity === 'error' || d.severity === 'warning')
            .map((d) => d.message)
        : [];
    return { ...r, lint };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const gcc = probeGcc().gcc;
const expectFalse = (r: VerifyResult & { lint: string[] }, sub: string) => {
  if (!gcc) return assert.equal(r.verdict.kind, 'unknown', r.reason);
  assert.deepEqual(r.verdict, { kind: 'false', property: sub }, r.reason);
  assert.deepEqual(r.lint, []);
};

test('valid-deref: an index one past an array, a read after free, a pointer to a block-scope variable after its block, NULL', { skip: needTools('gcc', 'gcc -m32 -fsanitize=address') }, async () => {
  expectFalse(
    await run(`int main(void) {
  int a[4];
  int i = __VERIFIER_nondet_int();
  if (i < 0 || i > 4) return 0;
  a[i] = 1;
  return 0;
}
`),
    'valid-deref',
  );
  const uaf = await run(`int main(void) {
  int *p = malloc(2 * sizeof(int));
  p[1] = 5;
  free(p);
  return p[1];
}
`);
  expectFalse(uaf, 'valid-deref');
  if (gcc) assert.match(uaf.reason, /heap-use-after-free/);
  expectFalse(
    await run(`int main(void) {
  int *p;
  {
    int x = 1;
    p = &x;
  }
  return *p;
}
`),
    'valid-deref',
  );
  expectFalse(
    await run(`struct S { int v; };
int main(void) {
  struct S *s = 0;
  if (__VERIFIER_nondet_int()) s->v = 1;
  return 0;
}
`),
    'valid-deref',
  );
});

test('valid-free: a double free and the free of a pointer inside a block', { skip: needTools('gcc', 'gcc -m32 -fsanitize=address') }, async () => {
  expectFalse(
    await run(`int main(void) {
  int *p = malloc(sizeof(int));
  int n = __VERIFIER_nondet_int();
  free(p);
  if (n == 7) free(p);
  return 0;
}
`),
    'valid-free',
  );
  expectFalse(
    await run(`int main(void) {
  char *p = malloc(8);
  free(p + 1);
  return 0;
}
`),
    'valid-free',
  );
});

test('valid-memtrack and valid-memcleanup: a block not freed at the end of main (GraphML witness)', { skip: needTools('gcc', 'gcc -m32 -fsanitize=address') }, async () => {
  const body = `int main(void) {
  int *p = malloc(sizeof(int));
  *p = 1;
  if (__VERIFIER_nondet_int()) free(p);
  return 0;
}
`;
  expectFalse(await run(body), 'valid-memtrack');
  expectFalse(await run(body, 'valid-memcleanup'), 'valid-memcleanup');
  // Still pointed to by a global: memcleanup is violated, memtrack is not.
  const global = `int *g;
int main(void) {
  g = malloc(sizeof(int));
  return 0;
}
`;
  expectFalse(await run(global, 'valid-memcleanup'), 'valid-memcleanup');
  const m = await run(global);
  assert.equal(m.verdict.kind, 'true', m.reason);
  // The global's first block is lost when it is overwritten.
  expectFalse(
    await run(`int *g;
int main(void) {
  g = malloc(sizeof(int));
  if (__VERIFIER_nondet_int()) g = malloc(sizeof(int));
  free(g);
  return 0;
}
`),
    'valid-memtrack',
  );
  // Only a pointer into the block's middle: not judged.
  const interior = await run(`int *g;
int main(void) {
  g = malloc(2 * sizeof(int));
  g++;
  return 0;
}
`);
  assert.equal(interior.verdict.kind, 'unknown', interior.reason);
  assert.match(interior.reason, /a global pointer may still track it\) at 7:3/);
  // A block holding a pointer to another: the global reaches both; cut the link and the second is lost.
  const chain = (cut: string) => `struct node { struct node *next; };
struct node *g;
int main(void) {
  struct node *a = malloc(sizeof(struct node));
  struct node *b = malloc(sizeof(struct node));
  a->next = b;
  g = a;${cut}
  return 0;
}
`;
  const tracked = await run(chain(''));
  assert.equal(tracked.verdict.kind, 'true', tracked.reason);
  expectFalse(await run(chain(' if (__VERIFIER_nondet_int()) a->next = 0;')), 'valid-memtrack');
});

test('memory-safe programs with structs on the heap, string literals and local arrays are proved', async () => {
  for (const property of ['valid-memsafety', 'valid-memcleanup'] as const) {
    const r = await run(
      `struct node { int v; struct node *next; };
int main(void) {
  struct node *a = malloc(sizeof(struct node));
  struct node *b = malloc(sizeof(struct node));
  a->next = b;
  b->next = 0;
  a->next->v = 2;
  const char *s = "abc";
  int buf[3] = {1, 2, 3};
  int i = __VERIFIER_nondet_int();
  if (i >= 0 && i < 3) buf[i] = s[i];
  free(a->next);
  free(a);
  return buf[0];
}
`,
      property,
    );
    assert.equal(r.verdict.kind, 'true', `${property}: ${r.reason}`);
  }
});

test('what the memory model lacks is UNKNOWN, naming the construct and its location', async () => {
  // A pointer made from an integer is to no object: its dereference is invalid (gcc's run crashes).
  expectFalse(
    await run(`int main(void) {
  int *p = (int *)4096;
  *p = 1;
  return 0;
}
`),
    'valid-deref',
  );
  // Whether it is an object's address, the model does not know.
  const cast = await run(`int x;
int main(void) {
  int *p = (int *)4096;
  if (p == &x) x = 1;
  return 0;
}
`);
  assert.equal(cast.verdict.kind, 'unknown');
  assert.match(cast.reason, /comparison of a pointer made from an integer with a pointer to an object at 6:/);
  const alloc = await run(`void *xmalloc(unsigned long);
int main(void) {
  int *p = xmalloc(4);
  return 0;
}
`);
  assert.equal(alloc.verdict.kind, 'unknown');
  assert.match(alloc.reason, /undefined function 'xmalloc' at .*p\.c:5:/);
});

test('calls through function pointers are a case split over the functions whose address is taken', async () => {
  const prog = (check: string) => `extern void abort(void);
void reach_error(void) { abort(); }
int add(int a, int b) { return a + b; }
int sub(int a, int b) { return a - b; }
struct ops { int (*f)(int, int); };
int apply(int (*g)(int, int), int x) { return g(x, 1); }
int main(void) {
  int (*fp)(int, int) = __VERIFIER_nondet_int() ? add : &sub;
  struct ops o = { add };
  int r = fp(5, 3);
  if (r != 8 && r != 2) reach_error();
  if (o.f(1, 1) != 2 || apply(sub, 4) != 3) reach_error();
  if (${check}) reach_error();
  return 0;
}
`;
  const ok = await run(prog('(*fp)(1, 0) != 1'), 'unreach-call');
  assert.equal(ok.verdict.kind, 'true', ok.reason);
  const bad = await run(prog('fp(2, 1) == 1'), 'unreach-call');
  expectFalse(bad, 'unreach-call');
  // A NULL function pointer called: an invalid dereference.
  expectFalse(
    await run(`int f(void) { return 1; }
int main(void) {
  int (*p)(void) = f;
  if (__VERIFIER_nondet_int()) p = 0;
  return p();
}
`),
    'valid-deref',
  );
});

test('blocks allocated inside a loop: a list built and freed is safe; a lost node and a second free are found', { skip: needTools('gcc', 'gcc -m32 -fsanitize=address') }, async () => {
  const list = (freeing: string) => `struct node { int v; struct node *next; };
int main(void) {
  struct node *head = 0;
  int n = 0;
  while (__VERIFIER_nondet_int() && n < 4) {
    struct node *x = malloc(sizeof(struct node));
    x->v = n;
    x->next = head;
    head = x;
    n++;
  }
  while (head) {
    struct node *t = head->next;
    ${freeing}
    head = t;
  }
  return 0;
}
`;
  const ok = await run(list('free(head);'));
  assert.equal(ok.verdict.kind, 'true', ok.reason);
  expectFalse(await run(list('if (head->v != 1) free(head);')), 'valid-memtrack');
  expectFalse(await run(list('free(head); if (t == 0 && n == 2) free(head);')), 'valid-free');
  expectFalse(
    await run(`int main(void) {
  int k = 0;
  while (k < 3) {
    int *a = malloc((k + 1) * sizeof(int));
    a[k] = 1;
    if (__VERIFIER_nondet_int()) a[k + 1] = 2;
    free(a);
    k++;
  }
  return 0;
}
`),
    'valid-deref',
  );
});

test('realloc: the elements move to the new block and the old one ends; a use of the old pointer and a realloc of a local are found', { skip: needTools('gcc', 'gcc -m32 -fsanitize=address') }, async () => {
  const grow = await run(`int main(void) {
  int *a = malloc(2 * sizeof(int));
  a[0] = 7; a[1] = 8;
  int n = __VERIFIER_nondet_int();
  if (n < 3 || n > 6) n = 3;
  a = realloc(a, n * sizeof(int));
  a[n - 1] = a[0] + a[1];
  if (a[2 + (n > 3)] != 15 && a[n - 1] != 15) a[n] = 0;
  free(a);
  return 0;
}
`);
  assert.equal(grow.verdict.kind, 'true', grow.reason);
  expectFalse(
    await run(`int main(void) {
  int *a = malloc(2 * sizeof(int));
  int *b = realloc(a, 4 * sizeof(int));
  a[0] = 1;
  free(b);
  return 0;
}
`),
    'valid-deref',
  );
  expectFalse(
    await run(`int main(void) {
  int x[2];
  int *b = realloc(x, 4 * sizeof(int));
  free(b);
  return 0;
}
`),
    'valid-free',
  );
  const kept = await run(
    `extern void abort(void);
void reach_error(void) { abort(); }
int main(void) {
  char *s = malloc(3);
  s[0] = 'a'; s[1] = 'b'; s[2] = 0;
  s = realloc(s, 5);
  if (s[1] != 'b') reach_error();
  return 0;
}
`,
    'unreach-call',
  );
  assert.equal(kept.verdict.kind, 'true', kept.reason);
});

test('memset, memcpy, strlen, strcmp and strcpy: exact values, and an overflow found at the call', { skip: needTools('gcc', 'gcc -m32 -fsanitize=address') }, async () => {
  const ok = await run(
    `#include <string.h>
extern void abort(void);
void reach_error(void) { abort(); }
int main(void) {
  int a[5], b[5];
  memset(a, 0, sizeof a);
  a[2] = __VERIFIER_nondet_int();
  memcpy(b, a, 5 * sizeof(int));
  if (b[2] != a[2] || b[4] != 0) reach_error();
  char s[8];
  strcpy(s, "abc");
  if (strlen(s) != 3 || strcmp(s, "abd") >= 0 || strcmp(s, "abc") != 0) reach_error();
  memset(s, 'x', 2);
  if (s[0] != 'x' || s[2] != 'c') reach_error();
  return 0;
}
`,
    'unreach-call',
  );
  assert.equal(ok.verdict.kind, 'true', ok.reason);
  expectFalse(
    await run(`#include <string.h>
int main(void) {
  char *s = malloc(4);
  int n = __VERIFIER_nondet_int();
  if (n < 0 || n > 8) n = 0;
  memset(s, 'a', n);
  s[3] = 0;
  unsigned long k = strlen(s);
  free(s);
  return (int)k;
}
`),
    'valid-deref',
  );
  const unterminated = await run(`#include <string.h>
int main(void) {
  char s[4];
  memset(s, 'a', 4);
  return (int)strlen(s);
}
`);
  if (gcc) assert.deepEqual(unterminated.verdict, { kind: 'false', property: 'valid-deref' }, unterminated.reason);
  const mixed = await run(`#include <string.h>
int main(void) {
  int a[2] = {1, 2};
  char c[8];
  memcpy(c, a, sizeof a);
  return c[0];
}
`);
  assert.equal(mixed.verdict.kind, 'unknown');
  assert.match(mixed.reason, /memcpy from int to char elements at .*p\.c:7:/);
});

test('fopen returns NULL or an opaque stream outside memory safety; an access into the stream is UNKNOWN', async () => {
  const head = `#include <stdio.h>
extern void abort(void);
void reach_error(void) { abort(); }
`;
  const checked = await run(
    `${head}int main(void) {
  FILE *f = fopen("in.txt", "r");
  if (f == NULL) return 1;
  int x = 0;
  if (x) reach_error();
  fclose(f);
  return 0;
}
`,
    'unreach-call',
  );
  assert.equal(checked.verdict.kind, 'true', checked.reason);
  const inside = await run(
    `${head}int main(void) {
  FILE *f = fopen("in.txt", "r");
  if (f != NULL && f->_flags == 12345) reach_error();
  return 0;
}
`,
    'unreach-call',
  );
  assert.equal(inside.verdict.kind, 'unknown', inside.reason);
});

test('calloc inside a loop: each block starts zero', async () => {
  const list = await run(`struct N { int v; struct N *next; };
int main(void) {
  struct N *head = 0;
  int n = __VERIFIER_nondet_int();
  for (int i = 0; i < n && i < 3; i++) {
    struct N *x = calloc(1, sizeof(struct N));
    if (x->v != 0 || x->next != 0) { int *bad = 0; *bad = 1; }
    x->next = head;
    head = x;
  }
  while (head) {
    struct N *t = head->next;
    free(head);
    head = t;
  }
  return 0;
}
`);
  assert.equal(list.verdict.kind, 'true', list.reason);
  const big = await run(`int main(void) {
  for (int i = 0; i < 2; i++) {
    int *x = calloc(__VERIFIER_nondet_int() & 7, sizeof(int));
    free(x);
  }
  return 0;
}
`);
  assert.equal(big.verdict.kind, 'unknown');
  assert.match(big.reason, /calloc inside a loop whose count is not a constant of at most 256 elements at .*p\.c:5:/);
});

test('unions of integers share their bytes little-endian; a union with a pointer member reads the member written last, another one is UNKNOWN', async () => {
  const prog = (check: string) => `extern void abort(void);
void reach_error(void) { abort(); }
union W { unsigned int w; unsigned char b[4]; unsigned short h[2]; };
int main(void) {
  union W x;
  x.w = (unsigned)__VERIFIER_nondet_int();
  x.b[3] = 0x12;
  union W *p = &x;
  p->h[0] = 0xabcd;
  if (${check}) reach_error();
  return 0;
}
`;
  const ok = await run(prog('(x.w >> 24) != 0x12 || x.b[0] != 0xcd || (x.w & 0xffff) != 0xabcd'), 'unreach-call');
  assert.equal(ok.verdict.kind, 'true', ok.reason);
  const bad = await run(prog('x.b[1] == 0xab'), 'unreach-call');
  assert.equal(bad.verdict.kind, gcc ? 'false' : 'unknown', bad.reason);
  const ptr = (read: string) => `union P { int *p; long n; };
int main(void) {
  union P u;
  u.n = 0;
  long r = ${read};
  return 0;
}
`;
  const same = await run(ptr('u.n'));
  assert.equal(same.verdict.kind, 'true', same.reason);
  const other = await run(ptr('(long)(u.p != 0)'));
  assert.equal(other.verdict.kind, 'unknown');
  assert.match(other.reason, /a read of a union member other than the one written last .* at 7:/);
});

test('an allocation wrapper returning void * makes a block of the type its result is converted to', { skip: needTools('gcc', 'gcc -m32 -fsanitize=address') }, async () => {
  const prog = (last: string, freeA: string) => `void *xmalloc(unsigned long n) {
  void *p = malloc(n);
  if (!p) abort();
  return p;
}
int main(void) {
  int n = __VERIFIER_nondet_int();
  if (n < 1 || n > 4) return 0;
  int *a = xmalloc(n * sizeof(int));
  for (int i = 0; i < n; i++) a[i] = i;
  int r = a[${last}];
  ${freeA}
  return r;
}
`;
  const ok = await run(prog('n - 1', 'free(a);'));
  assert.equal(ok.verdict.kind, 'true', ok.reason);
  expectFalse(await run(prog('n', 'free(a);')), 'valid-deref');
  expectFalse(await run(prog('n - 1', '')), 'valid-memtrack');
  // A void * variable converted to one type in its function: its blocks get that type.
  const plain = await run(`int main(void) {
  void *p = malloc(8);
  int *a = p;
  a[1] = 1;
  p = malloc(4);
  int *b = (int *)p;
  b[a[1]] = 2;
  free(a);
  free(b);
  return 0;
}
`);
  expectFalse(plain, 'valid-deref');
  const two = await run(`int main(void) {
  void *p = malloc(8);
  int *a = p;
  char *c = p;
  a[0] = 1;
  free(p);
  return 0;
}
`);
  // Converted to two types: a block of bytes, which the model does not make ints later.
  assert.equal(two.verdict.kind, 'unknown');
  assert.match(two.reason, /a block allocated as void \* gets no type later; an integer view must be aligned\) at 5:/);
  const zeroed = await run(
    `#include <string.h>
extern void abort(void);
void reach_error(void) { abort(); }
void *zalloc(unsigned long n) { void *p = malloc(n); memset(p, 0, n); return p; }
int main(void) {
  int n = __VERIFIER_nondet_int();
  if (n < 1 || n > 4) return 0;
  int *a = zalloc(n * sizeof(int));
  if (a[n - 1] != 0) reach_error();
  return 0;
}
`,
    'unreach-call',
  );
  assert.equal(zeroed.verdict.kind, 'true', zeroed.reason);
});
