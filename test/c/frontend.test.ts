import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Command } from 'commander';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  parseCProgram, parseCFile, parseExpressionAt, listLoops, forEachStatement, listProgramLocations, makeExpressionChecker, evaluateInteger,
  type CProgram, type Expr, type FunctionDefinition, type Stmt, type BlockItem,
} from '../../src/c/index.js';
import { TarsierError } from '../../src/common/errors.js';
import { registerParse } from '../../src/cli/commands/parse.js';
import { describeFailure } from '../../src/cli/command.js';
import { repoRoot } from '../helpers/shared.js';
import { needTools } from '../helpers/tools.js';

const ilp = { dataModel: 'ILP32' as const };
const lp = { dataModel: 'LP64' as const };

function fn(p: CProgram, name: string): FunctionDefinition {
  const d = p.declarations.find((x) => x.kind === 'FunctionDefinition' && x.decl.name === name);
  assert.ok(d && d.kind === 'FunctionDefinition', `function ${name}`);
  return d;
}

function firstExpr(p: CProgram, name: string, index = 0): Expr {
  const items = fn(p, name).body.items.filter((i): i is Extract<BlockItem, { kind: 'ExprStmt' }> => i.kind === 'ExprStmt');
  return items[index].expr;
}

function errorOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof TarsierError, `a TarsierError, not ${String(e)}`);
    return e.format();
  }
  assert.fail('expected an error');
}

const LOOPS = `int g;
int main(void) {
  int i = 0;
\tfor (i = 0; i < 3; i++) {
    while (g) g--;
  }
  L: do { i--; } while (i > 0);
  if (i) for (;;) break;
  return ({ int k = 0; while (k < 2) k++; k; });
}
int other(int n) {   while(n) { do n--; while (0); } return n; }
`;

test('loop keyword positions are exact (tabs, labels, nested, statement expressions)', () => {
  const p = parseCProgram(LOOPS, 'loops.c', ilp);
  const loops = listLoops(p).map((l) => `${l.loc.file}:${l.loc.line}:${l.loc.column} ${l.keyword} ${l.function}`);
  assert.deepEqual(loops, [
    'loops.c:4:2 for main',
    'loops.c:5:5 while main',
    'loops.c:7:6 do main',
    'loops.c:8:10 for main',
    'loops.c:9:24 while main',
    'loops.c:11:22 while other',
    'loops.c:11:33 do other',
  ]);
  // A byte order mark does not count as a column (as for gcc).
  assert.equal(listLoops(parseCProgram('\ufeffint main() { while (1) {} }', 'b.c', ilp))[0].loc.column, 14);
  const first = listLoops(p)[0];
  assert.equal(first.loc.offset, LOOPS.indexOf('for'));
  assert.equal(first.loc.end?.column, 5);
});

test('line markers map locations back to the original file', () => {
  const text = [
    '# 1 "prog.c"',
    '# 1 "<built-in>"',
    'typedef unsigned long size_t;',
    '# 40 "prog.c"',
    'int main() {',
    '  int x = 0;',
    '  while (x < 10) x++;',
    '  return y;',
    '}',
  ].join('\n');
  const msg = errorOf(() => parseCProgram(text, 'prog.i', ilp));
  assert.equal(msg, "prog.c:43:10: error: 'y' undeclared");
  const ok = parseCProgram(text.replace('return y', 'return x'), 'prog.i', ilp);
  const loop = listLoops(ok)[0];
  assert.equal(`${loop.loc.file}:${loop.loc.line}:${loop.loc.column}`, 'prog.c:42:3');
});

const hasCpp = needTools('cpp');

test('a .c file with directives goes through cpp; locations map back with offsets into the original', { skip: hasCpp }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-cpp-'));
  const file = join(dir, 'def.c');
  const text = '#define N 10\n/* comment */\nint a[N];\nint main() {\n  for (int i = 0; i < N; i++)\n    while (a[i] < N) a[i]++;\n  return 0;\n}\n';
  writeFileSync(file, text);
  for (const dataModel of ['ILP32', 'LP64'] as const) {
    const p = parseCFile(file, { dataModel });
    const loops = listLoops(p);
    assert.deepEqual(loops.map((l) => [l.loc.file, l.loc.line, l.loc.column, l.keyword]), [[file, 5, 3, 'for'], [file, 6, 5, 'while']]);
    assert.equal(loops[0].loc.offset, text.indexOf('for'));
    const a = p.globals[0];
    assert.ok(a.type.kind === 'array' && a.type.length === 10);
  }
  writeFileSync(file, '#include "missing.h"\nint main() { return 0; }\n');
  assert.match(errorOf(() => parseCFile(file, ilp)), /^.*def\.c:1:10: error: preprocessing failed: missing\.h: No such file or directory$/);
});

test('syntax and type errors name the position', () => {
  assert.equal(errorOf(() => parseCProgram('int main() {\n  int x = 1\n  return x;\n}\n', 'e.c', ilp)), "e.c:3:3: error: expected ';' after declaration before 'return'");
  assert.equal(errorOf(() => parseCProgram('struct s { int a; };\nint main() { struct s v; return v.b; }\n', 'e.c', ilp)), "e.c:2:35: error: 'struct s' has no member named 'b'");
  assert.equal(errorOf(() => parseCProgram('int main() { int a[2]; a = 0; return 0; }', 'e.c', ilp)), 'e.c:1:26: error: lvalue required as left operand of assignment');
  assert.match(errorOf(() => parseCProgram('int main() { _Complex double z; }', 'e.c', ilp)), /^e\.c:1:14: error: unsupported construct: _Complex types$/);
  assert.equal(errorOf(() => parseCProgram('#include <stdio.h>\nint main() {}', 'e.c', ilp)).split(': error: ')[0], 'e.c:1:1');
  assert.equal(errorOf(() => parseCProgram('int main() { goto out; }', 'e.c', ilp)), "e.c:1:19: error: label 'out' used but not defined");
  assert.equal(errorOf(() => parseCProgram('int main() {\n  foo x;\n}', 'e.c', ilp)), "e.c:2:3: error: unknown type name 'foo'");
  assert.equal(errorOf(() => parseCProgram('bar y;', 'e.c', ilp)), "e.c:1:1: error: unknown type name 'bar'");
  assert.equal(errorOf(() => parseCProgram('__int128 v;', 'e.c', ilp)), "e.c:1:1: error: '__int128' is not supported on this target (ILP32)");
  assert.ok(parseCProgram('__int128 v; unsigned __int128 w = (unsigned __int128)1 << 100;', 'e.c', lp));
  assert.equal(errorOf(() => parseCProgram('int main() { char *s = "abc; }', 'e.c', ilp)), 'e.c:1:24: error: missing terminating " character');
  // A control character is named as gcc names it, never printed raw.
  assert.equal(errorOf(() => parseCProgram('int main() { int x = 1;\x01 return x; }', 'e.c', ilp)), "e.c:1:24: error: stray '\\1' in program");
  assert.equal(errorOf(() => parseCProgram('int main() { @ }', 'e.c', ilp)), "e.c:1:14: error: stray '@' in program");
});

test('identifiers that are names of Object.prototype members are ordinary identifiers', () => {
  const p = parseCProgram('int constructor = 1;\nint toString(int hasOwnProperty) { return hasOwnProperty + constructor; }\n', 'o.c', ilp);
  assert.deepEqual(p.functions.map((f) => f.name), ['toString']);
  assert.deepEqual(p.globals.map((g) => g.name), ['constructor']);
});

test('typedef-aware disambiguation: (T)*x, T * x, and shadowing by a variable', () => {
  const p = parseCProgram(
    'typedef int T;\nint f(int *x) { T * y = x; int r = (T)*x; { int T = 2; r = (T)*r; } return r + *y; }\n',
    't.c', ilp,
  );
  const items = fn(p, 'f').body.items;
  assert.equal(items[0].kind, 'DeclStmt');
  const inner = items[2];
  assert.ok(inner.kind === 'Compound');
  const assign = inner.items[1];
  assert.ok(assign.kind === 'ExprStmt' && assign.expr.kind === 'Assign');
  // With T a variable, (T)*x is a multiplication.
  const v = assign.expr.value;
  assert.equal(v.kind, 'Binary');
  assert.equal(v.kind === 'Binary' && v.op, '*');
});

test('usual arithmetic conversions and promotions per data model', () => {
  const src = 'int main() { long l = 1; unsigned u = 2; unsigned char c = 3; l + u; c + c; -c; 1 ? l : u; return 0; }';
  const a = parseCProgram(src, 'c.c', ilp);
  const b = parseCProgram(src, 'c.c', lp);
  assert.equal(typeString(firstExpr(a, 'main', 0)), 'unsigned long');
  assert.equal(typeString(firstExpr(b, 'main', 0)), 'long');
  const cc = firstExpr(a, 'main', 1);
  assert.ok(cc.kind === 'Binary' && cc.left.kind === 'ImplicitCast' && cc.left.castKind === 'IntegralCast');
  assert.equal(typeString(cc), 'int');
  assert.equal(typeString(firstExpr(a, 'main', 2)), 'int');
  assert.equal(typeString(firstExpr(b, 'main', 3)), 'long');
});

function typeString(e: Expr): string {
  const t = e.type;
  return t.kind === 'integer' ? ({ int: 'int', long: 'long', ulong: 'unsigned long', uint: 'unsigned int' } as Record<string, string>)[t.name] ?? t.name : t.kind;
}

test('built-ins are recognised whether declared, defined or implicit', () => {
  const p = parseCProgram(
    'extern unsigned int __VERIFIER_nondet_uint(void);\nvoid reach_error() {}\nint main() { unsigned x = __VERIFIER_nondet_uint(); __VERIFIER_assume(x > 1); long y = __VERIFIER_nondet_long(); if (!x) reach_error(); return 0; }\n',
    'b.c', ilp,
  );
  const byName = new Map(p.functions.map((f) => [f.name, f.builtin?.kind]));
  assert.equal(byName.get('__VERIFIER_nondet_uint'), 'nondet');
  assert.equal(byName.get('reach_error'), 'reach_error');
  assert.equal(byName.get('__VERIFIER_assume'), 'assume');
  const nl = p.functions.find((f) => f.name === '__VERIFIER_nondet_long');
  assert.ok(nl?.builtin?.kind === 'nondet' && nl.builtin.type.kind === 'integer' && nl.builtin.type.name === 'long');
});

test('initializers: designators, brace elision, and array length from the initializer', () => {
  const p = parseCProgram(
    'struct pt { int x, y; };\nstruct pt a[] = { 1, 2, [3] = { .y = 7 }, 5 };\nint m[2][3] = { 1, 2, 3, 4 };\nchar s[] = "ab";\n',
    'i.c', ilp,
  );
  const a = p.globals.find((g) => g.name === 'a')!;
  assert.ok(a.type.kind === 'array' && a.type.length === 5);
  assert.ok(a.init?.kind === 'InitList');
  assert.deepEqual(a.init.items.map((i) => i.target), [0, 3, 4]);
  const third = a.init.items[1].value;
  assert.ok(third.kind === 'InitList' && third.items.length === 1 && third.items[0].target === 1);
  const m = p.globals.find((g) => g.name === 'm')!;
  assert.ok(m.init?.kind === 'InitList');
  const rows = m.init.items.map((r) => (r.value.kind === 'InitList' ? r.value.items.map((c) => (c.value.kind === 'IntegerLiteral' ? Number(c.value.value) : -1)) : []));
  assert.deepEqual(rows, [[1, 2, 3], [4]]);
  const s = p.globals.find((g) => g.name === 's')!;
  assert.ok(s.type.kind === 'array' && s.type.length === 3);
  const q = parseCProgram('char b[] = { "xyz" };\nunion u { int i; char c[4]; } v = { .c = "ab" };\nstruct w { int a[3]; int b; } w = { 1, 2, 3, 4 };\n', 'q.c', ilp);
  const b = q.globals.find((g) => g.name === 'b')!;
  assert.ok(b.type.kind === 'array' && b.type.length === 4 && b.init?.kind === 'StringLiteral');
  const v = q.globals.find((g) => g.name === 'v')!;
  assert.ok(v.init?.kind === 'InitList' && v.init.items.length === 1 && v.init.items[0].target === 1);
  const w = q.globals.find((g) => g.name === 'w')!;
  assert.ok(w.init?.kind === 'InitList');
  assert.deepEqual(w.init.items.map((i) => [i.target, i.value.kind]), [[0, 'InitList'], [1, 'IntegerLiteral']]);
});

test('identifiers resolve to one declaration object across redeclarations and uses', () => {
  const p = parseCProgram('int g;\nextern int g;\nint g = 3;\nint main() { int g2 = g; { int g = 1; g2 += g; } return g2; }\n', 'r.c', ilp);
  assert.equal(p.globals.filter((x) => x.name === 'g').length, 1);
  const decl = p.globals.find((x) => x.name === 'g')!;
  const body = fn(p, 'main').body.items;
  const first = body[0];
  assert.ok(first.kind === 'DeclStmt');
  const init = first.declaration.declarators[0].init;
  assert.ok(init && init.kind === 'Identifier' && init.decl === decl);
  const inner = body[1];
  assert.ok(inner.kind === 'Compound' && inner.items[1].kind === 'ExprStmt');
  const use = (inner.items[1] as { expr: Expr }).expr;
  assert.ok(use.kind === 'Assign' && use.value.kind === 'Identifier' && use.value.decl !== decl);
});

const SCOPES = `int g;
int main(void) {
  unsigned int x = 1024;
  int y = 0;
  while (x < 4000000000U) {
    int t = 1;
    x += t;
  }
  for (int i = 0; i < 3; i++) y++;
  return 0;
}
`;

test('parseExpressionAt: witness invariants typed in the scope at their location', () => {
  const p = parseCProgram(SCOPES, 's.c', ilp);
  const ok = parseExpressionAt(p, { line: 5, column: 3 }, '(x >= 1024U) && (x <= 4294967295U) && (y == x)');
  assert.ok('expr' in ok, 'error' in ok ? ok.error : '');
  assert.equal(ok.expr.type.kind, 'integer');
  // y == x compares in unsigned int: y is converted.
  const e = ok.expr;
  assert.ok(e.kind === 'Binary' && e.right.kind === 'Binary' && e.right.left.kind === 'ImplicitCast');
  // t is declared inside the loop body, not in scope at the loop.
  const out = parseExpressionAt(p, { line: 5, column: 3 }, 't > 0');
  assert.deepEqual(out, { error: "'t' undeclared (at column 1 of the expression)", undeclared: 't' });
  assert.ok('expr' in parseExpressionAt(p, { line: 7, column: 5 }, 't > 0 && x > 0'));
  // A declaration is not in scope at its own start.
  assert.ok('error' in parseExpressionAt(p, { line: 4, column: 3 }, 'y == 0'));
  assert.ok('expr' in parseExpressionAt(p, { line: 4, column: 3 }, 'x == 1024'));
  // The for loop's own declaration is visible at its keyword.
  assert.ok('expr' in parseExpressionAt(p, { line: 9, column: 3 }, 'i <= 3'));
  assert.ok('error' in parseExpressionAt(p, { line: 10, column: 3 }, 'i <= 3'));
  // Syntax errors and non-scalar results.
  assert.match((parseExpressionAt(p, { line: 5, column: 3 }, 'x >= ') as { error: string }).error, /expected expression/);
  assert.ok('error' in parseExpressionAt(p, { line: 5, column: 3 }, 'x y'));
  // A global declared after the location is not visible there.
  const late = parseCProgram('int f(void) {\n  return 0;\n}\nint later;\n', 'late.c', ilp);
  assert.ok('error' in parseExpressionAt(late, { line: 2, column: 3 }, 'later == 0'));
  assert.ok('expr' in parseExpressionAt(late, { line: 0, column: 0 }, 'later == 0'));
  // Without a location only file-scope names are visible.
  assert.ok('expr' in parseExpressionAt(p, { line: 0, column: 0 }, 'g == 0'));
  assert.ok('error' in parseExpressionAt(p, { line: 0, column: 0 }, 'x == 0'));
  const check = makeExpressionChecker(p);
  const at = (line: number, column: number) => ({ location: { file: 's.c', line, column }, format: 'c_expression' });
  assert.equal(check('x > 0', at(5, 3)), undefined);
  assert.equal(check('t > 0', at(5, 3)), "undeclared-name: 't' is not in scope at line 5, column 3 (declared later or in a block that does not enclose the location)");
  // Declared nowhere in the function: left to the linter's token-level check.
  assert.equal(check('z > 0', at(5, 3)), undefined);
  assert.equal(check('x.a > 0', at(5, 3)), "expr-type: request for member 'a' in something not a structure or union (at column 2 of the expression)");
  assert.equal(check('x >', at(5, 3)), "expected expression before end of input (at column 4 of the expression)");
  assert.equal(check('f(x)', at(5, 3)), undefined);
  assert.equal(p.functions.some((f) => f.name === 'f'), false);
  assert.equal(check('gh == x', { ...at(5, 3), ghostVariables: ['gh'] }), undefined);
  assert.equal(check('\\old(x) > 0', { ...at(5, 3), format: 'acsl_expression' }), undefined);
});

test('integer constant evaluation folds enum values, sizeof and casts', () => {
  const p = parseCProgram('enum e { A = 3, B };\nint main() { (unsigned char)(B * 100); sizeof(long) * 2; -1 < 0u; return 0; }\n', 'k.c', lp);
  assert.equal(evaluateInteger(p, firstExpr(p, 'main', 0)), 144n);
  assert.equal(evaluateInteger(p, firstExpr(p, 'main', 1)), 16n);
  assert.equal(evaluateInteger(p, firstExpr(p, 'main', 2)), 0n);
});

/** Runs `tarsier parse ARGS` in-process (only the parse command is loaded), capturing output. */
async function runParse(args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  const program = new Command('tarsier').exitOverride();
  let status = 0;
  let stdout = '';
  let stderr = '';
  const run = <A extends unknown[]>(action: (...a: A) => Promise<number> | number) => async (...a: A): Promise<void> => {
    try {
      status = await action(...a);
    } catch (e) {
      const f = describeFailure(e);
      stderr += f.message + '\n';
      status = f.exitCode;
    }
  };
  registerParse(program, run);
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string) => {
    stdout += chunk;
    return true;
  }) as typeof process.stdout.write;
  try {
    await program.parseAsync(['parse', ...args], { from: 'user' });
  } finally {
    process.stdout.write = write;
  }
  return { status, stdout, stderr };
}

test('tarsier parse: summary, --dump loops, errors with exit status 1', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-parse-'));
  const good = join(dir, 'loops.c');
  writeFileSync(good, LOOPS);
  const r = await runParse([good, '--dump', 'loops']);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.split('\n')[0], `${good}:4:2: for in main`);
  assert.equal(r.stdout.trim().split('\n').length, 7);
  const s = await runParse([good]);
  assert.equal(s.status, 0);
  assert.match(s.stdout, /2 functions defined, 1 global variable, 7 loops/);
  const b = join(dir, 'b.c');
  writeFileSync(b, 'extern int __VERIFIER_nondet_int(void);\nvoid reach_error(void) {}\nint main(void) { if (__VERIFIER_nondet_int()) reach_error(); return 0; }\n');
  const bs = await runParse([b]);
  assert.match(bs.stdout, /^  verifier built-ins: __VERIFIER_nondet_int \(nondet\), reach_error \(reach_error\)$/m);
  const bad = join(dir, 'bad.c');
  writeFileSync(bad, 'int main() {\n  return 1 +;\n}\n');
  const e = await runParse([bad]);
  assert.equal(e.status, 1);
  assert.equal(e.stderr, `${bad}:2:13: error: expected expression before ';'\n`);
  const types = await runParse([good, '--dump', 'types', '--data-model', 'LP64']);
  assert.equal(types.status, 0);
  assert.match(types.stdout, /^data model LP64$/m);
  const missing = await runParse([join(dir, 'none.c')]);
  assert.equal(missing.status, 2);
});

void ({} as Stmt);

test('GNU C constructs: attributes, asm, statement expressions, case ranges, VLAs, compound literals, typeof, implicit int, _Generic', () => {
  const file = join(repoRoot, 'test', 'c', 'fixtures', 'gnu-c.c');
  for (const opts of [ilp, lp]) {
    const p = parseCFile(file, opts);
    const main = fn(p, 'main');
    const kinds = new Set<string>();
    forEachStatement(main.body, (s) => kinds.add(s.kind));
    for (const k of ['For', 'While', 'DoWhile', 'Switch', 'Case', 'Default', 'Label', 'Goto', 'Asm', 'Break', 'Continue', 'Return']) {
      assert.ok(kinds.has(k), `${k} statement`);
    }
    const vla = main.body.items.find((i) => i.kind === 'DeclStmt' && i.declaration.declarators[0]?.decl.name === 'vla');
    assert.ok(vla && vla.kind === 'DeclStmt');
    const v = vla.declaration.declarators[0].decl;
    assert.ok(v.kind === 'Var' && v.type.kind === 'array' && v.type.vla && v.vlaSizes?.length === 1);
    const bits = p.records.find((r) => r.tag === 'bits')!;
    assert.equal(bits.size, opts.dataModel === 'LP64' ? 24 : 20);
    assert.deepEqual(bits.fields!.map((f) => [f.name, f.offset, f.bitOffset]), [['a', 0, 0], ['b', 4, 0], ['c', 8, undefined], ['d', 9, 0], ['e', 16, undefined]]);
    assert.equal(p.globals.find((g) => g.name === 'tbl')!.type.kind === 'array' && (p.globals.find((g) => g.name === 'tbl')!.type as { length?: number }).length, 7);
    assert.equal(p.globals.filter((g) => g.name === 'tent').length, 1);
  }
  const old = parseCProgram('main() { int i = 0; do i++; while (i < 3); return _Generic(i, int: 0, default: 1); }', 'old.c', ilp);
  assert.equal(fn(old, 'main').decl.type.returnType.kind, 'integer');
  const ret = fn(old, 'main').body.items[2];
  assert.ok(ret.kind === 'Return' && ret.value?.kind === 'IntegerLiteral' && ret.value.value === 0n);
});

test('names declared in a for clause are in scope to the end of its body', () => {
  const src = 'int main() {\n  for (int i = 0; i < 3; i++)\n    do i++;\n    while (i < 2);\n  return 0;\n}\n';
  const p = parseCProgram(src, 'f.c', ilp);
  assert.ok('expr' in parseExpressionAt(p, { line: 4, column: 5 }, 'i < 2'));
  assert.ok('error' in parseExpressionAt(p, { line: 5, column: 3 }, 'i < 2'));
});

test('absurd nesting is a located error, not a crash', () => {
  const n = 20000;
  const msg = errorOf(() => parseCProgram(`int x = ${'('.repeat(n)}1${')'.repeat(n)};`, 'deep.c', ilp));
  assert.match(msg, /^deep\.c:1:\d+: error: constructs nested too deeply for the parser$/);
  const p = parseCProgram('int g;', 'g.c', ilp);
  const r = parseExpressionAt(p, { line: 0, column: 0 }, '('.repeat(n) + 'g' + ')'.repeat(n));
  assert.ok('error' in r && /nested too deeply/.test(r.error));
});

test('old-style definitions, block-scope extern, tentative arrays, __builtin_choose_expr', () => {
  const p = parseCProgram(
    'int add(a, b, s)\n  int a; char *s;\n{ return a + b + *s; }\nint arr[];\nint use() { extern int late; return late + add(1, 2, "x") + __builtin_choose_expr(1, 3, 4.0); }\nint late = 5;\n',
    'kr.c', ilp,
  );
  const add = fn(p, 'add').decl;
  assert.deepEqual(add.params.map((x) => [x.name, x.type.kind === 'pointer' ? 'pointer' : x.type.kind === 'integer' ? x.type.name : '?']), [['a', 'int'], ['b', 'int'], ['s', 'pointer']]);
  assert.equal(add.type.prototyped, false);
  const late = p.globals.filter((g) => g.name === 'late');
  assert.equal(late.length, 1);
  assert.ok(late[0].init && late[0].init.kind === 'IntegerLiteral');
  const arr = p.globals.find((g) => g.name === 'arr')!;
  assert.ok(arr.type.kind === 'array' && arr.type.length === 1);
  assert.match(errorOf(() => parseCProgram('int f(a) int b; { return 0; }', 'kr.c', ilp)), /^kr\.c:1:14: error: declaration for parameter 'b' but no such parameter$/);
});

test('arithmetic on a bit-field wider than int is reported, not mistyped', () => {
  const src = 'struct s { unsigned long long d:40; };\nint main() { struct s v = { 1 }; unsigned long long t = v.d; t = (unsigned long long)v.d + 1; return v.d + 1 > 0; }\n';
  assert.equal(
    errorOf(() => parseCProgram(src, 'w.c', lp)),
    "w.c:2:102: error: unsupported construct: arithmetic on the 40-bit bit-field 'd' (gcc computes it at the field's width; cast it first)",
  );
  assert.ok(parseCProgram(src.replace('return v.d + 1 > 0;', 'return t > 0;'), 'w.c', lp));
});

test('listProgramLocations: statement starts, branching keywords, ? and call parentheses', () => {
  const src = 'int f(int a) { return a; }\nint main() {\n  int x = f(1);\n  if (x) x = x ? 2 : f(3);\n  switch (x) { case 2: break; }\n  do x--; while (x > 0);\n  return 0;\n}\n';
  const p = parseCProgram(src, 'l.c', ilp);
  const locs = listProgramLocations(p);
  const at = (l: { line: number; column: number }) => `${l.line}:${l.column}`;
  assert.deepEqual(locs.statements.filter((s) => s.function === 'main').map((s) => `${s.kind}@${at(s.loc)}`), [
    'DeclStmt@3:3', 'If@4:3', 'ExprStmt@4:10', 'Switch@5:3', 'Case@5:16', 'Break@5:24', 'DoWhile@6:3', 'ExprStmt@6:6', 'Return@7:3',
  ]);
  assert.deepEqual(locs.branchings.map((b) => `${b.keyword}@${at(b.loc)}`), ['if@4:3', '?@4:16', 'switch@5:3', 'do@6:3']);
  assert.deepEqual(locs.calls.map((c) => `${c.callee}@${at(c.rparenLoc)}`), ['f@3:14', 'f@4:25']);
});

test('standard headers preprocess for both data models with their own type sizes', { skip: hasCpp }, (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-hdr-'));
  const file = join(dir, 'h.c');
  writeFileSync(file, '#include <stdint.h>\n#include <stddef.h>\n#include <stdlib.h>\n#include <assert.h>\nint main(void) {\n  size_t n = sizeof(intptr_t);\n  int64_t x = 0;\n  assert(n > 0);\n  while (x < 3) x++;\n  return 0;\n}\n');
  const want = { ILP32: { size_t: 'uint', intptr_t: 'int', int64_t: 'longlong' }, LP64: { size_t: 'ulong', intptr_t: 'long', int64_t: 'long' } };
  for (const dataModel of ['ILP32', 'LP64'] as const) {
    let p: CProgram;
    try {
      p = parseCFile(file, { dataModel });
    } catch (e) {
      if (e instanceof TarsierError && e.code === 'cpp-error') {
        t.diagnostic(`skipped ${dataModel}: ${e.message}`);
        continue;
      }
      throw e;
    }
    for (const [name, kind] of Object.entries(want[dataModel])) {
      const td = p.typedefs.get(name);
      assert.ok(td && td.type.kind === 'integer' && td.type.name === kind, `${dataModel}: ${name}`);
    }
    const loops = listLoops(p);
    assert.deepEqual(loops.map((l) => [l.loc.file, l.loc.line, l.loc.column]), [[file, 9, 3]]);
  }
});
