import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseImp, parseImpExpr } from '../../src/ivl/index.js';
import { evalExpr, ImpStop, valueKey, type ImpValue } from '../../src/ivl/interp.js';
import { procedureScope } from '../../src/ivl/typecheck.js';
import { ExprCompiler, fromImp, INDET, type Val } from '../../src/engines/execute-values.js';
import { executeOnePath, type ExecutionVerdict, type HavocCall } from '../../src/engines/index.js';
import type { HavocStmt, ImpProgram } from '../../src/ivl/ast.js';

/** Runs `body` (statements of main over the declared variables); `nondet`/`ends`: line numbers of nondet havocs and run-ending assumes. Asserts of goal kind `cut` are unwinding assertions. */
function run(decls: string, body: string, opts: { nondet?: number[]; ends?: number[]; deadline?: () => number } = {}): ExecutionVerdict {
  const text = `procedure main() {\n  var ${decls};\n${body}\n}\n`;
  const program = parseImp(text, 'p.imp');
  return executeOnePath(program, {
    deadline: opts.deadline ?? (() => 60_000),
    roles: { error: ['err'], bound: ['cut'] },
    isNondet: (s) => (opts.nondet ?? []).includes(s.loc.line),
    endsRun: (s) => (opts.ends ?? []).includes(s.loc.line),
  });
}
// Line numbers: line 1 is `procedure`, line 2 the declarations, the body starts at line 3.

test('a deterministic run that keeps every goal holds; a failing goal is a violation at its assert', () => {
  assert.equal(run('x: bv32', '  x := 0bv32;\n  while (ult(x, 1000bv32)) { x := x + 1bv32; }\n  assert x == 1000bv32;').kind, 'holds');
  const v = run('x: bv32', '  x := 5bv32;\n  assert x != 5bv32;');
  assert.equal(v.kind, 'violated');
  assert.equal(v.kind === 'violated' && v.loc.line, 4);
});

test('an indeterminate value decides nothing while nothing depends on it; once a branch or goal does, the run is undecided', () => {
  // Computed and stored, never looked at: the one execution is the same for every value.
  assert.equal(run('x: bv32, y: bv32', '  y := x + 1bv32;\n  assert true;').kind, 'holds');
  // x is read before any assignment: the branch on it has two outcomes.
  const u = run('x: bv32', '  if (x == 0bv32) { assert false; }');
  assert.equal(u.kind, 'undecided');
  assert.match(u.kind === 'undecided' ? u.reason : '', /a branch depends on a value the program does not determine at 3:/);
  // A havoc that is not a nondet call (an uninitialised variable) is indeterminate again.
  assert.equal(run('x: bv32', '  x := 1bv32;\n  x := havoc;\n  assert x == 1bv32;').kind, 'undecided');
  // A logical operator decided by its determined operand is determined.
  assert.equal(run('x: bv32, b: bool', '  b := false;\n  assert !(b && x == 0bv32);').kind, 'holds');
});

test('a nondet call makes the program nondeterministic: the run stops there', () => {
  const u = run('x: bv32', '  x := havoc;\n  assert x == x;', { nondet: [3] });
  assert.equal(u.kind, 'undecided');
  assert.match(u.kind === 'undecided' ? u.reason : '', /nondet/);
});

test('memory: an array re-entered (havocked again) is indeterminate; an element written is determined; a store at an indeterminate index spoils every element', () => {
  const loop = (extra: string) =>
    `  i := 0bv32;\n  while (ult(i, 2bv32)) {\n    t := havoc;\n    if (i == 0bv32) { t := t[0bv32 := 5bv32]; }\n${extra}    i := i + 1bv32;\n  }`;
  assert.equal(run('i: bv32, t: [bv32]bv32', loop('    if (t[0bv32] != 5bv32) { assert false; }\n')).kind, 'undecided');
  assert.equal(run('i: bv32, t: [bv32]bv32', loop('    t := t[1bv32 := 7bv32];\n    assert t[1bv32] == 7bv32;\n')).kind, 'holds');
  assert.equal(run('k: bv32, t: [bv32]bv32', '  t := havoc;\n  t := t[0bv32 := 1bv32];\n  t := t[k := 2bv32];\n  assert t[0bv32] == 1bv32;').kind, 'undecided');
});

test('map values: a copy is not changed by a later store into the original; stores read the state before them', () => {
  const body = '  m := havoc;\n  m := m[0bv32 := 1bv32];\n  n := m;\n  m := m[0bv32 := 2bv32];\n  assert n[0bv32] == 1bv32 && m[0bv32] == 2bv32;\n  m := m[1bv32 := 3bv32][2bv32 := m[1bv32]];\n  assert m[2bv32] != 3bv32;';
  // m[2] gets the old m[1], which is indeterminate: the second assert is undecided, the first holds.
  const r = run('m: [bv32]bv32, n: [bv32]bv32', body);
  assert.equal(r.kind, 'undecided');
  assert.match(r.kind === 'undecided' ? r.reason : '', /a goal depends/);
  assert.equal(run('m: [bv32]bv32, n: [bv32]bv32', body.replace('  m := havoc;\n', '  m := havoc;\n  m := m[1bv32 := 9bv32];\n')).kind, 'holds');
});

test('a failing assume ends the run where C ends it, and cuts a path (undefined behaviour) anywhere else', () => {
  const body = '  x := 0bv32;\n  assume x != 0bv32;\n  assert false;';
  const ended = run('x: bv32', body, { ends: [4] });
  assert.equal(ended.kind, 'holds');
  assert.equal(ended.kind === 'holds' && ended.end, 'exit');
  const cut = run('x: bv32', body);
  assert.equal(cut.kind, 'cut');
  assert.equal(cut.kind === 'cut' && cut.loc.line, 4);
});

test('a failing assert of role bound (a recursion cut) is undecided with its location; the time limit stops a long run', () => {
  const b = run('x: bv32', '  x := 0bv32;\n  assert {:goal cut 0} false;');
  assert.equal(b.kind, 'undecided');
  assert.equal(b.kind === 'undecided' && b.bound?.loc.line, 4);
  // A goal of another kind: the model ends the path there, which C need not (never TRUE).
  assert.equal(run('x: bv32', '  x := 0bv32;\n  assert {:goal other 0} false;').kind, 'cut');
  const t = run('x: bv32', '  x := 0bv32;\n  while (true) { x := x + 1bv32; }', { deadline: () => 0 });
  assert.equal(t.kind, 'undecided');
  assert.match(t.kind === 'undecided' ? t.reason : '', /^time limit reached/);
});

test('a run that comes back to a loop head in a state it had there repeats forever: found after each goal on the cycle held', () => {
  // x cycles through 0..4; the goal on the cycle holds every time round.
  const r = run('x: bv32, y: bv32', '  x := 0bv32;\n  y := 7bv32;\n  while (true) { assert x != 9bv32; x := urem(x + 1bv32, 5bv32); }\n  assert {:goal err 1} false;');
  assert.equal(r.kind, 'repeats');
  assert.equal(r.kind === 'repeats' && r.loc.line, 5);
  // A goal that fails on the cycle, only on its fourth time round, is found first.
  const v = run('x: bv32', '  x := 0bv32;\n  while (true) { assert {:goal err 1} x != 3bv32; x := urem(x + 1bv32, 5bv32); }');
  assert.equal(v.kind, 'violated');
  // A map that changes every time round is part of the state: no repeat while it does (here until the time is up).
  let calls = 0;
  const m = run('a: [bv32]bv32, i: bv32', '  i := 0bv32;\n  while (true) { a := a[i := i]; i := i + 1bv32; }', { deadline: () => (++calls > 50 ? 0 : 1000) });
  assert.equal(m.kind, 'undecided');
  // The same map written with the same values again repeats.
  const same = run('a: [bv32]bv32, i: bv32', '  i := 0bv32;\n  while (true) { a := a[i := 1bv32]; i := urem(i + 1bv32, 3bv32); }');
  assert.equal(same.kind, 'repeats');
});

test('map elements at small and at large indexes (kept apart by the interpreter) read back, and compare as one map for repeats', () => {
  // 0 and 1 go into the array part, 2 after 3 (which is elsewhere) too, 3 stays elsewhere; 2^64 - 1 is no safe integer.
  const body = '  m := havoc;\n  m := m[0bv64 := 1bv32][1bv64 := 5bv32][3bv64 := 2bv32][2bv64 := 6bv32][3bv64 := 3bv32][18446744073709551615bv64 := 4bv32];\n';
  const reads = 'm[0bv64] == 1bv32 && m[1bv64] == 5bv32 && m[2bv64] == 6bv32 && m[3bv64] == 3bv32 && m[18446744073709551615bv64] == 4bv32';
  assert.equal(run('m: [bv64]bv32', `${body}  assert ${reads};`).kind, 'holds');
  // An element never written is indeterminate, beside written ones of either part.
  assert.equal(run('m: [bv64]bv32', `${body}  assert m[4bv64] == 0bv32;`).kind, 'undecided');
  // Elements of both parts changing in a cycle of two: a repeat.
  let calls = 0;
  const cycle = run('m: [bv64]bv32, i: bv32', `${body}  i := 0bv32;\n  while (true) { m := m[1bv64 := i][16777216bv64 := i]; i := urem(i + 1bv32, 2bv32); }`, { deadline: () => (++calls > 50 ? 0 : 1000) });
  assert.equal(cycle.kind, 'repeats');
  // One more element in the large part every time round: never the same map.
  calls = 0;
  const grows = run('m: [bv64]bv32, i: bv64', `${body}  i := 5bv64;\n  while (true) { m := m[i := 0bv32]; i := i + 2bv64; }`, { deadline: () => (++calls > 50 ? 0 : 1000) });
  assert.equal(grows.kind, 'undecided');
});

test('a long loop whose state never repeats runs to its end', () => {
  assert.equal(run('x: bv32', '  x := 0bv32;\n  while (ult(x, 100000bv32)) { x := x + 1bv32; }\n  assert x == 100000bv32;').kind, 'holds');
});

test('every operator the execution computes directly agrees with the interpreter on edge and random values, at every width and on ints', () => {
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
  const random = (m: bigint) => (BigInt(next()) * BigInt(next()) * BigInt(next())) % m;
  const bvExprs = (w: number) => [
    ...['+', '-', '*', '&', '|', '^', '<<', '==', '!='].map((op) => `a ${op} b`),
    ...['udiv', 'urem', 'sdiv', 'srem', 'ashr', 'lshr', 'ult', 'ule', 'ugt', 'uge', 'slt', 'sle', 'sgt', 'sge'].map((fn) => `${fn}(a, b)`),
    '-a',
    '~a',
    ...[8, 16, 32, 64].flatMap((n) => [...(n >= w ? [`zext${n}(a)`, `sext${n}(a)`] : []), ...(n <= w ? [`trunc${n}(a)`] : [])]),
    'ubv2int(a)',
    'sbv2int(a)',
    '(if ult(a, b) then a else b)',
  ];
  const intExprs = ['a + b', 'a - b', 'a * b', 'a / b', 'a % b', 'a < b', 'a <= b', 'a > b', 'a >= b', 'a == b', 'a != b', '-a', ...[8, 16, 32, 64].map((n) => `int2bv${n}(a)`)];
  const cases: { type: string; values: ImpValue[]; exprs: string[] }[] = [];
  for (const w of [8, 16, 32, 64] as const) {
    const m = 1n << BigInt(w);
    const edges = [0n, 1n, 2n, 7n, BigInt(w), m - 1n, m - 2n, m >> 1n, (m >> 1n) - 1n, (m >> 1n) + 1n];
    cases.push({ type: `bv${w}`, values: [...edges, ...Array.from({ length: 5 }, () => random(m))].map((v) => ({ kind: 'bv', value: v, width: w })), exprs: bvExprs(w) });
  }
  const ints = [0n, 1n, -1n, 7n, -7n, 3n, -3n, 2n ** 64n + 5n, -(2n ** 63n), ...Array.from({ length: 4 }, () => random(1n << 70n) - (1n << 69n))];
  cases.push({ type: 'int', values: ints.map((v) => ({ kind: 'int', value: v })), exprs: intExprs });
  for (const { type, values, exprs } of cases) {
    const program = parseImp(`procedure main() { var a: ${type}, b: ${type}; }`, 'p.imp');
    const slots: Val[] = [INDET, INDET];
    const compiler = new ExprCompiler(slots, (name) => (name === 'a' ? 0 : 1), procedureScope(program, program.procedures[0]!));
    for (const text of exprs) {
      const e = parseImpExpr(text, 'e.imp');
      const run = compiler.compile(e).run;
      for (const a of values) {
        for (const b of values) {
          [slots[0], slots[1]] = [fromImp(a), fromImp(b)];
          const outcome = (f: () => unknown) => {
            try {
              return f();
            } catch (err) {
              return err instanceof ImpStop ? `stop: ${err.message}` : err;
            }
          };
          const expected = outcome(() => fromImp(evalExpr(e, new Map([['a', a], ['b', b]]))));
          assert.deepEqual(outcome(run), expected, `${text} with a = ${valueKey(a)}, b = ${valueKey(b)}`);
          // With one operand a literal (read without its closure) too.
          const lit = (v: ImpValue) => (v.kind === 'int' && v.value < 0n ? `(-${-v.value})` : valueKey(v));
          for (const [name, v] of [['b', b], ['a', a]] as const) {
            const withLiteral = compiler.compile(parseImpExpr(text.replace(new RegExp(`\\b${name}\\b`, 'g'), lit(v)), 'e.imp')).run;
            assert.deepEqual(outcome(withLiteral), expected, `${text} with ${name} = ${valueKey(v)} written as a literal`);
          }
        }
      }
    }
  }
});

test('an operator on an indeterminate operand is indeterminate, and logical operators decided by one operand are decided', () => {
  const program = parseImp('procedure main() { var a: bv32, p: bool; }', 'p.imp');
  const slots: Val[] = [INDET, true];
  const compiler = new ExprCompiler(slots, (name) => (name === 'a' ? 0 : 1), procedureScope(program, program.procedures[0]!));
  const value = (text: string) => compiler.compile(parseImpExpr(text, 'e.imp')).run();
  for (const text of ['a + 1bv32', 'udiv(a, 0bv32)', 'zext64(a)', 'ult(a, a)', 'a == a', '-a', 'sbv2int(a)']) assert.equal(value(text), INDET, text);
  assert.equal(value('p || a == 0bv32'), true);
  assert.equal(value('!p && a == 0bv32'), false);
  assert.equal(value('a == 0bv32 ==> p'), true);
  assert.equal(value('p ==> a == 0bv32'), INDET);
  assert.equal(value('(if a == 0bv32 then 3bv32 else 3bv32)'), 3);
  assert.equal(value('(if a == 0bv32 then 3bv32 else 4bv32)'), INDET);
});

/** A program of one procedure main, from its declarations and body (the body starts at line 3). */
const program = (decls: string, body: string) => parseImp(`procedure main() {\n  var ${decls};\n${body}\n}\n`, 'p.imp');

/**
 * Runs main with calls: `calls` maps a havoc's line (in main or a callee)
 * to the call it stands for; `callees` are the called programs, each with
 * its parameters' havocs and its result.
 */
function runWithCalls(main: ImpProgram, calls: Map<string, HavocCall>, callees: Record<string, { program: ImpProgram; params: string[]; result?: string }>): ExecutionVerdict {
  const callAt = (s: HavocStmt) => calls.get(`${s.loc.file}:${s.loc.line}`);
  const common = { isNondet: () => false, endsRun: () => false, callAt };
  return executeOnePath(main, {
    deadline: () => 60_000,
    roles: { error: ['err'], bound: ['cut'] },
    ...common,
    programOf: (name) => {
      const c = callees[name];
      return c && { program: c.program, params: c.params, ...(c.result ? { result: parseImpExpr(c.result, 'calls') } : {}), ...common };
    },
  });
}

// fib in IMP: n is the parameter; the havocs of t (line 5) and u (line 6) are its calls of itself.
const fib = parseImp('procedure main() {\n  var n: bv32, r: bv32, t: bv32, u: bv32;\n  n := havoc;\n  if (ult(n, 2bv32)) { r := n; } else {\n    t := havoc;\n    u := havoc;\n    r := t + u;\n  }\n}\n', 'fib.imp');
const fibCalls = (): Map<string, HavocCall> =>
  new Map([
    ['fib.imp:5', { callee: 'fib', args: [parseImpExpr('n - 1bv32', 'calls')] }],
    ['fib.imp:6', { callee: 'fib', args: [parseImpExpr('n - 2bv32', 'calls')] }],
  ]);

test('calls: a havoc that stands for a call gets the callee run on its arguments, each call in a frame of its own', () => {
  const at = (value: number) => program('x: bv32, k: bv32', `  k := 7bv32;\n  x := havoc;\n  assert {:goal err 1} x == ${value}bv32 && k == 7bv32;`);
  const calls = fibCalls().set('p.imp:4', { callee: 'fib', args: [parseImpExpr('k + 3bv32', 'calls')] });
  const callees = { fib: { program: fib, params: ['n'], result: 'r' } };
  // fib(10) = 55: each frame's n and r come back as they were after its two calls.
  assert.equal(runWithCalls(at(55), calls, callees).kind, 'holds');
  assert.equal(runWithCalls(at(56), calls, callees).kind, 'violated');
  // fib(30) is 2.7 million calls; remembered per argument, 31.
  const deep = runWithCalls(at(832040), fibCalls().set('p.imp:4', { callee: 'fib', args: [parseImpExpr('k + 23bv32', 'calls')] }), callees);
  assert.equal(deep.kind, 'holds');
  assert.ok(deep.steps < 10_000, `${deep.steps} steps`);
  // A callee without a program: undecided, never a guess.
  assert.equal(runWithCalls(at(55), calls, {}).kind, 'undecided');
});

test('calls: a loop head seen in one call is not a repeat in another; a cycle inside a call is one, said to be in a call', () => {
  // g forgets its argument: its loop starts in the same state in both calls, which must both end.
  const g = parseImp('procedure main() {\n  var p: bv32, i: bv32;\n  p := havoc;\n  p := 0bv32;\n  i := 0bv32;\n  while (ult(i, 3bv32)) { i := i + 1bv32; }\n}\n', 'g.imp');
  const twice = program('x: bv32, y: bv32', '  x := havoc;\n  y := havoc;\n  assert {:goal err 1} true;');
  const calls = new Map<string, HavocCall>([
    ['p.imp:3', { callee: 'g', args: [parseImpExpr('1bv32', 'calls')] }],
    ['p.imp:4', { callee: 'g', args: [parseImpExpr('2bv32', 'calls')] }],
  ]);
  assert.equal(runWithCalls(twice, calls, { g: { program: g, params: ['p'] } }).kind, 'holds');
  const spin = parseImp('procedure main() {\n  var p: bv32, i: bv32;\n  p := havoc;\n  i := 0bv32;\n  while (true) { i := urem(i + 1bv32, 4bv32); }\n}\n', 'spin.imp');
  const r = runWithCalls(twice, calls, { g: { program: spin, params: ['p'] } });
  assert.equal(r.kind, 'repeats');
  assert.equal(r.kind === 'repeats' && r.inCall, true);
});
