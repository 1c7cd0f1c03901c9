// Differential tests of the memory model against gcc: random programs with
// pointers into arrays, struct members and heap blocks are lowered (with the
// memory-safety goals) and run in the IMP interpreter; every recorded value
// must agree with the compiled program, and the first memory error must be
// where AddressSanitizer reports it (or neither finds one).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCProgram } from '../../src/c/index.js';
import type { DataModel } from '../../src/c/types.js';
import { executeImp, type ExecutionResult } from '../../src/ivl/interp.js';
import { lowerProgram } from '../../src/lower/index.js';
import { rng } from '../../src/invariants/random.js';
import { passesOf } from '../../src/properties/index.js';
import type { PropertyKind } from '../../src/task/index.js';


const asan = (() => {
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-asan-'));
  try {
    writeFileSync(join(dir, 'a.c'), 'int main(void) { return 0; }\n');
    const cc = spawnSync('gcc', ['-fsanitize=address', '-o', join(dir, 'a'), join(dir, 'a.c')]);
    return cc.status === 0 && spawnSync(join(dir, 'a')).status === 0;
  } catch {
    return false;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
})();
const skip = asan ? false : 'gcc with -fsanitize=address is not available';

/** The int objects a pointer may point into: name, element count, how to take element k's address. */
const OBJECTS = [
  { name: 'ga', n: 6, at: (k: number) => `&ga[${k}]` },
  { name: 'la', n: 5, at: (k: number) => `la + ${k}` },
  { name: 's.y', n: 3, at: (k: number) => `&s.y[${k}]` },
  { name: 'ps->y', n: 3, at: (k: number) => `&ps->y[${k}]` },
  { name: 'h', n: 4, at: (k: number) => `h + ${k}` },
  { name: 'x', n: 1, at: () => `&x` },
] as const;

const PRELUDE = `void *malloc(unsigned long);
void free(void *);
struct P { int x; int y[3]; struct P *next; };
int ga[6] = {1, 2, 3, 4, 5, 6};
long long R[64];
int main(void) {
  int la[5] = {10, 20, 30, 40, 50};
  int x = 7;
  struct P s = {1, {2, 3, 4}, 0};
  struct P *ps = malloc(sizeof(struct P));
  int *h = malloc(4 * sizeof(int));
  int *p = &x;
  int *q = &x;
  int t = 0;
  ps->x = 9; ps->y[0] = 8; ps->y[1] = 7; ps->y[2] = 6; ps->next = &s;
  h[0] = 100; h[1] = 101; h[2] = 102; h[3] = 103;
`;

/** Straight-line statements that stay inside the objects; every fourth one records a value. */
function safeProgram(r: () => number, count: number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const lines: string[] = [];
  // Where p and q point: object and element.
  let pAt = { o: OBJECTS[5] as (typeof OBJECTS)[number], k: 0 };
  let qAt = pAt;
  let rec = 0;
  for (let i = 0; i < count; i++) {
    const c = Math.floor(r() * 8);
    if (c === 0) {
      const o = pick(OBJECTS);
      const k = Math.floor(r() * o.n);
      pAt = { o, k };
      lines.push(`p = ${o.at(k)};`);
    } else if (c === 1) {
      qAt = pAt;
      lines.push('q = p;');
    } else if (c === 2 && pAt.o.n > 1) {
      const d = Math.floor(r() * pAt.o.n) - pAt.k;
      pAt = { ...pAt, k: pAt.k + d };
      lines.push(`p = p + (${d});`);
    } else if (c === 3) {
      lines.push(`*p = ${pick(['t', '*q', 'x', 's.x', 'ps->x', 'ga[2]'])} + ${Math.floor(r() * 9) - 4};`);
    } else if (c === 4) {
      const j = Math.floor(r() * pAt.o.n) - pAt.k;
      lines.push(`t = p[${j}] * 3 - t;`);
    } else if (c === 5) {
      lines.push(pick(['s = *ps;', 'ps->next->x = t;', 'ps->y[t & 1] = x;', 't += (p == q) + 2 * (p != &x);']));
    } else {
      lines.push(`R[${rec++}] = ${pick(['*p', '*q', 't', 's.x + s.y[2]', 'ps->y[1]', 'la[4] - ga[0]', 'h[3]', 'x'])};`);
    }
  }
  void qAt;
  lines.push(`R[${rec++}] = t;`, 'free(h);', 'free(ps);', 'return 0;', '}');
  return PRELUDE + lines.map((l) => `  ${l}\n`).join('');
}

function compileAndRun(dir: string, text: string): { stdout: string; stderr: string } {
  const file = join(dir, 'p.c');
  writeFileSync(file, text);
  const harness = join(dir, 'h.c');
  writeFileSync(harness, '#include <stdio.h>\nextern long long R[];\nint prog_main(void);\nint main(void) { prog_main(); for (int i = 0; i < 64; i++) printf("%lld\\n", R[i]); return 0; }\n');
  const flags = ['-g', '-O0', '-w', '-fwrapv', '-fsanitize=address'];
  const cc = spawnSync('gcc', [...flags, '-Dmain=prog_main', '-c', '-o', join(dir, 'p.o'), file], { encoding: 'utf8' });
  assert.equal(cc.status, 0, cc.stderr);
  const ld = spawnSync('gcc', [...flags, '-o', join(dir, 'p'), join(dir, 'p.o'), harness], { encoding: 'utf8' });
  assert.equal(ld.status, 0, ld.stderr);
  const run = spawnSync(join(dir, 'p'), { encoding: 'utf8', env: { ...process.env, ASAN_OPTIONS: 'detect_leaks=0:halt_on_error=1' } });
  return { stdout: run.stdout, stderr: run.stderr };
}

function lowerAndRun(text: string, dm: DataModel, property: PropertyKind = 'valid-memsafety'): ExecutionResult {
  const l = lowerProgram(parseCProgram(text, 'p.c', { dataModel: dm }), { passes: passesOf(property), dataModel: dm });
  assert.equal(l.unsupported, undefined, `${l.unsupported?.construct} at ${l.unsupported?.loc.line}`);
  return executeImp(l.imp, 'main', {});
}

function resultValues(res: ExecutionResult, dm: DataModel): bigint[] {
  const R = res.state.get('R');
  assert.ok(R && R.kind === 'map');
  const out: bigint[] = [];
  for (let i = 0; i < 64; i++) {
    const e = [...R.entries.values()].find((x) => x.index.kind === 'bv' && x.index.value === BigInt(i));
    const v = e ? e.value : R.default;
    out.push(v.kind === 'bv' ? BigInt.asIntN(64, v.value) : -999n);
  }
  void dm;
  return out;
}

test('random pointer programs over arrays, struct members and heap blocks agree with gcc and are memory-safe', { skip }, () => {
  const r = rng(12);
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-memdiff-'));
  try {
    for (let n = 0; n < 6; n++) {
      const text = safeProgram(r, 40);
      const run = compileAndRun(dir, text);
      assert.doesNotMatch(run.stderr, /ERROR: AddressSanitizer/, text);
      const want = run.stdout.trim().split('\n').map((x) => BigInt(x));
      for (const dm of ['ILP32', 'LP64'] as DataModel[]) {
        const res = lowerAndRun(text, dm);
        assert.equal(res.status, 'returned', `${dm}: ${res.status} at line ${res.loc?.line}: ${res.message}\n${text}`);
        assert.deepEqual(resultValues(res, dm), want, `${dm}\n${text}`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** One access that may be outside its object, or a use after free, or a second free. */
function riskyProgram(r: () => number): { text: string; line: number } {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const kind = pick(['index', 'index', 'index', 'after-free', 'double-free', 'pointer']);
  const PL = PRELUDE.split('\n').length - 1;
  let stmt: string;
  if (kind === 'index') {
    const o = pick(OBJECTS.filter((x) => x.name !== 'x'));
    const i = pick([0, o.n - 1, o.n, o.n + 1]);
    stmt = `${pick(['t = ', 'R[0] = '])}${o.name === 'ps->y' ? 'ps->y' : o.name}[${i}];`;
  } else if (kind === 'pointer') {
    const o = pick(OBJECTS);
    const k = Math.floor(r() * o.n);
    const j = pick([0, o.n - k - 1, o.n - k]);
    stmt = `p = ${o.at(k)}; p[${j}] = 5;`;
  } else if (kind === 'after-free') {
    stmt = `free(h); h[${Math.floor(r() * 4)}] = 1; h = malloc(4 * sizeof(int));`;
  } else {
    stmt = 'free(h); free(h); h = malloc(4 * sizeof(int));';
  }
  const text = `${PRELUDE}  ${stmt}\n  R[1] = t;\n  free(h);\n  free(ps);\n  return 0;\n}\n`;
  return { text, line: PL + 1 };
}

/**
 * Runs 14 programs of `make`, each with one access that may be a memory
 * error, compiled with AddressSanitizer and lowered in both data models: the
 * lowering must fail its check exactly on the line ASan reports (or nowhere).
 */
function errorsWhereAsanReports(seed: number, make: (r: () => number) => { text: string; line: number }): void {
  const r = rng(seed);
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-memdiff-'));
  let errors = 0;
  try {
    for (let n = 0; n < 14; n++) {
      const { text, line } = make(r);
      const run = compileAndRun(dir, text);
      const m = /ERROR: AddressSanitizer[\s\S]*?p\.c:(\d+)/.exec(run.stderr);
      const asanLine = m ? Number(m[1]) : undefined;
      if (asanLine !== undefined) errors++;
      for (const dm of ['ILP32', 'LP64'] as DataModel[]) {
        const res = lowerAndRun(text, dm);
        const ours = res.status === 'assertion-failed' ? res.loc?.line : undefined;
        assert.equal(ours, asanLine, `${dm}: ${res.status} ${res.message ?? ''}\n${text.split('\n')[line - 1]}\n${run.stderr.split('\n')[1] ?? ''}`);
      }
    }
    assert.ok(errors >= 4, `only ${errors} programs with a memory error`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('memory errors are found exactly where AddressSanitizer reports them', { skip }, () => {
  errorsWhereAsanReports(5, riskyProgram);
});

// ---- the C library's memory and string functions --------------------------------

const LIBRARY_PRELUDE = `void *malloc(unsigned long);
void free(void *);
void *realloc(void *, unsigned long);
void *memset(void *, int, unsigned long);
void *memcpy(void *, const void *, unsigned long);
void *memmove(void *, const void *, unsigned long);
int memcmp(const void *, const void *, unsigned long);
unsigned long strlen(const char *);
int strcmp(const char *, const char *);
int strncmp(const char *, const char *, unsigned long);
char *strcpy(char *, const char *);
char *strcat(char *, const char *);
char *strncpy(char *, const char *, unsigned long);
struct Q { int a; char b[3]; short c; };
long long R[64];
int main(void) {
  int ia[6] = {1, -2, 3, 400000, 5, 6};
  int ib[6] = {0};
  char c1[8] = "abcdefg";
  char c2[6] = "abd";
  char *hc = malloc(7);
  struct Q qa[3] = {{1, {2, 3, 4}, 5}, {6, {7, 8, 9}, 10}, {11, {12, 13, 14}, 15}};
  struct Q qb[3] = {0};
  int t = 3;
  hc[0] = 'x'; hc[1] = 0; hc[2] = 'y'; hc[3] = 'x'; hc[4] = 'z'; hc[5] = 'a'; hc[6] = 0;
`;

/** Straight-line calls that stay inside their objects (c1[7], c2[5] and hc[6] stay 0: every string ends). */
function libraryProgram(r: () => number, count: number): string {
  const int = (n: number) => Math.floor(r() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  const sign = (call: string) => `(${call} > 0) - (${call} < 0)`;
  const chars = [
    { name: 'c1', n: 7 },
    { name: 'c2', n: 5 },
    { name: 'hc', n: 6 },
  ];
  const lines: string[] = [];
  let rec = 0;
  for (let i = 0; i < count; i++) {
    const c = int(11);
    const s = pick(chars);
    const k = int(s.n);
    if (c === 0) {
      const k2 = int(6);
      lines.push(`memset(ia + ${k2}, ${pick([0, 1, 255, 'x'.charCodeAt(0), 't'])}, ${int(7 - k2)} * sizeof(int));`);
    } else if (c === 1) {
      lines.push(`memset(${s.name} + ${k}, ${pick(['0', "'a' + t", "'q'", '200'])}, ${int(s.n - k + 1)});`);
    } else if (c === 2) {
      const [a, b] = pick([['ia', 'ib'], ['ib', 'ia']]);
      const m = int(7);
      lines.push(`memcpy(${a} + ${int(7 - m)}, ${b} + ${int(7 - m)}, ${m} * sizeof(int));`);
    } else if (c === 3) {
      const m = int(7);
      lines.push(`memmove(ia + ${int(7 - m)}, ia + ${int(7 - m)}, ${m} * sizeof(ia[0]));`);
    } else if (c === 4) {
      const d = pick(chars.filter((x) => x !== s));
      // The source string is cut so that it fits the destination.
      const end = k + int(Math.min(s.n - k, d.n));
      lines.push(`${s.name}[${end}] = 0; strcpy(${d.name}, ${s.name} + ${k});`);
    } else if (c === 5) {
      lines.push(`R[${rec++}] = strlen(${s.name} + ${k});`);
      const d = pick(chars.filter((x) => x !== s));
      if (r() < 0.5) {
        // strcat: d cut to a characters, s + k to b, a + b within d.
        const a = int(d.n + 1);
        const b = int(Math.min(d.n - a, s.n - k) + 1);
        lines.push(`${d.name}[${a}] = 0; ${s.name}[${k + b}] = 0; strcat(${d.name}, ${s.name} + ${k});`);
      } else {
        lines.push(`strncpy(${d.name}, ${s.name} + ${k}, ${int(d.n + 1)});`);
      }
    } else if (c === 6) {
      const o = pick(chars);
      lines.push(`R[${rec++}] = ${sign(`strcmp(${s.name} + ${k}, ${o.name})`)};`);
    } else if (c === 7) {
      const o = pick(chars);
      lines.push(`R[${rec++}] = ${sign(`strncmp(${s.name}, ${o.name} + ${int(o.n)}, ${int(9)})`)};`);
    } else if (c === 8) {
      const m = int(Math.min(s.n, 5) + 1);
      lines.push(`R[${rec++}] = ${sign(`memcmp(${s.name}, c2, ${m})`)};`);
    } else if (c === 9) {
      lines.push(pick(['hc = realloc(hc, 7 + t);', 'memcpy(qb, qa, sizeof qa);', `memset(qa + ${int(3)}, ${pick([0, 7, 255])}, sizeof(struct Q));`, 'memcpy(&qb[1], &qa[2], sizeof(struct Q));']));
    } else {
      lines.push(`R[${rec++}] = ${pick(['ia[t]', 'ib[5] + ib[0]', 'c1[t]', 'c2[1] * 3', 'hc[t + 1]', 'qa[1].a', 'qa[2].b[1] + qa[0].c', 'qb[1].c', 'qb[2].a', 't'])};`);
    }
    if (r() < 0.2) lines.push(`t = ${pick(['(t + 1) % 4', 'ia[2] & 3', 'c1[0] & 3'])};`);
  }
  lines.push(`R[${rec++}] = ia[0] + ia[5] + ib[3];`, 'free(hc);', 'return 0;', '}');
  return LIBRARY_PRELUDE + lines.map((l) => `  ${l}\n`).join('');
}

/**
 * Runs `count` programs of `make` compiled by gcc (which must find no memory
 * error) and lowered, in both data models and under both properties: every
 * recorded value must agree.
 */
function agreeWithGcc(seed: number, count: number, make: (r: () => number) => string, properties: readonly PropertyKind[] = ['valid-memsafety', 'unreach-call']): void {
  const r = rng(seed);
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-memdiff-'));
  try {
    for (let n = 0; n < count; n++) {
      const text = make(r);
      const run = compileAndRun(dir, text);
      assert.doesNotMatch(run.stderr, /ERROR: AddressSanitizer/, text);
      const want = run.stdout.trim().split('\n').map((x) => BigInt(x));
      for (const dm of ['ILP32', 'LP64'] as DataModel[]) {
        for (const property of properties) {
          const res = lowerAndRun(text, dm, property);
          assert.equal(res.status, 'returned', `${dm} ${property}: ${res.status} at line ${res.loc?.line}: ${res.message}\n${text}`);
          assert.deepEqual(resultValues(res, dm), want, `${dm} ${property}\n${text}`);
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('random programs calling memset, memcpy, memmove, memcmp, strlen, strcmp, strncmp, strcpy, strcat, strncpy and realloc agree with gcc', { skip }, () => {
  agreeWithGcc(21, 5, (r) => libraryProgram(r, 30));
});

/** One library call that may run past its object. */
function riskyLibraryProgram(r: () => number): string {
  const int = (n: number) => Math.floor(r() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  const stmt = pick([
    () => `memset(ia + ${int(6)}, 0, ${pick([5, 6, 7])} * sizeof(int) - ${pick([0, 4])});`,
    () => `memcpy(ib, ia + ${int(3)}, ${pick([3, 4, 5])} * sizeof(int));`,
    () => `memset(hc, 'z', ${pick([6, 7, 8])});`,
    () => `c1[7] = ${pick([0, 'z'.charCodeAt(0)])}; R[0] = strlen(c1 + ${int(8)});`,
    () => `c1[${pick([3, 5, 6])}] = 0; strcpy(c2, c1);`,
    () => `c2[5] = ${pick([0, 'q'.charCodeAt(0)])}; memset(c2, 'q', 5); R[0] = strcmp(c2, "qqqqqqq");`,
    () => `free(hc); R[0] = strlen(hc); hc = malloc(7);`,
    () => `c2[${pick([1, 2])}] = 0; c1[${pick([3, 4])}] = 0; strcat(c2, c1);`,
    () => `strncpy(c2, c1, ${pick([5, 6, 7])});`,
    () => `${pick(['free(hc); ', ''])}hc = realloc(hc, ${pick([3, 9])}); hc[${pick([2, 3, 8])}] = 0;`,
  ])();
  return `${LIBRARY_PRELUDE}  ${stmt}\n  free(hc);\n  return 0;\n}\n`;
}

test('memory errors in library calls are found exactly where AddressSanitizer reports them', { skip }, () => {
  const line = LIBRARY_PRELUDE.split('\n').length;
  errorsWhereAsanReports(8, (r) => ({ text: riskyLibraryProgram(r), line }));
});

// ---- unions: members share their bytes (little-endian) ---------------------------

const UNION_PRELUDE = `void *memset(void *, int, unsigned long);
union W { unsigned int w; unsigned char b[4]; unsigned short h[2]; signed char sc; long long ll; };
struct S { short t; union W u[3]; };
union W g;
long long R[64];
int main(void) {
  struct S s = {0};
  union W arr[2] = {{0}};
  union W x = {0x11223344};
  union W *p = &s.u[1];
  unsigned char *c = x.b;
  int t = 1;
`;

function unionProgram(r: () => number, count: number): string {
  const int = (n: number) => Math.floor(r() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  const objects = ['g', 'x', 's.u[0]', 's.u[2]', 'arr[1]', 'arr[t]', 'p[0]', '(*p)', 's.u[t]'];
  const members = ['w', 'b[0]', 'b[3]', 'b[t]', 'h[1]', 'h[t]', 'sc', 'll'];
  const lines: string[] = [];
  let rec = 0;
  for (let i = 0; i < count; i++) {
    const c = int(6);
    const o = pick(objects);
    const m = pick(members);
    if (c <= 1) lines.push(`${o}.${m} = ${pick(['t * 77 - 5', '0xdeadbeef', '-2', `${pick(objects)}.${pick(members)} + 1`, '0x1234567890abLL'])};`);
    else if (c === 2) lines.push(pick([`p = &${pick(['s.u[0]', 's.u[2]', 'arr[0]', 'g'])};`, `c[${int(4)}] = ${int(256)};`, 't = (t + 1) % 2;', `${o} = ${pick(objects)};`, `memset(&${o}, ${int(256)}, sizeof(union W));`, `memset(s.u + t, ${int(256)}, 2 * sizeof(union W));`]));
    else lines.push(`R[${rec++}] = ${o}.${m};`);
  }
  lines.push(`R[${rec++}] = s.t + x.ll;`, 'return 0;', '}');
  return UNION_PRELUDE + lines.map((l) => `  ${l}\n`).join('');
}

test('random programs writing a union through one member (or memset) and reading it through another agree with gcc', { skip }, () => {
  agreeWithGcc(33, 6, (r) => unionProgram(r, 30));
});

// ---- integer objects seen through pointers to other integer types ----------------

const VIEW_PRELUDE = `void *malloc(unsigned long);
void free(void *);
int gi[3] = {0x11223344, -5, 77};
long long R[64];
int main(void) {
  unsigned int ui = 0xdeadbeefu;
  short sa[4] = {1, -2, 300, -400};
  long long ll = 0x0102030405060708LL;
  int *h = malloc(2 * sizeof(int));
  h[0] = 5; h[1] = -6;
  unsigned char *c = (unsigned char *)&ui;
  signed char *sc;
  unsigned short *us = (unsigned short *)sa;
  int t = 1;
`;

/** The objects of VIEW_PRELUDE: their address as written, their size in bytes, their element type and size. */
const VIEWED = [
  { at: 'gi', n: 12, elem: 'int', size: 4 },
  { at: '&ui', n: 4, elem: 'unsigned int', size: 4 },
  { at: 'sa', n: 8, elem: 'short', size: 2 },
  { at: '&ll', n: 8, elem: 'long long', size: 8 },
  { at: 'h', n: 8, elem: 'int', size: 4 },
] as const;

/** Byte and short reads and writes of int, short and long long objects, and pointers back to the objects' types when aligned. */
function viewProgram(r: () => number, count: number, heap: boolean): string {
  const int = (n: number) => Math.floor(r() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  const objects = heap ? VIEWED : VIEWED.filter((o) => o.at !== 'h');
  const lines: string[] = [];
  let cAt: { o: (typeof VIEWED)[number]; k: number } = { o: VIEWED[1], k: 0 };
  let usAt: { o: (typeof VIEWED)[number]; k: number } = { o: VIEWED[2], k: 0 };
  let rec = 0;
  for (let i = 0; i < count; i++) {
    const op = int(9);
    const j = int(cAt.o.n - cAt.k);
    if (op === 0) {
      const o = pick(objects);
      const k = int(o.n);
      cAt = { o, k };
      lines.push(`c = (unsigned char *)${o.at} + ${k};`);
    } else if (op === 1) lines.push(`c[${j}] = ${pick(['t * 37', '0xff', 'c[0] + 1', String(int(256))])};`);
    else if (op === 2) lines.push(`sc = (signed char *)c; R[${rec++}] = sc[${j}];`);
    else if (op === 3) lines.push(`R[${rec++}] = (char)c[${j}] + ((char *)c)[${j}];`);
    else if (op === 4) {
      const o = pick(objects);
      const k = int(o.n / 2);
      usAt = { o, k };
      lines.push(`us = (unsigned short *)${o.at} + ${k};`);
    } else if (op === 5) lines.push(`us[${int(usAt.o.n / 2 - usAt.k)}] ${pick(['=', '+=', '^='])} ${pick(['t * 1001', '0xabcd', String(int(65536))])};`);
    else if (op === 6 && cAt.k % cAt.o.size === 0) {
      lines.push(`R[${rec++}] = *(${cAt.o.elem} *)c;`, `t = (t + 1) & 3;`);
    } else if (op === 7) lines.push(`R[${rec++}] = (void *)c == (void *)((unsigned char *)${cAt.o.at} + ${cAt.k}) ? ${pick(['t', '-1'])} : 5;`);
    else lines.push(`R[${rec++}] = ${pick(['gi[0]', 'gi[2]', 'ui', 'sa[1]', 'sa[3]', 'll', 'h[0]', 'h[1]', 't'])};`);
  }
  lines.push(`R[${rec++}] = gi[1] + ui + sa[0] + ll + h[1];`, 'free(h);', 'return 0;', '}');
  return VIEW_PRELUDE + lines.map((l) => `  ${l}\n`).join('');
}

test('random programs reading and writing int, short and long long objects through char and short pointers agree with gcc', { skip }, () => {
  // Outside memory safety a heap block's size is not tracked, so a view of one is UNKNOWN there.
  agreeWithGcc(44, 4, (r) => viewProgram(r, 40, true), ['valid-memsafety']);
  agreeWithGcc(46, 4, (r) => viewProgram(r, 40, false));
});

test('byte accesses outside an int object are found exactly where AddressSanitizer reports them', { skip }, () => {
  errorsWhereAsanReports(45, (r) => {
    const o = VIEWED[Math.floor(r() * VIEWED.length)]!;
    const i = [0, o.n - 1, o.n, o.n + 1][Math.floor(r() * 4)]!;
    const text = `${VIEW_PRELUDE}  c = (unsigned char *)${o.at};\n  c[${i}] = 1;\n  R[1] = t;\n  free(h);\n  return 0;\n}\n`;
    return { text, line: VIEW_PRELUDE.split('\n').length };
  });
});
