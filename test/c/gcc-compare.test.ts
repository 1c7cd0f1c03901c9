// Sizes, layouts and integer constant expressions compared with what gcc
// computes (-m32 for ILP32, -m64 for LP64). gcc cannot link -m32 here, so the
// values are read from the assembly gcc emits for initialised globals.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCProgram, evaluateInteger, childExprs, forEachStatement, typeToString, type BlockItem, type CProgram, type Expr, type DataModel, type Initializer } from '../../src/c/index.js';
import { repoRoot, sharedDir, sharedPath } from '../helpers/shared.js';
import { needTools } from '../helpers/tools.js';

const work = mkdtempSync(join(tmpdir(), 'tarsier-c-'));

/** Values of the globals named __tv<N> in gcc's assembly, or a reason why gcc could not compile. */
function gccValues(source: string, dm: DataModel): Map<string, bigint> | string {
  const file = join(work, `probe-${dm}.c`);
  writeFileSync(file, source);
  const r = spawnSync('gcc', [dm === 'LP64' ? '-m64' : '-m32', '-S', '-O0', '-w', '-fno-zero-initialized-in-bss', '-o', '-', file], { encoding: 'utf8' });
  if (r.error) return `gcc is not available (${r.error.message})`;
  if (r.status !== 0) return `gcc failed: ${r.stderr.split('\n').slice(0, 3).join(' | ')}`;
  const values = new Map<string, bigint>();
  let current: string | undefined;
  let parts: bigint[] = [];
  const flush = () => {
    if (current) {
      const v = parts.length === 2 ? (BigInt.asUintN(32, parts[1]) << 32n) | BigInt.asUintN(32, parts[0]) : BigInt.asUintN(64, parts[0] ?? 0n);
      values.set(current, v);
    }
    current = undefined;
    parts = [];
  };
  for (const line of r.stdout.split('\n')) {
    const label = /^(__tv\d+):$/.exec(line);
    if (label) {
      flush();
      current = label[1];
      continue;
    }
    if (!current) continue;
    const m = /^\s+\.(long|quad|zero)\s+(-?\d+)/.exec(line);
    if (m) {
      if (m[1] === 'zero') parts.push(0n, 0n);
      else parts.push(BigInt(m[2]));
      if (m[1] === 'quad' || parts.length >= 2) flush();
    } else if (/^\s*\.(size|text|data|globl|section)/.test(line) || /^\S/.test(line)) flush();
  }
  flush();
  return values;
}

function gccUsable(): string | false {
  for (const dm of ['ILP32', 'LP64'] as const) {
    const v = gccValues('unsigned long long __tv0 = sizeof(long);\n', dm);
    if (typeof v === 'string') return `skipped: ${v}`;
  }
  return false;
}
const skipGcc = needTools('gcc', 'gcc -m32') || gccUsable();

/** Appends probes `unsigned long long __tvN = (text);` and compares gcc's values with ours. */
function compare(source: string, probes: string[], dm: DataModel, file: string): void {
  const augmented = source + '\n' + probes.map((p, i) => `unsigned long long __tv${i} = (${p});`).join('\n') + '\n';
  const prog = parseCProgram(augmented, file, { dataModel: dm });
  const gcc = gccValues(augmented, dm);
  if (typeof gcc === 'string') assert.fail(`${file} (${dm}): ${gcc}`);
  const ours = new Map<string, bigint | undefined>();
  for (const g of prog.globals) {
    if (g.name.startsWith('__tv') && g.init && g.init.kind !== 'InitList') ours.set(g.name, evaluateInteger(prog, g.init));
  }
  probes.forEach((p, i) => {
    const name = `__tv${i}`;
    assert.equal(ours.get(name), gcc.get(name), `${file} (${dm}): value of ${p}`);
  });
}

const LAYOUTS = `
struct s1 { char c; int i; };
struct s2 { char c; double d; };
struct s3 { char c; long double ld; };
struct s4 { char c; long long ll; short s; };
struct s5 { unsigned a:3; unsigned b:30; char c; long long d:40; int :0; short e; };
struct s6 { char a:4; char b:6; int c:20; int d:20; };
struct s7 { int x; union { int y; double z; }; struct { char p, q; }; };
struct __attribute__((packed)) s8 { char a; int b; short c; };
struct s9 { char a; int b __attribute__((aligned(16))); };
struct s10 { long l; char c[3]; void *p; };
struct s11 { char c; struct s2 inner; char d; };
struct s12 { _Bool b; short s; char c; unsigned long long u:33; unsigned v:31; };
struct s13 { int n; int flex[]; };
union u1 { char c[7]; int i; };
union u2 { long double ld; char c; };
struct s14 { char c; unsigned long long x:1; };
struct s15 { short s:9; short t:9; short u:9; };
enum e1 { A, B = 5, C, D = -3 };
typedef struct { char name[10]; double w; struct s1 arr[3]; } rec_t;
#pragma pack(push, 1)
struct p1 { char c; int i; short s; long long l; };
struct p2 { char a:4; int b:30; char c; unsigned d:7; };
#pragma pack(2)
struct p3 { char c; int i; double d; long double e; };
#pragma pack(pop)
struct p4 { char c; int i; };
struct p5 { char c; int i __attribute__((packed)); short s; };
struct p6 { char c; struct { char d; int e; } __attribute__((packed)) in; short f; };
struct p7 { char c; unsigned x:12 __attribute__((packed)); unsigned y:30; };
typedef unsigned long long aligned_u64 __attribute__((aligned(8)));
typedef int __attribute__((aligned(16))) int16a;
struct p8 { char c; aligned_u64 v; int16a w; };
`;

const LAYOUT_PROBES = [
  ...['s1', 's2', 's3', 's4', 's5', 's6', 's7', 's8', 's9', 's10', 's11', 's12', 's13', 's14', 's15'].flatMap((s) => [`sizeof(struct ${s})`, `_Alignof(struct ${s})`]),
  'sizeof(aligned_u64)', '_Alignof(aligned_u64)', '__alignof__(int16a)', '__builtin_offsetof(struct p8, v)', '__builtin_offsetof(struct p8, w)',
  ...['p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7', 'p8'].flatMap((x) => [`sizeof(struct ${x})`, `_Alignof(struct ${x})`]),
  '__builtin_offsetof(struct p1, l)', '__builtin_offsetof(struct p2, c)', '__builtin_offsetof(struct p3, d)', '__builtin_offsetof(struct p3, e)',
  '__builtin_offsetof(struct p5, s)', '__builtin_offsetof(struct p6, f)',
  'sizeof(union u1)', 'sizeof(union u2)', '_Alignof(union u2)', 'sizeof(rec_t)', '__builtin_offsetof(rec_t, w)', '__builtin_offsetof(rec_t, arr[2])',
  '__builtin_offsetof(struct s2, d)', '__builtin_offsetof(struct s3, ld)', '__builtin_offsetof(struct s4, s)', '__builtin_offsetof(struct s5, c)',
  '__builtin_offsetof(struct s5, e)', '__builtin_offsetof(struct s7, z)', '__builtin_offsetof(struct s7, q)', '__builtin_offsetof(struct s8, c)',
  '__builtin_offsetof(struct s9, b)', '__builtin_offsetof(struct s10, p)', '__builtin_offsetof(struct s11, d)', '__builtin_offsetof(struct s12, c)',
  'sizeof(enum e1)', 'sizeof(long double)', '_Alignof(long double)', '_Alignof(double)', '_Alignof(long long)', 'sizeof(long)', 'sizeof(void *)',
];

const CONSTANT_PROBES = [
  '-1 < 0u', '-1L < 0u', '-1LL < 0u', '(unsigned char)300', '(signed char)200', '(_Bool)5', '(short)-40000', '1u << 31',
  '-7 / 2', '-7 % 2', '7 % -2', '0xffffffff', 'sizeof(0xffffffff)', 'sizeof(2147483648)', 'sizeof(4294967296)', 'sizeof(0x80000000)',
  "'\\377'", "'a' + 1", "L'x'", "'ab'", 'sizeof(char) + sizeof(short) + sizeof(int)', '~0u >> 1', '~0 >> 1', '(unsigned)-1 / 3',
  '1 ? 2u : -1', 'sizeof(1 ? 2u : -1L)', '(char)-1 == 255', 'sizeof("hello")', '(long)-1 > 0UL', 'sizeof(-1L + 1U)',
  '(int)3.9', '(int)-3.9', '(unsigned char)1.5e2 + 0', '10 > 3 && 2 < 1 || 4', '!0 + !5', 'sizeof(struct s1[4])', '(0 ? 1 : 2) * 3',
  'C + D', "sizeof(A)", '(unsigned short)65537 + 0', '0x7fffffffffffffffLL + 0', '-2147483647 - 1', '1ULL << 63', '((long long)1 << 40) >> 35',
  'sizeof(int[3][5])', '(char)0x1ff', '(unsigned)(char)-2', '5 & 3 | 8 ^ 2', '1000000 * 3 / 7', '(long)4294967296LL', 'sizeof(18446744073709551615)', 'sizeof(9223372036854775808)', 'sizeof(_Generic(1UL, unsigned long: (char)1, default: 2))', '_Generic((short)1, int: 1, short: 2, default: 3)',
];

test('struct layouts, sizeof and integer constant expressions match gcc (handwritten sample)', { skip: skipGcc }, () => {
  for (const dm of ['ILP32', 'LP64'] as const) compare(LAYOUTS, [...LAYOUT_PROBES, ...CONSTANT_PROBES], dm, 'layouts.c');
});

/** Integer constant expressions of a program that gcc can evaluate at file scope (no variables), as source text. */
function constantProbes(prog: CProgram, text: string): string[] {
  const out: string[] = [];
  const usesObjects = (e: Expr): boolean => {
    if (e.kind === 'Identifier') return e.decl.kind !== 'EnumConstant';
    if (e.kind === 'SizeOf' && e.argument.kind !== 'TypeName') return usesObjects(e.argument as Expr) || true;
    if (e.kind === 'StatementExpr' || e.kind === 'CompoundLiteral' || e.kind === 'StringLiteral' || e.kind === 'OffsetOf') return true;
    if (e.kind === 'Cast' || (e.kind === 'SizeOf' && e.argument.kind === 'TypeName')) return true; // may name block-scope types
    return childExprs(e).some(usesObjects);
  };
  const visit = (e: Expr): void => {
    if (e.kind !== 'ImplicitCast' && e.type.kind === 'integer' && !usesObjects(e) && evaluateInteger(prog, e) !== undefined && e.loc.end) {
      out.push(text.slice(e.loc.offset, e.loc.end.offset));
      return;
    }
    childExprs(e).forEach(visit);
  };
  const visitInit = (i: Initializer): void => (i.kind === 'InitList' ? i.items.forEach((it) => visitInit(it.value)) : visit(i));
  for (const d of prog.declarations) {
    if (d.kind === 'Declaration') d.declarators.forEach((dc) => dc.init && visitInit(dc.init));
    if (d.kind !== 'FunctionDefinition') continue;
    forEachStatement(d.body, (s) => {
      switch (s.kind) {
        case 'ExprStmt': visit(s.expr); break;
        case 'If': case 'While': case 'DoWhile': case 'Switch': visit(s.condition); break;
        case 'For': if (s.condition) visit(s.condition); if (s.step) visit(s.step); if (s.init && s.init.kind !== 'Declaration') visit(s.init); break;
        case 'Return': if (s.value) visit(s.value); break;
        case 'DeclStmt': s.declaration.declarators.forEach((dc) => dc.init && visitInit(dc.init)); break;
        default: break;
      }
    });
  }
  return [...new Set(out)];
}

test('sizeof of every struct and every integer constant expression of sample programs match gcc', { skip: sharedDir ? skipGcc : 'skipped: ../shared (benchmark tasks) is not present beside the repository' }, (t) => {
  const base = sharedPath('bench', 'sv-benchmarks');
  const rows = readFileSync(join(base, 'MANIFEST.csv'), 'utf8').trim().split('\n').slice(1).map((l) => l.split(','));
  const seen = new Set<string>();
  const tasks = rows.filter((r) => !seen.has(r[1]) && seen.add(r[1]) && !needsPreprocessor(join(base, r[1])));
  // A deterministic sample: every program that declares a struct, plus every 8th other one.
  let compared = 0;
  let probeCount = 0;
  tasks.forEach((r, i) => {
    const file = join(base, r[1]);
    const dm = r[5] as DataModel;
    const text = readFileSync(file, 'utf8');
    const prog = parseCProgram(text, file, { dataModel: dm });
    const tagged = prog.records.filter((x) => x.tag && x.fields && prog.scopeIndex && (prog.scopeIndex as { fileScope: { tags: Map<string, unknown> } }).fileScope.tags.has(x.tag));
    if (tagged.length === 0 && i % 8 !== 0) return;
    const probes = [
      ...tagged.flatMap((x) => {
        const t = `${x.union ? 'union' : 'struct'} ${x.tag}`;
        return [`sizeof(${t})`, `_Alignof(${t})`, ...(x.fields ?? []).filter((f) => f.name && f.bitWidth === undefined).map((f) => `__builtin_offsetof(${t}, ${f.name})`)];
      }),
      ...constantProbes(prog, text),
    ];
    if (probes.length === 0) return;
    compare(text, probes, dm, r[1]);
    compared++;
    probeCount += probes.length;
  });
  assert.ok(compared >= 10 && probeCount >= 100, `compared ${compared} programs, ${probeCount} values`);
  t.diagnostic(`compared ${probeCount} values of ${compared} programs with gcc`);
});

void readdirSync;

/**
 * Programs with preprocessing directives (`#include`, `#define`) are parsed
 * through cpp, so the probes, placed by offsets into the text, would not
 * land where the front end read them; they are left out of these samples.
 */
function needsPreprocessor(file: string): boolean {
  return /^\s*#\s*(include|define|if|ifdef|ifndef|pragma|undef)\b/m.test(readFileSync(file, 'utf8'));
}

/**
 * Every sub-expression of the statements directly inside blocks of a program
 * gets a static assertion that gcc's `__typeof__` of its text is the type we
 * computed; gcc compiles the instrumented program, so a single mismatch fails.
 */
function typeProbes(prog: CProgram, text: string): Array<{ offset: number; assertion: string }> {
  const out: Array<{ offset: number; assertion: string }> = [];
  let n = 0;
  const typeName = (e: Expr): string | undefined => {
    const s = typeToString(e.type);
    return /<anonymous|__va_list_tag|\(unsupported\)|\[\*\]/.test(s) || e.type.kind === 'function' ? undefined : s;
  };
  const exprs = (e: Expr, acc: Expr[]): void => {
    if (e.kind === 'StatementExpr' || e.kind === 'CompoundLiteral') return;
    if (e.kind !== 'ImplicitCast' && !(e.kind === 'Member' && e.field.bitWidth !== undefined)) acc.push(e);
    childExprs(e).forEach((c) => exprs(c, acc));
  };
  const block = (items: readonly BlockItem[]): void => {
    for (const item of items) {
      const roots: Expr[] = [];
      if (item.kind === 'ExprStmt') roots.push(item.expr);
      else if (item.kind === 'If' || item.kind === 'While' || item.kind === 'Switch') roots.push(item.condition);
      else if (item.kind === 'Return' && item.value) roots.push(item.value);
      else if (item.kind === 'For') {
        if (item.init && item.init.kind !== 'Declaration') roots.push(item.init);
      }
      const acc: Expr[] = [];
      roots.forEach((r) => exprs(r, acc));
      for (const e of acc) {
        const t = typeName(e);
        if (!t || !e.loc.end || e.loc.offset < 0) continue;
        const src = text.slice(e.loc.offset, e.loc.end.offset);
        out.push({ offset: item.loc.offset, assertion: `_Static_assert(__builtin_types_compatible_p(__typeof__((${src})), ${t}), "probe ${n++}: ${src.replace(/["\\\n]/g, ' ')} : ${t}");` });
      }
      forEachStatement(item, (s) => {
        if (s !== item && s.kind === 'Compound') block(s.items);
      });
      if (item.kind === 'Compound') {
        // forEachStatement above already descended into nested compounds via the item itself.
      }
    }
  };
  for (const d of prog.declarations) if (d.kind === 'FunctionDefinition') block(d.body.items);
  return out;
}

test('the type of every sub-expression of sample programs is the type gcc gives it', { skip: sharedDir ? skipGcc : 'skipped: ../shared (benchmark tasks) is not present beside the repository' }, (t) => {
  const base = sharedPath('bench', 'sv-benchmarks');
  const rows = readFileSync(join(base, 'MANIFEST.csv'), 'utf8').trim().split('\n').slice(1).map((l) => l.split(','));
  const seen = new Set<string>();
  const tasks = rows.filter((r) => !seen.has(r[1]) && seen.add(r[1]) && !needsPreprocessor(join(base, r[1])));
  let probes = 0;
  let programs = 0;
  tasks.forEach((r, i) => {
    if (i % 4 !== 0 || r[1].includes('/xcsp/')) return;
    const file = join(base, r[1]);
    const dm = r[5] as DataModel;
    const text = readFileSync(file, 'utf8');
    const prog = parseCProgram(text, file, { dataModel: dm });
    const ps = typeProbes(prog, text).sort((a, b) => b.offset - a.offset);
    let instrumented = text;
    for (const p of ps) instrumented = instrumented.slice(0, p.offset) + p.assertion + ' ' + instrumented.slice(p.offset);
    const f = join(work, `types-${i}.c`);
    writeFileSync(f, instrumented);
    const g = spawnSync('gcc', [dm === 'LP64' ? '-m64' : '-m32', '-fsyntax-only', '-w', f], { encoding: 'utf8' });
    const failures = (g.stderr ?? '').split('\n').filter((l) => /error/.test(l));
    assert.deepEqual(failures, [], `${r[1]}`);
    probes += ps.length;
    programs++;
  });
  assert.ok(probes > 500, `${probes} probes`);
  t.diagnostic(`checked the types of ${probes} expressions in ${programs} programs against gcc`);
});

const TYPED = `
struct bf { unsigned a:3; unsigned b:32; int c:5; unsigned long long d:40; long long e:10; _Bool f:1; long long g:32; unsigned long long h:32; };
enum en { NEG = -1, POS = 1 };
enum pos { P0, P1 };
int main(void) {
  struct bf s = { 1, 2, 3, 4, 5, 1, 6, 7 };
  enum en e = POS; enum pos q = P1;
  char c = 1; signed char sc = 2; unsigned char uc = 3; short sh = 4; unsigned short us = 5;
  int i = 6; unsigned u = 7; long l = 8; unsigned long ul = 9; long long ll = 10; unsigned long long ull = 11;
  float f = 1; double d = 2; long double ld = 3;
  int *p = &i; void *vp = p; const int *cp = p; int a[4]; int m[2][3];
  s.a + 1; s.b + 1; s.c + 1; (unsigned long long)s.d + 1; s.e + 1; s.f + 1; s.g + 1; s.h + 1; s.g * 2u; s.h << 1; s.h > s.g; -s.a; ~s.b; s.a << 1; s.a ? s.a : s.b;
  e + 1; q + 1; e < q; -q; q ? 1u : 2; e * 2L;
  c + c; sc * uc; sh - us; i + u; l + u; ul + ll; ll + u; ull - ll; l * ul; u >> sh; c << ll; ll >> c;
  f + i; d + f; ld * d; f * 2; i / 2.0f; (float)l + ul; u % 3; ~uc; !d; -us; +c;
  p + 1; p - p; 1 + p; a + 1; m[1]; m[1] + 1; &m[1]; &a; *a; p[2]; 2[p]; a[i] = 3;
  vp ? p : vp; i ? p : 0; i ? 0 : p; i ? cp : p; i ? c : sh; i ? u : l; i ? f : ll; (void)0, i;
  i += d; c += 1; uc <<= 2; us *= u; p += 2; l -= ul; f /= 2; i = c; c = i, f; sizeof a; sizeof(a) + 1; sizeof p;
  ++c; c++; --p; p--; ll++;
  struct pt { int x; long y; char name[8]; struct pt *next; } pt = { 0 }, *pp = &pt, pa[3];
  pt.x + pt.y; pp->name; pp->name[1]; pp->next->next; pa[1].name + 1; &pa[2]; *pp; (*pp).y * 2; pa->x; sizeof(pt);
  "abc"; "abc"[1]; 'a'; L'a'; u'a'; U'a'; 1.0f; 1.0; 1.0L; 07; 0x7fffffff; 0x80000000; 2147483648; 1ul; 1ll; 1ull;
  (char)i; (short)u; (unsigned char)ll; (long double)f; (int *)vp; (char *)p + 1; (const int *)p; (void *)0;
  i, p; (i, f); i ? pt : pt; i ? a : p; i ? "x" : "yy"; i > 0 ? 1 : 2.0; i ? (char)1 : (short)2; i ? 1 : (unsigned char)2;
  _Alignof(double); sizeof(int[3]); sizeof(pt.name); sizeof pp->name; (long)sizeof(long double);
  (i & 3) == 2; i != u; p == 0; p != vp; !p; p && i; f || d; i < l; ul > ll;
  __auto_type aa = l * 2u; __auto_type as = "str"; _Atomic(short) at = 1; _Atomic unsigned au = 2;
  aa + 1; as + 1; at + 1; au * at; aa;
  return (int)(s.a + e + c);
}
`;

test('expression types of handwritten programs (bit-fields, enums, promotions, pointers, conditionals, GNU C) match gcc', { skip: skipGcc }, () => {
  const gnu = readFileSync(join(repoRoot, 'test', 'c', 'fixtures', 'gnu-c.c'), 'utf8');
  // What preprocessed Linux, BusyBox, glibc and AWS C Common code is written in.
  const systems = readFileSync(join(repoRoot, 'test', 'c', 'fixtures', 'gnu-systems.c'), 'utf8');
  for (const [dm, source] of [['ILP32', TYPED], ['LP64', TYPED], ['ILP32', gnu], ['LP64', gnu], ['ILP32', systems], ['LP64', systems]] as const) {
    const prog = parseCProgram(source, 'typed.c', { dataModel: dm });
    const ps = typeProbes(prog, source).sort((a, b) => b.offset - a.offset);
    assert.ok(ps.length > 50, `${ps.length} probes`);
    let instrumented: string = source;
    for (const p of ps) instrumented = instrumented.slice(0, p.offset) + p.assertion + ' ' + instrumented.slice(p.offset);
    const f = join(work, `typed-${dm}.c`);
    writeFileSync(f, instrumented);
    const g = spawnSync('gcc', [dm === 'LP64' ? '-m64' : '-m32', '-fsyntax-only', '-w', f], { encoding: 'utf8' });
    const failures = (g.stderr ?? '').split('\n').filter((l) => /error/.test(l)).map((l) => l.replace(/^.*?error: /, ''));
    assert.deepEqual(failures, [], dm);
  }
});
