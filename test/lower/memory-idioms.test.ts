// The idioms of systems code the lowering models (issue 28): the offsetof
// idiom and container_of, unions with pointer members (the member written
// last), pointers made from integers, time(); their values against gcc's
// in both data models, and the places the model is not exact as
// memory-unknown goals (never a wrong value). Fixtures with verdicts are in
// test/fixtures/memory (untyped-*, container-of*, union-pointer*, time*,
// integer-address*).
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
import { goalOf, lowerProgram } from '../../src/lower/index.js';
import { passesOf } from '../../src/properties/index.js';
import { needTools, spawnProgram } from '../helpers/tools.js';

const lower = (text: string, dm: DataModel) => lowerProgram(parseCProgram(text, 'p.c', { dataModel: dm }), { passes: passesOf('unreach-call'), dataModel: dm });

const PROGRAM = `struct node { struct node *next; };
struct inner { char tag; short s; struct node link; };
struct item { char c; long l; int arr[3]; struct inner in; double d; void *p; };
union value { int *p; long n; char bytes[6]; };
struct cell { int kind; union value u; int after; };
long r0, r1, r2, r3, r4, r5, r6, r7, r8;
int k;
int main(void) {
  r0 = (unsigned long)&((struct item *)0)->l;
  r1 = (unsigned long)&((struct item *)0)->arr;
  r2 = (unsigned long)&((struct item *)0)->in.link;
  r3 = (unsigned long)&((struct item *)0)->p + 100 * (unsigned long)&((struct cell *)0)->after;
  struct item it[2];
  it[1].l = 41;
  it[1].in.s = 7;
  struct node *n = &it[1].in.link;
  struct item *b = (struct item *)((char *)n - (unsigned long)&((struct item *)0)->in.link);
  r4 = b->l + b->in.s + 100 * (b == &it[1]);
  struct inner *ip = (struct inner *)((char *)n - (unsigned long)(&((struct inner *)0)->link));
  r5 = ip->s + 100 * (ip == &it[1].in);
  struct cell c, d;
  c.u.p = &k;
  *c.u.p = 5;
  d = c;
  r6 = *d.u.p + 100 * (d.u.p == &k);
  c.u.n = -3;
  r7 = c.u.n;
  void *a = (void *)0x1234;
  r8 = (unsigned long)a + 100000 * (a != 0);
  return 0;
}
`;
const OUT = ['r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7', 'r8'];

test('the offsetof idiom, container_of, unions with pointer members and integer addresses compute what gcc computes (both data models)', { skip: needTools('gcc', 'gcc -m32') }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-idioms-'));
  try {
    for (const dm of ['ILP32', 'LP64'] as DataModel[]) {
      const bits = dm === 'LP64' ? 64 : 32;
      writeFileSync(join(dir, 'p.c'), PROGRAM);
      writeFileSync(join(dir, 'h.c'), `#undef main\n#include <stdio.h>\nextern long ${OUT.join(', ')};\nint prog_main(void);\nint main(void) { prog_main(); printf("%ld${' %ld'.repeat(OUT.length - 1)}\\n", ${OUT.join(', ')}); return 0; }\n`);
      const cc = spawnSync('gcc', [dm === 'LP64' ? '-m64' : '-m32', '-O0', '-w', '-Dmain=prog_main', '-o', join(dir, 'p'), join(dir, 'p.c'), join(dir, 'h.c')], { encoding: 'utf8' });
      if (cc.status !== 0 && /multilib|cannot find|skipping incompatible/.test(cc.stderr)) continue;
      assert.equal(cc.status, 0, cc.stderr);
      const expected = spawnProgram(join(dir, 'p'), [], dm === 'ILP32', { encoding: 'utf8' }).stdout.trim();
      const l = lower(PROGRAM, dm);
      assert.equal(l.unsupported, undefined, l.unsupported?.construct);
      const res = executeImp(l.imp, 'main', {});
      assert.equal(res.status, 'returned', `${dm}: ${res.message} (${goalOf(l.sourceMap, res.goal)?.description})`);
      const got = OUT.map((name) => {
        const v = res.state.get(name);
        return v?.kind === 'bv' ? String(BigInt.asIntN(bits, v.value)) : '?';
      }).join(' ');
      assert.equal(got, expected, dm);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** The description of the goal a run of the lowered program fails at, or its status. */
function stop(text: string, dm: DataModel = 'ILP32'): string {
  const l = lower(text, dm);
  assert.equal(l.unsupported, undefined, l.unsupported?.construct);
  const res = executeImp(l.imp, 'main', {});
  return res.status === 'assertion-failed' ? `${res.goal?.kind}: ${goalOf(l.sourceMap, res.goal)?.description}` : res.status;
}

const UNION = `struct pa { int *p; int x; };
struct pb { long y; int z; };
union u { struct pa a; struct pb b; };
int k;
int main(void) {
  union u v;
  BODY
  return 0;
}
`;

test('a tagged union: the member written last reads exactly; another member, or parts of two members written, is not modelled', () => {
  const at = (body: string) => stop(UNION.replace('BODY', body));
  // Parts of one member, in a union nothing was written in.
  assert.equal(at('v.b.z = 2; v.b.y = 1; if (v.b.z != 2) return 1;'), 'returned');
  assert.equal(at('v.a.p = &k; v.a.x = 1; int *q = v.a.p; *q = 3;'), 'returned');
  // A whole member written over another, and a whole union copied, keep the union exact.
  assert.equal(at('struct pb nb = {4, 1}; v.a.p = &k; v.b = nb; union u w = v; if (w.b.z != 1 || w.b.y != 4) return 1;'), 'returned');
  const other = /^memory-unknown: a read of a union member other than the one written last/;
  assert.match(at('v.a.p = &k; long y = v.b.y;'), other);
  // b.z written while a is the member: a and b both hold parts of the bytes.
  assert.match(at('v.a.p = &k; v.b.z = 2; int z = v.b.z;'), other);
  assert.match(at('v.a.p = &k; v.b.z = 2; int x = v.a.x;'), other);
  // memset writes every member alike: all of them read the bytes.
  assert.equal(stop(`void *memset(void *, int, unsigned long);\n${UNION.replace('BODY', 'v.a.p = &k; memset(&v, 0, sizeof v); if (v.b.y != 0 || v.a.p != 0) return 1;')}`), 'returned');
});

test('pointers made from integers: an object address compared with one, or arithmetic on one, is not modelled', () => {
  const p = (body: string) => stop(`int k;\nint main(void) {\n  int *a = (int *)0x40;\n  ${body}\n  return 0;\n}\n`);
  assert.equal(p('if (a == 0 || a != (int *)0x40) return 1;'), 'returned');
  assert.match(p('if (a == &k) return 1;'), /^memory-unknown: comparison of a pointer made from an integer with a pointer to an object/);
  assert.match(p('a = a + 1;'), /^memory-unknown: arithmetic on a pointer made from an integer/);
  assert.match(p('long x = (long)&k;'), /^memory-unknown: conversion of a pointer to an object to an integer/);
  // Outside memory safety, a dereference is of no object: undefined.
  assert.match(p('*a = 1;'), /^memory-unknown: a dereference of a int pointer to no object/);
});

test('container_of of a pointer that is not to the member, or past an array member\'s start, is not modelled', () => {
  const c = (body: string) =>
    stop(`struct node { struct node *next; };\nstruct item { int v; struct node link; struct node more[2]; };\nint main(void) {\n  struct item it; struct node lone;\n  ${body.replace(/OF\((.*?), (\w+)\)/g, '((struct item *)((char *)($1) - (unsigned long)&((struct item *)0)->$2))')}\n  return 0;\n}\n`);
  assert.equal(c('it.v = 3; if (OF(&it.more[0], more)->v != 3) return 1;'), 'returned');
  assert.match(c('struct item *b = OF(&lone, link);'), /^memory-unknown: container_of/);
  assert.match(c('struct item *b = OF(&it.more[1], more);'), /^memory-unknown: container_of/);
});

test('time(t) returns any time_t and stores it through t unless t is NULL', () => {
  for (const dm of ['ILP32', 'LP64'] as DataModel[]) {
    const text = 'typedef long time_t;\ntime_t time(time_t *);\ntime_t r, s = 7, u;\nint main(void) { r = time(&s); u = time(0); return 0; }\n';
    const l = lower(text, dm);
    assert.equal(l.unsupported, undefined, l.unsupported?.construct);
    // The calls' results in the order of their variables (each is havocked when declared and at the call).
    const values = [-1n, 1700000000n];
    const chosen = new Map<string, ImpValue>();
    const havoc = (name: string, t: ImpType): ImpValue => {
      if (t.kind !== 'bv' || !name.startsWith('$time')) return zeroValue(t);
      if (!chosen.has(name)) chosen.set(name, { kind: 'bv', width: t.width, value: BigInt.asUintN(t.width, values[chosen.size]!) });
      return chosen.get(name)!;
    };
    const res = executeImp(l.imp, 'main', {}, { havoc });
    assert.equal(res.status, 'returned');
    const get = (n: string) => {
      const v = res.state.get(n);
      return v?.kind === 'bv' ? BigInt.asIntN(v.width, v.value) : undefined;
    };
    assert.deepEqual([get('r'), get('s'), get('u')], [-1n, -1n, 1700000000n], dm);
  }
});

test('an allocation wrapper inlined inside a loop for two element types (one of them untyped) makes blocks of each type', () => {
  const text = `void *malloc(unsigned long); void free(void *);
void *xmalloc(unsigned long n) { return malloc(n); }
struct a { int x; int *p; };
int main(void) {
  for (int i = 0; i < 2; i++) {
    struct a *s = xmalloc(sizeof *s);
    void *raw = xmalloc(3);
    char *c = raw;
    c[2] = 1;
    s->x = c[2];
    s->p = &s->x;
    free(raw);
    free(s);
  }
  return 0;
}
`;
  const l = lowerProgram(parseCProgram(text, 'p.c', { dataModel: 'ILP32' }), { passes: passesOf('valid-memsafety'), dataModel: 'ILP32' });
  assert.equal(l.unsupported, undefined, l.unsupported?.construct);
  const res = executeImp(l.imp, 'main', {});
  assert.equal(res.status, 'returned', `${res.message} (${goalOf(l.sourceMap, res.goal)?.description})`);
});
