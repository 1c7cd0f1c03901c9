import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/shared.js';
import { parseImp, parseImpExpr } from '../../src/ivl/parser.js';
import { printExpr, printImp } from '../../src/ivl/printer.js';
import { TarsierError } from '../../src/common/errors.js';
import type { Stmt } from '../../src/ivl/ast.js';

const fixtureDir = join(repoRoot, 'test', 'fixtures', 'imp');

/** The value without source locations, for comparisons modulo positions. */
function strip(x: unknown): unknown {
  if (Array.isArray(x)) return x.map(strip);
  if (x && typeof x === 'object') {
    return Object.fromEntries(
      Object.entries(x as Record<string, unknown>)
        .filter(([k]) => k !== 'loc' && k !== 'file')
        .map(([k, v]) => [k, strip(v)]),
    );
  }
  return x;
}

function errorAt(text: string): string {
  try {
    parseImp(text, 'e.imp');
  } catch (e) {
    assert.ok(e instanceof TarsierError);
    return e.format();
  }
  assert.fail('expected a syntax error');
}

test('printing parses back to the same program (every fixture)', () => {
  const files = readdirSync(fixtureDir).filter((f) => f.endsWith('.imp'));
  assert.ok(files.length >= 5);
  for (const f of files) {
    const p = parseImp(readFileSync(join(fixtureDir, f), 'utf8'), f);
    const printed = printImp(p);
    const q = parseImp(printed, 'printed.imp');
    assert.deepEqual(strip(q), strip(p), f);
    assert.equal(printImp(q), printed, `${f}: printing is stable`);
  }
});

test('the example of the issue parses, with candidates and locations', () => {
  const text = `// comments: // to end of line, and /* ... */
var g: int;                                   // globals
procedure inc(x: int) returns (r: int)
  requires x >= 0;
  ensures r == x + 1;
{
  var t: int; var b: bool;
  t := havoc;
  r := x + 1;
  if (t > 0) { skip; } else { assume t <= 0; }
  while (t > 0)
    invariant t >= 0;
    candidate t < 100;
  {
    t := t - 1;
  }
  (t) := call inc(r);
  assert r == x + 1;
}
`;
  const p = parseImp(text, 'inc.imp');
  assert.equal(p.globals[0].name, 'g');
  const inc = p.procedures[0];
  assert.deepEqual(inc.locals.map((l) => l.name), ['t', 'b']);
  const body = inc.body!;
  assert.deepEqual(body.map((s) => s.kind), ['havoc', 'assign', 'if', 'while', 'call', 'assert']);
  const w = body[3] as Extract<Stmt, { kind: 'while' }>;
  assert.deepEqual([w.loc.line, w.loc.column], [11, 3]);
  assert.equal(printExpr(w.invariants[0]), 't >= 0');
  assert.equal(printExpr(w.candidates[0]), 't < 100');
  assert.deepEqual([w.invariants[0].loc.line, w.invariants[0].loc.column], [12, 15]);
  const call = body[4] as Extract<Stmt, { kind: 'call' }>;
  assert.deepEqual(call.targets, ['t']);
  assert.equal(call.proc, 'inc');
});

test('precedence and associativity', () => {
  const shape = (s: string) => printExpr(parseImpExpr(s, 'x'));
  assert.deepEqual(strip(parseImpExpr('a ==> b ==> c', 'x')), strip(parseImpExpr('a ==> (b ==> c)', 'x')));
  assert.deepEqual(strip(parseImpExpr('a <== b <== c', 'x')), strip(parseImpExpr('(a <== b) <== c', 'x')));
  assert.deepEqual(strip(parseImpExpr('a || b && c <==> d', 'x')), strip(parseImpExpr('(a || (b && c)) <==> d', 'x')));
  assert.deepEqual(strip(parseImpExpr('1 + 2 * 3 - 4 % 5', 'x')), strip(parseImpExpr('(1 + (2 * 3)) - (4 % 5)', 'x')));
  assert.deepEqual(strip(parseImpExpr('x & y == z', 'x')), strip(parseImpExpr('(x & y) == z', 'x')));
  assert.deepEqual(strip(parseImpExpr('-x * y', 'x')), strip(parseImpExpr('(-x) * y', 'x')));
  assert.equal(shape('(a ==> b) ==> c'), '(a ==> b) ==> c');
  assert.equal(shape('a - (b - c)'), 'a - (b - c)');
  assert.equal(shape('(a - b) - c'), 'a - b - c');
  assert.equal(shape('m[i := 1][j]'), 'm[i := 1][j]');
  assert.equal(shape('if a then 1 else 2'), '(if a then 1 else 2)');
  assert.equal(shape('- -1'), '-(-1)');
  assert.equal(shape('sdiv(x, 3bv32)'), 'sdiv(x, 3bv32)');
});

test('m[i] := v is sugar for a store', () => {
  const p = parseImp('procedure f(i: int) { var m: [int][int]bool; m[i][2] := true; }', 'f.imp');
  assert.equal(printImp(p).includes('m := m[i := m[i][2 := true]];'), true);
});

test('a procedure without a body', () => {
  const p = parseImp('procedure f(x: int) returns (r: int) ensures r > x;\nprocedure g();', 'f.imp');
  assert.equal(p.procedures[0].body, undefined);
  assert.equal(p.procedures[1].body, undefined);
  assert.deepEqual(strip(parseImp(printImp(p), 'p')), strip(p));
});

test('syntax errors give file:line:column', () => {
  assert.equal(errorAt('procedure f() {\n  x := ;\n}'), "e.imp:2:8: error: expected an expression but found ';'");
  assert.equal(errorAt('procedure f() { /* open'), 'e.imp:1:17: error: unterminated comment');
  assert.equal(errorAt('procedure f() { assert a < b < c; }'), "e.imp:1:30: error: comparisons do not chain: put parentheses around one side of '<'");
  assert.equal(errorAt('procedure f() { assert a ==> b <== c; }'), "e.imp:1:32: error: mixing '==>' and '<==' needs parentheses");
  assert.equal(errorAt('procedure f() { assert 3bv7 == x; }'), 'e.imp:1:24: error: unsupported bit-vector width 7 (use 8, 16, 32 or 64)');
  assert.equal(errorAt('procedure f() { assert 300bv8 == x; }'), 'e.imp:1:24: error: literal 300 does not fit in 8 bits');
  assert.equal(errorAt('var x: bv12;'), 'e.imp:1:8: error: unsupported bit-vector width 12 (use 8, 16, 32 or 64)');
  assert.equal(errorAt('procedure f() { skip; var y: int; }'), 'e.imp:1:23: error: local variables must be declared at the start of the procedure body');
  assert.equal(errorAt('procedure f() { x := foo(1); }'), "e.imp:1:22: error: unknown function 'foo' (procedures are called with a 'call' statement)");
  assert.equal(errorAt('procedure f() { skip; '), "e.imp:1:23: error: expected '}' but found end of file");
  assert.equal(errorAt('procedure f() { x := 1 @ 2; }'), "e.imp:1:24: error: unexpected character '@'");
  assert.equal(errorAt('x := 1;'), "e.imp:1:1: error: expected 'var' or 'procedure' but found 'x'");
});

test('a goal annotation on an assert parses, prints and parses back', () => {
  const text = `procedure main() { var x: bv8;
  x := havoc;
  assert {:goal valid-deref 3} x != 0bv8;
  assert {:goal reach_error 0} false;
  assert x == x;
}`;
  const p = parseImp(text, 'g.imp');
  const body = p.procedures[0]!.body!;
  const goals = body.map((s) => (s.kind === 'assert' ? s.goal : undefined));
  assert.deepEqual(goals, [undefined, { kind: 'valid-deref', id: 3 }, { kind: 'reach_error', id: 0 }, undefined]);
  const printed = printImp(p);
  assert.match(printed, /assert \{:goal valid-deref 3\} x != 0bv8;/);
  assert.doesNotMatch(printed, /assert \{:goal [^}]*\} x == x/);
  const q = parseImp(printed, 'printed.imp');
  assert.deepEqual(strip(q), strip(p));
  assert.equal(printImp(q), printed);
});

test('a malformed goal annotation is a syntax error at its position', () => {
  assert.match(errorAt('procedure main() { assert {:gaol x 1} true; }'), /e\.imp:1:29: error: .*expected 'goal'/);
  assert.match(errorAt('procedure main() { assert {:goal overflow} true; }'), /expected the goal's number/);
  // The parts of a kind are joined only where no space separates them.
  assert.match(errorAt('procedure main() { assert {:goal valid - deref 1} true; }'), /expected the goal's number/);
  assert.match(errorAt('procedure main() { assert {:goal 3 overflow} true; }'), /expected a goal kind/);
});
