import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { parseCFile, parseCProgram } from '../../src/c/index.js';
import type { DataModel } from '../../src/c/types.js';
import { bmc, type BmcResult } from '../../src/engines/index.js';
import type { Stmt } from '../../src/ivl/ast.js';
import { typecheckImp } from '../../src/ivl/typecheck.js';
import { branchAt, GOAL_KINDS, goalOf, locKey, loopAt, lowerProgram, nondetAt, type LoweredProgram } from '../../src/lower/index.js';
import { readFileSync } from 'node:fs';
import { repoRoot, sharedPath, skipWithoutShared } from '../helpers/shared.js';
import { passesOf } from '../../src/properties/index.js';
import type { PropertyKind } from '../../src/task/index.js';

const fixture = (name: string) => join(repoRoot, 'test', 'fixtures', 'lower', name);

const PRELUDE = `extern void abort(void);
void reach_error() { abort(); }
extern int __VERIFIER_nondet_int(void);
extern long long __VERIFIER_nondet_longlong(void);
extern void __VERIFIER_assume(int);
`;
/** Lines of PRELUDE, so tests can give C locations in their own text. */
const PL = PRELUDE.split('\n').length - 1;

function lowerText(body: string, property: PropertyKind = 'unreach-call', dataModel: DataModel = 'ILP32', recursionDepth = 3): LoweredProgram {
  const c = parseCProgram(PRELUDE + body, 't.c', { dataModel });
  return lowerProgram(c, { passes: passesOf(property), dataModel, recursionDepth });
}

/** Every assert of the lowering carries a goal of the source map, with its kind and at its location. */
function assertGoalsFirstClass(l: LoweredProgram, what = ''): void {
  const walk = (ss: readonly Stmt[]): void => {
    for (const s of ss) {
      if (s.kind === 'assert') {
        const g = goalOf(l.sourceMap, s.goal);
        assert.ok(g, `${what} assert at ${s.loc.line}:${s.loc.column} without a goal of the source map`);
        assert.equal(locKey(g.loc), locKey(s.loc), what);
      } else if (s.kind === 'if') {
        walk(s.then);
        walk(s.else);
      } else if (s.kind === 'while' || s.kind === 'block') walk(s.body);
    }
  };
  for (const p of l.imp.procedures) walk(p.body ?? []);
  l.sourceMap.goals.forEach((g, i) => assert.equal(g.id, i, what));
}

async function check(l: LoweredProgram, maxBound = 16): Promise<BmcResult> {
  assert.equal(l.unsupported, undefined, `unsupported: ${l.unsupported?.construct}`);
  assert.deepEqual(typecheckImp(l.imp), []);
  assertGoalsFirstClass(l);
  return bmc(l.imp, {
    deadline: Date.now() + 60_000,
    maxBound,
    roles: { error: GOAL_KINDS.filter((k) => k !== 'recursion'), bound: ['recursion'] },
  });
}

test('C integer semantics, control flow, structs, arrays, pointers and calls: every check holds', async () => {
  const c = parseCFile(fixture('int-semantics.c'), { dataModel: 'ILP32' });
  const l = lowerProgram(c, { passes: passesOf('unreach-call'), dataModel: 'ILP32', recursionDepth: 5 });
  const goals = l.sourceMap.goals.filter((g) => g.kind === 'reach_error');
  assert.equal(goals.length, 47);
  const r = await check(l);
  assert.equal(r.verdict, 'true', r.verdict === 'unknown' ? r.reason : r.verdict);
});

test('a wrong expectation about C arithmetic is found (the checks above can fail)', async () => {
  const cases = [
    '(unsigned char)300 == 45',
    '-7 / 2 == -4',
    '-7 % 2 == 1',
    '-1 < 1u',
    '(signed char)200 == 200',
    '(-8 >> 1) == 2147483644',
  ];
  for (const cond of cases) {
    const l = lowerText(`int main(void) {\n  if (!(${cond})) reach_error();\n  return 0;\n}\n`);
    const r = await check(l);
    assert.equal(r.verdict, 'false', cond);
    if (r.verdict !== 'false') continue;
    const g = goalOf(l.sourceMap, r.counterexample.goal.goal);
    assert.equal(g?.kind, 'reach_error');
    assert.equal(g?.loc.line, PL + 2);
    assert.equal(g?.loc.column, 12 + cond.length);
  }
});

test('short-circuit operators and ?: evaluate side effects only on the taken side', async () => {
  const l = lowerText(`int main(void) {
  int x = 0;
  int y = (x > 0 && x++ > 0) || x++ == 0;
  int z = x ? x-- : x++;
  if (!(x == 0 && y == 1 && z == 1)) reach_error();
  return 0;
}
`);
  assert.equal((await check(l)).verdict, 'true');
  const bad = lowerText(`int main(void) {
  int x = 0;
  int y = (x > 0 && x++ > 0) || x++ == 0;
  if (x != 2) reach_error();
  return 0;
}
`);
  assert.equal((await check(bad)).verdict, 'false');
});

test('no-overflow: a check before each signed operation, at the operator', async () => {
  const l = lowerText(
    `int main(void) {
  int x = __VERIFIER_nondet_int();
  unsigned u = x;
  u = u + 1u;
  char c = 127;
  int d = c + 1;
  int y = x + 1;
  return 0;
}
`,
    'no-overflow',
  );
  const overflow = l.sourceMap.goals.filter((g) => g.kind === 'overflow');
  // c + 1 is done in int after promotion and is checked too; unsigned u + 1u is not.
  assert.equal(overflow.length, 2);
  const r = await check(l);
  assert.equal(r.verdict, 'false');
  if (r.verdict !== 'false') return;
  const g = goalOf(l.sourceMap, r.counterexample.goal.goal);
  assert.equal(g?.kind, 'overflow');
  assert.deepEqual([g?.loc.line, g?.loc.column], [PL + 7, 11]);
  assert.deepEqual([g?.targetLoc.line, g?.targetLoc.column], [PL + 7, 3]);
  // The nondet value that overflows: INT_MAX.
  const h = r.counterexample.havocs.find((x) => nondetAt(l.sourceMap, x.loc));
  assert.equal(h?.value, 2147483647n);
});

test('no-overflow: an error function the program defines as returning does not end the path', async () => {
  const text = (body: string) => `extern int __VERIFIER_nondet_int(void);
extern void abort(void);
void reach_error() { ${body} }
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x > 0) reach_error();
  int y = x + 1;
  return y;
}
`;
  const lower = (body: string) =>
    lowerProgram(parseCProgram(text(body), 't.c', { dataModel: 'ILP32' }), { passes: passesOf('no-overflow'), dataModel: 'ILP32' });
  // reach_error returns: x == INT_MAX reaches x + 1.
  assert.equal((await check(lower(''))).verdict, 'false');
  // reach_error aborts: x + 1 runs only for x <= 0.
  assert.equal((await check(lower('abort();'))).verdict, 'true');
});

test('no-overflow: guarded operations are safe; -, /, % and 64-bit * are checked', async () => {
  const safe = lowerText(
    `int main(void) {
  int x = __VERIFIER_nondet_int();
  __VERIFIER_assume(x < 2147483647 && x > -2147483647);
  int y = x + 1;
  int z = -x;
  int q = x / -1;
  long long a = __VERIFIER_nondet_longlong();
  __VERIFIER_assume(a < 3037000499LL && a > -3037000499LL);
  long long b = a * 3037000499LL;
  return 0;
}
`,
    'no-overflow',
  );
  assert.equal((await check(safe)).verdict, 'true');
  for (const [expr, assumption] of [
    ['-x', 'x < 0'],
    ['x / y', 'y == -1'],
    ['x % y', 'y == -1'],
    ['x * y', 'y == 65536 && x > 32768'],
  ]) {
    const l = lowerText(
      `int main(void) {
  int x = __VERIFIER_nondet_int();
  int y = __VERIFIER_nondet_int();
  __VERIFIER_assume(y != 0 && ${assumption});
  int r = ${expr};
  return 0;
}
`,
      'no-overflow',
    );
    const r = await check(l);
    assert.equal(r.verdict, 'false', expr);
  }
  const mul64 = lowerText(
    `int main(void) {
  long long a = __VERIFIER_nondet_longlong();
  __VERIFIER_assume(a > 3037000500LL);
  long long b = a * a;
  return 0;
}
`,
    'no-overflow',
  );
  assert.equal((await check(mul64)).verdict, 'false');
});

test('data models: long is 32 bits in ILP32 and 64 bits in LP64', async () => {
  const body = `int main(void) {
  long l = 2147483647;
  l = l + 1;
  if (l > 0) reach_error();
  return 0;
}
`;
  assert.equal((await check(lowerText(body, 'unreach-call', 'ILP32'))).verdict, 'true');
  assert.equal((await check(lowerText(body, 'unreach-call', 'LP64'))).verdict, 'false');
  assert.equal(lowerText(body, 'no-overflow', 'ILP32').sourceMap.goals.filter((g) => g.kind === 'overflow').length, 1);
});

test('the source map records loops at their keyword and nondet calls with type and position', () => {
  const l = lowerText(`int main(void) {
  int i = 0;
  int n = __VERIFIER_nondet_int();
  while (i < n) { i++; }
  for (i = 0; i < 3; i++) { }
  do { i--; } while (i > 0);
  return 0;
}
`);
  assert.deepEqual(
    l.sourceMap.loops.map((x) => [x.keyword, x.loc.line - PL, x.loc.column, x.function]),
    [
      ['while', 4, 3, 'main'],
      ['for', 5, 3, 'main'],
      ['do', 6, 3, 'main'],
    ],
  );
  const [nd] = l.sourceMap.nondets;
  assert.equal(nd.callee, '__VERIFIER_nondet_int');
  assert.equal(nd.cType, 'int');
  assert.equal(nd.width, 32);
  assert.equal(nd.signed, true);
  assert.deepEqual([nd.loc.line - PL, nd.loc.column], [3, 11]);
  assert.deepEqual([nd.closeParenLoc?.line, nd.closeParenLoc?.column], [PL + 3, 33]);
  assert.deepEqual([nd.statementLoc.line - PL, nd.statementLoc.column], [3, 3]);
  const n = l.sourceMap.variables.find((x) => x.name === 'n');
  assert.deepEqual([n?.function, n?.imp, n?.width, n?.signed, n?.declLoc.line], ['main', 'n@main', 32, true, PL + 3]);
  // Every IMP while is a C loop of the map.
  const whiles = l.imp.procedures[0].body!.filter((s) => s.kind === 'while');
  assert.equal(whiles.length, 3);
  for (const w of whiles) assert.ok(loopAt(l.sourceMap, w.loc));
});

test('only IMP ifs made for C ifs carry a branch location (jump guards do not)', () => {
  const l = lowerText(`int main(void) {
  int i = 0, x = 0;
  int n = __VERIFIER_nondet_int();
  while (i < n) {
    if (i == 5) break;
    if (i == 3) x = 1;
    i++;
  }
  return x;
}
`);
  const ifs: Stmt[] = [];
  const walk = (ss: readonly Stmt[]): void => {
    for (const s of ss) {
      if (s.kind === 'if') {
        ifs.push(s);
        walk(s.then);
        walk(s.else);
      } else if (s.kind === 'while') walk(s.body);
      else if (s.kind === 'block') walk(s.body);
    }
  };
  walk(l.imp.procedures[0].body!);
  assert.ok(ifs.length >= 3);
  const branches = ifs.filter((s) => branchAt(l.sourceMap, s.loc));
  assert.deepEqual(
    branches.map((s) => [s.loc.line - PL, s.loc.column]),
    [
      [5, 5],
      [6, 5],
    ],
  );
});

test('recursion is inlined to the bound and cut with a recursion goal', async () => {
  const body = `int fact(int n) { if (n <= 1) return 1; return n * fact(n - 1); }
int main(void) {
  if (fact(5) != 120) reach_error();
  return 0;
}
`;
  const shallow = lowerText(body, 'unreach-call', 'ILP32', 3);
  assert.ok(shallow.sourceMap.goals.some((g) => g.kind === 'recursion' && g.loc.line === PL + 1));
  // The cut is reachable: no TRUE.
  assert.notEqual((await check(shallow)).verdict, 'true');
  const deep = lowerText(body, 'unreach-call', 'ILP32', 6);
  assert.equal((await check(deep)).verdict, 'true');
});

test('forward goto to a later label of an enclosing block, also out of loops', async () => {
  const ok = lowerText(`int main(void) {
  int x = __VERIFIER_nondet_int();
  int y = 0;
  if (x > 5) goto END;
  y = 1;
  for (int i = 0; i < 10; i++) {
    if (i == x) goto OUT;
    y = y + 1;
  }
  y = 100;
OUT:
  if (x >= 0 && x <= 5 && y != x + 1) reach_error();
END:
  if (x > 5 && y != 0) reach_error();
  return 0;
}
`);
  assert.equal((await check(ok, 32)).verdict, 'true');
  const bad = lowerText(`int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x == 3) goto END;
  return 0;
END:
  reach_error();
  return 0;
}
`);
  const r = await check(bad);
  assert.equal(r.verdict, 'false');
  if (r.verdict === 'false') assert.equal(r.counterexample.havocs[0]?.value, 3n);
});


test('a second goto to the same label skips the statements after it (the guard is evaluated anew)', async () => {
  // Was a wrong TRUE: `x = 0` ran after `goto END` because the first goto's
  // guard, evaluated before the second goto, still held.
  const l = lowerText(`int main(void) {
  int x = __VERIFIER_nondet_int();
  int y = __VERIFIER_nondet_int();
  if (y > 0) { x = 0; goto END; }
  if (x > 0) goto END;
  x = 0;
END:
  if (x > 0) reach_error();
  return 0;
}
`);
  const r = await check(l);
  assert.equal(r.verdict, 'false');
});
test('backward goto to a label of an enclosing block becomes a loop', async () => {
  const body = (limit: number) => `int main(void) {
  int x = 0;
  int y = 0;
again:
  x++;
  if (x < ${limit}) {
    y = y + 2;
    goto again;
  }
  if (y != 2 * (x - 1)) reach_error();
  if (x == 3) reach_error();
  return 0;
}
`;
  const l = lowerText(body(3));
  const r = await check(l);
  assert.equal(r.verdict, 'false');
  if (r.verdict === 'false') assert.equal(r.counterexample.goal.loc.line, PL + 11);
  assert.equal((await check(lowerText(body(5)))).verdict, 'true');
});

test('goto from the then branch to a label in the else branch', async () => {
  const body = (check: string) => `int main(void) {
  int x = __VERIFIER_nondet_int();
  int y = 0;
  if (x > 0) {
    y = 1;
    if (x > 10) goto ELSE;
    y = 2;
  } else {
    y = y + 5;
ELSE:
    y = y + 10;
  }
  ${check}
  return 0;
}
`;
  const ok = lowerText(body('if (!((x <= 0 && y == 15) || (x > 10 && y == 11) || (x > 0 && x <= 10 && y == 2))) reach_error();'));
  assert.equal(ok.unsupported, undefined);
  assert.equal((await check(ok)).verdict, 'true');
  const bad = lowerText(body('if (y == 11) reach_error();'));
  assert.equal((await check(bad)).verdict, 'false');
});

test('malloc and calloc outside loops give fresh objects of the converted pointer type', async () => {
  const l = lowerText(`void *malloc(unsigned int);
void *calloc(unsigned int, unsigned int);
void free(void *);
int main(void) {
  int *a = (int *)malloc(4 * sizeof(int));
  int *b = calloc(3, sizeof(int));
  a[1] = 5;
  if (b[2] != 0 || a[1] != 5) reach_error();
  b[2] = 1;
  if (a[1] != 5) reach_error();
  free(a);
  return 0;
}
`);
  assert.equal(l.approximations, undefined);
  assert.equal((await check(l)).verdict, 'true');
  // malloc inside a loop gives a new block each time (a block of the site's object).
  const inLoop = lowerText(`void *malloc(unsigned int);
int main(void) {
  int *q = 0;
  for (int i = 0; i < 2; i++) { int *p = malloc(4); *p = i; if (i == 0) q = p; }
  if (*q != 0) reach_error();
  return 0;
}
`);
  assert.equal((await check(inLoop)).verdict, 'true');
  // calloc inside a loop: each block starts zero (a constant count, filled element by element).
  const callocInLoop = lowerText(`void *calloc(unsigned int, unsigned int);
int main(void) {
  for (int i = 0; i < 2; i++) { int *p = calloc(2, 4); if (p[1] != 0) reach_error(); p[1] = i + 1; }
  return 0;
}
`);
  assert.equal((await check(callocInLoop)).verdict, 'true');
  const callocRunTime = lowerText(`void *calloc(unsigned int, unsigned int);
int main(void) {
  for (int i = 0; i < 2; i++) { int *p = calloc(i, 4); }
  return 0;
}
`);
  assert.equal(callocRunTime.unsupported?.construct, 'calloc inside a loop whose count is not a constant of at most 256 elements');
});

test('pointers to pointers and to structs with pointer members are followed', async () => {
  const l = lowerText(`struct node { int val; struct node *next; };
int main(void) {
  struct node a, b;
  a.val = 1;
  b.val = 2;
  a.next = &b;
  b.next = 0;
  struct node *p = &a;
  int x = 0;
  int *q = &x;
  int **pp = &q;
  **pp = p->next->val;
  if (x != 2 || p->next->next != 0) reach_error();
  p = __VERIFIER_nondet_int() ? &a : &b;
  p->val = 7;
  if (a.val != 7 && b.val != 7) reach_error();
  if (a.val == 7 && b.val == 7) reach_error();
  return 0;
}
`);
  assert.equal((await check(l)).verdict, 'true');
});

test('variable-length arrays use their run-time size, also in two dimensions', async () => {
  const l = lowerText(`int main(void) {
  int n = __VERIFIER_nondet_int();
  int m = __VERIFIER_nondet_int();
  __VERIFIER_assume(n > 0 && n < 4 && m > 1 && m < 4);
  int a[n][m];
  a[n - 1][1] = 7;
  a[0][0] = 1;
  if (a[n - 1][1] != 7) reach_error();
  int *p = a[n - 1];
  if (p[1] != 7) reach_error();
  return 0;
}
`);
  assert.equal((await check(l)).verdict, 'true');
});

test('a failing C assert() aborts without being an error of unreach-call', async () => {
  const l = lowerText(`extern void __assert_fail(const char *, const char *, unsigned int, const char *);
int main(void) {
  int x = __VERIFIER_nondet_int();
  ((x > 0) ? (void)0 : __assert_fail("x > 0", "t.c", 3, __PRETTY_FUNCTION__));
  if (x <= 0) reach_error();
  return 0;
}
`);
  assert.equal(l.unsupported, undefined, l.unsupported?.construct);
  assert.equal((await check(l)).verdict, 'true');
});

test('constructs outside the model are reported as unsupported with their location (a goto into a block is not one)', () => {
  const g = lowerText(`int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x) goto IN;
  {
    x = 1;
IN:
    x = 2;
  }
  return x;
}
`);
  assert.equal(g.unsupported, undefined, g.unsupported?.construct);
  const f = lowerText(`int main(void) {
  __asm__("nop");
  return 0;
}
`);
  assert.match(f.unsupported?.construct ?? '', /inline assembler/);
  const u = lowerText(`int atoi(const char *);
int main(void) {
  atoi("12");
  return 0;
}
`);
  assert.match(u.unsupported?.construct ?? '', /undefined function 'atoi'/);
});

test('the programs of ../shared/bench lower to well-typed IMP (count printed)', { skip: skipWithoutShared }, () => {
  const root = sharedPath('bench', 'sv-benchmarks');
  const rows = readFileSync(join(root, 'MANIFEST.csv'), 'utf8').trim().split('\n').slice(1).map((l) => l.split(','));
  const programs = new Map<string, DataModel>();
  for (const r of rows) programs.set(r[1], r[5] as DataModel);
  let lowered = 0;
  const unsupported: string[] = [];
  for (const [program, dm] of programs) {
    const c = parseCFile(join(root, program), { dataModel: dm });
    const l = lowerProgram(c, { passes: passesOf('unreach-call'), dataModel: dm });
    if (l.unsupported) {
      unsupported.push(`${program}: ${l.unsupported.construct}`);
      continue;
    }
    assert.deepEqual(typecheckImp(l.imp).slice(0, 1), [], program);
    assertGoalsFirstClass(l, program);
    lowered++;
  }
  console.log(`lowered ${lowered} of ${programs.size} bench programs; unsupported:\n  ${unsupported.join('\n  ')}`);
  // The gaps still open, each with its issue: a program that fails to lower
  // for any other reason fails the test. Remove a line when its gap closes.
  const openGaps = [
    /floating-point type/, // #26 floats
    /pthread_/, // #27 threads
  ];
  const unexplained = unsupported.filter((u) => !openGaps.some((g) => g.test(u)));
  assert.deepEqual(unexplained, [], 'programs that do not lower for a reason outside the open gaps');
});
