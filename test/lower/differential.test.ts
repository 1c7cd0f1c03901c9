// Differential test of the integer semantics: random C expressions are
// compiled with gcc (x86-64, -fwrapv so that signed overflow wraps as the
// lowering does outside no-overflow) and lowered to IMP and run with the IMP
// interpreter; every value must agree. Expressions avoid `long` so that the
// ILP32 lowering must agree with an LP64 gcc as well.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCFile, parseCProgram } from '../../src/c/index.js';
import { repoRoot } from '../helpers/shared.js';
import type { DataModel } from '../../src/c/types.js';
import type { Expr, ImpProgram, Stmt } from '../../src/ivl/ast.js';
import { executeImp, type ImpValue } from '../../src/ivl/interp.js';
import { lowerProgram } from '../../src/lower/index.js';

const gcc = spawnSync('gcc', ['--version']).status === 0;

/** A small deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const VARS: Array<[string, string, string]> = [
  ['signed char', 'c1', '-100'],
  ['unsigned char', 'uc1', '200'],
  ['short', 's1', '-30000'],
  ['unsigned short', 'us1', '60000'],
  ['int', 'i1', '-7'],
  ['int', 'i2', '2147483647'],
  ['int', 'i3', '(-2147483647 - 1)'],
  ['unsigned int', 'u1', '4000000000u'],
  ['unsigned int', 'u2', '3u'],
  ['long long', 'll1', '(-9223372036854775807LL - 1)'],
  ['long long', 'll2', '123456789012LL'],
  ['unsigned long long', 'ull1', '18446744073709551615ULL'],
  ['_Bool', 'b1', '1'],
  ['char', 'ch1', "'a'"],
];
const TYPES = ['signed char', 'unsigned char', 'short', 'unsigned short', 'int', 'unsigned int', 'long long', 'unsigned long long', '_Bool', 'char'];

function genExpr(r: () => number, depth: number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  if (depth === 0 || r() < 0.2) {
    return r() < 0.75 ? pick(VARS)[1] : pick(['0', '1', '7', '-1', '255', '65536', '2147483647', '4294967295u', '-3LL', '0x80000000']);
  }
  const a = () => genExpr(r, depth - 1);
  switch (Math.floor(r() * 9)) {
    case 0:
    case 1:
      return `(${a()} ${pick(['+', '-', '*', '&', '|', '^'])} ${a()})`;
    case 2:
      // Divisors in 1..8: no division by zero, no INT_MIN / -1.
      return `(${a()} ${pick(['/', '%'])} ((${a()} & 7) + 1))`;
    case 3:
      return `(${a()} ${pick(['<<', '>>'])} (${a()} & 7))`;
    case 4:
      return `(${a()} ${pick(['<', '<=', '>', '>=', '==', '!=', '&&', '||'])} ${a()})`;
    case 5:
      return `(${pick(['-', '~', '!'])} ${a()})`;
    case 6:
    case 7:
      return `((${pick(TYPES)})${a()})`;
    default:
      return `(${a()} ? ${a()} : ${a()})`;
  }
}

/** Statements with side effects on narrow types, recorded after each step. */
const STATEMENTS = [
  'c1 += 100;',
  'uc1 -= 300;',
  's1 *= 1000;',
  'us1 <<= 3;',
  'i1 = i1++ + ++u2;',
  'u1 >>= 31;',
  'ch1 = ch1 * 3;',
  'll2 = ll2 * ll2 * ll2;',
  'b1 = b1 + 1;',
  'i2 = i2 / -2 % 5;',
  'uc1 = (uc1 > 10) ? uc1-- : --uc1;',
  'i3 = (i3, i1 += 5, i1 * 2);',
];

test('random integer expressions agree with gcc (ILP32 and LP64 lowering)', { skip: gcc ? false : 'gcc is not installed' }, () => {
  const r = rng(Number(process.env.DIFF_SEED ?? 20261121));
  const exprs: string[] = [];
  for (let i = 0; i < Number(process.env.DIFF_COUNT ?? 150); i++) exprs.push(genExpr(r, 3));
  const decls = VARS.map(([t, n, v]) => `${t} ${n} = ${v};`).join('\n');
  const results = exprs.length + STATEMENTS.length * VARS.length;
  const body: string[] = [];
  exprs.forEach((e, i) => body.push(`  R[${i}] = (long long)(${e});`));
  let k = exprs.length;
  for (const s of STATEMENTS) {
    body.push(`  ${s}`);
    for (const [, n] of VARS) body.push(`  R[${k++}] = (long long)${n};`);
  }
  const core = `${decls}\nlong long R[${results}];\nint main(void) {\n${body.join('\n')}\n  return 0;\n}\n`;
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-diff-'));
  try {
    const cFile = join(dir, 'd.c');
    writeFileSync(cFile, `#include <stdio.h>\n${core.replace(/return 0;\n}\n$/, '')}  for (int i = 0; i < ${results}; i++) printf("%lld\\n", R[i]);\n  return 0;\n}\n`);
    const cc = spawnSync('gcc', ['-O0', '-fwrapv', '-w', '-o', join(dir, 'd'), cFile], { encoding: 'utf8' });
    assert.equal(cc.status, 0, cc.stderr.split('\n').filter((x) => /error/.test(x)).join('\n'));
    const run = spawnSync(join(dir, 'd'), { encoding: 'utf8' });
    const expected = run.stdout.trim().split('\n').map((x) => BigInt(x));
    assert.equal(expected.length, results);
    for (const dm of ['ILP32', 'LP64'] as DataModel[]) {
      const c = parseCProgram(core, 'd.c', { dataModel: dm });
      const l = lowerProgram(c, { property: 'unreach-call', dataModel: dm });
      assert.equal(l.unsupported, undefined, l.unsupported?.construct);
      const res = executeImp(l.imp, 'main', {});
      assert.equal(res.status, 'returned', res.message);
      const R = res.state.get('R');
      assert.ok(R && R.kind === 'map');
      const pw = dm === 'LP64' ? 64 : 32;
      for (let i = 0; i < results; i++) {
        const entry: { index: ImpValue; value: ImpValue } | undefined = [...R.entries.values()].find((x) => x.index.kind === 'bv' && x.index.width === pw && x.index.value === BigInt(i));
        const got: ImpValue = entry ? entry.value : R.default;
        assert.equal(got.kind, 'bv');
        const value: bigint = got.kind === 'bv' ? BigInt.asIntN(64, got.value) : 0n;
        const what = i < exprs.length ? exprs[i] : `${STATEMENTS[Math.floor((i - exprs.length) / VARS.length)]} -> ${VARS[(i - exprs.length) % VARS.length][1]}`;
        assert.equal(value, expected[i], `${dm}: ${what}`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('control flow and memory agree with gcc (loops, switch, goto, recursion, pointers, structs)', { skip: gcc ? false : 'gcc is not installed' }, () => {
  const file = join(repoRoot, 'test', 'fixtures', 'lower', 'flow.c');
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-diff-'));
  try {
    const harness = join(dir, 'h.c');
    writeFileSync(harness, '#include <stdio.h>\nextern long long R[]; extern int RN; int prog_main(void);\nint main(void) { prog_main(); for (int i = 0; i < RN; i++) printf("%lld\\n", R[i]); return 0; }\n');
    const cc = spawnSync('gcc', ['-O0', '-fwrapv', '-w', '-Dmain=prog_main', '-c', '-o', join(dir, 'p.o'), file], { encoding: 'utf8' });
    assert.equal(cc.status, 0, cc.stderr);
    const ld = spawnSync('gcc', ['-o', join(dir, 'f'), join(dir, 'p.o'), harness], { encoding: 'utf8' });
    assert.equal(ld.status, 0, ld.stderr);
    const expected = spawnSync(join(dir, 'f'), { encoding: 'utf8' }).stdout.trim().split('\n').map((x) => BigInt(x));
    for (const dm of ['ILP32', 'LP64'] as DataModel[]) {
      const c = parseCFile(file, { dataModel: dm });
      const l = lowerProgram(c, { property: 'unreach-call', dataModel: dm, recursionDepth: 8 });
      assert.equal(l.unsupported, undefined, l.unsupported?.construct);
      const res = executeImp(l.imp, 'main', {});
      assert.equal(res.status, 'returned', `${res.message} at ${res.loc?.line}:${res.loc?.column}`);
      const R = res.state.get('R');
      assert.ok(R && R.kind === 'map');
      const pw = dm === 'LP64' ? 64 : 32;
      expected.forEach((want, i) => {
        const entry: { index: ImpValue; value: ImpValue } | undefined = [...R.entries.values()].find(
          (x) => x.index.kind === 'bv' && x.index.width === pw && x.index.value === BigInt(i),
        );
        const got: ImpValue = entry ? entry.value : R.default;
        assert.equal(got.kind === 'bv' ? BigInt.asIntN(64, got.value) : undefined, want, `${dm}: R[${i}]`);
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Replaces every assert by "record its line in the map `$fails` and go on". */
function recordFailures(stmts: readonly Stmt[]): Stmt[] {
  return stmts.map((s): Stmt => {
    switch (s.kind) {
      case 'assert': {
        const loc = s.loc;
        const fails: Expr = { kind: 'var', name: '$fails', loc };
        const mark: Stmt = {
          kind: 'assign',
          target: '$fails',
          value: { kind: 'store', map: fails, index: { kind: 'bv_lit', value: BigInt(loc.line), width: 32, loc }, value: { kind: 'bool_lit', value: true, loc }, loc },
          loc,
        };
        return { kind: 'if', cond: { kind: 'unary', op: '!', arg: s.cond, loc }, then: [mark], else: [], loc };
      }
      case 'if':
        return { ...s, then: recordFailures(s.then), else: recordFailures(s.else) };
      case 'while':
        return { ...s, body: recordFailures(s.body) };
      case 'block':
        return { ...s, body: recordFailures(s.body) };
      default:
        return s;
    }
  });
}

const sanitizer = gcc && (() => {
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-ubsan-'));
  try {
    writeFileSync(join(dir, 'u.c'), 'int main(void) { return 0; }\n');
    return spawnSync('gcc', ['-fsanitize=signed-integer-overflow', '-o', join(dir, 'u'), join(dir, 'u.c')]).status === 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
})();

test('no-overflow goals fail exactly where gcc -fsanitize=signed-integer-overflow reports', { skip: sanitizer ? false : 'gcc with -fsanitize is not available' }, () => {
  const r = rng(7);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const vars: Array<[string, string, string]> = [
    ['int', 'a1', '2147483647'], ['int', 'a2', '(-2147483647 - 1)'], ['int', 'a3', '-1'], ['int', 'a4', '46341'], ['int', 'a5', '0'], ['int', 'a6', '65536'],
    ['long long', 'b1', '9223372036854775807LL'], ['long long', 'b2', '(-9223372036854775807LL - 1)'], ['long long', 'b3', '-1LL'], ['long long', 'b4', '3037000500LL'], ['long long', 'b5', '4294967296LL'],
    ['short', 'c1', '32767'], ['signed char', 'c2', '-128'], ['unsigned int', 'u1', '4294967295u'], ['unsigned long long', 'u2', '18446744073709551615ULL'], ['unsigned short', 'u3', '65535'],
  ];
  const lines: string[] = [];
  for (let i = 0; i < 300; i++) {
    const a = pick(vars)[1];
    const b = pick(vars)[1];
    const op = pick(['+', '-', '*', '/', '%', 'neg']);
    if (op === 'neg') lines.push(`  R = -${a};`);
    // Divisors are never zero (division by zero is not an overflow).
    else if (op === '/' || op === '%') lines.push(`  R = ${a} ${op} (${b} ? ${b} : 1);`);
    else lines.push(`  R = ${a} ${op} ${b};`);
  }
  const header = vars.map(([t, n, v]) => `volatile ${t} ${n} = ${v};`).join('\n') + '\nvolatile long long R;\nint main(void) {\n';
  const text = `${header}${lines.join('\n')}\n  return 0;\n}\n`;
  const firstLine = header.split('\n').length;
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-ubsan-'));
  try {
    const cFile = join(dir, 'o.c');
    writeFileSync(cFile, text);
    const cc = spawnSync('gcc', ['-O0', '-w', '-fsanitize=signed-integer-overflow', '-fsanitize-recover=all', '-o', join(dir, 'o'), cFile], { encoding: 'utf8' });
    assert.equal(cc.status, 0, cc.stderr);
    const run = spawnSync(join(dir, 'o'), { encoding: 'utf8' });
    const expected = new Set([...run.stderr.matchAll(/o\.c:(\d+):\d+: runtime error: (signed integer overflow|negation of|division of)/g)].map((m) => Number(m[1])));
    assert.ok(expected.size > 15, `only ${expected.size} overflows`);
    for (const dm of ['ILP32', 'LP64'] as DataModel[]) {
      const c = parseCProgram(text, 'o.c', { dataModel: dm });
      const l = lowerProgram(c, { property: 'no-overflow', dataModel: dm });
      assert.equal(l.unsupported, undefined, l.unsupported?.construct);
      const main = l.imp.procedures[0];
      const loc = main.loc;
      const imp: ImpProgram = {
        ...l.imp,
        procedures: [
          {
            ...main,
            locals: [...main.locals, { kind: 'var_decl', name: '$fails', type: { kind: 'map', key: { kind: 'bv', width: 32 }, value: { kind: 'bool' } }, loc }],
            body: recordFailures(main.body!),
          },
        ],
      };
      const res = executeImp(imp, 'main', {});
      assert.equal(res.status, 'returned', res.message);
      const fails = res.state.get('$fails');
      assert.ok(fails && fails.kind === 'map');
      const got = new Set([...fails.entries.values()].filter((e) => e.value.kind === 'bool' && e.value.value).map((e) => Number(e.index.kind === 'bv' ? e.index.value : -1)));
      const diff = [...new Set([...expected, ...got])].filter((x) => expected.has(x) !== got.has(x)).sort((x, y) => x - y);
      assert.deepEqual(
        diff.map((x) => `${x}: ${lines[x - firstLine]} (gcc: ${expected.has(x)})`),
        [],
        dm,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
