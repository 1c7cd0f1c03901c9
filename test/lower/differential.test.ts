// Differential test of the integer semantics: random C expressions are
// compiled with gcc for the data model under test (-m32 for ILP32, -m64 for
// LP64; -fwrapv so that signed overflow wraps as the lowering does outside
// no-overflow), lowered to IMP and run with the IMP interpreter; every value
// must agree. The expressions use every integer type, `long` and the
// pointer-sized types (size_t from sizeof, ptrdiff_t from pointer
// subtraction) included, divisors of either sign and shift amounts over the
// whole width of the shifted type.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCFile, parseCProgram } from '../../src/c/index.js';
import { repoRoot } from '../helpers/shared.js';
import { needTools, spawnProgram } from '../helpers/tools.js';
import type { DataModel } from '../../src/c/types.js';
import type { Expr, ImpProgram, Stmt } from '../../src/ivl/ast.js';
import { executeImp, type ImpValue } from '../../src/ivl/interp.js';
import { lowerProgram } from '../../src/lower/index.js';
import { rng } from '../../src/invariants/random.js';
import { passesOf } from '../../src/properties/index.js';

const skipGcc = needTools('gcc', 'gcc -m32');
const GCC_MODE: Record<DataModel, string> = { ILP32: '-m32', LP64: '-m64' };
const DATA_MODELS: readonly DataModel[] = ['ILP32', 'LP64'];


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
  ['long', 'l1', '(-2147483647L - 1)'],
  ['long', 'l2', '-123456L'],
  ['unsigned long', 'ul1', '4294967295UL'],
  ['unsigned long', 'ul2', '77UL'],
  ['long long', 'll1', '(-9223372036854775807LL - 1)'],
  ['long long', 'll2', '123456789012LL'],
  ['unsigned long long', 'ull1', '18446744073709551615ULL'],
  ['_Bool', 'b1', '1'],
  ['char', 'ch1', "'a'"],
];
/** Atoms of the pointer-sized types: ptrdiff_t (pointer subtraction) and size_t (sizeof). */
const POINTER_SIZED = ['(pa - pb)', '(pb - pa)', 'sizeof(l1)', 'sizeof(arr)', '(sizeof(ull1) - 9)'];
const TYPES = ['signed char', 'unsigned char', 'short', 'unsigned short', 'int', 'unsigned int', 'long', 'unsigned long', 'long long', 'unsigned long long', '_Bool', 'char'];
/** Types a shift is done in (promoted), so that the amount can span the whole width. */
const SHIFT_TYPES = ['int', 'unsigned int', 'long', 'unsigned long', 'long long', 'unsigned long long'];

function genExpr(r: () => number, depth: number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  if (depth === 0 || r() < 0.2) {
    const x = r();
    if (x < 0.65) return pick(VARS)[1];
    if (x < 0.75) return pick(POINTER_SIZED);
    return pick(['0', '1', '7', '-1', '-7', '255', '65536', '2147483647', '4294967295u', '-3LL', '0x80000000', '-2147483647L', '4294967295UL']);
  }
  const a = () => genExpr(r, depth - 1);
  switch (Math.floor(r() * 9)) {
    case 0:
    case 1:
      return `(${a()} ${pick(['+', '-', '*', '&', '|', '^'])} ${a()})`;
    case 2: {
      // Any divisor but 0 and -1 (no division by zero, no INT_MIN / -1, which traps).
      const d = a();
      return `(${a()} ${pick(['/', '%'])} ((${d}) == 0 || (${d}) == -1 ? -5 : (${d})))`;
    }
    case 3: {
      // The amount spans [0, width) of the type shifted.
      const t = pick(SHIFT_TYPES);
      return `(((${t})${a()}) ${pick(['<<', '>>'])} ((${a()}) & (sizeof(${t}) * 8 - 1)))`;
    }
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
  'l2 = l2 * l2 + ul2;',
  'ul1 += (unsigned long)i1 << 20;',
  'l1 = (long)ul1 / -3 + (pa - pb);',
  'ul2 = sizeof(arr) * (unsigned long)l2;',
];

/** The value of `R[i]` after the run (the map is indexed by pointer-width bit-vectors); undefined if never written. */
function recorded(R: ImpValue | undefined, i: number, pointerWidth: number): bigint | undefined {
  assert.ok(R && R.kind === 'map');
  const entry = [...R.entries.values()].find((x) => x.index.kind === 'bv' && x.index.width === pointerWidth && x.index.value === BigInt(i));
  if (!entry) return undefined;
  assert.equal(entry.value.kind, 'bv');
  return entry.value.kind === 'bv' ? BigInt.asIntN(64, entry.value.value) : undefined;
}

/** Builds and runs a program with gcc for `dm`; its standard output must have `lines` lines. */
function gccRun(dir: string, cFile: string, dm: DataModel, lines: number, extra: string[] = []): bigint[] {
  const exe = join(dir, `run-${dm}`);
  const cc = spawnSync('gcc', [GCC_MODE[dm], '-O0', '-fwrapv', '-w', '-o', exe, ...extra, cFile], { encoding: 'utf8' });
  assert.equal(cc.status, 0, cc.stderr.split('\n').filter((x) => /error/.test(x)).join('\n'));
  const run = spawnProgram(exe, [], dm === 'ILP32', { encoding: 'utf8' });
  assert.equal(run.status, 0, `${dm}: the gcc-built program exits with ${run.status} ${run.signal ?? ''} ${run.stderr}`);
  const out = run.stdout.trim().split('\n');
  assert.equal(out.length, lines, `${dm}: gcc printed ${out.length} values, not ${lines}`);
  return out.map((x) => BigInt(x));
}

test('random integer expressions agree with gcc -m32 (ILP32) and gcc -m64 (LP64)', { skip: skipGcc }, () => {
  const r = rng(Number(process.env.DIFF_SEED ?? 20261121));
  const exprs: string[] = [];
  for (let i = 0; i < Number(process.env.DIFF_COUNT ?? 200); i++) exprs.push(genExpr(r, 3));
  const decls = VARS.map(([t, n, v]) => `${t} ${n} = ${v};`).join('\n') + '\nint arr[9];\nint *pa = &arr[7];\nint *pb = &arr[2];';
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
    for (const dm of DATA_MODELS) {
      const expected = gccRun(dir, cFile, dm, results);
      const c = parseCProgram(core, 'd.c', { dataModel: dm });
      const l = lowerProgram(c, { passes: passesOf('unreach-call'), dataModel: dm });
      assert.equal(l.unsupported, undefined, l.unsupported?.construct);
      const res = executeImp(l.imp, 'main', {});
      assert.equal(res.status, 'returned', res.message);
      const R = res.state.get('R');
      for (let i = 0; i < results; i++) {
        const what = i < exprs.length ? exprs[i] : `${STATEMENTS[Math.floor((i - exprs.length) / VARS.length)]} -> ${VARS[(i - exprs.length) % VARS.length][1]}`;
        assert.equal(recorded(R, i, dm === 'LP64' ? 64 : 32), expected[i], `${dm}: ${what}`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('control flow and memory agree with gcc (loops, switch, goto, recursion, pointers, structs)', { skip: skipGcc }, () => {
  const file = join(repoRoot, 'test', 'fixtures', 'lower', 'flow.c');
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-diff-'));
  try {
    // Every slot of R starts as a marker that the program must overwrite (exit 3 if it does not).
    const harness = join(dir, 'h.c');
    writeFileSync(
      harness,
      '#include <stdio.h>\nextern long long R[]; extern int RN; int prog_main(void);\n' +
        'int main(void) { for (int i = 0; i < RN; i++) R[i] = 0x5eed5eed5eedLL; if (prog_main() != 0) return 2;\n' +
        '  for (int i = 0; i < RN; i++) { if (R[i] == 0x5eed5eed5eedLL) return 3; printf("%lld\\n", R[i]); } return 0; }\n',
    );
    for (const dm of DATA_MODELS) {
      const cc = spawnSync('gcc', [GCC_MODE[dm], '-O0', '-fwrapv', '-w', '-Dmain=prog_main', '-c', '-o', join(dir, 'p.o'), file], { encoding: 'utf8' });
      assert.equal(cc.status, 0, cc.stderr);
      const ld = spawnSync('gcc', [GCC_MODE[dm], '-o', join(dir, 'f'), join(dir, 'p.o'), harness], { encoding: 'utf8' });
      assert.equal(ld.status, 0, ld.stderr);
      const run = spawnProgram(join(dir, 'f'), [], dm === 'ILP32', { encoding: 'utf8' });
      assert.equal(run.status, 0, `${dm}: the fixture exits with ${run.status} (2: main failed, 3: a slot of R was never written)`);
      const expected = run.stdout.trim().split('\n').map((x) => BigInt(x));
      assert.equal(expected.length, 27, `${dm}: flow.c records 27 values`);
      const c = parseCFile(file, { dataModel: dm });
      const l = lowerProgram(c, { passes: passesOf('unreach-call'), dataModel: dm, recursionDepth: 8 });
      assert.equal(l.unsupported, undefined, l.unsupported?.construct);
      const res = executeImp(l.imp, 'main', {});
      assert.equal(res.status, 'returned', `${res.message} at ${res.loc?.line}:${res.loc?.column}`);
      const R = res.state.get('R');
      expected.forEach((want, i) => assert.equal(recorded(R, i, dm === 'LP64' ? 64 : 32), want, `${dm}: R[${i}]`));
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

const skipSanitizer = needTools('gcc', 'gcc -m32', 'gcc -fsanitize');

test('no-overflow goals fail exactly where gcc -fsanitize=signed-integer-overflow,shift reports (-m32 and -m64)', { skip: skipSanitizer }, () => {
  const r = rng(7);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const vars: Array<[string, string, string]> = [
    ['int', 'a1', '2147483647'], ['int', 'a2', '(-2147483647 - 1)'], ['int', 'a3', '-1'], ['int', 'a4', '46341'], ['int', 'a5', '0'], ['int', 'a6', '65536'], ['int', 'a7', '1'],
    ['long long', 'b1', '9223372036854775807LL'], ['long long', 'b2', '(-9223372036854775807LL - 1)'], ['long long', 'b3', '-1LL'], ['long long', 'b4', '3037000500LL'], ['long long', 'b5', '4294967296LL'],
    ['long', 'd1', '2147483647L'], ['long', 'd2', '(-2147483647L - 1)'], ['long', 'd3', '-3L'], ['long', 'd4', '65537L'],
    ['short', 'c1', '32767'], ['signed char', 'c2', '-128'], ['unsigned int', 'u1', '4294967295u'], ['unsigned long long', 'u2', '18446744073709551615ULL'], ['unsigned short', 'u3', '65535'],
    ['unsigned long', 'u4', '4294967295UL'],
  ];
  const lines: string[] = [];
  for (let i = 0; i < 400; i++) {
    const a = pick(vars)[1];
    const b = pick(vars)[1];
    const op = pick(['+', '-', '*', '/', '%', 'neg', '<<', '<<', '>>']);
    if (op === 'neg') lines.push(`  R = -${a};`);
    // Divisors are never zero (division by zero is not an overflow).
    else if (op === '/' || op === '%') lines.push(`  R = ${a} ${op} (${b} ? ${b} : 1);`);
    // Amounts anywhere in [0, width of the promoted left operand): an out-of-range amount is not an overflow.
    else if (op === '<<' || op === '>>') lines.push(`  R = ${a} ${op} (${b} & (sizeof(${a} + 0) * 8 - 1));`);
    else lines.push(`  R = ${a} ${op} ${b};`);
  }
  const header = vars.map(([t, n, v]) => `volatile ${t} ${n} = ${v};`).join('\n') + '\nvolatile long long R;\nint main(void) {\n';
  const text = `${header}${lines.join('\n')}\n  return 0;\n}\n`;
  const firstLine = header.split('\n').length;
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-ubsan-'));
  try {
    const cFile = join(dir, 'o.c');
    writeFileSync(cFile, text);
    for (const dm of DATA_MODELS) {
      const exe = join(dir, `o-${dm}`);
      const cc = spawnSync('gcc', [GCC_MODE[dm], '-O0', '-w', '-fsanitize=signed-integer-overflow,shift', '-fsanitize-recover=all', '-o', exe, cFile], { encoding: 'utf8' });
      assert.equal(cc.status, 0, cc.stderr);
      const run = spawnProgram(exe, [], dm === 'ILP32', { encoding: 'utf8' });
      assert.equal(run.status, 0, `${dm}: exit ${run.status} ${run.signal ?? ''}`);
      assert.doesNotMatch(run.stderr, /shift exponent/, 'the generator keeps shift amounts in range');
      const reports = [...run.stderr.matchAll(/o\.c:(\d+):\d+: runtime error: (signed integer overflow|negation of|division of|left shift of)/g)];
      const expected = new Set(reports.map((m) => Number(m[1])));
      assert.ok(expected.size > 30, `${dm}: only ${expected.size} overflows`);
      assert.ok(reports.filter((m) => m[2] === 'left shift of').length >= 10, `${dm}: too few left-shift overflows to test their check`);
      const c = parseCProgram(text, 'o.c', { dataModel: dm });
      const l = lowerProgram(c, { passes: passesOf('no-overflow'), dataModel: dm });
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
